/* Replays a libFuzzer seed corpus through one harness without libFuzzer, so
 * that every compiler (gcc too) and every `make check` pass (ASan + UBSan,
 * then Release) runs the inputs the fuzzers found interesting: a harness
 * that crashes, trips a sanitizer or hangs on one of them fails its ctest
 * (fuzz_replay_<target>, label `fuzz`). The bounded libFuzzer run that looks
 * for new inputs stays in scripts/fuzz.sh (clang only).
 *
 * usage: fuzz_replay_<target> FILE_OR_DIR...   (directories: every regular
 * file in them, in name order, so a failure names the same input each time) */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		return -1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *grown = realloc(buf, cap * 2);
			if (!grown) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = grown;
			cap *= 2;
		}
	}
	int bad = ferror(f) || !buf;
	fclose(f);
	if (bad) {
		free(buf);
		fprintf(stderr, "%s: read failed\n", path);
		return -1;
	}
	/* the name first: if the harness crashes, the log says on what */
	fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, unsigned *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "%s: cannot open directory\n", dir);
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **grown = realloc(names, cap * sizeof *names);
			if (!grown)
				break;
			names = grown;
		}
		if (!(names[n] = strdup(e->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(len);
		struct stat st;
		if (path) {
			snprintf(path, len, "%s/%s", dir, names[i]);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				if (replay_file(path))
					rc = -1;
				else
					(*count)++;
			}
		} else {
			rc = -1;
		}
		free(path);
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
		return 2;
	}
	unsigned count = 0;
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			fprintf(stderr, "%s: no such file or directory\n", argv[i]);
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i], &count))
				rc = 1;
		} else if (replay_file(argv[i])) {
			rc = 1;
		} else {
			count++;
		}
	}
	printf("%u inputs replayed\n", count);
	return rc;
}
