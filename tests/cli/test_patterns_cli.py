# SPDX-License-Identifier: MIT
"""Quantization-config patterns through the quantaudit binary (issue 11,
docs/security.md "Regular expressions").

1. ReDoS: the issue's config.json (under 300 bytes) whose compressed-
   tensors ignore list holds re:((a{0,1000}){0,1000}) -- glibc regcomp
   never returns on it -- and one holding re:(.*){0,300} (within the size
   bound, five seconds of regcomp) give QA6101 and exit 1. The process is
   given 60 s and must answer long before; the assertion is the finding,
   and that no work was spent on the pattern.
2. Scale: a 0.6 MB compressed-tensors config (the size the issue timed at
   160 s: 11,000 ignore entries, exact per-expert names, per-layer regexes,
   entries for layers the checkpoint lacks) over a 48-layer, 128-expert
   checkpoint (18,000 modules: a safetensors header, the data a hole).
   Asserted by work count, not time: the pattern-name pairs evaluated (JSON
   quantization.pattern_matching) stay below four per module and pattern
   (the naive matcher evaluates every pair: two hundred million), the
   matching work stays within a fifth of its bound and nothing is capped
   (no QA6102). Every module's claim equals what compressed-tensors
   decides (utils/match.py: an ignore entry is an exact module name, a
   class name, or "re:" and Python's re.match), computed here with re.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

QA = sys.argv[1]
FAILED = []


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL:", what)


def run_json(path):
    r = subprocess.run([QA, "check", "--format", "json", path],
                       capture_output=True, timeout=60)
    return r.returncode, json.loads(r.stdout.decode("utf-8"))


def findings(report):
    return [f for i in report["inputs"] for f in i.get("findings", [])]


def quantization(report):
    return report["inputs"][0]["model"]["quantization"]


def test_redos(root):
    for name, pattern, why in (
            ("nested", "re:((a{0,1000}){0,1000})", "1000000 positions"),
            ("nullable", "re:(.*){0,300}", "match nothing")):
        d = os.path.join(root, "redos-" + name)
        os.makedirs(d)
        config = ('{"architectures": ["Qwen3ForCausalLM"], "model_type": '
                  '"qwen3", "num_hidden_layers": 1, "quantization_config": '
                  '{"quant_method": "compressed-tensors", "config_groups": '
                  '{"g": {"targets": ["Linear"], "weights": {"num_bits": '
                  '4}}}, "ignore": ["lm_head", "%s"]}}' % pattern)
        check(len(config) < 300, "%s: the config is %d bytes" %
              (name, len(config)))
        with open(os.path.join(d, "config.json"), "w") as f:
            f.write(config)
        rc, rep = run_json(d)
        hits = [f for f in findings(rep) if f["code"] == "QA6101"]
        check(rc == 1, "%s: exit %d, expected 1" % (name, rc))
        check(len(hits) == 1 and why in hits[0]["message"],
              "%s: QA6101 saying '%s': %r" % (name, why, hits))
        pm = quantization(rep).get("pattern_matching", {})
        check(pm.get("work", -1) == 0 and pm.get("capped") is False,
              "%s: no work spent on it: %r" % (name, pm))


LAYERS, EXPERTS = 48, 128
PROJ = ("q_proj", "k_proj", "v_proj", "o_proj")
MLP = ("gate_proj", "up_proj", "down_proj")


def module_names():
    names = ["model.embed_tokens", "lm_head"]
    for l in range(LAYERS):
        names += ["model.layers.%d.self_attn.%s" % (l, p) for p in PROJ]
        names.append("model.layers.%d.mlp.gate" % l)
        for e in range(EXPERTS):
            names += ["model.layers.%d.mlp.experts.%d.%s" % (l, e, p)
                      for p in MLP]
    return names


def write_safetensors(path, modules):
    """A header naming every module's weight (BF16 [16, 16]); the data is
    a hole."""
    header, offset = {}, 0
    for m in modules:
        header[m + ".weight"] = {"dtype": "BF16", "shape": [16, 16],
                                 "data_offsets": [offset, offset + 512]}
        offset += 512
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.truncate(8 + len(text) + offset)


def test_scale(root):
    d = os.path.join(root, "scale")
    os.makedirs(d)
    modules = module_names()
    write_safetensors(os.path.join(d, "model.safetensors"), modules)
    ignore = []
    for l in range(LAYERS):
        ignore += ["model.layers.%d.mlp.experts.%d.down_proj" % (l, e)
                   for e in range(0, EXPERTS, 2)]
        ignore.append(r"re:model\.layers\.%d\.mlp\.experts\.\d+\.gate_proj$"
                      % l)
        ignore.append(r"re:.*layers\.%d\.mlp\.gate$" % l)
    for l in range(LAYERS, 128):
        ignore += [r"re:model\.layers\.%d\.mlp\.experts\.%d\.(gate|up)_proj"
                   % (l, e) for e in range(100)]
    ignore.append("lm_head")
    config = {
        "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
        "hidden_size": 16, "intermediate_size": 16,
        "moe_intermediate_size": 16, "num_hidden_layers": LAYERS,
        "num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 16,
        "num_experts": EXPERTS, "num_experts_per_tok": 8,
        "vocab_size": 16, "tie_word_embeddings": False,
        "quantization_config": {
            "quant_method": "compressed-tensors", "format": "pack-quantized",
            "config_groups": {"group_0": {
                "targets": ["Linear"],
                "weights": {"num_bits": 4, "type": "int", "symmetric": True,
                            "strategy": "group", "group_size": 128}}},
            "ignore": ignore}}
    text = json.dumps(config, indent=2, sort_keys=True) + "\n"
    check(len(text) > 600000, "config.json is %d bytes" % len(text))
    with open(os.path.join(d, "config.json"), "w") as f:
        f.write(text)

    rc, rep = run_json(d)
    codes = {f["code"] for f in findings(rep)}
    check("QA6102" not in codes and "QA6101" not in codes,
          "no pattern finding: %r" % sorted(codes))
    pm = quantization(rep).get("pattern_matching")
    check(pm is not None, "quantization.pattern_matching reported")
    if pm is None:
        return
    n_patterns = len(ignore) + 2          # the group and its "Linear" target
    check(pm["patterns"] == n_patterns,
          "%d patterns, expected %d" % (pm["patterns"], n_patterns))
    check(not pm["capped"], "matching not capped")
    naive = n_patterns * len(modules)
    bound = 4 * (len(modules) + n_patterns)
    print("scale: %d patterns, %d modules, config %d bytes: %d evaluations "
          "(naive %d), %d work units" % (n_patterns, len(modules), len(text),
                                          pm["evaluations"], naive,
                                          pm["work"]))
    check(pm["evaluations"] < bound, "%d evaluations, at most %d" %
          (pm["evaluations"], bound))
    check(pm["work"] < 200000000 // 5, "%d work units" % pm["work"])

    # the claims, as compressed-tensors decides them
    exact = {p for p in ignore if not p.startswith("re:")}
    # any of the re.match patterns, as one alternation (re.match of
    # (?:a)|(?:b) matches where re.match of a or of b does)
    anyre = re.compile("|".join("(?:%s)" % p[3:] for p in ignore
                                if p.startswith("re:")))

    def ignored(name):
        return name in exact or anyre.match(name) is not None

    claimed = {m["name"]: m.get("claimed")
               for m in rep["inputs"][0].get("modules", [])}
    compared = wrong = 0
    for name in modules:
        if name == "model.embed_tokens" or name not in claimed:
            continue          # an Embedding: not a target
        compared += 1
        want = not ignored(name)
        if claimed[name] is not want:
            wrong += 1
            if wrong <= 5:
                print("claim of %s: %r, expected %r" % (name, claimed[name],
                                                        want))
    check(compared == len(modules) - 1, "%d of %d modules reported" %
          (compared, len(modules) - 1))
    check(wrong == 0, "%d claims differ from compressed-tensors" % wrong)


def main():
    with tempfile.TemporaryDirectory(prefix="qa-patterns-") as root:
        test_redos(root)
        test_scale(root)
    if FAILED:
        print("patterns-cli: %d checks failed" % len(FAILED))
        return 1
    print("patterns-cli: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
