// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of `stackid report` and of the command line: the demo
 * capture (test/unit/report/capgen.h) against the expected outputs in
 * test/unit/report/, in-process and through BUILD/stackid; exit statuses
 * and messages of the command; a capture larger than the reader's window,
 * whole and cut.
 *
 * Output is TAP; the exit status is non-zero when a test fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tool/tool.h"
#include "tool/report.h"
#include "report/capgen.h"
#include "report/bench.h"
#include "tap.h"

#ifndef TOP
#define TOP "."
#endif
#ifndef BUILD
#define BUILD TOP "/build"
#endif
#define EXPECT TOP "/test/unit/report/"
#define STACKID BUILD "/stackid"

static char tmpdir[] = "/tmp/stackid-report.XXXXXX";

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 1 >= cap)
			buf = realloc(buf, cap = cap ? cap * 2 : 4096);
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r);
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static char *tmp(const char *name)
{
	static char path[8][512];
	static int i;

	i = (i + 1) % 8;
	snprintf(path[i], sizeof(path[i]), "%s/%s", tmpdir, name);
	return path[i];
}

static void save(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		printf("# cannot write %s\n", path);
}

struct cmd {
	int status;		/* exit status, or 128 + signal */
	char *out, *err;
};

/* Run STACKID with @argv (NULL-terminated), stdin from @in if set. */
static void cmd(struct cmd *c, const char *in, const char *const *argv)
{
	const char *outf = tmp("cmd.out"), *errf = tmp("cmd.err");
	char *args[16];
	pid_t pid;
	int st, i;

	args[0] = (char *)STACKID;
	for (i = 0; argv[i] && i < 14; i++)
		args[i + 1] = (char *)argv[i];
	args[i + 1] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int o = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int n = open(in ? in : "/dev/null", O_RDONLY);

		dup2(o, 1);
		dup2(e, 2);
		dup2(n, 0);
		unsetenv("DEBUGINFOD_URLS");
		execv(STACKID, args);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	c->out = slurp(outf, NULL);
	c->err = slurp(errf, NULL);
	if (!c->out)
		c->out = strdup("");
	if (!c->err)
		c->err = strdup("");
}

static void cmd_free(struct cmd *c)
{
	free(c->out);
	free(c->err);
}

#define CMD(c, in, ...) cmd(c, in, (const char *const[]){ __VA_ARGS__, NULL })

/* In-process report of @len bytes at @p. */
static int report(const void *p, size_t len, enum report_format fmt,
		  bool symbols, char **out)
{
	struct report_opts o = { .format = fmt, .symbols = symbols };
	struct capture *c = malloc(sizeof(*c));
	char *ebuf = NULL;
	size_t olen, elen;
	FILE *fo = open_memstream(out, &olen);
	FILE *fe = open_memstream(&ebuf, &elen);
	int r;

	r = capture_open_mem(c, p, len, "mem");
	if (!r)
		r = report_run(c, &o, fo, fe);
	capture_close(c);
	free(c);
	fclose(fo);
	fclose(fe);
	free(ebuf);
	return r;
}

static void test_demo(void)
{
	char *text = slurp(EXPECT "demo.text", NULL);
	char *folded = slurp(EXPECT "demo.folded", NULL);
	char *paths = slurp(EXPECT "demo-paths.folded", NULL);
	struct capgen g = { 0 };
	char *out;
	int r;

	if (!tap_ok(text && folded && paths, "expected outputs in %s",
		    EXPECT))
		return;
	cg_demo(&g);
	r = report(g.buf, g.len, FORMAT_TEXT, false, &out);
	tap_ok(r == 0 && !strcmp(out, text), "demo, text, --no-symbols: as "
	       "demo.text");
	free(out);
	r = report(g.buf, g.len, FORMAT_FOLDED, false, &out);
	tap_ok(r == 0 && !strcmp(out, folded), "demo, folded, --no-symbols: "
	       "as demo.folded");
	free(out);
	if (access("/usr/lib/libA.so.1", F_OK) &&
	    access("/opt/app/bin/app", F_OK)) {
		r = report(g.buf, g.len, FORMAT_FOLDED, true, &out);
		tap_ok(r == 0 && !strcmp(out, paths), "demo, folded, symbols "
		       "of missing files: [basename]+0xOFFSET, as "
		       "demo-paths.folded");
		free(out);
	} else {
		tap_ok(1, "# SKIP /usr/lib/libA.so.1 exists here");
	}

	save(tmp("demo.cap"), g.buf, g.len);
	{
		struct cmd c;

		CMD(&c, NULL, "report", "-i", tmp("demo.cap"), "--no-symbols");
		tap_ok(c.status == 0 && !strcmp(c.out, text) && !*c.err,
		       "stackid report -i FILE --no-symbols: demo.text");
		cmd_free(&c);
		CMD(&c, NULL, "report", "--input", tmp("demo.cap"), "-n",
		    "--format=folded");
		tap_ok(c.status == 0 && !strcmp(c.out, folded) && !*c.err,
		       "stackid report --format=folded -n: demo.folded");
		cmd_free(&c);
		CMD(&c, tmp("demo.cap"), "report", "-i", "-", "-f", "folded",
		    "--no-symbols");
		tap_ok(c.status == 0 && !strcmp(c.out, folded),
		       "stackid report -i - (standard input)");
		cmd_free(&c);
	}
	cg_free(&g);
	free(text);
	free(folded);
	free(paths);
}

static void test_cli(void)
{
	struct cmd c;

	CMD(&c, NULL, "--help");
	tap_ok(c.status == 0 && strstr(c.out, "usage: stackid record") &&
	       strstr(c.out, "3 bad capture data"),
	       "stackid --help: usage and exit statuses, exit 0");
	cmd_free(&c);
	CMD(&c, NULL, "record", "--help");
	tap_ok(c.status == 0 && strstr(c.out, "-F, --freq HZ") &&
	       strstr(c.out, "Exit status"), "stackid record --help");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-h");
	tap_ok(c.status == 0 && strstr(c.out, "--no-symbols") &&
	       strstr(c.out, "3 bad capture data"), "stackid report -h");
	cmd_free(&c);
	CMD(&c, NULL, "--version");
	tap_ok(c.status == 0 && !strncmp(c.out, "stackid ", 8) &&
	       strstr(c.out, "ABI 1.") && strcmp(c.out, "stackid unknown"),
	       "stackid --version: %.*s", (int)strcspn(c.out, "\n"), c.out);
	cmd_free(&c);

	static const char *const usage[][5] = {
		{ "frob" },
		{ "report", "--format", "xml" },
		{ "report", "-x" },
		{ "report", "extra" },
		{ "record", "-F", "abc" },
		{ "record", "-F", "0" },
		{ "record", "-d", "-1" },
		{ "record", "-d", "0" },
		{ "record", "-p", "0" },
		{ "record", "extra" },
	};
	for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
		const char *const *a = usage[i];

		cmd(&c, NULL, a);
		tap_ok(c.status == EXIT_USAGE && *c.err && !*c.out,
		       "usage error: stackid %s %s %s: exit 1", a[0],
		       a[1] ? a[1] : "", a[2] ? a[2] : "");
		cmd_free(&c);
	}
	cmd(&c, NULL, (const char *const[]){ NULL });
	tap_ok(c.status == EXIT_USAGE && strstr(c.err, "usage"),
	       "no command: exit 1");
	cmd_free(&c);

	CMD(&c, NULL, "report", "-i", "/nonexistent.cap");
	tap_ok(c.status == EXIT_SYSTEM && !strcmp(c.err, "stackid: "
		"/nonexistent.cap: No such file or directory\n"),
	       "missing capture: exit 2");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", "/");
	tap_ok(c.status == EXIT_SYSTEM, "a directory: exit 2 (%.*s)",
	       (int)strcspn(c.err, "\n"), c.err);
	cmd_free(&c);
	if (access(STACKID_DEVICE, F_OK)) {
		CMD(&c, NULL, "record", "-d", "1", "-o", tmp("none.cap"));
		tap_ok(c.status == EXIT_SYSTEM && !strcmp(c.err,
		       "stackid: /dev/stackid: module not loaded: modprobe "
		       "stackid\n") && access(tmp("none.cap"), F_OK),
		       "record without the module: exit 2, no file");
		cmd_free(&c);
	} else {
		tap_ok(1, "# SKIP " STACKID_DEVICE " exists here");
	}
}

static void test_corrupt_cli(void)
{
	struct capgen g = { 0 };
	struct stackid_sample s;
	struct cmd c;
	size_t off;
	char want[256];

	cg_demo(&g);
	/* the third sample (at 'off'): 200 frames */
	off = sizeof(struct capture_hdr);
	for (int n = 0; n < 4; n++) {
		memcpy(&s, g.buf + off, sizeof(s));
		off += s.hdr.size;
	}
	memcpy(&s, g.buf + off, sizeof(s));
	s.nr_frames = 200;
	memcpy(g.buf + off, &s, sizeof(s));
	save(tmp("bad.cap"), g.buf, g.len);
	CMD(&c, NULL, "report", "-i", tmp("bad.cap"), "--no-symbols");
	snprintf(want, sizeof(want), "stackid: %s: corrupt record at byte "
		 "%zu: bad frame count\n", tmp("bad.cap"), off);
	tap_ok(c.status == EXIT_DATA && !strcmp(c.err, want) &&
	       strstr(c.out, "0.002000 cpu 1 app 100/101 user\n") &&
	       !strstr(c.out, "1.000000"),
	       "corrupt capture: the samples before it, then '%.*s', exit 3",
	       (int)strlen(want) - 1, want);
	cmd_free(&c);
	cg_free(&g);
}

/* Larger than the reader's 1 MiB window: file reading vs memory. */
static void test_large(void)
{
	struct bench_cfg cfg = { .samples = 20000, .depth = 16, .stacks = 50 };
	const char *big = tmp("big.cap"), *cut = tmp("cut.cap");
	char *mem, *out = NULL, want[256];
	size_t len, at;
	struct stackid_record_hdr h;
	struct cmd c;
	int r;

	if (!tap_ok(bench_write(big, &cfg) == 0, "write a %llu-sample "
		    "capture", (unsigned long long)cfg.samples))
		return;
	mem = slurp(big, &len);
	r = report(mem, len, FORMAT_FOLDED, false, &out);
	CMD(&c, NULL, "report", "-i", big, "-f", "folded", "-n");
	tap_ok(r == 0 && c.status == 0 && !strcmp(out, c.out) &&
	       strstr(out, " "), "%zu bytes: read from the file in windows "
	       "as from memory", len);
	cmd_free(&c);
	free(out);

	/* cut in the middle of a record past the first window */
	at = sizeof(struct capture_hdr);
	while (at < (3u << 20)) {
		memcpy(&h, mem + at, sizeof(h));
		at += h.size;
	}
	save(cut, mem, at + 100);
	CMD(&c, NULL, "report", "-i", cut, "-f", "text", "-n");
	memcpy(&h, mem + at, sizeof(h));
	snprintf(want, sizeof(want), "stackid: %s: truncated record at byte "
		 "%zu: a record of %u bytes, 100 in the file\n", cut, at,
		 h.size);
	tap_ok(c.status == EXIT_DATA && !strcmp(c.err, want),
	       "cut at byte %zu: '%.*s'", at + 100,
	       (int)strcspn(c.err, "\n"), c.err);
	cmd_free(&c);
	free(mem);
	unlink(big);
	unlink(cut);
}

int main(void)
{
	char rm[600];

	if (!mkdtemp(tmpdir)) {
		printf("not ok 1 - mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_demo();
	test_cli();
	test_corrupt_cli();
	test_large();
	snprintf(rm, sizeof(rm), "rm -rf '%s'", tmpdir);
	if (system(rm))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
