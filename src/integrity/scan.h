/* SPDX-License-Identifier: MIT */
/*
 * `quantaudit scan`: the tensor data read (on the threads of content.c)
 * and checked without dequantizing — float tensors element by element
 * (NaN, infinities, values past the FP16 range), quantized ggml tensors
 * through the scale of every block (the d a block is multiplied by:
 * NaN, infinite, or zero in every block), the scale tensors of the
 * safetensors schemes (zero or negative scales), and every tensor for
 * bytes that are all zero or all one value. What it finds are findings
 * QA1701-QA1707 (rules/registry_data.def) naming the tensor and the
 * offset of the first bad value, and QA1708 for tensors it could not
 * read; docs/scan.md lists what each type gets.
 */
#ifndef QA_INTEGRITY_SCAN_H
#define QA_INTEGRITY_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/inventory.h"
#include "integrity/content.h"

struct qa_scan_totals {
	uint64_t bytes;		/* tensor bytes read */
	uint32_t tensors;	/* tensors read */
	uint32_t by_value;	/* checked element by element */
	uint32_t by_scale;	/* checked through block scales */
	uint32_t bytes_only;	/* checked for constant bytes only */
	uint32_t unread;	/* could not be read (past the end...) */
};

/*
 * Reads every tensor of inv (through inv->fs) and adds the data findings
 * to it. opt: jobs and progress (its visit fields are set here). Returns
 * QA_OK or QA_E_NOMEM (err says so).
 */
int qa_scan_run(struct qa_inventory *inv, const struct qa_content_options *opt,
		struct qa_scan_totals *tot, char *err, size_t errlen);

#endif /* QA_INTEGRITY_SCAN_H */
