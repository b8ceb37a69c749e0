// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of `stackid report --format folded --no-symbols`: writes a
 * synthetic capture (report/bench.h) to $TMPDIR, reports it in-process
 * (the reader in file mode, output to /dev/null) and, given the path of
 * the stackid binary, through the command too; prints records/second.
 *
 *   bench_report [SAMPLES [DEPTH [STACKS [STACKID]]]]
 *
 * STACKS distinct stacks (0: every sample its own stack).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tool/tool.h"
#include "tool/report.h"
#include "report/bench.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void result(const char *what, double secs, uint64_t n, uint64_t bytes)
{
	printf("%-28s %8.3f s  %12.0f records/s  %8.1f MB/s\n", what, secs,
	       n / secs, bytes / secs / 1e6);
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg = BENCH_DEFAULTS;
	struct report_opts o = { .format = FORMAT_FOLDED };
	const char *dir = getenv("TMPDIR");
	char path[4096];
	struct capture *c;
	struct stat st;
	double t;
	FILE *dn;
	int r;

	if (argc > 1)
		cfg.samples = strtoull(argv[1], NULL, 0);
	if (argc > 2)
		cfg.depth = strtoul(argv[2], NULL, 0);
	if (argc > 3)
		cfg.stacks = strtoul(argv[3], NULL, 0);
	snprintf(path, sizeof(path), "%s/stackid-bench.%d.cap",
		 dir ? dir : "/tmp", (int)getpid());
	printf("capture: %llu samples of %u frames, %u distinct stacks%s\n",
	       (unsigned long long)cfg.samples, cfg.depth, cfg.stacks,
	       cfg.stacks ? "" : " (all distinct)");
	t = now();
	if (bench_write(path, &cfg) || stat(path, &st))
		return 1;
	printf("written in %.2f s: %s, %.1f MB\n", now() - t, path,
	       st.st_size / 1e6);

	c = malloc(sizeof(*c));
	dn = fopen("/dev/null", "w");
	t = now();
	r = capture_open(c, path);
	if (!r)
		r = report_run(c, &o, dn, stderr);
	t = now() - t;
	capture_close(c);
	free(c);
	fclose(dn);
	if (r) {
		unlink(path);
		return 1;
	}
	result("in-process report_run", t, cfg.samples, st.st_size);

	if (argc > 4) {
		pid_t pid;
		int ws;

		t = now();
		pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			execl(argv[4], argv[4], "report", "-i", path,
			      "--format", "folded", "--no-symbols", NULL);
			_exit(127);
		}
		waitpid(pid, &ws, 0);
		t = now() - t;
		if (!WIFEXITED(ws) || WEXITSTATUS(ws)) {
			fprintf(stderr, "bench_report: %s failed\n", argv[4]);
			unlink(path);
			return 1;
		}
		result("stackid report (process)", t, cfg.samples, st.st_size);
	}
	unlink(path);
	return 0;
}
