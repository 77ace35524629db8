/* SPDX-License-Identifier: MIT */
/* test_json.c - the strict JSON lexer (src/base/json.c).
 *
 * Every expectation comes from RFC 8259 and the dlopen-note spec (shared/REFERENCE.md §1):
 * valid UTF-8 only, no control characters (C0, DEL, C1) raw or escaped, no \u escapes, unique
 * keys, bounded nesting (JSON_MAX_DEPTH counts every container), compact canonical output.
 * Positions are "line L, column C", 1-based, columns counted in characters; an error points at
 * the first character that makes the text invalid (for an escape: the character after '\'). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "base/base.h"

static int run_value(const char *text, size_t len, int depth, struct buf *out, struct err *e)
{
	struct json j;

	memset(e, 0, sizeof *e);
	json_init(&j, text, len, e);
	return json_value(&j, depth, out);
}

/* The text is one valid value whose compact canonical form is `compact`. */
static void value_ok_at(const char *text, size_t len, int depth, const char *compact)
{
	struct buf out = { 0 };
	struct err e;
	int r = run_value(text, len, depth, &out, &e);

	cr_assert_eq(r, 0, "input [%.*s] refused: %s", (int)len, text, e.msg);
	T_STR_EQ(out.p ? out.p : "", compact, "input [%.*s]", (int)len, text);
	cr_assert_eq(out.len, strlen(compact));
	buf_free(&out);
}

/* The text is refused with exactly `msg`. */
static void value_err_at(const char *text, size_t len, int depth, const char *msg)
{
	struct buf out = { 0 };
	struct err e;
	int r = run_value(text, len, depth, &out, &e);

	cr_assert_eq(r, -1, "input [%.*s] accepted as [%s]; expected: %s", (int)len, text, out.p ? out.p : "", msg);
	T_STR_EQ(e.msg, msg, "input [%.*s]", (int)len, text);
	cr_assert_eq(e.usage, 0);
	buf_free(&out);
}

#define VALUE_OK(lit, compact) value_ok_at(lit, sizeof(lit) - 1, 0, compact)
#define VALUE_ERR(lit, msg) value_err_at(lit, sizeof(lit) - 1, 0, msg)
#define SAME(lit) value_ok_at(lit, sizeof(lit) - 1, 0, lit)

/* A string literal "<prefix><bytes><suffix>" built at run time. */
static size_t make(char *out, size_t outsz, const char *prefix, const char *bytes, size_t nbytes, const char *suffix)
{
	size_t n = 0;

	cr_assert(strlen(prefix) + nbytes + strlen(suffix) < outsz);
	memcpy(out, prefix, strlen(prefix));
	n += strlen(prefix);
	memcpy(out + n, bytes, nbytes);
	n += nbytes;
	memcpy(out + n, suffix, strlen(suffix));
	n += strlen(suffix);
	out[n] = '\0';
	return n;
}

/* ---------------------------------------------------------------- strings and escapes */

Test(json, string_decodes_the_three_escapes_the_spec_keeps)
{
	static const char text[] = "\"a\\\"b\\\\c\\/d\" rest";
	struct buf dec = { 0 };
	struct err e = { 0 };
	struct json j;

	json_init(&j, text, sizeof text - 1, &e);
	cr_assert_eq(json_string(&j, &dec), 0, "%s", e.msg);
	cr_assert_str_eq(dec.p, "a\"b\\c/d");
	cr_assert_eq(dec.len, 7);
	/* the cursor stops right after the closing quote */
	cr_assert_eq(json_peek(&j), ' ');
	cr_assert_eq(j.col, 13);
	buf_free(&dec);
}

Test(json, escaped_slash_is_canonicalized_to_a_plain_slash)
{
	VALUE_OK("\"\\/usr\\/lib\\/\"", "\"/usr/lib/\"");
	VALUE_OK("[\"a\\/b\",{\"k\\/\":\"\\/\"}]", "[\"a/b\",{\"k/\":\"/\"}]");
}

Test(json, quote_and_backslash_stay_escaped_in_canonical_form)
{
	SAME("\"say \\\"hi\\\" \\\\o/\"");
}

Test(json, raw_control_characters_in_strings_are_refused_with_their_code_point)
{
	static const unsigned char ctl[] = { 0x01, 0x08, 0x09, 0x0a, 0x0d, 0x1b, 0x1f };
	char text[16], msg[128];
	size_t i, n;

	for (i = 0; i < sizeof ctl; i++) {
		n = make(text, sizeof text, "\"a", (const char *)&ctl[i], 1, "b\"");
		snprintf(msg, sizeof msg, "line 1, column 3: control character U+%04X in string (spec forbids control characters)", ctl[i]);
		value_err_at(text, n, 0, msg);
	}
}

Test(json, nul_byte_in_a_string_is_refused)
{
	VALUE_ERR("\"a\0b\"", "line 1, column 3: NUL byte in string");
}

Test(json, del_is_a_control_character)
{
	VALUE_ERR("\"ab\x7f\"", "line 1, column 4: control character U+007F in string (spec forbids control characters)");
	SAME("\"~\"");      /* U+007E, just below */
}

Test(json, c1_controls_U0080_to_U009F_are_refused)
{
	char text[16], msg[128], seq[2];
	size_t n;
	unsigned cp;

	for (cp = 0x80; cp <= 0x9f; cp++) {
		seq[0] = (char)(0xc0 | (cp >> 6));
		seq[1] = (char)(0x80 | (cp & 0x3f));
		n = make(text, sizeof text, "\"x", seq, 2, "\"");
		snprintf(msg, sizeof msg, "line 1, column 3: control character U+%04X in string (spec forbids control characters)", cp);
		value_err_at(text, n, 0, msg);
	}
	SAME("\"x\xc2\xa0\"");   /* U+00A0 NO-BREAK SPACE, just above, is not a control character */
}

Test(json, escapes_of_control_characters_are_refused)
{
	static const char letters[] = "bfnrt";
	char text[16], msg[128];
	size_t i, n;

	for (i = 0; letters[i]; i++) {
		n = (size_t)snprintf(text, sizeof text, "\"a\\%c\"", letters[i]);
		snprintf(msg, sizeof msg, "line 1, column 4: escape \\%c encodes a control character, which the spec forbids", letters[i]);
		value_err_at(text, n, 0, msg);
	}
}

Test(json, unicode_escapes_are_refused_even_for_printable_characters)
{
	VALUE_ERR("\"\\u0041\"", "line 1, column 3: \\u escapes are not allowed (spec: no \\uXXXX escaping)");
	VALUE_ERR("\"x\\u00e9\"", "line 1, column 4: \\u escapes are not allowed (spec: no \\uXXXX escaping)");
	VALUE_ERR("\"\\u0000\"", "line 1, column 3: \\u escapes are not allowed (spec: no \\uXXXX escaping)");
	VALUE_ERR("\"\\ud83d\\ude00\"", "line 1, column 3: \\u escapes are not allowed (spec: no \\uXXXX escaping)");
}

Test(json, unknown_escapes_are_refused)
{
	VALUE_ERR("\"\\x41\"", "line 1, column 3: invalid escape in string");
	VALUE_ERR("\"\\a\"", "line 1, column 3: invalid escape in string");
	VALUE_ERR("\"\\'\"", "line 1, column 3: invalid escape in string");
	VALUE_ERR("\"ab\\0\"", "line 1, column 5: invalid escape in string");
}

Test(json, unterminated_string_is_reported_at_the_end_of_the_text)
{
	VALUE_ERR("\"abc", "line 1, column 5: unterminated string");
	VALUE_ERR("[\"a\",\n\"b", "line 2, column 3: unterminated string");
}

/* ---------------------------------------------------------------- UTF-8 */

Test(json, valid_utf8_at_every_boundary_is_kept_byte_for_byte)
{
	SAME("\"\xc2\xa0\"");               /* U+00A0: first 2-byte non-control */
	SAME("\"\xdf\xbf\"");               /* U+07FF: last 2-byte */
	SAME("\"\xe0\xa0\x80\"");           /* U+0800: first 3-byte */
	SAME("\"\xed\x9f\xbf\"");           /* U+D7FF: just below the surrogates */
	SAME("\"\xee\x80\x80\"");           /* U+E000: just above them */
	SAME("\"\xef\xbf\xbd\"");           /* U+FFFD */
	SAME("\"\xf0\x90\x80\x80\"");       /* U+10000: first 4-byte */
	SAME("\"\xf4\x8f\xbf\xbf\"");       /* U+10FFFF: the last code point */
	SAME("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
}

static void refuse_sequences(const char *const *seqs, size_t nseq)
{
	char text[32];
	size_t i, n;

	for (i = 0; i < nseq; i++) {
		n = make(text, sizeof text, "\"", seqs[i], strlen(seqs[i]), "\"");
		value_err_at(text, n, 0, "line 1, column 2: invalid UTF-8 in string");
	}
}

Test(json, overlong_utf8_forms_are_refused)
{
	static const char *const seqs[] = {
		"\xc0\x80", "\xc1\xbf",                  /* 2-byte overlongs of U+0000, U+007F */
		"\xe0\x80\x80", "\xe0\x9f\xbf",          /* 3-byte overlongs of U+0000, U+07FF */
		"\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",  /* 4-byte overlongs of U+0000, U+FFFF */
	};
	refuse_sequences(seqs, sizeof seqs / sizeof *seqs);
}

Test(json, utf8_encoded_surrogates_are_refused)
{
	static const char *const seqs[] = { "\xed\xa0\x80", "\xed\xaf\xbf", "\xed\xb0\x80", "\xed\xbf\xbf" };
	refuse_sequences(seqs, sizeof seqs / sizeof *seqs);
}

Test(json, code_points_above_U10FFFF_are_refused)
{
	static const char *const seqs[] = {
		"\xf4\x90\x80\x80",                      /* U+110000 */
		"\xf5\x80\x80\x80", "\xf7\xbf\xbf\xbf",  /* lead bytes that can only start > U+10FFFF */
		"\xf8\x88\x80\x80\x80", "\xfe", "\xff",
	};
	refuse_sequences(seqs, sizeof seqs / sizeof *seqs);
}

Test(json, truncated_utf8_sequences_are_refused)
{
	static const char *const seqs[] = {
		"\xc3", "\xc3" "A", "\xe2\x82", "\xe2" "A", "\xf0\x9f\x98", "\xf0\x9f" "AB",
	};
	refuse_sequences(seqs, sizeof seqs / sizeof *seqs);
	/* truncated by the end of the text itself */
	VALUE_ERR("\"\xe2\x82", "line 1, column 2: invalid UTF-8 in string");
	VALUE_ERR("\"\xf0\x9f\x98", "line 1, column 2: invalid UTF-8 in string");
}

Test(json, stray_continuation_bytes_are_refused)
{
	static const char *const seqs[] = { "\x80", "\xbf", "\x80\x80" };
	refuse_sequences(seqs, sizeof seqs / sizeof *seqs);
	VALUE_ERR("\"a\x80\"", "line 1, column 3: invalid UTF-8 in string");
	/* a continuation byte too many after a complete character */
	VALUE_ERR("\"\xc3\xa9\x80\"", "line 1, column 3: invalid UTF-8 in string");
}

Test(json, a_multibyte_character_before_an_error_counts_as_one_column)
{
	/* '"' 1, é 2, € 3, 😀 4, U+0001 5 */
	VALUE_ERR("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x01\"",
		  "line 1, column 5: control character U+0001 in string (spec forbids control characters)");
	/* and on a later line: ' ' 1, '"' 2, € 3, 😀 4, U+001F 5 */
	VALUE_ERR("[\n\"\xc3\xa9\",\n \"\xe2\x82\xac\xf0\x9f\x98\x80\x1f\"]",
		  "line 3, column 5: control character U+001F in string (spec forbids control characters)");
}

Test(json, lines_count_newlines_and_columns_restart_after_each)
{
	/* "\r\n": CR is an ordinary whitespace character of line 2, LF starts line 3 */
	VALUE_ERR("[1,\n2,\r\n  x]", "line 3, column 3: expected a value, found 'x'");
	VALUE_ERR("\n\n\n\t\"a\x01\"", "line 4, column 4: control character U+0001 in string (spec forbids control characters)");
}

/* ---------------------------------------------------------------- numbers and literals */

Test(json, valid_numbers_are_kept_exactly_as_written)
{
	SAME("0");
	SAME("-0");
	SAME("7");
	SAME("-12");
	SAME("0.5");
	SAME("1.50");
	SAME("1e5");
	SAME("1E+5");
	SAME("2.5e-05");
	SAME("-0.0E0");
	SAME("123456789012345678901234567890");
	SAME("[0,-1,1.0e+10,3E3]");
}

Test(json, leading_zeros_are_refused)
{
	VALUE_ERR("01", "line 1, column 2: leading zeros are not allowed in numbers");
	VALUE_ERR("-01", "line 1, column 3: leading zeros are not allowed in numbers");
	VALUE_ERR("00.5", "line 1, column 2: leading zeros are not allowed in numbers");
	VALUE_ERR("[1,007]", "line 1, column 5: leading zeros are not allowed in numbers");
}

Test(json, numbers_missing_digits_are_refused)
{
	VALUE_ERR("-", "line 1, column 2: expected a digit");
	VALUE_ERR("-.5", "line 1, column 2: expected a digit");
	VALUE_ERR("1.", "line 1, column 3: expected a digit");
	VALUE_ERR("1.e5", "line 1, column 3: expected a digit");
	VALUE_ERR("1e", "line 1, column 3: expected a digit");
	VALUE_ERR("1e+", "line 1, column 4: expected a digit");
	VALUE_ERR("[1E-]", "line 1, column 5: expected a digit");
}

Test(json, plus_sign_and_bare_fraction_are_not_values)
{
	VALUE_ERR("+1", "line 1, column 1: expected a value, found '+'");
	VALUE_ERR(".5", "line 1, column 1: expected a value, found '.'");
}

Test(json, literals_are_kept_and_misspellings_refused)
{
	SAME("[true,false,null]");
	VALUE_ERR("nul", "line 1, column 1: expected a value, found 'n'");
	VALUE_ERR("[True]", "line 1, column 2: expected a value, found 'T'");
	VALUE_ERR("[nulls]", "line 1, column 6: expected ',' or ']', found 's'");
	VALUE_ERR("[1x]", "line 1, column 3: expected ',' or ']', found 'x'");
}

/* ---------------------------------------------------------------- structure */

Test(json, whitespace_is_dropped_and_member_order_kept)
{
	VALUE_OK(" {\n\t\"b\" : [ 1 , 2.50 , true ] ,\r\n \"a\" : { } , \"c\":[ ] } ",
		 "{\"b\":[1,2.50,true],\"a\":{},\"c\":[]}");
}

Test(json, trailing_commas_are_refused)
{
	VALUE_ERR("[1,]", "line 1, column 4: expected a value, found ']'");
	VALUE_ERR("{\"a\":1,}", "line 1, column 8: expected a string key, found '}'");
}

Test(json, object_members_need_a_string_key_and_a_colon)
{
	VALUE_ERR("{1:2}", "line 1, column 2: expected a string key, found '1'");
	VALUE_ERR("{\"a\" 1}", "line 1, column 6: expected ':', found '1'");
	VALUE_ERR("{\"a\"}", "line 1, column 5: expected ':', found '}'");
	VALUE_ERR("[1 2]", "line 1, column 4: expected ',' or ']', found '2'");
}

Test(json, unclosed_containers_report_the_end_of_the_text)
{
	VALUE_ERR("", "line 1, column 1: expected a value, found end of text");
	VALUE_ERR("[", "line 1, column 2: expected a value, found end of text");
	VALUE_ERR("[1", "line 1, column 3: expected ',' or ']', found end of text");
	VALUE_ERR("{\"a\":1", "line 1, column 7: expected ',' or '}', found end of text");
}

Test(json, unprintable_bytes_outside_strings_are_named)
{
	VALUE_ERR("[\0]", "line 1, column 2: expected a value, found NUL byte");
	VALUE_ERR("[\x01]", "line 1, column 2: expected a value, found byte");
	VALUE_ERR("[\xc3\xa9]", "line 1, column 2: expected a value, found byte");
}

/* ---------------------------------------------------------------- duplicate keys */

Test(json, a_duplicate_key_is_refused_at_its_second_occurrence)
{
	VALUE_ERR("{\"a\":1,\"a\":2}", "line 1, column 8: duplicate key \"a\" (keys must be unique)");
	/* three times: the first repetition is reported */
	VALUE_ERR("{\"a\":1,\"b\":2,\"a\":3,\"a\":4}", "line 1, column 14: duplicate key \"a\" (keys must be unique)");
}

Test(json, duplicate_keys_deep_inside_a_value_are_refused_with_their_position)
{
	VALUE_ERR("{\"x\": [1,\n  {\"k\": true,\n   \"k\": false}]}",
		  "line 3, column 4: duplicate key \"k\" (keys must be unique)");
}

Test(json, keys_equal_after_decoding_escapes_are_duplicates)
{
	VALUE_ERR("{\"a/b\":1,\"a\\/b\":2}", "line 1, column 10: duplicate key \"a/b\" (keys must be unique)");
}

Test(json, a_multibyte_key_counts_as_characters_in_the_position)
{
	VALUE_ERR("{\"\xc3\xa9\":1,\"\xc3\xa9\":2}", "line 1, column 8: duplicate key \"\xc3\xa9\" (keys must be unique)");
}

Test(json, the_same_key_in_different_objects_is_allowed)
{
	SAME("{\"k\":{\"k\":1},\"j\":[{\"k\":2},{\"k\":3}],\"kk\":{\"k\":{\"k\":4}}}");
	SAME("[{\"a\":1},{\"a\":1}]");
}

Test(json, keys_that_are_prefixes_of_each_other_are_distinct)
{
	SAME("{\"a\":1,\"ab\":2,\"\":3,\"abc\":4,\"b\":5}");
	VALUE_ERR("{\"\":1,\"a\":2,\"\":3}", "line 1, column 13: duplicate key \"\" (keys must be unique)");
}

Test(json, many_distinct_keys_pass_and_a_late_duplicate_is_found)
{
	struct buf text = { 0 };
	char msg[128];
	size_t i, col;

	buf_putc(&text, '{');
	for (i = 0; i < 300; i++)
		buf_printf(&text, "%s\"k%zu\":%zu", i ? "," : "", i, i);
	buf_putc(&text, '}');
	value_ok_at(text.p, text.len, 0, text.p);

	text.len--;                     /* drop '}' */
	buf_puts(&text, ",");
	col = text.len + 1;             /* one line of ASCII: column = offset + 1 */
	buf_puts(&text, "\"k150\":0}");
	snprintf(msg, sizeof msg, "line 1, column %zu: duplicate key \"k150\" (keys must be unique)", col);
	value_err_at(text.p, text.len, 0, msg);
	buf_free(&text);
}

/* ---------------------------------------------------------------- nesting depth */

static void nested(struct buf *b, size_t levels, const char *open, const char *inner, const char *close)
{
	size_t i;

	for (i = 0; i < levels; i++)
		buf_puts(b, open);
	buf_puts(b, inner);
	for (i = 0; i < levels; i++)
		buf_puts(b, close);
}

Test(json, nesting_exactly_at_the_limit_is_accepted)
{
	struct buf b = { 0 };

	cr_assert_eq(JSON_MAX_DEPTH, 32);
	nested(&b, JSON_MAX_DEPTH, "[", "", "]");
	value_ok_at(b.p, b.len, 0, b.p);
	buf_free(&b);
	nested(&b, JSON_MAX_DEPTH, "{\"a\":", "1", "}");
	value_ok_at(b.p, b.len, 0, b.p);
	buf_free(&b);
}

Test(json, nesting_one_past_the_limit_is_refused_at_the_opening_bracket)
{
	struct buf b = { 0 };
	char msg[96];

	nested(&b, JSON_MAX_DEPTH + 1, "[", "", "]");
	snprintf(msg, sizeof msg, "line 1, column %d: nesting deeper than 32 levels", JSON_MAX_DEPTH + 1);
	value_err_at(b.p, b.len, 0, msg);
	buf_free(&b);
	/* objects count too: the 33rd '{' starts at column 32 * strlen("{\"a\":") + 1 */
	nested(&b, JSON_MAX_DEPTH + 1, "{\"a\":", "1", "}");
	value_err_at(b.p, b.len, 0, "line 1, column 161: nesting deeper than 32 levels");
	buf_free(&b);
	/* mixed: the inner "[]" is the 33rd container, after 16 * strlen("[{\"a\":") bytes */
	nested(&b, 16, "[{\"a\":", "[]", "}]");
	value_err_at(b.p, b.len, 0, "line 1, column 97: nesting deeper than 32 levels");
	buf_free(&b);
}

Test(json, depth_already_used_by_the_caller_counts_towards_the_limit)
{
	value_ok_at("[[]]", 4, JSON_MAX_DEPTH - 2, "[[]]");
	value_err_at("[[[]]]", 6, JSON_MAX_DEPTH - 2, "line 1, column 3: nesting deeper than 32 levels");
	value_ok_at("\"leaf\"", 6, JSON_MAX_DEPTH, "\"leaf\"");
}

Test(json, hostile_nesting_is_refused_without_recursing, .timeout = 10)
{
	size_t n = 1000000;
	char *text = malloc(n);

	cr_assert(text);
	memset(text, '[', n);
	value_err_at(text, n, 0, "line 1, column 33: nesting deeper than 32 levels");
	free(text);
}

/* ---------------------------------------------------------------- helpers of the API */

Test(json, put_string_escapes_only_quote_and_backslash)
{
	struct buf b = { 0 };
	static const char s[] = "a\"b\\c/d \xc3\xa9\"";

	json_put_string(&b, s, sizeof s - 1);
	cr_assert_str_eq(b.p, "\"a\\\"b\\\\c/d \xc3\xa9\\\"\"");
	buf_free(&b);
	json_put_string(&b, "", 0);
	cr_assert_str_eq(b.p, "\"\"");
	buf_free(&b);
}

Test(json, check_text_applies_the_string_rules_to_plain_text)
{
	cr_assert_null(json_check_text("libfoo.so.1", 11));
	cr_assert_null(json_check_text("caf\xc3\xa9 \"q\" \\", 11));
	cr_assert_null(json_check_text("", 0));
	cr_assert_str_eq(json_check_text("a\tb", 3), "control character");
	cr_assert_str_eq(json_check_text("a\nb", 3), "control character");
	cr_assert_str_eq(json_check_text("a\x7f", 2), "control character");
	cr_assert_str_eq(json_check_text("a\xc2\x85", 3), "control character");
	cr_assert_str_eq(json_check_text("a\0b", 3), "NUL byte");
	cr_assert_str_eq(json_check_text("\xc0\x80", 2), "invalid UTF-8");
	cr_assert_str_eq(json_check_text("\xed\xa0\x80", 3), "invalid UTF-8");
	cr_assert_str_eq(json_check_text("\xf4\x90\x80\x80", 4), "invalid UTF-8");
	cr_assert_str_eq(json_check_text("ab\xe2\x82", 4), "invalid UTF-8");
	cr_assert_str_eq(json_check_text("\x80", 1), "invalid UTF-8");
}

Test(json, string_value_decodes_a_canonical_string)
{
	struct buf b = { 0 };

	cr_assert_eq(json_string_value("\"a\\\"b\\\\c\"", 9, &b), 0);
	cr_assert_str_eq(b.p, "a\"b\\c");
	buf_free(&b);
	cr_assert_eq(json_string_value("[\"a\"]", 5, &b), -1);
	cr_assert_eq(json_string_value("1", 1, &b), -1);
	cr_assert_eq(json_string_value("\"", 1, &b), -1);
	buf_free(&b);
}

Test(json, array_walker_yields_each_decoded_string_then_the_end)
{
	static const char v[] = "[\"liba.so.1\",\"b\\\"]\\\\\",\"\"]";
	struct buf s = { 0 };
	size_t pos = 0;

	cr_assert_eq(json_array_next_string(v, sizeof v - 1, &pos, &s), 1);
	cr_assert_str_eq(s.p, "liba.so.1");
	cr_assert_eq(json_array_next_string(v, sizeof v - 1, &pos, &s), 1);
	cr_assert_str_eq(s.p, "b\"]\\");
	cr_assert_eq(json_array_next_string(v, sizeof v - 1, &pos, &s), 1);
	cr_assert_eq(s.len, 0);
	cr_assert_eq(json_array_next_string(v, sizeof v - 1, &pos, &s), 0);
	buf_free(&s);

	pos = 0;
	cr_assert_eq(json_array_next_string("[]", 2, &pos, &s), 0);
	pos = 0;
	cr_assert_eq(json_array_next_string("[1]", 3, &pos, &s), -1);
	pos = 0;
	cr_assert_eq(json_array_next_string("[\"a\",[\"b\"]]", 11, &pos, &s), 1);
	cr_assert_eq(json_array_next_string("[\"a\",[\"b\"]]", 11, &pos, &s), -1);
	pos = 0;
	cr_assert_eq(json_array_next_string("\"a\"", 3, &pos, &s), -1);
	buf_free(&s);
}

Test(json, keyset_reports_the_later_duplicate_and_forgets_closed_objects)
{
	struct json_keyset ks = { 0 };
	struct err e = { 0 };

	cr_assert_eq(json_keyset_add(&ks, "outer", 5, 1, 2), 0);
	cr_assert_eq(json_keyset_add(&ks, "k", 1, 2, 3), 0);
	cr_assert_eq(json_keyset_add(&ks, "j", 1, 3, 4), 0);
	cr_assert_eq(json_keyset_add(&ks, "k", 1, 4, 5), 0);
	cr_assert_eq(json_keyset_close(&ks, 1, &e), -1);
	cr_assert_str_eq(e.msg, "line 4, column 5: duplicate key \"k\" (keys must be unique)");
	cr_assert_eq(ks.n, 1, "the closed object's keys are dropped");

	cr_assert_eq(json_keyset_add(&ks, "k", 1, 5, 1), 0);
	cr_assert_eq(json_keyset_close(&ks, 0, &e), 0, "'outer' and 'k' are distinct");
	cr_assert_eq(ks.n, 0);
	json_keyset_free(&ks);
}

Test(json, expect_names_the_printable_character_it_found)
{
	struct err e = { 0 };
	struct json j;

	json_init(&j, "  x", 3, &e);
	json_ws(&j);
	cr_assert_eq(json_peek(&j), 'x');
	cr_assert_eq(json_eat(&j, 'y'), 0);
	cr_assert_eq(json_expect(&j, ':', "':'"), -1);
	cr_assert_str_eq(e.msg, "line 1, column 3: expected ':', found 'x'");
	cr_assert_eq(json_eat(&j, 'x'), 1);
	cr_assert_eq(json_peek(&j), -1);
}
