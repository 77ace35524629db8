#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dlnote-note.py - make a dlopen note object for a Meson target (docs/build-systems.md).

    dlnote-note.py OUTPUT [--pull NAME] [--tool PATH] [--depfile PATH] [DLNOTE-INJECT ARGS...]
                   --cc CC [ARGS...]

Compiles a template that defines nothing with CC ARGS -fno-lto (the target's compiler and ABI
flags, never LTO: clang -flto objects are bitcode), then runs
`dlnote-inject -q ARGS... -o OUTPUT template.o`.  OUTPUT is replaced only when its bytes
change (Meson's generator rules have restat: nothing relinks for an unchanged note).

--pull NAME is for static libraries: the template then defines one hidden symbol,
dlnote_pull_NAME (NAME with every character that is not a letter, digit or '_' made '_'), and
every link that uses the library must pull the note object in with -Wl,-u,dlnote_pull_NAME:
a note object nothing refers to is never taken out of an archive.

Nothing may lose the entries silently, so before making OUTPUT it reads the build.ninja of the
build directory (the current directory, as Meson runs generators) and refuses, in one line:
- without --pull, a note object that a static library would hold (static_library(), the static
  half of both_libraries() or library(), another target's objects made into a static library);
- with --pull, a link (executable, shared library or module) that takes a static library
  holding the note object without -u<symbol> (e.g. -Wl,-u,...) and not as a whole archive.
--depfile PATH (the generator's @DEPFILE@) makes build.ninja a dependency of OUTPUT, so the
check runs again whenever Meson regenerates it.  Without build.ninja (another backend) only
the first rule is checked, from OUTPUT's directory (<target file>.p); the second is not.

It needs Python 3 only: the subproject runs it with the Python that runs Meson, an installed
copy runs through its #! line.  The depfile also names this script, so editing it remakes the
note objects.
"""
import os
import re
import shlex
import subprocess
import sys

TOOL = "@DLNOTE_INJECT@"    # the installed copy names the installed tool
DOCS = 'docs/build-systems.md, "Static and object libraries", Meson'


def fail(message):
    sys.exit(f"dlnote-note.py: {message}")


def ninja_words(line):
    """A build line's words, unescaped; an unescaped ':' is a word of its own (None)."""
    words, word, i = [], "", 0
    while i < len(line):
        c = line[i]
        if c == "$" and i + 1 < len(line):
            word += line[i + 1]     # '$ ', '$:', '$$'
            i += 2
            continue
        if c in " :":
            if word:
                words.append(word)
            if c == ":":
                words.append(None)
            word = ""
        else:
            word += c
        i += 1
    if word:
        words.append(word)
    return words


def ninja_statements(path):
    """(rule, outputs, explicit inputs, all inputs, LINK_ARGS) of the archive and link
    statements of the Ninja file PATH, read line by line."""
    current = None
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        pending = ""
        for raw in f:
            line = pending + raw.rstrip("\n")
            if line.endswith("$") and not line.endswith("$$"):
                pending = line[:-1]
                continue
            pending = ""
            if line.startswith("build "):
                if current:
                    yield current
                current = None
                words = ninja_words(line[6:])
                if None not in words:
                    continue
                cut = words.index(None)
                rest = words[cut + 1:]
                if not rest or "LINKER" not in rest[0]:
                    continue
                rule, inputs = rest[0], rest[1:]
                explicit = inputs[:inputs.index("|")] if "|" in inputs else inputs
                explicit = explicit[:explicit.index("||")] if "||" in explicit else explicit
                current = [rule, words[:cut], explicit,
                           [w for w in inputs if w not in (None, "|", "||")], []]
            elif current and line[:1] in (" ", "\t"):
                name, _, value = line.strip().partition(" = ")
                if name == "LINK_ARGS":
                    value = value.replace("$$", "\0").replace("$ ", " ").replace("$:", ":")
                    value = value.replace("\0", "$")
                    try:
                        current[4] = shlex.split(value)
                    except ValueError:
                        current[4] = value.split()
            elif current and line.strip():
                yield current
                current = None
    if current:
        yield current


def linker_words(args):
    """The link arguments with -Wl,a,b and -Xlinker a split into words."""
    words, i = [], 0
    while i < len(args):
        a = args[i]
        if a.startswith("-Wl,"):
            words += a[4:].split(",")
        elif a == "-Xlinker" and i + 1 < len(args):
            words.append(args[i + 1])
            i += 1
        else:
            words.append(a)
        i += 1
    return words


def pulls(words, symbol):
    for i, w in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else None
        if w in ("-u", "--undefined", "--require-defined") and following == symbol:
            return True
        if w in ("-u" + symbol, "--undefined=" + symbol, "-undefined=" + symbol,
                 "--require-defined=" + symbol):
            return True
    return False


def whole(words, archive):
    on = False
    for w in words:
        if w in ("--whole-archive", "-whole-archive"):
            on = True
        elif w in ("--no-whole-archive", "-no-whole-archive"):
            on = False
        elif on and os.path.normpath(w) == archive:
            return True
    return False


def check(output, pull):
    """Refuses (exit 1, one line) what would lose OUTPUT's entries; True if build.ninja was read."""
    here = os.path.normpath(os.path.relpath(output) if os.path.isabs(output) else output)
    private = os.path.dirname(here)
    if not os.path.exists("build.ninja"):
        if pull is None and private.endswith(".a.p"):
            refuse_plain(output, private[:-2])
        if pull is not None:
            print(f"dlnote-note.py: warning: {output}: no build.ninja here, so the links that use "
                  f"its static library are not checked for -u{pull} ({DOCS})", file=sys.stderr)
        return False
    archives, links = {}, []
    for rule, outs, explicit, inputs, args in ninja_statements("build.ninja"):
        if rule.startswith("STATIC_LINKER"):
            for out in outs:
                archives[os.path.normpath(out)] = {os.path.normpath(i) for i in explicit}
        else:
            links.append((outs, {os.path.normpath(i) for i in explicit},
                          {os.path.normpath(i) for i in inputs}, args))
    # The archives that hold the note object, also inside other archives.
    holding, grew = [], True
    while grew:
        grew = False
        for name, members in archives.items():
            if name not in holding and (here in members or members & set(holding)):
                holding.append(name)
                grew = True
    if pull is None:
        if holding:
            refuse_plain(output, holding[0])
        if private.endswith(".a.p"):
            refuse_plain(output, private[:-2])
        return True
    for outs, explicit, inputs, args in links:
        if here in explicit:
            continue
        words = linker_words(args)
        named = inputs | {os.path.normpath(w) for w in words if not w.startswith("-")}
        for archive in holding:
            if archive in named and not pulls(words, pull) and not whole(words, archive):
                remove(output)
                fail(f"{output}: {outs[0]} links {archive} without -Wl,-u,{pull}, and would lose "
                     f"these entries; give {archive} dependencies: declare_dependency(link_args: "
                     f"'-Wl,-u,{pull}') ({DOCS})")
    return True


def refuse_plain(output, archive):
    remove(output)
    fail(f"{output}: the static library {archive} would hold this note object, which nothing "
         f"pulls in: its entries would be lost; make it with dlopen_note_static and give the "
         f"library its pull dependency ({DOCS})")


def remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def main(argv):
    if len(argv) < 2 or "--cc" not in argv:
        fail("usage: dlnote-note.py OUTPUT [--pull NAME] [--tool PATH] [--depfile PATH] [ARGS...] --cc CC [ARGS...]")
    output = argv[0]
    cut = argv.index("--cc")
    args, cc = argv[1:cut], argv[cut + 1:]
    if not cc:
        fail("no compiler after --cc")
    pull, depfile = None, None
    tool = TOOL if not TOOL.startswith("@") else "dlnote-inject"
    while args and args[0] in ("--pull", "--tool", "--depfile"):
        if len(args) < 2:
            fail(f"no value after {args[0]}")
        if args[0] == "--pull":
            pull = "dlnote_pull_" + re.sub(r"[^A-Za-z0-9_]", "_", args[1])
        elif args[0] == "--tool":
            tool = args[1]
        else:
            depfile = args[1]
        args = args[2:]

    checked = check(output, pull)
    source, template, made = output + ".template.c", output + ".template.o", output + ".new"
    with open(source, "w", encoding="utf-8") as f:
        f.write("/* dlnote template: the target's compiler and ABI flags, never LTO. */\n")
        if pull:
            f.write(f"extern const char {pull};\n"
                    f'__attribute__((visibility("hidden"), used)) const char {pull} = 0;\n')
        else:
            f.write("typedef int dlnote_template_unused;\n")
    try:
        subprocess.run(cc + ["-fno-lto", "-c", source, "-o", template], check=True)
        subprocess.run([tool, "-q"] + args + ["-o", made, template], check=True)
        if depfile:
            escaped = output.replace("$", "$$").replace(" ", "\\ ")
            with open(depfile, "w", encoding="utf-8") as f:
                deps = (["build.ninja"] if checked else []) + [os.path.abspath(__file__)]
                deps = " ".join(d.replace("$", "$$").replace(" ", "\\ ") for d in deps)
                f.write(f"{escaped}: {deps}\n")
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
