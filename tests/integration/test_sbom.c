/* SPDX-License-Identifier: MIT */
/* test_sbom.c - --list --format=cyclonedx (docs/sbom.md): the document is valid CycloneDX 1.6
 * for the CycloneDX project's own validator (make sbom-validator), and says what the notes
 * say: each file a component, each distinct declared dependency a library component with its
 * feature, description and priority, scope required or optional, and the dependency graph. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* "valid", or the validator's errors. */
static char *validate(const char *file)
{
	const char *dir = getenv("DLNOTE_SBOM_VALIDATOR");

	cr_assert(dir, "DLNOTE_SBOM_VALIDATOR is not set (make integration sets it)");
	return sh("NODE_PATH='%s/node_modules' node '%s/tests/sbom/validate.js' '%s' || true", dir, srcdir(), file);
}

Test(sbom, cyclonedx_is_valid_and_says_what_the_notes_say)
{
	char *out;

	free(sh("echo 'int main(void) { return 0; }' > app.c && gcc -o app app.c && cp app other && cp app plain && cp app variant"));
	free(sh("'%s' --feature zstd --description 'Support \"zstd\"' --soname libzstd.so.1 --priority recommended "
		"--feature qrencode --soname libqrencode.so.4 --soname libqrencode.so.3 --priority suggested "
		"--feature fido2 --soname libfido2.so.1 --priority required app", tool()));
	free(sh("'%s' --feature zstd --description 'Support \"zstd\"' --soname libzstd.so.1 --priority recommended other", tool()));
	free(sh("'%s' --feature zstd --soname libzstd.so.1 --priority suggested variant", tool()));
	free(sh("'%s' --list --format=cyclonedx app other plain variant > bom.json", tool()));
	out = validate("bom.json");
	cr_expect_str_eq(out, "valid");
	free(out);
	/* What it says, read back with Python's json module. */
	out = sh("python3 -c 'import json,sys\n"
		 "d = json.load(open(\"bom.json\"))\n"
		 "print(d[\"specVersion\"], d[\"bomFormat\"])\n"
		 "for c in d[\"components\"]:\n"
		 "  p = {x[\"name\"]: x[\"value\"] for x in c.get(\"properties\", [])}\n"
		 "  print(c[\"type\"], c[\"bom-ref\"], c[\"name\"], c.get(\"scope\", \"-\"), p.get(\"dlnote:feature\", \"-\"), "
		 "p.get(\"dlnote:priority\", \"-\"), p.get(\"dlnote:alternatives\", \"-\"), p.get(\"dlnote:preference\", \"-\"), "
		 "c.get(\"description\", \"-\"))\n"
		 "for x in d[\"dependencies\"]:\n"
		 "  print(x[\"ref\"], \"->\", \" \".join(x[\"dependsOn\"]))'");
	cr_expect_str_eq(out, "1.6 CycloneDX\n"
			      "file file:app app - - - - - -\n"
			      "file file:other other - - - - - -\n"
			      "file file:plain plain - - - - - -\n"
			      "file file:variant variant - - - - - -\n"
			      "library dlopen:libfido2.so.1 libfido2.so.1 required fido2 required libfido2.so.1 1 -\n"
			      "library dlopen:libqrencode.so.3 libqrencode.so.3 optional qrencode suggested libqrencode.so.4 libqrencode.so.3 2 -\n"
			      "library dlopen:libqrencode.so.4 libqrencode.so.4 optional qrencode suggested libqrencode.so.4 libqrencode.so.3 1 -\n"
			      "library dlopen:libzstd.so.1 libzstd.so.1 optional zstd recommended libzstd.so.1 1 Support \"zstd\"\n"
			      "library dlopen:libzstd.so.1#2 libzstd.so.1 optional zstd suggested libzstd.so.1 1 -\n"
			      "file:app -> dlopen:libfido2.so.1 dlopen:libqrencode.so.3 dlopen:libqrencode.so.4 dlopen:libzstd.so.1\n"
			      "file:other -> dlopen:libzstd.so.1\n"
			      "file:plain -> \n"
			      "file:variant -> dlopen:libzstd.so.1#2");
	free(out);
	/* A file named twice, not in a row: one component, one bom-ref, still valid (found by
	 * review: the second became a duplicate bom-ref, which CycloneDX forbids). */
	free(sh("'%s' --list --format=cyclonedx other app other > twice.json", tool()));
	out = validate("twice.json");
	cr_expect_str_eq(out, "valid");
	free(out);
	out = sh("grep -c '\"bom-ref\":\"file:other\"' twice.json");
	cr_expect_str_eq(out, "1");
	free(out);
	/* The validator does reject what is not CycloneDX: a scope the schema does not know. */
	free(sh("sed 's/\"scope\":\"required\"/\"scope\":\"needed\"/' bom.json > bad.json"));
	out = validate("bad.json");
	cr_expect(strstr(out, "/scope") && strcmp(out, "valid") != 0, "%s", out);
	free(out);
}
