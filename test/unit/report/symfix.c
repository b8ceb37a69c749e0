// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolization fixture for test_report: functions with known names,
 * never inlined or merged. Built by the Makefile as a shared object
 * (sha1 build-id; 64- and 32-bit), as a non-PIE executable (md5
 * build-id: its addresses are not its file offsets), and with hidden
 * visibility, stripped, with a separate debug file.
 */
#define FN __attribute__((noinline, noclone, used))

volatile int symfix_sink;

FN int symfix_leaf(int x)
{
	symfix_sink = x;
	return x * 7 + 1;
}

FN int symfix_mid(int x)
{
	return symfix_leaf(x + 1) + 2;
}

FN int symfix_outer(int x)
{
	return symfix_mid(x + 2) + 3;
}

#ifdef SYMFIX_MAIN
int main(void)
{
	return symfix_outer(1) & 1;
}
#endif

/*
 * For --lines: inl_leaf is always inlined into symfix_inl (a -O1 build
 * still honours always_inline); the test finds the inlined copy through
 * DWARF and expects the lines marked below.
 */
static inline __attribute__((always_inline)) int inl_leaf(int x)
{
	return symfix_sink * x + 5;	/* INL-LEAF */
}

FN int symfix_inl(int x)
{
	return inl_leaf(x + 3) * 2;	/* INL-CALL */
}
