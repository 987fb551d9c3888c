# SPDX-License-Identifier: MIT
"""The GGUF key table (src/core/gguf_keys.h) is the one spelling of every
GGUF metadata key quantaudit reads (issue 30: "GGUF key names from one
table", after gguf-py's constants.py Keys).

1. Every key in the table is the one gguf-py spells: a value of a
   gguf.constants.Keys class (an "<arch>." key with {arch} for the
   architecture, an indexed one with {id}), or of GGUFType; the few
   gguf-py has no constant for are listed below with their source.
   Skipped (the rest still runs) when gguf-py is not installed.
2. No C file under src/, formats/ or rules/ spells a GGUF key as a string
   literal of its own: a literal that is a whole key ("general.name",
   "tokenizer.ggml.tokens", "split.count"...) is the table's.

Usage: test_gguf_keys.py SOURCE_ROOT."""
import glob
import inspect
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
    "QA_SOURCE_ROOT", ".")
TABLE = os.path.join(ROOT, "src", "core", "gguf_keys.h")

# Keys gguf-py 0.19 has no constant for, with where they are written.
NOT_IN_GGUF_PY = {
    # llama.cpp tools/quantize/quantize.cpp LLM_KV_QUANTIZE_IMATRIX_*
    "quantize.imatrix.file", "quantize.imatrix.dataset",
    "quantize.imatrix.entries_count", "quantize.imatrix.chunks_count",
    # per-layer recurrent flags of Qwen3-Next (formats/gguf_hparams.c)
    "attention.recurrent_layers",
    # architectures that are not language models: clip.cpp's "clip",
    # cvector-generator's "controlvector"
    "clip", "controlvector",
}

KEY_LITERAL = re.compile(
    r'"((?:general|split|adapter|clip|imatrix|quantize)\.[a-z0-9_.%]+|'
    r'tokenizer\.(?:ggml|chat_template)(?:\.[a-z0-9_.%]*)?)"')

failures = []


def table():
    out = {}
    with open(TABLE, encoding="utf-8") as f:
        for m in re.finditer(r'^#define (QA_GGUF_\w+) "([^"]*)"', f.read(),
                             re.M):
            out[m.group(1)] = m.group(2)
    return out


def check_against_gguf_py(t):
    try:
        from gguf.constants import GGUFType, Keys
    except ImportError:
        print("gguf-py not installed: key spellings not compared")
        return
    values = set()
    for _, cls in inspect.getmembers(Keys, inspect.isclass):
        values.update(v for v in vars(cls).values() if isinstance(v, str))
    values.update(v for k, v in vars(GGUFType).items()
                  if isinstance(v, str) and not k.startswith("_"))
    for name, v in sorted(t.items()):
        if name.endswith("_PREFIX"):
            if not any(k.startswith(v) for k in values):
                failures.append("%s %r starts no gguf-py key" % (name, v))
            continue
        cands = {v, "{arch}." + v, v.replace("%u", "{id}")}
        if re.search(r"\.0\.", v):
            cands.add(v.replace(".0.", ".{id}."))
        if cands & values or v in NOT_IN_GGUF_PY:
            continue
        failures.append("%s %r is not a gguf-py Keys spelling" % (name, v))


def check_no_literals():
    files = []
    for d in ("src", "formats", "rules"):
        files += glob.glob(os.path.join(ROOT, d, "**", "*.c"),
                           recursive=True)
        files += glob.glob(os.path.join(ROOT, d, "**", "*.h"),
                           recursive=True)
    for p in sorted(files):
        if os.path.samefile(p, TABLE):
            continue
        with open(p, encoding="utf-8", errors="replace") as f:
            for no, line in enumerate(f, 1):
                s = line.strip()
                if s.startswith(("*", "/*", "//")):
                    continue
                for m in KEY_LITERAL.finditer(line):
                    failures.append("%s:%d spells %s: take it from "
                                    "core/gguf_keys.h" % (
                                        os.path.relpath(p, ROOT), no,
                                        m.group(0)))


t = table()
if len(t) < 50:
    failures.append("the table holds %d keys, expected more than 50"
                    % len(t))
if len(set(t.values())) != len(t):
    failures.append("a key is spelled twice in the table")
check_against_gguf_py(t)
check_no_literals()
for f in failures:
    print("FAIL:", f)
print("gguf-keys: %d keys, %d failures" % (len(t), len(failures)))
sys.exit(1 if failures else 0)
