#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""strongest.py TOOL FILE...: every consumer's output of dlnote-inject takes an entry that a
file declares several times (at one priority or several: systemd 262's programs) once, at
its strongest priority, while the listing of what the file holds shows its entries as they
are (issue 43, item 1).

The expected answers come from the file's notes as an independent reader decodes them
(readers.py: a PT_NOTE walker, as systemd-analyze reads them), not from the tool.  For each
FILE, one line: "ok FILE (N entries, M dependencies, K declared more than once)" or
"FAIL FILE: what differs".  Exit status 1 when a FILE fails.

Checked: --list --format=jsonl (the entries, as they are, in order); --format=sonames and
features; --rpm-generate requires/recommends/suggests; --format=deb (with a map naming a
package p-SONAME for each soname); --format=cyclonedx.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readers  # noqa: E402

RANK = {"suggested": 0, "recommended": 1, "required": 2}
NAME = {v: k for k, v in RANK.items()}
RPM_KIND = {2: "requires", 1: "recommends", 0: "suggests"}
DEB_FIELD = {2: "Depends", 1: "Recommends", 0: "Suggests"}


def tool_out(tool, args, stdin=None):
    r = subprocess.run([tool] + args, input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def strongest(entries, key):
    """key(entry) -> the strongest rank of each key, in the order keys first appear."""
    best = {}
    for e in entries:
        k = key(e)
        best[k] = max(best.get(k, -1), RANK.get(e.get("priority", "recommended"), 1))
    return best


def check(tool, path, mapfile):
    raw = readers.read_segments(path)
    problems = []
    listed = json.loads(tool_out(tool, ["--list", "--format=jsonl", path]) or "{}").get("entries", [])
    if listed != raw:
        problems.append(f"--format=jsonl lists {json.dumps(listed)}, the notes hold {json.dumps(raw)}")
    ident = strongest(raw, lambda e: (e.get("feature"), tuple(e["soname"])))
    by_sonames = strongest(raw, lambda e: tuple(e["soname"]))

    # sonames: "ALTERNATIVES PRIORITY", one line per soname list
    got = sorted(tool_out(tool, ["--list", "--format=sonames", path]).splitlines())
    want = sorted(" ".join(s) + " " + NAME[r] for s, r in by_sonames.items())
    if got != want:
        problems.append(f"--format=sonames gives {got}, not {want}")

    # features: "FEATURE[: DESCRIPTION]" then "  A | B (PRIORITY)"
    got, feature = [], None
    for line in tool_out(tool, ["--list", "--format=features", path]).splitlines():
        if line.startswith("  "):
            m = re.fullmatch(r"  (.*) \((\w+)\)", line)
            got.append((feature, tuple(m.group(1).split(" | ")), m.group(2)))
        else:
            feature = line.split(": ", 1)[0]
            feature = None if feature == "(no feature)" else feature
    want = [(f, s, NAME[r]) for (f, s), r in ident.items()]
    if sorted(got, key=str) != sorted(want, key=str):
        problems.append(f"--format=features gives {got}, not {want}")

    # rpm's generator: each soname list in the kind of its strongest priority only (a soname
    # that several lists name is left out: its kind is the strongest of them all)
    firsts = [s[0] for s in by_sonames]
    mentioned = {}
    for rank, kind in RPM_KIND.items():
        text = tool_out(tool, ["--rpm-generate", kind], stdin=path + "\n")
        for name in set(re.findall(r"([^\s()]+\.so[^\s()]*)\(", text)):
            mentioned.setdefault(name, set()).add(rank)
    for s, r in by_sonames.items():
        if firsts.count(s[0]) == 1 and mentioned.get(s[0]) != {r}:
            problems.append(f"--rpm-generate: {s[0]} in {sorted(mentioned.get(s[0], []))}, not [{r}]")

    # deb: each package in the field of its strongest priority only
    fields = {}
    for line in tool_out(tool, ["--list", "--format=deb", "--deb-map", mapfile, path]).splitlines():
        m = re.fullmatch(r"dlopen:(\w+)\??=(.*)", line)
        if m:
            for pkg in re.split(r"[,|]", m.group(2)):
                pkg = pkg.strip().split(" ")[0]
                if pkg:
                    fields.setdefault(pkg, set()).add(m.group(1))
    for s, r in by_sonames.items():
        pkg = "p-" + s[0].lower().replace("_", "-")
        if firsts.count(s[0]) == 1 and fields.get(pkg) != {DEB_FIELD[r]}:
            problems.append(f"--format=deb: {pkg} in {sorted(fields.get(pkg, []))}, not [{DEB_FIELD[r]}]")

    # the SBOM: one component per (feature, alternatives, soname), at the strongest priority
    doc = json.loads(tool_out(tool, ["--list", "--format=cyclonedx", path]))
    comps = {}
    for c in doc.get("components", []):
        if c.get("type") != "library":
            continue
        p = {x["name"]: x["value"] for x in c.get("properties", [])}
        key = (p.get("dlnote:feature"), tuple(p["dlnote:alternatives"].split(" ")), c["name"])
        comps.setdefault(key, []).append(p["dlnote:priority"])
    want = {(f, s, n): [NAME[r]] for (f, s), r in ident.items() for n in s}
    if comps != want:
        problems.append(f"--format=cyclonedx components {sorted(comps.items(), key=str)}, not {sorted(want.items(), key=str)}")
    repeated = len(raw) - len(ident)
    if problems:
        return f"FAIL {path}: " + "; ".join(problems)
    return f"ok {path} ({len(raw)} entries, {len(ident)} dependencies, {repeated} declared more than once)"


def main():
    tool, files = sys.argv[1], sys.argv[2:]
    failed = 0
    with tempfile.NamedTemporaryFile("w", suffix=".map") as m:
        names = set()
        for f in files:
            for e in readers.read_segments(f):
                names.update(e["soname"])
        for n in sorted(names):
            m.write(f"p-{n.lower().replace('_', '-')}:amd64: /usr/lib/x86_64-linux-gnu/{n}\n")
        m.flush()
        for f in files:
            try:
                line = check(tool, f, m.name)
            except Exception as e:  # a tool that fails, or output that does not parse
                line = f"FAIL {f}: {type(e).__name__}: {e}"
            failed |= line.startswith("FAIL")
            print(line)
    sys.exit(failed)


if __name__ == "__main__":
    main()
