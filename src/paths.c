// SPDX-License-Identifier: GPL-2.0
/*
 * Build-id -> path records, so that a capture names the file behind each
 * build-id and can be symbolized after the process is gone.
 *
 * Only the sampled task's own context reports a path (task.c, right
 * after it read a build-id from a file), so d_path() walks up to that
 * task's root: the path is the one the process itself uses, also in a
 * chroot or a container. Each build-id is reported once per enable: a
 * table of the reported ones (at most STACKID_REPORTED_MAX, the least
 * recently seen forgotten first) keeps other CPUs and later reads from
 * sending it again. A token bucket (STACKID_PATHS_RATE a second, bursts
 * of STACKID_PATHS_BURST) bounds the work a process can cause by
 * rewriting its own build-id over and over; what it stops is counted in
 * STACKID_STAT_PATHS_LIMITED, and such a build-id is reported when it is
 * next read once tokens are back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/timer.h>

#include "internal.h"

#define STACKID_REPORTED_MAX	8192
#define STACKID_PATHS_RATE	256
#define STACKID_PATHS_BURST	4096
#define STACKID_PATHS_WAKE_MS	20

struct stackid_reported {
	struct hlist_node node;
	struct list_head lru;
	u8 len;
	u8 id[STACKID_BUILD_ID_SIZE];
};

static DEFINE_HASHTABLE(stackid_reported, 10);
static LIST_HEAD(stackid_reported_lru);
static unsigned int stackid_nreported;
static unsigned long stackid_tokens = STACKID_PATHS_BURST;
static unsigned long stackid_tokens_at;
static DEFINE_MUTEX(stackid_paths_lock);

static struct stackid_reported *stackid_reported_find(const u8 *id, u8 len,
						      u32 key)
{
	struct stackid_reported *r;

	hash_for_each_possible(stackid_reported, r, node, key)
		if (r->len == len && !memcmp(r->id, id, len))
			return r;
	return NULL;
}

static void stackid_reported_del(struct stackid_reported *r)
{
	hash_del(&r->node);
	list_del(&r->lru);
	stackid_nreported--;
	kfree(r);
}

/* Take a token; false when the bucket is empty. */
static bool stackid_paths_token(void)
{
	unsigned long now = jiffies, add;

	add = (now - stackid_tokens_at) * STACKID_PATHS_RATE / HZ;
	if (add) {
		stackid_tokens = min_t(unsigned long, stackid_tokens + add,
				       STACKID_PATHS_BURST);
		stackid_tokens_at = now;
	}
	if (!stackid_tokens)
		return false;
	stackid_tokens--;
	return true;
}

/*
 * Claim @id for reporting: NULL if it was reported already or may not be
 * now (counted), else its new table entry.
 */
static struct stackid_reported *stackid_paths_claim(const u8 *id, u8 len)
{
	u32 key = jhash(id, len, 0);
	struct stackid_reported *r;

	r = stackid_reported_find(id, len, key);
	if (r) {
		list_move(&r->lru, &stackid_reported_lru);
		return NULL;
	}
	if (!stackid_paths_token()) {
		stackid_stat_inc_here(STACKID_STAT_PATHS_LIMITED);
		return NULL;
	}
	r = kmalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		stackid_stat_inc_here(STACKID_STAT_PATHS_DROPPED);
		return NULL;
	}
	if (stackid_nreported >= STACKID_REPORTED_MAX)
		stackid_reported_del(list_last_entry(&stackid_reported_lru,
						     struct stackid_reported,
						     lru));
	r->len = len;
	memcpy(r->id, id, len);
	hash_add(stackid_reported, &r->node, key);
	list_add(&r->lru, &stackid_reported_lru);
	stackid_nreported++;
	return r;
}

/* Write the record for @file into this CPU's ring; false if no room. */
static bool stackid_paths_write(struct file *file, const u8 *id, u8 len)
{
	struct stackid_build_id_path *rec;
	struct stackid_cpu *c;
	unsigned long flags;
	char *buf, *path;
	size_t plen;
	bool ok = false;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	rec = kmalloc(STACKID_RECORD_MAX + 8, GFP_KERNEL);
	if (!buf || !rec)
		goto out;
	path = d_path(&file->f_path, buf, PATH_MAX);
	if (IS_ERR(path))
		path = "";
	plen = strlen(path);
	if (plen > STACKID_PATH_MAX)
		plen = 0;	/* too long to carry: report the build-id */
	memset(rec, 0, sizeof(*rec) + plen + 8);
	rec->hdr.type = STACKID_REC_BUILD_ID_PATH;
	rec->hdr.abi_major = STACKID_ABI_MAJOR;
	rec->hdr.size = ALIGN(sizeof(*rec) + plen + 1, 8);
	memcpy(rec->build_id, id, len);
	rec->build_id_len = len;
	rec->path_len = plen;
	memcpy(rec->path, path, plen);
	c = stackid_cpu_get(&flags);
	ok = stackid_emit_raw(c, rec, rec->hdr.size);
	stackid_stat_inc(c, ok ? STACKID_STAT_PATHS :
				 STACKID_STAT_PATHS_DROPPED);
	stackid_cpu_put(c, flags);
	/*
	 * A reader that loads unwind tables needs this path before walks
	 * through the file can go on: the wakeup timer (cpu.c) fires within
	 * STACKID_PATHS_WAKE_MS, not at the end of the period (up to 10 s),
	 * and paths that come together share that one wakeup (a program
	 * that maps 300 libraries names them in a burst). Once it has
	 * fired, it goes on with the period while sampling is on.
	 */
	if (ok)
		timer_reduce(&stackid_state.wake_timer, jiffies +
			     msecs_to_jiffies(STACKID_PATHS_WAKE_MS));
out:
	if (!buf || !rec)
		stackid_stat_inc_here(STACKID_STAT_PATHS_DROPPED);
	kfree(rec);
	kfree(buf);
	return ok;
}

/**
 * stackid_paths_report - a path record for @file, once per build-id
 * @file: the file the build-id @id (@len bytes) was just read from
 * @id: the build-id
 * @len: its length
 *
 * Process context, in the sampled task (see above).
 */
void stackid_paths_report(struct file *file, const u8 *id, u8 len)
{
	struct stackid_reported *r;

	mutex_lock(&stackid_paths_lock);
	r = stackid_paths_claim(id, len);
	mutex_unlock(&stackid_paths_lock);
	if (!r || stackid_paths_write(file, id, len))
		return;
	/* not written: forget it, so that the next read reports it */
	mutex_lock(&stackid_paths_lock);
	r = stackid_reported_find(id, len, jhash(id, len, 0));
	if (r)
		stackid_reported_del(r);
	mutex_unlock(&stackid_paths_lock);
}

/* A new session (enable), or module exit: forget every build-id. */
void stackid_paths_reset(void)
{
	struct stackid_reported *r, *tmp;

	mutex_lock(&stackid_paths_lock);
	list_for_each_entry_safe(r, tmp, &stackid_reported_lru, lru)
		stackid_reported_del(r);
	stackid_tokens = STACKID_PATHS_BURST;
	stackid_tokens_at = jiffies;
	mutex_unlock(&stackid_paths_lock);
}
