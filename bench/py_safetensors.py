#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The 25-line peer: read safetensors headers with struct + json only.
For each FOLDER (or .safetensors FILE), every shard the index names (all
*.safetensors when there is no index): the 8-byte length, the JSON header,
then tensor count, parameters and bytes. One line per argument.

    bench/py_safetensors.py PATH...
"""
import glob, json, math, os, struct, sys

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
    tensors = params = nbytes = 0
    for shard in shards:
        with open(shard, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(n))
        header.pop("__metadata__", None)
        for t in header.values():
            tensors += 1
            params += math.prod(t["shape"])
            nbytes += t["data_offsets"][1] - t["data_offsets"][0]
    print(f"{path}: {len(shards)} files, {tensors} tensors, {params} params, {nbytes} bytes")
