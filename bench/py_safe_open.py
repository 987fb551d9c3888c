#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The `safetensors` package's own header read: safe_open (Rust, through
the Python binding) on every shard, each tensor's dtype and shape through
get_slice (which reads no data). For each FOLDER (or .safetensors FILE),
the shards the index names (every *.safetensors when there is no index).
One line per argument, as bench/py_safetensors.py prints.

    bench/py_safe_open.py PATH...
"""
import glob
import json
import math
import os
import sys

try:
    from safetensors import safe_open
except ImportError:
    sys.exit("py_safe_open.py: the Python package safetensors is not installed (pip install safetensors)")

for path in sys.argv[1:]:
    if os.path.isdir(path):
        index = os.path.join(path, "model.safetensors.index.json")
        if os.path.exists(index):
            with open(index) as f:
                shards = sorted(set(json.load(f)["weight_map"].values()))
            shards = [os.path.join(path, s) for s in shards]
        else:
            shards = sorted(glob.glob(os.path.join(path, "*.safetensors")))
    else:
        shards = [path]
    tensors = params = 0
    dtypes = set()
    for shard in shards:
        # framework "numpy": no torch import; get_slice reads the header only
        with safe_open(shard, framework="numpy") as f:
            for k in f.keys():
                s = f.get_slice(k)
                tensors += 1
                params += math.prod(s.get_shape())
                dtypes.add(s.get_dtype())
    print(f"{path}: {len(shards)} files, {tensors} tensors, {params} params, dtypes {sorted(dtypes)}")
