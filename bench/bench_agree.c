/* Benchmark: clusters kept online against clusters made afterwards.
 *
 * DB holds the corpus, indexed in the order its documents arrive (docid
 * order, docids 1..N with none deleted: shuffle before indexing for a
 * random arrival); STORE holds only
 * the descriptive set ('neardup build', no 'sign').  Each document is then
 * signed by its hook, nd_hook_changed, in docid order, seeing only the
 * documents before it.  The online clusters are the store's after the
 * last hook (nd_collapse_ids: the links the hooks kept, split where they
 * chain); beside them, the duplicates each hook reported at arrival,
 * joined (union-find: a page joins the cluster of any duplicate, as
 * clusters were components).  Then the batch clusters of the same point
 * as 'sign' makes them: every link made again over the finished store
 * (nd_links_rebuild, counting the common text over every document), and
 * its clusters (nd_cluster_near, as 'clusters --point copy').
 * Prints hook throughput and the pairwise agreement of the clusterings:
 * precision and recall of the online co-clustered pairs against the batch
 * ones, and F1.  With --truth (TSV id, cluster) each is also scored
 * against it.  With --churn K, every K hooks the collapse ids of the
 * documents so far are read, and it counts how often a clustered
 * document's id moved since the last reading, beside what the same
 * reading gives for the components of the links (the clusters before
 * they were split): how stable the ids a hook leaves are.
 *
 *   bench_agree DB STORE [--truth FILE] [--jobs N] [--churn K] [--recount-max N]
 *
 * --recount-max: the hooks' nd_hook_options.recount_max (0: hooks never
 * count the common text again).
 *
 * The store is written (records of every document): use a copy. */
#include "neardup/cluster.h"
#include "neardup/collapse.h"
#include "neardup/hook.h"
#include "neardup/store.h"
#include "neardup/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t find(size_t *up, size_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

static void join(size_t *up, size_t a, size_t b)
{
	a = find(up, a), b = find(up, b);
	if (a != b)
		up[a < b ? b : a] = a < b ? a : b;
}

/* Co-clustered pairs of two labelings of n documents: both, only a, only
 * b.  Counted from the joint cluster sizes: pairs together in a =
 * sum C(|A|, 2), together in both = sum over (A, B) cells of C(|A & B|, 2). */
typedef struct {
	size_t a, b;
} cell;

static int cmp_cell(const void *x, const void *y)
{
	const cell *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

static double pairs_of_runs(cell *c, size_t n, int by_a, int by_b)
{
	double total = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && (!by_a || c[j].a == c[i].a) && (!by_b || c[j].b == c[i].b))
			j++;
		total += (double)(j - i) * (double)(j - i - 1) / 2;
		i = j;
	}
	return total;
}

static void agreement(const size_t *a, const size_t *b, size_t n, double *both, double *in_a, double *in_b)
{
	cell *c = malloc((n + 1) * sizeof(*c));
	for (size_t i = 0; i < n; i++)
		c[i] = (cell){a[i], b[i]};
	qsort(c, n, sizeof(*c), cmp_cell);
	*in_a = pairs_of_runs(c, n, 1, 0);
	*both = pairs_of_runs(c, n, 1, 1);
	for (size_t i = 0; i < n; i++)
		c[i] = (cell){b[i], 0};
	qsort(c, n, sizeof(*c), cmp_cell);
	*in_b = pairs_of_runs(c, n, 1, 0);
	free(c);
}

static void report(const char *what, const size_t *a, const size_t *b, size_t n)
{
	double both, in_a, in_b;
	agreement(a, b, n, &both, &in_a, &in_b);
	double p = in_a ? both / in_a : 1, r = in_b ? both / in_b : 1;
	printf("  %-34s P %.4f  R %.4f  F1 %.4f  (%.0f and %.0f co-clustered pairs)\n", what, p, r,
	       p + r ? 2 * p * r / (p + r) : 0, in_a, in_b);
}

/* Each of docs 1..n's link component's smallest docid (0: alone), as
 * collapse ids were before clusters were split. */
static int component_ids(nd_store *st, size_t n, nd_docid *out)
{
	nd_store_txn *txn;
	size_t *up = malloc((n + 1) * sizeof(*up)), *size = calloc(n + 1, sizeof(*size));
	int rc = nd_store_read_begin(st, &txn), open = rc == ND_OK;
	for (size_t i = 0; i < n; i++)
		up[i] = i;
	for (size_t i = 0; rc == ND_OK && i < n; i++) {
		uint32_t *nb;
		size_t m;
		if ((rc = nd_store_links(txn, (uint32_t)(i + 1), &nb, &m)) < 0)
			break;
		for (size_t k = 0; k < m; k++)
			if (nb[k] >= 1 && nb[k] <= n)
				join(up, i, nb[k] - 1);
		free(nb);
	}
	if (open)
		nd_store_txn_end(txn);
	for (size_t i = 0; i < n; i++)
		size[find(up, i)]++;
	for (size_t i = 0; i < n; i++)
		out[i] = size[find(up, i)] > 1 ? (nd_docid)find(up, i) + 1 : 0;
	free(up);
	free(size);
	return rc;
}

/* Clustered documents of prev[0..n) whose id is not now's. */
static size_t moved(const nd_docid *prev, const nd_docid *now, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += prev[i] && prev[i] != now[i];
	return k;
}

typedef struct {
	char *name;
	nd_docid docid;
} named;

static int cmp_named(const void *x, const void *y)
{
	return strcmp(((const named *)x)->name, ((const named *)y)->name);
}

int main(int argc, char **argv)
{
	const char *truth = NULL;
	unsigned jobs = 2;
	uint64_t recount_max = ND_HOOK_RECOUNT_MAX;
	size_t churn = 0;
	if (argc < 3) {
		fprintf(stderr, "usage: bench_agree DB STORE [--truth FILE] [--jobs N] [--churn K] [--recount-max N]\n");
		return 2;
	}
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--truth"))
			truth = argv[i + 1];
		else if (!strcmp(argv[i], "--jobs"))
			jobs = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--churn"))
			churn = (size_t)atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--recount-max"))
			recount_max = (uint64_t)atoll(argv[i + 1]);
	}
	nd_xdb *db;
	nd_store *st;
	nd_hook *h;
	uint32_t last;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0; /* every document is new to this store */
	ho.recount_max = recount_max;
	if (nd_xdb_open(&db, argv[1], ND_XDB_READ) < 0 || nd_store_open(&st, argv[2], ND_STORE_WRITE) < 0 ||
	    nd_hook_open(&h, db, st, &ho) < 0 || nd_xdb_doccount(db, &last) < 0) {
		fprintf(stderr, "bench_agree: %s\n", nd_error_last());
		return 1;
	}
	size_t n = last;
	size_t *online = malloc((n + 1) * sizeof(*online)), *batch = malloc((n + 1) * sizeof(*batch));
	size_t *arrival = malloc((n + 1) * sizeof(*arrival));
	nd_docid *docs = malloc((n + 1) * sizeof(*docs)), *ids = malloc((n + 1) * sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		arrival[i] = i, docs[i] = (nd_docid)(i + 1);

	/* Online: each document in arrival order, against those before it. */
	nd_hook_result r = ND_HOOK_RESULT_INIT;
	uint64_t dups = 0, later = 0;
	nd_docid *prev = calloc(n + 1, sizeof(*prev)), *now = calloc(n + 1, sizeof(*now));
	nd_docid *cprev = calloc(n + 1, sizeof(*cprev)), *cnow = calloc(n + 1, sizeof(*cnow));
	size_t readings = 0, moved_split = 0, moved_comp = 0, held_split = 0, held_comp = 0;
	double t_churn = 0, t0 = wall_now();
	double slowest = 0, t_slow = 0;
	size_t nslow = 0, slowest_at = 0;
	for (size_t i = 0; i < n; i++) {
		double th = wall_now();
		if (nd_hook_changed(h, docs[i], &r) < 0) {
			fprintf(stderr, "bench_agree: document %u: %s\n", docs[i], nd_error_last());
			return 1;
		}
		th = wall_now() - th;
		if (th > slowest)
			slowest = th, slowest_at = i + 1;
		if (th > 0.05) /* a recount, or the disk */
			t_slow += th, nslow++;
		if (churn && ((i + 1) % churn == 0 || i + 1 == n)) {
			double tc = wall_now();
			if (nd_collapse_ids(db, st, NULL, docs, i + 1, now) < 0 || component_ids(st, i + 1, cnow) < 0) {
				fprintf(stderr, "bench_agree: collapse ids: %s\n", nd_error_last());
				return 1;
			}
			moved_split += moved(prev, now, i + 1), moved_comp += moved(cprev, cnow, i + 1);
			for (size_t k = 0; k <= i; k++)
				held_split += prev[k] != 0, held_comp += cprev[k] != 0;
			memcpy(prev, now, (i + 1) * sizeof(*now));
			memcpy(cprev, cnow, (i + 1) * sizeof(*cnow));
			readings++;
			t_churn += wall_now() - tc;
		}
		for (size_t k = 0; k < r.nduplicates; k++) {
			later += r.duplicates[k].docid > docs[i];
			join(arrival, i, r.duplicates[k].docid - 1);
		}
		dups += r.nduplicates;
	}
	double t_online = wall_now() - t0 - t_churn;
	nd_hook_result_clear(&r);
	for (size_t i = 0; i < n; i++)
		arrival[i] = find(arrival, i);
	if (nd_collapse_ids(db, st, NULL, docs, n, ids) < 0) {
		fprintf(stderr, "bench_agree: online clusters: %s\n", nd_error_last());
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		online[i] = ids[i] ? ids[i] - 1 : i;

	/* Batch: the copy point's clusters as sign makes them, every link
	 * made again over the finished store (the common text counted over
	 * every document). */
	nd_near_options no = ND_NEAR_OPTIONS_INIT;
	no.jobs = jobs;
	t0 = wall_now();
	if (nd_links_rebuild(db, st, &no, NULL) < 0) {
		fprintf(stderr, "bench_agree: batch links: %s\n", nd_error_last());
		return 1;
	}
	no.single = 1;
	no.cut = nd_point_resemblance(ND_POINT_COPY);
	if (nd_cluster_near(db, st, &no, docs, n, batch, NULL) < 0) {
		fprintf(stderr, "bench_agree: batch clusters: %s\n", nd_error_last());
		return 1;
	}
	double t_batch = wall_now() - t0;

	printf("%zu documents: online %.1f s (%.0f hooks/s%s, %llu duplicates reported, %llu of them later "
	       "arrivals), batch %.1f s\n",
	       n, t_online, n / t_online, churn ? ", the readings between them slowing them" : "",
	       (unsigned long long)dups, (unsigned long long)later, t_batch);
	printf("  slowest hook %.3f s (the %zuth); %zu hooks over 50 ms took %.1f s in all\n", slowest, slowest_at,
	       nslow, t_slow);
	report("online against batch", online, batch, n);
	report("arrival, joined, against batch", arrival, batch, n);
	if (churn)
		printf("  ids read every %zu hooks (%zu readings): a clustered document's id moved %zu times of "
		       "%zu (%.2f%%); as link components %zu of %zu (%.2f%%)\n",
		       churn, readings, moved_split, held_split, 100.0 * moved_split / (held_split ? held_split : 1),
		       moved_comp, held_comp, 100.0 * moved_comp / (held_comp ? held_comp : 1));
	if (truth) {
		/* Known clusters by document id (the unique id term). */
		size_t *known = malloc((n + 1) * sizeof(*known)), nl = 0, cap = 1024;
		named *l = malloc(cap * sizeof(*l));
		char line[4096];
		FILE *f = fopen(truth, "r");
		if (!f) {
			fprintf(stderr, "bench_agree: cannot read %s\n", truth);
			return 1;
		}
		for (size_t i = 0; i < n; i++)
			known[i] = n + i; /* alone unless listed */
		while (fgets(line, sizeof(line), f)) {
			char *tab = strchr(line, '\t');
			nd_docid d;
			if (!tab)
				continue;
			*tab = 0;
			tab[strcspn(tab + 1, "\r\n") + 1] = 0;
			if (nd_xdb_find_uid(db, line, &d) != ND_OK || d == 0 || d > n)
				continue;
			if (nl == cap)
				l = realloc(l, (cap *= 2) * sizeof(*l));
			l[nl++] = (named){strdup(tab + 1), d};
		}
		fclose(f);
		qsort(l, nl, sizeof(*l), cmp_named);
		for (size_t i = 0, c = 0; i < nl; i++) {
			c += i > 0 && strcmp(l[i].name, l[i - 1].name);
			known[l[i].docid - 1] = c;
		}
		report("online against the known clusters", online, known, n);
		report("batch against the known clusters", batch, known, n);
		report("arrival, joined, against known", arrival, known, n);
		for (size_t i = 0; i < nl; i++)
			free(l[i].name);
		free(l);
		free(known);
	}
	free(online);
	free(prev);
	free(now);
	free(cprev);
	free(cnow);
	free(arrival);
	free(batch);
	free(docs);
	free(ids);
	nd_hook_free(h);
	nd_store_close(st);
	nd_xdb_close(db);
	return 0;
}
