# SPDX-License-Identifier: MIT
"""GGUF files written by gguf-py (llama.cpp's own writer, pinned in
requirements-test.txt) for the file-kind tests: tiny models, adapters,
projectors, importance matrices, control vectors. Tensor data is zeros;
what the tests check is the header, which gguf-py writes exactly as
llama.cpp's tools do. Importing this module needs gguf; callers skip when
it is absent (have_gguf)."""
try:
    import numpy as np
    import gguf
    from gguf import GGMLQuantizationType as T, GGML_QUANT_SIZES
except ImportError:  # the caller skips
    gguf = None


def have_gguf():
    return gguf is not None


def add_matrix(w, name, rows, cols, qtype):
    """A rows x cols matrix (ggml ne = [cols, rows]) of type qtype."""
    if qtype == T.F32:
        w.add_tensor(name, np.zeros((rows, cols), np.float32))
    elif qtype == T.F16:
        w.add_tensor(name, np.zeros((rows, cols), np.float16))
    else:
        block, size = GGML_QUANT_SIZES[qtype]
        w.add_tensor(name, np.zeros((rows, cols // block * size), np.uint8),
                     raw_dtype=qtype)


def finish(w):
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def llama_keys(w, layers=1, embd=256, ff=512, heads=4, vocab=64):
    w.add_block_count(layers)
    w.add_context_length(128)
    w.add_embedding_length(embd)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(heads)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(vocab)


def tiny_llama(path, qtype, layers=1, embd=256, ff=512, vocab=64,
               file_type=None):
    """A llama with every matrix of qtype (norms F32)."""
    w = gguf.GGUFWriter(path, "llama")
    llama_keys(w, layers, embd, ff, vocab=vocab)
    if file_type is not None:
        w.add_file_type(file_type)
    add_matrix(w, "token_embd.weight", vocab, embd, qtype)
    for b in range(layers):
        p = f"blk.{b}."
        w.add_tensor(p + "attn_norm.weight", np.ones(embd, np.float32))
        for n in ("attn_q", "attn_k", "attn_v", "attn_output"):
            add_matrix(w, p + n + ".weight", embd, embd, qtype)
        w.add_tensor(p + "ffn_norm.weight", np.ones(embd, np.float32))
        add_matrix(w, p + "ffn_gate.weight", ff, embd, qtype)
        add_matrix(w, p + "ffn_up.weight", ff, embd, qtype)
        add_matrix(w, p + "ffn_down.weight", embd, ff, qtype)
    w.add_tensor("output_norm.weight", np.ones(embd, np.float32))
    add_matrix(w, "output.weight", vocab, embd, qtype)
    finish(w)
