#include "common/nd_buf.h"
#include "neardup/common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int nd_array_reserve(void **ptr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return ND_OK;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return nd_error_set(ND_ENOMEM, "array of %zu elements too large", need);
		ncap *= 2;
	}
	if (!(p = realloc(*ptr, ncap * elem)))
		return nd_error_set(ND_ENOMEM, "out of memory growing an array to %zu elements", ncap);
	*ptr = p;
	*cap = ncap;
	return ND_OK;
}

int nd_buf_grow(nd_buf *b, size_t extra)
{
	void *p = b->ptr;
	if (extra > SIZE_MAX - b->len - 1)
		return nd_error_set(ND_ENOMEM, "buffer too large");
	int rc = nd_array_reserve(&p, &b->cap, b->len + extra + 1, 1);
	b->ptr = p;
	return rc;
}

int nd_buf_put(nd_buf *b, const void *data, size_t len)
{
	int rc;
	if ((rc = nd_buf_grow(b, len)) < 0)
		return rc;
	if (len)
		memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return ND_OK;
}

int nd_buf_putc(nd_buf *b, char c)
{
	return nd_buf_put(b, &c, 1);
}

void nd_buf_free(nd_buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = 0;
}

int nd_input_open(const char *path, int *fd)
{
	struct stat st;
	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
	int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	*fd = -1;
	if (f < 0)
		return nd_error_set(errno == ENOENT ? ND_ENOTFOUND : ND_EIO, "%s: %s", path, strerror(errno));
	if (fstat(f, &st) < 0 || !S_ISREG(st.st_mode)) {
		int err = errno;
		close(f);
		if (!S_ISREG(st.st_mode))
			return nd_error_set(ND_EINVAL, "%s: not a regular file (%s); only files are read", path,
					    S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory" :
					    S_ISSOCK(st.st_mode) ? "a socket" : "a device");
		return nd_error_set(ND_EIO, "%s: %s", path, strerror(err));
	}
	fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
	*fd = f;
	return ND_OK;
}

int nd_input_read(int fd, const char *name, size_t max, char **data, size_t *len)
{
	nd_buf b = ND_BUF_INIT;
	int rc;
	*data = NULL;
	*len = 0;
	for (;;) {
		if ((rc = nd_buf_grow(&b, 65536)) < 0)
			goto fail;
		ssize_t got = read(fd, b.ptr + b.len, 65536);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = nd_error_set(ND_EIO, "%s: read error: %s", name, strerror(errno));
			goto fail;
		}
		if (got == 0)
			break;
		b.len += (size_t)got;
		if (b.len > max) {
			rc = nd_error_set(ND_ETOOBIG, "%s: over the limit of %zu bytes", name, max);
			goto fail;
		}
	}
	if ((rc = nd_buf_grow(&b, 0)) < 0)
		goto fail;
	b.ptr[b.len] = '\0';
	*data = b.ptr;
	*len = b.len;
	return ND_OK;
fail:
	nd_buf_free(&b);
	return rc;
}

int nd_read_file(char **out, size_t *len, const char *path, size_t max_len)
{
	struct stat st;
	int fd, rc;
	*out = NULL;
	*len = 0;
	if ((rc = nd_input_open(path, &fd)) < 0)
		return rc;
	/* The size first: a file over the limit is not read at all. */
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > max_len)
		rc = nd_error_set(ND_ETOOBIG, "%s: %lld bytes, over the limit of %zu", path,
				  (long long)st.st_size, max_len);
	else
		rc = nd_input_read(fd, path, max_len, out, len);
	close(fd);
	return rc;
}

/* windows-1252 bytes 0x80..0x9F; the rest of the range is Latin-1. */
static const uint16_t cp1252_hi[32] = {
	0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
	0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178};

int nd_cp1252_to_utf8(nd_buf *out, const char *in, size_t len)
{
	int rc;
	out->len = 0;
	if ((rc = nd_buf_grow(out, len * 3)) < 0)
		return rc;
	for (size_t i = 0; i < len; i++) {
		unsigned c = (unsigned char)in[i];
		if (c >= 0x80 && c < 0xA0)
			c = cp1252_hi[c - 0x80];
		char *d = out->ptr + out->len;
		if (c < 0x80) {
			d[0] = (char)c;
			out->len += 1;
		} else if (c < 0x800) {
			d[0] = (char)(0xC0 | (c >> 6));
			d[1] = (char)(0x80 | (c & 0x3F));
			out->len += 2;
		} else {
			d[0] = (char)(0xE0 | (c >> 12));
			d[1] = (char)(0x80 | ((c >> 6) & 0x3F));
			d[2] = (char)(0x80 | (c & 0x3F));
			out->len += 3;
		}
	}
	out->ptr[out->len] = '\0';
	return ND_OK;
}

