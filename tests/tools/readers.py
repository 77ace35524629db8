#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Independent readers and checkers for dlopen notes, used by the integration tests.

None of this shares code with dlnote-inject: every reader decodes the ELF by itself, the way
a real consumer does (shared/REFERENCE.md §2).

  readers.py sections FILE     pyelftools, by section name (as dlopen-notes.py)
  readers.py segments FILE     PT_NOTE walker with each segment's p_align (as systemd-analyze)
  readers.py readelf FILE      decode `readelf -W -n` output
  readers.py llvm FILE         decode `llvm-readobj --notes` output
  readers.py validate IN OUT   layout invariants of a rewritten linked file (REFERENCE §4)
  readers.py object FILE       a relocatable object's meaning, one line per item, by name
  readers.py batch CMD ARGS -- CMD ARGS ...   several of these in one process
  readers.py serve             a batch per line of stdin (shell words), each answered
                               as batch answers, then a line "=== done"

Each reader prints the entries of all dlopen notes as one compact JSON array.
"""
import json
import re
import struct
import subprocess
import sys

NOTE_TYPE = 0x407C0C0A
PT_LOAD, PT_NOTE, PT_PHDR, PT_GNU_PROPERTY = 1, 4, 6, 0x6474E553
PF_W = 2
SHT_NOTE, SHF_ALLOC, SHF_WRITE = 7, 2, 1


def compact(entries):
    return json.dumps(entries, separators=(",", ":"), ensure_ascii=False)


def decode_payload(desc):
    text = bytes(desc).split(b"\0", 1)[0].decode("utf-8")
    return json.loads(text)


class Elf:
    """Just enough ELF parsing: headers, program headers, section headers."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF":
            raise SystemExit(f"{path}: not ELF")
        self.is64 = d[4] == 2
        self.end = "<" if d[5] == 1 else ">"
        e = self.end
        if self.is64:
            (self.type, self.machine, _, self.entry, self.phoff, self.shoff, self.flags, _,
             self.phentsize, self.phnum, self.shentsize, self.shnum, self.shstrndx) = struct.unpack_from(e + "HHIQQQIHHHHHH", d, 16)
        else:
            (self.type, self.machine, _, self.entry, self.phoff, self.shoff, self.flags, _,
             self.phentsize, self.phnum, self.shentsize, self.shnum, self.shstrndx) = struct.unpack_from(e + "HHIIIIIHHHHHH", d, 16)
        self.sections = []
        if self.shoff:
            sh0 = self._shdr(0)
            if self.shnum == 0:
                self.shnum = sh0["size"]
            if self.shstrndx == 0xFFFF:
                self.shstrndx = sh0["link"]
            if self.phnum == 0xFFFF:
                self.phnum = sh0["info"]
            self.sections = [self._shdr(i) for i in range(self.shnum)]
            st = self.sections[self.shstrndx]
            for s in self.sections:  # (slicing d[start:] copied the file's tail for each)
                start = st["offset"] + s["name"]
                s["sname"] = d[start:d.index(b"\0", start)].decode()
        self.phdrs = [self._phdr(i) for i in range(self.phnum)] if self.phoff else []

    def _phdr(self, i):
        off = self.phoff + i * self.phentsize
        if self.is64:
            t, fl, o, v, p, fs, ms, al = struct.unpack_from(self.end + "IIQQQQQQ", self.data, off)
        else:
            t, o, v, p, fs, ms, fl, al = struct.unpack_from(self.end + "IIIIIIII", self.data, off)
        return dict(type=t, flags=fl, offset=o, vaddr=v, paddr=p, filesz=fs, memsz=ms, align=al)

    def _shdr(self, i):
        off = self.shoff + i * self.shentsize
        if self.is64:
            n, t, fl, a, o, sz, l, inf, al, es = struct.unpack_from(self.end + "IIQQQQIIQQ", self.data, off)
        else:
            n, t, fl, a, o, sz, l, inf, al, es = struct.unpack_from(self.end + "IIIIIIIIII", self.data, off)
        return dict(name=n, type=t, flags=fl, addr=a, offset=o, size=sz, link=l, info=inf, align=al, entsize=es)

    def notes(self, off, size, align):
        """Walk a note area: (note_offset, note_size, type, owner, desc)."""
        align = 8 if align == 8 else 4
        pos, end = off, off + size
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from(self.end + "III", self.data, pos)
            name_off = pos + 12
            desc_off = (name_off + namesz + align - 1) // align * align
            desc_end = desc_off + descsz
            if desc_end > end:
                raise ValueError(f"note at 0x{pos:x} runs past its area")
            owner = self.data[name_off:name_off + namesz]
            nxt = min((desc_end + align - 1) // align * align, end)
            yield pos, nxt - pos, ntype, owner, self.data[desc_off:desc_end]
            pos = nxt


def is_dlopen(ntype, owner):
    return ntype == NOTE_TYPE and owner == b"FDO\0"


def read_sections(path):
    from elftools.elf.elffile import ELFFile
    entries = []
    with open(path, "rb") as f:
        elf = ELFFile(f)
        for sec in elf.iter_sections():
            if sec.name != ".note.dlopen":
                continue
            for note in sec.iter_notes():
                if note["n_type"] != NOTE_TYPE or note["n_name"] != "FDO":
                    continue
                desc = note["n_desc"]
                if isinstance(desc, str):
                    desc = desc.encode("latin-1")
                entries += decode_payload(desc)
    return entries


def read_segments(path):
    """Like libelf's gelf_getnote loop: a note that does not parse ends its segment's walk."""
    elf = Elf(path)
    entries = []
    for p in elf.phdrs:
        if p["type"] != PT_NOTE:
            continue
        try:
            for _, _, ntype, owner, desc in elf.notes(p["offset"], p["filesz"], p["align"]):
                if is_dlopen(ntype, owner):
                    entries += decode_payload(desc)
        except ValueError:
            pass
    return entries


def hexbytes(lines):
    return bytearray(bytes.fromhex("".join(re.findall(r"[0-9a-fA-F]+", " ".join(lines)))))


def read_readelf(path):
    """readelf 2.40 lists unknown notes with their size but no bytes (and exits 1 on them), so
    the notes it lists are checked against the hex dump of .note.dlopen (when there is one) or
    against the PT_NOTE walk."""
    out = subprocess.run(["readelf", "-W", "-n", path], capture_output=True, text=True).stdout
    sizes = [int(m.group(1), 16) for m in re.finditer(r"FDO\s+0x([0-9a-f]+)\s+Unknown note type: \(0x407c0c0a\)", out)]
    dump = subprocess.run(["readelf", "-W", "-x", ".note.dlopen", path], capture_output=True, text=True).stdout
    lines = [ln.split(None, 1)[1][:35] for ln in dump.splitlines() if re.match(r"\s+0x[0-9a-f]+ ", ln)]
    if lines:
        elf = Elf(path)
        area = hexbytes(lines)
        elf.data, found = bytes(area), []
        for _, _, t, o, desc in elf.notes(0, len(area), 4):
            if is_dlopen(t, o):
                found.append(desc)
    else:
        elf = Elf(path)
        found = [d for p in elf.phdrs if p["type"] == PT_NOTE for _, _, t, o, d in elf.notes(p["offset"], p["filesz"], p["align"]) if is_dlopen(t, o)]
    if sorted(len(d) for d in found) != sorted(sizes):
        raise SystemExit(f"readelf -n lists FDO notes of sizes {sizes}, the notes hold {[len(d) for d in found]}")
    return [e for d in found for e in decode_payload(d)]


def read_llvm(path):
    out = subprocess.run(["llvm-readobj", "--notes", path], capture_output=True, text=True, check=True).stdout
    entries, i, lines = [], 0, out.splitlines()
    while i < len(lines):
        if "Owner: FDO" in lines[i] and "0x407c0c0a" in lines[i + 2].lower():
            j = i
            while "Description data" not in lines[j]:
                j += 1
            data = []
            j += 1
            while j < len(lines) and re.match(r"\s+[0-9A-F]{4}:", lines[j]):
                data.append(lines[j].split(":", 1)[1].split("|")[0].lower())
                j += 1
            entries += decode_payload(hexbytes(data))
            i = j
        else:
            i += 1
    return entries


def covered(ranges, off, size):
    return any(a <= off and off + size <= a + n for a, n in ranges)


def validate(inp, outp):
    """The layout invariants of REFERENCE §4, comparing the output with its input."""
    a, b = Elf(inp), Elf(outp)
    errors = []
    loads = [p for p in b.phdrs if p["type"] == PT_LOAD]
    for p in loads:
        if p["align"] > 1 and (p["offset"] - p["vaddr"]) % p["align"]:
            errors.append(f"PT_LOAD at 0x{p['offset']:x} breaks p_offset = p_vaddr (mod p_align)")
    if [p["vaddr"] for p in loads] != sorted(p["vaddr"] for p in loads):
        errors.append("PT_LOAD entries not sorted by address")
    # Our PT_NOTEs: 4-aligned, exactly dlopen notes, inside a non-writable PT_LOAD.
    dl_ranges = []
    for p in b.phdrs:
        if p["type"] != PT_NOTE:
            continue
        if p["filesz"] == 0:
            errors.append("empty PT_NOTE")
            continue
        try:
            notes = list(b.notes(p["offset"], p["filesz"], p["align"]))
        except ValueError:
            notes = []      # an area no walker can parse (mold merges 4- into 8-aligned notes)
        kinds = {is_dlopen(t, o) for _, _, t, o, _ in notes}
        if True in kinds:
            if kinds != {True}:
                errors.append("a dlopen note shares its PT_NOTE with other notes")
            if p["align"] != 4:
                errors.append(f"dlopen PT_NOTE has p_align {p['align']}")
            if p["offset"] % 4 or p["vaddr"] % 4:
                errors.append(f"dlopen PT_NOTE at 0x{p['offset']:x} is not 4-aligned")
            ld = [l for l in loads if l["offset"] <= p["offset"] and p["offset"] + p["filesz"] <= l["offset"] + l["filesz"]]
            if not ld or ld[0]["flags"] & PF_W:
                errors.append("dlopen PT_NOTE not inside a read-only PT_LOAD")
            elif p["vaddr"] - ld[0]["vaddr"] != p["offset"] - ld[0]["offset"]:
                errors.append("dlopen PT_NOTE address and offset disagree with its PT_LOAD")
            dl_ranges.append((p["offset"], p["filesz"], p["vaddr"]))
    sec = [s for s in b.sections if s.get("sname") == ".note.dlopen" and s["size"]]
    if b.sections:
        if len(sec) != len(dl_ranges):
            errors.append(f"{len(sec)} non-empty .note.dlopen sections for {len(dl_ranges)} dlopen PT_NOTEs")
        for s in sec:
            if s["type"] != SHT_NOTE or not s["flags"] & SHF_ALLOC or s["flags"] & SHF_WRITE or s["align"] != 4:
                errors.append(".note.dlopen is not SHT_NOTE, SHF_ALLOC, read-only, align 4")
            if not any(o == s["offset"] and n == s["size"] and v == s["addr"] for o, n, v in dl_ranges):
                errors.append(".note.dlopen section disagrees with its PT_NOTE (offset/address/size)")
    # PT_PHDR covers the table and lies in a PT_LOAD.
    for p in b.phdrs:
        if p["type"] == PT_PHDR:
            if p["offset"] != b.phoff or p["filesz"] != b.phnum * b.phentsize:
                errors.append("PT_PHDR does not describe the program header table")
            if not covered([(l["offset"], l["filesz"]) for l in loads], p["offset"], p["filesz"]):
                errors.append("PT_PHDR not inside a PT_LOAD")
    # Sections are paired by name (and rank among equal names): indexes may change, since the
    # table is kept in address order.  Ours are left out.
    ours = {".note.dlopen", ".dlnote.phdrs"}
    def named(elf):
        seen, out = {}, {}
        for i, s in enumerate(elf.sections):
            if i and i != elf.shstrndx and s["sname"] not in ours:
                k = (s["sname"], seen.get(s["sname"], 0))
                seen[s["sname"]] = k[1] + 1
                out[k] = s
        return out
    sa, sb = named(a), named(b)
    pairs = [(sa[k], sb[k]) for k in sa if k in sb]
    if a.sections and b.sections and set(sa) != set(sb):
        errors.append(f"sections not ours differ: {sorted(set(sa) ^ set(sb))}")
    # Carried sections (tool's layout_front.c): read-only tables that only headers point to may
    # move, all by the same amount, with their bytes (.dynsym: but for st_shndx).
    def carriable(elf, s):
        if s["type"] in (SHT_NOTE, 5, 11, 0x6FFFFFF6, 0x6FFFFFFD, 0x6FFFFFFE, 0x6FFFFFFF, 0x7000002A, 0x70000006):
            return True
        if s["type"] == 3:
            return any(x["type"] == 11 and elf.sections[x["link"]] is s for x in elf.sections)
        return s["type"] == 1 and s["sname"] == ".interp"
    moved = [(x, y) for x, y in pairs if x["flags"] & SHF_ALLOC and x["type"] != 8 and x["size"]
             and (x["addr"], x["offset"]) != (y["addr"], y["offset"])]
    deltas = {(y["offset"] - x["offset"], y["addr"] - x["addr"]) for x, y in moved}
    if len(deltas) > 1:
        errors.append("carried sections moved by different amounts")
    doff, dv = next(iter(deltas)) if deltas else (0, 0)
    symfmt = (a.end + "IBBHQQ", 24) if a.is64 else (a.end + "IIIBBH", 16)
    def syms(elf, s):
        out = []
        for k in range(s["size"] // symfmt[1]):
            f = list(struct.unpack_from(symfmt[0], elf.data, s["offset"] + k * symfmt[1]))
            shndx = f[3] if a.is64 else f[5]
            name = elf.sections[shndx]["sname"] if 0 < shndx < len(elf.sections) else shndx
            if a.is64:
                f[3] = name
            else:
                f[5] = name
            out.append(tuple(f))
        return out
    for x, y in moved:
        if not carriable(a, x):
            errors.append(f"section {x['sname']} moved")
        same = (syms(a, x) == syms(b, y)) if x["type"] == 11 else \
            a.data[x["offset"]:x["offset"] + x["size"]] == b.data[y["offset"]:y["offset"] + y["size"]]
        if not same:
            errors.append(f"carried section {x['sname']} changed")
    def moved_to(off):
        return off + doff if any(x["offset"] <= off < x["offset"] + x["size"] for x, _ in moved) else off
    # Allocated content of the input stays byte for byte, except the old dlopen notes, the old
    # program header table, carried sections' old bytes, the .dynamic entries pointing to them
    # and .dynsym's section indexes.
    def safe_notes(elf, p):
        try:
            return list(elf.notes(p["offset"], p["filesz"], p["align"]))
        except ValueError:
            return []
    old_dl = []
    for p in a.phdrs:
        if p["type"] == PT_NOTE:
            old_dl += [(o, n) for o, n, t, ow, _ in safe_notes(a, p) if is_dlopen(t, ow)]
    for s in a.sections:
        if s.get("sname") == ".note.dlopen":
            old_dl.append((s["offset"], s["size"]))
        if s.get("sname") == ".dlnote.phdrs":
            # An input that went through dlnote-inject (then GNU strip): its own segment, the
            # PT_LOAD holding this section, is rebuilt.
            old_dl += [(l["offset"], l["filesz"]) for l in a.phdrs
                       if l["type"] == PT_LOAD and covered([(l["offset"], l["filesz"])], s["offset"], s["size"])]
    # Our segment in the input (it holds dlopen notes) goes or is rebuilt.
    blo = [(p["offset"], p["vaddr"], p["filesz"]) for p in b.phdrs if p["type"] == PT_LOAD]
    old_dl += [(l["offset"], l["filesz"]) for l in a.phdrs if l["type"] == PT_LOAD and l["offset"]
               and any(covered([(l["offset"], l["filesz"])], o, n) for o, n in list(old_dl))
               and (l["offset"], l["vaddr"], l["filesz"]) not in blo]
    old_dl.append((a.phoff, a.phnum * a.phentsize))
    old_dl.append((b.phoff, b.phnum * b.phentsize))   # the table may grow into free slots
    old_dl.append((0, 64 if a.is64 else 52))          # the ELF header: e_phoff, e_shoff, counts
    old_dl += [(x["offset"], x["size"]) for x, _ in moved]
    # and where they go, when those bytes were free (zeros: --remove brings them back)
    ptab = (a.phoff, a.phnum * a.phentsize)
    old_dl += [(y["offset"], y["size"]) for _, y in moved
               if all(a.data[o] == 0 or covered([ptab], o, 1) for o in range(y["offset"], y["offset"] + y["size"]))]
    w = 8 if a.is64 else 4
    for x, y in pairs:
        if x["type"] == 11 and x in [m for m, _ in moved]:
            continue
        if x["type"] == 11:      # st_shndx of each entry (renumbered sections)
            old_dl += [(x["offset"] + k * symfmt[1] + (6 if a.is64 else 14), 2) for k in range(x["size"] // symfmt[1])]
            if syms(a, x) != syms(b, y):
                errors.append(".dynsym changed")
    for p in a.phdrs:
        if p["type"] != 2:       # PT_DYNAMIC
            continue
        for k in range(p["filesz"] // (2 * w)):
            at = p["offset"] + k * 2 * w
            tag, val = struct.unpack_from(a.end + ("QQ" if a.is64 else "II"), a.data, at)
            hit = [(x, y) for x, y in moved if x["addr"] <= val < x["addr"] + x["size"]]
            address = tag in (3, 4, 5, 6, 7, 12, 13, 17, 21, 23, 25, 26, 32, 0x6FFFFFF0, 0x6FFFFFFC, 0x6FFFFFFE) \
                or 0x6FFFFE00 <= tag <= 0x6FFFFEFF      # the gABI's d_ptr tags
            if hit and address:
                old_dl.append((at + w, w))
                new = struct.unpack_from(a.end + ("Q" if a.is64 else "I"), b.data, at + w)[0]
                if new != val + dv:
                    errors.append(f".dynamic entry {tag:#x} does not follow its carried section")
    for p in a.phdrs:
        if p["type"] != PT_LOAD:
            continue
        # equal blocks skipped whole: a byte at a time, a 100 MB library took seconds
        changed = None
        for blk in range(p["offset"], p["offset"] + p["filesz"], 4096):
            end = min(blk + 4096, p["offset"] + p["filesz"])
            if a.data[blk:end] == b.data[blk:end]:
                continue
            changed = next((off for off in range(blk, end) if a.data[off] != b.data[off] and not covered(old_dl, off, 1)),
                           None)
            if changed is not None:
                break
        if changed is not None:
            errors.append(f"allocated byte at offset 0x{changed:x} changed")
    # .note.gnu.property, PT_GNU_PROPERTY and other notes are untouched (or carried whole).
    for p in a.phdrs:
        if p["type"] == PT_GNU_PROPERTY:
            q = [x for x in b.phdrs if x["type"] == PT_GNU_PROPERTY]
            shift = moved_to(p["offset"]) != p["offset"]
            want = (p["offset"] + (doff if shift else 0), p["vaddr"] + (dv if shift else 0), p["filesz"])
            prop = [(x["offset"], x["addr"], x["size"]) for x in b.sections if x.get("sname") == ".note.gnu.property"]
            # patchelf 0.14 leaves it describing the old place, inside the grown table: it
            # describes the property note again
            stale = a.phoff <= p["offset"] < a.phoff + a.phnum * a.phentsize
            if not q or ((q[0]["offset"], q[0]["vaddr"], q[0]["filesz"]) != want and
                         not (stale and (q[0]["offset"], q[0]["vaddr"], q[0]["filesz"]) in prop)):
                errors.append("PT_GNU_PROPERTY changed")
        if p["type"] == PT_NOTE:
            for o, n, t, ow, desc in safe_notes(a, p):
                if is_dlopen(t, ow):
                    continue
                o2 = moved_to(o)
                if b.data[o2:o2 + n] != a.data[o:o + n]:
                    errors.append(f"note at 0x{o:x} changed")
                if not any(x["type"] == PT_NOTE and x["offset"] <= o2 and o2 + n <= x["offset"] + x["filesz"] for x in b.phdrs):
                    errors.append(f"note at 0x{o:x} lost its PT_NOTE")
    # A section header the tool did not create is never its own, whatever its offset: it keeps
    # its name, type, flags, address and size (NOBITS and TLS sections included), and its
    # offset when allocated (carried ones move by the block's amount).
    for x, y in pairs:
        d = (doff, dv) if (x, y) in moved else (0, 0)
        before = (x["type"], x["flags"], x["addr"] + d[1], x["size"], x["align"], x["entsize"],
                  x["offset"] + d[0] if x["flags"] & SHF_ALLOC else None)
        after = (y["type"], y["flags"], y["addr"], y["size"], y["align"], y["entsize"],
                 y["offset"] if y["flags"] & SHF_ALLOC else None)
        if before != after:
            errors.append(f"section {x['sname']} changed: {before} became {after}")
            break
    # As linkers lay files out: allocated sections before the others, in the table and in the
    # file, and the program header table before every section (bfd and libelf keep it there).
    # Checked when the input was so (patchelf's output is not).
    def linker_like(elf):
        found = []
        real = [(i, s) for i, s in enumerate(elf.sections) if i and s["type"] != 8 and s["size"]]
        alloc = [i for i, s in real if s["flags"] & SHF_ALLOC]
        other = [i for i, s in real if not s["flags"] & SHF_ALLOC]
        if alloc and other and max(alloc) > min(other):
            found.append("an allocated section follows a non-allocated one in the section header table")
        aoff = [s["offset"] for _, s in real if s["flags"] & SHF_ALLOC]
        ooff = [s["offset"] for _, s in real if not s["flags"] & SHF_ALLOC]
        if aoff and ooff and max(aoff) > min(ooff):
            found.append("an allocated section follows a non-allocated one in the file")
        if elf.phnum and not any(s.get("sname") == ".dlnote.phdrs" for s in elf.sections) and \
                any(s["offset"] < elf.phoff for _, s in real):
            found.append("the program header table does not precede every section")
        return found
    if b.sections:
        was = linker_like(a)
        errors += [x for x in linker_like(b) if x not in was]
    print("\n".join(errors) if errors else "OK")
    return 1 if errors else 0


def object_lines(path):
    """What a relocatable object means to a linker, by name rather than by index (pyelftools):
    each section's bytes (hashed), each symbol, each relocation with its target, symbol and
    addend, each group's signature and members.  Indexes, offsets and the bytes of symbol,
    string, relocation and group tables are left out: an edit may renumber them, never change
    what they say.  Sorted, so that two objects compare line by line."""
    import hashlib
    from elftools.elf.elffile import ELFFile
    from elftools.elf.relocation import RelocationSection
    from elftools.elf.sections import SymbolTableSection
    lines = []
    with open(path, "rb") as f:
        elf = ELFFile(f)
        secs = list(elf.iter_sections())

        def symname(symtab, i):
            s = symtab.get_symbol(i)
            if s["st_info"]["type"] == "STT_SECTION":
                return "section:" + secs[s["st_shndx"]].name
            return s.name

        def secname(ndx):
            return secs[ndx].name if isinstance(ndx, int) else ndx
        for s in secs:
            t = s["sh_type"]
            if isinstance(s, RelocationSection):
                symtab = secs[s["sh_link"]]
                target = secs[s["sh_info"]].name
                for r in s.iter_relocations():
                    addend = r["r_addend"] if s.is_RELA() else "implicit"
                    lines.append(f"reloc {target} {r['r_offset']:#x} type={r['r_info_type']} "
                                 f"{symname(symtab, r['r_info_sym'])} {addend}")
            elif isinstance(s, SymbolTableSection):
                for i, y in enumerate(s.iter_symbols()):
                    if i == 0 or y["st_info"]["type"] == "STT_SECTION":
                        continue
                    lines.append(f"symbol {y.name} {y['st_info']['type']} {y['st_info']['bind']} "
                                 f"{y['st_other']['visibility']} {secname(y['st_shndx'])} "
                                 f"{y['st_value']:#x} {y['st_size']}")
            elif t == "SHT_GROUP":
                sig = secs[s["sh_link"]].get_symbol(s["sh_info"]).name
                members = sorted(secs[m].name for m in s.iter_section_indexes()) if hasattr(
                    s, "iter_section_indexes") else []
                lines.append(f"group {sig} {' '.join(members)}")
            elif t not in ("SHT_STRTAB", "SHT_SYMTAB_SHNDX", "SHT_NULL"):
                data = b"" if t == "SHT_NOBITS" else s.data()
                lines.append(f"section {s.name} {t} flags={s['sh_flags']:#x} "
                             f"align={s['sh_addralign']} size={s['sh_size']} "
                             f"sha1={hashlib.sha1(data).hexdigest()}")
    return sorted(lines)


def pht_placement(path):
    """Where the program header table lives: "original" (a linker's segment), "padding" (a
    segment of ours inside the file's page padding) or "end" (a segment after all others)."""
    elf = Elf(path)
    loads = [p for p in elf.phdrs if p["type"] == PT_LOAD]
    mine = [p for p in loads if p["offset"] <= elf.phoff < p["offset"] + p["filesz"]]
    if not mine or mine[0]["offset"] == 0:
        return "original"
    others_end = max(p["offset"] + p["filesz"] for p in loads if p is not mine[0])
    return "end" if mine[0]["offset"] >= others_end else "padding"


def run_one(argv):
    cmd, path = argv[0], argv[1]
    if cmd == "pht-placement":
        print(pht_placement(path))
        return
    if cmd == "validate":
        validate(path, argv[2])
        return
    if cmd == "object":
        print("\n".join(object_lines(path)))
        return
    reader = {"sections": read_sections, "segments": read_segments, "readelf": read_readelf, "llvm": read_llvm}[cmd]
    print(compact(reader(path)))


def batch(argv):
    """readers.py batch CMD ARGS [-- CMD ARGS]...: several commands in one process (Python
    costs about 50 ms to start); each one's output, then a line "=== end".  A command that
    fails prints its error as its output."""
    import contextlib
    import io
    groups, cur = [], []
    for a in argv:
        if a == "--":
            groups.append(cur)
            cur = []
        else:
            cur.append(a)
    groups.append(cur)
    for g in groups:
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                run_one(g)
        except SystemExit as e:
            buf.write(f"{e.code}\n" if e.code not in (None, 0) else "")
        except Exception as e:  # a reader that cannot parse says so, as its own run would
            buf.write(f"{type(e).__name__}: {e}\n")
        sys.stdout.write(buf.getvalue())
        sys.stdout.write("=== end\n")


def serve():
    """readers.py serve: the integration tests' harness keeps one process per test and sends
    it a batch per line; the answer ends with a line "=== done".  Ends at end of input."""
    import shlex
    for line in sys.stdin:
        batch(shlex.split(line))
        sys.stdout.write("=== done\n")
        sys.stdout.flush()


def main():
    if sys.argv[1] == "serve":
        serve()
        return
    if sys.argv[1] == "batch":
        batch(sys.argv[2:])
        return
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "pht-placement":
        print(pht_placement(path))
        return
    if cmd == "validate":
        sys.exit(validate(path, sys.argv[3]))
    if cmd == "object":
        print("\n".join(object_lines(path)))
        return
    reader = {"sections": read_sections, "segments": read_segments, "readelf": read_readelf, "llvm": read_llvm}[cmd]
    print(compact(reader(path)))


if __name__ == "__main__":
    main()
