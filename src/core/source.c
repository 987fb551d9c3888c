/* SPDX-License-Identifier: MIT */
/*
 * File-backed struct qa_source (pread on an O_RDONLY descriptor; inputs are
 * never opened writable) and the buffered bounded reader.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/source.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
qa_source_open(struct qa_source *src, const char *path)
{
	struct stat st;

	memset(src, 0, sizeof(*src));
	src->path = path;
	src->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (src->fd < 0) {
		src->err = errno;
		return QA_E_IO;
	}
	if (fstat(src->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		src->err = S_ISDIR(st.st_mode) ? EISDIR : errno;
		if (!src->err)
			src->err = EINVAL;
		close(src->fd);
		src->fd = -1;
		return QA_E_IO;
	}
	src->size = (uint64_t)st.st_size;
	return QA_OK;
}

void
qa_source_close(struct qa_source *src)
{
	if (src && src->fd >= 0) {
		close(src->fd);
		src->fd = -1;
	}
}

int
qa_source_read(struct qa_source *src, uint64_t off, void *buf, size_t len)
{
	unsigned char *p = buf;

	if (off > src->size || len > src->size - off)
		return QA_E_SHORT;
	while (len > 0) {
		ssize_t n = pread(src->fd, p, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			src->err = errno;
			return QA_E_IO;
		}
		if (n == 0) {
			/* The file shrank under us. */
			src->err = EIO;
			return QA_E_IO;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
		src->bytes_read += (uint64_t)n;
	}
	return QA_OK;
}

void
qa_reader_init(struct qa_reader *r, struct qa_source *src, uint64_t pos)
{
	r->src = src;
	r->pos = pos;
	r->big_endian = false;
	r->err = QA_OK;
	r->buf_off = 0;
	r->buf_len = 0;
}

uint64_t
qa_reader_remaining(const struct qa_reader *r)
{
	return r->pos >= r->src->size ? 0 : r->src->size - r->pos;
}

/* Makes [pos, pos+n) available in buf when n fits the buffer. */
static bool
fill(struct qa_reader *r, size_t n)
{
	uint64_t avail;
	size_t want;
	int rc;

	if (r->err)
		return false;
	if (qa_reader_remaining(r) < n) {
		r->err = QA_E_SHORT;
		return false;
	}
	if (r->pos >= r->buf_off && r->pos - r->buf_off <= r->buf_len &&
	    r->buf_len - (r->pos - r->buf_off) >= n)
		return true;
	avail = qa_reader_remaining(r);
	want = avail < QA_READER_BUF ? (size_t)avail : QA_READER_BUF;
	rc = qa_source_read(r->src, r->pos, r->buf, want);
	if (rc != QA_OK) {
		r->err = rc;
		return false;
	}
	r->buf_off = r->pos;
	r->buf_len = want;
	return true;
}

bool
qa_reader_bytes(struct qa_reader *r, void *out, size_t n)
{
	unsigned char *o = out;

	while (n > 0) {
		size_t chunk = n < QA_READER_BUF ? n : QA_READER_BUF;
		if (!fill(r, chunk))
			return false;
		memcpy(o, r->buf + (r->pos - r->buf_off), chunk);
		r->pos += chunk;
		o += chunk;
		n -= chunk;
	}
	return true;
}

bool
qa_reader_skip(struct qa_reader *r, uint64_t n)
{
	if (r->err)
		return false;
	if (qa_reader_remaining(r) < n) {
		r->err = QA_E_SHORT;
		return false;
	}
	r->pos += n;
	return true;
}

bool
qa_reader_u8(struct qa_reader *r, uint8_t *v)
{
	if (!fill(r, 1))
		return false;
	*v = r->buf[r->pos - r->buf_off];
	r->pos += 1;
	return true;
}

static uint64_t
load(struct qa_reader *r, size_t n)
{
	const unsigned char *p = r->buf + (r->pos - r->buf_off);
	uint64_t v = 0;
	size_t i;

	if (r->big_endian) {
		for (i = 0; i < n; i++)
			v = (v << 8) | p[i];
	} else {
		for (i = n; i > 0; i--)
			v = (v << 8) | p[i - 1];
	}
	r->pos += n;
	return v;
}

bool
qa_reader_u16(struct qa_reader *r, uint16_t *v)
{
	if (!fill(r, 2))
		return false;
	*v = (uint16_t)load(r, 2);
	return true;
}

bool
qa_reader_u32(struct qa_reader *r, uint32_t *v)
{
	if (!fill(r, 4))
		return false;
	*v = (uint32_t)load(r, 4);
	return true;
}

bool
qa_reader_u64(struct qa_reader *r, uint64_t *v)
{
	if (!fill(r, 8))
		return false;
	*v = load(r, 8);
	return true;
}

int
qa_reader_skip_strings(struct qa_reader *r, uint64_t count, uint64_t max_len,
		       uint64_t *bad_len)
{
	while (count > 0) {
		const unsigned char *p;
		uint64_t len, left;
		size_t avail = 0;

		if (r->pos >= r->buf_off && r->pos - r->buf_off <= r->buf_len)
			avail = r->buf_len - (size_t)(r->pos - r->buf_off);
		if (avail < 8) {
			if (!fill(r, 8))
				return -1;
			continue;
		}
		p = r->buf + (r->pos - r->buf_off);
		memcpy(&len, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (r->big_endian)
			len = __builtin_bswap64(len);
#else
		if (!r->big_endian)
			len = __builtin_bswap64(len);
#endif
		left = r->src->size - r->pos - 8;
		if (len > max_len || len > left) {
			*bad_len = len;
			return len > max_len ? 1 : 2;
		}
		r->pos += 8 + len;
		count--;
	}
	return 0;
}

bool
qa_reader_string(struct qa_reader *r, struct qa_arena *a, uint64_t n,
		 char **out)
{
	char *s;

	if (r->err)
		return false;
	if (qa_reader_remaining(r) < n || n >= SIZE_MAX) {
		r->err = QA_E_SHORT;
		return false;
	}
	s = qa_arena_alloc(a, (size_t)n + 1);
	if (!s) {
		r->err = QA_E_NOMEM;
		return false;
	}
	if (!qa_reader_bytes(r, s, (size_t)n))
		return false;
	s[n] = '\0';
	*out = s;
	return true;
}
