// SPDX-License-Identifier: GPL-2.0
/*
 * test_push: the parts of `stackid push` that need no server.
 *  - pprof_gzip_chunked(): zlib counts input and output in unsigned int,
 *    so a body of 4 GiB or more must go in chunks; here chunks of 1, 7,
 *    4096 bytes and the default, over a body that spans many of them,
 *    each inflated back to the same bytes (a 4 GiB body is not needed to
 *    show that the chunks join up);
 *  - push_check_name(), push_check_label(): the server's rules;
 *  - push_clean_reply(): a server's answer without terminal controls.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tap.h"
#include "tool/pprof.h"
#include "tool/push.h"

static int inflate_all(const struct strbuf *gz, unsigned char *out,
		       size_t cap, size_t *len)
{
	z_stream z = { 0 };
	int ret;

	if (inflateInit2(&z, 15 + 16))
		return -1;
	z.next_in = (unsigned char *)gz->buf;
	z.avail_in = gz->len;
	z.next_out = out;
	z.avail_out = cap;
	ret = inflate(&z, Z_FINISH);
	*len = z.total_out;
	inflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -1;
}

static void gzip_chunks(void)
{
	static const size_t chunks[] = { 1, 7, 4096, 0 };
	size_t n = 300000, i, len;
	unsigned char *in = malloc(n), *back = malloc(n + 16);
	uint32_t x = 12345;

	/* half compressible, half not: the output fills its chunks too */
	for (i = 0; i < n; i++) {
		x = x * 1103515245 + 12345;
		in[i] = i < n / 2 ? (unsigned char)"stackid push "[i % 13] :
			(unsigned char)(x >> 24);
	}
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		struct strbuf gz = { 0 };
		int r = pprof_gzip_chunked(in, n, &gz, chunks[i]);
		int back_ok = !r && !inflate_all(&gz, back, n + 16, &len) &&
			      len == n && !memcmp(in, back, n);

		tap_ok(back_ok, "gzip fed %zu bytes at a time: %zu bytes in, "
		       "%zu out, inflated back the same", chunks[i] ?
		       chunks[i] : (size_t)1 << 30, n, gz.len);
		sb_free(&gz);
	}
	{
		struct strbuf gz = { 0 };

		tap_ok(!pprof_gzip(in, 0, &gz) &&
		       !inflate_all(&gz, back, 16, &len) && len == 0,
		       "gzip of an empty body");
		sb_free(&gz);
	}
	free(in);
	free(back);
}

static void names(void)
{
	static const char *const good_names[] = {
		"stackid.cpu", "my-app.cpu", "1app", "a_b",
	};
	static const char *const bad_names[] = {
		"", "my app.cpu", "a:b", "a/b", "\xc3\xa9.cpu", "x{y}",
	};
	static const char *const good[] = {
		"env=prod", "_x=1", "host=web-1.example", "k=v w", "k=\xc3\xa9",
		"tid=1", "k=a.b-c/d:e",
	};
	static const char *const bad[] = {
		"host.name=x", "my-key=x", "1k=x", "=x", "k=", "k",
		"__name__=evil", "__x=1", "service_name=x", "app_name=x",
		"pyroscope_spy=x", "k=a,b", "k={", "k=}", "k=a=b", "k=\"",
		"k=\\", "k=\x1b[2J", "k=\xff", "k=\xc2\x9b", "k=\xed\xa0\x80",
	};
	unsigned int i, nbad = 0, ngood = 0;

	for (i = 0; i < sizeof(good_names) / sizeof(good_names[0]); i++)
		ngood += !push_check_name(good_names[i]);
	for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++)
		nbad += !!push_check_name(bad_names[i]);
	tap_ok(ngood == 4 && nbad == 6, "names: %u of 4 good taken, %u of 6 "
	       "bad refused", ngood, nbad);
	ngood = nbad = 0;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ngood += !push_check_label(good[i], 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		nbad += !!push_check_label(bad[i], 0);
	tap_ok(ngood == 7 && nbad == 21, "labels: %u of 7 good taken, %u of "
	       "21 bad refused", ngood, nbad);
	tap_ok(push_check_label("tid=1", PPROF_L_TID) &&
	       push_check_label("cgroup=x", PPROF_L_CGROUP) &&
	       !push_check_label("cgroup=x", PPROF_L_TID),
	       "a label named as a chosen series label is refused");
}

static void replies(void)
{
	static const struct { const char *in, *out; } t[] = {
		{ "ok", "ok" },
		{ "bad \x1b]0;x\x07\x1b[2J", "bad ?]0;x??[2J" },
		{ "a\r\nb\tc\x7f", "a??b?c?" },
		{ "csi \xc2\x9b" "31m", "csi ?31m" },
		{ "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },
		{ "\xff\xc3", "??" },
		{ "\xed\xa0\x80", "???" },
	};
	unsigned int i, good = 0;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct strbuf sb = { 0 };

		push_clean_reply(&sb, t[i].in, strlen(t[i].in));
		if (sb.buf && !strcmp(sb.buf, t[i].out))
			good++;
		else
			printf("# '%s' -> '%s'\n", t[i].out,
			       sb.buf ? sb.buf : "");
		sb_free(&sb);
	}
	tap_ok(good == 7, "server answers cleaned: %u of 7 (C0, C1, DEL, "
	       "invalid UTF-8 as ?; UTF-8 kept)", good);
}

int main(void)
{
	gzip_chunks();
	names();
	replies();
	return tap_done();
}
