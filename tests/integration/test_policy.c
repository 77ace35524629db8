/* SPDX-License-Identifier: MIT */
/* test_policy.c - --policy=FILE (docs/policy.md): one policy gives the same priorities in
 * --list --format=rpm, the rpm generator (--rpm-generate) and --closure; features it ignores
 * are nowhere; a feature it does not name is an error when it says so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char policy[] = "{\"unknown\": \"accept\", \"features\": [\n"
			     " {\"feature\": \"bar\", \"files\": \"opt/app/lib/*\", \"priority\": \"required\"},\n"
			     " {\"feature\": \"b*\", \"priority\": \"suggested\"},\n"
			     " {\"feature\": \"qux\", \"priority\": \"ignored\"}\n]}\n";

/* A root whose libfoo declares bar (recommended), baz (required), qux (recommended): each
 * library present, so that the closure shows what each priority became. */
static void policy_root(void)
{
	free(sh("mkdir -p root/usr/lib/x86_64-linux-gnu root/usr/lib64 root/opt/app/lib && "
		"cp -L /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 root/usr/lib/x86_64-linux-gnu/ && "
		"ln -s usr/lib64 root/lib64 && ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 root/usr/lib64/ && "
		"for n in bar baz qux; do echo \"int $n(void) { return 0; }\" > $n.c && "
		"gcc -shared -fPIC -Wl,-soname,lib$n.so.1 -o root/opt/app/lib/lib$n.so.1 $n.c || exit 1; done && "
		"echo 'int foo(void) { return 0; }' > foo.c && "
		"gcc -shared -fPIC -Wl,-soname,libfoo.so.1 -Wl,-rpath,\\$ORIGIN -o root/opt/app/lib/libfoo.so.1 foo.c && "
		"'%s' --feature bar --soname libbar.so.1 --priority recommended --feature baz --soname libbaz.so.1 "
		"--priority required --feature qux --soname libqux.so.1 root/opt/app/lib/libfoo.so.1", tool()));
	put_file("policy.json", policy);
}

/* The sonames a consumer gives at each rank, "required: ...; recommended: ...; suggested: ...". */
static char *by_rpm_list(void)
{
	return sh("'%s' --list --format=rpm --policy=policy.json root/opt/app/lib/libfoo.so.1 | "
		  "sed 's/()(64bit)//' | awk '{ v[$1] = v[$1] \" \" $2 } END { print \"required:\" v[\"Requires:\"] "
		  "\"; recommended:\" v[\"Recommends:\"] \"; suggested:\" v[\"Suggests:\"] }'", tool());
}

static char *by_rpm_generator(void)
{
	return sh("for k in requires recommends suggests; do echo \"$PWD/root/opt/app/lib/libfoo.so.1\" | "
		  "'%s' --rpm-generate=$k --policy=policy.json | sed 's/()(64bit)//' | tr '\\n' ' '; echo; done | "
		  "awk 'NR == 1 { r = $0 } NR == 2 { c = $0 } NR == 3 { s = $0 } END { "
		  "printf \"required: %%s; recommended: %%s; suggested: %%s\\n\", r, c, s }' | sed 's/ *;/;/g; s/ *$//; s/: \\([a-z]\\)/: \\1/g'",
		  tool());
}

/* The closure at each priority: what each lowest priority adds. */
static char *by_closure(void)
{
	return sh("for p in required recommended suggested; do '%s' --closure --root=root --policy=policy.json "
		  "--min-priority=$p /opt/app/lib/libfoo.so.1 | grep -o 'lib[a-z]*\\.so\\.1$' | grep -v -e libfoo -e libc > $p.txt; done; "
		  "echo \"required: $(cat required.txt | tr '\\n' ' ')\" \"; recommended: $(comm -13 required.txt recommended.txt | tr '\\n' ' ')\" "
		  "\"; suggested: $(comm -13 recommended.txt suggested.txt | tr '\\n' ' ')\" | sed 's/ *;/;/g; s/ *$//; s/  */ /g'",
		  tool());
}

/* rpmbuild with the installed attribute and %dlnote_policy: the package's dependencies. */
static char *by_rpmbuild(void)
{
	struct cmd c;

	need("rpmbuild");
	stage_install();
	put_file("pol.spec", "Name: pol\nVersion: 1\nRelease: 1\nSummary: policy\nLicense: MIT\n%description\nA policy.\n"
		 "%install\nmkdir -p %{buildroot}/opt/app/lib && cp %{_sourcedir}/libfoo.so.1 %{buildroot}/opt/app/lib/\n"
		 "%files\n/opt/app/lib/libfoo.so.1\n");
	c = run("rpmbuild -bb --quiet %s --define \"_topdir $PWD/top\" --define \"_sourcedir $PWD/root/opt/app/lib\" "
		"--define \"dlnote_policy $PWD/policy.json\" --define 'debug_package %%{nil}' pol.spec",
		rpm_isolated(0, "stage/usr/lib/rpm/fileattrs/dlnote.attr"));
	cr_assert_eq(c.status, 0, "%s", c.err);
	cmd_free(&c);
	return sh("for k in requires recommends suggests; do rpm -qp --$k top/RPMS/*/pol-1-1.*.rpm | grep '^lib' | "
		  "sed 's/()(64bit)//' | tr '\\n' ' '; echo; done | "
		  "awk 'NR == 1 { r = $0 } NR == 2 { c = $0 } NR == 3 { s = $0 } END { "
		  "printf \"required: %%s; recommended: %%s; suggested: %%s\\n\", r, c, s }' | sed 's/ *;/;/g; s/ *$//'");
}

/* dpkg-buildpackage with dh_dlnotedeps and debian/dlopen.policy.json: pol ships libfoo.so.1 in
 * opt/app/lib (the notes from its manifest), its siblings libbar1, libbaz1 and libqux1 the
 * libraries; the package's substvars, each package named by its library's soname. */
static char *by_debhelper(void)
{
	struct cmd c;
	char *got;

	need("dpkg-buildpackage");
	need("dh");
	stage_install();
	make_dirs("deb/debian/source");
	free(sh("cp bar.c baz.c qux.c foo.c deb/ && cp policy.json deb/debian/dlopen.policy.json"));
	put_file("deb/debian/control",
		 "Source: pol\nSection: libs\nPriority: optional\nMaintainer: T <t@example.org>\n"
		 "Build-Depends: debhelper-compat (= 13), dh-sequence-dlnote\nStandards-Version: 4.6.2\n\n"
		 "Package: pol\nArchitecture: any\nDepends: ${shlibs:Depends}, ${dlopen:Depends}\n"
		 "Recommends: ${dlopen:Recommends}\nSuggests: ${dlopen:Suggests}\nDescription: p\n p\n\n"
		 "Package: libbar1\nArchitecture: any\nDepends: ${shlibs:Depends}\nDescription: b\n b\n\n"
		 "Package: libbaz1\nArchitecture: any\nDepends: ${shlibs:Depends}\nDescription: b\n b\n\n"
		 "Package: libqux1\nArchitecture: any\nDepends: ${shlibs:Depends}\nDescription: q\n q\n");
	put_file("deb/debian/rules",
		 "#!/usr/bin/make -f\nM := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH)\n%:\n\tdh $@\n\n"
		 "override_dh_auto_build:\n"
		 "\tfor n in bar baz qux; do $(CC) -shared -fPIC -Wl,-soname,lib$$n.so.1 -o lib$$n.so.1 $$n.c || exit 1; done\n"
		 "\t$(CC) -shared -fPIC -Wl,-soname,libfoo.so.1 -o libfoo.so.1 foo.c\n"
		 "override_dh_auto_install:\n"
		 "\tfor n in bar baz qux; do install -D -m 644 lib$$n.so.1 debian/lib$${n}1/usr/lib/$(M)/lib$$n.so.1; done\n"
		 "\tinstall -D -m 644 libfoo.so.1 debian/pol/opt/app/lib/libfoo.so.1\n");
	put_file("deb/debian/pol.dlopen.json",
		 "[{\"feature\":\"bar\",\"soname\":[\"libbar.so.1\"],\"priority\":\"recommended\"},"
		 "{\"feature\":\"baz\",\"soname\":[\"libbaz.so.1\"],\"priority\":\"required\"},"
		 "{\"feature\":\"qux\",\"soname\":[\"libqux.so.1\"],\"priority\":\"recommended\"}]\n");
	put_file("deb/debian/changelog", "pol (1.0) unstable; urgency=medium\n\n  * Test.\n\n"
		 " -- T <t@example.org>  Sun, 06 Dec 2026 12:00:00 +0000\n");
	put_file("deb/debian/source/format", "3.0 (native)\n");
	free(sh("chmod +x deb/debian/rules"));
	c = deb_buildpackage("deb");
	cr_assert_eq(c.status, 0, "dpkg-buildpackage failed:\n%s", c.out);
	cmd_free(&c);
	got = sh("for f in Depends Recommends Suggests; do sed -n \"s/^dlopen:$f?\\{0,1\\}=//p\" deb/debian/pol.substvars | "
		 "tail -n 1 | sed 's/ ([^)]*)//g; s/lib\\([a-z]*\\)1/lib\\1.so.1/g; s/,//g'; done | "
		 "awk 'NR == 1 { r = $0 } NR == 2 { c = $0 } NR == 3 { s = $0 } END { "
		 "printf \"required: %%s; recommended: %%s; suggested: %%s\\n\", r, c, s }' | sed 's/ *;/;/g; s/ *$//'");
	return got;
}

Test(policy, one_policy_gives_the_same_answer_in_every_consumer, .timeout = 120)
{
	char *list, *gen, *clo, *rpm, *deb;

	policy_root();
	list = by_rpm_list();
	gen = by_rpm_generator();
	clo = by_closure();
	if (!sanitized_pass_leaves("rpm runs the generator modes that the other consumers run directly")) {
		rpm = by_rpmbuild();
		cr_expect_str_eq(rpm, list, "rpmbuild with %%dlnote_policy");
		free(rpm);
		deb = by_debhelper();
		cr_expect_str_eq(deb, list, "dpkg-buildpackage with debian/dlopen.policy.json");
		free(deb);
	}
	/* bar: required for files under opt/app/lib (the first rule); baz: suggested (b*);
	 * qux: ignored. */
	cr_expect_str_eq(list, "required: libbar.so.1; recommended:; suggested: libbaz.so.1");
	cr_expect_str_eq(gen, list);
	cr_expect_str_eq(clo, list);
	free(list);
	free(gen);
	free(clo);
}

Test(policy, a_feature_the_policy_does_not_name_is_an_error_when_it_says_so)
{
	struct cmd c;

	policy_root();
	put_file("strict.json", "{\"unknown\": \"error\", \"features\": [{\"feature\": \"ba?\", \"priority\": \"recommended\"}]}");
	c = run("'%s' --list --format=rpm --policy=strict.json root/opt/app/lib/libfoo.so.1 root/opt/app/lib/libfoo.so.1", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.err, "dlnote-inject: strict.json: 2 entries of features the policy does not name, the first "
				"root/opt/app/lib/libfoo.so.1: \"qux\" [\"libqux.so.1\"] (-v names each)\n");
	cmd_free(&c);
	c = run("'%s' --list -v --format=rpm --policy=strict.json root/opt/app/lib/libfoo.so.1", tool());
	cr_expect(strstr(c.err, "dlnote-inject: root/opt/app/lib/libfoo.so.1: \"qux\" [\"libqux.so.1\"]: the policy does not "
				"name this feature\n"),
		  "%s", c.err);
	cmd_free(&c);
	c = run("'%s' --closure --root=root --policy=strict.json /opt/app/lib/libfoo.so.1", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.err, "dlnote-inject: root/opt/app/lib/libfoo.so.1: \"qux\" [\"libqux.so.1\"]: the policy does not name this feature\n");
	cmd_free(&c);
	put_file("bad.json", "{\"features\": [{\"feature\": \"x\", \"priority\": \"high\"}]}");
	c = run("'%s' --list --format=rpm --policy=bad.json root/opt/app/lib/libfoo.so.1", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "dlnote-inject: bad.json: line 1, column"), "%s", c.err);
	cmd_free(&c);
}
