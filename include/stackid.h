/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * stackid user/kernel ABI: the only definition of it, shared by the
 * module and every user-space tool.
 *
 * Use from user space:
 *
 *	fd = open("/dev/stackid", O_RDWR);          root and CAP_PERFMON;
 *	                                            one reader at a time,
 *	                                            which starts with empty
 *	                                            rings (what the last
 *	                                            reader left is dropped)
 *	                                            and control pages the
 *	                                            module wrote afresh;
 *	                                            O_RDONLY does for read(),
 *	                                            not for a ring's mmap()
 *	                                            (it writes tail: EACCES)
 *	ioctl(fd, STACKID_IOC_GET_VERSION, &ver);   check the major
 *	ioctl(fd, STACKID_IOC_SET_FREQ, &hz);
 *	ioctl(fd, STACKID_IOC_SET_FORMAT, &fmt);    optional: 8-byte frames
 *	ioctl(fd, STACKID_IOC_ENABLE);
 *	poll(), then read(fd, buf, len)             whole records only
 *	  or, per CPU, mmap() its ring              see "Rings" below
 *	ioctl(fd, STACKID_IOC_DISABLE);
 *	ioctl(fd, STACKID_IOC_GET_STATS, &stats);
 *
 * Rules of this header: fixed-width types only, explicit padding (always
 * zero), no kernel pointers. Retired ioctl numbers stay listed and are
 * never reused. Adding a field or a record type raises the minor version;
 * changing a layout raises the major version.
 *
 * ABI 2.0 (from 1.0): ioctl type 0xB9 (0xB7 is nsfs's); samples carry
 * 16-byte frames that name their build-id by an index into their ring's
 * build-id table (STACKID_REC_BUILD_ID records), room for kernel frames
 * and a cgroup id; rings can be mmap()ed; wakeups are batched
 * (STACKID_IOC_SET_WAKEUP); frame reasons and counters were renumbered.
 *
 * ABI 2.1 (from 2.0): samples of kernel threads and io_uring/vhost
 * workers, with their kernel stacks (STACKID_SF_KTHREAD; the kthreads
 * parameter), where 2.0 counted them as DROP_NO_MM or DROP_USER_WORKER.
 *
 * ABI 2.2 (from 2.1): unwind tables (STACKID_IOC_ADD_UNWIND), so that
 * user stacks are walked through code built without frame pointers; each
 * user frame says how it was found (stackid_frame.how, once __pad) and
 * each sample why its walk ended (stackid_sample.stop, once __pad);
 * counters appended for both. Records of 2.0 and 2.1 read as before: 0
 * in the new fields means "frame pointers" and "not said".
 *
 * ABI 2.3 (from 2.2): a sample handed to its task's context and finished
 * there after a new session began (the next ENABLE, or another reader's
 * open()) is dropped and counted (STACKID_STAT_DROP_STALE), where 2.2
 * wrote it into the new session, before that session's start. Counter
 * appended; no record changed.
 *
 * ABI 2.4 (from 2.3): packed samples (STACKID_REC_SAMPLE_PACKED: the same
 * header, 8-byte frames), written only to a reader that asked for them
 * (STACKID_IOC_SET_FORMAT); a new open() starts with the 16-byte frames
 * of STACKID_REC_SAMPLE, so readers of 2.3 see nothing new. Samples of a
 * task that already has one waiting for its context join that one
 * (STACKID_STAT_DEFER_JOINED, appended).
 *
 * ABI 2.5 (from 2.4): a sample that waited a second or more for its task
 * (asleep in the kernel since it was sampled) may be written by the
 * handler when it needs the slot, with its unresolved frames raw, where
 * 2.4 kept the slot until the task woke up, for hours maybe, and later
 * samples on that CPU found none (STACKID_STAT_DEFER_TAKEN_BACK,
 * appended; and STACKID_STAT_DEFER_NO_TICKET, for a CPU whose queued
 * works, 256, are all waiting). No record changed.
 *
 * ABI 2.6 (from 2.5): delta samples (STACKID_REC_SAMPLE_DELTA: a 32-byte
 * header and only the frames that differ from the ring's previous
 * sample), written only to a reader that asked for them
 * (STACKID_FORMAT_DELTA, with STACKID_FORMAT_PACKED); counter appended
 * (STACKID_STAT_DELTA). Readers of 2.5 see nothing new.
 *
 * ABI 2.7 (from 2.6): a CPU time budget for the sampling handler (the
 * max_cpu_percent parameter, 25 by default as perf's own
 * kernel.perf_cpu_time_max_percent): a sample that comes while its CPU's
 * handler is over that share of the CPU's time is dropped at once and
 * counted (STACKID_STAT_DROP_CPU_BUDGET, appended, one of the DROP_*
 * counters), where 2.6 took every sample, however long each took: on a
 * slow CPU, or stacks through hundreds of files, a high frequency could
 * leave the work little of its CPU. No record changed. A reader of 2.6
 * does not know the new counter: its sum of the DROP_* counters misses
 * these samples, and its accounting check fails when there are any.
 */
#ifndef _UAPI_STACKID_H
#define _UAPI_STACKID_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define STACKID_ABI_MAJOR	2
#define STACKID_ABI_MINOR	7
/* What STACKID_IOC_GET_VERSION returns: major << 16 | minor. */
#define STACKID_ABI_VERSION	((STACKID_ABI_MAJOR << 16) | STACKID_ABI_MINOR)

#define STACKID_DEVICE		"/dev/stackid"

/* Longest stack a record can carry (the max_depth parameter's ceiling). */
#define STACKID_MAX_DEPTH	127
#define STACKID_BUILD_ID_SIZE	20
#define STACKID_COMM_LEN	16

/* stackid_frame.status */
enum stackid_frame_status {
	STACKID_FRAME_EMPTY = 0,	/* no data */
	STACKID_FRAME_VALID = 1,	/* build-id (by index) + file offset */
	STACKID_FRAME_IP = 2,		/* raw user address; reason says why */
	STACKID_FRAME_KERNEL = 3,	/* kernel symbol (by index) + offset */
};

/*
 * stackid_frame.reason for STACKID_FRAME_IP frames. Each is also counted
 * in the statistics (STACKID_STAT_IP_FIRST + reason). NOT_RESOLVED: the
 * frame's file was not in the CPU's build-id cache, and the sample could
 * not be finished in its task's own context (no free slot, the task
 * exiting or exec'ing, an NMI on a kernel where that cannot be queued,
 * or the task asleep in the kernel for a second while its CPU needed the
 * slot: STACKID_STAT_DEFER_TAKEN_BACK).
 * READ_ERROR: the file could not be read there, or changed while it was.
 * BUDGET: the sample named more distinct files than one sample may cost
 * (127, the most frames a sample has, of which 32 may be read from their
 * files in the task's context).
 */
enum stackid_ip_reason {
	STACKID_IP_NONE = 0,		/* frame is valid */
	STACKID_IP_RESOLVE_OFF,		/* build-id resolution disabled */
	STACKID_IP_NOT_RESOLVED,	/* needed task context; none to be had */
	STACKID_IP_NO_VMA,		/* address not mapped */
	STACKID_IP_NO_FILE,		/* anonymous or special mapping */
	STACKID_IP_NOT_REGULAR,		/* not a regular page-cache file */
	STACKID_IP_READ_ERROR,		/* unreadable, or changed as it was read */
	STACKID_IP_NOT_ELF,		/* file is not an ELF we parse */
	STACKID_IP_NO_BUILD_ID,		/* ELF without a GNU build-id note */
	STACKID_IP_BUDGET,		/* too many files in one sample */
	STACKID_IP_NR_REASONS
};

/*
 * One stack frame: 16 bytes. A valid frame names its file by bid, an
 * index into the build-id table of the ring the record came from (see
 * STACKID_REC_BUILD_ID), and addr is the file offset. An ip frame has the
 * raw user address in addr and the reason it stayed raw. A kernel frame
 * names its function by bid, an index into the ring's kernel symbol
 * table (STACKID_REC_KSYM), and addr is the offset into that function
 * (0 and bid 0 when the address is in no symbol the kernel knows): no
 * kernel address ever leaves the module.
 */
struct stackid_frame {
	__u64 addr;
	__u16 bid;		/* valid: 1..65535; else 0 */
	__u8 status;		/* enum stackid_frame_status */
	__u8 reason;		/* enum stackid_ip_reason */
	__u8 how;		/* user frames: enum stackid_frame_how */
	__u8 __pad[3];
};

/*
 * A packed frame (ABI 2.4): the frames of a STACKID_REC_SAMPLE_PACKED
 * record, one __u64 each, in the byte order of the writer's machine:
 *
 *	bits 63..62	status (enum stackid_frame_status, never EMPTY)
 *	bits 61..60	how (enum stackid_frame_how)
 *	VALID, KERNEL:
 *	bits 59..44	bid
 *	bits 43..0	addr (file offset; offset into the function)
 *	IP:
 *	bits 59..56	reason
 *	bits 55..0	addr (the user address)
 *
 * It stands for the struct stackid_frame with those fields (and the
 * others 0). A sample with a frame that does not fit (a file offset of
 * 16 TiB or more, a user address of 2^56 or more, a how or reason beyond
 * the bits) is written as STACKID_REC_SAMPLE instead.
 */
#define STACKID_PF_STATUS_SHIFT	62
#define STACKID_PF_HOW_SHIFT	60
#define STACKID_PF_HOW_MAX	3
#define STACKID_PF_BID_SHIFT	44
#define STACKID_PF_OFF_BITS	44
#define STACKID_PF_REASON_SHIFT	56
#define STACKID_PF_REASON_MAX	15
#define STACKID_PF_IP_BITS	56

/*
 * stackid_frame.how (ABI 2.2): how the walk found a user frame from the
 * one before it. The innermost user frame is the interrupted (or saved)
 * instruction pointer; every later one is a return address found by the
 * caller-side frame pointer chain, by the unwind table of the file the
 * frame before it is in (STACKID_IOC_ADD_UNWIND), or in the registers a
 * signal handler's frame saved. Kernel frames and ABI 2.0/2.1 records
 * have 0.
 */
enum stackid_frame_how {
	STACKID_HOW_FP = 0,		/* frame pointer chain (or ABI < 2.2) */
	STACKID_HOW_REGS = 1,		/* the task's registers: frame 0 */
	STACKID_HOW_TABLE = 2,		/* an unwind table */
	STACKID_HOW_SIGNAL = 3,		/* a signal frame's saved registers */
	STACKID_HOW_NR
};

/*
 * stackid_sample.stop (ABI 2.2): why the user stack walk ended after its
 * last frame. Each is also counted (STACKID_STAT_STOP_FIRST + stop).
 * END: a zero frame pointer or return address, or a table's outermost
 * frame (_start, a thread's start). BAD_FP: the frame's code has no
 * table, and its bp is not a frame pointer (not above sp, misaligned,
 * not user space, or the return address it holds is in no executable
 * mapping: that frame is left out): code built without frame pointers
 * whose file has no table (yet), or JIT or anonymous code. NO_ROW: the
 * file's table does not cover the address (code without CFI) and bp is
 * no frame pointer either. BAD_CFA: a row gave a caller below or at
 * this frame, or a return address outside user space or in no
 * executable mapping (left out). Where the walk looks frames up (in the
 * sampling handler; in the task's context only while tables are
 * loaded), every frame after the first is in an executable mapping.
 */
enum stackid_stop {
	STACKID_STOP_NONE = 0,		/* no user walk (kthread), ABI < 2.2 */
	STACKID_STOP_END,		/* the stack's end (below) */
	STACKID_STOP_DEPTH,		/* max_depth (STACKID_SF_TRUNCATED) */
	STACKID_STOP_FAULT,		/* stack not readable without a fault */
	STACKID_STOP_BAD_FP,		/* no table, and bp is no frame pointer */
	STACKID_STOP_NO_ROW,		/* the file's table lacks the address */
	STACKID_STOP_BAD_CFA,		/* a row's caller is not up the stack */
	STACKID_STOP_NR
};

/*
 * stackid_record_hdr.type. Types from 0x8000 up are the stackid command's
 * own (in its capture files); the module never writes them.
 */
enum stackid_record_type {
	STACKID_REC_SAMPLE = 1,		/* stackid_sample + frames */
	STACKID_REC_BUILD_ID_PATH = 2,	/* stackid_build_id_path */
	STACKID_REC_BUILD_ID = 3,	/* stackid_build_id */
	STACKID_REC_EPOCH = 4,		/* stackid_epoch */
	STACKID_REC_KSYM = 5,		/* stackid_ksym */
	STACKID_REC_CGROUP = 6,		/* stackid_cgroup */
	STACKID_REC_SAMPLE_PACKED = 7,	/* stackid_sample + packed frames */
	STACKID_REC_SAMPLE_DELTA = 8,	/* stackid_sample_delta + packed */
};

/* stackid_sample.flags */
#define STACKID_SF_USER		(1U << 0)	/* interrupted in user mode */
#define STACKID_SF_TRUNCATED	(1U << 1)	/* a frame was cut by max_depth */
#define STACKID_SF_COMPAT	(1U << 2)	/* 32-bit task */
#define STACKID_SF_DEFERRED	(1U << 3)	/* finished in task context */
#define STACKID_SF_KERNEL	(1U << 4)	/* kernel frames were taken */
/*
 * A task that never runs in user mode (a kernel thread, an io_uring or
 * vhost worker): kernel frames only, no user frames, cgroup_id 0 (ABI 2.1).
 */
#define STACKID_SF_KTHREAD	(1U << 5)

/*
 * Every record starts with this header. size is the whole record in
 * bytes, a multiple of 8; skip unknown types by size.
 */
struct stackid_record_hdr {
	__u32 size;
	__u16 type;		/* enum stackid_record_type */
	__u16 abi_major;	/* STACKID_ABI_MAJOR of the writer */
};

/*
 * A sample: header, then nr_frames frames, innermost first: struct
 * stackid_frame (STACKID_REC_SAMPLE) or packed frames, 8 bytes each
 * (STACKID_REC_SAMPLE_PACKED, see above). The first
 * nr_kernel of them are kernel frames (STACKID_FRAME_KERNEL, when the
 * sample interrupted the kernel and kernel frames are on: the
 * kernel_frames parameter), the rest user frames. ring is the ring the
 * record was written to, whose tables its frames' bid refer to; cpu is
 * where it was sampled (a sample finished in task context may be written
 * to another CPU's ring). cgroup_id is the task's cgroup v2 id (its
 * kernfs node id, as name_to_handle_at() gives it for the cgroup's
 * directory), 0 without cgroups; a STACKID_REC_CGROUP record names it.
 */
struct stackid_sample {
	struct stackid_record_hdr hdr;
	__u32 flags;		/* STACKID_SF_* */
	__u32 cpu;
	__u32 tgid;		/* process, in the initial pid namespace */
	__u32 tid;		/* thread, likewise */
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	char comm[STACKID_COMM_LEN];	/* NUL-padded */
	__u16 nr_frames;
	__u16 nr_kernel;	/* of nr_frames, at most STACKID_MAX_KDEPTH */
	__u16 ring;
	__u8 stop;		/* enum stackid_stop (ABI 2.2) */
	__u8 __pad;
	__u64 cgroup_id;
	struct stackid_frame frames[];
};

/*
 * A delta sample (ABI 2.6, only with STACKID_FORMAT_DELTA): the sample
 * that follows the ring's previous sample (STACKID_REC_SAMPLE_PACKED or
 * STACKID_REC_SAMPLE_DELTA) and shares with it its cgroup_id, tgid, cpu
 * and comm. Its header gives the fields that may change; its frames
 * (packed, innermost first) are the first nr_frames - nr_same of the
 * sample's, and the last nr_same are the previous sample's last nr_same
 * (the callers both stacks share). Read it as the STACKID_REC_SAMPLE_PACKED
 * it stands for, which is then the ring's previous sample in turn.
 *
 * The previous sample is the last sample record of the same ring
 * before it: STACKID_REC_EPOCH and a STACKID_REC_SAMPLE (16-byte frames)
 * leave none, and after them comes a whole STACKID_REC_SAMPLE_PACKED.
 * So does the first sample of a ring after open() or ENABLE, and at
 * least every STACKID_DELTA_RUN_MAX + 1st sample of a ring: a reader
 * that lost its place (a record it could not read) waits for that one.
 */
struct stackid_sample_delta {
	struct stackid_record_hdr hdr;
	__u32 tid;
	__u16 flags;		/* STACKID_SF_* */
	__u16 ring;
	__u64 time_ns;
	__u16 nr_frames;	/* the whole sample's */
	__u16 nr_kernel;
	__u16 nr_same;		/* outermost frames of the previous sample */
	__u8 stop;
	__u8 __pad;
	__u64 frames[];		/* nr_frames - nr_same packed frames */
};

/* The most delta samples in a row in one ring. */
#define STACKID_DELTA_RUN_MAX	63

/* The most kernel frames a sample carries (they count in nr_frames). */
#define STACKID_MAX_KDEPTH	32

/*
 * A ring's kernel symbol table, like its build-id table: from this record
 * on, in the ring named by ring, kernel frames' index stands for the
 * function name (name_len bytes) in the module named next (module_len
 * bytes, 0: the kernel itself). The name follows the fixed part, then the
 * module name, then a NUL; zero-padded to hdr.size. Emptied by
 * STACKID_REC_EPOCH too.
 */
struct stackid_ksym {
	struct stackid_record_hdr hdr;
	__u16 ring;
	__u16 index;		/* 1..65535 */
	__u16 name_len;		/* 1..STACKID_KSYM_NAME_MAX */
	__u16 module_len;	/* 0..STACKID_KSYM_MODULE_MAX */
	char name[];
};

#define STACKID_KSYM_NAME_MAX	511
#define STACKID_KSYM_MODULE_MAX	63

/*
 * Which cgroup a cgroup id is: the module emits one the first time since
 * STACKID_IOC_ENABLE that it sees an id, from process context. path is
 * the cgroup's path in the cgroup v2 hierarchy ("/" for the root,
 * "/system.slice/ssh.service", ...), path_len bytes, NUL-terminated,
 * zero-padded to hdr.size.
 */
struct stackid_cgroup {
	struct stackid_record_hdr hdr;
	__u64 id;
	__u16 path_len;		/* <= STACKID_PATH_MAX - 8 */
	__u16 __pad[3];
	char path[];
};

/*
 * A ring's build-id table: from this record on, in the ring named by
 * ring, the frames' bid index stands for build_id. A ring writes one before the first sample that
 * uses an index, once per epoch; a reader keeps one table per ring. A
 * table starts empty and is emptied by STACKID_REC_EPOCH.
 */
struct stackid_build_id {
	struct stackid_record_hdr hdr;
	__u16 ring;
	__u16 index;		/* 1..65535 */
	__u8 build_id_len;	/* 1..20 */
	__u8 __pad[3];
	__u8 build_id[STACKID_BUILD_ID_SIZE];
	__u32 __pad2;
};

/*
 * The ring named by ring starts a new epoch: forget its build-id table and
 * its kernel symbol table. Written first
 * into every ring at each STACKID_IOC_ENABLE, and when a table is full.
 */
struct stackid_epoch {
	struct stackid_record_hdr hdr;
	__u16 ring;
	__u16 __pad[3];
};

/*
 * Which file a build-id came from: the module emits one such record for
 * each build-id it reads from a file for the first time since
 * STACKID_IOC_ENABLE, from the sampled task's own context, so that a
 * capture can be symbolized without /proc/PID/maps, even after the
 * process exited. The path is as the sampled process saw it (its root
 * and mount namespace), and may be stale if the file was renamed or
 * deleted (then it ends in " (deleted)").
 */
struct stackid_build_id_path {
	struct stackid_record_hdr hdr;
	__u8 build_id[STACKID_BUILD_ID_SIZE];
	__u8 build_id_len;	/* 1..20 */
	__u8 __pad;
	__u16 path_len;		/* strlen(path), <= STACKID_PATH_MAX */
	char path[];		/* NUL-terminated, zero-padded to hdr.size */
};

/* The largest sample: STACKID_MAX_DEPTH frames. */
#define STACKID_SAMPLE_MAX	(sizeof(struct stackid_sample) + \
				 STACKID_MAX_DEPTH * sizeof(struct stackid_frame))
/*
 * The largest record read() can return: a path record with the longest
 * path. read() fails with -EINVAL, consuming nothing, when its buffer
 * cannot hold the next record; a buffer this large always can.
 */
#define STACKID_RECORD_MAX	4128
/* Longest path a stackid_build_id_path carries (4095): PATH_MAX - 1. */
#define STACKID_PATH_MAX	(STACKID_RECORD_MAX - \
				 sizeof(struct stackid_build_id_path) - 1)

/*
 * Rings. There is one per possible CPU (numbered like the CPUs). Each is
 * a control page followed by a data area of data_size bytes (a power of
 * two), and can be mapped with
 *
 *	mmap(NULL, page + data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
 *	     fd, ring * (page + data_size))
 *
 * (page: the page size; STACKID_IOC_GET_RING_INFO tells data_size).
 * Records are written at data[head % data_size] on, and a record may
 * wrap around the end of the data area (its 8-byte header never does).
 * The protocol is the one perf's ring buffer uses:
 *
 *	head = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);
 *	tail = ctl->tail;		(only the reader writes it)
 *	while (tail < head) {
 *		read the record at tail (copy it out if it wraps);
 *		tail += its hdr.size;
 *	}
 *	__atomic_store_n(&ctl->tail, tail, __ATOMIC_RELEASE);
 *
 * The kernel writes a record's bytes, then publishes head with a release
 * store; it reads tail with an acquire load before reusing the room, and
 * never overwrites unread bytes: a full ring drops the new record and
 * counts it. A tail that is not between head - data_size and head counts
 * as a full ring. read() consumes from the same tail, so use one of the
 * two ways at a time.
 *
 * Everything in a mapping is the reader's to break, and only for itself:
 * the kernel keeps its own head and never reads the control page's back;
 * read() meeting a tail or data that is not a record skips the ring's
 * unread bytes (tail = head) and fails once with EIO; the next reader
 * gets control pages written afresh, whatever the last one wrote.
 */
struct stackid_ring_ctl {
	__u64 head;		/* bytes ever written; the kernel's */
	__u64 tail;		/* bytes ever consumed; the reader's */
	__u32 data_size;
	__u32 data_offset;	/* the page size: where the data starts */
	__u32 ring;
	__u32 __pad;
};

/* STACKID_IOC_GET_RING_INFO argument (out). */
struct stackid_ring_info {
	__u32 nr_rings;		/* nr_cpu_ids: rings 0..nr_rings-1 */
	__u32 data_size;	/* bytes of data per ring */
	__u32 page_size;	/* the control page's size */
	__u32 __pad;
};

/*
 * Statistics counters: the index into stackid_stats.counters. DROP_NO_REGS
 * counts an NMI that hit the kernel's entry code before it had saved the
 * user registers, and an exec in progress; DROP_USER_WORKER io_uring and
 * vhost workers, which never run in user mode and whose saved registers
 * are a copy of their creator's, when they are not recorded as kernel
 * threads (STACKID_SF_KTHREAD). At any
 * quiescent point (no sample waiting for its task's own context:
 * DEFERRED == DEFERRED_DONE), SAMPLES == DELIVERED + the sum of all
 * DROP_* counters (stackid_stat_is_drop()), summed over all CPUs (a
 * deferred sample may finish on another CPU than the one that took it,
 * so one CPU's counters alone do not balance). Frames count once each,
 * in their final state. New counters are only ever appended.
 */
enum stackid_stat {
	STACKID_STAT_SAMPLES = 0,	/* overflow handler entries */
	STACKID_STAT_DELIVERED,		/* sample records written to a ring */
	STACKID_STAT_DROP_RING_FULL,	/* ring had no room */
	STACKID_STAT_DROP_NESTED,	/* handler re-entered on this CPU */
	STACKID_STAT_DROP_NO_MM,	/* idle, exiting, kthread not recorded */
	STACKID_STAT_DROP_FILTERED,	/* tgid filter did not match */
	STACKID_STAT_DROP_NO_REGS,	/* no trustworthy user registers */
	STACKID_STAT_DROP_USER_WORKER,	/* io_uring or vhost worker thread */
	STACKID_STAT_FRAMES_VALID,	/* frames resolved to build-id */
	STACKID_STAT_TRUNCATED,		/* stacks cut at max_depth */
	STACKID_STAT_BIDCACHE_HIT,	/* build-id cache hits */
	STACKID_STAT_BIDCACHE_MISS,	/* ... misses (resolved in task context) */
	STACKID_STAT_PARSES,		/* build-id notes read from files */
	STACKID_STAT_BUILD_IDS,		/* STACKID_REC_BUILD_ID records written */
	STACKID_STAT_EPOCHS,		/* STACKID_REC_EPOCH records written */
	STACKID_STAT_PATHS,		/* build-id path records written */
	STACKID_STAT_PATHS_DROPPED,	/* path records lost: no room, memory */
	STACKID_STAT_PATHS_LIMITED,	/* path records not sent: rate limit */
	STACKID_STAT_DEFERRED,		/* samples handed to task context */
	STACKID_STAT_DEFERRED_DONE,	/* ... and finished there */
	STACKID_STAT_DEFER_NO_SLOT,	/* could not be handed over */
	STACKID_STAT_WAKEUPS,		/* reader wakeups */
	STACKID_STAT_EVENT_FAILED,	/* a CPU came online without an event */
	STACKID_STAT_KFRAMES,		/* kernel frames recorded */
	STACKID_STAT_KSYMS,		/* STACKID_REC_KSYM records written */
	STACKID_STAT_CGROUPS,		/* STACKID_REC_CGROUP records written */
	STACKID_STAT_CGROUPS_DROPPED,	/* ... lost: no room, memory */
	/* frames left as raw IP, by enum stackid_ip_reason (0 unused) */
	STACKID_STAT_IP_FIRST,
	/* ABI 2.2: user frames found through unwind tables */
	STACKID_STAT_FRAMES_TABLE = STACKID_STAT_IP_FIRST + STACKID_IP_NR_REASONS,
	/* ... and by a signal frame's saved registers */
	STACKID_STAT_FRAMES_SIGNAL,
	/*
	 * user walks ended, by enum stackid_stop (0 unused); a sample that
	 * joined another's (DEFER_JOINED) counts that one's walk again
	 */
	STACKID_STAT_STOP_FIRST,
	/* ABI 2.3: finished in its task after a new session began */
	STACKID_STAT_DROP_STALE = STACKID_STAT_STOP_FIRST + STACKID_STOP_NR,
	/*
	 * ABI 2.4: samples taken before their task went back to user space
	 * with a sample of it already waiting there (counted in DEFERRED
	 * too): they share its user frames and take no slot of their own
	 */
	STACKID_STAT_DEFER_JOINED,
	/*
	 * ABI 2.5: slots taken back from a task that had not come for its
	 * sample in a second (asleep in the kernel), so that other samples
	 * could be handed over: its sample and those that joined it were
	 * written then, with frames not yet resolved raw (NOT_RESOLVED)
	 */
	STACKID_STAT_DEFER_TAKEN_BACK,
	/*
	 * ABI 2.5: samples not handed over because every ticket of their
	 * CPU was held (256 queued works, each until its task next heads
	 * for user space: tasks asleep in the kernel); frames raw
	 */
	STACKID_STAT_DEFER_NO_TICKET,
	/* ABI 2.6: samples written as STACKID_REC_SAMPLE_DELTA */
	STACKID_STAT_DELTA,
	/*
	 * ABI 2.7: dropped at once because this CPU's handler had used
	 * more than max_cpu_percent of the CPU's time (see the parameter)
	 */
	STACKID_STAT_DROP_CPU_BUDGET,
	STACKID_STAT_NR
};

/* True for the DROP_* counters: those the identity above sums. */
static inline int stackid_stat_is_drop(unsigned int i)
{
	return (i >= STACKID_STAT_DROP_RING_FULL &&
		i <= STACKID_STAT_DROP_USER_WORKER) ||
	       i == STACKID_STAT_DROP_STALE ||
	       i == STACKID_STAT_DROP_CPU_BUDGET;
}

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
 * STACKID_IOC_SET_WAKEUP / GET_WAKEUP argument. A reader blocked in
 * read() or poll() is woken when a ring holds at least watermark bytes,
 * or, if any ring holds a record, every period_ms; never once per
 * sample. A STACKID_REC_BUILD_ID_PATH record (once per build-id and
 * enable) wakes it within 20 ms, so that it can load the file's unwind
 * table early. watermark 0: a quarter of a ring (the default); period_ms 0:
 * 100 (the default); period_ms at most 10000. They hold until the file
 * is closed: each open starts with the defaults.
 */
struct stackid_wakeup {
	__u32 watermark;
	__u32 period_ms;
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

/* Smallest cost in ns that lands in bucket @b (8 for the empty 8..23). */
static inline __u64 stackid_cost_bucket_low(unsigned int b)
{
	if (b < 8)
		return b;
	if (b < 24)
		return 8;
	return (8ULL + b % 8) << (b / 8 - 3);
}

/*
 * Unwind tables (ABI 2.2). A table tells, for the code of one file (named
 * by its build-id), how to find a frame's caller from the frame's
 * instruction pointer (ip), stack pointer (sp) and frame pointer (bp):
 * what the DWARF call frame information in the file's .eh_frame (or
 * .debug_frame) says, compiled into rows. User space compiles them (the
 * stackid command does, for each build-id it learns a path of) and hands
 * them to the module with STACKID_IOC_ADD_UNWIND; the sampling handler
 * then walks through code without frame pointers with a bounded binary
 * search and a few reads of the stack per frame. A 32-bit file's table
 * (an i386 ELF file, mapped by 32-bit tasks) has the same rows with
 * 4-byte words: the return address at cfa - 4, BP_SAVED at cfa +
 * 4 * bp_off, CFA_PLT adding 4, CFA_BP_DEREF and BP_AT_BP reading 4
 * bytes, and no CFA_SIGNAL (the walk stops there, NO_ROW).
 *
 * Rows are sorted by start, strictly ascending; a row covers the file
 * offsets from its start up to the next row's start (the last row: up to
 * the end of the file). start is a file offset (as stackid_frame.addr of
 * a valid frame), not an ELF address. For the innermost frame the ip
 * itself is looked up, for a return address ip - 1 (the call), for the
 * ip a signal frame saved the ip itself. With cfa the value the rule
 * gives (the caller's sp), the return address is at cfa - 8 and bp is
 * the rule's:
 *
 *   STACKID_UW_CFA_NONE	no information: the walk stops (NO_ROW)
 *   STACKID_UW_CFA_SP		cfa = sp + cfa_off
 *   STACKID_UW_CFA_BP		cfa = bp + cfa_off
 *   STACKID_UW_CFA_PLT		cfa = sp + cfa_off + 8 if (ip & 15) >=
 *				bp_off, else sp + cfa_off: a PLT entry's
 *				rule (ld writes it as a DWARF expression)
 *   STACKID_UW_CFA_SIGNAL	a signal trampoline (__restore_rt): sp
 *				points to the kernel's struct ucontext,
 *				whose saved ip, sp and bp are the caller's
 *   STACKID_UW_CFA_END		the outermost frame (its return address
 *				is undefined: _start): the walk ends (END)
 *   STACKID_UW_CFA_BP_DEREF	cfa = the word at bp - cfa_off: a function
 *				that realigned its stack (GCC's DRAP:
 *				DW_OP_breg6 -cfa_off; DW_OP_deref)
 *
 *   STACKID_UW_BP_SAME		bp is unchanged in the caller
 *   STACKID_UW_BP_SAVED	the caller's bp is at cfa + 8 * bp_off
 *   STACKID_UW_BP_AT_BP	the caller's bp is the word at bp (as
 *				realigning functions save it: DW_CFA_expression
 *				rbp, DW_OP_breg6 0)
 *
 * A table is kept until the device is next opened by a reader (each
 * reader starts with none), or the module unloaded, and is shared by every
 * process that maps a file with that build-id. Tables are bounded, one
 * and all together, by the unwind_kb module parameter.
 */
struct stackid_unwind_row {
	__u32 start;		/* file offset */
	__u16 cfa_off;		/* bytes */
	__u8 rule;		/* STACKID_UW_CFA_* | STACKID_UW_BP_* */
	__s8 bp_off;		/* BP_SAVED: task's words; CFA_PLT: threshold */
};

#define STACKID_UW_CFA_MASK	0x0f
#define STACKID_UW_CFA_NONE	0x00
#define STACKID_UW_CFA_SP	0x01
#define STACKID_UW_CFA_BP	0x02
#define STACKID_UW_CFA_PLT	0x03
#define STACKID_UW_CFA_SIGNAL	0x04
#define STACKID_UW_CFA_END	0x05
#define STACKID_UW_CFA_BP_DEREF	0x06
#define STACKID_UW_BP_MASK	0xf0
#define STACKID_UW_BP_SAME	0x00
#define STACKID_UW_BP_SAVED	0x10
#define STACKID_UW_BP_AT_BP	0x20

/* The most rows one table may have. */
#define STACKID_UW_MAX_ROWS	(1U << 22)

/* STACKID_IOC_ADD_UNWIND argument (in). */
struct stackid_unwind_table {
	__u64 rows;		/* user pointer to nr_rows rows */
	__u32 nr_rows;		/* 1..STACKID_UW_MAX_ROWS */
	__u8 build_id_len;	/* 1..20 */
	__u8 __pad[3];		/* must be 0 */
	__u8 build_id[STACKID_BUILD_ID_SIZE];
	__u32 __pad2;		/* must be 0 */
};

/* STACKID_IOC_GET_UNWIND argument (out): the tables loaded now. */
struct stackid_unwind_info {
	__u32 tables;
	__u32 __pad;
	__u64 rows;
	__u64 bytes;		/* memory they take */
	__u64 limit;		/* bytes: the unwind_kb parameter */
};

/* 0xB9: free in Documentation/userspace-api/ioctl/ioctl-number.rst. */
#define STACKID_IOC_MAGIC	0xB9

/* __u32 out: STACKID_ABI_VERSION. */
#define STACKID_IOC_GET_VERSION	_IOR(STACKID_IOC_MAGIC, 0x00, __u32)
/* __u32 out: sampling frequency in Hz. */
#define STACKID_IOC_GET_FREQ	_IOR(STACKID_IOC_MAGIC, 0x01, __u32)
/*
 * __u32 in: frequency in Hz, 1..kernel.perf_event_max_sample_rate, else
 * -EINVAL and nothing changes. Takes effect at once if enabled, and holds
 * until the file is closed: each open starts at the freq parameter.
 */
#define STACKID_IOC_SET_FREQ	_IOW(STACKID_IOC_MAGIC, 0x02, __u32)
/*
 * Start sampling on every online CPU; enabling twice is 0. -EINVAL if the
 * frequency is above kernel.perf_event_max_sample_rate (perf lowers that
 * limit when its interrupts take too long), or perf's error when an
 * online CPU cannot get an event (e.g. -ENOENT for cycles=1 without a
 * PMU). A CPU that comes online later always comes online; if it cannot
 * get an event it is counted in STACKID_STAT_EVENT_FAILED.
 */
#define STACKID_IOC_ENABLE	_IO(STACKID_IOC_MAGIC, 0x03)
/* Stop sampling; returns once no handler runs. Records stay readable. */
#define STACKID_IOC_DISABLE	_IO(STACKID_IOC_MAGIC, 0x04)
/* struct stackid_stats in/out. */
#define STACKID_IOC_GET_STATS	_IOWR(STACKID_IOC_MAGIC, 0x05, struct stackid_stats)
/*
 * Zero every counter and the cost histogram. -EBUSY while sampling is
 * enabled. Samples still waiting for their task's own context are first
 * written as they are (taken back, as in STACKID_STAT_DEFER_TAKEN_BACK);
 * -EBUSY (try again) if one is being finished there right then, or waits
 * on an offline CPU: only then can every counter be zeroed at one
 * instant.
 */
#define STACKID_IOC_RESET_STATS	_IO(STACKID_IOC_MAGIC, 0x06)
/* struct stackid_filter in; -EINVAL if __pad is not 0. */
#define STACKID_IOC_SET_FILTER	_IOW(STACKID_IOC_MAGIC, 0x07, struct stackid_filter)
/* struct stackid_filter out. */
#define STACKID_IOC_GET_FILTER	_IOR(STACKID_IOC_MAGIC, 0x08, struct stackid_filter)
/* struct stackid_cost in/out; -EINVAL for an impossible CPU. */
#define STACKID_IOC_GET_COST	_IOWR(STACKID_IOC_MAGIC, 0x09, struct stackid_cost)
/* struct stackid_ring_info out. */
#define STACKID_IOC_GET_RING_INFO _IOR(STACKID_IOC_MAGIC, 0x0a, struct stackid_ring_info)
/* struct stackid_wakeup in; -EINVAL out of range. */
#define STACKID_IOC_SET_WAKEUP	_IOW(STACKID_IOC_MAGIC, 0x0b, struct stackid_wakeup)
/* struct stackid_wakeup out: the values in force (defaults filled in). */
#define STACKID_IOC_GET_WAKEUP	_IOR(STACKID_IOC_MAGIC, 0x0c, struct stackid_wakeup)
/*
 * __s32 in: a file descriptor of a cgroup v2 directory: sample only tasks
 * in that cgroup or below it (besides the tgid filter); -1: every cgroup.
 * -EBADF: not an open cgroup v2 directory (a cgroup v1 one neither).
 * Cleared on close.
 */
#define STACKID_IOC_SET_CGROUP	_IOW(STACKID_IOC_MAGIC, 0x0d, __s32)
/*
 * struct stackid_unwind_table in: load a build-id's unwind table. -EEXIST
 * if that build-id has one already (it stays), -ENOSPC if the table would
 * take the tables above unwind_kb or make them more than 16384, -EINVAL
 * for a bad length, padding not
 * zero, or rows not ascending or with a rule not defined above, -EFAULT.
 */
#define STACKID_IOC_ADD_UNWIND	_IOW(STACKID_IOC_MAGIC, 0x0e, struct stackid_unwind_table)
/* struct stackid_unwind_info out. */
#define STACKID_IOC_GET_UNWIND	_IOR(STACKID_IOC_MAGIC, 0x0f, struct stackid_unwind_info)
/*
 * __u32 in (ABI 2.4): STACKID_FORMAT_* flags for the samples written from
 * now on; -EINVAL for an unknown flag, or STACKID_FORMAT_DELTA without
 * STACKID_FORMAT_PACKED. Each open() starts with 0.
 */
#define STACKID_IOC_SET_FORMAT	_IOW(STACKID_IOC_MAGIC, 0x10, __u32)
/* __u32 out: the flags in force. */
#define STACKID_IOC_GET_FORMAT	_IOR(STACKID_IOC_MAGIC, 0x11, __u32)

/* Samples as STACKID_REC_SAMPLE_PACKED where their frames fit. */
#define STACKID_FORMAT_PACKED	(1U << 0)
/*
 * ABI 2.6: packed samples as STACKID_REC_SAMPLE_DELTA where they follow,
 * in their ring, a packed sample of the same process, CPU, cgroup and
 * comm, at most STACKID_DELTA_RUN_MAX in a row (see struct
 * stackid_sample_delta); only with STACKID_FORMAT_PACKED (else -EINVAL).
 */
#define STACKID_FORMAT_DELTA	(1U << 1)
#define STACKID_FORMAT_ALL	(STACKID_FORMAT_PACKED | STACKID_FORMAT_DELTA)

#endif /* _UAPI_STACKID_H */
