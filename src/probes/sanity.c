// SPDX-License-Identifier: GPL-2.0
/*
 * Must compile against every kernel: if it does not, the probe command
 * itself is broken, and every other probe's "no" would be a lie.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/pagemap.h>

int stackid_probe(struct address_space *m);
int stackid_probe(struct address_space *m)
{
	return m != NULL;
}
