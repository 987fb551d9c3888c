#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The gguf-py peer: llama.cpp's own Python reader (PyPI `gguf`,
gguf-py/gguf/gguf_reader.py), one GGUFReader per path, in one process.
For each FILE: key count, tensor count, parameters and bytes, read from
the reader's fields and tensors (GGUFReader maps the file with numpy and
parses every key and tensor info when it is constructed). One line per
argument.

    bench/py_gguf.py FILE...
"""
import sys

try:
    from gguf import GGUFReader
except ImportError:
    sys.exit("py_gguf.py: the Python package gguf is not installed (pip install gguf)")

for path in sys.argv[1:]:
    r = GGUFReader(path, "r")
    params = nbytes = 0
    for t in r.tensors:
        params += int(t.n_elements)
        nbytes += int(t.n_bytes)
    print(f"{path}: {len(r.fields)} keys, {len(r.tensors)} tensors, {params} params, {nbytes} bytes")
