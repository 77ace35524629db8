/* test_manifest.c - entries, the spec's rules, serialization and merging (src/manifest.c).
 *
 * The rules are those of the dlopen-note spec (shared/REFERENCE.md §1, seeds/001): an array of
 * objects; "soname" mandatory, an array of at least one non-empty string; "feature" and
 * "description" strings; "priority" one of required|recommended|suggested (absent means
 * recommended); unknown keys allowed and preserved; keys unique.  Each refusal names the entry
 * (1-based) and the position "line L, column C" of the offending value. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "json.h"
#include "manifest.h"

static const char PRIORITY_RULE[] = "\"priority\" must be \"required\", \"recommended\" or \"suggested\"";

static void parse_ok_at(const char *text, size_t len, struct entries *es)
{
	struct err e = { 0 };

	cr_assert_eq(manifest_parse(text, len, es, &e), 0, "manifest [%.*s] refused: %s", (int)len, text, e.msg);
}

static void parse_err_at(const char *text, size_t len, const char *msg)
{
	struct entries es = { 0 };
	struct err e = { 0 };
	int r = manifest_parse(text, len, &es, &e);

	cr_assert_eq(r, -1, "manifest [%.*s] accepted; expected: %s", (int)len, text, msg);
	T_STR_EQ(e.msg, msg, "manifest [%.*s]", (int)len, text);
	cr_assert_eq(e.status, EXIT_BAD_INPUT);
	manifest_free(&es);
}

#define PARSE_OK(lit, es) parse_ok_at(lit, sizeof(lit) - 1, es)
#define PARSE_ERR(lit, msg) parse_err_at(lit, sizeof(lit) - 1, msg)

/* Member i of the entry is exactly key: val (val in canonical compact JSON). */
static void assert_member(const struct entry *en, size_t i, const char *key, const char *val)
{
	cr_assert_lt(i, en->n, "entry has %zu members, wanted member %zu (%s)", en->n, i, key);
	cr_assert_eq(en->m[i].keylen, strlen(key));
	T_STR_EQ(en->m[i].key, key, "member %zu", i);
	cr_assert_eq(en->m[i].vallen, strlen(val), "member %zu (%s): value [%s], expected [%s]", i, key, en->m[i].val, val);
	T_STR_EQ(en->m[i].val, val, "member %zu (%s)", i, key);
}

static struct entries parse_lit(const char *text)
{
	struct entries es = { 0 };

	parse_ok_at(text, strlen(text), &es);
	return es;
}

static char *serialize(const struct entries *es)
{
	struct buf b = { 0 };

	manifest_serialize(es, &b);
	cr_assert(!b.oom);
	return buf_take(&b);
}

/* ---------------------------------------------------------------- the spec's rules */

Test(manifest, the_spec_example_parses_with_every_well_known_key)
{
	struct entries es = parse_lit("[\n"
				      "    {\n"
				      "        \"soname\":      [\"libfoo.so.1\"],\n"
				      "        \"feature\":     \"foo\",\n"
				      "        \"description\": \"Enables the foo feature\",\n"
				      "        \"priority\":    \"recommended\"\n"
				      "    }\n"
				      "]\n");
	struct buf tmp = { 0 };

	cr_assert_eq(es.n, 1);
	cr_assert_eq(es.v[0].n, 4);
	assert_member(&es.v[0], 0, "soname", "[\"libfoo.so.1\"]");
	assert_member(&es.v[0], 1, "feature", "\"foo\"");
	assert_member(&es.v[0], 2, "description", "\"Enables the foo feature\"");
	assert_member(&es.v[0], 3, "priority", "\"recommended\"");
	cr_assert_str_eq(entry_string(&es.v[0], "description", &tmp), "Enables the foo feature");
	buf_free(&tmp);
	manifest_free(&es);
}

Test(manifest, the_key_order_of_systemds_ELF_NOTE_DLOPEN_macro_parses)
{
	struct entries es = parse_lit("[{\"feature\":\"foo\",\"description\":\"Enables foo\",\"priority\":\"suggested\",\"soname\":[\"libfoo.so.1\",\"libfoo.so.0\"]}]");

	cr_assert_eq(es.n, 1);
	assert_member(&es.v[0], 3, "soname", "[\"libfoo.so.1\",\"libfoo.so.0\"]");
	manifest_free(&es);
}

Test(manifest, an_entry_without_soname_is_refused_at_its_opening_brace)
{
	PARSE_ERR("[{\"feature\":\"foo\"}]", "line 1, column 2: entry 1 has no \"soname\" (it is mandatory)");
	PARSE_ERR("[{}]", "line 1, column 2: entry 1 has no \"soname\" (it is mandatory)");
	PARSE_ERR("[{\"soname\":[\"a\"]},\n  {\"feature\":\"foo\"}]", "line 2, column 3: entry 2 has no \"soname\" (it is mandatory)");
}

Test(manifest, a_soname_that_is_not_an_array_is_refused_at_its_value)
{
	PARSE_ERR("[{\"soname\":\"liba.so.1\"}]", "line 1, column 12: entry 1: \"soname\" must be an array of strings");
	PARSE_ERR("[{\"soname\": {\"a\":1}}]", "line 1, column 13: entry 1: \"soname\" must be an array of strings");
	PARSE_ERR("[{\"soname\":null}]", "line 1, column 12: entry 1: \"soname\" must be an array of strings");
	PARSE_ERR("[{\"soname\":7}]", "line 1, column 12: entry 1: \"soname\" must be an array of strings");
}

Test(manifest, an_empty_soname_array_is_refused)
{
	PARSE_ERR("[{\"soname\":[]}]", "line 1, column 12: entry 1: \"soname\" must list at least one library");
	PARSE_ERR("[{\"soname\":[ \n ]}]", "line 1, column 12: entry 1: \"soname\" must list at least one library");
}

Test(manifest, a_soname_array_with_a_non_string_element_is_refused)
{
	PARSE_ERR("[{\"soname\":[\"a\",1]}]", "line 1, column 12: entry 1: \"soname\" must be an array of strings");
	PARSE_ERR("[{\"soname\":[null]}]", "line 1, column 12: entry 1: \"soname\" must be an array of strings");
	PARSE_ERR("[{\"soname\":[[\"a\"]]}]", "line 1, column 12: entry 1: \"soname\" must be an array of strings");
	PARSE_ERR("[{\"soname\":[\"a\",{\"b\":\"c\"}]}]", "line 1, column 12: entry 1: \"soname\" must be an array of strings");
	PARSE_ERR("[{\"soname\":[\"a\",true]}]", "line 1, column 12: entry 1: \"soname\" must be an array of strings");
}

Test(manifest, an_empty_soname_string_is_refused)
{
	PARSE_ERR("[{\"soname\":[\"\"]}]", "line 1, column 12: entry 1: \"soname\" must not contain an empty string");
	PARSE_ERR("[{\"soname\":[\"a\",\"\"]}]", "line 1, column 12: entry 1: \"soname\" must not contain an empty string");
}

Test(manifest, sonames_with_escapes_and_brackets_are_read_as_strings)
{
	struct entries es = parse_lit("[{\"soname\":[\"a]b\",\"c\\\"d\",\"e,f\"]}]");

	assert_member(&es.v[0], 0, "soname", "[\"a]b\",\"c\\\"d\",\"e,f\"]");
	manifest_free(&es);
}

Test(manifest, priority_must_be_one_of_the_three_values)
{
	static const char *const bad[] = { "\"urgent\"", "\"Required\"", "\"required \"", "\"\"", "1", "null", "[\"required\"]", "true" };
	char text[128], msg[256];
	size_t i, n;

	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		/* '[' 1, '{' 2, "soname" 3-10, ':' 11, ["a"] 12-16, ',' 17, "priority" 18-27, ':' 28 */
		n = (size_t)snprintf(text, sizeof text, "[{\"soname\":[\"a\"],\"priority\":%s}]", bad[i]);
		snprintf(msg, sizeof msg, "line 1, column 29: entry 1: %s", PRIORITY_RULE);
		parse_err_at(text, n, msg);
	}
}

Test(manifest, the_three_priorities_are_accepted_and_absence_means_recommended)
{
	struct entries es = parse_lit("[{\"soname\":[\"a\"],\"priority\":\"required\"},"
				      "{\"soname\":[\"b\"],\"priority\":\"recommended\"},"
				      "{\"soname\":[\"c\"],\"priority\":\"suggested\"},"
				      "{\"soname\":[\"d\"]}]");
	struct buf tmp = { 0 };

	cr_assert_eq(es.n, 4);
	cr_assert_str_eq(entry_priority(&es.v[0], &tmp), "required");
	cr_assert_str_eq(entry_priority(&es.v[1], &tmp), "recommended");
	cr_assert_str_eq(entry_priority(&es.v[2], &tmp), "suggested");
	cr_assert_str_eq(entry_priority(&es.v[3], &tmp), "recommended");
	cr_assert_null(entry_find(&es.v[3], "priority"), "the default is not written into the entry");
	buf_free(&tmp);
	manifest_free(&es);
}

Test(manifest, feature_must_be_a_string)
{
	/* "feature" 18-26, ':' 27, value 28 */
	PARSE_ERR("[{\"soname\":[\"a\"],\"feature\":1}]", "line 1, column 28: entry 1: \"feature\" must be a string");
	PARSE_ERR("[{\"soname\":[\"a\"],\"feature\":[\"x\"]}]", "line 1, column 28: entry 1: \"feature\" must be a string");
	PARSE_ERR("[{\"soname\":[\"a\"],\"feature\":null}]", "line 1, column 28: entry 1: \"feature\" must be a string");
	PARSE_ERR("[{\"soname\":[\"a\"],\"feature\":{}}]", "line 1, column 28: entry 1: \"feature\" must be a string");
}

Test(manifest, description_must_be_a_string)
{
	/* "description" 18-30, ':' 31, value 32 */
	PARSE_ERR("[{\"soname\":[\"a\"],\"description\":false}]", "line 1, column 32: entry 1: \"description\" must be a string");
	PARSE_ERR("[{\"soname\":[\"a\"],\"description\":-1.5}]", "line 1, column 32: entry 1: \"description\" must be a string");
}

Test(manifest, errors_name_the_entry_by_its_position_in_the_array)
{
	PARSE_ERR("[{\"soname\":[\"a\"]},{\"soname\":[\"b\"]},\n{\"soname\":[\"c\"],\"feature\":2}]",
		  "line 2, column 27: entry 3: \"feature\" must be a string");
}

Test(manifest, duplicate_keys_in_an_entry_are_refused)
{
	/* '[' 1, '{' 2, "soname" 3-10, ':' 11, ["a"] 12-16, ',' 17, second key at 18 */
	PARSE_ERR("[{\"soname\":[\"a\"],\"soname\":[\"b\"]}]", "line 1, column 18: duplicate key \"soname\" (keys must be unique)");
	PARSE_ERR("[{\"soname\":[\"a\"],\"feature\":\"x\",\"feature\":\"x\"}]",
		  "line 1, column 32: duplicate key \"feature\" (keys must be unique)");
	PARSE_ERR("[{\"x-a\":1,\"soname\":[\"a\"],\"x-a\":1}]", "line 1, column 26: duplicate key \"x-a\" (keys must be unique)");
}

Test(manifest, duplicate_keys_nested_inside_an_unknown_value_are_refused)
{
	PARSE_ERR("[\n"
		  "  {\n"
		  "    \"soname\": [\"liba.so.1\"],\n"
		  "    \"x-extra\": {\"list\": [{\"k\": 1, \"k\": 2}]}\n"
		  "  }\n"
		  "]\n",
		  "line 4, column 35: duplicate key \"k\" (keys must be unique)");
}

Test(manifest, equal_keys_in_different_entries_and_objects_are_allowed)
{
	struct entries es = parse_lit("[{\"soname\":[\"a\"],\"x\":{\"soname\":1}},{\"soname\":[\"a\"],\"x\":[{\"x\":1},{\"x\":2}]}]");

	cr_assert_eq(es.n, 2);
	assert_member(&es.v[1], 1, "x", "[{\"x\":1},{\"x\":2}]");
	manifest_free(&es);
}

/* ---------------------------------------------------------------- strings in manifests */

Test(manifest, control_characters_are_refused_wherever_strings_appear)
{
	/* raw TAB in a feature: "feature" 18-26, ':' 27, '"' 28, 'a' 29, TAB 30 */
	PARSE_ERR("[{\"soname\":[\"a\"],\"feature\":\"a\tb\"}]",
		  "line 1, column 30: control character U+0009 in string (spec forbids control characters)");
	/* escaped newline in a description: '"' 32, 'x' 33, '\' 34, 'n' 35 */
	PARSE_ERR("[{\"soname\":[\"a\"],\"description\":\"x\\ny\"}]",
		  "line 1, column 35: escape \\n encodes a control character, which the spec forbids");
	/* DEL in a soname: '"' 13, 'l' 14, DEL 15 */
	PARSE_ERR("[{\"soname\":[\"l\x7f\"]}]", "line 1, column 15: control character U+007F in string (spec forbids control characters)");
	/* C1 control (U+0085) in an unknown key's value: "x" 18-20, ':' 21, '"' 22, U+0085 23 */
	PARSE_ERR("[{\"soname\":[\"a\"],\"x\":\"\xc2\x85\"}]", "line 1, column 23: control character U+0085 in string (spec forbids control characters)");
	/* in a key: '"' 18, 'k' 19, ESC 20 */
	PARSE_ERR("[{\"soname\":[\"a\"],\"k\x1b\":1}]", "line 1, column 20: control character U+001B in string (spec forbids control characters)");
}

Test(manifest, unicode_escapes_are_refused_in_manifests)
{
	PARSE_ERR("[{\"soname\":[\"lib\\u0061.so\"]}]", "line 1, column 18: \\u escapes are not allowed (spec: no \\uXXXX escaping)");
}

Test(manifest, invalid_utf8_is_refused_with_its_position)
{
	/* a key: '"' 3, 's' 4, 0xC0 5 */
	PARSE_ERR("[{\"s\xc0\x80\":1}]", "line 1, column 5: invalid UTF-8 in string");
	/* an encoded surrogate in a soname on line 2: ' ' 1, '[' 2, '"' 3, 'x' 4, 0xED 5 */
	PARSE_ERR("[{\"soname\":\n [\"x\xed\xa0\x80\"]}]", "line 2, column 5: invalid UTF-8 in string");
}

Test(manifest, a_multibyte_character_before_an_error_counts_as_one_column)
{
	/* '[' 1, '{' 2, "soname" 3-10, ':' 11, '[' 12, '"' 13, é 14, U+0001 15 */
	PARSE_ERR("[{\"soname\":[\"\xc3\xa9\x01\"]}]", "line 1, column 15: control character U+0001 in string (spec forbids control characters)");
	/* 😀 is 4 bytes, 1 column: '"' 13, 😀 14, € 15, U+0002 16 */
	PARSE_ERR("[{\"soname\":[\"\xf0\x9f\x98\x80\xe2\x82\xac\x02\"]}]",
		  "line 1, column 16: control character U+0002 in string (spec forbids control characters)");
}

Test(manifest, non_ascii_text_is_accepted_and_kept)
{
	struct entries es = parse_lit("[{\"soname\":[\"libf\xc3\xb6\xc3\xb6.so.1\"],\"description\":\"\xe2\x82\xac \xf0\x9f\x98\x80\"}]");

	assert_member(&es.v[0], 0, "soname", "[\"libf\xc3\xb6\xc3\xb6.so.1\"]");
	assert_member(&es.v[0], 1, "description", "\"\xe2\x82\xac \xf0\x9f\x98\x80\"");
	manifest_free(&es);
}

/* ---------------------------------------------------------------- the document around the entries */

Test(manifest, text_after_the_array_is_refused)
{
	PARSE_ERR("[] x", "line 1, column 4: unexpected text after the array");
	PARSE_ERR("[][]", "line 1, column 3: unexpected text after the array");
	PARSE_ERR("[{\"soname\":[\"a\"]}]\n]", "line 2, column 1: unexpected text after the array");
	PARSE_ERR("[]\0", "line 1, column 3: unexpected text after the array");
}

Test(manifest, whitespace_around_the_array_is_allowed)
{
	struct entries es = { 0 };

	PARSE_OK(" \r\n\t[ ]\n\t \r\n", &es);
	cr_assert_eq(es.n, 0);
}

Test(manifest, a_byte_order_mark_is_refused)
{
	PARSE_ERR("\xef\xbb\xbf[]", "line 1, column 1: byte order mark before the array (not allowed in JSON text)");
	PARSE_ERR("\xef\xbb\xbf[{\"soname\":[\"a\"]}]", "line 1, column 1: byte order mark before the array (not allowed in JSON text)");
}

Test(manifest, an_empty_array_is_a_manifest_declaring_no_entry)
{
	struct entries es = { 0 };

	/* Issue 11, requirement 5: "[]" is valid; replacing with it removes the notes. */
	PARSE_OK(" [ ]\n", &es);
	cr_expect_eq(es.n, 0);
	manifest_free(&es);
}

Test(manifest, empty_input_is_refused)
{
	struct entries es = { 0 };
	struct err e = { 0 };

	PARSE_ERR("", "line 1, column 1: empty manifest: expected a JSON array of entry objects");
	PARSE_ERR(" \n ", "line 2, column 2: empty manifest: expected a JSON array of entry objects");
	cr_assert_eq(manifest_parse(NULL, 0, &es, &e), -1);
	cr_assert_str_eq(e.msg, "line 1, column 1: empty manifest: expected a JSON array of entry objects");
}

Test(manifest, a_top_level_value_that_is_not_an_array_is_refused)
{
	PARSE_ERR("{\"soname\":[\"a\"]}", "line 1, column 1: expected a JSON array of entry objects");
	PARSE_ERR("  \"x\"", "line 1, column 3: expected a JSON array of entry objects");
	PARSE_ERR("null", "line 1, column 1: expected a JSON array of entry objects");
}

Test(manifest, array_elements_must_be_entry_objects)
{
	PARSE_ERR("[[\"a\"]]", "line 1, column 2: expected an entry object, found '['");
	PARSE_ERR("[\"liba.so.1\"]", "line 1, column 2: expected an entry object, found '\"'");
	PARSE_ERR("[1]", "line 1, column 2: expected an entry object, found '1'");
	PARSE_ERR("[{\"soname\":[\"a\"]},]", "line 1, column 19: expected an entry object, found ']'");
	PARSE_ERR("[{\"soname\":[\"a\"]} {\"soname\":[\"b\"]}]", "line 1, column 19: expected ',' or ']', found '{'");
	PARSE_ERR("[{\"soname\":[\"a\"],}]", "line 1, column 18: expected a string key, found '}'");
	PARSE_ERR("[{\"soname\" [\"a\"]}]", "line 1, column 12: expected ':', found '['");
	PARSE_ERR("[{\"soname\":[\"a\"]}", "line 1, column 18: expected ',' or ']', found end of text");
}

/* Depth counts every container: the top-level array is 1, an entry 2, so an unknown key's value
 * may open 30 more. */
static void deep_manifest(struct buf *b, size_t levels)
{
	size_t i;

	buf_puts(b, "[{\"soname\":[\"a\"],\"x\":");        /* 21 characters: the value starts at column 22 */
	for (i = 0; i < levels; i++)
		buf_putc(b, '[');
	for (i = 0; i < levels; i++)
		buf_putc(b, ']');
	buf_puts(b, "}]");
}

Test(manifest, nesting_exactly_at_the_limit_is_accepted)
{
	struct entries es = { 0 };
	struct buf b = { 0 }, want = { 0 };
	size_t i;

	deep_manifest(&b, JSON_MAX_DEPTH - 2);
	parse_ok_at(b.p, b.len, &es);
	for (i = 0; i < JSON_MAX_DEPTH - 2; i++)
		buf_putc(&want, '[');
	for (i = 0; i < JSON_MAX_DEPTH - 2; i++)
		buf_putc(&want, ']');
	assert_member(&es.v[0], 1, "x", want.p);
	manifest_free(&es);
	buf_free(&b);
	buf_free(&want);
}

Test(manifest, nesting_one_past_the_limit_is_refused_with_its_position)
{
	struct buf b = { 0 };

	deep_manifest(&b, JSON_MAX_DEPTH - 1);
	parse_err_at(b.p, b.len, "line 1, column 52: nesting deeper than 32 levels");
	buf_free(&b);
}

/* ---------------------------------------------------------------- values kept */

Test(manifest, numbers_in_unknown_values_are_kept_as_written_and_leading_zeros_refused)
{
	struct entries es = parse_lit("[{\"soname\":[\"a\"],\"x-n\":[0,-1.5e+3,10,1E2]}]");

	assert_member(&es.v[0], 1, "x-n", "[0,-1.5e+3,10,1E2]");
	manifest_free(&es);
	/* "x" 18-20, ':' 21, '0' 22, '1' 23 */
	PARSE_ERR("[{\"soname\":[\"a\"],\"x\":012}]", "line 1, column 23: leading zeros are not allowed in numbers");
}

Test(manifest, unknown_keys_are_kept_in_order_with_canonical_compact_values)
{
	struct entries es = parse_lit("[ { \"x-first\" : { \"b\" : [ 1 , 2.50 , true ] , \"a\" : null } ,\n"
				      "    \"soname\" : [ \"liba.so.1\" , \"liba.so.0\" ] ,\n"
				      "    \"x-str\" : \"a\\/b \\\"q\\\" \\\\\" ,\n"
				      "    \"feature\" : \"foo\" , \"x-last\" : -0.0E+1 } ]");
	const struct entry *en = &es.v[0];

	cr_assert_eq(es.n, 1);
	cr_assert_eq(en->n, 5);
	assert_member(en, 0, "x-first", "{\"b\":[1,2.50,true],\"a\":null}");
	assert_member(en, 1, "soname", "[\"liba.so.1\",\"liba.so.0\"]");
	assert_member(en, 2, "x-str", "\"a/b \\\"q\\\" \\\\\"");
	assert_member(en, 3, "feature", "\"foo\"");
	assert_member(en, 4, "x-last", "-0.0E+1");
	manifest_free(&es);
}

Test(manifest, escaped_slashes_are_canonicalized_in_keys_and_values)
{
	struct entries es = parse_lit("[{\"soname\":[\"lib\\/x.so\"],\"feature\":\"a\\/b\",\"x\\/y\":\"\\/\"}]");
	struct buf tmp = { 0 };

	assert_member(&es.v[0], 0, "soname", "[\"lib/x.so\"]");
	assert_member(&es.v[0], 1, "feature", "\"a/b\"");
	assert_member(&es.v[0], 2, "x/y", "\"/\"");
	cr_assert_str_eq(entry_string(&es.v[0], "x/y", &tmp), "/");
	buf_free(&tmp);
	manifest_free(&es);
}

Test(manifest, entry_string_decodes_strings_and_ignores_other_values)
{
	struct entries es = parse_lit("[{\"soname\":[\"a\"],\"feature\":\"q\\\"\\\\\",\"x\":1}]");
	struct buf tmp = { 0 };

	cr_assert_str_eq(entry_string(&es.v[0], "feature", &tmp), "q\"\\");
	cr_assert_null(entry_string(&es.v[0], "x", &tmp));
	cr_assert_null(entry_string(&es.v[0], "soname", &tmp));
	cr_assert_null(entry_string(&es.v[0], "description", &tmp));
	cr_assert_null(entry_find(&es.v[0], "feat"), "keys are matched whole");
	buf_free(&tmp);
	manifest_free(&es);
}

Test(manifest, entries_are_appended_in_order_after_existing_ones)
{
	struct entries es = parse_lit("[{\"soname\":[\"first\"]}]");

	PARSE_OK("[{\"soname\":[\"second\"]},{\"soname\":[\"third\"]}]", &es);
	cr_assert_eq(es.n, 3);
	assert_member(&es.v[0], 0, "soname", "[\"first\"]");
	assert_member(&es.v[1], 0, "soname", "[\"second\"]");
	assert_member(&es.v[2], 0, "soname", "[\"third\"]");
	manifest_free(&es);
}

/* ---------------------------------------------------------------- entries from command-line values */

static const char *const FOO_SONAMES[] = { "libfoo.so.1", "libfoo.so.0" };

Test(manifest, entry_from_spec_orders_keys_soname_feature_description_priority)
{
	struct entry_spec s = { .feature = "foo", .description = "Enables foo", .priority = "suggested",
				.sonames = (const char **)FOO_SONAMES, .nsonames = 2 };
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(manifest_entry_from_spec(&s, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.n, 1);
	cr_assert_eq(es.v[0].n, 4);
	assert_member(&es.v[0], 0, "soname", "[\"libfoo.so.1\",\"libfoo.so.0\"]");
	assert_member(&es.v[0], 1, "feature", "\"foo\"");
	assert_member(&es.v[0], 2, "description", "\"Enables foo\"");
	assert_member(&es.v[0], 3, "priority", "\"suggested\"");
	manifest_free(&es);
}

Test(manifest, entry_from_spec_omits_what_was_not_given)
{
	const char *so[] = { "liba.so.1" };
	struct entry_spec s = { .sonames = so, .nsonames = 1 };
	struct entries es = { 0 };
	struct err e = { 0 };
	struct buf tmp = { 0 };

	cr_assert_eq(manifest_entry_from_spec(&s, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.v[0].n, 1);
	assert_member(&es.v[0], 0, "soname", "[\"liba.so.1\"]");
	cr_assert_str_eq(entry_priority(&es.v[0], &tmp), "recommended");
	buf_free(&tmp);
	manifest_free(&es);
}

Test(manifest, entry_from_spec_escapes_values_canonically)
{
	const char *so[] = { "lib\"q\".so" };
	struct entry_spec s = { .feature = "a\"b\\c/d", .description = "caf\xc3\xa9", .sonames = so, .nsonames = 1 };
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(manifest_entry_from_spec(&s, &es, &e), 0, "%s", e.msg);
	assert_member(&es.v[0], 0, "soname", "[\"lib\\\"q\\\".so\"]");
	assert_member(&es.v[0], 1, "feature", "\"a\\\"b\\\\c/d\"");
	assert_member(&es.v[0], 2, "description", "\"caf\xc3\xa9\"");
	manifest_free(&es);
}

static void spec_err(const struct entry_spec *s, const char *msg)
{
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(manifest_entry_from_spec(s, &es, &e), -1, "accepted; expected: %s", msg);
	cr_assert_str_eq(e.msg, msg);
	cr_assert_eq(e.status, EXIT_USAGE);
	cr_assert_eq(es.n, 0, "no partial entry is left behind");
	manifest_free(&es);
}

Test(manifest, entry_from_spec_requires_a_soname)
{
	struct entry_spec s = { 0 };

	spec_err(&s, "entry has no --soname (it is mandatory; --feature starts a new entry, so give --soname after it)");
	s.feature = "foo";
	spec_err(&s, "entry for feature foo has no --soname (it is mandatory; --feature starts a new entry, so give --soname after it)");
}

Test(manifest, entry_from_spec_validates_sonames_like_manifest_strings)
{
	const char *empty[] = { "liba.so.1", "" };
	const char *tab[] = { "lib\ta.so" };
	const char *bad[] = { "lib\xc0\x80.so" };
	const char *c1[] = { "lib\xc2\x9f" };
	struct entry_spec s = { .sonames = empty, .nsonames = 2 };

	spec_err(&s, "--soname: empty soname");
	s.sonames = tab, s.nsonames = 1;
	spec_err(&s, "--soname: control character");
	s.sonames = bad;
	spec_err(&s, "--soname: invalid UTF-8");
	s.sonames = c1;
	spec_err(&s, "--soname: control character");
}

Test(manifest, entry_from_spec_validates_feature_and_description)
{
	const char *so[] = { "liba.so.1" };
	struct entry_spec s = { .sonames = so, .nsonames = 1 };

	s.feature = "a\nb";
	spec_err(&s, "--feature: control character");
	s.feature = "\xed\xa0\x80";
	spec_err(&s, "--feature: invalid UTF-8");
	s.feature = "ok";
	s.description = "del\x7f";
	spec_err(&s, "--description: control character");
	s.description = "trunc\xe2\x82";
	spec_err(&s, "--description: invalid UTF-8");
}

Test(manifest, entry_from_spec_accepts_only_the_three_priorities)
{
	const char *so[] = { "liba.so.1" };
	struct entry_spec s = { .sonames = so, .nsonames = 1 };
	static const char *const good[] = { "required", "recommended", "suggested" };
	struct entries es = { 0 };
	struct err e = { 0 };
	char want[32];
	size_t i;

	s.priority = "urgent";
	spec_err(&s, "--priority: must be required, recommended or suggested, not 'urgent'");
	s.priority = "Required";
	spec_err(&s, "--priority: must be required, recommended or suggested, not 'Required'");
	s.priority = "";
	spec_err(&s, "--priority: must be required, recommended or suggested, not ''");
	for (i = 0; i < 3; i++) {
		s.priority = good[i];
		cr_assert_eq(manifest_entry_from_spec(&s, &es, &e), 0, "%s", e.msg);
		snprintf(want, sizeof want, "\"%s\"", good[i]);
		assert_member(&es.v[i], 1, "priority", want);
	}
	manifest_free(&es);
}

Test(manifest, entry_from_spec_equals_the_same_entry_read_from_a_manifest)
{
	struct entry_spec s = { .feature = "foo", .description = "Enables foo", .priority = "required",
				.sonames = (const char **)FOO_SONAMES, .nsonames = 2 };
	struct entries a = { 0 }, b;
	struct err e = { 0 };

	cr_assert_eq(manifest_entry_from_spec(&s, &a, &e), 0, "%s", e.msg);
	b = parse_lit("[{ \"soname\": [\"libfoo.so.1\", \"libfoo.so.0\"], \"feature\": \"foo\",\n"
		      "   \"description\": \"Enables foo\", \"priority\": \"required\" }]");
	cr_assert(manifest_entry_equal(&a.v[0], &b.v[0]));
	manifest_free(&a);
	manifest_free(&b);
}

/* ---------------------------------------------------------------- serialization */

Test(manifest, serialize_writes_compact_canonical_json_in_member_order)
{
	struct entries es = parse_lit("[ { \"x-first\" : { \"b\" : [ 1 , 2.50 , true ] , \"a\" : null } ,\n"
				      "    \"soname\" : [ \"liba.so.1\" , \"li\\/b\\\\\\\"a.so.0\" ] ,\n"
				      "    \"feature\" : \"caf\xc3\xa9\" } ,\n"
				      "  {\"soname\":[\"libb.so\"], \"priority\":\"suggested\"} ]");
	char *s = serialize(&es);

	cr_assert_str_eq(s, "[{\"x-first\":{\"b\":[1,2.50,true],\"a\":null},\"soname\":[\"liba.so.1\",\"li/b\\\\\\\"a.so.0\"],"
			    "\"feature\":\"caf\xc3\xa9\"},{\"soname\":[\"libb.so\"],\"priority\":\"suggested\"}]");
	free(s);
	manifest_free(&es);
}

Test(manifest, serialize_of_no_entries_is_an_empty_array)
{
	struct entries es = { 0 };
	char *s = serialize(&es);

	cr_assert_str_eq(s, "[]");
	free(s);
}

Test(manifest, serialize_entry_writes_one_object)
{
	struct entries es = parse_lit("[{\"soname\":[\"a\"]},{\"soname\":[\"b\"],\"x\":{}}]");
	struct buf b = { 0 };

	manifest_serialize_entry(&es.v[1], &b);
	cr_assert_str_eq(b.p, "{\"soname\":[\"b\"],\"x\":{}}");
	buf_free(&b);
	manifest_free(&es);
}

Test(manifest, parse_of_serialize_gives_back_the_same_entries)
{
	const char *so[] = { "lib\"x\\y.so.1", "libx.so.0" };
	struct entry_spec s = { .feature = "f/\"g\"", .description = "d \xe2\x82\xac", .priority = "recommended",
				.sonames = so, .nsonames = 2 };
	struct entries x = parse_lit("[{\"x\":{\"k\":[[],{},\"\\/\",-0.5e-7]},\"soname\":[\"a\"]},{\"soname\":[\"b\",\"c\"],\"feature\":\"\"}]");
	struct entries y = { 0 };
	struct err e = { 0 };
	char *s1, *s2;
	size_t i;

	cr_assert_eq(manifest_entry_from_spec(&s, &x, &e), 0, "%s", e.msg);
	s1 = serialize(&x);
	cr_assert_eq(manifest_parse(s1, strlen(s1), &y, &e), 0, "serialized form [%s] refused: %s", s1, e.msg);
	cr_assert_eq(y.n, x.n);
	for (i = 0; i < x.n; i++)
		cr_assert(manifest_entry_equal(&x.v[i], &y.v[i]), "entry %zu differs after the round trip", i);
	s2 = serialize(&y);
	T_STR_EQ(s2, s1, "serialization is a fixed point");
	free(s1);
	free(s2);
	manifest_free(&x);
	manifest_free(&y);
}

/* ---------------------------------------------------------------- equality and merging */

Test(manifest, entries_are_equal_only_with_the_same_members_and_values)
{
	struct entries es = parse_lit("[{\"soname\":[\"a\"]},{\"soname\":[\"a\"]},{\"soname\":[\"a\"],\"feature\":\"f\"},"
				      "{\"soname\":[\"b\"]},{\"soname\":[\"a\",\"b\"]}]");

	cr_assert(manifest_entry_equal(&es.v[0], &es.v[1]));
	cr_assert_not(manifest_entry_equal(&es.v[0], &es.v[2]));
	cr_assert_not(manifest_entry_equal(&es.v[0], &es.v[3]));
	cr_assert_not(manifest_entry_equal(&es.v[0], &es.v[4]));
	manifest_free(&es);
}

Test(manifest, merge_appends_only_entries_not_already_present)
{
	struct entries dst = parse_lit("[{\"soname\":[\"a\"]},{\"soname\":[\"b\"],\"feature\":\"fb\"}]");
	struct entries src = parse_lit("[{\"soname\":[\"b\"],\"feature\":\"fb\"},{\"soname\":[\"c\"]},{\"soname\":[\"a\"]},"
				       "{\"soname\":[\"b\"],\"feature\":\"other\"}]");
	char *s;

	cr_assert_eq(manifest_merge(&dst, &src), 0);
	s = serialize(&dst);
	cr_assert_str_eq(s, "[{\"soname\":[\"a\"]},{\"soname\":[\"b\"],\"feature\":\"fb\"},{\"soname\":[\"c\"]},"
			    "{\"soname\":[\"b\"],\"feature\":\"other\"}]");
	cr_assert_eq(src.n, 4, "the source is left alone");
	free(s);
	manifest_free(&dst);
	manifest_free(&src);
}

Test(manifest, merge_collapses_an_entry_repeated_in_the_added_entries)
{
	struct entries dst = { 0 };
	struct entries src = parse_lit("[{\"soname\":[\"c\"]},{\"soname\":[\"c\"]}]");

	cr_assert_eq(manifest_merge(&dst, &src), 0);
	cr_assert_eq(dst.n, 1);
	manifest_free(&dst);
	manifest_free(&src);
}

/* JSON objects are unordered (RFC 8259 §4), and producers differ in key order: systemd's
 * ELF_NOTE_DLOPEN macro writes feature, description, priority, soname (seeds/002) while
 * manifest_entry_from_spec writes soname first.  --merge of the same entry must not add it twice. */
Test(manifest, merge_treats_entries_differing_only_in_key_order_as_the_same)
{
	struct entry_spec s = { .feature = "foo", .description = "Enables foo", .priority = "recommended",
				.sonames = (const char **)FOO_SONAMES, .nsonames = 2 };
	struct entries dst = parse_lit("[{\"feature\":\"foo\",\"description\":\"Enables foo\",\"priority\":\"recommended\","
				       "\"soname\":[\"libfoo.so.1\",\"libfoo.so.0\"]}]");
	struct entries src = { 0 };
	struct err e = { 0 };

	cr_assert_eq(manifest_entry_from_spec(&s, &src, &e), 0, "%s", e.msg);
	cr_assert_eq(manifest_merge(&dst, &src), 0);
	cr_assert_eq(dst.n, 1, "the entry already in the file was added a second time (keys in another order)");
	manifest_free(&dst);
	manifest_free(&src);
}

Test(manifest, merge_all_keeps_every_entry_including_repeats)
{
	struct entries dst = parse_lit("[{\"soname\":[\"a\"]}]");
	struct entries src = parse_lit("[{\"soname\":[\"a\"]},{\"soname\":[\"b\"]},{\"soname\":[\"b\"]}]");
	char *s;

	cr_assert_eq(manifest_merge_all(&dst, &src), 0);
	s = serialize(&dst);
	cr_assert_str_eq(s, "[{\"soname\":[\"a\"]},{\"soname\":[\"a\"]},{\"soname\":[\"b\"]},{\"soname\":[\"b\"]}]");
	free(s);
	manifest_free(&dst);
	manifest_free(&src);
}

Test(manifest, append_copy_is_independent_of_its_source)
{
	struct entries src = parse_lit("[{\"soname\":[\"a\"],\"feature\":\"f\"}]");
	struct entries dst = { 0 };

	cr_assert_eq(manifest_append_copy(&dst, &src.v[0]), 0);
	manifest_free(&src);
	cr_assert_eq(dst.n, 1);
	assert_member(&dst.v[0], 0, "soname", "[\"a\"]");
	assert_member(&dst.v[0], 1, "feature", "\"f\"");
	manifest_free(&dst);
}
