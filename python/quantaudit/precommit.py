#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The pre-commit hook (.pre-commit-hooks.yaml): `quantaudit check` on the
models that the files being committed belong to.

pre-commit passes the staged files that match the hook's pattern: model
files (.gguf, .safetensors, .safetensors.index.json, .bin/.pt/.pth
checkpoints), configs (config.json, tokenizer_config.json,
generation_config.json, quantization configs) and chat templates (*.jinja,
chat_template.json). A weight file is checked as itself unless its folder
is a model folder (a config.json beside it); a config or template is
checked as its folder, the model it describes. Each model is checked once.

Uses the quantaudit binary ($QUANTAUDIT, else on PATH) when there is one,
else the Python package's library. Arguments before the files are passed
to check (--fail-on warning, --rules policy.json, --gpus 24G...). Exit 1
when a model fails, 2 on a usage error, 3 or 4 when one cannot be read.
"""
import json
import os
import shutil
import subprocess
import sys

WEIGHTS = (".gguf", ".safetensors", ".bin", ".pt", ".pth", ".ckpt")
SIDE = ("config.json", "tokenizer_config.json", "generation_config.json",
        "chat_template.json", "processor_config.json",
        "quantization_config.json", "quant_config.json",
        "special_tokens_map.json", "tokenizer.json")


def targets(files):
    out = []
    for f in files:
        d = os.path.dirname(f) or "."
        base = os.path.basename(f)
        is_model_dir = os.path.isfile(os.path.join(d, "config.json"))
        if base.endswith(".safetensors.index.json"):
            t = d
        elif base.endswith(WEIGHTS):
            t = d if is_model_dir and not base.endswith(".gguf") else f
        elif base.endswith(".jinja") or base in SIDE:
            # additional_chat_templates/NAME.jinja belongs to the folder
            # above
            if os.path.basename(d) == "additional_chat_templates":
                d = os.path.dirname(d) or "."
            t = d
        else:
            continue
        if t not in out:
            out.append(t)
    return out


def split_args(argv):
    """Options for check, then the files (pre-commit appends them)."""
    opts, files, i = [], [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            files += argv[i + 1:]
            break
        if a.startswith("-"):
            opts.append(a)
            takes = a in ("--rules", "-r", "--gpus", "--engine", "--fail-on",
                          "--severity", "--disable", "--ctx", "--kv")
            if takes and "=" not in a and i + 1 < len(argv):
                opts.append(argv[i + 1])
                i += 1
        else:
            files.append(a)
        i += 1
    return opts, files


def main(argv=None):
    opts, files = split_args(sys.argv[1:] if argv is None else argv)
    todo = targets(files)
    if not todo:
        return 0
    binary = os.environ.get("QUANTAUDIT") or shutil.which("quantaudit")
    if binary:
        # the text report, findings and verdict, straight to the terminal
        return subprocess.run([binary, "check"] + opts + ["--"] +
                              todo).returncode
    try:
        import quantaudit
    except ImportError as e:
        print(f"quantaudit: neither the binary nor the Python package is "
              f"installed ({e})", file=sys.stderr)
        return 4
    worst = 0
    for t in todo:
        try:
            code, r = quantaudit.run("check", t, opts)
        except quantaudit.QuantauditError as e:
            print(f"{t}: {e}", file=sys.stderr)
            worst = max(worst, e.exit_code or 4)
            continue
        for inp in r.get("inputs", []):
            for f in inp.get("findings", []):
                where = f.get("file") or inp.get("path")
                print(f"{where}: {f['severity']}: [{f['code']}] "
                      f"{f['message']}")
            print(f"{inp.get('path')}: {inp.get('verdict')}")
        worst = max(worst, code)
    return worst


if __name__ == "__main__":
    sys.exit(main())
