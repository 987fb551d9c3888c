#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`quantaudit scan` (src/integrity/scan.c, docs/scan.md).

Planted values in every scheme scan claims to read, in files written
here by the published formats (GGUF v3 per ggml's docs/gguf.md, the
block layouts of ggml/src/ggml-common.h written out below as field lists,
safetensors per its README): a NaN, an infinity and all-zero scales in
each ggml block type, and NaN, infinity, FP16 overflow, all-zero and
constant bytes, zero and negative scales in the safetensors dtypes. Each
must give exactly its finding on exactly its tensor, with the position
of the first bad value; the clean tensors beside them nothing. Then the
corpus (when present): no false finding on any real file, and values
planted into real llama-quantize output at offsets gguf-py gives.
"""
import json
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker, run  # noqa: E402

QA = None

# ggml block layouts (ggml/src/ggml-common.h): (type, id, elements per
# block, fields in order as (name, bytes)); the scale is the field "d"
# (an fp16) or, for MXFP4, "e" (an E8M0 exponent).
BLOCKS = [
    ("Q4_0", 2, 32, [("d", 2), ("qs", 16)]),
    ("Q4_1", 3, 32, [("d", 2), ("m", 2), ("qs", 16)]),
    ("Q5_0", 6, 32, [("d", 2), ("qh", 4), ("qs", 16)]),
    ("Q5_1", 7, 32, [("d", 2), ("m", 2), ("qh", 4), ("qs", 16)]),
    ("Q8_0", 8, 32, [("d", 2), ("qs", 32)]),
    ("Q8_1", 9, 32, [("d", 2), ("s", 2), ("qs", 32)]),
    ("Q2_K", 10, 256, [("scales", 16), ("qs", 64), ("d", 2), ("dmin", 2)]),
    ("Q3_K", 11, 256, [("hmask", 32), ("qs", 64), ("scales", 12), ("d", 2)]),
    ("Q4_K", 12, 256, [("d", 2), ("dmin", 2), ("scales", 12), ("qs", 128)]),
    ("Q5_K", 13, 256, [("d", 2), ("dmin", 2), ("scales", 12), ("qh", 32),
                       ("qs", 128)]),
    ("Q6_K", 14, 256, [("ql", 128), ("qh", 64), ("scales", 16), ("d", 2)]),
    ("IQ2_XXS", 16, 256, [("d", 2), ("qs", 64)]),
    ("IQ2_XS", 17, 256, [("d", 2), ("qs", 64), ("scales", 8)]),
    ("IQ3_XXS", 18, 256, [("d", 2), ("qs", 96)]),
    ("IQ1_S", 19, 256, [("d", 2), ("qs", 32), ("qh", 16)]),
    ("IQ4_NL", 20, 32, [("d", 2), ("qs", 16)]),
    ("IQ3_S", 21, 256, [("d", 2), ("qs", 64), ("qh", 8), ("signs", 32),
                        ("scales", 4)]),
    ("IQ2_S", 22, 256, [("d", 2), ("qs", 64), ("qh", 8), ("scales", 8)]),
    ("IQ4_XS", 23, 256, [("d", 2), ("scales_h", 2), ("scales_l", 4),
                         ("qs", 128)]),
    ("TQ1_0", 34, 256, [("qs", 48), ("qh", 4), ("d", 2)]),
    ("TQ2_0", 35, 256, [("qs", 64), ("d", 2)]),
    ("MXFP4", 39, 32, [("e", 1), ("qs", 16)]),
]

F16_ONE, F16_NAN, F16_INF = 0x3C00, 0x7E00, 0x7C00
N_BLOCKS = 4


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def write_gguf(path, tensors):
    """tensors: [(name, ggml type id, [ne...], data bytes)]"""
    kv = gguf_string("general.architecture") + struct.pack("<I", 8) + \
        gguf_string("llama")
    infos, data = b"", b""
    for name, tid, ne, raw in tensors:
        data += b"\0" * (-len(data) % 32)
        infos += gguf_string(name) + struct.pack("<I", len(ne)) + \
            b"".join(struct.pack("<Q", n) for n in ne) + \
            struct.pack("<IQ", tid, len(data))
        data += raw
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 1) + kv + infos
    head += b"\0" * (-len(head) % 32)
    open(path, "wb").write(head + data)


def blocks(fields, scale_at, min_at=None):
    """N_BLOCKS blocks with filler bytes, scale_at(i) as the scale and
    min_at(i) (default 1.0) as the min (m, dmin) where there is one."""
    out = b""
    for i in range(N_BLOCKS):
        for name, size in fields:
            if name in ("d", "e"):
                v = scale_at(i)
                out += bytes([v]) if size == 1 else struct.pack("<H", v)
            elif name in ("m", "dmin"):
                out += struct.pack("<H", min_at(i) if min_at else F16_ONE)
            else:
                out += bytes((i * 7 + k + 1) & 0xFF for k in range(size))
    return out


def scan(path):
    code, out, err = run(QA, ["scan", "-q", "--format", "json", path])
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        return code, None, err + out[:300]


def data_findings(doc):
    """{tensor: {code: message}} for the QA17xx findings."""
    got = {}
    for inp in doc["inputs"]:
        for f in inp["findings"]:
            if f["code"].startswith("QA17"):
                got.setdefault(f.get("tensor"), {})[f["code"]] = f["message"]
    return got


def letters(tname):
    """A tensor name without digits: reports group findings whose
    messages differ only in numbers, and each must stay its own here."""
    return "".join(chr(ord("a") + int(ch)) if ch.isdigit() else ch.lower()
                   for ch in tname)


def ggml_blocks(c, tmp):
    tensors, want = [], {}
    for tname, tid, elems, fields in BLOCKS:
        e8m0 = tname == "MXFP4"
        one = 127 if e8m0 else F16_ONE
        ne = [elems, N_BLOCKS]
        n = letters(tname)
        tensors.append((f"{n}.ok", tid, ne, blocks(fields, lambda i: one)))
        tensors.append((f"{n}.nan", tid, ne, blocks(
            fields, lambda i: (0xFF if e8m0 else F16_NAN) if i == 2 else one)))
        want[f"{n}.nan"] = {"QA1701": "the first is block 2"}
        if not e8m0:
            tensors.append((f"{n}.inf", tid, ne, blocks(
                fields, lambda i: (F16_INF | 0x8000) if i >= 1 else one)))
            want[f"{n}.inf"] = {"QA1702": "3 of the 4 block scales"}
            tensors.append((f"{n}.zero", tid, ne,
                            blocks(fields, lambda i: 0)))
            want[f"{n}.zero"] = {"QA1703": "all 4 blocks is zero"}
        if any(f in ("m", "dmin") for f, _ in fields):
            tensors.append((f"{n}.nanmin", tid, ne, blocks(
                fields, lambda i: one, lambda i: F16_NAN if i == 3
                else F16_ONE)))
            want[f"{n}.nanmin"] = {"QA1701": "the first is block 3"}
    p = os.path.join(tmp, "blocks.gguf")
    write_gguf(p, tensors)
    code, doc, err = scan(p)
    if not c.check(doc is not None, f"blocks.gguf: {err[:300]}"):
        return
    got = data_findings(doc)
    for t, codes in want.items():
        g = got.get(t, {})
        c.check(set(g) == set(codes) and
                all(codes[k] in g[k] for k in codes),
                f"blocks.gguf {t}: got {g}, want {codes}")
    extra = {t: g for t, g in got.items() if t not in want}
    c.check(not extra, f"blocks.gguf: findings on clean tensors {extra}")
    c.check(code == 1, f"blocks.gguf: exit {code}")


def write_safetensors(path, tensors):
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + data)


def f32(vals):
    return b"".join(struct.pack("<f", v) for v in vals)


def bf16(vals):
    return b"".join(struct.pack("<f", v)[2:] for v in vals)


def f16(vals):
    return b"".join(struct.pack("<e", v) for v in vals)


def safetensors_values(c, tmp):
    nan, inf = float("nan"), float("inf")
    base = [0.5 + i / 64 for i in range(64)]

    def put(vals, at, v):
        out = list(vals)
        out[at] = v
        return out
    cases = [
        # (name, dtype, raw bytes, {code: text})
        ("clean.single", "F32", f32(base), {}),
        ("nan.single", "F32", f32(put(base, 5, nan)),
         {"QA1701": "1 of the 64 elements of nan.single are NaN (the first is element 5)"}),
        ("inf.single", "F32", f32(put(put(base, 7, -inf), 9, inf)),
         {"QA1702": "2 of the 64 elements of inf.single are infinite (the first is element 7)"}),
        ("big.single", "F32", f32(put(base, 9, 70000.0)),
         {"QA1707": "the largest magnitude is 70000"}),
        ("big.brain", "BF16", bf16(put(put(base, 3, -1e6), 4, 65280.0)),
         {"QA1707": "1 of the 64 elements of big.brain"}),
        ("nan.brain", "BF16", bf16(put(base, 63, nan)),
         {"QA1701": "(the first is element 63)"}),
        ("inf.half", "F16", f16(put(base, 0, inf)),
         {"QA1702": "(the first is element 0)"}),
        ("zero.single", "F32", f32([0.0] * 64), {"QA1703": "all 256 bytes are zero"}),
        ("fill.byte", "U8", b"\xff" * 64, {"QA1704": "all 64 bytes are 0xff"}),
        ("nan.eightfn", "F8_E4M3", bytes([0x38] * 10 + [0xFF] + [0x38] * 5),
         {"QA1701": "(the first is element 10)"}),
        ("inf.eightfive", "F8_E5M2", bytes([0x3C] * 3 + [0x7C] + [0x3C] * 12),
         {"QA1702": "(the first is element 3)"}),
        ("model.layers.0.mlp.down_proj.weight_scale", "F32",
         f32([0.01, 0.02, 0.03, 0.0, 0.05, -0.06, 0.07, 0.08]),
         {"QA1705": "1 of the 8 scales", "QA1706": "(the first is element 5)"}),
        ("model.layers.0.self_attn.q_proj.scales", "F16",
         f16([0.01] * 6 + [0.0, 0.01]),
         {"QA1705": "(the first is element 6)"}),
        ("model.layers.0.self_attn.k_proj.weight_scale_inv", "BF16",
         bf16([0.5, -0.5] * 4), {"QA1706": "4 of the 8 scales"}),
        ("model.layers.0.self_attn.v_proj.weight_scale", "F8_E4M3",
         bytes([0x38, 0x00, 0x38, 0x38]), {"QA1705": "(the first is element 1)"}),
        ("model.layers.0.self_attn.o_proj.weight_scale", "F32",
         f32([0.25] * 8), {}),
    ]
    tensors = [(n, d, [len(r) // {"F32": 4, "BF16": 2, "F16": 2}.get(d, 1)], r)
               for n, d, r, _ in cases]
    p = os.path.join(tmp, "values.safetensors")
    write_safetensors(p, tensors)
    code, doc, err = scan(p)
    if not c.check(doc is not None, f"values.safetensors: {err[:300]}"):
        return
    got = data_findings(doc)
    for n, _, _, want in cases:
        g = got.get(n, {})
        c.check(set(g) == set(want) and all(want[k] in g[k] for k in want),
                f"values.safetensors {n}: got {g}, want {want}")
    c.check(code == 1, f"values.safetensors: exit {code}")
    # inside a zip: stored, the same findings; deflated, only the
    # header (and 128 KiB after it) is kept, so with a 1 MiB tensor
    # first the data is not there and the scan says so (QA1708)
    # instead of passing
    import zipfile
    padded = os.path.join(tmp, "padded.safetensors")
    pad = bytes((i * 7) % 251 for i in range(1 << 20))
    write_safetensors(padded, [("pad.byte", "U8", [len(pad)], pad)] + tensors)
    pcode, pdoc, perr = scan(padded)
    pgot = data_findings(pdoc) if pdoc else {"?": perr}
    c.check(pgot == got, f"padded: findings differ {set(pgot) ^ set(got)}")
    for mode, name in ((zipfile.ZIP_STORED, "stored.zip"),
                       (zipfile.ZIP_DEFLATED, "deflated.zip")):
        zp = os.path.join(tmp, name)
        with zipfile.ZipFile(zp, "w", mode) as zf:
            zf.write(padded, "model.safetensors")
        zcode, zdoc, zerr = scan(zp)
        zgot = data_findings(zdoc) if zdoc else {"?": zerr}
        if mode == zipfile.ZIP_STORED:
            c.check(zgot == got, f"{name}: findings differ from the plain "
                    f"file: {set(zgot) ^ set(got)}")
        else:
            msg = zgot.get("pad.byte", {}).get("QA1708", "")
            c.check(list(zgot) == ["pad.byte"] and
                    f"{len(tensors) + 1} of the {len(tensors) + 1} tensors" in msg
                    and "in a compressed archive member" in msg,
                    f"{name}: {zgot}")
    # offsets: the NaN of nan.single is 5 floats into the tensor
    for inp in doc["inputs"]:
        for f in inp["findings"]:
            if f.get("tensor") == "nan.single" and f["code"] == "QA1701":
                n = struct.unpack("<Q", open(p, "rb").read(8))[0]
                hdr = json.loads(open(p, "rb").read()[8:8 + n])
                want_off = 8 + n + hdr["nan.single"]["data_offsets"][0] + 20
                c.check(f.get("offset") == want_off,
                        f"nan.single offset {f.get('offset')} != {want_off}")


def corpus(c, root, tmp):
    exp = json.load(open(os.path.join(root, "expected", "gguf.json")))
    models = sorted(
        [os.path.join(root, "gguf", f) for f in os.listdir(os.path.join(root, "gguf"))] +
        [os.path.join(root, "tiny-llama", f) for f in os.listdir(os.path.join(root, "tiny-llama"))
         if f.endswith(".gguf")] +
        [os.path.join(root, "tiny-llama", "split", "tiny-llama-Q4_0-00001-of-00003.gguf")] +
        [os.path.join(root, "hf", d) for d in os.listdir(os.path.join(root, "hf"))])
    for m in models:
        code, doc, err = scan(m)
        got = data_findings(doc) if doc else {"?": err}
        # DeepSeek-V3's e_score_correction_bias is zero-initialised in
        # these random-weight models (transformers' _init_weights): all
        # zeros is what is there
        got = {t: g for t, g in got.items()
               if not (t and ("exp_probs_b" in t or "e_score_correction_bias" in t)
                       and set(g) == {"QA1703"})}
        c.check(doc is not None and not got,
                f"{os.path.relpath(m, root)}: data findings on a real file: {got}")
    # planted into real llama-quantize output
    plants = [("tiny-llama/tiny-llama-e64-Q8_0.gguf", "Q8_0", F16_NAN, "QA1701"),
              ("tiny-llama/tiny-llama-Q4_K_M.gguf", "Q4_K", F16_INF, "QA1702"),
              ("tiny-llama/tiny-llama-Q4_K_M.gguf", "Q6_K", F16_NAN, "QA1701"),
              ("tiny-llama/tiny-llama-e64-Q4_K_M.gguf", "Q5_0", F16_INF, "QA1702"),
              ("tiny-llama/tiny-llama-e64-IQ4_NL.gguf", "IQ4_NL", F16_NAN, "QA1701")]
    for rel, tname, value, code_want in plants:
        e = exp[rel]
        ts = [t for t in e["tensors"] if t["type"] == tname]
        if not c.check(ts, f"{rel}: no {tname} tensor per gguf-py"):
            continue
        t = ts[len(ts) // 2]
        _, _, elems, fields = next(b for b in BLOCKS if b[0] == tname)
        size = sum(s for _, s in fields)
        d_off = 0
        for name, s in fields:
            if name == "d":
                break
            d_off += s
        block = 3 if t["bytes"] // size > 3 else 0
        at = t["offset"] + block * size + d_off
        copy = os.path.join(tmp, os.path.basename(rel))
        shutil.copy(os.path.join(root, rel), copy)
        with open(copy, "r+b") as f:
            f.seek(at)
            f.write(struct.pack("<H", value))
        code, doc, err = scan(copy)
        got = data_findings(doc) if doc else {}
        c.check(code == 1 and set(got) == {t["name"]} and
                code_want in got[t["name"]] and
                f"(the first is block {block})" in got[t["name"]][code_want],
                f"{rel}: {code_want} planted in {t['name']} block {block}: {got}")
        os.unlink(copy)


def main():
    global QA
    QA = sys.argv[1]
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        ggml_blocks(c, tmp)
        safetensors_values(c, tmp)
        root = os.environ.get("QA_CORPUS", "")
        if os.path.isdir(os.path.join(root, "expected")):
            corpus(c, root, tmp)
        else:
            print(f"SKIP corpus: {root} absent")
            c.skipped += 1
    c.finish()


if __name__ == "__main__":
    main()
