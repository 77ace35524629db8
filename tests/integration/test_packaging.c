/* SPDX-License-Identifier: MIT */
/* test_packaging.c - the packaging side (issue "Packaging side"): every --list format on files
 * built here, compared exactly with what the spec and the reference tools (package-notes'
 * dlopen-notes.py, dh_dlopenlibdeps, dlopen_notes.attr) define; several notes and several
 * files merging; files of both classes; entries without "feature" (on which dlopen-notes.py
 * crashes); PT_NOTE-only files (which it ignores).  Package trees and --files-from are in
 * test_packaging_tree.c, the lint and discovery in test_packaging_lint.c, usage errors, the
 * man page, --help, the bash completion and the install in test_packaging_docs.c.
 *
 * dlopen-notes.py is not installed here: the lines it prints are written out from its
 * documented behaviour, and docs/packaging.md lists where we differ on purpose. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "packaging_fixtures.h"

/* A library whose notes overlap the program's: liblz4 at a stronger priority, and a new one. */
#define N_LIB "[{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"description\":\"LZ4 compression\",\"priority\":\"required\"}," \
	"{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"suggested\"}]"

/* What `dpkg-query --search` prints for the sonames of the four notes (packaging_fixtures.h),
 * plus lines a plain substring search would also have matched (the -dev symlink, the versioned
 * file) and a diversion line. */
static const char deb_map[] =
	"libfido2-1:amd64: /usr/lib/x86_64-linux-gnu/libfido2.so.1\n"
	"liblz4-1:amd64: /usr/lib/x86_64-linux-gnu/liblz4.so.1\n"
	"liblz4-1:amd64: /usr/lib/x86_64-linux-gnu/liblz4.so.1.9.4\n"
	"liblz4-dev:amd64: /usr/lib/x86_64-linux-gnu/liblz4.so\n"
	"libtss2-mu0:amd64: /usr/lib/x86_64-linux-gnu/libtss2-mu.so.0\n"
	"libtss2-esys-3.0.2-0:amd64: /usr/lib/x86_64-linux-gnu/libtss2-esys.so.0\n"
	"libpcre2-8-0:amd64: /usr/lib/x86_64-linux-gnu/libpcre2-8.so.0\n"
	"diversion by dash from: /bin/sh\n";

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

/* ---- merging files, entries without feature, PT_NOTE-only files ---- */

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
