# SPDX-License-Identifier: MIT
"""The C dequantizer (src/dequant/ggml_dequant.c, through dequant_dump)
against gguf-py's own `gguf.quants.dequantize`, bit for bit.

For every ggml type gguf-py can dequantize: random blocks (uniform random
bytes, so every fp16 scale class turns up: zero, subnormal, normal,
infinite, NaN), then blocks whose fp16 scale fields are each set to the
edge values below (both scales of a two-scale type, in every pairing, so
NaN + NaN of different payloads is covered), all-zero and all-0xff
blocks, and for the byte-scaled types (MXFP4's E8M0, NVFP4's UE4M3)
every scale byte. The float32 outputs are compared as uint32 bit
patterns: equal values, signed zeros, infinities and NaN payloads.

Usage: test_dequant.py DEQUANT_DUMP
"""
import subprocess
import sys

try:
    import numpy as np
    from gguf import GGMLQuantizationType as T
    from gguf import quants
    from gguf.constants import GGML_QUANT_SIZES
except ImportError as e:  # pragma: no cover
    print("SKIP: gguf-py and numpy are needed (requirements-test.txt): %s" % e)
    sys.exit(77)

DUMP = sys.argv[1]

# Byte offsets of the fp16 scales in each block (ggml-common.h).
FP16_SCALES = {
    T.Q4_0: [0], T.Q4_1: [0, 2], T.Q5_0: [0], T.Q5_1: [0, 2], T.Q8_0: [0],
    T.Q2_K: [80, 82], T.Q3_K: [108], T.Q4_K: [0, 2], T.Q5_K: [0, 2],
    T.Q6_K: [208], T.IQ2_XXS: [0], T.IQ2_XS: [0], T.IQ2_S: [0],
    T.IQ3_XXS: [0], T.IQ3_S: [0], T.IQ1_S: [0], T.IQ4_NL: [0],
    T.IQ4_XS: [0], T.TQ1_0: [52], T.TQ2_0: [64],
}
EDGE_HALVES = [
    0x0000, 0x8000,          # +-0
    0x0001, 0x8001, 0x03ff,  # smallest and largest subnormal
    0x0400, 0x3c00, 0xbc00,  # smallest normal, +-1
    0x7bff, 0xfbff,          # +-65504, the largest
    0x7c00, 0xfc00,          # +-inf
    0x7e00, 0xfe00, 0x7c01, 0x7fff, 0xfd55,  # quiet and signalling NaNs
]

rng = np.random.default_rng(20261206)
failures = 0
checked = 0


def c_dequant(qtype, raw):
    r = subprocess.run([DUMP, str(int(qtype))], input=raw.tobytes(),
                       stdout=subprocess.PIPE, check=False)
    if r.returncode != 0:
        raise SystemExit("dequant_dump %s exited %d" % (qtype.name, r.returncode))
    return np.frombuffer(r.stdout, dtype=np.uint32)


def compare(qtype, blocks, what):
    global failures, checked
    block, size = GGML_QUANT_SIZES[qtype]
    blocks = np.ascontiguousarray(blocks, dtype=np.uint8).reshape(-1, size)
    want = np.ascontiguousarray(
        quants.dequantize(blocks.copy(), qtype), dtype=np.float32
    ).reshape(-1).view(np.uint32)
    got = c_dequant(qtype, blocks)
    checked += want.size
    if got.shape != want.shape:
        print("FAIL %s %s: %d floats, gguf-py %d" % (qtype.name, what, got.size, want.size))
        failures += 1
        return
    bad = np.nonzero(got != want)[0]
    if bad.size:
        failures += 1
        i = bad[0]
        print("FAIL %s %s: %d of %d floats differ; first at block %d element %d: "
              "C %08x gguf-py %08x (block bytes %s)"
              % (qtype.name, what, bad.size, want.size, i // block, i % block,
                 got[i], want[i], blocks[i // block].tobytes().hex()))


def set_half(blocks, off, value):
    blocks[:, off] = value & 0xff
    blocks[:, off + 1] = value >> 8


def main():
    global failures, checked
    np.seterr(all="ignore")
    types = [t for t in T if t in quants._type_traits or t in (T.F32, T.F16)]
    for qtype in types:
        block, size = GGML_QUANT_SIZES[qtype]
        # random bytes
        compare(qtype, rng.integers(0, 256, size=(4096, size), dtype=np.uint8), "random")
        # all-zero, all-ones
        compare(qtype, np.zeros((1, size), np.uint8), "zeros")
        compare(qtype, np.full((1, size), 0xff, np.uint8), "0xff")
        offs = FP16_SCALES.get(qtype, [])
        if offs:
            n = len(EDGE_HALVES) ** len(offs)
            blocks = rng.integers(0, 256, size=(n, size), dtype=np.uint8)
            for k in range(n):
                rest = k
                for off in offs:
                    v = EDGE_HALVES[rest % len(EDGE_HALVES)]
                    rest //= len(EDGE_HALVES)
                    blocks[k, off] = v & 0xff
                    blocks[k, off + 1] = v >> 8
            compare(qtype, blocks, "edge scales")
    # every half and every bfloat16
    every = np.arange(65536, dtype=np.uint16).view(np.uint8)
    compare(T.F16, every, "every half")
    compare(T.BF16, every, "every bfloat16")
    # IQ1_M's scale is four nibbles spread over its scale words
    blocks = rng.integers(0, 256, size=(len(EDGE_HALVES), 56), dtype=np.uint8)
    for k, v in enumerate(EDGE_HALVES):
        for w in range(4):
            nib = (v >> (4 * w)) & 0xf
            blocks[k, 48 + 2 * w + 1] = (blocks[k, 48 + 2 * w + 1] & 0x0f) | (nib << 4)
    compare(T.IQ1_M, blocks, "edge scales")
    # every E8M0 and every UE4M3 scale byte
    blocks = rng.integers(0, 256, size=(256, 17), dtype=np.uint8)
    blocks[:, 0] = np.arange(256)
    compare(T.MXFP4, blocks, "every scale")
    blocks = rng.integers(0, 256, size=(256, 36), dtype=np.uint8)
    for s in range(4):
        blocks[:, s] = (np.arange(256) + 64 * s) % 256
    compare(T.NVFP4, blocks, "every scale")
    # no type gguf-py dequantizes is left without a C dequantizer
    for qtype in types:
        r = subprocess.run([DUMP, str(int(qtype))], input=b"", check=False)
        if r.returncode == 2:
            print("FAIL %s: gguf-py dequantizes it, the C side has no dequantizer" % qtype.name)
            failures += 1
    # every FP8 byte (safetensors F8_E4M3 / F8_E5M2) against torch's own
    # float8_e4m3fn / float8_e5m2 to float32; NaN as NaN, the rest bit
    # for bit
    try:
        import torch
    except ImportError:
        torch = None
    for name, dt in (("fp8-e4m3", "float8_e4m3fn"), ("fp8-e5m2", "float8_e5m2")):
        if torch is None or not hasattr(torch, dt):
            print("SKIP %s: torch has no %s here" % (name, dt))
            continue
        raw = bytes(range(256))
        r = subprocess.run([DUMP, name], input=raw, stdout=subprocess.PIPE, check=False)
        got = np.frombuffer(r.stdout, dtype=np.float32)
        want = torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(
            getattr(torch, dt)).float().numpy()
        for b in range(256):
            g = got[b] if len(got) == 256 else None
            ok = g is not None and ((np.isnan(g) and np.isnan(want[b])) or
                                    np.float32(g).view(np.uint32) ==
                                    np.float32(want[b]).view(np.uint32))
            checked += 1
            if not ok:
                print("FAIL %s byte 0x%02x: %r, torch %r" % (name, b, g, want[b]))
                failures += 1
    # MLX affine (src/dequant/mlx_affine.c) against mx.dequantize: random
    # code words, scales and biases of every class (zero, subnormal,
    # negative, infinite, NaN among uniform random float32 bit patterns),
    # every bit width and group size mx.quantize writes; float32 bit for
    # bit, NaN as NaN
    try:
        import mlx.core as mx
    except ImportError:
        mx = None
    if mx is None:
        print("SKIP mlx-affine: mlx is not installed")
    for bits in (2, 3, 4, 5, 6, 8) if mx is not None else ():
        for group in (32, 64, 128):
            rows, cols = 3, 256
            codes = rng.integers(0, 2**32, size=(rows, cols * bits // 32),
                                 dtype=np.uint32)
            pat = rng.integers(0, 2**32, size=(2, rows, cols // group),
                               dtype=np.uint32)
            fl = pat.view(np.float32).copy()
            fl[0, 0, 0], fl[1, 0, 0] = 0.0, -0.0
            fl[0, 1, 0] = np.float32(1e-40)  # subnormal
            # keep most scales and biases finite, so the values are
            fin = np.isfinite(fl)
            fl[~fin] = np.where(rng.random((~fin).sum()) < 0.5, np.nan, np.inf)
            sc = np.where(rng.random(fl[0].shape) < 0.8, rng.standard_normal(fl[0].shape) * 0.01, fl[0]).astype(np.float32)
            bi = np.where(rng.random(fl[1].shape) < 0.8, rng.standard_normal(fl[1].shape) * 0.01, fl[1]).astype(np.float32)
            raw = codes.tobytes() + sc.tobytes() + bi.tobytes()
            r = subprocess.run([DUMP, "mlx-affine", str(bits), str(group), str(rows),
                                str(cols)], input=raw, stdout=subprocess.PIPE, check=False)
            got = np.frombuffer(r.stdout, dtype=np.float32)
            want = np.array(mx.dequantize(mx.array(codes), mx.array(sc), mx.array(bi),
                                          group_size=group, bits=bits)).reshape(-1)
            checked += want.size
            same = got.size == want.size and bool(np.all(
                (np.isnan(got) & np.isnan(want)) |
                (got.view(np.uint32) == want.view(np.uint32))))
            if not same:
                bad = int(np.argmax(~((np.isnan(got) & np.isnan(want)) |
                                      (got.view(np.uint32) == want.view(np.uint32))))) \
                    if got.size == want.size else -1
                print("FAIL mlx-affine %d bits g%d: element %d: %r, mx %r" %
                      (bits, group, bad, got[bad] if bad >= 0 else None,
                       want[bad] if bad >= 0 else None))
                failures += 1
    print("%d types, %d floats compared, %d failures" % (len(types), checked, failures))
    sys.exit(1 if failures else 0)


main()
