// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid unwind-table FILE`: the unwind table `stackid record` would
 * load for FILE (cfi.c), to look at.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"
#include "cfi.h"

static const char usage[] =
"usage: stackid unwind-table [-v] FILE\n"
"\n"
"Compile FILE's call frame information (.eh_frame, .debug_frame) into\n"
"the unwind table `stackid record` hands the module for it, and print\n"
"its build-id, class, rows and bytes, and what was read. x86-64 ELF64\n"
"and i386 ELF32 files (the tables of 32-bit tasks: 4-byte words).\n"
"\n"
"  -v, --verbose   also every row: START RULE CFA_OFF BP_OFF, START a\n"
"                  file offset in hex; RULE sp, bp, plt, signal, end,\n"
"                  bpderef or none (no information), with +bp when the\n"
"                  caller's bp is saved at cfa + W * BP_OFF (W: 8 bytes,\n"
"                  4 in an i386 file), +bpatbp when\n"
"                  it is the word at bp (plt: BP_OFF is the threshold of\n"
"                  (ip & 15))\n"
"  -h, --help      this help\n"
"\n"
"Exit status: 0 ok, 1 usage, 2 the file cannot be read, 3 no table\n"
"(neither x86-64 ELF64 nor i386 ELF32, malformed, no call frame\n"
"information).\n";

int cmd_cfi(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct cfi_table t;
	bool verbose = false;
	char rule[16];
	uint32_t i;
	int ch, fd, ret;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (ch) {
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return EXIT_OK;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	fd = open(argv[optind], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		perror(argv[optind]);
		return EXIT_SYSTEM;
	}
	ret = cfi_compile_fd(fd, &t);
	close(fd);
	printf("file %s\nbuild-id ", argv[optind]);
	for (i = 0; i < t.build_id_len; i++)
		printf("%02x", t.build_id[i]);
	printf("%s\n", t.build_id_len ? "" : "none");
	if (ret) {
		fprintf(stderr, "stackid: %s: %s\n", argv[optind],
			cfi_strerror(ret));
		return ret == -ENOMEM || ret == -EIO ? EXIT_SYSTEM : EXIT_DATA;
	}
	printf("class %s\n", t.elf32 ? "elf32-i386 (4-byte words)" :
	       "elf64-x86-64 (8-byte words)");
	printf("rows %" PRIu32 "\nbytes %zu\n", t.nr_rows,
	       (size_t)t.nr_rows * sizeof(*t.rows));
	printf("sections%s%s\n", t.eh_frame ? " .eh_frame" : "",
	       t.debug_frame ? " .debug_frame" : "");
	printf("fdes %" PRIu32 " (.debug_frame %" PRIu32 ") bad %" PRIu32
	       " partial %" PRIu32 " overlapping %" PRIu32 " unmapped %"
	       PRIu32 "%s\n", t.fdes, t.fdes_debug, t.fdes_bad, t.fdes_partial,
	       t.fdes_overlap, t.fdes_unmapped,
	       t.truncated ? " truncated" : "");
	for (i = 0; verbose && i < t.nr_rows; i++) {
		cfi_rule_name(t.rows[i].rule, rule);
		printf("%#" PRIx32 " %s %u %d\n", t.rows[i].start, rule,
		       t.rows[i].cfa_off, t.rows[i].bp_off);
	}
	cfi_table_free(&t);
	return EXIT_OK;
}
