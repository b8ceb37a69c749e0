// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for the ELF build-id note parser (src/elfnote.c).
 *
 * Build and run (synthetic images only):
 *
 *	gcc -Wall -Wextra -Werror -Isrc -o build/test_elfnote \
 *		test/unit/test_elfnote.c src/elfnote.c
 *	build/test_elfnote
 *
 * With real binaries, built by the fixture script into a directory of your
 * choice; it prints "FILE HEX" lines (HEX as readelf -n shows it, or "-"
 * for a file without a build-id, which must give -ENOENT):
 *
 *	sh test/unit/elfnote-fixtures.sh build/elfnote-fixtures | \
 *		xargs build/test_elfnote
 *
 * Usage: test_elfnote [FILE HEX]...
 * Output is TAP; the exit status is non-zero when a test fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfnote.h"
#include "tap.h"

#define PT_NULL_	0
#define PT_LOAD_	1
#define PT_NOTE_	4
#define NT_BUILD_ID	3
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- synthetic images -------------------------------------------------- */

struct tnote {
	u32 namesz;		/* as written to n_namesz */
	const char *name;	/* namesz bytes of it are written */
	u32 type;
	u32 descsz;		/* as written to n_descsz */
	const u8 *desc;		/* descsz bytes; NULL: a 0xaa filler */
};

struct tseg {
	u32 type;		/* p_type */
	u32 align;		/* p_align, also used to lay the notes out */
	u64 off;		/* where the notes go; 0: after the previous */
	u32 fill;		/* empty notes (12 bytes each) put first */
	int n;
	struct tnote note[4];
};

struct timg {
	int cls;		/* 1: ELF32, 2: ELF64 */
	u64 phoff;		/* 0: right after the file header */
	u32 filler;		/* PT_NULL headers before the segments */
	int nseg;
	struct tseg seg[4];
};

#define IMG_MAX (4u << 20)
static u8 img[IMG_MAX];

static void put16(u8 *p, u16 v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(u8 *p, u32 v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static void put64(u8 *p, u64 v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

static u64 alignup(u64 x, u64 a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Header field offsets, for corrupting built images. */
#define OFF_PHOFF(cls)		((cls) == 2 ? 32 : 28)
#define OFF_PHENTSIZE(cls)	((cls) == 2 ? 54 : 42)
#define OFF_PHNUM(cls)		((cls) == 2 ? 56 : 44)

/* Write the image described by @im into img[]; return its size. */
static size_t build(const struct timg *im)
{
	int is64 = im->cls == 2;
	u32 ehsize = is64 ? 64 : 52, phentsize = is64 ? 56 : 32;
	u32 phnum = im->filler + im->nseg;
	u64 phoff = im->phoff ? im->phoff : ehsize;
	u64 end = phoff + (u64)phnum * phentsize;
	u32 i;
	int s, k;

	memset(img, 0, sizeof(img));
	memcpy(img, "\177ELF", 4);
	img[4] = im->cls;
	img[5] = 1;	/* little-endian */
	img[6] = 1;	/* EV_CURRENT */
	put16(img + 16, 3);			/* ET_DYN */
	put16(img + 18, is64 ? 62 : 3);		/* x86-64 / i386 */
	put32(img + 20, 1);
	if (is64)
		put64(img + OFF_PHOFF(2), phoff);
	else
		put32(img + OFF_PHOFF(1), phoff);
	put16(img + (is64 ? 52 : 40), ehsize);
	put16(img + OFF_PHENTSIZE(im->cls), phentsize);
	put16(img + OFF_PHNUM(im->cls), phnum);

	for (i = 0; i < im->filler; i++)
		put32(img + phoff + (u64)i * phentsize, PT_NULL_);

	for (s = 0; s < im->nseg; s++) {
		const struct tseg *sg = &im->seg[s];
		u64 a = sg->align == 8 ? 8 : 4;
		u64 start = sg->off ? sg->off : alignup(end, 8);
		u64 pos = start;
		u8 *ph = img + phoff + (u64)(im->filler + s) * phentsize;

		for (i = 0; i < sg->fill; i++)
			pos += 12;	/* zeroes: namesz 0, descsz 0, type 0 */
		for (k = 0; k < sg->n; k++) {
			const struct tnote *n = &sg->note[k];
			u64 desc;

			put32(img + pos, n->namesz);
			put32(img + pos + 4, n->descsz);
			put32(img + pos + 8, n->type);
			if (n->name)
				memcpy(img + pos + 12, n->name, n->namesz);
			desc = start + alignup(pos - start + 12 + n->namesz, a);
			if (n->desc)
				memcpy(img + desc, n->desc, n->descsz);
			else
				memset(img + desc, 0xaa, n->descsz);
			pos = start + alignup(desc - start + n->descsz, a);
		}
		if (is64) {
			put32(ph, sg->type);
			put32(ph + 4, 4);		/* PF_R */
			put64(ph + 8, start);
			put64(ph + 32, pos - start);
			put64(ph + 40, pos - start);
			put64(ph + 48, sg->align);
		} else {
			put32(ph, sg->type);
			put32(ph + 4, start);
			put32(ph + 16, pos - start);
			put32(ph + 20, pos - start);
			put32(ph + 24, 4);
			put32(ph + 28, sg->align);
		}
		if (pos > end)
			end = pos;
	}
	return end;
}

/* ---- readers ----------------------------------------------------------- */

/*
 * A file of @size bytes at @p. Reads beyond @size give -ERANGE, reads
 * beyond @avail give -EAGAIN, the read numbered @fail_at (from 0) gives
 * @fail_err. Every byte read is counted in @seen, when set.
 */
struct rd {
	const u8 *p;
	u64 size, avail;
	int calls, fail_at, fail_err;
	u8 *seen;
};

static int rd_read(void *ctx, u64 off, void *buf, u32 len)
{
	struct rd *r = ctx;
	u64 i;

	if (r->calls++ == r->fail_at)
		return r->fail_err;
	if (len == 0 || len > 64)
		return -EINVAL;	/* breaks elfnote.h's promise */
	if (off > r->size || len > r->size - off)
		return -ERANGE;
	if (off > r->avail || len > r->avail - off)
		return -EAGAIN;
	memcpy(buf, r->p + off, len);
	if (r->seen)
		for (i = off; i < off + len; i++)
			r->seen[i]++;
	return 0;
}

static struct rd rd_make(const u8 *p, u64 size)
{
	struct rd r = {
		.p = p, .size = size, .avail = size, .fail_at = -1,
	};

	return r;
}

static int parse_rd(struct rd *r, u8 *id, u32 *len)
{
	struct stackid_elf_src src = { .read = rd_read, .ctx = r };

	return stackid_elf_build_id(&src, id, len);
}

/* ---- helpers ----------------------------------------------------------- */

static const u8 pat[32] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00,
};

static const u8 other[32] = {
	0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef,
	0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef,
	0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef,
	0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef,
};

#define GNU_ID(sz, d) { 4, "GNU", NT_BUILD_ID, (sz), (d) }

static const char *errname(int e)
{
	static char buf[32];

	switch (e) {
	case 0:		return "0";
	case -ENOEXEC:	return "-ENOEXEC";
	case -ENOENT:	return "-ENOENT";
	case -EAGAIN:	return "-EAGAIN";
	case -ERANGE:	return "-ERANGE";
	case -EIO:	return "-EIO";
	case -EINVAL:	return "-EINVAL";
	}
	snprintf(buf, sizeof(buf), "%d", e);
	return buf;
}

/*
 * Parse img[0..size) with the buffer API, expecting @want, and as a whole
 * file with the callback API, expecting @want_cb (unless it is 1); on 0,
 * expect @wid/@wlen.
 */
static void expect2(const char *what, size_t size, int want, int want_cb,
		    const u8 *wid, u32 wlen)
{
	u8 id[STACKID_BUILD_ID_MAX];
	u32 len = 99;
	struct rd r = rd_make(img, size);
	int ret;

	memset(id, 0x5a, sizeof(id));
	ret = stackid_elf_build_id_buf(img, size, id, &len);
	tap_ok(ret == want && (ret ? len == 0 :
			       len == wlen && !memcmp(id, wid, wlen)),
	       "%s: buf api gives %s (want %s), len %u", what, errname(ret),
	       errname(want), len);

	if (want_cb == 1)
		return;
	len = 99;
	memset(id, 0x5a, sizeof(id));
	ret = parse_rd(&r, id, &len);
	tap_ok(ret == want_cb && (ret ? len == 0 :
				  len == wlen && !memcmp(id, wid, wlen)),
	       "%s: callback api gives %s (want %s), len %u", what,
	       errname(ret), errname(want_cb), len);
}

/*
 * Both APIs agree, except that where the buffer API says -EAGAIN, the whole
 * file's answer depends on the test: leave it to expect2().
 */
static void expect(const char *what, size_t size, int want, const u8 *wid,
		   u32 wlen)
{
	expect2(what, size, want, want == -EAGAIN ? 1 : want, wid, wlen);
}

/*
 * Truncate a valid image at every length, and limit what can be read to
 * every length: the parser must give the right id or an error, never a
 * wrong id, and with the buffer API, where a valid image gives no error
 * but -EAGAIN, exactly the right id or -EAGAIN.
 */
static void truncations(const char *what, const u8 *p, size_t size,
			const u8 *wid, u32 wlen, int whole)
{
	size_t n, bad_buf = 0, bad_trunc = 0, bad_avail = 0, ok_buf = 0;
	u8 id[STACKID_BUILD_ID_MAX];
	u32 len;
	int ret;

	for (n = 0; n <= size; n++) {
		struct rd r = rd_make(p, n);

		ret = stackid_elf_build_id_buf(p, n, id, &len);
		if (!ret && (len != wlen || memcmp(id, wid, wlen)))
			bad_buf++;
		else if (ret && ret != -EAGAIN)
			bad_buf++;
		else if (!ret)
			ok_buf++;
		if (whole && n == size && ret)
			bad_buf++;

		/* A file that really ends at n. */
		ret = parse_rd(&r, id, &len);
		if (!ret && (len != wlen || memcmp(id, wid, wlen)))
			bad_trunc++;
		if (whole && n == size && ret)
			bad_trunc++;

		/* A whole file of which only n bytes can be read now. */
		r = rd_make(p, size);
		r.avail = n;
		ret = parse_rd(&r, id, &len);
		if (!ret && (len != wlen || memcmp(id, wid, wlen)))
			bad_avail++;
		else if (ret && ret != -EAGAIN)
			bad_avail++;
	}
	tap_ok(!bad_buf, "%s: buf api, %zu lengths: %zu bad, %zu found",
	       what, size + 1, bad_buf, ok_buf);
	tap_ok(!bad_trunc, "%s: truncated files, %zu lengths: %zu bad",
	       what, size + 1, bad_trunc);
	tap_ok(!bad_avail, "%s: partly readable files, %zu lengths: %zu bad",
	       what, size + 1, bad_avail);
}

/* ---- synthetic tests --------------------------------------------------- */

static void test_sizes(int cls)
{
	static const u32 sizes[] = { 20, 16, 8, 1 };
	char what[64];
	size_t i, sz;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct timg im = {
			.cls = cls, .nseg = 1,
			.seg = { { .type = PT_NOTE_, .align = 4, .n = 1,
				   .note = { GNU_ID(sizes[i], pat) } } },
		};

		sz = build(&im);
		snprintf(what, sizeof(what), "ELF%d build-id of %u bytes",
			 cls == 2 ? 64 : 32, sizes[i]);
		expect(what, sz, 0, pat, sizes[i]);
		truncations(what, img, sz, pat, sizes[i], 1);
	}
}

static void test_skips(int cls)
{
	int b = cls == 2 ? 64 : 32;
	char what[96];
	size_t sz;
	/* descsz 0 and 21, another name, a name without NUL: all skipped */
	struct timg im = {
		.cls = cls, .nseg = 1,
		.seg = { { .type = PT_NOTE_, .align = 4, .n = 4, .note = {
			GNU_ID(0, NULL),
			GNU_ID(21, other),
			{ 4, "XYZ", NT_BUILD_ID, 20, other },
			GNU_ID(16, pat),
		} } },
	};
	struct timg im2 = {
		.cls = cls, .nseg = 1,
		.seg = { { .type = PT_NOTE_, .align = 4, .n = 4, .note = {
			{ 3, "GNU", NT_BUILD_ID, 20, other },
			{ 4, "GNUX", NT_BUILD_ID, 20, other },
			{ 4, "GNU", 1, 16, other },	/* NT_GNU_ABI_TAG */
			GNU_ID(20, pat),
		} } },
	};
	struct timg none = {
		.cls = cls, .nseg = 1,
		.seg = { { .type = PT_NOTE_, .align = 4, .n = 3, .note = {
			GNU_ID(0, NULL),
			GNU_ID(21, other),
			{ 4, "Go\0", 4, 20, other },
		} } },
	};

	sz = build(&im);
	snprintf(what, sizeof(what), "ELF%d descsz 0, 21, other name skipped",
		 b);
	expect(what, sz, 0, pat, 16);
	truncations(what, img, sz, pat, 16, 1);

	sz = build(&im2);
	snprintf(what, sizeof(what),
		 "ELF%d namesz 3, name GNUX, other type skipped", b);
	expect(what, sz, 0, pat, 20);

	sz = build(&none);
	snprintf(what, sizeof(what), "ELF%d only unusable notes", b);
	expect(what, sz, -ENOENT, NULL, 0);
}

static void test_multi(int cls)
{
	int b = cls == 2 ? 64 : 32;
	char what[96];
	size_t sz;
	struct timg im = {
		.cls = cls, .nseg = 4, .seg = {
			{ .type = PT_LOAD_, .align = 4, .n = 1,
			  .note = { GNU_ID(20, other) } },
			{ .type = PT_NOTE_, .align = 4, .n = 1,
			  .note = { { 4, "GNU", 1, 16, other } } },
			{ .type = PT_NOTE_, .align = 4, .n = 2, .note = {
				{ 8, "FreeBSD", NT_BUILD_ID, 4, other },
				GNU_ID(20, pat),
			} },
			{ .type = PT_NOTE_, .align = 4, .n = 1,
			  .note = { GNU_ID(20, other) } },
		},
	};

	sz = build(&im);
	snprintf(what, sizeof(what),
		 "ELF%d build-id in second PT_NOTE, first match wins", b);
	expect(what, sz, 0, pat, 20);
	truncations(what, img, sz, pat, 20, 1);
}

static void test_align8(int cls)
{
	int b = cls == 2 ? 64 : 32;
	char what[96];
	size_t sz;
	static const u8 ones[4] = { 0xff, 0xff, 0xff, 0xff };
	/*
	 * namesz 6: the descriptor is at 24 with align 8 but would be at 20
	 * with align 4, and then the next note would be read at 24, from the
	 * 0xff descriptor: a 4-aligned walk finds nothing.
	 */
	struct timg im = {
		.cls = cls, .nseg = 1,
		.seg = { { .type = PT_NOTE_, .align = 8, .n = 2, .note = {
			{ 6, "ABCDE", 5, 4, ones },
			GNU_ID(20, pat),
		} } },
	};
	struct timg im4 = im;

	sz = build(&im);
	snprintf(what, sizeof(what), "ELF%d p_align 8 segment", b);
	expect(what, sz, 0, pat, 20);
	truncations(what, img, sz, pat, 20, 1);

	/* The same layout said to be 4-aligned is garbage after note one. */
	im4.seg[0].align = 4;
	build(&im);
	if (cls == 2)
		put64(img + 64 + 48, 4);
	else
		put32(img + 52 + 28, 4);
	snprintf(what, sizeof(what),
		 "ELF%d p_align 8 layout read as p_align 4", b);
	expect(what, sz, -ENOENT, NULL, 0);

	/* Laid out 4-aligned: found, and so for p_align 0, 1, 2, 16. */
	sz = build(&im4);
	snprintf(what, sizeof(what), "ELF%d p_align 4 segment", b);
	expect(what, sz, 0, pat, 20);
	if (cls == 2)
		put64(img + 64 + 48, 16);
	else
		put32(img + 52 + 28, 0);
	snprintf(what, sizeof(what), "ELF%d p_align %s taken as 4", b,
		 cls == 2 ? "16" : "0");
	expect(what, sz, 0, pat, 20);
}

static void test_beyond(int cls)
{
	int b = cls == 2 ? 64 : 32;
	char what[96];
	size_t sz;
	struct timg ph_far = {
		.cls = cls, .phoff = 5000, .nseg = 1,
		.seg = { { .type = PT_NOTE_, .align = 4, .off = 200, .n = 1,
			   .note = { GNU_ID(20, pat) } } },
	};
	struct timg note_far = {
		.cls = cls, .nseg = 2, .seg = {
			{ .type = PT_NOTE_, .align = 4, .n = 1,
			  .note = { { 4, "GNU", 1, 16, other } } },
			{ .type = PT_NOTE_, .align = 4, .off = 8192, .n = 1,
			  .note = { GNU_ID(20, pat) } },
		},
	};
	struct timg note_near = {
		.cls = cls, .nseg = 2, .seg = {
			{ .type = PT_NOTE_, .align = 4, .n = 1,
			  .note = { GNU_ID(8, pat) } },
			{ .type = PT_NOTE_, .align = 4, .off = 8192, .n = 1,
			  .note = { GNU_ID(20, other) } },
		},
	};

	sz = build(&ph_far);
	snprintf(what, sizeof(what), "ELF%d phdrs beyond the first page", b);
	expect(what, 4096, -EAGAIN, NULL, 0);
	expect(what, sz, 0, pat, 20);

	sz = build(&note_far);
	snprintf(what, sizeof(what), "ELF%d note beyond the first page", b);
	expect(what, 4096, -EAGAIN, NULL, 0);
	expect(what, sz, 0, pat, 20);

	sz = build(&note_near);
	snprintf(what, sizeof(what),
		 "ELF%d note in the first page, another beyond", b);
	expect(what, 4096, 0, pat, 8);

	/* A note segment beyond EOF is skipped, a phdr table is malformed. */
	sz = build(&note_far);
	if (cls == 2)
		put64(img + 64 + 8, 1u << 30);
	else
		put32(img + 52 + 4, 1u << 30);
	snprintf(what, sizeof(what), "ELF%d first PT_NOTE beyond EOF", b);
	expect2(what, sz, -EAGAIN, 0, pat, 20);
	sz = build(&note_far);
	if (cls == 2)
		put64(img + 64 + 56 + 8, 1u << 30);
	else
		put32(img + 52 + 32 + 4, 1u << 30);
	snprintf(what, sizeof(what), "ELF%d only PT_NOTE with id beyond EOF",
		 b);
	expect2(what, sz, -EAGAIN, -ENOENT, NULL, 0);
	sz = build(&ph_far);
	snprintf(what, sizeof(what), "ELF%d phdrs beyond EOF", b);
	expect2(what, 4096, -EAGAIN, -ENOEXEC, NULL, 0);
}

static void test_bad_header(int cls)
{
	int b = cls == 2 ? 64 : 32;
	struct timg im = {
		.cls = cls, .nseg = 1,
		.seg = { { .type = PT_NOTE_, .align = 4, .n = 1,
			   .note = { GNU_ID(20, pat) } } },
	};
	static const struct {
		u32 off;
		u8 val;
		const char *what;
	} bytes[] = {
		{ 0, 0x7e, "magic[0]" }, { 1, 'e', "magic[1]" },
		{ 2, 'l', "magic[2]" }, { 3, 'f', "magic[3]" },
		{ 4, 0, "class 0" }, { 4, 3, "class 3" },
		{ 5, 0, "data 0" }, { 5, 2, "big-endian" },
		{ 5, 3, "data 3" },
	};
	static const u16 entsizes[] = { 0, 1, 31, 33, 55, 57, 64, 0xffff };
	char what[96];
	size_t i, sz;
	u64 hugeoff;
	u8 id[STACKID_BUILD_ID_MAX];
	u32 len;
	int ret;

	for (i = 0; i < ARRAY_SIZE(bytes); i++) {
		sz = build(&im);
		img[bytes[i].off] = bytes[i].val;
		snprintf(what, sizeof(what), "ELF%d bad %s", b, bytes[i].what);
		expect(what, sz, -ENOEXEC, NULL, 0);
	}
	for (i = 0; i < ARRAY_SIZE(entsizes); i++) {
		sz = build(&im);
		put16(img + OFF_PHENTSIZE(cls), entsizes[i]);
		snprintf(what, sizeof(what), "ELF%d phentsize %u", b,
			 entsizes[i]);
		expect(what, sz, -ENOEXEC, NULL, 0);
	}
	/* The other class's phentsize */
	sz = build(&im);
	put16(img + OFF_PHENTSIZE(cls), cls == 2 ? 32 : 56);
	snprintf(what, sizeof(what), "ELF%d with ELF%d phentsize", b,
		 cls == 2 ? 32 : 64);
	expect(what, sz, -ENOEXEC, NULL, 0);

	/* A phdr table that overflows the address space (ELF64 only). */
	if (cls == 2) {
		sz = build(&im);
		hugeoff = ~0ull - 56 * 3;
		put64(img + OFF_PHOFF(2), hugeoff);
		put16(img + OFF_PHNUM(2), 4);
		expect("ELF64 phdr table overflows", sz, -ENOEXEC, NULL, 0);
		put16(img + OFF_PHNUM(2), 3);
		expect("ELF64 phdr table ends at 2^64-1", sz, -EAGAIN, NULL,
		       0);
	}

	/* Too short for a header, as a whole file: not ELF. */
	sz = build(&im);
	for (i = 0; i < (cls == 2 ? 64u : 52u); i += 7) {
		struct rd r = rd_make(img, i);

		ret = parse_rd(&r, id, &len);
		tap_ok(ret == -ENOEXEC,
		       "ELF%d file of %zu bytes: %s (want -ENOEXEC)", b, i,
		       errname(ret));
	}
	/* An ELF32 file needs only 52 bytes: phnum 0 gives -ENOENT. */
	if (cls == 1) {
		struct rd r = rd_make(img, 52);

		put16(img + OFF_PHNUM(1), 0);
		ret = parse_rd(&r, id, &len);
		tap_ok(ret == -ENOENT, "ELF32 header-only file: %s",
		       errname(ret));
	}
}

static void test_no_note(int cls)
{
	int b = cls == 2 ? 64 : 32;
	char what[96];
	size_t sz;
	struct timg load = {
		.cls = cls, .nseg = 2, .seg = {
			{ .type = PT_LOAD_, .align = 4, .n = 1,
			  .note = { GNU_ID(20, pat) } },
			{ .type = 0x6474e550, .align = 4, .n = 1,
			  .note = { GNU_ID(20, pat) } },
		},
	};
	struct timg empty = {
		.cls = cls, .nseg = 1,
		.seg = { { .type = PT_NOTE_, .align = 4, .n = 0 } },
	};
	struct timg nophdr = { .cls = cls };

	sz = build(&load);
	snprintf(what, sizeof(what), "ELF%d without PT_NOTE", b);
	expect(what, sz, -ENOENT, NULL, 0);
	sz = build(&empty);
	snprintf(what, sizeof(what), "ELF%d with an empty PT_NOTE", b);
	expect(what, sz, -ENOENT, NULL, 0);
	sz = build(&nophdr);
	snprintf(what, sizeof(what), "ELF%d with e_phnum 0", b);
	expect(what, sz, -ENOENT, NULL, 0);
}

/* Malformed notes end their segment's walk, not the file's. */
static void test_malformed_notes(int cls)
{
	int b = cls == 2 ? 64 : 32;
	char what[96];
	size_t sz;
	u64 seg0;
	struct timg im = {
		.cls = cls, .nseg = 2, .seg = {
			{ .type = PT_NOTE_, .align = 4, .n = 2, .note = {
				{ 4, "GNU", 1, 16, other },
				GNU_ID(20, other),
			} },
			{ .type = PT_NOTE_, .align = 4, .n = 1,
			  .note = { GNU_ID(20, pat) } },
		},
	};
	static const struct {
		u32 namesz, descsz;
		const char *what;
	} bad[] = {
		{ 0xffffffff, 16, "namesz 2^32-1" },
		{ 0xfffffffd, 16, "namesz 2^32-3" },
		{ 4, 0xffffffff, "descsz 2^32-1" },
		{ 4, 0xfffffffc, "descsz 2^32-4" },
		{ 4, 61, "descsz past the segment" },
		{ 53, 16, "namesz past the segment" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		sz = build(&im);
		seg0 = alignup((cls == 2 ? 64 : 52) + 2 * (cls == 2 ? 56 : 32),
			       8);
		put32(img + seg0, bad[i].namesz);
		put32(img + seg0 + 4, bad[i].descsz);
		snprintf(what, sizeof(what), "ELF%d first note %s", b,
			 bad[i].what);
		expect(what, sz, 0, pat, 20);
	}

	/* A segment whose offset + size wraps: skipped (ELF64 only). */
	if (cls == 2) {
		sz = build(&im);
		put64(img + 64 + 8, ~0ull - 8);
		expect("ELF64 PT_NOTE wrapping around", sz, 0, pat, 20);
		put64(img + 64 + 8, ~0ull - 67);
		expect("ELF64 PT_NOTE ending at 2^64", sz, 0, pat, 20);
		put64(img + 64 + 8, ~0ull - 68);
		expect2("ELF64 PT_NOTE ending at 2^64-1", sz, -EAGAIN, 0, pat,
			20);
	}
	/* p_filesz smaller than one note header */
	sz = build(&im);
	if (cls == 2)
		put64(img + 64 + 32, 11);
	else
		put32(img + 52 + 16, 11);
	snprintf(what, sizeof(what), "ELF%d PT_NOTE of 11 bytes", b);
	expect(what, sz, 0, pat, 20);
	/* The first segment cut inside the descriptor of its build-id */
	sz = build(&im);
	if (cls == 2)
		put64(img + 64 + 32, 32 + 16 + 19);
	else
		put32(img + 52 + 16, 32 + 16 + 19);
	snprintf(what, sizeof(what), "ELF%d PT_NOTE cut in a descriptor", b);
	expect(what, sz, 0, pat, 20);
	/* The same, cut at the end of the descriptor: unpadded is fine */
	if (cls == 2)
		put64(img + 64 + 32, 32 + 16 + 20);
	else
		put32(img + 52 + 16, 32 + 16 + 20);
	snprintf(what, sizeof(what), "ELF%d PT_NOTE ending with a descriptor",
		 b);
	expect(what, sz, 0, other, 20);
}

/* The work bounds: phdrs, bytes per segment, notes per file. */
static void test_bounds(int cls)
{
	int b = cls == 2 ? 64 : 32;
	char what[96];
	size_t sz;
	struct timg im = {
		.cls = cls, .nseg = 1,
		.seg = { { .type = PT_NOTE_, .align = 4, .n = 1,
			   .note = { GNU_ID(20, pat) } } },
	};
	struct timg big = {
		.cls = cls, .nseg = 1,
		.seg = { { .type = PT_NOTE_, .align = 4, .n = 2, .note = {
			{ 4, "XYZ", 1, 0, NULL },
			GNU_ID(20, pat),
		} } },
	};

	im.filler = 255;
	sz = build(&im);
	snprintf(what, sizeof(what), "ELF%d build-id in phdr 256", b);
	expect(what, sz, 0, pat, 20);
	im.filler = 256;
	sz = build(&im);
	snprintf(what, sizeof(what), "ELF%d build-id in phdr 257 (ignored)",
		 b);
	expect(what, sz, -ENOENT, NULL, 0);
	im.filler = 0xfffe;
	sz = build(&im);
	snprintf(what, sizeof(what), "ELF%d e_phnum 65535", b);
	expect(what, sz, -ENOENT, NULL, 0);

	/* 64 KiB of notes per segment are walked, not more. */
	big.seg[0].note[0].descsz = 65536 - 16 - 36;
	sz = build(&big);
	snprintf(what, sizeof(what), "ELF%d build-id ending at 64 KiB", b);
	expect(what, sz, 0, pat, 20);
	big.seg[0].note[0].descsz += 4;
	sz = build(&big);
	snprintf(what, sizeof(what), "ELF%d build-id ending past 64 KiB", b);
	expect(what, sz, -ENOENT, NULL, 0);

	/* 256 notes per file are looked at, not more. */
	im.filler = 0;
	im.nseg = 2;
	im.seg[1] = im.seg[0];
	im.seg[0].fill = 100;
	im.seg[0].note[0].desc = other;
	im.seg[0].note[0].descsz = 0;
	im.seg[1].fill = 154;
	sz = build(&im);
	snprintf(what, sizeof(what), "ELF%d build-id is note 256", b);
	expect(what, sz, 0, pat, 20);
	im.seg[1].fill = 155;
	sz = build(&im);
	snprintf(what, sizeof(what), "ELF%d build-id is note 257", b);
	expect(what, sz, -ENOENT, NULL, 0);
}

/* Each byte is read at most once; read errors stop the walk. */
static void test_reads(int cls)
{
	int b = cls == 2 ? 64 : 32;
	struct timg im = {
		.cls = cls, .nseg = 3, .seg = {
			{ .type = PT_LOAD_, .align = 4 },
			{ .type = PT_NOTE_, .align = 4, .n = 2, .note = {
				{ 4, "GNU", 1, 16, other },
				GNU_ID(21, other),
			} },
			{ .type = PT_NOTE_, .align = 8, .n = 2, .note = {
				{ 4, "GNU", 5, 32, other },
				GNU_ID(20, pat),
			} },
		},
	};
	static u8 seen[IMG_MAX];
	size_t i, sz = build(&im), twice = 0;
	u8 id[STACKID_BUILD_ID_MAX];
	u32 len;
	int ret, calls, k, bad;
	struct rd r = rd_make(img, sz);

	memset(seen, 0, sz);
	r.seen = seen;
	ret = parse_rd(&r, id, &len);
	for (i = 0; i < sz; i++)
		twice += seen[i] > 1;
	calls = r.calls;
	tap_ok(!ret && !twice, "ELF%d: %s in %d reads, %zu bytes read twice",
	       b, errname(ret), calls, twice);

	for (bad = 0, k = 0; k < calls; k++) {
		r = rd_make(img, sz);
		r.fail_at = k;
		r.fail_err = -EIO;
		ret = parse_rd(&r, id, &len);
		bad += ret != -EIO || r.calls != k + 1 || len != 0;
		r = rd_make(img, sz);
		r.fail_at = k;
		r.fail_err = 7;	/* contract breach */
		ret = parse_rd(&r, id, &len);
		bad += ret != -EIO;
	}
	tap_ok(!bad, "ELF%d: an error from any of the %d reads is returned",
	       b, calls);
}

static void test_args(void)
{
	struct stackid_elf_src src = { .read = rd_read, .ctx = NULL };
	u8 id[STACKID_BUILD_ID_MAX];
	u32 len = 5;

	tap_ok(stackid_elf_build_id(NULL, id, &len) == -EINVAL && !len,
	       "NULL src");
	src.read = NULL;
	tap_ok(stackid_elf_build_id(&src, id, &len) == -EINVAL, "NULL read");
	tap_ok(stackid_elf_build_id_buf(NULL, 10, id, &len) == -EINVAL,
	       "NULL buffer");
	tap_ok(stackid_elf_build_id_buf(NULL, 0, id, &len) == -EAGAIN,
	       "empty buffer");
	tap_ok(stackid_elf_build_id_buf(img, 100, id, NULL) == -EINVAL,
	       "NULL len");
}

/* ---- real files -------------------------------------------------------- */

static int unhex(const char *s, u8 *out, u32 *n)
{
	size_t l = strlen(s), i;
	unsigned int v;

	if (l % 2 || l / 2 > STACKID_BUILD_ID_MAX)
		return -1;
	for (i = 0; i < l / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = v;
	}
	*n = l / 2;
	return 0;
}

static void tohex(const u8 *id, u32 n, char *out)
{
	u32 i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

static void test_file(const char *path, const char *hex)
{
	u8 want[STACKID_BUILD_ID_MAX], id[STACKID_BUILD_ID_MAX];
	char got[2 * STACKID_BUILD_ID_MAX + 1];
	u32 wlen = 0, len, page;
	int none = !strcmp(hex, "-"), ret;
	size_t size, limit;
	u8 *data;
	long l;
	FILE *f;

	if (!none && unhex(hex, want, &wlen)) {
		tap_ok(0, "%s: bad expected build-id '%s'", path, hex);
		return;
	}
	f = fopen(path, "rb");
	l = f && !fseek(f, 0, SEEK_END) ? ftell(f) : -1;
	if (l < 0 || fseek(f, 0, SEEK_SET)) {
		tap_ok(0, "%s: cannot open", path);
		if (f)
			fclose(f);
		return;
	}
	size = l;
	data = malloc(size ? size : 1);
	if (!data || fread(data, 1, size, f) != size) {
		tap_ok(0, "%s: cannot read", path);
		fclose(f);
		free(data);
		return;
	}
	fclose(f);

	{
		struct rd r = rd_make(data, size);

		ret = parse_rd(&r, id, &len);
		tohex(id, ret ? 0 : len, got);
		if (none)
			tap_ok(ret == -ENOENT, "%s: %s, want no build-id",
			       path, ret ? errname(ret) : got);
		else
			tap_ok(!ret && len == wlen && !memcmp(id, want, wlen),
			       "%s: %s, want %s", path,
			       ret ? errname(ret) : got, hex);
	}

	/* From the first page only, as the module tries first. */
	page = size < 4096 ? size : 4096;
	ret = stackid_elf_build_id_buf(data, page, id, &len);
	tohex(id, ret ? 0 : len, got);
	if (none)
		tap_ok(ret == -ENOENT || ret == -EAGAIN,
		       "%s: first page gives %s", path, errname(ret));
	else
		tap_ok(ret == -EAGAIN ||
		       (!ret && len == wlen && !memcmp(id, want, wlen)),
		       "%s: first page gives %s", path,
		       ret ? errname(ret) : got);

	if (!none) {
		limit = size < 65536 ? size : 65536;
		truncations(path, data, limit, want, wlen, limit == size);
	}
	free(data);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i <= 2; i++) {
		test_sizes(i);
		test_skips(i);
		test_multi(i);
		test_align8(i);
		test_beyond(i);
		test_bad_header(i);
		test_no_note(i);
		test_malformed_notes(i);
		test_bounds(i);
		test_reads(i);
	}
	test_args();

	if (argc % 2 == 0) {
		fprintf(stderr, "usage: %s [FILE HEX]...\n", argv[0]);
		tap_ok(0, "odd number of FILE HEX arguments");
	}
	for (i = 1; i + 1 < argc; i += 2)
		test_file(argv[i], argv[i + 1]);
	return tap_done();
}
