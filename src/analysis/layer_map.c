/* SPDX-License-Identifier: MIT */
/*
 * The per-layer precision map (analysis/analysis.h): for every block, the
 * precision each role holds, from the modules (or, without modules, the
 * 2-D tensors' dtypes). The reporters draw it; the facts are made here.
 */
#include "analysis/analysis.h"

#include <stdlib.h>
#include <string.h>

/* Blocks past this index are not mapped (a name like blk.4000000000 is a
 * damaged file, reported elsewhere, not a table to draw). */
#define LAYER_MAP_MAX 65536

enum qa_role_group
qa_layer_map_group(enum qa_role r)
{
	enum qa_role_group g = qa_role_group(r);

	return g <= QA_GROUP_MTP ? g : QA_GROUP_OTHER;
}

/* Column order: by group, then role order within it. */
static int
col_rank(enum qa_role r)
{
	return (int)qa_layer_map_group(r) * QA_ROLE_COUNT + (int)r;
}

static const char MIX[] = "mix";

static void
map_put(const char **cells, bool *has_layer, bool *mtp, bool *has_role,
	int32_t layer, enum qa_role role, bool is_mtp, const char *label)
{
	const char **cell;

	if (layer < 0 || layer >= LAYER_MAP_MAX || !qa_role_in_map(role) || !label)
		return;
	cell = &cells[(size_t)layer * QA_ROLE_COUNT + role];
	has_layer[layer] = true;
	has_role[role] = true;
	if (is_mtp)
		mtp[layer] = true;
	if (!*cell)
		*cell = label;
	else if (*cell != MIX && strcmp(*cell, label) != 0)
		*cell = MIX;
}

int
qa_layer_map_build(const struct qa_inventory *inv, struct qa_layer_map *m)
{
	bool has_role[QA_ROLE_COUNT] = { false };
	const char **cells = NULL;
	size_t cells_bytes = 0;
	bool *has_layer = NULL, *mtp = NULL;
	int32_t max_layer = -1;
	uint32_t i, r, row;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	if (inv->n_modules) {
		for (i = 0; i < inv->n_modules; i++)
			if (inv->modules[i].layer > max_layer &&
			    inv->modules[i].layer < LAYER_MAP_MAX)
				max_layer = inv->modules[i].layer;
	} else {
		for (i = 0; i < inv->n_tensors; i++)
			if (inv->tensors[i].layer > max_layer &&
			    inv->tensors[i].layer < LAYER_MAP_MAX)
				max_layer = inv->tensors[i].layer;
	}
	if (max_layer < 0)
		return 0;
	cells_bytes = (size_t)(max_layer + 1) * QA_ROLE_COUNT * sizeof(*cells);
	cells = qa_big_alloc(cells_bytes);
	has_layer = calloc((size_t)max_layer + 1, sizeof(*has_layer));
	mtp = calloc((size_t)max_layer + 1, sizeof(*mtp));
	if (!cells || !has_layer || !mtp)
		goto out;
	if (inv->n_modules) {
		for (i = 0; i < inv->n_modules; i++) {
			const struct qa_module *mod = &inv->modules[i];

			map_put(cells, has_layer, mtp, has_role, mod->layer,
				mod->role, mod->mtp, mod->precision ?
				mod->precision : qa_scheme_name(mod->scheme));
		}
	} else {
		/* No modules (the classifier did not run or found none):
		 * every 2-D tensor is one weight matrix, its dtype the
		 * precision; for GGUF that is exactly the ggml type. */
		for (i = 0; i < inv->n_tensors; i++) {
			const struct qa_tensor *t = &inv->tensors[i];

			if (t->n_dims >= 2)
				map_put(cells, has_layer, mtp, has_role,
					t->layer, t->role, t->mtp, t->dtype);
		}
	}
	for (r = 0; r < QA_ROLE_COUNT; r++)
		if (has_role[r])
			m->n_cols++;
	for (i = 0; i <= (uint32_t)max_layer; i++)
		if (has_layer[i])
			m->n_rows++;
	if (m->n_rows == 0 || m->n_cols == 0) {
		m->n_rows = m->n_cols = 0;
		rc = 0;
		goto out;
	}
	m->roles = malloc(sizeof(*m->roles) * m->n_cols);
	m->layer = malloc(sizeof(*m->layer) * m->n_rows);
	m->mtp = malloc(sizeof(*m->mtp) * m->n_rows);
	m->cells = calloc((size_t)m->n_rows * m->n_cols, sizeof(*m->cells));
	if (!m->roles || !m->layer || !m->mtp || !m->cells) {
		qa_layer_map_free(m);
		goto out;
	}
	/* Columns by group, then role order (insertion sort: < 64). */
	for (r = 0, i = 0; r < QA_ROLE_COUNT; r++) {
		uint32_t k;

		if (!has_role[r])
			continue;
		for (k = i; k > 0 && col_rank(m->roles[k - 1]) >
		     col_rank((enum qa_role)r); k--)
			m->roles[k] = m->roles[k - 1];
		m->roles[k] = (enum qa_role)r;
		i++;
	}
	for (i = 0, row = 0; i <= (uint32_t)max_layer; i++) {
		if (!has_layer[i])
			continue;
		m->layer[row] = (int32_t)i;
		m->mtp[row] = mtp[i];
		for (r = 0; r < m->n_cols; r++)
			m->cells[(size_t)row * m->n_cols + r] =
				cells[(size_t)i * QA_ROLE_COUNT + m->roles[r]];
		row++;
	}
	rc = 0;
out:
	qa_big_free(cells, cells_bytes);
	free(has_layer);
	free(mtp);
	return rc;
}

void
qa_layer_map_free(struct qa_layer_map *m)
{
	free(m->layer);
	free(m->mtp);
	free(m->roles);
	free(m->cells);
	memset(m, 0, sizeof(*m));
}

static bool
same_cell(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

uint32_t
qa_layer_map_run(const struct qa_layer_map *m, uint32_t row)
{
	uint32_t n = 1, c;

	while (row + n < m->n_rows) {
		uint32_t next = row + n;

		if (m->layer[next] != m->layer[next - 1] + 1 ||
		    m->mtp[next] != m->mtp[row])
			break;
		for (c = 0; c < m->n_cols; c++)
			if (!same_cell(m->cells[(size_t)row * m->n_cols + c],
				       m->cells[(size_t)next * m->n_cols + c]))
				break;
		if (c < m->n_cols)
			break;
		n++;
	}
	return n;
}

