/* SPDX-License-Identifier: MIT */
/*
 * The role table of core/roles.h, expanded into lookups.
 */
#include "core/roles.h"

static const struct {
	const char *name;
	const char *heading;
	enum qa_role_group group;
	enum qa_quant_class qclass;
	bool in_map;
} role_table[] = {
#define QA_ROLE_ROW(e, s, h, g, c, m) \
	{ s, h, QA_GROUP_##g, QA_QCLASS_##c, m },
	QA_ROLE_LIST(QA_ROLE_ROW)
#undef QA_ROLE_ROW
};

const char *
qa_role_name(enum qa_role r)
{
	return (unsigned)r < QA_ROLE_COUNT ? role_table[r].name : "other";
}

const char *
qa_role_heading(enum qa_role r)
{
	return (unsigned)r < QA_ROLE_COUNT ? role_table[r].heading : "other";
}

enum qa_role_group
qa_role_group(enum qa_role r)
{
	return (unsigned)r < QA_ROLE_COUNT ? role_table[r].group :
	       QA_GROUP_OTHER;
}

const char *
qa_role_group_name(enum qa_role_group g)
{
	static const char *const names[] = {
		"attention", "SSM", "MLP", "experts", "shared experts", "MTP",
		"embed", "lm_head", "norm", "towers", "other",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == QA_GROUP_COUNT,
		       "one name per role group");

	return (unsigned)g < QA_GROUP_COUNT ? names[g] : "other";
}

enum qa_quant_class
qa_role_quant_class(enum qa_role r)
{
	return (unsigned)r < QA_ROLE_COUNT ? role_table[r].qclass :
	       QA_QCLASS_UNSURE;
}

bool
qa_role_is_linear(enum qa_role r)
{
	enum qa_quant_class c = qa_role_quant_class(r);

	return c == QA_QCLASS_LINEAR || c == QA_QCLASS_EXPERT;
}

bool
qa_role_in_map(enum qa_role r)
{
	return (unsigned)r < QA_ROLE_COUNT && role_table[r].in_map;
}
