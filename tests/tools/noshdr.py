#!/usr/bin/python3
"""Remove the section headers of an ELF file the way sstrip does: e_shoff, e_shnum and
e_shstrndx become 0 and the table itself is cut when it ends the file."""
import struct
import sys

path = sys.argv[1]
with open(path, "r+b") as f:
    d = bytearray(f.read())
    e = "<" if d[5] == 1 else ">"
    if d[4] == 2:
        shoff_at, fmt, sizes_at = 0x28, "Q", 0x3A
    else:
        shoff_at, fmt, sizes_at = 0x20, "I", 0x2E
    shoff = struct.unpack_from(e + fmt, d, shoff_at)[0]
    shentsize, shnum = struct.unpack_from(e + "HH", d, sizes_at)
    struct.pack_into(e + fmt, d, shoff_at, 0)
    struct.pack_into(e + "HHH", d, sizes_at, 0, 0, 0)
    if shoff + shentsize * shnum == len(d):
        del d[shoff:]
    f.seek(0)
    f.truncate()
    f.write(d)
