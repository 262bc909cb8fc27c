/* Reading inputs: regular files only, never more than a limit. */
#include "neardup/indexer.h"
#include "common/nd_buf.h"
#include "indexer/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int nd_input_open(const char *path, int *fd)
{
	struct stat st;
	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
	int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	*fd = -1;
	if (f < 0)
		return nd_error_set(errno == ENOENT ? ND_ENOTFOUND : ND_EIO, "%s: %s", path, strerror(errno));
	if (fstat(f, &st) < 0) {
		int err = errno;
		close(f);
		return nd_error_set(ND_EIO, "%s: %s", path, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(f);
		return nd_error_set(ND_EINVAL, "%s: not a regular file (%s); only files are read", path,
				    S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory" :
				    S_ISSOCK(st.st_mode) ? "a socket" : "a device");
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
