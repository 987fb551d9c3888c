# SPDX-License-Identifier: MIT
"""Zip member tricks (formats/archive_zip.c, formats/archive_members.c),
issue 32: every zip here is written by Python's zipfile and then patched
byte by byte at offsets this file computes from the APPNOTE.TXT layout
(4.3.7 local header, 4.3.9 data descriptor, 4.3.12 central directory
entry, 4.3.16 end record). Each trick must give its named finding, never
exit 4, never take longer than the timeout, and the members other readers
see must be inspected (or named as not inspected):

- local header name, method, flags, CRC or sizes unlike the central
  directory entry (QA1513), a data descriptor unlike it (QA1513);
- duplicate member names (QA1505; the copy Python's zipfile opens is the
  one inspected);
- nested archives: zip in zip and tar in zip by name, and under a name
  that hides it (weights.dat, README.md: QA1509 by the bytes' magic);
- end records that lie: a count smaller than the directory holds (both
  members still inspected, as zipfile lists both), larger, a wrong size
  with a true offset, a comment length past the end of the file, bytes
  appended after the zip, ZIP64 fields unlike the 32-bit ones (QA1515);
- local headers the central directory does not list, at the start and
  between members (QA1516, at the header's offset);

and benign zips (stored, deflated, with a comment, with data descriptors,
forced ZIP64) give none of QA1513/QA1515/QA1516.
"""
import io
import json
import os
import struct
import subprocess
import sys
import tarfile
import tempfile
import warnings
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker, env_path  # noqa: E402

QA = None
GG = None
TRICKS = ("QA1513", "QA1515", "QA1516")


def inspect(path):
    proc = subprocess.run([QA, "inspect", "--format", "json", path],
                          capture_output=True, timeout=60)
    try:
        ins = json.loads(proc.stdout)["inputs"]
    except ValueError:
        ins = []
    return proc.returncode, ins, proc.stderr.decode("utf-8", "replace")


def findings(ins, code=None):
    return [f for i in ins for f in i["findings"]
            if code is None or f["code"] == code]


def write_zip(path, members, stream=False, zip64=False):
    """members: [(name, bytes)], stored. stream: written to an
    unseekable stream, so zipfile sets flag bit 3 and writes data
    descriptors; zip64: ZIP64 extras forced on every member."""
    buf = io.BytesIO()

    class Unseekable(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            return buf.write(b)

    out = Unseekable() if stream else buf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(out, "w") as z:
            for n, d in members:
                with z.open(zipfile.ZipInfo(n), "w",
                            force_zip64=zip64) as f:
                    f.write(d)
    blob = bytearray(buf.getvalue())
    with open(path, "wb") as f:
        f.write(blob)
    return blob


def write_zip_method(path, members, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(path, "w", method) as z:
            for n, d in members:
                z.writestr(n, d)
    return bytearray(open(path, "rb").read())


def layout(blob):
    """The end record and the central entries, parsed here from the
    bytes (APPNOTE 4.3.12, 4.3.16): (eocd offset, [(entry offset,
    entry length, local header offset, name)])."""
    e = blob.rfind(b"PK\x05\x06")
    count, size, off = struct.unpack_from("<HII", blob, e + 10)
    ents, p = [], off
    for _ in range(count):
        assert blob[p:p + 4] == b"PK\x01\x02"
        nlen, xlen, clen = struct.unpack_from("<HHH", blob, p + 28)
        local, = struct.unpack_from("<I", blob, p + 42)
        ents.append((p, 46 + nlen + xlen + clen, local,
                     bytes(blob[p + 46:p + 46 + nlen]).decode()))
        p += 46 + nlen + xlen + clen
    return e, ents


def drop_entry(blob, name):
    """The zip without the central entry of name (its local header and
    data stay): count and size in the end record rewritten to match."""
    e, ents = layout(blob)
    p, n, _, _ = next(x for x in ents if x[3] == name)
    out = blob[:p] + blob[p + n:]
    e -= n
    count, size = struct.unpack_from("<HI", out, e + 10)
    struct.pack_into("<HHI", out, e + 8, count - 1, count - 1, size - n)
    return out


class T:
    def __init__(self, c, tmp):
        self.c, self.tmp = c, tmp
        self.ref = inspect(GG)[1][0]

    def path(self, name, blob=None):
        p = os.path.join(self.tmp, name)
        if blob is not None:
            with open(p, "wb") as f:
                f.write(bytes(blob))
        return p

    def expect(self, name, blob, code, exit_code=1, model=True,
               offset=None, count=None, contains=None):
        p = self.path(name, blob)
        try:
            rc, ins, err = inspect(p)
        except subprocess.TimeoutExpired:
            self.c.check(False, f"{name}: no answer in 60 s")
            return []
        got = findings(ins, code)
        self.c.check(got, f"{name}: no {code}; findings "
                     f"{sorted({f['code'] for f in findings(ins)})} "
                     f"{err.strip()[:200]}")
        self.c.check(rc == exit_code, f"{name}: exit {rc}, expected "
                     f"{exit_code} ({err.strip()[:200]})")
        if model:
            n = sum(len(i["tensors"]) for i in ins)
            self.c.check(n == len(self.ref["tensors"]),
                         f"{name}: {n} tensors, the model has "
                         f"{len(self.ref['tensors'])}")
        if offset is not None:
            offs = [f.get("offset") for f in got]
            self.c.check(offset in offs, f"{name}: {code} at {offs}, "
                         f"expected {offset}")
        if count is not None:
            self.c.check(len(got) == count, f"{name}: {len(got)} {code}, "
                         f"expected {count}")
        if contains is not None:
            self.c.check(any(contains in f["message"] for f in got),
                         f"{name}: no {code} message with {contains!r}: "
                         f"{[f['message'] for f in got]}")
        return ins


def header_mismatch(t, gg):
    cfg = b'{"a": 1}'
    base = write_zip_method(t.path("base.zip"), [("model.gguf", gg),
                                                  ("config.json", cfg)],
                            zipfile.ZIP_STORED)
    _, ents = layout(base)
    loc = {x[3]: x[2] for x in ents}
    # name (the existing archives test covers it for a lone member):
    # here the second member, so the first is still inspected
    b = bytearray(base)
    o = loc["config.json"] + 30
    b[o:o + 11] = b"evil!.json\x00"[:11]
    t.expect("name.zip", b, "QA1513", contains="'config.json' names")
    # method: the local header says deflated, the central stored
    b = bytearray(base)
    struct.pack_into("<H", b, loc["config.json"] + 8, 8)
    t.expect("method.zip", b, "QA1513", contains="compression method 8")
    # sizes: the local header gives another uncompressed size
    b = bytearray(base)
    struct.pack_into("<I", b, loc["config.json"] + 22, 4)
    t.expect("size.zip", b, "QA1513", contains="gives 4 bytes")
    # CRC-32
    b = bytearray(base)
    struct.pack_into("<I", b, loc["config.json"] + 14, 0xDEADBEEF)
    t.expect("crc.zip", b, "QA1513", contains="CRC-32 deadbeef")
    # flags: the local header says encrypted, the central does not
    b = bytearray(base)
    struct.pack_into("<H", b, loc["config.json"] + 6, 1)
    t.expect("flags.zip", b, "QA1513", contains="flags 0x0001")
    # a data descriptor unlike the central directory: zipfile writes
    # descriptors (signature, CRC, sizes) on an unseekable stream
    s = write_zip(t.path("desc.zip"), [("model.gguf", gg),
                                        ("config.json", cfg)], stream=True)
    rc, ins, _ = inspect(t.path("desc.zip"))
    t.c.check(not any(f["code"] in TRICKS for f in findings(ins)) and
              rc == 0, f"desc.zip (benign descriptors): exit {rc}, "
              f"{[f['message'] for f in findings(ins)][:3]}")
    _, ents = layout(s)
    lo = {x[3]: x[2] for x in ents}
    # config.json's descriptor: right after its data (30 + name + data)
    d = lo["config.json"] + 30 + len("config.json") + len(cfg)
    t.c.check(s[d:d + 4] == b"PK\x07\x08", "desc.zip: no descriptor "
              f"where APPNOTE 4.3.9 puts it ({bytes(s[d:d + 4])!r})")
    b = bytearray(s)
    struct.pack_into("<I", b, d + 12, 99)   # uncompressed size
    t.expect("desc-lie.zip", b, "QA1513", offset=d,
             contains="data descriptor of 'config.json' gives 99 bytes")


def duplicates(t, gg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = t.path("dup.zip")
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("model.gguf", b"GGUF not this one")
            z.writestr("model.gguf", gg)
        with zipfile.ZipFile(p) as z:
            # the copy zipfile opens by name: the last
            opened = z.read("model.gguf")
    t.c.check(opened == gg, "dup.zip: zipfile does not open the last copy")
    t.expect("dup.zip", None, "QA1505", contains="2 times")
    # the same name in three places, deflated: still one finding
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = t.path("dup3.zip")
        with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
            for d in (b"x", b"y", gg):
                z.writestr("model.gguf", d)
    t.expect("dup3.zip", None, "QA1505", count=1, contains="3 times")


def nested(t, gg):
    inner = bytes(write_zip_method(t.path("inner.zip"),
                                   [("model.gguf", gg)], zipfile.ZIP_STORED))
    tb = io.BytesIO()
    with tarfile.open(fileobj=tb, mode="w") as tf:
        ti = tarfile.TarInfo("model.gguf")
        ti.size = len(gg)
        tf.addfile(ti, io.BytesIO(gg))
    tb = tb.getvalue()
    write_zip_method(t.path("zipzip.zip"), [("inner.zip", inner)],
                     zipfile.ZIP_STORED)
    t.expect("zipzip.zip", None, "QA1509", model=False,
             contains="'inner.zip' is not inspected: it is an archive")
    write_zip_method(t.path("tarzip.zip"), [("inner.tar", tb)],
                     zipfile.ZIP_DEFLATED)
    t.expect("tarzip.zip", None, "QA1509", model=False,
             contains="'inner.tar' is not inspected: it is an archive")
    # under names that do not say so, beside a model: stored, then
    # deflated (README.md is a side file, kept while streaming)
    write_zip_method(t.path("hidden-nest.zip"),
                     [("model.gguf", gg), ("weights.dat", inner),
                      ("extra.bin", tb)], zipfile.ZIP_STORED)
    ins = t.expect("hidden-nest.zip", None, "QA1509", exit_code=0,
                   contains="'weights.dat' is not inspected: its bytes "
                   "are a zip archive")
    t.c.check(any("'extra.bin' is not inspected: its bytes are a tar "
                  "archive" in f["message"] for f in findings(ins)),
              "hidden-nest.zip: the tar named extra.bin is not named")
    write_zip_method(t.path("readme-nest.zip"),
                     [("model.gguf", gg), ("README.md", inner)],
                     zipfile.ZIP_DEFLATED)
    t.expect("readme-nest.zip", None, "QA1509", exit_code=0,
             contains="'README.md' is not inspected: its bytes are a zip")


def end_record(t, gg):
    cfg = b'{"a": 1}'
    # the model second: a reader trusting the count of 1 never sees it
    base = write_zip_method(t.path("base2.zip"), [("config.json", cfg),
                                                   ("model.gguf", gg)],
                            zipfile.ZIP_STORED)
    e, ents = layout(base)
    b = bytearray(base)
    struct.pack_into("<HH", b, e + 8, 1, 1)
    with zipfile.ZipFile(io.BytesIO(bytes(b))) as z:
        names = z.namelist()
    t.c.check(names == ["config.json", "model.gguf"],
              f"count-low.zip: zipfile lists {names}")
    t.expect("count-low.zip", b, "QA1515", offset=ents[1][0],
             contains="counts 1 entries, and the central directory "
             "holds more")
    b = bytearray(base)
    struct.pack_into("<HH", b, e + 8, 3, 3)
    t.expect("count-high.zip", b, "QA1515", offset=e,
             contains="counts 3 entries, and the central directory's")
    # the size lies (smaller and larger), the offset is true
    size, = struct.unpack_from("<I", base, e + 12)
    for name, d in (("size-low.zip", -10), ("size-high.zip", 30)):
        b = bytearray(base)
        struct.pack_into("<I", b, e + 12, size + d)
        t.expect(name, b, "QA1515", offset=e,
                 contains=f"central directory {size + d} bytes at offset "
                 f"{ents[0][0]}, and it spans {size} bytes")
    # the comment length runs past the end of the file: zipfile opens
    # it (its comment cut short), so the members are read
    b = bytearray(base)
    struct.pack_into("<H", b, e + 20, 40)
    with zipfile.ZipFile(io.BytesIO(bytes(b))) as z:
        names = z.namelist()
    t.c.check(names == ["config.json", "model.gguf"],
              f"comment-long.zip: zipfile lists {names}")
    t.expect("comment-long.zip", b, "QA1515", offset=e,
             contains="comment is 40 bytes long, but only 0 bytes")
    # bytes after the zip (a polyglot's second half)
    tail = b"#!/bin/sh\necho appended\n"
    t.expect("appended.zip", base + tail, "QA1515", offset=len(base),
             contains=f"{len(tail)} bytes follow the end of the zip")
    # a comment that is honest: nothing
    p = t.path("comment.zip")
    with zipfile.ZipFile(p, "w") as z:
        z.comment = b"written by a test"
        z.writestr("model.gguf", gg)
    rc, ins, _ = inspect(p)
    t.c.check(rc == 0 and not any(f["code"] in TRICKS
                                  for f in findings(ins)),
              f"comment.zip: exit {rc}, {findings(ins)[:2]}")
    # ZIP64: forced, benign; then its 32-bit count made unlike the ZIP64
    # one (APPNOTE 4.4.1.4: 0xFFFF or the same value)
    b64 = write_zip(t.path("z64.zip"), [("config.json", cfg),
                                         ("model.gguf", gg)], zip64=True)
    rc, ins, _ = inspect(t.path("z64.zip"))
    t.c.check(rc == 0 and not any(f["code"] in TRICKS
                                  for f in findings(ins)),
              f"z64.zip: exit {rc}, {[f['message'] for f in findings(ins)]}")
    # the ZIP64 end record and locator (APPNOTE 4.3.14, 4.3.15) put
    # before the end record by hand: zipfile writes them only past its
    # 32-bit limits
    z = with_zip64_end(base)
    rc, ins, _ = inspect(t.path("z64-end.zip", z))
    t.c.check(rc == 0 and not any(f["code"] in TRICKS
                                  for f in findings(ins)) and
              sum(len(i["tensors"]) for i in ins) ==
              len(t.ref["tensors"]),
              f"z64-end.zip: exit {rc}, "
              f"{[f['message'] for f in findings(ins)]}")
    ez = z.rfind(b"PK\x05\x06")
    b = bytearray(z)
    struct.pack_into("<HH", b, ez + 8, 1, 1)
    t.expect("z64-count.zip", b, "QA1515", offset=ez,
             contains="the ZIP64 end record 2 entries")


def with_zip64_end(blob):
    """blob with a ZIP64 end record and locator before its end record,
    whose 32-bit fields become 0xFFFF / 0xFFFFFFFF."""
    e = blob.rfind(b"PK\x05\x06")
    count, size, off = struct.unpack_from("<HII", blob, e + 10)
    rec = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0,
                      count, count, size, off)
    loc = struct.pack("<4sIQI", b"PK\x06\x07", 0, e, 1)
    end = bytearray(blob[e:])
    struct.pack_into("<HHII", end, 8, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                     0xFFFFFFFF)
    return bytearray(blob[:e]) + rec + loc + end


def hidden_members(t, gg):
    evil = b"import os; os.system('id')\n"
    # between members: config.json's central entry removed
    base = write_zip_method(t.path("base3.zip"), [("model.gguf", gg),
                                                   ("evil.py", evil)],
                            zipfile.ZIP_STORED)
    _, ents = layout(base)
    at = ents[1][2]
    b = drop_entry(base, "evil.py")
    with zipfile.ZipFile(io.BytesIO(bytes(b))) as z:
        names = z.namelist()
    t.c.check(names == ["model.gguf"], f"hidden.zip: zipfile lists {names}")
    t.expect("hidden.zip", b, "QA1516", offset=at,
             contains=f"names 'evil.py' ({len(evil)} bytes)")
    # at the start of the zip, and two in a row
    base = write_zip_method(t.path("base4.zip"),
                            [("a.py", evil), ("b.py", evil),
                             ("model.gguf", gg)], zipfile.ZIP_STORED)
    _, ents = layout(base)
    b = drop_entry(drop_entry(base, "a.py"), "b.py")
    ins = t.expect("hidden-start.zip", b, "QA1516", offset=0, count=2)
    if ins:
        offs = sorted(f["offset"] for f in findings(ins, "QA1516"))
        t.c.check(offs == [ents[0][2], ents[1][2]],
                  f"hidden-start.zip: QA1516 at {offs}, the headers are at "
                  f"{[ents[0][2], ents[1][2]]}")
    # benign: members with padding between them (zipalign-like: extra
    # bytes are zeros, not headers) are not hidden members; checked by
    # the archives test's llamafiles.


def benign(t, gg):
    cfg = b'{"a": 1}'
    for name, method in (("stored.zip", zipfile.ZIP_STORED),
                         ("deflated.zip", zipfile.ZIP_DEFLATED),
                         ("bzip2.zip", zipfile.ZIP_BZIP2)):
        write_zip_method(t.path(name), [("model.gguf", gg),
                                        ("config.json", cfg)], method)
        rc, ins, err = inspect(t.path(name))
        bad = [f["message"] for f in findings(ins)
               if f["code"] in TRICKS or f["code"] == "QA1509"]
        t.c.check(not bad, f"{name}: {bad}")
        t.c.check(rc == 0 or method == zipfile.ZIP_BZIP2,
                  f"{name}: exit {rc} {err.strip()[:200]}")


def main():
    global QA, GG
    QA = sys.argv[1]
    GG = os.path.join(env_path("QA_FIXTURES"), "gguf",
                      "valid-llama-q8_0.gguf")
    gg = open(GG, "rb").read()
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="qa-zip-tricks-") as tmp:
        t = T(c, tmp)
        header_mismatch(t, gg)
        duplicates(t, gg)
        nested(t, gg)
        end_record(t, gg)
        hidden_members(t, gg)
        benign(t, gg)
    c.finish()


if __name__ == "__main__":
    main()
