#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Damage a valid ELF file in one precise way, for the hostile-input tests.

  damage.py KIND IN OUT        (KIND=list prints the kinds)

Every kind is a corruption dlnote-inject must refuse with a clear error and no change.
"""
import struct
import sys


def fields(d):
    e = "<" if d[5] == 1 else ">"
    if d[4] == 2:
        f = dict(phoff=(0x20, "Q"), shoff=(0x28, "Q"), phentsize=(0x36, "H"), phnum=(0x38, "H"),
                 shentsize=(0x3A, "H"), shnum=(0x3C, "H"), shstrndx=(0x3E, "H"), ehsize=(0x34, "H"))
    else:
        f = dict(phoff=(0x1C, "I"), shoff=(0x20, "I"), phentsize=(0x2A, "H"), phnum=(0x2C, "H"),
                 shentsize=(0x2E, "H"), shnum=(0x30, "H"), shstrndx=(0x32, "H"), ehsize=(0x28, "H"))
    return e, f


def get(d, name):
    e, f = fields(d)
    off, t = f[name]
    return struct.unpack_from(e + t, d, off)[0]


def put(d, name, value):
    e, f = fields(d)
    off, t = f[name]
    struct.pack_into(e + t, d, off, value)


def shdr_at(d, i):
    return get(d, "shoff") + i * get(d, "shentsize")


def shdr(d, i):
    e, _ = fields(d)
    at = shdr_at(d, i)
    if d[4] == 2:
        n, t, fl, a, o, sz = struct.unpack_from(e + "IIQQQQ", d, at)
    else:
        n, t, fl, a, o, sz = struct.unpack_from(e + "IIIIII", d, at)
    return dict(at=at, name=n, type=t, offset=o, size=sz)


def set_shdr(d, i, offset=None, size=None):
    e, _ = fields(d)
    at = shdr_at(d, i)
    w, t = (8, "Q") if d[4] == 2 else (4, "I")
    if offset is not None:
        struct.pack_into(e + t, d, at + 8 + 2 * w, offset)
    if size is not None:
        struct.pack_into(e + t, d, at + 8 + 3 * w, size)


def find_section(d, want):
    st = shdr(d, get(d, "shstrndx"))
    for i in range(get(d, "shnum")):
        s = shdr(d, i)
        name = d[st["offset"] + s["name"]:].split(b"\0", 1)[0].decode()
        if name == want:
            return i, s
    raise SystemExit(f"no section {want}")


def phdr_set(d, i, **kw):
    e, _ = fields(d)
    at = get(d, "phoff") + i * get(d, "phentsize")
    if d[4] == 2:
        layout = dict(type=(0, "I"), offset=(8, "Q"), vaddr=(16, "Q"), filesz=(32, "Q"), memsz=(40, "Q"))
    else:
        layout = dict(type=(0, "I"), offset=(4, "I"), vaddr=(8, "I"), filesz=(16, "I"), memsz=(20, "I"))
    for k, v in kw.items():
        off, t = layout[k]
        struct.pack_into(e + t, d, at + off, v)


def first_phdr(d, ptype):
    e, _ = fields(d)
    for i in range(get(d, "phnum")):
        at = get(d, "phoff") + i * get(d, "phentsize")
        if struct.unpack_from(e + "I", d, at)[0] == ptype:
            return i
    raise SystemExit(f"no program header of type {ptype}")


def no_pt_load(d):
    """Every PT_LOAD becomes PT_NULL: a linked file that loads nothing."""
    e, _ = fields(d)
    for i in range(get(d, "phnum")):
        at = get(d, "phoff") + i * get(d, "phentsize")
        if struct.unpack_from(e + "I", d, at)[0] == 1:
            struct.pack_into(e + "I", d, at, 0)


def note_desc_at(d):
    """Offset of the n_descsz word of the first note in .note.dlopen."""
    _, s = find_section(d, ".note.dlopen")
    return s["offset"]


KINDS = {
    "bad-magic": lambda d: d.__setitem__(1, ord("X")),
    "bad-class": lambda d: d.__setitem__(4, 7),
    "bad-byte-order": lambda d: d.__setitem__(5, 9),
    "bad-version": lambda d: d.__setitem__(6, 2),
    "phoff-past-eof": lambda d: put(d, "phoff", len(d) + 16),
    "shoff-past-eof": lambda d: put(d, "shoff", len(d) - 8),
    "phnum-huge": lambda d: put(d, "phnum", 0xFFFE),
    "shnum-huge": lambda d: put(d, "shnum", 0xFFFE),
    "phnum-zero": lambda d: put(d, "phnum", 0),
    "shnum-zero": lambda d: put(d, "shnum", 0),
    "sections-claim-2^32": lambda d: (put(d, "shnum", 0), set_shdr(d, 0, size=0xFFFFFFFF if d[4] == 1 else 1 << 32)),
    "phentsize-wrong": lambda d: put(d, "phentsize", 17),
    "shentsize-wrong": lambda d: put(d, "shentsize", 17),
    "shstrndx-out-of-range": lambda d: put(d, "shstrndx", get(d, "shnum") + 3),
    "section-past-eof": lambda d: set_shdr(d, find_section(d, ".note.dlopen")[0], size=len(d)),
    "section-wraps": lambda d: set_shdr(d, find_section(d, ".note.dlopen")[0], offset=(1 << (64 if d[4] == 2 else 32)) - 8, size=64),
    "sections-overlap": lambda d: set_shdr(d, find_section(d, ".note.dlopen")[0], offset=shdr(d, find_section(d, ".text")[0])["offset"]),
    "segment-past-eof": lambda d: phdr_set(d, first_phdr(d, 1), filesz=len(d) * 2, memsz=len(d) * 2),
    "note-segment-overrun": lambda d: phdr_set(d, first_phdr(d, 4), filesz=3),
    "no-pt-load": no_pt_load,
    "note-absurd-namesz": lambda d: struct.pack_into(fields(d)[0] + "I", d, note_desc_at(d), 0xFFFFFFF0),
    "note-absurd-descsz": lambda d: struct.pack_into(fields(d)[0] + "I", d, note_desc_at(d) + 4, 0xFFFFFFF0),
}


def main():
    if sys.argv[1] == "list":
        print("\n".join(KINDS))
        return
    kind, src, dst = sys.argv[1:4]
    with open(src, "rb") as f:
        d = bytearray(f.read())
    KINDS[kind](d)
    with open(dst, "wb") as f:
        f.write(d)


if __name__ == "__main__":
    main()
