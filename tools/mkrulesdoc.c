/* SPDX-License-Identifier: MIT */
/*
 * Writes docs/rules.md from the rule registry (rules/registry.def), so the
 * reference can never drift from the codes the binary emits. The test
 * suite compares the committed file with this program's output; to
 * refresh it: build/tools/mkrulesdoc > docs/rules.md
 */
#include <stdio.h>

#include "core/diag.h"

int
main(void)
{
	const struct qa_rule *r;
	size_t n, i;

	r = qa_rules(&n);
	puts("# quantaudit rules\n");
	puts("Every finding quantaudit reports has a stable code (`QA` + four "
	     "digits,\nnever reused), an id, a category and a default "
	     "severity. This file is\ngenerated from `rules/registry.def` by "
	     "`tools/mkrulesdoc`; do not edit it\nby hand.\n");
	puts("| code | id | category | severity | summary |");
	puts("|---|---|---|---|---|");
	for (i = 0; i < n; i++)
		printf("| QA%04u | `%s` | %s | %s | %s |\n",
		       (unsigned)r[i].code, r[i].id,
		       qa_category_name(r[i].category),
		       qa_severity_name(r[i].severity), r[i].summary);
	for (i = 0; i < n; i++)
		printf("\n## QA%04u `%s`\n\n%s, %s by default: %s.\n\n%s\n",
		       (unsigned)r[i].code, r[i].id,
		       qa_category_name(r[i].category),
		       qa_severity_name(r[i].severity), r[i].summary,
		       r[i].doc);
	return 0;
}
