/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Record decoding helpers shared by every user-space reader of
 * /dev/stackid and of capture files (pure code: see pure.h). They read
 * the records of ABI 2 (include/stackid.h) and, for old captures, of
 * ABI 1 (abi1.h).
 */
#ifndef STACKID_RECORD_H
#define STACKID_RECORD_H

#include "pure.h"
#include <stackid.h>
#include "abi1.h"
#include "packed.h"

/* Name of a statistics counter (enum stackid_stat), or NULL. */
const char *stackid_stat_name(unsigned int i);

/* Name of a frame fallback reason of ABI @major, or NULL. */
const char *stackid_ip_reason_name_abi(unsigned int major, unsigned int r);

/* ... of the current ABI. */
static inline const char *stackid_ip_reason_name(unsigned int r)
{
	return stackid_ip_reason_name_abi(STACKID_ABI_MAJOR, r);
}

/* hdr.size of a STACKID_REC_BUILD_ID_PATH record with this path_len. */
static inline size_t stackid_path_record_size(size_t path_len)
{
	return (sizeof(struct stackid_build_id_path) + path_len + 1 + 7) &
	       ~(size_t)7;
}

/* hdr.size of a STACKID_REC_KSYM record with these lengths. */
static inline size_t stackid_ksym_record_size(size_t name_len,
					      size_t module_len)
{
	return (sizeof(struct stackid_ksym) + name_len + module_len + 1 + 7) &
	       ~(size_t)7;
}

/* hdr.size of a STACKID_REC_CGROUP record with this path_len. */
static inline size_t stackid_cgroup_record_size(size_t path_len)
{
	return (sizeof(struct stackid_cgroup) + path_len + 1 + 7) &
	       ~(size_t)7;
}

/* Longest path a STACKID_REC_CGROUP record carries. */
#define STACKID_CGROUP_PATH_MAX	(STACKID_PATH_MAX - 8)

/* The largest record of ABI @major. */
static inline size_t stackid_record_max(unsigned int major)
{
	return major == STACKID1_ABI_MAJOR ? STACKID1_RECORD_MAX :
					     STACKID_RECORD_MAX;
}

/*
 * Validate the record of ABI @major at @buf, of which @len bytes are
 * available. Returns its size (> 0), 0 if @len does not hold the whole
 * record yet, or -EINVAL if it is malformed:
 *  - any record: size not a multiple of 8, below the header's, or above
 *    the ABI's largest record;
 *  - STACKID_REC_SAMPLE, STACKID_REC_SAMPLE_PACKED: frame count above STACKID_MAX_DEPTH or not
 *    matching the size, a frame status, reason, build-id length (ABI 1)
 *    or index (ABI 2) out of range; ABI 2: nr_kernel above nr_frames or
 *    STACKID_MAX_KDEPTH, kernel frames without STACKID_SF_KERNEL or with
 *    STACKID_SF_USER, a frame of the first nr_kernel that is not a
 *    kernel frame (reason 0; bid 0 only with addr 0) or a kernel frame
 *    after them;
 *  - STACKID_REC_SAMPLE_DELTA (ABI 2.6): nr_same above nr_frames, a
 *    frame count above STACKID_MAX_DEPTH or the frames it carries not
 *    matching the size, nr_kernel above nr_frames or STACKID_MAX_KDEPTH,
 *    padding not zero, a frame it carries bad as in a sample (what it
 *    stands for is checked once rebuilt: delta.h);
 *  - STACKID_REC_BUILD_ID_PATH: build_id_len not 1..20, path_len above
 *    STACKID_PATH_MAX, size not stackid_path_record_size(path_len), path
 *    not NUL-terminated at path[path_len] or with a NUL before it;
 *  - STACKID_REC_BUILD_ID (ABI 2): size, build_id_len not 1..20, index 0;
 *  - STACKID_REC_EPOCH (ABI 2): size;
 *  - STACKID_REC_KSYM (ABI 2): index 0, name_len not 1..511, module_len
 *    above 63, size not stackid_ksym_record_size(), a NUL in the name or
 *    the module, no NUL after them, padding not zero;
 *  - STACKID_REC_CGROUP (ABI 2): id 0, path_len above
 *    STACKID_CGROUP_PATH_MAX, size not stackid_cgroup_record_size(),
 *    path not NUL-terminated at path[path_len] or with a NUL before it,
 *    __pad or padding not zero.
 * Records of other types are only checked for their size (readers skip
 * them). The header is checked before @len matters, so a malformed size
 * is reported even when the record is not all there. On -EINVAL, *@why
 * (if @why) says what is wrong in a few words (a static string).
 */
/* enum stackid_stop and enum stackid_frame_how names, or NULL. */
const char *stackid_stop_name(unsigned int s);
const char *stackid_how_name(unsigned int h);

long stackid_record_check_abi(const void *buf, size_t len,
			      unsigned int major, const char **why);

/* The same for the current ABI. */
static inline long stackid_record_check_why(const void *buf, size_t len,
					    const char **why)
{
	return stackid_record_check_abi(buf, len, STACKID_ABI_MAJOR, why);
}

static inline long stackid_record_check(const void *buf, size_t len)
{
	return stackid_record_check_abi(buf, len, STACKID_ABI_MAJOR, NULL);
}

/*
 * The same for a STACKID_REC_SAMPLE_PACKED that stackid_delta_expand()
 * rebuilt from a delta sample that passed stackid_record_check() and a
 * previous sample that passed it (or was rebuilt and passed this): its
 * first @nr_new frames are the delta's, checked in these places already;
 * the rest are the previous sample's last nr_frames - @nr_new, of which
 * the first @tail_kernel had kernel places there. Only those of them now
 * in a place of the other kind are checked again: the result is the
 * whole check's, for less (a deep stack's delta carries a few frames).
 */
long stackid_record_check_rebuilt(const void *buf, size_t len,
				  unsigned int nr_new, unsigned int tail_kernel,
				  const char **why);

#endif /* STACKID_RECORD_H */
