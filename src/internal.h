/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackid module internals shared between its files.
 *
 *   main.c     module init/exit, parameters
 *   dev.c      /dev/stackid: open/read/poll/ioctl
 *   events.c   per-CPU perf events, CPU hotplug, frequency
 *   sample.c   the overflow handler: user stack walk, record building
 *   resolve.c  frame -> build-id + file offset, build-id cache
 *   ring.c     per-CPU single-producer record rings
 *   paths.c    build-id -> path records, from process context
 *   defer.c    finishing samples in the sampled task's own context
 *   elfnote.c  ELF build-id note parser (pure, also built in user space)
 */
#ifndef STACKID_INTERNAL_H
#define STACKID_INTERNAL_H

#include <linux/types.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <asm/local64.h>

struct perf_event;
struct perf_sample_data;
struct pt_regs;
struct mm_struct;
struct file;

#include <stackid.h>
#include "elfnote.h"

/* Per-CPU ring of variable-size records; see ring.c. */
struct stackid_ring {
	u8 *buf;
	u32 size;		/* power of two, multiple of 8 */
	u64 head;		/* written by the producer (the sampling CPU) */
	u64 tail;		/* written by the reader, under sid.read_lock */
};

/* One entry of the per-CPU build-id cache; see resolve.c. */
struct stackid_bid_entry {
	const void *inode;	/* identity only, never dereferenced */
	unsigned long ino;
	dev_t dev;
	u32 size_lo;
	s64 mtime_sec;
	u32 mtime_nsec;
	u8 len;			/* 1..20, or 0: negative entry */
	u8 reason;		/* negative entry: enum stackid_ip_reason */
	u8 id[STACKID_BUILD_ID_SIZE];
};

#define STACKID_BIDCACHE_SIZE	256	/* entries per CPU, power of two */

/* A file parked by the sampler for a build-id path record (paths.c). */
struct stackid_path_slot {
	struct file *file;	/* NULL: free, owned by the sampling CPU */
	u8 len;
	u8 id[STACKID_BUILD_ID_SIZE];
};

#define STACKID_PATH_SLOTS	16	/* per CPU */
#define STACKID_DEFER_SLOTS	8	/* per CPU, at most BITS_PER_LONG */
struct stackid_deferred;

/*
 * Everything one CPU's sampler touches. Only that CPU writes it, from the
 * overflow handler (hardirq or NMI), guarded against nesting by busy.
 */
struct stackid_cpu {
	int cpu;
	int busy;			/* handler running on this CPU */
	struct perf_event *event;
	struct stackid_ring ring;
	struct irq_work wake_work;	/* wake readers outside NMI */
	struct irq_work unlock_work;	/* mmap_read_unlock outside irq-off */
	struct mm_struct *unlock_mm;
	struct irq_work path_irq_work;	/* schedule the path work item */
	struct stackid_path_slot path_slots[STACKID_PATH_SLOTS];
	struct stackid_bid_entry bid_tmp; /* resolved, not cached yet */
	/* samples waiting for their task's own context (defer.c) */
	unsigned long defer_busy;	/* bit i: defer[i] in use */
	struct stackid_deferred *defer[STACKID_DEFER_SLOTS];
	local64_t stats[STACKID_STAT_NR];
	local64_t cost_sum;		/* handler ns, see stackid_cost */
	local64_t cost[STACKID_COST_BUCKETS];
	/* scratch for the record being built: header + max frames */
	unsigned long ips[STACKID_MAX_DEPTH];
	union {
		struct stackid_sample sample;
		u8 raw[sizeof(struct stackid_sample) +
		       STACKID_MAX_DEPTH * sizeof(struct stackid_frame)];
	} rec;
	struct stackid_bid_entry bidcache[STACKID_BIDCACHE_SIZE];
};

/* Module-wide state. */
struct stackid_state {
	struct mutex lock;		/* enable/disable/freq/open */
	struct mutex read_lock;		/* ring consumers */
	wait_queue_head_t wq;		/* readers waiting for records */
	struct stackid_cpu **cpus;	/* [nr_cpu_ids], possible CPUs only */
	int hp_state;			/* cpuhp state while enabled, else -1 */
	bool enabled;
	u32 freq;
	u32 filter_tgid;		/* 0: all */
};

extern struct stackid_state sid;

/* Module parameters (main.c). */
extern unsigned int stackid_param_max_depth;
extern unsigned int stackid_param_ring_kb;
extern bool stackid_param_resolve;
extern bool stackid_param_cycles;
extern unsigned int stackid_param_freq;

static inline void stackid_stat_inc(struct stackid_cpu *c, int i)
{
	local64_inc(&c->stats[i]);
}

static inline void stackid_stat_add(struct stackid_cpu *c, int i, long v)
{
	local64_add(v, &c->stats[i]);
}

/* Count on the current CPU from process context. */
static inline void stackid_stat_inc_here(int i)
{
	unsigned long flags;

	local_irq_save(flags);
	stackid_stat_inc(sid.cpus[smp_processor_id()], i);
	local_irq_restore(flags);
}

/* ring.c */
int stackid_ring_alloc(struct stackid_ring *r, int cpu, u32 size);
void stackid_ring_free(struct stackid_ring *r);
bool stackid_ring_write(struct stackid_ring *r, const void *rec, u32 len);
bool stackid_ring_empty(struct stackid_ring *r);
ssize_t stackid_ring_read(struct stackid_ring *r, char __user *buf,
			  size_t len, size_t *done);

/* events.c */
int stackid_enable(void);
void stackid_disable(void);
int stackid_set_freq(u32 hz);
int stackid_max_sample_rate(u32 *hz);

/* sample.c */
void stackid_overflow(struct perf_event *event,
		      struct perf_sample_data *data, struct pt_regs *regs);
void stackid_wake_fn(struct irq_work *work);

/* resolve.c */
bool stackid_resolve(struct stackid_cpu *c, struct mm_struct *mm,
		     struct stackid_frame *frames, unsigned int n);
void stackid_count_frames(struct stackid_cpu *c,
			  const struct stackid_frame *f, unsigned int n);
struct stackid_found {
	struct file *file;
	u8 len;
	u8 id[STACKID_BUILD_ID_SIZE];
};
void stackid_resolve_task(struct mm_struct *mm, struct stackid_frame *f,
			  unsigned int n, struct stackid_found *found,
			  unsigned int *nfound);

/* defer.c */
int stackid_defer_alloc(struct stackid_cpu *c);
void stackid_defer_free(struct stackid_cpu *c);
bool stackid_defer(struct stackid_cpu *c, const struct stackid_sample *s,
		   struct mm_struct *mm);
void stackid_unlock_fn(struct irq_work *work);

/* paths.c */
bool stackid_paths_park(struct stackid_cpu *c, struct file *file,
			const u8 *id, u8 len);
void stackid_paths_irq_fn(struct irq_work *work);
void stackid_paths_reset(void);
void stackid_paths_flush(void);
void stackid_paths_report(struct file *file, const u8 *id, u8 len);
bool stackid_write_here(const void *rec, u32 size, int ok_stat,
			int fail_stat);

/* dev.c */
int stackid_dev_init(void);
void stackid_dev_exit(void);

#endif /* STACKID_INTERNAL_H */
