// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid record` command line.
 */
#include <getopt.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stackid.h>
#include "tool.h"
#include "recorder.h"

static const char usage[] =
"usage: stackid record [-F HZ] [-p PID] [--cgroup DIR] [-d SECONDS] [-o FILE]\n"
"                      [--no-unwind-tables]\n"
"       stackid record --rotate SECONDS --dir DIR [--keep N]\n"
"                      [--max-size BYTES] [-F HZ] [-p PID] [--cgroup DIR]\n"
"                      [-d SECONDS]\n"
"\n"
"Sample the stacks of every CPU through " STACKID_DEVICE " into a\n"
"capture file, until SECONDS have passed or SIGINT/SIGTERM (Ctrl-C):\n"
"user stacks, and the kernel stack of samples taken in the kernel (the\n"
"module's kernel_frames parameter), with each sample's cgroup.\n"
"Needs root or CAP_PERFMON, and the stackid module loaded.\n"
"\n"
"  -F, --freq HZ          sampling frequency (default: the module's)\n"
"  -p, --pid PID          only the process PID (tgid)\n"
"  -c, --cgroup DIR       only tasks in the cgroup v2 directory DIR and\n"
"                         those below it (/sys/fs/cgroup/system.slice)\n"
"  -d, --duration SECONDS stop after SECONDS (default: at Ctrl-C)\n"
"  -o, --output FILE      the capture, mode 0600 (default stackid.cap; -\n"
"                         for stdout)\n"
"      --no-unwind-tables do not load unwind tables into the module\n"
"                         (see below)\n"
"  -h, --help             this help\n"
"\n"
"Unwind tables: for each file the module names (its build-id's path),\n"
"record compiles the file's call frame information (.eh_frame) and\n"
"loads it into the module, which then walks stacks through code built\n"
"without frame pointers (`stackid unwind-table FILE` shows one). A file\n"
"is used only if its build-id is the one named; each build-id is tried\n"
"once; what came of it is in the statistics. Before sampling starts,\n"
"record loads the tables of the system's libc, dynamic loader, libm,\n"
"libgcc_s and libstdc++ (as this process maps them): stacks through\n"
"them are whole from the first sample; other files' tables come as the\n"
"module names the files.\n"
"\n"
"Continuous mode: one capture per interval in DIR, named\n"
"stackid-YYYYMMDDTHHMMSS.uuuuuuZ.cap (UTC start), written as a hidden\n"
".tmp file and renamed when complete; no record is lost between files.\n"
"Each file holds what its samples need to be reported alone. DIR must\n"
"be root's or yours, not writable by others unless sticky.\n"
"  -r, --rotate SECONDS   close a file and start the next every SECONDS\n"
"  -D, --dir DIR          where (created if missing)\n"
"  -k, --keep N           keep at most N closed files, deleting the oldest\n"
"  -m, --max-size BYTES   keep all captures in DIR under BYTES (suffix\n"
"                         K, M or G; at least 64K), deleting the oldest;\n"
"                         every byte of a file counts\n"
"\n"
"Statistics go to stderr at the end: samples, delivered, drops by\n"
"reason, frames by outcome, and the check samples == delivered + drops.\n"
"Data that is not records is skipped, counted (bytes skipped) and marked\n"
"in the capture; recording goes on.\n"
"On a terminal, a status line shows the records, their rate, the drops\n"
"and (continuous mode) the files; nothing of it goes to a pipe or file.\n"
"\n"
"Exit status: 0 ok (also when stopped by a signal), 1 usage, 2 device or\n"
"system error (what was written is kept, as a capture).\n";

/* An unsigned decimal in [min, max], or -1. */
static long long number(const char *s, long long min, long long max)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoll(s, &end, 10);
	if (*end || v < min || v > max)
		return -1;
	return v;
}

/* BYTES with an optional K, M or G (powers of 1024); 0 if bad. */
static uint64_t size_arg(const char *s)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (*s < '0' || *s > '9')
		return 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return 0;
	return (uint64_t)v << shift;
}

static int seconds(const char *s, uint64_t *ns)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || *end || !isfinite(d) || d <= 0 || d > 1e9)
		return -1;
	*ns = d * 1e9;
	if (!*ns)
		*ns = 1;
	return 0;
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "stackid record: bad %s '%s'\n", what, arg);
	return EXIT_USAGE;
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "rotate", required_argument, NULL, 'r' },
		{ "dir", required_argument, NULL, 'D' },
		{ "keep", required_argument, NULL, 'k' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "no-unwind-tables", no_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct record_opts o = { .out = "stackid.cap", .status = -1,
				  .preload_unwind = true };
	bool out_set = false;
	long long v;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "F:p:c:d:o:r:D:k:m:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'F':
			v = number(optarg, 1, UINT32_MAX);
			if (v < 0)
				return bad("frequency", optarg);
			o.hz = v;
			break;
		case 'p':
			v = number(optarg, 1, INT32_MAX);
			if (v < 0)
				return bad("pid", optarg);
			o.tgid = v;
			break;
		case 'c':
			o.cgroup = optarg;
			break;
		case 'd':
			if (seconds(optarg, &o.duration_ns))
				return bad("duration", optarg);
			break;
		case 'o':
			o.out = optarg;
			out_set = true;
			break;
		case 'r':
			if (seconds(optarg, &o.rotate_ns))
				return bad("rotation interval", optarg);
			break;
		case 'D':
			o.dir = optarg;
			break;
		case 'k':
			v = number(optarg, 1, UINT32_MAX);
			if (v < 0)
				return bad("file count", optarg);
			o.keep = v;
			break;
		case 'm':
			o.max_size = size_arg(optarg);
			if (o.max_size < 65536)
				return bad("size (at least 64K)", optarg);
			break;
		case 'U':
			o.no_unwind = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return EXIT_OK;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "stackid record: unexpected argument '%s'\n%s",
			argv[optind], usage);
		return EXIT_USAGE;
	}
	if (!o.dir != !o.rotate_ns || ((o.keep || o.max_size) && !o.dir) ||
	    (o.dir && out_set)) {
		fprintf(stderr, "stackid record: --rotate and --dir go "
			"together, --keep and --max-size need them, -o does "
			"not go with them\n");
		return EXIT_USAGE;
	}
	return record_run(&o, &real_sysops, stderr);
}
