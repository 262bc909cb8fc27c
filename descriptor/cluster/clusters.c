/* One way to ask for clusters: every signed document grouped at a point
 * (neardup/cluster.h, nd_clusters).  copy and strict are the connected
 * components of the near-neighbour pairs their verdict accepts; copy's are
 * the store's links when they are settled (the same pairs by rule, read
 * instead of judged).  story is average linkage over the pairs' shingle
 * resemblance, with completed averages. */
#include "neardup/cluster.h"
#include "neardup/collapse.h"
#include "descriptor/cluster/cluster_internal.h"
#include "lmdb_store/store_internal.h"
#include "common/nd_buf.h"

#include <stdlib.h>
#include <string.h>

static int cmp_docid(const void *x, const void *y)
{
	nd_docid a = *(const nd_docid *)x, b = *(const nd_docid *)y;
	return a < b ? -1 : a > b;
}

/* Components of the settled links: each document's collapse id is its
 * component's smallest docid. */
static int from_links(nd_xdb *db, nd_store *st, const nd_docid *docs, size_t n, size_t *into)
{
	nd_docid *ids = malloc((n + 1) * sizeof(*ids));
	int rc;
	if (!ids)
		return nd_error_set(ND_ENOMEM, "out of memory");
	if ((rc = nd_collapse_ids(db, st, NULL, docs, n, ids)) == ND_OK)
		for (size_t i = 0; i < n; i++) {
			const nd_docid *at = ids[i] ? bsearch(&ids[i], docs, n, sizeof(*docs), cmp_docid) : NULL;
			into[i] = at ? (size_t)(at - docs) : i;
		}
	free(ids);
	return rc;
}

int nd_clusters(nd_xdb *db, nd_store *st, nd_point point, const nd_clusters_options *opts, nd_docid **docs,
		size_t **into, size_t *n, nd_clusters_report *rep)
{
	nd_clusters_options o = ND_CLUSTERS_OPTIONS_INIT;
	nd_clusters_report local;
	struct {
		nd_docid *v;
		size_t n;
	} l = {NULL, 0};
	nd_store_txn *txn;
	size_t *in = NULL;
	int rc, state = ND_LINKS_REBUILD;

	*docs = NULL, *into = NULL, *n = 0;
	if (opts)
		o = *opts;
	if (!rep)
		rep = &local;
	memset(rep, 0, sizeof(*rep));
	if (!nd_point_name(point))
		return nd_error_set(ND_EINVAL, "no point %d", (int)point);
	if (!(o.cut >= 0 && o.cut <= 1))
		return nd_error_set(ND_EINVAL, "the cut must be in [0, 1] (0: the point's), not %g", o.cut);
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	if ((rc = nd__store_docids(txn, &l.v, &l.n)) == ND_OK && point == ND_POINT_COPY)
		rc = state = nd_store_links_state(txn);
	nd_store_txn_end(txn);
	if (rc < 0)
		goto fail;
	if (!(in = malloc((l.n + 1) * sizeof(*in)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < l.n; i++)
		in[i] = i;
	nd_near_options no = ND_NEAR_OPTIONS_INIT;
	no.jobs = o.jobs ? o.jobs : 1;
	no.progress = o.progress;
	no.ctx = o.ctx;
	if (point == ND_POINT_COPY && state == ND_LINKS_SETTLED) {
		rep->from_links = 1;
		rc = from_links(db, st, l.v, l.n, in);
	} else if (point == ND_POINT_STORY) {
		no.cut = o.cut > 0 ? o.cut : nd_point_resemblance(ND_POINT_STORY);
		no.complete = o.complete;
		rc = nd_cluster_near(db, st, &no, l.v, l.n, in, &rep->near);
	} else {
		no.single = 1;
		rc = nd__cluster_near_at(db, st, &no, point, l.v, l.n, in, &rep->near);
	}
	if (rc < 0)
		goto fail;
	*docs = l.v, *into = in, *n = l.n;
	return ND_OK;
fail:
	free(l.v);
	free(in);
	return rc;
}
