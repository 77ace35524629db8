/* SPDX-License-Identifier: MIT */
/* test_manifest.c - parsing manifests (src/note/manifest.c): the spec's rules, strings, the document
 * around the entries, and the values kept.  Entries built from command-line values and
 * serialization are in test_manifest_build.c, equality and merging in test_manifest_merge.c.
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
#include "base/base.h"
#include "note/note.h"
#include "manifest_fixtures.h"

static const char PRIORITY_RULE[] = "\"priority\" must be \"required\", \"recommended\" or \"suggested\"";

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
