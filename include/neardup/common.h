/* neardup: error codes and shared definitions.
 *
 * Every function that can fail returns an int: ND_OK (0) or a negative
 * nd_error.  A human-readable detail for the most recent failure on the
 * calling thread is available from nd_error_last(); it names the input
 * (file, document id, byte offset) whenever one is known. */
#ifndef ND_COMMON_H
#define ND_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
# define ND_EXTERN __attribute__((visibility("default")))
# define ND_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
# define ND_EXTERN
# define ND_PRINTF(a, b)
#endif

typedef enum {
	ND_OK         =   0,
	ND_ERROR      =  -1, /* unclassified failure */
	ND_ENOMEM     =  -2, /* out of memory */
	ND_EINVAL     =  -3, /* invalid argument or option */
	ND_ENOTFOUND  =  -4, /* database, document, term or record missing */
	ND_EIO        =  -5, /* read/write error from the OS */
	ND_ECORRUPT   =  -6, /* stored data fails its checks */
	ND_ELOCKED    =  -7, /* another writer holds the database lock */
	ND_ERETRY     =  -8, /* database changed under a reader: reopen, retry */
	ND_EFULL      =  -9, /* disk or LMDB map full */
	ND_EENCODING  = -10, /* invalid UTF-8 or undecodable text */
	ND_EMISMATCH  = -11, /* store belongs to a different database or set */
	ND_EVERSION   = -12, /* unsupported on-disk format version */
	ND_EXAPIAN    = -13, /* other Xapian error; see nd_error_last() */
	ND_EPARSE     = -14, /* malformed input record (JSON, TSV, HTML) */
	ND_ESTATE     = -15, /* operation not valid now (e.g. store has no set) */
	ND_ETOOBIG    = -16, /* input exceeds a documented limit */
} nd_error;

/* The library's version, "MAJOR.MINOR.PATCH". */
ND_EXTERN const char *nd_version(void);

/* Static "NAME: text" description of an error code; never NULL. */
ND_EXTERN const char *nd_strerror(int code);

/* Detail of the last error set on this thread ("" when none).  Valid until
 * the next neardup call on this thread. */
ND_EXTERN const char *nd_error_last(void);

/* Record a detail message for code and return code (for `return nd_error_set(...)`). */
ND_EXTERN int nd_error_set(int code, const char *fmt, ...) ND_PRINTF(2, 3);

/* Forget the last error detail. */
ND_EXTERN void nd_error_clear(void);

#ifdef __cplusplus
}
#endif
#endif
