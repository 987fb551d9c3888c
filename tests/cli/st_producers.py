# SPDX-License-Identifier: MIT
"""Fixtures written by the producers themselves (no hub access): a tiny
random Llama from transformers, quantized by mlx-lm's own functions, and
the independent facts the tests compare quantaudit with, read from the
safetensors headers (data_offsets) and from the producers' own objects.
"""
import json
import os
import struct


def missing(*modules):
    """The first module of the list that does not import, or None."""
    import importlib
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - any import failure means absent
            return name
    return None


TINY = dict(vocab_size=256, hidden_size=128, intermediate_size=256,
            num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=256,
            tie_word_embeddings=False)


def tiny_llama(path):
    """save_pretrained of a random bf16 LlamaForCausalLM; returns its
    parameter count as torch counts it (the unquantized truth)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**TINY)).to(torch.bfloat16)
    model.save_pretrained(path)
    return sum(p.numel() for p in model.parameters())


def mlx_quantize(src, dst, recipe):
    """mlx-lm 0.32's own path (mlx_lm/convert.py convert without the
    tokenizer): load_model, quantize_model, save_model, save_config.
    recipe: ("affine", bits, group), ("mixed_3_6",), ("per_module",
    {suffix: params}) or a mode name
    ("mxfp4", "nvfp4", "mxfp8"). Returns (config, bits per weight as
    mlx_lm.utils.compute_bits_per_weight reports it)."""
    from pathlib import Path
    from mlx_lm.utils import (compute_bits_per_weight, load_model,
                              quantize_model, save_config, save_model)
    model, config = load_model(Path(src))
    if recipe[0] == "affine":
        model, config = quantize_model(model, config, recipe[2], recipe[1])
    elif recipe[0] == "per_module":
        # recipe[1]: {module name suffix: {group_size, bits, mode}}; the
        # rest affine 4-bit g64. quantize_model writes each dict the
        # predicate returns under the module's path (wrapped_predicate).
        def pred(path, module):
            for suffix, params in recipe[1].items():
                if path.endswith(suffix):
                    return dict(params)
            return True
        model, config = quantize_model(model, config, 64, 4,
                                       quant_predicate=pred)
    elif recipe[0].startswith("mixed_"):
        from mlx_lm.convert import mixed_quant_predicate_builder
        pred = mixed_quant_predicate_builder(recipe[0], model, 64)
        model, config = quantize_model(model, config, 64, None,
                                       quant_predicate=pred)
    else:
        model, config = quantize_model(model, config, None, None,
                                       mode=recipe[0])
    bpw = compute_bits_per_weight(model)
    save_model(dst, model)
    save_config(config, Path(dst) / "config.json")
    return config, bpw


def st_header(path):
    """{name: (dtype, shape, bytes)} from a safetensors header."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        h = json.loads(f.read(n))
    h.pop("__metadata__", None)
    return {k: (v["dtype"], v["shape"],
                v["data_offsets"][1] - v["data_offsets"][0])
            for k, v in h.items()}


def folder_tensors(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".safetensors"):
            out.update(st_header(os.path.join(folder, name)))
    return out
