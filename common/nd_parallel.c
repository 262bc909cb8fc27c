/* Shares of a loop on threads: outputs are merged by the callers in share
 * order, so results do not depend on the number of threads. */
#include "common/nd_parallel.h"
#include "neardup/common.h"

#include <pthread.h>
#include <stdatomic.h>
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

typedef struct {
	nd_share_fn fn;
	void *ctx;
	uint32_t n, chunk;
	atomic_uint_fast64_t next; /* the first item not yet taken */
	atomic_int failed;
} chunks;

typedef struct {
	chunks *c;
	unsigned t;
	int rc;
	uint32_t at; /* where the failed chunk starts */
	char err[512];
} chunk_thread;

static void *run_chunks(void *v)
{
	chunk_thread *th = v;
	chunks *c = th->c;
	while (!atomic_load(&c->failed)) {
		uint64_t from = atomic_fetch_add(&c->next, c->chunk);
		if (from >= c->n)
			break;
		uint32_t to = from + c->chunk < c->n ? (uint32_t)(from + c->chunk) : c->n;
		if ((th->rc = c->fn(c->ctx, th->t, (uint32_t)from, to)) < 0) {
			th->at = (uint32_t)from;
			snprintf(th->err, sizeof(th->err), "%s", nd_error_last());
			atomic_store(&c->failed, 1);
		}
	}
	return NULL;
}

int nd_parallel_chunks(unsigned jobs, uint32_t n, uint32_t chunk, nd_share_fn fn, void *ctx)
{
	if (chunk == 0)
		chunk = 1;
	if (jobs > (n + chunk - 1) / chunk)
		jobs = (n + chunk - 1) / chunk;
	if (jobs <= 1)
		return n ? fn(ctx, 0, 0, n) : ND_OK;
	chunks c = {fn, ctx, n, chunk, 0, 0};
	chunk_thread *th = calloc(jobs, sizeof(*th));
	pthread_t *tid = calloc(jobs, sizeof(*tid));
	unsigned started = 1;
	int rc = ND_OK;
	if (!th || !tid) {
		free(th);
		free(tid);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (unsigned t = 0; t < jobs; t++)
		th[t].c = &c, th[t].t = t;
	for (; started < jobs; started++)
		if (pthread_create(&tid[started], NULL, run_chunks, &th[started]) != 0) {
			rc = nd_error_set(ND_ENOMEM, "cannot start a thread");
			atomic_store(&c.failed, 1);
			break;
		}
	run_chunks(&th[0]);
	for (unsigned t = 1; t < started; t++)
		pthread_join(tid[t], NULL);
	const chunk_thread *first = NULL;
	for (unsigned t = 0; rc == ND_OK && t < started; t++)
		if (th[t].rc < 0 && (!first || th[t].at < first->at))
			first = &th[t];
	if (first)
		rc = nd_error_set(first->rc, "%s", first->err);
	free(th);
	free(tid);
	return rc;
}
