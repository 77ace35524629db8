/* SPDX-License-Identifier: MIT */
/* Replays fuzz inputs without libFuzzer: `make check` runs every file of
 * tests/fuzz/regressions/<target>/ through the target (under ASan with SANITIZE=1). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data;
	long n;

	if (!f)
		return perror(path), 1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	data = malloc(n ? (size_t)n : 1);
	if (!data || fread(data, 1, (size_t)n, f) != (size_t)n)
		return fclose(f), 1;
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)n);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct dirent *d;
	struct stat st;
	int i, bad = 0, count = 0;
	DIR *dir;

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (!(dir = opendir(argv[i])))
				return 1;
			while ((d = readdir(dir)))
				if (d->d_name[0] != '.') {
					snprintf(path, sizeof path, "%s/%s", argv[i], d->d_name);
					bad |= replay(path);
					count++;
				}
			closedir(dir);
		} else {
			bad |= replay(argv[i]);
			count++;
		}
	}
	printf("%s: %d inputs replayed\n", argv[0], count);
	return bad;
}
