/* SPDX-License-Identifier: MIT */
/*
 * core/sha256.c against values computed elsewhere: the examples of FIPS
 * 180-2 Appendix B ("abc", the 448-bit message, a million 'a'), the empty
 * message, and messages of every length around the padding boundaries
 * (55, 56, 63, 64, 65, 119, 120 bytes; 1000) whose digests Python's
 * hashlib gave for bytes((i * 37 + 11) & 255 for i in range(n)). Each
 * is fed whole and in pieces of 1, 7 and 61 bytes: the streaming must
 * not matter.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include "core/sha256.h"

static void
hex(const unsigned char d[32], char out[65])
{
	int i;

	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void
check_digest(const unsigned char *m, size_t n, const char *want)
{
	static const size_t pieces[] = { 0, 1, 7, 61 };
	struct qa_sha256 s;
	unsigned char d[32];
	char got[65];
	size_t k, at;

	for (k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
		qa_sha256_init(&s);
		if (pieces[k] == 0) {
			qa_sha256_update(&s, m, n);
		} else {
			for (at = 0; at < n; at += pieces[k])
				qa_sha256_update(&s, m + at, n - at < pieces[k] ?
						 n - at : pieces[k]);
		}
		qa_sha256_final(&s, d);
		hex(d, got);
		CHECK_STR(got, want);
	}
}

int
main(void)
{
	static const struct {
		size_t n;
		const char *digest;
	} lengths[] = {
		{ 55, "2900465fcb533e05a158fd2b3be0e5e3b03740d83060aa3580e0d98a96bf2384" },
		{ 56, "31454ff48ef36af2f08fd511bdc37d9d5855ac23e992e5ff5445cb6b7674a674" },
		{ 63, "5f6401b96532c36de4e65beec0409b69b1d181864c8009b7a04f43e5d56350d1" },
		{ 64, "94eb5de4943613fd048dc93393ab06877405faa39c11f53e9386083339833e7e" },
		{ 65, "fc518669b6eb4b4dd91827ecacef86689c725bd5bab888fd3b26dbb196eec954" },
		{ 119, "b0dc41b1a384e2f1203f0351b38fbeaafceef577ce1191d5bfc25da39f721eae" },
		{ 120, "5df24dd802ac26132ce608dcb5f09841eef039ee0f152acf98d26d17fe4e88e6" },
		{ 1000, "57799de80e3dd6e2ac4d40c41a150d1662f7f87d0d994776a2fdc37c39b0ea4e" },
	};
	static unsigned char buf[1000000];
	size_t i;

	th_case = "FIPS 180-2 examples";
	check_digest((const unsigned char *)"", 0,
		     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_digest((const unsigned char *)"abc", 3,
		     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_digest((const unsigned char *)
		     "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		     56,
		     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(buf, 'a', sizeof(buf));
	check_digest(buf, sizeof(buf),
		     "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	th_case = "padding boundaries (hashlib)";
	for (i = 0; i < 1000; i++)
		buf[i] = (unsigned char)((i * 37 + 11) & 255);
	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
		check_digest(buf, lengths[i].n, lengths[i].digest);
	return th_done("sha256");
}
