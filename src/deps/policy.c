/* SPDX-License-Identifier: MIT */
/* policy.c - --policy=FILE: one JSON file that says, per feature (a glob, and a glob of files
 * where a package needs one), which priority an entry has for every consumer, or that it is
 * ignored, and whether an entry of a feature it does not name is accepted (see deps.h,
 * docs/policy.md). */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deps.h"

void policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].feature);
		free(p->v[i].files);
	}
	free(p->v);
	memset(p, 0, sizeof *p);
}

/* A string member's value, decoded and copied. */
static int take_string(struct json *j, char **out)
{
	struct buf b = {0};

	if (json_string(j, &b))
		return buf_free(&b), -1;
	buf_put(&b, "", 0);
	free(*out);
	*out = buf_take(&b);
	return *out ? 0 : err_oom(j->e);
}

static int rule_member(struct json *j, const char *key, struct policy_rule *r)
{
	char *prio = NULL;
	int rank;

	if ((strcmp(key, "feature") == 0 && r->feature) ||
	    (strcmp(key, "files") == 0 && r->files) ||
	    (strcmp(key, "priority") == 0 && r->has_rank))
		return json_error(j, "\"%s\" twice in a rule (keys are unique, RFC 8259)", key);
	if (strcmp(key, "feature") == 0)
		return take_string(j, &r->feature);
	if (strcmp(key, "files") == 0)
		return take_string(j, &r->files);
	if (strcmp(key, "priority") != 0)
		return json_error(j, "unknown key \"%s\" in a rule (feature, files, priority)",
				  key);
	if (take_string(j, &prio))
		return -1;
	rank = strcmp(prio, "ignored") == 0 ? POLICY_IGNORED : deps_rank_parse(prio, strlen(prio));
	free(prio);
	if (rank == -1)
		return json_error(j, "%s",
				  "priority must be required, recommended, suggested or ignored");
	r->rank = rank;
	r->has_rank = 1;
	return 0;
}

/* {"feature": GLOB, "files": GLOB, "priority": P}: the keys in any order, feature and priority
 * required. */
static int parse_rule(struct json *j, struct policy *p)
{
	struct policy_rule r = {0}, *v;
	struct buf key = {0};

	if (json_expect(j, '{', "a rule object"))
		return -1;
	json_ws(j);
	if (!json_eat(j, '}')) {
		do { /* members separated by commas, none after the last (strict JSON) */
			key.len = 0;
			json_ws(j);
			if (json_string(j, &key) ||
			    (buf_put(&key, "", 0), json_ws(j), json_expect(j, ':', "':'")))
				goto fail;
			json_ws(j);
			if (rule_member(j, key.p, &r))
				goto fail;
			json_ws(j);
		} while (json_eat(j, ','));
		if (json_expect(j, '}', "',' or '}'"))
			goto fail;
	}
	if (!r.feature || !r.has_rank) {
		json_error(j, "%s", "a rule needs \"feature\" and \"priority\"");
		goto fail;
	}
	v = xrealloc(p->v, p->n + 1, sizeof *v);
	if (!v) {
		err_oom(j->e);
		goto fail;
	}
	p->v = v;
	p->v[p->n++] = r;
	buf_free(&key);
	return 0;
fail:
	free(r.feature);
	free(r.files);
	buf_free(&key);
	return -1;
}

static int parse_member(struct json *j, const char *key, struct policy *p)
{
	if (strcmp(key, "unknown") == 0) {
		char *v = NULL;
		if (p->unknown_given++)
			return json_error(j, "%s", "\"unknown\" twice (keys are unique, RFC 8259)");
		if (take_string(j, &v))
			return -1;
		p->unknown_error = strcmp(v, "error") == 0;
		if (!p->unknown_error && strcmp(v, "accept") != 0)
			return free(v),
			       json_error(j, "%s", "\"unknown\" must be \"accept\" or \"error\"");
		return free(v), 0;
	}
	if (strcmp(key, "features") != 0)
		return json_error(j, "unknown key \"%s\" (unknown, features)", key);
	if (p->features_given++)
		return json_error(j, "%s", "\"features\" twice (keys are unique, RFC 8259)");
	if (json_expect(j, '[', "an array of rules"))
		return -1;
	json_ws(j);
	if (json_eat(j, ']'))
		return 0;
	do {
		json_ws(j);
		if (parse_rule(j, p))
			return -1;
		json_ws(j);
	} while (json_eat(j, ','));
	return json_expect(j, ']', "',' or ']'");
}

int policy_parse(const char *text, size_t len, struct policy *p, struct err *e)
{
	struct json j;
	struct buf key = {0};
	int r = 0;

	memset(p, 0, sizeof *p);
	json_init(&j, text, len, e);
	json_ws(&j);
	if (json_expect(&j, '{', "a policy object"))
		return -1;
	json_ws(&j);
	if (!json_eat(&j, '}')) {
		do {
			key.len = 0;
			json_ws(&j);
			r = json_string(&j, &key);
			if (r == 0) {
				buf_put(&key, "", 0);
				json_ws(&j);
				r = json_expect(&j, ':', "':'");
			}
			if (r == 0) {
				json_ws(&j);
				r = parse_member(&j, key.p, p);
				json_ws(&j);
			}
		} while (r == 0 && json_eat(&j, ','));
		if (r == 0)
			r = json_expect(&j, '}', "',' or '}'");
	}
	json_ws(&j);
	if (r == 0 && json_peek(&j) != -1)
		r = json_error(&j, "%s", "unexpected text after the policy");
	buf_free(&key);
	if (r)
		policy_free(p);
	return r;
}

/* A files glob matches the end of the path at a component boundary: "usr/bin/?*" matches
 * "usr/bin/app", "/usr/bin/app" inside a root and ".../BUILDROOT/usr/bin/app" in rpm. */
static int files_match(const char *glob, const char *path)
{
	for (const char *s = path; *s; s++)
		if ((s == path || s[-1] == '/') && *s != '/' && fnmatch(glob, s, 0) == 0)
			return 1;
	return 0;
}

int policy_rank(const struct policy *p, const struct entry *en, const char *file)
{
	struct buf tmp = {0};
	int rank = deps_entry_rank(en, &tmp);
	/* after the rank: both use tmp, and the feature must stay in it */
	const char *f = entry_string(en, "feature", &tmp);

	for (size_t i = 0; p && i < p->n; i++)
		if (fnmatch(p->v[i].feature, f ? f : "", 0) == 0 &&
		    (!p->v[i].files || (file && files_match(p->v[i].files, file)))) {
			buf_free(&tmp);
			return p->v[i].rank;
		}
	buf_free(&tmp);
	return p && p->unknown_error ? POLICY_UNKNOWN : rank;
}

int policy_set_priority(struct entry *en, int rank)
{
	struct keyval *kv = (struct keyval *)entry_find(en, "priority");
	const char *name = deps_rank_name(rank);
	size_t vlen = strlen(name) + 2;
	char *blk = malloc(9 + vlen + 1); /* key and value in one block, as manifest.c has them */

	if (!blk)
		return -1;
	memcpy(blk, "priority", 9);
	snprintf(blk + 9, vlen + 1, "\"%s\"", name);
	if (!kv) {
		struct keyval *v = xgrow(en->m, &en->cap, en->n, sizeof *v);
		if (!v)
			return free(blk), -1;
		en->m = v;
		kv = &en->m[en->n++];
	} else {
		free(kv->key);
	}
	*kv = (struct keyval){blk, blk + 9, 8, vlen};
	return 0;
}
