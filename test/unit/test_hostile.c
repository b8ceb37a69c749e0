// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of `stackid report` on hostile captures (issue 19,
 * items 2 to 4):
 *  - name_sanitize() on invalid UTF-8 and controls, byte by byte;
 *  - a capture with bad bytes in every name (comm, cgroup path, kernel
 *    function and module, path): each format's output is clean (text and
 *    folded: valid UTF-8 without controls but \n and \t; pprof: every
 *    string of its string table; svg: well-formed XML, by xmllint);
 *  - captures made to cost much (huge indexes in many rings, many epoch
 *    records, many distinct paths for one build-id, cgroup ids whose hash
 *    under the old fixed seed collided): each format, in a child, stays
 *    within MEM_PER_BYTE bytes of peak RSS growth per byte of capture
 *    (plus MEM_SLACK), and within CPU_NS_PER_BYTE of CPU time per byte
 *    (plus CPU_SLACK_NS): CPU time of the child, not wall-clock time, with
 *    a margin of about a hundred on this code, while the old code took
 *    ten to a thousand times the bound.
 *
 * Output is TAP; the exit status is non-zero when a test fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "tool/tool.h"
#include "tool/report.h"
#include "report/capgen.h"
#include "tap.h"

/* The bounds stated in doc/stackid.1 (EXIT STATUS... RESOURCES). */
#define MEM_PER_BYTE	16
#define MEM_SLACK	(16 << 20)
#define CPU_NS_PER_BYTE	500
#define CPU_SLACK_NS	500000000LL

static const char *const fmt_name[] = { "text", "folded", "pprof", "svg" };

/* ---- name_sanitize() ---- */

static void test_sanitize(void)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "plain", NULL },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e", NULL },
		{ "\xc0\xaf", "\\xc0\\xaf" },			/* overlong '/' */
		{ "\xe0\x80\xaf", "\\xe0\\x80\\xaf" },		/* overlong */
		{ "\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf" },	/* overlong */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },		/* surrogate */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },	/* > 10FFFF */
		{ "\xef\xbf\xbe", "\\xef\\xbf\\xbe" },		/* U+FFFE */
		{ "\xef\xbf\xbf", "\\xef\\xbf\\xbf" },		/* U+FFFF */
		{ "\xef\xb7\x90", "\\xef\\xb7\\x90" },		/* U+FDD0 */
		{ "\xc2\x9b" "31m", "\\xc2\\x9b" "31m" },	/* C1 CSI */
		{ "\xc2\x9d" "0;x\xc2\x9c", "\\xc2\\x9d" "0;x\\xc2\\x9c" },
		{ "\x1b[31m", "\\x1b[31m" },			/* ESC */
		{ "a\tb\nc\x7f", "a\\x09b\\x0ac\\x7f" },
		{ "\x80x", "\\x80x" },				/* stray */
		{ "\xe2\x82", "\\xe2\\x82" },			/* truncated */
		{ "\xe2\x82x", "\\xe2\\x82x" },
		{ "\xc2\xa0", NULL },				/* U+00A0 */
		{ "\xf4\x8f\xbf\xbd", NULL },			/* U+10FFFD */
		{ "\xff\xfe", "\\xff\\xfe" },
	};
	unsigned int i, bad = 0;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct strbuf sb = { 0 };
		const char *want = t[i].out ? t[i].out : t[i].in;
		bool clean = name_sanitize(&sb, t[i].in, strlen(t[i].in));

		if (!sb.buf || strcmp(sb.buf, want) || clean != !t[i].out) {
			printf("# %u: got \"%s\", want \"%s\"\n", i,
			       sb.buf ? sb.buf : "(null)", want);
			bad++;
		}
		sb_free(&sb);
	}
	tap_ok(!bad, "name_sanitize: overlongs, surrogates, > U+10FFFF, "
	       "noncharacters, C0, C1, DEL, stray and cut sequences as \\xNN; "
	       "valid UTF-8 kept");
}

/* ---- raw records ---- */

static void rec_build_id(struct capgen *g, unsigned int ring,
			 unsigned int index, const unsigned char *id,
			 unsigned int len)
{
	struct stackid_build_id b = {
		.hdr = { sizeof(b), STACKID_REC_BUILD_ID, STACKID_ABI_MAJOR },
		.ring = ring,
		.index = index,
		.build_id_len = len,
	};

	memcpy(b.build_id, id, len);
	memcpy(cg_room(g, sizeof(b)), &b, sizeof(b));
}

static void rec_epoch(struct capgen *g, unsigned int ring)
{
	struct stackid_epoch e = {
		.hdr = { sizeof(e), STACKID_REC_EPOCH, STACKID_ABI_MAJOR },
		.ring = ring,
	};

	memcpy(cg_room(g, sizeof(e)), &e, sizeof(e));
}

/* A sample in @ring: a kernel frame @kbid (0: none), a valid @bid. */
static void rec_sample(struct capgen *g, unsigned int ring, const char *comm,
		       unsigned int kbid, unsigned int bid, uint64_t cgroup)
{
	unsigned int nk = !!kbid, nr = nk + !!bid;
	size_t size = sizeof(struct stackid_sample) +
		      nr * sizeof(struct stackid_frame);
	struct stackid_sample s = {
		.hdr = { size, STACKID_REC_SAMPLE, STACKID_ABI_MAJOR },
		.flags = kbid ? STACKID_SF_KERNEL : STACKID_SF_USER,
		.cpu = ring,
		.tgid = 1,
		.tid = 1,
		.time_ns = CG_DEMO_START + g->len,
		.nr_frames = nr,
		.nr_kernel = nk,
		.ring = ring,
		.cgroup_id = cgroup,
	};
	struct stackid_frame f[2];
	unsigned char *p;

	memset(f, 0, sizeof(f));
	if (kbid) {
		f[0].status = STACKID_FRAME_KERNEL;
		f[0].bid = kbid;
		f[0].addr = 0x10;
	}
	if (bid) {
		f[nk].status = STACKID_FRAME_VALID;
		f[nk].bid = bid;
		f[nk].addr = 0x1000 + g->len % 4096;
	}
	memcpy(s.comm, comm, strnlen(comm, sizeof(s.comm)));
	p = cg_room(g, size);
	memcpy(p, &s, sizeof(s));
	memcpy(p + sizeof(s), f, nr * sizeof(f[0]));
}

/* ---- running a report ---- */

static int report(const void *p, size_t len, enum report_format fmt,
		  bool symbols, char **out, size_t *olen)
{
	struct report_opts o = { .format = fmt, .symbols = symbols };
	struct capture *c = malloc(sizeof(*c));
	char *ebuf = NULL;
	size_t elen;
	FILE *fo = open_memstream(out, olen);
	FILE *fe = open_memstream(&ebuf, &elen);
	int r;

	r = capture_open_mem(c, p, len, "hostile]]>");
	if (!r)
		r = report_run(c, &o, fo, fe);
	capture_close(c);
	free(c);
	fclose(fo);
	fclose(fe);
	if (r)
		printf("# report: %s", ebuf);
	free(ebuf);
	return r;
}

/*
 * Strict UTF-8 without controls (but \n and \t where @nl), written here
 * apart from name_char_len() so that one cannot hide the other's bug.
 */
static bool strict_utf8(const unsigned char *s, size_t n, bool nl,
			size_t *at)
{
	size_t i = 0;

	while (i < n) {
		unsigned int c = s[i], cp, k, j, min;

		if (c < 0x80) {
			if ((c < 0x20 && !(nl && (c == '\n' || c == '\t'))) ||
			    c == 0x7f)
				goto bad;
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			k = 1; cp = c & 0x1f; min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2; cp = c & 0x0f; min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3; cp = c & 0x07; min = 0x10000;
		} else {
			goto bad;
		}
		for (j = 1; j <= k; j++) {
			if (i + j >= n || (s[i + j] & 0xc0) != 0x80)
				goto bad;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000) ||
		    cp < 0xa0 || (cp & 0xfffe) == 0xfffe ||
		    (cp >= 0xfdd0 && cp <= 0xfdef))
			goto bad;
		i += k + 1;
	}
	return true;
bad:
	*at = i;
	return false;
}

/* Every string in a profile.proto's string table (field 6). */
static bool pprof_strings_clean(const unsigned char *gz, size_t n,
				unsigned int *nstr)
{
	unsigned char *pb = NULL;
	size_t cap = 1 << 20, len = 0, i, at;
	z_stream z = { 0 };
	bool ok = true;
	int r;

	*nstr = 0;
	if (inflateInit2(&z, 15 + 32))
		return false;
	z.next_in = (unsigned char *)gz;
	z.avail_in = n;
	do {
		pb = realloc(pb, cap *= 2);
		z.next_out = pb + len;
		z.avail_out = cap - len;
		r = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
	} while (r == Z_OK);
	inflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(pb);
		return false;
	}
	for (i = 0; i < len && ok;) {
		uint64_t key = 0, v = 0;
		unsigned int sh = 0;

		do {
			key |= (uint64_t)(pb[i] & 0x7f) << sh;
			sh += 7;
		} while (pb[i++] & 0x80 && i < len);
		switch (key & 7) {
		case 0:
			while (i < len && pb[i++] & 0x80)
				;
			break;
		case 1:
			i += 8;
			break;
		case 5:
			i += 4;
			break;
		case 2:
			sh = 0;
			do {
				v |= (uint64_t)(pb[i] & 0x7f) << sh;
				sh += 7;
			} while (pb[i++] & 0x80 && i < len);
			if (v > len - i) {
				ok = false;
				break;
			}
			if (key >> 3 == 6) {
				(*nstr)++;
				if (!strict_utf8(pb + i, v, false, &at)) {
					printf("# string %u not clean at %zu: "
					       "%.*s\n", *nstr, at, (int)v,
					       pb + i);
					ok = false;
				}
			}
			i += v;
			break;
		default:
			ok = false;
		}
	}
	free(pb);
	return ok;
}

/* The svg, well-formed XML by xmllint's word. */
static bool svg_well_formed(const char *svg, size_t n)
{
	char path[] = "/tmp/stackid-hostile-svg.XXXXXX", cmd[128];
	int fd = mkstemp(path), r;

	if (fd < 0 || write(fd, svg, n) != (ssize_t)n) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	r = system(cmd);
	unlink(path);
	return r == 0;
}

/* Bytes nobody's output should carry: comm, paths, names. */
#define BAD_BYTES "\xc2\x9b" "2J\x1b]0;t\x07\xc0\xaf\xed\xa0\x80" \
	"\xef\xbf\xbe\xf4\x90\x80\x80]]>&<\xe2\x80\xa8\xff"

static void test_names(void)
{
	static const unsigned char id[20] = { 0xb1, 0xd0 };
	const unsigned int fmts[] = { FORMAT_TEXT, FORMAT_FOLDED, FORMAT_PPROF,
				      FORMAT_SVG };
	struct capgen g = { 0 };
	char comm[16];
	unsigned int i;

	/* a comm of 15 bad bytes, as prctl(PR_SET_NAME) can set it */
	memcpy(comm, "\xc2\x9b\xc2\x9d\xed\xa0\x80\xc0\xaf]]>\x1b\xff\x7f", 16);
	cg_header(&g, STACKID_ABI_VERSION, CG_DEMO_START);
	cg_cgroup(&g, 7, "/sys.slice/" BAD_BYTES);
	cg_path(&g, id, sizeof(id), "/nonexistent/" BAD_BYTES ".so");
	rec_build_id(&g, 0, 1, id, sizeof(id));
	cg_ksym(&g, 0, 1, "k_" BAD_BYTES, "m" "\xc2\x85" "od");
	rec_sample(&g, 0, comm, 1, 1, 7);
	rec_sample(&g, 0, "]]>\xe2\x80\xa9", 0, 1, 7);
	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		unsigned int f = fmts[i], nstr = 0;
		char *out = NULL;
		size_t len = 0, at = 0;
		bool ok;
		int r = report(g.buf, g.len, f, true, &out, &len);

		if (f == FORMAT_PPROF)
			ok = pprof_strings_clean((unsigned char *)out, len,
						 &nstr) && nstr > 10;
		else if (f == FORMAT_SVG)
			ok = strict_utf8((unsigned char *)out, len, true, &at) &&
			     svg_well_formed(out, len);
		else
			ok = strict_utf8((unsigned char *)out, len, true, &at);
		if (!ok && f != FORMAT_PPROF)
			printf("# not clean at byte %zu: %.40s\n", at, out + at);
		tap_ok(r == 0 && ok && len, "bad bytes in every name, %s: %s",
		       fmt_name[f], f == FORMAT_SVG ?
		       "valid UTF-8, well-formed XML (xmllint)" :
		       f == FORMAT_PPROF ? "every string valid UTF-8, no "
		       "controls" : "valid UTF-8, no controls but \\n, \\t");
		if (f == FORMAT_TEXT || f == FORMAT_FOLDED)
			tap_ok(strstr(out, "\\xc2\\x9b") &&
			       strstr(out, "k_\\xc2\\x9b"),
			       "%s: the comm's and the kernel function's C1 "
			       "CSI shown as \\xc2\\x9b", fmt_name[f]);
		free(out);
	}
	cg_free(&g);
}

/* ---- resources ---- */

struct cost {
	long long rss_growth;	/* bytes */
	long long cpu_ns;
	int status;		/* report_run's, or 100 + signal */
};

static long long cpu_ns(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000LL +
	       (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000LL;
}

/* Report @g as @fmt in a child (no more than 30 s of CPU), and its cost. */
static void measure(const struct capgen *g, enum report_format fmt,
		    bool symbols, struct cost *c)
{
	int pfd[2], st;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	if (pipe(pfd))
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit cpu = { 30, 30 };
		struct rusage a, b;
		struct cost m = { 0 };
		char *out = NULL;
		size_t len;

		setrlimit(RLIMIT_CPU, &cpu);
		getrusage(RUSAGE_SELF, &a);
		m.status = report(g->buf, g->len, fmt, symbols, &out, &len);
		getrusage(RUSAGE_SELF, &b);
		m.rss_growth = (b.ru_maxrss - a.ru_maxrss) * 1024LL;
		m.cpu_ns = cpu_ns(&b) - cpu_ns(&a);
		if (write(pfd[1], &m, sizeof(m)) != sizeof(m))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], c, sizeof(*c)) != sizeof(*c)) {
		struct rusage ru;

		waitpid(pid, &st, 0);
		getrusage(RUSAGE_CHILDREN, &ru);
		c->status = 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		c->cpu_ns = -1;
	} else {
		waitpid(pid, &st, 0);
	}
	close(pfd[0]);
}

static void check_bounds(const char *what, const struct capgen *g,
			 bool symbols)
{
	unsigned int f;

	for (f = FORMAT_TEXT; f <= FORMAT_SVG; f++) {
		struct cost c;
		long long mem_max = (long long)g->len * MEM_PER_BYTE + MEM_SLACK;
		long long cpu_max = (long long)g->len * CPU_NS_PER_BYTE +
				    CPU_SLACK_NS;

		measure(g, f, symbols, &c);
		tap_ok(c.status <= EXIT_DATA && c.rss_growth <= mem_max &&
		       c.cpu_ns >= 0 && c.cpu_ns <= cpu_max,
		       "%s (%zu bytes), %s: RSS +%lld KiB (bound %lld), CPU "
		       "%lld ms (bound %lld), status %d", what, g->len,
		       fmt_name[f], c.rss_growth >> 10, mem_max >> 10,
		       c.cpu_ns / 1000000, cpu_max / 1000000, c.status);
	}
}

/* Index 65535 of the build-id and kernel symbol tables in 256 rings. */
static void test_huge_indexes(void)
{
	static const unsigned char id[4] = { 1, 2, 3, 4 };
	struct capgen g = { 0 };
	unsigned int ring;

	cg_header(&g, STACKID_ABI_VERSION, CG_DEMO_START);
	for (ring = 0; ring < 256; ring++) {
		rec_build_id(&g, ring * 257, 65535, id, sizeof(id));
		cg_ksym(&g, ring * 257, 65535, "f", NULL);
		rec_sample(&g, ring * 257, "x", 65535, 65535, 0);
	}
	check_bounds("index 65535 in 256 rings", &g, false);
	cg_free(&g);
}

/* 60,000 epoch records of a ring whose tables have index 65535. */
static void test_epochs(void)
{
	static const unsigned char id[4] = { 1, 2, 3, 4 };
	struct capgen g = { 0 };
	unsigned int i;

	cg_header(&g, STACKID_ABI_VERSION, CG_DEMO_START);
	for (i = 0; i < 60000; i++) {
		if (i % 1000 == 0) {
			rec_build_id(&g, 0, 65535, id, sizeof(id));
			cg_ksym(&g, 0, 65535, "f", NULL);
			rec_sample(&g, 0, "x", 65535, 65535, 0);
		}
		rec_epoch(&g, 0);
	}
	check_bounds("60,000 epoch records", &g, false);
	cg_free(&g);
}

/* 80,000 distinct paths for one build-id, symbolized (none exists). */
static void test_paths(void)
{
	static const unsigned char id[4] = { 9, 9, 9, 9 };
	struct capgen g = { 0 };
	char path[64];
	unsigned int i;

	cg_header(&g, STACKID_ABI_VERSION, CG_DEMO_START);
	for (i = 0; i < 80000; i++) {
		snprintf(path, sizeof(path), "/nonexistent/%u", i);
		cg_path(&g, id, sizeof(id), path);
		if (i % 10000 == 0)
			cg_path(&g, id, sizeof(id), "/nonexistent/0");
	}
	rec_build_id(&g, 0, 1, id, sizeof(id));
	rec_sample(&g, 0, "x", 0, 1, 0);
	check_bounds("80,000 paths for one build-id", &g, true);
	cg_free(&g);
}

/* The hash of the command's tables before issue 19: a fixed seed, 0. */
static inline uint64_t old_mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t old_hash_u64(uint64_t w)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ 8;

	h = old_mix(h ^ w, 0xbf58476d1ce4e5b9ULL);
	return old_mix(h, 0x2545f4914f6cdd1dULL);
}

/*
 * 150,000 cgroup ids that all fell in the first 1,024 of the 262,144
 * slots of the old table: one run of linear probing, quadratic.
 */
static void test_collisions(void)
{
	struct capgen g = { 0 };
	unsigned int n = 0;
	uint64_t id;

	cg_header(&g, STACKID_ABI_VERSION, CG_DEMO_START);
	for (id = 1; n < 150000; id++) {
		if ((old_hash_u64(id) & 0x3ffff) >= 1024)
			continue;
		cg_cgroup(&g, id, "/");
		n++;
	}
	check_bounds("150,000 cgroup ids crafted to collide", &g, false);
	cg_free(&g);
}

int main(int argc, char **argv)
{
	(void)argv;
	test_sanitize();
	test_names();
	if (argc > 1)		/* names only: the quick part */
		return tap_done();
	test_huge_indexes();
	test_epochs();
	test_paths();
	test_collisions();
	return tap_done();
}
