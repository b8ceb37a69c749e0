// SPDX-License-Identifier: GPL-2.0
/*
 * Capture files: the header (see capture.h for the format) and a reader
 * that validates every record and names the byte offset of the first
 * bad one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "record.h"
#include "tool.h"
#include "capture.h"
#include "util.h"

#define CAPTURE_BUF	(1 << 20)

_Static_assert(CAPTURE_BUF >= STACKID_RECORD_MAX, "window holds a record");

void capture_hdr_init(struct capture_hdr *h, uint32_t abi_version,
		      uint64_t start_ns)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, CAPTURE_MAGIC, sizeof(h->magic));
	h->version = CAPTURE_VERSION;
	h->abi_version = abi_version;
	h->start_ns = start_ns;
	h->hdr_size = sizeof(*h);
}

#define fail capture_fail

int capture_fail(struct capture *c, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	c->status = status;
	return status;
}

/* File mode: get more bytes into the window; sets c->eof at the end. */
static int refill(struct capture *c)
{
	ssize_t r;

	if (c->start) {
		memmove(c->buf, c->buf + c->start, c->end - c->start);
		c->end -= c->start;
		c->start = 0;
	}
	while (!c->eof && c->end < c->bufcap) {
		r = read(c->fd, c->buf + c->end, c->bufcap - c->end);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(c, EXIT_SYSTEM, "read at byte %" PRIu64
				    ": %s", c->pos + (c->end - c->start),
				    strerror(errno));
		if (r == 0)
			c->eof = true;
		c->end += r;
	}
	return 0;
}

/* The bytes available from the current position. */
static size_t avail(struct capture *c, const unsigned char **p)
{
	*p = c->buf + c->start;
	return c->end - c->start;
}

static int check_header(struct capture *c)
{
	const unsigned char *p;
	struct capture_hdr *h = &c->hdr;
	size_t n;
	int ret;

	if (c->fd >= 0) {
		ret = refill(c);
		if (ret)
			return ret;
	}
	n = avail(c, &p);
	if (n == 0)
		return fail(c, EXIT_DATA, "empty file, not a capture");
	if (n < sizeof(*h) && memcmp(p, CAPTURE_MAGIC,
				     n < 8 ? n : 8))
		return fail(c, EXIT_DATA, "not a stackid capture "
			    "(bad magic at byte 0)");
	if (n < sizeof(*h))
		return fail(c, EXIT_DATA, "truncated header at byte %zu: "
			    "%zu of %zu bytes", n, n, sizeof(*h));
	memcpy(h, p, sizeof(*h));
	if (memcmp(h->magic, CAPTURE_MAGIC, sizeof(h->magic)))
		return fail(c, EXIT_DATA, "not a stackid capture "
			    "(bad magic at byte 0)");
	if (h->version != CAPTURE_VERSION)
		return fail(c, EXIT_DATA, "bad header at byte 8: format "
			    "version %u, this stackid reads %u",
			    h->version, CAPTURE_VERSION);
	/* ABI 1's captures stay readable (abi1.h) */
	if (h->abi_version >> 16 != STACKID_ABI_MAJOR &&
	    h->abi_version >> 16 != STACKID1_ABI_MAJOR)
		return fail(c, EXIT_DATA, "bad header at byte 12: module "
			    "ABI %u.%u, this stackid reads ABI %u.x and %u.x",
			    h->abi_version >> 16, h->abi_version & 0xffff,
			    STACKID1_ABI_MAJOR, STACKID_ABI_MAJOR);
	if (h->hdr_size != sizeof(*h))
		return fail(c, EXIT_DATA, "bad header at byte 24: header "
			    "size %u, want %zu", h->hdr_size, sizeof(*h));
	if (h->reserved)
		return fail(c, EXIT_DATA, "bad header at byte 28: "
			    "reserved field is %#x, want 0", h->reserved);
	c->start += sizeof(*h);
	c->pos = sizeof(*h);
	return 0;
}

static void init(struct capture *c, const char *name)
{
	memset(c, 0, offsetof(struct capture, err));
	c->err[0] = 0;
	c->name = name;
	c->fd = -1;
}

int capture_open_mem(struct capture *c, const void *p, size_t len,
		     const char *name)
{
	init(c, name);
	c->mem = p;
	c->memlen = len;
	c->buf = (unsigned char *)p;
	c->end = len;
	c->eof = true;
	return check_header(c);
}

/* Read all of @fd (a pipe or the like) into memory. */
static int slurp(struct capture *c, int fd)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = xmalloc(cap);
	ssize_t r;

	for (;;) {
		if (n == cap)
			b = xrealloc(b, cap *= 2);
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			return fail(c, EXIT_SYSTEM, "read at byte %zu: %s", n,
				    strerror(errno));
		}
		if (!r)
			break;
		n += r;
	}
	c->own = b;
	c->mem = b;
	c->memlen = n;
	c->buf = b;
	c->end = n;
	c->eof = true;
	return 0;
}

int capture_open(struct capture *c, const char *path)
{
	struct stat st;
	int fd, ret;

	init(c, path);
	if (!strcmp(path, "-")) {
		fd = STDIN_FILENO;
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(c, EXIT_SYSTEM, "%s", strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		ret = fail(c, EXIT_SYSTEM, "%s", strerror(errno));
	} else if (S_ISREG(st.st_mode) && fd != STDIN_FILENO) {
		c->fd = fd;
		c->bufcap = CAPTURE_BUF;
		c->buf = c->own = xmalloc(CAPTURE_BUF);
		return check_header(c);
	} else {
		ret = slurp(c, fd);
	}
	if (fd != STDIN_FILENO)
		close(fd);
	return ret ? ret : check_header(c);
}

int capture_rewind(struct capture *c)
{
	c->status = 0;
	c->err[0] = 0;
	if (c->fd < 0) {
		c->start = sizeof(c->hdr);
		c->pos = sizeof(c->hdr);
		return 0;
	}
	if (lseek(c->fd, sizeof(c->hdr), SEEK_SET) < 0)
		return -fail(c, EXIT_SYSTEM, "seek: %s", strerror(errno));
	c->start = c->end = 0;
	c->eof = false;
	c->pos = sizeof(c->hdr);
	return 0;
}

int capture_next(struct capture *c, const void **rec, uint64_t *off)
{
	struct stackid_record_hdr h;
	const unsigned char *p;
	const char *why = NULL;
	long r;
	size_t n;
	int ret;

	if (c->status)
		return -c->status;
	for (;;) {
		n = avail(c, &p);
		r = stackid_record_check_abi(p, n, c->hdr.abi_version >> 16,
					     &why);
		if (r > 0)
			break;
		if (r < 0)
			return -fail(c, EXIT_DATA, "corrupt record at byte %"
				     PRIu64 ": %s", c->pos, why);
		if (!c->eof) {
			ret = refill(c);
			if (ret)
				return -ret;
			continue;
		}
		if (!n)
			return 0;
		if (n < sizeof(h))
			return -fail(c, EXIT_DATA, "truncated record at byte %"
				     PRIu64 ": %zu bytes, less than a record "
				     "header", c->pos, n);
		memcpy(&h, p, sizeof(h));
		return -fail(c, EXIT_DATA, "truncated record at byte %" PRIu64
			     ": a record of %u bytes, %zu in the file",
			     c->pos, h.size, n);
	}
	memcpy(&h, p, sizeof(h));
	if (h.abi_major != c->hdr.abi_version >> 16)
		return -fail(c, EXIT_DATA, "corrupt record at byte %" PRIu64
			     ": record ABI major %u, capture %u", c->pos,
			     h.abi_major, c->hdr.abi_version >> 16);
	if ((uintptr_t)p % 8) {
		memcpy(c->rec, p, r);
		p = (const unsigned char *)c->rec;
	}
	*rec = p;
	*off = c->pos;
	c->start += r;
	c->pos += r;
	return 1;
}

void capture_close(struct capture *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->own);
	c->own = NULL;
	c->buf = NULL;
}
