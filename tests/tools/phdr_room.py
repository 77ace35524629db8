#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Give an ELF file free program header slots, as some linkers and tools leave them: the
PT_LOAD that holds the program header table is extended over the zero padding after it (no
section lives there), so a rewriter can grow the table in place."""
import struct
import sys

path, extra = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4
with open(path, "r+b") as f:
    d = bytearray(f.read())
    e = "<" if d[5] == 1 else ">"
    assert d[4] == 2, "ELF64 only"
    phoff, = struct.unpack_from(e + "Q", d, 0x20)
    phentsize, phnum = struct.unpack_from(e + "HH", d, 0x36)
    end = phoff + phentsize * phnum
    assert not any(d[end:end + extra * phentsize]), "no zero padding after the table"
    for i in range(phnum):
        at = phoff + i * phentsize
        t, fl, o, v, p, fs, ms, al = struct.unpack_from(e + "IIQQQQQQ", d, at)
        if t == 1 and o <= phoff and end <= o + fs:
            assert fs == ms
            struct.pack_into(e + "QQ", d, at + 32, end + extra * phentsize - o, end + extra * phentsize - o)
            break
    else:
        raise SystemExit("no PT_LOAD holds the program headers")
    f.seek(0)
    f.write(d)
