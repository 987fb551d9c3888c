/* SPDX-License-Identifier: MIT */
/*
 * Grouping of repeated findings (src/core/inventory.c
 * qa_inventory_group_findings): one problem repeated over layers is one
 * finding with a count and the layer range; findings that differ in a
 * name (a file's part number, a tensor) keep every name, or the first
 * four and how many more; different rules, severities or files are never
 * merged.
 */
#include <stdio.h>
#include <string.h>

#include "core/inventory.h"
#include "harness.h"

static struct qa_inventory *
fresh(void)
{
	struct qa_inventory *inv = qa_inventory_create("model");

	if (!inv) {
		FAIL("out of memory");
		return NULL;
	}
	return inv;
}

/* The same problem in layers 61-75 reads as one finding with the range. */
static void
test_layer_range(void)
{
	struct qa_inventory *inv = fresh();
	int l;

	if (!inv)
		return;
	th_case = "layer range";
	for (l = 75; l >= 61; l--)
		qa_inv_finding(inv, 2002, NULL, -1, NULL,
			       "MTP layer %d lacks eh_proj", l);
	qa_inventory_group_findings(inv);
	CHECK_EQ(inv->n_findings, 1);
	CHECK_STR(inv->findings[0].message,
		  "MTP layer 75 lacks eh_proj (15 times, for 61-75)");
	CHECK_EQ(inv->findings[0].count, 15);
	/* tensor names indexed by block: blk.N is a layer too */
	qa_inventory_destroy(inv);
	inv = fresh();
	if (!inv)
		return;
	th_case = "blk.N range with a gap";
	for (l = 0; l < 6; l++)
		if (l != 3)
			qa_inv_finding(inv, 2106, "m.gguf", 100 * l,
				       "t", "blk.%d.ffn_up_exps.weight holds 3 "
				       "experts but qwen3moe.expert_count is 4",
				       l);
	qa_inventory_group_findings(inv);
	CHECK_EQ(inv->n_findings, 1);
	CHECK_STR(inv->findings[0].message,
		  "blk.0.ffn_up_exps.weight holds 3 experts but "
		  "qwen3moe.expert_count is 4 (5 times, for 0-2, 4-5)");
	qa_inventory_destroy(inv);
}

/* Numbers inside file names are not layers: the names are listed. */
static void
test_names_listed(void)
{
	struct qa_inventory *inv = fresh();

	if (!inv)
		return;
	th_case = "file names";
	qa_inv_finding(inv, 1102, NULL, -1, NULL,
		       "'d/tiny-00004-of-00003.gguf' claims part 4 of 3");
	qa_inv_finding(inv, 1102, NULL, -1, NULL,
		       "'d/tiny-00005-of-00003.gguf' claims part 5 of 3");
	qa_inventory_group_findings(inv);
	CHECK_EQ(inv->n_findings, 1);
	/* two numbers vary: the first differing word is listed */
	CHECK_STR(inv->findings[0].message,
		  "'d/tiny-00004-of-00003.gguf' claims part 4 of 3 (2 times: "
		  "d/tiny-00004-of-00003.gguf, d/tiny-00005-of-00003.gguf)");
	CHECK_EQ(inv->findings[0].count, 2);
	qa_inventory_destroy(inv);

	/* the same message for different tensors: the tensors, 4 at most */
	inv = fresh();
	if (!inv)
		return;
	th_case = "tensors";
	{
		static const char *const t[] = { "a.w", "b.w", "c.w", "d.w",
						 "e.w", "f.w" };
		size_t i;

		for (i = 0; i < 6; i++)
			qa_inv_finding(inv, 1303, "s.safetensors", 8, t[i],
				       "s.safetensors holds the tensor but "
				       "weight_map does not list it");
	}
	qa_inventory_group_findings(inv);
	CHECK_EQ(inv->n_findings, 1);
	CHECK_STR(inv->findings[0].message,
		  "s.safetensors holds the tensor but weight_map does not "
		  "list it (6 times: a.w, b.w, c.w, d.w and 2 more)");
	qa_inventory_destroy(inv);
}

/* Different rules, severities or files stay apart; a message that
 * differs in words is not the same finding. */
static void
test_kept_apart(void)
{
	struct qa_inventory *inv = fresh();

	if (!inv)
		return;
	th_case = "kept apart";
	qa_inv_finding(inv, 2002, NULL, -1, NULL, "MTP layer 1 lacks eh_proj");
	qa_inv_finding(inv, 2002, NULL, -1, NULL, "MTP layer 2 lacks enorm");
	qa_inv_finding(inv, 2001, NULL, -1, NULL, "MTP layer 3 lacks eh_proj");
	qa_inv_finding(inv, 1303, "x.safetensors", -1, NULL, "layer 1");
	qa_inv_finding(inv, 1303, "y.safetensors", -1, NULL, "layer 2");
	qa_inventory_group_findings(inv);
	CHECK_EQ(inv->n_findings, 5);
	CHECK_EQ(inv->findings[0].count, 0);
	qa_inventory_destroy(inv);
}

int
main(void)
{
	test_layer_range();
	test_names_listed();
	test_kept_apart();
	th_case = NULL;
	return th_done("grouping");
}
