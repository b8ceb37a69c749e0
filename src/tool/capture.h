/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture files: what `stackid record` writes and `stackid report` reads.
 *
 * Format version 1, all fields little-endian (the native order of the
 * only supported architecture, x86-64):
 *
 *	offset size
 *	     0    8  magic "STACKIDC"
 *	     8    4  format version: 1
 *	    12    4  ABI version of the module, as STACKID_IOC_GET_VERSION
 *	             returned it (major << 16 | minor)
 *	    16    8  start time: CLOCK_MONOTONIC, ns, taken just before
 *	             STACKID_IOC_ENABLE (sample times are on the same clock)
 *	    24    4  header size: 32
 *	    28    4  reserved: 0
 *	    32       the records, exactly as read() returned them from
 *	             /dev/stackid (include/stackid.h): each starts with a
 *	             struct stackid_record_hdr whose size (a multiple of 8)
 *	             is the whole record's
 *
 * A reader refuses another magic, format version, header size or a
 * reserved field that is not 0, and an ABI major other than 2 (the
 * current one) and 1 (whose captures stay readable: src/abi1.h); it skips records of types it does
 * not know (a newer minor ABI) by their size. A record whose header
 * carries another abi_major than the capture's is corrupt.
 *
 * Besides the module's records, `stackid record` adds records of its own,
 * of types from CAPTURE_REC_FIRST (0x8000) up, which the module never
 * writes. They extend format 1 compatibly: a reader that does not know
 * them skips them like any unknown type, and a capture without them (as
 * written before they existed) still reads. Their hdr.abi_major is the
 * capture's, as for every record. A reader takes a tool record longer
 * than it knows (later fields added at the end) and ignores one shorter
 * than its first version.
 *  - CAPTURE_REC_INFO, first after the header: the wall-clock time of
 *    start_ns, the sampling frequency, and where the file lies in a
 *    continuous recording (run id, file number).
 *  - CAPTURE_REC_END, last: the monotonic time the file was closed and
 *    the module's statistics counters accumulated while it was written
 *    (a delta: summed over the files of one run, they give the run's
 *    totals, for which samples == delivered + dropped holds).
 *  - CAPTURE_REC_SKIPPED, where the recorder skipped data it could not
 *    use (a ring whose data was not records, written through a mapping;
 *    a record that failed its check): how many bytes, from which ring.
 *    Nothing is lost silently: the bytes are also in the recorder's
 *    statistics.
 */
#ifndef STACKID_TOOL_CAPTURE_H
#define STACKID_TOOL_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stackid.h>

#define CAPTURE_MAGIC		"STACKIDC"
#define CAPTURE_VERSION		1

struct capture_hdr {
	char magic[8];
	__u32 version;
	__u32 abi_version;
	__u64 start_ns;
	__u32 hdr_size;
	__u32 reserved;
};

_Static_assert(sizeof(struct capture_hdr) == 32, "capture header layout");

#define CAPTURE_REC_FIRST	0x8000
#define CAPTURE_REC_INFO	0x8001
#define CAPTURE_REC_END		0x8002
#define CAPTURE_REC_SKIPPED	0x8003

struct capture_info {
	struct stackid_record_hdr hdr;	/* type CAPTURE_REC_INFO */
	__u64 realtime_ns;	/* CLOCK_REALTIME at the header's start_ns */
	__u32 freq_hz;		/* sampling frequency; 0: not known */
	__u32 seq;		/* file number in a continuous run, from 0 */
	__u64 run_id;		/* the same in every file of one run */
	__u32 tgid;		/* the process filter, 0: every process */
	__u32 __pad;
};

struct capture_end {
	struct stackid_record_hdr hdr;	/* type CAPTURE_REC_END */
	__u64 end_ns;		/* CLOCK_MONOTONIC when the file was closed */
	__u32 nr;		/* counters filled (enum stackid_stat) */
	__u32 __pad;
	__u64 counters[STACKID_STATS_MAX];	/* delta over this file */
};

/* capture_skipped.ring when no one ring is known */
#define CAPTURE_SKIP_NO_RING	0xffffffffu
/* capture_skipped.flags: the module skipped them (read() said EIO), and
 * bytes is 0: how many is not known */
#define CAPTURE_SKIP_BY_MODULE	1u
/* capture_skipped.flags: a delta sample (ABI 2.6) of @ring, whole and
 * good, that could not be rebuilt: its ring's previous sample was
 * skipped; bytes is its size */
#define CAPTURE_SKIP_DELTA	2u

struct capture_skipped {
	struct stackid_record_hdr hdr;	/* type CAPTURE_REC_SKIPPED */
	__u32 ring;		/* CAPTURE_SKIP_NO_RING: not known */
	__u32 flags;		/* CAPTURE_SKIP_* */
	__u64 bytes;		/* skipped here */
};

_Static_assert(sizeof(struct capture_info) == 40, "info record layout");
_Static_assert(sizeof(struct capture_skipped) == 24, "skip record layout");
_Static_assert(sizeof(struct capture_end) % 8 == 0 &&
	       sizeof(struct capture_end) <= STACKID_RECORD_MAX,
	       "end record layout");

/* Fill @h for a capture of a module with @abi_version, started at @ns. */
void capture_hdr_init(struct capture_hdr *h, uint32_t abi_version,
		      uint64_t start_ns);

/*
 * A capture being read: from a regular file in chunks (so that it can be
 * read again from the start), or from memory (a buffer of the caller's,
 * or all of a pipe read at open).
 */
struct capture {
	const char *name;		/* for messages */
	struct capture_hdr hdr;
	int fd;				/* -1: memory */
	const unsigned char *mem;	/* memory: the whole capture */
	unsigned char *own;		/* what we allocated, freed at close */
	size_t memlen;
	unsigned char *buf;		/* file: the window */
	size_t bufcap, start, end;	/* valid bytes: buf[start..end) */
	bool eof;
	uint64_t pos;			/* file offset of buf[start] */
	int status;			/* sticky error: EXIT_DATA... */
	char err[256];			/* its message */
	/* scratch: a copy of the current record when it is not aligned */
	__u64 rec[(STACKID_RECORD_MAX + 7) / 8];
};

/*
 * Open a capture file ("-": standard input) and check its header.
 * Returns 0, or an exit status (EXIT_SYSTEM when the file cannot be read,
 * EXIT_DATA when it is not a capture we read) with the message in
 * c->err; capture_close() is needed either way.
 */
int capture_open(struct capture *c, const char *path);

/*
 * Set the capture's sticky error: @status (EXIT_DATA...) and the message
 * from @fmt. Returns @status. For decoders that find records valid one
 * by one but inconsistent together.
 */
int capture_fail(struct capture *c, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same over @len bytes at @p, which must outlive @c. */
int capture_open_mem(struct capture *c, const void *p, size_t len,
		     const char *name);

/*
 * The next record: 1 and *@rec (valid until the next call; aligned,
 * checked with stackid_record_check()) and *@off (its byte offset in the
 * file), 0 at the clean end of the capture, or an exit status negated
 * (-EXIT_DATA for a truncated or corrupt record, -EXIT_SYSTEM for a read
 * error) with the message in c->err. After an error it returns the
 * same error again.
 */
int capture_next(struct capture *c, const void **rec, uint64_t *off);

/* Back to the first record. 0, or -EXIT_SYSTEM with c->err. */
int capture_rewind(struct capture *c);

void capture_close(struct capture *c);

#endif /* STACKID_TOOL_CAPTURE_H */
