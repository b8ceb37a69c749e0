/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stackid command: what its parts share.
 *
 *   main.c        dispatch, --help, --version
 *   cmd_record.c  `stackid record` options     -> recorder.c
 *   recorder.c    record_run(): order of things, poll loop, signals
 *   rec_device.c  the device: open, ioctls, rings, draining them
 *   rec_file.c    the capture written: INFO, END, continuous mode's files
 *   rec_stats.c   the status line and the statistics at the end
 *   cmd_report.c  `stackid report` options     -> report.c
 *   report.c      reading a capture, passes, error reporting
 *   decode.c      records -> normalized samples (the one decode point)
 *   text.c        --format text
 *   folded.c      --format folded (aggregation)
 *   render.c      one frame as text
 *   symbolize.c   build-id -> file -> symbol (elfutils, debuginfod)
 *   capdir.c      the directory of continuous mode: names, bound
 *   pprof.c       --format pprof (pb.c: protobuf writer)
 *   flame.c       --format svg (flame.js: its script)
 *   cmd_push.c    `stackid push` options, --dir  -> push.c
 *   push.c        pprof to Pyroscope: libcurl, retries, spool
 *   capture.c     the capture file format
 *   util.c        allocation, strings, hashing
 *   cfi.c         ELF call frame information -> unwind table rows
 *   cmd_cfi.c     `stackid unwind-table`
 */
#ifndef STACKID_TOOL_H
#define STACKID_TOOL_H

#ifndef STACKID_VERSION
#define STACKID_VERSION "unknown"
#endif

/* Exit statuses, documented in --help and stackid(1). */
#define EXIT_OK		0
#define EXIT_USAGE	1	/* bad command line */
#define EXIT_SYSTEM	2	/* device, file or system error */
#define EXIT_DATA	3	/* bad capture data */

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_cfi(int argc, char **argv);

#endif /* STACKID_TOOL_H */
