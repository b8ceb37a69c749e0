// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel frames: the kernel stack of a sample that interrupted the
 * kernel, and the names of its functions.
 *
 * The walk runs in the sampling handler (hardirq or NMI) with the
 * kernel's own unwinder (ORC on Debian's kernels), from the interrupted
 * registers, exactly as perf's perf_callchain_kernel() does; it is
 * bounded by STACKID_MAX_KDEPTH. The addresses stay inside the module:
 * a record carries a function's name, once per ring epoch
 * (STACKID_REC_KSYM, like a build-id), and the offset into it, so no
 * kernel address reaches user space, whatever kptr_restrict says, and a
 * capture names its kernel frames on any machine, after any reboot.
 *
 * Names come from sprint_symbol(), whose lookups take no lock (kallsyms
 * tables, modules by their RCU tree with preemption off, BPF programs by
 * their latched tree under RCU), so it runs in NMI too; a per-CPU cache
 * keyed by address makes that rare.
 *
 * What lives at a kernel text address can change: modules come and go
 * (and free their init text once live), BPF programs and trampolines are
 * JITed into slots that are reused, ftrace and kprobes make trampolines.
 * So: a module coming, going live or going bumps a generation that
 * empties the caches; a name outside the kernel image and its modules
 * (BPF programs, BPF trampolines and dispatchers: named with no module,
 * in the modules' address range) or an address in no symbol (ftrace and
 * kprobe trampolines have none for sprint_symbol()) is never served from
 * the cache, but named anew each time; and a cached name is checked again
 * after at most a second (STACKID_KSYM_TTL), the window left for text
 * that is freed and reused without a module event. An entry keeps its
 * ring index while the name found again is the same (a hash of it).
 */
#include <linux/kallsyms.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/mm.h>
#include <asm/unwind.h>

#include "internal.h"

/* Bumped by each module coming, going live, going (events.c). */
atomic_t stackid_ksym_gen = ATOMIC_INIT(1);

/**
 * stackid_kernel_walk - the kernel stack at @regs, innermost first
 * @regs: the interrupted registers (kernel mode)
 * @ips: filled with the addresses
 * @max: room in @ips
 *
 * Handler context. Returns the number of addresses.
 */
unsigned int stackid_kernel_walk(struct pt_regs *regs, unsigned long *ips,
				 unsigned int max)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	if (!max)
		return 0;
	ips[n++] = regs->ip;
	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && n < max; unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		ips[n++] = addr;
	}
	return n;
}

/*
 * Parse sprint_symbol()'s "name+0xoff/0xsize [module]" into @ks. False
 * when the address is in no symbol (sprint_symbol() then prints it).
 */
static bool stackid_ksym_parse(char *buf, struct stackid_ksym_name *ks,
			       u32 *off)
{
	char *plus = strrchr(buf, '+'), *slash, *mod, *end;
	unsigned long o;

	if (!plus || plus == buf || buf[0] == '0')
		return false;
	slash = strchr(plus, '/');
	if (!slash)
		return false;
	*slash = 0;
	if (kstrtoul(plus + 1, 16, &o))
		return false;
	*plus = 0;
	*off = o;
	ks->name_len = min_t(size_t, strlen(buf), STACKID_KSYM_NAME_MAX);
	memcpy(ks->name, buf, ks->name_len);
	ks->module_len = 0;
	mod = strchr(slash + 1, '[');
	if (mod) {
		end = strchr(++mod, ']');
		if (end) {
			ks->module_len = min_t(size_t, end - mod,
					       STACKID_KSYM_MODULE_MAX);
			memcpy(ks->module, mod, ks->module_len);
		}
	}
	return true;
}

#define STACKID_KSYM_TTL	HZ

/* A name (and module) as a number, to notice that it changed. */
static u32 stackid_ksym_hash(const struct stackid_ksym_name *n)
{
	u32 h = 2166136261u;
	unsigned int i;

	for (i = 0; i < n->name_len; i++)
		h = (h ^ (u8)n->name[i]) * 16777619u;
	h = (h ^ '[') * 16777619u;
	for (i = 0; i < n->module_len; i++)
		h = (h ^ (u8)n->module[i]) * 16777619u;
	return h;
}

/*
 * Text that is made and freed at run time: never cached by address. A
 * name with no module is the kernel image's, unless it lies where
 * modules and JITed code are allocated: then it is BPF's
 * (bpf_address_lookup() names no module).
 */
static bool stackid_ksym_dynamic(unsigned long addr,
				 const struct stackid_ksym_name *n)
{
	return !n->module_len && addr >= MODULES_VADDR && addr < MODULES_END;
}

/* Where @addr lives in this CPU's cache. */
struct stackid_ksym_entry *stackid_ksym_slot(struct stackid_cpu *c,
					     unsigned long addr)
{
	return &c->ksyms[hash_long(addr, STACKID_KSYM_CACHE_BITS)];
}

/* @addr's function name and the offset into it, without the cache. */
bool stackid_ksym_name_of(struct stackid_cpu *c, unsigned long addr,
			  struct stackid_ksym_name *name, u32 *off)
{
	sprint_symbol(c->ksym_buf.sym, addr);
	return stackid_ksym_parse(c->ksym_buf.sym, name, off);
}

/**
 * stackid_ksym_lookup - the cache entry naming kernel address @addr
 * @c: the CPU's sampler state, held
 * @addr: a kernel text address
 * @epoch: the ring's epoch
 * @name: filled with the function's name when *@fresh
 * @fresh: set when the entry has no index in this epoch yet and names a
 *	symbol: the caller gives it one and emits a STACKID_REC_KSYM record
 *
 * Returns the entry (its off is the offset into the function; named
 * false: in no symbol), valid until the next call on this CPU.
 */
struct stackid_ksym_entry *stackid_ksym_lookup(struct stackid_cpu *c,
					       unsigned long addr, u32 epoch,
					       struct stackid_ksym_name *name,
					       bool *fresh)
{
	struct stackid_ksym_entry *e = stackid_ksym_slot(c, addr);
	u32 gen = atomic_read(&stackid_ksym_gen), hash, off = 0;
	unsigned long now = jiffies;
	bool named;

	*fresh = false;
	if (e->addr == addr && e->gen == gen && e->cached &&
	    time_before(now, e->stamp + STACKID_KSYM_TTL) &&
	    e->epoch == epoch && e->index)
		return e;
	if (e->addr != addr || e->gen != gen) {
		memset(e, 0, sizeof(*e));
		e->addr = addr;
		e->gen = gen;
	}
	sprint_symbol(c->ksym_buf.sym, addr);
	named = stackid_ksym_parse(c->ksym_buf.sym, name, &off);
	hash = named ? stackid_ksym_hash(name) : 0;
	e->stamp = now;
	e->cached = named && !stackid_ksym_dynamic(addr, name);
	if (named && e->named && e->hash == hash && e->off == off &&
	    e->epoch == epoch && e->index)
		return e;	/* the same name: its index stands */
	e->named = named;
	e->off = off;
	e->hash = hash;
	e->index = 0;
	*fresh = named;
	return e;
}
