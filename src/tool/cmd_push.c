// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid push` command line, and the capture directory it follows.
 *
 * With --dir, the closed captures of `stackid record --rotate` (capdir.h
 * names: name order is time order) newer than the last one pushed are
 * pushed in order; the last name pushed is kept in DIR/.stackid-pushed,
 * so a restart goes on where it stopped. --follow keeps doing so until
 * SIGINT or SIGTERM.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capdir.h"
#include "push.h"
#include "tool.h"
#include "util.h"

#define STATE_FILE	".stackid-pushed"
#define SPOOL_DIR	".spool"

static const char usage[] =
"usage: stackid push --url URL [--name NAME] [--label K=V]... [--spool DIR]\n"
"                    [--spool-max BYTES] [--retries N] [--backoff SECONDS]\n"
"                    [--timeout SECONDS] [--no-symbols] [--debug-dir DIR]\n"
"                    FILE... | --dir DIR [--follow [--interval SECONDS]]\n"
"\n"
"Send captures, symbolized on this host, as pprof to a Grafana Pyroscope\n"
"server: POST URL/ingest?name=NAME{K=V,...}&from=..&until=..&format=pprof\n"
"\n"
"  -u, --url URL          the server, e.g. http://pyroscope:4040\n"
"  -N, --name NAME        application name (default stackid.cpu)\n"
"  -l, --label K=V        a label of every profile (repeatable)\n"
"  -s, --spool DIR        keep what the server cannot take in DIR, and\n"
"                         send it first when it is back (default with\n"
"                         --dir: DIR/.spool; without: none)\n"
"  -S, --spool-max BYTES  bound of the spool (K, M, G; default 256M): the\n"
"                         oldest profiles are dropped, and counted\n"
"  -r, --retries N        tries after the first failed one (default 3)\n"
"  -b, --backoff SECONDS  first wait before a retry, doubled each time up\n"
"                         to 30 s (default 1)\n"
"  -t, --timeout SECONDS  per request (default 30)\n"
"  -n, --no-symbols       leave symbolization to the server (build-ids)\n"
"      --debug-dir DIR    separate debug files under DIR/.build-id\n"
"  -D, --dir DIR          push the closed captures of `stackid record\n"
"                         --rotate` in DIR not pushed yet\n"
"  -f, --follow           with --dir: go on until SIGINT/SIGTERM\n"
"  -i, --interval SECONDS with --follow: how often to look (default 5)\n"
"  -h, --help             this help\n"
"\n"
"5xx and 429 answers, refused connections and timeouts are retried, then\n"
"spooled; other answers (4xx) are counted as rejected and dropped.\n"
"Counts go to stderr at the end.\n"
"\n"
"Exit status: 0 every profile sent or spooled, 1 usage, 2 a profile\n"
"rejected or lost, or a system error, 3 a bad capture.\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "stackid push: bad %s '%s'\n", what, arg);
	return EXIT_USAGE;
}

static int ms_arg(const char *s, uint64_t *ms)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || *end || !isfinite(d) || d < 0 || d > 1e6)
		return -1;
	*ms = d * 1000;
	return 0;
}

static uint64_t bytes_arg(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned int shift = 0;

	if (*s < '0' || *s > '9')
		return 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (*end || v > (UINT64_MAX >> shift))
		return 0;
	return (uint64_t)v << shift;
}

static bool good_label(const char *s)
{
	const char *eq = strchr(s, '=');

	return eq && eq > s && eq[1] && !strpbrk(s, ",{}\"");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *read_state(const char *dir)
{
	char path[4096], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, dir);
	f = fopen(path, "r");
	if (!f)
		return xstrdup("");
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	return xstrdup(line);
}

static int write_state(const char *dir, const char *name)
{
	char path[4096], tmp[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", name) < 0 || fclose(f) ||
	    rename(tmp, path) < 0) {
		fprintf(stderr, "stackid: push: %s: %s\n", path,
			strerror(errno));
		return EXIT_SYSTEM;
	}
	return 0;
}

/* Push DIR's closed captures after the last one pushed. */
static int push_dir(struct pusher *p, const char *dir)
{
	size_t pl = strlen(CAPDIR_PREFIX), sl = strlen(CAPDIR_SUFFIX), len;
	char *last = read_state(dir), **names = NULL, path[4096];
	unsigned int n = 0, i;
	struct dirent *e;
	int ret = 0, r;
	DIR *d = opendir(dir);

	if (!d) {
		fprintf(stderr, "stackid: push: %s: %s\n", dir,
			strerror(errno));
		free(last);
		return EXIT_SYSTEM;
	}
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (len <= pl + sl || strncmp(e->d_name, CAPDIR_PREFIX, pl) ||
		    strcmp(e->d_name + len - sl, CAPDIR_SUFFIX) ||
		    strcmp(e->d_name, last) <= 0)
			continue;
		names = xreallocarray(names, n + 1, sizeof(char *));
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(char *), by_name);
	for (i = 0; i < n && !stop; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		r = pusher_capture(p, path);
		if (r && !ret)
			ret = r;
		/* a bad or refused capture would stop us forever: go past */
		if (write_state(dir, names[i]))
			ret = EXIT_SYSTEM;
	}
	while (n)
		free(names[--n]);
	free(names);
	free(last);
	return ret;
}

static void sleep_interruptible(uint64_t ms)
{
	struct timespec ts = { 0, 50000000 };
	uint64_t t;

	for (t = 0; t < ms && !stop; t += 50)
		nanosleep(&ts, NULL);
}

int cmd_push(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "name", required_argument, NULL, 'N' },
		{ "label", required_argument, NULL, 'l' },
		{ "spool", required_argument, NULL, 's' },
		{ "spool-max", required_argument, NULL, 'S' },
		{ "retries", required_argument, NULL, 'r' },
		{ "backoff", required_argument, NULL, 'b' },
		{ "timeout", required_argument, NULL, 't' },
		{ "no-symbols", no_argument, NULL, 'n' },
		{ "debug-dir", required_argument, NULL, 'G' },
		{ "dir", required_argument, NULL, 'D' },
		{ "follow", no_argument, NULL, 'f' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct push_opts o = {
		.name = "stackid.cpu",
		.retries = 3,
		.backoff_ms = 1000,
		.timeout_ms = 30000,
		.spool_max = 256 << 20,
		.ro = { .symbols = true, .debuginfod = true },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	const struct push_stats *st;
	const char *dir = NULL;
	char *spool = NULL;
	uint64_t interval = 5000;
	struct pusher *p;
	bool follow = false;
	char *end;
	long v;
	int ch, ret = 0, r, i;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "u:N:l:s:S:r:b:t:nD:fi:h", opts,
				 NULL)) != -1) {
		switch (ch) {
		case 'u':
			o.url = optarg;
			break;
		case 'N':
			if (!*optarg || strpbrk(optarg, "{}"))
				return bad("name", optarg);
			o.name = optarg;
			break;
		case 'l':
			if (!good_label(optarg))
				return bad("label (K=V)", optarg);
			o.labels = xreallocarray(o.labels, o.nlabels + 1,
						 sizeof(char *));
			o.labels[o.nlabels++] = optarg;
			break;
		case 's':
			o.spool = optarg;
			break;
		case 'S':
			o.spool_max = bytes_arg(optarg);
			if (!o.spool_max)
				return bad("size", optarg);
			break;
		case 'r':
			v = strtol(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || v > 100)
				return bad("retry count", optarg);
			o.retries = v;
			break;
		case 'b':
			if (ms_arg(optarg, &o.backoff_ms))
				return bad("backoff", optarg);
			break;
		case 't':
			if (ms_arg(optarg, &o.timeout_ms) || !o.timeout_ms)
				return bad("timeout", optarg);
			break;
		case 'n':
			o.ro.symbols = false;
			break;
		case 'G':
			o.ro.debug_dir = optarg;
			break;
		case 'D':
			dir = optarg;
			break;
		case 'f':
			follow = true;
			break;
		case 'i':
			if (ms_arg(optarg, &interval) || !interval)
				return bad("interval", optarg);
			break;
		case 'h':
			fputs(usage, stdout);
			return EXIT_OK;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!o.url || (strncmp(o.url, "http://", 7) &&
		       strncmp(o.url, "https://", 8)) ||
	    (dir && optind < argc) || (follow && !dir)) {
		fprintf(stderr, "stackid push: needs --url http(s)://..., and "
			"either FILEs or --dir (--follow needs --dir)\n%s",
			usage);
		return EXIT_USAGE;
	}
	if (dir && !o.spool) {
		spool = xmalloc(strlen(dir) + sizeof("/" SPOOL_DIR));
		sprintf(spool, "%s/" SPOOL_DIR, dir);
		o.spool = spool;
	}
	p = pusher_new(&o, stderr);
	if (!p) {
		free(spool);
		free(o.labels);
		return EXIT_SYSTEM;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* only the spool: send what an earlier run could not */
	if (optind == argc && !dir)
		pusher_flush(p);
	for (i = optind; i < argc && !stop; i++) {
		r = pusher_capture(p, argv[i]);
		if (r && (!ret || r == EXIT_DATA))
			ret = r;
	}
	while (dir && !stop) {
		r = push_dir(p, dir);
		if (r && !follow && (!ret || r == EXIT_DATA))
			ret = r;
		pusher_flush(p);
		if (!follow)
			break;
		sleep_interruptible(interval);
	}
	st = pusher_stats(p);
	fprintf(stderr, "stackid: push: %" PRIu64 " sent, %" PRIu64 " sent "
		"from the spool, %" PRIu64 " retries, %" PRIu64 " spooled, %"
		PRIu64 " dropped, %" PRIu64 " rejected, %" PRIu64 " bad "
		"captures\n", st->sent, st->from_spool, st->retries,
		st->spooled, st->dropped, st->rejected, st->failed);
	if (!ret && (st->dropped || st->rejected))
		ret = EXIT_SYSTEM;
	pusher_free(p);
	free(spool);
	free(o.labels);
	return ret;
}
