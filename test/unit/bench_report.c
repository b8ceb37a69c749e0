// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of `stackid report --format folded --no-symbols`: writes a
 * synthetic capture (report/bench.h: a busy host's shape) to $TMPDIR,
 * pinned to one CPU reports it in-process (the reader in file mode,
 * output to /dev/null) and, given the path of the stackid binary,
 * through the command too, REPS times each; prints the median records
 * per second by wall-clock time, and the user time of that run. The
 * capture is read once first so that it is in the page cache.
 *
 *   bench_report [SAMPLES [DEPTH [STACKS [STACKID]]]]
 *
 * STACKS distinct stacks (0: every sample its own stack). BENCH_CPU
 * (default: the first CPU this process may run on) and BENCH_REPS (3).
 * A figure, not a test: nothing is held against a threshold.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tool/tool.h"
#include "tool/report.h"
#include "report/bench.h"

#define MAX_REPS	99

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double user_s(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
}

struct run {
	double wall, user;
};

static int by_wall(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return x->wall < y->wall ? -1 : x->wall > y->wall;
}

/* The median run of @n, printed; returns its records/s. */
static double result(const char *what, struct run *r, int n, uint64_t recs,
		     uint64_t bytes)
{
	struct run m;

	qsort(r, n, sizeof(*r), by_wall);
	m = r[n / 2];
	printf("%-26s %7.3f s wall (%.3f..%.3f), %7.3f s user  "
	       "%10.0f records/s  %7.1f MB/s\n", what, m.wall, r[0].wall,
	       r[n - 1].wall, m.user, recs / m.wall, bytes / m.wall / 1e6);
	return recs / m.wall;
}

static int in_process(const char *path, struct run *r)
{
	struct report_opts o = { .format = FORMAT_FOLDED };
	struct capture *c = malloc(sizeof(*c));
	FILE *dn = fopen("/dev/null", "w");
	double t, u;
	int ret;

	if (!c || !dn)
		return 1;
	t = now();
	u = user_s(RUSAGE_SELF);
	ret = capture_open(c, path);
	if (!ret)
		ret = report_run(c, &o, dn, stderr);
	r->wall = now() - t;
	r->user = user_s(RUSAGE_SELF) - u;
	capture_close(c);
	free(c);
	fclose(dn);
	return ret;
}

static int command(const char *stackid, const char *path, struct run *r)
{
	double t, u;
	pid_t pid;
	int ws;

	t = now();
	u = user_s(RUSAGE_CHILDREN);
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		execl(stackid, stackid, "report", "-i", path,
		      "--format", "folded", "--no-symbols", NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &ws, 0) != pid)
		return 1;
	r->wall = now() - t;
	r->user = user_s(RUSAGE_CHILDREN) - u;
	if (!WIFEXITED(ws) || WEXITSTATUS(ws)) {
		fprintf(stderr, "bench_report: %s failed\n", stackid);
		return 1;
	}
	return 0;
}

/* Pin to BENCH_CPU, or the first CPU we may run on; returns it. */
static int pin(void)
{
	const char *e = getenv("BENCH_CPU");
	cpu_set_t set;
	int cpu = -1, i;

	if (e && *e) {
		cpu = atoi(e);
	} else if (!sched_getaffinity(0, sizeof(set), &set)) {
		for (i = 0; i < CPU_SETSIZE && cpu < 0; i++)
			if (CPU_ISSET(i, &set))
				cpu = i;
	}
	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -1 : cpu;
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg = BENCH_DEFAULTS;
	const char *dir = getenv("TMPDIR"), *e = getenv("BENCH_REPS");
	struct run runs[MAX_REPS];
	int reps = e && *e ? atoi(e) : 3, cpu, i, r = 0;
	char path[4096], buf[1 << 16];
	struct stat st;
	double t, rate;
	FILE *f;

	if (reps < 1 || reps > MAX_REPS)
		reps = 3;
	if (argc > 1)
		cfg.samples = strtoull(argv[1], NULL, 0);
	if (argc > 2)
		cfg.depth = strtoul(argv[2], NULL, 0);
	if (argc > 3)
		cfg.stacks = strtoul(argv[3], NULL, 0);
	snprintf(path, sizeof(path), "%s/stackid-bench.%d.cap",
		 dir ? dir : "/tmp", (int)getpid());
	printf("capture: %llu samples of %u user frames (a third with "
	       "kernel frames), %u distinct call paths%s, %u rings\n",
	       (unsigned long long)cfg.samples, cfg.depth, cfg.stacks,
	       cfg.stacks ? "" : " (all distinct)", cfg.rings);
	t = now();
	if (bench_write(path, &cfg) || stat(path, &st))
		return 1;
	printf("written in %.2f s: %s, %.1f MB\n", now() - t, path,
	       st.st_size / 1e6);
	f = fopen(path, "r");
	while (f && fread(buf, 1, sizeof(buf), f) > 0)
		;
	if (f)
		fclose(f);
	cpu = pin();
	printf("on CPU %d, median of %d\n", cpu, reps);

	for (i = 0; i < reps && !r; i++)
		r = in_process(path, &runs[i]);
	if (!r)
		rate = result("in-process report_run", runs, reps,
			      cfg.samples, st.st_size);
	for (i = 0; !r && argc > 4 && i < reps; i++)
		r = command(argv[4], path, &runs[i]);
	if (!r && argc > 4)
		rate = result("stackid report (process)", runs, reps,
			      cfg.samples, st.st_size);
	unlink(path);
	if (r)
		return 1;
	printf("report folded --no-symbols: %.0f records/s (one core)\n",
	       rate);
	return 0;
}
