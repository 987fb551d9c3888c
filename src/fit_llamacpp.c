/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
#include <stdio.h>
#include "fit.h"
int qa_fit_llamacpp(const struct qa_inventory *inv, const struct qa_fit_options *opt, struct qa_fit_result *out, char *err, size_t errlen) { (void)inv; (void)opt; (void)out; snprintf(err, errlen, "not available yet"); return -1; }
