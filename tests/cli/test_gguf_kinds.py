# SPDX-License-Identifier: MIT
"""model.format, model.kind and model.engines on GGUF files gguf-py
writes (tests/cli/gguf_fixtures.py). Expected engine lists are read from
the engines' own type tables, not from quantaudit: llama.cpp loads every
upstream ggml type (ggml/src/ggml.c type_traits); vLLM's and SGLang's GGUF
loaders the types of UNQUANTIZED_TYPES | STANDARD_QUANT_TYPES |
KQUANT_TYPES | IMATRIX_QUANT_TYPES (vllm/model_executor/layers/
quantization/gguf.py), which have no TQ1_0/TQ2_0; ik_llama.cpp's enum
ggml_type (ggml/include/ggml.h) has no 34/35 (TQ1_0/TQ2_0)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run_json  # noqa: E402
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


TESTS = [test_foundation]

if __name__ == "__main__":
    main()
