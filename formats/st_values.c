/* SPDX-License-Identifier: MIT */
/*
 * The few tensor values a safetensors header cannot say. HQQ (mobiusml/
 * hqq hqq/core/quantize.py HQQLinear.state_dict, saved by hqq/models/
 * base.py save_to_safetensors) stores each quantized Linear's metadata as
 * tiny tensors beside its W_q: nbits, group_size and axis as I32 scalars,
 * the logical shape (out, in) as an I64 [2]. The header gives W_q's
 * packed shape only, and a 4-bit W_q of group 64 has the shape of an
 * 8-bit one of group 32, so the bits and the logical shape are data.
 *
 * Only those names, only when the file holds a W_q (so no other file pays
 * a read), only integer tensors of at most two elements, at most
 * ST_VALUES_MAX per file. safetensors' writer sorts tensors by dtype
 * alignment before name (huggingface/safetensors bindings/python/src/
 * lib.rs prepare), so the scalars of every layer sit together at the
 * start of the buffer: the wanted spans are merged across small gaps
 * into a few reads. A failed read (a streamed archive member, a shrunk
 * file) leaves the values unread: the analysis then says what it could
 * not tell; it is not an error of the file.
 */
#include "formats/format.h"

#include <stdlib.h>
#include <string.h>

#include "core/ckd.h"

#define ST_VALUES_MAX 65536u		/* tensors read per file */
#define ST_VALUES_GAP 4096u		/* bytes of gap a merged read spans */
#define ST_VALUES_SPAN (1u << 20)	/* bytes of one merged read */

static const char *const value_names[] = {
	"nbits", "group_size", "axis", "shape",
};

static bool
last_is(const char *name, const char *want)
{
	const char *dot = strrchr(name, '.');

	return dot && strcmp(dot + 1, want) == 0;
}

static bool
wanted(const struct qa_tensor *t)
{
	size_t i;

	if (t->elements == 0 || t->elements > 2 ||
	    (strcmp(t->dtype, "I32") != 0 && strcmp(t->dtype, "I64") != 0) ||
	    t->bytes != t->elements * (t->dtype[1] == '3' ? 4u : 8u))
		return false;
	for (i = 0; i < sizeof(value_names) / sizeof(value_names[0]); i++)
		if (last_is(t->name, value_names[i]))
			return true;
	return false;
}

/* A bottom-up merge sort of tensor indices by data offset (qsort has no
 * context argument in C11): n log n, so a crafted file of ST_VALUES_MAX
 * entries costs no more than a real one of that size. */
static void
sort_by_offset(uint32_t *ix, uint32_t *tmp, uint32_t n,
	       const struct qa_tensor *tensors)
{
	uint32_t width, i;

	for (width = 1; width < n; width *= 2) {
		for (i = 0; i < n; i += 2 * width) {
			uint32_t mid = n - i > width ? i + width : n;
			uint32_t hi = n - mid > width ? mid + width : n;
			uint32_t a = i, b = mid, k;

			for (k = i; k < hi; k++)
				tmp[k] = a < mid && (b >= hi ||
						     tensors[ix[a]].offset <=
						     tensors[ix[b]].offset) ?
					 ix[a++] : ix[b++];
		}
		memcpy(ix, tmp, n * sizeof(*ix));
	}
}

static int64_t
le_int(const unsigned char *p, unsigned size)
{
	uint64_t v = 0;
	unsigned i;

	for (i = size; i-- > 0;)
		v = v << 8 | p[i];
	if (size == 4)
		return (int64_t)(int32_t)(uint32_t)v;
	return (int64_t)v;
}

int
qa_st_read_small_values(struct qa_inventory *inv, uint32_t first,
			struct qa_source *src)
{
	uint32_t i, n = 0, k, *ix, *tmp;
	unsigned char *buf;
	bool has_wq = false;

	for (i = first; i < inv->n_tensors && !has_wq; i++)
		has_wq = last_is(inv->tensors[i].name, "W_q");
	if (!has_wq)
		return QA_OK;
	for (i = first; i < inv->n_tensors && n < ST_VALUES_MAX; i++)
		if (wanted(&inv->tensors[i]))
			n++;
	if (n == 0)
		return QA_OK;
	ix = malloc(2 * (size_t)n * sizeof(*ix));
	buf = malloc(ST_VALUES_SPAN);
	if (!ix || !buf) {
		free(ix);
		free(buf);
		return QA_E_NOMEM;
	}
	tmp = ix + n;
	for (i = first, k = 0; i < inv->n_tensors && k < n; i++)
		if (wanted(&inv->tensors[i]))
			ix[k++] = i;
	sort_by_offset(ix, tmp, n, inv->tensors);
	for (k = 0; k < n;) {
		uint64_t start = inv->tensors[ix[k]].offset, end;
		uint32_t j = k, m;

		/* extend the span while the next value is near and fits */
		end = start + inv->tensors[ix[k]].bytes;
		while (j + 1 < n) {
			const struct qa_tensor *t = &inv->tensors[ix[j + 1]];

			if (t->offset > end + ST_VALUES_GAP ||
			    t->offset + t->bytes - start > ST_VALUES_SPAN)
				break;
			if (t->offset + t->bytes > end)
				end = t->offset + t->bytes;
			j++;
		}
		if (end <= src->size && end > start &&
		    qa_source_read(src, start, buf, (size_t)(end - start)) ==
		    QA_OK) {
			for (m = k; m <= j; m++) {
				struct qa_tensor *t = &inv->tensors[ix[m]];
				unsigned size = (unsigned)(t->bytes /
							   t->elements);
				int64_t *v;
				uint64_t e;

				if (t->offset < start ||
				    t->offset + t->bytes > end)
					continue;
				v = qa_arena_array(&inv->arena,
						   (size_t)t->elements,
						   sizeof(*v));
				if (!v) {
					free(ix);
					free(buf);
					return QA_E_NOMEM;
				}
				for (e = 0; e < t->elements; e++)
					v[e] = le_int(buf + (t->offset - start) +
						      e * size, size);
				t->value = v;
			}
		}
		k = j + 1;
	}
	free(ix);
	free(buf);
	return QA_OK;
}
