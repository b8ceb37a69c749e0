// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the ELF build-id note parser (src/elfnote.c).
 *
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined \
 *		-fno-sanitize-recover=all -Isrc -o build/fuzz_elfnote \
 *		test/fuzz/fuzz_elfnote.c src/elfnote.c
 *	mkdir -p build/elfnote-corpus build/elfnote-seeds
 *	sh test/unit/elfnote-fixtures.sh build/elfnote-fixtures | \
 *	while read -r f hex; do
 *		head -c 1024 "$f" >"build/elfnote-seeds/$(basename "$f")"
 *	done
 *	build/fuzz_elfnote -max_total_time=60 -max_len=4096 \
 *		-use_value_profile=1 build/elfnote-corpus build/elfnote-seeds
 *
 * The seeds are the first KiB of real files: their headers and notes lie
 * there, and short seeds make each mutation likelier to hit a note field
 * (with 4 KiB seeds and no value profile, a planted descsz off-by-one went
 * unfound for 30 s; with these settings it was found within the minute).
 *
 * Each input is parsed four ways: as a buffer (reads beyond it give
 * -EAGAIN), as a whole file (reads beyond it give -ERANGE), as a file of
 * which only a prefix, of a length taken from the input's last two bytes,
 * can be read now, and as a file rewritten under the parser's feet (a byte
 * read a second time has changed). Beyond the sanitizers, it checks that an id
 * has 1..20 bytes that occur in the input, that reads are small and few,
 * and that the answers agree: the parser stops at the first -EAGAIN, so an
 * answer other than -EAGAIN must be the whole file's answer.
 */
#define _GNU_SOURCE	/* memmem */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfnote.h"

/* ehdr (2) + phdrs (256) + notes (256, 2 reads each) + the descriptor */
#define MAX_READS (2 + 256 + 2 * 256 + 1)

struct frd {
	const u8 *p;
	u64 size, avail;
	int calls;
	u8 *seen;		/* set: bytes read before read back changed */
};

static int frd_read(void *ctx, u64 off, void *buf, u32 len)
{
	struct frd *r = ctx;
	u8 *b = buf;
	u32 i;

	if (!len || len > 64 || ++r->calls > MAX_READS)
		abort();
	if (off > r->size || len > r->size - off)
		return -ERANGE;
	if (off > r->avail || len > r->avail - off)
		return -EAGAIN;
	memcpy(buf, r->p + off, len);
	if (r->seen)
		for (i = 0; i < len; i++)
			b[i] ^= r->seen[off + i]++ ? 0x80 | r->calls : 0;
	return 0;
}

static int parse(struct frd *r, u8 *id, u32 *len)
{
	struct stackid_elf_src src = { .read = frd_read, .ctx = r };

	return stackid_elf_build_id(&src, id, len);
}

static void check_id(int ret, const u8 *id, u32 len, const u8 *data,
		     size_t size)
{
	if (ret)
		return;
	if (len < 1 || len > STACKID_BUILD_ID_MAX)
		abort();
	if (!memmem(data, size, id, len))
		abort();
}

static int same(int r1, const u8 *id1, u32 l1, int r2, const u8 *id2,
		u32 l2)
{
	return r1 == r2 && (r1 || (l1 == l2 && !memcmp(id1, id2, l1)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u8 id_buf[STACKID_BUILD_ID_MAX], id_full[STACKID_BUILD_ID_MAX];
	u8 id_part[STACKID_BUILD_ID_MAX], id_mut[STACKID_BUILD_ID_MAX];
	u32 len_buf, len_full, len_part, len_mut;
	struct frd r = { .p = data, .size = size, .avail = size };
	int ret_buf, ret_full, ret_part, ret_mut;

	if (size > UINT32_MAX)
		return 0;

	ret_buf = stackid_elf_build_id_buf(data, size, id_buf, &len_buf);
	check_id(ret_buf, id_buf, len_buf, data, size);
	if (ret_buf && ret_buf != -EAGAIN && ret_buf != -ENOEXEC &&
	    ret_buf != -ENOENT)
		abort();

	ret_full = parse(&r, id_full, &len_full);
	check_id(ret_full, id_full, len_full, data, size);
	if (ret_full && ret_full != -ENOEXEC && ret_full != -ENOENT)
		abort();
	if (ret_buf != -EAGAIN &&
	    !same(ret_buf, id_buf, len_buf, ret_full, id_full, len_full))
		abort();

	r.calls = 0;
	r.avail = size >= 2 ?
		(data[size - 2] | data[size - 1] << 8) % (size + 1) : 0;
	ret_part = parse(&r, id_part, &len_part);
	check_id(ret_part, id_part, len_part, data, size);
	if (ret_part != -EAGAIN &&
	    !same(ret_part, id_part, len_part, ret_full, id_full, len_full))
		abort();

	r.calls = 0;
	r.avail = size;
	r.seen = calloc(1, size ? size : 1);
	if (!r.seen)
		abort();
	ret_mut = parse(&r, id_mut, &len_mut);
	free(r.seen);
	if (!ret_mut && (len_mut < 1 || len_mut > STACKID_BUILD_ID_MAX))
		abort();
	return 0;
}
