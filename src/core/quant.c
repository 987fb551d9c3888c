/* SPDX-License-Identifier: MIT */
/*
 * Names of the quantization enums of core/quant.h.
 */
#include "core/quant.h"

const char *
qa_quant_method_name(enum qa_quant_method m)
{
	switch (m) {
	case QA_QM_NONE: return "none";
	case QA_QM_GPTQ: return "gptq";
	case QA_QM_AWQ: return "awq";
	case QA_QM_AUTOROUND: return "auto-round";
	case QA_QM_COMPRESSED_TENSORS: return "compressed-tensors";
	case QA_QM_MODELOPT: return "modelopt";
	case QA_QM_FP8: return "fp8";
	case QA_QM_MXFP4: return "mxfp4";
	case QA_QM_BITSANDBYTES: return "bitsandbytes";
	case QA_QM_MLX: return "mlx";
	case QA_QM_EXL2: return "exl2";
	case QA_QM_EXL3: return "exl3";
	case QA_QM_HQQ: return "hqq";
	case QA_QM_TORCHAO: return "torchao";
	case QA_QM_QUARK: return "quark";
	case QA_QM_QQQ: return "qqq";
	case QA_QM_PAROQUANT: return "paroquant";
	case QA_QM_GPTQM_GGUF: return "gguf";
	case QA_QM_OTHER: return "other";
	}
	return "other";
}

const char *
qa_scheme_name(enum qa_scheme s)
{
	static const char *const names[] = {
#define QA_SCHEME_STR(e, str) str,
		QA_SCHEME_LIST(QA_SCHEME_STR)
#undef QA_SCHEME_STR
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == QA_SCHEME_COUNT,
		       "one name per scheme");

	if ((unsigned)s >= QA_SCHEME_COUNT)
		return "unknown";
	return names[s];
}
