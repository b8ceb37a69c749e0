// SPDX-License-Identifier: GPL-2.0
/*
 * Frame resolution in the sampling handler: user address -> VMA -> file
 * -> build-id from the per-CPU cache. Nothing else: a file the cache does
 * not know is left for the sampled task's own context (task.c), so this
 * path never reads a file, never touches the page cache and never holds,
 * let alone drops, a page-cache reference (dropping the last one would
 * free the page, which an NMI must never do).
 *
 * The mm is only ever trylocked. From hardirq (cpu-clock) it is unlocked
 * right away: the hrtimer interrupted code that had interrupts enabled,
 * so it holds no lock that waking an mmap_lock waiter takes. From NMI the
 * unlock goes to a per-CPU irq_work, as the kernel's BPF stackmap does,
 * and while that is pending the sample goes to task context. On
 * PREEMPT_RT the mm is never locked here at all: mmap_lock is a sleeping
 * lock there, so every sample is finished in task context.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/magic.h>
#include <linux/pagemap.h>
#include <linux/file.h>
#include <linux/hash.h>
#include <linux/iversion.h>
#include <linux/uprobes.h>
#include <linux/sched.h>

#include "internal.h"
#include "compat.h"

/**
 * stackid_vma_file - the file behind @vma, if it is one we read
 * @vma: a VMA of the sampled mm, under its mmap_lock
 * @reason: set when NULL is returned
 *
 * Only regular files on ordinary page cache: no DAX, no hugetlbfs (whose
 * page cache is indexed by huge page before 6.7), no secretmem, no
 * inaccessible (guest_memfd) mappings.
 */
struct file *stackid_vma_file(struct vm_area_struct *vma, int *reason)
{
	struct file *file = vma->vm_file;
	struct inode *inode;

	if (!file) {
		*reason = STACKID_IP_NO_FILE;
		return NULL;
	}
	inode = file_inode(file);
	if (!S_ISREG(inode->i_mode) || IS_DAX(inode) ||
	    inode->i_sb->s_magic == HUGETLBFS_MAGIC ||
	    stackid_is_secretmem(inode) ||
	    stackid_mapping_inaccessible(file->f_mapping)) {
		*reason = STACKID_IP_NOT_REGULAR;
		return NULL;
	}
	return file;
}

/**
 * stackid_file_key - what identifies @file's contents (see bidcache.h)
 * @file: a mapped regular file
 * @k: filled in
 *
 * Lock-free reads of the inode, safe in NMI. Returns 0.
 */
int stackid_file_key(struct file *file, struct stackid_bid_key *k)
{
	struct inode *inode = file_inode(file);
	struct timespec64 m = stackid_inode_mtime(inode);
	struct timespec64 ch = stackid_inode_ctime(inode);

	memset(k, 0, sizeof(*k));
	k->inode = (unsigned long)inode;
	k->ino = inode->i_ino;
	k->dev = inode->i_sb->s_dev;
	k->gen = inode->i_generation;
	k->size = i_size_read(inode);
	k->iversion = inode_peek_iversion(inode);
	k->mtime_sec = m.tv_sec;
	k->mtime_nsec = m.tv_nsec;
	k->ctime_sec = ch.tv_sec;
	k->ctime_nsec = ch.tv_nsec;
	return 0;
}

/**
 * stackid_file_key_is - whether @k is @file's key now
 * @file: a mapped regular file
 * @k: a key stackid_file_key() made
 *
 * The same answer as making @file's key and comparing the two, field by
 * field and without making one: the handler asks it for every frame of
 * a remembered mapping. Keep it in step with stackid_file_key().
 */
bool stackid_file_key_is(struct file *file, const struct stackid_bid_key *k)
{
	struct inode *inode = file_inode(file);
	struct timespec64 m, ch;

	/* every field of the key is compared below, and no padding */
	BUILD_BUG_ON(sizeof(*k) != 6 * sizeof(u64) + 4 * sizeof(u32));
	if (k->inode != (unsigned long)inode || k->ino != inode->i_ino ||
	    k->size != i_size_read(inode) ||
	    k->iversion != inode_peek_iversion(inode) ||
	    k->gen != inode->i_generation || k->dev != inode->i_sb->s_dev)
		return false;
	m = stackid_inode_mtime(inode);
	ch = stackid_inode_ctime(inode);
	/* as stored: u32 */
	return k->mtime_sec == m.tv_sec && k->mtime_nsec == (u32)m.tv_nsec &&
	       k->ctime_sec == ch.tv_sec && k->ctime_nsec == (u32)ch.tv_nsec;
}

/* What cache entry @e says of @kf's file: its build-id, or why none. */
void stackid_kfile_known(struct stackid_kfile *kf,
			 const struct stackid_bid_entry *e)
{
	if (e->len) {
		kf->state = KF_KNOWN;
		kf->len = e->len;
		memcpy(kf->id, e->id, e->len);
	} else {
		kf->state = KF_FAILED;
		kf->reason = e->reason;
	}
}

/*
 * The index in ks->files of the file keyed @key, added (key only) if
 * new; see stackid_sample_add_file().
 */
static int stackid_sample_add_key(struct stackid_ksample *ks,
				  const struct stackid_bid_key *key,
				  bool *added, int *reason)
{
	unsigned int s, n, i;

	/* a free slot always; index + 1 fits a u8 */
	BUILD_BUG_ON(STACKID_FILE_HASH <= STACKID_SAMPLE_FILES);
	BUILD_BUG_ON(!is_power_of_2(STACKID_FILE_HASH));
	BUILD_BUG_ON(STACKID_SAMPLE_FILES + 1 > U8_MAX);
	*added = false;
	s = hash_64(key->inode, ilog2(STACKID_FILE_HASH));
	for (n = 0; n < STACKID_FILE_HASH; n++) {
		i = ks->file_hash[s];
		if (!i)
			break;
		if (ks->files[i - 1].key.inode == key->inode &&
		    !memcmp(&ks->files[i - 1].key, key, sizeof(*key)))
			return i - 1;
		s = (s + 1) & (STACKID_FILE_HASH - 1);
	}
	if (n == STACKID_FILE_HASH || ks->nr_files == STACKID_SAMPLE_FILES) {
		*reason = STACKID_IP_BUDGET;
		return -1;
	}
	ks->file_hash[s] = ks->nr_files + 1;
	ks->files[ks->nr_files].key = *key;
	*added = true;
	return ks->nr_files++;
}

/**
 * stackid_sample_add_file - find or add a file of @ks
 * @ks: the sample
 * @file: the file
 * @added: set true when @file was new to @ks: its entry has the key
 *	filled in and nothing else
 * @reason: set when -1 is returned
 *
 * Open addressing on the inode pointer: a stack through a hundred files
 * costs a hundred probes, not the five thousand compares of a scan per
 * frame. Returns the file's index in ks->files, or -1 with
 * STACKID_IP_BUDGET when the sample already names as many files as it
 * may.
 */
int stackid_sample_add_file(struct stackid_ksample *ks, struct file *file,
			    bool *added, int *reason)
{
	struct stackid_bid_key key;

	stackid_file_key(file, &key);
	return stackid_sample_add_key(ks, &key, added, reason);
}

/*
 * The index in ks->files of the file whose entry in this CPU's build-id
 * cache is @e (the walk found it, under the same hold of the mm lock),
 * added if new; -1 with *reason set when the sample already names as
 * many files as it may.
 */
static int stackid_sample_entry(struct stackid_cpu *c,
				struct stackid_ksample *ks,
				struct stackid_bid_entry *e, int *reason)
{
	struct stackid_kfile *kf;
	bool added;
	int i;

	i = stackid_sample_add_key(ks, &e->key, &added, reason);
	if (!added)
		return i;
	kf = &ks->files[i];
	kf->file = NULL;
	kf->entry = e;
	stackid_stat_inc(c, STACKID_STAT_BIDCACHE_HIT);
	stackid_kfile_known(kf, e);
	return i;
}

/*
 * The index in ks->files of @file, added if new and looked up in the
 * cache; -1 with *reason set when the sample already names as many files
 * as it may.
 */
static int stackid_sample_file(struct stackid_cpu *c,
			       struct stackid_ksample *ks, struct file *file,
			       int *reason)
{
	struct stackid_bid_entry *e;
	struct stackid_kfile *kf;
	bool added;
	int i;

	i = stackid_sample_add_file(ks, file, &added, reason);
	if (!added)
		return i;
	kf = &ks->files[i];
	kf->file = NULL;
	e = stackid_bidcache_find(&c->cache, &kf->key);
	kf->entry = e;
	if (!e) {
		stackid_stat_inc(c, STACKID_STAT_BIDCACHE_MISS);
		kf->state = KF_MISS;
	} else {
		stackid_stat_inc(c, STACKID_STAT_BIDCACHE_HIT);
		stackid_kfile_known(kf, e);
	}
	return i;
}

/* Where a walk of the pending uretprobe return instances stands. */
struct stackid_uprobe_cursor {
	void *next;		/* struct return_instance * */
	bool started;
};

/*
 * Whether @vma is the "[uprobes]" mapping: the uretprobe trampoline (its
 * first slot, at vm_start, where uprobe_get_trampoline_vaddr() points)
 * and the slots where probed instructions are single-stepped.
 */
static bool stackid_uprobes_vma(struct vm_area_struct *vma)
{
#ifdef CONFIG_UPROBES
	const char *name;

	if (vma->vm_file || !vma->vm_ops || !vma->vm_ops->name)
		return false;
	name = vma->vm_ops->name(vma);
	return name && !strcmp(name, "[uprobes]");
#else
	return false;
#endif
}

/*
 * A return address replaced by the uretprobe trampoline (the first slot
 * of the "[uprobes]" mapping, exactly) stands for the next pending return
 * instance's original address, as the kernel's own callchain code fixes
 * it up (fixup_uretprobe_trampoline_entries()). True if @addr was fixed.
 *
 * Task context only. Only the task itself changes its list of return
 * instances, and up to 6.12 cleanup_return_instances() frees an instance
 * before it unlinks it: a handler that interrupted the task there would
 * follow freed memory. The task_work reads the list in the task, where
 * nothing changes it meanwhile; so the handler leaves such frames to it,
 * unless the list is about to change before the task_work runs
 * (stackid_resolve_frames()).
 */
static bool stackid_fix_uretprobe(struct vm_area_struct *vma,
				  unsigned long *addr,
				  struct stackid_uprobe_cursor *cur)
{
#ifdef CONFIG_UPROBES
	struct return_instance *ri;

	if (!stackid_uprobes_vma(vma) || *addr != vma->vm_start)
		return false;
	if (!cur->started) {
		cur->started = true;
		cur->next = current->utask ?
			    current->utask->return_instances : NULL;
	}
	ri = cur->next;
	if (!ri)
		return false;
	*addr = ri->orig_ret_vaddr;
	cur->next = ri->next;
	return true;
#else
	return false;
#endif
}

/* Where a resolution found a file: a few of them per sample, see below. */
#define STACKID_RESOLVE_PLACES	4
struct stackid_resolve_place {
	struct vm_area_struct *vma;
	int kf;			/* index in ks->files, or -1 */
	int reason;		/* why -1 */
};

/**
 * stackid_resolve_frames - resolve pending frames against @mm
 * @c: this CPU's sampler state (handler), or NULL (the task's context)
 * @mm: the sampled mm, read-locked by the caller
 * @ks: the sample; its KS_PENDING frames are resolved
 * @vmas: or NULL: each frame's VMA as the walk found it, under the same
 *	hold of the mm lock as this call (stackid_unwind()); a hint, checked
 *	against the frame's address
 * @bids: or NULL (@c NULL: always): the build-id cache entry of each
 *	frame's file as the walk found it, used with that frame's VMA hint
 * @file_fn: how a frame's file gets into @ks (handler: cache only)
 * @ctx: passed to @file_fn
 *
 * A stack goes back and forth between a few files: the last few VMAs'
 * files are remembered, so each VMA is looked up, and its file keyed,
 * once per sample. The handler leaves a uretprobe trampoline's frame
 * pending, for the task's context (stackid_fix_uretprobe()); such a VMA
 * is never remembered, each of its frames is its own.
 */
void stackid_resolve_frames(struct stackid_cpu *c, struct mm_struct *mm,
			    struct stackid_ksample *ks,
			    struct vm_area_struct *const *vmas,
			    struct stackid_bid_entry *const *bids,
			    int (*file_fn)(struct stackid_cpu *c,
					   struct stackid_ksample *ks,
					   struct file *file, int *reason,
					   void *ctx),
			    void *ctx)
{
	struct stackid_resolve_place places[STACKID_RESOLVE_PLACES];
	struct stackid_uprobe_cursor uprobe_cursor = { 0 };
	struct stackid_resolve_place *p = NULL;
	unsigned int i, j, nplaces = 0;
	bool uprobe_moving = false;

#ifdef CONFIG_UPROBES
	/*
	 * In the kernel with uprobe work pending for the way out (it runs
	 * before the task_work) the task's return instances will have
	 * changed by then: a trampoline frame cannot be told which one it
	 * stands for. So too inside the trampoline's own system call (frame
	 * 0 in [uprobes], below).
	 */
	if (c && !(ks->hdr.flags & STACKID_SF_USER) &&
	    test_thread_flag(TIF_UPROBE))
		uprobe_moving = true;
#endif

	for (i = 0; i < stackid_nr_user(ks); i++) {
		struct stackid_kframe *f = &ks->frames[i];
		unsigned long addr = f->addr;
		struct vm_area_struct *vma;
		struct file *file;
		bool hinted;

		if (f->status != KS_PENDING)
			continue;
		if (p && addr >= p->vma->vm_start && addr < p->vma->vm_end)
			goto found;
		for (j = 0; j < min_t(unsigned int, nplaces,
					    STACKID_RESOLVE_PLACES); j++) {
			p = &places[j];
			if (addr >= p->vma->vm_start && addr < p->vma->vm_end)
				goto found;
		}
		p = NULL;
		vma = vmas ? vmas[i] : NULL;
		hinted = vma && addr >= vma->vm_start && addr < vma->vm_end;
		if (!hinted)
			vma = stackid_vma_lookup(mm, addr);
		if (vma && stackid_uprobes_vma(vma)) {
			if (c) {
				if (!i && !(ks->hdr.flags & STACKID_SF_USER))
					uprobe_moving = true;
				if (uprobe_moving && addr == vma->vm_start) {
					f->status = KS_IP;
					f->reason = STACKID_IP_NOT_RESOLVED;
				}
				continue;	/* pending: the task's context */
			}
			if (!stackid_fix_uretprobe(vma, &addr,
						   &uprobe_cursor)) {
				f->status = KS_IP;
				f->reason = STACKID_IP_NO_FILE;
				continue;
			}
			f->addr = addr;
			vma = stackid_vma_lookup(mm, addr);
		}
		if (!vma) {
			f->status = KS_IP;
			f->reason = STACKID_IP_NO_VMA;
			continue;
		}
		p = &places[nplaces++ % STACKID_RESOLVE_PLACES];
		p->vma = vma;
		p->kf = -1;
		/* the walk's: no second file key or cache lookup */
		if (c && hinted && bids && bids[i]) {
			p->kf = stackid_sample_entry(c, ks, bids[i], &p->reason);
			goto found;
		}
		file = stackid_vma_file(vma, &p->reason);
		if (file)
			p->kf = file_fn(c, ks, file, &p->reason, ctx);
found:
		if (p->kf < 0) {
			f->status = KS_IP;
			f->reason = p->reason;
			continue;
		}
		f->file = p->kf;
		f->off = ((u64)p->vma->vm_pgoff << PAGE_SHIFT) + addr -
			 p->vma->vm_start;
		switch (ks->files[p->kf].state) {
		case KF_KNOWN:
			f->status = KS_FILE;
			break;
		case KF_FAILED:
			f->status = KS_IP;
			f->reason = ks->files[p->kf].reason;
			break;
		default:
			break;	/* KF_MISS: stays pending, on its file */
		}
	}
}

static int stackid_handler_file(struct stackid_cpu *c,
				struct stackid_ksample *ks, struct file *file,
				int *reason, void *ctx)
{
	return stackid_sample_file(c, ks, file, reason);
}

/**
 * stackid_mm_trylock - read-lock @mm from the handler, if it can be had
 * @c: this CPU's sampler state
 * @mm: the sampled task's mm
 *
 * Never on PREEMPT_RT, where mmap_lock sleeps.
 */
bool stackid_mm_trylock(struct stackid_cpu *c, struct mm_struct *mm)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return false;
	if (in_nmi()) {
		/*
		 * The rwsem itself, not mmap_read_trylock(): that reports to
		 * mmap_lock's tracepoints, whose probe names the memory
		 * cgroup under css_set_lock, a spinlock this CPU may hold
		 * (and a check of the tracepoint here would race its being
		 * turned on). The irq_work releases it the same way.
		 */
		return !stackid_irq_work_is_busy(&c->unlock_work) &&
		       down_read_trylock(&mm->mmap_lock);
	}
	return mmap_read_trylock(mm);
}

/* Release what stackid_mm_trylock() took. */
void stackid_mm_unlock(struct stackid_cpu *c, struct mm_struct *mm)
{
	if (in_nmi()) {
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

/**
 * stackid_resolve - resolve what the handler can: cache hits
 * @c: this CPU's sampler state
 * @mm: the sampled task's mm, read-locked by stackid_mm_trylock()
 * @ks: the sample, all frames KS_PENDING
 * @defer: set when some frame needs the task's own context
 */
void stackid_resolve(struct stackid_cpu *c, struct mm_struct *mm,
		     struct stackid_ksample *ks, bool *defer)
{
	unsigned int i;

	stackid_resolve_frames(c, mm, ks, c->vmas, c->bids,
			       stackid_handler_file, NULL);
	*defer = false;
	for (i = 0; i < stackid_nr_user(ks); i++)
		if (ks->frames[i].status == KS_PENDING)
			*defer = true;
}

/* Count final frames: valid, or raw IP by reason. */
void stackid_count_frames(struct stackid_cpu *c,
			  const struct stackid_ksample *ks)
{
	unsigned int i, valid = 0;

	for (i = 0; i < stackid_nr_user(ks); i++) {
		if (ks->frames[i].status == KS_FILE)
			valid++;
		else
			stackid_stat_inc(c, STACKID_STAT_IP_FIRST +
					    ks->frames[i].reason);
		if (ks->frames[i].how == STACKID_HOW_TABLE)
			stackid_stat_inc(c, STACKID_STAT_FRAMES_TABLE);
		else if (ks->frames[i].how == STACKID_HOW_SIGNAL)
			stackid_stat_inc(c, STACKID_STAT_FRAMES_SIGNAL);
	}
	if (ks->hdr.stop)
		stackid_stat_inc(c, STACKID_STAT_STOP_FIRST + ks->hdr.stop);
	if (ks->hdr.flags & STACKID_SF_TRUNCATED)
		stackid_stat_inc(c, STACKID_STAT_TRUNCATED);
	stackid_stat_add(c, STACKID_STAT_FRAMES_VALID, valid);
	stackid_stat_add(c, STACKID_STAT_KFRAMES, ks->hdr.nr_kernel);
}
