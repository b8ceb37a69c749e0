// SPDX-License-Identifier: GPL-2.0
/*
 * ELF build-id note parser.
 *
 * The file being parsed is untrusted and may be rewritten while we read it,
 * so every header is copied into a local once, every field is decoded from
 * that copy, every offset is computed with overflow checks, and every loop
 * is bounded by a constant, not by a count read from the file. No field is
 * read twice (bytes are only re-read when headers of the file overlap, and
 * then each read is validated on its own).
 *
 * Multi-byte fields are decoded byte by byte as little-endian, so the code
 * neither depends on the host's byte order nor on the alignment of the
 * buffers it reads into.
 */
#include "elfnote.h"

/*
 * Our own ELF definitions, prefixed so as not to clash with <linux/elf.h>
 * should a kernel header pull it in.
 */
#define SE_EI_NIDENT		16
#define SE_EI_CLASS		4
#define SE_EI_DATA		5
#define SE_ELFCLASS32		1
#define SE_ELFCLASS64		2
#define SE_ELFDATA2LSB		1
#define SE_PT_NOTE		4
#define SE_NT_GNU_BUILD_ID	3

struct se_elf32_ehdr {
	u8	e_ident[SE_EI_NIDENT];
	u16	e_type;
	u16	e_machine;
	u32	e_version;
	u32	e_entry;
	u32	e_phoff;
	u32	e_shoff;
	u32	e_flags;
	u16	e_ehsize;
	u16	e_phentsize;
	u16	e_phnum;
	u16	e_shentsize;
	u16	e_shnum;
	u16	e_shstrndx;
};

struct se_elf64_ehdr {
	u8	e_ident[SE_EI_NIDENT];
	u16	e_type;
	u16	e_machine;
	u32	e_version;
	u64	e_entry;
	u64	e_phoff;
	u64	e_shoff;
	u32	e_flags;
	u16	e_ehsize;
	u16	e_phentsize;
	u16	e_phnum;
	u16	e_shentsize;
	u16	e_shnum;
	u16	e_shstrndx;
};

struct se_elf32_phdr {
	u32	p_type;
	u32	p_offset;
	u32	p_vaddr;
	u32	p_paddr;
	u32	p_filesz;
	u32	p_memsz;
	u32	p_flags;
	u32	p_align;
};

struct se_elf64_phdr {
	u32	p_type;
	u32	p_flags;
	u64	p_offset;
	u64	p_vaddr;
	u64	p_paddr;
	u64	p_filesz;
	u64	p_memsz;
	u64	p_align;
};

struct se_elf_nhdr {
	u32	n_namesz;
	u32	n_descsz;
	u32	n_type;
};

_Static_assert(sizeof(struct se_elf32_ehdr) == 52, "Elf32_Ehdr layout");
_Static_assert(sizeof(struct se_elf64_ehdr) == 64, "Elf64_Ehdr layout");
_Static_assert(sizeof(struct se_elf32_phdr) == 32, "Elf32_Phdr layout");
_Static_assert(sizeof(struct se_elf64_phdr) == 56, "Elf64_Phdr layout");
_Static_assert(sizeof(struct se_elf_nhdr) == 12, "Elf_Nhdr layout");

/* Work bounds: this runs in NMI context. */
#define SE_PHNUM_MAX		256		/* program headers looked at */
#define SE_SEG_BYTES_MAX	(64u * 1024)	/* note bytes per segment */
#define SE_NOTES_MAX		256		/* notes looked at, per file */

/* The note name we want: "GNU" and its NUL, namesz 4. */
#define SE_GNU_NAMESZ		4
static const u8 se_gnu_name[SE_GNU_NAMESZ] = { 'G', 'N', 'U', '\0' };

static u16 se_le16(const void *p)
{
	const u8 *b = p;

	return (u16)b[0] | (u16)b[1] << 8;
}

static u32 se_le32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] | (u32)b[1] << 8 | (u32)b[2] << 16 | (u32)b[3] << 24;
}

static u64 se_le64(const void *p)
{
	const u8 *b = p;

	return (u64)se_le32(b) | (u64)se_le32(b + 4) << 32;
}

/* Round @x up to @a, a power of two; false on overflow. */
static bool se_align_up(u64 x, u64 a, u64 *res)
{
	u64 t;

	if (check_add_overflow(x, a - 1, &t))
		return false;
	*res = t & ~(a - 1);
	return true;
}

/* Call the reader; a positive return breaks its contract: make it -EIO. */
static int se_read(const struct stackid_elf_src *src, u64 off, void *buf,
		   u32 len)
{
	int ret = src->read(src->ctx, off, buf, len);

	return ret > 0 ? -EIO : ret;
}

/* Where the program headers are, from the file header. */
struct se_phtab {
	bool	is64;
	u64	off;		/* e_phoff */
	u32	entsize;	/* e_phentsize, validated */
	u32	num;		/* e_phnum, capped to SE_PHNUM_MAX */
};

static int se_read_ehdr(const struct stackid_elf_src *src,
			struct se_phtab *tab)
{
	union {
		u8			ident[SE_EI_NIDENT];
		struct se_elf32_ehdr	e32;
		struct se_elf64_ehdr	e64;
	} eh;
	u64 phoff, tabsz, tabend;
	u32 ehsize, entsize, num;
	int ret;

	/* Too short to hold a header (-ERANGE) is "not ELF". */
	ret = se_read(src, 0, eh.ident, SE_EI_NIDENT);
	if (ret)
		return ret == -ERANGE ? -ENOEXEC : ret;
	if (eh.ident[0] != 0x7f || eh.ident[1] != 'E' ||
	    eh.ident[2] != 'L' || eh.ident[3] != 'F')
		return -ENOEXEC;
	if (eh.ident[SE_EI_DATA] != SE_ELFDATA2LSB)
		return -ENOEXEC;
	switch (eh.ident[SE_EI_CLASS]) {
	case SE_ELFCLASS32:
		tab->is64 = false;
		ehsize = sizeof(eh.e32);
		break;
	case SE_ELFCLASS64:
		tab->is64 = true;
		ehsize = sizeof(eh.e64);
		break;
	default:
		return -ENOEXEC;
	}

	/* The rest of the header; e_ident is not read again. */
	ret = se_read(src, SE_EI_NIDENT, (u8 *)&eh + SE_EI_NIDENT,
		      ehsize - SE_EI_NIDENT);
	if (ret)
		return ret == -ERANGE ? -ENOEXEC : ret;
	if (tab->is64) {
		phoff = se_le64(&eh.e64.e_phoff);
		entsize = se_le16(&eh.e64.e_phentsize);
		num = se_le16(&eh.e64.e_phnum);
		if (entsize != sizeof(struct se_elf64_phdr))
			return -ENOEXEC;
	} else {
		phoff = se_le32(&eh.e32.e_phoff);
		entsize = se_le16(&eh.e32.e_phentsize);
		num = se_le16(&eh.e32.e_phnum);
		if (entsize != sizeof(struct se_elf32_phdr))
			return -ENOEXEC;
	}

	/* The whole table, as the header states it, must be addressable. */
	if (check_mul_overflow((u64)num, (u64)entsize, &tabsz) ||
	    check_add_overflow(phoff, tabsz, &tabend))
		return -ENOEXEC;

	tab->off = phoff;
	tab->entsize = entsize;
	tab->num = num < SE_PHNUM_MAX ? num : SE_PHNUM_MAX;
	return 0;
}

/* A PT_NOTE segment, from its program header. */
struct se_seg {
	u64	off;		/* p_offset */
	u64	len;		/* p_filesz, capped to SE_SEG_BYTES_MAX */
	u64	align;		/* 4 or 8 */
};

/*
 * Read program header @i into @seg. Return 1 if it is a PT_NOTE, 0 if it
 * is not, or a negative errno.
 */
static int se_read_phdr(const struct stackid_elf_src *src,
			const struct se_phtab *tab, u32 i, struct se_seg *seg)
{
	union {
		struct se_elf32_phdr	p32;
		struct se_elf64_phdr	p64;
	} ph;
	u64 rel, off, filesz, align;
	int ret;

	if (check_mul_overflow((u64)i, (u64)tab->entsize, &rel) ||
	    check_add_overflow(tab->off, rel, &off))
		return -ENOEXEC;
	ret = se_read(src, off, &ph, tab->entsize);
	if (ret)
		return ret == -ERANGE ? -ENOEXEC : ret;

	if (tab->is64) {
		if (se_le32(&ph.p64.p_type) != SE_PT_NOTE)
			return 0;
		seg->off = se_le64(&ph.p64.p_offset);
		filesz = se_le64(&ph.p64.p_filesz);
		align = se_le64(&ph.p64.p_align);
	} else {
		if (se_le32(&ph.p32.p_type) != SE_PT_NOTE)
			return 0;
		seg->off = se_le32(&ph.p32.p_offset);
		filesz = se_le32(&ph.p32.p_filesz);
		align = se_le32(&ph.p32.p_align);
	}
	seg->len = filesz < SE_SEG_BYTES_MAX ? filesz : SE_SEG_BYTES_MAX;
	seg->align = align == 8 ? 8 : 4;
	return 1;
}

/*
 * Walk the notes of @seg. Return 0 with the build-id in @id and @len,
 * -ENOENT when the segment holds none (or is malformed, or lies beyond the
 * end of the file, or the note budget @budget ran out), or another
 * negative errno from the reader.
 */
static int se_walk_notes(const struct stackid_elf_src *src,
			 const struct se_seg *seg, u32 *budget,
			 u8 id[STACKID_BUILD_ID_MAX], u32 *len)
{
	struct se_elf_nhdr nh;
	u8 name[SE_GNU_NAMESZ];
	u8 desc[STACKID_BUILD_ID_MAX];
	u64 pos = 0, end, nameoff, descoff, descend, next, off;
	u32 namesz, descsz, type;
	int ret;

	/* A segment that wraps around is malformed: skip it. */
	if (check_add_overflow(seg->off, seg->len, &end))
		return -ENOENT;

	/*
	 * pos grows by at least sizeof(nh) a turn and stays below
	 * SE_SEG_BYTES_MAX; the budget bounds the walk of the whole file.
	 */
	while (pos < seg->len && seg->len - pos >= sizeof(nh) && *budget) {
		(*budget)--;

		/* seg->off + pos <= end: cannot overflow. */
		ret = se_read(src, seg->off + pos, &nh, sizeof(nh));
		if (ret)
			return ret == -ERANGE ? -ENOENT : ret;
		namesz = se_le32(&nh.n_namesz);
		descsz = se_le32(&nh.n_descsz);
		type = se_le32(&nh.n_type);

		nameoff = pos + sizeof(nh);
		if (check_add_overflow(nameoff, (u64)namesz, &descoff) ||
		    !se_align_up(descoff, seg->align, &descoff) ||
		    check_add_overflow(descoff, (u64)descsz, &descend) ||
		    descend > seg->len)
			return -ENOENT;	/* runs off the segment */
		if (!se_align_up(descend, seg->align, &next))
			return -ENOENT;

		if (namesz == SE_GNU_NAMESZ && type == SE_NT_GNU_BUILD_ID &&
		    descsz >= 1 && descsz <= STACKID_BUILD_ID_MAX) {
			ret = se_read(src, seg->off + nameoff, name,
				      SE_GNU_NAMESZ);
			if (ret)
				return ret == -ERANGE ? -ENOENT : ret;
			if (!memcmp(name, se_gnu_name, SE_GNU_NAMESZ)) {
				off = seg->off + descoff;
				ret = se_read(src, off, desc, descsz);
				if (ret)
					return ret == -ERANGE ? -ENOENT : ret;
				memcpy(id, desc, descsz);
				*len = descsz;
				return 0;
			}
		}
		pos = next;
	}
	return -ENOENT;
}

int stackid_elf_build_id(const struct stackid_elf_src *src,
			 u8 id[STACKID_BUILD_ID_MAX], u32 *len)
{
	struct se_phtab tab;
	struct se_seg seg;
	u32 i, budget = SE_NOTES_MAX;
	int ret;

	if (!len)
		return -EINVAL;
	*len = 0;
	if (!src || !src->read || !id)
		return -EINVAL;

	ret = se_read_ehdr(src, &tab);
	if (ret)
		return ret;

	/* tab.num <= SE_PHNUM_MAX */
	for (i = 0; i < tab.num; i++) {
		ret = se_read_phdr(src, &tab, i, &seg);
		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		ret = se_walk_notes(src, &seg, &budget, id, len);
		if (ret != -ENOENT)
			return ret;
	}
	return -ENOENT;
}

struct se_buf {
	const u8	*p;
	u32		size;
};

static int se_buf_read(void *ctx, u64 off, void *buf, u32 len)
{
	const struct se_buf *b = ctx;

	if (off > b->size || len > b->size - off)
		return -EAGAIN;
	memcpy(buf, b->p + off, len);
	return 0;
}

int stackid_elf_build_id_buf(const void *buf, u32 size,
			     u8 id[STACKID_BUILD_ID_MAX], u32 *len)
{
	struct se_buf b = { .p = buf, .size = size };
	struct stackid_elf_src src = { .read = se_buf_read, .ctx = &b };

	if (!buf && size) {
		if (len)
			*len = 0;
		return -EINVAL;
	}
	return stackid_elf_build_id(&src, id, len);
}
