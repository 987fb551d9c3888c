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


def llama_keys(w, layers=1, embd=256, ff=512, heads=4, vocab=64, ctx=128):
    w.add_block_count(layers)
    w.add_context_length(ctx)
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


def lora_adapter(path, arch="llama", rank=16, alpha=32.0, layers=2,
                 targets=("attn_q", "attn_v"), embd=256, drop_b=None,
                 bad_rank=None, adapter_type="lora"):
    """A LoRA adapter as llama.cpp's convert_lora_to_gguf.py writes it:
    general.type adapter, adapter.type, adapter.lora.alpha, and per
    module <name>.weight.lora_a (torch [rank, n_in], ggml ne [n_in,
    rank]) and .lora_b (torch [n_out, rank]). drop_b names a tensor whose
    lora_b is left out; bad_rank one whose lora_b has another rank."""
    w = gguf.GGUFWriter(path, arch)
    w.add_type(gguf.GGUFType.ADAPTER)
    if adapter_type is not None:
        w.add_string(gguf.Keys.Adapter.TYPE, adapter_type)
    if alpha is not None:
        w.add_float32(gguf.Keys.Adapter.LORA_ALPHA, alpha)
    for b in range(layers):
        for n in targets:
            name = f"blk.{b}.{n}.weight"
            w.add_tensor(name + ".lora_a", np.zeros((rank, embd), np.float16))
            if name == drop_b:
                continue
            r = rank + 1 if name == bad_rank else rank
            w.add_tensor(name + ".lora_b", np.zeros((embd, r), np.float16))
    finish(w)


def projector(path, vision_blocks=2, width=64, image=224, patch=14,
              proj_dim=256):
    """A vision projector as llama.cpp's convert_hf_to_gguf.py --mmproj
    writes one (general.type mmproj, clip.* keys, v.* and mm.* tensors).
    Returns the tensor element count."""
    K = gguf.Keys
    w = gguf.GGUFWriter(path, "clip")
    w.add_type(gguf.GGUFType.MMPROJ)
    w.add_bool(K.Clip.HAS_VISION_ENCODER, True)
    w.add_bool(K.Clip.HAS_AUDIO_ENCODER, False)
    w.add_string(K.Clip.PROJECTOR_TYPE, "mlp")
    w.add_uint32(K.ClipVision.BLOCK_COUNT, vision_blocks)
    w.add_uint32(K.ClipVision.EMBEDDING_LENGTH, width)
    w.add_uint32(K.ClipVision.IMAGE_SIZE, image)
    w.add_uint32(K.ClipVision.PATCH_SIZE, patch)
    w.add_uint32(K.ClipVision.PROJECTION_DIM, proj_dim)
    shapes = [("v.patch_embd.weight", (width, 3, patch, patch))]
    for b in range(vision_blocks):
        shapes.append((f"v.blk.{b}.attn_q.weight", (width, width)))
        shapes.append((f"v.blk.{b}.ffn_up.weight", (4 * width, width)))
    shapes.append(("mm.0.weight", (proj_dim, width)))
    n = 0
    for name, shape in shapes:
        w.add_tensor(name, np.zeros(shape, np.float16))
        n += int(np.prod(shape))
    finish(w)
    return n


def imatrix(path, layers=3, kinds=("attn_q", "ffn_down"), chunks=100,
            chunk_size=512, datasets=("wiki.train.raw",), embd=256,
            drop_counts=None, general_type="imatrix"):
    """An importance matrix as llama.cpp's tools/imatrix/imatrix.cpp
    save_imatrix writes it: general.type imatrix, imatrix.datasets,
    imatrix.chunk_count, imatrix.chunk_size, and per weight
    <name>.in_sum2 (F32, ne [n_per_row, n_mat]) and <name>.counts (F32,
    ne [1, n_mat])."""
    K = gguf.Keys
    w = gguf.GGUFWriter(path, "llama")
    w.add_type(general_type)
    w.add_array(K.IMatrix.DATASETS, list(datasets))
    w.add_uint32(K.IMatrix.CHUNK_COUNT, chunks)
    w.add_uint32(K.IMatrix.CHUNK_SIZE, chunk_size)
    for b in range(layers):
        for n in kinds:
            name = f"blk.{b}.{n}.weight"
            w.add_tensor(name + ".in_sum2", np.zeros((1, embd), np.float32))
            if name != drop_counts:
                w.add_tensor(name + ".counts", np.zeros((1, 1), np.float32))
    finish(w)


def control_vector(path, hint="llama", layer_count=31, layers=(5, 6, 7),
                   embd=256):
    """A control vector as llama.cpp's cvector-generator writes it
    (general.architecture controlvector, controlvector.model_hint,
    controlvector.layer_count, direction.<layer> F32 [n_embd])."""
    w = gguf.GGUFWriter(path, "controlvector")
    w.add_string("controlvector.model_hint", hint)
    w.add_int32("controlvector.layer_count", layer_count)
    for layer in layers:
        w.add_tensor(f"direction.{layer}", np.zeros(embd, np.float32))
    finish(w)


def fork_matrix(w, name, rows, cols, type_id, nbytes):
    """A rows x cols tensor of a ggml type gguf-py has no name for (a
    fork's id), holding nbytes: gguf-py writes the id as it is given."""
    w.add_tensor(name, np.zeros(nbytes, np.int8), raw_shape=(rows, cols),
                 raw_dtype=type_id)


def fork_llama(path, attn, ffn, file_type=None, arch="llama"):
    """A one-layer llama whose attention matrices are of type attn and
    MLP matrices of type ffn, each (type id, bytes of a rows x cols
    matrix: a function of rows and cols); embeddings Q8_0."""
    w = gguf.GGUFWriter(path, arch)
    llama_keys(w, layers=1, embd=256, ff=512, vocab=64)
    if file_type is not None:
        w.add_file_type(file_type)
    add_matrix(w, "token_embd.weight", 64, 256, T.Q8_0)
    w.add_tensor("blk.0.attn_norm.weight", np.ones(256, np.float32))
    for n in ("attn_q", "attn_k", "attn_v", "attn_output"):
        fork_matrix(w, f"blk.0.{n}.weight", 256, 256, attn[0],
                    attn[1](256, 256))
    w.add_tensor("blk.0.ffn_norm.weight", np.ones(256, np.float32))
    fork_matrix(w, "blk.0.ffn_gate.weight", 512, 256, ffn[0], ffn[1](512, 256))
    fork_matrix(w, "blk.0.ffn_up.weight", 512, 256, ffn[0], ffn[1](512, 256))
    fork_matrix(w, "blk.0.ffn_down.weight", 256, 512, ffn[0], ffn[1](256, 512))
    w.add_tensor("output_norm.weight", np.ones(256, np.float32))
    add_matrix(w, "output.weight", 64, 256, T.Q8_0)
    finish(w)


def qwen35_mtp(path, trunk=4, nextn=1, embd=64, vocab=48, with_trunk=False,
               with_embd=True, eh_embd=None, tokens=False):
    """A qwen35 GGUF as llama.cpp's convert_hf_to_gguf.py writes it with
    --mtp (conversion/qwen.py _Qwen35MtpMixin): block_count = trunk +
    nextn, qwen35.nextn_predict_layers = nextn, and of the trunk only
    token_embd, output_norm and output (filter_tensors keeps
    embed_tokens, norm and lm_head); the MTP block blk.<trunk> carries
    a full attention + FFN block and its nextn.* tensors (gguf-py
    MODEL_TENSOR.NEXTN_*). with_trunk: the bundled default (trunk +
    MTP in one file). with_embd False: a sidecar that leaves the shared
    tensors out. eh_embd: the width eh_proj maps to (default embd)."""
    w = gguf.GGUFWriter(path, "qwen35")
    w.add_block_count(trunk + nextn)
    w.add_context_length(128)
    w.add_embedding_length(embd)
    w.add_feed_forward_length(2 * embd)
    w.add_head_count(4)
    w.add_head_count_kv(2)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_nextn_predict_layers(nextn)
    # every block full attention (qwen35.full_attention_interval 1), so
    # the fixture needs no linear-attention tensors
    w.add_full_attention_interval(1)
    if tokens:
        w.add_tokenizer_model("gpt2")
        w.add_token_list([f"t{i}" for i in range(vocab)])
    if with_embd:
        add_matrix(w, "token_embd.weight", vocab, embd, T.F32)

    def block(b):
        p = f"blk.{b}."
        w.add_tensor(p + "attn_norm.weight", np.ones(embd, np.float32))
        for n, rows in (("attn_q", embd), ("attn_k", embd // 2),
                        ("attn_v", embd // 2), ("attn_output", embd)):
            add_matrix(w, p + n + ".weight", rows, embd, T.F32)
        w.add_tensor(p + "post_attention_norm.weight",
                     np.ones(embd, np.float32))
        add_matrix(w, p + "ffn_gate.weight", 2 * embd, embd, T.F32)
        add_matrix(w, p + "ffn_up.weight", 2 * embd, embd, T.F32)
        add_matrix(w, p + "ffn_down.weight", embd, 2 * embd, T.F32)
    if with_trunk:
        for b in range(trunk):
            block(b)
    for b in range(trunk, trunk + nextn):
        block(b)
        e = eh_embd or embd
        add_matrix(w, f"blk.{b}.nextn.eh_proj.weight", e, 2 * e, T.F32)
        for n in ("enorm", "hnorm", "shared_head_norm"):
            w.add_tensor(f"blk.{b}.nextn.{n}.weight",
                         np.ones(embd, np.float32))
    if with_embd:
        w.add_tensor("output_norm.weight", np.ones(embd, np.float32))
        add_matrix(w, "output.weight", vocab, embd, T.F32)
    finish(w)


def draft_arch(path, arch, embd=64, target_hidden=96, vocab=48,
               target_layers=None):
    """A one-block draft of architecture "dflash" (llama.cpp
    conversion/qwen.py DFlashModel.set_gguf_parameters: dflash.
    target_layers, dflash.target_hidden_size, dflash.block_size; fc and
    hidden_norm; the target's tokenizer, no embeddings) or "eagle3"
    (fc.weight fuses three target hidden states, token_embd and output
    of the draft's vocabulary)."""
    w = gguf.GGUFWriter(path, arch)
    w.add_block_count(1)
    w.add_context_length(128)
    w.add_embedding_length(embd)
    w.add_feed_forward_length(2 * embd)
    w.add_head_count(4)
    w.add_head_count_kv(4)
    if arch == "dflash":
        w.add_array("dflash.target_layers", target_layers or [1, 3])
        w.add_uint32("dflash.target_hidden_size", target_hidden)
        w.add_uint32("dflash.block_size", 16)
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("qwen2")
        w.add_token_list([f"t{i}" for i in range(vocab)])
        w.add_token_merges(["t 1"])
        add_matrix(w, "fc.weight", embd, len(target_layers or [1, 3]) *
                   target_hidden, T.F32)
    else:
        add_matrix(w, "token_embd.weight", vocab, embd, T.F32)
        add_matrix(w, "fc.weight", embd, 3 * target_hidden, T.F32)
        add_matrix(w, "output.weight", vocab, embd, T.F32)
    w.add_tensor("blk.0.attn_norm.weight", np.ones(embd, np.float32))
    for n in ("attn_q", "attn_k", "attn_v", "attn_output"):
        add_matrix(w, f"blk.0.{n}.weight", embd, embd, T.F32)
    w.add_tensor("output_norm.weight", np.ones(embd, np.float32))
    finish(w)
