/* SPDX-License-Identifier: MIT */
/* test_packaging_tree.c - the packaging side on a package tree: non-ELF files skipped quietly
 * with --skip-non-elf and reported without it, a broken ELF file never skipped; --files-from,
 * newline- or NUL-separated, from a file or standard input (as rpm's generator reads the
 * names), each entry keeping the file it came from, and its errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "packaging_fixtures.h"

/* ---- package trees ---- */

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
	expect_out("-q --soname libedit.so.2 --files-from=edit.txt", ""); /* -q: its entries are dropped, said on stderr */
	expect_out("--list --format=sonames edited", "libedit.so.2 recommended\n");
}
