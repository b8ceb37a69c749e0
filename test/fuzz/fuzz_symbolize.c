// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the symbolizer's handling of the paths a capture
 * names (src/tool/symbolize.c open_regular(), symbolizer_add_path(),
 * symbolize()) and for name_sanitize() (src/tool/util.c): the input is
 * a path record's path (up to its first NUL), then, after the NUL, a
 * name to sanitize.
 *
 *	make fuzz FUZZ_TIME=60
 *
 * It checks that:
 *  - open_regular() with a capture's path opens only an absolute path
 *    without a ".." component, and only a regular file (fstat of the fd);
 *  - symbolizing through that path returns clean names (name_char_len());
 *  - name_sanitize() returns clean text, the input itself when it says
 *    so, and at most four bytes for each byte in.
 *
 * It opens no file but read-only and regular ones: open_regular() looks
 * with O_PATH first, which is what is being tested.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tool/symbolize.h"
#include "tool/util.h"

static void clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = s ? strlen(s) : 0, i, k;

	for (i = 0; i < n; i += k) {
		k = name_char_len(p + i, n - i);
		if (!k)
			abort();
	}
}

static bool has_dotdot(const char *p)
{
	const char *d;

	for (d = p; (d = strstr(d, "..")); d += 2)
		if ((d == p || d[-1] == '/') && (!d[2] || d[2] == '/'))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char id[4] = { 0xf0, 0x22, 0x33, 0x44 };
	const char *nul = memchr(data, 0, size);
	size_t plen = nul ? (size_t)(nul - (const char *)data) : size;
	char *path = strndup((const char *)data, plen);
	struct symbolizer_opts o = { .err = NULL };
	struct symbolizer *s;
	struct strbuf sb = { 0 };
	struct stat st;
	struct sym sym;
	bool was_clean;
	int fd;

	if (!path)
		abort();
	fd = open_regular(path, true);
	if (fd >= 0) {
		if (path[0] != '/' || has_dotdot(path) || fstat(fd, &st) ||
		    !S_ISREG(st.st_mode))
			abort();
		close(fd);
	}
	s = symbolizer_new(&o);
	symbolizer_add_path(s, id, sizeof(id), path);
	symbolize(s, id, sizeof(id), 0x1000, true, &sym);
	clean(sym.func);
	clean(sym.file);
	clean(sym.src);
	symbolizer_free(s);
	free(path);

	if (nul) {
		const char *name = nul + 1;
		size_t n = size - plen - 1;

		was_clean = name_sanitize(&sb, name, n);
		if (sb.len > 4 * n || memchr(sb.buf, 0, sb.len))
			abort();
		clean(sb.buf);
		if (was_clean != (sb.len == n && !memcmp(sb.buf, name, n)))
			abort();
		sb_free(&sb);
	}
	return 0;
}
