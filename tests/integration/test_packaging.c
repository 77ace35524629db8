/* test_packaging.c - the packaging side (issue "Packaging side"): every --list format on files
 * built here, compared exactly with what the spec and the reference tools (package-notes'
 * dlopen-notes.py, dh_dlopenlibdeps, dlopen_notes.attr) define; several notes and several
 * files merging; entries without "feature" (on which dlopen-notes.py crashes); PT_NOTE-only
 * files (which it ignores); non-ELF files in a package tree; the lint against a declared
 * manifest; discovery; the man page, --help and the bash completion.
 *
 * dlopen-notes.py is not installed here: the lines it prints are written out from its
 * documented behaviour, and docs/packaging.md lists where we differ on purpose. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Four notes, linked from four objects: several notes in one .note.dlopen, one of them with
 * two entries of one feature, one entry with alternatives, one without a priority. */
#define N_FIDO2 "[{\"soname\":[\"libfido2.so.1\"],\"feature\":\"fido2\",\"description\":\"FIDO2 security tokens\",\"priority\":\"required\"}]"
#define N_PCRE2 "[{\"soname\":[\"libpcre2-8.so.0\",\"libpcre2-8.so.1\"],\"feature\":\"pcre2\",\"description\":\"Regular expressions\",\"priority\":\"suggested\"}]"
#define N_LZ4 "[{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"description\":\"LZ4 compression\",\"priority\":\"recommended\"}]"
#define N_TPM "[{\"soname\":[\"libtss2-mu.so.0\"],\"feature\":\"tpm\",\"description\":\"TPM2 support\"}," \
	"{\"soname\":[\"libtss2-esys.so.0\"],\"feature\":\"tpm\",\"description\":\"TPM2 support\",\"priority\":\"recommended\"}]"
/* A library whose notes overlap the program's: liblz4 at a stronger priority, and a new one. */
#define N_LIB "[{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"description\":\"LZ4 compression\",\"priority\":\"required\"}," \
	"{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"suggested\"}]"
/* Entries without "feature" (dlopen-notes.py: KeyError 'feature'). */
#define N_NOFEATURE "[{\"soname\":[\"libnofeature.so.1\"]},{\"soname\":[\"libx.so.2\"],\"priority\":\"suggested\",\"x-vendor\":1}]"

/* What `dpkg-query --search` prints for those sonames, plus lines a plain substring search
 * would also have matched (the -dev symlink, the versioned file) and a diversion line. */
static const char deb_map[] =
	"libfido2-1:amd64: /usr/lib/x86_64-linux-gnu/libfido2.so.1\n"
	"liblz4-1:amd64: /usr/lib/x86_64-linux-gnu/liblz4.so.1\n"
	"liblz4-1:amd64: /usr/lib/x86_64-linux-gnu/liblz4.so.1.9.4\n"
	"liblz4-dev:amd64: /usr/lib/x86_64-linux-gnu/liblz4.so\n"
	"libtss2-mu0:amd64: /usr/lib/x86_64-linux-gnu/libtss2-mu.so.0\n"
	"libtss2-esys-3.0.2-0:amd64: /usr/lib/x86_64-linux-gnu/libtss2-esys.so.0\n"
	"libpcre2-8-0:amd64: /usr/lib/x86_64-linux-gnu/libpcre2-8.so.0\n"
	"diversion by dash from: /bin/sh\n";

static const char main_c[] = "#include <stdio.h>\nint main(void) { puts(\"app\"); return 0; }\n";

/* An object carrying one note: a tiny translation unit, then the tool. */
static void note_object(const char *cc, const char *name, const char *json)
{
	char file[64];

	snprintf(file, sizeof file, "%s.json", name);
	put_file(file, json);
	free(sh("echo 'int %s_marker = 1;' > %s.c && %s -c %s.c -o %s.o && '%s' -m %s.json %s.o", name, name, cc, name, name,
		tool(), name, name));
}

/* `app` (all four notes) and `simple` (no alternatives: what dlopen-notes.py handles without
 * losing information), linked with the given compiler; `suffix` names the outputs. */
static void build_apps(const char *cc, const char *suffix)
{
	need(cc);
	put_file("main.c", main_c);
	note_object(cc, "fido2", N_FIDO2);
	note_object(cc, "pcre2", N_PCRE2);
	note_object(cc, "lz4", N_LZ4);
	note_object(cc, "tpm", N_TPM);
	free(sh("%s -O1 -o app%s main.c fido2.o pcre2.o lz4.o tpm.o && %s -O1 -o simple%s main.c fido2.o lz4.o tpm.o", cc, suffix,
		cc, suffix));
}

/* Run the tool; it must exit `status`, print exactly `out` and nothing on stderr (status 0). */
static void expect_run(const char *args, int status, const char *out)
{
	struct cmd c = run("'%s' %s", tool(), args);

	cr_expect_eq(c.status, status, "`%s` exits %d, not %d\nstderr: %s", args, c.status, status, c.err);
	cr_expect_str_eq(c.out, out, "`%s` prints\n%s\ninstead of\n%s", args, c.out, out);
	if (status == 0)
		cr_expect_str_eq(c.err, "", "`%s` complains: %s", args, c.err);
	cmd_free(&c);
}

static void expect_out(const char *args, const char *out)
{
	expect_run(args, 0, out);
}

static void expect_usage(const char *args, const char *message)
{
	struct cmd c = run("'%s' %s", tool(), args);

	cr_expect_eq(c.status, 2, "`%s` exits %d, not 2 (stderr: %s)", args, c.status, c.err);
	cr_expect(strstr(c.err, message), "`%s` says \"%s\", which lacks \"%s\"", args, c.err, message);
	cmd_free(&c);
}

/* ---- the formats, on one file with several notes ---- */

Test(packaging, several_notes_of_one_file_are_one_array)
{
	char *n, *got;

	build_apps("gcc", "");
	n = sh("/usr/bin/python3 -c \"from elftools.elf.elffile import ELFFile; "
	       "print(sum(1 for _ in ELFFile(open('app', 'rb')).get_section_by_name('.note.dlopen').iter_notes()))\"");
	/* One note per entry: the tool writes each entry of an object in its own payload-keyed
	 * group (the tpm object holds two). */
	cr_expect_str_eq(n, "5", "the linker should have kept five notes, not %s", n);
	got = sh("'%s' --list --format=json app", tool());
	cr_expect_str_eq(got, "[{\"soname\":[\"libfido2.so.1\"],\"feature\":\"fido2\",\"description\":\"FIDO2 security tokens\",\"priority\":\"required\"},"
			      "{\"soname\":[\"libpcre2-8.so.0\",\"libpcre2-8.so.1\"],\"feature\":\"pcre2\",\"description\":\"Regular expressions\",\"priority\":\"suggested\"},"
			      "{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"description\":\"LZ4 compression\",\"priority\":\"recommended\"},"
			      "{\"soname\":[\"libtss2-mu.so.0\"],\"feature\":\"tpm\",\"description\":\"TPM2 support\"},"
			      "{\"soname\":[\"libtss2-esys.so.0\"],\"feature\":\"tpm\",\"description\":\"TPM2 support\",\"priority\":\"recommended\"}]");
	/* --json is --format=json. */
	expect_out("--list --json app", "[{\"soname\":[\"libfido2.so.1\"],\"feature\":\"fido2\",\"description\":\"FIDO2 security tokens\",\"priority\":\"required\"},"
					"{\"soname\":[\"libpcre2-8.so.0\",\"libpcre2-8.so.1\"],\"feature\":\"pcre2\",\"description\":\"Regular expressions\",\"priority\":\"suggested\"},"
					"{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"description\":\"LZ4 compression\",\"priority\":\"recommended\"},"
					"{\"soname\":[\"libtss2-mu.so.0\"],\"feature\":\"tpm\",\"description\":\"TPM2 support\"},"
					"{\"soname\":[\"libtss2-esys.so.0\"],\"feature\":\"tpm\",\"description\":\"TPM2 support\",\"priority\":\"recommended\"}]\n");
	free(n);
	free(got);
}

Test(packaging, table_is_systemd_analyze_style)
{
	build_apps("gcc", "");
	expect_out("--list app", "FEATURE  DESCRIPTION            SONAME                            PRIORITY\n"
				 "fido2    FIDO2 security tokens  libfido2.so.1                     required\n"
				 "pcre2    Regular expressions    libpcre2-8.so.0, libpcre2-8.so.1  suggested\n"
				 "lz4      LZ4 compression        liblz4.so.1                       recommended\n"
				 "tpm      TPM2 support           libtss2-mu.so.0                   recommended\n"
				 "tpm      TPM2 support           libtss2-esys.so.0                 recommended\n");
	expect_out("--list --format=table --only-priority=required app",
		   "FEATURE  DESCRIPTION            SONAME         PRIORITY\n"
		   "fido2    FIDO2 security tokens  libfido2.so.1  required\n");
}

/* dlopen-notes.py --sonames: "SONAME PRIORITY", sorted, one soname per line.  Alternatives
 * stay together on one line (package-notes PR #57 made it so upstream too). */
Test(packaging, sonames_one_line_per_group_of_alternatives_sorted)
{
	build_apps("gcc", "");
	expect_out("--list --format=sonames app", "libfido2.so.1 required\n"
						  "liblz4.so.1 recommended\n"
						  "libpcre2-8.so.0 libpcre2-8.so.1 suggested\n"
						  "libtss2-esys.so.0 recommended\n"
						  "libtss2-mu.so.0 recommended\n");
	/* Without alternatives, exactly what dlopen-notes.py --sonames prints. */
	expect_out("--list --format=sonames simple", "libfido2.so.1 required\n"
						     "liblz4.so.1 recommended\n"
						     "libtss2-esys.so.0 recommended\n"
						     "libtss2-mu.so.0 recommended\n");
}

Test(packaging, features_grouped_and_filtered_by_feature_and_priority)
{
	build_apps("gcc", "");
	expect_out("--list --format=features app", "fido2: FIDO2 security tokens\n"
						   "  libfido2.so.1 (required)\n"
						   "lz4: LZ4 compression\n"
						   "  liblz4.so.1 (recommended)\n"
						   "pcre2: Regular expressions\n"
						   "  libpcre2-8.so.0 | libpcre2-8.so.1 (suggested)\n"
						   "tpm: TPM2 support\n"
						   "  libtss2-esys.so.0 (recommended)\n"
						   "  libtss2-mu.so.0 (recommended)\n");
	expect_out("--list --format=features --only-feature=tpm,pcre2 app", "pcre2: Regular expressions\n"
									     "  libpcre2-8.so.0 | libpcre2-8.so.1 (suggested)\n"
									     "tpm: TPM2 support\n"
									     "  libtss2-esys.so.0 (recommended)\n"
									     "  libtss2-mu.so.0 (recommended)\n");
	expect_out("--list --format=features --only-priority=required --only-priority=suggested app",
		   "fido2: FIDO2 security tokens\n"
		   "  libfido2.so.1 (required)\n"
		   "pcre2: Regular expressions\n"
		   "  libpcre2-8.so.0 | libpcre2-8.so.1 (suggested)\n");
	/* Both filters at once: entries that pass both. */
	expect_out("--list --format=sonames --only-feature=tpm,fido2 --only-priority=recommended app",
		   "libtss2-esys.so.0 recommended\nlibtss2-mu.so.0 recommended\n");
	/* A feature that selects nothing was most likely renamed upstream: exit 1, and say which
	 * (dlopen-notes.py: "Some features not found"). */
	expect_run("--list --format=sonames --only-feature=fido2,bzip2 app", 1, "libfido2.so.1 required\n");
	expect_run("--list --only-feature=bzip2 app", 1, "");
	{
		struct cmd c = run("'%s' --list --format=sonames --only-feature=bzip2 app", tool());
		cr_expect_str_eq(c.err, "dlnote-inject: --only-feature: no entry has the feature 'bzip2'\n");
		cmd_free(&c);
	}
}

/* rpm: the entry's own priority picks the tag; rpm's class marker "()(64bit)" on ELFCLASS64;
 * alternatives as a rich dependency, like rpm's "(a or b)". */
Test(packaging, rpm_lines_from_each_entrys_priority)
{
	build_apps("gcc", "");
	expect_out("--list --format=rpm app", "Requires: libfido2.so.1()(64bit)\n"
					      "Recommends: liblz4.so.1()(64bit)\n"
					      "Recommends: libtss2-mu.so.0()(64bit)\n"
					      "Recommends: libtss2-esys.so.0()(64bit)\n"
					      "Suggests: (libpcre2-8.so.0()(64bit) or libpcre2-8.so.1()(64bit))\n");
	expect_out("--list --format=rpm --only-priority=suggested app",
		   "Suggests: (libpcre2-8.so.0()(64bit) or libpcre2-8.so.1()(64bit))\n");
}

Test(packaging, rpm_elfclass32_has_no_64bit_marker)
{
	build_apps("i686-linux-gnu-gcc", "32");
	free(sh("readelf -h app32 | grep -q 'ELF32'"));
	expect_out("--list --format=rpm app32", "Requires: libfido2.so.1\n"
						"Recommends: liblz4.so.1\n"
						"Recommends: libtss2-mu.so.0\n"
						"Recommends: libtss2-esys.so.0\n"
						"Suggests: (libpcre2-8.so.0 or libpcre2-8.so.1)\n");
	expect_out("--rpm-requires=fido2 simple32", "Requires: libfido2.so.1\n");
}

/* dlopen-notes.py --rpm-requires[=FEATURES] / --rpm-recommends[=FEATURES]: that tag for every
 * entry of those features (all without a list), whatever the entry's priority; its lines for
 * `simple` are exactly these. */
Test(packaging, rpm_requires_and_recommends_agree_with_dlopen_notes_py)
{
	build_apps("gcc", "");
	expect_out("--rpm-requires simple", "Requires: libfido2.so.1()(64bit)\n"
					    "Requires: liblz4.so.1()(64bit)\n"
					    "Requires: libtss2-mu.so.0()(64bit)\n"
					    "Requires: libtss2-esys.so.0()(64bit)\n");
	expect_out("--rpm-recommends=tpm,lz4 simple", "Recommends: liblz4.so.1()(64bit)\n"
						      "Recommends: libtss2-mu.so.0()(64bit)\n"
						      "Recommends: libtss2-esys.so.0()(64bit)\n");
	expect_out("--rpm-requires=fido2 --rpm-recommends=lz4 simple", "Requires: libfido2.so.1()(64bit)\n"
								       "Recommends: liblz4.so.1()(64bit)\n");
	/* dlopen_notes.attr's generator (--rpm-fileattr=TYPE) prints the same dependencies
	 * without the tag: the lines of --format=rpm for that tag. */
	{
		char *got = sh("'%s' --list --format=rpm simple | sed -n 's/^Recommends: //p'", tool());
		cr_expect_str_eq(got, "liblz4.so.1()(64bit)\nlibtss2-mu.so.0()(64bit)\nlibtss2-esys.so.0()(64bit)");
		free(got);
	}
	/* Where dlopen-notes.py keeps only the first alternative, we keep them all. */
	expect_out("--rpm-suggests=pcre2 app", "Suggests: (libpcre2-8.so.0()(64bit) or libpcre2-8.so.1()(64bit))\n");
	/* An entry selected by two of them gets the stronger tag, once. */
	expect_out("--rpm-suggests --rpm-requires=lz4 simple", "Requires: liblz4.so.1()(64bit)\n"
							       "Suggests: libfido2.so.1()(64bit)\n"
							       "Suggests: libtss2-mu.so.0()(64bit)\n"
							       "Suggests: libtss2-esys.so.0()(64bit)\n");
}

/* dh_dlopenlibdeps' substvars: all three always, packages sorted and joined with ", ". */
Test(packaging, deb_substvars_from_a_dpkg_query_map)
{
	build_apps("gcc", "");
	put_file("dpkg.map", deb_map);
	/* Without alternatives: exactly what dh_dlopenlibdeps writes. */
	expect_out("--list --format=deb --deb-map=dpkg.map simple", "dlopen:Depends=libfido2-1\n"
								    "dlopen:Recommends=liblz4-1, libtss2-esys-3.0.2-0, libtss2-mu0\n"
								    "dlopen:Suggests=\n");
	/* libpcre2-8.so.1 is in no package here: the alternative that is stays. */
	expect_out("--list --format=deb --deb-map=dpkg.map app", "dlopen:Depends=libfido2-1\n"
								 "dlopen:Recommends=liblz4-1, libtss2-esys-3.0.2-0, libtss2-mu0\n"
								 "dlopen:Suggests=libpcre2-8-0\n");
	/* Alternatives found in several packages become "a | b"; the map can be written by hand in
	 * the same form, and read from standard input. */
	free(sh("printf '%%s\\n' 'libpcre2-8-0: libpcre2-8.so.0' 'libpcre2-8-1, libpcre2-compat: /usr/lib/libpcre2-8.so.1' >> dpkg.map"));
	expect_out("--list --format=deb --deb-map=- --only-feature=pcre2 app < dpkg.map",
		   "dlopen:Depends=\n"
		   "dlopen:Recommends=\n"
		   "dlopen:Suggests=libpcre2-8-0 | libpcre2-8-1 | libpcre2-compat\n");
	/* A soname no package provides is left out, with a warning (dh_dlopenlibdeps drops it
	 * silently). */
	{
		struct cmd c;
		put_file("empty.map", "");
		c = run("'%s' --list --format=deb --deb-map=empty.map --only-feature=fido2 app", tool());
		cr_expect_eq(c.status, 0);
		cr_expect_str_eq(c.out, "dlopen:Depends=\ndlopen:Recommends=\ndlopen:Suggests=\n");
		cr_expect_str_eq(c.err, "dlnote-inject: empty.map: no package for libfido2.so.1 (required, in app): left out of dlopen:Depends\n");
		cmd_free(&c);
	}
}

/* The dpkg-query line of the man page, with the real dpkg database: zlib1g ships libz.so.1
 * (tests/setup.sh installs it). */
Test(packaging, deb_pipeline_with_dpkg_query_as_documented)
{
	struct cmd c;

	need("dpkg-query");
	put_file("main.c", main_c);
	free(sh("gcc -O1 -o app main.c && '%s' --feature zlib --soname libz.so.1 "
		"--feature nowhere --soname libnowhere.so.7 --priority suggested app", tool()));
	free(sh("'%s' --list --format=sonames --skip-non-elf app main.c | awk '{ for (i = 1; i < NF; i++) print \"*/\" $i }' | "
		"xargs -r dpkg-query --search > app.map 2>/dev/null || true", tool()));
	c = run("'%s' --list --format=deb --deb-map=app.map app", tool());
	cr_expect_eq(c.status, 0);
	cr_expect_str_eq(c.out, "dlopen:Depends=\ndlopen:Recommends=zlib1g\ndlopen:Suggests=\n");
	cr_expect_str_eq(c.err, "dlnote-inject: app.map: no package for libnowhere.so.7 (suggested, in app): left out of dlopen:Suggests\n");
	cmd_free(&c);
}

/* ---- merging files, entries without feature, PT_NOTE-only files, package trees ---- */

Test(packaging, several_files_merge_at_the_strongest_priority)
{
	build_apps("gcc", "");
	note_object("gcc", "libnotes", N_LIB);
	free(sh("echo 'int lib_answer(void) { return 42; }' > lib.c && gcc -O1 -shared -fPIC -o libthing.so.1 lib.c libnotes.o"));
	expect_out("--list --format=sonames app libthing.so.1", "libfido2.so.1 required\n"
								"liblz4.so.1 required\n"
								"libpcre2-8.so.0 libpcre2-8.so.1 suggested\n"
								"libtss2-esys.so.0 recommended\n"
								"libtss2-mu.so.0 recommended\n"
								"libzstd.so.1 suggested\n");
	expect_out("--list --format=rpm app libthing.so.1", "Requires: libfido2.so.1()(64bit)\n"
							    "Requires: liblz4.so.1()(64bit)\n"
							    "Recommends: libtss2-mu.so.0()(64bit)\n"
							    "Recommends: libtss2-esys.so.0()(64bit)\n"
							    "Suggests: (libpcre2-8.so.0()(64bit) or libpcre2-8.so.1()(64bit))\n"
							    "Suggests: libzstd.so.1()(64bit)\n");
	expect_out("--list --format=features --only-feature=lz4,zstd app libthing.so.1", "lz4: LZ4 compression\n"
											 "  liblz4.so.1 (required)\n"
											 "zstd\n"
											 "  libzstd.so.1 (suggested)\n");
	/* The same entries twice are listed once. */
	expect_out("--list --json simple simple",
		   "[{\"soname\":[\"libfido2.so.1\"],\"feature\":\"fido2\",\"description\":\"FIDO2 security tokens\",\"priority\":\"required\"},"
		   "{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"description\":\"LZ4 compression\",\"priority\":\"recommended\"},"
		   "{\"soname\":[\"libtss2-mu.so.0\"],\"feature\":\"tpm\",\"description\":\"TPM2 support\"},"
		   "{\"soname\":[\"libtss2-esys.so.0\"],\"feature\":\"tpm\",\"description\":\"TPM2 support\",\"priority\":\"recommended\"}]\n");
	put_file("dpkg.map", deb_map);
	free(sh("echo 'libzstd1:amd64: /usr/lib/x86_64-linux-gnu/libzstd.so.1' >> dpkg.map"));
	expect_out("--list --format=deb --deb-map=dpkg.map app libthing.so.1",
		   "dlopen:Depends=libfido2-1, liblz4-1\n"
		   "dlopen:Recommends=libtss2-esys-3.0.2-0, libtss2-mu0\n"
		   "dlopen:Suggests=libpcre2-8-0, libzstd1\n");
}

Test(packaging, files_of_both_classes_get_their_own_rpm_lines)
{
	build_apps("gcc", "");
	build_apps("i686-linux-gnu-gcc", "32");
	expect_out("--list --format=rpm app app32", "Requires: libfido2.so.1()(64bit)\n"
						    "Requires: libfido2.so.1\n"
						    "Recommends: liblz4.so.1()(64bit)\n"
						    "Recommends: libtss2-mu.so.0()(64bit)\n"
						    "Recommends: libtss2-esys.so.0()(64bit)\n"
						    "Recommends: liblz4.so.1\n"
						    "Recommends: libtss2-mu.so.0\n"
						    "Recommends: libtss2-esys.so.0\n"
						    "Suggests: (libpcre2-8.so.0()(64bit) or libpcre2-8.so.1()(64bit))\n"
						    "Suggests: (libpcre2-8.so.0 or libpcre2-8.so.1)\n");
	/* Sonames carry no class: the two files say the same. */
	expect_out("--list --format=sonames app app32", "libfido2.so.1 required\n"
							"liblz4.so.1 recommended\n"
							"libpcre2-8.so.0 libpcre2-8.so.1 suggested\n"
							"libtss2-esys.so.0 recommended\n"
							"libtss2-mu.so.0 recommended\n");
}

/* dlopen-notes.py stops with KeyError: 'feature' on these; the spec makes "feature" optional. */
Test(packaging, entries_without_feature_in_every_format)
{
	build_apps("gcc", "");
	note_object("gcc", "nofeature", N_NOFEATURE);
	free(sh("gcc -O1 -o plain main.c nofeature.o"));
	expect_out("--list plain", "FEATURE  DESCRIPTION  SONAME             PRIORITY\n"
				   "-        -            libnofeature.so.1  recommended\n"
				   "-        -            libx.so.2          suggested\n");
	expect_out("--list --format=sonames plain", "libnofeature.so.1 recommended\nlibx.so.2 suggested\n");
	expect_out("--list --format=features plain", "(no feature)\n"
						     "  libnofeature.so.1 (recommended)\n"
						     "  libx.so.2 (suggested)\n");
	expect_out("--list --format=rpm plain", "Recommends: libnofeature.so.1()(64bit)\nSuggests: libx.so.2()(64bit)\n");
	/* An empty feature name selects the entries without one; they sort after the others. */
	expect_out("--list --format=features --only-feature=,fido2 app plain", "fido2: FIDO2 security tokens\n"
									       "  libfido2.so.1 (required)\n"
									       "(no feature)\n"
									       "  libnofeature.so.1 (recommended)\n"
									       "  libx.so.2 (suggested)\n");
	expect_out("--rpm-requires= app plain", "Requires: libnofeature.so.1()(64bit)\nRequires: libx.so.2()(64bit)\n");
	put_file("m.map", "libnofeature1: libnofeature.so.1\nlibx2: libx.so.2\n");
	expect_out("--list --format=deb --deb-map=m.map plain", "dlopen:Depends=\ndlopen:Recommends=libnofeature1\ndlopen:Suggests=libx2\n");
	/* The relocatable object is read too. */
	expect_out("--list --format=sonames nofeature.o", "libnofeature.so.1 recommended\nlibx.so.2 suggested\n");
}

/* sstrip-like files have only PT_NOTE: systemd-analyze reads them; dlopen-notes.py (sections
 * by name) sees nothing. */
Test(packaging, pt_note_only_files_are_read)
{
	char *by_sections, *shdrs;

	build_apps("gcc", "");
	free(sh("cp simple bare && /usr/bin/python3 '%s/tests/tools/noshdr.py' bare", srcdir()));
	shdrs = sh("readelf -hW bare | sed -n 's/.*Number of section headers: *//p'");
	cr_expect_str_eq(shdrs, "0");
	by_sections = entries_by("sections", "bare");
	cr_expect_str_eq(by_sections, "[]", "a reader by section name sees %s", by_sections);
	expect_out("--list --format=sonames bare", "libfido2.so.1 required\n"
						   "liblz4.so.1 recommended\n"
						   "libtss2-esys.so.0 recommended\n"
						   "libtss2-mu.so.0 recommended\n");
	expect_out("--list --format=rpm bare", "Requires: libfido2.so.1()(64bit)\n"
					       "Recommends: liblz4.so.1()(64bit)\n"
					       "Recommends: libtss2-mu.so.0()(64bit)\n"
					       "Recommends: libtss2-esys.so.0()(64bit)\n");
	free(by_sections);
	free(shdrs);
}

static void package_tree(void)
{
	build_apps("gcc", "");
	free(sh("mkdir -p tree/usr/bin tree/usr/lib tree/usr/share/doc/app && cp app tree/usr/bin/app && "
		"ar rc tree/usr/lib/libfido2stub.a fido2.o && echo 'read me' > tree/usr/share/doc/app/README && "
		": > tree/usr/share/doc/app/empty && printf '\\177EL' > tree/usr/share/doc/app/short"));
}

Test(packaging, a_package_tree_skips_non_elf_files_quietly_when_asked)
{
	package_tree();
	expect_out("--list --format=sonames --skip-non-elf $(find tree -type f | sort)", "libfido2.so.1 required\n"
											  "liblz4.so.1 recommended\n"
											  "libpcre2-8.so.0 libpcre2-8.so.1 suggested\n"
											  "libtss2-esys.so.0 recommended\n"
											  "libtss2-mu.so.0 recommended\n");
	/* Any mode: --check over a tree. */
	expect_out("--check -q --skip-non-elf $(find tree -type f | sort)", "");
}

Test(packaging, a_package_tree_reports_non_elf_files_without_the_option)
{
	struct cmd c;

	package_tree();
	c = run("'%s' --list --format=sonames $(find tree -type f | sort)", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "libfido2.so.1 required\n"
				"liblz4.so.1 recommended\n"
				"libpcre2-8.so.0 libpcre2-8.so.1 suggested\n"
				"libtss2-esys.so.0 recommended\n"
				"libtss2-mu.so.0 recommended\n");
	/* The archive is read (its member's entries are among those listed). */
	cr_expect_str_eq(c.err, "dlnote-inject: tree/usr/share/doc/app/README: not an ELF file\n"
				"dlnote-inject: tree/usr/share/doc/app/empty: not an ELF file\n"
				"dlnote-inject: tree/usr/share/doc/app/short: not an ELF file\n");
	cmd_free(&c);
	/* A broken ELF file is never skipped. */
	free(sh("head -c 100 app > tree/usr/bin/broken"));
	c = run("'%s' --list --format=sonames --skip-non-elf tree/usr/bin/broken", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "dlnote-inject: tree/usr/bin/broken: "), "%s", c.err);
	cmd_free(&c);
}

/* --files-from: a tree of any size in one run, the names read one at a time. */
static const char tree_sonames[] = "libfido2.so.1 required\n"
				   "liblz4.so.1 recommended\n"
				   "libpcre2-8.so.0 libpcre2-8.so.1 suggested\n"
				   "libtss2-esys.so.0 recommended\n"
				   "libtss2-mu.so.0 recommended\n";

Test(packaging, files_from_a_list_is_one_run_like_the_command_line)
{
	package_tree();
	/* Newline-separated, with empty lines, as `find` prints it. */
	free(sh("(find tree -type f | sort; echo; echo) > list.txt"));
	expect_out("--list --format=sonames --skip-non-elf --files-from=list.txt", tree_sonames);
	expect_out("--list --format=sonames --skip-non-elf --files-from=- < list.txt", tree_sonames);
	/* Command-line FILEs come first, then the list; the table names every file. */
	free(sh("cp app 'tree/usr/bin/with space' && '%s' --soname libspace.so.3 --priority suggested 'tree/usr/bin/with space' && "
		"printf 'tree/usr/bin/with space\\n' > space.txt", tool()));
	expect_out("--list --format=sonames --files-from=space.txt simple",
		   "libfido2.so.1 required\n"
		   "liblz4.so.1 recommended\n"
		   "libspace.so.3 suggested\n"
		   "libtss2-esys.so.0 recommended\n"
		   "libtss2-mu.so.0 recommended\n");
	expect_out("--list --only-priority=suggested --files-from=space.txt", "tree/usr/bin/with space:\n"
									      "FEATURE  DESCRIPTION  SONAME         PRIORITY\n"
									      "-        -            libspace.so.3  suggested\n");
	/* An empty list is an empty tree. */
	free(sh(": > empty.txt"));
	expect_out("--list --format=sonames --files-from=empty.txt", "");
}

Test(packaging, files_from_null_separated_takes_any_name)
{
	package_tree();
	free(sh("cp app \"$(printf 'tree/usr/bin/new\\nline')\" && '%s' --soname libnl.so.3 --priority required "
		"\"$(printf 'tree/usr/bin/new\\nline')\"", tool()));
	free(sh("find tree -type f -print0 > list0"));
	expect_out("--list --format=rpm --only-priority=required --skip-non-elf -0 --files-from=- < list0",
		   "Requires: libfido2.so.1()(64bit)\n"
		   "Requires: libnl.so.3()(64bit)\n");
	/* Split at newlines instead, that name is two missing files; the rest is still listed. */
	{
		struct cmd c = run("find tree -type f | '%s' --list --format=sonames --skip-non-elf --only-priority=required --files-from=-",
				   tool());
		cr_expect_eq(c.status, 1);
		cr_expect_str_eq(c.out, "libfido2.so.1 required\n");
		cr_expect_str_eq(c.err, "dlnote-inject: tree/usr/bin/new: No such file or directory\n"
					"dlnote-inject: line: No such file or directory\n");
		cmd_free(&c);
	}
}

/* Each entry remembers its file past the name buffer of --files-from: the deb warning and the
 * lint name the file that declared the entry (they named whichever name was read last). */
Test(packaging, files_from_keeps_the_file_of_each_entry)
{
	struct cmd c;

	build_apps("gcc", "");
	free(sh("cp simple other && '%s' --soname libother.so.4 --priority suggested other && printf 'app\\nother\\n' > list.txt",
		tool()));
	put_file("empty.map", "");
	c = run("'%s' --list --format=deb --deb-map=empty.map --only-priority=suggested --files-from=list.txt", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.err, "dlnote-inject: empty.map: no package for libpcre2-8.so.0 | libpcre2-8.so.1 (suggested, in app): "
				"left out of dlopen:Suggests\n"
				"dlnote-inject: empty.map: no package for libother.so.4 (suggested, in other): left out of dlopen:Suggests\n");
	cmd_free(&c);
	put_file("none.json", "[]");
	c = run("'%s' --check -q --expect none.json --files-from=list.txt | grep -e pcre2 -e libother", tool());
	cr_expect_str_eq(c.out, "none.json: new: libpcre2-8.so.0 | libpcre2-8.so.1 (feature pcre2, suggested): in app, not declared\n"
				"none.json: new: libother.so.4 (suggested): in other, not declared\n");
	cmd_free(&c);
}

/* The listing from names on standard input, as a generator reads them. */
Test(packaging, files_from_stdin_serves_as_the_rpm_generator)
{
	struct cmd c;

	package_tree();
	c = run("find tree -type f | '%s' --list --format=rpm --skip-non-elf --files-from=- | sed -n 's/^Recommends: //p'", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.out, "liblz4.so.1()(64bit)\n"
				"libtss2-mu.so.0()(64bit)\n"
				"libtss2-esys.so.0()(64bit)\n");
	cr_expect_str_eq(c.err, "");
	cmd_free(&c);
}

Test(packaging, files_from_errors)
{
	struct cmd c;

	package_tree();
	c = run("'%s' --list --format=sonames --files-from=nolist", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "");
	cr_expect_str_eq(c.err, "dlnote-inject: nolist: No such file or directory\n");
	cmd_free(&c);
	/* A name longer than PATH_MAX fails alone; the names after it are still read. */
	c = run("{ head -c 5000 /dev/zero | tr '\\0' x; echo; echo tree/usr/bin/app; } | "
		"'%s' --list --format=sonames --only-priority=required --files-from=-", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "libfido2.so.1 required\n");
	cr_expect_str_eq(c.err, "dlnote-inject: <stdin>: name 1 is longer than 4095 bytes\n");
	cmd_free(&c);
	expect_usage("--list --files-from=- --expect=-", "--files-from - and --expect - cannot both read standard input");
	expect_usage("--check --expect=- --files-from -", "--expect - and --files-from - cannot both read standard input");
	expect_usage("--list --files-from=a --files-from=b", "--files-from given twice");
	expect_usage("--soname libz.so.1 -o out --files-from=list.txt", "-o/--output takes exactly one FILE");
	expect_usage("--list -0 app", "-0/--null is only for --files-from");
	expect_usage("--list", "no FILE given");
	/* Editing through a list works like naming the files. */
	free(sh("cp app edited && echo edited > edit.txt"));
	expect_out("--soname libedit.so.2 --files-from=edit.txt", "");
	expect_out("--list --format=sonames edited", "libedit.so.2 recommended\n");
}

/* ---- lint ---- */

Test(packaging, check_expect_passes_when_the_declaration_matches)
{
	build_apps("gcc", "");
	/* Descriptions and key order do not matter; sonames and priorities do. */
	put_file("declared.json", "[{\"priority\":\"required\",\"soname\":[\"libfido2.so.1\"],\"feature\":\"fido2\"},"
				  "{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\"},"
				  "{\"soname\":[\"libtss2-mu.so.0\"],\"feature\":\"tpm\",\"priority\":\"recommended\"},"
				  "{\"soname\":[\"libtss2-esys.so.0\"],\"feature\":\"tpm\",\"description\":\"other words\"}]");
	expect_out("--check -q --expect declared.json simple", "");
	{
		/* The check itself still runs: here it warns that the linker merged the notes into a
		 * shared PT_NOTE, then says ok. */
		char *last = sh("'%s' --check --expect declared.json simple | tail -n 1", tool());
		cr_expect_str_eq(last, "simple: ok (4 dlopen entries)");
		free(last);
	}
}

Test(packaging, check_expect_complains_about_new_missing_and_changed_dependencies)
{
	struct cmd c;

	build_apps("gcc", "");
	put_file("declared.json", "[{\"soname\":[\"libfido2.so.1\"],\"feature\":\"fido2\",\"priority\":\"recommended\"},"
				  "{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\"},"
				  "{\"soname\":[\"libold.so.1\"],\"feature\":\"old\"},"
				  "{\"soname\":[\"libpcre2-8.so.0\"],\"feature\":\"pcre2\",\"priority\":\"suggested\"}]");
	c = run("'%s' --check -q --expect declared.json app", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "declared.json: priority: libfido2.so.1 (feature fido2): declared recommended, found required\n"
				"declared.json: missing: libold.so.1 (feature old, recommended): declared, in no FILE\n"
				"declared.json: missing: libpcre2-8.so.0 (feature pcre2, suggested): declared, in no FILE\n"
				"declared.json: new: libpcre2-8.so.0 | libpcre2-8.so.1 (feature pcre2, suggested): in app, not declared\n"
				"declared.json: new: libtss2-mu.so.0 (feature tpm, recommended): in app, not declared\n"
				"declared.json: new: libtss2-esys.so.0 (feature tpm, recommended): in app, not declared\n");
	cr_expect_str_eq(c.err, "dlnote-inject: declared.json: 6 differences between the declared and the found dlopen entries\n");
	cmd_free(&c);
	/* The entries of all FILEs together are compared: a package tree against one declaration. */
	note_object("gcc", "nofeature", N_NOFEATURE);
	free(sh("gcc -O1 -o plain main.c nofeature.o"));
	put_file("tree.json", "[" "{\"soname\":[\"libx.so.2\"],\"priority\":\"suggested\"}" "]");
	c = run("'%s' --check -q --expect tree.json plain simple", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "tree.json: new: libnofeature.so.1 (recommended): in plain, not declared\n"
				"tree.json: new: libfido2.so.1 (feature fido2, required): in simple, not declared\n"
				"tree.json: new: liblz4.so.1 (feature lz4, recommended): in simple, not declared\n"
				"tree.json: new: libtss2-mu.so.0 (feature tpm, recommended): in simple, not declared\n"
				"tree.json: new: libtss2-esys.so.0 (feature tpm, recommended): in simple, not declared\n");
	cmd_free(&c);
}

/* ---- discovery ---- */

static const char dl_c[] =
	"#include <dlfcn.h>\n#include <math.h>\n#include <stdio.h>\n"
	"int main(int argc, char **argv) {\n"
	"  void *z = dlopen(\"libz.so.1\", RTLD_NOW);\n"
	"  void *q = dlopen(\"libqrencode.so.4\", RTLD_LAZY);\n"
	"  printf(\"%p %p %f %s\\n\", z, q, cos(argc), argv[0]);\n"
	"  return z ? 0 : 1;\n}\n";

#define DRAFT(file) "[\n" \
	"  {\"soname\":[\"libz.so.1\"],\"feature\":\"FIXME\",\"description\":\"FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in " file "; " \
	"check that it is loaded with dlopen(), then describe the feature\",\"priority\":\"recommended\"}\n]\n"

Test(packaging, discover_finds_a_dlopened_soname_that_is_neither_needed_nor_declared)
{
	struct cmd c;
	char *needed;

	put_file("dl.c", dl_c);
	free(sh("gcc -O1 -o prog dl.c -lm && '%s' --feature qr --soname libqrencode.so.4 prog", tool()));
	needed = sh("readelf -dW prog | grep NEEDED | sed 's/.*\\[\\(.*\\)\\]/\\1/' | sort | tr '\\n' ' '");
	cr_expect_str_eq(needed, "libc.so.6 libm.so.6 ", "the test needs DT_NEEDED libc and libm: %s", needed);
	c = run("'%s' --discover prog", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.out, DRAFT("prog"));
	cr_expect_str_eq(c.err, "dlnote-inject: --discover is a heuristic: 1 soname-like string in read-only data, "
				"neither DT_NEEDED nor declared; review the draft before using it\n");
	cmd_free(&c);
	/* Without section headers: DT_NEEDED from PT_DYNAMIC, data from the PT_LOADs. */
	free(sh("cp prog bare && /usr/bin/python3 '%s/tests/tools/noshdr.py' bare", srcdir()));
	expect_run("--discover -q bare", 0, DRAFT("bare"));
	/* The draft is a manifest: once declared, nothing is left to discover. */
	free(sh("'%s' --discover -q prog > draft.json && '%s' --merge -m draft.json prog", tool(), tool()));
	expect_out("--discover -q prog", "[]\n");
	free(needed);
}

Test(packaging, discover_reads_objects_and_32_bit_files)
{
	need("i686-linux-gnu-gcc");
	put_file("dl.c", dl_c);
	free(sh("i686-linux-gnu-gcc -O1 -o prog32 dl.c -lm && i686-linux-gnu-gcc -O1 -c dl.c -o dl.o"));
	expect_run("--discover -q prog32", 0,
		   "[\n"
		   "  {\"soname\":[\"libqrencode.so.4\"],\"feature\":\"FIXME\",\"description\":\"FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in prog32; "
		   "check that it is loaded with dlopen(), then describe the feature\",\"priority\":\"recommended\"},\n"
		   "  {\"soname\":[\"libz.so.1\"],\"feature\":\"FIXME\",\"description\":\"FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in prog32; "
		   "check that it is loaded with dlopen(), then describe the feature\",\"priority\":\"recommended\"}\n"
		   "]\n");
	expect_run("--discover -q dl.o prog32", 0,
		   "[\n"
		   "  {\"soname\":[\"libqrencode.so.4\"],\"feature\":\"FIXME\",\"description\":\"FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in dl.o; "
		   "check that it is loaded with dlopen(), then describe the feature\",\"priority\":\"recommended\"},\n"
		   "  {\"soname\":[\"libz.so.1\"],\"feature\":\"FIXME\",\"description\":\"FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in dl.o; "
		   "check that it is loaded with dlopen(), then describe the feature\",\"priority\":\"recommended\"}\n"
		   "]\n");
}

/* ---- usage, documentation, completion, install ---- */

Test(packaging, packaging_options_usage_errors)
{
	build_apps("gcc", "");
	put_file("m.json", "[]");
	put_file("bad.map", "libfido2-1: libfido2.so.1\nno separator here\n");
	put_file("badpkg.map", "Bad_Name: libfido2.so.1\n");
	expect_usage("--list --format=xml app", "--format: unknown format 'xml'");
	expect_usage("--format=rpm app", "--format is only for --list");
	expect_usage("--check --format=rpm app", "--format is only for --list");
	expect_usage("--check --only-feature=x app", "--only-feature is only for --list");
	expect_usage("--list --only-priority=urgent app", "--only-priority: 'urgent' is not required, recommended or suggested");
	expect_usage("--list --json --format=rpm app", "--format cannot be combined with --json");
	expect_usage("--rpm-requires --check app", "cannot be combined");
	expect_usage("--list --format=deb app", "--format=deb needs --deb-map");
	expect_usage("--list --deb-map=m.json app", "--deb-map is only for --list --format=deb");
	expect_usage("--list --expect=m.json app", "--expect is only for --check");
	expect_usage("--discover --soname x app", "entries cannot be given with --discover");
	expect_usage("--discover -o out app", "-o/--output cannot be used with --discover");
	{
		struct cmd c = run("'%s' --list --format=deb --deb-map=bad.map app", tool());
		cr_expect_eq(c.status, 1);
		cr_expect_str_eq(c.err, "dlnote-inject: bad.map: line 2: expected \"PACKAGE[, PACKAGE...]: PATH\", as dpkg-query --search prints\n");
		cmd_free(&c);
		c = run("'%s' --list --format=deb --deb-map=badpkg.map app", tool());
		cr_expect_eq(c.status, 1);
		cr_expect_str_eq(c.err, "dlnote-inject: badpkg.map: line 1: \"Bad_Name\" is not a Debian package name\n");
		cmd_free(&c);
	}
}

/* Every long option in cli.c is in --help, the man page and the bash completion. */
Test(packaging, every_option_is_documented_and_completed)
{
	char *opts, *help, *missing;

	opts = sh("sed -n 's/^\t{ \"\\([a-z-]*\\)\", .*/\\1/p' '%s/src/cli.c' | tr '\\n' ' '", srcdir());
	cr_assert(strstr(opts, "format") && strstr(opts, "discover"), "options: %s", opts);
	help = sh("'%s' --help | wc -l", tool());
	cr_expect(atoi(help) <= 60, "--help is %s lines: keep it on one screen", help);
	missing = sh("for o in %s; do '%s' --help | grep -q -e \"--$o\\b\" || echo \"help: $o\"; "
		     "sed 's/[\\\\]-/-/g' '%s/docs/dlnote-inject.1' | grep -q -e \"--$o\\b\" || echo \"man: $o\"; "
		     "grep -q -e \"--$o\\b\" '%s/completion/dlnote-inject.bash' || echo \"completion: $o\"; done",
		     opts, tool(), srcdir(), srcdir());
	cr_expect_str_eq(missing, "", "undocumented options:\n%s", missing);
	free(opts);
	free(help);
	free(missing);
}

Test(packaging, man_page_renders_without_warnings)
{
	char *warn;

	need("groff");
	warn = sh("groff -ww -man -Tutf8 '%s/docs/dlnote-inject.1' 2>&1 >/dev/null", srcdir());
	cr_expect_str_eq(warn, "", "groff -ww: %s", warn);
	free(warn);
	warn = sh("MANWIDTH=80 man -l '%s/docs/dlnote-inject.1' 2>&1 >/dev/null", srcdir());
	cr_expect_str_eq(warn, "", "man -l: %s", warn);
	free(warn);
}

static char *complete(const char *words, int cword)
{
	return sh("bash -c 'source \"%s/completion/dlnote-inject.bash\"; COMP_WORDS=(%s); COMP_CWORD=%d; "
		  "COMP_LINE=\"${COMP_WORDS[*]}\"; _dlnote_inject; printf \"%%s \" \"${COMPREPLY[@]}\"'",
		  srcdir(), words, cword);
}

Test(packaging, bash_completion_completes_options_and_values)
{
	char *got;

	need("bash");
	got = complete("dlnote-inject --list --form", 2);
	cr_expect_str_eq(got, "--format ");
	free(got);
	got = complete("dlnote-inject --list --format s", 3);
	cr_expect_str_eq(got, "sonames ");
	free(got);
	/* readline splits --format=r at '='. */
	got = complete("dlnote-inject --list --format = r", 4);
	cr_expect_str_eq(got, "rpm ");
	free(got);
	got = complete("dlnote-inject --priority \"\"", 2);
	cr_expect_str_eq(got, "required recommended suggested ");
	free(got);
	got = complete("dlnote-inject --rpm-re", 1);
	cr_expect_str_eq(got, "--rpm-requires --rpm-recommends ");
	free(got);
}

Test(packaging, make_install_installs_the_man_page_and_the_completion)
{
	char *ls;

	free(sh("make -s -C '%s' install DESTDIR='%s/stage' PREFIX=/usr >/dev/null", srcdir(), workdir()));
	ls = sh("cd stage/usr && ls bin/dlnote-inject share/man/man1/dlnote-inject.1 share/bash-completion/completions/dlnote-inject");
	cr_expect_str_eq(ls, "bin/dlnote-inject\nshare/bash-completion/completions/dlnote-inject\nshare/man/man1/dlnote-inject.1");
	free(ls);
}
