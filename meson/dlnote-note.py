#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dlnote-note.py - make a dlopen note object for a Meson target (docs/build-systems.md).

    dlnote-note.py OUTPUT [--tool PATH] [--depfile PATH] [DLNOTE-INJECT ARGS...] --cc CC [ARGS...]

Compiles a template that defines nothing with CC ARGS -fno-lto (the target's compiler and ABI
flags, never LTO: clang -flto objects are bitcode), then runs
`dlnote-inject -q ARGS... -o OUTPUT template.o`.  OUTPUT is replaced only when its bytes
change (Meson's generator rules have restat: nothing relinks for an unchanged note).

A note object is for executables, shared libraries and modules.  In a static library it would be
a member that defines no symbol, which no link takes out of the archive: OUTPUT in a static
library's private directory (<name>.a.p) is refused in one line.  Static libraries (and
both_libraries(), and libraries whose objects go into a static library) compile the entries into
their objects instead, with the header `dlnote-inject --header` writes; and `dlnote-inject
--check` on the built library (the check custom_target of the same page) fails the build when
an archive holds entries that no link takes.  --pull (dlopen_note_static, dlnote 0.1) is refused
with the same advice.

--depfile PATH (the generator's @DEPFILE@) names this script, so editing it remakes the note
objects.  It needs Python 3 only: the subproject runs it with the Python that runs Meson, an
installed copy runs through its #! line.
"""
import os
import subprocess
import sys

TOOL = "@DLNOTE_INJECT@"    # the installed copy names the installed tool
DOCS = 'docs/build-systems.md, "Static and object libraries", Meson'


def fail(message):
    sys.exit(f"dlnote-note.py: {message}")


def check(output):
    """Refuses (exit 1, one line) a note object made for a static library's own objects."""
    here = os.path.normpath(os.path.relpath(output) if os.path.isabs(output) else output)
    private = os.path.dirname(here)
    if private.endswith(".a.p"):
        remove(output)
        fail(f"{output}: the static library {private[:-2]} would hold this note object, which no "
             f"link takes out of the archive: its entries would be lost; compile them into the "
             f"library's objects with the notes header instead ({DOCS})")


def remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def main(argv):
    if len(argv) < 2 or "--cc" not in argv:
        fail("usage: dlnote-note.py OUTPUT [--tool PATH] [--depfile PATH] [ARGS...] --cc CC [ARGS...]")
    output = argv[0]
    cut = argv.index("--cc")
    args, cc = argv[1:cut], argv[cut + 1:]
    if not cc:
        fail("no compiler after --cc")
    depfile = None
    tool = TOOL if not TOOL.startswith("@") else "dlnote-inject"
    while args and args[0] in ("--pull", "--tool", "--depfile"):
        if len(args) < 2:
            fail(f"no value after {args[0]}")
        if args[0] == "--pull":
            remove(output)
            fail(f"{output}: dlopen_note_static (a note object pulled by -Wl,-u) is gone: a link "
                 f"that did not pull it lost the entries; compile them into the library's "
                 f"objects with the notes header instead ({DOCS})")
        elif args[0] == "--tool":
            tool = args[1]
        else:
            depfile = args[1]
        args = args[2:]

    check(output)
    source, template, made = output + ".template.c", output + ".template.o", output + ".new"
    with open(source, "w", encoding="utf-8") as f:
        f.write("/* dlnote template: the target's compiler and ABI flags, never LTO. */\n")
        f.write("typedef int dlnote_template_unused;\n")
    try:
        subprocess.run(cc + ["-fno-lto", "-c", source, "-o", template], check=True)
        subprocess.run([tool, "-q"] + args + ["-o", made, template], check=True)
        if depfile:
            escaped = output.replace("$", "$$").replace(" ", "\\ ")
            with open(depfile, "w", encoding="utf-8") as f:
                dep = os.path.abspath(__file__).replace("$", "$$").replace(" ", "\\ ")
                f.write(f"{escaped}: {dep}\n")
        if same_bytes(made, output):
            os.unlink(made)
        else:
            os.replace(made, output)
    except subprocess.CalledProcessError as e:
        remove(output)
        sys.exit(e.returncode or 1)
    except OSError as e:
        remove(output)
        fail(f"{e.filename}: {e.strerror}")
    finally:
        for path in (source, template, made):
            if os.path.exists(path):
                os.unlink(path)


def same_bytes(a, b):
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except FileNotFoundError:
        return False


if __name__ == "__main__":
    main(sys.argv[1:])
