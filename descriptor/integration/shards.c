/* Stores of a sharded database: which shard each belongs to, and docid
 * arithmetic between the combined database and a shard. */
#include "neardup/shards.h"
#include "common/nd_buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct nd_shards {
	size_t nstores;
	uint32_t nshards;        /* shards of the combined database */
	nd_store **st;
	uint32_t *shard;         /* store i holds shard shard[i] */
	nd_descriptor *d;
};

void nd_shards_close(nd_shards *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nstores; i++)
		nd_store_close(s->st[i]);
	free(s->st);
	free(s->shard);
	nd_descriptor_free(s->d);
	free(s);
}

/* The store's bound database UUID (caller frees). */
static int bound_uuid(nd_store *st, char **out)
{
	nd_store_txn *txn;
	const void *v;
	size_t n;
	int rc;
	*out = NULL;
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	rc = nd_store_meta_get(txn, "db.uuid", &v, &n);
	if (rc == ND_OK && !(*out = strndup(v, n)))
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	else if (rc == ND_ENOTFOUND)
		rc = nd_error_set(ND_ESTATE, "store %s has no descriptive set (run 'neardup build')",
				  nd_store_path(st));
	nd_store_txn_end(txn);
	return rc;
}

int nd_shards_open(nd_shards **out, nd_xdb *db, const char *const *stores, size_t nstores)
{
	nd_shards *s = calloc(1, sizeof(*s));
	char *uuid = NULL, **parts = NULL;
	uint8_t *taken = NULL;
	int rc = ND_OK;

	*out = NULL;
	if (!s)
		return nd_error_set(ND_ENOMEM, "out of memory");
	if (nstores == 0) {
		rc = nd_error_set(ND_EINVAL, "no store given");
		goto fail;
	}
	if ((rc = nd_xdb_uuid(db, &uuid)) < 0)
		goto fail;
	/* The combined UUID is the shards' UUIDs joined by ':', in order. */
	s->nshards = 1;
	for (char *p = uuid; *p; p++)
		s->nshards += *p == ':';
	if (!(parts = calloc(s->nshards, sizeof(*parts))) || !(taken = calloc(s->nshards, 1)) ||
	    !(s->st = calloc(nstores, sizeof(*s->st))) || !(s->shard = calloc(nstores, sizeof(*s->shard)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto fail;
	}
	parts[0] = uuid;
	for (uint32_t k = 1; k < s->nshards; k++) {
		parts[k] = strchr(parts[k - 1], ':');
		*parts[k]++ = '\0';
	}
	for (size_t i = 0; i < nstores; i++) {
		char *bound = NULL;
		nd_descriptor *d = NULL;
		uint32_t k;
		if ((rc = nd_store_open(&s->st[i], stores[i], ND_STORE_READ)) < 0)
			goto fail;
		s->nstores = i + 1;
		if ((rc = bound_uuid(s->st[i], &bound)) < 0)
			goto fail;
		/* The first shard not yet taken with that UUID: the same database
		 * served twice (locally and remotely) still maps in order. */
		for (k = 0; k < s->nshards && (taken[k] || strcmp(parts[k], bound)); k++)
			;
		if (k == s->nshards) {
			rc = nd_error_set(ND_EMISMATCH, "store %s was built for database %s, which is not a "
					  "shard of %s (or another store already holds it)", stores[i], bound,
					  nd_xdb_path(db));
			free(bound);
			goto fail;
		}
		free(bound);
		taken[k] = 1;
		s->shard[i] = k;
		if ((rc = nd_descriptor_load(&d, s->st[i], NULL)) < 0)
			goto fail;
		if (!s->d)
			s->d = d;
		else {
			int same = nd_descriptor_version(d) == nd_descriptor_version(s->d);
			nd_descriptor_free(d);
			if (!same) {
				rc = nd_error_set(ND_EMISMATCH, "store %s has another descriptive set than %s; copy "
						  "one set to every shard's store (neardup build --from-store)",
						  stores[i], stores[0]);
				goto fail;
			}
		}
	}
	free(uuid);
	free(parts);
	free(taken);
	*out = s;
	return ND_OK;
fail:
	free(uuid);
	free(parts);
	free(taken);
	nd_shards_close(s);
	return rc;
}

size_t nd_shards_stores(const nd_shards *s) { return s->nstores; }
nd_store *nd_shards_store(const nd_shards *s, size_t i) { return s->st[i]; }
const nd_descriptor *nd_shards_descriptor(const nd_shards *s) { return s->d; }

nd_docid nd_shards_docid(const nd_shards *s, size_t i, nd_docid local)
{
	return (nd_docid)(((uint64_t)local - 1) * s->nshards + s->shard[i] + 1);
}

nd_docid nd_shards_local(const nd_shards *s, nd_docid docid, size_t *store)
{
	uint32_t shard = (docid - 1) % s->nshards;
	*store = SIZE_MAX;
	for (size_t i = 0; i < s->nstores; i++)
		if (s->shard[i] == shard)
			*store = i;
	return (docid - 1) / s->nshards + 1;
}

int nd_shards_key_docs(const nd_shards *s, nd_store_txn *const *txn, uint64_t key, nd_docid **out, size_t *nout)
{
	nd_docid *all = NULL;
	size_t n = 0;
	int rc = ND_OK;
	*out = NULL;
	*nout = 0;
	for (size_t i = 0; i < s->nstores && rc == ND_OK; i++) {
		nd_docid *m = NULL;
		size_t k = 0;
		if ((rc = nd_store_key_docs(txn[i], key, &m, &k)) < 0)
			break;
		nd_docid *p = realloc(all, (n + k + 1) * sizeof(*all));
		if (!p)
			rc = nd_error_set(ND_ENOMEM, "out of memory");
		else {
			all = p;
			for (size_t j = 0; j < k; j++)
				all[n++] = nd_shards_docid(s, i, m[j]);
		}
		free(m);
	}
	if (rc < 0) {
		free(all);
		return rc;
	}
	/* Shards interleave: each store's run is ascending, the whole is not. */
	if (n > 1)
		qsort(all, n, sizeof(*all), nd_cmp_u32);
	*out = all;
	*nout = n;
	return ND_OK;
}
