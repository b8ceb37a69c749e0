// SPDX-License-Identifier: GPL-2.0
/*
 * Record decoding helpers (pure code, user space and fuzzers).
 */
#include "record.h"

static const char *const stat_names[STACKID_STAT_NR] = {
	[STACKID_STAT_SAMPLES] = "samples",
	[STACKID_STAT_DELIVERED] = "delivered",
	[STACKID_STAT_DROP_RING_FULL] = "dropped_ring_full",
	[STACKID_STAT_DROP_NESTED] = "dropped_nested",
	[STACKID_STAT_DROP_NO_MM] = "dropped_no_mm",
	[STACKID_STAT_DROP_FILTERED] = "dropped_filtered",
	[STACKID_STAT_DROP_NO_REGS] = "dropped_no_regs",
	[STACKID_STAT_DROP_USER_WORKER] = "dropped_user_worker",
	[STACKID_STAT_FRAMES_VALID] = "frames_valid",
	[STACKID_STAT_TRUNCATED] = "truncated",
	[STACKID_STAT_BIDCACHE_HIT] = "bidcache_hit",
	[STACKID_STAT_BIDCACHE_MISS] = "bidcache_miss",
	[STACKID_STAT_PARSES] = "parses",
	[STACKID_STAT_BUILD_IDS] = "build_id_records",
	[STACKID_STAT_EPOCHS] = "epochs",
	[STACKID_STAT_PATHS] = "paths",
	[STACKID_STAT_PATHS_DROPPED] = "paths_dropped",
	[STACKID_STAT_PATHS_LIMITED] = "paths_limited",
	[STACKID_STAT_DEFERRED] = "deferred",
	[STACKID_STAT_DEFERRED_DONE] = "deferred_done",
	[STACKID_STAT_DEFER_NO_SLOT] = "defer_no_slot",
	[STACKID_STAT_WAKEUPS] = "wakeups",
	[STACKID_STAT_EVENT_FAILED] = "event_failed",
	[STACKID_STAT_KFRAMES] = "kernel_frames",
	[STACKID_STAT_KSYMS] = "ksym_records",
	[STACKID_STAT_CGROUPS] = "cgroup_records",
	[STACKID_STAT_CGROUPS_DROPPED] = "cgroups_dropped",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NONE] = "frames_ip_none",
	[STACKID_STAT_IP_FIRST + STACKID_IP_RESOLVE_OFF] = "frames_ip_resolve_off",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NOT_RESOLVED] = "frames_ip_not_resolved",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NO_VMA] = "frames_ip_no_vma",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NO_FILE] = "frames_ip_no_file",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NOT_REGULAR] = "frames_ip_not_regular",
	[STACKID_STAT_IP_FIRST + STACKID_IP_READ_ERROR] = "frames_ip_read_error",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NOT_ELF] = "frames_ip_not_elf",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NO_BUILD_ID] = "frames_ip_no_build_id",
	[STACKID_STAT_IP_FIRST + STACKID_IP_BUDGET] = "frames_ip_budget",
	[STACKID_STAT_FRAMES_TABLE] = "frames_table",
	[STACKID_STAT_FRAMES_SIGNAL] = "frames_signal",
	[STACKID_STAT_STOP_FIRST + STACKID_STOP_NONE] = "stop_none",
	[STACKID_STAT_STOP_FIRST + STACKID_STOP_END] = "stop_end",
	[STACKID_STAT_STOP_FIRST + STACKID_STOP_DEPTH] = "stop_depth",
	[STACKID_STAT_STOP_FIRST + STACKID_STOP_FAULT] = "stop_fault",
	[STACKID_STAT_STOP_FIRST + STACKID_STOP_BAD_FP] = "stop_bad_fp",
	[STACKID_STAT_STOP_FIRST + STACKID_STOP_NO_ROW] = "stop_no_row",
	[STACKID_STAT_STOP_FIRST + STACKID_STOP_BAD_CFA] = "stop_bad_cfa",
	[STACKID_STAT_DROP_STALE] = "dropped_stale",
	[STACKID_STAT_DEFER_JOINED] = "defer_joined",
	[STACKID_STAT_DEFER_TAKEN_BACK] = "defer_taken_back",
	[STACKID_STAT_DEFER_NO_TICKET] = "defer_no_ticket",
	[STACKID_STAT_DELTA] = "delta_samples",
	[STACKID_STAT_DROP_CPU_BUDGET] = "dropped_cpu_budget",
};

static const char *const stop_names[STACKID_STOP_NR] = {
	"none", "end", "depth", "fault", "bad_fp", "no_row", "bad_cfa",
};

static const char *const how_names[STACKID_HOW_NR] = {
	"fp", "regs", "table", "signal",
};

const char *stackid_stop_name(unsigned int s)
{
	return s < STACKID_STOP_NR ? stop_names[s] : NULL;
}

const char *stackid_how_name(unsigned int h)
{
	return h < STACKID_HOW_NR ? how_names[h] : NULL;
}

/* ABI 1's reasons, for old captures. */
static const char *const reasons1[STACKID1_IP_NR_REASONS] = {
	"none", "resolve_off", "mm_busy", "unlock_busy", "no_vma", "no_file",
	"not_regular", "page_absent", "note_far", "not_elf", "no_build_id",
};

const char *stackid_stat_name(unsigned int i)
{
	return i < STACKID_STAT_NR ? stat_names[i] : NULL;
}

const char *stackid_ip_reason_name_abi(unsigned int major, unsigned int r)
{
	if (major == STACKID1_ABI_MAJOR)
		return r < STACKID1_IP_NR_REASONS ? reasons1[r] : NULL;
	/* "frames_ip_" is 10 characters */
	if (r >= STACKID_IP_NR_REASONS)
		return NULL;
	return stat_names[STACKID_STAT_IP_FIRST + r] + 10;
}

static long bad(const char **why, const char *what)
{
	if (why)
		*why = what;
	return -EINVAL;
}

/* A sample's frame count: at most STACKID_MAX_DEPTH, and its size. */
static bool frames_fit(unsigned int nr, size_t head, size_t frame, u32 size)
{
	return nr <= STACKID_MAX_DEPTH && head + (size_t)nr * frame == size;
}

static long check_sample1(const unsigned char *p, u32 size, const char **why)
{
	struct stackid1_sample s;
	struct stackid1_frame f;
	unsigned int i;

	if (size < sizeof(s))
		return bad(why, "sample record too short");
	memcpy(&s, p, sizeof(s));
	if (!frames_fit(s.nr_frames, sizeof(s), sizeof(f), size))
		return bad(why, "bad frame count");
	for (i = 0; i < s.nr_frames; i++) {
		memcpy(&f, p + sizeof(s) + i * sizeof(f), sizeof(f));
		if (f.status == STACKID_FRAME_VALID) {
			if (f.build_id_len < 1 ||
			    f.build_id_len > STACKID_BUILD_ID_SIZE)
				return bad(why, "bad build-id length");
			if (f.reason != STACKID1_IP_NONE)
				return bad(why, "bad frame reason");
		} else if (f.status == STACKID_FRAME_IP) {
			if (f.build_id_len)
				return bad(why, "bad build-id length");
			if (f.reason == STACKID1_IP_NONE ||
			    f.reason >= STACKID1_IP_NR_REASONS)
				return bad(why, "bad frame reason");
		} else {
			return bad(why, "bad frame status");
		}
	}
	return size;
}

/* Frame @f of an ABI 2 sample; @kernel: one of its first nr_kernel. */
static int check_frame(const struct stackid_frame *f, bool kernel,
		       const char **why)
{
	if (kernel) {
		if (f->status != STACKID_FRAME_KERNEL)
			return bad(why, "not a kernel frame in the first nr_kernel");
		if (f->reason != STACKID_IP_NONE)
			return bad(why, "bad frame reason");
		if (!f->bid && f->addr)
			return bad(why, "unnamed kernel frame with offset");
	} else if (f->status == STACKID_FRAME_VALID) {
		if (!f->bid)
			return bad(why, "bad build-id index");
		if (f->reason != STACKID_IP_NONE)
			return bad(why, "bad frame reason");
	} else if (f->status == STACKID_FRAME_IP) {
		if (f->bid)
			return bad(why, "bad build-id index");
		if (f->reason == STACKID_IP_NONE ||
		    f->reason >= STACKID_IP_NR_REASONS)
			return bad(why, "bad frame reason");
	} else if (f->status == STACKID_FRAME_KERNEL) {
		return bad(why, "kernel frame after the user frames");
	} else {
		return bad(why, "bad frame status");
	}
	return 0;
}

/* A sample's fields but its frames, read into @s. */
static long check_sample_hdr(const unsigned char *p, u32 size,
			     struct stackid_sample *s, const char **why)
{
	memcpy(s, p, sizeof(*s));
	if (!frames_fit(s->nr_frames, sizeof(*s),
			stackid_frame_size(s->hdr.type), size))
		return bad(why, "bad frame count");
	if (s->nr_kernel > s->nr_frames)
		return bad(why, "more kernel frames than frames");
	if (s->nr_kernel > STACKID_MAX_KDEPTH)
		return bad(why, "more kernel frames than STACKID_MAX_KDEPTH");
	if (s->nr_kernel && (!(s->flags & STACKID_SF_KERNEL) ||
			     (s->flags & STACKID_SF_USER)))
		return bad(why, "kernel frames without the kernel flag");
	if ((s->flags & STACKID_SF_KTHREAD) &&
	    (!s->nr_kernel || s->nr_kernel != s->nr_frames))
		return bad(why, "kernel thread sample with user frames");
	return size;
}

static long check_sample(const unsigned char *p, u32 size, const char **why)
{
	struct stackid_sample s;
	struct stackid_frame f;
	unsigned int i;

	if (size < sizeof(s))
		return bad(why, "sample record too short");
	if (check_sample_hdr(p, size, &s, why) < 0)
		return -EINVAL;
	for (i = 0; i < s.nr_frames; i++) {
		stackid_sample_frame(p, i, &f);
		if (check_frame(&f, i < s.nr_kernel, why))
			return -EINVAL;
	}
	return size;
}

long stackid_record_check_rebuilt(const void *buf, size_t len,
				  unsigned int nr_new, unsigned int tail_kernel,
				  const char **why)
{
	const unsigned char *p = buf;
	struct stackid_sample s;
	struct stackid_frame f;
	unsigned int i;

	if (len < sizeof(s))
		return bad(why, "sample record too short");
	memcpy(&s, p, sizeof(s));
	if (s.hdr.type != STACKID_REC_SAMPLE_PACKED ||
	    s.hdr.size < sizeof(s) || s.hdr.size % 8 ||
	    s.hdr.size > stackid_record_max(STACKID_ABI_MAJOR) ||
	    s.hdr.size > len || nr_new > s.nr_frames)
		return bad(why, "not a rebuilt sample");
	if (check_sample_hdr(p, s.hdr.size, &s, why) < 0)
		return -EINVAL;
	/* the new frames were checked in their places, as a delta's */
	for (i = nr_new; i < s.nr_frames; i++) {
		if ((i < s.nr_kernel) == (i - nr_new < tail_kernel))
			continue;
		stackid_sample_frame(p, i, &f);
		if (check_frame(&f, i < s.nr_kernel, why))
			return -EINVAL;
	}
	return s.hdr.size;
}

/*
 * A delta sample (ABI 2.6): its header and the frames it carries. What
 * it stands for is checked as a sample once rebuilt (delta.h).
 */
static long check_delta(const unsigned char *p, u32 size, const char **why)
{
	struct stackid_sample_delta d;
	struct stackid_frame f;
	unsigned int i, n;
	u64 v;

	if (size < sizeof(d))
		return bad(why, "delta sample record too short");
	memcpy(&d, p, sizeof(d));
	n = d.nr_frames - d.nr_same;
	if (d.nr_same > d.nr_frames ||
	    !frames_fit(n, sizeof(d), sizeof(v), size) ||
	    d.nr_frames > STACKID_MAX_DEPTH)
		return bad(why, "bad frame count");
	if (d.nr_kernel > d.nr_frames || d.nr_kernel > STACKID_MAX_KDEPTH)
		return bad(why, "bad kernel frame count");
	if (d.__pad)
		return bad(why, "delta sample padding not zero");
	for (i = 0; i < n; i++) {
		memcpy(&v, p + sizeof(d) + i * sizeof(v), sizeof(v));
		stackid_frame_unpack(v, &f);
		if (check_frame(&f, i < d.nr_kernel, why))
			return -EINVAL;
	}
	return size;
}

/* Bytes @p[from..to) all zero. */
static bool zeros(const unsigned char *p, size_t from, size_t to)
{
	for (; from < to; from++)
		if (p[from])
			return false;
	return true;
}

static long check_ksym(const unsigned char *p, u32 size, const char **why)
{
	struct stackid_ksym k;
	size_t n;

	if (size < sizeof(k) + 8)
		return bad(why, "kernel symbol record too short");
	memcpy(&k, p, sizeof(k));
	if (!k.index)
		return bad(why, "bad kernel symbol index");
	if (k.name_len < 1 || k.name_len > STACKID_KSYM_NAME_MAX)
		return bad(why, "bad kernel symbol name length");
	if (k.module_len > STACKID_KSYM_MODULE_MAX)
		return bad(why, "bad kernel module name length");
	if (size != stackid_ksym_record_size(k.name_len, k.module_len))
		return bad(why, "ksym lengths do not match record size");
	n = sizeof(k) + k.name_len + k.module_len;
	if (memchr(p + sizeof(k), 0, n - sizeof(k)))
		return bad(why, "NUL inside a ksym or module name");
	if (!zeros(p, n, size))
		return bad(why, "ksym not NUL-terminated and zero-padded");
	return size;
}

static long check_cgroup(const unsigned char *p, u32 size, const char **why)
{
	struct stackid_cgroup cg;
	const unsigned char *path = p + sizeof(cg);

	if (size < sizeof(cg) + 8)
		return bad(why, "cgroup record too short");
	memcpy(&cg, p, sizeof(cg));
	if (!cg.id)
		return bad(why, "bad cgroup id");
	if (cg.__pad[0] || cg.__pad[1] || cg.__pad[2])
		return bad(why, "cgroup record padding not zero");
	if (cg.path_len > STACKID_CGROUP_PATH_MAX)
		return bad(why, "bad cgroup path length");
	if (size != stackid_cgroup_record_size(cg.path_len))
		return bad(why, "cgroup path length does not match size");
	if (memchr(path, 0, cg.path_len) ||
	    !zeros(p, sizeof(cg) + cg.path_len, size))
		return bad(why, "cgroup path not NUL-terminated and padded");
	return size;
}

static long check_path(const unsigned char *p, u32 size, const char **why)
{
	struct stackid_build_id_path bp;
	const unsigned char *path = p + sizeof(bp);

	if (size < sizeof(bp) + 8)
		return bad(why, "path record too short");
	memcpy(&bp, p, sizeof(bp));
	if (bp.build_id_len < 1 || bp.build_id_len > STACKID_BUILD_ID_SIZE)
		return bad(why, "bad build-id length");
	if (bp.path_len > STACKID_PATH_MAX)
		return bad(why, "bad path length");
	if (size != stackid_path_record_size(bp.path_len))
		return bad(why, "path length does not match record size");
	if (path[bp.path_len] || memchr(path, 0, bp.path_len))
		return bad(why, "path not NUL-terminated at its length");
	return size;
}

static long check_build_id(const unsigned char *p, u32 size, const char **why)
{
	struct stackid_build_id b;

	if (size != sizeof(b))
		return bad(why, "bad build-id record size");
	memcpy(&b, p, sizeof(b));
	if (b.build_id_len < 1 || b.build_id_len > STACKID_BUILD_ID_SIZE)
		return bad(why, "bad build-id length");
	if (!b.index)
		return bad(why, "bad build-id index");
	return size;
}

/* ABI 1 (old captures): samples and paths are checked, the rest by size. */
static long check_abi1(const unsigned char *p, u16 type, u32 size,
		       const char **why)
{
	switch (type) {
	case STACKID_REC_SAMPLE:
		return check_sample1(p, size, why);
	case STACKID_REC_BUILD_ID_PATH:
		return check_path(p, size, why);
	default:
		return size;
	}
}

long stackid_record_check_abi(const void *buf, size_t len,
			      unsigned int major, const char **why)
{
	struct stackid_record_hdr hdr;
	const unsigned char *p = buf;

	if (len < sizeof(hdr))
		return 0;
	memcpy(&hdr, p, sizeof(hdr));
	if (hdr.size < sizeof(hdr) || hdr.size % 8 ||
	    hdr.size > stackid_record_max(major))
		return bad(why, "bad record size");
	if (len < hdr.size)
		return 0;
	if (major == STACKID1_ABI_MAJOR)
		return check_abi1(p, hdr.type, hdr.size, why);
	switch (hdr.type) {
	case STACKID_REC_SAMPLE:
	case STACKID_REC_SAMPLE_PACKED:
		return check_sample(p, hdr.size, why);
	case STACKID_REC_SAMPLE_DELTA:
		return check_delta(p, hdr.size, why);
	case STACKID_REC_BUILD_ID_PATH:
		return check_path(p, hdr.size, why);
	case STACKID_REC_BUILD_ID:
		return check_build_id(p, hdr.size, why);
	case STACKID_REC_EPOCH:
		if (hdr.size != sizeof(struct stackid_epoch))
			return bad(why, "bad epoch record size");
		return hdr.size;
	case STACKID_REC_KSYM:
		return check_ksym(p, hdr.size, why);
	case STACKID_REC_CGROUP:
		return check_cgroup(p, hdr.size, why);
	default:
		return hdr.size;	/* unknown types are skipped by size */
	}
}
