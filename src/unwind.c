// SPDX-License-Identifier: GPL-2.0
/*
 * Walking user stacks: by unwind tables where a frame's file has one, by
 * frame pointers where not.
 *
 * Tables. User space compiles a file's DWARF call frame information into
 * rows (include/stackid.h, "Unwind tables") and hands them in with
 * STACKID_IOC_ADD_UNWIND (uwload.c), one table per build-id, shared by
 * every process that maps such a file, in a hash of RCU lists that the
 * walk reads without locks, from the handler (hardirq or NMI, where an
 * RCU read-side section is allowed) and from task context.
 *
 * The walk. Each step looks up the frame's address: its VMA (the mm is
 * read-locked by the caller), the file behind it, the file's build-id in
 * the CPU's build-id cache (cache hits only: the handler never reads a
 * file), and that build-id's table. With a row, the caller is found by
 * the row's rule (uwtab.h); without a table for the file, by the frame
 * pointer as before. A file the cache does not know yet cannot have its
 * table found in the handler: the walk goes on by frame pointer and says
 * so (*missed), and the sample's own task walks it again once its files
 * are read (task.c). The walk is bounded by max_depth, no read faults
 * or sleeps (stackid_uw_read()), and nothing is allocated. In the
 * handler every frame is looked up, tables or not, and what was found is
 * handed to the resolution (resolve.c) and remembered for the CPU's
 * later samples where the kernel allows (stackid_map_valid()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/uaccess.h>

#include "internal.h"
#include "compat.h"
#include "uwtab.h"

/* The table of build-id @id, or NULL. Under rcu_read_lock(). */
const struct stackid_utable *stackid_uw_table(const u8 *id, u8 len)
{
	struct stackid_utable *t;

	hlist_for_each_entry_rcu(t, &stackid_uw_hash[stackid_uw_hashfn(id, len)],
				 node)
		if (t->len == len && !memcmp(t->id, id, len))
			return t;
	return NULL;
}

/* --- the walk ----------------------------------------------------------- */

/*
 * Reading the stack (stackid_uw_read_fn): never faults, never sleeps, and
 * never while this CPU's page tables are not current's (an NMI in the
 * middle of a switch of mm). copy_from_user_nmi() checks that for every
 * read, with a function modules cannot call (nmi_uaccess_okay()), and
 * then copies with the kernel's string copy: a call, its checks and a
 * copy loop for each word or two. perf's own user callchain checks once
 * a walk and reads each word with __get_user(). So does the walk, as far
 * as a module can: its first copy_from_user_nmi() that succeeds shows
 * that the page tables are current's, and they stay so for the rest of
 * the walk (the handler runs with interrupts off; in task context a task
 * is switched back to with its own loaded). From then on each word is
 * one __get_user() with page faults disabled (stackid_unwind()): a word
 * not in memory fails through the exception table instead of being
 * faulted in. A read is one word, or two: a frame record, bp below the
 * return address.
 */
struct stackid_uw_reader {
	bool direct;		/* page tables known current's: __get_user() */
};

static int stackid_uw_read(void *ctx, u64 addr, unsigned int size,
			   unsigned int n, u64 *val)
{
	const void __user *u = (const void __user *)(unsigned long)addr;
	const u64 __user *p64 = u;
	const u32 __user *p32 = u;
	struct stackid_uw_reader *rd = ctx;
	unsigned int i, len = size * n;
	u32 v32[2];

	if (!n || n > 2 || (size != 4 && size != 8) ||
	    addr > TASK_SIZE_MAX - len)
		return -EFAULT;
	if (!rd->direct) {
		if (stackid_copy_user_nmi(size == 4 ? (void *)v32 : val, u,
					  len))
			return -EFAULT;
		rd->direct = true;
	} else {
		for (i = 0; i < n; i++)
			if (size == 4 ? __get_user(v32[i], p32 + i) :
					__get_user(val[i], p64 + i))
				return -EFAULT;
	}
	/* a 32-bit task's words, zero-extended */
	if (size == 4)
		for (i = 0; i < n; i++)
			val[i] = v32[i];
	return 0;
}

/*
 * What the walk knows of the last few mappings it looked in: a stack
 * goes back and forth between an executable and its libraries, so most
 * steps land in one of them and need no VMA, file or table lookup.
 */
#define STACKID_UW_PLACES	4
struct stackid_uw_where {
	struct vm_area_struct *vma;
	const struct stackid_utable *table;	/* NULL: none for this VMA */
	struct stackid_bid_entry *bid;	/* handler: its file's, if cached */
};

struct stackid_uw_places {
	struct stackid_uw_where w[STACKID_UW_PLACES];
	unsigned int next;			/* the one to replace */
	/* the handler: what makes this CPU's remembered mappings count */
	bool maps;				/* the mm has a write sequence */
	bool tables;				/* tables are loaded */
	u64 mm_id;
	u32 seq, gen;
};

/*
 * The build-id of @file, from the build-id cache of @c (the handler's
 * CPU), or of the CPU we run on when @c is NULL (task context). False on
 * a miss, or for a file known to have none. *@entp: the handler's cache
 * entry for @file, hit or not, or NULL.
 */
static bool stackid_uw_build_id(struct stackid_cpu *c, struct file *file,
				const struct stackid_ksample *hint,
				u8 *id, u8 *len, bool *miss,
				struct stackid_bid_entry **entp)
{
	struct stackid_bid_entry *e;
	struct stackid_bid_key key;
	unsigned long flags = 0;
	bool found = false;
	unsigned int i;

	*entp = NULL;
	stackid_file_key(file, &key);
	/* task context: the files the last walk of this sample resolved */
	for (i = 0; hint && i < hint->nr_files; i++) {
		const struct stackid_kfile *kf = &hint->files[i];

		if (kf->state == KF_KNOWN &&
		    !memcmp(&kf->key, &key, sizeof(key))) {
			*len = kf->len;
			memcpy(id, kf->id, kf->len);
			return true;
		}
	}
	if (!c) {
		/* task context only: the handler has its CPU's state */
		if (WARN_ON_ONCE(in_nmi() || hardirq_count()))
			return false;
		c = stackid_cpu_get(&flags);
		if (!c) {
			*miss = true;
			return false;
		}
		e = stackid_bidcache_find(&c->cache, &key);
		if (e && e->len) {
			*len = e->len;
			memcpy(id, e->id, e->len);
			found = true;
		}
		stackid_cpu_put(c, flags);
	} else {
		e = stackid_bidcache_find(&c->cache, &key);
		*entp = e;
		if (e && e->len) {
			*len = e->len;
			memcpy(id, e->id, e->len);
			found = true;
		}
	}
	if (!e)
		*miss = true;
	return found;
}

/*
 * The table of build-id @id (@len), remembered in its file's build-id
 * cache entry @e (the handler's; NULL in task context) until a table is
 * added or dropped: that moves the generation @gen, which the walk read
 * under its rcu_read_lock() before any lookup (as stackid_map_valid()
 * explains, a table dropped after that read is freed only after the
 * walk). Spares each frame the table lookup where mappings cannot be
 * remembered (no write sequence: 6.1, 5.10) or were not yet.
 */
static const struct stackid_utable *
stackid_uw_table_of(struct stackid_bid_entry *e, u32 gen, const u8 *id, u8 len)
{
	const struct stackid_utable *t;

	if (e && e->tknown && e->tgen == gen)
		return e->table;
	t = stackid_uw_table(id, len);
	if (e) {
		e->table = t;
		e->tgen = gen;
		e->tknown = 1;
	}
	return t;
}

/* --- mappings remembered across samples (the handler's, per CPU) ------- */

/*
 * A walk of a stack through a hundred libraries meets a hundred
 * mappings, none twice: each costs a VMA lookup, a file key, a build-id
 * cache lookup and a table lookup (about 1 us under TCG). The same
 * stacks come back sample after sample, so each CPU remembers what its
 * walks found, by the address's page: the VMA, its file's build-id cache
 * entry and its table.
 *
 * Such an entry counts only for the mm it was found in (stackid_mm_id(),
 * never reused), while that mm's write sequence is unchanged: the
 * handler holds the mm's read lock, and every change to a VMA (its
 * range, offset or file, or its removal) takes the write lock, which
 * moves the sequence. So the VMA is still there and still the same.
 * For at most a second: the 32-bit sequence comes back to a value after
 * 2^31 write locks, which take longer than that. Its table counts while
 * no table was added or dropped since (stackid_uw_gen, read under the
 * walk's rcu_read_lock(): a table dropped after that is freed only after
 * the walk). Its file's build-id entry counts while it still holds the
 * file's key as it is now (a file rewritten in place changes its key,
 * bidcache.h, and the entry may have been reused since) and the same
 * outcome (a file whose build-id could not be read may be read later).
 *
 * Where @pc's page of @mm_id may be remembered: a set of two entries.
 * Such a stack wants about as many pages as its frames, a hundred in a
 * hundred libraries, and the pages of all its samples several times
 * that: with one entry a page, about one frame in ten met another's
 * entry in its place and was looked up again. Entry 0's mru says which
 * of the two was found last; the other is the one replaced, unless the
 * last found can no longer count (stackid_map_dead()).
 */
static struct stackid_map_entry *stackid_map_set(struct stackid_cpu *c,
						 u64 mm_id, u64 pc)
{
	return &c->maps[hash_64((pc >> PAGE_SHIFT) ^ mm_id,
				STACKID_MAPS_BITS - 1) * 2];
}

/* Whether remembered entry @m can count for no address of @p's walk. */
static bool stackid_map_dead(const struct stackid_uw_places *p,
			     const struct stackid_map_entry *m)
{
	return m->mm_id != p->mm_id || m->seq != p->seq || m->gen != p->gen ||
	       time_after(jiffies, m->stamp + HZ);
}

/* Whether remembered entry @m of @p's mm, for @pc, still says the truth. */
static bool stackid_map_valid(struct stackid_cpu *c,
			      const struct stackid_uw_places *p,
			      const struct stackid_map_entry *m, u64 pc)
{
	if (stackid_map_dead(p, m) || pc < m->start || pc >= m->end)
		return false;
	if (!m->bid)
		return true;		/* no file we read: nothing to check */
	if (m->bid->len != m->len || !stackid_file_key_is(m->file, &m->bid->key))
		return false;
	stackid_bidcache_touch(&c->cache, m->bid);
	return true;
}

/*
 * The row for @pc (a return address already made pc - 1), or NULL: no
 * table for its file, or no VMA. *@vmap: @pc's VMA, or NULL; *@bidp:
 * the handler's build-id cache entry of its file, or NULL. Under
 * rcu_read_lock() and the mm lock, which the caller holds for the whole
 * walk: the VMAs in @p stay valid.
 */
static const struct stackid_unwind_row *
stackid_uw_lookup(struct stackid_cpu *c, struct mm_struct *mm, u64 pc,
		  const struct stackid_ksample *hint,
		  struct stackid_uw_places *p, struct vm_area_struct **vmap,
		  struct stackid_bid_entry **bidp, bool *missed)
{
	struct stackid_map_entry *set = NULL, *m = NULL;
	struct stackid_uw_where *w;
	struct vm_area_struct *vma;
	struct file *file;
	u8 id[STACKID_BUILD_ID_SIZE], len;
	bool miss = false;
	unsigned int i;
	int reason;

	*bidp = NULL;
	for (i = 0; i < STACKID_UW_PLACES; i++) {
		w = &p->w[i];
		if (w->vma && pc >= w->vma->vm_start && pc < w->vma->vm_end) {
			if (c)
				stackid_test_lookup(STACKID_LOOKUP_PLACE);
			goto found;
		}
	}
	if (p->maps) {
		set = stackid_map_set(c, p->mm_id, pc);
		for (i = 0; i < 2; i++) {
			m = &set[i];
			if (!stackid_map_valid(c, p, m, pc))
				continue;
			stackid_test_lookup(STACKID_LOOKUP_REMEMBERED);
			set[0].mru = i;
			w = &p->w[p->next++ % STACKID_UW_PLACES];
			w->vma = m->vma;
			w->table = m->table;
			w->bid = m->bid;
			goto found;
		}
		/* the one to replace */
		i = !!set[0].mru;
		m = &set[stackid_map_dead(p, &set[i]) ? i : !i];
	}
	vma = stackid_vma_lookup(mm, pc);
	*vmap = vma;
	if (c)
		stackid_test_lookup(STACKID_LOOKUP_VMA);
	if (!vma)
		return NULL;
	w = &p->w[p->next++ % STACKID_UW_PLACES];
	w->vma = vma;
	w->table = NULL;
	w->bid = NULL;
	file = stackid_vma_file(vma, &reason);
	if (file && stackid_uw_build_id(c, file, hint, id, &len, &miss,
					&w->bid) && p->tables)
		w->table = stackid_uw_table_of(w->bid, p->gen, id, len);
	*missed |= miss;
	/* remembered once all is known of it: its file was cached, or none */
	if (m && !miss && (w->bid || !file)) {
		m->mm_id = p->mm_id;
		m->seq = p->seq;
		m->gen = p->gen;
		m->start = vma->vm_start;
		m->end = vma->vm_end;
		m->vma = vma;
		m->file = file;
		m->bid = w->bid;
		m->len = w->bid ? w->bid->len : 0;
		m->table = w->table;
		m->stamp = jiffies;
		set[0].mru = m - set;
	}
found:
	*vmap = w->vma;
	*bidp = w->bid;
	if (!w->table)
		return NULL;
	return stackid_uw_find(w->table->rows, w->table->nr,
			       ((u64)w->vma->vm_pgoff << PAGE_SHIFT) +
			       pc - w->vma->vm_start);
}

/*
 * Whether a frame at @ip can be code: @vma, the VMA its lookup found
 * (that of ip - 1 for a return address: the call), is executable; or
 * the return address @ip is the very start of an executable mapping,
 * as the uretprobe trampoline that replaced a probed function's return
 * address is ("[uprobes]"; resolve.c gives the frame back its caller).
 */
static bool stackid_uw_code(struct mm_struct *mm, struct vm_area_struct *vma,
			    u64 ip, bool exact)
{
	if (vma && (vma->vm_flags & VM_EXEC))
		return true;
	if (exact)
		return false;
	vma = stackid_vma_lookup(mm, ip);
	return vma && (vma->vm_flags & VM_EXEC) && ip == vma->vm_start;
}

/*
 * One frame-pointer step from @r: the frame record [saved bp][return
 * address] at bp, which must lie above sp, aligned and in user space;
 * words of @size bytes (4: a 32-bit task).
 */
static int stackid_fp_step(struct stackid_uw_regs *r,
			   struct stackid_uw_reader *rd, unsigned int size)
{
	u64 frame[2];

	if (size == 4)
		r->bp &= 0xffffffffUL;
	if (!r->bp)
		return STACKID_STOP_END;
	if (r->bp & (size - 1) || r->bp < r->sp ||
	    r->bp > (size == 4 ? 0x100000000ULL : TASK_SIZE_MAX) - 2 * size)
		return STACKID_STOP_BAD_FP;
	if (stackid_uw_read(rd, r->bp, size, 2, frame))
		return STACKID_STOP_FAULT;
	if (!frame[1])
		return STACKID_STOP_END;
	r->sp = r->bp + 2 * size;
	r->ip = frame[1];
	r->bp = frame[0];
	return 0;
}

/**
 * stackid_unwind - walk a user stack
 * @c: the handler's CPU state, or NULL in task context
 * @mm: the task's mm, read-locked by the caller; NULL: frame pointers only
 * @regs: the user registers to start from
 * @compat: a 32-bit task (4-byte words; its files' tables are 32-bit)
 * @hint: task context: a sample whose resolved files' build-ids count as
 *	known (the last walk's), whatever CPU the task runs on now; or NULL
 * @ips: the frames' addresses, innermost first
 * @hows: how each was found (enum stackid_frame_how)
 * @vmas: or NULL: the VMA each frame's lookup found (NULL: none, or @mm
 *	was NULL), valid while the caller holds the mm lock; for a return
 *	address, the VMA of the call before it (address - 1)
 * @bids: with @vmas, in the handler: the entry of @c's build-id cache
 *	each frame's file had when the walk looked (NULL: none), for the
 *	resolution that follows under the same hold of the mm lock
 * @max: at most this many frames
 * @stop: why the walk ended (enum stackid_stop)
 * @missed: set if a frame's file was not in the build-id cache, so its
 *	table (if any) could not be found: walking again once it is
 *	cached may find more (if tables are loaded at all)
 *
 * Returns the number of frames, at least 1 (the registers' ip).
 */
unsigned int stackid_unwind(struct stackid_cpu *c, struct mm_struct *mm,
			    const struct stackid_uw_regs *regs, bool compat,
			    const struct stackid_ksample *hint,
			    unsigned long *ips, u8 *hows,
			    struct vm_area_struct **vmas,
			    struct stackid_bid_entry **bids, unsigned int max,
			    u8 *stop, bool *missed)
{
	struct stackid_uw_places places = { 0 };
	struct stackid_uw_reader reader = { 0 };
	struct stackid_uw_regs r = *regs;
	bool exact = true;	/* r.ip is not a return address */
	unsigned int n = 0;
	bool handler;
	int why;

	*missed = false;
	if (compat) {
		r.ip &= 0xffffffffUL;
		r.sp &= 0xffffffffUL;
		r.bp &= 0xffffffffUL;
	}
	ips[n] = r.ip;
	hows[n++] = STACKID_HOW_REGS;
	handler = c && vmas && bids;
	rcu_read_lock();
	pagefault_disable();	/* __get_user(): see stackid_uw_read() */
	/* read before any table is looked up: see stackid_map_valid() */
	places.gen = atomic_read_acquire(&stackid_uw_gen);
	places.tables = atomic_read(&stackid_uw_loaded);
	/*
	 * The handler looks every frame up, for its tables and for the
	 * resolution after it; task context only for tables
	 */
	if (!mm || !(places.tables || handler))
		mm = NULL;
	if (mm && handler && stackid_mm_seq(mm, &places.seq)) {
		places.maps = true;
		places.mm_id = stackid_mm_id(mm);
	}
	for (;;) {
		const struct stackid_unwind_row *row = NULL;
		struct vm_area_struct *vma = NULL;
		struct stackid_bid_entry *bid = NULL;
		u8 how = STACKID_HOW_FP;

		if (mm) {
			row = stackid_uw_lookup(c, mm, exact ? r.ip : r.ip - 1,
						hint, &places, &vma, &bid,
						missed);
			/*
			 * A caller's frame whose code is in no executable
			 * mapping is none: a frame pointer that was not one
			 * (code without them), a row's rule gone wrong. It
			 * and all it would lead to are left out.
			 */
			if (n > 1 && !stackid_uw_code(mm, vma, r.ip, exact)) {
				n--;
				why = hows[n] == STACKID_HOW_FP ?
				      STACKID_STOP_BAD_FP :
				      STACKID_STOP_BAD_CFA;
				break;
			}
		}
		if (vmas)
			vmas[n - 1] = vma;
		if (bids)
			bids[n - 1] = bid;
		if (row && (row->rule & STACKID_UW_CFA_MASK) !=
			   STACKID_UW_CFA_NONE) {
			why = stackid_uw_step(row, &r, stackid_uw_read,
					      &reader, &how, compat ? 4 : 8);
			/* a "return address" no code can be at ends it */
			if (!why && r.ip >= (compat ? 0x100000000ULL :
						     TASK_SIZE_MAX))
				why = STACKID_STOP_BAD_CFA;
		} else {
			why = stackid_fp_step(&r, &reader, compat ? 4 : 8);
			/* a table without a row here: say so, not "bad fp" */
			if (why == STACKID_STOP_BAD_FP && row)
				why = STACKID_STOP_NO_ROW;
		}
		if (why)
			break;
		if (n >= max) {
			why = STACKID_STOP_DEPTH;
			break;
		}
		exact = how == STACKID_HOW_SIGNAL;
		ips[n] = r.ip;
		hows[n++] = how;
	}
	pagefault_enable();
	rcu_read_unlock();
	*stop = why;
	return n;
}
