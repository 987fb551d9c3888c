/* SPDX-License-Identifier: MIT */
/*
 * Whether two tensors hold the same bytes: the one question an engine
 * asks of the data when it pairs two models (vLLM's EAGLE-3 drafter drops
 * its own embedding for the target's when torch.equal says they match,
 * vllm/v1/worker/gpu/spec_decode/eagle/utils.py, _should_share).
 */
#ifndef QA_CORE_TENSOR_BYTES_H
#define QA_CORE_TENSOR_BYTES_H

#include <stdbool.h>

struct qa_inventory;
struct qa_tensor;

/*
 * *equal is true when ta (of a) and tb (of b) have the same stored type,
 * shape and bytes. Different types or shapes are unequal without a read;
 * otherwise both are read, 1 MiB at a time, up to the first difference.
 * QA_OK, QA_E_IO when either cannot be read (or is remote: a comparison
 * never downloads a tensor), QA_E_NOMEM. Bytes, not values: +0 and -0
 * differ here as they do not for torch.equal, and equal NaN bytes are
 * equal here, not there; a caller reads "unequal" as "kept apart".
 */
int qa_tensor_bytes_equal(const struct qa_inventory *a,
			  const struct qa_tensor *ta,
			  const struct qa_inventory *b,
			  const struct qa_tensor *tb, bool *equal);

#endif
