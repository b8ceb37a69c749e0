/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * stackid user/kernel ABI: the only definition of it, shared by the
 * module and every user-space tool.
 *
 * Use from user space:
 *
 *	fd = open("/dev/stackid", O_RDONLY);        root or CAP_PERFMON
 *	ioctl(fd, STACKID_IOC_GET_VERSION, &ver);   check the major
 *	ioctl(fd, STACKID_IOC_SET_FREQ, &hz);
 *	ioctl(fd, STACKID_IOC_ENABLE);
 *	poll()/read(fd, buf, len);                  whole records only
 *	ioctl(fd, STACKID_IOC_DISABLE);
 *	ioctl(fd, STACKID_IOC_GET_STATS, &stats);
 *
 * Rules of this header: fixed-width types only, explicit padding (always
 * zero), no kernel pointers. Retired ioctl numbers stay listed and are
 * never reused. Adding a field or a record type raises the minor version;
 * changing a layout raises the major version.
 */
#ifndef _UAPI_STACKID_H
#define _UAPI_STACKID_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define STACKID_ABI_MAJOR	1
#define STACKID_ABI_MINOR	0
/* What STACKID_IOC_GET_VERSION returns: major << 16 | minor. */
#define STACKID_ABI_VERSION	((STACKID_ABI_MAJOR << 16) | STACKID_ABI_MINOR)

#define STACKID_DEVICE		"/dev/stackid"

/* Longest stack a record can carry (the max_depth parameter's ceiling). */
#define STACKID_MAX_DEPTH	127
#define STACKID_BUILD_ID_SIZE	20
#define STACKID_COMM_LEN	16

/* stackid_frame.status, as in the kernel's BPF_F_STACK_BUILD_ID stackmap. */
enum stackid_frame_status {
	STACKID_FRAME_EMPTY = 0,	/* no data */
	STACKID_FRAME_VALID = 1,	/* build_id + file offset */
	STACKID_FRAME_IP = 2,		/* raw user address; reason says why */
};

/*
 * stackid_frame.reason for STACKID_FRAME_IP frames. Each is also counted
 * in the statistics (STACKID_STAT_IP_FIRST + reason).
 */
enum stackid_ip_reason {
	STACKID_IP_NONE = 0,		/* frame is valid */
	STACKID_IP_RESOLVE_OFF,		/* build-id resolution disabled */
	STACKID_IP_MM_BUSY,		/* mm lock contended */
	STACKID_IP_UNLOCK_BUSY,		/* deferred mm unlock still pending */
	STACKID_IP_NO_VMA,		/* address not mapped */
	STACKID_IP_NO_FILE,		/* anonymous or special mapping */
	STACKID_IP_NOT_REGULAR,		/* not a regular page-cache file */
	STACKID_IP_PAGE_ABSENT,		/* ELF page not cached or not uptodate */
	STACKID_IP_NOTE_FAR,		/* note lies beyond the first page */
	STACKID_IP_NOT_ELF,		/* file is not an ELF we parse */
	STACKID_IP_NO_BUILD_ID,		/* ELF without a GNU build-id note */
	STACKID_IP_NR_REASONS
};

/* One stack frame: 32 bytes. */
struct stackid_frame {
	__u8 build_id[STACKID_BUILD_ID_SIZE];	/* valid: first build_id_len */
	__u8 status;				/* enum stackid_frame_status */
	__u8 build_id_len;			/* valid: 1..20, else 0 */
	__u8 reason;				/* enum stackid_ip_reason */
	__u8 __pad;
	__u64 addr;		/* valid: file offset; ip: user address */
};

/* stackid_record_hdr.type */
enum stackid_record_type {
	STACKID_REC_SAMPLE = 1,		/* stackid_sample + frames */
	STACKID_REC_BUILD_ID_PATH = 2,	/* stackid_build_id_path */
};

/* stackid_sample.flags */
#define STACKID_SF_USER		(1U << 0)	/* interrupted in user mode */
#define STACKID_SF_TRUNCATED	(1U << 1)	/* depth limit hit */
#define STACKID_SF_COMPAT	(1U << 2)	/* 32-bit task */
#define STACKID_SF_DEFERRED	(1U << 3)	/* finished in task context */

/*
 * Every record starts with this header. size is the whole record in
 * bytes, a multiple of 8; skip unknown types by size.
 */
struct stackid_record_hdr {
	__u32 size;
	__u16 type;		/* enum stackid_record_type */
	__u16 abi_major;	/* STACKID_ABI_MAJOR of the writer */
};

/* A sample: header, then nr_frames frames, innermost first. */
struct stackid_sample {
	struct stackid_record_hdr hdr;
	__u32 flags;		/* STACKID_SF_* */
	__u32 cpu;
	__u32 tgid;		/* process, in the initial pid namespace */
	__u32 tid;		/* thread, likewise */
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	char comm[STACKID_COMM_LEN];	/* NUL-padded */
	__u16 nr_frames;
	__u16 __pad[3];
	struct stackid_frame frames[];
};

/*
 * Which file a build-id came from: the module emits one such record for
 * each build-id it resolves for the first time since STACKID_IOC_ENABLE,
 * before or after the first sample that uses it, so that a capture can
 * be symbolized without /proc/PID/maps, even after the process exited.
 * The path is as the sampled process saw it (its mount namespace), and
 * may be stale if the file was renamed or deleted.
 */
struct stackid_build_id_path {
	struct stackid_record_hdr hdr;
	__u8 build_id[STACKID_BUILD_ID_SIZE];
	__u8 build_id_len;	/* 1..20 */
	__u8 __pad;
	__u16 path_len;		/* strlen(path), <= STACKID_PATH_MAX */
	char path[];		/* NUL-terminated, zero-padded to hdr.size */
};

/*
 * The largest record read() can return: a sample with STACKID_MAX_DEPTH
 * frames. read() fails with -EINVAL, consuming nothing, when its buffer
 * cannot hold the next record; a buffer this large always can.
 */
#define STACKID_RECORD_MAX	(sizeof(struct stackid_sample) + \
				 STACKID_MAX_DEPTH * sizeof(struct stackid_frame))
/* Longest path a stackid_build_id_path carries; longer ones are not sent. */
#define STACKID_PATH_MAX	(STACKID_RECORD_MAX - \
				 sizeof(struct stackid_build_id_path) - 1)

/*
 * Statistics counters: the index into stackid_stats.counters. At any
 * quiescent point (no sample waiting for its task to return to user
 * space: DEFERRED == DEFERRED_DONE), SAMPLES == DELIVERED + the sum of
 * all DROP_* counters. Frames count once each, in their final state.
 * New counters are only ever appended.
 */
enum stackid_stat {
	STACKID_STAT_SAMPLES = 0,	/* overflow handler entries */
	STACKID_STAT_DELIVERED,		/* records written to a ring */
	STACKID_STAT_DROP_RING_FULL,	/* ring had no room */
	STACKID_STAT_DROP_NESTED,	/* handler re-entered on this CPU */
	STACKID_STAT_DROP_NO_MM,	/* kernel thread or exiting task */
	STACKID_STAT_DROP_FILTERED,	/* tgid filter did not match */
	STACKID_STAT_DROP_NO_REGS,	/* no user registers to walk */
	STACKID_STAT_FRAMES_VALID,	/* frames resolved to build-id */
	STACKID_STAT_TRUNCATED,		/* stacks cut at max_depth */
	STACKID_STAT_BIDCACHE_HIT,	/* build-id cache hits */
	STACKID_STAT_BIDCACHE_MISS,	/* build-id cache misses */
	STACKID_STAT_PATHS,		/* build-id path records written */
	STACKID_STAT_PATHS_DROPPED,	/* path records lost: ring full */
	STACKID_STAT_DEFERRED,		/* samples handed to task context */
	STACKID_STAT_DEFERRED_DONE,	/* ... and finished there */
	STACKID_STAT_DEFER_NO_SLOT,	/* could not be handed over */
	/* frames left as raw IP, by enum stackid_ip_reason (0 unused) */
	STACKID_STAT_IP_FIRST,
	STACKID_STAT_NR = STACKID_STAT_IP_FIRST + STACKID_IP_NR_REASONS
};

#define STACKID_STATS_MAX	64
#define STACKID_ALL_CPUS	0xffffffffU

/*
 * STACKID_IOC_GET_STATS argument. In: cpu (a CPU number, or
 * STACKID_ALL_CPUS for the sum). Out: nr (how many counters the module
 * filled, at most STACKID_STATS_MAX), counters. -EINVAL for a CPU that is
 * not possible on this machine.
 */
struct stackid_stats {
	__u32 cpu;
	__u32 nr;
	__u64 counters[STACKID_STATS_MAX];
};

/* STACKID_IOC_SET_FILTER / GET_FILTER argument. */
struct stackid_filter {
	__u32 tgid;		/* 0: every process */
	__u32 __pad;		/* must be 0 */
};

/*
 * STACKID_IOC_GET_COST argument: how long the overflow handler took per
 * walked sample (entry, walk, resolution, ring write; not the samples
 * dropped before the walk), measured inside the module with
 * local_clock(). In: cpu (or STACKID_ALL_CPUS). Out: the rest. A cost of
 * v ns lands in bucket v for v < 8; else, with t = floor(log2(v)), in
 * bucket 8 * t + the three bits of v below its top bit (buckets 8..23 stay
 * empty; costs of 4 s or more land in the last bucket). So each bucket is
 * at most 12.5% wide: see stackid_cost_bucket_low(). Zeroed by
 * STACKID_IOC_RESET_STATS.
 */
#define STACKID_COST_BUCKETS	256
struct stackid_cost {
	__u32 cpu;
	__u32 nr;		/* buckets filled: STACKID_COST_BUCKETS */
	__u64 count;		/* samples timed */
	__u64 sum_ns;
	__u64 buckets[STACKID_COST_BUCKETS];
};

/* Smallest cost in ns that lands in bucket @b. */
static inline __u64 stackid_cost_bucket_low(unsigned int b)
{
	if (b < 8)
		return b;
	return (8ULL + b % 8) << (b / 8 - 3);
}

#define STACKID_IOC_MAGIC	0xB7

/* __u32 out: STACKID_ABI_VERSION. */
#define STACKID_IOC_GET_VERSION	_IOR(STACKID_IOC_MAGIC, 0x00, __u32)
/* __u32 out: sampling frequency in Hz. */
#define STACKID_IOC_GET_FREQ	_IOR(STACKID_IOC_MAGIC, 0x01, __u32)
/*
 * __u32 in: frequency in Hz, 1..kernel.perf_event_max_sample_rate, else
 * -EINVAL and nothing changes. Takes effect at once if enabled.
 */
#define STACKID_IOC_SET_FREQ	_IOW(STACKID_IOC_MAGIC, 0x02, __u32)
/* Start sampling on every online CPU. -EBUSY-free: enabling twice is 0. */
#define STACKID_IOC_ENABLE	_IO(STACKID_IOC_MAGIC, 0x03)
/* Stop sampling; returns once no handler runs. Records stay readable. */
#define STACKID_IOC_DISABLE	_IO(STACKID_IOC_MAGIC, 0x04)
/* struct stackid_stats in/out. */
#define STACKID_IOC_GET_STATS	_IOWR(STACKID_IOC_MAGIC, 0x05, struct stackid_stats)
/* Zero every counter. */
#define STACKID_IOC_RESET_STATS	_IO(STACKID_IOC_MAGIC, 0x06)
/* struct stackid_filter in; -EINVAL if __pad is not 0. */
#define STACKID_IOC_SET_FILTER	_IOW(STACKID_IOC_MAGIC, 0x07, struct stackid_filter)
/* struct stackid_filter out. */
#define STACKID_IOC_GET_FILTER	_IOR(STACKID_IOC_MAGIC, 0x08, struct stackid_filter)
/* struct stackid_cost in/out; -EINVAL for an impossible CPU. */
#define STACKID_IOC_GET_COST	_IOWR(STACKID_IOC_MAGIC, 0x09, struct stackid_cost)

#endif /* _UAPI_STACKID_H */
