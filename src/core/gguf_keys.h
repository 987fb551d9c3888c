/* SPDX-License-Identifier: MIT */
/*
 * The GGUF metadata keys quantaudit reads, each spelled once: the one
 * table every reader takes its key names from (formats/gguf*.c,
 * src/analysis/, src/fit/, src/compare/, src/report/, rules/), after
 * gguf-py's constants.py `Keys` (ggml-org/llama.cpp gguf-py/gguf/
 * constants.py, class Keys: General, LLM, Attention, Rope, SSM, Split,
 * Tokenizer, Adapter, Clip, IMatrix) and llama.cpp src/llama-arch.cpp
 * LLM_KV_NAMES for the keys gguf-py has no constant for.
 *
 * Each is a string literal, so a reader can concatenate it:
 * "%s." QA_GGUF_LLM_BLOCK_COUNT is gguf-py's "{arch}.block_count".
 *
 *   QA_GGUF_<GROUP>_<NAME>  a whole key ("general.architecture")
 *   QA_GGUF_LLM_*, _ATTN_*, _ROPE_*, _SSM_*  the part after "<arch>.",
 *                           read through the architecture's prefix
 *   *_PREFIX                the start shared by a family of keys
 *   *_FMT                   a printf format of an indexed key
 *
 * A header of literals only: no symbol, any layer may include it.
 */
#ifndef QA_CORE_GGUF_KEYS_H
#define QA_CORE_GGUF_KEYS_H

/* ---- general.* (Keys.General) ------------------------------------------ */

#define QA_GGUF_GENERAL_TYPE "general.type"
#define QA_GGUF_GENERAL_ARCHITECTURE "general.architecture"
#define QA_GGUF_GENERAL_ALIGNMENT "general.alignment"
#define QA_GGUF_GENERAL_FILE_TYPE "general.file_type"
#define QA_GGUF_GENERAL_NAME "general.name"
#define QA_GGUF_GENERAL_BASENAME "general.basename"
#define QA_GGUF_GENERAL_FINETUNE "general.finetune"
#define QA_GGUF_GENERAL_VERSION "general.version"
#define QA_GGUF_GENERAL_LICENSE "general.license"
/* general.base_model.{id}.* (Keys.General.BASE_MODEL_*) */
#define QA_GGUF_GENERAL_BASE_MODEL_NAME_FMT "general.base_model.%u.name"
#define QA_GGUF_GENERAL_BASE_MODEL_ORG_FMT "general.base_model.%u.organization"
#define QA_GGUF_GENERAL_BASE_MODEL_REPO_URL_FMT "general.base_model.%u.repo_url"
/* the first base model, the one readers name */
#define QA_GGUF_GENERAL_BASE_MODEL0_NAME "general.base_model.0.name"
#define QA_GGUF_GENERAL_BASE_MODEL0_ORG "general.base_model.0.organization"
#define QA_GGUF_GENERAL_BASE_MODEL0_REPO_URL "general.base_model.0.repo_url"

/* Values of general.type (Keys.General.TYPE: gguf-py GGUFType MODEL,
 * ADAPTER, MMPROJ; llama.cpp tools/imatrix "imatrix") and the
 * general.architecture of files that are not language models (clip.cpp
 * "clip", llama.cpp cvector-generator "controlvector"). */
#define QA_GGUF_TYPE_MODEL "model"
#define QA_GGUF_TYPE_ADAPTER "adapter"
#define QA_GGUF_TYPE_MMPROJ "mmproj"
#define QA_GGUF_TYPE_IMATRIX "imatrix"
#define QA_GGUF_ARCH_CLIP "clip"
#define QA_GGUF_ARCH_CONTROLVECTOR "controlvector"

/* ---- "<arch>." + these (Keys.LLM) --------------------------------------- */

#define QA_GGUF_LLM_VOCAB_SIZE "vocab_size"
#define QA_GGUF_LLM_CONTEXT_LENGTH "context_length"
#define QA_GGUF_LLM_EMBEDDING_LENGTH "embedding_length"
#define QA_GGUF_LLM_BLOCK_COUNT "block_count"
#define QA_GGUF_LLM_LEADING_DENSE_BLOCK_COUNT "leading_dense_block_count"
#define QA_GGUF_LLM_FEED_FORWARD_LENGTH "feed_forward_length"
#define QA_GGUF_LLM_EXPERT_FEED_FORWARD_LENGTH "expert_feed_forward_length"
#define QA_GGUF_LLM_EXPERT_COUNT "expert_count"
#define QA_GGUF_LLM_EXPERT_USED_COUNT "expert_used_count"
#define QA_GGUF_LLM_EXPERT_SHARED_COUNT "expert_shared_count"
#define QA_GGUF_LLM_NEXTN_PREDICT_LAYERS "nextn_predict_layers"
#define QA_GGUF_LLM_FULL_ATTENTION_INTERVAL "full_attention_interval"
#define QA_GGUF_LLM_TOKEN_SHIFT_COUNT "token_shift_count"

/* Keys.Attention */
#define QA_GGUF_ATTN_HEAD_COUNT "attention.head_count"
#define QA_GGUF_ATTN_HEAD_COUNT_KV "attention.head_count_kv"
#define QA_GGUF_ATTN_KEY_LENGTH "attention.key_length"
#define QA_GGUF_ATTN_VALUE_LENGTH "attention.value_length"
#define QA_GGUF_ATTN_KEY_LENGTH_MLA "attention.key_length_mla"
#define QA_GGUF_ATTN_VALUE_LENGTH_MLA "attention.value_length_mla"
#define QA_GGUF_ATTN_KEY_LENGTH_SWA "attention.key_length_swa"
#define QA_GGUF_ATTN_VALUE_LENGTH_SWA "attention.value_length_swa"
#define QA_GGUF_ATTN_Q_LORA_RANK "attention.q_lora_rank"
#define QA_GGUF_ATTN_KV_LORA_RANK "attention.kv_lora_rank"
#define QA_GGUF_ATTN_SLIDING_WINDOW "attention.sliding_window"
#define QA_GGUF_ATTN_SLIDING_WINDOW_PATTERN "attention.sliding_window_pattern"
#define QA_GGUF_ATTN_RECURRENT_LAYERS "attention.recurrent_layers"
#define QA_GGUF_ATTN_SHARED_KV_LAYERS "attention.shared_kv_layers"

/* Keys.Rope */
#define QA_GGUF_ROPE_DIMENSION_COUNT "rope.dimension_count"
#define QA_GGUF_ROPE_DIMENSION_SECTIONS "rope.dimension_sections"

/* Keys.SSM, Keys.WKV, Keys.ShortConv */
#define QA_GGUF_SSM_CONV_KERNEL "ssm.conv_kernel"
#define QA_GGUF_SSM_INNER_SIZE "ssm.inner_size"
#define QA_GGUF_SSM_STATE_SIZE "ssm.state_size"
#define QA_GGUF_SSM_TIME_STEP_RANK "ssm.time_step_rank"
#define QA_GGUF_SSM_GROUP_COUNT "ssm.group_count"
#define QA_GGUF_WKV_HEAD_SIZE "wkv.head_size"
#define QA_GGUF_SHORTCONV_L_CACHE "shortconv.l_cache"

/* ---- split.* (Keys.Split) ----------------------------------------------- */

#define QA_GGUF_SPLIT_PREFIX "split."
#define QA_GGUF_SPLIT_NO "split.no"
#define QA_GGUF_SPLIT_COUNT "split.count"
#define QA_GGUF_SPLIT_TENSORS_COUNT "split.tensors.count"

/* ---- tokenizer.* (Keys.Tokenizer) --------------------------------------- */

#define QA_GGUF_TOKENIZER_GGML_PREFIX "tokenizer.ggml."
#define QA_GGUF_TOKENIZER_MODEL "tokenizer.ggml.model"
#define QA_GGUF_TOKENIZER_PRE "tokenizer.ggml.pre"
#define QA_GGUF_TOKENIZER_LIST "tokenizer.ggml.tokens"
#define QA_GGUF_TOKENIZER_TOKEN_TYPE "tokenizer.ggml.token_type"
#define QA_GGUF_TOKENIZER_SCORES "tokenizer.ggml.scores"
#define QA_GGUF_TOKENIZER_MERGES "tokenizer.ggml.merges"
#define QA_GGUF_TOKENIZER_BOS_ID "tokenizer.ggml.bos_token_id"
#define QA_GGUF_TOKENIZER_EOS_ID "tokenizer.ggml.eos_token_id"
#define QA_GGUF_TOKENIZER_ADD_BOS "tokenizer.ggml.add_bos_token"
#define QA_GGUF_TOKENIZER_ADD_EOS "tokenizer.ggml.add_eos_token"
#define QA_GGUF_TOKENIZER_PAD_ID "tokenizer.ggml.padding_token_id"
#define QA_GGUF_TOKENIZER_CHAT_TEMPLATE "tokenizer.chat_template"
/* tokenizer.chat_template.<name> (Keys.Tokenizer.CHAT_TEMPLATE_N) */
#define QA_GGUF_TOKENIZER_CHAT_TEMPLATE_PREFIX "tokenizer.chat_template."

/* ---- adapter.* (Keys.Adapter) ------------------------------------------- */

#define QA_GGUF_ADAPTER_TYPE "adapter.type"
#define QA_GGUF_ADAPTER_LORA_ALPHA "adapter.lora.alpha"

/* ---- clip.* (Keys.Clip, Keys.ClipVision, Keys.ClipAudio) ----------------- */

#define QA_GGUF_CLIP_PROJECTOR_TYPE "clip.projector_type"
#define QA_GGUF_CLIP_HAS_VISION_ENCODER "clip.has_vision_encoder"
#define QA_GGUF_CLIP_HAS_AUDIO_ENCODER "clip.has_audio_encoder"
#define QA_GGUF_CLIP_VISION_PROJECTOR_TYPE "clip.vision.projector_type"
#define QA_GGUF_CLIP_VISION_IMAGE_SIZE "clip.vision.image_size"
#define QA_GGUF_CLIP_VISION_PATCH_SIZE "clip.vision.patch_size"
#define QA_GGUF_CLIP_VISION_BLOCK_COUNT "clip.vision.block_count"
#define QA_GGUF_CLIP_VISION_EMBEDDING_LENGTH "clip.vision.embedding_length"
#define QA_GGUF_CLIP_VISION_PROJECTION_DIM "clip.vision.projection_dim"
#define QA_GGUF_CLIP_AUDIO_PROJECTOR_TYPE "clip.audio.projector_type"
#define QA_GGUF_CLIP_AUDIO_BLOCK_COUNT "clip.audio.block_count"
#define QA_GGUF_CLIP_AUDIO_EMBEDDING_LENGTH "clip.audio.embedding_length"
#define QA_GGUF_CLIP_AUDIO_PROJECTION_DIM "clip.audio.projection_dim"

/* ---- an imatrix GGUF (Keys.IMatrix) ------------------------------------- */

#define QA_GGUF_IMATRIX_CHUNK_COUNT "imatrix.chunk_count"
#define QA_GGUF_IMATRIX_CHUNK_SIZE "imatrix.chunk_size"
#define QA_GGUF_IMATRIX_DATASETS "imatrix.datasets"

/* ---- quantize.imatrix.* (llama-quantize's record of the imatrix used:
 * tools/quantize/quantize.cpp LLM_KV_QUANTIZE_IMATRIX_*) ----------------- */

#define QA_GGUF_QUANTIZE_IMATRIX_FILE "quantize.imatrix.file"
#define QA_GGUF_QUANTIZE_IMATRIX_DATASET "quantize.imatrix.dataset"
#define QA_GGUF_QUANTIZE_IMATRIX_ENTRIES_COUNT "quantize.imatrix.entries_count"
#define QA_GGUF_QUANTIZE_IMATRIX_CHUNKS_COUNT "quantize.imatrix.chunks_count"

#endif /* QA_CORE_GGUF_KEYS_H */
