/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Record decoding helpers shared by every user-space reader of
 * /dev/stackid and of capture files (pure code: see pure.h).
 */
#ifndef STACKID_RECORD_H
#define STACKID_RECORD_H

#include "pure.h"
#include <stackid.h>

/* Name of a statistics counter (enum stackid_stat), or NULL. */
const char *stackid_stat_name(unsigned int i);

/* Name of a frame fallback reason (enum stackid_ip_reason), or NULL. */
const char *stackid_ip_reason_name(unsigned int r);

/* hdr.size of a STACKID_REC_BUILD_ID_PATH record with this path_len. */
static inline size_t stackid_path_record_size(size_t path_len)
{
	return (sizeof(struct stackid_build_id_path) + path_len + 1 + 7) &
	       ~(size_t)7;
}

/*
 * Validate the record at @buf, of which @len bytes are available.
 * Returns its size (> 0), 0 if @len does not hold the whole record yet,
 * or -EINVAL if it is malformed:
 *  - any record: size not a multiple of 8, below the header's, or above
 *    STACKID_RECORD_MAX;
 *  - STACKID_REC_SAMPLE: frame count above STACKID_MAX_DEPTH or not
 *    matching the size, a frame status/reason/build-id length out of
 *    range;
 *  - STACKID_REC_BUILD_ID_PATH: build_id_len not 1..20, path_len above
 *    STACKID_PATH_MAX, size not stackid_path_record_size(path_len), path
 *    not NUL-terminated at path[path_len] or with a NUL before it.
 * Records of other types are only checked for their size (readers skip
 * them). The header is checked before @len matters, so a malformed size
 * is reported even when the record is not all there.
 */
long stackid_record_check(const void *buf, size_t len);

/*
 * stackid_record_check(), and on -EINVAL a short description of what is
 * wrong in *@why (a static string, e.g. "bad frame count"); @why may be
 * NULL.
 */
long stackid_record_check_why(const void *buf, size_t len, const char **why);

#endif /* STACKID_RECORD_H */
