/* Splitting a loop over threads (internal). */
#ifndef ND_PARALLEL_H
#define ND_PARALLEL_H

#include <stdint.h>

/* One share: items [from, to) of the loop, as share t. */
typedef int (*nd_share_fn)(void *ctx, unsigned t, uint32_t from, uint32_t to);

/* Run fn over jobs contiguous shares of [0, n): share 0 on the calling
 * thread, the others on threads of their own.  Every share runs to its
 * end; the result is that of the first share (by t) that failed, with its
 * message, so a failure reads the same for any number of jobs.  Callers
 * that merge per-share outputs in share order get results independent of
 * jobs. */
int nd_parallel_shares(unsigned jobs, uint32_t n, nd_share_fn fn, void *ctx);

#endif
