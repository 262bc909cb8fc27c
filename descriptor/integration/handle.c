/* The common case in one call (neardup/handle.h): what a crawler or a
 * script opens, checks and hooks through; the Python package is a layer
 * over it. */
#include "neardup/handle.h"
#include "neardup/collapse.h"

#include <stdlib.h>
#include <string.h>

struct nd_handle {
	nd_xdb *db;
	nd_store *st;
	nd_descriptor *d;
	nd_tokenizer *tk;
	nd_hook *hook;      /* on db, made at the first nd_changed */
	char *dbpath;
	int flags;
	nd_open_options o;
};

void nd_close(nd_handle *h)
{
	if (!h)
		return;
	nd_hook_free(h->hook);
	nd_tokenizer_free(h->tk);
	nd_descriptor_free(h->d);
	nd_store_close(h->st);
	nd_xdb_close(h->db);
	free(h->dbpath);
	free(h);
}

int nd_open(nd_handle **out, const char *db, const char *store, int flags, const nd_open_options *o)
{
	nd_handle *h;
	int rc;
	*out = NULL;
	if (!(h = calloc(1, sizeof(*h))) || !(h->dbpath = strdup(db))) {
		free(h);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	h->flags = flags;
	h->o = o ? *o : (nd_open_options)ND_OPEN_OPTIONS_INIT;
	if (!nd_point_name(h->o.point) || !h->o.max_compare || !(h->o.max_drift >= 0)) {
		rc = nd_error_set(ND_EINVAL, "nd_open: point %d, max_compare %zu, max_drift %g", (int)h->o.point,
				  h->o.max_compare, h->o.max_drift);
		goto fail;
	}
	if ((rc = nd_xdb_open(&h->db, db, ND_XDB_READ)) < 0 ||
	    (rc = nd_store_open(&h->st, store, flags & ND_OPEN_WRITE ? ND_STORE_WRITE : ND_STORE_READ)) < 0 ||
	    (rc = nd_descriptor_load(&h->d, h->st, h->db)) < 0 || (rc = nd_tokenizer_new(&h->tk)) < 0)
		goto fail;
	nd_xdb_set_max_query_terms(h->db, h->o.max_query_terms);
	*out = h;
	return ND_OK;
fail:
	nd_close(h);
	return rc;
}

int nd_check(nd_handle *h, const char *text, size_t len, nd_check_result *out)
{
	nd_verify_options vo = ND_VERIFY_OPTIONS_INIT;
	vo.point = h->o.point;
	return nd_check_text(h->tk, h->d, h->db, h->st, text, len, &vo, h->o.max_compare, out);
}

static nd_hook_options hook_options(const nd_handle *h)
{
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = h->o.max_drift;
	ho.verify.point = h->o.point;
	ho.group_commit = h->o.group_commit;
	return ho;
}

int nd_commit(nd_handle *h)
{
	/* Through its hook when it has one, which counts the common text
	 * again once that is due (nd_hook_options.recount_max). */
	return h->hook ? nd_hook_commit(h->hook) : nd_store_commit(h->st);
}

int nd_changed(nd_handle *h, nd_docid docid, nd_hook_result *out)
{
	nd_hook_options ho = hook_options(h);
	nd_xdb *w = NULL;
	nd_hook *once = NULL;
	int rc, slot;
	if (!(h->flags & ND_OPEN_WRITE))
		return nd_error_set(ND_ESTATE, "store %s: opened without ND_OPEN_WRITE: nothing can be changed",
				    nd_store_path(h->st));
	if ((rc = nd_xdb_reopen(h->db, NULL)) < 0 || (rc = nd_collapse_slot_get(h->st, &slot)) < 0)
		return rc;
	if (slot < 0) {
		if (!h->hook && (rc = nd_hook_open(&h->hook, h->db, h->st, &ho)) < 0)
			return rc;
		return nd_hook_changed(h->hook, docid, out);
	}
	/* The slot is written in the database: a writable handle for this
	 * change only, so that the indexer's writer may open between them. */
	ho.group_commit = 0; /* the slot commits with this change */
	if ((rc = nd_store_commit(h->st)) < 0)
		return rc;
	if ((rc = nd_xdb_open(&w, h->dbpath, ND_XDB_WRITE)) < 0) {
		if (rc == ND_ELOCKED)
			rc = nd_error_set(ND_ELOCKED, "%s: the store keeps collapse ids in value slot %d, which "
					  "this change writes: commit and close the indexer's writer first",
					  h->dbpath, slot);
		return rc;
	}
	if ((rc = nd_hook_open(&once, w, h->st, &ho)) == ND_OK && (rc = nd_hook_changed(once, docid, out)) == ND_OK)
		rc = nd_xdb_commit(w);
	nd_hook_free(once);
	nd_xdb_close(w);
	return rc;
}

nd_xdb *nd_handle_db(nd_handle *h)
{
	return h->db;
}

nd_store *nd_handle_store(nd_handle *h)
{
	return h->st;
}

const nd_descriptor *nd_handle_descriptor(nd_handle *h)
{
	return h->d;
}

nd_tokenizer *nd_handle_tokenizer(nd_handle *h)
{
	return h->tk;
}
