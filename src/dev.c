// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/stackid: the whole user interface (include/stackid.h).
 *
 * Mode 0600, and open() additionally needs CAP_PERFMON or CAP_SYS_ADMIN
 * (-EPERM). One opener at a time: the device has one stream of records
 * and a second reader would steal half of them, so a second open() fails
 * with -EBUSY. Closing the device stops sampling and clears the tgid
 * filter; records not read yet stay in the rings for the next reader.
 *
 * read() returns whole records only, from every CPU's ring in turn; it
 * blocks until there is one unless O_NONBLOCK (-EAGAIN), and fails with
 * -EINVAL, consuming nothing, if the buffer cannot hold the next record
 * (a buffer of STACKID_RECORD_MAX bytes always can).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/slab.h>

#include "internal.h"

static atomic_t stackid_open_count = ATOMIC_INIT(0);
static unsigned int stackid_read_cpu;	/* where the next read starts */

static int stackid_open(struct inode *inode, struct file *file)
{
	if (!perfmon_capable())
		return -EPERM;
	if (atomic_cmpxchg(&stackid_open_count, 0, 1))
		return -EBUSY;
	return stream_open(inode, file);
}

static int stackid_release(struct inode *inode, struct file *file)
{
	mutex_lock(&sid.lock);
	stackid_disable();
	WRITE_ONCE(sid.filter_tgid, 0);
	mutex_unlock(&sid.lock);
	atomic_set(&stackid_open_count, 0);
	return 0;
}

static bool stackid_readable(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (!stackid_ring_empty(&sid.cpus[cpu]->ring))
			return true;
	return false;
}

/* Copy whole records from all rings, starting at a rotating CPU. */
static ssize_t stackid_read_rings(char __user *buf, size_t len)
{
	unsigned int i, cpu = stackid_read_cpu;
	size_t done = 0;
	ssize_t ret = 0;

	for (i = 0; i < nr_cpu_ids; i++, cpu = (cpu + 1) % nr_cpu_ids) {
		if (!cpu_possible(cpu))
			continue;
		ret = stackid_ring_read(&sid.cpus[cpu]->ring, buf, len, &done);
		if (ret)
			break;
		if (done == len)
			break;
	}
	stackid_read_cpu = (stackid_read_cpu + 1) % nr_cpu_ids;
	if (done)
		return done;
	return ret;
}

static ssize_t stackid_read(struct file *file, char __user *buf, size_t len,
			    loff_t *ppos)
{
	ssize_t ret;

	for (;;) {
		if (mutex_lock_interruptible(&sid.read_lock))
			return -ERESTARTSYS;
		ret = stackid_read_rings(buf, len);
		mutex_unlock(&sid.read_lock);
		if (ret)
			return ret;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(sid.wq, stackid_readable()))
			return -ERESTARTSYS;
	}
}

static __poll_t stackid_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &sid.wq, wait);
	return stackid_readable() ? EPOLLIN | EPOLLRDNORM : 0;
}

/* A CPU argument: a possible CPU, or STACKID_ALL_CPUS. */
static bool stackid_cpu_arg_ok(u32 cpu)
{
	return cpu == STACKID_ALL_CPUS ||
	       (cpu < nr_cpu_ids && cpu_possible(cpu));
}

static long stackid_get_stats(void __user *arg)
{
	struct stackid_stats st;
	int cpu, i;

	if (copy_from_user(&st.cpu, arg, sizeof(st.cpu)))
		return -EFAULT;
	if (!stackid_cpu_arg_ok(st.cpu))
		return -EINVAL;
	memset(st.counters, 0, sizeof(st.counters));
	st.nr = STACKID_STAT_NR;
	for_each_possible_cpu(cpu) {
		if (st.cpu != STACKID_ALL_CPUS && st.cpu != cpu)
			continue;
		for (i = 0; i < STACKID_STAT_NR; i++)
			st.counters[i] +=
				local64_read(&sid.cpus[cpu]->stats[i]);
	}
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

static long stackid_get_cost(void __user *arg)
{
	struct stackid_cost *st;
	int cpu, i;
	long ret;
	u32 want;

	if (get_user(want, (u32 __user *)arg))
		return -EFAULT;
	if (!stackid_cpu_arg_ok(want))
		return -EINVAL;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->cpu = want;
	st->nr = STACKID_COST_BUCKETS;
	for_each_possible_cpu(cpu) {
		struct stackid_cpu *c = sid.cpus[cpu];

		if (want != STACKID_ALL_CPUS && want != cpu)
			continue;
		st->sum_ns += local64_read(&c->cost_sum);
		for (i = 0; i < STACKID_COST_BUCKETS; i++) {
			u64 n = local64_read(&c->cost[i]);

			st->buckets[i] += n;
			st->count += n;
		}
	}
	ret = copy_to_user(arg, st, sizeof(*st)) ? -EFAULT : 0;
	kfree(st);
	return ret;
}

static void stackid_reset_stats(void)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct stackid_cpu *c = sid.cpus[cpu];

		for (i = 0; i < STACKID_STAT_NR; i++)
			local64_set(&c->stats[i], 0);
		for (i = 0; i < STACKID_COST_BUCKETS; i++)
			local64_set(&c->cost[i], 0);
		local64_set(&c->cost_sum, 0);
	}
}

static long stackid_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct stackid_filter flt;
	long ret = 0;
	u32 v;

	switch (cmd) {
	case STACKID_IOC_GET_VERSION:
		v = STACKID_ABI_VERSION;
		return put_user(v, (u32 __user *)uarg);
	case STACKID_IOC_GET_FREQ:
		return put_user(READ_ONCE(sid.freq), (u32 __user *)uarg);
	case STACKID_IOC_SET_FREQ:
		if (get_user(v, (u32 __user *)uarg))
			return -EFAULT;
		mutex_lock(&sid.lock);
		ret = stackid_set_freq(v);
		mutex_unlock(&sid.lock);
		return ret;
	case STACKID_IOC_ENABLE:
		mutex_lock(&sid.lock);
		ret = stackid_enable();
		mutex_unlock(&sid.lock);
		return ret;
	case STACKID_IOC_DISABLE:
		mutex_lock(&sid.lock);
		stackid_disable();
		mutex_unlock(&sid.lock);
		return 0;
	case STACKID_IOC_GET_STATS:
		return stackid_get_stats(uarg);
	case STACKID_IOC_GET_COST:
		return stackid_get_cost(uarg);
	case STACKID_IOC_RESET_STATS:
		stackid_reset_stats();
		return 0;
	case STACKID_IOC_SET_FILTER:
		if (copy_from_user(&flt, uarg, sizeof(flt)))
			return -EFAULT;
		if (flt.__pad)
			return -EINVAL;
		WRITE_ONCE(sid.filter_tgid, flt.tgid);
		return 0;
	case STACKID_IOC_GET_FILTER:
		memset(&flt, 0, sizeof(flt));
		flt.tgid = READ_ONCE(sid.filter_tgid);
		return copy_to_user(uarg, &flt, sizeof(flt)) ? -EFAULT : 0;
	default:
		return -ENOTTY;
	}
}

static const struct file_operations stackid_fops = {
	.owner = THIS_MODULE,
	.open = stackid_open,
	.release = stackid_release,
	.read = stackid_read,
	.poll = stackid_poll,
	.unlocked_ioctl = stackid_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice stackid_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "stackid",
	.fops = &stackid_fops,
	.mode = 0600,
};

int stackid_dev_init(void)
{
	return misc_register(&stackid_misc);
}

void stackid_dev_exit(void)
{
	misc_deregister(&stackid_misc);
}
