/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the --gpus SPEC parser and the GPU profile table
 * (src/fit/gpuspec.c, rules/gpus.def). Every accepted form is checked against
 * byte counts worked out by hand (G = 2^30, M = 2^20, the default
 * reservation 560 MiB = 587202560 bytes, profile figures copied from the
 * MiB values in gpus.def and multiplied by 1048576), and every error
 * against its exact one-line message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fit/gpuspec.h"
#include "harness.h"

struct want {
	const char *name;
	uint64_t vram, usable;
	uint32_t bw;
	int cc_major, cc_minor;
	unsigned flags;
};

/* 16 GiB, 24 GiB, 15888 MiB, 1 GiB, 2 GiB plain devices. */
static const struct want g16 = { "16GiB", 17179869184u, 16592666624u, 0,
				 -1, -1, 0 };
static const struct want g24 = { "24GiB", 25769803776u, 25182601216u, 0,
				 -1, -1, 0 };
static const struct want m15888 = { "15888MiB", 16659775488u, 16072572928u,
				    0, -1, -1, 0 };
static const struct want g1 = { "1GiB", 1073741824u, 486539264u, 0, -1, -1,
				0 };
static const struct want t1 = { "1024GiB", 1099511627776u,
				1098924425216u, 0, -1, -1, 0 };
/* Profiles: 16310/15751 MiB, 24564 MiB, 24575 MiB. */
static const struct want r5060 = { "rtx-5060-ti", 17102274560u,
				   16516120576u, 448, 12, 0,
				   QA_GPU_FP8 | QA_GPU_FP4 };
static const struct want r4090 = { "rtx-4090", 25757220864u, 25170018304u,
				   1008, 8, 9, QA_GPU_FP8 };
static const struct want r3090 = { "rtx-3090", 25768755200u, 25181552640u,
				   936, 8, 6, 0 };
/* llama.cpp --rpc devices: as the item after "rpc:", flagged and named. */
static const struct want rpc24 = { "rpc:24GiB", 25769803776u, 25182601216u,
				   0, -1, -1, QA_GPU_RPC };
static const struct want rpc3090 = { "rpc:rtx-3090", 25768755200u,
				     25181552640u, 936, 8, 6, QA_GPU_RPC };
/* unified:128G: 128 GiB minus 512 MiB. */
static const struct want uni = { "unified", 137438953472u, 136902082560u,
				 0, -1, -1, QA_GPU_UNIFIED };

static void
expect_ok(const char *spec, size_t n, const struct want *const *w)
{
	struct qa_gpu_set set;
	char err[256] = "";
	size_t i;

	if (qa_gpuspec_parse(spec, &set, err, sizeof(err)) != 0) {
		FAIL("'%s' rejected: %s", spec, err);
		return;
	}
	CHECKF(set.n == n, "'%s': %zu devices, expected %zu", spec, set.n, n);
	CHECKF(!set.host_only, "'%s': host_only set", spec);
	for (i = 0; i < n && i < set.n; i++) {
		const struct qa_gpu_device *d = &set.dev[i];

		CHECKF(strcmp(d->name, w[i]->name) == 0,
		       "'%s' dev %zu: name %s, expected %s", spec, i, d->name,
		       w[i]->name);
		CHECKF(d->vram_bytes == w[i]->vram,
		       "'%s' dev %zu: vram %" PRIu64 ", expected %" PRIu64,
		       spec, i, d->vram_bytes, w[i]->vram);
		CHECKF(d->usable_bytes == w[i]->usable,
		       "'%s' dev %zu: usable %" PRIu64 ", expected %" PRIu64,
		       spec, i, d->usable_bytes, w[i]->usable);
		CHECKF(d->bandwidth_gbs == w[i]->bw,
		       "'%s' dev %zu: bandwidth %u, expected %u", spec, i,
		       d->bandwidth_gbs, w[i]->bw);
		CHECKF(d->cc_major == w[i]->cc_major &&
		       d->cc_minor == w[i]->cc_minor,
		       "'%s' dev %zu: cc %d.%d, expected %d.%d", spec, i,
		       d->cc_major, d->cc_minor, w[i]->cc_major,
		       w[i]->cc_minor);
		CHECKF(d->flags == w[i]->flags, "'%s' dev %zu: flags %u, "
		       "expected %u", spec, i, d->flags, w[i]->flags);
		CHECKF((d->profile != NULL) == (w[i]->bw != 0),
		       "'%s' dev %zu: profile pointer", spec, i);
	}
}

static void
expect_err(const char *spec, const char *msg)
{
	struct qa_gpu_set set;
	char err[256] = "";

	if (qa_gpuspec_parse(spec, &set, err, sizeof(err)) == 0) {
		FAIL("'%s' accepted, expected error: %s", spec, msg);
		return;
	}
	CHECKF(strcmp(err, msg) == 0, "'%s': error \"%s\", expected \"%s\"",
	       spec, err, msg);
}

static void
test_forms(void)
{
	const struct want *two16[] = { &g16, &g16 };
	const struct want *mix[] = { &g16, &g24 };
	const struct want *one24[] = { &g24 };
	const struct want *one15888[] = { &m15888 };
	const struct want *one1t[] = { &t1 };
	const struct want *two5060[] = { &r5060, &r5060 };
	const struct want *one5060[] = { &r5060 };
	const struct want *pair[] = { &r4090, &r3090 };
	const struct want *two4090[] = { &r4090, &r4090 };
	const struct want *mixed[] = { &r4090, &g16, &g1 };
	const struct want *unified[] = { &uni };
	const struct want *rpc_then_local[] = { &rpc24, &g16 };
	const struct want *two_rpc_then_4090[] = { &rpc24, &rpc24, &r4090 };
	const struct want *rpc3090_4090_16[] = { &rpc3090, &r4090, &g16 };
	const struct want *sixteen[16];
	struct qa_gpu_set set;
	char err[256];
	size_t i;

	for (i = 0; i < 16; i++)
		sixteen[i] = &g1;
	expect_ok("2x16G", 2, two16);
	expect_ok("2X16g", 2, two16);
	expect_ok("16G,24G", 2, mix);
	expect_ok("16G+24G", 2, mix);
	expect_ok(" 16G , 24G ", 2, mix);
	expect_ok("24GiB", 1, one24);
	expect_ok("24GB", 1, one24);
	expect_ok("24gib", 1, one24);
	expect_ok("15888M", 1, one15888);
	expect_ok("15888MiB", 1, one15888);
	expect_ok("1T", 1, one1t);
	expect_ok("rtx-5060-ti:2", 2, two5060);
	expect_ok("RTX-5060-TI:2", 2, two5060);
	expect_ok("2xrtx-5060-ti", 2, two5060);
	expect_ok("5060ti", 1, one5060);
	expect_ok("rtx5060ti", 1, one5060);
	expect_ok("RTX 5060 Ti", 1, one5060);
	expect_ok("rtx_5060_ti:1", 1, one5060);
	expect_ok("rtx-4090+rtx-3090", 2, pair);
	expect_ok("4090,3090", 2, pair);
	expect_ok("rtx-4090:2", 2, two4090);
	expect_ok("rtx-4090+16G,1G", 3, mixed);
	expect_ok("16x1G", 16, sixteen);
	expect_ok("8x1G,8x1G", 16, sixteen);
	expect_ok("unified:128G", 1, unified);
	expect_ok("UNIFIED:128GiB", 1, unified);
	/* RPC devices first, in the order given, as llama.cpp orders them */
	expect_ok("16G+rpc:24G", 2, rpc_then_local);
	expect_ok("rpc:2x24G,rtx-4090", 3, two_rpc_then_4090);
	expect_ok("rtx-4090+RPC:rtx-3090+16G", 3, rpc3090_4090_16);

	CHECKF(qa_gpuspec_parse("none", &set, err, sizeof(err)) == 0 &&
	       set.n == 0 && set.host_only, "'none' is host memory only");
	CHECKF(qa_gpuspec_parse(" None ", &set, err, sizeof(err)) == 0 &&
	       set.n == 0 && set.host_only, "' None ' is host memory only");
}

static void
test_errors(void)
{
	expect_err("", "empty GPU spec (e.g. 2x16G, rtx-5060-ti:2 or none)");
	expect_err("  ", "empty GPU spec (e.g. 2x16G, rtx-5060-ti:2 or none)");
	expect_err("16G,,24G", "empty item in GPU spec '16G,,24G'");
	expect_err("16G,", "empty item in GPU spec '16G,'");
	expect_err("+16G", "empty item in GPU spec '+16G'");
	expect_err("rtx-9999", "unknown GPU 'rtx-9999' (a size such as 16G, "
		   "or a profile listed in docs/knowledge.md)");
	expect_err("16Q", "unknown GPU '16Q' (a size such as 16G, or a "
		   "profile listed in docs/knowledge.md)");
	expect_err("16", "size '16' has no unit (write 16G for GiB)");
	expect_err("16K", "unknown size unit in '16K' (use M, G or T; G "
		   "means GiB)");
	expect_err("0G", "size '0G' is zero");
	expect_err("15.5G", "size '15.5G' is not a whole number (write "
		   "fractions in MiB, e.g. 15888M)");
	expect_err("2000T", "size '2000T' is too large (at most 1 PiB per "
		   "device)");
	expect_err("9999999999999G", "size '9999999999999G' is too large");
	expect_err("17x1G", "device count 17 in '17x1G' is out of range "
		   "(1 to 16)");
	expect_err("0x16G", "device count 0 in '0x16G' is out of range "
		   "(1 to 16)");
	expect_err("rtx-4090:0", "device count 0 in 'rtx-4090:0' is out of "
		   "range (1 to 16)");
	expect_err("rtx-4090:abc", "bad device count in 'rtx-4090:abc' (a "
		   "number from 1 to 16)");
	expect_err("rtx-4090:", "bad device count in 'rtx-4090:' (a number "
		   "from 1 to 16)");
	expect_err("2xrtx-4090:2", "'2xrtx-4090:2' gives the count twice "
		   "(use 2xNAME or NAME:2)");
	expect_err(":2", "':2' has no GPU name");
	expect_err("9x2G,8x2G", "more than 16 devices");
	expect_err("rtx-4090:16,1G", "more than 16 devices");
	expect_err("none,16G", "'none' cannot be combined with other "
		   "devices");
	expect_err("16G+unified:64G", "'unified:64G' cannot be combined "
		   "with other devices");
	expect_err("unified:", "'unified:' needs a size, e.g. unified:128G");
	expect_err("unified:big", "'unified:big' needs a size, e.g. "
		   "unified:128G");
	expect_err("unified:0G", "size '0G' is zero");
	expect_err("rpc:", "'rpc:' needs a device, e.g. rpc:24G or "
		   "rpc:rtx-3090");
	expect_err("16G+rpc:none", "unknown GPU 'none' (a size such as 16G, "
		   "or a profile listed in docs/knowledge.md)");
	expect_err("rpc:9x2G,8x2G", "more than 16 devices");
}

static void
test_profiles(void)
{
	/* The cards the project promises (DESIGN.md, issue 3). */
	static const char *const required[] = {
		"rtx-3060-12g", "rtx-3090", "rtx-4060-ti-16g", "rtx-4090",
		"rtx-5060-ti", "rtx-5070-ti", "rtx-5080", "rtx-5090",
		"rtx-pro-6000", "a100-40g", "a100-80g", "l40s", "h100-sxm",
		"h100-pcie", "h200", "b200",
	};
	const struct qa_gpu_profile *p;
	size_t n, i;

	p = qa_gpu_profiles(&n);
	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		CHECKF(qa_gpu_profile_find(required[i]) != NULL,
		       "profile %s missing", required[i]);
	for (i = 0; i < n; i++) {
		int cc = p[i].cc_major * 10 + p[i].cc_minor;

		CHECKF(qa_gpu_profile_find(p[i].id) == &p[i],
		       "%s does not find itself", p[i].id);
		CHECKF(p[i].vram_bytes > 0 && p[i].bandwidth_gbs > 0,
		       "%s lacks vram or bandwidth", p[i].id);
		CHECKF(p[i].usable_bytes < p[i].vram_bytes,
		       "%s usable not below vram", p[i].id);
		CHECKF(p[i].source[0] && strlen(p[i].as_of) == 7 &&
		       p[i].note[0], "%s lacks source, as_of or note",
		       p[i].id);
		/* FP4 tensor cores exactly on Blackwell (SM_100, SM_120);
		 * FP8 from Ada (8.9) on. */
		CHECKF(((p[i].flags & QA_GPU_FP4) != 0) == (cc >= 100),
		       "%s FP4 flag vs cc %d", p[i].id, cc);
		CHECKF(((p[i].flags & QA_GPU_FP8) != 0) == (cc >= 89),
		       "%s FP8 flag vs cc %d", p[i].id, cc);
	}
	CHECKF(qa_gpu_profile_find("H100") == qa_gpu_profile_find("h100-sxm"),
	       "h100 is the SXM card");
	CHECKF(qa_gpu_profile_find("a100") == NULL, "a100 is ambiguous");
	CHECKF(qa_gpu_profile_find("") == NULL, "empty name");
	CHECKF(qa_gpu_profile_find("---") == NULL, "punctuation only");
}

int
main(void)
{
	test_forms();
	test_errors();
	test_profiles();
	return th_done("gpuspec");
}
