#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Large inputs for the scale tests (tests/integration/test_scale.c) and `make bench`.

  bignote.py entries N DIR   DIR/m.json: N distinct entries (features shared by four entries,
                             a description on the first of each feature, every tenth with an
                             alternative, priorities in turn); DIR/expect.json: the same with
                             three differences (one priority changed, one entry dropped, one
                             added); DIR/map.txt: a package for every soname; DIR/features.txt:
                             N/10 feature names, comma-separated; DIR/expected.txt: what the
                             tool must find, computed here independently (key=value lines).
  bignote.py limit DIR       DIR/limit.json: a manifest whose compact form is exactly one byte
                             shorter than the largest payload accepted (16 MiB with its NUL);
                             DIR/over.json: the same plus one byte.
  bignote.py argv N TOOL ... exec TOOL with N --soname flags, then the remaining arguments.
"""
import json
import os
import sys

MAX_PAYLOAD = 16 << 20          # MANIFEST_MAX_BYTES, the NUL included
PRIORITIES = ("required", "recommended", "suggested")


def dump(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def entries(n):
    out = []
    for i in range(n):
        e = {"soname": [f"libn{i:x}.so.1"] + ([f"libn{i:x}.so.0"] if i % 10 == 0 else []), "feature": f"f{i // 4:x}"}
        if i % 4 == 0:
            e["description"] = f"feature {i // 4}"
        if i % 3 != 1:                 # absent: recommended
            e["priority"] = PRIORITIES[i % 3]
        out.append(e)
    return out


def canonical(e):
    return dump(dict(sorted(e.items())))


def make_entries(n, d):
    es = entries(n)
    with open(os.path.join(d, "m.json"), "w") as f:
        f.write(dump(es))
    expect = [dict(e) for e in es[:-1]]
    expect[0]["priority"] = "suggested" if es[0]["priority"] != "suggested" else "required"
    expect.append({"soname": ["libextra.so.9"], "feature": "extra", "priority": "required"})
    with open(os.path.join(d, "expect.json"), "w") as f:
        f.write(dump(expect))
    with open(os.path.join(d, "map.txt"), "w") as f:
        for i in range(n):
            f.write(f"pkg{i:x}: /usr/lib/libn{i:x}.so.1\n")
    with open(os.path.join(d, "features.txt"), "w") as f:
        f.write(",".join(f"f{k:x}" for k in range(n // 10)))
    # --merge of expect.json into the note: the entries not already there, each once; one of
    # the same feature and sonames as the note's takes its place (docs/manifest.md).
    seen = {canonical(e) for e in es}
    same = {(e.get("feature"), json.dumps(e["soname"])) for e in es}
    added = 0
    for e in expect:
        if canonical(e) not in seen:
            seen.add(canonical(e))
            ident = (e.get("feature"), json.dumps(e["soname"]))
            added += ident not in same
            same.add(ident)
    features = {e["feature"] for e in es}
    # --check --expect: groups are equal soname arrays, compared at their strongest priority.
    rank = lambda e: PRIORITIES[::-1].index(e.get("priority", "recommended"))
    def strongest(lst):
        g = {}
        for e in lst:
            k = json.dumps(e["soname"])
            g[k] = max(g.get(k, -1), rank(e))
        return g
    found, declared = strongest(es), strongest(expect)
    missing = sum(1 for k in declared if k not in found)
    new = sum(1 for k in found if k not in declared)
    prio = sum(1 for k in declared if k in found and declared[k] != found[k])
    with open(os.path.join(d, "expected.txt"), "w") as f:
        f.write(f"entries={n}\nmerged={n + added}\ngroups={len(found)}\nfeatures={len(features)}\n"
                f"selected={sum(1 for e in es if int(e['feature'][1:], 16) < n // 10)}\n"
                f"missing={missing}\nnew={new}\npriority={prio}\ndiffs={missing + new + prio}\n")


def make_limit(d):
    # Entries with long descriptions; the last one is padded to the exact size.
    es, size = [], 2
    i = 0
    while True:
        e = {"soname": [f"libbig{i}.so.1"], "description": "d" * 60000}
        s = len(dump(e)) + (1 if es else 0)
        if size + s > MAX_PAYLOAD - 1 - 70000:
            break
        es.append(e)
        size += s
        i += 1
    last = {"soname": ["liblast.so.1"], "description": ""}
    room = MAX_PAYLOAD - 1 - size - 1 - len(dump(last))
    last["description"] = "e" * room
    es.append(last)
    text = dump(es)
    assert len(text.encode()) == MAX_PAYLOAD - 1, len(text)
    with open(os.path.join(d, "limit.json"), "w") as f:
        f.write(text)
    last["description"] += "e"
    with open(os.path.join(d, "over.json"), "w") as f:
        f.write(dump(es))


def main():
    if sys.argv[1] == "entries":
        make_entries(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == "limit":
        make_limit(sys.argv[2])
    elif sys.argv[1] == "argv":
        n, tool = int(sys.argv[2]), sys.argv[3]
        args = [tool] + [f"--soname=l{i:x}" for i in range(n)] + sys.argv[4:]
        os.execv(tool, args)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
