#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""make check-distro: dlnote-inject on every ELF file of real Debian packages.

Downloads the packages listed in packages.txt (`apt-get download PKG:ARCH`, after
`dpkg --add-architecture ARCH && apt-get update` when needed) into a cache directory,
extracts them with `dpkg-deb -x`, and runs on every ELF file in them the steps of the test
matrix (tests/integration/test_linked.c): add, repeat, grow, grow past the page padding (a
note over 4 KiB), shrink, remove, re-add.  After
every step: the entries every reader decodes, readers.py validate, eu-elflint (nothing new),
GNU strip and eu-strip copies, and the program or library itself (natively or under
qemu-user), which must behave as the input did.  Objects (ET_REL) get the reader checks.

  check_distro.py --tool build/dlnote-inject --cache build/distro-cache [--report FILE]
                  [--max-files-per-package N] [--only ARCH]

Exit status 0 when nothing was found broken.  Debian 12 (bookworm) only.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "tests", "tools"))
import readers  # noqa: E402

# Debian architecture -> (GNU triplet, qemu-user program or None for native)
ARCHES = {
    "amd64": ("x86_64-linux-gnu", None),
    "arm64": ("aarch64-linux-gnu", "qemu-aarch64"),
    "armhf": ("arm-linux-gnueabihf", "qemu-arm"),
    "i386": ("i686-linux-gnu", "qemu-i386"),
    "ppc64el": ("powerpc64le-linux-gnu", "qemu-ppc64le"),
    "s390x": ("s390x-linux-gnu", "qemu-s390x"),
    "mips64el": ("mips64el-linux-gnuabi64", "qemu-mips64el"),
}
LIBDIR = {"i386": "i386-linux-gnu"}

M_BIG = json.dumps([
    {"soname": ["libzstd.so.1"], "feature": "zstd", "description": "Support zstd compression", "priority": "recommended"},
    {"soname": ["liblz4.so.1"], "feature": "lz4", "description": "Support lz4 compression", "priority": "suggested"},
    {"soname": ["libqrencode.so.4", "libqrencode.so.3"], "feature": "qrencode", "description": "QR codes", "priority": "suggested"},
], separators=(",", ":"))
GROWN_ADD = {"soname": ["libkmod.so.2"], "feature": "kmod"}
# A note larger than any page padding (over 4 KiB): it goes after the end of the file.
M_HUGE = [{"soname": [f"libbig{i}.so.1"], "feature": f"f{i}", "description": "an entry long enough that the note outgrows the page padding"}
          for i in range(60)]
M_SMALL = [{"soname": ["libz.so.1"]}]

DL_C = r"""#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) { void *h = dlopen(argv[1], RTLD_NOW); puts(h ? "loaded" : dlerror()); return !h; }
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True, errors="replace", **kw)


def log(msg):
    print(msg, flush=True)


def read_packages(path):
    pkgs = []
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if len(line) >= 2:
            pkgs.append((line[0], line[1:]))
    return pkgs


def download_all(cache, wanted):
    """One apt-get run for every .deb not in the cache yet (apt reads its lists once)."""
    missing = {}
    for pkg, arch in wanted:
        ddir = os.path.join(cache, arch)
        os.makedirs(ddir, exist_ok=True)
        if not any(f.startswith(pkg + "_") and f.endswith(".deb") for f in os.listdir(ddir)):
            missing.setdefault(arch, []).append(pkg)
    for arch, pkgs in missing.items():
        log(f"apt-get download {len(pkgs)} packages for {arch}")
        sh(f"cd '{os.path.join(cache, arch)}' && apt-get download " + " ".join(f"'{p}:{arch}'" for p in pkgs))


def fetch(cache, pkg, arch):
    """The package's .deb in the cache, downloaded once; extracted into cache/ARCH/x/PKG."""
    ddir = os.path.join(cache, arch)
    os.makedirs(ddir, exist_ok=True)
    debs = [f for f in os.listdir(ddir) if f.startswith(pkg + "_") and f.endswith(".deb")]
    if not debs:
        r = sh(f"cd '{ddir}' && apt-get download '{pkg}:{arch}'")
        if r.returncode:
            return None, r.stderr.strip().splitlines()[-1:] or ["apt-get download failed"]
        debs = [f for f in os.listdir(ddir) if f.startswith(pkg + "_") and f.endswith(".deb")]
    xdir = os.path.join(ddir, "x", pkg)
    if not os.path.isdir(xdir):
        os.makedirs(os.path.dirname(xdir), exist_ok=True)
        r = sh(f"dpkg-deb -x '{os.path.join(ddir, debs[0])}' '{xdir}.tmp' && mv '{xdir}.tmp' '{xdir}'")
        if r.returncode:
            return None, [r.stderr.strip()]
    return xdir, None


def elf_files(root):
    out = []
    for d, _, files in os.walk(root):
        for f in sorted(files):
            p = os.path.join(d, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            with open(p, "rb") as fh:
                head = fh.read(18)
            if head[:4] == b"\x7fELF" and len(head) == 18:
                out.append(p)
    return sorted(out)


def elf_type(path):
    e = readers.Elf(path)
    interp = any(p["type"] == 3 for p in e.phdrs)
    return e.type, interp


def elflint(path):
    r = sh(f"eu-elflint --gnu-ld '{path}' 2>&1")
    lines = set()
    for line in r.stdout.splitlines():
        if "note type 1081871370" in line or line.startswith("No errors"):
            continue
        line = re.sub(r"(phdr\[|program header entry |segment \[|loadable segment \[)[0-9]+", r"\1N", line)
        line = re.sub(r"section \[ *[0-9]+\]", "section [N]", line)
        lines.add(line)
    return sorted(lines)


class Arch:
    def __init__(self, name, work, libdirs):
        self.name = name
        self.triplet, self.qemu = ARCHES[name]
        self.strip = "strip" if self.qemu is None else f"{self.triplet}-strip"
        self.libpath = ":".join(libdirs)
        self.dl = os.path.join(work, f"dl-{name}")
        cc = "gcc" if self.qemu is None else f"{self.triplet}-gcc"
        with open(os.path.join(work, "dl.c"), "w") as f:
            f.write(DL_C)
        r = sh(f"{cc} -O1 -o '{self.dl}' '{os.path.join(work, 'dl.c')}' -ldl")
        if r.returncode:
            self.dl = None

    def prefix(self):
        if self.qemu is None:
            return f"env LD_LIBRARY_PATH='{self.libpath}' "
        return f"{self.qemu} -L /usr/{self.triplet} -E LD_LIBRARY_PATH='{self.libpath}' "

    def exercise(self, path, kind):
        """What the file does: a library is loaded by a program, a program prints its version."""
        if kind == "lib":
            if not self.dl:
                return None
            cmd = f"{self.prefix()}{self.dl} '{path}'"
        elif kind == "prog":
            cmd = f"{self.prefix()}'{path}' --version"
        else:
            return None
        try:
            r = sh(cmd + " </dev/null 2>&1", timeout=20)
        except subprocess.TimeoutExpired:
            return "timeout"
        return r.stdout.replace(path, "FILE")[:2000] + f"\nexit {r.returncode}"


class Checker:
    def __init__(self, args):
        self.tool = os.path.abspath(args.tool)
        self.problems = []
        self.stats = {"files": 0, "packages": 0, "linked": 0, "objects": 0, "refused": 0, "run": 0,
                      "steps": 0, "strategies": {}}

    def problem(self, where, msg):
        self.problems.append(f"{where}: {msg}")
        log(f"  PROBLEM {where}: {msg}")

    def entries(self, path):
        got = {}
        r = sh(f"'{self.tool}' --list --json '{path}'")
        got["tool"] = r.stdout.strip() if r.returncode == 0 else "error: " + r.stderr.strip()
        for reader in ("sections", "segments"):
            try:
                got[reader] = readers.compact(getattr(readers, "read_" + reader)(path))
            except Exception as exc:  # a reader that cannot parse the file is a finding too
                got[reader] = f"error: {exc}"
        return got

    def check_file(self, arch, path, label):
        etype, interp = elf_type(path)
        linked = etype in (2, 3)
        if etype not in (1, 2, 3):
            return
        kind = "obj" if etype == 1 else "prog" if (interp or etype == 2) else "lib"
        if etype == 3 and not interp and re.search(r"/(s?bin|libexec)/", path):
            kind = "prog"       # static-pie programs have no PT_INTERP
        self.stats["files"] += 1
        self.stats["linked" if linked else "objects"] += 1
        work = tempfile.mkdtemp(prefix="dlnote-distro.")
        try:
            self.check_copy(arch, path, label, work, kind, linked)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def check_copy(self, arch, path, label, work, kind, linked):
        # Each copy keeps the file's name (busybox and others act on argv[0]).
        base = os.path.basename(path)
        for d in ("a", "b", "c", "d"):
            os.mkdir(os.path.join(work, d))
        inp = os.path.join(work, "a", base)
        out = os.path.join(work, "b", base)
        shutil.copyfile(path, inp)
        os.chmod(inp, 0o755)
        shutil.copyfile(inp, out)
        os.chmod(out, 0o755)
        with open(os.path.join(work, "big.json"), "w") as f:
            f.write(M_BIG)
        with open(os.path.join(work, "huge.json"), "w") as f:
            f.write(readers.compact(M_HUGE))
        had = json.loads(self.entries(inp)["tool"] or "[]") if self.entries(inp)["tool"].startswith("[") else []
        lint_in = elflint(inp)
        run_in = arch.exercise(inp, kind) if linked else None
        if run_in is not None:
            self.stats["run"] += 1
        strip_in = {}
        for stripper in (arch.strip, "eu-strip"):
            st = os.path.join(work, "d", base)
            shutil.copyfile(inp, st)
            r = sh(f"{stripper} '{st}'")
            strip_in[stripper] = (r.returncode, arch.exercise(st, kind) if run_in is not None and r.returncode == 0 else None)
        grown = json.loads(M_BIG) + [GROWN_ADD]
        steps = [
            ("add", "-m big.json", json.loads(M_BIG)),
            ("repeat", "-m big.json", json.loads(M_BIG)),
            ("grow", "--merge --feature kmod --soname libkmod.so.2", grown),
            ("grow past the page padding", "-m huge.json", M_HUGE),
            ("shrink", "--soname libz.so.1", M_SMALL),
            ("remove", "--remove", []),
            ("re-add", "-m big.json", json.loads(M_BIG)),
        ]
        for name, opts, want in steps:
            where = f"{label} {name}"
            r = sh(f"cd '{work}' && '{self.tool}' -v {opts} '{out}'")
            self.stats["steps"] += 1
            if r.returncode:
                self.stats["refused"] += 1
                if r.returncode != 1 or not r.stderr.startswith("dlnote-inject: "):
                    self.problem(where, f"exit {r.returncode}: {r.stderr.strip()}")
                else:
                    log(f"  refused {label}: {r.stderr.strip()}")
                return
            m = re.search(r"^dlnote-inject: [^:]*: (.*)$", r.stderr, re.M)
            if m and name == "add":
                self.stats["strategies"][m.group(1)] = self.stats["strategies"].get(m.group(1), 0) + 1
            self.check_step(arch, where, inp, out, work, kind, linked, want, lint_in, run_in, strip_in)
        if had:
            log(f"  note: {label} had dlopen entries before: {readers.compact(had)[:200]}")

    def check_step(self, arch, where, inp, out, work, kind, linked, want, lint_in, run_in, strip_in):
        want_s = readers.compact(want)
        got = self.entries(out)
        has_shdrs = bool(readers.Elf(out).sections)
        for reader, val in got.items():
            if reader == "segments" and not linked:
                continue
            exp = "[]" if reader == "sections" and not has_shdrs else want_s
            if val != exp:
                self.problem(where, f"reader {reader} sees {val[:300]}")
        if linked:
            r = sh(f"/usr/bin/python3 '{SRC}/tests/tools/readers.py' validate '{inp}' '{out}'")
            if r.stdout.strip() != "OK":
                self.problem(where, "validate: " + (r.stdout + r.stderr).strip()[:500])
        lint = elflint(out)
        new = [x for x in lint if x not in lint_in]
        if new:
            self.problem(where, "eu-elflint: " + " | ".join(new)[:500])
        if run_in is not None:
            ran = arch.exercise(out, kind)
            if ran != run_in:
                self.problem(where, f"behaves differently: {ran[:300]!r} instead of {run_in[:300]!r}")
        for stripper in (arch.strip, "eu-strip"):
            st = os.path.join(work, "c", os.path.basename(out))
            shutil.copyfile(out, st)
            r = sh(f"{stripper} '{st}'")
            if (r.returncode != 0) != (strip_in[stripper][0] != 0):
                self.problem(where, f"{stripper} exit {r.returncode}: {r.stderr.strip()[:300]}")
                continue
            if r.returncode:
                continue
            if r.stderr.strip() and not sh(f"cp '{inp}' '{st}.in' && {stripper} '{st}.in' 2>&1; rm -f '{st}.in'").stdout.strip():
                self.problem(where, f"{stripper} complains: {r.stderr.strip()[:300]}")
            g = self.entries(st)["tool"]
            if g != want_s:
                self.problem(where, f"after {stripper} the entries are {g[:300]}")
            if run_in is not None and strip_in[stripper][1] is not None:
                ran = arch.exercise(st, kind)
                if ran != strip_in[stripper][1]:
                    self.problem(where, f"after {stripper} behaves differently: {ran[:300]!r} "
                                 f"instead of {strip_in[stripper][1][:300]!r}")


def ensure_arches(arches):
    have = set(sh("dpkg --print-architecture; dpkg --print-foreign-architectures").stdout.split())
    missing = [a for a in arches if a not in have]
    for a in missing:
        r = sh(f"dpkg --add-architecture {a}")
        if r.returncode:
            raise SystemExit(f"check-distro: dpkg --add-architecture {a}: {r.stderr.strip()}")
    if missing:
        log(f"added architectures {' '.join(missing)}; apt-get update")
        r = sh("apt-get update")
        if r.returncode:
            raise SystemExit(f"check-distro: apt-get update failed: {r.stderr.strip()[-300:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--packages", default=os.path.join(HERE, "packages.txt"))
    ap.add_argument("--report", default=None)
    ap.add_argument("--max-files-per-package", type=int, default=6)
    ap.add_argument("--only", default=None, help="one Debian architecture")
    args = ap.parse_args()
    pkgs = read_packages(args.packages)
    arches = sorted({a for _, al in pkgs for a in al if not args.only or a == args.only})
    ensure_arches(arches)
    chk = Checker(args)
    work = tempfile.mkdtemp(prefix="dlnote-distro-build.")
    fetched = {}
    download_all(args.cache, [(p, a) for p, al in pkgs for a in al if not args.only or a == args.only])
    for pkg, al in pkgs:
        for a in al:
            if args.only and a != args.only:
                continue
            xdir, err = fetch(args.cache, pkg, a)
            if err:
                chk.problem(f"{pkg}:{a}", "download failed: " + " ".join(err))
                continue
            fetched.setdefault(a, []).append((pkg, xdir))
    for a, items in fetched.items():
        libdirs = []
        for _, xdir in items:
            for sub in ("lib", "usr/lib"):
                for d in (os.path.join(xdir, sub), os.path.join(xdir, sub, LIBDIR.get(a, ARCHES[a][0]))):
                    if os.path.isdir(d):
                        libdirs.append(d)
        arch = Arch(a, work, libdirs)
        for pkg, xdir in items:
            files = elf_files(xdir)
            chk.stats["packages"] += 1
            # Bounded: the largest files are skipped beyond the limit only for run time.
            for path in files[:args.max_files_per_package]:
                label = f"{pkg}:{a} {os.path.relpath(path, xdir)}"
                log(f"{label}")
                try:
                    chk.check_file(arch, path, label)
                except Exception as exc:
                    chk.problem(label, f"checker error: {exc!r}")
            if len(files) > args.max_files_per_package:
                log(f"  ({len(files) - args.max_files_per_package} more ELF files in {pkg}:{a} not checked)")
    shutil.rmtree(work, ignore_errors=True)
    s = chk.stats
    summary = [
        f"packages: {s['packages']}, ELF files: {s['files']} ({s['linked']} linked, {s['objects']} objects), "
        f"exercised (run or loaded): {s['run']}, tool runs: {s['steps']}, refused: {s['refused']}",
        "first-injection strategies: " + ", ".join(f"{k}: {v}" for k, v in sorted(s["strategies"].items())),
        f"problems: {len(chk.problems)}",
    ] + chk.problems
    text = "\n".join(summary) + "\n"
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    return 1 if chk.problems else 0


if __name__ == "__main__":
    sys.exit(main())
