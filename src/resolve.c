// SPDX-License-Identifier: GPL-2.0
/*
 * Frame resolution, in the sampling path: user address -> build-id of the
 * mapped file + file offset.
 *
 * The mm is only ever trylocked. The handler runs with interrupts off,
 * where mmap_read_unlock() must not run (it may wake a writer and take
 * scheduler locks), so, like the kernel's BPF stackmap, the unlock is
 * handed to a per-CPU irq_work; while that is still pending the sample
 * keeps raw IPs (counted as UNLOCK_BUSY).
 *
 * The build-id comes from the ELF note in the file's first folio, taken
 * from the page cache without I/O, locks or faults; an absent or
 * not-uptodate folio means a raw IP (PAGE_ABSENT). Only regular files on
 * ordinary page cache are read: no DAX, no secretmem, no inaccessible
 * (guest_memfd) mappings.
 *
 * A per-CPU direct-mapped cache remembers each file's result, keyed by
 * the inode's identity and its size and mtime, so a rewritten file is
 * parsed again and a hot binary is not parsed on every frame.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/highmem.h>
#include <linux/hash.h>
#include <linux/magic.h>
#include <linux/pagemap.h>
#include <linux/file.h>

#include "internal.h"
#include "compat.h"

void stackid_unlock_fn(struct irq_work *work)
{
	struct stackid_cpu *c = container_of(work, struct stackid_cpu,
					     unlock_work);

	mmap_read_unlock_non_owner(c->unlock_mm);
}

/*
 * The file behind @vma if its page cache may be read: a regular file on
 * ordinary page cache. Else NULL, with *reason set.
 */
static struct file *stackid_vma_file(struct vm_area_struct *vma, int *reason)
{
	struct file *file = vma->vm_file;
	struct inode *inode;

	if (!file) {
		*reason = STACKID_IP_NO_FILE;
		return NULL;
	}
	inode = file_inode(file);
	if (!S_ISREG(inode->i_mode) || IS_DAX(inode) ||
	    inode->i_sb->s_magic == SECRETMEM_MAGIC ||
	    stackid_mapping_inaccessible(file->f_mapping)) {
		*reason = STACKID_IP_NOT_REGULAR;
		return NULL;
	}
	return file;
}

/* Parse the build-id from the file's first folio, if cached and uptodate. */
static int stackid_parse_file(struct file *file, loff_t isize,
			      struct stackid_bid_entry *e)
{
	struct folio *folio;
	u32 len = 0;
	size_t avail;
	int err;

	folio = stackid_cached_folio(file->f_mapping, 0);
	if (!folio)
		return STACKID_IP_PAGE_ABSENT;
	if (!folio_test_uptodate(folio) || folio_test_highmem(folio)) {
		folio_put(folio);
		return STACKID_IP_PAGE_ABSENT;
	}
	/* We hold a reference, so the folio cannot be split under us. */
	avail = min_t(loff_t, folio_size(folio), isize);
	err = stackid_elf_build_id_buf(folio_address(folio), avail, e->id,
				       &len);
	folio_put(folio);
	switch (err) {
	case 0:
		e->len = len;
		return STACKID_IP_NONE;
	case -EAGAIN:
		/* beyond what we read: far note, or a truncated file */
		return isize > avail ? STACKID_IP_NOTE_FAR :
				       STACKID_IP_NOT_ELF;
	case -ENOENT:
		return STACKID_IP_NO_BUILD_ID;
	default:
		return STACKID_IP_NOT_ELF;
	}
}

/*
 * The cache entry with the build-id of @vma's file, or NULL with *reason
 * set. Valid until the next call on this CPU.
 */
static struct stackid_bid_entry *
stackid_vma_build_id(struct stackid_cpu *c, struct vm_area_struct *vma,
		     int *reason)
{
	struct file *file = stackid_vma_file(vma, reason);
	struct stackid_bid_entry *e, key;
	struct timespec64 mtime;
	struct inode *inode;
	int r;

	if (!file)
		return NULL;
	inode = file_inode(file);
	mtime = stackid_inode_mtime(inode);
	memset(&key, 0, sizeof(key));
	key.inode = inode;
	key.ino = inode->i_ino;
	key.dev = inode->i_sb->s_dev;
	key.size_lo = (u32)i_size_read(inode);
	key.mtime_sec = mtime.tv_sec;
	key.mtime_nsec = mtime.tv_nsec;

	e = &c->bidcache[hash_ptr(inode, ilog2(STACKID_BIDCACHE_SIZE))];
	if (e->inode == key.inode && e->ino == key.ino && e->dev == key.dev &&
	    e->size_lo == key.size_lo && e->mtime_sec == key.mtime_sec &&
	    e->mtime_nsec == key.mtime_nsec) {
		stackid_stat_inc(c, STACKID_STAT_BIDCACHE_HIT);
	} else {
		stackid_stat_inc(c, STACKID_STAT_BIDCACHE_MISS);
		r = stackid_parse_file(file, i_size_read(inode), &key);
		if (r == STACKID_IP_PAGE_ABSENT) {
			/* transient: do not remember */
			*reason = r;
			return NULL;
		}
		key.reason = r;
		/*
		 * A new build-id is cached only once its path record is on
		 * its way; otherwise the next sample tries again.
		 */
		if (r == STACKID_IP_NONE &&
		    !stackid_paths_park(c, file, key.id, key.len))
			e = &c->bid_tmp;
		*e = key;
	}
	if (!e->len) {
		*reason = e->reason;
		return NULL;
	}
	return e;
}

static void stackid_fail_all(struct stackid_frame *f, unsigned int n,
			     int reason)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		f[i].reason = reason;
}

/* Reasons that may go away in the task's own context. */
static bool stackid_retryable(int reason)
{
	return reason == STACKID_IP_MM_BUSY ||
	       reason == STACKID_IP_UNLOCK_BUSY ||
	       reason == STACKID_IP_PAGE_ABSENT ||
	       reason == STACKID_IP_NOTE_FAR;
}

static void stackid_set_valid(struct stackid_frame *f,
			      struct vm_area_struct *vma, const u8 *id, u8 len)
{
	f->status = STACKID_FRAME_VALID;
	f->reason = STACKID_IP_NONE;
	f->build_id_len = len;
	memcpy(f->build_id, id, len);
	f->addr = ((u64)vma->vm_pgoff << PAGE_SHIFT) + f->addr - vma->vm_start;
}

/**
 * stackid_resolve - turn raw-IP frames into build-id + offset frames
 * @c: this CPU's sampler state
 * @mm: the sampled task's mm
 * @f: frames, all STACKID_FRAME_IP with addr = user address on entry
 * @n: number of frames
 *
 * Runs in the overflow handler, interrupts off. Frames that cannot be
 * resolved keep their address and get a reason. Returns true if some
 * frame failed for a reason the task's own context may not have (see
 * stackid_resolve_task()). Frames are counted by stackid_count_frames()
 * once final.
 */
bool stackid_resolve(struct stackid_cpu *c, struct mm_struct *mm,
		     struct stackid_frame *f, unsigned int n)
{
	struct vm_area_struct *vma = NULL;
	struct stackid_bid_entry *e = NULL;
	int reason = STACKID_IP_NO_VMA;
	bool retry = false;
	unsigned int i;

	if (!n)
		return false;
	if (!READ_ONCE(stackid_param_resolve)) {
		stackid_fail_all(f, n, STACKID_IP_RESOLVE_OFF);
		return false;
	}
	if (irq_work_is_busy(&c->unlock_work)) {
		stackid_fail_all(f, n, STACKID_IP_UNLOCK_BUSY);
		return true;
	}
	if (!mmap_read_trylock(mm)) {
		stackid_fail_all(f, n, STACKID_IP_MM_BUSY);
		return true;
	}
	for (i = 0; i < n; i++) {
		unsigned long ip = f[i].addr;

		if (!vma || ip < vma->vm_start || ip >= vma->vm_end) {
			vma = vma_lookup(mm, ip);
			e = NULL;
			reason = STACKID_IP_NO_VMA;
			if (vma)
				e = stackid_vma_build_id(c, vma, &reason);
		}
		if (!e) {
			f[i].reason = reason;
			retry |= stackid_retryable(reason);
			continue;
		}
		stackid_set_valid(&f[i], vma, e->id, e->len);
	}

	if (irqs_disabled()) {
		/*
		 * Release the lock in lockdep's eyes now: the irq_work that
		 * really releases it runs after this handler returns.
		 */
		c->unlock_mm = mm;
		rwsem_release(&mm->mmap_lock.dep_map, _RET_IP_);
		irq_work_queue(&c->unlock_work);
	} else {
		mmap_read_unlock(mm);
	}
	return retry;
}

/* Count final frames: valid, or raw IP by reason. */
void stackid_count_frames(struct stackid_cpu *c,
			  const struct stackid_frame *f, unsigned int n)
{
	unsigned int i, valid = 0;

	for (i = 0; i < n; i++) {
		if (f[i].status == STACKID_FRAME_VALID)
			valid++;
		else
			stackid_stat_inc(c, STACKID_STAT_IP_FIRST +
					    f[i].reason);
	}
	stackid_stat_add(c, STACKID_STAT_FRAMES_VALID, valid);
}

/* Page-cache reader for the ELF parser, any offset, no I/O. */
static int stackid_cache_read(void *ctx, u64 off, void *buf, u32 len)
{
	struct file *file = ctx;
	loff_t isize = i_size_read(file_inode(file));
	u8 *dst = buf;

	if (off > isize || len > isize - off)
		return -ERANGE;
	while (len) {
		struct folio *folio;
		size_t in, n;
		void *src;

		folio = stackid_cached_folio(file->f_mapping,
					     off >> PAGE_SHIFT);
		if (!folio)
			return -EAGAIN;
		if (!folio_test_uptodate(folio)) {
			folio_put(folio);
			return -EAGAIN;
		}
		in = off - folio_pos(folio);
		n = min_t(size_t, len, PAGE_SIZE - offset_in_page(in));
		src = kmap_local_folio(folio, in);
		memcpy(dst, src, n);
		kunmap_local(src);
		folio_put(folio);
		dst += n;
		off += n;
		len -= n;
	}
	return 0;
}

/**
 * stackid_resolve_task - finish resolution in the sampled task's context
 * @mm: the task's mm, the one the frames were sampled in
 * @f: frames as stackid_resolve() left them
 * @n: number of frames
 * @found: out: referenced files whose build-id was found here, with the
 *	build-id, for path records (the caller reports and puts them)
 * @nfound: in: room in @found; out: entries filled
 *
 * Process context, before the task returns to user space: the mm is
 * still only trylocked, but the unlock may happen here, and the whole
 * file's page cache (not only its first page) may be read, still
 * without I/O.
 */
void stackid_resolve_task(struct mm_struct *mm, struct stackid_frame *f,
			  unsigned int n, struct stackid_found *found,
			  unsigned int *nfound)
{
	struct stackid_elf_src src = { .read = stackid_cache_read };
	unsigned int i, room = *nfound;
	u8 id[STACKID_BUILD_ID_SIZE];
	u32 len;
	int err;

	*nfound = 0;
	if (!mmap_read_trylock(mm))
		return;
	for (i = 0; i < n; i++) {
		struct vm_area_struct *vma;
		struct file *file;
		int reason;

		if (f[i].status != STACKID_FRAME_IP ||
		    !stackid_retryable(f[i].reason))
			continue;
		vma = vma_lookup(mm, f[i].addr);
		if (!vma) {
			f[i].reason = STACKID_IP_NO_VMA;
			continue;
		}
		file = stackid_vma_file(vma, &reason);
		if (!file) {
			f[i].reason = reason;
			continue;
		}
		src.ctx = file;
		err = stackid_elf_build_id(&src, id, &len);
		if (err == -EAGAIN) {
			f[i].reason = STACKID_IP_PAGE_ABSENT;
			continue;
		}
		if (err) {
			f[i].reason = err == -ENOENT ? STACKID_IP_NO_BUILD_ID :
						       STACKID_IP_NOT_ELF;
			continue;
		}
		stackid_set_valid(&f[i], vma, id, len);
		if (*nfound < room &&
		    (!*nfound || found[*nfound - 1].file != file)) {
			found[*nfound].file = get_file(file);
			found[*nfound].len = len;
			memcpy(found[*nfound].id, id, len);
			(*nfound)++;
		}
	}
	mmap_read_unlock(mm);
}
