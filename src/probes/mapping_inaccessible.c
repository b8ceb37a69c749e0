// SPDX-License-Identifier: GPL-2.0
/* mapping_inaccessible(): guest_memfd's unreadable page cache (6.11). */
#include <linux/pagemap.h>

bool stackid_probe(struct address_space *m);
bool stackid_probe(struct address_space *m)
{
	return mapping_inaccessible(m);
}
