// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/stackid: the whole user interface (include/stackid.h).
 *
 * Mode 0600, and open() additionally needs CAP_PERFMON or CAP_SYS_ADMIN
 * (-EPERM). One opener at a time: the device has one stream of records
 * and a second reader would steal half of them, so a second open() fails
 * with -EBUSY. Closing the device stops sampling and clears the tgid
 * filter; the next reader starts with empty rings and control pages the
 * module wrote afresh (stackid_rings_reset()).
 *
 * read() returns whole records only, from every CPU's ring in turn; it
 * blocks until there is one unless O_NONBLOCK (-EAGAIN); a length of 0
 * returns 0 at once; it fails with -EINVAL, consuming nothing, if the
 * buffer cannot hold the next record (a buffer of STACKID_RECORD_MAX
 * bytes always can). Each ring can also be mmap()ed (ring.h). Readers
 * are woken when a ring reaches the watermark, or by a periodic timer
 * while any ring holds a record: never once per sample.
 *
 * A mapping is writable, so the control page and the data are input: the
 * module reads only tail from the control page (its head is its own copy,
 * ring.h), and a tail or data that a mapping made nonsense costs that
 * reader the ring's unread bytes (read() skips them and fails once with
 * -EIO), never a loop that cannot be interrupted, and never the next
 * reader anything.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "internal.h"
#include "compat.h"

static atomic_t stackid_open_count = ATOMIC_INIT(0);
static unsigned int stackid_read_cpu;	/* where the next read starts */

/* --- reading the rings ------------------------------------------------ */

/*
 * Copy whole records from one ring to @buf while they fit, adding to
 * *done. Returns 0 when the ring is drained or @buf is full, -EINVAL when
 * nothing was copied yet and the next record is larger than @len, -EFAULT
 * on a bad user buffer. A tail or data written through an mmap() so that
 * no record starts at tail: the ring's unread bytes are skipped (tail
 * moves to head) and -EIO is returned, unless records were copied before
 * (then the next read() says it). Nothing out of bounds either way.
 */
static ssize_t stackid_read_ring(struct stackid_kring *kr, char __user *buf,
				 size_t len, size_t *done)
{
	const struct stackid_ring *r = &kr->r;

	for (;;) {
		/* pairs with the producer's release: bytes before head */
		u64 head = smp_load_acquire(&r->published);
		u64 tail = READ_ONCE(r->ctl->tail);
		u32 off = tail & (r->size - 1), first;
		long size = stackid_ring_next(r, head, tail);

		if (!size)
			return 0;
		if (size < 0) {
			if (*done)
				return 0;
			/* the consumer's release, as after a read */
			smp_store_release(&r->ctl->tail, head);
			WRITE_ONCE(kr->woken, false);
			return -EIO;
		}
		if (size > len - *done)
			return *done ? 0 : -EINVAL;
		first = min_t(u32, size, r->size - off);
		if (copy_to_user(buf + *done, r->data + off, first) ||
		    copy_to_user(buf + *done + first, r->data, size - first))
			return -EFAULT;
		*done += size;
		/* the copy is done before the producer may reuse the room */
		smp_store_release(&r->ctl->tail, tail + size);
		WRITE_ONCE(kr->woken, false);
	}
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
		ret = stackid_read_ring(&stackid_state.cpus[cpu]->ring, buf,
					len, &done);
		if (ret || done == len)
			break;
	}
	stackid_read_cpu = (stackid_read_cpu + 1) % nr_cpu_ids;
	if (done)
		return done;
	return ret;
}

/* --- file operations -------------------------------------------------- */

static int stackid_open(struct inode *inode, struct file *file)
{
	if (!perfmon_capable())
		return -EPERM;
	if (atomic_cmpxchg(&stackid_open_count, 0, 1))
		return -EBUSY;
	stackid_rings_reset();
	return stream_open(inode, file);
}

static int stackid_release(struct inode *inode, struct file *file)
{
	mutex_lock(&stackid_state.lock);
	stackid_disable();
	WRITE_ONCE(stackid_state.filter_tgid, 0);
	WRITE_ONCE(stackid_state.format, 0);
	/*
	 * a reader's frequency and wakeups are its own: the next one gets
	 * the freq parameter and the default wakeups (sampling is off, so
	 * no event runs at the old frequency)
	 */
	WRITE_ONCE(stackid_state.freq, stackid_param_freq);
	WRITE_ONCE(stackid_state.watermark, 0);
	WRITE_ONCE(stackid_state.period_ms, STACKID_PERIOD_MS);
	stackid_cgroup_set_filter(-1);
	mutex_unlock(&stackid_state.lock);
	/* the next reader starts with no tables, and loads its own */
	stackid_unwind_clear();
	atomic_set(&stackid_open_count, 0);
	return 0;
}

static ssize_t stackid_read(struct file *file, char __user *buf, size_t len,
			    loff_t *ppos)
{
	ssize_t ret;

	if (!len)
		return 0;
	for (;;) {
		if (mutex_lock_interruptible(&stackid_state.read_lock))
			return -ERESTARTSYS;
		ret = stackid_read_rings(buf, len);
		mutex_unlock(&stackid_state.read_lock);
		if (ret)
			return ret;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (signal_pending(current))
			return -ERESTARTSYS;
		if (wait_event_interruptible(stackid_state.wq,
					     stackid_readable()))
			return -ERESTARTSYS;
	}
}

static __poll_t stackid_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &stackid_state.wq, wait);
	return stackid_readable() ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * One ring per mapping: offset ring * (page + data size), length page +
 * data size, shared, not executable, not inherited, not pinnable. The
 * mapping keeps the device open, and the rings live as long as the module.
 */
static int stackid_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long stride = 1 + (stackid_param_ring_kb * 1024UL >>
				    PAGE_SHIFT);
	unsigned long ring = vma->vm_pgoff / stride;

	if (vma->vm_pgoff % stride || ring >= nr_cpu_ids ||
	    !cpu_possible(ring))
		return -ENXIO;
	if (vma->vm_end - vma->vm_start != stride << PAGE_SHIFT)
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	stackid_vm_flags_clear(vma, VM_MAYEXEC);
	/*
	 * Only this mapping reaches the ring: no pin through it (VM_IO: GUP
	 * refuses, so io_uring's registered buffers or another process's
	 * process_vm_writev() cannot hold or write its pages once it is
	 * gone), no copy in a child, no core dump of it.
	 */
	stackid_vm_flags_set(vma, VM_IO | VM_DONTCOPY | VM_DONTDUMP);
	return remap_vmalloc_range(vma, stackid_state.cpus[ring]->ring.area,
				   0);
}

/* --- ioctls ------------------------------------------------------------ */

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
	BUILD_BUG_ON(STACKID_STAT_NR > STACKID_STATS_MAX);
	memset(st.counters, 0, sizeof(st.counters));
	st.nr = STACKID_STAT_NR;
	for_each_possible_cpu(cpu) {
		if (st.cpu != STACKID_ALL_CPUS && st.cpu != cpu)
			continue;
		for (i = 0; i < STACKID_STAT_NR; i++)
			st.counters[i] +=
				local64_read(&stackid_state.cpus[cpu]->stats[i]);
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
		struct stackid_cpu *c = stackid_state.cpus[cpu];

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

/*
 * Only a CPU may write its local64_t counters while it can count; so
 * they are zeroed only when none can: sampling off (no handler runs, and
 * stackid_state.lock keeps it off) and no sample in flight (no task_work
 * will count anything): those whose tasks sleep in the kernel are taken
 * back and written first.
 */
static long stackid_reset_stats(void)
{
	long ret = 0;
	int cpu, i;

	mutex_lock(&stackid_state.lock);
	if (!stackid_state.enabled)
		stackid_defer_take_back_all();
	if (stackid_state.enabled || !stackid_defer_idle()) {
		ret = -EBUSY;
		goto out;
	}
	for_each_possible_cpu(cpu) {
		struct stackid_cpu *c = stackid_state.cpus[cpu];

		for (i = 0; i < STACKID_STAT_NR; i++)
			local64_set(&c->stats[i], 0);
		for (i = 0; i < STACKID_COST_BUCKETS; i++)
			local64_set(&c->cost[i], 0);
		local64_set(&c->cost_sum, 0);
	}
out:
	mutex_unlock(&stackid_state.lock);
	return ret;
}

static long stackid_set_wakeup(void __user *arg)
{
	struct stackid_wakeup w;

	if (copy_from_user(&w, arg, sizeof(w)))
		return -EFAULT;
	if (w.watermark > stackid_param_ring_kb * 1024U ||
	    w.period_ms > 10000)
		return -EINVAL;
	WRITE_ONCE(stackid_state.watermark, w.watermark);
	WRITE_ONCE(stackid_state.period_ms,
		   w.period_ms ? w.period_ms : STACKID_PERIOD_MS);
	return 0;
}

static long stackid_get_wakeup(void __user *arg)
{
	struct stackid_wakeup w = {
		.watermark = READ_ONCE(stackid_state.watermark) ?:
			     stackid_param_ring_kb * 1024U / 4,
		.period_ms = READ_ONCE(stackid_state.period_ms),
	};

	return copy_to_user(arg, &w, sizeof(w)) ? -EFAULT : 0;
}

static long stackid_get_ring_info(void __user *arg)
{
	struct stackid_ring_info ri = {
		.nr_rings = nr_cpu_ids,
		.data_size = stackid_param_ring_kb * 1024U,
		.page_size = PAGE_SIZE,
	};

	return copy_to_user(arg, &ri, sizeof(ri)) ? -EFAULT : 0;
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
		return put_user(READ_ONCE(stackid_state.freq),
				(u32 __user *)uarg);
	case STACKID_IOC_SET_FREQ:
		if (get_user(v, (u32 __user *)uarg))
			return -EFAULT;
		mutex_lock(&stackid_state.lock);
		ret = stackid_set_freq(v);
		mutex_unlock(&stackid_state.lock);
		return ret;
	case STACKID_IOC_ENABLE:
		mutex_lock(&stackid_state.lock);
		ret = stackid_enable();
		mutex_unlock(&stackid_state.lock);
		return ret;
	case STACKID_IOC_DISABLE:
		mutex_lock(&stackid_state.lock);
		stackid_disable();
		mutex_unlock(&stackid_state.lock);
		return 0;
	case STACKID_IOC_GET_STATS:
		return stackid_get_stats(uarg);
	case STACKID_IOC_GET_COST:
		return stackid_get_cost(uarg);
	case STACKID_IOC_RESET_STATS:
		return stackid_reset_stats();
	case STACKID_IOC_SET_FILTER:
		if (copy_from_user(&flt, uarg, sizeof(flt)))
			return -EFAULT;
		if (flt.__pad)
			return -EINVAL;
		WRITE_ONCE(stackid_state.filter_tgid, flt.tgid);
		return 0;
	case STACKID_IOC_GET_FILTER:
		memset(&flt, 0, sizeof(flt));
		flt.tgid = READ_ONCE(stackid_state.filter_tgid);
		return copy_to_user(uarg, &flt, sizeof(flt)) ? -EFAULT : 0;
	case STACKID_IOC_SET_CGROUP: {
		s32 fd;

		if (get_user(fd, (s32 __user *)uarg))
			return -EFAULT;
		if (fd < -1)
			return -EBADF;
		mutex_lock(&stackid_state.lock);
		ret = stackid_cgroup_set_filter(fd);
		mutex_unlock(&stackid_state.lock);
		return ret;
	}
	case STACKID_IOC_ADD_UNWIND:
		return stackid_unwind_add(uarg);
	case STACKID_IOC_GET_UNWIND:
		return stackid_unwind_info(uarg);
	case STACKID_IOC_GET_RING_INFO:
		return stackid_get_ring_info(uarg);
	case STACKID_IOC_SET_WAKEUP:
		return stackid_set_wakeup(uarg);
	case STACKID_IOC_GET_WAKEUP:
		return stackid_get_wakeup(uarg);
	case STACKID_IOC_SET_FORMAT:
		if (get_user(v, (u32 __user *)uarg))
			return -EFAULT;
		if ((v & ~STACKID_FORMAT_ALL) ||
		    ((v & STACKID_FORMAT_DELTA) &&
		     !(v & STACKID_FORMAT_PACKED)))
			return -EINVAL;
		WRITE_ONCE(stackid_state.format, v);
		return 0;
	case STACKID_IOC_GET_FORMAT:
		return put_user(READ_ONCE(stackid_state.format),
				(u32 __user *)uarg);
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
	.mmap = stackid_mmap,
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
