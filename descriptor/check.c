/* Crawl-time check: sign text as if it were indexed, then verify it
 * against the members of the cluster it would join. */
#include "neardup/check.h"
#include "neardup/similarity.h"
#include "neardup/words.h"
#include "descriptor/desc_internal.h"

#include <stdlib.h>
#include <string.h>

int nd_sig_from_tokens(const nd_descriptor *d, const nd_token *tokens, size_t n, nd_sig *out)
{
	/* wdf of each descriptive word present; the rest only add to len,
	 * exactly as Xapian's length counts them for our databases. */
	uint32_t *wdf = NULL;
	uint16_t *seen = NULL;
	size_t nseen = 0;
	int rc = ND_OK;

	out->nbits = 0;
	out->key = 0;
	if (n > UINT32_MAX)
		return nd_error_set(ND_ETOOBIG, "document of %zu words", n);
	if (!(wdf = calloc(d->n, sizeof(uint32_t))) || !(seen = malloc((n + 1) * sizeof(uint16_t)))) {
		free(wdf);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		int32_t w = nd__find_sorted(d->words, d->n, tokens[i].text, tokens[i].len);
		if (w >= 0 && wdf[w]++ == 0)
			seen[nseen++] = (uint16_t)w;
	}
	qsort(seen, nseen, sizeof(uint16_t), nd__cmp_u16);
	for (size_t i = 0; i < nseen && rc == ND_OK; i++)
		if (nd_bit_above(wdf[seen[i]], (uint32_t)n, d->thresholds[seen[i]]))
			rc = nd_sig_push(out, seen[i]);
	if (rc == ND_OK)
		out->key = nd_sig_key(out->bits, out->nbits);
	free(wdf);
	free(seen);
	return rc;
}

void nd_check_result_clear(nd_check_result *r)
{
	nd_sig_clear(&r->sig);
	free(r->members);
	memset(r, 0, sizeof(*r));
}

int nd_check_text(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db, nd_store *st,
		  const char *text, size_t len, double max_distance, size_t max_compare,
		  nd_check_result *out)
{
	const nd_token *t;
	size_t n;
	uint32_t *ids = NULL, *docs = NULL;
	size_t ndocs = 0;
	nd_store_txn *txn = NULL;
	int rc;

	out->cluster_size = out->nmembers = out->duplicates = 0;
	if (d->word_lengths)
		return nd_error_set(ND_EINVAL, "this set measures lengths in termlist words (a database "
				    "built by another indexer); checking text needs one built by "
				    "'neardup index'");
	if ((rc = nd_tokenize(tk, text, len, 0, &t, &n, NULL)) < 0 ||
	    (rc = nd_sig_from_tokens(d, t, n, &out->sig)) < 0)
		return rc;
	if (!out->sig.key)
		return ND_OK;
	if ((rc = nd_store_read_begin(st, &txn)) < 0 ||
	    (rc = nd_store_key_docs(txn, out->sig.key, &docs, &ndocs)) < 0)
		goto cleanup;
	nd_store_txn_end(txn);
	txn = NULL;
	out->cluster_size = ndocs;
	if (!ndocs)
		goto cleanup;
	/* Word ids of the text, to compare with the members' sequences. */
	if (!(ids = malloc((n + 1) * sizeof(uint32_t)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	nd_word_ids(t, n, ids);
	size_t m = ndocs < max_compare ? ndocs : max_compare;
	if (!(out->members = calloc(m + 1, sizeof(nd_check_member)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	for (size_t i = 0; i < m; i++) {
		uint32_t *w = NULL;
		size_t nw;
		double dist = 1;
		int exact = 0;
		rc = nd_words_get(db, docs[i], &w, &nw, NULL);
		if (rc == ND_OK)
			rc = nd_levenshtein(ids, n, w, nw, max_distance, &dist, &exact);
		free(w);
		if (rc == ND_ENOTFOUND) /* deleted since signing, or no words */
			rc = ND_OK;
		else if (rc < 0)
			goto cleanup;
		nd_check_member *cm = &out->members[out->nmembers++];
		cm->docid = docs[i];
		cm->distance = dist;
		cm->duplicate = exact && dist <= max_distance;
		out->duplicates += cm->duplicate;
	}
cleanup:
	nd_store_txn_end(txn);
	free(docs);
	free(ids);
	return rc;
}
