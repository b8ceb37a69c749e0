// SPDX-License-Identifier: GPL-2.0
/*
 * The page-cache folio API stackid reads build-id notes with (5.19):
 * filemap_get_folio(), read_cache_folio(), the read_folio operation,
 * folio_test_uptodate(), folio_size(), folio_pos(), kmap_local_folio(),
 * folio_put().
 */
#include <linux/pagemap.h>
#include <linux/highmem.h>

int stackid_probe(struct file *file);
int stackid_probe(struct file *file)
{
	struct address_space *m = file->f_mapping;
	struct folio *folio = filemap_get_folio(m, 0);
	void *p;
	int r;

	if (IS_ERR_OR_NULL(folio) || !folio_test_uptodate(folio) ||
	    !m->a_ops->read_folio)
		return 0;
	folio_put(folio);
	folio = read_cache_folio(m, 0, NULL, file);
	if (IS_ERR(folio))
		return 0;
	p = kmap_local_folio(folio, 0);
	r = *(char *)p + folio_size(folio) + folio_pos(folio);
	kunmap_local(p);
	folio_put(folio);
	return r;
}
