/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackid module internals shared between its files.
 *
 *   main.c     module init/exit, parameters
 *   dev.c      /dev/stackid: open/read/poll/mmap/ioctl (nothing calls it)
 *   cpu.c      per-CPU state from process context, counting, rings'
 *              memory and reset, waking readers
 *   events.c   per-CPU perf events, CPU hotplug, frequency and its limit
 *   sample.c   the sampling handler: checks, user stack walk, hand-off
 *   resolve.c  frames -> files -> build-ids in the handler: cache hits only
 *   unwind.c   the user stack walk: unwind tables, frame pointers
 *   uwload.c   unwind tables from user space (process context)
 *   task.c     finishing a sample in the sampled task's own context
 *   buildid.c  reading a file's build-id note there (may sleep, do I/O)
 *   paths.c    build-id -> path records, from the sampled task's context
 *   emit.c     writing records (sample, build-id, epoch) into a ring
 *   kframes.c  kernel frames: the walk, and naming their functions
 *   cgroups.c  cgroup ids, the cgroup filter, cgroup records
 *   ring.c     the ring protocol (pure, shared with user space)
 *   bidcache.c the per-CPU build-id cache (pure)
 *   elfnote.c  ELF build-id note parser (pure)
 *   testhook.c test builds only (STACKID_TEST): NMI hook, fault injection
 *   anchor.c   stackid_anchor.ko, a module of its own: the function the
 *              task works name, so that stackid unloads while they wait
 *
 * Contexts. The handler runs on the sampled CPU in hardirq (cpu-clock) or
 * NMI (hardware events, the test hook), interrupts off, never nested (the
 * per-CPU busy flag). It never sleeps, faults, allocates, takes a lock it
 * might wait for, or drops a page-cache reference: a file not in the cache
 * is left to the sampled task's own context (task.c), which may do all of
 * that. Process-context code that writes a CPU's ring or cache does so on
 * its own CPU with interrupts off and the busy flag set (stackid_cpu_get).
 */
#ifndef STACKID_INTERNAL_H
#define STACKID_INTERNAL_H

#include <linux/types.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/kallsyms.h>
#include <linux/sched/clock.h>
#include <linux/jhash.h>
#include <linux/list.h>
#include <asm/local64.h>

struct perf_event;
struct perf_sample_data;
struct pt_regs;
struct mm_struct;
struct file;
struct task_struct;
struct callback_head;
struct cgroup;

#include <stackid.h>
#include "elfnote.h"
#include "ring.h"
#include "delta.h"
#include "anchor.h"
#include "bidcache.h"

/*
 * Distinct files one sample may name (as many as it has frames, so the
 * handler never gives up on one), and may read in task context.
 */
#define STACKID_SAMPLE_FILES	STACKID_MAX_DEPTH
/* A sample's files by inode (open addressing): more slots than files */
#define STACKID_FILE_HASH	256
#define STACKID_TASK_PARSES	32
#define STACKID_DEFER_SLOTS	8	/* per CPU, at most BITS_PER_LONG */
#define STACKID_DEFER_JOINS	8	/* samples joining one slot's */
#define STACKID_DEFER_TICKETS	256	/* queued works, per CPU */
/* a slot whose task has not come for it in this long may be taken back */
#define STACKID_DEFER_TAKE_BACK_MS	1000

/* A file of a sample being built: its identity and what is known of it. */
struct stackid_kfile {
	struct stackid_bid_key key;
	struct stackid_bid_entry *entry; /* handler: the cache entry hit */
	struct file *file;	/* task context: referenced until parsed */
	u8 state;		/* enum stackid_kfile_state */
	u8 reason;		/* KF_FAILED: enum stackid_ip_reason */
	u8 len;			/* KF_KNOWN: the build-id */
	u8 id[STACKID_BUILD_ID_SIZE];
};

enum stackid_kfile_state {
	KF_KNOWN = 1,		/* build-id in len/id */
	KF_FAILED,		/* none, for reason */
	KF_MISS,		/* not cached: to be read in task context */
};

/* A frame of a sample being built. */
struct stackid_kframe {
	u64 addr;		/* the user address */
	u64 off;		/* file offset, once the file is known */
	u8 status;		/* enum stackid_kframe_status */
	u8 reason;		/* KS_IP: enum stackid_ip_reason */
	u8 file;		/* KS_FILE: index into the sample's files */
	u8 how;			/* enum stackid_frame_how */
};

enum stackid_kframe_status {
	KS_FILE = 1,		/* in files[file], at off */
	KS_IP,			/* final: raw address, for reason */
	KS_PENDING,		/* to be resolved in task context */
};

/*
 * A sample being built: the record header and the frames, unencoded.
 * hdr.nr_kernel kernel frames (raw addresses: kips[]) come first in the
 * record, then hdr.nr_frames - hdr.nr_kernel user frames (frames[]).
 */
struct stackid_ksample {
	struct stackid_sample hdr;	/* ring: filled by emit */
	bool name_cgroup;		/* task context: emit the cgroup's record */
	unsigned int nr_files;
	u8 file_hash[STACKID_FILE_HASH];	/* index + 1 in files; 0: free */
	unsigned long kips[STACKID_MAX_KDEPTH];
	struct stackid_kfile files[STACKID_SAMPLE_FILES];
	struct stackid_kframe frames[STACKID_MAX_DEPTH];
};

/* The user frames of @ks: after its kernel frames in the record. */
static inline unsigned int stackid_nr_user(const struct stackid_ksample *ks)
{
	return ks->hdr.nr_frames - ks->hdr.nr_kernel;
}

/* The per-CPU kernel symbol cache (kframes.c), keyed by address. */
struct stackid_ksym_entry {
	unsigned long addr;
	unsigned long stamp;	/* jiffies when last named */
	u32 gen;		/* module events seen when filled */
	u32 epoch;		/* ring epoch @index belongs to */
	u32 off;		/* offset of addr into its function */
	u32 hash;		/* of the name and module, if named */
	u16 index;		/* in the ring's symbol table, if epoch matches */
	bool named;		/* addr is in a symbol */
	bool cached;		/* may be served without naming it again */
};

/* A kernel function's name, as a STACKID_REC_KSYM carries it. */
struct stackid_ksym_name {
	u16 name_len, module_len;
	char name[STACKID_KSYM_NAME_MAX];
	char module[STACKID_KSYM_MODULE_MAX];
};

#define STACKID_KSYM_CACHE_BITS	10
/*
 * sprint_symbol()'s buffer, and the STACKID_REC_KSYM being written:
 * KSYM_SYMBOL_LEN is the larger from 6.1 (KSYM_NAME_LEN 512), the record
 * before (128).
 */
#define STACKID_KSYM_REC_MAX	(sizeof(struct stackid_ksym) + \
				 STACKID_KSYM_NAME_MAX + \
				 STACKID_KSYM_MODULE_MAX + 8)
#define STACKID_CGROUP_SEEN_BITS	8

/* The periodic wakeup's default: each open starts with it (SET_WAKEUP). */
#define STACKID_PERIOD_MS	100

/* A ring as its producer keeps it; see ring.h for the protocol. */
struct stackid_kring {
	struct stackid_ring r;
	void *area;		/* vmalloc_user(): control page + data */
	u32 epoch;		/* build-id table epoch, counts from 1 */
	u32 next_index;		/* next free build-id index, 1..65536 */
	u32 next_kindex;	/* next free kernel symbol index, 1..65536 */
	bool epoch_due;		/* an epoch record must come first */
	bool woken;		/* reader woken since it last read here */
	struct stackid_delta_base prev;	/* the last sample written (delta.h) */
};

/*
 * A mapping an earlier walk on this CPU found (unwind.c), valid while
 * its mm is the one sampled and has not been write-locked since:
 * by the address's page, in sets of two, 2^STACKID_MAPS_BITS entries.
 */
#define STACKID_MAPS_BITS	10
struct stackid_map_entry {
	u64 mm_id;			/* stackid_mm_id(); 0: empty */
	unsigned long start, end;	/* the VMA's range */
	struct vm_area_struct *vma;
	struct file *file;		/* vma->vm_file, if one we read */
	struct stackid_bid_entry *bid;	/* the file's; NULL: no such file */
	const struct stackid_utable *table;	/* NULL: none */
	unsigned long stamp;		/* jiffies when found */
	u32 seq;			/* stackid_mm_seq() then */
	u32 gen;			/* stackid_uw_gen then */
	u8 len;				/* bid->len then */
	u8 mru;				/* of a set's entry 0: unwind.c */
};

/* A frame's registers as the walk knows them (uwtab.h). */
struct stackid_uw_regs {
	u64 ip, sp, bp;
};

/*
 * A later sample of a deferred sample's task, taken before the task went
 * back to user space: the same user stack, its own header and kernel
 * frames (task.c).
 */
struct stackid_join {
	struct stackid_sample hdr;
	unsigned long kips[STACKID_MAX_KDEPTH];
};

/*
 * A task_work queued for a deferred sample, and what it holds until it
 * runs, however long its task stays in the kernel (task.c): the slot it
 * was queued for may be taken back meanwhile, the ticket never is.
 */
struct stackid_ticket {
	/* its work, run by stackid_anchor.ko (anchor.c; task.c: "Unloading") */
	struct stackid_anchor_work w;
	struct stackid_cpu *owner;	/* whose ticket this is */
	unsigned int index;
	struct stackid_deferred *d;	/* its slot: d->claim says if still */
};

/*
 * A CPU's tickets, in memory that outlives the module while a task
 * asleep in the kernel still has one queued (anchor.h: the block).
 */
struct stackid_tickets {
	struct stackid_anchor_block block;	/* first */
	struct stackid_ticket t[STACKID_DEFER_TICKETS];
};

/* A sample handed to its task's own context (task.c), in a slot of its CPU. */
struct stackid_deferred {
	struct stackid_cpu *owner;	/* whose slot this is */
	unsigned int slot;
	/*
	 * The ticket whose work finishes this sample, plus one; 0 once that
	 * work has claimed it, or this CPU's handler took the slot back
	 * (task.c: "Taking back"). Both claim it with cmpxchg(): one wins.
	 */
	unsigned long claim;
	unsigned long queued;		/* jiffies */
	/*
	 * Samples may join this one (stackid_defer_join()) while its task
	 * has not started the work: only the owner's handler, interrupting
	 * that very task (task is compared, never dereferenced), adds one;
	 * the work sets started before it reads them.
	 */
	const struct task_struct *task;
	bool joinable;			/* the work runs before user code */
	bool started;
	unsigned int njoins;
	struct stackid_join joins[STACKID_DEFER_JOINS];
	struct mm_struct *mm;		/* its ticket holds a reference */
	u32 session;			/* the session it was taken in */
	/* walk the user stack again there, from these registers */
	bool rewalk;
	bool compat;
	struct stackid_uw_regs uregs;
	unsigned long ips[STACKID_MAX_DEPTH];	/* that walk's scratch */
	u8 hows[STACKID_MAX_DEPTH];
	struct stackid_ksample ks;
};


/*
 * Everything one CPU's sampler touches. Only that CPU writes it: its
 * handler, and process context on it with interrupts off and busy set.
 */
struct stackid_cpu {
	int cpu;
	int busy;			/* a writer of this CPU's state runs */
	u32 session;			/* the enable its cache and ring are of */
	struct perf_event *event;
	struct stackid_kring ring;
	struct irq_work wake_work;	/* wake readers outside NMI */
	struct irq_work unlock_work;	/* NMI: mmap_read_unlock later */
	struct mm_struct *unlock_mm;
	/* samples waiting for their task's own context (task.c) */
	unsigned long defer_busy;	/* bit i: defer[i] in use */
	struct stackid_deferred *defer[STACKID_DEFER_SLOTS];
	/* bit i: tickets->t[i] queued */
	unsigned long ticket_busy[STACKID_DEFER_TICKETS / BITS_PER_LONG];
	struct stackid_tickets *tickets;
	local64_t stats[STACKID_STAT_NR];
	local64_t cost_sum;		/* handler ns, see stackid_cost */
	local64_t cost[STACKID_COST_BUCKETS];
	/* local_clock() until which its handler time is paid (sample.c) */
	u64 budget_until;
	unsigned long ips[STACKID_MAX_DEPTH];	/* the walk's scratch */
	u8 hows[STACKID_MAX_DEPTH];
	/* the VMA of each frame, while the walk's mm lock is held */
	struct vm_area_struct *vmas[STACKID_MAX_DEPTH];
	/* and its file's entry in the build-id cache, if the walk found one */
	struct stackid_bid_entry *bids[STACKID_MAX_DEPTH];
	/* mappings the walks of earlier samples found (unwind.c) */
	struct stackid_map_entry maps[1 << STACKID_MAPS_BITS];
	struct stackid_ksample ks;		/* the sample being built */
	u8 rec[STACKID_SAMPLE_MAX];		/* its encoding */
	struct stackid_emit_scratch {		/* emit.c, off the NMI stack */
		struct stackid_bid_entry *ent[STACKID_SAMPLE_FILES];
		u16 index[STACKID_SAMPLE_FILES];
		bool used[STACKID_SAMPLE_FILES];
		bool fresh[STACKID_SAMPLE_FILES];
		struct stackid_ksym_entry *kent[STACKID_MAX_KDEPTH];
		bool kfresh[STACKID_MAX_KDEPTH];
		bool knamed[STACKID_MAX_KDEPTH];
		s8 kdup[STACKID_MAX_KDEPTH];
		u16 kidx[STACKID_MAX_KDEPTH];
		u32 koff[STACKID_MAX_KDEPTH];
		struct stackid_ksym_name knames[STACKID_MAX_KDEPTH];
	} emit;
	unsigned long kips[STACKID_MAX_KDEPTH];	/* kernel walk scratch */
	union {				/* sizeof: the larger */
		char sym[KSYM_SYMBOL_LEN];
		u8 rec[STACKID_KSYM_REC_MAX];
	} __aligned(8) ksym_buf;
	struct stackid_ksym_entry ksyms[1 << STACKID_KSYM_CACHE_BITS];
	u64 cgroups_seen[1 << STACKID_CGROUP_SEEN_BITS];
	struct stackid_bidcache cache;
};

/* Module-wide state. */
struct stackid_state {
	struct mutex lock;		/* enable/disable/freq/reset/open */
	struct mutex read_lock;		/* ring consumers */
	wait_queue_head_t wq;		/* readers waiting for records */
	struct timer_list wake_timer;	/* periodic wakeup while enabled */
	struct stackid_cpu **cpus;	/* [nr_cpu_ids], possible CPUs only */
	/* stackid_anchor.ko's registration: what each queued work holds */
	struct stackid_anchor_reg anchor;
	int hp_state;			/* cpuhp state while enabled, else -1 */
	bool enabled;
	bool enabling;			/* online callbacks may fail */
	u32 session;			/* counts enables */
	u32 freq;
	u32 ev_type;			/* event taken at enable */
	u64 ev_config;
	u32 filter_tgid;		/* 0: all */
	u32 watermark;			/* bytes; 0: a quarter of a ring */
	u32 period_ms;			/* default STACKID_PERIOD_MS */
	u32 format;			/* STACKID_FORMAT_*, this reader's */
};

extern struct stackid_state stackid_state;

/* Module parameters (main.c). */
extern unsigned int stackid_param_max_depth;
extern unsigned int stackid_param_ring_kb;
extern bool stackid_param_resolve;
extern bool stackid_param_cycles;
extern bool stackid_param_kernel_frames;
extern bool stackid_param_kthreads;
extern unsigned int stackid_param_freq;
extern unsigned int stackid_param_unwind_kb;
extern unsigned int stackid_param_max_cpu_percent;

static inline void stackid_stat_inc(struct stackid_cpu *c, int i)
{
	local64_inc(&c->stats[i]);
}

static inline void stackid_stat_add(struct stackid_cpu *c, int i, long v)
{
	local64_add(v, &c->stats[i]);
}

/*
 * Process context: take this CPU's sampler state for writing (interrupts
 * off, busy set: the CPU's handler, the only other writer, sees busy and
 * counts itself nested). NULL if the handler itself is busy here, which
 * cannot happen with interrupts off, or a nested taker.
 */
struct stackid_cpu *stackid_cpu_get(unsigned long *flags);
void stackid_cpu_hold(struct stackid_cpu *c);
void stackid_cpu_put(struct stackid_cpu *c, unsigned long flags);
void stackid_cpu_session(struct stackid_cpu *c);

/* Count on the current CPU from process context. */
void stackid_stat_inc_here(int i);

/* sample.c */
void stackid_overflow(struct perf_event *event,
		      struct perf_sample_data *data, struct pt_regs *regs);
void stackid_sample(struct pt_regs *regs);
void stackid_fill_user(struct stackid_ksample *ks, const unsigned long *ips,
		       const u8 *hows, unsigned int n);

/* resolve.c */
struct vm_area_struct;
bool stackid_mm_trylock(struct stackid_cpu *c, struct mm_struct *mm);
void stackid_mm_unlock(struct stackid_cpu *c, struct mm_struct *mm);
void stackid_resolve(struct stackid_cpu *c, struct mm_struct *mm,
		     struct stackid_ksample *ks, bool *defer);
void stackid_resolve_frames(struct stackid_cpu *c, struct mm_struct *mm,
			    struct stackid_ksample *ks,
			    struct vm_area_struct *const *vmas,
			    struct stackid_bid_entry *const *bids,
			    int (*file_fn)(struct stackid_cpu *c,
					   struct stackid_ksample *ks,
					   struct file *file, int *reason,
					   void *ctx),
			    void *ctx);
int stackid_file_key(struct file *file, struct stackid_bid_key *k);
bool stackid_file_key_is(struct file *file, const struct stackid_bid_key *k);
void stackid_kfile_known(struct stackid_kfile *kf,
			 const struct stackid_bid_entry *e);
int stackid_sample_add_file(struct stackid_ksample *ks, struct file *file,
			    bool *added, int *reason);
struct file *stackid_vma_file(struct vm_area_struct *vma, int *reason);
void stackid_count_frames(struct stackid_cpu *c,
			  const struct stackid_ksample *ks);

/* emit.c */
bool stackid_emit_sample(struct stackid_cpu *c, struct stackid_ksample *ks);
bool stackid_emit_raw(struct stackid_cpu *c, const void *rec, u32 size);
void stackid_ring_wakeup_check(struct stackid_cpu *c);

/* task.c */
int stackid_defer_alloc(struct stackid_cpu *c);
void stackid_defer_free(struct stackid_cpu *c);
bool stackid_defer_idle(void);
void stackid_task_fn(struct stackid_anchor_work *w);
void stackid_deferred_settle(struct stackid_ksample *ks);

/*
 * @ks's files forget the build-id cache entries the handler's hits
 * pointed to; writing the sample looks them up again by key (emit.c).
 */
static inline void stackid_forget_entries(struct stackid_ksample *ks)
{
	unsigned int i;

	for (i = 0; i < ks->nr_files; i++)
		ks->files[i].entry = NULL;
}
int stackid_defer_take_back(struct stackid_cpu *c, bool any);
void stackid_defer_take_back_all(void);
void stackid_deferred_write_all(struct stackid_cpu *c,
				struct stackid_deferred *d, unsigned int njoins);

/* uwload.c: unwind tables, one per build-id, in an RCU hash */
/*
 * At most STACKID_UW_MAX_TABLES tables, in 2^12 buckets: a lookup from
 * the handler walks a chain of a few entries, however many are loaded.
 */
#define STACKID_UW_HASH_BITS	12
#define STACKID_UW_MAX_TABLES	16384
struct stackid_utable {
	struct hlist_node node;
	struct stackid_utable *gone;	/* stackid_unwind_clear()'s list */
	u32 nr;
	u8 len;
	u8 id[STACKID_BUILD_ID_SIZE];
	size_t bytes;
	struct stackid_unwind_row rows[];
};

extern struct hlist_head stackid_uw_hash[1 << STACKID_UW_HASH_BITS];
extern atomic_t stackid_uw_loaded;
/* bumped after every table added and every clear (unwind.c) */
extern atomic_t stackid_uw_gen;

static inline u32 stackid_uw_hashfn(const u8 *id, u8 len)
{
	return jhash(id, len, 0) & ((1 << STACKID_UW_HASH_BITS) - 1);
}

long stackid_unwind_add(const void __user *arg);
long stackid_unwind_info(void __user *arg);
void stackid_unwind_clear(void);

/* unwind.c */
const struct stackid_utable *stackid_uw_table(const u8 *id, u8 len);
unsigned int stackid_unwind(struct stackid_cpu *c, struct mm_struct *mm,
			    const struct stackid_uw_regs *regs, bool compat,
			    const struct stackid_ksample *hint,
			    unsigned long *ips, u8 *hows,
			    struct vm_area_struct **vmas,
			    struct stackid_bid_entry **bids, unsigned int max,
			    u8 *stop, bool *missed);

/* kframes.c */
extern atomic_t stackid_ksym_gen;
unsigned int stackid_kernel_walk(struct pt_regs *regs, unsigned long *ips,
				 unsigned int max);
struct stackid_ksym_entry *stackid_ksym_lookup(struct stackid_cpu *c,
					       unsigned long addr, u32 epoch,
					       struct stackid_ksym_name *name,
					       bool *fresh);
struct stackid_ksym_entry *stackid_ksym_slot(struct stackid_cpu *c,
					     unsigned long addr);
bool stackid_ksym_name_of(struct stackid_cpu *c, unsigned long addr,
			  struct stackid_ksym_name *name, u32 *off);
int stackid_kframes_init(void);
void stackid_kframes_exit(void);

/* cgroups.c */
extern struct cgroup __rcu *stackid_filter_cgrp;
int stackid_cgroup_set_filter(int fd);
void stackid_cgroup_report(u64 id);
void stackid_cgroups_reset(void);
bool stackid_cgroup_seen(struct stackid_cpu *c, u64 id);
void stackid_cgroup_seen_add(struct stackid_cpu *c, u64 id);

/* buildid.c */
int stackid_read_build_id(struct file *file, u8 *id, u8 *len);

/* paths.c */
void stackid_paths_report(struct file *file, const u8 *id, u8 len);
void stackid_paths_reset(void);

/* events.c */
void stackid_unlock_fn(struct irq_work *work);
int stackid_enable(void);
void stackid_quiesce(void);
void stackid_disable(void);
int stackid_set_freq(u32 hz);
int stackid_max_sample_rate(u32 *hz);
int stackid_limits_init(void);
void stackid_limits_exit(void);

/* cpu.c (also stackid_cpu_get() and friends, above) */
void stackid_wake_fn(struct irq_work *work);
void stackid_wake_timer_fn(struct timer_list *t);
int stackid_ring_alloc(struct stackid_kring *kr, int cpu, u32 size);
void stackid_ring_free(struct stackid_kring *kr);
bool stackid_readable(void);
void stackid_rings_reset(void);

/* dev.c: the user interface, on top of everything else */
int stackid_dev_init(void);
void stackid_dev_exit(void);

/* testhook.c (STACKID_TEST builds only) */
/* the handler's stages that test_stages times (sample.c) */
enum {
	STACKID_STAGE_KERNEL,	/* user registers, kernel frames */
	STACKID_STAGE_WALK,	/* mm trylock, the user walk */
	STACKID_STAGE_RESOLVE,	/* header, cgroup, resolution, unlock */
	STACKID_STAGE_FINISH,	/* encode and deliver, or hand over */
	STACKID_STAGE_NR,
};
/* How the handler's walk found a frame's mapping (test builds count them). */
enum {
	STACKID_LOOKUP_PLACE,		/* one of the walk's last few */
	STACKID_LOOKUP_REMEMBERED,	/* this CPU's remembered mappings */
	STACKID_LOOKUP_VMA,		/* looked up in the mm */
	STACKID_LOOKUP_NR,
};
#ifdef STACKID_TEST
int stackid_test_init(void);
void stackid_test_exit(void);
int stackid_test_online_fault(unsigned int cpu);
void stackid_test_disable(void);
bool stackid_test_floor(void);
void stackid_test_task_hold(void);
bool stackid_test_stages(void);
void stackid_test_stages_add(const u64 *t);
void stackid_test_lookup(unsigned int how);
void stackid_test_take_back_add(u64 ns, unsigned int samples);
void stackid_test_stall(void);
/* local_clock() in test builds, where take-backs are timed; else 0 */
static inline u64 stackid_test_clock(void) { return local_clock(); }
#else
static inline int stackid_test_init(void) { return 0; }
static inline void stackid_test_exit(void) { }
static inline int stackid_test_online_fault(unsigned int cpu) { return 0; }
static inline void stackid_test_disable(void) { }
static inline bool stackid_test_floor(void) { return false; }
static inline void stackid_test_task_hold(void) { }
static inline bool stackid_test_stages(void) { return false; }
static inline void stackid_test_stages_add(const u64 *t) { }
static inline void stackid_test_lookup(unsigned int how) { }
static inline void stackid_test_take_back_add(u64 ns, unsigned int samples) { }
static inline void stackid_test_stall(void) { }
static inline u64 stackid_test_clock(void) { return 0; }
#endif

#endif /* STACKID_INTERNAL_H */
