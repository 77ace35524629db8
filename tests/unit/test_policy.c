/* SPDX-License-Identifier: MIT */
/* test_policy.c - the policy file (deps/policy.c, docs/policy.md): strict JSON (no trailing
 * comma, each key once, unknown keys refused, with line and column), and the first rule whose
 * feature and files globs match gives an entry's priority. */
#include "helpers.h"

#include "note/note.h"
#include "deps/deps.h"

static void refused(const char *text, const char *want)
{
	struct policy p;
	struct err e = { 0 };

	cr_expect_eq(policy_parse(text, strlen(text), &p, &e), -1, "accepted: %s", text);
	cr_expect(strstr(e.msg, want), "%s: %s, not %s", text, e.msg, want);
}

Test(policy, the_file_is_strict_json)
{
	refused("{\"features\":[{\"feature\":\"a\",\"priority\":\"required\",}]}", "expected a string");
	refused("{\"features\":[{\"feature\":\"a\",\"priority\":\"required\"},]}", "expected a rule object");
	refused("{\"features\":[],}", "expected a string");
	refused("{\"features\":[{\"feature\":\"a\",\"priority\":\"required\",\"feature\":\"b\"}]}",
		"\"feature\" twice in a rule");
	refused("{\"unknown\":\"accept\",\"unknown\":\"error\"}", "\"unknown\" twice");
	refused("{\"features\":[],\"features\":[]}", "\"features\" twice");
	refused("{\"features\":[{\"feature\":\"a\",\"priority\":\"high\"}]}", "priority must be");
	refused("{\"feature\":[]}", "unknown key \"feature\"");
	refused("{\"features\":[{\"priority\":\"required\"}]}", "a rule needs \"feature\" and \"priority\"");
	refused("{} x", "unexpected text after the policy");
}

Test(policy, the_first_matching_rule_gives_the_priority)
{
	static const char text[] = "{\"unknown\":\"error\",\"features\":[\n"
				   " {\"feature\":\"tpm\",\"files\":\"usr/lib/*/systemd/*\",\"priority\":\"required\"},\n"
				   " {\"feature\":\"tpm\",\"priority\":\"suggested\"},\n"
				   " {\"feature\":\"lz*\",\"priority\":\"recommended\"},\n"
				   " {\"feature\":\"\",\"priority\":\"ignored\"}\n]}";
	static const char entries[] = "[{\"soname\":[\"libtss2-esys.so.0\"],\"feature\":\"tpm\"},"
				      "{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"priority\":\"suggested\"},"
				      "{\"soname\":[\"libx.so.1\"]},{\"soname\":[\"libq.so.1\"],\"feature\":\"qr\"}]";
	struct policy p;
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(policy_parse(text, strlen(text), &p, &e), 0, "%s", e.msg);
	cr_assert_eq(manifest_parse(entries, strlen(entries), &es, &e), 0, "%s", e.msg);
	cr_expect_eq(policy_rank(&p, &es.v[0], "/root/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared.so"), RANK_REQUIRED);
	cr_expect_eq(policy_rank(&p, &es.v[0], "usr/bin/systemd-analyze"), RANK_SUGGESTED);
	cr_expect_eq(policy_rank(&p, &es.v[1], "usr/bin/x"), RANK_RECOMMENDED);
	cr_expect_eq(policy_rank(&p, &es.v[2], "usr/bin/x"), POLICY_IGNORED, "no feature matches \"\"");
	cr_expect_eq(policy_rank(&p, &es.v[3], "usr/bin/x"), POLICY_UNKNOWN, "\"unknown\":\"error\"");
	manifest_free(&es);
	policy_free(&p);
}
