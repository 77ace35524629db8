# SPDX-License-Identifier: MIT
# dlnoteFunctions.cmake - target_dlopen_notes(): give a CMake target FDO .note.dlopen entries.
#
#   target_dlopen_notes(<target>
#       [FEATURE <name>] [SONAME <soname>...] [DESCRIPTION <text>] [PRIORITY <priority>]
#       [MANIFEST <file.json>...])
#
# One call declares at most one entry (FEATURE/SONAME/DESCRIPTION/PRIORITY) and any number of
# manifests; repeated calls accumulate, in call order.  <target> is an executable, a shared,
# module, static or object library, created in any directory.
#
# How (see docs/build-systems.md for why): the entries end up in <target>-dlopen-note.o, an
# object the target links like any other of its objects.  It is made at build time by
#   dlnote-inject -q -m <manifest>... -o <target>-dlopen-note.o <template>.o
# where <template>.o is an empty C (or C++) file compiled by the target's own compiler with the
# target's compile options and without LTO, so the note object has the target's ELF class,
# byte order, e_machine and e_flags, and the same ABI marker sections (.note.GNU-stack,
# .note.gnu.property, .ARM.attributes, ...): linking it changes nothing but the note.
# Nothing is edited after the link, so install-time relinking and POST_BUILD limits don't apply.
#
# Static and object libraries are not linked: their entries must reach every program and shared
# library that links them, however it links them (CMake, pkg-config, the archive on a command
# line).  So they get no note object: every C/C++ source of the library is compiled with
#   -include <target>-dlopen-notes.h      (dlnote-inject --header)
# whose top-level __asm__ statements put the entries into every object the compiler makes (LTO
# bytecode included), one COMDAT group per entry keyed on its payload: whichever members a link
# takes, the program carries the entries once, with no link option.
#
# After each build of the target, dlnote-inject --check runs on it (<target>-dlnote-check, in
# ALL, through dlnoteCheck.cmake): an entry the program would carry twice (the in-code macro
# left on while the manifest declares the same entry) or an archive entry no link can take
# fails the build, with one line in the build log that names the cause, the fix and the file
# holding the check's every line.
#
# Needs the imported or built executable target dlnote::dlnote-inject (find_package(dlnote) or
# add_subdirectory of the dlnote source tree define it).
include_guard(GLOBAL)
# The check's script, beside this file (installed, or in the source tree); a global property,
# as this file is read once, in whichever directory first includes it.
set_property(GLOBAL PROPERTY DLNOTE_CHECK_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/dlnoteCheck.cmake")

if(CMAKE_VERSION VERSION_LESS 3.19)
  message(FATAL_ERROR "dlnote: target_dlopen_notes() needs CMake 3.19 or newer "
                      "(cmake_language(DEFER)); this is CMake ${CMAKE_VERSION}")
endif()

function(target_dlopen_notes target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "FEATURE;DESCRIPTION;PRIORITY" "SONAME;MANIFEST")
  set(who "target_dlopen_notes(${target})")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${who}: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${who}: no value after ${arg_KEYWORDS_MISSING_VALUES}")
  endif()
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "${who}: no target named '${target}'")
  endif()
  get_target_property(aliased "${target}" ALIASED_TARGET)
  if(aliased)
    set(target "${aliased}")
  endif()
  get_target_property(imported "${target}" IMPORTED)
  get_target_property(type "${target}" TYPE)
  if(imported OR NOT type MATCHES "^(EXECUTABLE|(SHARED|MODULE|STATIC|OBJECT)_LIBRARY)$")
    message(FATAL_ERROR "${who}: only executables, shared, module, static and object libraries "
                        "built here can carry dlopen notes ('${target}' is ${type})")
  endif()

  set(items "")
  if(DEFINED arg_FEATURE OR DEFINED arg_SONAME OR DEFINED arg_DESCRIPTION OR DEFINED arg_PRIORITY)
    if(NOT arg_SONAME)
      message(FATAL_ERROR "${who}: an entry needs at least one SONAME")
    endif()
    _dlnote_entry_json(entry)
    list(APPEND items "E")
  elseif(NOT arg_MANIFEST)
    message(FATAL_ERROR "${who}: give an entry (FEATURE/SONAME/DESCRIPTION/PRIORITY) or MANIFEST")
  endif()

  # Items are kept one per property, so texts with ';' survive; the finalizer reads them in order.
  get_property(count TARGET "${target}" PROPERTY DLNOTE_ITEM_COUNT)
  if(NOT count)
    set(count 0)
    if(type STREQUAL "OBJECT_LIBRARY" AND NOT TARGET "${target}-dlnote")
      # dlnote 0.1 gave object libraries a companion library that projects install with them;
      # it is empty now (the objects carry the entries), kept so those install() calls work.
      add_library("${target}-dlnote" INTERFACE)
    endif()
    # One finalizer per target, at the end of the top-level directory: every call, from any
    # directory, has happened by then, and that directory is always still open for DEFER.
    cmake_language(EVAL CODE
      "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL _dlnote_finalize [[${target}]])")
  endif()
  if(arg_MANIFEST)
    foreach(manifest IN LISTS arg_MANIFEST)
      get_filename_component(manifest "${manifest}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      set_property(TARGET "${target}" PROPERTY DLNOTE_ITEM_${count} "M${manifest}")
      math(EXPR count "${count} + 1")
    endforeach()
  endif()
  if(DEFINED entry)
    set_property(TARGET "${target}" PROPERTY DLNOTE_ITEM_${count} "E${entry}")
    math(EXPR count "${count} + 1")
  endif()
  set_property(TARGET "${target}" PROPERTY DLNOTE_ITEM_COUNT ${count})
endfunction()

# JSON object for the entry in arg_*.  Only '\' and '"' need escaping; anything else that JSON
# or the spec forbids (control characters, empty sonames, unknown priorities) is left for
# dlnote-inject to reject at build time, with its own message and position.
macro(_dlnote_entry_json out)
  set(${out} "")
  if(DEFINED arg_FEATURE)
    _dlnote_json_string(s "${arg_FEATURE}")
    string(APPEND ${out} "\"feature\":${s},")
  endif()
  if(DEFINED arg_DESCRIPTION)
    _dlnote_json_string(s "${arg_DESCRIPTION}")
    string(APPEND ${out} "\"description\":${s},")
  endif()
  if(DEFINED arg_PRIORITY)
    _dlnote_json_string(s "${arg_PRIORITY}")
    string(APPEND ${out} "\"priority\":${s},")
  endif()
  set(sonames "")
  foreach(soname IN LISTS arg_SONAME)
    _dlnote_json_string(s "${soname}")
    string(APPEND sonames ",${s}")
  endforeach()
  string(SUBSTRING "${sonames}" 1 -1 sonames)
  set(${out} "{${${out}}\"soname\":[${sonames}]}")
endmacro()

function(_dlnote_json_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# Write only when the content changes, so an unchanged configure rebuilds nothing.
function(_dlnote_write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()

function(_dlnote_finalize target)
  if(NOT TARGET dlnote::dlnote-inject)
    message(FATAL_ERROR "target_dlopen_notes(${target}): no target dlnote::dlnote-inject; "
                        "call find_package(dlnote) or add_subdirectory(<dlnote source>) first")
  endif()
  get_target_property(tdir "${target}" SOURCE_DIR)
  get_target_property(tbin "${target}" BINARY_DIR)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("C" IN_LIST languages)
    set(lang C)
    set(ext c)
  elseif("CXX" IN_LIST languages)
    set(lang CXX)
    set(ext cpp)
  else()
    message(FATAL_ERROR "target_dlopen_notes(${target}): needs the C or CXX language enabled")
  endif()

  set(work "${tbin}/CMakeFiles/${target}.dlnote")
  file(MAKE_DIRECTORY "${work}")
  get_target_property(type "${target}" TYPE)
  _dlnote_tool_args("${target}" "${work}" args deps)
  if(type MATCHES "^(STATIC|OBJECT)_LIBRARY$")
    _dlnote_compile_in("${target}" "${work}" "${lang}" "${tdir}" "${args}" "${deps}")
  else()
    _dlnote_link_in("${target}" "${work}" "${lang}" "${ext}" "${tdir}" "${args}" "${deps}")
  endif()
  _dlnote_check("${target}" "${type}" "${work}" "${args}" "${deps}")
endfunction()

# The tool's arguments, in call order; runs of inline entries become one generated manifest.
function(_dlnote_tool_args target work out_args out_deps)
  get_property(count TARGET "${target}" PROPERTY DLNOTE_ITEM_COUNT)
  set(args "")
  set(deps "")
  set(run "")
  set(runs 0)
  foreach(i RANGE ${count})
    set(kind "")
    if(i LESS count)
      get_property(item TARGET "${target}" PROPERTY DLNOTE_ITEM_${i})
      string(SUBSTRING "${item}" 0 1 kind)
      string(SUBSTRING "${item}" 1 -1 value)
    endif()
    if(kind STREQUAL "E")
      if(NOT run STREQUAL "")
        string(APPEND run ",\n")
      endif()
      string(APPEND run "${value}")
      continue()
    endif()
    if(NOT run STREQUAL "")
      math(EXPR runs "${runs} + 1")
      set(generated "${work}/entries-${runs}.json")
      _dlnote_write_if_changed("${generated}" "[${run}]\n")
      list(APPEND args -m "${generated}")
      list(APPEND deps "${generated}")
      set(run "")
    endif()
    if(kind STREQUAL "M")
      list(APPEND args -m "${value}")
      list(APPEND deps "${value}")
    endif()
  endforeach()
  set(${out_args} "${args}" PARENT_SCOPE)
  set(${out_deps} "${deps}" PARENT_SCOPE)
endfunction()

# Static and object libraries: every C/C++/Objective-C source is compiled with -include of the
# generated header, so every object carries the entries.
function(_dlnote_compile_in target work lang tdir args deps)
  if(NOT CMAKE_${lang}_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "target_dlopen_notes(${target}): static and object libraries need GCC or "
                        "Clang (-include); this is ${CMAKE_${lang}_COMPILER_ID}")
  endif()
  set(header "${work}/${target}-dlopen-notes.h")
  add_custom_command(OUTPUT "${header}"
    COMMAND "$<TARGET_FILE:dlnote::dlnote-inject>" -q --header ${args} -o "${header}"
    DEPENDS dlnote::dlnote-inject ${deps}
    COMMENT "Generating dlopen notes header for ${target}"
    VERBATIM)
  target_sources("${target}" PRIVATE "${header}")
  set_source_files_properties("${header}" TARGET_DIRECTORY "${target}"
    PROPERTIES GENERATED TRUE HEADER_FILE_ONLY TRUE)
  # A target with precompiled headers: the header goes into them (GCC and Clang keep its
  # top-level asm in the PCH), because an -include comes before CMake's own, which makes GCC
  # skip the PCH silently (SDL3: twice the CPU per object).  Its sources that skip the PCH get
  # the -include.  Not when another target reuses the PCH (it would carry these entries too),
  # nor for a target that reuses another's (whose PCH lacks them): -include, PCH unused.
  get_target_property(pch "${target}" PRECOMPILE_HEADERS)
  get_target_property(reuse "${target}" PRECOMPILE_HEADERS_REUSE_FROM)
  set(reusers "")
  if(pch AND NOT reuse)
    _dlnote_pch_reusers("${target}" "${CMAKE_SOURCE_DIR}" reusers)
    if(reusers)
      message(WARNING "target_dlopen_notes(${target}): ${reusers} reuse its precompiled header, "
                      "which must then not hold the entries: they are compiled in with -include, "
                      "and GCC does not use the precompiled header")
    endif()
  endif()
  if(pch AND NOT reuse AND NOT reusers)
    target_precompile_headers("${target}" PRIVATE "${header}")
    get_target_property(sources "${target}" SOURCES)
    foreach(source IN LISTS sources)
      get_source_file_property(skip "${source}" TARGET_DIRECTORY "${target}" SKIP_PRECOMPILE_HEADERS)
      if(skip)
        set_property(SOURCE "${source}" TARGET_DIRECTORY "${target}" APPEND PROPERTY COMPILE_OPTIONS
          "$<$<COMPILE_LANGUAGE:C,CXX,OBJC,OBJCXX>:-include${header}>")
      endif()
    endforeach()
  else()
    # One argument (-include<path>: gcc and clang take it joined), so no SHELL: is needed.
    target_compile_options("${target}" PRIVATE
      "$<$<COMPILE_LANGUAGE:C,CXX,OBJC,OBJCXX>:-include${header}>")
  endif()
  _dlnote_depends("${target}" "${tdir}" "${header}")
endfunction()

# The targets of `dir` and the directories under it whose PRECOMPILE_HEADERS_REUSE_FROM is
# `target`, appended to `out`.
function(_dlnote_pch_reusers target dir out)
  set(found "${${out}}")
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(from "${t}" PRECOMPILE_HEADERS_REUSE_FROM)
    if(from STREQUAL target)
      list(APPEND found "${t}")
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _dlnote_pch_reusers("${target}" "${sub}" found)
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# The target waits for the tool and for `output`, whose rule lives in this directory (the top
# level, where the finalizer runs): Makefile generators only run it through a target here.
function(_dlnote_depends target tdir output)
  add_dependencies("${target}" dlnote::dlnote-inject)
  if(NOT tdir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    add_custom_target("${target}-dlopen-note" DEPENDS "${output}")
    add_dependencies("${target}" "${target}-dlopen-note")
  endif()
endfunction()

# After every build of the target: no entry twice, none that an archive link cannot take.
# (Objects that are LLVM bitcode, clang -flto, hold their notes in the bitcode: skipped.)
# dlnoteCheck.cmake writes the tool's output to check.txt, touches the stamp when the check
# passes, and says one line when it fails: then the stamp is missing, and compare_files (which
# prints nothing) fails the build.
function(_dlnote_check target type work args deps)
  get_property(script GLOBAL PROPERTY DLNOTE_CHECK_SCRIPT)
  set(stamp "${work}/checked")
  if(type STREQUAL "OBJECT_LIBRARY")
    set(files "$<TARGET_OBJECTS:${target}>")
  else()
    set(files "$<TARGET_FILE:${target}>")
  endif()
  add_custom_command(OUTPUT "${stamp}"
    COMMAND "${CMAKE_COMMAND}" "-DTOOL=$<TARGET_FILE:dlnote::dlnote-inject>" "-DTARGET=${target}"
            "-DREPORT=${work}/check.txt" "-DSTAMP=${stamp}" -P "${script}" -- ${args} ${files}
    COMMAND "${CMAKE_COMMAND}" -E compare_files "${stamp}" "${stamp}"
    DEPENDS dlnote::dlnote-inject "${target}" ${files} "${script}" ${deps}
    COMMENT "Checking the dlopen notes of ${target}"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  add_custom_target("${target}-dlnote-check" ALL DEPENDS "${stamp}")
endfunction()

# Executables, shared libraries and modules: a note object linked with the target's objects.
function(_dlnote_link_in target work lang ext tdir args deps)
  set(template_src "${CMAKE_BINARY_DIR}/CMakeFiles/dlnote/dlnote-template.${ext}")
  # It defines nothing: only the compiler's ELF header and ABI marker sections matter.
  _dlnote_write_if_changed("${template_src}"
    "/* dlnote template: built with the target's compiler and options, never with LTO. */
typedef int dlnote_template_unused;
")

  # The template object: the target's compiler, the target's compile options (this includes
  # its directory's add_compile_options and its dependencies' usage requirements), no LTO.
  set(template "${target}-dlnote-template")
  add_library("${template}" OBJECT EXCLUDE_FROM_ALL "${template_src}")
  set(options "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>")
  set(configs ${CMAKE_CONFIGURATION_TYPES} ${CMAKE_BUILD_TYPE})
  if(NOT tdir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    # CMAKE_<LANG>_FLAGS are per directory: bring the target directory's ones along if they differ.
    foreach(suffix "" ${configs})
      if(suffix)
        string(TOUPPER "_${suffix}" suffix)
      endif()
      get_directory_property(theirs DIRECTORY "${tdir}" DEFINITION CMAKE_${lang}_FLAGS${suffix})
      if(NOT "${theirs}" STREQUAL "${CMAKE_${lang}_FLAGS${suffix}}")
        separate_arguments(theirs NATIVE_COMMAND "${theirs}")
        if(suffix)
          string(SUBSTRING "${suffix}" 1 -1 config)
          list(TRANSFORM theirs REPLACE "^(.*)$" "$<$<CONFIG:${config}>:\\1>")
        endif()
        list(APPEND options ${theirs})
      endif()
    endforeach()
  endif()
  if(CMAKE_${lang}_COMPILER_ID MATCHES "GNU|Clang")
    # Last, so it wins over -flto from any flag set: clang -flto objects are bitcode.
    list(APPEND options -fno-lto)
  endif()
  target_compile_options("${template}" PRIVATE ${options})
  set_target_properties("${template}" PROPERTIES
    LINKER_LANGUAGE ${lang} POSITION_INDEPENDENT_CODE ON INTERPROCEDURAL_OPTIMIZATION OFF)
  foreach(config IN LISTS configs)
    string(TOUPPER "${config}" config)
    set_property(TARGET "${template}" PROPERTY INTERPROCEDURAL_OPTIMIZATION_${config} OFF)
  endforeach()

  set(note "${work}/${target}-dlopen-note.o")
  add_custom_command(OUTPUT "${note}"
    COMMAND "$<TARGET_FILE:dlnote::dlnote-inject>" -q ${args} -o "${note}"
            "$<TARGET_OBJECTS:${template}>"
    DEPENDS dlnote::dlnote-inject "${template}" "$<TARGET_OBJECTS:${template}>" ${deps}
    COMMENT "Generating dlopen note object for ${target}"
    VERBATIM)
  target_sources("${target}" PRIVATE "${note}")
  set_source_files_properties("${note}" TARGET_DIRECTORY "${target}"
    PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  _dlnote_depends("${target}" "${tdir}" "${note}")
endfunction()
