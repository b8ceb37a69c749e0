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
#include <fcntl.h>
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
#include <sys/stat.h>

#include "capdir.h"
#include "push.h"
#include "tool.h"
#include "util.h"

#define STATE_FILE	".stackid-pushed"
#define SPOOL_DIR	".spool"

static const char usage[] =
"usage: stackid push --url URL [--name NAME] [--label K=V]... [--spool DIR]\n"
"                    [--spool-max BYTES] [--retries N] [--backoff SECONDS]\n"
"                    [--timeout SECONDS] [--series-labels LIST] [--step S]\n"
"                    [--credentials FILE] [--no-symbols] [--debug-dir DIR]\n"
"                    FILE... | --dir DIR [--follow [--interval SECONDS]]\n"
"\n"
"Send captures, symbolized on this host, as pprof to a Grafana Pyroscope\n"
"server: POST URL/ingest?name=NAME{K=V,...}&from=..&until=..&format=pprof\n"
"for each STEP seconds of a capture that has samples. Every frame is\n"
"named as `stackid report --format folded` names it, the process name\n"
"(comm) is the outermost frame: the server's flame graph is the folded\n"
"report's.\n"
"\n"
"  -u, --url URL          the server, e.g. http://pyroscope:4040\n"
"  -N, --name NAME        application name (default stackid.cpu):\n"
"                         A-Z a-z 0-9 _ . - only\n"
"  -l, --label K=V        a label of every profile (repeatable): K of\n"
"                         [A-Za-z_][A-Za-z0-9_]*, not __*, service_name,\n"
"                         app_name or pyroscope_spy; V UTF-8, without\n"
"                         control characters or , { } = \" \\\n"
"  -L, --series-labels LIST\n"
"                         sample labels, comma-separated, from cgroup,\n"
"                         comm, pid, tid, cpu (default none): each value\n"
"                         makes a series of its own, and the server takes\n"
"                         5,000 series per tenant by default\n"
"      --step SECONDS     one profile per STEP s of a capture (default 1)\n"
"  -C, --credentials FILE basic auth: the first line of FILE is\n"
"                         USER:PASSWORD (default: the environment's\n"
"                         STACKID_PUSH_CREDENTIALS, if set)\n"
"  -s, --spool DIR        keep what the server cannot take in DIR, and\n"
"                         send it when it is back (default with --dir:\n"
"                         DIR/.spool; without: none)\n"
"  -S, --spool-max BYTES  bound of the spool (K, M, G; default 256M): the\n"
"                         oldest profiles are dropped, and counted\n"
"  -r, --retries N        tries after the first failed one (default 3)\n"
"  -b, --backoff SECONDS  first wait before a retry, doubled each time up\n"
"                         to 30 s (default 1)\n"
"  -t, --timeout SECONDS  per request (default 30)\n"
"  -n, --no-symbols       name frames BUILDID+0xOFFSET (the mappings keep\n"
"                         build-ids and file offsets)\n"
"      --debug-dir DIR    separate debug files under DIR/.build-id\n"
"  -D, --dir DIR          push the closed captures of `stackid record\n"
"                         --rotate` in DIR not pushed yet\n"
"  -f, --follow           with --dir: go on until SIGINT/SIGTERM\n"
"  -i, --interval SECONDS with --follow: how often to look (default 5)\n"
"  -h, --help             this help\n"
"\n"
"Refused connections, timeouts, 429 and 5xx answers are retried, then\n"
"spooled; other answers (4xx) are counted as rejected and dropped. Each\n"
"spooled profile is sent on its own: one the server cannot take yet\n"
"stays, and the next is tried. SIGINT and SIGTERM end waits,\n"
"transfers and the reading of a capture within a second; what was not\n"
"sent is spooled, and a capture cut short is pushed again by the next\n"
"run (--dir). Counts go to stderr at the end.\n"
"\n"
"Exit status: 0 every profile sent or spooled, 1 usage, 2 a profile\n"
"rejected or dropped, or a system error, 3 a bad capture (with\n"
"--follow too: the worst seen).\n";

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

/* "cgroup,pid,...": PPROF_L_* bits, or -1. */
static int series_arg(const char *s)
{
	static const struct { const char *name; int bit; } names[] = {
		{ "pid", PPROF_L_PID }, { "tid", PPROF_L_TID },
		{ "cpu", PPROF_L_CPU }, { "comm", PPROF_L_COMM },
		{ "cgroup", PPROF_L_CGROUP }, { "none", 0 },
	};
	int bits = 0;
	size_t n, i;

	while (*s) {
		n = strcspn(s, ",");
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n &&
			    !strncmp(s, names[i].name, n))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		bits |= names[i].bit;
		s += n + (s[n] == ',');
	}
	return bits;
}

/* USER:PASSWORD from the first line of @path, a file others cannot read. */
static char *read_credentials(const char *path)
{
	char line[1024];
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "stackid push: credentials %s: %s\n", path,
			fd < 0 || errno ? strerror(errno) :
			"not a regular file");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (st.st_mode & 004) {
		fprintf(stderr, "stackid push: credentials %s: readable by "
			"everyone (mode %04o); chmod o-r it\n", path,
			(unsigned int)(st.st_mode & 07777));
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f || !fgets(line, sizeof(line), f))
		line[0] = 0;
	if (f)
		fclose(f);
	else
		close(fd);
	line[strcspn(line, "\r\n")] = 0;
	if (!strchr(line, ':')) {
		fprintf(stderr, "stackid push: credentials %s: the first line "
			"is not USER:PASSWORD\n", path);
		return NULL;
	}
	return xstrdup(line);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *read_state(const char *dir)
{
	char path[4096], line[512];
	struct stat st;
	FILE *f = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		  O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		f = fdopen(fd, "r");
	if (!f) {
		if (fd >= 0)
			close(fd);
		return xstrdup("");
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	return xstrdup(line);
}

/* The state, through a new file of ours (never one planted there). */
static int write_state(const char *dir, const char *name)
{
	char path[4096], tmp[4200];
	FILE *f = NULL;
	int fd, tries;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	for (tries = 0; tries < 2; tries++) {
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_CLOEXEC, 0640);
		if (fd >= 0 || errno != EEXIST)
			break;
		unlink(tmp);	/* left by a run that died, or planted */
	}
	if (fd >= 0 && !(f = fdopen(fd, "w")))
		close(fd);
	if (!f || fprintf(f, "%s\n", name) < 0 || fclose(f) ||
	    rename(tmp, path) < 0) {
		int err = errno;

		if (fd >= 0)
			unlink(tmp);
		fprintf(stderr, "stackid: push: %s: %s\n", path,
			strerror(err));
		return EXIT_SYSTEM;
	}
	return 0;
}

/* A capture directory: ours or root's, and nobody else may write it. */
static int check_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "stackid: push: %s: %s\n", dir,
			errno && !S_ISDIR(st.st_mode) ? strerror(errno) :
			"not a directory");
		return EXIT_SYSTEM;
	}
	if ((st.st_uid != geteuid() && st.st_uid != 0) ||
	    (st.st_mode & 022)) {
		fprintf(stderr, "stackid: push: %s: owned by uid %u, mode "
			"%04o: it must be ours or root's, and writable by its "
			"owner alone\n", dir, (unsigned int)st.st_uid,
			(unsigned int)(st.st_mode & 07777));
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
	if (n)		/* qsort(NULL, 0) is undefined */
		qsort(names, n, sizeof(char *), by_name);
	for (i = 0; i < n && !stop; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		r = pusher_capture(p, path);
		if (r == PUSH_STOPPED)
			break;	/* not pushed: the next run does */
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

/* The worse of two exit statuses: a bad capture, then a system error. */
static int worse(int a, int b)
{
	if (a == EXIT_DATA || b == EXIT_DATA)
		return EXIT_DATA;
	return a ? a : b;
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
		{ "series-labels", required_argument, NULL, 'L' },
		{ "step", required_argument, NULL, 'T' },
		{ "credentials", required_argument, NULL, 'C' },
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
		.step_s = 1,
		.stop = &stop,
		.ro = { .symbols = true, .debuginfod = true },
	};
	const char *why, *creds = NULL, *env_creds, *keep;
	char *userpwd = NULL;
	int series;
	struct sigaction sa = { .sa_handler = on_signal };
	const struct push_stats *st;
	const char *dir = NULL;
	char *spool = NULL;
	uint64_t interval = 5000;
	struct pusher *p;
	bool follow = false;
	char *end;
	long v;
	int ch, ret = 0, i, r;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "u:N:l:L:C:s:S:r:b:t:nD:fi:h", opts,
				 NULL)) != -1) {
		switch (ch) {
		case 'u':
			o.url = optarg;
			break;
		case 'N':
			why = push_check_name(optarg);
			if (why) {
				fprintf(stderr, "stackid push: bad name '%s': "
					"%s\n", optarg, why);
				return EXIT_USAGE;
			}
			o.name = optarg;
			break;
		case 'L':
			series = series_arg(optarg);
			if (series < 0)
				return bad("series labels (cgroup, comm, pid, "
					   "tid, cpu)", optarg);
			o.series_labels = series;
			break;
		case 'T':
			v = strtol(optarg, &end, 10);
			if (*optarg < '1' || *optarg > '9' || *end ||
			    v > 86400)
				return bad("step (1 to 86400 s)", optarg);
			o.step_s = v;
			break;
		case 'C':
			creds = optarg;
			break;
		case 'l':
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
	/* labels against the series labels chosen, wherever they came */
	for (i = 0; i < (int)o.nlabels; i++) {
		why = push_check_label(o.labels[i], o.series_labels);
		if (why) {
			fprintf(stderr, "stackid push: bad label '%s': %s\n",
				o.labels[i], why);
			free(o.labels);
			return EXIT_USAGE;
		}
	}
	keep = getenv("STACKID_SYMBOLS_KEEP");
	if (keep && *keep) {
		double k = strtod(keep, &end);

		if (*end || !(k >= 0.001 && k <= 86400)) {
			fprintf(stderr, "stackid push: STACKID_SYMBOLS_KEEP='%s': "
				"seconds from 0.001 to 86400 expected\n", keep);
			free(o.labels);
			return EXIT_USAGE;
		}
		o.sym_keep_ns = (uint64_t)(k * 1e9);
	}
	env_creds = getenv("STACKID_PUSH_CREDENTIALS");
	if (env_creds && !*env_creds)
		env_creds = NULL;
	if (creds) {
		userpwd = read_credentials(creds);
	} else if (env_creds) {
		userpwd = xstrdup(env_creds);
		if (!strchr(userpwd, ':')) {
			fprintf(stderr, "stackid push: STACKID_PUSH_CREDENTIALS"
				" is not USER:PASSWORD\n");
			free(userpwd);
			userpwd = NULL;
		}
	}
	if ((creds || env_creds) && !userpwd) {
		free(o.labels);
		return EXIT_USAGE;
	}
	o.userpwd = userpwd;
	if (dir && check_dir(dir)) {
		free(userpwd);
		free(o.labels);
		return EXIT_SYSTEM;
	}
	if (dir && !o.spool) {
		spool = xmalloc(strlen(dir) + sizeof("/" SPOOL_DIR));
		sprintf(spool, "%s/" SPOOL_DIR, dir);
		o.spool = spool;
	}
	p = pusher_new(&o, stderr);
	if (!p) {
		free(userpwd);
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
		/* stopped while it was read: neither sent nor spooled */
		ret = worse(ret, r == PUSH_STOPPED ? EXIT_SYSTEM : r);
	}
	while (dir && !stop) {
		/* --follow too: a bad capture is in the exit status */
		ret = worse(ret, push_dir(p, dir));
		pusher_flush(p);
		if (!follow)
			break;
		sleep_interruptible(interval);
	}
	st = pusher_stats(p);
	fprintf(stderr, "stackid: push: %" PRIu64 " sent, %" PRIu64 " sent "
		"from the spool, %" PRIu64 " retries, %" PRIu64 " spooled, %"
		PRIu64 " dropped, %" PRIu64 " rejected, %" PRIu64 " bad "
		"captures, %" PRIu64 " left in the spool; %" PRIu64
		" build-ids read for symbols%s\n", st->sent,
		st->from_spool, st->retries, st->spooled, st->dropped,
		st->rejected, st->failed, st->left, st->symbol_reads,
		stop ? " (stopped by a signal)" : "");
	if (st->dropped || st->rejected)
		ret = worse(ret, EXIT_SYSTEM);
	pusher_free(p);
	free(userpwd);
	free(spool);
	free(o.labels);
	return ret;
}
