/* SPDX-License-Identifier: MIT */
/* archive_fixture.c - what the static archive tests share (archive_fixture.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "archive_fixture.h"

void archive_sources(void)
{
	put_file("x.c", "int fx(void) { return 40; }\n");
	put_file("a_member_with_a_long_name.c", "int fy(void) { return 2; }\n");
	put_file("mx.c", "#include <stdio.h>\nint fx(void);\nint main(void) { printf(\"x %d\\n\", fx()); return 0; }\n");
	put_file("my.c", "#include <stdio.h>\nint fy(void);\nint main(void) { printf(\"y %d\\n\", fy()); return 0; }\n");
	put_file("m1.json", M1);
	put_file("m2.json", M2);
	put_file("m12.json", M12);
}

void archive_objects(const char *cc)
{
	need(cc);
	archive_sources();
	free(sh("%s -O1 -ffunction-sections -c x.c a_member_with_a_long_name.c mx.c my.c", cc));
}

/* What `ar tv` and `nm -s` say, sizes removed: the rest must not change. */
char *archive_table(const char *a)
{
	return sh("ar tv '%s' | awk '{ $3 = \"\"; print }'", a);
}

char *archive_armap(const char *a)
{
	return sh("nm -s '%s' | sed -n '/^Archive index:/,/^$/p'", a);
}

void archive_expect_program(const char *flags, const char *main_o, const char *lib, const char *out, const char *json)
{
	char *ran, *got;

	free(sh("gcc %s -o prog %s %s", flags, main_o, lib));
	ran = sh("./prog");
	cr_expect_str_eq(ran, out, "%s %s: the program prints %s", flags, lib, ran);
	got = entries_by("sections", "prog");
	cr_expect_str_eq(got, json, "%s %s: the program carries %s", flags, lib, got);
	free(got);
	got = entries_by("tool", "prog");
	cr_expect_str_eq(got, json, "%s %s: --list on the program says %s", flags, lib, got);
	free(got);
	free(ran);
}
