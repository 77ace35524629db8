#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Remove the section headers of an ELF file the way sstrip does: e_shoff, e_shnum and
e_shstrndx become 0 and the table itself is cut when it ends the file.

  noshdr.py FILE           only the section header table goes
  noshdr.py --sstrip FILE  also everything after the end of the last segment's file content
                           (the non-allocated sections), as sstrip does"""
import struct
import sys

cut = sys.argv[1] == "--sstrip"
path = sys.argv[-1]
with open(path, "r+b") as f:
    d = bytearray(f.read())
    e = "<" if d[5] == 1 else ">"
    if d[4] == 2:
        shoff_at, fmt, sizes_at = 0x28, "Q", 0x3A
        phoff, phentsize, phnum = struct.unpack_from(e + "Q", d, 0x20)[0], *struct.unpack_from(e + "HH", d, 0x36)
        ph = lambda i: struct.unpack_from(e + "IIQQQQ", d, phoff + i * phentsize)  # noqa: E731
        off_sz = lambda p: (p[2], p[5])  # noqa: E731
    else:
        shoff_at, fmt, sizes_at = 0x20, "I", 0x2E
        phoff, phentsize, phnum = struct.unpack_from(e + "I", d, 0x1C)[0], *struct.unpack_from(e + "HH", d, 0x2A)
        ph = lambda i: struct.unpack_from(e + "IIIIII", d, phoff + i * phentsize)  # noqa: E731
        off_sz = lambda p: (p[1], p[4])  # noqa: E731
    shoff = struct.unpack_from(e + fmt, d, shoff_at)[0]
    shentsize, shnum = struct.unpack_from(e + "HH", d, sizes_at)
    struct.pack_into(e + fmt, d, shoff_at, 0)
    struct.pack_into(e + "HHH", d, sizes_at, 0, 0, 0)
    if cut:
        end = max([phoff + phnum * phentsize] + [sum(off_sz(ph(i))) for i in range(phnum) if ph(i)[0] != 0])
        del d[end:]
    elif shoff + shentsize * shnum == len(d):
        del d[shoff:]
    f.seek(0)
    f.truncate()
    f.write(d)
