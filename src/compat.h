/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel difference stackid cares about, and nothing else. Core
 * code calls the stackid_*() wrappers here; no other file tests a kernel
 * version or a probe result. Supported: 5.10 to 7.x (dkms.conf), x86-64.
 *
 * Each wrapper is chosen by a probe, not a version number: distributions
 * backport interfaces to older lines (Debian's 5.10 has
 * inode_get_ctime() and timer_delete_sync(), its 6.1 has
 * timer_shutdown_sync()). Kbuild compiles src/probes/NAME.c against the
 * target kernel and defines STACKID_HAS_NAME in stackid-probes.h for each
 * that builds (src/probes/run.sh).
 */
#ifndef STACKID_COMPAT_H
#define STACKID_COMPAT_H

#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/sched.h>
#include <linux/task_work.h>
#include <linux/preempt.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/magic.h>
#include <linux/mount.h>

#include "stackid-probes.h"

/*
 * The page cache, a folio at a time (read_cache_folio() and the
 * read_folio address-space operation: 5.19). Before that the same calls
 * work on the single page at the index asked for, passed around as an
 * opaque struct folio pointer that is never dereferenced.
 */
#ifndef STACKID_HAS_FOLIO
struct folio;

static inline struct page *stackid_folio_page(struct folio *folio)
{
	return (struct page *)folio;
}
#endif

/*
 * The folio at @index if it is in the page cache, without I/O, locks or
 * sleeping; NULL if absent. filemap_get_folio() returned NULL for absent
 * before 6.3 and ERR_PTR(-ENOENT) since: both are taken.
 */
static inline struct folio *stackid_cached_folio(struct address_space *m,
						 pgoff_t index)
{
#ifdef STACKID_HAS_FOLIO
	struct folio *folio = filemap_get_folio(m, index);

	return IS_ERR_OR_NULL(folio) ? NULL : folio;
#else
	return (struct folio *)find_get_page(m, index);
#endif
}

/*
 * The folio at @index of @file, read in if need be and uptodate, or
 * ERR_PTR. May sleep.
 */
static inline struct folio *stackid_read_cache_folio(struct file *file,
						     pgoff_t index)
{
#ifdef STACKID_HAS_FOLIO
	return read_cache_folio(file->f_mapping, index, NULL, file);
#else
	return (struct folio *)read_cache_page(file->f_mapping, index, NULL,
					       file);
#endif
}

/* Can @m read a folio in (else: shmem and the like, read with read_iter)? */
static inline bool stackid_can_read_folio(struct address_space *m)
{
#ifdef STACKID_HAS_FOLIO
	return m->a_ops && m->a_ops->read_folio;
#else
	return m->a_ops && m->a_ops->readpage;
#endif
}

static inline void stackid_folio_put(struct folio *folio)
{
#ifdef STACKID_HAS_FOLIO
	folio_put(folio);
#else
	put_page(stackid_folio_page(folio));
#endif
}

static inline bool stackid_folio_uptodate(struct folio *folio)
{
#ifdef STACKID_HAS_FOLIO
	return folio_test_uptodate(folio);
#else
	return PageUptodate(stackid_folio_page(folio));
#endif
}

static inline size_t stackid_folio_size(struct folio *folio)
{
#ifdef STACKID_HAS_FOLIO
	return folio_size(folio);
#else
	return PAGE_SIZE;
#endif
}

/* The file offset of the folio's first byte. */
static inline loff_t stackid_folio_pos(struct folio *folio)
{
#ifdef STACKID_HAS_FOLIO
	return folio_pos(folio);
#else
	/* page_to_index() is right for a page of a huge page too */
	return (loff_t)page_to_index(stackid_folio_page(folio)) << PAGE_SHIFT;
#endif
}

/*
 * Map the page of @folio that holds byte @offset (of the folio) and
 * return that byte's address; undone by stackid_kunmap_local(). Before
 * folios the "folio" is one page, and on x86-64 (stackid's only
 * architecture) every page is in the direct map.
 */
static inline void *stackid_kmap_local_folio(struct folio *folio,
					     size_t offset)
{
#ifdef STACKID_HAS_FOLIO
	return kmap_local_folio(folio, offset);
#else
	return page_address(stackid_folio_page(folio)) + offset_in_page(offset);
#endif
}

/*
 * Whether the page of @folio that holds byte @offset was poisoned by a
 * memory error. shmem keeps such pages in its page cache (since 5.16),
 * and reading one with a plain copy is a fatal machine check.
 */
static inline bool stackid_folio_poisoned(struct folio *folio, size_t offset)
{
#ifdef STACKID_HAS_FOLIO
	return PageHWPoison(folio_page(folio, offset >> PAGE_SHIFT));
#else
	return PageHWPoison(stackid_folio_page(folio));
#endif
}

static inline void stackid_kunmap_local(void *addr)
{
#ifdef STACKID_HAS_FOLIO
	kunmap_local(addr);
#endif
}

/*
 * The mm's write sequence, read with its mmap_lock held for reading: it
 * changes with every write lock (so with any change to the mm's VMAs),
 * and an unchanged value means no VMA changed since it was last read.
 * False where the kernel keeps none as a seqcount (Debian's 6.1 and
 * 5.10; any kernel without CONFIG_PER_VMA_LOCK): nothing is remembered
 * across samples there (unwind.c). A plain read, as the kernel's own
 * vma_start_read() makes: no writer can run while the lock is held.
 */
static inline bool stackid_mm_seq(struct mm_struct *mm, u32 *seq)
{
#ifdef STACKID_HAS_MM_LOCK_SEQ
	*seq = READ_ONCE(mm->mm_lock_seq.sequence);
	return true;
#else
	return false;
#endif
}

/*
 * What tells one mm from every other for the life of the system: x86's
 * ctx_id, given once from a 64-bit counter (never reused, unlike the
 * mm's address).
 */
static inline u64 stackid_mm_id(struct mm_struct *mm)
{
	return mm->context.ctx_id;
}

/* The VMA that contains @addr, or NULL; the caller holds the mm lock. */
static inline struct vm_area_struct *stackid_vma_lookup(struct mm_struct *mm,
							unsigned long addr)
{
#ifdef STACKID_HAS_VMA_LOOKUP
	return vma_lookup(mm, addr);
#else
	struct vm_area_struct *vma = find_vma(mm, addr);

	return vma && addr >= vma->vm_start ? vma : NULL;
#endif
}

/* Is @work queued or running? */
static inline bool stackid_irq_work_is_busy(struct irq_work *work)
{
#ifdef STACKID_HAS_IRQ_WORK_IS_BUSY
	return irq_work_is_busy(work);
#else
	return atomic_read(&work->flags) & IRQ_WORK_BUSY;
#endif
}

/* Modification time: 6.7 hid i_mtime behind accessors. */
static inline struct timespec64 stackid_inode_mtime(const struct inode *inode)
{
#ifdef STACKID_HAS_INODE_GET_MTIME
	return inode_get_mtime(inode);
#else
	return inode->i_mtime;
#endif
}

/* Change time: 6.6 hid i_ctime behind accessors. */
static inline struct timespec64 stackid_inode_ctime(const struct inode *inode)
{
#ifdef STACKID_HAS_INODE_GET_CTIME
	return inode_get_ctime(inode);
#else
	return inode->i_ctime;
#endif
}

/* Mappings whose folios must not be read (guest_memfd, 6.11). */
static inline bool stackid_mapping_inaccessible(struct address_space *m)
{
#ifdef STACKID_HAS_MAPPING_INACCESSIBLE
	return mapping_inaccessible(m);
#else
	return false;
#endif
}

/* A secretmem inode (memfd_secret(), 5.14): never read. */
static inline bool stackid_is_secretmem(const struct inode *inode)
{
#ifdef SECRETMEM_MAGIC
	return inode->i_sb->s_magic == SECRETMEM_MAGIC;
#else
	return false;
#endif
}

/* FUSE's statfs magic, in <linux/magic.h> only since 5.11. */
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC	0x65735546
#endif

/*
 * Threads that share a process's mm but never run in user mode: io_uring
 * workers always had PF_IO_WORKER; 6.4 added PF_USER_WORKER, which vhost
 * workers (then threads of their owner) carry too.
 */
#ifdef PF_USER_WORKER
#define STACKID_PF_USER_WORKER	PF_USER_WORKER
#else
#define STACKID_PF_USER_WORKER	0
#endif

/* An exec is in progress: registers and mm may not match. */
static inline bool stackid_task_in_exec(struct task_struct *t)
{
	return t->in_execve;
}

/*
 * Copy from user space in the handler: no fault, no sleep, and nothing
 * while this CPU's page tables are not current's (an NMI in the middle of
 * a switch of mm). copy_from_user_nmi() (x86, what perf's own callchains
 * use) checks nmi_uaccess_okay() on every kernel;
 * copy_from_user_nofault() only since 5.18.
 */
static inline int stackid_copy_user_nmi(void *dst, const void __user *src,
					size_t n)
{
	return copy_from_user_nmi(dst, src, n) ? -EFAULT : 0;
}

/*
 * Queue @work on the current task, to run before it returns to user
 * space. From NMI, 6.11 has TWA_NMI_CURRENT. Before that, TWA_RESUME on
 * the current task only sets a flag with atomic operations and queues
 * with a cmpxchg, which NMI can do, unless KASAN records the call stack
 * (it allocates): then -EOPNOTSUPP, and the caller keeps what it has. The
 * one thing lost there is promptness: if the NMI hit the return to user
 * space after its flags were checked, the work waits for the next kernel
 * entry.
 */
static inline int stackid_task_work_add_current(struct callback_head *work)
{
#ifdef STACKID_HAS_TWA_NMI_CURRENT
	return task_work_add(current, work,
			     in_nmi() ? TWA_NMI_CURRENT : TWA_RESUME);
#else
	if (in_nmi() && IS_ENABLED(CONFIG_KASAN))
		return -EOPNOTSUPP;
	return task_work_add(current, work, TWA_RESUME);
#endif
}

/* Whether stackid_task_work_add_current() can queue a work here at all. */
static inline bool stackid_task_work_can_add(void)
{
#ifdef STACKID_HAS_TWA_NMI_CURRENT
	return true;
#else
	return !(in_nmi() && IS_ENABLED(CONFIG_KASAN));
#endif
}

/*
 * Whether a task_work queued now (stackid_task_work_add_current()) runs
 * before the task executes user code again. From hardirq, yes: the
 * interrupt's exit runs it. From NMI, only with TWA_NMI_CURRENT (6.11),
 * whose self-IPI makes the next entry happen at once: before that, an NMI
 * that hit user mode returns straight to it (the NMI exit runs no exit
 * work), and the work waits for the next kernel entry, after user code
 * has changed the stack.
 */
static inline bool stackid_task_work_before_user(void)
{
#ifdef STACKID_HAS_TWA_NMI_CURRENT
	return true;
#else
	return !in_nmi();
#endif
}

/* Open @path under @mnt's root, read-only, for kernel_read(). */
static inline struct file *stackid_file_open_root_mnt(struct vfsmount *mnt,
						      const char *path)
{
#ifdef STACKID_HAS_FILE_OPEN_ROOT_MNT
	return file_open_root_mnt(mnt, path, O_RDONLY, 0);
#else
	return file_open_root(mnt->mnt_root, mnt, path, O_RDONLY, 0);
#endif
}

/* Stop a timer and wait for its callback; it may be armed again. */
static inline void stackid_timer_delete_sync(struct timer_list *t)
{
#ifdef STACKID_HAS_TIMER_DELETE_SYNC
	timer_delete_sync(t);
#else
	del_timer_sync(t);
#endif
}

/* The same for good: it is never armed again. */
static inline void stackid_timer_shutdown_sync(struct timer_list *t)
{
#ifdef STACKID_HAS_TIMER_SHUTDOWN_SYNC
	timer_shutdown_sync(t);
#else
	stackid_timer_delete_sync(t);
#endif
}

/* 6.3 made vm_flags read-only outside these helpers. */
static inline void stackid_vm_flags_clear(struct vm_area_struct *vma,
					  unsigned long flags)
{
#ifdef STACKID_HAS_VM_FLAGS_CLEAR
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/* vm_flags_set() came with vm_flags_clear() (6.3): the same probe. */
static inline void stackid_vm_flags_set(struct vm_area_struct *vma,
					unsigned long flags)
{
#ifdef STACKID_HAS_VM_FLAGS_CLEAR
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

#endif /* STACKID_COMPAT_H */
