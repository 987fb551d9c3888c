#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Give a tokenizer-less GGUF a minimal SPM vocabulary so llama.cpp loads it.

    add_vocab.py [--set KEY=TYPE:VALUE]... IN.gguf OUT.gguf

The fit fixtures (fixtures/gen/gen_fit.c) carry real metadata and tensor
headers but no tokenizer, and llama.cpp refuses a model without one. This
copies IN's header (GGUF v3, little endian, read here without gguf-py),
drops any tokenizer.* key and appends:

  tokenizer.ggml.model       = "llama"   (SentencePiece, LLAMA_VOCAB_TYPE_SPM)
  tokenizer.ggml.tokens      = "<unk>", "<s>", "</s>", the 256 byte tokens
                               "<0x00>".."<0xFF>" (so "\\n" and any prompt
                               byte resolve), then "[QA{i}]" fillers up to
                               n_vocab = the row count of token_embd.weight
  tokenizer.ggml.scores      = 0 for those, -i for filler i
  tokenizer.ggml.token_type  = 2 (unknown), 3 (control) x2, 6 (byte) x256,
                               1 (normal) for the fillers
  tokenizer.ggml.{unknown,bos,eos}_token_id = 0, 1, 2
  tokenizer.ggml.add_bos_token = true, add_eos_token = false

Every tensor info is kept in order with its name, shape and type; the
offsets are recomputed from the ggml block sizes (and checked against IN's)
and the data section is left as a sparse hole of IN's data size (truncate),
so OUT is the same model as IN for every memory figure: the vocabulary
size equals IN's token_embd rows, which is what llama.cpp checks the
embedding against.

--set adds a metadata key IN lacks and llama.cpp insists on without it
changing any buffer size (the fixtures leave out what quantaudit does not
read); TYPE is u32, i32, f32, str, or u32[] / i32[] with comma-separated
values. Example: the Qwen3.6-like fixture needs
qwen35.rope.dimension_sections=i32[]:11,11,10,0 (Qwen3.5/3.6's
mrope_section [11, 11, 10], as convert_hf_to_gguf.py writes it).
A key IN already has is left as it is.
"""
import struct
import sys

GGUF_MAGIC = b"GGUF"
# enum gguf_type
T_U8, T_I8, T_U16, T_I16, T_U32, T_I32, T_F32, T_BOOL, T_STR, T_ARR, \
    T_U64, T_I64, T_F64 = range(13)
SCALAR = {T_U8: "<B", T_I8: "<b", T_U16: "<H", T_I16: "<h", T_U32: "<I",
          T_I32: "<i", T_F32: "<f", T_BOOL: "<?", T_U64: "<Q", T_I64: "<q",
          T_F64: "<d"}

# ggml_type -> (block elements, block bytes): ggml/src/ggml.c type_traits.
GGML_TYPES = {
    0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22),
    7: (32, 24), 8: (32, 34), 9: (32, 36), 10: (256, 84), 11: (256, 110),
    12: (256, 144), 13: (256, 176), 14: (256, 210), 15: (256, 292),
    16: (256, 66), 17: (256, 74), 18: (256, 98), 19: (256, 50),
    20: (32, 18), 21: (256, 110), 22: (256, 82), 23: (256, 136),
    24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8),
    29: (256, 56), 30: (1, 2), 34: (256, 54), 35: (256, 66),
    39: (32, 17),
}


class Reader:
    def __init__(self, f):
        self.f = f

    def read(self, n):
        b = self.f.read(n)
        if len(b) != n:
            raise ValueError("truncated GGUF header")
        return b

    def u32(self):
        return struct.unpack("<I", self.read(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.read(8))[0]

    def string(self):
        return self.read(self.u64())

    def value_raw(self, t):
        """The value's bytes exactly as stored (type tag excluded)."""
        if t in SCALAR:
            return self.read(struct.calcsize(SCALAR[t]))
        if t == T_STR:
            s = self.string()
            return struct.pack("<Q", len(s)) + s
        if t == T_ARR:
            et = self.u32()
            n = self.u64()
            parts = [struct.pack("<IQ", et, n)]
            for _ in range(n):
                parts.append(self.value_raw(et))
            return b"".join(parts)
        raise ValueError("unknown GGUF value type %d" % t)


def read_gguf(path):
    with open(path, "rb") as f:
        r = Reader(f)
        if r.read(4) != GGUF_MAGIC:
            raise ValueError("%s: not a GGUF file" % path)
        version = r.u32()
        if version != 3:
            raise ValueError("%s: GGUF version %d (want 3)" % (path, version))
        n_tensors = r.u64()
        n_kv = r.u64()
        kvs = []
        for _ in range(n_kv):
            key = r.string().decode()
            t = r.u32()
            kvs.append((key, t, r.value_raw(t)))
        tensors = []
        for _ in range(n_tensors):
            name = r.string()
            n_dims = r.u32()
            ne = [r.u64() for _ in range(n_dims)]
            ttype = r.u32()
            off = r.u64()
            tensors.append((name, ne, ttype, off))
        header_end = f.tell()
        f.seek(0, 2)
        size = f.tell()
    return kvs, tensors, header_end, size


def kv_bytes(key, t, raw):
    k = key.encode()
    return struct.pack("<Q", len(k)) + k + struct.pack("<I", t) + raw


def s_raw(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def arr_raw(et, items):
    return struct.pack("<IQ", et, len(items)) + b"".join(items)


def tensor_nbytes(ne, ttype):
    if ttype not in GGML_TYPES:
        raise ValueError("ggml type %d not in the size table" % ttype)
    blk, bsz = GGML_TYPES[ttype]
    if ne[0] % blk:
        raise ValueError("row of %d not a multiple of block %d" % (ne[0], blk))
    n = bsz * (ne[0] // blk)
    for d in ne[1:]:
        n *= d
    return n


def align(v, a):
    return (v + a - 1) // a * a


def parse_set(spec):
    key, _, tv = spec.partition("=")
    ty, _, val = tv.partition(":")
    if not key or not ty:
        raise SystemExit("--set %s: want KEY=TYPE:VALUE" % spec)
    one = {"u32": (T_U32, "<I", int), "i32": (T_I32, "<i", int),
           "f32": (T_F32, "<f", float)}
    if ty == "str":
        return key, T_STR, s_raw(val)
    if ty in one:
        t, fmt, conv = one[ty]
        return key, t, struct.pack(fmt, conv(val))
    if ty.endswith("[]") and ty[:-2] in one:
        t, fmt, conv = one[ty[:-2]]
        items = [struct.pack(fmt, conv(v)) for v in val.split(",")]
        return key, T_ARR, arr_raw(t, items)
    raise SystemExit("--set %s: unknown type %s" % (spec, ty))


def main(argv):
    sets = []
    args = argv[1:]
    while len(args) >= 2 and args[0] == "--set":
        sets.append(parse_set(args[1]))
        args = args[2:]
    if len(args) != 2:
        sys.stderr.write("usage: add_vocab.py [--set KEY=TYPE:VALUE]... "
                         "IN.gguf OUT.gguf\n")
        return 2
    src, dst = args
    kvs, tensors, header_end, size = read_gguf(src)

    alignment = 32
    for key, t, raw in kvs:
        if key == "general.alignment" and t == T_U32:
            alignment = struct.unpack("<I", raw)[0]
    data_start = align(header_end, alignment)
    data_size = size - data_start

    n_vocab = None
    for name, ne, _, _ in tensors:
        if name == b"token_embd.weight":
            n_vocab = ne[1]
    if n_vocab is None:
        raise SystemExit("%s: no token_embd.weight to take n_vocab from" % src)

    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % i for i in range(256)]
    types = [2, 3, 3] + [6] * 256
    if n_vocab < len(tokens):
        raise SystemExit("%s: n_vocab %d too small" % (src, n_vocab))
    n_fill = n_vocab - len(tokens)
    tokens += ["[QA%d]" % i for i in range(n_fill)]
    types += [1] * n_fill
    scores = [0.0] * (n_vocab - n_fill) + [-float(i) for i in range(n_fill)]

    out_kvs = [kv for kv in kvs if not kv[0].startswith("tokenizer.")]
    have = {kv[0] for kv in out_kvs}
    out_kvs += [kv for kv in sets if kv[0] not in have]
    out_kvs += [
        ("tokenizer.ggml.model", T_STR, s_raw("llama")),
        ("tokenizer.ggml.tokens", T_ARR,
         arr_raw(T_STR, [s_raw(s) for s in tokens])),
        ("tokenizer.ggml.scores", T_ARR,
         arr_raw(T_F32, [struct.pack("<f", s) for s in scores])),
        ("tokenizer.ggml.token_type", T_ARR,
         arr_raw(T_I32, [struct.pack("<i", t) for t in types])),
        ("tokenizer.ggml.unknown_token_id", T_U32, struct.pack("<I", 0)),
        ("tokenizer.ggml.bos_token_id", T_U32, struct.pack("<I", 1)),
        ("tokenizer.ggml.eos_token_id", T_U32, struct.pack("<I", 2)),
        ("tokenizer.ggml.add_bos_token", T_BOOL, struct.pack("<?", True)),
        ("tokenizer.ggml.add_eos_token", T_BOOL, struct.pack("<?", False)),
    ]

    # Tensor infos with offsets recomputed (ggml's layout: each tensor
    # padded to the alignment); they must agree with the input's.
    infos = []
    off = 0
    for name, ne, ttype, old in tensors:
        if off != old:
            raise SystemExit("%s: tensor %s at %d, layout says %d"
                             % (src, name.decode(), old, off))
        infos.append(struct.pack("<Q", len(name)) + name +
                     struct.pack("<I", len(ne)) +
                     b"".join(struct.pack("<Q", d) for d in ne) +
                     struct.pack("<IQ", ttype, off))
        off = align(off + tensor_nbytes(ne, ttype), alignment)
    # The last tensor's trailing pad is optional; take the larger.
    data_size = max(data_size, off if tensors else 0)

    head = (GGUF_MAGIC + struct.pack("<IQQ", 3, len(tensors), len(out_kvs)) +
            b"".join(kv_bytes(*kv) for kv in out_kvs) + b"".join(infos))
    pad = align(len(head), alignment) - len(head)
    with open(dst, "wb") as f:
        f.write(head)
        f.write(b"\0" * pad)
        f.truncate(len(head) + pad + data_size)
    sys.stdout.write("%s: n_vocab %d, %d tensors, data %d bytes at %d\n"
                     % (dst, n_vocab, len(tensors), data_size,
                        len(head) + pad))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
