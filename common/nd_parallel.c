/* Shares of a loop on threads: outputs are merged by the callers in share
 * order, so results do not depend on the number of threads. */
#include "common/nd_parallel.h"
#include "neardup/common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
	nd_share_fn fn;
	void *ctx;
	unsigned t;
	uint32_t from, to;
	int rc;
	char err[512];
} share;

static void *run_share(void *v)
{
	share *s = v;
	if ((s->rc = s->fn(s->ctx, s->t, s->from, s->to)) < 0)
		snprintf(s->err, sizeof(s->err), "%s", nd_error_last());
	return NULL;
}

int nd_parallel_shares(unsigned jobs, uint32_t n, nd_share_fn fn, void *ctx)
{
	share *sh;
	pthread_t *tid;
	unsigned started = 1;
	int rc = ND_OK;
	if (jobs <= 1 || n < 2)
		return fn(ctx, 0, 0, n);
	if (jobs > n)
		jobs = n;
	if (!(sh = calloc(jobs, sizeof(*sh))) || !(tid = calloc(jobs, sizeof(*tid)))) {
		free(sh);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (unsigned t = 0; t < jobs; t++)
		sh[t] = (share){fn, ctx, t, (uint32_t)((uint64_t)n * t / jobs),
				(uint32_t)((uint64_t)n * (t + 1) / jobs), ND_OK, ""};
	for (; started < jobs; started++)
		if (pthread_create(&tid[started], NULL, run_share, &sh[started]) != 0) {
			rc = nd_error_set(ND_ENOMEM, "cannot start a thread");
			break;
		}
	run_share(&sh[0]);
	for (unsigned t = 1; t < started; t++)
		pthread_join(tid[t], NULL);
	if (rc == ND_OK)
		for (unsigned t = 0; t < jobs; t++)
			if (sh[t].rc < 0) {
				rc = nd_error_set(sh[t].rc, "%s", sh[t].err);
				break;
			}
	free(sh);
	free(tid);
	return rc;
}
