#include "common/nd_buf.h"
#include "neardup/common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int nd_u64s_push(nd_u64s *l, uint64_t x)
{
	void *p = l->v;
	int rc = nd_array_reserve(&p, &l->cap, l->n + 1, sizeof(*l->v));
	if (rc == ND_OK)
		l->v = p, l->v[l->n++] = x;
	return rc;
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

int nd_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}
