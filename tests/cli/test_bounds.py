# SPDX-License-Identifier: MIT
"""Hostile inputs cost bounded time and memory (docs/security.md "Limits
and why", docs/performance.md "Scaling"), end to end through the
quantaudit binary on inputs generated here.

    test_bounds.py QUANTAUDIT [special|memory|scaling]...   (default: all)

special: FIFOs, sockets, folders and (when mknod is allowed) character
   devices where a model has files: a GGUF split part, a safetensors shard,
   the index, config.json, tokenizer_config.json, chat_template.jinja, and
   the path itself. A plain open(2) of a FIFO waits for a writer forever;
   every run must end well inside its timeout (the hang guard), with exit 1
   and QA1410 (exit 3 for the path itself), never exit 4.
memory: peak RSS (GNU time's %M) of the worst shapes per input byte --
   many small arrays, 1-byte keys, short string values, tiny tensors (GGUF
   and safetensors), a huge vocabulary, long names, many shards -- must stay
   under the documented PEAK_K * N + PEAK_C. Skipped under AddressSanitizer,
   whose shadow memory is not the tool's.
scaling: each shape that was (or could be) super-linear -- index entries x
   shards, numbered-shard groups, split parts x keys, folders of split sets,
   duplicate names, role classification -- is run at n/8, n and 8n under
   valgrind's cachegrind, which counts the instructions executed (exact and
   independent of the machine's load). The growth from n to 8n over the
   growth from n/8 to n is 8 for linear work, about 10 for n log n and 64
   for quadratic; it must stay under SCALING_MAX. Without valgrind, or
   under a sanitizer, the 8n inputs still run (as hang guards) and the
   ratio is skipped.
"""
import json
import os
import re
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, sanitized  # noqa: E402

# docs/security.md "Limits and why": one run on inputs of N bytes in all
# (file bytes plus file-name bytes) peaks at most PEAK_K * N + PEAK_C
# bytes resident. bench/scaling.py measures both.
PEAK_K, PEAK_C = 24, 16 << 20
# Instruction growth from n to 8n over that from n/8 to n: 8 is linear,
# ~10 n log n at these sizes, 22.6 n^1.5, 64 quadratic.
SCALING_MAX = 16
# Hang guards, not timings (a sanitizer build on a busy machine).
SPECIAL_LIMIT = 30
RUN_LIMIT = 300

EXIT_FAIL = 1
EXIT_UNRECOGNIZED = 3


# ---- writing inputs ---------------------------------------------------------

def gguf(kvs=(), tensors=b"", n_tensors=0):
    """A GGUF v3 header: kvs as (key, type, packed value) triples, tensor
    infos already packed."""
    out = [b"GGUF", struct.pack("<IQQ", 3, n_tensors, len(kvs))]
    for key, typ, val in kvs:
        out.append(struct.pack("<Q", len(key)) + key + struct.pack("<I", typ)
                   + val)
    out.append(tensors)
    return b"".join(out)


def gstr(s):
    return struct.pack("<Q", len(s)) + s


def split_part(no, count, extra=()):
    return gguf([(b"split.no", 2, struct.pack("<H", no)),
                 (b"split.count", 2, struct.pack("<H", count)),
                 (b"split.tensors.count", 5, struct.pack("<i", 0))]
                + list(extra))


def tensor_info(name, dims, typ, off):
    return (gstr(name) + struct.pack("<I", len(dims)) +
            b"".join(struct.pack("<Q", d) for d in dims) +
            struct.pack("<IQ", typ, off))


def gguf_tensors(names):
    """F32 [8] tensors (32 bytes each, aligned) of the given names."""
    infos = b"".join(tensor_info(n, [8], 0, 32 * i)
                     for i, n in enumerate(names))
    hdr = gguf([(b"general.architecture", 8, gstr(b"llama"))], infos,
               len(names))
    return hdr + bytes(-len(hdr) % 32) + bytes(32 * len(names))


def safetensors(names):
    """One F32 [1] tensor per name."""
    hdr = {n: {"dtype": "F32", "shape": [1], "data_offsets": [4 * i, 4 * i + 4]}
           for i, n in enumerate(names)}
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + bytes(4 * len(names))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def one_file(name, data):
    def make(d):
        p = os.path.join(d, name)
        write(p, data)
        return p
    return make


# Shapes by size: each returns make(folder) -> the path to audit.

def small_arrays(target):
    """Keys of 64-element u8 arrays up to target bytes: the issue's 10 MB
    GGUF that took 420 MB."""
    kvs, size, i = [], 24, 0
    while size < target:
        kv = (b"k%x" % i, 9, struct.pack("<IQ", 0, 64) + bytes(range(64)))
        kvs.append(kv)
        size += 8 + len(kv[0]) + 4 + len(kv[2])
        i += 1
    return gguf(kvs)


def scalar_keys(target):
    """1-byte u8 values under 1- to 5-character keys."""
    kvs, size, i = [], 24, 0
    while size < target:
        kvs.append((b"%x" % i, 0, b"\x01"))
        size += 8 + len(kvs[-1][0]) + 4 + 1
        i += 1
    return gguf(kvs)


def string_keys(target):
    """1-byte string values under 1- to 5-character keys."""
    kvs, size, i = [], 24, 0
    while size < target:
        kvs.append((b"%x" % i, 8, gstr(b"x")))
        size += 8 + len(kvs[-1][0]) + 4 + 9
        i += 1
    return gguf(kvs)


def tensor_infos(target):
    """Scalar (0-dim) F32 tensors with 1- to 5-character names."""
    infos, size, i = [], 24, 0
    while size < target:
        infos.append(tensor_info(b"%x" % i, [], 0, 4 * i))
        size += len(infos[-1])
        i += 1
    hdr = gguf(tensors=b"".join(infos), n_tensors=i)
    return hdr + bytes(-len(hdr) % 32) + bytes(4 * i)


def vocab(target):
    """A llama GGUF whose tokenizer.ggml.tokens holds 1-byte tokens."""
    n = max(1, (target - 120) // 9)
    toks = struct.pack("<IQ", 8, n) + b"".join(
        gstr(bytes([65 + i % 26])) for i in range(n))
    return gguf([(b"general.architecture", 8, gstr(b"llama")),
                 (b"tokenizer.ggml.model", 8, gstr(b"gpt2")),
                 (b"tokenizer.ggml.tokens", 9, toks)])


def long_names(target, length=60_000):
    """GGUF tensors and keys with names of 60,000 bytes."""
    kvs, names, size, i = [], [], 24, 0
    while size < target:
        kvs.append((b"k%x." % i + b"k" * length, 0, b"\x01"))
        names.append(b"t%x." % i + b"t" * length)
        size += 2 * length + 60
        i += 1
    infos = b"".join(tensor_info(n, [8], 0, 32 * j)
                     for j, n in enumerate(names))
    hdr = gguf(kvs, infos, len(names))
    return hdr + bytes(-len(hdr) % 32) + bytes(32 * len(names))


def st_tensors(target):
    """One safetensors file of F32 [1] tensors with short names."""
    n = max(1, target // 62)
    return safetensors(["%x" % i for i in range(n)])


def index_set(d, n_entries, n_shards):
    per = max(1, n_entries // n_shards)
    wm = {}
    for s in range(n_shards):
        name = f"model-{s + 1:05d}-of-{n_shards:05d}.safetensors"
        tensors = [f"model.layers.{s}.w{j}.weight" for j in range(per)]
        wm.update((t, name) for t in tensors)
        write(os.path.join(d, name), safetensors(tensors))
    write(os.path.join(d, "model.safetensors.index.json"), json.dumps(
        {"metadata": {"total_size": 4 * per * n_shards},
         "weight_map": wm}).encode())
    return d


def numbered_one(d, n):
    """One complete set of n numbered empty shards."""
    blob = safetensors([])
    os.makedirs(d, exist_ok=True)
    for k in range(1, n + 1):
        with open(os.path.join(d, f"model-{k:05d}-of-{n:05d}.safetensors"),
                  "wb") as f:
            f.write(blob)
    return d


def numbered_many(d, n):
    """n sets, each its part 1 of 999999."""
    blob = safetensors([])
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        with open(os.path.join(d, f"m{i:05d}-00001-of-999999.safetensors"),
                  "wb") as f:
            f.write(blob)
    return d


def split_keys(d, parts, keys):
    """A GGUF split set with the same model keys in every part."""
    extra = [(b"x.k%d" % j, 0, b"\x01") for j in range(keys)]
    for k in range(1, parts + 1):
        write(os.path.join(d, f"big-{k:05d}-of-{parts:05d}.gguf"),
              split_part(k - 1, parts, extra))
    return os.path.join(d, f"big-00001-of-{parts:05d}.gguf")


def gguf_folder(d, n):
    """A folder of n split sets of which only part 1 of 2 is there."""
    blob = split_part(0, 2)
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        with open(os.path.join(d, f"m{i:05d}-00001-of-00002.gguf"),
                  "wb") as f:
            f.write(blob)
    return d


def shards(d, n):
    """A folder of n unnumbered safetensors files of one tensor each,
    with a config.json: every file is a shard of one checkpoint."""
    write(os.path.join(d, "config.json"), b'{"model_type": "llama"}')
    for i in range(n):
        write(os.path.join(d, f"part{i}.safetensors"),
              safetensors([f"model.layers.{i}.mlp.up_proj.weight"]))
    return d


def layer_names(n):
    return [b"blk.%d.%s.weight" % (i // 7, w) for i, w in
            zip(range(n), [b"attn_q", b"attn_k", b"attn_v", b"attn_output",
                           b"ffn_gate", b"ffn_up", b"ffn_down"] * n)]


def input_bytes(path):
    """File bytes plus file-name bytes of everything under path."""
    if os.path.isfile(path):
        return os.path.getsize(path) + len(os.path.basename(path))
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f)) + len(f)
    return total


# Memory: (label, make(folder, target bytes)).
MEMORY_SHAPES = [
    ("GGUF, 64-element u8 arrays",
     lambda d, t: one_file("x.gguf", small_arrays(t))(d)),
    ("GGUF, 1-byte u8 keys", lambda d, t: one_file("x.gguf", scalar_keys(t))(d)),
    ("GGUF, 1-byte string keys",
     lambda d, t: one_file("x.gguf", string_keys(t))(d)),
    ("GGUF, 0-dim tensors", lambda d, t: one_file("x.gguf", tensor_infos(t))(d)),
    ("GGUF, vocabulary of 1-byte tokens",
     lambda d, t: one_file("x.gguf", vocab(t))(d)),
    ("GGUF, 60 kB names", lambda d, t: one_file("x.gguf", long_names(t))(d)),
    ("safetensors, 1-element tensors",
     lambda d, t: one_file("x.safetensors", st_tensors(t))(d)),
    ("index entries (100 per shard)",
     lambda d, t: index_set(d, max(100, t // 120), max(1, t // 12000))),
    ("folder of tiny shards", lambda d, t: shards(d, max(1, t // 400))),
]

# Scaling: (label, make(folder, n), n). Sizes chosen so the 8n run takes
# about a second under cachegrind.
SCALING_SHAPES = [
    ("index entries x shards", lambda d, n: index_set(d, 10 * n, n), 50),
    ("numbered shards, one set", numbered_one, 200),
    ("numbered sets claiming 999999 parts", numbered_many, 200),
    ("split parts x keys (keys in every part)",
     lambda d, n: split_keys(d, n, 40), 40),
    ("split keys x parts (4 parts)", lambda d, n: split_keys(d, 4, n), 500),
    ("folder of split GGUF sets", gguf_folder, 100),
    ("folder of unnumbered shards", shards, 100),
    ("GGUF tensors named as layers (roles, modules)",
     lambda d, n: one_file("x.gguf", gguf_tensors(layer_names(n)))(d), 1000),
    ("GGUF duplicate tensor names",
     lambda d, n: one_file("x.gguf", gguf_tensors([b"a"] * n))(d), 1000),
    ("GGUF duplicate keys",
     lambda d, n: one_file("x.gguf", gguf([(b"k", 0, b"\x01")] * n))(d),
     4000),
    ("GGUF 1-byte keys", lambda d, n: one_file("x.gguf", scalar_keys(n))(d),
     40_000),
    ("GGUF small arrays",
     lambda d, n: one_file("x.gguf", small_arrays(n))(d), 40_000),
    ("GGUF vocabulary", lambda d, n: one_file("x.gguf", vocab(n))(d),
     40_000),
    ("safetensors tensors named as layers",
     lambda d, n: one_file("x.safetensors", safetensors(
         [f"model.layers.{i // 7}.p{i % 7}.weight" for i in range(n)]))(d),
     500),
]


# ---- running -----------------------------------------------------------------

def run(q, args, limit):
    """(exit code or None on timeout, parsed JSON or None, stderr, secs)."""
    start = time.monotonic()
    try:
        p = subprocess.run([q, "--format", "json"] + args,
                           capture_output=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None, None, "", limit
    secs = time.monotonic() - start
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = None
    return p.returncode, doc, p.stderr.decode(errors="replace"), secs


def codes(doc):
    """{code: count} over every input's findings: grouped ones, and the
    ones counted past the caps ("findings_dropped"), included."""
    out = {}
    for inp in (doc or {}).get("inputs", []):
        for f in inp.get("findings", []):
            out[f["code"]] = out.get(f["code"], 0) + f.get("count", 1)
        for r in inp.get("findings_dropped", {}).get("rules", []):
            out[r["code"]] = out.get(r["code"], 0) + r["count"]
    return out


def peak_rss(q, args):
    """Peak RSS in bytes of one quantaudit run: GNU time's %M (the run's
    own peak: time forks it from a small process), else ru_maxrss of a
    fresh Python child's RUSAGE_CHILDREN (which also counts the
    interpreter pages the forked child starts with, some 14 MiB: it can
    only over-report)."""
    if os.access("/usr/bin/time", os.X_OK):
        p = subprocess.run(["/usr/bin/time", "-f", "%M", q] + args,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=RUN_LIMIT)
        return int(p.stderr.decode().strip().splitlines()[-1]) * 1024
    probe = ("import resource, subprocess, sys\n"
             "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,\n"
             "               stderr=subprocess.DEVNULL, timeout=600)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, q] + args,
                         capture_output=True, check=True, timeout=RUN_LIMIT)
    return int(out.stdout.decode().strip()) * 1024  # Linux: KiB


def instructions(q, args, tmp):
    """Instructions one run executes, counted by cachegrind."""
    log = os.path.join(tmp, "cachegrind.log")
    subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                    "--cachegrind-out-file=/dev/null", f"--log-file={log}",
                    q] + args, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=RUN_LIMIT)
    with open(log) as f:
        m = re.search(r"I\s+refs:\s+([\d,]+)", f.read())
    if not m:
        raise RuntimeError(f"no instruction count from cachegrind: {log}")
    return int(m.group(1).replace(",", ""))


def have_valgrind():
    try:
        return subprocess.run(["valgrind", "--version"],
                              capture_output=True).returncode == 0
    except OSError:
        return False


# ---- special files ------------------------------------------------------------

def make_special(path, kind):
    """Puts a `kind` at path; False when this machine does not allow it."""
    if os.path.lexists(path):
        os.unlink(path)
    if kind == "FIFO":
        os.mkfifo(path)
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(path)
        finally:
            s.close()
    elif kind == "folder":
        os.mkdir(path)
    elif kind == "device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
        except OSError:
            return False
    return True


SPECIAL_KINDS = ("FIFO", "socket", "folder", "device")


def special(qa, q, tmp):
    n = 0
    for kind in SPECIAL_KINDS:
        # A split set with its middle part special.
        d = os.path.join(tmp, f"split-{kind}")
        for k in (1, 3):
            write(os.path.join(d, f"m-{k:05d}-of-00003.gguf"),
                  split_part(k - 1, 3))
        if not make_special(os.path.join(d, "m-00002-of-00003.gguf"), kind):
            print(f"special files: {kind}: not allowed here, skipped")
            qa.skipped += 1
            continue
        for arg in (os.path.join(d, "m-00001-of-00003.gguf"), d):
            code, doc, err, secs = run(q, [arg], SPECIAL_LIMIT)
            what = f"{kind} as split part 2 ({os.path.basename(arg)})"
            qa.check(code is not None, f"{what}: still running after "
                     f"{secs} s")
            qa.check(code == EXIT_FAIL and codes(doc).get("QA1410") == 1,
                     f"{what}: exit {code}, findings {codes(doc)}; want 1 "
                     f"and one QA1410")
            n += 1

        # A sharded checkpoint with one file special in turn.
        index = {"metadata": {"total_size": 8},
                 "weight_map": {"a": "model-00001-of-00002.safetensors",
                                "b": "model-00002-of-00002.safetensors"}}
        for side in ("model-00002-of-00002.safetensors", "config.json",
                     "model.safetensors.index.json",
                     "tokenizer_config.json", "chat_template.jinja"):
            d = os.path.join(tmp, f"ck-{kind}-{side.split('.')[0]}")
            write(os.path.join(d, "config.json"), b'{"model_type": "llama"}')
            write(os.path.join(d, "model.safetensors.index.json"),
                  json.dumps(index).encode())
            for k, t in ((1, "a"), (2, "b")):
                write(os.path.join(
                    d, f"model-{k:05d}-of-00002.safetensors"),
                    safetensors([t]))
            make_special(os.path.join(d, side), kind)
            for arg in (d, os.path.join(d,
                                        "model-00001-of-00002.safetensors")):
                code, doc, err, secs = run(q, [arg], SPECIAL_LIMIT)
                what = f"{kind} as {side} ({os.path.basename(arg)})"
                qa.check(code is not None, f"{what}: still running after "
                         f"{secs} s")
                qa.check(code == EXIT_FAIL and
                         codes(doc).get("QA1410") == 1,
                         f"{what}: exit {code}, findings {codes(doc)}; want "
                         f"1 and one QA1410")
                n += 1

        # The path itself (a folder is a model folder: not special).
        if kind == "folder":
            continue
        p = os.path.join(tmp, f"path-{kind}", "model.gguf")
        os.makedirs(os.path.dirname(p))
        make_special(p, kind)
        code, doc, err, secs = run(q, [p], SPECIAL_LIMIT)
        qa.check(code == EXIT_UNRECOGNIZED and "regular file" in err,
                 f"{kind} as the path: exit {code} after {secs:.1f} s "
                 f"({err!r}); want 3 at once, saying it is not a regular "
                 f"file")
        n += 1
    print(f"special files: {n} runs")


# ---- memory -----------------------------------------------------------------

def memory(qa, q, tmp, target=2_000_000):
    if sanitized(q):
        print("memory bounds: skipped (sanitizer build)")
        qa.skipped += 1
        return
    for i, (what, make) in enumerate(MEMORY_SHAPES):
        d = os.path.join(tmp, f"mem-{i}")
        path = make(d, target)
        n = input_bytes(path)
        rss = peak_rss(q, ["--format", "json", path])
        bound = PEAK_K * n + PEAK_C
        qa.check(rss <= bound, f"{what}: peak RSS {rss / 2**20:.1f} MiB "
                 f"for {n} bytes, over the documented {PEAK_K} x N + "
                 f"{PEAK_C >> 20} MiB = {bound / 2**20:.1f} MiB")
        print(f"memory: {what}: {n} bytes, peak RSS {rss / 2**20:.1f} MiB "
              f"({rss / n:.1f} x)")
    # The case: a 10 MB GGUF of small arrays took 420 MB.
    path = one_file("x.gguf", small_arrays(10_000_000))(
        os.path.join(tmp, "mem-10mb"))
    rss = peak_rss(q, ["--format", "json", path])
    qa.check(rss < 64 << 20, f"10 MB of small arrays: peak RSS "
             f"{rss / 2**20:.1f} MiB; want under 64 MiB (420 MB before)")
    print(f"memory: 10 MB of small arrays: peak RSS {rss / 2**20:.1f} MiB")


# ---- scaling -----------------------------------------------------------------

def scaling(qa, q, tmp):
    counted = have_valgrind() and not sanitized(q)
    if not counted:
        print("scaling: instruction counts skipped (no valgrind, or a "
              "sanitizer build); the 8n inputs run as hang guards")
        qa.skipped += 1
    for i, (what, make, n) in enumerate(SCALING_SHAPES):
        counts = []
        for j, size in enumerate((max(1, n // 8), n, 8 * n)):
            d = os.path.join(tmp, f"scale-{i}-{j}")
            os.makedirs(d)
            path = make(d, size)
            if counted:
                counts.append(instructions(q, ["--format", "json",
                                               "--summary", path], tmp))
            elif j == 2:
                code, doc, err, secs = run(q, ["--summary", path],
                                           RUN_LIMIT)
                qa.check(code in (0, 1), f"{what} at {size}: exit {code} "
                         f"after {secs:.1f} s")
        if not counted:
            continue
        small, mid, big = counts
        ratio = (big - mid) / max(1, mid - small)
        # Work that less than doubles for 8 times the input (what is not
        # kept is skipped: a vocabulary past 4096 tokens) is not a loop.
        qa.check(ratio <= SCALING_MAX or big <= 2 * mid,
                 f"{what}: instructions {small:,} / {mid:,} / {big:,} at "
                 f"n/8, n, 8n (n = {n}): growth ratio {ratio:.1f}, over "
                 f"{SCALING_MAX} (8 is linear, 64 quadratic)")
        print(f"scaling: {what}: n = {n}: {small:,} / {mid:,} / {big:,} "
              f"instructions, ratio {ratio:.1f}")


def main():
    qa = Checker()
    q = os.path.abspath(sys.argv[1])
    parts = sys.argv[2:] or ["special", "memory", "scaling"]
    with tempfile.TemporaryDirectory(prefix="qa-bounds-") as tmp:
        for part in parts:
            start = time.monotonic()
            {"special": special, "memory": memory,
             "scaling": scaling}[part](qa, q, os.path.join(tmp, part))
            print(f"{part}: {time.monotonic() - start:.1f} s")
    qa.finish()


if __name__ == "__main__":
    main()
