# SPDX-License-Identifier: MIT
"""Real files written by other tools (llama.cpp's converter, quantizer and
gguf-split; transformers' save_pretrained), checked end to end through the
quantaudit binary's JSON report against independent truth:
expected/gguf.json (read by llama.cpp's own gguf-py GGUFReader) and
expected/safetensors.json (a separate reader of the safetensors spec).
Skips (exit 77) when the corpus folder is absent."""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from qa_common import SKIP, Checker, run_json  # noqa: E402


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def same_value(kind, want, got):
    if kind == "FLOAT32":
        return isinstance(got, (int, float)) and f32(float(got)) == f32(want)
    if kind == "FLOAT64":
        return isinstance(got, (int, float)) and float(got) == want
    return got == want


def check_kv(c, where, key, exp, got):
    if not c.check(got is not None, f"{where}: key {key} missing"):
        return
    if "array_len" in exp:
        ok = (isinstance(got, dict) and got.get("type") == "array"
              and got.get("length") == exp["array_len"]
              and got.get("elem_type") == exp["elem_type"])
        c.check(ok, f"{where}: {key} array {got!r:.200} vs {exp}")
        if ok and "values" in exp and "values" in got:
            c.check(all(same_value(exp["elem_type"], w, g)
                        for w, g in zip(exp["values"], got["values"]))
                    and len(exp["values"]) == len(got["values"]),
                    f"{where}: {key} values differ")
    else:
        c.check(same_value(exp["type"], exp["value"], got),
                f"{where}: {key} = {got!r:.100}, expected {exp['value']!r:.100}")


def check_tensors(c, where, expected, got_by_name, file_suffix, key_type):
    for t in expected:
        g = got_by_name.get(t["name"])
        if not c.check(g is not None, f"{where}: tensor {t['name']} missing"):
            continue
        c.check(g["dtype"] == t[key_type] and g["shape"] == t.get("ne", t.get("shape"))
                and g["bytes"] == t["bytes"] and g["offset"] == t["offset"]
                and g["file"].endswith(file_suffix),
                f"{where}: tensor {t['name']}: got {g}, expected {t}")


def main():
    binary = sys.argv[1]
    corpus = os.environ.get("QA_CORPUS", "")
    if not corpus or not os.path.isdir(os.path.join(corpus, "expected")):
        print(f"corpus not found at '{corpus}': skipped")
        sys.exit(SKIP)
    c = Checker()
    gguf = json.load(open(os.path.join(corpus, "expected", "gguf.json")))
    st = json.load(open(os.path.join(corpus, "expected", "safetensors.json")))

    # Every GGUF file on its own (split parts are checked as a set below).
    for rel, exp in sorted(gguf.items()):
        if "-of-" in rel:
            continue
        code, doc, err = run_json(binary, [os.path.join(corpus, rel)])
        c.check(code == 0, f"{rel}: exit {code}: {err.strip()[:300]}")
        if not doc.get("inputs"):
            continue
        inp = doc["inputs"][0]
        c.check(inp["kind"] == "gguf", f"{rel}: kind {inp['kind']}")
        c.check(inp["files"][0]["bytes"] == exp["file_bytes"],
                f"{rel}: file bytes")
        meta = inp.get("metadata", {})
        c.check(len(meta) == exp["n_kv"] - 3,
                f"{rel}: {len(meta)} keys, expected {exp['n_kv'] - 3}")
        for key, kv in exp["kv"].items():
            if key.startswith("GGUF."):
                continue
            check_kv(c, rel, key, kv, meta.get(key))
        got = {t["name"]: t for t in inp.get("tensors", [])}
        c.check(len(got) == exp["n_tensors"], f"{rel}: tensor count")
        check_tensors(c, rel, exp["tensors"], got, rel.split("/")[-1], "type")
        if exp["n_tensors"]:
            c.check(inp["files"][0].get("data_offset") == exp["data_offset"],
                    f"{rel}: data offset {inp['files'][0].get('data_offset')}"
                    f" expected {exp['data_offset']}")
        c.check(inp["verdict"] != "fail", f"{rel}: verdict {inp['verdict']}")

    # The split set, named by each of its parts in turn.
    parts = sorted(r for r in gguf if "-of-" in r)
    total = sum(gguf[p]["n_tensors"] for p in parts)
    for named in parts:
        code, doc, err = run_json(binary, [os.path.join(corpus, named)])
        c.check(code == 0, f"split via {named}: exit {code} {err[:200]}")
        if not doc.get("inputs"):
            continue
        inp = doc["inputs"][0]
        c.check(len(inp["files"]) == len(parts),
                f"split via {named}: {len(inp['files'])} files")
        got = {t["name"]: t for t in inp.get("tensors", [])}
        c.check(len(got) == total == len(inp.get("tensors", [])),
                f"split via {named}: {len(got)} tensors, expected {total}")
        for p in parts:
            check_tensors(c, f"split via {named}", gguf[p]["tensors"], got,
                          p.split("/")[-1], "type")
        c.check(not inp["findings"], f"split via {named}: findings "
                f"{[f['code'] for f in inp['findings']]}")

    # Hugging Face folders (and their single files).
    folders = sorted({os.path.dirname(r) for r in st})
    for folder in folders:
        code, doc, err = run_json(binary, [os.path.join(corpus, folder)])
        c.check(code == 0, f"{folder}: exit {code}: {err.strip()[:300]}")
        if not doc.get("inputs"):
            continue
        inp = doc["inputs"][0]
        c.check(inp["kind"] == "hf-dir", f"{folder}: kind {inp['kind']}")
        got = {t["name"]: t for t in inp.get("tensors", [])}
        files = [r for r in st if os.path.dirname(r) == folder]
        n = sum(st[r]["n_tensors"] for r in files)
        c.check(len(got) == n == len(inp.get("tensors", [])),
                f"{folder}: {len(got)} tensors, expected {n}")
        for r in files:
            check_tensors(c, folder, st[r]["tensors"], got,
                          r.split("/")[-1], "dtype")
        c.check(inp["model"]["architecture"] is not None,
                f"{folder}: architecture from config.json")
        c.check(inp["verdict"] != "fail", f"{folder}: verdict "
                f"{[f['code'] for f in inp['findings']]}")
    for rel, exp in sorted(st.items()):
        code, doc, err = run_json(binary, [os.path.join(corpus, rel)])
        c.check(code == 0, f"{rel}: exit {code}: {err.strip()[:300]}")
        if doc.get("inputs"):
            inp = doc["inputs"][0]
            got = {t["name"]: t for t in inp.get("tensors", [])}
            check_tensors(c, rel, exp["tensors"], got, rel.split("/")[-1],
                          "dtype")
    # MTP status of every real input (SOURCES.md: llama.cpp's converter
    # dropped the DeepSeek MTP layer; the HF folder keeps it in
    # model-mtp.safetensors, listed in its index).
    mtp_truth = {
        "gguf/deepseek_v3_mtp-bf16.gguf": ("absent", 0, 0),
        "hf/deepseek_v3_mtp": ("present", 1, 32),
        "hf/llama": ("not-applicable", 0, 0),
        "hf/qwen3_moe": ("not-applicable", 0, 0),
        "hf/gemma3_text": ("not-applicable", 0, 0),
        "gguf/llama-q8_0.gguf": ("not-applicable", 0, 0),
        "gguf/qwen3_moe-q8_0.gguf": ("not-applicable", 0, 0),
        "gguf/gemma3_text-q8_0.gguf": ("not-applicable", 0, 0),
    }
    for rel, (status, declared, tensors) in mtp_truth.items():
        code, doc, err = run_json(binary, ["check", "--summary",
                                           os.path.join(corpus, rel)])
        if not doc.get("inputs"):
            c.check(False, f"{rel}: no report")
            continue
        mtp = doc["inputs"][0]["model"]["mtp"]
        c.check((mtp["status"], mtp["declared"], mtp["tensors"]) ==
                (status, declared, tensors), f"{rel}: mtp {mtp}, expected "
                f"{status}/{declared}/{tensors}")
        codes = {f["code"] for f in doc["inputs"][0]["findings"]}
        c.check(("QA2004" in codes) == (status == "absent"),
                f"{rel}: QA2004 presence wrong: {sorted(codes)}")
    c.finish()


main()
