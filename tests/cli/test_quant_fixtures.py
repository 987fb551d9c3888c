# SPDX-License-Identifier: MIT
"""Runs `quantaudit --format json --summary` on every quantized checkpoint
fixture (build/fixtures/out/quant/*, fixtures/gen/gen_quant.c) and compares
the report with the fixture's expected.json, which the generator computed
from the published shapes and the nominal bpw formulas of
../shared/knowledge/quant-formats.md §1.4 (not from quantaudit's code):

- the set of components (quantaudit role names, "mtp" for the MTP head);
- per component: logical params and bytes exactly, bits per weight within
  1e-3, the precision label of the module family holding most of the
  parameters (the report's label must start with the expected family, e.g.
  "NVFP4" matches "NVFP4A16", "GPTQ int4 g128" matches itself), and the
  parameters per precision family;
- the model totals (params, bytes).

It also checks that the shards are still sparse after the run: quantaudit
reads headers only, and a fixture whose data section is a hole must keep
taking a few MB of disk for 5-25 GB of apparent size."""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path, run_json  # noqa: E402

BPW_TOLERANCE = 1e-3
# Allocated bytes allowed beyond the header of a shard: filesystem block
# rounding (and one extra block for the end of file), never the data.
SPARSE_SLACK = 64 * 1024


def shard_headers(folder):
    """(path, apparent size, header bytes incl. the 8-byte length)."""
    out = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".safetensors"):
            continue
        path = os.path.join(folder, name)
        with open(path, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
        out.append((path, os.stat(path).st_size, 8 + n))
    return out


def check_sparse(c, folder, when):
    for path, size, header in shard_headers(folder):
        used = os.stat(path).st_blocks * 512
        c.check(used <= header + SPARSE_SLACK,
                f"{path}: {used} bytes allocated {when}, header is "
                f"{header} of {size}: the data section must stay a hole")


def precisions_of(comp):
    """{label: params} from the component's precisions (object keyed by
    label, or a list of objects with a "precision" key)."""
    p = comp.get("precisions")
    if isinstance(p, dict):
        return {k: v.get("params", 0) for k, v in p.items()}
    if isinstance(p, list):
        return {e.get("precision"): e.get("params", 0) for e in p}
    return None


def check_fixture(c, binary, folder):
    name = os.path.basename(folder)
    with open(os.path.join(folder, "expected.json")) as f:
        exp = json.load(f)
    check_sparse(c, folder, "before the run")
    code, doc, err = run_json(binary, ["--summary", folder])
    if not c.check(code in (0, 1) and len(doc.get("inputs", [])) == 1,
                   f"{name}: exit {code}, one input expected "
                   f"({err.strip()[:200]})"):
        return
    model = doc["inputs"][0]["model"]
    comps = {x["role"]: x for x in model.get("components", [])}
    want = exp["components"]
    c.check(sorted(comps) == sorted(want),
            f"{name}: components {sorted(comps)}, expected {sorted(want)}")
    for role, e in want.items():
        got = comps.get(role)
        if got is None:
            continue
        c.check(got["params"] == e["params"],
                f"{name} {role}: params {got['params']}, expected "
                f"{e['params']}")
        c.check(got["bytes"] == e["bytes"],
                f"{name} {role}: bytes {got['bytes']}, expected "
                f"{e['bytes']}")
        bpw = got.get("bits_per_weight")
        c.check(bpw is not None and
                abs(bpw - e["bits_per_weight"]) <= BPW_TOLERANCE,
                f"{name} {role}: bits_per_weight {bpw}, expected "
                f"{e['bits_per_weight']:.6f}")
        prec = precisions_of(got)
        if not c.check(prec is not None,
                       f"{name} {role}: no precisions in the component"):
            continue
        top = max(prec, key=lambda k: prec[k]) if prec else ""
        c.check(top.startswith(e["precision"]),
                f"{name} {role}: precision {top!r} ({prec}), expected "
                f"{e['precision']!r}")
        for fam, params in e["precisions"].items():
            have = sum(v for k, v in prec.items() if k.startswith(fam))
            c.check(have == params,
                    f"{name} {role}: {have} params in {fam!r} precisions "
                    f"({prec}), expected {params}")
    tot = exp["totals"]
    c.check(model.get("params") == tot["params"],
            f"{name}: total params {model.get('params')}, expected "
            f"{tot['params']}")
    c.check(model.get("bytes") == tot["bytes"],
            f"{name}: total bytes {model.get('bytes')}, expected "
            f"{tot['bytes']}")
    check_sparse(c, folder, "after the run")


def main():
    binary = sys.argv[1]
    root = os.path.join(env_path("QA_FIXTURES"), "quant")
    c = Checker()
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if os.path.isfile(os.path.join(root, d,
                                                    "expected.json")))
    c.check(len(folders) == 10, f"10 quant fixtures, found {len(folders)}")
    for folder in folders:
        check_fixture(c, binary, folder)
    c.finish()


main()
