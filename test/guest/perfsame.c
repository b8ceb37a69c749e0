// SPDX-License-Identifier: GPL-2.0
/*
 * perfsame PERFDATA PERFTXT PID MINPCT: stackid's unwinder on perf's own
 * samples (issue 20, "frame by frame on at least 99 % of comparable
 * samples"). `sidcheck perfcmp` compares two samplers' different
 * samples, so a caller one of them found on a path the other never
 * sampled counts against it; here both unwind the same sample.
 *
 * PERFDATA: `perf record --call-graph dwarf -p PID...`'s file: each
 * sample's user registers and its copy of the user stack, and the
 * mappings (MMAP2 records). PERFTXT: `perf script -F pid,time,ip,sym,dso
 * --ns` of it: perf's own unwinding (elfutils) of each sample.
 *
 * Each sample of PID is walked from its registers over its stack copy as
 * the module walks (src/unwind.c, with the same pure code: uwtab.h's row
 * search and step), by tables `stackid record` would load (cfi.c, from
 * the mapped files with a build-id, as the guest has them), and its
 * frames, as "FILE+OFF" (return addresses less one, as perf prints
 * them; not a frame a signal frame gave), are
 * compared with perf's frames of the same sample (its time): equal, or
 * not. Both walk the same copy of the stack, so where they differ one
 * of them is wrong, with two exceptions, counted apart and not judged:
 * perf printed as many frames as it prints at most (perf script's
 * max-stack, 127, kernel frames included) and stackid's walk goes on
 * past them; or stackid's walk is a proper prefix of perf's and ended
 * at a word below the sampled sp, which perf does not copy (an
 * epilogue after `pop %rbp`, whose CFI still names bp's slot; the
 * module reads that word).
 *
 * Prints a summary, up to five disagreements, and "ok - ..." or
 * "not ok - ..." (at least 20 comparable samples, MINPCT % of them
 * equal).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "uwtab.h"
#include "cfi.h"

#define MAX_MAPS	4096
#define MAX_FILES	256
#define MAX_SAMPLES	65536
#define MAX_FRAMES	STACKID_MAX_DEPTH
#define PERF_MAX_STACK	127	/* perf script's default max-stack */
#define USER_TOP	0x800000000000ULL	/* TASK_SIZE_MAX + a page */

struct map {
	u64 start, len, pgoff;
	int exec;
	int file;		/* index into files[] */
};

struct file {
	char *path;
	const char *base;
	struct cfi_table t;
	int ok;			/* its table compiled */
};

struct psample {		/* perf's unwinding of one sample */
	u64 ns;
	char *frames;		/* its user frames: "FILE+OFF FILE+OFF ..." */
	unsigned int lines;	/* the frames it printed, kernel ones too */
};

static struct map maps[MAX_MAPS];
static unsigned int nmaps;
static struct file files[MAX_FILES];
static unsigned int nfiles;
static struct psample psamples[MAX_SAMPLES];
static unsigned int npsamples;

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static int file_of(const char *path)
{
	unsigned int i;
	int fd;

	for (i = 0; i < nfiles; i++)
		if (!strcmp(files[i].path, path))
			return i;
	if (nfiles == MAX_FILES)
		return -1;
	files[nfiles].path = strdup(path);
	if (!files[nfiles].path)
		return -1;
	files[nfiles].base = base_of(files[nfiles].path);
	/* the recorder loads tables by build-id, for a path it can open */
	fd = strstr(path, " (deleted)") ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		files[nfiles].ok = !cfi_compile_fd(fd, &files[nfiles].t) &&
				   files[nfiles].t.build_id_len;
		close(fd);
	}
	return nfiles++;
}

/* The latest mapping of PID that holds @a, or NULL. */
static const struct map *map_of(u64 a)
{
	unsigned int i;

	for (i = nmaps; i-- > 0;)
		if (a >= maps[i].start && a - maps[i].start < maps[i].len)
			return &maps[i];
	return NULL;
}

struct stack {
	u64 sp;
	const unsigned char *data;
	u64 size;
	int below;		/* a read below sp: not in perf's copy */
};

/* stackid_uw_read_fn over perf's copy of the stack */
static int stack_read(void *ctx, u64 addr, unsigned int size, unsigned int n,
		      u64 *val)
{
	struct stack *s = ctx;
	unsigned int i;

	for (i = 0; i < n; i++, addr += size) {
		u64 v = 0;

		if (addr < s->sp) {
			s->below = 1;
			return -EFAULT;
		}
		if (addr - s->sp > s->size || s->size - (addr - s->sp) < size)
			return -EFAULT;
		memcpy(&v, s->data + (addr - s->sp), size);
		val[i] = v;
	}
	return 0;
}

/* src/unwind.c's stackid_fp_step(), 64-bit */
static int fp_step(struct stackid_uw_regs *r, struct stack *s)
{
	u64 frame[2];

	if (!r->bp)
		return STACKID_STOP_END;
	if (r->bp & 7 || r->bp < r->sp || r->bp > USER_TOP - 4096 - 16)
		return STACKID_STOP_BAD_FP;
	if (stack_read(s, r->bp, 8, 2, frame))
		return STACKID_STOP_FAULT;
	if (!frame[1])
		return STACKID_STOP_END;
	r->sp = r->bp + 16;
	r->ip = frame[1];
	r->bp = frame[0];
	return 0;
}

/*
 * src/unwind.c's stackid_unwind() on one sample: every frame looked up,
 * each file's table where it has one. Returns the number of frames.
 */
static unsigned int walk(struct stackid_uw_regs r, struct stack *s, u64 *ips,
			 u8 *hows, int *stop)
{
	unsigned int n = 0;
	int exact = 1, why;

	hows[n] = STACKID_HOW_REGS;
	ips[n++] = r.ip;
	for (;;) {
		const struct stackid_unwind_row *row = NULL;
		u64 pc = exact ? r.ip : r.ip - 1;
		const struct map *m = map_of(pc);
		u8 how = STACKID_HOW_FP;

		if (n > 1 && !(m && m->exec)) {
			n--;
			why = hows[n] == STACKID_HOW_FP ? STACKID_STOP_BAD_FP :
			      STACKID_STOP_BAD_CFA;
			break;
		}
		if (m && files[m->file].ok)
			row = stackid_uw_find(files[m->file].t.rows,
					      files[m->file].t.nr_rows,
					      pc - m->start + m->pgoff);
		if (row && (row->rule & STACKID_UW_CFA_MASK) !=
			   STACKID_UW_CFA_NONE) {
			why = stackid_uw_step(row, &r, stack_read, s, &how, 8);
			if (!why && r.ip >= USER_TOP - 4096)
				why = STACKID_STOP_BAD_CFA;
		} else {
			why = fp_step(&r, s);
			if (why == STACKID_STOP_BAD_FP && row)
				why = STACKID_STOP_NO_ROW;
		}
		if (why)
			break;
		if (n >= MAX_FRAMES) {
			why = STACKID_STOP_DEPTH;
			break;
		}
		exact = how == STACKID_HOW_SIGNAL;
		hows[n] = how;
		ips[n++] = r.ip;
	}
	*stop = why;
	return n;
}

/* "FILE+OFF" of address @a of a mapping of PID, as perf prints frames */
static int frame_name(char *buf, size_t len, u64 a)
{
	const struct map *m = map_of(a);

	if (!m)
		return snprintf(buf, len, "?+%llx", (unsigned long long)a);
	return snprintf(buf, len, "%s+%llx", files[m->file].base,
			(unsigned long long)(a - m->start + m->pgoff));
}

/* perf's text: its unwinding of each of PID's samples, by time */
static int read_text(const char *path, unsigned int pid)
{
	char *line = NULL, cur[8192];
	size_t curlen = 0, cap = 0;
	unsigned int lines = 0;
	int in = 0;
	u64 ns = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	for (;;) {
		char *l = getline(&line, &cap, f) < 0 ? NULL : line;

		if (!l || line[0] != '\t') {
			if (in && curlen && npsamples < MAX_SAMPLES) {
				psamples[npsamples].ns = ns;
				psamples[npsamples].lines = lines;
				psamples[npsamples++].frames = strdup(cur);
			}
			in = 0;
			curlen = 0;
			lines = 0;
			cur[0] = 0;
		}
		if (!l)
			break;
		if (line[0] != '\t') {
			char *e;
			unsigned long long sec, nsec;

			if (strstr(line, "PERF_RECORD_") ||
			    strtoul(line, &e, 10) != pid ||
			    sscanf(e, " %llu.%llu:", &sec, &nsec) != 2)
				continue;
			in = 1;
			ns = sec * 1000000000ULL + nsec;
			continue;
		}
		if (in) {
			unsigned long long ip = strtoull(line + 1, NULL, 16);
			char *lp = strrchr(line, '('), *rp = strrchr(line, ')');
			const char *b = "?";
			const struct map *m;
			u64 o = ip;

			lines++;
			if (lp && rp > lp) {
				*rp = 0;
				b = base_of(lp + 1);
			}
			if (ip >= USER_TOP || !strncmp(b, "[kernel", 7))
				continue;
			if (!strcmp(b, "[unknown]"))
				b = "?";	/* in no mapping: as frame_name() */
			/* an address in a mapping of its file, or an offset */
			m = map_of(ip);
			if (m && !strcmp(files[m->file].base, b))
				o = ip - m->start + m->pgoff;
			curlen += snprintf(cur + curlen, curlen < sizeof(cur) ?
					   sizeof(cur) - curlen : 0,
					   "%s%s+%llx", curlen ? " " : "", b,
					   (unsigned long long)o);
			if (curlen >= sizeof(cur))
				curlen = sizeof(cur) - 1;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* perf's sample of PID at @ns; NULL if none, or two (threads) */
static const struct psample *perf_sample(u64 ns)
{
	const struct psample *p = NULL;
	unsigned int i;

	for (i = 0; i < npsamples; i++)
		if (psamples[i].ns == ns) {
			if (p)
				return NULL;
			p = &psamples[i];
		}
	return p;
}

struct counts {
	unsigned long samples, unmatched, comparable, agree, perf_short;
	unsigned long below;
	unsigned long shown;
	unsigned long stops[STACKID_STOP_NR];
};

static void judge(struct counts *c, u64 ns, const u64 *ips, const u8 *hows,
		  unsigned int n, int stop, int below)
{
	char mine[8192];
	const struct psample *ps = perf_sample(ns);
	const char *theirs;
	size_t len = 0, tl;
	unsigned int i;

	c->samples++;
	if (!ps) {
		c->unmatched++;
		return;
	}
	theirs = ps->frames;
	for (i = 0; i < n && len < sizeof(mine); i++) {
		if (i)
			mine[len++] = ' ';
		/* a return address less one, as perf prints callers */
		len += frame_name(mine + len, sizeof(mine) - len, ips[i] -
				  (i && hows[i] != STACKID_HOW_SIGNAL ? 1 : 0));
	}
	if (len >= sizeof(mine))
		len = sizeof(mine) - 1;
	mine[len] = 0;
	tl = strlen(theirs);
	/* perf printed all it prints; stackid's walk goes on */
	if (ps->lines >= PERF_MAX_STACK && tl < len &&
	    !strncmp(mine, theirs, tl) && mine[tl] == ' ') {
		c->perf_short++;
		return;
	}
	/*
	 * stackid's walk ended where it needed a word below the sampled sp,
	 * which perf does not copy (its copy starts at sp), and agrees with
	 * perf's up to there: the module reads that word (an epilogue after
	 * `pop %rbp`, whose CFI still names bp's slot)
	 */
	if (stop == STACKID_STOP_FAULT && below && len < tl &&
	    !strncmp(theirs, mine, len) && theirs[len] == ' ') {
		c->below++;
		return;
	}
	c->comparable++;
	if (!strcmp(mine, theirs)) {
		c->agree++;
		return;
	}
	if (c->shown++ < 5)
		printf("# perfsame: at %llu ns, stackid (stop %d): %s\n"
		       "# perfsame:   perf: %s\n",
		       (unsigned long long)ns, stop, mine, theirs);
}

/*
 * Read PID's mappings and, with @c, walk and judge its samples (the
 * mappings only with @c NULL).
 */
static int samples(const unsigned char *buf, size_t len, unsigned int pid,
		   struct counts *c)
{
	const struct {
		char magic[8];
		u64 size, attr_size;
		struct { u64 offset, size; } attrs, data;
	} *h = (const void *)buf;
	struct perf_event_attr a;
	u64 st, regs_mask, off, end;
	int bp_i, sp_i, ip_i;

	if (len < sizeof(*h) || memcmp(h->magic, "PERFILE2", 8) ||
	    h->attrs.offset > len || h->attrs.size > len - h->attrs.offset ||
	    h->attrs.size < h->attr_size || h->attr_size < 104 ||
	    h->data.offset > len || h->data.size > len - h->data.offset)
		return -1;
	/* attr_size: an attr and its ids section (16 bytes) */
	memset(&a, 0, sizeof(a));
	memcpy(&a, buf + h->attrs.offset, h->attr_size - 16 < sizeof(a) ?
	       h->attr_size - 16 : sizeof(a));
	st = a.sample_type;
	regs_mask = a.sample_regs_user;
	/* one event (perf's default): its attr holds for every sample */
	if (h->attrs.size != h->attr_size ||
	    !(st & PERF_SAMPLE_REGS_USER) || !(st & PERF_SAMPLE_STACK_USER) ||
	    st & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK) ||
	    !(st & PERF_SAMPLE_TID) || !(st & PERF_SAMPLE_TIME) ||
	    (regs_mask & 0x1c0) != 0x1c0)
		return -1;
	/* bp, sp, ip: bits 6, 7, 8 (arch/x86 perf_regs.h) */
	bp_i = __builtin_popcountll(regs_mask & 0x3f);
	sp_i = bp_i + 1;
	ip_i = bp_i + 2;
	off = h->data.offset;
	end = h->data.offset + h->data.size;
	while (off + sizeof(struct perf_event_header) <= end) {
		const struct perf_event_header *e = (const void *)(buf + off);
		const u64 *p = (const void *)(e + 1);
		const u64 *q = (const void *)(buf + off + e->size);
		struct stackid_uw_regs r = { 0 };
		struct stack s = { 0 };
		u64 ips[MAX_FRAMES + 1], ns = 0;
		u8 hows[MAX_FRAMES + 1];
		unsigned int n;
		int stop;

		if (e->size < sizeof(*e) || e->size > end - off)
			return -1;
		off += e->size;
		if (e->type == PERF_RECORD_MMAP2 && e->size >= 8 + 72) {
			const unsigned char *b = (const void *)(e + 1);
			u32 mpid, prot;
			u64 v[3];

			memcpy(&mpid, b, 4);
			memcpy(v, b + 8, 24);
			memcpy(&prot, b + 56, 4);
			if (mpid != pid || nmaps == MAX_MAPS ||
			    !memchr(b + 64, 0, e->size - 8 - 64))
				continue;
			maps[nmaps] = (struct map){ v[0], v[1], v[2],
						    !!(prot & PROT_EXEC),
						    file_of((const char *)b + 64) };
			if (maps[nmaps].file >= 0)
				nmaps++;
			continue;
		}
		if (e->type != PERF_RECORD_SAMPLE || !c)
			continue;
		/* the fields in their order (include/uapi/linux/perf_event.h) */
#define NEED(k) do { if (q - p < (long)(k)) return -1; } while (0)
		if (st & PERF_SAMPLE_IDENTIFIER)
			p++;
		if (st & PERF_SAMPLE_IP)
			p++;
		NEED(2);
		if ((u32)*p++ != pid)
			continue;
		ns = *p++;
		if (st & PERF_SAMPLE_ADDR)
			p++;
		if (st & PERF_SAMPLE_ID)
			p++;
		if (st & PERF_SAMPLE_STREAM_ID)
			p++;
		if (st & PERF_SAMPLE_CPU)
			p++;
		if (st & PERF_SAMPLE_PERIOD)
			p++;
		if (st & PERF_SAMPLE_CALLCHAIN) {
			NEED(1);
			if (*p > (u64)(q - p))
				return -1;
			p += 1 + *p;
		}
		if (st & PERF_SAMPLE_RAW) {
			u32 rs;

			NEED(1);
			memcpy(&rs, p, 4);
			if ((rs + 4 + 7) / 8 > (u64)(q - p))
				return -1;
			p = (const u64 *)((const char *)p + ((rs + 4 + 7) & ~7U));
		}
		NEED(1);
		if (!*p++) {		/* no user registers: in a kthread */
			c->samples++;
			c->unmatched++;
			continue;
		}
		NEED(__builtin_popcountll(regs_mask) + 1);
		r.bp = p[bp_i];
		r.sp = p[sp_i];
		r.ip = p[ip_i];
		p += __builtin_popcountll(regs_mask);
		s.size = *p++;
		NEED(s.size / 8);
		s.data = (const void *)p;
		p += s.size / 8;
		if (s.size) {
			NEED(1);
			if (*p < s.size)
				s.size = *p;	/* dyn_size: what was copied */
		}
		s.sp = r.sp;
#undef NEED
		n = walk(r, &s, ips, hows, &stop);
		if (stop >= 0 && stop < STACKID_STOP_NR)
			c->stops[stop]++;
		judge(c, ns, ips, hows, n, stop, s.below);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct counts c = { 0 };
	unsigned int pid, minpct, i, tables = 0;
	struct stat sb;
	void *buf;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: perfsame PERFDATA PERFTXT PID MINPCT\n");
		return 2;
	}
	pid = strtoul(argv[3], NULL, 0);
	minpct = strtoul(argv[4], NULL, 0);
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) || !sb.st_size) {
		perror(argv[1]);
		return 2;
	}
	buf = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	/*
	 * perf's text needs the mappings, the samples need perf's text:
	 * the records once for the mappings alone, then the text, then the
	 * records again for the samples (the mappings anew as they come)
	 */
	if (samples(buf, sb.st_size, pid, NULL)) {
		fprintf(stderr, "perfsame: %s: not a perf.data file of "
			"--call-graph dwarf samples this reads\n", argv[1]);
		return 2;
	}
	if (read_text(argv[2], pid)) {
		perror(argv[2]);
		return 2;
	}
	nmaps = 0;
	samples(buf, sb.st_size, pid, &c);
	for (i = 0; i < nfiles; i++)
		tables += files[i].ok;
	printf("# perfsame: pid %u: %lu samples in perf.data (%lu not in perf's text), perf's text %u; %u files mapped, %u with a table; stops: end %lu, fault %lu, bad_fp %lu, no_row %lu, bad_cfa %lu, depth %lu; %lu where perf printed its most frames (127) and stackid's walk went on, %lu where stackid's ended needing a word below the sampled sp (not in perf's copy), %lu comparable, %lu equal frame by frame\n",
	       pid, c.samples, c.unmatched, npsamples, nfiles, tables,
	       c.stops[STACKID_STOP_END], c.stops[STACKID_STOP_FAULT],
	       c.stops[STACKID_STOP_BAD_FP], c.stops[STACKID_STOP_NO_ROW],
	       c.stops[STACKID_STOP_BAD_CFA], c.stops[STACKID_STOP_DEPTH],
	       c.perf_short, c.below, c.comparable, c.agree);
	printf("%sok - the same samples as perf --call-graph dwarf, stackid's unwinder on perf's stack copies: %lu of %lu comparable samples equal frame by frame (>= %u%%) (%lu%%)\n",
	       c.comparable >= 20 && c.agree * 100 >= minpct * c.comparable ?
	       "" : "not ", c.agree, c.comparable, minpct,
	       c.comparable ? c.agree * 100 / c.comparable : 0);
	return 0;
}
