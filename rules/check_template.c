/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
#include "../src/check.h"
static void run(struct qa_inventory *inv, const struct qa_check_options *opt) { (void)inv; (void)opt; }
const struct qa_check qa_check_template = { "template", run };
