/* Leader clustering inside a candidate cluster: bounded comparisons, exact
 * distances where they matter (<= the bound), cut-off elsewhere. */
#include "neardup/verify.h"
#include "neardup/similarity.h"
#include "neardup/words.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	uint32_t *ids;
	size_t n;
	uint32_t group;
} leader;

int nd_verify_cluster(nd_xdb *db, const nd_docid *docs, size_t n, const nd_verify_options *opts,
		      nd_verified *out, uint32_t *ngroups, nd_verify_stats *stats)
{
	nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
	nd_verify_stats local = {0};
	leader *leaders = NULL;
	size_t nleaders = 0;
	uint32_t groups = 0;
	int rc = ND_OK;

	if (opts)
		o = *opts;
	if (!stats)
		stats = &local;
	if (o.max_leaders == 0)
		o.max_leaders = 1;
	if (!(leaders = calloc(o.max_leaders, sizeof(*leaders))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		uint32_t *ids = NULL;
		size_t nw = 0;
		nd_words_source src;
		out[i] = (nd_verified){docs[i], 0, 0, ND_VERIFIED_REPRESENTATIVE};
		rc = nd_words_get(db, docs[i], &ids, &nw, &src);
		if (rc == ND_ENOTFOUND) {
			out[i].group = groups++;
			out[i].how = ND_VERIFY_NO_WORDS;
			stats->no_words++;
			rc = ND_OK;
			continue;
		}
		if (rc < 0)
			goto cleanup;
		if (src == ND_WORDS_POSITIONS)
			stats->rebuilt++;
		int joined = 0;
		for (size_t l = 0; l < nleaders && !joined; l++) {
			const leader *L = &leaders[l];
			size_t longer = nw > L->n ? nw : L->n;
			stats->compared++;
			if (longer > o.max_exact_words) {
				nd_shingle_sim s;
				if ((rc = nd_shingle_similarity(L->ids, L->n, ids, nw, o.shingle_width, &s)) < 0) {
					free(ids);
					goto cleanup;
				}
				if (s.ssr >= o.min_resemblance) {
					out[i] = (nd_verified){docs[i], L->group, 1 - s.ssr, ND_VERIFIED_SHINGLES};
					joined = 1;
				}
			} else {
				double d;
				int exact;
				if ((rc = nd_levenshtein(L->ids, L->n, ids, nw, o.max_distance, &d, &exact)) < 0) {
					free(ids);
					goto cleanup;
				}
				if (exact && d <= o.max_distance) {
					out[i] = (nd_verified){docs[i], L->group, d, ND_VERIFIED_LEVENSHTEIN};
					joined = 1;
				}
			}
			if (!joined)
				stats->rejected++;
		}
		if (joined) {
			free(ids);
			continue;
		}
		out[i].group = groups++;
		if (nleaders < o.max_leaders)
			leaders[nleaders++] = (leader){ids, nw, out[i].group};
		else
			free(ids); /* past max_leaders: a group of its own, never compared again */
	}
cleanup:
	for (size_t l = 0; l < nleaders; l++)
		free(leaders[l].ids);
	free(leaders);
	if (ngroups)
		*ngroups = groups;
	return rc;
}
