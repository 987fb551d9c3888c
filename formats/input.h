/* SPDX-License-Identifier: MIT */
/*
 * The input driver: turns a path (file or folder) into an inventory by
 * probing it and handing it to the right format module, then computes the
 * derived summaries.
 */
#ifndef QA_SRC_INPUT_H
#define QA_SRC_INPUT_H

#include <stddef.h>

#include "core/inventory.h"

/*
 * Inspects path. On QA_OK *out is an inventory (possibly with findings)
 * that the caller destroys. On QA_E_UNRECOGNIZED (exit 3), QA_E_IO or
 * QA_E_NOMEM (exit 4) *out is NULL and err holds a one-line diagnostic
 * without trailing newline.
 */
int qa_input_inspect(const char *path, struct qa_inventory **out, char *err,
		     size_t errlen);

#endif /* QA_SRC_INPUT_H */
