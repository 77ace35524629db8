/* SPDX-License-Identifier: MIT */
/* test_sha256.c - SHA-256 against FIPS 180-4's examples, fed whole and in odd pieces. */
#include "helpers.h"

#include "base/base.h"

static void hex_of(const unsigned char d[SHA256_BYTES], char out[2 * SHA256_BYTES + 1])
{
	for (int i = 0; i < SHA256_BYTES; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The digest of data fed in pieces of `step` bytes. */
static void digest(const void *data, size_t len, size_t step, char out[2 * SHA256_BYTES + 1])
{
	struct sha256 s;
	unsigned char d[SHA256_BYTES];

	sha256_init(&s);
	for (size_t at = 0; at < len; at += step)
		sha256_update(&s, (const char *)data + at, len - at < step ? len - at : step);
	sha256_final(&s, d);
	hex_of(d, out);
}

Test(sha256, fips_180_examples_in_any_pieces)
{
	static const struct {
		const char *in, *want;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	char got[2 * SHA256_BYTES + 1];

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		for (size_t step = 1; step <= 65; step += 7) {
			digest(v[i].in, strlen(v[i].in), step, got);
			cr_expect_str_eq(got, v[i].want, "\"%s\" in pieces of %zu", v[i].in, step);
		}
}

/* One million 'a' (FIPS 180-4 appendix B.3): many blocks, and lengths past 2^20 bits. */
Test(sha256, a_million_a)
{
	static char a[1000];
	struct sha256 s;
	unsigned char d[SHA256_BYTES];
	char got[2 * SHA256_BYTES + 1];

	memset(a, 'a', sizeof a);
	sha256_init(&s);
	for (int i = 0; i < 1000; i++)
		sha256_update(&s, a, sizeof a);
	sha256_final(&s, d);
	hex_of(d, got);
	cr_expect_str_eq(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
