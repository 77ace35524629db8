/* SPDX-License-Identifier: MIT */
/* cli.c - the command line: options, usage errors, --help, and main(), which hands the
 * files to files.c. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_int.h"
#include "../deps/deps.h"
#include "../lint/lint.h"
#include "../report/report.h"

#ifndef VERSION
#error "VERSION is defined by the build, from the file VERSION"
#endif

/* Not the user's fault: exit status 1. */
static int out_of_memory(void)
{
	print_oom();
	return EXIT_BAD_INPUT;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	print_text(stderr, PROGRAM_NAME ": %s\n", msg);
	fprintf(stderr, "Try '" PROGRAM_NAME " --help' for more information.\n");
	return EXIT_USAGE;
}

/* ---- entries from flags ---- */

struct flag_entry {
	struct entry_spec spec;
	size_t cap; /* of spec.sonames */
	int open;
};

/* The entry that --feature (or the first entry flag) opened.  The note layer names a value by
 * its key ("soname: ..."): the option is that key with "--". */
static int flush_flag_entry(struct flag_entry *f, struct entries *out)
{
	struct err e = {0};
	int r = 0;

	if (f->open && out && f->spec.nsonames == 0) {
		print_text(stderr,
			   PROGRAM_NAME ": entry%s%s has no --soname (it is mandatory; --feature "
					"starts a new entry, so give --soname after it)\n",
			   f->spec.feature ? " for feature " : "",
			   f->spec.feature ? f->spec.feature : "");
		r = -1;
	} else if (f->open && out && manifest_entry_from_spec(&f->spec, out, &e)) {
		print_text(stderr, PROGRAM_NAME ": %s%s\n", e.usage ? "--" : "", e.msg);
		r = -1;
	}
	free(f->spec.sonames);
	memset(f, 0, sizeof *f);
	return r;
}

static int set_once(const char **slot, const char *value, const char *flag)
{
	if (*slot) {
		fprintf(stderr,
			PROGRAM_NAME
			": %s given twice for one entry (start another with --feature)\n",
			flag);
		return -1;
	}
	*slot = value;
	return 0;
}

/* ---- options ---- */

enum {
	OPT_FEATURE = 256,
	OPT_SONAME,
	OPT_DESCRIPTION,
	OPT_PRIORITY,
	OPT_MERGE,
	OPT_REMOVE,
	OPT_LIST,
	OPT_JSON,
	OPT_CHECK,
	OPT_VERSION,
	OPT_FSYNC,
	OPT_DISCOVER,
	OPT_FORMAT,
	OPT_ONLY_FEATURE,
	OPT_ONLY_PRIORITY,
	OPT_RPM_SUGGESTS,
	OPT_RPM_RECOMMENDS,
	OPT_RPM_REQUIRES,
	OPT_DEB_MAP,
	OPT_EXPECT,
	OPT_SKIP_NON_ELF,
	OPT_FILES_FROM,
	OPT_RECORD,
	OPT_RECORDED,
	OPT_MEMBER,
	OPT_RPM_GENERATE,
	OPT_RPM_PACKAGE,
	OPT_RPM_FEATURES,
	OPT_RPM_PROTOCOL,
	OPT_HEADER,
	OPT_CLOSURE,
	OPT_ROOT,
	OPT_MIN_PRIORITY,
	OPT_POLICY,
	OPT_BUILD_ROOT,
};

static const struct option longopts[] = {
	{"manifest", required_argument, NULL, 'm'},
	{"feature", required_argument, NULL, OPT_FEATURE},
	{"soname", required_argument, NULL, OPT_SONAME},
	{"description", required_argument, NULL, OPT_DESCRIPTION},
	{"priority", required_argument, NULL, OPT_PRIORITY},
	{"merge", no_argument, NULL, OPT_MERGE},
	{"remove", no_argument, NULL, OPT_REMOVE},
	{"list", no_argument, NULL, OPT_LIST},
	{"json", no_argument, NULL, OPT_JSON},
	{"check", no_argument, NULL, OPT_CHECK},
	{"discover", no_argument, NULL, OPT_DISCOVER},
	{"record", required_argument, NULL, OPT_RECORD},
	{"recorded", required_argument, NULL, OPT_RECORDED},
	{"header", no_argument, NULL, OPT_HEADER},
	{"closure", no_argument, NULL, OPT_CLOSURE},
	{"root", required_argument, NULL, OPT_ROOT},
	{"min-priority", required_argument, NULL, OPT_MIN_PRIORITY},
	{"policy", required_argument, NULL, OPT_POLICY},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"only-feature", required_argument, NULL, OPT_ONLY_FEATURE},
	{"only-priority", required_argument, NULL, OPT_ONLY_PRIORITY},
	{"rpm-suggests", optional_argument, NULL, OPT_RPM_SUGGESTS},
	{"rpm-recommends", optional_argument, NULL, OPT_RPM_RECOMMENDS},
	{"rpm-requires", optional_argument, NULL, OPT_RPM_REQUIRES},
	{"deb-map", required_argument, NULL, OPT_DEB_MAP},
	{"build-root", required_argument, NULL, OPT_BUILD_ROOT},
	{"rpm-generate", required_argument, NULL, OPT_RPM_GENERATE},
	{"rpm-package", required_argument, NULL, OPT_RPM_PACKAGE},
	{"rpm-features", required_argument, NULL, OPT_RPM_FEATURES},
	{"rpm-protocol", required_argument, NULL, OPT_RPM_PROTOCOL},
	{"expect", required_argument, NULL, OPT_EXPECT},
	{"skip-non-elf", no_argument, NULL, OPT_SKIP_NON_ELF},
	{"files-from", required_argument, NULL, OPT_FILES_FROM},
	{"member", required_argument, NULL, OPT_MEMBER},
	{"null", no_argument, NULL, '0'},
	{"output", required_argument, NULL, 'o'},
	{"fsync", no_argument, NULL, OPT_FSYNC},
	{"verbose", no_argument, NULL, 'v'},
	{"quiet", no_argument, NULL, 'q'},
	{"version", no_argument, NULL, OPT_VERSION},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const char *mode_name(enum mode m)
{
	static const char *const names[] = {"replace",  "--merge",  "--remove",
					    "--list",   "--check",  "--discover",
					    "--record", "--header", "--closure"};
	return names[m];
}

static int set_mode(struct opts *o, enum mode m)
{
	if (o->mode_set && o->mode != m)
		return usage_error("%s cannot be combined with another mode", mode_name(m));
	o->mode = m;
	o->mode_set = 1;
	return 0;
}

/* --json, --format and --rpm-*: one format per run. */
static int set_format(struct opts *o, enum report_format format, const char *opt)
{
	if (o->format_set && o->rep.format != format)
		return usage_error("%s cannot be combined with %s", opt, o->format_opt);
	if (!o->format_set)
		o->format_opt = opt;
	o->rep.format = format;
	o->format_set = 1;
	o->list_only = 1;
	return 0;
}

static int add_ranks(struct opts *o, const char *list)
{
	const char *p = list, *end;
	int k;

	for (;;) {
		end = strchr(p, ',');
		end = end ? end : p + strlen(p);
		k = deps_rank_parse(p, (size_t)(end - p));
		if (k < 0)
			return usage_error(
				"--only-priority: '%.*s' is not required, recommended or suggested",
				(int)(end - p), p);
		o->rep.only_rank |= 1u << k;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* --rpm-requires[=FEATURES] and its kin, as in dlopen-notes.py: rpm lines with that tag for the
 * entries of these features, whatever their own priority.  They imply --list. */
static int add_rpm_tag(struct opts *o, int rank, const char *opt, const char *list)
{
	if (set_format(o, FORMAT_RPM, opt) || set_mode(o, MODE_LIST))
		return -1;
	if (deps_namelist_add(&o->rep.rpm_tag[rank], list))
		return out_of_memory();
	return 0;
}

/* --rpm-generate=KIND and the options only it takes (each sets gen_opt for usage errors). */
static int rpm_generator_opt(struct opts *o, int c, const char *arg)
{
	struct rpm_generator *g = &o->rep.gen;
	struct err e = {0};
	int kind;

	if (c != OPT_RPM_GENERATE) {
		if (!o->gen_opt)
			o->gen_opt = c == OPT_RPM_PACKAGE    ? "--rpm-package"
				     : c == OPT_RPM_FEATURES ? "--rpm-features"
							     : "--rpm-protocol";
	} else if ((kind = pkgdeps_kind_parse(arg)) < 0) {
		return usage_error("--rpm-generate: '%s' is not requires, recommends or suggests",
				   arg);
	} else if (o->generate && kind != g->kind) {
		return usage_error("%s", "--rpm-generate: one kind of dependency per run");
	} else {
		g->kind = kind;
		o->generate = 1;
		if (set_format(o, FORMAT_RPM_GENERATE, "--rpm-generate") || set_mode(o, MODE_LIST))
			return -1;
	}
	if (c == OPT_RPM_PACKAGE)
		g->package = arg;
	if (c == OPT_RPM_FEATURES && pkgdeps_overrides_parse(arg, &g->over, &e))
		return usage_error("--rpm-features: %s", e.msg);
	if (c == OPT_RPM_PROTOCOL) {
		if (strcmp(arg, "multifile") != 0 && strcmp(arg, "singlefile") != 0)
			return usage_error("--rpm-protocol: '%s' is not singlefile or multifile",
					   arg);
		g->multifile = strcmp(arg, "multifile") == 0;
	}
	return 0;
}

static int push_soname(struct flag_entry *f, const char *name)
{
	const char **v = xgrow(f->spec.sonames, &f->cap, f->spec.nsonames, sizeof *v);

	if (!v)
		return -1;
	v[f->spec.nsonames++] = name;
	f->spec.sonames = v;
	f->open = 1;
	return 0;
}

/* Returns -1 to continue, else an exit status; the entry being built stays in *cur. */
static int parse_loop(int argc, char **argv, struct opts *o, struct flag_entry *cur,
		      struct entries *flagged)
{
	int c, bad = 0;

	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":m:o:vqh0", longopts, NULL)) != -1 && !bad) {
		if ((c == 'm' || c == OPT_EXPECT || c == OPT_DEB_MAP || c == OPT_FILES_FROM) &&
		    strcmp(optarg, "-") == 0) {
			const char *opt = c == 'm'           ? "--manifest"
					  : c == OPT_EXPECT  ? "--expect"
					  : c == OPT_DEB_MAP ? "--deb-map"
							     : "--files-from";
			if (o->stdin_user) {
				bad = usage_error("%s - and %s - cannot both read standard input",
						  o->stdin_user, opt);
				continue;
			}
			o->stdin_user = opt;
		}
		switch (c) {
		case 'm': {
			char **v = xgrow(o->manifests, &o->manifests_cap, o->nmanifests, sizeof *v);
			if (!v) {
				bad = out_of_memory();
				break;
			}
			o->manifests = v;
			o->manifests[o->nmanifests++] = optarg;
			break;
		}
		case OPT_FEATURE:
			bad = flush_flag_entry(cur, flagged);
			cur->open = 1;
			cur->spec.feature = optarg;
			break;
		case OPT_SONAME: bad = push_soname(cur, optarg); break;
		case OPT_DESCRIPTION:
			cur->open = 1;
			bad = set_once(&cur->spec.description, optarg, "--description");
			break;
		case OPT_PRIORITY:
			cur->open = 1;
			bad = set_once(&cur->spec.priority, optarg, "--priority");
			break;
		case OPT_MERGE: bad = set_mode(o, MODE_MERGE); break;
		case OPT_REMOVE: bad = set_mode(o, MODE_REMOVE); break;
		case OPT_LIST: bad = set_mode(o, MODE_LIST); break;
		case OPT_CHECK: bad = set_mode(o, MODE_CHECK); break;
		case OPT_DISCOVER: bad = set_mode(o, MODE_DISCOVER); break;
		case OPT_RECORD:
			o->record_path = optarg;
			bad = set_mode(o, MODE_RECORD);
			break;
		case OPT_RECORDED: o->recorded_path = optarg; break;
		case OPT_HEADER: bad = set_mode(o, MODE_HEADER); break;
		case OPT_CLOSURE: bad = set_mode(o, MODE_CLOSURE); break;
		case OPT_ROOT: o->root = optarg; break;
		case OPT_POLICY: o->policy_path = optarg; break;
		case OPT_MIN_PRIORITY:
			o->min_priority = deps_rank_parse(optarg, strlen(optarg)) + 1;
			if (!o->min_priority)
				return usage_error(
					"--min-priority: '%s' is not required, recommended "
					"or suggested",
					optarg);
			break;
		case OPT_JSON: bad = set_format(o, FORMAT_JSON, "--json"); break;
		case OPT_FORMAT:
			if (report_format_parse(optarg) < 0)
				return usage_error(
					"--format: unknown format '%s' (table, json, "
					"jsonl, sonames, features, rpm, deb, cyclonedx or "
					"symbols)",
					optarg);
			bad = set_format(o, (enum report_format)report_format_parse(optarg),
					 "--format");
			break;
		case OPT_ONLY_FEATURE:
			o->list_only = 1;
			if (deps_namelist_add(&o->rep.only_feature, optarg))
				bad = out_of_memory();
			break;
		case OPT_ONLY_PRIORITY:
			o->list_only = 1;
			bad = add_ranks(o, optarg);
			break;
		case OPT_RPM_SUGGESTS:
			bad = add_rpm_tag(o, RANK_SUGGESTED, "--rpm-suggests", optarg);
			break;
		case OPT_RPM_RECOMMENDS:
			bad = add_rpm_tag(o, RANK_RECOMMENDED, "--rpm-recommends", optarg);
			break;
		case OPT_RPM_REQUIRES:
			bad = add_rpm_tag(o, RANK_REQUIRED, "--rpm-requires", optarg);
			break;
		case OPT_DEB_MAP: o->rep.deb_map_path = optarg; break;
		case OPT_BUILD_ROOT: {
			struct libfind *f = &o->rep.libs;
			const char **v = xgrow(f->roots, &f->roots_cap, f->nroots, sizeof *v);
			if (!v) {
				bad = out_of_memory();
				break;
			}
			f->roots = v;
			f->roots[f->nroots++] = optarg;
			break;
		}
		case OPT_RPM_GENERATE:
		case OPT_RPM_PACKAGE:
		case OPT_RPM_FEATURES:
		case OPT_RPM_PROTOCOL: bad = rpm_generator_opt(o, c, optarg); break;
		case OPT_EXPECT: o->expect_path = optarg; break;
		case OPT_SKIP_NON_ELF: o->skip_non_elf = 1; break;
		case OPT_FILES_FROM:
			if (o->files_from) {
				bad = usage_error("%s", "--files-from given twice");
				break;
			}
			o->files_from = optarg;
			break;
		case OPT_MEMBER: {
			const char **v = xrealloc(o->members, o->nmembers + 1, sizeof *v);
			if (v)
				o->members = v;
			if (!v) {
				bad = out_of_memory();
				break;
			}
			o->members[o->nmembers++] = optarg;
			break;
		}
		case '0': o->null_sep = 1; break;
		case 'o': o->output = optarg; break;
		case OPT_FSYNC: o->out.fsync = 1; break;
		case 'v': o->verbose++; break;
		case 'q': o->quiet = 1; break;
		case OPT_VERSION: printf(PROGRAM_NAME " " VERSION "\n"); return EXIT_OK;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default: return usage_error("unrecognized option '%s'", argv[optind - 1]);
		}
	}
	return bad ? EXIT_USAGE : -1;
}

static int parse_args(int argc, char **argv, struct opts *o, struct entries *flagged)
{
	struct flag_entry cur = {0};
	int r = parse_loop(argc, argv, o, &cur, flagged);

	if (flush_flag_entry(&cur, r < 0 ? flagged : NULL) && r < 0)
		r = EXIT_USAGE;
	return r;
}

static int check_usage(struct opts *o, int nfiles)
{
	if (o->mode == MODE_RECORD)
		return nfiles ? -1 : usage_error("%s", "--record needs a COMMAND (after '--')");
	if (o->mode == MODE_HEADER && !o->output)
		return usage_error(
			"%s", "--header needs -o PATH (the header to write; '-': standard output)");
	if (o->mode == MODE_HEADER &&
	    (o->files_from || o->nmembers || o->recorded_path || o->expect_path || o->list_only))
		return usage_error("%s", "--header takes manifests, entries and -o only");
	if (o->mode == MODE_HEADER)
		return -1;
	if (o->policy_path && o->mode != MODE_CLOSURE && o->mode != MODE_LIST)
		return usage_error("%s",
				   "--policy is only for --list, --rpm-generate and --closure");
	if ((o->root || o->min_priority) && o->mode != MODE_CLOSURE)
		return usage_error("%s is only for --closure",
				   o->root ? "--root" : "--min-priority");
	if (o->mode == MODE_CLOSURE && o->format_set && o->rep.format != FORMAT_JSON &&
	    o->rep.format != FORMAT_TABLE)
		return usage_error("%s", "--closure prints paths, or JSON with --format=json");
	if (o->mode == MODE_CLOSURE && (o->rep.only_feature.given || o->rep.only_rank))
		return usage_error("%s", "--only-feature and --only-priority are only for --list");
	if (o->mode == MODE_CLOSURE)
		o->list_only = 0;
	if (o->recorded_path && o->mode != MODE_CHECK && o->mode != MODE_DISCOVER &&
	    !(o->mode == MODE_LIST && report_format_symbols(o->rep.format)))
		return usage_error("%s", "--recorded is only for --check, --discover and the lists "
					 "of symbols (--format=symbols, rpm, --rpm-generate)");
	if (o->gen_opt && !o->generate)
		return usage_error("%s is only for --rpm-generate", o->gen_opt);
	/* rpm hands a generator the file names on standard input. */
	if (o->generate && nfiles == 0 && !o->files_from) {
		if (o->stdin_user)
			return usage_error("--rpm-generate reads the file names on standard input: "
					   "%s - cannot",
					   o->stdin_user);
		o->files_from = "-";
	}
	if (nfiles == 0 && !o->files_from)
		return usage_error("%s", "no FILE given (name them, or give --files-from)");
	if (o->output && (nfiles > 1 || o->files_from))
		return usage_error("%s", "-o/--output takes exactly one FILE");
	if (o->null_sep && !o->files_from)
		return usage_error("%s", "-0/--null is only for --files-from");
	if (o->output && !mode_edits(o->mode))
		return usage_error("-o/--output cannot be used with %s", mode_name(o->mode));
	if (o->list_only && o->mode != MODE_LIST)
		return usage_error("%s is only for --list", o->format_opt ? o->format_opt
							    : o->rep.only_feature.given
								    ? "--only-feature"
								    : "--only-priority");
	if (o->rep.libs.nroots && (o->mode != MODE_LIST || !report_format_symbols(o->rep.format)))
		return usage_error("%s", "--build-root is only for --list --format=symbols or rpm, "
					 "and --rpm-generate");
	if (o->rep.deb_map_path && (o->mode != MODE_LIST || o->rep.format != FORMAT_DEB))
		return usage_error("%s", "--deb-map is only for --list --format=deb");
	if (o->mode == MODE_LIST && o->rep.format == FORMAT_DEB && !o->rep.deb_map_path)
		return usage_error("%s", "--format=deb needs --deb-map (a soname to package map: "
					 "see dlnote-inject(1))");
	if (o->expect_path && o->mode != MODE_CHECK)
		return usage_error("%s", "--expect is only for --check");
	/* A manifest may declare no entry ("[]"): replacing with it removes the notes. */
	if (mode_takes_entries(o->mode) && o->add.n == 0 && o->nmanifests == 0)
		return usage_error(
			"%s",
			"no entries: give --manifest or --soname (or --remove, --list, --check)");
	if (!mode_takes_entries(o->mode) && o->mode != MODE_CHECK && o->add.n)
		return usage_error("entries cannot be given with %s", mode_name(o->mode));
	return -1;
}

int main(int argc, char **argv)
{
	struct run run;
	struct opts *o = &run.o;
	struct entries flagged = {0};
	int status = EXIT_OK, r, i;

	/* Never die from a signal: a closed pipe or a file-size limit become write errors. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	memset(&run, 0, sizeof run);
	r = parse_args(argc, argv, o, &flagged);
	for (size_t k = 0; r < 0 && k < o->nmanifests; k++)
		if (files_load_manifest(o->manifests[k], &o->add))
			r = EXIT_BAD_INPUT;
	for (i = optind; r < 0 && o->mode == MODE_HEADER && i < argc;
	     i++) /* its FILEs are manifests */
		if (files_load_manifest(argv[i], &o->add))
			r = EXIT_BAD_INPUT;
	if (r < 0) {
		if (files_add_entries("--soname", &o->add, &flagged))
			r = EXIT_BAD_INPUT;
	}
	if (r < 0)
		r = check_usage(o, argc - optind);
	/* Read after the usage checks, so that a usage error is reported as one. */
	if (r < 0 &&
	    ((o->expect_path && files_load_manifest(o->expect_path, &o->expect)) ||
	     (o->rep.deb_map_path && files_load_deb_map(o->rep.deb_map_path, &o->rep.deb_map)) ||
	     (o->policy_path && files_load_policy(o->policy_path, &o->policy))))
		r = EXIT_BAD_INPUT;
	/* --check: the entries a build added (-m, --soname, --expect) must not also come from the
	 * code; the file's own notes may repeat an entry (travel_repeats). */
	if (r < 0 && o->mode == MODE_CHECK && manifest_merge_all(&o->add, &o->expect)) {
		print_oom();
		r = EXIT_BAD_INPUT;
	}
	if (o->policy_path)
		o->rep.policy = &o->policy;
	o->rep.verbose = o->verbose;
	if (r < 0 && o->mode == MODE_RECORD)
		r = record_run(o->record_path, argv + optind);
	if (r < 0 && o->mode == MODE_HEADER) {
		struct err e = {0};
		r = header_write(o->output, &o->add, &o->out, &e)
			    ? (err_report(o->output, &e), EXIT_BAD_INPUT)
			    : EXIT_OK;
	}
	if (r < 0 && o->recorded_path && files_load_trace(o))
		r = EXIT_BAD_INPUT;
	if (r < 0 && o->recorded_path && o->mode == MODE_LIST)
		o->rep.trace = &o->trace;
	if (r < 0) {
		for (i = optind; i < argc; i++) {
			int s = files_process(&run, argv[i], o->files_from || argc - optind > 1);
			if (s > status)
				status = s;
		}
		if (o->files_from && (r = files_process_list(&run)) > status)
			status = r;
		r = files_finish(&run, status != EXIT_OK);
		if (r > status)
			status = r;
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, PROGRAM_NAME ": standard output: %s\n", strerror(errno));
			status = EXIT_BAD_INPUT;
		}
		r = status;
	}
	closure_free(run.closure);
	policy_free(&o->policy);
	manifest_free(&flagged);
	free(o->manifests);
	free(o->members);
	objplan_memo_free(&run.memo[0]);
	objplan_memo_free(&run.memo[1]);
	manifest_free(&o->add);
	manifest_free(&o->expect);
	report_listing_free(&run.got.listed);
	report_opts_free(&o->rep);
	discover_free(&run.got.found);
	trace_free(&o->trace);
	return r;
}
