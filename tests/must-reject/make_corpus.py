#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the committed files of the must-reject corpus
(tests/must-reject/, manifest.tsv beside it): small model folders and
GGUF files, each holding one hostile input of issue 11. The bytes are
built by the same writers as the pipeline fuzz seeds
(tests/fuzz/pipeline_seeds.py). Inputs too large to commit come from the
fixture generator (manifest rows "fixture:..."), and FIFOs and symbolic
links are made by the test itself (rows with "+fifo:" or "+symlink:").

Run it from anywhere; it rewrites the files it owns and nothing else.
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(HERE, "..", "fuzz"))
from pipeline_seeds import (GGUF_STRING, LLAMA_CONFIG,  # noqa: E402
                            LLAMA_TENSORS, llama_gguf, safetensors)

MODEL = safetensors(LLAMA_TENSORS, {"format": "pt"})


def folder(name, files):
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    for rel, data in files.items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)


def hf(name, extra, config=LLAMA_CONFIG):
    files = {"config.json": config, "model.safetensors": MODEL}
    files.update(extra)
    folder(name, files)


def gguf_template(name, template):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(llama_gguf(extra_kvs=[("tokenizer.chat_template",
                                       GGUF_STRING, template)]))


def main():
    # Chat-template bypasses.
    hf("dup-chat-template", {"tokenizer_config.json":
       b'{"chat_template": "{{ messages[0][\'content\'] }}",'
       b' "bos_token": "<s>",'
       b' "chat_template": "{{ cycler.__init__.__globals__ }}"}'})
    hf("dup-chat-template-shadowed", {"tokenizer_config.json":
       b'{"chat_template": "{{ cycler.__init__.__globals__ }}",'
       b' "chat_template": "{{ messages[0][\'content\'] }}"}'})
    hf("nul-in-jinja", {"chat_template.jinja":
       b"{{ 'a' }}\x00{{ x.__class__ }}"})
    hf("escaped-nul-in-json", {"tokenizer_config.json":
       b'{"chat_template": "{{ \'a\' }}\\u0000{{ x.__class__ }}"}'})
    hf("chat-template-json", {"chat_template.json":
       b'{"chat_template": "{{ x|attr(\'__cla\' ~ \'ss__\') }}"}'})
    hf("additional-chat-templates", {
       "additional_chat_templates/default.jinja": b"{{ messages }}",
       "additional_chat_templates/tool_use.jinja":
       b"{{ lipsum.__globals__['os'].popen('id').read() }}"})
    gguf_template("template-replace.gguf",
                  "{{ ()['XXclassXX'|replace('X','_')] }}")
    gguf_template("template-percent-format.gguf",
                  "{{ ()['%sclass%s'|format('__','__')] }}")
    gguf_template("template-str-format.gguf",
                  "{{ ()['{}class{}'.format('__','__')] }}")
    gguf_template("template-slice.gguf", "{{ ()['xx__class__yy'[2:11]] }}")
    gguf_template("template-join-tuple.gguf",
                  "{{ ()[('__cla','ss__')|join] }}")
    gguf_template("template-llama-drama.gguf",
                  "{% for x in ().__class__.__base__.__subclasses__() %}"
                  "{% if \"warning\" in x.__name__ %}"
                  "{{ x()._module.__builtins__['__import__']('os')"
                  ".popen(\"touch /tmp/pwned\") }}{% endif %}{% endfor %}")
    # ReDoS in a quantization config's ignore list.
    cfg = json.loads(LLAMA_CONFIG)
    cfg["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": "float-quantized",
        "ignore": ["lm_head", "re:((a{0,1000}){0,1000})"],
        "config_groups": {"group_0": {"targets": ["Linear"],
                                      "weights": {"num_bits": 8,
                                                  "type": "float"}}}}
    hf("redos-ignore", {}, config=json.dumps(cfg).encode())
    # A sharded set whose second shard the test replaces by a FIFO, and a
    # folder whose tokenizer file the test makes a link out of it.
    half = len(LLAMA_TENSORS) // 2
    index = {"metadata": {"total_size": sum(t[3] for t in LLAMA_TENSORS)},
             "weight_map": {t[0]: "model-%05d-of-00002.safetensors" %
                            (1 if i < half else 2)
                            for i, t in enumerate(LLAMA_TENSORS)}}
    folder("sharded-half", {
        "config.json": LLAMA_CONFIG,
        "model.safetensors.index.json": json.dumps(index, indent=1).encode(),
        "model-00001-of-00002.safetensors": safetensors(LLAMA_TENSORS[:half])})
    hf("plain", {})
    # Refused inputs: not a model at all (exit 3).
    with open(os.path.join(HERE, "lfs-pointer.safetensors"), "wb") as f:
        f.write(b"version https://git-lfs.github.com/spec/v1\n"
                b"oid sha256:" + b"0" * 64 + b"\nsize 4965802264\n")
    with open(os.path.join(HERE, "html-page.gguf"), "wb") as f:
        f.write(b"<!DOCTYPE html>\n<html><head><title>Hugging Face"
                b"</title></head><body>Sign in</body></html>\n")
    with open(os.path.join(HERE, "empty.gguf"), "wb"):
        pass


main()
