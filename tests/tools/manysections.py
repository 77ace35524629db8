#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Many note sections under one PT_NOTE, for the scale tests (ELFCLASS64, little-endian input).

  manysections.py IN N OUT [reverse]

Appends N SHT_NOTE sections (one small note each; the last holds a dlopen note with
[{"soname":["libz.so.1"]}]), a new section-name table and a new section header table at the end
of IN, and points IN's last PT_NOTE at the new notes.  With "reverse", the new section headers
are in decreasing offset order (legal, and what makes a naive coverage walk quadratic).
"""
import struct
import sys


def main():
    src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    reverse = len(sys.argv) > 4 and sys.argv[4] == "reverse"
    d = bytearray(open(src, "rb").read())
    assert d[4] == 2 and d[5] == 1, "ELFCLASS64 little-endian only"
    phoff, shoff = struct.unpack_from("<QQ", d, 0x20)
    phnum, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x38)[0], *struct.unpack_from("<HH", d, 0x3C)
    old = [bytes(d[shoff + i * 64: shoff + (i + 1) * 64]) for i in range(shnum)]
    so, ss = struct.unpack_from("<QQ", old[shstrndx], 24)
    names = bytearray(d[so: so + ss])
    name_off = len(names)
    names += b".note.t\0"
    dl_name = len(names)
    names += b".note.dlopen\0"
    d += b"\0" * (-len(d) % 8)
    notes_at = len(d)
    secs = []
    for i in range(n):
        if i == n - 1:
            p = b'[{"soname":["libz.so.1"]}]\0'
            p += b"\0" * (-len(p) % 4)
            note = struct.pack("<III", 4, len(p), 0x407C0C0A) + b"FDO\0" + p
        else:
            note = struct.pack("<III", 2, 4, 1) + b"X\0\0\0" + struct.pack("<I", i)
        secs.append((len(d), len(note), dl_name if i == n - 1 else name_off))
        d += note
    notes_end = len(d)
    names_at = len(d)
    d += names
    d += b"\0" * (-len(d) % 8)
    new_shoff = len(d)
    added = [struct.pack("<IIQQQQIIQQ", nm, 7, 2, 0, off, size, 0, 0, 4, 0) for off, size, nm in secs]
    if reverse:
        added.reverse()
    strtab = bytearray(old[shstrndx])
    struct.pack_into("<QQ", strtab, 24, names_at, len(names))
    table = old[:shstrndx] + [bytes(strtab)] + old[shstrndx + 1:] + added
    for h in table:
        d += h
    total = len(table)
    assert total < 0xFF00
    struct.pack_into("<Q", d, 0x28, new_shoff)
    struct.pack_into("<H", d, 0x3C, total)
    last_note = None
    for i in range(phnum):
        if struct.unpack_from("<I", d, phoff + i * 56)[0] == 4:
            last_note = i
    at = phoff + last_note * 56
    struct.pack_into("<QQQQQQ", d, at + 8, notes_at, 0, 0, notes_end - notes_at, notes_end - notes_at, 4)
    open(out, "wb").write(d)


if __name__ == "__main__":
    main()
