/* Error table and thread-local detail message (libgit2 / LMDB style). */
#include "neardup/common.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_detail[1024];

static const char *const names[] = {
	"ND_OK: success",
	"ND_ERROR: unclassified failure",
	"ND_ENOMEM: out of memory",
	"ND_EINVAL: invalid argument",
	"ND_ENOTFOUND: not found",
	"ND_EIO: input/output error",
	"ND_ECORRUPT: stored data is corrupt",
	"ND_ELOCKED: database is locked by another writer",
	"ND_ERETRY: database changed under the reader; reopen and retry",
	"ND_EFULL: disk or store map is full",
	"ND_EENCODING: invalid or undecodable text encoding",
	"ND_EMISMATCH: store does not belong to this database or descriptive set",
	"ND_EVERSION: unsupported format version",
	"ND_EXAPIAN: Xapian error",
	"ND_EPARSE: malformed input",
	"ND_ESTATE: operation not valid in this state",
	"ND_ETOOBIG: input exceeds a limit",
};

const char *nd_strerror(int code)
{
	int i = -code;
	if (i < 0 || (size_t)i >= sizeof(names) / sizeof(names[0]))
		return "ND_?: unknown error code";
	return names[i];
}

const char *nd_version(void)
{
	return ND_VERSION_STRING;
}

const char *nd_error_last(void)
{
	return last_detail;
}

int nd_error_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_detail, sizeof(last_detail), fmt, ap);
	va_end(ap);
	return code;
}

void nd_error_clear(void)
{
	last_detail[0] = '\0';
}
