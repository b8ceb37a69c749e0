/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The records of ABI 1.0, frozen, for readers of old captures. ABI 2.0
 * changed the frame (16 bytes, build-id by ring index) and the frame
 * reasons; the record header, the path record and the sample's fields up
 * to nr_frames kept their place.
 */
#ifndef STACKID_ABI1_H
#define STACKID_ABI1_H

#include <linux/types.h>
#include <stackid.h>

#define STACKID1_ABI_MAJOR	1

/* ABI 1 frame reasons (STACKID_FRAME_IP frames). */
enum stackid1_ip_reason {
	STACKID1_IP_NONE = 0,
	STACKID1_IP_RESOLVE_OFF,
	STACKID1_IP_MM_BUSY,
	STACKID1_IP_UNLOCK_BUSY,
	STACKID1_IP_NO_VMA,
	STACKID1_IP_NO_FILE,
	STACKID1_IP_NOT_REGULAR,
	STACKID1_IP_PAGE_ABSENT,
	STACKID1_IP_NOTE_FAR,
	STACKID1_IP_NOT_ELF,
	STACKID1_IP_NO_BUILD_ID,
	STACKID1_IP_NR_REASONS
};

/* One ABI 1 frame: 32 bytes, the build-id in every frame. */
struct stackid1_frame {
	__u8 build_id[STACKID_BUILD_ID_SIZE];
	__u8 status;
	__u8 build_id_len;
	__u8 reason;
	__u8 __pad;
	__u64 addr;
};

struct stackid1_sample {
	struct stackid_record_hdr hdr;
	__u32 flags;
	__u32 cpu;
	__u32 tgid;
	__u32 tid;
	__u64 time_ns;
	char comm[STACKID_COMM_LEN];
	__u16 nr_frames;
	__u16 __pad[3];
	struct stackid1_frame frames[];
};

#define STACKID1_RECORD_MAX	(sizeof(struct stackid1_sample) + \
				 STACKID_MAX_DEPTH * sizeof(struct stackid1_frame))

#endif /* STACKID_ABI1_H */
