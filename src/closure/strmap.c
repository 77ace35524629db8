/* SPDX-License-Identifier: MIT */
/* strmap.c - strings to numbers, for the sets of the walk (see closure_int.h). */
#include <stdlib.h>
#include <string.h>

#include "closure_int.h"

static size_t hash(const char *s, size_t len)
{
	return (size_t)hash_bytes(HASH_START, s, len);
}

static struct strmap_slot *lookup(const struct strmap *m, const char *key, size_t len)
{
	size_t i = hash(key, len) & (m->cap - 1);

	while (m->v[i].key && (m->v[i].len != len || memcmp(m->v[i].key, key, len) != 0))
		i = (i + 1) & (m->cap - 1);
	return &m->v[i];
}

size_t strmap_get(const struct strmap *m, const char *key, size_t len, int *found)
{
	const struct strmap_slot *s;

	*found = 0;
	if (!m->cap)
		return 0;
	s = lookup(m, key, len);
	*found = s->key != NULL;
	return s->key ? s->val : 0;
}

static int grow(struct strmap *m)
{
	struct strmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->v = xcalloc(m->cap, sizeof *m->v);
	if (!m->v) {
		*m = old;
		return -1;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.v[i].key)
			*lookup(m, old.v[i].key, old.v[i].len) = old.v[i];
	free(old.v);
	return 0;
}

int strmap_put(struct strmap *m, const char *key, size_t len, size_t val)
{
	struct strmap_slot *s;

	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -1;
	s = lookup(m, key, len);
	if (!s->key) {
		s->key = xstrndup(key, len);
		if (!s->key)
			return -1;
		s->len = len;
		m->n++;
	}
	s->val = val;
	return 0;
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->v[i].key);
	free(m->v);
	memset(m, 0, sizeof *m);
}
