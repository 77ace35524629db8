#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bigar.py SRC.a MEMBER OFFSET OUT.a - a GNU archive over 4 GiB that costs no disk space.
bigar.py same A B - exit 0 when A and B hold the same bytes (their data extents compared:
holes read as zeros, so that 4 GiB of hole is not read).

SRC.a is a GNU archive made by ar with a "/" symbol index, and MEMBER one of its members (a
placeholder, not ELF).  OUT.a is SRC.a with MEMBER grown, as a sparse hole of zeros, so that the
member after it starts at OFFSET; the "/" index's offsets of the members after it are moved by
as much.  Written from ar(5) (a 60-byte header per member: name[16] date[12] uid[6] gid[6]
mode[8] size[10] "`\\n", members at even offsets; the "/" index: a big-endian 32-bit count,
one 32-bit offset per symbol, the names), independently of the tool under test."""
import os
import struct
import sys


def members(data):
    pos = 8
    while pos < len(data):
        size = int(data[pos + 48:pos + 58].decode().strip())
        yield pos, data[pos:pos + 16].decode().rstrip(), size
        pos += 60 + size + (size & 1)


def extents(fd, size):
    pos, out = 0, []
    while pos < size:
        try:
            data = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError:
            break
        hole = os.lseek(fd, data, os.SEEK_HOLE)
        out.append((data, hole))
        pos = hole
    return out


def same(a, b):
    fa, fb = os.open(a, os.O_RDONLY), os.open(b, os.O_RDONLY)
    size = os.fstat(fa).st_size
    if os.fstat(fb).st_size != size:
        return 1
    for start, end in sorted(extents(fa, size) + extents(fb, size)):
        while start < end:
            n = min(end - start, 1 << 20)
            if os.pread(fa, n, start) != os.pread(fb, n, start):
                return 1
            start += n
    return 0


def main():
    if sys.argv[1] == "same":
        sys.exit(same(sys.argv[2], sys.argv[3]))
    src, name, offset, out = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), sys.argv[4]
    data = open(src, "rb").read()
    assert data[:8] == b"!<arch>\n", "not an ar archive"
    table = list(members(data))
    assert table[0][1] == "/", "no 32-bit GNU index first"
    hole = [m for m in table if m[1] == name + "/"]
    assert hole, "no member " + name
    hdr, _, old = hole[0]
    new = offset - (hdr + 60)
    assert new > old and new % 2 == 0 and offset < 1 << 32, "OFFSET does not fit"
    shift = new - (old + (old & 1))
    # The index: every offset past the placeholder moves.
    count = struct.unpack(">I", data[68:72])[0]
    offs = list(struct.unpack(">%dI" % count, data[72:72 + 4 * count]))
    offs = [o + shift if o > hdr else o for o in offs]
    assert max(offs) < 1 << 32
    with open(out, "wb") as f:
        f.write(data[:68])
        f.write(struct.pack(">I%dI" % count, count, *offs))
        f.write(data[72 + 4 * count:hdr + 48])
        f.write(b"%-10d" % new)
        f.write(data[hdr + 58:hdr + 60])
        f.seek(hdr + 60 + new)            # the member's bytes: a hole
        f.write(data[hdr + 60 + old + (old & 1):])


if __name__ == "__main__":
    main()
