/* SPDX-License-Identifier: MIT */
/*
 * Tensor roles: what a tensor does in the model, decided from its name
 * (GGUF and Hugging Face naming for every family quantaudit knows). The
 * name patterns are data in src/roles.c; this header only lists the roles.
 */
#ifndef QA_SRC_ROLES_H
#define QA_SRC_ROLES_H

#include <stdbool.h>
#include <stdint.h>

/* X(enum suffix, JSON name) */
#define QA_ROLE_LIST(X) \
	X(OTHER, "other") \
	X(EMBED, "embed") \
	X(POS_EMBED, "pos_embed") \
	X(LM_HEAD, "lm_head") \
	X(NORM, "norm") \
	X(ATTN_Q, "attn_q") \
	X(ATTN_K, "attn_k") \
	X(ATTN_V, "attn_v") \
	X(ATTN_O, "attn_o") \
	X(ATTN_QKV, "attn_qkv") \
	X(ATTN_GATE, "attn_gate") \
	X(ATTN_SINKS, "attn_sinks") \
	X(MLA_Q_A, "mla_q_a") \
	X(MLA_Q_B, "mla_q_b") \
	X(MLA_KV_A, "mla_kv_a") \
	X(MLA_KV_B, "mla_kv_b") \
	X(MLA_K_B, "mla_k_b") \
	X(MLA_V_B, "mla_v_b") \
	X(DSA_INDEXER, "dsa_indexer") \
	X(FFN_GATE, "ffn_gate") \
	X(FFN_UP, "ffn_up") \
	X(FFN_DOWN, "ffn_down") \
	X(FFN_GATE_UP, "ffn_gate_up") \
	X(EXPERT_GATE, "expert_gate") \
	X(EXPERT_UP, "expert_up") \
	X(EXPERT_DOWN, "expert_down") \
	X(EXPERT_GATE_UP, "expert_gate_up") \
	X(SHARED_EXPERT_GATE, "shared_expert_gate") \
	X(SHARED_EXPERT_UP, "shared_expert_up") \
	X(SHARED_EXPERT_DOWN, "shared_expert_down") \
	X(ROUTER, "router") \
	X(SSM_IN, "ssm_in") \
	X(SSM_CONV, "ssm_conv") \
	X(SSM_OUT, "ssm_out") \
	X(SSM_PARAM, "ssm_param") \
	X(GDN_QKV, "gdn_qkv") \
	X(GDN_GATE, "gdn_gate") \
	X(GDN_BA, "gdn_ba") \
	X(MTP_EH_PROJ, "mtp_eh_proj") \
	X(MTP_ENORM, "mtp_enorm") \
	X(MTP_HNORM, "mtp_hnorm") \
	X(MTP_SHARED_HEAD, "mtp_shared_head") \
	X(MTP_EMBED, "mtp_embed") \
	X(MTP_NORM, "mtp_norm") \
	X(VISION, "vision") \
	X(PROJECTOR, "projector") \
	X(AUDIO, "audio")

enum qa_role {
#define QA_ROLE_ENUM(e, s) QA_ROLE_##e,
	QA_ROLE_LIST(QA_ROLE_ENUM)
#undef QA_ROLE_ENUM
	QA_ROLE_COUNT
};

const char *qa_role_name(enum qa_role r);

/* What the classifier knows about the model when it runs. */
struct qa_role_context {
	int64_t n_layer;	/* trunk blocks (excl. MTP), -1 unknown */
	int64_t n_mtp;		/* declared MTP layers, -1 unknown */
	const uint8_t *layer_kind;	/* enum qa_layer_kind per block or NULL */
	int64_t n_layer_kind;	/* entries in layer_kind */
};

struct qa_role_result {
	enum qa_role role;
	int32_t layer;		/* block index or -1 */
	bool mtp;		/* tensor belongs to an MTP / nextn head */
};

/*
 * Classifies one tensor name (GGUF or Hugging Face naming). Pure function:
 * no allocation, no global state.
 */
struct qa_role_result qa_role_classify(const char *name,
				       const struct qa_role_context *ctx);

#endif /* QA_SRC_ROLES_H */
