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

#include "internal.h"
#include "compat.h"

void stackid_unlock_fn(struct irq_work *work)
{
	struct stackid_cpu *c = container_of(work, struct stackid_cpu,
					     unlock_work);

	mmap_read_unlock_non_owner(c->unlock_mm);
}

static bool stackid_file_readable(struct file *file, int *reason)
{
	struct inode *inode = file_inode(file);

	if (!S_ISREG(inode->i_mode) || IS_DAX(inode) ||
	    inode->i_sb->s_magic == SECRETMEM_MAGIC ||
	    stackid_mapping_inaccessible(file->f_mapping)) {
		*reason = STACKID_IP_NOT_REGULAR;
		return false;
	}
	return true;
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
	struct file *file = vma->vm_file;
	struct stackid_bid_entry *e, key;
	struct timespec64 mtime;
	struct inode *inode;
	int r;

	if (!file) {
		*reason = STACKID_IP_NO_FILE;
		return NULL;
	}
	if (!stackid_file_readable(file, reason))
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

static void stackid_fail_all(struct stackid_cpu *c, struct stackid_frame *f,
			     unsigned int n, int reason)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		f[i].reason = reason;
	stackid_stat_add(c, STACKID_STAT_IP_FIRST + reason, n);
}

/**
 * stackid_resolve - turn raw-IP frames into build-id + offset frames
 * @c: this CPU's sampler state
 * @mm: the sampled task's mm
 * @f: frames, all STACKID_FRAME_IP with addr = user address on entry
 * @n: number of frames
 *
 * Runs in the overflow handler, interrupts off. Frames that cannot be
 * resolved keep their address and get a reason; everything is counted.
 */
void stackid_resolve(struct stackid_cpu *c, struct mm_struct *mm,
		     struct stackid_frame *f, unsigned int n)
{
	struct vm_area_struct *vma = NULL;
	struct stackid_bid_entry *e = NULL;
	int reason = STACKID_IP_NO_VMA;
	unsigned int i, valid = 0;

	if (!n)
		return;
	if (!READ_ONCE(stackid_param_resolve)) {
		stackid_fail_all(c, f, n, STACKID_IP_RESOLVE_OFF);
		return;
	}
	if (irq_work_is_busy(&c->unlock_work)) {
		stackid_fail_all(c, f, n, STACKID_IP_UNLOCK_BUSY);
		return;
	}
	if (!mmap_read_trylock(mm)) {
		stackid_fail_all(c, f, n, STACKID_IP_MM_BUSY);
		return;
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
			stackid_stat_inc(c, STACKID_STAT_IP_FIRST + reason);
			continue;
		}
		f[i].status = STACKID_FRAME_VALID;
		f[i].build_id_len = e->len;
		memcpy(f[i].build_id, e->id, e->len);
		f[i].addr = ((u64)vma->vm_pgoff << PAGE_SHIFT) + ip -
			    vma->vm_start;
		valid++;
	}
	stackid_stat_add(c, STACKID_STAT_FRAMES_VALID, valid);

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
}
