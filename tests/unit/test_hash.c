/* SPDX-License-Identifier: MIT */
/*
 * The keyed hash of core/hash.c (SipHash-1-3), against values computed
 * independently: CPython 3.11 hashes bytes with SipHash-1-3
 * (sys.hash_info.algorithm == "siphash13") and, under PYTHONHASHSEED=0,
 * with an all-zero key, so each expected value below is
 *	PYTHONHASHSEED=0 python3 -c 'print(hash(M) & (2**64 - 1))'
 * for the message M (lengths 1 to 55: every tail length, one and several
 * 8-byte words, bytes above 0x7f). And qa_hash is that function under
 * the process key: the same bytes give the same value within a run.
 */
#include "harness.h"

#include <string.h>

#include "core/hash.h"

static const struct {
	const char *m;
	size_t n;
	uint64_t h;
} vectors[] = {
	{ "\x61", 1, 0x407448d2b89b1813u },
	{ "\x61\x62\x63\x64\x65\x66\x67", 7, 0x6db12aae9070f506u },
	{ "\x61\x62\x63\x64\x65\x66\x67\x68", 8, 0x3f7b849c0b8e35eau },
	{ "\x61\x62\x63\x64\x65\x66\x67\x68\x69", 9, 0xf89b34a3d11eb6e5u },
	{ "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e", 15,
	  0xf30eb725bb91c9eau },
	{ "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
	  16, 0x8972188433a5c5b7u },
	{ "blk.0.attn_q.weight", 19, 0x3c25d18d28a94307u },
	{ "\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7"
	  "\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7"
	  "\xe8\xe9\xea\xeb\xec\xed\xee\xef\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7"
	  "\xf8\xf9\xfa\xfb\xfc\xfd\xfe", 55, 0xfa2843bf92e8c10cu },
};

int
main(void)
{
	size_t i;

	th_case = "siphash13";
	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++)
		CHECK_EQ(qa_siphash13(0, 0, vectors[i].m, vectors[i].n),
			 vectors[i].h);
	/* the key matters */
	CHECK(qa_siphash13(1, 0, "a", 1) != vectors[0].h);
	th_case = "process key";
	CHECK_EQ(qa_hash("blk.0.attn_q.weight", 19),
		 qa_hash("blk.0.attn_q.weight", 19));
	CHECK(qa_hash("a", 1) != qa_hash("b", 1));
	return th_done("hash");
}
