// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own build-id stack sampler, for `make bench`: a BPF
 * program on a cpu-clock perf event per CPU (the events stackid and perf
 * use under QEMU TCG) that calls bpf_get_stackid() on a
 * BPF_MAP_TYPE_STACK_TRACE map made with BPF_F_STACK_BUILD_ID, for the
 * user stack: the frame-pointer walk plus a build-id and file offset per
 * frame (kernel/bpf/stackmap.c), what a BPF profiler pays per sample. It
 * counts the samples it took, those whose stack id failed and those of
 * a task other than the idle task. Written as raw instructions: no BPF
 * toolchain in the harness.
 *
 * bpfstack HZ: samples every CPU at HZ until SIGINT or SIGTERM; prints
 * "ready" once sampling, "samples N failed M busy B" on SIGUSR1 and at
 * the end.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_CPUS 64
#define STACK_ENTRIES 2048
#define STACK_DEPTH 127		/* perf_event_max_stack's default */

static volatile sig_atomic_t stop, report;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		stop = 1;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(int type, int key, int value, int n, int flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = n;
	a.map_flags = flags;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), \
	.src_reg = (s), .off = (o), .imm = (i) })
/* a 64-bit load of map FD: two instructions */
#define LD_MAP(d, fd) INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), \
	INSN(0, 0, 0, 0, 0)

/* counts[key] += 1, with r2 .. r5 clobbered */
#define COUNT(cfd, key) \
	INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, key), \
	INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0), \
	INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4), \
	LD_MAP(BPF_REG_1, cfd), \
	INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem), \
	INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0), \
	INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1), \
	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD)

static int prog_load(int sfd, int cfd)
{
	struct bpf_insn insns[] = {
		/* r6 = bpf_get_stackid(ctx, stacks, BPF_F_USER_STACK) */
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_7, BPF_REG_1, 0, 0),
		LD_MAP(BPF_REG_2, sfd),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0,
		     BPF_F_USER_STACK | BPF_F_REUSE_STACKID),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_stackid),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_0, 0, 0),
		COUNT(cfd, 0),
		/* a failed stack id: counted apart */
		INSN(BPF_JMP | BPF_JSGE | BPF_K, BPF_REG_6, 0, 9, 0),
		COUNT(cfd, 1),
		/* a sample of a task other than the idle task (tgid 0) */
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_pid_tgid),
		INSN(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_0, 0, 0, 32),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 9, 0),
		COUNT(cfd, 2),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[65536];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_PERF_EVENT;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0)
		fprintf(stderr, "bpfstack: BPF_PROG_LOAD: %s\n%s", strerror(errno), log);
	return fd;
}

static unsigned long long counter(int cfd, unsigned int key)
{
	unsigned long long v = 0;
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = cfd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&v;
	sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
	return v;
}

static void print_counts(int cfd)
{
	printf("samples %llu failed %llu busy %llu\n", counter(cfd, 0),
	       counter(cfd, 1), counter(cfd, 2));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct perf_event_attr pa;
	sigset_t set, old;
	int ev[MAX_CPUS], nev = 0, sfd, cfd, pfd, cpu, ncpu;
	long hz = argc == 2 ? strtol(argv[1], NULL, 10) : 0;

	if (hz <= 0) {
		fprintf(stderr, "usage: bpfstack HZ\n");
		return 2;
	}
	sfd = map_create(BPF_MAP_TYPE_STACK_TRACE, 4,
			 STACK_DEPTH * sizeof(struct bpf_stack_build_id),
			 STACK_ENTRIES, BPF_F_STACK_BUILD_ID);
	cfd = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 3, 0);
	if (sfd < 0 || cfd < 0) {
		perror("bpfstack: BPF_MAP_CREATE");
		return 1;
	}
	pfd = prog_load(sfd, cfd);
	if (pfd < 0)
		return 1;
	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.config = PERF_COUNT_SW_CPU_CLOCK;
	pa.freq = 1;
	pa.sample_freq = hz;
	pa.exclude_hv = 1;
	pa.exclude_guest = 1;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	for (cpu = 0; cpu < ncpu && cpu < MAX_CPUS; cpu++) {
		int fd = syscall(SYS_perf_event_open, &pa, -1, cpu, -1, 0);

		if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_BPF, pfd) ||
		    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
			fprintf(stderr, "bpfstack: CPU %d: %s\n", cpu, strerror(errno));
			return 1;
		}
		ev[nev++] = fd;
	}
	/* blocked but while waiting: none is lost between test and wait */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_signal);
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		sigsuspend(&old);
		if (report) {
			report = 0;
			print_counts(cfd);
		}
	}
	while (nev)
		ioctl(ev[--nev], PERF_EVENT_IOC_DISABLE, 0);
	print_counts(cfd);
	return 0;
}
