#!/usr/bin/env python3
"""dlnote-note.py - make a dlopen note object for a Meson target (docs/build-systems.md).

    dlnote-note.py OUTPUT [--pull NAME] [--tool PATH] [DLNOTE-INJECT ARGS...] --cc CC [ARGS...]

Compiles a template that defines nothing with CC ARGS -fno-lto (the target's compiler and ABI
flags, never LTO: clang -flto objects are bitcode), then runs
`dlnote-inject -q ARGS... -o OUTPUT template.o`.

--pull NAME is for static libraries: the template then defines one hidden symbol,
dlnote_pull_NAME (NAME with every character that is not a letter, digit or '_' made '_'), and
every link that uses the library must pull the note object in with -Wl,-u,dlnote_pull_NAME:
a note object nothing refers to is never taken out of an archive.

Meson runs this script with the Python that runs Meson, so it needs nothing else.
"""
import os
import re
import subprocess
import sys

TOOL = "@DLNOTE_INJECT@"    # the installed copy names the installed tool


def fail(message):
    sys.exit(f"dlnote-note.py: {message}")


def main(argv):
    if len(argv) < 2 or "--cc" not in argv:
        fail("usage: dlnote-note.py OUTPUT [--pull NAME] [--tool PATH] [ARGS...] --cc CC [ARGS...]")
    output = argv[0]
    cut = argv.index("--cc")
    args, cc = argv[1:cut], argv[cut + 1:]
    if not cc:
        fail("no compiler after --cc")
    pull, tool = None, TOOL if not TOOL.startswith("@") else "dlnote-inject"
    while args and args[0] in ("--pull", "--tool"):
        if len(args) < 2:
            fail(f"no value after {args[0]}")
        if args[0] == "--pull":
            pull = "dlnote_pull_" + re.sub(r"[^A-Za-z0-9_]", "_", args[1])
        else:
            tool = args[1]
        args = args[2:]

    source, template = output + ".template.c", output + ".template.o"
    with open(source, "w", encoding="utf-8") as f:
        f.write("/* dlnote template: the target's compiler and ABI flags, never LTO. */\n")
        if pull:
            f.write(f"extern const char {pull};\n"
                    f'__attribute__((visibility("hidden"), used)) const char {pull} = 0;\n')
        else:
            f.write("typedef int dlnote_template_unused;\n")
    try:
        subprocess.run(cc + ["-fno-lto", "-c", source, "-o", template], check=True)
        subprocess.run([tool, "-q"] + args + ["-o", output, template], check=True)
    except subprocess.CalledProcessError as e:
        sys.exit(e.returncode or 1)
    except OSError as e:
        fail(f"{e.filename}: {e.strerror}")
    finally:
        for path in (source, template):
            if os.path.exists(path):
                os.unlink(path)


if __name__ == "__main__":
    main(sys.argv[1:])
