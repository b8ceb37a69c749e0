// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a file's build-id note in the sampled task's own context
 * (task.c), where sleeping and I/O are allowed: like the kernel's own
 * sleepable build_id_parse(), the bytes come through the page cache,
 * read in from the file if they are not there (read_cache_folio()), so a
 * note anywhere in the file and a file not yet in memory both resolve.
 * The parser (elfnote.c) bounds the work: at most 256 program headers and
 * 256 notes, 64 bytes a read.
 *
 * Files whose address space cannot read a folio in (shmem: tmpfs, memfd,
 * an initramfs on tmpfs) and FUSE files are read from the page cache
 * only, without I/O: a page of such a file that was swapped out is not
 * read (its frames stay raw, READ_ERROR, until it is back). Nothing here
 * goes through the file's read path (kernel_read()): that asks the LSMs
 * and fsnotify first, so a fanotify permission listener sampled on its
 * own memfd would wait for itself (and every listener would see reads
 * the process never made); a relay or vmcore read would consume data;
 * and a FUSE server sampled on its own file would wait for itself too.
 * hugetlbfs (its page cache indexed by huge page before 6.7) is never
 * read: stackid_vma_file() refuses it. A page poisoned by a memory error
 * is never read either.
 */
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/magic.h>

#include "internal.h"
#include "compat.h"

struct stackid_file_src {
	struct file *file;
	loff_t size;
	bool no_io;		/* page cache only */
	struct folio *folio;	/* the last folio read, referenced */
};

/* The folio with file offset @off, referenced and uptodate, or ERR_PTR. */
static struct folio *stackid_src_folio(struct stackid_file_src *s, u64 off)
{
	struct address_space *m = s->file->f_mapping;
	pgoff_t index = off >> PAGE_SHIFT;
	struct folio *folio = s->folio;

	if (folio && off >= stackid_folio_pos(folio) &&
	    off < stackid_folio_pos(folio) + stackid_folio_size(folio))
		return folio;
	if (folio)
		stackid_folio_put(folio);
	s->folio = NULL;
	if (s->no_io) {
		folio = stackid_cached_folio(m, index);
		if (!folio)
			return ERR_PTR(-EAGAIN);
		if (!stackid_folio_uptodate(folio)) {
			stackid_folio_put(folio);
			return ERR_PTR(-EAGAIN);
		}
	} else {
		folio = stackid_read_cache_folio(s->file, index);
		if (IS_ERR(folio))
			return folio;
	}
	s->folio = folio;
	return folio;
}

static int stackid_src_read(void *ctx, u64 off, void *buf, u32 len)
{
	struct stackid_file_src *s = ctx;
	u8 *dst = buf;

	if (off > s->size || len > s->size - off)
		return -ERANGE;
	while (len) {
		struct folio *folio = stackid_src_folio(s, off);
		size_t in, n;
		void *src;

		if (IS_ERR(folio))
			return PTR_ERR(folio) == -EAGAIN ? -EAGAIN : -EIO;
		in = off - stackid_folio_pos(folio);
		if (stackid_folio_poisoned(folio, in))
			return -EIO;
		n = min_t(size_t, len, PAGE_SIZE - offset_in_page(in));
		src = stackid_kmap_local_folio(folio, in);
		memcpy(dst, src, n);
		stackid_kunmap_local(src);
		dst += n;
		off += n;
		len -= n;
	}
	return 0;
}

/**
 * stackid_read_build_id - read @file's GNU build-id
 * @file: a regular file (stackid_vma_file())
 * @id: filled with the build-id on success
 * @len: set to its length on success
 *
 * Process context; may sleep. Return: 0, -ENOENT (ELF without a build-id
 * note), -ENOEXEC (not an ELF we parse), or another error when the file
 * could not be read.
 */
int stackid_read_build_id(struct file *file, u8 *id, u8 *len)
{
	struct stackid_file_src s = {
		.file = file,
		.size = i_size_read(file_inode(file)),
		.no_io = file_inode(file)->i_sb->s_magic == FUSE_SUPER_MAGIC ||
			 !stackid_can_read_folio(file->f_mapping),
	};
	struct stackid_elf_src src = { .read = stackid_src_read, .ctx = &s };
	u32 n = 0;
	int err;

	might_sleep();
	err = stackid_elf_build_id(&src, id, &n);
	if (s.folio)
		stackid_folio_put(s.folio);
	*len = n;
	return err == -EAGAIN ? -EIO : err;
}
