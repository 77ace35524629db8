#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""make bench: dlnote-inject against cp and objcopy on the same files, alternating, medians of
RUNS runs, peak RSS from wait4().  Timings are noisy: this is not part of the test suite.

  bench.py TOOL [RUNS] [archive|closure|build]   (archive, closure, build: only that table)
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOOL = os.path.abspath(sys.argv[1])
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
LLVM = "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1"
PYTHON_A = "/usr/lib/x86_64-linux-gnu/libpython3.11.a"    # Debian's libpython3.11-dev
ONLY_ARCHIVE = len(sys.argv) > 3 and sys.argv[3] == "archive"
ONLY_CLOSURE = len(sys.argv) > 3 and sys.argv[3] == "closure"
ONLY_BUILD = len(sys.argv) > 3 and sys.argv[3] == "build"
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def build_cost(work):
    """The header idiom's cost in a build (docs/build-systems.md, Autotools and plain make):
    this tree's own C sources, a real project of about 70 files, compiled with gcc -O2 -c,
    without and with -include of a header of the Autotools sample's three entries, alternately
    RUNS times; the CPU time (user + system) of the compilers, medians.  Printed, not asserted:
    the aim is within 1 %."""
    sources = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(SRC, "src"))
                     for f in fs if f.endswith(".c") and "/audit" not in dp)
    manifests = [os.path.join(SRC, "tests", "buildsys", "autotools", m)
                 for m in ("codec-dlopen.json", "parse-dlopen.json", "app-dlopen.json")]
    header = os.path.join(work, "notes.h")
    subprocess.run([TOOL, "-q", "--header", "-o", header] + manifests, check=True)
    flags = ["-std=c11", "-D_GNU_SOURCE", '-DVERSION="0"', "-O2", "-c", "-o", os.path.join(work, "b.o")]
    cpu = {"without": [], "with -include": []}
    for _ in range(RUNS):
        for name in cpu:
            extra = ["-include", header] if name != "without" else []
            before = os.times()
            for src in sources:
                subprocess.run(["gcc"] + flags + extra + [src], check=True, cwd=os.path.dirname(src))
            after = os.times()
            cpu[name].append(after.children_user - before.children_user +
                             after.children_system - before.children_system)
    base, with_ = (statistics.median(cpu[k]) for k in ("without", "with -include"))
    print(f"\n### Build CPU time with the notes header ({len(sources)} C files of this tree, gcc -O2, "
          f"3 entries)\n\nwithout: {base:.2f} s, with -include: {with_:.2f} s, "
          f"{(with_ / base - 1) * 100:+.2f} % (the aim: within 1 %)")


def measure(argv, cwd):
    """(seconds, peak RSS in KiB) of one run.  The time comes from a posix_spawn'd run; the
    peak RSS from GNU time in a second run (a forked child would count Python's own pages)."""
    null = os.open(os.devnull, os.O_WRONLY)
    old = os.getcwd()
    os.chdir(cwd)
    try:
        t0 = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
        _, status = os.waitpid(pid, 0)
        elapsed = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"failed: {' '.join(argv)}")
        rss = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, capture_output=True, text=True, check=True).stderr
        return elapsed, int(rss.strip().splitlines()[-1])
    finally:
        os.chdir(old)
        os.close(null)


def bench(cases, cwd, prepare=None):
    """cases: {name: argv}; run them alternately RUNS times.  prepare: {name: function} run
    before each run of that case (outside the timing)."""
    res = {k: [] for k in cases}
    for _ in range(RUNS):
        for name, argv in cases.items():
            if prepare and name in prepare:
                prepare[name]()
            res[name].append(measure(argv, cwd))
    return {k: (statistics.median(t for t, _ in v), max(r for _, r in v)) for k, v in res.items()}


def row(label, size, r, base):
    t, rss = r
    ratio = f"{t / base:5.2f}x" if base else "    -"
    print(f"| {label:<46} | {size:>9} | {t * 1000:9.2f} | {ratio} | {rss / 1024:7.1f} |")


def table(title, size, results, base_name):
    print(f"\n### {title}\n")
    print(f"| {'command':<46} | {'input':>9} | median ms | vs {base_name:<3}| RSS MiB |")
    print(f"|{'-' * 48}|{'-' * 11}|{'-' * 11}|{'-' * 7}|{'-' * 9}|")
    base = results[base_name][0]
    for name, r in results.items():
        row(name, size, r, base)


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{n:.0f} {unit}"
        n /= 1024
    return f"{n:.0f} TiB"


def main():
    work = tempfile.mkdtemp(prefix="dlnote-bench.")
    try:
        w = lambda *p: os.path.join(work, *p)
        with open(w("m.json"), "w") as f:
            f.write('[{"soname":["libzstd.so.1"],"feature":"zstd","description":"Support zstd compression","priority":"recommended"}]')
        subprocess.run([TOOL, "--help"], check=True, stdout=subprocess.DEVNULL)
        # The note bytes objcopy adds, so that both write the same thing.
        subprocess.run(["sh", "-c", f"cd {work} && printf 'int x;' > x.c && gcc -c x.c && {TOOL} -m m.json -o xn.o x.o && "
                        "objcopy -O binary --only-section=.note.dlopen xn.o note.bin"], check=True)
        objcopy = lambda src: ["objcopy", "--add-section", ".note.dlopen=note.bin", "--set-section-flags",
                               ".note.dlopen=alloc,readonly", src, "objcopy.out"]
        print(f"Machine: {os.uname().nodename} {os.uname().machine}, {os.cpu_count()} cores; "
              f"{time.strftime('%Y-%m-%d')}; {RUNS} runs each, alternating; medians.")

        if ONLY_BUILD:
            build_cost(work)
            return
        # 0. --closure over a whole root: every program of this machine's / (its ELF files in
        # the bin and libexec directories), one run, at recommended and suggested, paths and JSON.
        progs = subprocess.run(["sh", "-c", "find /usr/bin /usr/sbin /usr/libexec /usr/lib/systemd -type f -perm -u+x "
                                "2>/dev/null | sort > progs.txt; wc -l < progs.txt"], cwd=work, capture_output=True,
                               text=True, check=True).stdout.strip()
        some = lambda *a: ["sh", "-c", f"'{TOOL}' --closure --skip-non-elf --files-from=progs.txt {' '.join(a)} "
                           "> out.txt 2>/dev/null; [ $? -le 1 ]"]
        r = bench({"--closure (recommended)": some(), "--closure --min-priority=suggested": some("--min-priority=suggested"),
                   "--closure --format=json": some("--format=json")}, work)
        listed = subprocess.run(["sh", "-c", f"'{TOOL}' --closure --skip-non-elf --files-from=progs.txt 2>/dev/null | wc -l"],
                                cwd=work, capture_output=True, text=True).stdout.strip()
        table(f"--closure of every program of / ({progs} files, {listed} paths listed)", progs, r, "--closure (recommended)")
        if ONLY_CLOSURE:
            return

        # 0b. Which symbols a large program's data names from libLLVM (100,000 dynamic symbols,
        # looked up through .gnu.hash), libstdc++ and zlib: --list --format=symbols and rpm.
        big = shutil.which("gdb") or TOOL
        shutil.copy(big, w("sym.bin"))
        subprocess.run([TOOL, "--feature", "llvm", "--soname", "libLLVM-15.so.1", "--feature", "cxx", "--soname",
                        "libstdc++.so.6", "--feature", "z", "--soname", "libz.so.1", "sym.bin"], cwd=work, check=True)
        r = bench({"--list": [TOOL, "--list", "sym.bin"], "--list --format=symbols": [TOOL, "--list", "--format=symbols", "sym.bin"],
                   "--list --format=rpm": [TOOL, "--list", "--format=rpm", "sym.bin"]}, work)
        table(f"The symbols {os.path.basename(big)} names from libLLVM, libstdc++ and zlib", human(os.path.getsize(w("sym.bin"))),
              r, "--list")

        # 6. (first, so that "archive" can stop after it) A large static archive: every ELF
        # member edited, written with -o and in place.
        shutil.copy(PYTHON_A, w("py.a"))
        nmembers = subprocess.run(["ar", "t", w("py.a")], capture_output=True, text=True, check=True).stdout.count("\n")
        fresh = lambda *names: (lambda: [os.unlink(w(n)) for n in names if os.path.exists(w(n))])
        def reset_py():
            shutil.copy(PYTHON_A, w("py-inplace.a"))
        shutil.copy(PYTHON_A, w("cp-existing.out"))
        r = bench({"cp": ["cp", "py.a", "cp.out"],
                   "cp over an existing file": ["cp", "py.a", "cp-existing.out"],
                   "dlnote-inject -m m.json -o out (every member)": [TOOL, "-m", "m.json", "-o", "tool.out", "py.a"],
                   "dlnote-inject -m m.json (in place, every member)": [TOOL, "-m", "m.json", "py-inplace.a"]}, work,
                  prepare={"cp": fresh("cp.out"), "dlnote-inject -m m.json -o out (every member)": fresh("tool.out"),
                           "dlnote-inject -m m.json (in place, every member)": reset_py})
        table(f"libpython3.11.a, {nmembers} members, every member edited", human(os.path.getsize(w("py.a"))), r, "cp")
        if ONLY_ARCHIVE:
            return

        # 1. The big library, written to a new file.
        shutil.copy(LLVM, w("llvm.so"))
        size = os.path.getsize(w("llvm.so"))
        # Every command writes a file that does not exist yet (replacing one costs a flush on
        # ext4, see docs/performance.md).
        fresh = lambda *names: (lambda: [os.unlink(w(n)) for n in names if os.path.exists(w(n))])
        r = bench({"cp": ["cp", "llvm.so", "cp.out"],
                   "dlnote-inject -m m.json -o out (new note)": [TOOL, "-m", "m.json", "-o", "tool.out", "llvm.so"],
                   "objcopy --add-section": objcopy("llvm.so")}, work,
                  prepare={"cp": fresh("cp.out"), "dlnote-inject -m m.json -o out (new note)": fresh("tool.out"),
                           "objcopy --add-section": fresh("objcopy.out")})
        table("libLLVM-15.so.1 (PHT moved, written with -o)", human(size), r, "cp")

        # 2. In place, note fits where the old one was: only changed bytes are written.
        subprocess.run([TOOL, "-m", "m.json", "-o", "llvm-noted.so", "llvm.so"], cwd=work, check=True)
        with open(w("m2.json"), "w") as f:
            f.write('[{"soname":["libzstd.so.2"],"feature":"zstd","description":"Support zstd compression","priority":"recommended"}]')
        # Every run changes the note (two manifests of the same size, alternating), so no run is
        # the no-op that a repeated command is.
        flip = {"n": 0}
        def alternate():
            flip["n"] += 1
            shutil.copy(w("m.json" if flip["n"] % 2 else "m2.json"), w("mx.json"))
        r = bench({"cp": ["cp", "llvm-noted.so", "cp.out"],
                   "dlnote-inject -m mx.json (in place, note fits)": [TOOL, "-m", "mx.json", "llvm-noted.so"]}, work,
                  prepare={"dlnote-inject -m mx.json (in place, note fits)": alternate})
        table("libLLVM-15.so.1 in place, rewriting a note that fits", human(size), r, "cp")

        # 3. Memory whatever the size: 1 MB, 100 MB, a sparse 4 GB file.
        subprocess.run(["sh", "-c", f"cd {work} && printf 'int main(void){{return 0;}}' > p.c && gcc p.c -o small && "
                        "head -c 1000000 /dev/urandom > blob && objcopy --add-section .blob=blob small one-mb && "
                        "cp small sparse && truncate -s 4G sparse"], check=True)
        for label, f in (("1 MB", "one-mb"), ("117 MB", "llvm.so"), ("4 GB sparse", "sparse")):
            r = bench({"cp": ["cp", "--sparse=always", f, "cp.out"],
                       "dlnote-inject -o": [TOOL, "-m", "m.json", "-o", "tool.out", f]}, work,
                      prepare={"cp": fresh("cp.out"), "dlnote-inject -o": fresh("tool.out")})
            table(f"Peak memory, {label}", human(os.path.getsize(w(f))), r, "cp")

        # 4. A small PIE: start-up dominates.
        r = bench({"objcopy --add-section": objcopy("small"),
                   "dlnote-inject -o": [TOOL, "-m", "m.json", "-o", "tool.out", "small"],
                   "cp": ["cp", "small", "cp.out"]}, work)
        table("Small PIE", human(os.path.getsize(w("small"))), r, "objcopy --add-section")

        # 5. 200 objects rewritten in place by one invocation.
        objs = [f"o{i}.o" for i in range(200)]
        subprocess.run(["sh", "-c", f"cd {work} && for i in $(seq 0 199); do cp x.o o$i.o; done"], check=True)
        reset = lambda: subprocess.run(["sh", "-c", f"cd {work} && for i in $(seq 0 199); do cp x.o o$i.o; done"], check=True)
        r = bench({"dlnote-inject -m m.json 200 objects": [TOOL, "-m", "m.json"] + objs}, work,
                  prepare={"dlnote-inject -m m.json 200 objects": reset})
        t, rss = r["dlnote-inject -m m.json 200 objects"]
        print(f"\n### 200 objects in place, one invocation\n\n{t * 1000:.1f} ms in all, "
              f"{t * 1000 / 200:.3f} ms per file, peak RSS {rss / 1024:.1f} MiB")

        # 6. The largest note accepted (a 16 MiB payload) and 100,000 entries, in every mode.
        bignote = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "bignote.py")
        for label, gen in (("the largest note accepted (16 MiB payload)", ["limit"]),
                           ("a note of 100,000 entries", ["entries", "100000"])):
            d = w("big")
            shutil.rmtree(d, ignore_errors=True)
            os.mkdir(d)
            subprocess.run(["/usr/bin/python3", bignote] + gen + [d], check=True)
            manifest = "limit.json" if gen[0] == "limit" else "m.json"
            subprocess.run(["sh", "-c", f"cd {d} && cp {manifest} m.json 2>/dev/null; cp m.json expect.json 2>/dev/null; "
                            f"test -f map.txt || : > map.txt; printf 'int x;' > x.c && gcc -c x.c && {TOOL} -m m.json -o big.o x.o"],
                           check=True)
            modes = {
                "--list --format=sonames": ["--list", "--format=sonames", "big.o"],
                "--list (table)": ["--list", "big.o"],
                "--list --json": ["--list", "--json", "big.o"],
                "--list --format=features": ["--list", "--format=features", "big.o"],
                "--list --format=rpm": ["--list", "--format=rpm", "big.o"],
                "--list --format=deb": ["-q", "--list", "--format=deb", "--deb-map", "map.txt", "big.o"],
                "--check": ["--check", "big.o"],
                "--check --expect": ["-q", "--check", "--expect", "expect.json", "big.o"],
                "--merge -m (all already there)": ["--merge", "-m", "m.json", "-o", "merged.o", "big.o"],
                "replace -m": ["-m", "m.json", "-o", "replaced.o", "big.o"],
                "--remove": ["--remove", "-o", "removed.o", "big.o"],
                "--discover": ["-q", "--discover", "big.o"],
            }
            r = bench({k: [TOOL] + v for k, v in modes.items()}, d)
            table(f"Every mode on {label}", human(os.path.getsize(os.path.join(d, "m.json"))), r, "--list --format=sonames")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
