/* SPDX-License-Identifier: MIT */
/*
 * GPU profiles (rules/gpus.def) and the --gpus SPEC parser; the grammar
 * and the unit conventions are documented in gpuspec.h.
 *
 * The parser works on one item at a time (items are separated by ',' or
 * '+', spaces around them are ignored): an optional "Nx" count, then a
 * size (digits and a unit) or a profile name with an optional ":N" count.
 * Every way to get it wrong has its own message, so a typo in CI says
 * what to fix.
 */
#include "fit/gpuspec.h"

#include "fit/gpu_detect.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Case-insensitive equality of s[0..len) with the NUL-terminated word. */
static bool
word_is(const char *s, size_t len, const char *word)
{
	size_t i;

	if (strlen(word) != len)
		return false;
	for (i = 0; i < len; i++)
		if (tolower((unsigned char)s[i]) != word[i])
			return false;
	return true;
}

/* Bytes of one unit ("G", "GiB", "mb"...), 0 when not a unit. */
static uint64_t
unit_bytes(const char *s, size_t len)
{
	static const struct { const char *w; unsigned shift; } units[] = {
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tb", 40 }, { "tib", 40 },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (word_is(s, len, units[i].w))
			return (uint64_t)1 << units[i].shift;
	return 0;
}

/* Reads decimal digits at *p (at most 12); false if none or too many. */
static bool
read_number(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	while (s < end && isdigit((unsigned char)*s)) {
		if (++n > 12)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	if (n == 0)
		return false;
	*p = s;
	*out = v;
	return true;
}

/*
 * Parses a size item "16G" (whole text s[0..len)). Returns 1 when it is a
 * size (bytes in *out), 0 when it does not look like a size at all (a
 * profile name such as "3090"), -1 on an error written to err.
 */
static int
parse_size(const char *s, size_t len, uint64_t *out, char *err,
	   size_t errlen)
{
	const char *p = s, *end = s + len;
	uint64_t v, unit;

	if (!read_number(&p, end, &v)) {
		if (len && isdigit((unsigned char)s[0])) {
			snprintf(err, errlen, "size '%.*s' is too large",
				 (int)len, s);
			return -1;
		}
		return 0;
	}
	if (p == end)
		return 0;	/* bare digits: a profile name like "4090" */
	if (*p == '.' || *p == ',') {
		snprintf(err, errlen, "size '%.*s' is not a whole number (write "
			 "fractions in MiB, e.g. 15888M)", (int)len, s);
		return -1;
	}
	unit = unit_bytes(p, (size_t)(end - p));
	if (!unit)
		return 0;	/* a name such as "5060ti", or a bad unit */
	if (v == 0) {
		snprintf(err, errlen, "size '%.*s' is zero", (int)len, s);
		return -1;
	}
	if (v > UINT64_MAX / unit || v * unit > ((uint64_t)1 << 50)) {
		snprintf(err, errlen, "size '%.*s' is too large (at most "
			 "1 PiB per device)", (int)len, s);
		return -1;
	}
	*out = v * unit;
	return 1;
}

static void
size_name(uint64_t bytes, char *out, size_t outlen)
{
	if (bytes % ((uint64_t)1 << 30) == 0)
		snprintf(out, outlen, "%lluGiB",
			 (unsigned long long)(bytes >> 30));
	else
		snprintf(out, outlen, "%lluMiB",
			 (unsigned long long)(bytes >> 20));
}

static void
set_plain(struct qa_gpu_device *d, uint64_t bytes)
{
	memset(d, 0, sizeof(*d));
	size_name(bytes, d->name, sizeof(d->name));
	d->vram_bytes = bytes;
	d->usable_bytes = bytes > QA_GPU_DEFAULT_RESERVE ?
			  bytes - QA_GPU_DEFAULT_RESERVE : 0;
	d->cc_major = d->cc_minor = -1;
}

static void
set_profile(struct qa_gpu_device *d, const struct qa_gpu_profile *p)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", p->id);
	d->profile = p;
	d->vram_bytes = p->vram_bytes;
	if (p->usable_bytes)
		d->usable_bytes = p->usable_bytes;
	else
		d->usable_bytes = p->vram_bytes > QA_GPU_DEFAULT_RESERVE ?
				  p->vram_bytes - QA_GPU_DEFAULT_RESERVE : 0;
	d->bandwidth_gbs = p->bandwidth_gbs;
	d->cc_major = p->cc_major;
	d->cc_minor = p->cc_minor;
	d->flags = p->flags;
}

/* Parses a device count (1..QA_GPU_MAX) from s[0..len). */
static bool
parse_count(const char *s, size_t len, const char *item, size_t ilen,
	    uint64_t *out, char *err, size_t errlen)
{
	const char *p = s;

	if (!read_number(&p, s + len, out) || p != s + len) {
		snprintf(err, errlen, "bad device count in '%.*s' (a number "
			 "from 1 to %d)", (int)ilen, item, QA_GPU_MAX);
		return false;
	}
	if (*out < 1 || *out > QA_GPU_MAX) {
		snprintf(err, errlen, "device count %llu in '%.*s' is out of "
			 "range (1 to %d)", (unsigned long long)*out,
			 (int)ilen, item, QA_GPU_MAX);
		return false;
	}
	return true;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* One item s[0..len), already trimmed and non-empty. */
static int
parse_item(const char *s, size_t len, struct qa_gpu_set *out, char *err,
	   size_t errlen)
{
	const struct qa_gpu_profile *prof = NULL;
	const char *body = s, *colon;
	size_t blen = len;
	uint64_t count = 1, bytes = 0, i;
	size_t k;
	int r;

	/* "2x16G", "2xrtx-4090": digits then 'x' then more. */
	{
		const char *p = s;
		uint64_t n;

		if (read_number(&p, s + len, &n) && p < s + len &&
		    (*p == 'x' || *p == 'X') && p + 1 < s + len) {
			if (!parse_count(s, (size_t)(p - s), s, len, &count,
					 err, errlen))
				return -1;
			body = p + 1;
			blen = len - (size_t)(body - s);
		}
	}
	r = parse_size(body, blen, &bytes, err, errlen);
	if (r < 0)
		return -1;
	if (r == 0) {
		size_t nlen = blen;

		colon = memchr(body, ':', blen);
		if (colon) {
			nlen = (size_t)(colon - body);
			if (body != s) {
				snprintf(err, errlen, "'%.*s' gives the count "
					 "twice (use 2xNAME or NAME:2)",
					 (int)len, s);
				return -1;
			}
			if (!parse_count(colon + 1, blen - nlen - 1, s, len,
					 &count, err, errlen))
				return -1;
		}
		if (nlen == 0) {
			snprintf(err, errlen, "'%.*s' has no GPU name",
				 (int)len, s);
			return -1;
		}
		prof = qa_gpu_profile_find_n(body, nlen);
		k = strspn(body, "0123456789");
		/* Not a profile: digits and a short tail starting like a
		 * unit ("16K", "16kb") are a size with a bad unit. */
		if (!prof && k > 0 && k < nlen && nlen - k <= 3 &&
		    strchr("mMgGtTkKpPbB", body[k])) {
			snprintf(err, errlen, "unknown size unit in '%.*s' "
				 "(use M, G or T; G means GiB)", (int)nlen,
				 body);
			return -1;
		}
		if (!prof && k == nlen) {
			snprintf(err, errlen, "size '%.*s' has no unit (write "
				 "%.*sG for GiB)", (int)nlen, body, (int)nlen,
				 body);
			return -1;
		}
		if (!prof) {
			snprintf(err, errlen, "unknown GPU '%.*s' (a size such "
				 "as 16G, or a profile listed in "
				 "docs/knowledge.md)", (int)nlen, body);
			return -1;
		}
	}
	if (out->n + count > QA_GPU_MAX) {
		snprintf(err, errlen, "more than %d devices", QA_GPU_MAX);
		return -1;
	}
	for (i = 0; i < count; i++) {
		if (prof)
			set_profile(&out->dev[out->n++], prof);
		else
			set_plain(&out->dev[out->n++], bytes);
	}
	return 0;
}

/* A device behind llama.cpp's rpc-server: named so in every report. */
static void
mark_rpc(struct qa_gpu_device *d)
{
	char name[sizeof(d->name)];

	snprintf(name, sizeof(name), "rpc:%s", d->name);
	memcpy(d->name, name, sizeof(name));
	d->flags |= QA_GPU_RPC;
}

/* llama.cpp's device order: RPC devices first, in the order given, then
 * the local ones (a stable partition; at most QA_GPU_MAX devices). */
static void
rpc_first(struct qa_gpu_set *set)
{
	struct qa_gpu_device sorted[QA_GPU_MAX];
	size_t i, n = 0;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < set->n; i++)
			if (((set->dev[i].flags & QA_GPU_RPC) != 0) ==
			    (pass == 0))
				sorted[n++] = set->dev[i];
	memcpy(set->dev, sorted, n * sizeof(*sorted));
}

int
qa_gpuspec_parse(const char *spec, struct qa_gpu_set *out, char *err,
		 size_t errlen)
{
	const char *s, *end;
	uint64_t bytes;

	memset(out, 0, sizeof(*out));
	if (!spec)
		spec = "";
	while (is_space(*spec))
		spec++;
	end = spec + strlen(spec);
	while (end > spec && is_space(end[-1]))
		end--;
	if (end == spec) {
		snprintf(err, errlen, "empty GPU spec (e.g. 2x16G, "
			 "rtx-5060-ti:2 or none)");
		return -1;
	}
	if (word_is(spec, (size_t)(end - spec), "none")) {
		out->host_only = true;
		return 0;
	}
	if (word_is(spec, (size_t)(end - spec), "auto")) {
		const struct qa_gpu_detected *d;

		if (qa_gpu_detect(&d, err, errlen) != 0)
			return -1;
		*out = d->set;
		return 0;
	}
	if ((size_t)(end - spec) >= 8 && word_is(spec, 8, "unified:")) {
		const char *v = spec + 8;
		int r = parse_size(v, (size_t)(end - v), &bytes, err, errlen);

		if (r == 0) {
			snprintf(err, errlen, "'%.*s' needs a size, e.g. "
				 "unified:128G", (int)(end - spec), spec);
			return -1;
		}
		if (r < 0)
			return -1;
		snprintf(out->dev[0].name, sizeof(out->dev[0].name),
			 "unified");
		out->dev[0].vram_bytes = bytes;
		out->dev[0].usable_bytes = bytes > QA_GPU_UNIFIED_RESERVE ?
					   bytes - QA_GPU_UNIFIED_RESERVE : 0;
		out->dev[0].cc_major = out->dev[0].cc_minor = -1;
		out->dev[0].flags = QA_GPU_UNIFIED;
		out->n = 1;
		return 0;
	}
	s = spec;
	for (;;) {
		const char *e = s, *a, *b;

		while (e < end && *e != ',' && *e != '+')
			e++;
		a = s;
		b = e;
		while (a < b && is_space(*a))
			a++;
		while (b > a && is_space(b[-1]))
			b--;
		if (a == b) {
			snprintf(err, errlen, "empty item in GPU spec '%.*s'",
				 (int)(end - spec), spec);
			return -1;
		}
		if (word_is(a, (size_t)(b - a), "none") ||
		    ((size_t)(b - a) >= 8 && word_is(a, 8, "unified:"))) {
			snprintf(err, errlen, "'%.*s' cannot be combined with "
				 "other devices", (int)(b - a), a);
			return -1;
		}
		if ((size_t)(b - a) == 4 && word_is(a, 4, "rpc:")) {
			snprintf(err, errlen, "'rpc:' needs a device, e.g. "
				 "rpc:24G or rpc:rtx-3090");
			return -1;
		}
		if ((size_t)(b - a) > 4 && word_is(a, 4, "rpc:")) {
			size_t first = out->n, k;

			if (parse_item(a + 4, (size_t)(b - a) - 4, out, err,
				       errlen) != 0)
				return -1;
			for (k = first; k < out->n; k++)
				mark_rpc(&out->dev[k]);
		} else if (parse_item(a, (size_t)(b - a), out, err,
				      errlen) != 0) {
			return -1;
		}
		if (e == end)
			break;
		s = e + 1;
	}
	rpc_first(out);
	return 0;
}
