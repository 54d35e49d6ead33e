/* A main for the fuzz targets without libFuzzer: run LLVMFuzzerTestOneInput
 * once on every file named on the command line (make fuzz-replay runs the
 * corpus and the regressions this way, with ASan and UBSan, under gcc or
 * clang).  A failed property aborts; an unreadable file is exit 2. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	size_t len = 0, cap = 0;

	if (f == NULL)
		return NULL;
	for (;;) {
		size_t got;
		if (len == cap) {
			unsigned char *q;
			cap = cap ? cap * 2 : 65536;
			q = realloc(p, cap);
			if (q == NULL) {
				free(p);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			p = q;
		}
		got = fread(p + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(p);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*size = len;
	return p;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		size_t size = 0;
		unsigned char *data = slurp(argv[i], &size);
		if (data == NULL) {
			fprintf(stderr, "%s: %s: %s\n", argv[0], argv[i], strerror(errno));
			return 2;
		}
		/* an exact-size copy, so that ASan sees reads past the end */
		{
			unsigned char *exact = malloc(size ? size : 1);
			if (exact == NULL)
				return 2;
			memcpy(exact, data, size);
			free(data);
			LLVMFuzzerTestOneInput(exact, size);
			free(exact);
		}
	}
	printf("%s: %d inputs replayed\n", argv[0], argc - 1);
	return 0;
}
