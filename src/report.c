/* report.c - listing formats. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"

/* Sonames of an entry joined by `sep` into out. */
static void join_sonames(const struct entry *en, const char *sep, struct buf *out)
{
	const struct member *m = entry_find(en, "soname");
	struct buf s = { 0 };
	size_t pos = 0;
	int first = 1;

	out->len = 0;
	while (m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1) {
		if (!first)
			buf_puts(out, sep);
		buf_put(out, s.p, s.len);
		first = 0;
	}
	buf_put(out, "", 0);
	buf_free(&s);
}

/* Display width of UTF-8 text: one column per code point (good enough for a table). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void cell(FILE *out, const char *s, size_t w, int last)
{
	size_t k = width(s);

	fputs(s, out);
	if (!last)
		for (; k < w + 2; k++)
			fputc(' ', out);
}

void report_table(const struct entries *es, FILE *out)
{
	static const char *const head[4] = { "FEATURE", "DESCRIPTION", "SONAME", "PRIORITY" };
	char **cells = xcalloc(es->n * 4 + 1, sizeof *cells);
	size_t w[4], i, c;
	struct buf t = { 0 };

	if (!cells)
		return;
	for (c = 0; c < 4; c++)
		w[c] = strlen(head[c]);
	for (i = 0; i < es->n; i++) {
		const char *v;
		v = entry_string(&es->v[i], "feature", &t);
		cells[i * 4] = strdup(v ? v : "-");
		v = entry_string(&es->v[i], "description", &t);
		cells[i * 4 + 1] = strdup(v ? v : "-");
		join_sonames(&es->v[i], ", ", &t);
		cells[i * 4 + 2] = strdup(t.p ? t.p : "");
		cells[i * 4 + 3] = strdup(entry_priority(&es->v[i], &t));
		for (c = 0; c < 4; c++)
			if (cells[i * 4 + c] && width(cells[i * 4 + c]) > w[c])
				w[c] = width(cells[i * 4 + c]);
	}
	for (c = 0; c < 4; c++)
		cell(out, head[c], w[c], c == 3);
	fputc('\n', out);
	for (i = 0; i < es->n; i++) {
		for (c = 0; c < 4; c++)
			cell(out, cells[i * 4 + c] ? cells[i * 4 + c] : "?", w[c], c == 3);
		fputc('\n', out);
	}
	for (i = 0; i < es->n * 4; i++)
		free(cells[i]);
	free(cells);
	buf_free(&t);
}

void report_json(const struct entries *es, FILE *out)
{
	struct buf b = { 0 };

	manifest_serialize(es, &b);
	if (b.p)
		fwrite(b.p, 1, b.len, out);
	fputc('\n', out);
	buf_free(&b);
}
