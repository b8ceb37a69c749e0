/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portability shim for stackid's pure code: the ELF note parser, the ring
 * protocol, the build-id cache and the record checks are compiled both
 * into the module and into user space (the stackid command, unit tests,
 * fuzzers). They include only this header, never a kernel or libc header
 * directly.
 */
#ifndef STACKID_PURE_H
#define STACKID_PURE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/overflow.h>
#include <linux/minmax.h>
#include <asm/barrier.h>
#include <linux/compiler.h>
#else
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>
#include <stdbool.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
/* The kernel's memory-model primitives, as C11 atomics. */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* acquire: later accesses stay after this load */
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
/* release: earlier accesses stay before this store */
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#ifndef min
#define min(a, b)		((a) < (b) ? (a) : (b))
#endif
#endif

#endif /* STACKID_PURE_H */
