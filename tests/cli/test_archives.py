# SPDX-License-Identifier: MIT
"""Archives (formats/archive*.c) end to end through the quantaudit binary.

Every archive is written here, in a scratch folder, from the generated
fixtures ($QA_FIXTURES), by Python's tarfile, gzip and zipfile, the `zstd`
command (the .tar.zst cases are skipped with a message when it is
missing), and two small writers of this file for what those cannot do
without reading every byte: a tar written sparsely (the headers by
tarfile, the data copied extent by extent so the 20 GiB sparse GGUF stays
a few KiB on disk) and a zip in the layout llamafile's zipalign writes
(stored members, ZIP64, data aligned to 64 KiB, appended to an
executable).

1. Fidelity: a model read from an archive reports exactly what the same
   files unpacked report: every tensor (name, member, offset, bytes, dtype,
   shape, role, layer), the model totals and hyperparameters, the
   findings. For a checkpoint folder with an index (tar with a top folder,
   tar.gz with ./ entries, tar.zst, tar.xz, zip deflated, zip stored), a
   split GGUF set, the 770 MB sparse sample GGUF (plain tar, tar.zst,
   llamafile), a GGUF with a 5000-token vocabulary streamed out of a
   tar.gz (the keeper's GGUF header scan), and a folder of two GGUF models
   (one input per member).
2. Headers only: the 20 GiB sparse GGUF in a plain tar and in a llamafile
   is inspected reading its header and not its data, measured with the
   kernel's own counter (/proc/self/io rchar, which includes reaped
   children).
3. Hostile archives, each with the finding code it must give: traversal
   (../, absolute, backslash, NUL in a zip name), symbolic and hard links
   inside and outside, device and FIFO entries, duplicate names and names
   differing in case, more than 65,536 members, a tar.zst that expands
   past 1 GiB at > 100:1, a zip declaring such a ratio, overlapping zip
   entries, a truncated tar.gz, a local header that disagrees with the
   central directory, an encrypted member, a llamafile with a compressed
   or unaligned GGUF or offsets that leave out the executable, a .nemo
   holding only a PyTorch checkpoint, a gzip file that is no tar.
4. Commands and other readers: check and fit on a member GGUF (in the
   archive, and named as archive!/member) give what they give on the
   file; the members Python's tarfile data filter refuses, the copy of a
   duplicated name tarfile, zipfile, bsdtar and unzip -o give, the member
   list, and the offset of a truncation agree with what those readers say;
   nested archives and NeMo layouts; member names escaped on every output;
   and nothing written while reading (/proc/self/io wchar, strace).
"""
import gzip
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker, env_path, run, run_json  # noqa: E402

FIX = None
QA = None

# ---- writers -----------------------------------------------------------------


def extents(path):
    """The data extents of a (sparse) file: [(offset, length)]."""
    out = []
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        pos = 0
        while pos < size:
            try:
                data = os.lseek(f.fileno(), pos, os.SEEK_DATA)
            except OSError:
                break
            hole = os.lseek(f.fileno(), data, os.SEEK_HOLE)
            out.append((data, hole - data))
            pos = hole
    return out


def copy_sparse(src, dst, at):
    """Copies file src into the open file dst at offset at, data extents
    only (holes stay holes)."""
    with open(src, "rb") as f:
        for off, n in extents(src):
            f.seek(off)
            dst.seek(at + off)
            while n:
                chunk = f.read(min(n, 1 << 20))
                dst.write(chunk)
                n -= len(chunk)


# CRC-32 of data followed by zeros without reading the zeros: zlib's
# crc32_combine (GF(2) matrices), so a 20 GiB member gets its true CRC.
def _gf2_times(mat, vec):
    s = 0
    i = 0
    while vec:
        if vec & 1:
            s ^= mat[i]
        vec >>= 1
        i += 1
    return s


def _gf2_square(mat):
    return [_gf2_times(mat, mat[n]) for n in range(32)]


def crc32_zeros(crc, n):
    """crc32 of (data whose crc32 is crc) + n zero bytes."""
    if n == 0:
        return crc
    odd = [0xEDB88320] + [1 << i for i in range(31)]
    even = _gf2_square(odd)
    odd = _gf2_square(even)
    crc ^= 0xFFFFFFFF
    while True:
        even = _gf2_square(odd)
        if n & 1:
            crc = _gf2_times(even, crc)
        n >>= 1
        if not n:
            break
        odd = _gf2_square(even)
        if n & 1:
            crc = _gf2_times(odd, crc)
        n >>= 1
        if not n:
            break
    return crc ^ 0xFFFFFFFF


def crc32_sparse(path):
    crc, pos = 0, 0
    with open(path, "rb") as f:
        for off, n in extents(path):
            crc = crc32_zeros(crc, off - pos)
            f.seek(off)
            left = n
            while left:
                chunk = f.read(min(left, 1 << 20))
                crc = zlib.crc32(chunk, crc)
                left -= len(chunk)
            pos = off + n
    return crc32_zeros(crc, os.path.getsize(path) - pos)


def tar_sparse(out, members, extra_blocks=2):
    """A plain GNU tar written sparsely: members are (arcname, path or
    bytes or None for a folder)."""
    with open(out, "wb") as f:
        pos = 0
        for name, src in members:
            ti = tarfile.TarInfo(name)
            ti.mtime = 0
            if src is None:
                ti.type = tarfile.DIRTYPE
                ti.size = 0
            elif isinstance(src, bytes):
                ti.size = len(src)
            else:
                ti.size = os.path.getsize(src)
            hdr = ti.tobuf(tarfile.GNU_FORMAT, "utf-8", "surrogateescape")
            f.seek(pos)
            f.write(hdr)
            pos += len(hdr)
            if isinstance(src, bytes):
                f.write(src)
            elif src is not None:
                copy_sparse(src, f, pos)
            pos += ti.size + (-ti.size % 512)
        pos += 512 * extra_blocks
        f.truncate(pos)


def tar_py(out, members, mode="w", fmt=tarfile.GNU_FORMAT):
    """A tar through Python's tarfile (any compression): members are
    (arcname, path or bytes or TarInfo-tweak tuple)."""
    with tarfile.open(out, mode, format=fmt) as t:
        for m in members:
            name, src = m[0], m[1]
            tweak = m[2] if len(m) > 2 else None
            if isinstance(src, str):
                ti = t.gettarinfo(src, arcname=name)
                ti.name = name  # gettarinfo drops a leading '/'
                ti.mtime = 0
                if tweak:
                    tweak(ti)
                if ti.isreg():
                    with open(src, "rb") as fh:
                        t.addfile(ti, fh)
                else:
                    t.addfile(ti)
            else:
                ti = tarfile.TarInfo(name)
                ti.mtime = 0
                ti.size = len(src) if src is not None else 0
                if src is None:
                    ti.type = tarfile.DIRTYPE
                if tweak:
                    tweak(ti)
                t.addfile(ti, io.BytesIO(src) if src else None)


def zip_align(out, members, prefix=b"", align=65536, shift=True,
              method_of=None, dup_cd=None, flags_of=None):
    """A zip written as llamafile's zipalign does: each member stored
    (method 0) with its data aligned to align bytes, ZIP64 sizes and
    offsets, after prefix bytes (the executable). With shift False the
    offsets leave the prefix out (a zip appended by `cat`). method_of
    gives a member's method (8: deflated in full, so small members only);
    dup_cd adds a second central entry for a member under another name;
    flags_of gives a member's general purpose flags."""
    cd = []
    with open(out, "wb") as f:
        f.write(prefix)
        pos = len(prefix)
        base = 0 if shift else len(prefix)
        for name, src in members:
            nb = name.encode("utf-8", "surrogateescape")
            method = method_of(name) if method_of else 0
            flags = flags_of(name) if flags_of else 0
            if isinstance(src, bytes):
                data = src
                size = len(src)
                crc = zlib.crc32(src)
            else:
                data = None
                size = os.path.getsize(src)
                crc = crc32_sparse(src)
            if method == 8:
                if data is None:
                    with open(src, "rb") as fh:
                        data = fh.read()
                co = zlib.compressobj(9, zlib.DEFLATED, -15)
                cdata = co.compress(data) + co.flush()
                csize = len(cdata)
            else:
                cdata = data
                csize = size
            # zip64 extra in the local header: usize, csize; then an
            # extra field of padding that puts the data on the boundary
            x64 = struct.pack("<HHQQ", 1, 16, size, csize)
            hdr_len = 30 + len(nb) + len(x64)
            need = (-(pos + hdr_len)) % align if method == 0 else 0
            if 0 < need < 4:
                need += align
            extra = x64
            if need:
                extra += struct.pack("<HH", 0xCAFE, need - 4) + \
                    b"\0" * (need - 4)
            local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, flags,
                                method, 0, 0x21, crc, 0xFFFFFFFF,
                                0xFFFFFFFF, len(nb), len(extra))
            f.seek(pos)
            f.write(local + nb + extra)
            data_at = pos + len(local) + len(nb) + len(extra)
            if cdata is not None:
                f.write(cdata)
            else:
                copy_sparse(src, f, data_at)
            cd.append((nb, method, flags, crc, csize, size, pos - base))
            pos = data_at + csize
        if dup_cd:
            for old, new in dup_cd:
                for e in list(cd):
                    if e[0] == old.encode():
                        cd.append((new.encode(),) + e[1:])
        cd_start = pos
        f.seek(pos)
        for nb, method, flags, crc, csize, size, lho in cd:
            x64 = struct.pack("<HHQQQ", 1, 24, size, csize, lho)
            f.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50,
                                (3 << 8) | 45, 45, flags, method, 0, 0x21,
                                crc, 0xFFFFFFFF, 0xFFFFFFFF, len(nb),
                                len(x64), 0, 0, 0, 0o100644 << 16,
                                0xFFFFFFFF))
            f.write(nb + x64)
        cd_end = f.tell()
        cd_size = cd_end - cd_start
        z64 = cd_end
        f.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0,
                            len(cd), len(cd), cd_size, cd_start - base))
        f.write(struct.pack("<IIQI", 0x07064B50, 0, z64 - base, 1))
        f.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF,
                            0xFFFFFFFF, 0xFFFFFFFF, 0))


def zstd_available():
    return shutil.which("zstd") is not None


def zstd(src, dst):
    subprocess.run(["zstd", "-q", "-f", "-T0", "-3", src, "-o", dst],
                   check=True)


# Bytes an executable starts with (APE, as llamafile's).
APE = b"MZqFpD='\n\n\x00\x10\x00\xf8\x00\x00\x00\x00\x00\x00\x00" + \
      b"\n#'\"\necho llamafile stand-in\nexit 1\n" + bytes(range(256)) * 8

# ---- comparing reports ---------------------------------------------------------


def member_rel(path, top):
    """A report path made comparable: the member path inside the
    archive, or the path under the unpacked folder top."""
    if "!/" in path:
        return path.split("!/", 1)[1]
    return os.path.relpath(path, top)


def facts(inp, top, strip=""):
    """What must be equal between an archive and the files unpacked."""
    def rel(p):
        r = member_rel(p, top)
        return r[len(strip):] if strip and r.startswith(strip) else r

    tensors = [(t["name"], rel(t["file"]), t["offset"], t["bytes"],
                t["dtype"], tuple(t["shape"]), t["role"], t["layer"])
               for t in inp.get("tensors", [])]
    model = dict(inp["model"])
    findings = sorted((f["code"], rel(f["file"]) if f.get("file") else "",
                       f.get("offset", -1)) for f in inp["findings"])
    files = sorted((rel(f["path"]), f["bytes"], f["format"])
                   for f in inp["files"])
    return {"tensors": tensors, "model": model, "findings": findings,
            "files": files}


def codes(inp):
    return sorted({f["code"] for f in inp["findings"]})


VALIDATOR = None
SCHEMA_ERRORS = []


def inspect(path):
    """inspect --format json; the report is checked against the
    published schema when python3-jsonschema is there."""
    code, doc, err = run_json(QA, ["inspect", path])
    if VALIDATOR is not None and doc:
        for e in VALIDATOR.iter_errors(doc):
            SCHEMA_ERRORS.append(f"{os.path.basename(path)}: {e.message}")
    return code, doc.get("inputs", []), err


def same_as_unpacked(c, archive, top, strip="", what=None, n_inputs=1,
                     kind=None, fmt=None):
    what = what or os.path.basename(archive)
    code_a, ins_a, err_a = inspect(archive)
    unpacked = top if n_inputs > 1 or os.path.isdir(top) else top
    code_u, ins_u, err_u = inspect(unpacked)
    if not c.check(len(ins_a) == n_inputs and len(ins_u) == n_inputs,
                   f"{what}: {len(ins_a)} inputs from the archive, "
                   f"{len(ins_u)} unpacked, {n_inputs} expected "
                   f"({err_a.strip()[:300]})"):
        return None
    base = top if os.path.isdir(top) else os.path.dirname(top)
    for a, u in zip(ins_a, ins_u):
        fa, fu = facts(a, base, strip), facts(u, base)
        # the archive's own findings are the only additions
        fa["findings"] = [f for f in fa["findings"]
                          if not f[0].startswith("QA15")]
        for key in ("tensors", "model", "files", "findings"):
            c.check(fa[key] == fu[key],
                    f"{what}: {key} differ from the unpacked files:\n"
                    f"  archive  {str(fa[key])[:400]}\n"
                    f"  unpacked {str(fu[key])[:400]}")
        c.check(a["kind"] == "archive" and "archive" in a,
                f"{what}: kind {a['kind']}, archive object "
                f"{'archive' in a}")
        if "archive" in a:
            c.check(a["archive"]["kind"] == (kind or u["kind"]),
                    f"{what}: archive.kind {a['archive']['kind']}, "
                    f"unpacked {u['kind']}")
            if fmt:
                c.check(a["archive"]["format"] == fmt,
                        f"{what}: format {a['archive']['format']}, "
                        f"expected {fmt}")
        c.check(len(a.get("tensors", [])) > 0 or "no-model" in what,
                f"{what}: no tensors")
    c.check(code_a == code_u, f"{what}: exit {code_a}, unpacked {code_u}")
    return ins_a


# ---- 1. fidelity -----------------------------------------------------------------


def fidelity(c, tmp):
    st = os.path.join(FIX, "st", "sharded")
    names = sorted(os.listdir(st))
    # a tar of the folder: one top folder
    p = os.path.join(tmp, "sharded.tar")
    tar_py(p, [("sharded", None)] +
           [("sharded/" + n, os.path.join(st, n)) for n in names])
    same_as_unpacked(c, p, st, strip="sharded/", fmt="tar")
    # tar.gz made as `tar czf x -C dir .`: ./ entries
    p = os.path.join(tmp, "sharded.tar.gz")
    tar_py(p, [(".", None)] + [("./" + n, os.path.join(st, n))
                               for n in names], "w:gz")
    ins = same_as_unpacked(c, p, st, fmt="tar.gz")
    if ins:
        c.check(ins[0]["archive"]["read"] == "streamed",
                f"tar.gz read {ins[0]['archive']['read']}")
    p = os.path.join(tmp, "sharded.tar.xz")
    tar_py(p, [(n, os.path.join(st, n)) for n in names], "w:xz")
    same_as_unpacked(c, p, st, fmt="tar.xz")
    if zstd_available():
        plain = os.path.join(tmp, "sharded-z.tar")
        tar_py(plain, [(n, os.path.join(st, n)) for n in names])
        p = os.path.join(tmp, "sharded.tar.zst")
        zstd(plain, p)
        same_as_unpacked(c, p, st, fmt="tar.zst")
    else:
        print("SKIP .tar.zst: no zstd command")
        c.skipped += 1
    for method, label in ((zipfile.ZIP_DEFLATED, "deflated"),
                          (zipfile.ZIP_STORED, "stored")):
        p = os.path.join(tmp, f"sharded-{label}.zip")
        with zipfile.ZipFile(p, "w", method) as z:
            for n in names:
                z.write(os.path.join(st, n), n)
        ins = same_as_unpacked(c, p, st, what=f"zip {label}", fmt="zip")
        if ins:
            c.check(ins[0]["archive"]["read"] == "in-place",
                    f"zip read {ins[0]['archive']['read']}")

    # a split GGUF set, in a tar and in a zip
    split = os.path.join(FIX, "gguf", "split")
    parts = sorted(os.listdir(split))
    p = os.path.join(tmp, "split.tar")
    tar_sparse(p, [(n, os.path.join(split, n)) for n in parts])
    same_as_unpacked(c, p, os.path.join(split, parts[0]), fmt="tar")
    p = os.path.join(tmp, "split.zip")
    with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as z:
        for n in parts:
            z.write(os.path.join(split, n), n)
    same_as_unpacked(c, p, os.path.join(split, parts[0]), fmt="zip")

    # the sparse 770 MB sample: plain tar, tar.zst, llamafile
    sample = os.path.join(FIX, "sample", "sample-llama-3.2-1b-Q4_K_M.gguf")
    name = os.path.basename(sample)
    p = os.path.join(tmp, "sample.tar")
    tar_sparse(p, [(name, sample)])
    same_as_unpacked(c, p, sample, fmt="tar")
    if zstd_available():
        z = os.path.join(tmp, "sample.tar.zst")
        zstd(p, z)
        same_as_unpacked(c, z, sample, fmt="tar.zst")
    p = os.path.join(tmp, "sample.llamafile")
    args = b"-m\n" + name.encode() + b"\n...\n"
    zip_align(p, [(name, sample), (".args", args)], prefix=APE)
    with zipfile.ZipFile(p) as zf:
        info = zf.getinfo(name)
        c.check(info.file_size == os.path.getsize(sample) and
                zf.open(name).read(4) == b"GGUF",
                "llamafile: Python's zipfile does not read the member")
    ins = same_as_unpacked(c, p, sample, fmt="llamafile")
    if ins:
        c.check(codes(ins[0]) == codes_of(sample),
                f"llamafile: findings {codes(ins[0])}")

    # a GGUF with a 5000-token vocabulary streamed out of a tar.gz
    vocab = os.path.join(FIX, "gguf", "vocab-5000.gguf")
    p = os.path.join(tmp, "vocab.tar.gz")
    tar_py(p, [("vocab-5000.gguf", vocab)], "w:gz")
    same_as_unpacked(c, p, vocab, fmt="tar.gz")
    # ... and deflated in a zip
    p = os.path.join(tmp, "vocab.zip")
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(vocab, "vocab-5000.gguf")
    same_as_unpacked(c, p, vocab, fmt="zip")

    # a folder of two GGUF models: one input per member
    two = os.path.join(tmp, "two")
    os.makedirs(two)
    for n in ("valid-llama-q8_0.gguf", "vocab-5000.gguf"):
        shutil.copy(os.path.join(FIX, "gguf", n), os.path.join(two, n))
    p = os.path.join(tmp, "two.tar.gz")
    tar_py(p, [(n, os.path.join(two, n)) for n in sorted(os.listdir(two))],
           "w:gz")
    ins = same_as_unpacked(c, p, two, n_inputs=2)
    if ins:
        c.check([i["path"] for i in ins] ==
                [p + "!/valid-llama-q8_0.gguf", p + "!/vocab-5000.gguf"],
                f"two models: paths {[i['path'] for i in ins]}")

    # a checkpoint folder from the hub fixtures, in a tar.gz
    kimi = os.path.join(FIX, "hub", "kimi-k2-like")
    p = os.path.join(tmp, "kimi.tar.gz")
    tar_py(p, [("kimi-k2-like/" + n, os.path.join(kimi, n))
               for n in sorted(os.listdir(kimi))], "w:gz")
    same_as_unpacked(c, p, kimi, strip="kimi-k2-like/", fmt="tar.gz")


def codes_of(path):
    _, ins, _ = inspect(path)
    return codes(ins[0]) if ins else None


# ---- 2. headers only ------------------------------------------------------------


def rchar():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    return -1


def headers_only(c, tmp):
    big = os.path.join(FIX, "gguf", "sparse-20g.gguf")
    name = os.path.basename(big)
    _, plain, _ = inspect(big)
    tar = os.path.join(tmp, "sparse-20g.tar")
    tar_sparse(tar, [(name, big)])
    lf = os.path.join(tmp, "sparse-20g.llamafile")
    zip_align(lf, [(name, big)], prefix=APE)
    for p in (tar, lf):
        before = rchar()
        proc = subprocess.run([QA, "inspect", "--format", "json", p],
                              capture_output=True, timeout=120)
        after = rchar()
        read = after - before - len(proc.stdout) - len(proc.stderr)
        doc = json.loads(proc.stdout)
        inp = doc["inputs"][0]
        # the data section starts at the first tensor: the header ends
        # before it
        header = min(t["offset"] for t in inp["tensors"])
        limit = header + (2 << 20)
        print(f"{os.path.basename(p)}: archive {os.path.getsize(p)} bytes, "
              f"header {header}, read {read} bytes")
        c.check(read <= limit, f"{os.path.basename(p)}: read {read} bytes, "
                f"more than the header + 2 MiB ({limit})")
        c.check(inp["model"]["bytes"] == plain[0]["model"]["bytes"] and
                len(inp["tensors"]) == len(plain[0]["tensors"]) and
                inp["model"]["bytes"] >= 20 << 30,
                f"{os.path.basename(p)}: {len(inp['tensors'])} tensors, "
                f"{inp['model']['bytes']} bytes; unpacked "
                f"{len(plain[0]['tensors'])}, {plain[0]['model']['bytes']}")
        c.check(codes(inp) == codes(plain[0]),
                f"{os.path.basename(p)}: findings {codes(inp)}")


# ---- 3. hostile archives -------------------------------------------------------


def expect(c, path, want, exit_code=1, absent=(), what=None, inputs=1):
    what = what or os.path.basename(path)
    code, ins, err = inspect(path)
    got = sorted({f["code"] for i in ins for f in i["findings"]})
    c.check(all(w in got for w in want),
            f"{what}: findings {got}, expected {want} ({err.strip()[:200]})")
    c.check(not any(a in got for a in absent),
            f"{what}: findings {got} include one of {list(absent)}")
    c.check(code == exit_code, f"{what}: exit {code}, expected {exit_code}"
            f" ({err.strip()[:200]})")
    c.check(len(ins) == inputs, f"{what}: {len(ins)} inputs")
    return ins


def hostile(c, tmp):
    gg = os.path.join(FIX, "gguf", "valid-llama-q8_0.gguf")
    other = os.path.join(FIX, "gguf", "vocab-5000.gguf")
    data = open(gg, "rb").read()

    # traversal: the model is still read, the bad members are not
    p = os.path.join(tmp, "traversal.tar")
    tar_py(p, [("model.gguf", gg), ("../evil.gguf", other),
               ("/abs.gguf", other), ("a/../../up.json", b"{}"),
               ("win\\..\\x.gguf", other)])
    ins = expect(c, p, ["QA1504"])
    if ins:
        c.check(len([f for f in ins[0]["findings"]
                     if f["code"] == "QA1504"]) == 4,
                "traversal: not four QA1504")
        c.check([f["path"] for f in ins[0]["files"]] == [p + "!/model.gguf"],
                f"traversal: files {[f['path'] for f in ins[0]['files']]}")
    p = os.path.join(tmp, "nul.zip")
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("model.gguf", data)
    blob = bytearray(open(p, "rb").read())
    # a second entry whose name has a NUL: patch a copy of the name
    with zipfile.ZipFile(p, "a") as z:
        z.writestr("modelXgguf.json", b"{}")
    blob = open(p, "rb").read().replace(b"modelXgguf.json",
                                        b"model\0gguf.json")
    open(p, "wb").write(blob)
    expect(c, p, ["QA1504"])

    # links
    def sym(target):
        def f(ti):
            ti.type = tarfile.SYMTYPE
            ti.linkname = target
            ti.size = 0
        return f

    def hard(target):
        def f(ti):
            ti.type = tarfile.LNKTYPE
            ti.linkname = target
            ti.size = 0
        return f

    p = os.path.join(tmp, "links.tar")
    tar_py(p, [("model.gguf", gg), ("inside.gguf", b"", sym("model.gguf")),
               ("sub/up.gguf", b"", sym("../model.gguf"))])
    expect(c, p, ["QA1506"], exit_code=0, absent=["QA1507"])
    p = os.path.join(tmp, "links-out.tar")
    tar_py(p, [("model.gguf", gg), ("passwd", b"", sym("/etc/passwd")),
               ("sub/up", b"", sym("../../x")),
               ("h", b"", hard("../outside"))])
    ins = expect(c, p, ["QA1507"])
    if ins:
        c.check(len([f for f in ins[0]["findings"]
                     if f["code"] == "QA1507"]) == 3, "links: not 3 QA1507")
    # symbolic link stored in a zip (unix mode 0120777)
    p = os.path.join(tmp, "link.zip")
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("model.gguf", data)
        zi = zipfile.ZipInfo("escape")
        zi.create_system = 3
        zi.external_attr = 0o120777 << 16
        z.writestr(zi, "../../../etc/shadow")
    expect(c, p, ["QA1507"])

    # a deflated member whose unix mode names no file type (0o07 in the
    # type bits): Python's zipfile extracts its bytes, libarchive gives
    # none of them. Found by fuzz_archive (exit 4, "read error", before
    # the fix): the member is a finding naming it and the short count.
    p = os.path.join(tmp, "no-type.zip")
    st = os.path.join(FIX, "st", "qwen3")
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        for n in sorted(os.listdir(st)):
            zi = zipfile.ZipInfo(n)
            zi.create_system = 3
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = ((0o077644 if n.endswith(".safetensors")
                                 else 0o100644) << 16)
            z.writestr(zi, open(os.path.join(st, n), "rb").read())
    ins = expect(c, p, ["QA1509", "QA1403"])
    if ins:
        size = os.path.getsize(os.path.join(st, "model.safetensors"))
        msgs = [f["message"] for f in ins[0]["findings"]
                if f["code"] == "QA1509"]
        c.check(any("'model.safetensors'" in m and
                    f"gives 0 of the {size} bytes" in m for m in msgs),
                f"no-type.zip: QA1509 messages {msgs}")

    # device and FIFO entries
    def dev(kind):
        def f(ti):
            ti.type = kind
            ti.size = 0
            ti.devmajor, ti.devminor = 1, 3
        return f
    p = os.path.join(tmp, "devices.tar")
    tar_py(p, [("model.gguf", gg), ("null", b"", dev(tarfile.CHRTYPE)),
               ("fifo", b"", dev(tarfile.FIFOTYPE))])
    ins = expect(c, p, ["QA1508"])
    if ins:
        c.check(len([f for f in ins[0]["findings"]
                     if f["code"] == "QA1508"]) == 2, "devices: not 2")

    # duplicates: the last copy is inspected
    p = os.path.join(tmp, "dup.tar")
    tar_py(p, [("model.gguf", other), ("model.gguf", gg)])
    ins = expect(c, p, ["QA1505"])
    _, ref, _ = inspect(gg)
    if ins and ref:
        c.check(len(ins[0]["tensors"]) == len(ref[0]["tensors"]),
                f"dup: {len(ins[0]['tensors'])} tensors, the last copy "
                f"has {len(ref[0]['tensors'])}")
    p = os.path.join(tmp, "case.zip")
    st = os.path.join(FIX, "st", "qwen3")
    with zipfile.ZipFile(p, "w") as z:
        for n in sorted(os.listdir(st)):
            z.write(os.path.join(st, n), n)
        z.writestr("CONFIG.JSON", b"{}")
    expect(c, p, ["QA1505"], exit_code=codes_exit(st))

    # too many members (tar.gz of empty files)
    p = os.path.join(tmp, "many.tar.gz")
    with tarfile.open(p, "w:gz", compresslevel=1) as t:
        ti = tarfile.TarInfo("model.gguf")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
        for i in range(65537):
            t.addfile(tarfile.TarInfo(f"f/{i}"))
    expect(c, p, ["QA1503"])

    # a bomb: 1.1 GiB of zeros in a tar.zst, before the model
    if zstd_available():
        zeros = os.path.join(tmp, "zeros.bin")
        with open(zeros, "wb") as f:
            f.truncate((1 << 30) + (100 << 20))
        plain = os.path.join(tmp, "bomb.tar")
        tar_sparse(plain, [("zeros.bin", zeros), ("model.gguf", gg)])
        os.unlink(zeros)
        p = os.path.join(tmp, "bomb.tar.zst")
        zstd(plain, p)
        os.unlink(plain)
        ins = expect(c, p, ["QA1502", "QA1514"])
    else:
        print("SKIP tar.zst bomb: no zstd command")
        c.skipped += 1
    # a zip declaring 4 GiB from a few bytes, and overlapping entries
    p = os.path.join(tmp, "ratio.zip")
    zip_align(p, [("model.gguf", gg), ("zeros.bin", bytes(4096))],
              method_of=lambda n: 8 if n == "zeros.bin" else 0)
    blob = bytearray(open(p, "rb").read())
    # declare 4 GiB uncompressed in the central zip64 extra
    i = blob.rfind(b"zeros.bin") + len(b"zeros.bin") + 4
    blob[i:i + 8] = struct.pack("<Q", 4 << 30)
    open(p, "wb").write(bytes(blob))
    expect(c, p, ["QA1502"])
    p = os.path.join(tmp, "overlap.zip")
    zip_align(p, [("model.gguf", gg)], dup_cd=[("model.gguf", "copy.gguf")])
    expect(c, p, ["QA1502", "QA1513"], inputs=2)

    # a truncated tar.gz
    st = os.path.join(FIX, "st", "sharded")
    full = os.path.join(tmp, "full.tar.gz")
    big = os.path.join(tmp, "noise.bin")
    with open(big, "wb") as f:
        f.write(os.urandom(300000))
    tar_py(full, [("noise.bin", big)] +
           [(n, os.path.join(st, n)) for n in sorted(os.listdir(st))],
           "w:gz")
    blob = open(full, "rb").read()
    p = os.path.join(tmp, "truncated.tar.gz")
    open(p, "wb").write(blob[:len(blob) // 2])
    expect(c, p, ["QA1501", "QA1514"])

    # the local header names another file than the central directory
    p = os.path.join(tmp, "mismatch.zip")
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("model.gguf", data)
    blob = bytearray(open(p, "rb").read())
    blob[30:30 + len("model.gguf")] = b"evil!.gguf"
    open(p, "wb").write(bytes(blob))
    expect(c, p, ["QA1513"])

    # an encrypted member: not inspected, the model beside it is
    p = os.path.join(tmp, "encrypted.zip")
    zip_align(p, [("model.gguf", gg), ("secret.gguf", other)],
              flags_of=lambda n: 1 if n == "secret.gguf" else 0)
    ins = expect(c, p, ["QA1509", "QA1403"], inputs=2)
    if ins:
        c.check(len(ins[0]["tensors"]) > 0 and not ins[1]["tensors"],
                "encrypted: the stored model is not read, or the "
                "encrypted one is")

    # llamafiles its loader cannot map, or not in place
    p = os.path.join(tmp, "deflated.llamafile")
    zip_align(p, [("model.gguf", gg)], prefix=APE,
              method_of=lambda n: 8)
    expect(c, p, ["QA1510"])
    p = os.path.join(tmp, "unaligned.llamafile")
    zip_align(p, [("model.gguf", gg)], prefix=APE, align=1)
    expect(c, p, ["QA1511"], exit_code=0)
    p = os.path.join(tmp, "relative.llamafile")
    zip_align(p, [("model.gguf", gg)], prefix=APE, shift=False)
    ins = expect(c, p, ["QA1512"])
    if ins and ref:
        c.check(len(ins[0]["tensors"]) == len(ref[0]["tensors"]),
                "relative llamafile: the member is not read")

    # a .nemo: a PyTorch checkpoint and its config, no model we read
    p = os.path.join(tmp, "model.nemo")
    tar_py(p, [("./model_config.yaml", b"target: x\n"),
               ("./model_weights.ckpt", b"PK\x03\x04" + bytes(100))])
    code, ins, err = inspect(p)
    if code == 3:
        # no PyTorch reader: nothing to audit, and the message says what
        # the archive holds
        c.check("no GGUF, safetensors or PyTorch model" in err and
                "model_weights.ckpt" in err,
                f".nemo: exit {code}, {err.strip()[:300]}")
    else:
        # the checkpoint is read as the folder's weights (here a damaged
        # one: a zip signature and zeros)
        c.check(len(ins) == 1 and ins[0]["archive"]["format"] == "nemo" and
                any(f["path"] == p + "!/model_weights.ckpt"
                    for f in ins[0]["files"]),
                f".nemo: exit {code}, inputs "
                f"{[i.get('files') for i in ins]}, {err.strip()[:300]}")
    p = os.path.join(tmp, "evil.nemo")
    tar_py(p, [("./model_config.yaml", b"target: x\n"),
               ("../../model_weights.ckpt", b"x")], "w:gz")
    ins = expect(c, p, ["QA1504", "QA1514"])
    if ins:
        c.check(ins[0]["archive"]["kind"] == "none" and
                ins[0]["archive"]["format"] == "nemo",
                f".nemo: archive {ins[0].get('archive')}")

    # a gzip file that is no tar
    p = os.path.join(tmp, "model.gguf.gz")
    with gzip.open(p, "wb") as f:
        f.write(data)
    code, out, err = run(QA, ["inspect", p])
    c.check(code == 3 and "decompress it first" in err,
            f"gzip single file: exit {code}, {err.strip()[:300]}")


# ---- 4. commands, member paths, and what other readers say ---------------------


def run_cmd_json(args):
    """quantaudit with --format json: (exit code, document)."""
    proc = subprocess.run([QA] + args + ["--format", "json"],
                          capture_output=True, timeout=300)
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        doc = {}
    return proc.returncode, doc, proc.stderr.decode("utf-8", "replace")


def commands(c, tmp):
    """check and fit on a model in an archive (and addressed as a member
    with the archive!/member name reports give) report what they report
    for the file itself."""
    sample = os.path.join(FIX, "sample", "sample-llama-3.2-1b-Q4_K_M.gguf")
    gg = os.path.join(FIX, "gguf", "valid-llama-q8_0.gguf")
    tar = os.path.join(tmp, "cmd.tar")
    tar_sparse(tar, [("q4.gguf", sample), ("q8.gguf", gg)])
    lf = os.path.join(tmp, "cmd.llamafile")
    zip_align(lf, [("q4.gguf", sample)], prefix=APE)
    gz = os.path.join(tmp, "cmd.tar.gz")
    tar_py(gz, [("q8.gguf", gg)], "w:gz")
    cases = [(tar + "!/q4.gguf", sample), (lf, sample), (lf + "!/q4.gguf",
             sample), (gz, gg), (gz + "!/q8.gguf", gg),
             (tar + "!/q8.gguf", gg)]
    for path, plain in cases:
        what = os.path.relpath(path, tmp)
        for args in (["check"], ["check", "--gpus", "1x24G"],
                     ["fit", "--gpus", "1x24G"],
                     ["fit", "--gpus", "2x8G", "--engine", "llama.cpp"]):
            code_a, doc_a, err_a = run_cmd_json(args + [path])
            code_u, doc_u, _ = run_cmd_json(args + [plain])
            ins_a, ins_u = doc_a.get("inputs", []), doc_u.get("inputs", [])
            if not c.check(len(ins_a) == 1 and len(ins_u) == 1,
                           f"{what} {' '.join(args)}: {len(ins_a)} inputs "
                           f"({err_a.strip()[:200]})"):
                continue
            a, u = ins_a[0], ins_u[0]
            c.check(code_a == code_u, f"{what} {' '.join(args)}: exit "
                    f"{code_a}, the file itself {code_u}")
            c.check(a["path"] == path, f"{what}: path {a['path']}")
            c.check(a.get("fit") == u.get("fit"),
                    f"{what} {' '.join(args)}: fit differs:\n  "
                    f"{str(a.get('fit'))[:300]}\n  "
                    f"{str(u.get('fit'))[:300]}")
            c.check(a["model"] == u["model"], f"{what}: model differs")
            fa = sorted(f["code"] for f in a["findings"]
                        if not f["code"].startswith("QA15"))
            fu = sorted(f["code"] for f in u["findings"])
            c.check(fa == fu, f"{what} {' '.join(args)}: findings {fa}, "
                    f"the file itself {fu}")
    # a folder member, and members that are not there
    st = os.path.join(FIX, "st", "sharded")
    p = os.path.join(tmp, "folder.tar")
    tar_py(p, [("ckpt/" + n, os.path.join(st, n))
               for n in sorted(os.listdir(st))] + [("q8.gguf", gg)])
    code, doc, err = run_cmd_json(["inspect", p + "!/ckpt"])
    ins = doc.get("inputs", [])
    _, ref, _ = inspect(st)
    c.check(code == 0 and len(ins) == 1 and ref and
            len(ins[0]["tensors"]) == len(ref[0]["tensors"]) and
            ins[0]["model"] == ref[0]["model"],
            f"folder member: exit {code}, {len(ins)} inputs ({err[:200]})")
    code, out, err = run(QA, ["inspect", p + "!/missing.gguf"])
    c.check(code == 4 and "no such member" in err,
            f"missing member: exit {code}, {err.strip()[:200]}")


def tar_members_by_python(path):
    """What Python's tarfile lists: the last member of each name, as
    getmember() and extraction keep it."""
    with tarfile.open(path) as t:
        return {m.name.lstrip("./") if m.name.startswith("./") else m.name:
                m for m in t.getmembers()}


def agree_with_readers(c, tmp):
    """The archive's members and hostile entries as Python's tarfile and
    zipfile (and bsdtar when it is installed) see them."""
    gg = os.path.join(FIX, "gguf", "valid-llama-q8_0.gguf")
    other = os.path.join(FIX, "gguf", "vocab-5000.gguf")
    _, ref_gg, _ = inspect(gg)
    _, ref_other, _ = inspect(other)

    # tarfile's extraction filter (PEP 706, 'data') refuses exactly the
    # traversal, link and device members quantaudit reports
    p = os.path.join(tmp, "filter.tar")

    def sym(target):
        def f(ti):
            ti.type, ti.linkname, ti.size = tarfile.SYMTYPE, target, 0
        return f

    def hard(target):
        def f(ti):
            ti.type, ti.linkname, ti.size = tarfile.LNKTYPE, target, 0
        return f

    def dev(ti):
        ti.type, ti.size = tarfile.CHRTYPE, 0
    tar_py(p, [("model.gguf", gg), ("../up.json", b"{}"),
               ("/abs.json", b"{}"), ("sub/../../x.json", b"{}"),
               ("ok-link", b"", sym("model.gguf")),
               ("out-link", b"", sym("../../etc/passwd")),
               ("abs-link", b"", sym("/etc/passwd")),
               ("hard-out", b"", hard("../x")), ("null", b"", dev)])
    refused = []
    with tarfile.open(p) as t:
        for m in t.getmembers():
            try:
                tarfile.data_filter(m, os.path.join(tmp, "dest"))
            except tarfile.FilterError:
                refused.append(m.name)
            else:
                # the filter strips a leading '/' and extracts the member
                # inside (as GNU tar does, with a warning); quantaudit
                # flags it as what the archive asks for
                if m.name.startswith("/"):
                    refused.append(m.name)
    _, ins, _ = inspect(p)
    flagged = []
    for f in ins[0]["findings"] if ins else []:
        if f["code"] in ("QA1504", "QA1507", "QA1508"):
            flagged.append(f["message"].split("'")[1])
    c.check(sorted(refused) == sorted(flagged),
            f"tarfile's data filter refuses {sorted(refused)}, "
            f"quantaudit flags {sorted(flagged)}")
    # ... and the model beside them is read
    if ins and ref_gg:
        c.check(len(ins[0]["tensors"]) == len(ref_gg[0]["tensors"]),
                "filter.tar: the model beside the hostile members")

    # duplicates: the copy tarfile's getmember and zipfile's getinfo
    # return, and bsdtar and `unzip -o` extract, is the last; it is the
    # one quantaudit inspects
    for kind in ("tar", "zip"):
        p = os.path.join(tmp, f"dup-first-other.{kind}")
        if kind == "tar":
            tar_py(p, [("model.gguf", gg), ("model.gguf", other)])
            with tarfile.open(p) as t:
                winner = t.extractfile(t.getmember("model.gguf")).read()
        else:
            with zipfile.ZipFile(p, "w") as z:
                z.write(gg, "model.gguf")
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    z.write(other, "model.gguf")
            with zipfile.ZipFile(p) as z:
                winner = z.read("model.gguf")
        c.check(winner == open(other, "rb").read(),
                f"dup {kind}: Python does not return the last copy")
        _, ins, _ = inspect(p)
        if ins and ref_other:
            c.check(len(ins[0]["tensors"]) == len(ref_other[0]["tensors"])
                    and ins[0]["model"] == ref_other[0]["model"],
                    f"dup {kind}: quantaudit did not read the copy Python "
                    f"returns")
        if shutil.which("bsdtar"):
            dest = os.path.join(tmp, f"bsdtar-{kind}")
            os.makedirs(dest)
            subprocess.run(["bsdtar", "-xf", p, "-C", dest], check=True)
            c.check(open(os.path.join(dest, "model.gguf"), "rb").read() ==
                    winner, f"dup {kind}: bsdtar extracts another copy")
            shutil.rmtree(dest)
        if kind == "zip" and shutil.which("unzip"):
            dest = os.path.join(tmp, "unzip-o")
            subprocess.run(["unzip", "-o", "-q", p, "-d", dest], check=True)
            c.check(open(os.path.join(dest, "model.gguf"), "rb").read() ==
                    winner, "dup zip: unzip -o extracts another copy")
            shutil.rmtree(dest)

    # member lists: every regular member Python lists is a file of the
    # archive's file system (a hub checkpoint with a top folder)
    kimi = os.path.join(FIX, "hub", "kimi-k2-like")
    p = os.path.join(tmp, "list.tar.gz")
    tar_py(p, [("top", None)] + [("top/" + n, os.path.join(kimi, n))
                                 for n in sorted(os.listdir(kimi))], "w:gz")
    with tarfile.open(p) as t:
        py = sorted(m.name for m in t.getmembers() if m.isfile())
        total = sum(m.size for m in t.getmembers())
    _, ins, _ = inspect(p)
    if ins:
        arch = ins[0]["archive"]
        c.check(arch["members"] == len(py) and arch["bytes"] == total,
                f"list.tar.gz: {arch['members']} members, {arch['bytes']} "
                f"bytes; tarfile: {len(py)}, {total}")
        weights = sorted(member_rel(f["path"], "") for f in ins[0]["files"])
        c.check(set(weights) <= set(py), f"files {weights} not in {py}")
    if shutil.which("bsdtar"):
        listed = subprocess.run(["bsdtar", "-tf", p], capture_output=True,
                                text=True, check=True).stdout.split()
        c.check(sorted(n for n in listed if not n.endswith("/") and
                       n != "top") == py,
                f"bsdtar lists {listed}, tarfile {py}")

    # a zip cut short: Python's zipfile cannot open it; quantaudit says
    # where it ends
    p = os.path.join(tmp, "cut.zip")
    with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as z:
        z.write(gg, "model.gguf")
    blob = open(p, "rb").read()
    cut = len(blob) - 60
    open(p, "wb").write(blob[:cut])
    try:
        zipfile.ZipFile(p)
        opened = True
    except zipfile.BadZipFile:
        opened = False
    c.check(not opened, "cut.zip: Python's zipfile opens it")
    ins = expect(c, p, ["QA1501", "QA1514"])
    if ins:
        offs = [f.get("offset") for f in ins[0]["findings"]
                if f["code"] == "QA1501"]
        c.check(offs == [cut], f"cut.zip: QA1501 at {offs}, the file ends "
                f"at {cut}")
    # a plain tar cut inside the model: the offset is the header of the
    # member that runs past the end, where tarfile puts it
    p = os.path.join(tmp, "cut.tar")
    tar_py(p, [("config.json", b"{}"), ("model.gguf", gg)])
    with tarfile.open(p) as t:
        header = t.getmember("model.gguf").offset
    blob = open(p, "rb").read()
    open(p, "wb").write(blob[:header + 512 + 1000])
    ins = expect(c, p, ["QA1501"], exit_code=1)
    if ins:
        offs = [f.get("offset") for f in ins[0]["findings"]
                if f["code"] == "QA1501"]
        c.check(offs == [header], f"cut.tar: QA1501 at {offs}, tarfile "
                f"puts the member's header at {header}")
    # a tar.gz cut: the offset is where decompression had got to in the
    # file, within it
    p = os.path.join(tmp, "cut.tar.gz")
    noise = os.path.join(tmp, "noise2.bin")
    with open(noise, "wb") as f:
        f.write(os.urandom(200000))
    tar_py(p, [("noise.bin", noise), ("model.gguf", gg)], "w:gz")
    blob = open(p, "rb").read()
    cut = len(blob) // 2
    open(p, "wb").write(blob[:cut])
    ins = expect(c, p, ["QA1501", "QA1514"])
    if ins:
        offs = [f.get("offset") for f in ins[0]["findings"]
                if f["code"] == "QA1501"]
        c.check(len(offs) == 1 and offs[0] is not None and
                0 < offs[0] <= cut,
                f"cut.tar.gz: QA1501 at {offs}, the file is {cut} bytes")


def nested_and_nemo(c, tmp):
    gg = os.path.join(FIX, "gguf", "valid-llama-q8_0.gguf")
    # an archive inside an archive is named and not opened
    inner = os.path.join(tmp, "inner.tar")
    tar_py(inner, [("model.gguf", gg)])
    p = os.path.join(tmp, "outer.tar")
    tar_py(p, [("inner.tar", inner)])
    ins = expect(c, p, ["QA1509", "QA1514"])
    if ins:
        c.check(not ins[0]["tensors"] and any(
            "'inner.tar' is not inspected: it is an archive inside"
            in f["message"] for f in ins[0]["findings"]),
            "outer.tar: the inner archive is not named, or read")
    p = os.path.join(tmp, "beside.zip")
    with zipfile.ZipFile(p, "w") as z:
        z.write(gg, "model.gguf")
        z.write(inner, "more/inner.tar")
    ins = expect(c, p, ["QA1509"], exit_code=0, absent=["QA1514"])

    # .nemo, as NeMo's SaveRestoreConnector writes it (NVIDIA/NeMo
    # docs/source/checkpoints/intro.rst)
    pt = os.path.join(FIX, "pt", "state-dict.pt")
    _, ref, _ = inspect(pt)
    target = ("nemo.collections.nlp.models.language_modeling."
              "megatron_gpt_model.MegatronGPTModel")
    cfg = (f"target: {target}\nnemo_version: 1.23.0\n"
           f"tensor_model_parallel_size: 2\n"
           f"pipeline_model_parallel_size: 1\n").encode()
    p = os.path.join(tmp, "gpt.nemo")
    tar_py(p, [("./model_config.yaml", cfg), ("./model_weights.ckpt", pt)])
    code, ins, err = inspect(p)
    if c.check(len(ins) == 1, f"gpt.nemo: {len(ins)} inputs, {err[:200]}"):
        i = ins[0]
        c.check(i["archive"]["format"] == "nemo" and
                # the config NeMo reads is hashed as a side file
                # (every file of a folder is accounted for, issue 32)
                [f["path"] for f in i["files"]] ==
                [p + "!/model_weights.ckpt", p + "!/model_config.yaml"],
                f"gpt.nemo: files {[f['path'] for f in i['files']]}")
        if ref:
            c.check([(t["name"], t["dtype"], t["shape"], t["bytes"])
                     for t in i["tensors"]] ==
                    [(t["name"], t["dtype"], t["shape"], t["bytes"])
                     for t in ref[0]["tensors"]],
                    "gpt.nemo: tensors differ from the checkpoint's own")
        c.check(target in i.get("source", "") and
                "model_weights.ckpt" in i.get("source", ""),
                f"gpt.nemo: source {i.get('source')}")
    p = os.path.join(tmp, "tp.nemo")
    tar_py(p, [("./model_config.yaml", cfg),
               ("./mp_rank_00/model_weights.ckpt", pt),
               ("./mp_rank_01/model_weights.ckpt", pt)], "w:gz")
    ins = expect(c, p, ["QA1509", "QA1514"])
    if ins:
        c.check(any("split into 2 model-parallel files" in f["message"] and
                    "tensor_model_parallel_size 2" in f["message"]
                    for f in ins[0]["findings"]),
                "tp.nemo: the rank files are not named")
    p = os.path.join(tmp, "dist.nemo")
    tar_py(p, [("./model_config.yaml", cfg),
               ("./model_weights/__0_0.distcp", bytes(64)),
               ("./model_weights/metadata.json", b"{}")])
    ins = expect(c, p, ["QA1509", "QA1514"])


def escaped_member_names(c, tmp):
    """Member names are model text: a bidi override, a C1 control and a
    workflow command in a name reach no output raw."""
    gg = os.path.join(FIX, "gguf", "valid-llama-q8_0.gguf")
    p = os.path.join(tmp, "names.tar")
    tar_py(p, [("\u202egguf.exe\u0085x.gguf", gg), ("::error::x.gguf", gg)])
    for args in (["inspect"], ["check", "--format", "json"],
                 ["fit", "--gpus", "1x8G"], ["tensors"]):
        proc = subprocess.run([QA] + args + [p], capture_output=True,
                              timeout=60)
        for stream, data in (("stdout", proc.stdout),
                             ("stderr", proc.stderr)):
            text = data.decode("utf-8", "replace")
            bad = [ch for ch in text if ch in "\u202e\u0085"]
            c.check(not bad and not any(
                line.startswith("::") for line in text.splitlines()),
                f"names.tar {' '.join(args)}: raw control in {stream}")
    # an archive with no model: its members are listed in the message
    p = os.path.join(tmp, "names-only.tar")
    tar_py(p, [("\u202eevil\u0085.txt", b"hi")])
    proc = subprocess.run([QA, "inspect", p], capture_output=True,
                          timeout=60)
    err = proc.stderr.decode("utf-8", "replace")
    c.check(proc.returncode == 3 and "evil" in err and
            not any(ch in err for ch in "\u202e\u0085"),
            f"names-only.tar: exit {proc.returncode}, {err[:200]!r}")


def io_counts():
    with open("/proc/self/io") as f:
        return {k: int(v) for k, v in (line.split(": ") for line in f)}


def writes_nothing(c, tmp):
    """Reading an archive writes nothing anywhere: the kernel's count of
    bytes written by the process (and its reaped children) grows by
    exactly what it printed; no file appears in the scratch folder or
    the temporary folder."""
    gg = os.path.join(FIX, "gguf", "valid-llama-q8_0.gguf")
    st = os.path.join(FIX, "st", "sharded")
    kinds = {"w.tar": "w", "w.tar.gz": "w:gz", "w.tar.xz": "w:xz"}
    for name, mode in kinds.items():
        tar_py(os.path.join(tmp, name),
               [("model.gguf", gg)] + [("ckpt/" + n, os.path.join(st, n))
                                       for n in sorted(os.listdir(st))],
               mode)
    with zipfile.ZipFile(os.path.join(tmp, "w.zip"), "w",
                         zipfile.ZIP_DEFLATED) as z:
        z.write(gg, "model.gguf")
    zip_align(os.path.join(tmp, "w.llamafile"), [("model.gguf", gg)],
              prefix=APE)
    strace = shutil.which("strace")
    # The archives just written are flushed first: write_bytes is the
    # kernel's page-dirtying count, and on the 6.18 VM of 2026-12-02 it
    # grew by a page in about one run of ten while the test's own files
    # were still dirty (2 of 5 full-suite runs, never alone). A run that
    # shows storage writes is measured once more: a reader that writes
    # does so every time.
    os.sync()

    def measured(p):
        before = io_counts()
        proc = subprocess.run([QA, "check", "--gpus", "1x8G", p],
                              capture_output=True, timeout=120,
                              env=dict(os.environ, TMPDIR=tmp))
        after = io_counts()
        return proc, {k: after[k] - before[k] for k in after}

    for name in sorted(os.listdir(tmp)):
        if not name.startswith("w."):
            continue
        p = os.path.join(tmp, name)
        before_here = set(os.listdir(tmp))
        proc, delta = measured(p)
        if delta["write_bytes"]:
            os.sync()
            proc, delta = measured(p)
        written = delta["wchar"]
        printed = len(proc.stdout) + len(proc.stderr)
        c.check(written == printed, f"{name}: {written} bytes written, "
                f"{printed} printed")
        c.check(delta["write_bytes"] == 0,
                f"{name}: storage writes ({delta['write_bytes']} bytes)")
        # TMPDIR is the scratch folder: a temporary file would be here
        c.check(set(os.listdir(tmp)) == before_here,
                f"{name}: a file appeared: "
                f"{set(os.listdir(tmp)) - before_here}")
        if not strace:
            continue
        # every file the process and its threads open is opened read-only,
        # and nothing is created, renamed or removed
        log = os.path.join(tmp, "strace.log")
        proc = subprocess.run(
            [strace, "-f", "-qq", "-o", log, "-e",
             "trace=open,openat,openat2,creat,mkdir,mkdirat,rename,"
             "renameat,renameat2,unlink,unlinkat,link,linkat,symlink,"
             "symlinkat,truncate,ftruncate,memfd_create",
             QA, "check", p], capture_output=True, timeout=120,
            # LeakSanitizer cannot run under ptrace (it aborts): in the
            # ASan build the leak check is left to the run above
            env=dict(os.environ, ASAN_OPTIONS=os.environ.get(
                "ASAN_OPTIONS", "") + ":detect_leaks=0"))
        if not os.path.exists(log):
            print(f"SKIP strace on {name}: {proc.stderr[:200]!r}")
            continue
        calls = open(log).read().splitlines()
        os.unlink(log)
        bad = [ln for ln in calls if "exited with" not in ln and
               ("O_WRONLY" in ln or "O_RDWR" in ln or "O_CREAT" in ln or
                not ("open" in ln.split("(")[0]))]
        c.check(not bad and any("open" in ln for ln in calls),
                f"{name}: system calls that write: {bad[:5]}")


def codes_exit(path):
    code, _, _ = inspect(path)
    return code if code != 0 else 1


def main():
    global FIX, QA
    QA = sys.argv[1]
    FIX = env_path("QA_FIXTURES")
    c = Checker()
    global VALIDATOR
    try:
        import jsonschema
        root = env_path("QA_SOURCE_ROOT")
        with open(os.path.join(root, "docs",
                               "quantaudit-1.schema.json")) as f:
            VALIDATOR = jsonschema.Draft202012Validator(json.load(f))
    except ImportError:
        print("python3-jsonschema is not installed: reports not validated")
    with tempfile.TemporaryDirectory(prefix="qa-archives-") as tmp:
        fidelity(c, tmp)
        headers_only(c, tmp)
        hostile(c, tmp)
        commands(c, tmp)
        agree_with_readers(c, tmp)
        nested_and_nemo(c, tmp)
        escaped_member_names(c, tmp)
        writes_nothing(c, tmp)
    c.check(not SCHEMA_ERRORS, "reports that break the schema:\n  " +
            "\n  ".join(SCHEMA_ERRORS[:10]))
    c.finish()


if __name__ == "__main__":
    main()
