# SPDX-License-Identifier: MIT
"""model.format, model.kind and model.engines on GGUF files gguf-py
writes (tests/cli/gguf_fixtures.py). Expected engine lists are read from
the engines' own type tables, not from quantaudit: llama.cpp loads every
upstream ggml type (ggml/src/ggml.c type_traits); vLLM's and SGLang's GGUF
loaders the types of UNQUANTIZED_TYPES | STANDARD_QUANT_TYPES |
KQUANT_TYPES | IMATRIX_QUANT_TYPES (vllm/model_executor/layers/
quantization/gguf.py), which have no TQ1_0/TQ2_0; ik_llama.cpp's enum
ggml_type (ggml/include/ggml.h) has no 34/35 (TQ1_0/TQ2_0)."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import gguf_fixtures as gf  # noqa: E402


def model_of(binary, path, c, what):
    code, doc, err = run_json(binary, ["inspect", path])
    if not c.check(len(doc.get("inputs", [])) == 1,
                   f"{what}: one input ({err.strip()[:200]})"):
        return None
    return doc["inputs"][0]["model"]


def test_foundation(binary, tmp, c):
    p = os.path.join(tmp, "q8.gguf")
    gf.tiny_llama(p, gf.T.Q8_0, file_type=7)
    m = model_of(binary, p, c, "Q8_0 llama")
    if m:
        c.check(m["format"] == "gguf", f"Q8_0 format {m['format']}")
        c.check(m["kind"] == "model", f"Q8_0 kind {m['kind']}")
        c.check(m["engines"] == ["llama.cpp", "ik_llama.cpp", "ollama",
                                 "vllm", "sglang"],
                f"Q8_0 engines {m['engines']}")
    p = os.path.join(tmp, "tq2.gguf")
    gf.tiny_llama(p, gf.T.TQ2_0, file_type=37)
    m = model_of(binary, p, c, "TQ2_0 llama")
    if m:
        c.check(m["engines"] == ["llama.cpp", "ollama"],
                f"TQ2_0 engines {m['engines']}")


def codes(doc):
    return [f["code"] for f in doc["inputs"][0]["findings"]]


def refused(binary, path, c, what, words):
    """check and fit refuse a non-model: exit 3, one line naming it."""
    for cmd in (["check", path], ["fit", "--gpus", "24G", path]):
        code, out, err = run(binary, cmd)
        lines = [x for x in err.splitlines() if x.strip()]
        c.check(code == 3, f"{what}: {cmd[0]} exit {code}, want 3")
        c.check(len(lines) == 1 and all(w in lines[0] for w in words),
                f"{what}: {cmd[0]} says {lines!r}, want {words}")


def test_lora(binary, tmp, c):
    p = os.path.join(tmp, "lora.gguf")
    gf.lora_adapter(p, rank=16, alpha=32.0, layers=2,
                    targets=("attn_q", "attn_v"))
    code, doc, err = run_json(binary, ["inspect", p])
    m = doc["inputs"][0]["model"]
    f = m.get("kind_facts", {})
    c.check(m["kind"] == "adapter", f"lora kind {m['kind']}")
    c.check(f.get("rank") == 16 and f.get("alpha") == 32 and
            f.get("modules") == 4 and f.get("layers") == 2 and
            f.get("target_modules") == ["attn_q", "attn_v"] and
            f.get("base_architecture") == "llama" and
            f.get("adapter_type") == "lora", f"lora facts {f}")
    c.check(codes(doc) == ["QA1031"], f"lora findings {codes(doc)}")
    # llama.cpp loads it with --lora (src/llama-adapter.cpp); vLLM and
    # SGLang have no GGUF LoRA loader
    c.check(m["engines"] == ["llama.cpp", "ik_llama.cpp"],
            f"lora engines {m['engines']}")
    refused(binary, p, c, "lora", ["LoRA adapter for llama", "rank 16",
                                   "alpha 32", "--lora"])
    # one lora_b left out, one of another rank: llama.cpp refuses both
    p = os.path.join(tmp, "lora-bad.gguf")
    gf.lora_adapter(p, layers=2, drop_b="blk.0.attn_q.weight",
                    bad_rank="blk.1.attn_v.weight")
    code, doc, err = run_json(binary, ["inspect", p])
    bad = [x for x in doc["inputs"][0]["findings"] if x["code"] == "QA1036"]
    c.check(len(bad) == 2 and code == 1, f"lora-bad QA1036 x{len(bad)} "
            f"exit {code}")
    f = doc["inputs"][0]["model"].get("kind_facts", {})
    c.check(f.get("modules") == 2, f"lora-bad pairs counted {f}")


def test_projector(binary, tmp, c):
    p = os.path.join(tmp, "mmproj-tiny.gguf")
    n = gf.projector(p, vision_blocks=2, width=64)
    code, doc, err = run_json(binary, ["inspect", p])
    m = doc["inputs"][0]["model"]
    f = m.get("kind_facts", {})
    c.check(m["kind"] == "projector", f"projector kind {m['kind']}")
    c.check(f.get("params") == n and f.get("vision_block_count") == 2 and
            f.get("vision_embedding_length") == 64 and
            f.get("vision_image_size") == 224 and
            f.get("vision_patch_size") == 14 and
            f.get("has_vision_encoder") == 1 and
            f.get("has_audio_encoder") == 0 and
            f.get("projector_type") == "mlp", f"projector facts {f} "
            f"(params {n})")
    c.check(codes(doc) == ["QA1032"], f"projector findings {codes(doc)}")
    refused(binary, p, c, "projector", ["multimodal projector",
                                        "vision encoder of 2 blocks",
                                        "--mmproj"])
    # beside a model in its folder it is that model's projector, and
    # being one is no finding there
    d = os.path.join(tmp, "with-mmproj")
    os.mkdir(d)
    gf.tiny_llama(os.path.join(d, "model-Q8_0.gguf"), gf.T.Q8_0,
                  file_type=7)
    n = gf.projector(os.path.join(d, "mmproj-model-f16.gguf"))
    code, doc, err = run_json(binary, ["inspect", d])
    ins = doc["inputs"]
    c.check(len(ins) == 1 and ins[0]["model"]["kind"] == "model" and
            ins[0].get("projector", {}).get("params") == n and
            "QA1032" not in codes(doc), f"folder: {len(ins)} inputs, "
            f"{[i['model']['kind'] for i in ins]}, {codes(doc) if ins else ''}")


def test_imatrix(binary, tmp, c):
    p = os.path.join(tmp, "imatrix.gguf")
    gf.imatrix(p, layers=3, kinds=("attn_q", "ffn_down"), chunks=100,
               chunk_size=512)
    code, doc, err = run_json(binary, ["inspect", p])
    m = doc["inputs"][0]["model"]
    f = m.get("kind_facts", {})
    c.check(m["kind"] == "imatrix", f"imatrix kind {m['kind']}")
    c.check(f.get("entries") == 6 and f.get("layers") == 3 and
            f.get("chunk_count") == 100 and f.get("chunk_size") == 512 and
            f.get("datasets") == ["wiki.train.raw"] and
            f.get("tensor_kinds") == ["attn_q", "ffn_down"],
            f"imatrix facts {f}")
    c.check(m["engines"] == [], f"imatrix engines {m['engines']}")
    c.check(codes(doc) == ["QA1033"], f"imatrix findings {codes(doc)}")
    refused(binary, p, c, "imatrix", ["importance matrix of 6 tensors",
                                      "llama-quantize --imatrix"])
    p = os.path.join(tmp, "imatrix-bad.gguf")
    gf.imatrix(p, drop_counts="blk.2.ffn_down.weight")
    code, doc, err = run_json(binary, ["inspect", p])
    c.check(codes(doc).count("QA1037") == 1 and code == 1,
            f"imatrix-bad {codes(doc)} exit {code}")


def test_control_vector(binary, tmp, c):
    p = os.path.join(tmp, "cvec.gguf")
    gf.control_vector(p, hint="llama", layer_count=31, layers=(5, 6, 7),
                      embd=256)
    code, doc, err = run_json(binary, ["inspect", p])
    m = doc["inputs"][0]["model"]
    f = m.get("kind_facts", {})
    c.check(m["kind"] == "control-vector", f"cvec kind {m['kind']}")
    c.check(f == {"model_hint": "llama", "layer_count": 31,
                  "directions": 3, "embedding_length": 256},
            f"cvec facts {f}")
    c.check(codes(doc) == ["QA1034"], f"cvec findings {codes(doc)}")
    refused(binary, p, c, "cvec", ["control vector for llama",
                                   "--control-vector"])


def test_unknown_type(binary, tmp, c):
    p = os.path.join(tmp, "other.gguf")
    gf.imatrix(p, general_type="vocoder")
    code, doc, err = run_json(binary, ["inspect", p])
    m = doc["inputs"][0]["model"]
    c.check(m["kind"] == "unknown" and codes(doc) == ["QA1035"] and
            doc["inputs"][0]["verdict"] == "warn",
            f"unknown type: {m['kind']} {codes(doc)}")
    refused(binary, p, c, "unknown type", ["general.type 'vocoder'"])


def test_schema(binary, tmp, c):
    try:
        import jsonschema
    except ImportError:
        c.skipped += 1
        return
    root = os.environ.get("QA_SOURCE_ROOT", "")
    schema = json.load(open(os.path.join(root, "docs",
                                         "quantaudit-1.schema.json")))
    v = jsonschema.Draft202012Validator(schema)
    for name in sorted(os.listdir(tmp)):
        if not name.endswith(".gguf"):
            continue
        code, doc, err = run_json(binary, ["inspect",
                                           os.path.join(tmp, name)])
        errors = list(v.iter_errors(doc))
        c.check(not errors, f"schema {name}: " + "; ".join(
            f"{list(e.path)}: {e.message[:120]}" for e in errors[:2]))


def main():
    binary = os.path.abspath(sys.argv[1])
    if not gf.have_gguf():
        print("gguf (gguf-py) is not installed: pip install -r "
              "requirements-test.txt; skipped")
        sys.exit(SKIP)
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        for t in TESTS:
            t(binary, tmp, c)
    c.finish()


TESTS = [test_foundation, test_lora, test_projector, test_imatrix,
         test_control_vector, test_unknown_type, test_schema]

if __name__ == "__main__":
    main()
