// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid report` command line.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "report.h"
#include "util.h"

static const char usage[] =
"usage: stackid report [-i FILE] [--format text|folded] [--no-symbols]\n"
"                      [--offsets] [--debug-dir DIR]\n"
"\n"
"Print a capture written by `stackid record`.\n"
"\n"
"  -i, --input FILE     the capture (default stackid.cap; - for stdin)\n"
"  -f, --format text    one block per sample, frames innermost first\n"
"                       (the default)\n"
"  -f, --format folded  one line per distinct stack, outermost first,\n"
"                       with its count: input for flamegraph.pl\n"
"  -n, --no-symbols     print frames as BUILDID+0xOFFSET\n"
"  -O, --offsets        print symbols as function+0xOFFSET\n"
"      --debug-dir DIR  separate debug files under DIR/.build-id\n"
"                       (default /usr/lib/debug)\n"
"  -h, --help           this help\n"
"\n"
"Symbols come from the files the capture names for each build-id, from\n"
"DIR/.build-id, then from debuginfod when DEBUGINFOD_URLS is set; a file\n"
"is used only if its build-id matches.\n"
"\n"
"Exit status: 0 ok, 1 usage, 2 file or system error, 3 bad capture data\n"
"(what came before the first bad record is still printed).\n";

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'f' },
		{ "no-symbols", no_argument, NULL, 'n' },
		{ "offsets", no_argument, NULL, 'O' },
		{ "debug-dir", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct report_opts o = {
		.format = FORMAT_TEXT,
		.symbols = true,
		.debuginfod = true,
	};
	const char *in = "stackid.cap";
	struct capture *c;
	int ch, ret;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "i:f:nOh", opts, NULL)) != -1) {
		switch (ch) {
		case 'i':
			in = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "text")) {
				o.format = FORMAT_TEXT;
			} else if (!strcmp(optarg, "folded")) {
				o.format = FORMAT_FOLDED;
			} else {
				fprintf(stderr, "stackid report: unknown "
					"format '%s' (text or folded)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			o.symbols = false;
			break;
		case 'O':
			o.offsets = true;
			break;
		case 'D':
			o.debug_dir = optarg;
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
		fprintf(stderr, "stackid report: unexpected argument '%s'\n%s",
			argv[optind], usage);
		return EXIT_USAGE;
	}
	c = xmalloc(sizeof(*c));
	ret = capture_open(c, in);
	if (ret)
		fprintf(stderr, "stackid: %s: %s\n", in, c->err);
	else
		ret = report_run(c, &o, stdout, stderr);
	capture_close(c);
	free(c);
	return ret;
}
