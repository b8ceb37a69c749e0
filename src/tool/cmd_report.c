// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid report` command line.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "report.h"
#include "util.h"

static const char usage[] =
"usage: stackid report [-i FILE] [-o FILE] [--format text|folded|pprof|svg]\n"
"                      [--no-symbols] [--offsets] [--lines] [--no-demangle]\n"
"                      [--debug-dir DIR] [--cgroup PATH] [--by-cgroup]\n"
"                      [--no-kthreads]\n"
"\n"
"Print a capture written by `stackid record`.\n"
"\n"
"  -i, --input FILE     the capture (default stackid.cap; - for stdin)\n"
"  -o, --output FILE    write the report to FILE (default: stdout)\n"
"  -f, --format text    one block per sample, frames innermost first\n"
"                       (the default)\n"
"  -f, --format folded  one line per distinct stack, outermost first,\n"
"                       with its count: input for flamegraph.pl\n"
"  -f, --format pprof   a gzip-compressed pprof profile (go tool pprof,\n"
"                       Pyroscope, Parca): one mapping per build-id,\n"
"                       labels pid, tid, cpu, comm, cgroup\n"
"  -f, --format svg     an interactive flame graph (self-contained SVG:\n"
"                       click to zoom, Search, tooltips)\n"
"  -n, --no-symbols     print frames as BUILDID+0xOFFSET\n"
"  -O, --offsets        print symbols as function+0xOFFSET\n"
"  -l, --lines          source file:line and inlined functions (DWARF);\n"
"                       inlined functions become frames of their own\n"
"      --no-demangle    leave C++ names mangled\n"
"      --debug-dir DIR  separate debug files under DIR/.build-id\n"
"                       (default /usr/lib/debug)\n"
"      --cgroup PATH    only the samples of cgroup PATH and those below\n"
"                       it, as the capture names cgroups (/system.slice);\n"
"                       a leading /sys/fs/cgroup is dropped\n"
"      --by-cgroup      folded, svg: each stack under its cgroup's path\n"
"      --no-kthreads    leave out the samples of kernel threads and\n"
"                       io_uring/vhost workers (kernel stacks only, their\n"
"                       name in brackets: [kworker/0:1], flag kthread)\n"
"  -h, --help           this help\n"
"\n"
"Symbols come from the files the capture names for each build-id, their\n"
"debug files (debuglink, DIR/.build-id), then from debuginfod when\n"
"DEBUGINFOD_URLS is set (a server that cannot be reached is reported\n"
"once, then left alone); a file is used only if its build-id matches.\n"
"Kernel frames are named from the capture alone (the module stores the\n"
"function names): text FUNCTION+0xOFF [kernel] or [MODULE]; folded and\n"
"svg put them after the user frames as FUNCTION_[k] or FUNCTION [MODULE]_[k].\n"
"\n"
"Exit status: 0 ok, 1 usage, 2 file or system error, 3 bad capture data\n"
"(what came before the first bad record is still printed).\n";

/*
 * --cgroup PATH as the capture names cgroups: from the hierarchy's root,
 * with one leading '/' and none at the end ("/" for the root itself);
 * /sys/fs/cgroup, where cgroup v2 is mounted, dropped from its front.
 */
static char *cgroup_arg(const char *arg)
{
	static const char mnt[] = "/sys/fs/cgroup";
	size_t n = sizeof(mnt) - 1, len;
	char *p;

	if (!strncmp(arg, mnt, n) && (!arg[n] || arg[n] == '/'))
		arg += n;
	while (*arg == '/')
		arg++;
	p = xmalloc(strlen(arg) + 2);
	p[0] = '/';
	strcpy(p + 1, arg);
	len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = 0;
	return p;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "no-symbols", no_argument, NULL, 'n' },
		{ "offsets", no_argument, NULL, 'O' },
		{ "debug-dir", required_argument, NULL, 'D' },
		{ "lines", no_argument, NULL, 'l' },
		{ "no-demangle", no_argument, NULL, 'M' },
		{ "cgroup", required_argument, NULL, 'C' },
		{ "by-cgroup", no_argument, NULL, 'B' },
		{ "no-kthreads", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct report_opts o = {
		.format = FORMAT_TEXT,
		.symbols = true,
		.debuginfod = true,
	};
	static const char *const names[] = {
		[FORMAT_TEXT] = "text",
		[FORMAT_FOLDED] = "folded",
		[FORMAT_PPROF] = "pprof",
		[FORMAT_SVG] = "svg",
	};
	const char *in = "stackid.cap", *outname = NULL;
	char *cgroup = NULL;
	struct capture *c;
	FILE *out = stdout;
	size_t i;
	int ch, ret;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "i:o:f:nOlh", opts, NULL)) != -1) {
		switch (ch) {
		case 'i':
			in = optarg;
			break;
		case 'o':
			outname = optarg;
			break;
		case 'f':
			for (i = 0; i < ARRAY_SIZE(names); i++)
				if (!strcmp(optarg, names[i]))
					break;
			if (i == ARRAY_SIZE(names)) {
				fprintf(stderr, "stackid report: unknown "
					"format '%s' (text, folded, pprof, svg)\n",
					optarg);
				free(cgroup);
				return EXIT_USAGE;
			}
			o.format = i;
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
		case 'l':
			o.lines = true;
			break;
		case 'M':
			o.no_demangle = true;
			break;
		case 'C':
			free(cgroup);
			cgroup = cgroup_arg(optarg);
			o.cgroup = cgroup;
			break;
		case 'B':
			o.by_cgroup = true;
			break;
		case 'K':
			o.no_kthreads = true;
			break;
		case 'h':
			fputs(usage, stdout);
			free(cgroup);
			return EXIT_OK;
		default:
			fputs(usage, stderr);
			free(cgroup);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "stackid report: unexpected argument '%s'\n%s",
			argv[optind], usage);
		free(cgroup);
		return EXIT_USAGE;
	}
	if (o.by_cgroup && o.format != FORMAT_FOLDED &&
	    o.format != FORMAT_SVG) {
		fprintf(stderr, "stackid report: --by-cgroup goes with "
			"--format folded or svg (text shows each sample's "
			"cgroup, pprof labels it)\n");
		free(cgroup);
		return EXIT_USAGE;
	}
	c = xmalloc(sizeof(*c));
	ret = capture_open(c, in);
	if (ret)
		fprintf(stderr, "stackid: %s: %s\n", in, c->err);
	if (!ret && outname && strcmp(outname, "-")) {
		out = fopen(outname, "w");
		if (!out) {
			fprintf(stderr, "stackid: %s: %s\n", outname,
				strerror(errno));
			ret = EXIT_SYSTEM;
		}
	}
	if (!ret)
		ret = report_run(c, &o, out, stderr);
	if (out && out != stdout && fclose(out) && !ret) {
		fprintf(stderr, "stackid: %s: %s\n", outname,
			strerror(errno));
		ret = EXIT_SYSTEM;
	}
	capture_close(c);
	free(c);
	free(cgroup);
	return ret;
}
