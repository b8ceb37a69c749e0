// SPDX-License-Identifier: GPL-2.0
/*
 * stackid: record user stacks from /dev/stackid and report them.
 */
#include <stdio.h>
#include <string.h>

#include <stackid.h>
#include "tool.h"
#include "capture.h"

static const char usage[] =
"usage: stackid record [-F HZ] [-p PID] [--cgroup DIR] [-d SECONDS] [-o FILE]\n"
"       stackid record --rotate SECONDS --dir DIR [--keep N|--max-size B]\n"
"       stackid report [-i FILE] [-o FILE] [--format text|folded|pprof|svg]\n"
"                      [--no-symbols] [--offsets] [--lines] [--cgroup PATH]\n"
"       stackid push --url URL [--label K=V]... FILE...|--dir DIR\n"
"       stackid unwind-table [-v] FILE\n"
"       stackid --help | --version\n"
"\n"
"System-wide sampling of user stacks as ELF build-id + file offset, from\n"
"the stackid kernel module, symbolized later by build-id; kernel stacks\n"
"as function names + offsets, and each sample's cgroup.\n"
"\n"
"  record   sample into a capture file (default stackid.cap), or one\n"
"           file per interval into a directory\n"
"  report   print a capture: text, folded stacks, pprof, flame graph\n"
"  push     send captures as pprof to a Grafana Pyroscope server\n"
"  unwind-table  the unwind table record gives the module for an ELF\n"
"           file, from its call frame information (-v: its rows)\n"
"\n"
"`stackid COMMAND --help` tells more; so does stackid(1).\n"
"\n"
"Exit status: 0 ok, 1 usage, 2 device, file or system error,\n"
"3 bad capture data.\n";

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "push"))
		return cmd_push(argc - 1, argv + 1);
	if (!strcmp(argv[1], "unwind-table"))
		return cmd_cfi(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("stackid %s (module ABI %u.%u, capture format %u)\n",
		       STACKID_VERSION, STACKID_ABI_MAJOR, STACKID_ABI_MINOR,
		       CAPTURE_VERSION);
		return EXIT_OK;
	}
	fprintf(stderr, "stackid: unknown command '%s'\n\n%s", argv[1], usage);
	return EXIT_USAGE;
}
