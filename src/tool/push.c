// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid push` (see push.h): each capture is reported as pprof here,
 * symbolized by build-id on this host, and POSTed to
 *
 *	URL/ingest?name=NAME{k=v,...}&from=S&until=S&format=pprof
 *		&sampleRate=HZ&spyName=stackid
 *
 * with Content-Type application/octet-stream (Pyroscope's raw pprof
 * ingestion), from and until the capture's wall-clock start and end.
 *
 * A 2xx answer is success. A 5xx or 429 answer, a refused connection or
 * a timeout is the server being down: the request is tried again after
 * BACKOFF, 2 x BACKOFF, ... (at most 30 s), RETRIES more times, then
 * kept in the spool. Any other answer (a 4xx: the server will never take
 * it) is counted as rejected and dropped, never retried.
 *
 * The spool is a directory of files NNNNNNNNNNNN.push (a sequence number,
 * so name order is age order), each "STACKIDPUSH1\n", the query, "\n"
 * and the body. Before each new capture, and by pusher_flush(), the
 * spool is sent oldest first until the server fails again, so profiles
 * arrive in order. It never grows beyond spool_max bytes: the oldest
 * entries are dropped, and counted, to make room.
 */
#define _GNU_SOURCE
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
#include "tool.h"
#include "util.h"

#define SPOOL_MAGIC	"STACKIDPUSH1\n"
#define BACKOFF_MAX_MS	30000

enum answer { SENT, DOWN, REJECTED };

struct pusher {
	struct push_opts o;
	FILE *err;
	CURL *curl;
	struct curl_slist *headers;
	struct push_stats st;
	uint64_t next_seq;
	char errbuf[CURL_ERROR_SIZE];
	struct strbuf reply;	/* the start of the server's answer */
};

static size_t on_reply(char *p, size_t size, size_t n, void *arg)
{
	struct strbuf *sb = arg;

	if (sb->len < 200)
		sb_add(sb, p, size * n < 200 ? size * n : 200);
	return size * n;
}

/* One POST. */
static enum answer post(struct pusher *p, const char *query, const void *body,
			size_t len)
{
	struct strbuf url = { 0 };
	size_t ul = strlen(p->o.url);
	long code = 0;
	CURLcode rc;

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
	if (rc != CURLE_OK) {
		fprintf(p->err, "stackid: push: %s\n",
			p->errbuf[0] ? p->errbuf : curl_easy_strerror(rc));
		return DOWN;
	}
	curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code >= 200 && code < 300)
		return SENT;
	fprintf(p->err, "stackid: push: the server answered %ld: %.*s\n", code,
		(int)strcspn(p->reply.buf ? p->reply.buf : "", "\r\n"),
		p->reply.buf ? p->reply.buf : "");
	return code >= 500 || code == 429 ? DOWN : REJECTED;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static enum answer post_retrying(struct pusher *p, const char *query,
				 const void *body, size_t len)
{
	uint64_t wait = p->o.backoff_ms;
	enum answer a = post(p, query, body, len);
	unsigned int i;

	for (i = 0; a == DOWN && i < p->o.retries; i++) {
		sleep_ms(wait);
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

/* The spool's entries, oldest first; their total size in *@bytes. */
static char **spool_list(struct pusher *p, unsigned int *n, uint64_t *bytes)
{
	char **names = NULL, path[4096];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(p->o.spool);
	size_t len;

	*n = 0;
	*bytes = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".push"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", p->o.spool, e->d_name);
		if (stat(path, &st) == 0)
			*bytes += st.st_size;
		names = xreallocarray(names, *n + 1, sizeof(char *));
		names[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, *n, sizeof(char *), by_name);
	return names;
}

static void free_list(char **names, unsigned int n)
{
	while (n)
		free(names[--n]);
	free(names);
}

static void spool_unlink(struct pusher *p, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", p->o.spool, name);
	unlink(path);
}

/* Keep a request the server could not take. 0, or -1 if dropped. */
static int spool_add(struct pusher *p, const char *query, const void *body,
		     size_t len)
{
	size_t need = strlen(SPOOL_MAGIC) + strlen(query) + 1 + len;
	char path[4096], tmp[4200];
	unsigned int n, i = 0;
	uint64_t bytes;
	char **names;
	FILE *f;

	if (!p->o.spool || need > p->o.spool_max) {
		p->st.dropped++;
		fprintf(p->err, "stackid: push: %s; profile dropped\n",
			p->o.spool ? "larger than the spool" : "no spool");
		return -1;
	}
	names = spool_list(p, &n, &bytes);
	while (i < n && bytes + need > p->o.spool_max) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", p->o.spool, names[i]);
		if (stat(path, &st) == 0)
			bytes -= st.st_size;
		unlink(path);
		p->st.dropped++;
		fprintf(p->err, "stackid: push: spool full: dropped the "
			"oldest profile, %s\n", names[i]);
		i++;
	}
	free_list(names, n);
	snprintf(path, sizeof(path), "%s/%012" PRIu64 ".push", p->o.spool,
		 p->next_seq++);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(SPOOL_MAGIC, f) < 0 || fprintf(f, "%s\n", query) < 0 ||
	    fwrite(body, 1, len, f) != len || fflush(f) ||
	    fdatasync(fileno(f)) < 0 || fclose(f) || rename(tmp, path) < 0) {
		fprintf(p->err, "stackid: push: spooling to %s: %s\n", path,
			strerror(errno));
		p->st.dropped++;
		return -1;
	}
	p->st.spooled++;
	return 0;
}

/* Send the spool, oldest first. true if it is empty now. */
static bool flush(struct pusher *p)
{
	unsigned int n, i;
	uint64_t bytes;
	char **names, path[4096];
	bool empty = true;

	if (!p->o.spool)
		return true;
	names = spool_list(p, &n, &bytes);
	for (i = 0; i < n; i++) {
		char *buf, *nl;
		size_t len, ml = strlen(SPOOL_MAGIC);
		enum answer a;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", p->o.spool, names[i]);
		f = fopen(path, "r");
		buf = NULL;
		len = 0;
		if (f) {
			struct stat st;

			if (fstat(fileno(f), &st) == 0) {
				buf = xmalloc(st.st_size + 1);
				len = fread(buf, 1, st.st_size, f);
				buf[len] = 0;
			}
			fclose(f);
		}
		nl = buf && len > ml && !memcmp(buf, SPOOL_MAGIC, ml) ?
		     memchr(buf + ml, '\n', len - ml) : NULL;
		if (!nl) {
			fprintf(p->err, "stackid: push: %s is not a spooled "
				"profile; dropped\n", path);
			spool_unlink(p, names[i]);
			p->st.dropped++;
			free(buf);
			continue;
		}
		*nl = 0;
		a = post(p, buf + ml, nl + 1, len - (nl + 1 - buf));
		free(buf);
		if (a == DOWN) {
			empty = false;
			break;
		}
		spool_unlink(p, names[i]);
		if (a == SENT) {
			p->st.from_spool++;
		} else {
			p->st.rejected++;
		}
	}
	free_list(names, n);
	return empty;
}

void pusher_flush(struct pusher *p)
{
	flush(p);
}

/* name=NAME{k=v,...}&from=..&until=..&format=pprof&sampleRate=..&... */
static char *query(struct pusher *p, const struct report_info *in)
{
	struct strbuf name = { 0 }, q = { 0 };
	uint64_t from, until;
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
	if (in->wall_start_ns) {
		from = in->wall_start_ns / 1000000000;
		until = (in->wall_end_ns + 999999999) / 1000000000;
	} else {
		/* a capture without INFO: now is the best we know */
		until = time(NULL);
		from = until - 1;
	}
	if (until <= from)
		until = from + 1;
	sb_addf(&q, "name=%s&from=%" PRIu64 "&until=%" PRIu64
		"&format=pprof&sampleRate=%" PRIu32 "&spyName=stackid",
		esc ? esc : "stackid", from, until,
		in->freq_hz ? in->freq_hz : 99);
	curl_free(esc);
	sb_free(&name);
	return sb_detach(&q);
}

int pusher_capture(struct pusher *p, const char *path)
{
	struct report_info info = { 0 };
	struct report_opts ro = p->o.ro;
	struct capture *c = xmalloc(sizeof(*c));
	char *body = NULL, *q = NULL;
	size_t len = 0;
	enum answer a;
	FILE *out;
	int ret;

	ro.format = FORMAT_PPROF;
	ro.info = &info;
	ret = capture_open(c, path);
	if (ret) {
		fprintf(p->err, "stackid: %s: %s\n", path, c->err);
	} else {
		out = open_memstream(&body, &len);
		ret = report_run(c, &ro, out, p->err);
		fclose(out);
	}
	capture_close(c);
	free(c);
	if (ret) {
		free(body);
		p->st.failed++;
		return ret;
	}
	q = query(p, &info);
	/* the spool first, to keep the order; while it stays, so does this */
	if (!flush(p))
		a = DOWN;
	else
		a = post_retrying(p, q, body, len);
	if (a == SENT) {
		p->st.sent++;
	} else if (a == REJECTED) {
		p->st.rejected++;
		ret = EXIT_SYSTEM;
	} else if (spool_add(p, q, body, len)) {
		ret = EXIT_SYSTEM;
	}
	free(q);
	free(body);
	return ret;
}

struct pusher *pusher_new(const struct push_opts *o, FILE *err)
{
	struct pusher *p = xcalloc(1, sizeof(*p));
	unsigned int n, i;
	uint64_t bytes;
	char **names;

	p->o = *o;
	p->err = err;
	if (o->spool && mkdir(o->spool, 0750) < 0 && errno != EEXIST) {
		fprintf(err, "stackid: push: spool %s: %s\n", o->spool,
			strerror(errno));
		free(p);
		return NULL;
	}
	if (o->spool) {
		names = spool_list(p, &n, &bytes);
		for (i = 0; i < n; i++) {
			uint64_t s = strtoull(names[i], NULL, 10);

			if (s >= p->next_seq)
				p->next_seq = s + 1;
		}
		free_list(names, n);
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) ||
	    !(p->curl = curl_easy_init())) {
		fprintf(err, "stackid: push: libcurl failed to start\n");
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
	curl_easy_setopt(p->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	return p;
}

const struct push_stats *pusher_stats(const struct pusher *p)
{
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
	free(p);
}
