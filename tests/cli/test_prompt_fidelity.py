#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`quantaudit diff QUANT.gguf SOURCE_FOLDER`: the prompt section
(src/compare/prompt.c, docs/diff.md).

Independent truth: the source folders are written by transformers'
save_pretrained (a tokenizers WordLevel tokenizer with the chat template
of a model family, its special tokens in tokenizer.json added_tokens and
the template in chat_template.jinja, as transformers 5 writes them); the
quants by gguf-py's GGUFWriter, with the same template, a drifted one, or
a wrong EOS / BOS id, a special token spelled otherwise in the vocabulary,
or general.base_model naming another model. The expected template diff is
Python's difflib over the two templates' lines; the expected ids are the
ones written. The corpus's converted pairs (convert_hf_to_gguf.py against
the checkpoint it read) must agree on every id and raise no finding.
"""
import difflib
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, env_path, run  # noqa: E402

QA = None

try:
    import numpy as np
    import gguf
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
except ImportError as e:  # pragma: no cover
    print(f"SKIP: a producer is missing ({e}); pip install -r "
          "requirements-test.txt")
    sys.exit(SKIP)

# Family templates, written for this test in each family's shape (ChatML as
# Qwen2/Qwen3 use it, Llama 3's header tokens, Gemma's turns).
CHATML = (
    "{%- for message in messages %}\n"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
    "'<|im_end|>' + '\\n' }}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n"
    "{{- '<|im_start|>assistant\\n' }}\n"
    "{%- endif %}\n")
LLAMA3 = (
    "{{- bos_token }}\n"
    "{%- for message in messages %}\n"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'"
    " + message['content'] | trim + '<|eot_id|>' }}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n"
    "{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
    "{%- endif %}\n")
GEMMA = (
    "{{ bos_token }}\n"
    "{%- for message in messages -%}\n"
    "{%- set role = 'model' if message['role'] == 'assistant' else "
    "message['role'] -%}\n"
    "{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + "
    "'<end_of_turn>\\n' }}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}"
    "{%- endif -%}\n")

FAMILIES = {
    "chatml": (CHATML, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
               {"eos": "<|im_end|>", "pad": "<|endoftext|>"}),
    "llama3": (LLAMA3, ["<|begin_of_text|>", "<|end_of_text|>",
                        "<|start_header_id|>", "<|end_header_id|>",
                        "<|eot_id|>"],
               {"bos": "<|begin_of_text|>", "eos": "<|eot_id|>"}),
    "gemma": (GEMMA, ["<pad>", "<eos>", "<bos>", "<start_of_turn>",
                      "<end_of_turn>"],
              {"bos": "<bos>", "eos": "<eos>", "pad": "<pad>"}),
}
WORDS = "hello world system user assistant model you are a helpful".split()


def source_folder(path, family, gen_eos=None):
    """A tiny llama checkpoint with the family's tokenizer, saved by
    transformers."""
    template, specials, roles = FAMILIES[family]
    vocab = {t: i for i, t in enumerate(specials)}
    for w in WORDS:
        vocab[w] = len(vocab)
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token=specials[0]))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    kw = {f"{r}_token": t for r, t in roles.items()}
    tok = PreTrainedTokenizerFast(tokenizer_object=tk,
                                  additional_special_tokens=specials, **kw)
    tok.chat_template = template
    os.makedirs(path, exist_ok=True)
    tok.save_pretrained(path)
    n = len(vocab)
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
           "hidden_size": 8, "intermediate_size": 16,
           "num_hidden_layers": 1, "num_attention_heads": 2,
           "num_key_value_heads": 2, "vocab_size": n,
           "max_position_embeddings": 64, "torch_dtype": "float32"}
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(cfg, f)
    if gen_eos is not None:
        with open(os.path.join(path, "generation_config.json"), "w") as f:
            json.dump({"eos_token_id": gen_eos}, f)
    save_file({"model.embed_tokens.weight":
               np.zeros((n, 8), dtype=np.float32)},
              os.path.join(path, "model.safetensors"))
    return tok, vocab


def quant(path, vocab, template, ids, base_model=None, rename=None,
          pad_to=0):
    """A GGUF the way convert_hf_to_gguf.py stores the tokenizer fields
    (gguf-py's GGUFWriter)."""
    w = gguf.GGUFWriter(path, "llama")
    w.add_block_count(1)
    tokens = sorted(vocab, key=vocab.get)
    tokens += [f"[filler{i}]" for i in range(len(tokens), pad_to)]
    if rename:
        tokens[rename[0]] = rename[1]
    w.add_tokenizer_model("gpt2")
    w.add_token_list(tokens)
    for k, v in ids.items():
        getattr(w, {"bos": "add_bos_token_id", "eos": "add_eos_token_id",
                    "pad": "add_pad_token_id"}[k])(v)
    if template is not None:
        w.add_chat_template(template)
    if base_model:
        w.add_base_model_count(1)
        w.add_base_model_name(0, base_model)
    w.add_tensor("token_embd.weight",
                 np.zeros((len(tokens), 8), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def prompt_of(a, b):
    code, out, err = run(QA, ["diff", "--format", "json", a, b])
    try:
        return json.loads(out)["prompt"], code
    except (json.JSONDecodeError, KeyError):
        print(err + out[:400])
        return None, code


def codes(p):
    return sorted(f["code"] for f in p["findings"]) if p else None


def token(p, name):
    for t in p["tokens"]:
        if t["name"] == name:
            return t
    return None


def family_cases(c, tmp, schema):
    for fam, (template, specials, roles) in FAMILIES.items():
        src = os.path.join(tmp, fam)
        tok, vocab = source_folder(src, fam)
        ids = {r: vocab[t] for r, t in roles.items()}
        # transformers itself reads back the template it saved
        c.check(tok.chat_template == template and
                open(os.path.join(src, "chat_template.jinja")).read() ==
                template, f"{fam}: transformers saved the template")
        same = os.path.join(tmp, fam + "-same.gguf")
        quant(same, vocab, template, ids)
        p, _ = prompt_of(same, src)
        if not c.check(p is not None, f"{fam}: prompt section"):
            continue
        validate(c, schema, p, fam)
        c.check(p["quant"] == "a" and p["template"]["same"] and
                p["template"]["quant"] == "tokenizer.chat_template" and
                p["template"]["source"] == "chat_template.jinja" and
                p["template"]["quant_bytes"] == len(template.encode()),
                f"{fam}: same template: {p['template']}")
        c.check(codes(p) == [], f"{fam}: no finding when faithful: "
                f"{p['findings']}")
        for r, i in ids.items():
            t = token(p, f"{r}_token_id")
            c.check(t and t["quant"] == str(i) and t["source"] == str(i)
                    and t["same"], f"{fam}: {r} id {i}: {t}")
        c.check(p["special_tokens"]["compared"] == len(specials),
                f"{fam}: {len(specials)} special tokens compared: "
                f"{p['special_tokens']}")
        # reversed order: the GGUF as B
        p, _ = prompt_of(src, same)
        c.check(p and p["quant"] == "b" and codes(p) == [],
                f"{fam}: folder first")

        # drift: the generation prompt changed on one line
        lines = template.splitlines(keepends=False)
        k = max(i for i, ln in enumerate(lines) if "\\n'" in ln)
        drifted_lines = list(lines)
        drifted_lines[k] = drifted_lines[k].replace("\\n", "\\n\\n", 1)
        drifted = "\n".join(drifted_lines) + "\n"
        g = os.path.join(tmp, fam + "-drift.gguf")
        quant(g, vocab, drifted, ids)
        p, code = prompt_of(g, src)
        exp = [ln for ln in difflib.ndiff(drifted.splitlines(),
                                          template.splitlines())
               if ln[:1] in "-+"]
        got = [f["op"] + " " + f["text"] for f in p["template"]["diff"]
               if f["op"] in "-+"] if p else None
        c.check(p and codes(p) == ["QA6320"] and not p["template"]["same"]
                and got == exp, f"{fam}: drift diff {got} != {exp}")
        f = p["findings"][0] if p and p["findings"] else {}
        c.check(f.get("id") == "prompt-template-drift" and
                f.get("severity") == "warning" and
                "1 line(s) only in the GGUF, 1 only in the source" in
                f.get("message", ""), f"{fam}: drift finding {f}")
        c.check(code == 1, f"{fam}: exit 1 (the models differ)")
        rd, _ = prompt_of(g, src)
        validate(c, schema, rd, fam + " drift")

        # wrong EOS id: the id of a plain word
        wrong = dict(ids, eos=vocab["hello"])
        g = os.path.join(tmp, fam + "-eos.gguf")
        quant(g, vocab, template, wrong)
        p, _ = prompt_of(g, src)
        t = token(p, "eos_token_id") if p else None
        c.check(p and codes(p) == ["QA6322"] and t["quant"] ==
                str(vocab["hello"]) and t["source"] == str(ids["eos"]) and
                not t["same"], f"{fam}: wrong eos {p and p['findings']}")
        c.check(p and "'hello'" in p["findings"][0]["message"] and
                f"'{roles['eos']}'" in p["findings"][0]["message"],
                f"{fam}: the eos finding names both tokens")

        # no template in the quant
        g = os.path.join(tmp, fam + "-none.gguf")
        quant(g, vocab, None, ids)
        p, _ = prompt_of(g, src)
        c.check(p and codes(p) == ["QA6320"] and
                p["template"]["quant"] is None, f"{fam}: no template")

        # a special token spelled otherwise in the vocabulary
        sid = vocab[specials[-1]]
        g = os.path.join(tmp, fam + "-special.gguf")
        quant(g, vocab, template, ids, rename=(sid, "<|other|>"))
        p, _ = prompt_of(g, src)
        t = token(p, f"special token {sid}") if p else None
        c.check(p and codes(p) == ["QA6324"] and t and
                t["quant"] == "<|other|>" and t["source"] == specials[-1],
                f"{fam}: special token renamed: {p and p['findings']}")


def long_vocab(c, tmp):
    """A vocabulary longer than the loader keeps (4096 entries): the
    entries compared are read from the file."""
    src = os.path.join(tmp, "longvocab")
    _, vocab = source_folder(src, "chatml")
    ids = {"eos": vocab["<|im_end|>"], "pad": vocab["<|endoftext|>"]}
    g = os.path.join(tmp, "long-same.gguf")
    quant(g, vocab, CHATML, ids, pad_to=5000)
    p, _ = prompt_of(g, src)
    c.check(p and codes(p) == [] and p["special_tokens"] ==
            {"compared": 3, "unchecked": 0},
            f"5000-token vocabulary, faithful: {p and p['special_tokens']}")
    g = os.path.join(tmp, "long-bad.gguf")
    quant(g, vocab, CHATML, dict(ids, eos=4999), pad_to=5000,
          rename=(vocab["<|im_start|>"], "<|im_begin|>"))
    p, _ = prompt_of(g, src)
    msgs = " ".join(f["message"] for f in p["findings"]) if p else ""
    c.check(p and codes(p) == ["QA6322", "QA6324"] and
            "'[filler4999]'" in msgs and "'<|im_begin|>'" in msgs,
            f"5000-token vocabulary, eos 4999 and a renamed special: {msgs}")


def generation_list(c, tmp):
    """Llama 3 Instruct: generation_config.json lists several EOS ids;
    a GGUF EOS among them agrees, one outside does not."""
    src = os.path.join(tmp, "l3list")
    _, vocab = source_folder(src, "llama3")
    # tokenizer_config.json names eos_token, so drop it to make the
    # generation_config.json list the source of truth
    cfgp = os.path.join(src, "tokenizer_config.json")
    cfg = json.load(open(cfgp))
    cfg.pop("eos_token", None)
    json.dump(cfg, open(cfgp, "w"))
    ends = [vocab["<|end_of_text|>"], vocab["<|eot_id|>"]]
    with open(os.path.join(src, "generation_config.json"), "w") as f:
        json.dump({"eos_token_id": ends}, f)
    for eos, ok in ((ends[1], True), (ends[0], True),
                    (vocab["hello"], False)):
        g = os.path.join(tmp, f"l3list-{eos}.gguf")
        quant(g, vocab, LLAMA3, {"bos": 0, "eos": eos})
        p, _ = prompt_of(g, src)
        t = token(p, "eos_token_id") if p else None
        c.check(t and t["source"] == ",".join(map(str, ends)) and
                t["same"] == ok and (codes(p) == [] if ok else
                                     codes(p) == ["QA6322"]),
                f"generation_config eos list, GGUF eos {eos}: {t}")


def base_model(c, tmp):
    src = os.path.join(tmp, "Qwen3-0.6B")
    _, vocab = source_folder(src, "chatml")
    ids = {"eos": vocab["<|im_end|>"], "pad": vocab["<|endoftext|>"]}
    for name, ok in (("Qwen3 0.6B", False), ("Qwen3-0.6B", True),
                     ("Llama-3.2-1B", False)):
        g = os.path.join(tmp, "bm.gguf")
        quant(g, vocab, CHATML, ids, base_model=name)
        p, _ = prompt_of(g, src)
        t = token(p, "base_model") if p else None
        c.check(t and t["quant"] == name and t["source"] == "Qwen3-0.6B"
                and t["same"] == ok and
                codes(p) == ([] if ok else ["QA6325"]),
                f"base_model {name!r}: {t} {p and p['findings']}")


def corpus_pairs(c, root):
    """convert_hf_to_gguf.py output against the folder it read: ids from
    generation_config.json equal the GGUF's (gguf-py reads them)."""
    for hf, gg in (("llama", "llama-bf16.gguf"), ("llama", "llama-q8_0.gguf"),
                   ("gemma3_text", "gemma3_text-q8_0.gguf")):
        src = os.path.join(root, "hf", hf)
        g = os.path.join(root, "gguf", gg)
        if not (os.path.isdir(src) and os.path.isfile(g)):
            continue
        r = gguf.GGUFReader(g)
        gen = json.load(open(os.path.join(src, "generation_config.json")))
        p, _ = prompt_of(g, src)
        if not c.check(p is not None, f"corpus {gg}: prompt"):
            continue
        for k, gk in (("bos", "bos_token_id"), ("eos", "eos_token_id"),
                      ("pad", "padding_token_id")):
            f = r.fields.get(f"tokenizer.ggml.{gk}")
            t = token(p, f"{k}_token_id")
            if f is None or f"{k}_token_id" not in gen:
                continue
            c.check(t and t["quant"] == str(f.contents()) and
                    t["source"] == str(gen[f"{k}_token_id"]),
                    f"corpus {gg}: {k} {t}")
        c.check(codes(p) == [] and p["template"]["quant"] is None and
                p["template"]["source"] is None,
                f"corpus {gg}: no template either side, no finding")


def validate(c, schema, p, what):
    if schema is None or p is None:
        return
    import jsonschema
    sub = dict(schema["$defs"]["diffPrompt"])
    sub["$defs"] = schema["$defs"]
    try:
        jsonschema.validate(p, sub)
        c.check(True, "")
    except jsonschema.ValidationError as e:
        c.check(False, f"{what}: schema: {e.message}")


def main():
    global QA
    QA = sys.argv[1]
    c = Checker()
    schema = None
    try:
        import jsonschema  # noqa: F401
        schema = json.load(open(os.path.join(env_path("QA_SOURCE_ROOT"),
                                             "docs",
                                             "quantaudit-1.schema.json")))
    except ImportError:
        print("jsonschema absent: the prompt section is not validated")
        c.skipped += 1
    with tempfile.TemporaryDirectory() as tmp:
        family_cases(c, tmp, schema)
        generation_list(c, tmp)
        long_vocab(c, tmp)
        base_model(c, tmp)
    root = os.environ.get("QA_CORPUS", "")
    if os.path.isdir(os.path.join(root, "gguf")):
        corpus_pairs(c, root)
    else:
        print(f"SKIP corpus: {root} absent")
        c.skipped += 1
    c.finish()
    sys.exit(1 if c.failed else 0)


if __name__ == "__main__":
    main()
