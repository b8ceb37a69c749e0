// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid record` command line.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stackid.h>
#include "tool.h"
#include "recorder.h"

static const char usage[] =
"usage: stackid record [-F HZ] [-p PID] [-d SECONDS] [-o FILE]\n"
"\n"
"Sample the user stacks of every CPU through " STACKID_DEVICE " into a\n"
"capture file, until SECONDS have passed or SIGINT/SIGTERM (Ctrl-C).\n"
"Needs root or CAP_PERFMON, and the stackid module loaded.\n"
"\n"
"  -F, --freq HZ          sampling frequency (default: the module's)\n"
"  -p, --pid PID          only the process PID (tgid)\n"
"  -d, --duration SECONDS stop after SECONDS (default: at Ctrl-C)\n"
"  -o, --output FILE      the capture (default stackid.cap; - for stdout)\n"
"  -h, --help             this help\n"
"\n"
"Statistics go to stderr at the end: samples, delivered, drops by\n"
"reason, frames by outcome, and the check samples == delivered + drops.\n"
"\n"
"Exit status: 0 ok (also when stopped by a signal), 1 usage, 2 device or\n"
"system error.\n";

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
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct record_opts o = { .out = "stackid.cap", .status = -1 };
	long long v;
	double d;
	char *end;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "F:p:d:o:h", opts, NULL)) != -1) {
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
		case 'd':
			d = strtod(optarg, &end);
			if (end == optarg || *end || !isfinite(d) || d <= 0 ||
			    d > 1e9)
				return bad("duration", optarg);
			o.duration_ns = d * 1e9;
			if (!o.duration_ns)
				o.duration_ns = 1;
			break;
		case 'o':
			o.out = optarg;
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
	return record_run(&o, &real_sysops, stderr);
}
