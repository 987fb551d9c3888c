# SPDX-License-Identifier: MIT
"""Ollama models made of several layers, in a store laid out exactly as
Ollama writes it (ollama/ollama at fb307609): blobs/sha256-<hex> named by
the sha256 of their content (manifest/layer.go NewLayer),
manifests/registry.ollama.ai/library/<model>/<tag> a JSON manifest
{schemaVersion 2, mediaType, config, layers} written by
json.NewEncoder(f).Encode (manifest/manifest.go WriteManifest l.148-172,
so one trailing newline), the config blob a ConfigV2 (types/model/
config.go), the params blob json.NewEncoder(&b).Encode(params)
(server/create.go l.1389-1395). The GGUF layers are written by gguf-py
(tests/cli/gguf_fixtures.py).

Expected values come from the fixtures: each layer's media type and blob,
the adapters' shapes against the base model's (llama.cpp
src/llama-adapter.cpp: lora_a ne[0] = base ne[0], lora_b ne[1] = base
ne[1]), the params' num_ctx and stop strings, the vocabulary written.
"""
import hashlib
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run, run_json  # noqa: E402
import gguf_fixtures as gf  # noqa: E402

MT = "application/vnd.ollama.image."
LIB = "registry.ollama.ai/library/"
# ollama template/llama3-instruct.gotmpl's shape: if / range / end
LLAMA3 = ('{{- if .System }}<|start_header_id|>system<|end_header_id|>\n\n'
          '{{ .System }}<|eot_id|>{{ end }}'
          '{{- range $i, $_ := .Messages }}'
          '{{- $last := eq (len (slice $.Messages $i)) 1 }}'
          '<|start_header_id|>{{ .Role }}<|end_header_id|>\n\n'
          '{{ .Content }}{{ if $last }}<|eot_id|>{{ end }}{{ end }}'
          '<|start_header_id|>assistant<|end_header_id|>\n\n')
TOKENS = ["<unk>", "<s>", "</s>", "<|eot_id|>", "<|start_header_id|>",
          "<|end_header_id|>"] + [f"t{i}" for i in range(58)]


def base_model(path, layers=2, embd=256):
    """A llama of F32 matrices with a vocabulary of TOKENS."""
    np, gguf, T = gf.np, gf.gguf, gf.T
    w = gguf.GGUFWriter(path, "llama")
    gf.llama_keys(w, layers, embd, 512, vocab=len(TOKENS))
    w.add_tokenizer_model("llama")
    w.add_token_list(TOKENS)
    w.add_token_scores([0.0] * len(TOKENS))
    w.add_token_types([1] * len(TOKENS))
    w.add_bos_token_id(1)
    w.add_eos_token_id(3)
    gf.add_matrix(w, "token_embd.weight", len(TOKENS), embd, T.F32)
    for b in range(layers):
        p = f"blk.{b}."
        w.add_tensor(p + "attn_norm.weight", np.ones(embd, np.float32))
        for n in ("attn_q", "attn_k", "attn_v", "attn_output"):
            gf.add_matrix(w, p + n + ".weight", embd, embd, T.F32)
        w.add_tensor(p + "ffn_norm.weight", np.ones(embd, np.float32))
        gf.add_matrix(w, p + "ffn_gate.weight", 512, embd, T.F32)
        gf.add_matrix(w, p + "ffn_up.weight", 512, embd, T.F32)
        gf.add_matrix(w, p + "ffn_down.weight", embd, 512, T.F32)
    w.add_tensor("output_norm.weight", np.ones(embd, np.float32))
    gf.add_matrix(w, "output.weight", len(TOKENS), embd, T.F32)
    gf.finish(w)


class Store:
    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, "blobs"), exist_ok=True)

    def blob(self, data):
        if isinstance(data, str) and os.path.exists(data):
            data = open(data, "rb").read()
        elif isinstance(data, str):
            data = data.encode()
        d = hashlib.sha256(data).hexdigest()
        path = os.path.join(self.root, "blobs", "sha256-" + d)
        with open(path, "wb") as f:
            f.write(data)
        return {"digest": "sha256:" + d, "size": len(data), "path": path}

    def layer(self, kind, data, **extra):
        b = self.blob(data)
        layer = {"mediaType": kind if "/" in kind else MT + kind,
                 "digest": b["digest"], "size": b["size"]}
        layer.update(extra)
        return layer, b["path"]

    def manifest(self, name, layers):
        config = self.blob(json.dumps({
            "model_format": "gguf", "model_family": "llama",
            "model_families": ["llama"], "model_type": "1M",
            "file_type": "F32", "architecture": "amd64", "os": "linux"}))
        doc = {"schemaVersion": 2,
               "mediaType":
               "application/vnd.docker.distribution.manifest.v2+json",
               "config": {"mediaType":
                          "application/vnd.docker.container.image.v1+json",
                          "digest": config["digest"],
                          "size": config["size"]},
               "layers": layers}
        model, tag = name.split(":")
        path = os.path.join(self.root, "manifests", LIB + model, tag)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(json.dumps(doc) + "\n")
        return path


def by_path(doc):
    return {i["path"]: i for i in doc["inputs"]}


def codes(inp):
    return [f["code"] for f in inp.get("findings", [])]


def messages(inp, code):
    return [f["message"] for f in inp.get("findings", [])
            if f["code"] == code]


def main():
    binary = os.path.abspath(sys.argv[1])
    if not gf.have_gguf():
        print("SKIP: gguf (gguf-py) is not installed: pip install -r "
              "requirements-test.txt")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["OLLAMA_MODELS"] = os.path.join(tmp, "models")
        os.environ["HOME"] = tmp
        st = Store(os.environ["OLLAMA_MODELS"])
        g = os.path.join(tmp, "g")
        os.makedirs(g)
        base_model(os.path.join(g, "base.gguf"))
        gf.lora_adapter(os.path.join(g, "lora.gguf"), rank=8, alpha=16.0,
                        layers=2, targets=("attn_q", "attn_v"), embd=256)
        gf.lora_adapter(os.path.join(g, "lora-128.gguf"), rank=8,
                        layers=1, targets=("attn_q",), embd=128)
        gf.lora_adapter(os.path.join(g, "lora-qwen.gguf"), arch="qwen2",
                        rank=8, layers=1, targets=("attn_q",), embd=256)
        gf.projector(os.path.join(g, "proj.gguf"))
        base_model(os.path.join(g, "draft.gguf"), layers=1, embd=128)

        model, model_blob = st.layer("model", os.path.join(g, "base.gguf"))
        proj, proj_blob = st.layer("projector", os.path.join(g, "proj.gguf"))
        lora, lora_blob = st.layer("adapter", os.path.join(g, "lora.gguf"))
        draft, draft_blob = st.layer("draft", os.path.join(g, "draft.gguf"))
        tmpl, tmpl_blob = st.layer("template", LLAMA3)
        system, _ = st.layer("system", "You are a helpful assistant.")
        lic, _ = st.layer("license", "MIT License\n")
        params, _ = st.layer("params", json.dumps(
            {"num_ctx": 8192, "stop": ["<|eot_id|>", "<|im_end|>"]}) + "\n")
        st.manifest("full:latest", [model, proj, lora, draft, tmpl, system,
                                    lic, params])

        # check: the model, its adapter and its draft, each audited
        code, doc, err = run_json(binary, ["check", "full"])
        ins = by_path(doc)
        c.check(sorted(ins) == ["full", "full (adapter 1)", "full (draft)"],
                f"full: inputs {sorted(ins)} ({err.strip()[:300]})")
        m = ins.get("full", {})
        c.check(m.get("model", {}).get("format") == "ollama" and
                m.get("model", {}).get("kind") == "model",
                f"full: model {m.get('model', {}).get('format')} "
                f"{m.get('model', {}).get('kind')}")
        files = [f["path"] for f in m.get("files", [])]
        c.check(files[:1] == [model_blob] and proj_blob in files and
                tmpl_blob in files,
                f"full: files {files}, want the model, projector and "
                f"template blobs")
        said = " ".join(messages(m, "QA1801"))
        for w in ("1 projector", "1 LoRA adapter", "a draft model",
                  "a Go template", "params", "num_ctx 8192",
                  "a system prompt", "1 license"):
            c.check(w in said, f"full: QA1801 says {w!r} ({said})")
        # a Go template is no Jinja: no "cannot parse" from the Jinja
        # scanner, and Ollama parses this one
        c.check(not any(x in codes(m) for x in ("QA6004", "QA1805")),
                f"full: template findings {codes(m)}")
        # stop strings: <|eot_id|> is a token of the model, <|im_end|> not
        stops = messages(m, "QA1806")
        c.check(len(stops) == 1 and "<|im_end|>" in stops[0] and
                "<|eot_id|>" not in stops[0], f"full: QA1806 {stops}")
        a = ins.get("full (adapter 1)", {})
        c.check(a.get("model", {}).get("kind") == "adapter" and
                "QA1807" not in codes(a) and
                a.get("model", {}).get("kind_facts", {}).get("rank") == 8,
                f"adapter: {a.get('model', {}).get('kind')} {codes(a)}")
        d = ins.get("full (draft)", {})
        c.check(d.get("files", [{}])[0].get("path") == draft_blob,
                f"draft: files {d.get('files')}")

        # fit: the model alone, at the params layer's num_ctx
        code, doc, err = run_json(binary, ["fit", "full", "--gpus", "24G"])
        c.check(code == 0 and [i["path"] for i in doc["inputs"]] == ["full"],
                f"fit full: exit {code} inputs "
                f"{[i['path'] for i in doc['inputs']]} {err.strip()[:200]}")
        fit = doc["inputs"][0].get("fit", {}) if doc["inputs"] else {}
        c.check(fit.get("context") == 8192 and
                any("num_ctx" in n for n in fit.get("notes", [])),
                f"fit full: context {fit.get('context')} notes "
                f"{fit.get('notes')}")
        code, doc, err = run_json(binary, ["fit", "full", "--gpus", "24G",
                                           "--ctx", "512"])
        fit = doc["inputs"][0].get("fit", {}) if doc["inputs"] else {}
        c.check(fit.get("context") == 512,
                f"fit --ctx 512: context {fit.get('context')}")

        # adapters that do not fit the base: QA1807
        bad128, _ = st.layer("adapter", os.path.join(g, "lora-128.gguf"))
        badq, _ = st.layer("adapter", os.path.join(g, "lora-qwen.gguf"))
        st.manifest("badlora:latest", [model, bad128, badq])
        code, doc, err = run_json(binary, ["check", "badlora"])
        ins = by_path(doc)
        s1 = messages(ins.get("badlora (adapter 1)", {}), "QA1807")
        s2 = messages(ins.get("badlora (adapter 2)", {}), "QA1807")
        c.check(code == 1 and s1 and "blk.0.attn_q.weight" in s1[0] and
                "[256, 256]" in s1[0] and "[128, 128]" in s1[0],
                f"badlora 1: exit {code} {s1}")
        c.check(s2 and "qwen2" in s2[0] and "llama" in s2[0],
                f"badlora 2: {s2}")

        # a template Ollama cannot parse; a changed blob; an unknown
        # layer; params that are not an object
        bad_t, _ = st.layer("template", "{{ if .System }}{{ .System }}")
        unk, _ = st.layer("application/vnd.ollama.image.future", "x")
        badp, _ = st.layer("params", "[1, 2]\n")
        st.manifest("broken:latest", [model, bad_t, unk, badp])
        code, doc, err = run_json(binary, ["check", "broken"])
        b = by_path(doc).get("broken", {})
        t = messages(b, "QA1805")
        c.check(code == 1 and t and "never closed" in t[0],
                f"broken: exit {code} QA1805 {t}")
        c.check(messages(b, "QA1808") and
                "vnd.ollama.image.future" in messages(b, "QA1808")[0] and
                "not read" in " ".join(messages(b, "QA1801")),
                f"broken: QA1808 {codes(b)}")
        c.check(messages(b, "QA1804"), f"broken: QA1804 {codes(b)}")
        with open(tmpl_blob, "a") as f:
            f.write("{{ .Prompt }}")
        code, doc, err = run_json(binary, ["check", "full"])
        m = by_path(doc).get("full", {})
        c.check(any("digest" in x for x in messages(m, "QA1803")),
                f"tampered template: QA1803 {codes(m)}")
        # a layer whose blob is gone
        os.remove(tmpl_blob)
        code, doc, err = run_json(binary, ["check", "full"])
        m = by_path(doc).get("full", {})
        c.check(code == 1 and any("template" in x for x in
                                  messages(m, "QA1802")),
                f"missing template blob: exit {code} {codes(m)}")
        # the safetensors layout (x/create; tests/cli/test_ollama_st.py
        # reads real ones): a tensor layer whose blob is no safetensors
        # file is that file's error, at the layer's name
        t1, _ = st.layer("tensor", b"\0" * 16,
                         name="model.embed_tokens.weight")
        cfg, _ = st.layer("json", "{}", name="config.json")
        st.manifest("stmodel:latest", [t1, cfg])
        code, doc, err = run_json(binary, ["check", "stmodel"])
        s = doc["inputs"][0]
        c.check(code == 1 and s["model"]["format"] == "ollama-safetensors"
                and any(f["code"] == "QA1205" and f["file"].endswith(
                    "/stmodel/latest/model.embed_tokens.weight.safetensors")
                    for f in s["findings"]),
                f"safetensors layout: exit {code} {codes(s)}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
