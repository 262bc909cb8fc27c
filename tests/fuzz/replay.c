/* Replays fuzz corpora through a target without libFuzzer, so an ordinary
 * gcc build (and CI, under ASan + UBSan) runs every saved input.
 *   replay DIR|FILE...   (exit 0 when every input ran) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0, got;
	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			unsigned char *p = realloc(buf, cap);
			if (!p)
				abort();
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	/* An exact-size copy, so sanitizers catch reads past the input. */
	unsigned char *exact = malloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: replay DIR|FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) < 0)
				return 1;
			files++;
			continue;
		}
		struct dirent **ents;
		int n = scandir(argv[i], &ents, NULL, alphasort);
		if (n < 0)
			return 1;
		for (int k = 0; k < n; k++) {
			if (ents[k]->d_name[0] != '.') {
				size_t len = strlen(argv[i]) + strlen(ents[k]->d_name) + 2;
				char *p = malloc(len);
				snprintf(p, len, "%s/%s", argv[i], ents[k]->d_name);
				if (run_file(p) < 0)
					return 1;
				free(p);
				files++;
			}
			free(ents[k]);
		}
		free(ents);
	}
	printf("replay: %d inputs ran\n", files);
	return files ? 0 : 1;
}
