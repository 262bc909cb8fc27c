/* Floors: where a page's record is compared so that its site's template
 * is known there (record.h, "a site's template").
 *
 * A record samples the shingles whose hash is at or below its threshold,
 * and a longer page has a lower one.  A site's template is counted from
 * its pages' samples, so above the threshold of one of its pages that
 * page's share is unseen: a rotating teaser that it and one other page
 * hold looks like the other's own text there.  Compared at the lower
 * threshold of its site's pages, a page's own text is what its site
 * holds nowhere else.  Kept beside the common table, by the hash of the
 * page's word sequence, so that a check of the page's text finds its
 * floor as a pass over the store does. */
#include "descriptor/verify/common.h"
#include "descriptor/verify/verify_internal.h"

#include <stdlib.h>
#include <string.h>

#define META_FLOORS "common-floors"
#define FLOOR_BYTES ND_FLOOR_BYTES /* the text's hash, then the floor */

static uint64_t ent_text(const uint8_t *e)
{
	uint64_t t;
	memcpy(&t, e, 8);
	return t;
}

static uint32_t ent_floor(const uint8_t *e)
{
	uint32_t f;
	memcpy(&f, e + 8, 4);
	return f;
}

static int by_text(const void *a, const void *b)
{
	uint64_t x = ent_text(a), y = ent_text(b);
	return (x > y) - (x < y);
}

int nd__common_floors(nd__common *c, const nd__recset *rs, const uint32_t *site, size_t n)
{
	uint64_t *st = malloc((n + 1) * sizeof(*st));
	uint32_t nsites = 0, *floor = NULL, tile = UINT32_MAX;
	size_t m = 0, nf = 0;
	uint8_t *out = NULL;
	if (!st)
		return nd_error_set(ND_ENOMEM, "out of memory for the floors of %zu documents", n);
	for (size_t i = 0; i < n; i++) {
		nd__recset_walked(rs, i, &tile);
		if (site[i] && nd__recset_get(rs, i)->nwords) {
			st[m++] = (uint64_t)site[i] << 32 | nd__recset_get(rs, i)->thr;
			nsites = site[i] > nsites ? site[i] : nsites;
		}
	}
	nd__sort_u64(st, m);
	/* Each site's floor: the threshold its ND_SITE_FLOOR_PAGES highest
	 * reach (all of a smaller site's). */
	if (!(floor = calloc((size_t)nsites + 1, sizeof(*floor)))) {
		free(st);
		return nd_error_set(ND_ENOMEM, "out of memory for the floors of %u sites", nsites);
	}
	for (size_t i = 0, j; i < m; i = j) {
		for (j = i + 1; j < m && st[j] >> 32 == st[i] >> 32; j++)
			;
		size_t k = j - i < ND_SITE_FLOOR_PAGES ? j - i : ND_SITE_FLOOR_PAGES;
		floor[st[i] >> 32] = (uint32_t)st[j - k];
	}
	free(st);
	if (m && !(out = malloc(m * FLOOR_BYTES))) {
		free(floor);
		return nd_error_set(ND_ENOMEM, "out of memory for the floors of %zu documents", m);
	}
	for (size_t i = 0; i < n && m; i++) {
		nd__recset_walked(rs, i, &tile);
		const nd__rec *r = nd__recset_get(rs, i);
		if (!site[i] || !r->nwords)
			continue;
		/* Never past half the sample: one long page must not leave
		 * its site's short ones a handful of shingles. */
		uint32_t f = floor[site[i]], half = r->thr / 2 ? r->thr / 2 : 1;
		f = f > half ? f : half;
		if (f >= r->thr)
			continue;
		memcpy(out + nf * FLOOR_BYTES, &r->text, 8);
		memcpy(out + nf * FLOOR_BYTES + 8, &f, 4);
		nf++;
	}
	free(floor);
	/* One entry a text: a text on two sites is compared at the lower. */
	if (nf)
		qsort(out, nf, FLOOR_BYTES, by_text);
	size_t u = 0;
	for (size_t i = 0; i < nf; i++) {
		if (u && ent_text(out + (u - 1) * FLOOR_BYTES) == ent_text(out + i * FLOOR_BYTES)) {
			if (ent_floor(out + i * FLOOR_BYTES) < ent_floor(out + (u - 1) * FLOOR_BYTES))
				memcpy(out + (u - 1) * FLOOR_BYTES + 8, out + i * FLOOR_BYTES + 8, 4);
			continue;
		}
		memmove(out + u * FLOOR_BYTES, out + i * FLOOR_BYTES, FLOOR_BYTES);
		u++;
	}
	free(c->floors_owned);
	c->floors_owned = out, c->floors = out, c->nfloors = (uint32_t)u;
	return ND_OK;
}

uint32_t nd__floor_in(const uint8_t *v, size_t n, uint64_t text)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ent_text(v + mid * FLOOR_BYTES) < text)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ent_text(v + lo * FLOOR_BYTES) == text ? ent_floor(v + lo * FLOOR_BYTES) : UINT32_MAX;
}

uint32_t nd__common_floor(const nd__common *c, uint64_t text)
{
	if (!c)
		return UINT32_MAX;
	/* A page's floor by its site counted apart, else the table's. */
	uint32_t f = c->nextra_floors ? nd__floor_in(c->extra_floors, c->nextra_floors, text) : UINT32_MAX;
	return f != UINT32_MAX ? f : nd__floor_in(c->floors, c->nfloors, text);
}

void nd__common_floor_entries(const nd__common *c, const uint8_t **v, size_t *n)
{
	*v = c->floors, *n = c->nfloors;
}

size_t nd__common_nfloors(const nd__common *c)
{
	return c ? c->nfloors : 0;
}

/* As the store keeps them: the entries, ascending by text (a zero-length
 * value: none). */
int nd__floors_store(nd_store_txn *txn, const nd__common *c)
{
	return nd_store_meta_put(txn, META_FLOORS, c->nfloors ? c->floors : (const void *)"",
				 (size_t)c->nfloors * FLOOR_BYTES);
}

int nd__floors_load(nd_store_txn *txn, nd__common *c)
{
	const void *v;
	size_t len;
	int rc = nd_store_meta_get(txn, META_FLOORS, &v, &len);
	if (rc == ND_ENOTFOUND || (rc == ND_OK && len == 0))
		return ND_OK; /* signed before floors, or without a site */
	if (rc < 0)
		return rc;
	if (len % FLOOR_BYTES || len / FLOOR_BYTES > UINT32_MAX)
		return nd_error_set(ND_ECORRUPT, "the store's floors of sites' pages are damaged (%zu bytes); "
				    "`neardup sign --restart` makes them again", len);
	/* Spot checks of the order a search relies on. */
	uint32_t n = (uint32_t)(len / FLOOR_BYTES);
	const uint8_t *p = v;
	for (size_t i = 1; i < n; i += n / 64 + 1)
		if (ent_text(p + i * FLOOR_BYTES) <= ent_text(p + (i - 1) * FLOOR_BYTES))
			return nd_error_set(ND_ECORRUPT, "the store's floors of sites' pages are out of order; "
					    "`neardup sign --restart` makes them again");
	c->floors = p, c->nfloors = n;
	return ND_OK;
}

int nd__floors_own(nd__common *c)
{
	if (!c->nfloors || c->floors_owned)
		return ND_OK;
	if (!(c->floors_owned = malloc((size_t)c->nfloors * FLOOR_BYTES)))
		return nd_error_set(ND_ENOMEM, "out of memory for the floors of sites' pages");
	memcpy(c->floors_owned, c->floors, (size_t)c->nfloors * FLOOR_BYTES);
	c->floors = c->floors_owned;
	return ND_OK;
}
