// SPDX-License-Identifier: GPL-2.0
/*
 * Finishing samples in the sampled task's own context.
 *
 * The handler resolves only what the build-id cache knows. A sample with
 * a frame it could not resolve (a file not cached on this CPU, the mm
 * lock contended, an NMI whose previous unlock is still pending, any
 * sample on PREEMPT_RT) is copied into a free per-CPU slot and handed to
 * a task_work on the sampled task; it runs before the task returns to
 * user space, in process context, where it may sleep: it takes the mm
 * lock (killable), finds the files, reads their build-id notes through
 * the page cache with I/O if need be (buildid.c), caches the results on
 * the CPU it runs on, emits a path record the first time a build-id is
 * read (paths.c), and writes the sample. At most STACKID_TASK_PARSES
 * files are read for one sample; frames in further files stay raw
 * (STACKID_IP_BUDGET). A frame is never resolved against another address
 * space: if the task exec'd or is exiting meanwhile, its frames stay raw
 * (STACKID_IP_NOT_RESOLVED).
 *
 * A later sample of the task, taken before it went back to user space
 * (the same user stack), joins the waiting one instead of taking a slot
 * (sample.c: stackid_defer_join()): it is written after it, with its own
 * header and kernel frames and the user frames found here.
 *
 * Nothing is lost: with no free slot, or when the task cannot take work
 * (exiting; NMI on a kernel whose task_work_add() is not NMI-safe), the
 * handler delivers the sample at once with those frames raw, and counts
 * STACKID_STAT_DEFER_NO_SLOT when the slots ran out.
 *
 * Taking back. A task sampled just before it sleeps in the kernel (epoll,
 * a futex, poll) runs its work only when it wakes, maybe hours later (a
 * ptrace stop mostly does not hold it: ptrace_notify() runs task works
 * first). So the work is not in the slot: it is in one of the CPU's
 * STACKID_DEFER_TICKETS tickets, with the references it drops, and the
 * slot names its ticket (claim). When every slot is in use, the handler
 * takes back the one that has waited longest, if that is at least
 * STACKID_DEFER_TAKE_BACK_MS since it was queued or a sample last joined
 * it (a task still sampled in the kernel is busy, not asleep): it claims
 * it with cmpxchg() and writes its sample and joins then, their
 * unresolved frames raw, and a cgroup not named yet stays unnamed
 * (STACKID_STAT_DEFER_TAKEN_BACK). The work claims its slot the same way
 * before it touches it; whichever comes second finds the claim gone, and
 * a work that lost it only drops its ticket's references. Tickets are
 * never taken back, and a task asleep keeps all of its own (one per
 * slot it took, 8 at most on one CPU): a CPU runs out of tickets only
 * when 32 to 256 tasks sampled on it sleep so at once
 * (STACKID_STAT_DEFER_NO_TICKET). STACKID_IOC_RESET_STATS takes every
 * queued slot back.
 *
 * Unloading. A queued work's function must stay in memory until its
 * task runs it, and a module cannot take a queued work back
 * (task_work_cancel() is not exported). So the works name
 * stackid_anchor_run(), in the small module stackid_anchor.ko (anchor.c),
 * which calls stackid_task_fn() here only while this module's
 * registration is current, and which holds the mm's reference, the
 * tickets' memory (a block handed over at exit) and its own module pin.
 * A call holds this module (try_module_get()): rmmod fails (in use)
 * while one runs, not while works merely wait. Module exit unregisters
 * (waiting out a work between its check and its call) before it frees
 * anything a call uses: a task asleep in the kernel no longer keeps this
 * module loaded; when it wakes, its work only lets go. Workers that
 * never return to user space are never deferred (sample.c: their
 * samples are delivered at once, kernel frames only).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/ptrace.h>
#include <linux/task_work.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/iversion.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/topology.h>
#include <linux/cpu.h>
#include <linux/smp.h>

#include "internal.h"
#include "compat.h"


/*
 * A file of a deferred sample, under the mm lock: added to the sample
 * with a reference to be read once the lock is dropped.
 */
static int stackid_task_file(struct stackid_cpu *unused,
			     struct stackid_ksample *ks, struct file *file,
			     int *reason, void *ctx)
{
	struct stackid_kfile *kf;
	bool added;
	int i;

	i = stackid_sample_add_file(ks, file, &added, reason);
	if (i < 0)
		return i;
	kf = &ks->files[i];
	if (added) {
		kf->entry = NULL;
		kf->state = KF_MISS;
		kf->file = get_file(file);
	} else if (kf->state == KF_MISS && !kf->file) {
		/* one the handler found but could not read */
		kf->file = get_file(file);
	}
	return i;
}

/* The cache of the CPU we run on knows @kf now? Fills it if so. */
static bool stackid_task_cached(struct stackid_kfile *kf)
{
	struct stackid_bid_entry *e;
	unsigned long flags;
	struct stackid_cpu *c;
	bool hit = false;

	c = stackid_cpu_get(&flags);
	e = stackid_bidcache_find(&c->cache, &kf->key);
	if (e) {
		hit = true;
		stackid_stat_inc(c, STACKID_STAT_BIDCACHE_HIT);
		stackid_kfile_known(kf, e);
	}
	stackid_cpu_put(c, flags);
	return hit;
}

/* Remember what reading @kf found, in the cache of the CPU we run on. */
static void stackid_task_cache(struct stackid_kfile *kf)
{
	struct stackid_bid_entry *e;
	unsigned long flags;
	struct stackid_cpu *c;

	c = stackid_cpu_get(&flags);
	e = stackid_bidcache_insert(&c->cache, &kf->key,
				    stackid_bidcache_tick(&c->cache));
	if (e) {
		e->len = kf->state == KF_KNOWN ? kf->len : 0;
		e->reason = kf->state == KF_KNOWN ? 0 : kf->reason;
		memcpy(e->id, kf->id, e->len);
		/* an entry of the same key is not emptied by the insert */
		e->tknown = 0;
	}
	stackid_cpu_put(c, flags);
}

/*
 * Read the build-id of @kf's file. The key is taken again around the
 * read, with the inode's i_version marked as queried first so that any
 * write from then on changes it: a file that changed meanwhile is not
 * cached, and its frames stay raw (READ_ERROR).
 */
static void stackid_task_read(struct stackid_kfile *kf)
{
	struct stackid_bid_key before, after;
	struct inode *inode = file_inode(kf->file);
	int err;

	inode_query_iversion(inode);
	stackid_file_key(kf->file, &before);
	err = stackid_read_build_id(kf->file, kf->id, &kf->len);
	stackid_file_key(kf->file, &after);
	stackid_stat_inc_here(STACKID_STAT_PARSES);
	if (memcmp(&before, &after, sizeof(before))) {
		kf->state = KF_FAILED;
		kf->reason = STACKID_IP_READ_ERROR;
		return;
	}
	kf->key = after;
	switch (err) {
	case 0:
		kf->state = KF_KNOWN;
		stackid_paths_report(kf->file, kf->id, kf->len);
		break;
	case -ENOENT:
		kf->state = KF_FAILED;
		kf->reason = STACKID_IP_NO_BUILD_ID;
		break;
	case -ENOEXEC:
		kf->state = KF_FAILED;
		kf->reason = STACKID_IP_NOT_ELF;
		break;
	default:
		kf->state = KF_FAILED;
		kf->reason = STACKID_IP_READ_ERROR;
		return;		/* passing: not cached */
	}
	stackid_task_cache(kf);
}

/* Resolve what is left of @ks in its own task's context. */
static void stackid_task_resolve(struct stackid_ksample *ks,
				 struct mm_struct *mm, unsigned int *parses)
{
	unsigned int i;

	/* the handler's cache hits stay; its misses are looked up anew */
	for (i = 0; i < stackid_nr_user(ks); i++)
		if (ks->frames[i].status == KS_PENDING)
			ks->frames[i].file = 0;
	if (mmap_read_lock_killable(mm))
		return;
	stackid_resolve_frames(NULL, mm, ks, NULL, NULL, stackid_task_file,
			       NULL);
	mmap_read_unlock(mm);

	for (i = 0; i < ks->nr_files; i++) {
		struct stackid_kfile *kf = &ks->files[i];

		if (kf->state != KF_MISS || !kf->file)
			continue;	/* a miss of the handler's, not seen here */
		if (!stackid_task_cached(kf)) {
			if (*parses < STACKID_TASK_PARSES) {
				(*parses)++;
				stackid_task_read(kf);
			} else {
				kf->state = KF_FAILED;
				kf->reason = STACKID_IP_BUDGET;
			}
		}
		fput(kf->file);
		kf->file = NULL;
	}
	for (i = 0; i < stackid_nr_user(ks); i++) {
		struct stackid_kframe *f = &ks->frames[i];
		struct stackid_kfile *kf = &ks->files[f->file];

		if (f->status != KS_PENDING)
			continue;
		if (kf->state == KF_KNOWN) {
			f->status = KS_FILE;
		} else {
			f->status = KS_IP;
			f->reason = kf->state == KF_FAILED ?
				    kf->reason : STACKID_IP_NOT_RESOLVED;
		}
	}
}

/*
 * Whether the task's user registers are still those the handler walked
 * from: not so when it ran user code since (a sample of an NMI that hit
 * user mode, on a kernel where its task_work waits for the next entry),
 * and then its stack is not the one sampled either.
 */
static bool stackid_task_regs_same(const struct stackid_deferred *d)
{
	struct pt_regs *regs = task_pt_regs(current);

	return regs->ip == d->uregs.ip && regs->sp == d->uregs.sp &&
	       regs->bp == d->uregs.bp;
}

/* How many of @ks's files have a build-id. */
static unsigned int stackid_task_known(const struct stackid_ksample *ks)
{
	unsigned int i, n = 0;

	for (i = 0; i < ks->nr_files; i++)
		n += ks->files[i].state == KF_KNOWN;
	return n;
}

/*
 * Walk @d's user stack again, here, with the unwind tables the handler
 * could not use (the mm lock was not to be had there, or a frame's file
 * was not in its build-id cache, so its table could not be found), then
 * resolve it. The user stack is the one the handler saw: the task has
 * not been back in user space since. A walk that meets a file whose
 * build-id is not known yet resolves it (reads its build-id) and walks
 * once more, with the build-ids the last walk found; at most four walks,
 * and only while each finds more, with one budget of file reads
 * (STACKID_TASK_PARSES) for them all.
 */
static void stackid_task_rewalk(struct stackid_deferred *d,
				struct mm_struct *mm)
{
	struct stackid_ksample *ks = &d->ks;
	unsigned int round, n, max, parses = 0, known = 0;
	bool missed = true;
	u8 stop;

	max = min_t(unsigned int, READ_ONCE(stackid_param_max_depth),
		    STACKID_MAX_DEPTH - ks->hdr.nr_kernel);
	for (round = 0; missed && round < 4; round++) {
		if (round)
			cond_resched();
		if (mmap_read_lock_killable(mm))
			return;
		/* the handler's files are the first walk's hint */
		n = stackid_unwind(NULL, mm, &d->uregs, d->compat, ks,
				   d->ips, d->hows, NULL, NULL, max, &stop,
				   &missed);
		mmap_read_unlock(mm);
		stackid_fill_user(ks, d->ips, d->hows, n);
		ks->hdr.stop = stop;
		ks->hdr.flags &= ~STACKID_SF_TRUNCATED;
		if (stop == STACKID_STOP_DEPTH)
			ks->hdr.flags |= STACKID_SF_TRUNCATED;
		stackid_task_resolve(ks, mm, &parses);
		n = stackid_task_known(ks);
		if (n <= known)
			break;		/* nothing new to walk with */
		known = n;
	}
}

/*
 * Finish @d's sample, claimed by its task's work: resolve it here, write
 * it and its joins, give the slot back.
 */
static void stackid_task_finish(struct stackid_deferred *d)
{
	struct stackid_ksample *ks = &d->ks;
	struct mm_struct *mm = current->mm;
	unsigned int njoins;
	struct stackid_cpu *c;
	unsigned long flags;
	bool stale;

	/* no sample joins this one from here on (sample.c) */
	WRITE_ONCE(d->started, true);
	barrier();
	njoins = d->njoins;
	stackid_test_task_hold();
	/*
	 * The handler's cache hits pointed into the cache of the CPU that
	 * took the sample, as it was then. This may be another CPU, or the
	 * entry may have been evicted or the session changed since: the
	 * build-ids stay (the files' len and id), and their ring indices are
	 * looked up again in the cache of the CPU that writes the sample
	 * (emit.c), whether or not the sample is resolved here.
	 */
	stackid_forget_entries(ks);
	stale = d->session != READ_ONCE(stackid_state.session);
	if (!stale && mm && mm == d->mm && !(current->flags & PF_EXITING)) {
		unsigned int parses = 0;

		if (d->rewalk && stackid_task_regs_same(d))
			stackid_task_rewalk(d, mm);
		else
			stackid_task_resolve(ks, mm, &parses);
		if (ks->name_cgroup)
			stackid_cgroup_report(ks->hdr.cgroup_id);
	}
	stackid_deferred_settle(ks);
	/* a sample found stale above is still stale there */
	c = stackid_cpu_get(&flags);
	stackid_deferred_write_all(c, d, njoins);
	stackid_cpu_put(c, flags);
	/* the slot goes back to its CPU's handler */
	smp_mb__before_atomic();
	clear_bit(d->slot, &d->owner->defer_busy);
}

/* Called by stackid_anchor_run() for a work of this module's (above). */
void stackid_task_fn(struct stackid_anchor_work *w)
{
	struct stackid_ticket *t = container_of(w, struct stackid_ticket, w);
	struct stackid_deferred *d = t->d;
	unsigned long claim = t->index + 1;

	/* unless its CPU's handler took the slot back meanwhile */
	if (cmpxchg(&d->claim, claim, 0) == claim)
		stackid_task_finish(d);
	/*
	 * The ticket goes back to its CPU's handler; stackid_anchor_run()
	 * read what it drops (mm, block, pin) before this call.
	 */
	smp_mb__before_atomic();
	clear_bit(t->index, t->owner->ticket_busy);
}

/* Every slot queued on @c, taken back, written, free; @c held. */
static void stackid_defer_take_back_cpu(struct stackid_cpu *c)
{
	int i;

	while ((i = stackid_defer_take_back(c, true)) >= 0) {
		/* its sample is written before the slot is free */
		smp_mb__before_atomic();
		clear_bit(i, &c->defer_busy);
	}
}

/* IPI of stackid_defer_take_back_all() */
static void stackid_defer_take_back_here(void *unused)
{
	struct stackid_cpu *c;
	unsigned long flags;

	c = stackid_cpu_get(&flags);
	stackid_defer_take_back_cpu(c);
	stackid_cpu_put(c, flags);
}

/*
 * With sampling off (STACKID_IOC_RESET_STATS), each CPU's queued slots
 * are taken back: the samples of tasks asleep in the kernel are written
 * now, so that zeroing the counters need not wait for those tasks to
 * wake. An online CPU does it in an IPI, holding itself as process
 * context does; an offline one has no writer of its state, so it is
 * done from here, as stackid_rings_reset() does. A slot whose work runs
 * right now stays.
 */
void stackid_defer_take_back_all(void)
{
	struct stackid_cpu *c;
	unsigned long flags;
	int cpu;

	cpus_read_lock();
	on_each_cpu(stackid_defer_take_back_here, NULL, 1);
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			continue;
		c = stackid_state.cpus[cpu];
		local_irq_save(flags);
		stackid_cpu_hold(c);
		stackid_defer_take_back_cpu(c);
		stackid_cpu_put(c, flags);
	}
	cpus_read_unlock();
}

/* True when no sample waits for its task: every slot is free. */
bool stackid_defer_idle(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (READ_ONCE(stackid_state.cpus[cpu]->defer_busy))
			return false;
	return true;
}

int stackid_defer_alloc(struct stackid_cpu *c)
{
	unsigned int i;

	BUILD_BUG_ON(STACKID_DEFER_SLOTS > BITS_PER_LONG);
	BUILD_BUG_ON(offsetof(struct stackid_tickets, block));
	c->tickets = kvzalloc_node(sizeof(*c->tickets), GFP_KERNEL,
				   cpu_to_node(c->cpu));
	if (!c->tickets)
		return -ENOMEM;
	refcount_set(&c->tickets->block.refs, 1);
	for (i = 0; i < STACKID_DEFER_SLOTS; i++) {
		c->defer[i] = kvzalloc_node(sizeof(*c->defer[i]), GFP_KERNEL,
					    cpu_to_node(c->cpu));
		if (!c->defer[i])
			return -ENOMEM;
		c->defer[i]->owner = c;
		c->defer[i]->slot = i;
	}
	return 0;
}

/*
 * Module exit, after stackid_anchor_unregister(): no work calls in any
 * more, so no slot is touched but here; the tickets of tasks still
 * asleep stay queued in their block, which the last of them frees.
 */
void stackid_defer_free(struct stackid_cpu *c)
{
	unsigned int i;

	for (i = 0; i < STACKID_DEFER_SLOTS; i++)
		kvfree(c->defer[i]);
	if (c->tickets)
		stackid_anchor_block_put(&c->tickets->block);
	c->tickets = NULL;
}
