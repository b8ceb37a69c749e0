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

/* Every long option a --help names is in the man page, and back. */
static void test_help_man(void)
{
	static const char *const helps[][2] = {
		{ "--help", NULL }, { "record", "--help" },
		{ "report", "--help" }, { "push", "--help" },
		{ "unwind-table", "--help" },
	};
	char *man = slurp(TOP "/doc/stackid.1", NULL), opt[64], want[160];
	char missing[512] = "";
	const char *p;
	struct cmd c;
	size_t i, n, j;

	if (!tap_ok(man != NULL, "doc/stackid.1 read"))
		return;
	for (i = 0; i < sizeof(helps) / sizeof(helps[0]); i++) {
		if (helps[i][1])
			CMD(&c, NULL, helps[i][0], helps[i][1]);
		else
			CMD(&c, NULL, helps[i][0]);
		for (p = c.out; (p = strstr(p, "--")); p += 2 + n) {
			n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
			if (!n || n >= sizeof(opt))
				continue;
			memcpy(opt, p + 2, n);
			opt[n] = 0;
			strcpy(want, "\\-\\-");
			for (j = 0; j < n; j++)
				strcat(want, opt[j] == '-' ? "\\-" :
				       (char[]){ opt[j], 0 });
			if (!strstr(man, want) && strlen(missing) + n + 4 <
			    sizeof(missing)) {
				strcat(missing, " --");
				strcat(missing, opt);
			}
		}
		cmd_free(&c);
	}
	tap_ok(!*missing, "every long option of the --help texts is in "
	       "stackid.1 (missing:%s)", *missing ? missing : " none");
	free(man);
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
	CMD(&c, NULL, "push", "--help");
	tap_ok(c.status == 0 && strstr(c.out, "--spool-max") &&
	       strstr(c.out, "Exit status"), "stackid push --help");
	cmd_free(&c);
	CMD(&c, NULL, "record", "--help");
	tap_ok(c.status == 0 && strstr(c.out, "--rotate SECONDS") &&
	       strstr(c.out, "--max-size"), "stackid record --help: "
	       "continuous mode");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-h");
	tap_ok(c.status == 0 && strstr(c.out, "--no-symbols") &&
	       strstr(c.out, "3 bad capture data"), "stackid report -h");
	cmd_free(&c);
	CMD(&c, NULL, "record", "--help");
	tap_ok(c.status == 0 && strstr(c.out, "  -c, --cgroup DIR ") &&
	       strstr(c.out, "kernel_frames"),
	       "stackid record --help: --cgroup, kernel frames");
	cmd_free(&c);
	CMD(&c, NULL, "report", "--help");
	tap_ok(c.status == 0 && strstr(c.out, "      --cgroup PATH ") &&
	       strstr(c.out, "      --by-cgroup ") &&
	       strstr(c.out, "FUNCTION_[k]"),
	       "stackid report --help: --cgroup, --by-cgroup, kernel frames");
	cmd_free(&c);
	test_help_man();
	CMD(&c, NULL, "--version");
	tap_ok(c.status == 0 && !strncmp(c.out, "stackid ", 8) &&
	       strstr(c.out, "ABI 2.") && strcmp(c.out, "stackid unknown"),
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
		{ "record", "--cgroup" },
		{ "report", "--cgroup" },
		{ "report", "--by-cgroup", "-f", "pprof" },
		{ "record", "extra" },
		{ "record", "--rotate", "10" },
		{ "record", "--dir", "/tmp/x" },
		{ "record", "--keep", "3" },
		{ "record", "-r1", "-D/tmp/x", "-oy" },
		{ "record", "-r1", "-D/tmp/x", "-m1K" },
		{ "report", "--format", "svgz" },
		{ "push", "x.cap" },
		{ "push", "--url", "ftp://h", "x.cap" },
		{ "push", "--url", "http://h", "--label", "novalue" },
		{ "push", "--url", "http://h", "--follow" },
	};
	for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
		const char *const *a = usage[i];

		cmd(&c, NULL, a);
		tap_ok(c.status == EXIT_USAGE && *c.err && !*c.out,
		       "usage error: stackid %s %s %s %s: exit 1", a[0],
		       a[1] ? a[1] : "", a[2] ? a[2] : "",
		       a[2] && a[3] ? a[3] : "");
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
	for (int n = 0;; off += s.hdr.size) {
		memcpy(&s, g.buf + off, sizeof(s));
		if (s.hdr.type == STACKID_REC_SAMPLE && n++ == 2)
			break;
	}
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

/* The kernel frames and cgroups capture (cg_kdemo()), as it reports. */
static const char ktext[] =
"0.000001 cpu 0 kapp 10/10 kernel /a\n"
"\text4_file_read_iter+0x40 [ext4]\n"
"\tvfs_read+0x1a [kernel]\n"
"\tksys_read+0x9 [kernel]\n"
"\t11223344+0x100\n"
"\t11223344+0x200\n"
"\n"
"0.000002 cpu 1 kapp 10/11 kernel /a/b\n"
"\text4_file_read_iter+0x40 [ext4]\n"
"\tvfs_read+0x2b [kernel]\n"
"\tksys_read+0x9 [kernel]\n"
"\t11223344+0x100\n"
"\t11223344+0x200\n"
"\n";
static const char ktext_rest[] =
"0.000003 cpu 0 kapp 10/10 kernel /ab\n"
"\t[unknown] [kernel]\n"
"\tvfs_read+0x1a [kernel]\n"
"\t11223344+0x100\n"
"\t11223344+0x200\n"
"\n"
"0.000004 cpu 0 uapp 20/20 user [cgroup 99]\n"
"\t11223344+0x300\n"
"\n"
"0.000005 cpu 1 uapp 20/20 user\n"
"\t11223344+0x300\n"
"\n";
#define KSTACK "kapp;11223344+0x200;11223344+0x100;ksys_read_[k];" \
	"vfs_read_[k];ext4_file_read_iter [ext4]_[k]"
#define KSTACK_UNK "kapp;11223344+0x200;11223344+0x100;vfs_read_[k];" \
	"[unknown]_[k]"
static const char kfolded[] =
KSTACK " 2\n"
"uapp;11223344+0x300 2\n"
KSTACK_UNK " 1\n";
static const char kfolded_a[] = KSTACK " 2\n";
static const char kby_cgroup[] =
"/a/b;" KSTACK " 1\n"
"/a;" KSTACK " 1\n"
"/ab;" KSTACK_UNK " 1\n"
"[cgroup 99];uapp;11223344+0x300 1\n"
"[no cgroup];uapp;11223344+0x300 1\n";

/*
 * Kernel threads (ABI 2.1): kernel frames only, the name in brackets in
 * every format, flagged in text, left out by --no-kthreads.
 */
static void test_kthreads(void)
{
	static const unsigned char id[20] = { 0x5a, 0x5a };
	struct cg_frame kf[2] = {
		cg_kernel("worker_thread", NULL, 0x40),
		cg_kernel("kthread", NULL, 0x10),
	};
	struct cg_frame uf[1] = { cg_valid(id, 20, 0x1234) };
	struct capgen g = { 0 };
	char cap[600], pb[600];
	struct cmd c;
	uint32_t kt = STACKID_SF_KERNEL | STACKID_SF_KTHREAD;
	bool ok;

	snprintf(cap, sizeof(cap), "%s", tmp("kthread.cap"));
	snprintf(pb, sizeof(pb), "%s", tmp("kthread.pb.gz"));
	cg_header(&g, STACKID_ABI_VERSION, 0);
	cg_sample_k(&g, 1000, 0, 77, 77, "kworker/0:1", kt, 2, kf, 2, 0);
	cg_sample_k(&g, 2000, 1, 77, 77, "kworker/0:1", kt, 2, kf, 2, 0);
	cg_sample_k(&g, 3000, 0, 10, 10, "app", STACKID_SF_USER, 1, uf, 0, 0);
	save(cap, g.buf, g.len);
	CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "folded");
	ok = c.status == 0 && !*c.err &&
	     strstr(c.out, "[kworker/0:1];kthread_[k];worker_thread_[k] 2\n") &&
	     strstr(c.out, "app;");
	tap_ok(ok, "kernel thread, folded: [comm] then its kernel frames%s%s",
	       ok ? "" : "\n# got:\n", ok ? "" : c.out);
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n");
	ok = c.status == 0 &&
	     strstr(c.out, " [kworker/0:1] 77/77 kernel,kthread\n");
	tap_ok(ok, "kernel thread, text: [comm] and the kthread flag%s%s",
	       ok ? "" : "\n# got:\n", ok ? "" : c.out);
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "folded",
	    "--no-kthreads");
	tap_ok(c.status == 0 && !strstr(c.out, "kworker") &&
	       strstr(c.out, "app;"),
	       "--no-kthreads leaves them out, and only them");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "svg");
	tap_ok(c.status == 0 && strstr(c.out, "[kworker/0:1]"),
	       "kernel thread, svg: its frame is [comm]");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "pprof", "-o", pb);
	tap_ok(c.status == 0, "kernel thread, pprof: written");
	cmd_free(&c);
	/* a kernel-thread sample with a user frame is corrupt */
	cg_free(&g);
	memset(&g, 0, sizeof(g));
	cg_header(&g, STACKID_ABI_VERSION, 0);
	{
		struct cg_frame mix[2] = { kf[0], uf[0] };

		cg_sample_k(&g, 1000, 0, 77, 77, "kworker/0:1", kt, 2, mix, 1, 0);
	}
	save(cap, g.buf, g.len);
	CMD(&c, NULL, "report", "-i", cap, "-n");
	tap_ok(c.status == 3 && strstr(c.err, "kernel thread"),
	       "a kernel-thread sample with user frames: bad data (exit 3)");
	cmd_free(&c);
	cg_free(&g);
}

static void test_kernel(void)
{
	static const char *const a_args[] = {
		"/a", "/a/", "a", "//a", "/sys/fs/cgroup/a", "/sys/fs/cgroup/a/",
	};
	struct capgen g = { 0 };
	char text[2048], cap[600];
	struct cmd c;
	size_t i;

	snprintf(cap, sizeof(cap), "%s", tmp("kernel.cap"));
	cg_kdemo(&g);
	save(cap, g.buf, g.len);
	snprintf(text, sizeof(text), "%s%s", ktext, ktext_rest);

	CMD(&c, NULL, "report", "-i", cap, "-n");
	tap_ok(c.status == 0 && !*c.err && !strcmp(c.out, text),
	       "kernel frames, text: first, FUNC+0xOFF [kernel] or [ext4], "
	       "[unknown] [kernel]; the cgroup's path on the header line, "
	       "[cgroup 99] if never named, even when named later%s%s",
	       c.status || strcmp(c.out, text) ? "\n# got:\n" : "",
	       c.status || strcmp(c.out, text) ? c.out : "");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "folded");
	tap_ok(c.status == 0 && !*c.err && !strcmp(c.out, kfolded),
	       "kernel frames, folded: after the user frames, outermost "
	       "first, FUNC_[k], FUNC [ext4]_[k], offsets of one function "
	       "merged%s%s", strcmp(c.out, kfolded) ? "\n# got:\n" : "",
	       strcmp(c.out, kfolded) ? c.out : "");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-f", "folded");
	tap_ok(c.status == 0 && !*c.err && !strcmp(c.out, kfolded),
	       "kernel frames, folded, symbols on: named from the capture "
	       "the same");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "folded", "--offsets");
	tap_ok(c.status == 0 && strstr(c.out, ";vfs_read+0x1a_[k];"
				       "ext4_file_read_iter+0x40 [ext4]_[k] 1\n") &&
	       strstr(c.out, ";vfs_read+0x2b_[k];"),
	       "kernel frames, folded --offsets: FUNC+0xOFF_[k], one line "
	       "per offset");
	cmd_free(&c);

	for (i = 0; i < sizeof(a_args) / sizeof(a_args[0]); i++) {
		CMD(&c, NULL, "report", "-i", cap, "-n", "--cgroup",
		    a_args[i]);
		tap_ok(c.status == 0 && !*c.err && !strcmp(c.out, ktext),
		       "--cgroup %s, text: /a and /a/b, not /ab, not the "
		       "others", a_args[i]);
		cmd_free(&c);
		CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "folded",
		    "--cgroup", a_args[i]);
		tap_ok(c.status == 0 && !*c.err && !strcmp(c.out, kfolded_a),
		       "--cgroup %s, folded", a_args[i]);
		cmd_free(&c);
	}
	CMD(&c, NULL, "report", "-i", cap, "-n", "--cgroup", "/a/b");
	tap_ok(c.status == 0 && !strcmp(c.out, strstr(ktext, "0.000002")),
	       "--cgroup /a/b: only its sample, named after it");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "--cgroup", "/sys/fs/cgroup");
	tap_ok(c.status == 0 && strstr(c.out, " /a\n") &&
	       strstr(c.out, " /ab\n") && !strstr(c.out, "[cgroup 99]") &&
	       !strstr(c.out, "uapp"),
	       "--cgroup /sys/fs/cgroup (the root): every named cgroup");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "--cgroup", "/nothing");
	tap_ok(c.status == 0 && !*c.out && !*c.err,
	       "--cgroup of no sample: empty report, exit 0");
	cmd_free(&c);

	CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "folded",
	    "--by-cgroup");
	tap_ok(c.status == 0 && !*c.err && !strcmp(c.out, kby_cgroup),
	       "--by-cgroup, folded: the cgroup's path first, [cgroup ID], "
	       "[no cgroup]%s%s", strcmp(c.out, kby_cgroup) ?
	       "\n# got:\n" : "", strcmp(c.out, kby_cgroup) ? c.out : "");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "folded",
	    "--by-cgroup", "--cgroup", "/a");
	tap_ok(c.status == 0 && !strcmp(c.out, "/a/b;" KSTACK " 1\n/a;"
					KSTACK " 1\n"),
	       "--by-cgroup --cgroup /a: the two cgroups apart");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "svg", "--by-cgroup",
	    "-o", tmp("k.svg"));
	tap_ok(c.status == 0 && !*c.err, "--by-cgroup, svg: exit 0");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "--by-cgroup");
	tap_ok(c.status == EXIT_USAGE && !*c.out &&
	       !strcmp(c.err, "stackid report: --by-cgroup goes with "
		       "--format folded or svg (text shows each sample's "
		       "cgroup, pprof labels it)\n"),
	       "--by-cgroup with text: usage error, exit 1");
	cmd_free(&c);
	CMD(&c, NULL, "report", "-i", cap, "-n", "-f", "pprof",
	    "--by-cgroup", "-o", tmp("k.pb.gz"));
	tap_ok(c.status == EXIT_USAGE && strstr(c.err, "--by-cgroup goes "
						"with"),
	       "--by-cgroup with pprof: usage error, exit 1");
	cmd_free(&c);
	cg_free(&g);

	/* a cgroup the module could not name (path_len 0), a ';' in one */
	{
		struct cg_frame f = cg_ip(0x1000, STACKID_IP_NO_VMA);
		char *out;
		int r;

		cg_header(&g, STACKID_ABI_VERSION, CG_DEMO_START);
		cg_cgroup(&g, 5, "");
		cg_cgroup(&g, 6, "/x;y");
		cg_sample_k(&g, CG_DEMO_START + 1000, 0, 1, 1, "a",
			    STACKID_SF_USER, 1, &f, 0, 5);
		cg_sample_k(&g, CG_DEMO_START + 2000, 0, 1, 1, "a",
			    STACKID_SF_USER, 1, &f, 0, 6);
		r = report(g.buf, g.len, FORMAT_TEXT, false, &out);
		tap_ok(r == 0 && !strcmp(out, "0.000001 cpu 0 a 1/1 user "
					 "[cgroup 5]\n\t0x1000 (no_vma)\n\n"
					 "0.000002 cpu 0 a 1/1 user /x;y\n"
					 "\t0x1000 (no_vma)\n\n"),
		       "a cgroup record with an empty path: [cgroup ID]");
		free(out);
		save(cap, g.buf, g.len);
		CMD(&c, NULL, "report", "-i", cap, "-f", "folded",
		    "--by-cgroup");
		tap_ok(c.status == 0 && !strcmp(c.out, "/x?y;a;0x1000 1\n"
						"[cgroup 5];a;0x1000 1\n"),
		       "--by-cgroup: ';' in a cgroup path as '?'");
		cmd_free(&c);
		cg_free(&g);
	}
}

/*
 * ABI 2.2: how each user frame was found, why the walk stopped; values
 * a capture may hold but this stackid does not know are numbers.
 */
static void test_how_stop(void)
{
	static const unsigned char id[20] = { 0x22 };
	struct cg_frame f[4] = {
		cg_valid(id, 20, 0x10), cg_valid(id, 20, 0x20),
		cg_valid(id, 20, 0x30), cg_valid(id, 20, 0x40),
	};
	struct stackid_sample *s;
	struct capgen g = { 0 };
	char *out = NULL, *fold = NULL;
	size_t at[2];
	int ret, ret2;

	cg_header(&g, STACKID_ABI_VERSION, 0);
	at[0] = cg_sample(&g, 1000, 0, 1, 1, "how", STACKID_SF_USER, 4, f);
	at[1] = cg_sample(&g, 2000, 0, 1, 1, "how", STACKID_SF_USER, 2, f);
	s = (void *)(g.buf + at[0]);
	s->frames[0].how = STACKID_HOW_REGS;
	s->frames[1].how = STACKID_HOW_TABLE;
	s->frames[2].how = STACKID_HOW_SIGNAL;
	s->frames[3].how = 200;
	s->stop = STACKID_STOP_NO_ROW;
	s = (void *)(g.buf + at[1]);
	s->frames[1].how = STACKID_HOW_REGS;
	s->stop = 99;
	ret = report(g.buf, g.len, FORMAT_TEXT, false, &out);
	ret2 = report(g.buf, g.len, FORMAT_FOLDED, false, &fold);
	tap_ok(!ret && out && strstr(out, "+0x10\n\t") &&
	       strstr(out, "+0x20 [table]\n") &&
	       strstr(out, "+0x30 [signal]\n") &&
	       strstr(out, "+0x40 [how 200]\n\t-- stop: no_row\n\n") &&
	       strstr(out, "+0x20 [regs]\n\t-- stop 99\n\n"),
	       "text: how frames were found (not fp, not the first frame's "
	       "regs), why walks stopped, unknown values as numbers");
	tap_ok(!ret2 && fold && !strstr(fold, "[") && !strstr(fold, "stop"),
	       "folded: unchanged by how and stop");
	if (!ret && out && !strstr(out, "[table]"))
		printf("# %s", out);
	free(out);
	free(fold);
	cg_free(&g);
}

/* How many records of @type the capture @g holds. */
static unsigned int count_type(const struct capgen *g, uint16_t type)
{
	size_t off = sizeof(struct capture_hdr);
	unsigned int n = 0;

	while (off + sizeof(struct stackid_record_hdr) <= g->len) {
		struct stackid_record_hdr h;

		memcpy(&h, g->buf + off, sizeof(h));
		if (h.size < sizeof(h))
			break;
		n += h.type == type;
		off += h.size;
	}
	return n;
}

static unsigned int nwide_of(const struct capgen *w)
{
	return count_type(w, STACKID_REC_SAMPLE);
}

/*
 * One process on two CPUs, 40 samples of stacks 4 to 7 frames deep that
 * share their callers; another process and a wide frame now and then.
 */
static void delta_demo(struct capgen *g)
{
	static const unsigned char a[3] = { 0xa1, 2, 3 }, b[3] = { 0xb1, 2, 3 };
	struct cg_frame f[8];
	unsigned int i, k, n;

	cg_header(g, STACKID_ABI_VERSION, CG_DEMO_START);
	cg_path(g, a, sizeof(a), "/usr/bin/deltaprog");
	cg_path(g, b, sizeof(b), "/usr/lib/libdelta.so");
	for (i = 0; i < 40; i++) {
		n = 4 + i % 4;
		for (k = 0; k < n; k++)
			f[k] = k < 2 ? cg_valid(b, sizeof(b), 0x100 + i % 3 + k) :
				       cg_valid(a, sizeof(a), 0x1000 * k);
		if (i % 13 == 5)
			f[1] = cg_valid(b, sizeof(b), 1ULL << 44);
		cg_sample(g, CG_DEMO_START + 1 + i, i % 2, i % 10 == 9 ? 8 : 7,
			  7, "deltaprog", STACKID_SF_USER, n, f);
	}
}

/*
 * ABI 2.4's packed samples report exactly as the same samples with
 * 16-byte frames, in every format, and a frame that does not pack keeps
 * its sample wide.
 */
static void test_packed(void)
{
	static const enum report_format fmts[] = {
		FORMAT_TEXT, FORMAT_FOLDED, FORMAT_PPROF, FORMAT_SVG,
	};
	static const char *const names[] = { "text", "folded", "pprof", "svg" };
	static const unsigned char id[3] = { 1, 2, 3 };
	void (*builders[])(struct capgen *) = { cg_demo, cg_kdemo,
						delta_demo };
	static const char *const bnames[] = { "demo", "kernel", "delta" };
	unsigned int b, i, nwide, npacked;

	for (b = 0; b < ARRAY_SIZE(builders); b++) {
		struct capgen w = { 0 }, p = { .packed = true };
		struct capgen d = { .packed = true, .delta = true };
		unsigned int ndelta;

		builders[b](&w);
		builders[b](&p);
		builders[b](&d);
		ndelta = count_type(&d, STACKID_REC_SAMPLE_DELTA);
		/* the delta demo's wide samples: 3 */
		tap_ok(count_type(&d, STACKID_REC_SAMPLE_PACKED) + ndelta ==
		       count_type(&p, STACKID_REC_SAMPLE_PACKED) &&
		       (b < 2 || (ndelta > nwide_of(&w) / 2 &&
				  d.len < p.len)),
		       "%s capture with delta samples: %u of %u, %zu bytes "
		       "instead of %zu", bnames[b], ndelta, nwide_of(&w),
		       d.len, p.len);
		nwide = count_type(&w, STACKID_REC_SAMPLE);
		npacked = count_type(&p, STACKID_REC_SAMPLE_PACKED);
		tap_ok(nwide && (npacked == nwide || b == 2) &&
		       (!count_type(&p, STACKID_REC_SAMPLE) || b == 2) &&
		       p.len < w.len,
		       "%s capture packed: %u of %u samples, %zu bytes "
		       "instead of %zu", bnames[b], npacked, nwide,
		       p.len, w.len);
		for (i = 0; i < ARRAY_SIZE(fmts); i++) {
			char *ow = NULL, *op = NULL;
			int rw, rp;

			rw = report(w.buf, w.len, fmts[i], false, &ow);
			rp = report(p.buf, p.len, fmts[i], false, &op);
			tap_ok(rw == 0 && rp == 0 && ow && op && *ow &&
			       !strcmp(ow, op), "%s capture, %s: packed "
			       "samples report as 16-byte ones",
			       bnames[b], names[i]);
			free(op);
			op = NULL;
			rp = report(d.buf, d.len, fmts[i], false, &op);
			tap_ok(rw == 0 && rp == 0 && ow && op && *ow &&
			       !strcmp(ow, op), "%s capture, %s: delta "
			       "samples report as whole ones",
			       bnames[b], names[i]);
			free(ow);
			free(op);
		}
		cg_free(&w);
		cg_free(&p);
		cg_free(&d);
	}

	/* the limits: 2^44 - 1 packs, 2^44 does not; addresses 2^56 */
	{
		struct capgen p = { .packed = true };
		struct cg_frame f[2];
		char *out = NULL;
		int r;

		cg_header(&p, STACKID_ABI_VERSION, CG_DEMO_START);
		f[0] = cg_valid(id, sizeof(id), (1ULL << 44) - 1);
		f[1] = cg_ip((1ULL << 56) - 1, STACKID_IP_NO_VMA);
		cg_sample(&p, CG_DEMO_START + 1, 0, 1, 1, "a",
			  STACKID_SF_USER, 2, f);
		f[0] = cg_valid(id, sizeof(id), 1ULL << 44);
		cg_sample(&p, CG_DEMO_START + 2, 0, 1, 1, "b",
			  STACKID_SF_USER, 1, f);
		f[0] = cg_ip(1ULL << 56, STACKID_IP_NO_VMA);
		cg_sample(&p, CG_DEMO_START + 3, 0, 1, 1, "c",
			  STACKID_SF_USER, 1, f);
		tap_ok(count_type(&p, STACKID_REC_SAMPLE_PACKED) == 1 &&
		       count_type(&p, STACKID_REC_SAMPLE) == 2,
		       "a file offset of 2^44 or an address of 2^56 keeps its "
		       "sample wide; 2^44 - 1 and 2^56 - 1 pack");
		r = report(p.buf, p.len, FORMAT_FOLDED, false, &out);
		tap_ok(r == 0 && out &&
		       strstr(out, "a;0xffffffffffffff;010203+0xfffffffffff 1\n") &&
		       strstr(out, "b;010203+0x100000000000 1\n") &&
		       strstr(out, "c;0x100000000000000 1\n"),
		       "the packed limits come back exactly");
		free(out);
		cg_free(&p);
	}
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
	test_kernel();
	test_kthreads();
	test_how_stop();
	test_large();
	test_packed();
	snprintf(rm, sizeof(rm), "rm -rf '%s'", tmpdir);
	if (system(rm))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
