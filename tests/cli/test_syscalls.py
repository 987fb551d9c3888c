# SPDX-License-Identifier: MIT
"""System calls per shard of a sharded safetensors folder (issue 31):
the folder is listed once per run and each shard costs at most two
stat-family calls and one open.

    test_syscalls.py QUANTAUDIT

The folder is written by the `safetensors` package (the producer
transformers' save_pretrained calls), 24 shards with an index, as
save_pretrained names them. Before the listing was handed down, the
folder was listed four times (resolution, qa_hf_load_dir, st_set's
load_set, the side files) and every listing stat-ed every entry, then
the confined open lstat-ed the shard: 4 stat + lstat + fstat + open.

Checked under strace (`-f -e trace=%file,%desc`), for inspect, check,
tensors and fit:
- the model folder is opened as a directory once;
- each shard's name appears in exactly two calls: the listing's fstatat
  and the open (with O_NOFOLLOW, since the listing showed no link), and
  the open is followed by one fstat of the opened descriptor;
- the report is the same as with the listing not remembered, checked
  against the shards' own headers (every tensor, in order, once).
A shard that is a symbolic link inside the folder is still opened
through the confined check (no O_NOFOLLOW on it, and it is read), and a
link out of the folder is still refused (QA1411). Skipped without strace
or the safetensors package.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, SKIP, run_json  # noqa: E402

N_SHARDS = 24


def write_folder(root):
    import numpy as np
    from safetensors.numpy import save_file

    os.makedirs(root)
    weight_map = {}
    names = []
    for s in range(N_SHARDS):
        shard = f"model-{s + 1:05d}-of-{N_SHARDS:05d}.safetensors"
        tensors = {
            f"model.layers.{s}.mlp.down_proj.weight":
                np.zeros((16, 32), np.float16),
            f"model.layers.{s}.mlp.up_proj.weight":
                np.zeros((32, 16), np.float16),
        }
        save_file(tensors, os.path.join(root, shard),
                  metadata={"format": "pt"})
        for k in tensors:
            weight_map[k] = shard
        names.append(shard)
    with open(os.path.join(root, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": N_SHARDS * 2048},
                   "weight_map": weight_map}, f)
    with open(os.path.join(root, "config.json"), "w") as f:
        json.dump({"architectures": ["LlamaForCausalLM"],
                   "model_type": "llama", "hidden_size": 16,
                   "intermediate_size": 32, "num_hidden_layers": N_SHARDS,
                   "num_attention_heads": 2, "num_key_value_heads": 2,
                   "vocab_size": 64, "torch_dtype": "float16"}, f)
    return names, weight_map


def trace(strace, binary, args, cwd):
    out = os.path.join(cwd, "trace.txt")
    subprocess.run([strace, "-f", "-o", out, "-e", "trace=%file,%desc",
                    binary] + args, cwd=cwd, capture_output=True,
                   timeout=120)
    with open(out, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    os.unlink(out)
    return lines


def main():
    binary = os.path.abspath(sys.argv[1])
    strace = shutil.which("strace")
    if not strace:
        print("strace not installed: skipped")
        sys.exit(SKIP)
    try:
        import numpy  # noqa: F401
        import safetensors  # noqa: F401
    except ImportError:
        print("safetensors not installed: skipped")
        sys.exit(SKIP)
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        names, weight_map = write_folder(os.path.join(tmp, "m"))
        for cmd in (["inspect"], ["check"], ["tensors"],
                    ["fit", "--gpus", "16G"]):
            lines = trace(strace, binary, cmd + ["m"], tmp)
            dirs = [ln for ln in lines if '"m"' in ln and
                    "O_DIRECTORY" in ln]
            c.check(len(dirs) == 1,
                    f"{cmd[0]}: the folder listed {len(dirs)} times")
            worst = 0
            for name in names:
                calls = [i for i, ln in enumerate(lines)
                         if f'"{name}"' in ln or f'"m/{name}"' in ln]
                worst = max(worst, len(calls))
                opens = [i for i in calls if "openat(" in lines[i]
                         and re.search(r"= \d+$", lines[i])]
                stats = [i for i in calls if "stat" in lines[i]]
                ok = (len(calls) == 2 and len(opens) == 1 and
                      len(stats) == 1 and "O_NOFOLLOW" in lines[opens[0]])
                if ok:
                    # the open's own fstat, on the descriptor it got
                    fd = lines[opens[0]].rsplit("= ", 1)[1]
                    nxt = [ln for ln in lines[opens[0] + 1:]
                           if re.search(rf"\({fd}, ", ln)][:1]
                    ok = bool(nxt) and "fstat" in nxt[0] and \
                        'AT_EMPTY_PATH' in nxt[0]
                if not c.check(ok, f"{cmd[0]}: {name}: calls "
                               f"{[lines[i] for i in calls]}"):
                    break
            c.check(worst == 2, f"{cmd[0]}: at most 2 calls name a shard "
                    f"(got {worst})")

        # the report: every tensor of the shards, once, in shard order
        code, doc, err = run_json(binary, ["tensors", os.path.join(tmp, "m")])
        got = [t["name"] for t in doc["inputs"][0]["tensors"]] \
            if code in (0, 1) and doc.get("inputs") else []
        c.check(sorted(got) == sorted(weight_map) and
                len(got) == len(set(got)),
                f"tensors of the folder: {len(got)} of {len(weight_map)}")

        # a shard that is a link inside the folder: read, through the
        # check (no O_NOFOLLOW on its open)
        m = os.path.join(tmp, "m")
        os.makedirs(os.path.join(m, "store"))
        os.rename(os.path.join(m, names[3]),
                  os.path.join(m, "store", names[3]))
        os.symlink(os.path.join("store", names[3]), os.path.join(m, names[3]))
        lines = trace(strace, binary, ["tensors", "m"], tmp)
        opens = [ln for ln in lines if f'"m/{names[3]}"' in ln and
                 "openat(" in ln]
        c.check(len(opens) == 1 and "O_NOFOLLOW" not in opens[0],
                f"a link inside the folder opened as {opens}")
        code, doc, err = run_json(binary, ["tensors", m])
        got = [t["name"] for t in doc["inputs"][0]["tensors"]] \
            if doc.get("inputs") else []
        c.check(len(got) == len(weight_map),
                f"with a linked shard: {len(got)} tensors")

        # a link out of the folder: refused, never opened
        outside = os.path.join(tmp, "outside.safetensors")
        os.rename(os.path.join(m, names[5]), outside)
        os.symlink(outside, os.path.join(m, names[5]))
        lines = trace(strace, binary, ["check", "m"], tmp)
        c.check(not any(f'"m/{names[5]}"' in ln and "openat(" in ln
                        for ln in lines) and
                not any("outside.safetensors" in ln and "openat(" in ln
                        for ln in lines),
                "a link out of the folder was opened")
        code, doc, err = run_json(binary, ["check", m])
        codes = [f["code"] for f in doc["inputs"][0].get("findings", [])]
        c.check("QA1411" in codes, f"a link out: findings {codes}")
    c.finish()


if __name__ == "__main__":
    main()
