// SPDX-License-Identifier: GPL-2.0
/*
 * The module's unwind table code (src/uwtab.h) on the host: checking a
 * table, finding rows, each rule's step against a stack of known words,
 * and random tables and stacks, where every step must read at most three
 * words, inside the stack it was given, and a walk must end.
 */
#include <stdio.h>
#include <stdlib.h>
#include "tap.h"
#include "../../src/uwtab.h"

#define STACK_BASE64	0x7ffd00000000ULL
#define STACK_BASE32	0xffd00000ULL
#define STACK_WORDS	512

static u64 stack[STACK_WORDS];
static u64 STACK_BASE = STACK_BASE64;
static unsigned int reads;
static int bad_read;

static unsigned int words;

/* n words of size bytes at addr; each word's alignment checked */
static int rd(void *ctx __attribute__((unused)), u64 addr,
	      unsigned int size, unsigned int n, u64 *val)
{
	unsigned int i;

	reads++;
	words += n;
	if (n < 1 || n > 2 || addr < STACK_BASE ||
	    addr > STACK_BASE + 8 * STACK_WORDS - size * n ||
	    (addr & (size - 1))) {
		bad_read++;
		return -EFAULT;
	}
	for (i = 0; i < n; i++) {
		u64 a = addr + i * size;

		if (size == 4) {
			u32 v;

			memcpy(&v, (char *)stack + (a - STACK_BASE), 4);
			val[i] = v;
		} else {
			val[i] = stack[(a - STACK_BASE) / 8];
		}
	}
	return 0;
}

static void put(u64 addr, u64 v)
{
	stack[(addr - STACK_BASE) / 8] = v;
}

static struct stackid_unwind_row row(u32 start, u8 rule, u16 off, s8 bp)
{
	struct stackid_unwind_row r = { start, off, rule, bp };

	return r;
}

static void test_check(void)
{
	struct stackid_unwind_row t[3] = {
		row(0x1000, STACKID_UW_CFA_SP, 8, 0),
		row(0x1004, STACKID_UW_CFA_BP | STACKID_UW_BP_SAVED, 16, -2),
		row(0x1010, STACKID_UW_CFA_NONE, 0, 0),
	};

	tap_ok(!stackid_uw_check(t, 3), "a sorted table with known rules");
	tap_ok(stackid_uw_check(t, 0) == -EINVAL, "no rows: refused");
	t[1].start = 0x1000;
	tap_ok(stackid_uw_check(t, 3) == -EINVAL, "equal starts: refused");
	t[1].start = 0x1004;
	t[2].rule = 7;
	tap_ok(stackid_uw_check(t, 3) == -EINVAL, "an unknown CFA rule: refused");
	t[2].rule = 0x30;
	tap_ok(stackid_uw_check(t, 3) == -EINVAL, "an unknown bp rule: refused");
	t[2].rule = 0;
	tap_ok(stackid_uw_find(t, 3, 0xfff) == NULL, "before the first row: none");
	tap_ok(stackid_uw_find(t, 3, 0x1000) == &t[0], "a row's first byte");
	tap_ok(stackid_uw_find(t, 3, 0x1003) == &t[0], "a row's last byte");
	tap_ok(stackid_uw_find(t, 3, 0x1004) == &t[1], "the next row");
	tap_ok(stackid_uw_find(t, 3, 0x100000000ULL) == NULL,
	       "beyond 4 GiB: none");
}

static void test_steps(void)
{
	struct stackid_uw_regs r;
	struct stackid_unwind_row w;
	u64 sp = STACK_BASE + 0x100;
	u8 how = 0;

	memset(stack, 0, sizeof(stack));
	/* CFA = sp + 24, return address at sp + 16 */
	put(sp + 16, 0x401234);
	r = (struct stackid_uw_regs){ 0x401000, sp, 0x55 };
	w = row(0, STACKID_UW_CFA_SP, 24, 0);
	tap_ok(!stackid_uw_step(&w, &r, rd, NULL, &how, 8) && r.ip == 0x401234 &&
	       r.sp == sp + 24 && r.bp == 0x55 && how == STACKID_HOW_TABLE,
	       "CFA_SP: return address at cfa - 8, bp kept");

	/* CFA = bp + 16, bp saved at cfa - 16 */
	put(sp + 0x40, 0x7777);
	put(sp + 0x48, 0x402000);
	r = (struct stackid_uw_regs){ 0x401000, sp, sp + 0x40 };
	w = row(0, STACKID_UW_CFA_BP | STACKID_UW_BP_SAVED, 16, -2);
	reads = words = 0;
	tap_ok(!stackid_uw_step(&w, &r, rd, NULL, &how, 8) && r.ip == 0x402000 &&
	       r.sp == sp + 0x50 && r.bp == 0x7777,
	       "CFA_BP with bp saved: a frame-pointer frame");
	tap_ok(reads == 1 && words == 2,
	       "a frame-pointer frame: its record in one read (%u reads, %u words)",
	       reads, words);
	/* bp saved elsewhere: two reads */
	put(sp + 0x38, 0x8888);
	r = (struct stackid_uw_regs){ 0x401000, sp, sp + 0x40 };
	w = row(0, STACKID_UW_CFA_BP | STACKID_UW_BP_SAVED, 16, -3);
	reads = words = 0;
	tap_ok(!stackid_uw_step(&w, &r, rd, NULL, &how, 8) && r.ip == 0x402000 &&
	       r.sp == sp + 0x50 && r.bp == 0x8888 && reads == 2,
	       "bp saved at cfa - 24: two reads (%u)", reads);
	/* the record's return address beyond the stack: a fault, not half */
	r = (struct stackid_uw_regs){ 0x401000, sp,
				      STACK_BASE + 8 * STACK_WORDS - 8 };
	w = row(0, STACKID_UW_CFA_BP | STACKID_UW_BP_SAVED, 16, -2);
	tap_ok(stackid_uw_step(&w, &r, rd, NULL, &how, 8) == STACKID_STOP_FAULT &&
	       r.ip == 0x401000 && r.bp == STACK_BASE + 8 * STACK_WORDS - 8,
	       "a frame record half outside the stack: FAULT, registers kept");

	/* PLT: cfa = sp + 8, + 8 when (ip & 15) >= 11 */
	put(sp, 0x403000);
	put(sp + 8, 0x404000);
	w = row(0, STACKID_UW_CFA_PLT, 8, 11);
	r = (struct stackid_uw_regs){ 0x401006, sp, 1 };
	tap_ok(!stackid_uw_step(&w, &r, rd, NULL, &how, 8) && r.ip == 0x403000 &&
	       r.sp == sp + 8, "CFA_PLT before the push");
	r = (struct stackid_uw_regs){ 0x40100b, sp, 1 };
	tap_ok(!stackid_uw_step(&w, &r, rd, NULL, &how, 8) && r.ip == 0x404000 &&
	       r.sp == sp + 16, "CFA_PLT after the push");

	/* a signal frame: the ucontext at sp */
	put(sp + STACKID_UC_IP, 0x405555);
	put(sp + STACKID_UC_SP, sp + 0x300);
	put(sp + STACKID_UC_BP, 0x1234);
	r = (struct stackid_uw_regs){ 0x7f0000001000ULL, sp, 0 };
	w = row(0, STACKID_UW_CFA_SIGNAL, 0, 0);
	tap_ok(!stackid_uw_step(&w, &r, rd, NULL, &how, 8) && r.ip == 0x405555 &&
	       r.sp == sp + 0x300 && r.bp == 0x1234 &&
	       how == STACKID_HOW_SIGNAL, "CFA_SIGNAL: the saved registers");

	/* a realigned frame: cfa saved at bp - 8, the caller's bp at bp */
	put(sp + 0x80 - 8, sp + 0xc0);
	put(sp + 0x80, 0x9999);
	put(sp + 0xc0 - 8, 0x406000);
	r = (struct stackid_uw_regs){ 0x401000, sp, sp + 0x80 };
	w = row(0, STACKID_UW_CFA_BP_DEREF | STACKID_UW_BP_AT_BP, 8, 0);
	tap_ok(!stackid_uw_step(&w, &r, rd, NULL, &how, 8) && r.ip == 0x406000 &&
	       r.sp == sp + 0xc0 && r.bp == 0x9999,
	       "CFA_BP_DEREF, BP_AT_BP: a realigned frame");

	/* 32-bit: 4-byte words, PLT adds 4, no signal frames */
	memset(stack, 0, sizeof(stack));
	STACK_BASE = STACK_BASE32;
	sp = STACK_BASE + 0x100;
	put(sp + 8, 0x0804a000ULL | (0x1111ULL << 32));	/* ra at sp + 8 */
	r = (struct stackid_uw_regs){ 0x8049000, sp, 0 };
	w = row(0, STACKID_UW_CFA_SP | STACKID_UW_BP_SAVED, 12, -3);
	put(sp, 0x22220000ULL);				/* bp at cfa - 12 */
	tap_ok(!stackid_uw_step(&w, &r, rd, NULL, &how, 4) &&
	       r.ip == 0x804a000 && r.sp == sp + 12 && r.bp == 0x22220000,
	       "32-bit CFA_SP: 4-byte return address and bp (%llx %llx)",
	       (unsigned long long)r.ip, (unsigned long long)r.bp);
	/* little-endian: 0x8048111 at sp, 0x8048222 at sp + 4 */
	put(sp, 0x8048222ULL << 32 | 0x8048111);
	r = (struct stackid_uw_regs){ 0x804800c, sp, 0 };
	w = row(0, STACKID_UW_CFA_PLT, 4, 11);
	tap_ok(!stackid_uw_step(&w, &r, rd, NULL, &how, 4) &&
	       r.ip == 0x8048222 && r.sp == sp + 8,
	       "32-bit CFA_PLT after the push: + 4 (%llx)",
	       (unsigned long long)r.ip);
	w = row(0, STACKID_UW_CFA_SIGNAL, 0, 0);
	tap_ok(stackid_uw_step(&w, &r, rd, NULL, &how, 4) ==
	       STACKID_STOP_NO_ROW, "32-bit signal frames: no row");
	/* a 32-bit frame record: [saved ebp][return address] at ebp */
	put(sp + 0x40, 0x0804b000ULL << 32 | 0xffd00180ULL);
	r = (struct stackid_uw_regs){ 0x8049000, sp, sp + 0x40 };
	w = row(0, STACKID_UW_CFA_BP | STACKID_UW_BP_SAVED, 8, -2);
	reads = words = 0;
	tap_ok(!stackid_uw_step(&w, &r, rd, NULL, &how, 4) &&
	       r.ip == 0x804b000 && r.sp == sp + 0x48 &&
	       r.bp == 0xffd00180ULL && reads == 1 && words == 2,
	       "32-bit frame record: 4-byte bp and return address, one read (%llx %llx)",
	       (unsigned long long)r.ip, (unsigned long long)r.bp);
	r = (struct stackid_uw_regs){ 1, 0xfffffff0ULL, 0 };
	w = row(0, STACKID_UW_CFA_SP, 64, 0);
	tap_ok(stackid_uw_step(&w, &r, rd, NULL, &how, 4) ==
	       STACKID_STOP_BAD_CFA, "32-bit: a CFA beyond 4 GiB");
	STACK_BASE = STACK_BASE64;
	sp = STACK_BASE + 0x100;

	r = (struct stackid_uw_regs){ 1, sp, 0 };
	w = row(0, STACKID_UW_CFA_END, 0, 0);
	tap_ok(stackid_uw_step(&w, &r, rd, NULL, &how, 8) == STACKID_STOP_END,
	       "CFA_END ends the walk");
	w = row(0, STACKID_UW_CFA_NONE, 0, 0);
	tap_ok(stackid_uw_step(&w, &r, rd, NULL, &how, 8) == STACKID_STOP_NO_ROW,
	       "CFA_NONE: no row");
	w = row(0, STACKID_UW_CFA_SP, 0, 0);
	tap_ok(stackid_uw_step(&w, &r, rd, NULL, &how, 8) == STACKID_STOP_BAD_CFA,
	       "a CFA at sp: not up the stack");
	w = row(0, STACKID_UW_CFA_BP, 8, 0);
	r = (struct stackid_uw_regs){ 1, sp, sp - 64 };
	tap_ok(stackid_uw_step(&w, &r, rd, NULL, &how, 8) == STACKID_STOP_BAD_CFA,
	       "a CFA below sp: not up the stack");
	r = (struct stackid_uw_regs){ 1, STACK_BASE + 8 * STACK_WORDS, 0 };
	w = row(0, STACKID_UW_CFA_SP, 16, 0);
	tap_ok(stackid_uw_step(&w, &r, rd, NULL, &how, 8) == STACKID_STOP_FAULT,
	       "an unreadable return address: FAULT");
	put(sp + 8, 0);
	r = (struct stackid_uw_regs){ 1, sp, 0 };
	tap_ok(stackid_uw_step(&w, &r, rd, NULL, &how, 8) == STACKID_STOP_END,
	       "a zero return address: the end");
	r = (struct stackid_uw_regs){ 1, ~0ULL - 4, 0 };
	w = row(0, STACKID_UW_CFA_SP, 65535, 0);
	tap_ok(stackid_uw_step(&w, &r, rd, NULL, &how, 8) != 0,
	       "sp near the top of the address space: no wrap-around");
}

/* Random rows and stacks: bounded reads, in the stack or refused, walks end. */
static void test_random(void)
{
	unsigned int iter, worst = 0, worst_words = 0, walks_ended = 0, maxsteps = 0;
	u64 seed = 88172645463325252ULL;

	bad_read = 0;
	for (iter = 0; iter < 200000; iter++) {
		struct stackid_unwind_row w;
		struct stackid_uw_regs r;
		unsigned int i, steps = 0;
		u8 how;

		for (i = 0; i < 16; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			stack[(seed >> 8) % STACK_WORDS] = (seed & 1) ?
				STACK_BASE + ((seed >> 20) % (8 * STACK_WORDS)) :
				seed;
		}
		r = (struct stackid_uw_regs){ seed, STACK_BASE +
					      8 * ((seed >> 3) % STACK_WORDS),
					      STACK_BASE + (seed >> 40) % 4096 };
		/* a walk of at most 127 frames, like the module's */
		while (steps < 127) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			w = row(0, (seed & 7) % 7 | ((seed >> 3) % 3) << 4,
				(u16)(seed >> 16), (s8)(seed >> 32));
			reads = words = 0;
			if (stackid_uw_step(&w, &r, rd, NULL, &how,
					    (iter & 1) ? 8 : 4))
				break;
			if (reads > worst)
				worst = reads;
			if (words > worst_words)
				worst_words = words;
			steps++;
		}
		if (reads > worst)
			worst = reads;
		if (words > worst_words)
			worst_words = words;
		if (steps < 127)
			walks_ended++;
		if (steps > maxsteps)
			maxsteps = steps;
	}
	tap_ok(worst <= 3 && worst_words <= 3,
	       "random rows: at most 3 reads and 3 words a step (%u, %u)",
	       worst, worst_words);
	tap_ok(walks_ended > 0 && maxsteps <= 127,
	       "random rows: %u of 200000 walks ended before the bound",
	       walks_ended);
}

int main(void)
{
	test_check();
	test_steps();
	test_random();
	return tap_done();
}
