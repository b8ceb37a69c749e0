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
 * keyed by address makes that rare. A module going away bumps a
 * generation that empties the caches, so its addresses are not named
 * after it once another module takes them.
 */
#include <linux/kallsyms.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <asm/unwind.h>

#include "internal.h"

/* Bumped by each module unload (events.c): cache entries go stale. */
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
	u32 gen = atomic_read(&stackid_ksym_gen);

	*fresh = false;
	if (e->addr == addr && e->gen == gen &&
	    (!e->named || (e->epoch == epoch && e->index)))
		return e;
	if (e->addr != addr || e->gen != gen) {
		memset(e, 0, sizeof(*e));
		e->addr = addr;
		e->gen = gen;
	}
	sprint_symbol(c->ksym_buf.sym, addr);
	e->named = stackid_ksym_parse(c->ksym_buf.sym, name, &e->off);
	*fresh = e->named;
	return e;
}
