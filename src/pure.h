/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portability shim for stackid's pure code: the ELF note parser and the
 * record encoder are compiled both into the module and into user-space
 * unit tests and fuzzers. They include only this header, never a kernel
 * or libc header directly.
 */
#ifndef STACKID_PURE_H
#define STACKID_PURE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/overflow.h>
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
typedef int32_t s32;
#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
#endif

#endif /* STACKID_PURE_H */
