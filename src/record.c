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
	[STACKID_STAT_FRAMES_VALID] = "frames_valid",
	[STACKID_STAT_TRUNCATED] = "truncated",
	[STACKID_STAT_BIDCACHE_HIT] = "bidcache_hit",
	[STACKID_STAT_BIDCACHE_MISS] = "bidcache_miss",
	[STACKID_STAT_PATHS] = "paths",
	[STACKID_STAT_PATHS_DROPPED] = "paths_dropped",
	[STACKID_STAT_DEFERRED] = "deferred",
	[STACKID_STAT_DEFERRED_DONE] = "deferred_done",
	[STACKID_STAT_DEFER_NO_SLOT] = "defer_no_slot",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NONE] = "frames_ip_none",
	[STACKID_STAT_IP_FIRST + STACKID_IP_RESOLVE_OFF] = "frames_ip_resolve_off",
	[STACKID_STAT_IP_FIRST + STACKID_IP_MM_BUSY] = "frames_ip_mm_busy",
	[STACKID_STAT_IP_FIRST + STACKID_IP_UNLOCK_BUSY] = "frames_ip_unlock_busy",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NO_VMA] = "frames_ip_no_vma",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NO_FILE] = "frames_ip_no_file",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NOT_REGULAR] = "frames_ip_not_regular",
	[STACKID_STAT_IP_FIRST + STACKID_IP_PAGE_ABSENT] = "frames_ip_page_absent",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NOTE_FAR] = "frames_ip_note_far",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NOT_ELF] = "frames_ip_not_elf",
	[STACKID_STAT_IP_FIRST + STACKID_IP_NO_BUILD_ID] = "frames_ip_no_build_id",
};

const char *stackid_stat_name(unsigned int i)
{
	return i < STACKID_STAT_NR ? stat_names[i] : NULL;
}

const char *stackid_ip_reason_name(unsigned int r)
{
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

static long check_sample(const unsigned char *p, u32 size, const char **why)
{
	struct stackid_sample s;
	struct stackid_frame f;
	unsigned int i;

	if (size < sizeof(s))
		return bad(why, "sample record too short");
	memcpy(&s, p, sizeof(s));
	if (s.nr_frames > STACKID_MAX_DEPTH ||
	    sizeof(s) + (size_t)s.nr_frames * sizeof(f) != size)
		return bad(why, "bad frame count");
	for (i = 0; i < s.nr_frames; i++) {
		memcpy(&f, p + sizeof(s) + i * sizeof(f), sizeof(f));
		if (f.status == STACKID_FRAME_VALID) {
			if (f.build_id_len < 1 ||
			    f.build_id_len > STACKID_BUILD_ID_SIZE)
				return bad(why, "bad build-id length");
			if (f.reason != STACKID_IP_NONE)
				return bad(why, "bad frame reason");
		} else if (f.status == STACKID_FRAME_IP) {
			if (f.build_id_len)
				return bad(why, "bad build-id length");
			if (f.reason == STACKID_IP_NONE ||
			    f.reason >= STACKID_IP_NR_REASONS)
				return bad(why, "bad frame reason");
		} else {
			return bad(why, "bad frame status");
		}
	}
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

long stackid_record_check_why(const void *buf, size_t len, const char **why)
{
	struct stackid_record_hdr hdr;
	const unsigned char *p = buf;

	if (len < sizeof(hdr))
		return 0;
	memcpy(&hdr, p, sizeof(hdr));
	if (hdr.size < sizeof(hdr) || hdr.size % 8 ||
	    hdr.size > STACKID_RECORD_MAX)
		return bad(why, "bad record size");
	if (len < hdr.size)
		return 0;
	switch (hdr.type) {
	case STACKID_REC_SAMPLE:
		return check_sample(p, hdr.size, why);
	case STACKID_REC_BUILD_ID_PATH:
		return check_path(p, hdr.size, why);
	default:
		return hdr.size;	/* unknown types are skipped by size */
	}
}

long stackid_record_check(const void *buf, size_t len)
{
	return stackid_record_check_why(buf, len, NULL);
}
