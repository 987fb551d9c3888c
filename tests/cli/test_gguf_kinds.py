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
    """fit refuses a non-model: exit 3, one line naming it. check audits
    it by its own rules and names it in a finding that says its base
    model's checks were not run (the lead's merge of issue 26's two
    halves: a PEFT adapter is checked the same way)."""
    code, out, err = run(binary, ["fit", "--gpus", "24G", path])
    lines = [x for x in err.splitlines() if x.strip()]
    c.check(code == 3, f"{what}: fit exit {code}, want 3")
    c.check(len(lines) == 1 and all(w in lines[0] for w in words),
            f"{what}: fit says {lines!r}, want {words}")
    code, out, err = run(binary, ["check", path])
    said = " ".join(out.split())
    c.check(code in (0, 1) and ("not a model" in said or
                                "not audited as a model" in said),
            f"{what}: check exit {code}, want the file audited and named: "
            f"{out[-400:]}")


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


# ik_llama.cpp's types, from its own source (commit 8337e4cd), not from
# quantaudit: enum ggml_type ids (ggml/include/ggml.h) and the
# type_traits blck_size / sizeof(block) / row_meta_size (ggml/src/ggml.c,
# ggml/src/ggml-common.h): ggml_row_size = row_meta + ne0/blck * size.
IQ4_KS = (144, lambda r, c: r * (4 + c // 256 * 136))
IQ2_K = (137, lambda r, c: r * (c // 256 * 76))
IQ4_KSS = (146, lambda r, c: r * (4 + c // 256 * 128))
IQ2_KT = (153, lambda r, c: r * (4 + c // 256 * 68))
Q4_K_R4 = (212, lambda r, c: r * (c // 256 * 144))
# bitnet.cpp I2_S (3rdparty/llama.cpp ggml.h GGML_TYPE_I2_S = 36;
# ggml_nbytes: elements / 4 + 32)
I2_S = (36, lambda r, c: r * c // 4 + 32)


def fork_findings(doc, code):
    return [f for f in doc["inputs"][0]["findings"] if f["code"] == code]


def tensor_bytes(doc, name):
    for t in doc["inputs"][0].get("tensors", []):
        if t["name"] == name:
            return t.get("bytes"), t.get("dtype")
    return None, None


def test_ik_types(binary, tmp, c):
    p = os.path.join(tmp, "ik-iq4_ks.gguf")
    gf.fork_llama(p, IQ4_KS, IQ2_K, file_type=145)
    code, doc, err = run_json(binary, ["tensors", p])
    m = doc["inputs"][0]["model"]
    got = sorted(f["message"].split(" read as ")[1].split(" ")[1]
                 for f in fork_findings(doc, "QA1038"))
    c.check(got == ["IQ2_K", "IQ4_KS"], f"ik readings {got}")
    c.check(code == 0 and doc["inputs"][0]["verdict"] == "pass",
            f"ik file exit {code} {codes(doc)}")
    c.check(tensor_bytes(doc, "blk.0.attn_q.weight") ==
            (256 * (4 + 136), "IQ4_KS"), "IQ4_KS bytes "
            f"{tensor_bytes(doc, 'blk.0.attn_q.weight')}")
    c.check(tensor_bytes(doc, "blk.0.ffn_down.weight") ==
            (256 * 2 * 76, "IQ2_K"), "IQ2_K bytes")
    c.check(m["engines"] == ["ik_llama.cpp"], f"ik engines {m['engines']}")
    c.check(m["quantization"].get("file_type_declared") == "IQ4_KS",
            f"ik file type {m['quantization'].get('file_type_declared')}")
    # the row-interleaved and trellis types as well
    p = os.path.join(tmp, "ik-kt.gguf")
    gf.fork_llama(p, Q4_K_R4, IQ2_KT)
    code, doc, err = run_json(binary, ["tensors", p])
    c.check(code == 0 and tensor_bytes(doc, "blk.0.ffn_up.weight") ==
            (512 * (4 + 68), "IQ2_KT") and
            tensor_bytes(doc, "blk.0.attn_k.weight") ==
            (256 * 144, "Q4_K_R4"), f"ik-kt exit {code} {codes(doc)}")
    # IQ4_KS written without its 4 bytes per row: the sizes disagree with
    # the offsets, which the layout checks see
    p = os.path.join(tmp, "ik-short.gguf")
    gf.fork_llama(p, (144, lambda r, c: r * (c // 256 * 136)), IQ2_K)
    code, doc, err = run_json(binary, ["inspect", p])
    c.check(code == 1 and any(x in codes(doc) for x in
                              ("QA1028", "QA1029")),
            f"ik-short exit {code} {codes(doc)}")
    # an id no table knows, in fork territory: named, not audited, not
    # called corrupt; past 1024 it is damage (QA1023)
    p = os.path.join(tmp, "ik-unknown.gguf")
    gf.fork_llama(p, (500, lambda r, c: r * c), IQ2_K)
    code, doc, err = run_json(binary, ["inspect", p])
    c.check("QA1039" in codes(doc) and "QA1023" not in codes(doc) and
            doc["inputs"][0]["verdict"] == "warn",
            f"unknown fork id: {codes(doc)} {doc['inputs'][0]['verdict']}")
    p = os.path.join(tmp, "ik-damaged.gguf")
    gf.fork_llama(p, (70000, lambda r, c: r * c), IQ2_K)
    code, doc, err = run_json(binary, ["inspect", p])
    c.check("QA1023" in codes(doc) and code == 1,
            f"id 70000: {codes(doc)} exit {code}")


def test_bitnet(binary, tmp, c):
    # bitnet.cpp's convert-hf-to-gguf-bitnet.py: file type 40, I2_S
    p = os.path.join(tmp, "bitnet-i2_s.gguf")
    gf.fork_llama(p, I2_S, I2_S, file_type=40, arch="bitnet-b1.58")
    code, doc, err = run_json(binary, ["tensors", p])
    m = doc["inputs"][0]["model"]
    f = fork_findings(doc, "QA1038")
    c.check(len(f) == 1 and "I2_S" in f[0]["message"] and
            "general.file_type is 40" in f[0]["message"],
            f"bitnet reading {[x['message'] for x in f]}")
    c.check(tensor_bytes(doc, "blk.0.ffn_down.weight") ==
            (256 * 512 // 4 + 32, "I2_S"), "I2_S bytes "
            f"{tensor_bytes(doc, 'blk.0.ffn_down.weight')}")
    c.check("QA1024" not in codes(doc) and "QA7001" not in codes(doc) and
            "QA7002" not in codes(doc), f"bitnet findings {codes(doc)}")
    c.check(m["quantization"].get("file_type_declared") == "I2_S",
            f"bitnet file type {m['quantization'].get('file_type_declared')}")
    c.check("vllm" not in m["engines"] and "llama.cpp" not in m["engines"],
            f"bitnet engines {m['engines']}")
    # id 36 with nothing else saying BitNet: upstream's removed type,
    # with the reading named
    p = os.path.join(tmp, "id36-upstream.gguf")
    gf.fork_llama(p, (36, lambda r, c: r * (c // 32 * 18)), IQ2_K,
                  file_type=7)
    code, doc, err = run_json(binary, ["inspect", p])
    f = [x for x in fork_findings(doc, "QA1038")
         if "type 36 " in x["message"]]
    c.check(len(f) == 1 and "read as upstream's" in f[0]["message"] and
            "QA1024" in codes(doc), f"id 36 upstream: {codes(doc)}")
    # upstream's own ternary types (TQ1_0 34, TQ2_0 35) need no fork
    p = os.path.join(tmp, "tq1.gguf")
    gf.tiny_llama(p, gf.T.TQ1_0, file_type=36)
    code, doc, err = run_json(binary, ["inspect", p])
    c.check(code == 0 and "QA1038" not in codes(doc),
            f"TQ1_0: exit {code} {codes(doc)}")


def deepseek2(path, layers, experts, name=None):
    """A deepseek2 GGUF as llama.cpp's converter writes one for
    DeepSeek-V3-style routing (blk.N.exp_probs_b.bias), no nextn key: the
    architecture alone does not say V3/R1 (DeepSeek-V2, Kimi and
    Moonlight share it)."""
    np, gguf = gf.np, gf.gguf
    w = gguf.GGUFWriter(path, "deepseek2")
    if name:
        w.add_name(name)
    w.add_block_count(layers)
    w.add_context_length(128)
    w.add_embedding_length(64)
    w.add_feed_forward_length(128)
    w.add_head_count(4)
    w.add_head_count_kv(4)
    w.add_expert_count(experts)
    w.add_expert_used_count(2)
    w.add_tensor("token_embd.weight", np.zeros((32, 64), np.float32))
    for b in range(min(layers, 2)):
        w.add_tensor(f"blk.{b}.attn_norm.weight", np.ones(64, np.float32))
        w.add_tensor(f"blk.{b}.ffn_gate_inp.weight",
                     np.zeros((experts, 64), np.float32))
        w.add_tensor(f"blk.{b}.exp_probs_b.bias",
                     np.zeros(experts, np.float32))
    w.add_tensor("output_norm.weight", np.ones(64, np.float32))
    gf.finish(w)


def test_deepseek2_family(binary, tmp, c):
    # Moonlight-like: 27 layers, 64 experts, unnamed
    p = os.path.join(tmp, "moonlight-like.gguf")
    deepseek2(p, 27, 64)
    code, doc, err = run_json(binary, ["inspect", p])
    mtp = doc["inputs"][0]["model"]["mtp"]
    c.check(mtp["status"] == "not-applicable" and
            "QA2004" not in codes(doc), f"moonlight-like: {mtp} "
            f"{codes(doc)}")
    code, out, err = run(binary, ["inspect", p])
    c.check("not expected" in out and "stripped" not in out,
            "moonlight-like text: " +
            " ".join(x for x in out.splitlines() if "MTP" in x))
    # named DeepSeek-V3: the converter dropped its MTP layer
    p = os.path.join(tmp, "v3-named.gguf")
    deepseek2(p, 3, 4, name="DeepSeek-V3-0324")
    code, doc, err = run_json(binary, ["inspect", p])
    c.check(doc["inputs"][0]["model"]["mtp"]["status"] == "absent" and
            "QA2004" in codes(doc), f"v3 named: {codes(doc)}")
    # unnamed, V3's shape (deepseek-ai/DeepSeek-V3 config.json:
    # num_hidden_layers 61, n_routed_experts 256)
    p = os.path.join(tmp, "v3-shape.gguf")
    deepseek2(p, 61, 256)
    code, doc, err = run_json(binary, ["inspect", p])
    c.check(doc["inputs"][0]["model"]["mtp"]["status"] == "absent",
            f"v3 shape: {doc['inputs'][0]['model']['mtp']}")
    # Kimi-K2's shape (61 layers, 384 experts): no MTP expected
    p = os.path.join(tmp, "kimi-shape.gguf")
    deepseek2(p, 61, 384)
    code, doc, err = run_json(binary, ["inspect", p])
    c.check(doc["inputs"][0]["model"]["mtp"]["status"] == "not-applicable",
            f"kimi shape: {doc['inputs'][0]['model']['mtp']}")


def test_drafts(binary, tmp, c):
    """Drafts gguf-py writes as llama.cpp's converter does
    (gguf_fixtures.qwen35_mtp, draft_arch). The target each goes with is
    read from the fixture's own parameters: trunk 4 + 1 NextN block,
    embedding 64, token_embd of 48 rows."""
    p = os.path.join(tmp, "mtp-tiny.gguf")
    gf.qwen35_mtp(p, trunk=4, nextn=1, embd=64, vocab=48)
    code, doc, err = run_json(binary, ["check", p])
    inp = doc["inputs"][0]
    m = inp["model"]
    f = m.get("kind_facts", {})
    c.check(m["kind"] == "draft" and inp["verdict"] == "pass",
            f"mtp sidecar: kind {m['kind']} verdict {inp['verdict']} "
            f"{codes(doc)}")
    c.check(f == {"draft_type": "mtp", "target_architecture": "qwen35",
                  "target_layers": 4, "nextn_layers": 1, "hidden_size": 64,
                  "vocab_size": 48}, f"mtp sidecar facts {f}")
    c.check("QA1040" in codes(doc) and m["engines"] == ["llama.cpp"],
            f"mtp sidecar: {codes(doc)} engines {m['engines']}")
    # the bundled default (trunk + MTP in one file) is the model itself
    p = os.path.join(tmp, "bundled.gguf")
    gf.qwen35_mtp(p, with_trunk=True)
    code, doc, err = run_json(binary, ["check", p])
    m = doc["inputs"][0]["model"]
    c.check(m["kind"] == "model" and "QA1040" not in codes(doc) and
            m["mtp"]["status"] == "present",
            f"bundled: kind {m['kind']} {codes(doc)} {m['mtp']}")
    # shared tensors left out: the vocabulary is not told, and said so
    p = os.path.join(tmp, "mtp-bare.gguf")
    gf.qwen35_mtp(p, with_embd=False)
    code, doc, err = run_json(binary, ["check", p])
    m = doc["inputs"][0]["model"]
    f = m.get("kind_facts", {})
    msg = [x["message"] for x in doc["inputs"][0]["findings"]
           if x["code"] == "QA1040"]
    c.check(m["kind"] == "draft" and "vocab_size" not in f and msg and
            "vocabulary not told" in msg[0], f"bare sidecar: {f} {msg}")
    # the tokenizer tells it when token_embd is absent
    p = os.path.join(tmp, "mtp-tok.gguf")
    gf.qwen35_mtp(p, with_embd=False, tokens=True, vocab=40)
    code, doc, err = run_json(binary, ["inspect", p])
    f = doc["inputs"][0]["model"].get("kind_facts", {})
    c.check(f.get("vocab_size") == 40, f"tokenizer vocab: {f}")
    # eh_proj maps to 32 while embedding_length says 64
    p = os.path.join(tmp, "mtp-bad.gguf")
    gf.qwen35_mtp(p, eh_embd=32)
    code, doc, err = run_json(binary, ["check", p])
    msg = [x["message"] for x in doc["inputs"][0]["findings"]
           if x["code"] == "QA1040" and "disagree" in x["message"]]
    c.check(len(msg) == 1 and "64" in msg[0] and "32" in msg[0],
            f"eh_proj mismatch: {msg}")
    # DFlash: target layers and hidden size from its own keys, the
    # vocabulary from the target's tokenizer it carries
    p = os.path.join(tmp, "dflash.gguf")
    gf.draft_arch(p, "dflash", embd=64, target_hidden=96, vocab=48,
                  target_layers=[1, 3])
    code, doc, err = run_json(binary, ["check", p])
    inp = doc["inputs"][0]
    f = inp["model"].get("kind_facts", {})
    c.check(inp["model"]["kind"] == "draft" and inp["verdict"] == "pass" and
            f.get("target_layers") == [1, 3] and
            f.get("target_hidden_size") == 96 and f.get("vocab_size") == 48,
            f"dflash: {inp['verdict']} {f} {codes(doc)}")
    # EAGLE-3: the target hidden size from fc (3 * 96 columns); the
    # layers it reads are not in the file, and the finding says so
    p = os.path.join(tmp, "eagle3.gguf")
    gf.draft_arch(p, "eagle3", embd=64, target_hidden=96, vocab=48)
    code, doc, err = run_json(binary, ["check", p])
    inp = doc["inputs"][0]
    f = inp["model"].get("kind_facts", {})
    msg = [x["message"] for x in inp["findings"] if x["code"] == "QA1040"]
    c.check(inp["model"]["kind"] == "draft" and
            f.get("target_hidden_size") == 96 and
            "target_layers" not in f and msg and
            "not in the file" in msg[0], f"eagle3: {f} {msg}")


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
         test_control_vector, test_unknown_type, test_ik_types, test_bitnet,
         test_deepseek2_family, test_drafts,
         test_schema]

if __name__ == "__main__":
    main()
