/* SPDX-License-Identifier: MIT */
/*
 * Tensor roles: what a tensor does in the model. One table holds every
 * fact about a role that more than one part of quantaudit needs, so the
 * groupings cannot drift apart:
 *
 *   X(enum suffix, JSON name, map heading, group, quantizer class, in map)
 *
 * group — where the role belongs in summaries: the precision line and the
 *   column groups of the per-layer map (attention incl. MLA, GDN and the
 *   DSA indexer; SSM; MLP; experts incl. the router; shared experts; MTP;
 *   the rest).
 * quantizer class — what weight quantizers make of it
 *   (quant-formats.md §A): NEVER (norms, sinks, convolutions, SSM
 *   parameters: not a Linear), EMBED, LM_HEAD, ROUTER, LINEAR, EXPERT (a
 *   Linear of the routed experts), UNSURE (towers and unnamed tensors: a
 *   Linear or not). "A linear layer" is LINEAR or EXPERT.
 * in map — 1 when the role gets a column in the per-layer precision map
 *   (norms, sinks, SSM scalars and unnamed tensors hold no weight matrix
 *   worth one).
 *
 * Classification from names (GGUF and Hugging Face naming for every
 * family quantaudit knows) is the analysis layer's business
 * (src/analysis/roles.c); this header only describes the roles.
 */
#ifndef QA_CORE_ROLES_H
#define QA_CORE_ROLES_H

#include <stdbool.h>
#include <stdint.h>

#define QA_ROLE_LIST(X) \
	X(OTHER, "other", "other", OTHER, UNSURE, 0) \
	X(EMBED, "embed", "embed", EMBED, EMBED, 1) \
	X(POS_EMBED, "pos_embed", "pos_embed", OTHER, NEVER, 1) \
	X(LM_HEAD, "lm_head", "lm_head", LM_HEAD, LM_HEAD, 1) \
	X(NORM, "norm", "norm", NORM, NEVER, 0) \
	X(ATTN_Q, "attn_q", "q", ATTN, LINEAR, 1) \
	X(ATTN_K, "attn_k", "k", ATTN, LINEAR, 1) \
	X(ATTN_V, "attn_v", "v", ATTN, LINEAR, 1) \
	X(ATTN_O, "attn_o", "o", ATTN, LINEAR, 1) \
	X(ATTN_QKV, "attn_qkv", "qkv", ATTN, LINEAR, 1) \
	X(ATTN_GATE, "attn_gate", "agate", ATTN, LINEAR, 1) \
	X(ATTN_SINKS, "attn_sinks", "attn_sinks", ATTN, NEVER, 0) \
	X(MLA_Q_A, "mla_q_a", "q_a", ATTN, LINEAR, 1) \
	X(MLA_Q_B, "mla_q_b", "q_b", ATTN, LINEAR, 1) \
	X(MLA_KV_A, "mla_kv_a", "kv_a", ATTN, LINEAR, 1) \
	X(MLA_KV_B, "mla_kv_b", "kv_b", ATTN, LINEAR, 1) \
	X(MLA_K_B, "mla_k_b", "k_b", ATTN, LINEAR, 1) \
	X(MLA_V_B, "mla_v_b", "v_b", ATTN, LINEAR, 1) \
	X(DSA_INDEXER, "dsa_indexer", "idx", ATTN, LINEAR, 1) \
	X(FFN_GATE, "ffn_gate", "gate", MLP, LINEAR, 1) \
	X(FFN_UP, "ffn_up", "up", MLP, LINEAR, 1) \
	X(FFN_DOWN, "ffn_down", "down", MLP, LINEAR, 1) \
	X(FFN_GATE_UP, "ffn_gate_up", "gu", MLP, LINEAR, 1) \
	X(EXPERT_GATE, "expert_gate", "xgate", EXPERTS, EXPERT, 1) \
	X(EXPERT_UP, "expert_up", "xup", EXPERTS, EXPERT, 1) \
	X(EXPERT_DOWN, "expert_down", "xdown", EXPERTS, EXPERT, 1) \
	X(EXPERT_GATE_UP, "expert_gate_up", "xgu", EXPERTS, EXPERT, 1) \
	X(SHARED_EXPERT_GATE, "shared_expert_gate", "sgate", SHARED, LINEAR, 1) \
	X(SHARED_EXPERT_UP, "shared_expert_up", "sup", SHARED, LINEAR, 1) \
	X(SHARED_EXPERT_DOWN, "shared_expert_down", "sdown", SHARED, LINEAR, 1) \
	X(ROUTER, "router", "rtr", EXPERTS, ROUTER, 1) \
	X(SSM_IN, "ssm_in", "in", SSM, LINEAR, 1) \
	X(SSM_CONV, "ssm_conv", "conv", SSM, NEVER, 1) \
	X(SSM_OUT, "ssm_out", "out", SSM, LINEAR, 1) \
	X(SSM_PARAM, "ssm_param", "ssm_param", SSM, NEVER, 0) \
	X(GDN_QKV, "gdn_qkv", "gqkv", ATTN, LINEAR, 1) \
	X(GDN_GATE, "gdn_gate", "ggate", ATTN, LINEAR, 1) \
	X(GDN_BA, "gdn_ba", "gba", ATTN, LINEAR, 1) \
	X(MTP_EH_PROJ, "mtp_eh_proj", "eh", MTP, LINEAR, 1) \
	X(MTP_ENORM, "mtp_enorm", "mtp_enorm", MTP, NEVER, 0) \
	X(MTP_HNORM, "mtp_hnorm", "mtp_hnorm", MTP, NEVER, 0) \
	X(MTP_SHARED_HEAD, "mtp_shared_head", "head", MTP, LM_HEAD, 1) \
	X(MTP_EMBED, "mtp_embed", "emb", MTP, EMBED, 1) \
	X(MTP_NORM, "mtp_norm", "mtp_norm", MTP, NEVER, 0) \
	X(VISION, "vision", "vision", TOWER, UNSURE, 1) \
	X(PROJECTOR, "projector", "projector", TOWER, UNSURE, 1) \
	X(AUDIO, "audio", "audio", TOWER, UNSURE, 1)

enum qa_role {
#define QA_ROLE_ENUM(e, s, h, g, c, m) QA_ROLE_##e,
	QA_ROLE_LIST(QA_ROLE_ENUM)
#undef QA_ROLE_ENUM
	QA_ROLE_COUNT
};

/* Role groups, in the order the per-layer map shows them. */
enum qa_role_group {
	QA_GROUP_ATTN,
	QA_GROUP_SSM,
	QA_GROUP_MLP,
	QA_GROUP_EXPERTS,
	QA_GROUP_SHARED,
	QA_GROUP_MTP,
	QA_GROUP_EMBED,
	QA_GROUP_LM_HEAD,
	QA_GROUP_NORM,
	QA_GROUP_TOWER,
	QA_GROUP_OTHER,
	QA_GROUP_COUNT
};

/* What weight quantizers make of a role. */
enum qa_quant_class {
	QA_QCLASS_NEVER,
	QA_QCLASS_EMBED,
	QA_QCLASS_LM_HEAD,
	QA_QCLASS_ROUTER,
	QA_QCLASS_LINEAR,
	QA_QCLASS_EXPERT,
	QA_QCLASS_UNSURE,
};

const char *qa_role_name(enum qa_role r);
/* Short column heading of the per-layer map ("q", "down", "xup"...). */
const char *qa_role_heading(enum qa_role r);
enum qa_role_group qa_role_group(enum qa_role r);
const char *qa_role_group_name(enum qa_role_group g);
enum qa_quant_class qa_role_quant_class(enum qa_role r);
/* A Linear layer: quantizer class LINEAR or EXPERT. */
bool qa_role_is_linear(enum qa_role r);
/* The role gets a column in the per-layer precision map. */
bool qa_role_in_map(enum qa_role r);

#endif /* QA_CORE_ROLES_H */
