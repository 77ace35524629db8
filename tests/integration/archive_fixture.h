/* SPDX-License-Identifier: MIT */
/* archive_fixture.h - what the static archive tests (test_archives*.c) share: two members a
 * program can pull one at a time, their manifests, and the archive's table and index as ar and
 * nm print them. */
#ifndef ARCHIVE_FIXTURE_H
#define ARCHIVE_FIXTURE_H

#define M1 "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"}]"
#define M1_LABEL "\"z\" [\"libz.so.1\"]"
#define M2 "[{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"priority\":\"suggested\"}]"
#define M1_ENTRY "{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"}"
#define M2_ENTRY "{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"priority\":\"suggested\"}"
#define M12 "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"},{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"priority\":\"suggested\"}]"

/* x.c and a_member_with_a_long_name.c (a name longer than 15 bytes: GNU keeps it in the "//"
 * table, BSD after the header), the programs mx.c and my.c using one each, and m1.json, m2.json,
 * m12.json (M1, M2, M12), in the work directory. */
void archive_sources(void);
/* The same, compiled with CC into x.o, a_member_with_a_long_name.o, mx.o and my.o. */
void archive_objects(const char *cc);
/* What `ar tv` says of archive A, sizes removed: the rest must not change in an edit. */
char *archive_table(const char *a);
/* What `nm -s` says of A's index. */
char *archive_armap(const char *a);
/* Links prog with gcc FLAGS MAIN_O LIB; it must print OUT and carry the entries JSON (read from
 * its sections and by the tool). */
void archive_expect_program(const char *flags, const char *main_o, const char *lib, const char *out, const char *json);

#endif
