# SPDX-License-Identifier: MIT
"""Memory is flat in the number of inputs (issue 12): each model is
written to the report as soon as it is audited and its inventory
released, so one run over 100 models peaks where a run over one does.

    test_perf_memory.py QUANTAUDIT

The inputs are written here: a GGUF with the header of an 80-block llama
(722 tensors, 32 keys; the tensor data a hole), named 100 times by hard
links, so every path is a model of its own (the same path named twice is
one model, and is audited once). Keeping every inventory until the end
cost about 0.55 MiB per model of this shape (61 MiB for 100 before issue
12).

Checked, for `inspect` as text and JSON and for `tensors`:
- peak RSS (GNU time's %M, or ru_maxrss of a child) of 1, 10 and 100
  inputs differs by less than FLAT_SLACK;
- the JSON of n inputs is one document whose inputs are, element for
  element, the single-input documents of the same paths (nothing is lost
  or reordered by writing each as it is done), with the worst verdict;
- the text of n inputs is the single-input texts joined by a blank line
  plus the overall verdict line, and `tensors` adds the title lines;
- an input that cannot be read, between two that can, still gets its
  reason on stderr, in order, and the exit status of the worst.
Skipped under AddressSanitizer, whose shadow memory is not the tool's.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, SKIP  # noqa: E402
from test_bounds import peak_rss, sanitized  # noqa: E402

# Two inventories at most are alive at once (the one being written and,
# for `tensors`, the next one); the rest of the difference is malloc's.
FLAT_SLACK = 2 << 20
N_BLOCK = 80
EMBD, FF, VOCAB = 2048, 8192, 32000
Q8_0, F32 = 8, 0


def gstr(s):
    return struct.pack("<Q", len(s)) + s


def kv_str(key, value):
    return gstr(key) + struct.pack("<I", 8) + gstr(value)


def kv_u32(key, value):
    return gstr(key) + struct.pack("<II", 4, value)


def nbytes(typ, dims):
    n = 1
    for d in dims:
        n *= d
    return n * 4 if typ == F32 else n // 32 * 34  # Q8_0: 34 bytes / 32


def llama_gguf(path, n_block=N_BLOCK):
    """An n_block llama header as llama.cpp names its tensors
    (src/models/llama.cpp), Q8_0 weights and F32 norms, data a hole."""
    tensors = [("token_embd.weight", [EMBD, VOCAB], Q8_0)]
    for i in range(n_block):
        b = f"blk.{i}."
        tensors += [(b + "attn_norm.weight", [EMBD], F32),
                    (b + "attn_q.weight", [EMBD, EMBD], Q8_0),
                    (b + "attn_k.weight", [EMBD, 512], Q8_0),
                    (b + "attn_v.weight", [EMBD, 512], Q8_0),
                    (b + "attn_output.weight", [EMBD, EMBD], Q8_0),
                    (b + "ffn_norm.weight", [EMBD], F32),
                    (b + "ffn_gate.weight", [EMBD, FF], Q8_0),
                    (b + "ffn_up.weight", [EMBD, FF], Q8_0),
                    (b + "ffn_down.weight", [FF, EMBD], Q8_0)]
    tensors += [("output_norm.weight", [EMBD], F32),
                ("output.weight", [EMBD, VOCAB], Q8_0)]
    kvs = [kv_str(b"general.architecture", b"llama"),
           kv_str(b"general.name", b"flat memory"),
           kv_u32(b"general.file_type", 7),
           kv_u32(b"llama.block_count", n_block),
           kv_u32(b"llama.context_length", 4096),
           kv_u32(b"llama.embedding_length", EMBD),
           kv_u32(b"llama.feed_forward_length", FF),
           kv_u32(b"llama.attention.head_count", 32),
           kv_u32(b"llama.attention.head_count_kv", 8)]
    infos, off = [], 0
    for name, dims, typ in tensors:
        infos.append(gstr(name.encode()) + struct.pack("<I", len(dims)) +
                     b"".join(struct.pack("<Q", d) for d in dims) +
                     struct.pack("<IQ", typ, off))
        off += nbytes(typ, dims)
        off += -off % 32
    head = (b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) +
            b"".join(kvs) + b"".join(infos))
    head += bytes(-len(head) % 32)
    with open(path, "wb") as f:
        f.write(head)
    os.truncate(path, len(head) + off)
    return len(tensors)


def names(tmp, n):
    """n paths of the same model: hard links (a copy where links fail)."""
    src = os.path.join(tmp, "model.gguf")
    out = []
    for i in range(n):
        p = os.path.join(tmp, f"m{i:03d}.gguf")
        if not os.path.exists(p):
            try:
                os.link(src, p)
            except OSError:
                with open(src, "rb") as a, open(p, "wb") as b:
                    b.write(a.read())
                os.truncate(p, os.path.getsize(src))
        out.append(p)
    return out


def run(q, args):
    p = subprocess.run([q] + args, capture_output=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def flat(qa, q, paths):
    for args in (["inspect"], ["inspect", "--format", "json"],
                 ["tensors"]):
        rss = {n: peak_rss(q, args + paths[:n]) for n in (1, 10, 100)}
        spread = max(rss.values()) - min(rss.values())
        qa.check(spread < FLAT_SLACK,
                 f"{' '.join(args)}: peak RSS of 1/10/100 inputs "
                 + " / ".join(f"{v / 2**20:.1f}" for v in rss.values())
                 + f" MiB: spread {spread / 2**20:.1f} MiB, want under "
                 f"{FLAT_SLACK >> 20} MiB")
        print(f"{' '.join(args)}: peak RSS " + ", ".join(
            f"{n} inputs {v / 2**20:.1f} MiB" for n, v in rss.items()))


def same_report(qa, q, paths, n_tensors):
    some = paths[:5]
    code, out, _ = run(q, ["inspect", "--format", "json"] + some)
    doc = json.loads(out)
    singles = [json.loads(run(q, ["inspect", "--format", "json", p])[1])
               for p in some]
    qa.check([i["path"] for i in doc["inputs"]] == some,
             "JSON: the inputs in the order given")
    qa.check(all(len(i.get("tensors", [])) == n_tensors
                 for i in doc["inputs"]),
             f"JSON: {n_tensors} tensors listed for every input")
    qa.check(doc["inputs"] == [s["inputs"][0] for s in singles],
             "JSON: each input element is the single-input element")
    worst = "fail" if any(s["verdict"] == "fail" for s in singles) else \
        "warn" if any(s["verdict"] == "warn" for s in singles) else "pass"
    qa.check(doc["verdict"] == worst and code == (1 if worst == "fail"
                                                  else 0),
             f"JSON: verdict {doc['verdict']} (exit {code}), the worst of "
             f"the inputs is {worst}")
    qa.check(set(doc) == set(singles[0]),
             "JSON: the same top-level members as one input")

    _, text, _ = run(q, ["inspect", "--no-color"] + some)
    parts = [run(q, ["inspect", "--no-color", p])[1].decode()
             for p in some]
    want = "\n\n".join(parts) + f"\noverall verdict: {worst.upper()}\n"
    qa.check(text.decode() == want,
             "text: the single-input reports joined, then the overall "
             "verdict")

    _, text, _ = run(q, ["tensors", "--no-color"] + some[:2])
    one = [run(q, ["tensors", "--no-color", p])[1].decode()
           for p in some[:2]]
    title = [run(q, ["inspect", "--no-color", p])[1].decode()
             .splitlines()[0] for p in some[:2]]
    want = "\n".join(t + "\n" + o for t, o in zip(title, one))
    qa.check(text.decode() == want,
             "tensors: each table under its title line")

    missing = os.path.join(os.path.dirname(some[0]), "absent.gguf")
    code_m, _, err_m = run(q, ["inspect", "--format", "json", missing])
    code, out, err = run(q, ["inspect", "--format", "json", some[0],
                             missing, some[1]])
    doc = json.loads(out)
    qa.check([i["path"] for i in doc["inputs"]] == some[:2],
             "JSON with an unreadable input: the two models, in order")
    qa.check(err == err_m and code == code_m,
             f"JSON with an unreadable input: its reason on stderr "
             f"({err!r}) and its exit status {code} (alone: {code_m})")


def one_at_a_time(qa, q, tmp):
    """The JSON report holds no model past its own: two large models in
    one run (22,500 tensors each, about 20 MiB of inventory) peak within
    a quarter of one, not at the sum of both."""
    big = os.path.join(tmp, "big.gguf")
    llama_gguf(big, 2500)
    big2 = os.path.join(tmp, "big2.gguf")
    os.link(big, big2)
    args = ["inspect", "--format", "json"]
    one = peak_rss(q, args + [big])
    two = peak_rss(q, args + [big, big2])
    qa.check(two < one * 5 // 4,
             f"JSON, two large models: peak {two >> 20} MiB against "
             f"{one >> 20} MiB for one (less than a quarter more)")


def main():
    qa = Checker()
    q = os.path.abspath(sys.argv[1])
    if sanitized(q):
        print("memory flat in inputs: skipped (sanitizer build)")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory(prefix="qa-flat-") as tmp:
        n_tensors = llama_gguf(os.path.join(tmp, "model.gguf"))
        paths = names(tmp, 100)
        same_report(qa, q, paths, n_tensors)
        flat(qa, q, paths)
        one_at_a_time(qa, q, tmp)
    qa.finish()


if __name__ == "__main__":
    main()
