# SPDX-License-Identifier: MIT
"""Tiny ExLlamaV2 (EXL2) and ExLlamaV3 (EXL3) folders, written with the
layout the converters write. Neither converter runs here (both need a
CUDA GPU and their compiled extensions), so the layout is taken from
their source, cited beside each step:

  exllamav2 = turboderp-org/exllamav2 @ da07facd10b5c7f35b03664c41a3090c9f093de5
  exllamav3 = turboderp-org/exllamav3 @ 4f8ad0121f483ba66a5336244a4c3b6d7210385e

Tensor contents are arbitrary (quantaudit reads headers only); dtypes and
shapes are the converters'. The expected values the tests assert are
computed here from the same source formulas (qparams.py total_bits,
pack_trellis's shape), never from quantaudit's output.
"""
import json
import math
import os

TINY = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 64,
    "vocab_size": 512,
    "max_position_embeddings": 2048,
    "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
}


def linears():
    """(name, in, out) of every Linear of the tiny llama, lm_head last."""
    h, i = TINY["hidden_size"], TINY["intermediate_size"]
    kv = TINY["num_key_value_heads"] * TINY["head_dim"]
    out = []
    for layer in range(TINY["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        out += [(p + "self_attn.q_proj", h, h), (p + "self_attn.k_proj", h, kv),
                (p + "self_attn.v_proj", h, kv), (p + "self_attn.o_proj", h, h),
                (p + "mlp.gate_proj", h, i), (p + "mlp.up_proj", h, i),
                (p + "mlp.down_proj", i, h)]
    out.append(("lm_head", h, TINY["vocab_size"]))
    return out


def dense_tensors():
    """Embedding and norms, FP16, as both converters keep them
    (exllamav2/conversion/compile.py l.83-85 get_f_module for the
    embedding, l.93-96 and l.143-145 for norms)."""
    import torch
    h = TINY["hidden_size"]
    t = {"model.embed_tokens.weight":
         torch.zeros(TINY["vocab_size"], h, dtype=torch.float16),
         "model.norm.weight": torch.ones(h, dtype=torch.float16)}
    for layer in range(TINY["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        t[p + "input_layernorm.weight"] = torch.ones(h, dtype=torch.float16)
        t[p + "post_attention_layernorm.weight"] = torch.ones(
            h, dtype=torch.float16)
    return t


# ---- EXL2 ---------------------------------------------------------------

class QParams:
    """exllamav2/conversion/qparams.py QParams l.3-28: group size per
    bits (an int, or a list in the order of bits)."""

    def __init__(self, group_size, bits, bits_prop, scale_bits=4):
        self.bits, self.bits_prop, self.scale_bits = bits, bits_prop, scale_bits
        if isinstance(group_size, list):
            self.group_size = {b: g for g, b in zip(group_size, bits)}
        else:
            self.group_size = {b: group_size for b in bits}

    def total_bits(self, rows, columns):
        """qparams.py total_bits l.60-99 (no bias): q_weight, q_scale_max
        16 per group, q_groups 2 x 16 per group, q_scale 4 bits per
        column per group, q_invperm 32 per row."""
        groups, remaining, bits_groups = 0, rows, []
        for b, p in zip(self.bits, self.bits_prop):
            g = math.ceil(min(rows * p, remaining) / self.group_size[b])
            groups += g
            remaining -= g * self.group_size[b]
            bits_groups.append(g)
        total, tr = 0, rows
        for g, b in zip(bits_groups, self.bits):
            r = min(self.group_size[b] * g, tr)
            tr -= r
            total += r * columns * b
        total += groups * 16 + groups * 32 + groups * columns * self.scale_bits
        return total + rows * 32


# qparams.py: attention l.166, MLP l.262-264 (layer 0) and l.252-254
# (layer 1: down_proj with three group sizes), head options l.338-346.
ATTN = QParams(64, [4, 3], [0.1, 0.9])
MLP = [
    {"gate_proj": QParams(64, [3, 2], [0.1, 0.9]),
     "up_proj": QParams(64, [3, 2], [0.3, 0.7]),
     "down_proj": QParams(32, [5, 3], [0.05, 0.95])},
    {"gate_proj": QParams(64, [3, 2], [0.05, 0.95]),
     "up_proj": QParams(64, [3, 2], [0.05, 0.95]),
     "down_proj": QParams([32, 64, 64], [6, 3, 2], [0.05, 0.2, 0.75])},
]
HEAD_OPTIONS = {
    2: QParams(32, [4, 2], [0.3, 0.7]),
    3: QParams(32, [4, 3], [0.15, 0.85]),
    4: QParams(32, [6, 4], [0.15, 0.85]),
    5: QParams(128, [6, 5], [0.15, 0.85]),
    6: QParams(128, [8, 6], [0.15, 0.85]),
    8: QParams(128, [8], [1.0]),
}


def exl2_qparams(name, head_bits):
    if name == "lm_head":
        return HEAD_OPTIONS[head_bits]
    if ".self_attn." in name:
        return ATTN
    layer = int(name.split(".")[2])
    return MLP[layer][name.rsplit(".", 1)[1]]


def exl2_layout(qp, rows, columns):
    """Shapes and the per-group (bits, rows) list of one packed Linear:
    AdaptiveGPTQ.configure (adaptivegptq.py l.166-194) splits the rows
    into groups per bits; quantize (l.501-529) walks them; pack
    (l.608-674) writes q_invperm I32 [rows], q_scale_max F16 [G],
    q_groups I16 [2G] (bits, first q_weight row), q_scale I32
    [G, columns * 4 / 32] and q_weight I32 [sum ceil(rows_g * bits / 32),
    columns]."""
    bits_groups, remaining = [], rows
    for b, p in zip(qp.bits, qp.bits_prop):
        g = math.ceil(min(rows * p, remaining) / qp.group_size[b])
        remaining -= g * qp.group_size[b]
        bits_groups.append(g)
    groups, a = [], 0
    for bits, n in zip(qp.bits, bits_groups):
        for _ in range(n):
            b = min(a + qp.group_size[bits], rows)
            groups.append((bits, b - a))
            a = b
    qrows = [math.ceil(r / (32 / bits)) for bits, r in groups]
    assert columns % 32 == 0
    return groups, qrows


def exl2_module(name, rows, columns, qp):
    import torch
    groups, qrows = exl2_layout(qp, rows, columns)
    g = len(groups)
    qg, out_row = [], 0
    for (bits, _), q in zip(groups, qrows):
        qg += [bits, out_row]
        out_row += q
    return {
        name + ".q_invperm": torch.arange(rows, dtype=torch.int32),
        name + ".q_scale_max": torch.ones(g, dtype=torch.float16),
        name + ".q_groups": torch.tensor(qg, dtype=torch.int16),
        name + ".q_scale": torch.zeros(g, columns * 4 // 32,
                                       dtype=torch.int32),
        name + ".q_weight": torch.zeros(sum(qrows), columns,
                                        dtype=torch.int32),
    }


def write_exl2(path, bits=None, head_bits=6, config_claim=True):
    """An EXL2 folder as convert.py -cf writes it: output.safetensors
    (compile.py l.220-227: one shard is named output.safetensors) and
    config.json with quantization_config (compile.py l.274-290).
    Returns the truth: params, decoder bpw by total_bits, per module
    (mean payload bits, groups, q_weight rows)."""
    import torch  # noqa: F401
    from safetensors.torch import save_file
    os.makedirs(path, exist_ok=True)
    tensors = dense_tensors()
    truth = {"modules": {}}
    dec_bits = dec_numel = 0
    params = sum(t.numel() for t in tensors.values())
    for name, rows, columns in linears():
        qp = exl2_qparams(name, head_bits)
        tensors.update(exl2_module(name, rows, columns, qp))
        groups, qrows = exl2_layout(qp, rows, columns)
        sizes = {r for _, r in groups}
        truth["modules"][name] = {
            "in": rows, "out": columns, "rows": sum(qrows),
            "groups": len(groups),
            "payload_bits": sum(qrows) * 32 / rows,
            "group": rows // len(groups) if len(sizes) == 1 or (
                len({qp.group_size[b] for b in qp.bits}) == 1) else None,
            "total_bits": qp.total_bits(rows, columns),
        }
        params += rows * columns
        if name != "lm_head":
            dec_bits += qp.total_bits(rows, columns)
            dec_numel += rows * columns
    truth["params"] = params
    truth["decoder_bpw"] = dec_bits / dec_numel
    truth["tensors"] = len(tensors)
    save_file(tensors, os.path.join(path, "output.safetensors"))
    cfg = dict(TINY)
    if config_claim:
        cfg["quantization_config"] = {
            "quant_method": "exl2", "version": "0.3.2",
            "bits": bits if bits is not None else
            math.ceil(truth["decoder_bpw"] * 100) / 100,
            "head_bits": head_bits,
            "calibration": {"rows": 115, "length": 2048,
                            "dataset": "(default)"}}
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(cfg, f, indent=4)
    truth["config"] = cfg
    return truth


# ---- EXL3 ---------------------------------------------------------------

def exl3_k(name, head_bits):
    """Per-tensor bits: integers, as exllamav3's allocation gives each
    Linear (conversion/allocation.py create_q_strategy l.53-156)."""
    if name == "lm_head":
        return head_bits
    if ".self_attn." in name:
        return 4
    return 3 if name.endswith("down_proj") else 2


def write_exl3(path, bits=None, head_bits=6, codebook=None, config_claim=True):
    """An EXL3 folder: per Linear trellis I16 [in/16, out/16, 256*K/16]
    (exl3_lib/quantize.py pack_trellis l.927-938), suh F16 [in], svh F16
    [out] (quantize_exl3 l.1401-1411), mcg / mul1 an I32 scalar when that
    codebook is used (l.1417-1424); lm_head at head_bits, FP16 weight
    when 16. config.json quantization_config per compile.py l.148-188,
    bits = round(final_bpw, 2) with final_bpw the size-weighted mean of
    the decoder Linears' K (allocation.py l.144-156, convert_model.py
    l.965-966)."""
    import torch
    from safetensors.torch import save_file
    os.makedirs(path, exist_ok=True)
    tensors = dense_tensors()
    truth = {"modules": {}}
    num = den = 0
    params = sum(t.numel() for t in tensors.values())
    for name, k_in, n_out in linears():
        k = exl3_k(name, head_bits)
        params += k_in * n_out
        if k == 16:
            tensors[name + ".weight"] = torch.zeros(n_out, k_in,
                                                    dtype=torch.float16)
            truth["modules"][name] = {"in": k_in, "out": n_out, "bits": 16}
            continue
        tensors[name + ".trellis"] = torch.zeros(k_in // 16, n_out // 16,
                                                 256 * k // 16,
                                                 dtype=torch.int16)
        tensors[name + ".suh"] = torch.ones(k_in, dtype=torch.float16)
        tensors[name + ".svh"] = torch.ones(n_out, dtype=torch.float16)
        if codebook:
            mult = 0xCBAC1FED if codebook == "mcg" else 0x83DCD12D
            tensors[name + "." + codebook] = torch.tensor(
                mult - (1 << 32), dtype=torch.int32)
        truth["modules"][name] = {"in": k_in, "out": n_out, "bits": k}
        if name != "lm_head":
            num += k * k_in * n_out
            den += k_in * n_out
    truth["params"] = params
    truth["final_bpw"] = num / den
    truth["tensors"] = len(tensors)
    save_file(tensors, os.path.join(path, "model.safetensors"))
    cfg = dict(TINY)
    if config_claim:
        q = {"quant_method": "exl3", "version": "0.0.30",
             "bits": bits if bits is not None else round(num / den, 2),
             "head_bits": head_bits,
             "calibration": {"rows": 250, "cols": 2048},
             "out_scales": "auto"}
        if codebook:
            q["codebook"] = codebook
        cfg["quantization_config"] = q
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(cfg, f, indent=4)
    truth["config"] = cfg
    return truth
