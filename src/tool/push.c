// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid push` (see push.h): each capture is reported as pprof here,
 * symbolized by build-id on this host (pprof.c, report_opts.push: every
 * frame named, the comm as the outermost frame, sample labels only where
 * asked), one profile per STEP seconds of it, each POSTed to
 *
 *	URL/ingest?name=NAME{k=v,...}&from=S&until=S&format=pprof
 *		&sampleRate=HZ&spyName=stackid
 *
 * with Content-Type application/octet-stream (Pyroscope's raw pprof
 * ingestion), from and until the step's wall-clock start and end, so the
 * server stores a point in each step that has samples.
 *
 * A 2xx answer is success. A refused connection or a timeout (the server
 * is not there) and a 5xx or 429 answer (it cannot take it now) are tried
 * again after BACKOFF, 2 x BACKOFF, ... (at most 30 s), RETRIES more
 * times, then kept in the spool; the capture's later steps go straight
 * to the spool. Any other answer (a 4xx: the server will never take it)
 * is counted as rejected and dropped, never retried.
 *
 * The spool is a directory of files NNNNNNNNNNNN.push (a sequence number,
 * so name order is age order), each "STACKIDPUSH1\n", the query, "\n"
 * and the body, owned by us and private (0700, files 0600, created
 * O_EXCL | O_NOFOLLOW through the directory's descriptor). After each
 * new capture, and by pusher_flush(), the spool is sent oldest first,
 * each item on its own (push.h), so that nothing waits behind an item
 * the server refuses. It never grows beyond spool_max bytes: the oldest
 * entries are dropped, and counted, to make room.
 *
 * SIGINT and SIGTERM (opts.stop) end a wait, a transfer and the reading
 * of a capture within about a second; what was not sent is spooled. A
 * capture is read whole before any of its parts is handed out, so one
 * cut short was neither sent nor spooled (PUSH_STOPPED).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "push.h"
#include "symbolize.h"
#include "tool.h"
#include "util.h"

#define SPOOL_MAGIC	"STACKIDPUSH1\n"
#define SPOOL_SUFFIX	".push"
#define BACKOFF_MAX_MS	30000
#define REPLY_MAX	200

/*
 * SENT 2xx; DOWN no answer (refused, timeout); BUSY 429 or 5xx;
 * REJECTED any other answer; STOPPED by a signal.
 */
enum answer { SENT, DOWN, BUSY, REJECTED, STOPPED };

struct pusher {
	struct push_opts o;
	FILE *err;
	CURL *curl;
	struct curl_slist *headers;
	struct push_stats st;
	uint64_t next_seq;
	int spool_fd;		/* the spool directory; -1: none */
	char errbuf[CURL_ERROR_SIZE];
	struct strbuf reply;	/* the start of the server's answer */
	struct symbolizer *sym;	/* kept across captures; NULL: none yet */
	uint64_t sym_born;	/* when it was made (now_ns()) */
	uint64_t sym_loads;	/* build-ids read by the ones freed */
	uint64_t sym_bids_max;	/* a new one past this many build-ids */
};

static bool stopped(const struct pusher *p)
{
	return p->o.stop && *p->o.stop;
}

static size_t on_reply(char *s, size_t size, size_t n, void *arg)
{
	struct strbuf *sb = arg;

	if (sb->len < REPLY_MAX)
		sb_add(sb, s, size * n < REPLY_MAX ? size * n : REPLY_MAX);
	return size * n;
}

/* libcurl calls this at least once a second: a signal ends the transfer */
static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut,
		       curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	return stopped(arg);
}

/*
 * The length of the valid UTF-8 character at @s (@n bytes), or 0; its
 * code point in *@cp.
 */
static size_t utf8_char(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c;

	*cp = s[0];
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	*cp = c;
	return len;
}

/* C0, DEL, C1 */
static bool is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

void push_clean_reply(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;
	uint32_t c;

	while (i < n) {
		len = utf8_char(u + i, n - i, &c);
		if (!len || is_control(c)) {
			sb_addc(sb, '?');
			i += len ? len : 1;
			continue;
		}
		sb_add(sb, s + i, len);
		i += len;
	}
}

static bool key_ok(const char *k, size_t n)
{
	size_t i;

	if (!n || !(isalpha((unsigned char)k[0]) || k[0] == '_'))
		return false;
	for (i = 1; i < n; i++)
		if (!(isalnum((unsigned char)k[i]) || k[i] == '_'))
			return false;
	return true;
}

const char *push_check_name(const char *name)
{
	size_t i;

	if (!*name)
		return "an empty name";
	for (i = 0; name[i]; i++)
		if (!(isalnum((unsigned char)name[i]) || name[i] == '_' ||
		      name[i] == '.' || name[i] == '-'))
			return "a name is made of A-Z a-z 0-9 _ . - only";
	return NULL;
}

const char *push_check_label(const char *kv, unsigned int series)
{
	static const struct { const char *name; unsigned int bit; } own[] = {
		{ "pid", PPROF_L_PID }, { "tid", PPROF_L_TID },
		{ "cpu", PPROF_L_CPU }, { "comm", PPROF_L_COMM },
		{ "cgroup", PPROF_L_CGROUP },
	};
	const char *eq = strchr(kv, '='), *v;
	size_t kn, i, len;
	uint32_t c;

	if (!eq)
		return "a label is K=V";
	kn = eq - kv;
	if (!key_ok(kv, kn))
		return "a label's name is [A-Za-z_][A-Za-z0-9_]*";
	if (kn >= 2 && !strncmp(kv, "__", 2))
		return "names that start with __ are the server's";
	if ((kn == 12 && !strncmp(kv, "service_name", kn)) ||
	    (kn == 8 && !strncmp(kv, "app_name", kn)))
		return "the service's name is --name";
	if (kn == 13 && !strncmp(kv, "pyroscope_spy", kn))
		return "pyroscope_spy is the server's";
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if ((series & own[i].bit) && strlen(own[i].name) == kn &&
		    !strncmp(kv, own[i].name, kn))
			return "that name is a --series-labels label";
	v = eq + 1;
	if (!*v)
		return "a label's value is not empty";
	for (i = 0; v[i]; i += len) {
		len = utf8_char((const unsigned char *)v + i, strlen(v + i),
				&c);
		if (!len || is_control(c))
			return "a label's value is UTF-8 without control "
			       "characters";
		if (len == 1 && strchr(",{}=\"\\", v[i]))
			return "a label's value has none of , { } = \" \\";
	}
	return NULL;
}

/* One POST. */
static enum answer post(struct pusher *p, const char *query, const void *body,
			size_t len)
{
	struct strbuf url = { 0 }, clean = { 0 };
	size_t ul = strlen(p->o.url);
	long code = 0;
	CURLcode rc;

	if (stopped(p))
		return STOPPED;
	while (ul && p->o.url[ul - 1] == '/')
		ul--;
	sb_add(&url, p->o.url, ul);
	sb_addf(&url, "/ingest?%s", query);
	sb_reset(&p->reply);
	p->errbuf[0] = 0;
	curl_easy_setopt(p->curl, CURLOPT_URL, url.buf);
	curl_easy_setopt(p->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	rc = curl_easy_perform(p->curl);
	sb_free(&url);
	if (rc == CURLE_ABORTED_BY_CALLBACK || (rc != CURLE_OK && stopped(p)))
		return STOPPED;
	if (rc != CURLE_OK) {
		fprintf(p->err, "stackid: push: %s\n",
			p->errbuf[0] ? p->errbuf : curl_easy_strerror(rc));
		return DOWN;
	}
	curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code >= 200 && code < 300)
		return SENT;
	push_clean_reply(&clean, p->reply.buf ? p->reply.buf : "",
			 p->reply.len);
	fprintf(p->err, "stackid: push: the server answered %ld: %s\n", code,
		clean.buf ? clean.buf : "");
	sb_free(&clean);
	return code >= 500 || code == 429 ? BUSY : REJECTED;
}

/* Wait @ms, less if a signal came. */
static void sleep_ms(struct pusher *p, uint64_t ms)
{
	struct timespec ts;
	uint64_t step;

	while (ms && !stopped(p)) {
		step = ms < 50 ? ms : 50;
		ts.tv_sec = 0;
		ts.tv_nsec = step * 1000000;
		nanosleep(&ts, NULL);
		ms -= step;
	}
}

static enum answer post_retrying(struct pusher *p, const char *query,
				 const void *body, size_t len)
{
	uint64_t wait = p->o.backoff_ms;
	enum answer a = post(p, query, body, len);
	unsigned int i;

	for (i = 0; (a == DOWN || a == BUSY) && i < p->o.retries; i++) {
		sleep_ms(p, wait);
		if (stopped(p))
			return STOPPED;
		wait = wait * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : wait * 2;
		p->st.retries++;
		a = post(p, query, body, len);
	}
	return a;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

/* The spool's entries, oldest first; their total size in *@bytes. */
static char **spool_list(struct pusher *p, unsigned int *n, uint64_t *bytes)
{
	char **names = NULL;
	struct dirent *e;
	struct stat st;
	int fd;
	DIR *d;

	*n = 0;
	*bytes = 0;
	if (p->spool_fd < 0)
		return NULL;
	fd = dup(p->spool_fd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	rewinddir(d);
	while ((e = readdir(d))) {
		if (!has_suffix(e->d_name, SPOOL_SUFFIX))
			continue;
		if (fstatat(p->spool_fd, e->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			*bytes += st.st_size;
		names = xreallocarray(names, *n + 1, sizeof(char *));
		names[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(char *), by_name);
	return names;
}

static void free_list(char **names, unsigned int n)
{
	while (n)
		free(names[--n]);
	free(names);
}

/* Keep a request the server could not take. 0, or -1 if dropped. */
static int spool_add(struct pusher *p, const char *query, const void *body,
		     size_t len)
{
	size_t need = strlen(SPOOL_MAGIC) + strlen(query) + 1 + len;
	char name[64], tmp[80];
	unsigned int n, i = 0;
	uint64_t bytes;
	char **names;
	FILE *f = NULL;
	int fd, err;

	if (p->spool_fd < 0 || need > p->o.spool_max) {
		p->st.dropped++;
		fprintf(p->err, "stackid: push: %s; profile dropped\n",
			p->spool_fd >= 0 ? "larger than the spool" : "no spool");
		return -1;
	}
	names = spool_list(p, &n, &bytes);
	while (i < n && bytes + need > p->o.spool_max) {
		struct stat st;

		if (fstatat(p->spool_fd, names[i], &st,
			    AT_SYMLINK_NOFOLLOW) == 0 &&
		    unlinkat(p->spool_fd, names[i], 0) == 0) {
			bytes -= (uint64_t)st.st_size < bytes ?
				 (uint64_t)st.st_size : bytes;
			p->st.dropped++;
			fprintf(p->err, "stackid: push: spool full: dropped "
				"the oldest profile, %s\n", names[i]);
		}
		i++;
	}
	free_list(names, n);
	snprintf(name, sizeof(name), "%012" PRIu64 SPOOL_SUFFIX,
		 p->next_seq++);
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	fd = openat(p->spool_fd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && !(f = fdopen(fd, "w")))
		close(fd);
	if (!f || fputs(SPOOL_MAGIC, f) < 0 || fprintf(f, "%s\n", query) < 0 ||
	    fwrite(body, 1, len, f) != len || fflush(f) ||
	    fdatasync(fileno(f)) < 0 ||
	    (err = fclose(f), f = NULL, err) ||
	    renameat(p->spool_fd, tmp, p->spool_fd, name) < 0) {
		err = errno;
		if (f)
			fclose(f);
		if (fd >= 0)
			unlinkat(p->spool_fd, tmp, 0);
		fprintf(p->err, "stackid: push: spooling to %s/%s: %s\n",
			p->o.spool, name, strerror(err));
		p->st.dropped++;
		return -1;
	}
	fsync(p->spool_fd);
	p->st.spooled++;
	return 0;
}

/* An item's bytes (regular files only), or NULL. */
static char *spool_read(struct pusher *p, const char *name, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	ssize_t r;
	size_t got = 0;
	int fd = openat(p->spool_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size <= p->o.spool_max) {
		buf = xmalloc(st.st_size + 1);
		while (got < (size_t)st.st_size &&
		       (r = read(fd, buf + got, st.st_size - got)) > 0)
			got += r;
		buf[got] = 0;
	}
	close(fd);
	*len = got;
	return buf;
}

/* Send the spool, oldest first, each item on its own, but those of
 * sequence @below or later (spooled just now). */
static void flush(struct pusher *p, uint64_t below)
{
	size_t len, ml = strlen(SPOOL_MAGIC);
	unsigned int n, i;
	uint64_t bytes;
	char **names;

	names = spool_list(p, &n, &bytes);
	for (i = 0; i < n && !stopped(p); i++) {
		char *buf, *nl;
		enum answer a;

		if (strtoull(names[i], NULL, 10) >= below)
			continue;
		buf = spool_read(p, names[i], &len);

		nl = buf && len > ml && !memcmp(buf, SPOOL_MAGIC, ml) ?
		     memchr(buf + ml, '\n', len - ml) : NULL;
		if (!nl) {
			fprintf(p->err, "stackid: push: %s/%s is not a "
				"spooled profile; dropped\n", p->o.spool,
				names[i]);
			unlinkat(p->spool_fd, names[i], 0);
			p->st.dropped++;
			free(buf);
			continue;
		}
		*nl = 0;
		a = post(p, buf + ml, nl + 1, len - (nl + 1 - buf));
		free(buf);
		if (a == DOWN || a == STOPPED)
			break;		/* the others would fare no better */
		if (a == BUSY)
			continue;	/* it stays; the next may go */
		unlinkat(p->spool_fd, names[i], 0);
		if (a == SENT)
			p->st.from_spool++;
		else
			p->st.rejected++;
	}
	free_list(names, n);
}

/* name=NAME{k=v,...}&from=..&until=..&format=pprof&sampleRate=..&... */
static char *query(struct pusher *p, uint64_t from, uint64_t until,
		   uint32_t hz)
{
	struct strbuf name = { 0 }, q = { 0 };
	unsigned int i;
	char *esc;

	sb_adds(&name, p->o.name);
	if (p->o.nlabels) {
		sb_addc(&name, '{');
		for (i = 0; i < p->o.nlabels; i++) {
			if (i)
				sb_addc(&name, ',');
			sb_adds(&name, p->o.labels[i]);
		}
		sb_addc(&name, '}');
	}
	esc = curl_easy_escape(p->curl, name.buf, name.len);
	if (!from) {
		/* a capture without INFO: now is the best we know */
		until = time(NULL);
		from = until - 1;
	}
	if (until <= from)
		until = from + 1;
	sb_addf(&q, "name=%s&from=%" PRIu64 "&until=%" PRIu64
		"&format=pprof&sampleRate=%" PRIu32 "&spyName=stackid",
		esc ? esc : "stackid", from, until, hz ? hz : 99);
	curl_free(esc);
	sb_free(&name);
	return sb_detach(&q);
}

/* One capture's parts, as pprof.c hands them over. */
struct capture_push {
	struct pusher *p;
	const char *path;
	bool down;		/* a part could not go: spool the rest */
	bool unreachable;	/* no answer from the server at all */
	bool handed;		/* a part was sent or spooled */
	int ret;
};

static int push_part(void *arg, uint64_t from, uint64_t until, uint32_t hz,
		     const void *gz, size_t len)
{
	struct capture_push *cp = arg;
	struct pusher *p = cp->p;
	char *q = query(p, from, until, hz);
	enum answer a;

	cp->handed = true;

	if (cp->down) {
		/* an earlier step could not go: this one would not either */
		if (spool_add(p, q, gz, len))
			cp->ret = EXIT_SYSTEM;
		free(q);
		return 0;
	}
	a = post_retrying(p, q, gz, len);
	if (a == SENT) {
		p->st.sent++;
	} else if (a == REJECTED) {
		p->st.rejected++;
		cp->ret = EXIT_SYSTEM;
	} else {
		if (a == DOWN || a == STOPPED)
			cp->unreachable = true;
		cp->down = true;
		if (spool_add(p, q, gz, len))
			cp->ret = EXIT_SYSTEM;
	}
	free(q);
	return 0;
}

/*
 * The symbolizer for the next capture: the one kept from the last, so
 * that the files behind the build-ids that come back capture after
 * capture (a service's libraries) are read once, not once a capture.
 * Made anew when it is SYM_KEEP_NS old (a debuginfod server it found
 * down is asked again; the files of build-ids no longer seen are let
 * go, those deleted since included), or when it knows SYM_BIDS_MAX
 * build-ids (each found one keeps its file and its debug file open: an
 * eighth of the open files allowed at most), SYM_HITS_MAX addresses or
 * SYM_SPANS_MAX spans of symbol indexes (its memory: 64 MiB of them).
 * One capture's own build-ids are not bounded: they come on top.
 * pusher_flush() lets it go once it is SYM_KEEP_NS old, so that an idle
 * --follow holds no file (a library deleted by an upgrade keeps its
 * disk space while it is open).
 */
#define SYM_KEEP_NS	(600ULL * 1000000000)	/* or STACKID_SYMBOLS_KEEP */
#define SYM_BIDS_MAX	512
#define SYM_HITS_MAX	200000
#define SYM_SPANS_MAX	(2u << 20)

static uint64_t sym_keep(const struct pusher *p)
{
	return p->o.sym_keep_ns ? p->o.sym_keep_ns : SYM_KEEP_NS;
}

/* Let the kept symbolizer go, its counts kept. */
static void pusher_sym_drop(struct pusher *p)
{
	struct symbolizer_stats st;

	symbolizer_stats(p->sym, &st);
	p->sym_loads += st.loads;
	symbolizer_free(p->sym);
	p->sym = NULL;
}

static struct symbolizer *pusher_sym(struct pusher *p)
{
	struct symbolizer_opts so = {
		.debug_dir = p->o.ro.debug_dir,
		.debuginfod = p->o.ro.debuginfod,
		.lines = p->o.ro.lines,
		.no_demangle = p->o.ro.no_demangle,
		.err = p->err,
	};
	struct symbolizer_stats st;
	uint64_t now = now_ns();

	if (p->sym) {
		symbolizer_stats(p->sym, &st);
		if (now - p->sym_born < sym_keep(p) &&
		    st.bids <= p->sym_bids_max && st.hits <= SYM_HITS_MAX &&
		    st.spans <= SYM_SPANS_MAX)
			return p->sym;
		pusher_sym_drop(p);
	}
	p->sym = symbolizer_new(&so);
	p->sym_born = now;
	return p->sym;
}

void pusher_flush(struct pusher *p)
{
	flush(p, UINT64_MAX);
	if (p->sym && now_ns() - p->sym_born >= sym_keep(p))
		pusher_sym_drop(p);
}

int pusher_capture(struct pusher *p, const char *path)
{
	struct report_info info = { 0 };
	struct capture_push cp = { .p = p, .path = path };
	struct pprof_push pp = {
		.labels = p->o.series_labels,
		.step_s = p->o.step_s ? p->o.step_s : 1,
		.part = push_part,
		.arg = &cp,
	};
	struct report_opts ro = p->o.ro;
	struct capture *c = xmalloc(sizeof(*c));
	uint64_t seq = p->next_seq;
	FILE *out;
	int ret;

	ro.format = FORMAT_PPROF;
	ro.info = &info;
	ro.push = &pp;
	ro.stop = p->o.stop;
	if (ro.symbols)
		ro.sym = pusher_sym(p);
	ret = capture_open(c, path);
	if (ret) {
		fprintf(p->err, "stackid: %s: %s\n", path, c->err);
	} else {
		out = fopen("/dev/null", "w");
		ret = out ? report_run(c, &ro, out, p->err) : EXIT_SYSTEM;
		if (out)
			fclose(out);
	}
	capture_close(c);
	free(c);
	/* stopped before its parts went out: pushed again next time */
	if (ret && stopped(p) && !cp.handed)
		return PUSH_STOPPED;
	if (ret) {
		p->st.failed++;
		return ret;
	}
	/*
	 * The new capture went first; the spool now, unless the server
	 * did not answer: each item on its own, so one it cannot take now
	 * (429, 5xx) delays no other.
	 */
	if (!cp.unreachable)
		flush(p, seq);
	return cp.ret;
}

/* The spool directory: ours, not a link, nobody else may write it. */
static int spool_open(struct pusher *p, const char *dir)
{
	struct stat st;
	int fd;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		goto fail;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	if (fstat(fd, &st) < 0) {
		close(fd);
		goto fail;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		fprintf(p->err, "stackid: push: spool %s: owned by uid %u, "
			"mode %04o: it must be ours (uid %u) and writable by "
			"us alone\n", dir, (unsigned int)st.st_uid,
			(unsigned int)(st.st_mode & 07777),
			(unsigned int)geteuid());
		close(fd);
		return -1;
	}
	p->spool_fd = fd;
	return 0;
fail:
	fprintf(p->err, "stackid: push: spool %s: %s\n", dir, strerror(errno));
	return -1;
}

struct pusher *pusher_new(const struct push_opts *o, FILE *err)
{
	struct pusher *p = xcalloc(1, sizeof(*p));
	unsigned long lim;
	struct dirent *e;
	unsigned int n, i;
	uint64_t bytes;
	char **names;
	DIR *d;
	int fd;

	p->o = *o;
	p->err = err;
	p->spool_fd = -1;
	/*
	 * The kept symbolizer holds up to two files open per build-id it
	 * found: the soft limit on open files (1024 for a service) is
	 * raised to SYMBOLIZER_NOFILE where the hard one allows (here first,
	 * to know the bound before a symbolizer exists), and it is kept to
	 * an eighth of what that gives in build-ids.
	 */
	p->sym_bids_max = SYM_BIDS_MAX;
	lim = nofile_raise(SYMBOLIZER_NOFILE);
	if (lim && lim / 8 < p->sym_bids_max)
		p->sym_bids_max = lim / 8;
	if (o->spool && spool_open(p, o->spool) < 0) {
		free(p);
		return NULL;
	}
	if (p->spool_fd >= 0) {
		names = spool_list(p, &n, &bytes);
		for (i = 0; i < n; i++) {
			uint64_t s = strtoull(names[i], NULL, 10);

			if (s >= p->next_seq)
				p->next_seq = s + 1;
		}
		free_list(names, n);
		/* what a run that died left half-written */
		fd = dup(p->spool_fd);
		d = fd < 0 ? NULL : fdopendir(fd);
		if (!d && fd >= 0)
			close(fd);
		if (d)
			rewinddir(d);
		while (d && (e = readdir(d)))
			if (has_suffix(e->d_name, SPOOL_SUFFIX ".tmp") &&
			    unlinkat(p->spool_fd, e->d_name, 0) == 0)
				fprintf(err, "stackid: push: removed %s/%s, "
					"left half-written\n", o->spool,
					e->d_name);
		if (d)
			closedir(d);
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) ||
	    !(p->curl = curl_easy_init())) {
		fprintf(err, "stackid: push: libcurl failed to start\n");
		if (p->spool_fd >= 0)
			close(p->spool_fd);
		free(p);
		return NULL;
	}
	p->headers = curl_slist_append(NULL,
				       "Content-Type: application/octet-stream");
	p->headers = curl_slist_append(p->headers, "Expect:");
	curl_easy_setopt(p->curl, CURLOPT_HTTPHEADER, p->headers);
	curl_easy_setopt(p->curl, CURLOPT_USERAGENT, "stackid/" STACKID_VERSION);
	curl_easy_setopt(p->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(p->curl, CURLOPT_TIMEOUT_MS, (long)o->timeout_ms);
	curl_easy_setopt(p->curl, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(o->timeout_ms < 10000 ? o->timeout_ms : 10000));
	curl_easy_setopt(p->curl, CURLOPT_ERRORBUFFER, p->errbuf);
	curl_easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, on_reply);
	curl_easy_setopt(p->curl, CURLOPT_WRITEDATA, &p->reply);
	curl_easy_setopt(p->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(p->curl, CURLOPT_XFERINFODATA, p);
	curl_easy_setopt(p->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(p->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	if (o->userpwd) {
		curl_easy_setopt(p->curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(p->curl, CURLOPT_USERPWD, o->userpwd);
	}
	return p;
}

const struct push_stats *pusher_stats(struct pusher *p)
{
	uint64_t bytes;
	unsigned int n;
	char **names = spool_list(p, &n, &bytes);
	struct symbolizer_stats st = { 0 };

	free_list(names, n);
	p->st.left = n;
	if (p->sym)
		symbolizer_stats(p->sym, &st);
	p->st.symbol_reads = p->sym_loads + st.loads;
	return &p->st;
}

void pusher_free(struct pusher *p)
{
	if (!p)
		return;
	curl_slist_free_all(p->headers);
	curl_easy_cleanup(p->curl);
	curl_global_cleanup();
	sb_free(&p->reply);
	symbolizer_free(p->sym);
	if (p->spool_fd >= 0)
		close(p->spool_fd);
	free(p);
}
