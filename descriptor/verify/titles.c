/* Numbers that title many texts: a site's release or name, not a page's
 * own (record.h, ND_TITLE_PLACES).
 *
 * "Django 1.4.14 release notes" and "Django 1.6.6 release notes" are two
 * releases' notes, however much text they share; "Django 3.2.25
 * documentation" heading every page of a site is the site's release, and
 * a copy of one of its pages made for the next release moves it.  What
 * tells them is how many texts hold the number in their title: counted
 * over kin (documents of plain resemblance ND_KIN_RESEMBLANCE or more,
 * joined), so that a page and its edited copies are one.  Kept beside
 * the common table and counted with it; a check and a hook read it as
 * counted. */
#include "descriptor/verify/common.h"
#include "descriptor/verify/verify_internal.h"
#include "common/nd_buf.h"

#include <stdlib.h>
#include <string.h>

#define META_TITLES "common-titles"

/* The distinct values among r's title places (at most ND_TITLE_WORDS)
 * into out; their number. */
static size_t title_values(const nd__rec *r, uint32_t out[ND_TITLE_WORDS])
{
	size_t m = 0;
	for (uint32_t i = 0; i < r->nplaces && m < ND_TITLE_WORDS && (uint32_t)(r->places[i] >> 32) < ND_TITLE_PLACES; i++)
		out[m++] = (uint32_t)r->places[i];
	return nd__sort_unique_u32(out, m);
}

int nd__common_titles(nd__common *c, const nd__recset *rs, const uint32_t *reps, const uint32_t *kin, size_t n)
{
	uint32_t title[ND_TITLE_WORDS], tile = UINT32_MAX, *t = NULL;
	void *v = NULL; /* each number << 32 | its text's kin */
	size_t m = 0, cap = 0, u = 0;
	int rc = ND_OK;
	for (size_t k = 0; k < n && rc == ND_OK; k++) {
		nd__recset_walked(rs, reps[k], &tile);
		size_t nt = title_values(nd__recset_get(rs, reps[k]), title);
		if ((rc = nd_array_reserve(&v, &cap, m + nt, sizeof(uint64_t))) == ND_OK)
			for (size_t i = 0; i < nt; i++)
				((uint64_t *)v)[m++] = (uint64_t)title[i] << 32 | (kin ? kin[k] : (uint32_t)k);
	}
	/* Each number once a kin (a page and its edited copies are one),
	 * then those two kin's titles hold or more, ascending. */
	const uint64_t *e = v;
	if (rc == ND_OK && (m = nd__sort_unique_u64(v, m)) && !(t = malloc(m * sizeof(*t))))
		rc = nd_error_set(ND_ENOMEM, "out of memory for the numbers of %zu titles", n);
	for (size_t i = 0, j; rc == ND_OK && i < m; i = j) {
		for (j = i + 1; j < m && e[j] >> 32 == e[i] >> 32; j++)
			;
		if (j - i >= 2)
			t[u++] = (uint32_t)(e[i] >> 32);
	}
	free(v);
	if (rc < 0)
		return rc;
	free(c->titles_owned);
	c->titles_owned = t, c->titles = t, c->ntitles = (uint32_t)u, c->titles_known = 1;
	return ND_OK;
}

int nd__common_title_many(const nd__common *c, uint32_t value)
{
	if (!c || !c->titles_known)
		return 1; /* not counted: every number may be a site's */
	return nd__in_sorted_u32(c->titles, c->ntitles, value);
}

/* As the store keeps them: the values, ascending (a zero-length value:
 * counted, none). */
int nd__titles_store(nd_store_txn *txn, const nd__common *c)
{
	if (!c->titles_known)
		return ND_OK;
	return nd_store_meta_put(txn, META_TITLES, c->ntitles ? (const void *)c->titles : (const void *)"",
				 (size_t)c->ntitles * sizeof(uint32_t));
}

int nd__titles_load(nd_store_txn *txn, nd__common *c)
{
	const void *v;
	size_t len;
	int rc = nd_store_meta_get(txn, META_TITLES, &v, &len);
	if (rc == ND_ENOTFOUND)
		return ND_OK; /* signed before the count */
	if (rc < 0)
		return rc;
	if (len % sizeof(uint32_t) || len / sizeof(uint32_t) > UINT32_MAX)
		return nd_error_set(ND_ECORRUPT, "the store's numbers of titles are damaged (%zu bytes); "
				    "`neardup sign --restart` makes them again", len);
	uint32_t n = (uint32_t)(len / sizeof(uint32_t));
	uint32_t *own = NULL;
	if (n && (uintptr_t)v % sizeof(uint32_t)) {
		if (!(own = malloc(len)))
			return nd_error_set(ND_ENOMEM, "out of memory for the numbers of titles");
		memcpy(own, v, len);
		v = own;
	}
	const uint32_t *t = v;
	for (uint32_t i = 1; i < n; i += n / 64 + 1)
		if (t[i] <= t[i - 1]) {
			free(own);
			return nd_error_set(ND_ECORRUPT, "the store's numbers of titles are out of order; "
					    "`neardup sign --restart` makes them again");
		}
	free(c->titles_owned);
	c->titles_owned = own, c->titles = t, c->ntitles = n, c->titles_known = 1;
	return ND_OK;
}

int nd__titles_own(nd__common *c)
{
	if (!c->ntitles || c->titles_owned)
		return ND_OK;
	if (!(c->titles_owned = malloc((size_t)c->ntitles * sizeof(uint32_t))))
		return nd_error_set(ND_ENOMEM, "out of memory for the numbers of titles");
	memcpy(c->titles_owned, c->titles, (size_t)c->ntitles * sizeof(uint32_t));
	c->titles = c->titles_owned;
	return ND_OK;
}
