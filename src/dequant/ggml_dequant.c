/* SPDX-License-Identifier: MIT */
/*
 * ggml dequantizers. Block layouts: ggml-org/ggml src/ggml-common.h
 * (block_q4_0 ... block_iq4_xs, block_tq1_0, block_mxfp4, block_nvfp4);
 * arithmetic: gguf-py 0.19.0 gguf/quants.py `dequantize_blocks` of each
 * class, whose float32 operations are done here in the same order with
 * the same operands, so that every result, rounding, signed zero, NaN
 * and infinity included, is the one numpy computes:
 *
 *   - each product or sum is its own statement or a left-to-right chain
 *     written as numpy's expression reads (`db * grid * signs` is
 *     (db * grid) * sign): no reassociation, and C11 (-std=c11) leaves
 *     floating contraction off, so no fused multiply-add either;
 *   - signs are multiplications by +1.0f / -1.0f, as numpy's are, never
 *     negations (a NaN times -1 keeps its sign bit; -NaN would not);
 *   - the quant values are exact small integers converted to float.
 *
 * Every function below dequantizes one block: `b` its bytes, `y` its
 * `block` floats. Multi-byte fields are little-endian (GGUF's order).
 */
#include "dequant/ggml_dequant.h"

#include <string.h>

#include "core/dtypes.h"
#include "dequant/iq_grids.h"

#define QK_K 256

static inline uint16_t
le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline float
bits_to_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * numpy's half to float (numpy/_core/src/common/half.cpp
 * npy_halfbits_to_floatbits): exact for every finite value, the NaN
 * payload shifted into place unquieted.
 */
float
qa_fp16_to_fp32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = h & 0x7c00u;
	uint32_t sig = h & 0x03ffu;

	if (exp == 0) {
		uint32_t e = 0;

		if (sig == 0)
			return bits_to_f32(sign);
		sig <<= 1;
		while ((sig & 0x0400u) == 0) {
			sig <<= 1;
			e++;
		}
		return bits_to_f32(sign | (127 - 15 - e) << 23 |
				   (sig & 0x03ffu) << 13);
	}
	if (exp == 0x7c00u)
		return bits_to_f32(sign | 0x7f800000u | sig << 13);
	return bits_to_f32(sign + (((uint32_t)(h & 0x7fffu) + 0x1c000u) << 13));
}

static inline float
half_at(const uint8_t *p)
{
	return qa_fp16_to_fp32(le16(p));
}

/* ---- plain floats ---- */

static void
deq_f32(const uint8_t *b, float *y)
{
	memcpy(y, b, 4);
}

static void
deq_f16(const uint8_t *b, float *y)
{
	y[0] = half_at(b);
}

/* quants.py BF16: the 16 bits are the high half of a float32. */
static void
deq_bf16(const uint8_t *b, float *y)
{
	y[0] = bits_to_f32((uint32_t)le16(b) << 16);
}

/* ---- legacy 32-element blocks ---- */

/* block_q4_0 {d; qs[16]}: element i < 16 is qs[i] & 15, i >= 16 qs[i-16] >> 4. */
static void
deq_q4_0(const uint8_t *b, float *y)
{
	float d = half_at(b);
	const uint8_t *qs = b + 2;

	for (int i = 0; i < 16; i++) {
		y[i] = d * (float)((qs[i] & 0x0f) - 8);
		y[i + 16] = d * (float)((qs[i] >> 4) - 8);
	}
}

/* block_q4_1 {d; m; qs[16]}: (d * q) + m. */
static void
deq_q4_1(const uint8_t *b, float *y)
{
	float d = half_at(b), m = half_at(b + 2);
	const uint8_t *qs = b + 4;

	for (int i = 0; i < 16; i++) {
		float lo = d * (float)(qs[i] & 0x0f);
		float hi = d * (float)(qs[i] >> 4);

		y[i] = lo + m;
		y[i + 16] = hi + m;
	}
}

/* block_q5_0 {d; qh[4]; qs[16]}: bit i of qh is element i's fifth bit. */
static void
deq_q5_0(const uint8_t *b, float *y)
{
	float d = half_at(b);
	uint32_t qh = le32(b + 2);
	const uint8_t *qs = b + 6;

	for (int i = 0; i < 16; i++) {
		int lo = (qs[i] & 0x0f) | (int)((qh >> i) & 1) << 4;
		int hi = (qs[i] >> 4) | (int)((qh >> (i + 16)) & 1) << 4;

		y[i] = d * (float)(lo - 16);
		y[i + 16] = d * (float)(hi - 16);
	}
}

/* block_q5_1 {d; m; qh[4]; qs[16]}. */
static void
deq_q5_1(const uint8_t *b, float *y)
{
	float d = half_at(b), m = half_at(b + 2);
	uint32_t qh = le32(b + 4);
	const uint8_t *qs = b + 8;

	for (int i = 0; i < 16; i++) {
		int lo = (qs[i] & 0x0f) | (int)((qh >> i) & 1) << 4;
		int hi = (qs[i] >> 4) | (int)((qh >> (i + 16)) & 1) << 4;
		float tlo = d * (float)lo;
		float thi = d * (float)hi;

		y[i] = tlo + m;
		y[i + 16] = thi + m;
	}
}

/* block_q8_0 {d; qs[32] int8}: numpy writes x * d. */
static void
deq_q8_0(const uint8_t *b, float *y)
{
	float d = half_at(b);

	for (int i = 0; i < 32; i++)
		y[i] = (float)(int8_t)b[2 + i] * d;
}

/* ---- K-quants, 256-element super-blocks ---- */

/*
 * Element e of a 2-bit plane stored as 32-byte chunks of four bit pairs
 * (Q2_K, Q3_K low bits, TQ2_0): chunk e / 128, pair (e % 128) / 32,
 * byte e % 32 of the chunk.
 */
static inline int
pair_at(const uint8_t *q, int e)
{
	return (q[(e / 128) * 32 + e % 32] >> (2 * ((e % 128) / 32))) & 3;
}

/* block_q2_K {scales[16]; qs[64]; d; dmin}: dl * q - ml per 16. */
static void
deq_q2_k(const uint8_t *b, float *y)
{
	const uint8_t *scales = b, *qs = b + 16;
	float d = half_at(b + 80), dmin = half_at(b + 82);

	for (int s = 0; s < 16; s++) {
		float dl = d * (float)(scales[s] & 0x0f);
		float ml = dmin * (float)(scales[s] >> 4);

		for (int j = 0; j < 16; j++) {
			int e = s * 16 + j;
			float t = dl * (float)pair_at(qs, e);

			y[e] = t - ml;
		}
	}
}

/*
 * block_q3_K {hmask[32]; qs[64]; scales[12]; d}: 6-bit scales, low four
 * bits from bytes 0-7 (nibble k / 8), high two from bytes 8-11; the
 * high bit of q is set when hmask's bit is clear (q - 4 then).
 */
static void
deq_q3_k(const uint8_t *b, float *y)
{
	const uint8_t *hmask = b, *qs = b + 32, *sc = b + 96;
	float d = half_at(b + 108);

	for (int s = 0; s < 16; s++) {
		int lo = (sc[s % 8] >> (4 * (s / 8))) & 0x0f;
		int hi = (sc[8 + s % 4] >> (2 * (s / 4))) & 0x03;
		float dl = d * (float)((int8_t)(lo | hi << 4) - 32);

		for (int j = 0; j < 16; j++) {
			int e = s * 16 + j;
			int h = ((hmask[e % 32] >> (e / 32)) & 1) ^ 1;

			y[e] = dl * (float)(pair_at(qs, e) - (h << 2));
		}
	}
}

/* get_scale_min of quants.py Q4_K: eight 6-bit scales and mins from 12 bytes. */
static void
k_scale_min(const uint8_t *s, uint8_t sc[8], uint8_t mn[8])
{
	for (int j = 0; j < 4; j++) {
		sc[j] = s[j] & 0x3f;
		mn[j] = s[4 + j] & 0x3f;
		sc[4 + j] = (uint8_t)((s[8 + j] & 0x0f) | ((s[j] >> 2) & 0x30));
		mn[4 + j] = (uint8_t)((s[8 + j] >> 4) | ((s[4 + j] >> 2) & 0x30));
	}
}

/* block_q4_K {d; dmin; scales[12]; qs[128]}: sub-block j of 32 is nibble j % 2 of chunk j / 2. */
static void
deq_q4_k(const uint8_t *b, float *y)
{
	float d = half_at(b), dmin = half_at(b + 2);
	uint8_t sc[8], mn[8];
	const uint8_t *qs = b + 16;

	k_scale_min(b + 4, sc, mn);
	for (int j = 0; j < 8; j++) {
		float dl = d * (float)sc[j];
		float ml = dmin * (float)mn[j];
		const uint8_t *q = qs + (j / 2) * 32;

		for (int i = 0; i < 32; i++) {
			float t = dl * (float)((q[i] >> (4 * (j % 2))) & 0x0f);

			y[j * 32 + i] = t - ml;
		}
	}
}

/* block_q5_K {d; dmin; scales[12]; qh[32]; qs[128]}: bit j of qh[i] is sub-block j's fifth bit. */
static void
deq_q5_k(const uint8_t *b, float *y)
{
	float d = half_at(b), dmin = half_at(b + 2);
	uint8_t sc[8], mn[8];
	const uint8_t *qh = b + 16, *qs = b + 48;

	k_scale_min(b + 4, sc, mn);
	for (int j = 0; j < 8; j++) {
		float dl = d * (float)sc[j];
		float ml = dmin * (float)mn[j];
		const uint8_t *q = qs + (j / 2) * 32;

		for (int i = 0; i < 32; i++) {
			int v = ((q[i] >> (4 * (j % 2))) & 0x0f) |
				((qh[i] >> j) & 1) << 4;
			float t = dl * (float)v;

			y[j * 32 + i] = t - ml;
		}
	}
}

/*
 * block_q6_K {ql[128]; qh[64]; scales[16] int8; d}: element e of half
 * h = e / 128: low nibble (r / 64) of ql[h*64 + r%64], high pair
 * (r / 32) of qh[h*32 + r%32], r = e % 128.
 */
static void
deq_q6_k(const uint8_t *b, float *y)
{
	const uint8_t *ql = b, *qh = b + 128, *scales = b + 192;
	float d = half_at(b + 208);

	for (int s = 0; s < 16; s++) {
		float dl = d * (float)(int8_t)scales[s];

		for (int j = 0; j < 16; j++) {
			int e = s * 16 + j, h = e / 128, r = e % 128;
			int lo = (ql[h * 64 + r % 64] >> (4 * (r / 64))) & 0x0f;
			int hi = (qh[h * 32 + r % 32] >> (2 * (r / 32))) & 0x03;

			y[e] = dl * (float)((int8_t)(lo | hi << 4) - 32);
		}
	}
}

/* ---- ternary ---- */

/*
 * block_tq1_0 {qs[48]; qh[4]; d}: base-3 digits stored as
 * ceil(v * 256 / 243) (quants.py TQ1_0): digit k of byte x is
 * ((x * 3^k mod 256) * 3) >> 8. Elements: qs[0..31] digits 0-4
 * (k * 32 + i), qs[32..47] digits 0-4 (160 + k * 16 + i), qh digits 0-3
 * (240 + k * 4 + i).
 */
static inline int
trit(uint8_t x, unsigned pow3)
{
	uint8_t v = (uint8_t)(x * pow3);

	return ((v * 3) >> 8) - 1;
}

static void
deq_tq1_0(const uint8_t *b, float *y)
{
	static const unsigned pow3[5] = { 1, 3, 9, 27, 81 };
	const uint8_t *qs = b, *qh = b + 48;
	float d = half_at(b + 52);

	for (int k = 0; k < 5; k++)
		for (int i = 0; i < 32; i++)
			y[k * 32 + i] = d * (float)trit(qs[i], pow3[k]);
	for (int k = 0; k < 5; k++)
		for (int i = 0; i < 16; i++)
			y[160 + k * 16 + i] = d * (float)trit(qs[32 + i], pow3[k]);
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < 4; i++)
			y[240 + k * 4 + i] = d * (float)trit(qh[i], pow3[k]);
}

/* block_tq2_0 {qs[64]; d}: q - 1, q the bit pair of pair_at. */
static void
deq_tq2_0(const uint8_t *b, float *y)
{
	float d = half_at(b + 64);

	for (int e = 0; e < QK_K; e++)
		y[e] = d * (float)(pair_at(b, e) - 1);
}

/* ---- FP4 ---- */

/* E2M1 values doubled (ggml-common.h kvalues_mxfp4). */
static const int8_t kvalues_fp4[16] = {
	0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12,
};

/* ggml_e8m0_to_fp32_half (ggml-impl.h): 2^(e - 128), built from its bits. */
static inline float
e8m0_half(uint8_t e)
{
	return bits_to_f32(e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23);
}

/* block_mxfp4 {e; qs[16]}: element i < 16 low nibble, i >= 16 high. */
static void
deq_mxfp4(const uint8_t *b, float *y)
{
	float d = e8m0_half(b[0]);

	for (int i = 0; i < 16; i++) {
		y[i] = d * (float)kvalues_fp4[b[1 + i] & 0x0f];
		y[i + 16] = d * (float)kvalues_fp4[b[1 + i] >> 4];
	}
}

/*
 * quants.py NVFP4.ue4m3_to_fp32: unsigned E4M3, bias 7, halved for the
 * doubled kvalues; 0x00 and 0x7f read 0, and the top bit is ignored
 * (so 0x80 reads 0 and 0xff reads as 0x7f's exponent and mantissa
 * would). Every value is exact in float32.
 */
static inline float
ue4m3_half(uint8_t x)
{
	int exp = (x >> 3) & 0x0f, man = x & 7;
	uint32_t bits;

	if (x == 0 || x == 0x7f)
		return 0.0f;
	if (exp == 0)	/* man * 2^-9 * 0.5 */
		return (float)man * bits_to_f32(0x3b000000u) * 0.5f;
	/* (1 + man / 8) * 2^(exp - 7) * 0.5 = (8 + man) * 2^(exp - 11) */
	bits = (uint32_t)(exp - 11 + 127) << 23;
	return (float)(8 + man) * bits_to_f32(bits);
}

/* block_nvfp4 {d[4] ue4m3; qs[32]}: four sub-blocks of 16, 8 bytes each, low nibbles first. */
static void
deq_nvfp4(const uint8_t *b, float *y)
{
	for (int s = 0; s < 4; s++) {
		float d = ue4m3_half(b[s]);
		const uint8_t *qs = b + 4 + s * 8;

		for (int i = 0; i < 8; i++) {
			y[s * 16 + i] = d * (float)kvalues_fp4[qs[i] & 0x0f];
			y[s * 16 + 8 + i] = d * (float)kvalues_fp4[qs[i] >> 4];
		}
	}
}

/* ---- I-quants ---- */

/*
 * p times +1 or -1 (bit j of signs set: -1), as the processor multiplies:
 * a NaN p comes back unchanged, whatever the sign (x86 MULSS returns its
 * NaN operand, and numpy's loops multiply), every other value negated
 * exactly. Written out because compilers turn `p * (s ? -1.0f : 1.0f)`
 * into a sign flip, which flips a NaN's sign too.
 */
static inline float
signed_by(float p, uint8_t signs, int j)
{
	return ((signs >> j) & 1) && p == p ? -p : p;
}

/*
 * block_iq2_xxs {d; qs[32] as 8 pairs of u32}: per 32 elements aux0
 * holds four 8-bit grid rows, aux1 four 7-bit sign indexes and the
 * 4-bit scale; db = d * (0.5 + s) * 0.25.
 */
static void
deq_iq2_xxs(const uint8_t *b, float *y)
{
	float d = half_at(b);

	for (int ib = 0; ib < 8; ib++) {
		const uint8_t *aux0 = b + 2 + ib * 8;
		uint32_t aux1 = le32(aux0 + 4);
		float t = 0.5f + (float)(aux1 >> 28);
		float db = d * t * 0.25f;

		for (int l = 0; l < 4; l++) {
			const uint8_t *g = qa_iq2xxs_grid[aux0[l]];
			uint8_t signs = qa_ksigns_iq2xs[(aux1 >> (7 * l)) & 127];

			for (int j = 0; j < 8; j++)
				y[ib * 32 + l * 8 + j] =
					signed_by(db * (float)g[j], signs, j);
		}
	}
}

/* block_iq2_xs {d; qs[32] u16; scales[8]}: 9-bit grid row, 7-bit sign index; a nibble scale per 16. */
static void
deq_iq2_xs(const uint8_t *b, float *y)
{
	float d = half_at(b);
	const uint8_t *qs = b + 2, *scales = b + 66;

	for (int s = 0; s < 16; s++) {
		float t = 0.5f + (float)((scales[s / 2] >> (4 * (s % 2))) & 0x0f);
		float db = d * t * 0.25f;

		for (int l = 0; l < 2; l++) {
			uint16_t q = le16(qs + 2 * (s * 2 + l));
			const uint8_t *g = qa_iq2xs_grid[q & 511];
			uint8_t signs = qa_ksigns_iq2xs[q >> 9];

			for (int j = 0; j < 8; j++)
				y[s * 16 + l * 8 + j] =
					signed_by(db * (float)g[j], signs, j);
		}
	}
}

/* block_iq2_s {d; qs[32]; signs[32]; qh[8]; scales[8]}: 10-bit grid rows, explicit sign bytes. */
static void
deq_iq2_s(const uint8_t *b, float *y)
{
	float d = half_at(b);
	const uint8_t *qs = b + 2, *signs = b + 34, *qh = b + 66;
	const uint8_t *scales = b + 74;

	for (int s = 0; s < 16; s++) {
		float t = 0.5f + (float)((scales[s / 2] >> (4 * (s % 2))) & 0x0f);
		float db = d * t * 0.25f;

		for (int l = 0; l < 2; l++) {
			int g8 = s * 2 + l;
			int row = qs[g8] | ((qh[g8 / 4] >> (2 * (g8 % 4))) & 3) << 8;
			const uint8_t *g = qa_iq2s_grid[row];

			for (int j = 0; j < 8; j++)
				y[g8 * 8 + j] =
					signed_by(db * (float)g[j], signs[g8], j);
		}
	}
}

/* block_iq3_xxs {d; qs[64]; scales_and_signs[32] as 8 u32}: 4-wide grid rows, db = d * (0.5 + s) * 0.5. */
static void
deq_iq3_xxs(const uint8_t *b, float *y)
{
	float d = half_at(b);
	const uint8_t *qs = b + 2, *ss = b + 66;

	for (int ib = 0; ib < 8; ib++) {
		uint32_t aux = le32(ss + 4 * ib);
		float t = 0.5f + (float)(aux >> 28);
		float db = d * t * 0.5f;

		for (int l = 0; l < 4; l++) {
			uint8_t signs = qa_ksigns_iq2xs[(aux >> (7 * l)) & 127];

			for (int j = 0; j < 8; j++) {
				int e = ib * 32 + l * 8 + j;
				const uint8_t *g = qa_iq3xxs_grid[qs[e / 4]];

				y[e] = signed_by(db * (float)g[e % 4], signs, j);
			}
		}
	}
}

/* block_iq3_s {d; qs[64]; qh[8]; signs[32]; scales[4]}: 9-bit rows, db = d * (1 + 2 s) per 32. */
static void
deq_iq3_s(const uint8_t *b, float *y)
{
	float d = half_at(b);
	const uint8_t *qs = b + 2, *qh = b + 66, *signs = b + 74;
	const uint8_t *scales = b + 106;

	for (int ib = 0; ib < 8; ib++) {
		int s = (scales[ib / 2] >> (4 * (ib % 2))) & 0x0f;
		float db = d * (float)(1 + 2 * s);

		for (int j = 0; j < 32; j++) {
			int e = ib * 32 + j, k = e / 4;
			int row = qs[k] | ((qh[k / 8] >> (k % 8)) & 1) << 8;

			y[e] = signed_by(db * (float)qa_iq3s_grid[row][e % 4],
					 signs[e / 8], e % 8);
		}
	}
}

/* IQ1_S / IQ1_M: grid values -1, 0, 1 shifted by +-0.125 (quants.py IQ1_S.delta). */
static inline float
iq1_delta(int negative)
{
	return negative ? -0.125f : 0.125f;
}

/* block_iq1_s {d; qs[32]; qh[8] u16}: per 32, 3-bit scale, delta sign bit 15, 3-bit row tops. */
static void
deq_iq1_s(const uint8_t *b, float *y)
{
	float d = half_at(b);
	const uint8_t *qs = b + 2;

	for (int ib = 0; ib < 8; ib++) {
		uint16_t qh = le16(b + 34 + 2 * ib);
		float dl = d * (float)(2 * ((qh >> 12) & 7) + 1);
		float delta = iq1_delta(qh & 0x8000);

		for (int l = 0; l < 4; l++) {
			int row = qs[ib * 4 + l] | ((qh >> (3 * l)) & 7) << 8;
			const int8_t *g = qa_iq1s_grid[row];

			for (int j = 0; j < 8; j++) {
				float v = (float)g[j] + delta;

				y[ib * 32 + l * 8 + j] = dl * v;
			}
		}
	}
}

/*
 * block_iq1_m {qs[32]; qh[16]; scales[8] as 4 u16}: the fp16 scale is
 * the top nibble of each u16 (first word lowest); the other twelve bits
 * hold four 3-bit scales each, one per 16 elements; each qh nibble is a
 * group's 3 row bits and its delta sign.
 */
static void
deq_iq1_m(const uint8_t *b, float *y)
{
	const uint8_t *qs = b, *qh = b + 32;
	uint16_t w[4];
	float d;

	for (int i = 0; i < 4; i++)
		w[i] = le16(b + 48 + 2 * i);
	d = qa_fp16_to_fp32((uint16_t)((w[0] & 0xf000) >> 12 |
				       (w[1] & 0xf000) >> 8 |
				       (w[2] & 0xf000) >> 4 | (w[3] & 0xf000)));
	for (int s = 0; s < 16; s++) {
		int sc = (w[s / 4] >> (3 * (s % 4))) & 7;
		float dl = d * (float)(2 * sc + 1);

		for (int l = 0; l < 2; l++) {
			int g8 = s * 2 + l;
			int nib = (qh[g8 / 2] >> (4 * (g8 % 2))) & 0x0f;
			int row = qs[g8] | (nib & 7) << 8;
			float delta = iq1_delta(nib & 8);
			const int8_t *g = qa_iq1s_grid[row];

			for (int j = 0; j < 8; j++) {
				float v = (float)g[j] + delta;

				y[g8 * 8 + j] = dl * v;
			}
		}
	}
}

/* ggml-common.h kvalues_iq4nl. */
static const int8_t kvalues_iq4nl[16] = {
	-127, -104, -83, -65, -49, -35, -22, -10,
	1, 13, 25, 38, 53, 69, 89, 113,
};

/* block_iq4_nl {d; qs[16]}: Q4_0's nibble order through the table. */
static void
deq_iq4_nl(const uint8_t *b, float *y)
{
	float d = half_at(b);

	for (int i = 0; i < 16; i++) {
		y[i] = d * (float)kvalues_iq4nl[b[2 + i] & 0x0f];
		y[i + 16] = d * (float)kvalues_iq4nl[b[2 + i] >> 4];
	}
}

/* block_iq4_xs {d; scales_h u16; scales_l[4]; qs[128]}: a 6-bit signed scale per 32. */
static void
deq_iq4_xs(const uint8_t *b, float *y)
{
	float d = half_at(b);
	uint16_t sh = le16(b + 2);
	const uint8_t *sl = b + 4, *qs = b + 8;

	for (int ib = 0; ib < 8; ib++) {
		int lo = (sl[ib / 2] >> (4 * (ib % 2))) & 0x0f;
		int hi = (sh >> (2 * ib)) & 3;
		float dl = d * (float)((int8_t)(lo | hi << 4) - 32);
		const uint8_t *q = qs + ib * 16;

		for (int i = 0; i < 16; i++) {
			y[ib * 32 + i] = dl * (float)kvalues_iq4nl[q[i] & 0x0f];
			y[ib * 32 + 16 + i] = dl * (float)kvalues_iq4nl[q[i] >> 4];
		}
	}
}

/* ---- the table ---- */

typedef void (*deq_block_fn)(const uint8_t *b, float *y);

/* Indexed by ggml type id (core/dtypes.c); NULL: no dequantizer. */
static const deq_block_fn dequantizers[] = {
	[0] = deq_f32,
	[1] = deq_f16,
	[2] = deq_q4_0,
	[3] = deq_q4_1,
	[6] = deq_q5_0,
	[7] = deq_q5_1,
	[8] = deq_q8_0,
	[10] = deq_q2_k,
	[11] = deq_q3_k,
	[12] = deq_q4_k,
	[13] = deq_q5_k,
	[14] = deq_q6_k,
	[16] = deq_iq2_xxs,
	[17] = deq_iq2_xs,
	[18] = deq_iq3_xxs,
	[19] = deq_iq1_s,
	[20] = deq_iq4_nl,
	[21] = deq_iq3_s,
	[22] = deq_iq2_s,
	[23] = deq_iq4_xs,
	[29] = deq_iq1_m,
	[30] = deq_bf16,
	[34] = deq_tq1_0,
	[35] = deq_tq2_0,
	[39] = deq_mxfp4,
	[40] = deq_nvfp4,
};

#define N_DEQUANTIZERS ((int)(sizeof(dequantizers) / sizeof(dequantizers[0])))

static deq_block_fn
dequantizer(int id, const struct qa_ggml_type **type)
{
	if (id < 0 || id >= N_DEQUANTIZERS || !dequantizers[id])
		return NULL;
	*type = qa_ggml_type(id);
	if (!*type || (*type)->block == 0)
		return NULL;
	return dequantizers[id];
}

bool
qa_dequant_supported(int id)
{
	const struct qa_ggml_type *t;

	return dequantizer(id, &t) != NULL;
}

bool
qa_dequant_blocks(int id, const uint8_t *src, uint64_t n_blocks, float *dst)
{
	const struct qa_ggml_type *t;
	deq_block_fn fn = dequantizer(id, &t);

	if (!fn)
		return false;
	/* One-element "blocks": a loop, not a call an element. */
	if (fn == deq_bf16) {
		for (uint64_t i = 0; i < n_blocks; i++)
			dst[i] = bits_to_f32((uint32_t)le16(src + 2 * i) << 16);
		return true;
	}
	if (fn == deq_f32) {
		memcpy(dst, src, n_blocks * 4);
		return true;
	}
	if (fn == deq_f16) {
		for (uint64_t i = 0; i < n_blocks; i++)
			dst[i] = half_at(src + 2 * i);
		return true;
	}
	for (uint64_t i = 0; i < n_blocks; i++)
		fn(src + i * t->block_bytes, dst + i * t->block);
	return true;
}

bool
qa_dequant_rows(int id, const uint8_t *src, uint64_t ne0, uint64_t n_rows,
		float *dst)
{
	const struct qa_ggml_type *t;

	if (!dequantizer(id, &t) || ne0 % t->block != 0)
		return false;
	/* Rows of whole blocks are contiguous: the range is one run of blocks. */
	return qa_dequant_blocks(id, src, ne0 / t->block * n_rows, dst);
}
