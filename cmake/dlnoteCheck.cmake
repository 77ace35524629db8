# SPDX-License-Identifier: MIT
# dlnoteCheck.cmake - the check that target_dlopen_notes() runs after each build of a target
# (dlnoteFunctions.cmake, _dlnote_check), in script mode:
#
#   cmake -DTOOL=<dlnote-inject> -DTARGET=<name> -DREPORT=<file> -DSTAMP=<file>
#         -P dlnoteCheck.cmake -- [-m <manifest>]... <file>...
#
# It runs `dlnote-inject --check --skip-non-elf [-m <manifest>]... <file>...` (the manifests
# the target's notes were made from: an entry of theirs that the code declares too is an
# error, while the code's own entries may repeat at several priorities) and writes everything the tool says
# to REPORT. When the check passes, it touches STAMP and prints nothing. When it fails, the build
# log gets one line: the tool's own message (one line that names the cause and the fix), how
# many more it said (one per other file that failed), and REPORT, which holds every line (each
# distinct error once, with the members that give it).  SDL3-static with its macros left on
# printed 40 lines with `--check -q`, one per entry declared twice (one line since). STAMP is then missing, and the command after this one in the custom command
# fails the build without a word (a script cannot end with a status of its own without CMake's
# error block of several lines).
cmake_minimum_required(VERSION 3.19)

foreach(var TOOL TARGET REPORT STAMP)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "dlnoteCheck.cmake: -D${var}=... is missing")
  endif()
endforeach()
set(files "")
set(after_dashes FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_dashes)
    list(APPEND files "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after_dashes TRUE)
  endif()
endforeach()

file(REMOVE "${STAMP}")
execute_process(COMMAND "${TOOL}" --check --skip-non-elf ${files}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(WRITE "${REPORT}" "${out}${err}")
if(status EQUAL 0)
  file(TOUCH "${STAMP}")
  return()
endif()

# The tool says one line on stderr per file that failed; the first goes to the build log.
# The text is never made a CMake list: its lines hold ';' ("alignment 32; the spec requires 4"),
# which a list would cut into elements.
string(REGEX REPLACE "^\n+" "" rest "${err}")
string(FIND "${rest}" "\n" end)
if(rest STREQUAL "")
  set(first "dlnote-inject --check ended with status ${status} and said nothing on stderr")
  set(rest "")
elseif(end EQUAL -1)
  set(first "${rest}")
  set(rest "")
else()
  string(SUBSTRING "${rest}" 0 ${end} first)
  math(EXPR end "${end} + 1")
  string(SUBSTRING "${rest}" ${end} -1 rest)
endif()
# The other non-empty lines: the newlines between them, plus one (no list of the lines).
string(REGEX REPLACE "\n+" "\n" rest "${rest}")
string(REGEX REPLACE "^\n|\n$" "" rest "${rest}")
set(others 0)
if(NOT rest STREQUAL "")
  string(REGEX MATCHALL "\n" breaks "${rest}")
  list(LENGTH breaks others)
  math(EXPR others "${others} + 1")
endif()
set(more "")
if(others GREATER 0)
  set(more " (and ${others} more line(s) like it)")
endif()
message("${first}${more}; target ${TARGET}, every line of the check: ${REPORT}")
