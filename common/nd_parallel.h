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

/* Run fn over [0, n) in chunks of at most chunk items, each taken in
 * turn by whichever of jobs threads is free (t: the thread), for loops
 * whose items cost unevenly and write their outputs item by item: equal
 * contiguous shares leave a core idle while the other ends the costly
 * half.  A failure stops the chunks not yet taken; the result is that of
 * the failed chunk that starts first. */
int nd_parallel_chunks(unsigned jobs, uint32_t n, uint32_t chunk, nd_share_fn fn, void *ctx);

#endif
