/* A site's template counted as its pages arrive (hooks).
 *
 * The collection's count (near.c) takes text that distinct pages of one
 * host hold for that site's template, but it runs over every record, so
 * hooks run it only while a store is small and at each quarter's growth;
 * past nd_hook_options.recount_max only `update` does.  A site that first
 * arrived in between had its template counted as evidence: two of its
 * pages, half of each the template, were copies, and a page copied onto
 * another site was no copy (two templates against one article).  So a
 * hook counts the arriving page's own site over its pages as the
 * collection's count would (nd__site_template), at every page while the
 * site is new and at each quarter's growth after.  A site is what the
 * collection's count takes for one: a host (H), else omindex's base URL
 * (J), else, for a page with neither, its frame, whose pages the store
 * lists as they arrive (nd__site_frame).  The store's meta
 * keeps what it takes ("site/" and the site's hash: the template's
 * shingles and its pages' floors, with the collection count it came
 * after; a later count holds the site, and the entry is then left
 * unused) and each page's site (its note, nd__store_note_put, dropped with its record).  Every pair
 * the links' settling judges (hooks, update), `check` compares or a hook
 * reports is weighed with both pages' sites' templates (nd__site_pair),
 * so an arriving page is linked by its own text; when a site is counted
 * again, its pages that arrived since are judged again with their
 * neighbours, and the others counted have their links judged again. */
#include "descriptor/cluster/cluster_internal.h"
#include "descriptor/verify/record.h"
#include "descriptor/verify/verify_internal.h"
#include "indexer/html_text.h"
#include "lmdb_store/store_internal.h"
#include "neardup/store.h"
#include "neardup/xdb.h"
#include "common/nd_buf.h"
#include "common/nd_hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A site is counted over its latest pages, at most this many
 * (nd__site_template), and a hook reads the postings of its page's host
 * only up to this: a larger site (a crawl's new large host past
 * recount_max) keeps what it was counted as while smaller, until
 * `update` or the collection's count counts it again. */
size_t nd__site_pages_max = 4096;

/* An entry: the collection count it came after (ND_META_COMMON_COUNTED's
 * two uint64), the site's pages then, how many hashes; the hashes, their
 * groups, then its pages' floors. */
#define ENTRY_HEAD 32

static void entry_name(char *buf, size_t cap, uint64_t site)
{
	snprintf(buf, cap, "site/%016llx", (unsigned long long)site);
}

/* The collection count now (zeros: none recorded). */
static void counted_now(nd_store_txn *txn, uint64_t c[2])
{
	const void *v;
	size_t len;
	c[0] = c[1] = 0;
	if (nd_store_meta_get(txn, ND_META_COMMON_COUNTED, &v, &len) == ND_OK && len == 2 * sizeof(uint64_t))
		memcpy(c, v, 2 * sizeof(uint64_t));
}

void nd__site_tpl_free(nd__site_tpl *t)
{
	free(t->h);
	free(t->g);
	free(t->floors);
	memset(t, 0, sizeof(*t));
}

void nd__site_free(nd__site *s)
{
	free(s->docs);
	memset(s, 0, sizeof(*s));
}

/* term's postings below limit (0: all) added to *v, while *n stays at
 * most max. */
static int add_postings(nd_xdb *db, const char *term, nd_docid limit, size_t max, nd_docid **v, size_t *n,
			size_t *cap)
{
	nd_xdb_postlist *pl = NULL;
	nd_posting buf[256];
	size_t got;
	int rc = nd_xdb_postlist_open(&pl, db, term);
	while (rc == ND_OK && *n <= max) {
		if ((rc = nd_xdb_postlist_next(pl, limit, buf, 256, &got)) < 0 || !got)
			break;
		void *p = *v;
		if ((rc = nd_array_reserve(&p, cap, *n + got, sizeof(nd_docid))) < 0)
			break;
		*v = p;
		for (size_t i = 0; i < got; i++)
			(*v)[(*n)++] = buf[i].docid;
	}
	nd_xdb_postlist_free(pl);
	return rc;
}

/* The site docid's term names (nd_xdb_doc_site): its key as the
 * collection's count makes it, and the terms of its pages (a host's with
 * and without "www."; a base URL's alone), into t1 and t2 ("" for none).
 * 0: no site. */
static int site_terms(nd_xdb *db, nd_docid docid, uint64_t *key, char t1[512], char t2[512])
{
	char *term = NULL;
	const char *bare;
	int rc = nd_xdb_doc_site(db, docid, &term);
	*key = 0, t1[0] = t2[0] = 0;
	if (rc < 0 || !term)
		return rc;
	size_t len = strlen(term), nb = nd_host_bare(term + 1, len - 1, &bare);
	if (len + 5 < 512) { /* no site's name is that long */
		*key = nd__site_hash(bare, nb);
		if (term[0] == 'H')
			snprintf(t1, 512, "H%.*s", (int)nb, bare), snprintf(t2, 512, "Hwww.%.*s", (int)nb, bare);
		else
			memcpy(t1, term, len + 1);
	}
	free(term);
	return ND_OK;
}

int nd__site_key_of(nd_xdb *db, nd_docid docid, uint64_t *key)
{
	char t1[512], t2[512];
	return site_terms(db, docid, key, t1, t2);
}

int nd__site_of(nd_xdb *db, nd_docid docid, nd_docid seen, size_t max_pages, nd__site *s)
{
	char t1[512], t2[512];
	size_t cap = 0;
	memset(s, 0, sizeof(*s));
	int rc = site_terms(db, docid, &s->key, t1, t2);
	if (rc < 0 || !s->key)
		return rc;
	/* Its pages under both names, as the collection's count reads them.
	 * A page of a larger site still names it: the template its count
	 * took while smaller weighs its pairs (without it, every page past
	 * the limit would count the template as evidence again). */
	nd_docid limit = seen && seen < UINT32_MAX ? seen + 1 : 0;
	if ((rc = add_postings(db, t1, limit, max_pages, &s->docs, &s->ndocs, &cap)) == ND_OK && t2[0])
		rc = add_postings(db, t2, limit, max_pages, &s->docs, &s->ndocs, &cap);
	if (rc < 0) {
		nd__site_free(s);
		return rc;
	}
	s->ndocs = nd__sort_unique_u32(s->docs, s->ndocs);
	if (s->ndocs > max_pages) { /* too large to count: named only */
		free(s->docs);
		s->docs = NULL, s->ndocs = 0;
	}
	return ND_OK;
}

/* A frame's site: its top half, as the collection's count groups frames;
 * another seed than hosts'. */
static uint64_t frame_key(uint64_t frame)
{
	uint32_t top = (uint32_t)(frame >> 32);
	return nd_hash_bytes(&top, sizeof(top), 0x6672616d65ULL);
}

int nd__site_frame(nd_store_txn *txn, nd_docid docid, uint64_t frame, nd__site *s)
{
	memset(s, 0, sizeof(*s));
	/* Its pages are the store's list of the group, as they arrived since
	 * (nd__store_group_join). */
	uint64_t key = frame_key(frame);
	int rc = nd__store_group_join(txn, docid, key, nd__site_pages_max, &s->docs, &s->ndocs);
	if (rc == ND_OK)
		s->key = key, s->by_frame = 1;
	return rc;
}

/* The latest pages of docs[0..n) with words in the store, at most
 * nd__site_pages_max, ascending, into *out (caller frees). */
static int latest_with_records(nd_store_txn *txn, const nd_docid *docs, size_t n, nd_docid **out, size_t *nout)
{
	size_t max = nd__site_pages_max, k = max;
	nd_docid *v = malloc((max + 1) * sizeof(*v));
	*out = NULL, *nout = 0;
	if (!v)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = n; i-- > 0 && k > 0;) {
		nd__rec r;
		int rc = nd__rec_of_doc(txn, docs[i], &r);
		if (rc == ND_ENOTFOUND)
			continue;
		if (rc < 0) {
			free(v);
			return rc;
		}
		if (r.nwords)
			v[--k] = docs[i];
		nd__rec_free(&r);
	}
	memmove(v, v + k, (max - k) * sizeof(*v));
	*out = v, *nout = max - k;
	return ND_OK;
}

/* Its entry, read in place, when the entry came after the collection
 * count now (1): *len bytes at *v, and the site's pages then. */
static int entry_get(nd_store_txn *txn, uint64_t key, const uint64_t c[2], uint64_t *pages, const void **v,
		     size_t *len)
{
	char name[32];
	uint64_t head[4];
	*pages = 0;
	entry_name(name, sizeof(name), key);
	int rc = nd_store_meta_get(txn, name, v, len);
	if (rc == ND_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	if (*len < ENTRY_HEAD)
		return 0; /* damaged: counted again */
	memcpy(head, *v, sizeof(head));
	size_t rest = *len - ENTRY_HEAD;
	if (head[3] > rest / 8 || (rest - head[3] * 8) % ND_FLOOR_BYTES)
		return 0;
	if (head[0] != c[0] || head[1] != c[1])
		return 0; /* the collection was counted since: its table holds it */
	*pages = head[2];
	return 1;
}

/* The template of an entry entry_get found, copied out of it. */
static int entry_parse(const void *v, size_t len, nd__site_tpl *t)
{
	uint64_t head[4];
	memset(t, 0, sizeof(*t));
	memcpy(head, v, sizeof(head));
	t->n = head[3], t->nfloors = (len - ENTRY_HEAD - t->n * 8) / ND_FLOOR_BYTES;
	if ((t->n && (!(t->h = malloc(t->n * 4)) || !(t->g = malloc(t->n * 4)))) ||
	    (t->nfloors && !(t->floors = malloc(t->nfloors * ND_FLOOR_BYTES)))) {
		nd__site_tpl_free(t);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	if (t->n) {
		memcpy(t->h, (const uint8_t *)v + ENTRY_HEAD, t->n * 4);
		memcpy(t->g, (const uint8_t *)v + ENTRY_HEAD + t->n * 4, t->n * 4);
	}
	if (t->nfloors)
		memcpy(t->floors, (const uint8_t *)v + ENTRY_HEAD + t->n * 8, t->nfloors * ND_FLOOR_BYTES);
	return ND_OK;
}

/* Its entry's template, when the entry came after the collection count
 * now (1), and its pages then. */
static int entry_load(nd_store_txn *txn, uint64_t key, const uint64_t c[2], uint64_t *pages, nd__site_tpl *t)
{
	const void *v;
	size_t len;
	memset(t, 0, sizeof(*t));
	int rc = entry_get(txn, key, c, pages, &v, &len);
	if (rc <= 0)
		return rc;
	return (rc = entry_parse(v, len, t)) < 0 ? rc : 1;
}

/* The collection count after which hooks last counted a site: a store
 * where none was since is judged by its table alone, without a lookup a
 * page. */
#define META_SITES "site-counted"

static int entry_store(nd_store_txn *txn, uint64_t key, const uint64_t c[2], uint64_t pages, const nd__site_tpl *t)
{
	char name[32];
	uint64_t head[4] = {c[0], c[1], pages, t->n};
	size_t len = ENTRY_HEAD + t->n * 8 + t->nfloors * ND_FLOOR_BYTES;
	uint8_t *buf = malloc(len);
	if (!buf)
		return nd_error_set(ND_ENOMEM, "out of memory");
	memcpy(buf, head, sizeof(head));
	if (t->n) {
		memcpy(buf + ENTRY_HEAD, t->h, t->n * 4);
		memcpy(buf + ENTRY_HEAD + t->n * 4, t->g, t->n * 4);
	}
	if (t->nfloors)
		memcpy(buf + ENTRY_HEAD + t->n * 8, t->floors, t->nfloors * ND_FLOOR_BYTES);
	entry_name(name, sizeof(name), key);
	int rc = nd_store_meta_put(txn, name, buf, len);
	free(buf);
	return rc < 0 ? rc : nd_store_meta_put(txn, META_SITES, c, 2 * sizeof(uint64_t));
}

static int tpl_equal(const nd__site_tpl *a, const nd__site_tpl *b)
{
	return a->n == b->n && a->nfloors == b->nfloors && (!a->n || (!memcmp(a->h, b->h, a->n * 4) &&
								       !memcmp(a->g, b->g, a->n * 4))) &&
	       (!a->nfloors || !memcmp(a->floors, b->floors, a->nfloors * ND_FLOOR_BYTES));
}

/* Whether a site of pages pages is due a count: ND_SITE_GROUPS pages or
 * more (ND_FRAME_END_GROUPS of a frame), and a quarter more than when it was last counted (by the
 * collection, or on its own), or a page more while that is under four. */
static int due(uint64_t pages, uint64_t then, int by_frame)
{
	uint64_t step = then / 4 ? then / 4 : 1;
	return pages >= (by_frame ? ND_FRAME_END_GROUPS : ND_SITE_GROUPS) && pages >= then + step;
}

void nd__site_judge_init(nd__site_judge *j, nd_store_txn *txn)
{
	memset(j, 0, sizeof(*j));
	const void *v;
	size_t len;
	j->txn = txn;
	counted_now(txn, j->counted);
	j->none = nd_store_meta_get(txn, META_SITES, &v, &len) != ND_OK || len != sizeof(j->counted) ||
		  memcmp(v, j->counted, len) != 0;
}

void nd__site_judge_free(nd__site_judge *j)
{
	for (size_t i = 0; i < j->nw; i++)
		nd__rec_free(&j->w[i].r);
	for (size_t i = 0; i < j->nsites; i++)
		nd__site_tpl_free(&j->tpl[i]);
	nd__site_tpl_free(&j->both);
	memset(j, 0, sizeof(*j));
}

/* The template hooks counted for docid's site (NULL: none), read into a
 * slot other than keep's (the pair's other page's, SIZE_MAX: none), whose
 * number *slot gets. */
static int template_of(nd__site_judge *j, nd_docid docid, size_t keep, const nd__site_tpl **t, size_t *slot)
{
	uint64_t key, pages;
	*t = NULL, *slot = SIZE_MAX;
	if (j->none)
		return ND_OK;
	/* Each page's note is its site, as hooks saw it. */
	int rc = nd__store_note_get(j->txn, docid, &key);
	if (rc == ND_ENOTFOUND)
		return ND_OK;
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < j->nsites; i++)
		if (j->key[i] == key) {
			*t = &j->tpl[i], *slot = i;
			return ND_OK;
		}
	/* The sites met last: a pass judges a few pages' neighbours. */
	size_t at = j->nsites;
	if (at < ND_SITE_JUDGE_SITES)
		j->nsites++;
	else {
		if ((at = j->next++ % ND_SITE_JUDGE_SITES) == keep)
			at = j->next++ % ND_SITE_JUDGE_SITES;
		nd__site_tpl_free(&j->tpl[at]);
	}
	j->key[at] = key;
	if ((rc = entry_load(j->txn, key, j->counted, &pages, &j->tpl[at])) < 0)
		return rc;
	*t = &j->tpl[at], *slot = at;
	return ND_OK;
}

/* Whether r's sample holds a hash of t[0..n) (both ascending). */
static int holds_any(const nd__rec *r, const uint32_t *t, size_t n)
{
	for (size_t i = 0, k = 0; i < r->nsample && k < n;) {
		if (r->sample[i] == t[k])
			return 1;
		if (r->sample[i] < t[k])
			i++;
		else
			k++;
	}
	return 0;
}

static void extra_of(const nd__site_tpl *t, nd__extra *e)
{
	*e = (nd__extra){t->h, t->g, t->n, t->floors, t->nfloors};
}

int nd__site_templates(nd__site_judge *j, nd_docid a, nd_docid b, nd__extra *e)
{
	const nd__site_tpl *ta = NULL, *tb;
	size_t sa = SIZE_MAX, sb;
	int rc;
	memset(e, 0, sizeof(*e));
	if ((a && (rc = template_of(j, a, SIZE_MAX, &ta, &sa)) < 0) || (rc = template_of(j, b, sa, &tb, &sb)) < 0)
		return rc;
	int ha = ta && (ta->n || ta->nfloors), hb = tb && (tb->n || tb->nfloors);
	j->ekey = 0;
	if (!ha || !hb || ta == tb) {
		if (ha || hb)
			extra_of(ha ? ta : tb, e), j->ekey = j->key[ha ? sa : sb];
		return ND_OK;
	}
	/* Both sites' templates and floors, merged. */
	nd__site_tpl *m = &j->both;
	if (ta->n + tb->n > j->cap) {
		uint32_t *p = realloc(m->h, (ta->n + tb->n) * sizeof(*p)), *q = p ? realloc(m->g, (ta->n + tb->n) * sizeof(*q)) : NULL;
		if (p)
			m->h = p;
		if (!q)
			return nd_error_set(ND_ENOMEM, "out of memory");
		m->g = q, j->cap = ta->n + tb->n;
	}
	if (ta->nfloors + tb->nfloors > j->fcap) {
		uint8_t *p = realloc(m->floors, (ta->nfloors + tb->nfloors) * ND_FLOOR_BYTES);
		if (!p)
			return nd_error_set(ND_ENOMEM, "out of memory");
		m->floors = p, j->fcap = ta->nfloors + tb->nfloors;
	}
	size_t i = 0, k = 0;
	m->n = 0;
	while (i < ta->n || k < tb->n) { /* a hash of both: the more groups */
		uint32_t h = k == tb->n || (i < ta->n && ta->h[i] <= tb->h[k]) ? ta->h[i] : tb->h[k], g = 0;
		if (i < ta->n && ta->h[i] == h)
			g = ta->g[i++];
		if (k < tb->n && tb->h[k] == h)
			g = tb->g[k] > g ? tb->g[k] : g, k++;
		m->h[m->n] = h, m->g[m->n++] = g;
	}
	/* Floors by the text's hash (its first 8 bytes); a text on both
	 * sites keeps the first's, as a lookup finds it. */
	i = k = 0, m->nfloors = 0;
	while (i < ta->nfloors || k < tb->nfloors) {
		uint64_t x = UINT64_MAX, y = UINT64_MAX;
		if (i < ta->nfloors)
			memcpy(&x, ta->floors + i * ND_FLOOR_BYTES, 8);
		if (k < tb->nfloors)
			memcpy(&y, tb->floors + k * ND_FLOOR_BYTES, 8);
		const uint8_t *from = k == tb->nfloors || (i < ta->nfloors && x <= y) ? ta->floors + i * ND_FLOOR_BYTES
										      : tb->floors + k * ND_FLOOR_BYTES;
		memcpy(m->floors + m->nfloors++ * ND_FLOOR_BYTES, from, ND_FLOOR_BYTES);
		if (i < ta->nfloors && x <= y)
			i++, k += k < tb->nfloors && y == x;
		else
			k++;
	}
	extra_of(m, e);
	return ND_OK;
}

/* Whether a page's record is the site's business: it holds a hash of the
 * template, or the site gave its text a floor. */
static int touched(const nd__rec *r, const nd__extra *e)
{
	return holds_any(r, e->h, e->n) || nd__floor_in(e->floors, e->nfloors, r->text) != UINT32_MAX;
}

/* docid's record r as weighed with its site's template (common's extras
 * set to it), into *out: kept in j (NULL: not kept, *tmp) and weighed on
 * its second use, as the links' records are (one use sums its weights
 * itself); the one kept at keep (the pair's other) stays. */
static int weighed_of(nd__site_judge *j, nd_docid docid, const nd__rec *r, const nd__common *common,
		      const nd__rec *keep, nd__rec *tmp, const nd__rec **out)
{
	*tmp = nd__rec_unweighed(r), *out = tmp;
	if (!j || !j->ekey || !docid)
		return ND_OK;
	nd__site_weighed *w = NULL;
	for (size_t i = 0; i < j->nw && !w; i++)
		if (j->w[i].doc == docid && j->w[i].site == j->ekey)
			w = &j->w[i];
	if (!w) {
		if (j->nw < ND_SITE_JUDGE_WEIGHED)
			w = &j->w[j->nw++];
		else {
			w = &j->w[j->wnext++ % ND_SITE_JUDGE_WEIGHED];
			if (&w->r == keep)
				w = &j->w[j->wnext++ % ND_SITE_JUDGE_WEIGHED];
			nd__rec_free(&w->r);
		}
		*w = (nd__site_weighed){docid, j->ekey, 0, *tmp};
	}
	*out = &w->r;
	return ++w->uses == 2 ? nd__rec_weigh(&w->r, common) : ND_OK;
}

/* The copy verdict on a and b (records x and y) with the sites' counts e
 * (j: kept weighed when e is one site's; NULL: not kept). */
static int verdict_with(nd__site_judge *j, const nd__extra *e, nd_docid a, const nd__rec *x, nd_docid b,
			const nd__rec *y, nd__common *common)
{
	/* Texts none of it touches are judged as the table alone judges them
	 * (and faster: weighed records keep those weights). */
	if (!touched(x, e) && !touched(y, e))
		return nd__rec_verdict(ND_POINT_COPY, x, y, common, NULL, NULL);
	nd__rec ux, uy;
	const nd__rec *px, *py;
	nd__common_set_extra(common, e);
	int rc = weighed_of(j, a, x, common, NULL, &ux, &px);
	if (rc == ND_OK && (rc = weighed_of(j, b, y, common, px, &uy, &py)) == ND_OK)
		rc = nd__rec_verdict(ND_POINT_COPY, px, py, common, NULL, NULL);
	nd__common_set_extra(common, NULL);
	return rc;
}

int nd__site_pair(nd__site_judge *j, nd_docid a, const nd__rec *x, nd_docid b, const nd__rec *y,
		  nd__common *common)
{
	nd__extra e;
	int rc = nd__site_templates(j, a, b, &e);
	return rc < 0 ? rc : verdict_with(j, &e, a, x, b, y, common);
}

int nd__site_cand_templates(void *ctx, nd_docid cand, nd__extra *e)
{
	nd__site_cands *c = ctx;
	return nd__site_templates(&c->j, c->self, cand, e);
}

/* How many of s's pages are docid or before. */
static size_t pages_upto(const nd__site *s, uint64_t docid)
{
	return nd__lower_bound_u32(s->docs, s->ndocs, docid < UINT32_MAX ? (uint32_t)docid + 1 : UINT32_MAX);
}

int nd__site_count(nd_store_txn *txn, nd__site *s, nd_docid docid, nd_docid **counted, size_t *ncounted,
		   nd_docid *since)
{
	uint64_t c[2], then = 0;
	uint32_t last;
	int rc;
	*counted = NULL, *ncounted = 0, *since = 0;
	/* A page indexed again without its host is no longer its site's. */
	if (!s->key)
		return nd__store_note_del(txn, docid);
	if ((rc = nd__store_note_put(txn, docid, s->key)) < 0)
		return rc;
	/* Its pages the store has seen: the database may hold more, not yet
	 * signed. */
	if ((rc = nd__store_last_doc(txn, &last)) < 0)
		return rc;
	size_t pages = pages_upto(s, last), elen;
	const void *ev;
	counted_now(txn, c);
	/* Its entry's head alone on most pages: the template is read when
	 * the site is due (the judge reads it apart). */
	int had = entry_get(txn, s->key, c, &then, &ev, &elen);
	if (had < 0)
		return had;
	if (!had) /* its pages when the collection was counted */
		then = pages_upto(s, c[1]);
	if (!due(pages, then, s->by_frame))
		return ND_OK;
	*since = then && then <= s->ndocs ? s->docs[then - 1] : 0;
	nd__site_tpl old, now;
	memset(&old, 0, sizeof(old));
	memset(&now, 0, sizeof(now));
	if (had && (rc = entry_parse(ev, elen, &old)) < 0) /* nothing written since it was read */
		return rc;
	if ((rc = latest_with_records(txn, s->docs, pages, counted, ncounted)) < 0 ||
	    (rc = nd__site_template(txn, *counted, *ncounted, s->by_frame, &now)) < 0 ||
	    (rc = entry_store(txn, s->key, c, pages, &now)) < 0 || tpl_equal(&old, &now)) {
		/* Counted as before (or as nothing, as before its first count):
		 * every page of it was judged with this already (a large site's
		 * template settles, and a frame's pages that are versions of one
		 * text have none). */
		free(*counted);
		*counted = NULL, *ncounted = 0;
	}
	nd__site_tpl_free(&old);
	nd__site_tpl_free(&now);
	return rc;
}

/* Whether hooks counted a template for the site key since the
 * collection's count (1). */
static int site_templated(nd_store_txn *txn, uint64_t key)
{
	uint64_t c[2], pages;
	const void *v;
	size_t len;
	counted_now(txn, c);
	int rc = entry_get(txn, key, c, &pages, &v, &len);
	return rc <= 0 ? rc : len > ENTRY_HEAD;
}

int nd__site_rejudge(nd_store_txn *txn, const nd_docid *docs, size_t n, nd_docid since, nd_docid self,
		     nd_docid **seeds, size_t *nseeds)
{
	nd__site_judge j;
	nd__common *common = NULL;
	uint64_t *put = NULL, *del = NULL;
	size_t nput = 0, ndel = 0, cput = 0, cdel = 0;
	int64_t apart = 0; /* links between two texts made, less those unmade */
	int rc = nd__common_load(txn, &common);
	if (seeds)
		*seeds = NULL, *nseeds = 0;
	if (rc < 0)
		return rc;
	nd__site_judge_init(&j, txn);
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		uint32_t *linked = NULL, *near = NULL;
		size_t nl = 0, nn = 0;
		nd__rec x = ND_REC_INIT;
		if (docs[i] == self)
			continue; /* the settling judged its pairs with the template */
		if ((rc = nd_store_links(txn, docs[i], &linked, &nl)) == ND_OK && docs[i] > since)
			rc = nd__links_neighbours(txn, docs[i], &near, &nn);
		if (rc == ND_OK && nl + nn)
			rc = nd__rec_of_doc(txn, docs[i], &x);
		/* Its links, then its neighbours not linked. */
		for (size_t k = 0; k < nl + nn && rc == ND_OK; k++) {
			nd_docid o = k < nl ? linked[k] : near[k - nl];
			int was = k < nl;
			if (o == docs[i])
				continue;
			if (!was) {
				int in = 0;
				for (size_t z = 0; z < nl && !in; z++)
					in = linked[z] == o;
				if (in)
					continue;
			}
			if (o == self || (o < docs[i] && (was || o > since) && nd__in_sorted_u32(docs, n, o)))
				continue; /* judged already, or a pair of two of them: judged once */
			nd__rec y = ND_REC_INIT;
			int yes = (rc = nd__rec_of_doc(txn, o, &y)) == ND_OK ? nd__site_pair(&j, docs[i], &x, o, &y, common)
									   : rc;
			if (yes >= 0 && was != yes && nd__links_apart(&x, &y))
				apart += yes ? 1 : -1;
			nd__rec_free(&y);
			rc = ND_OK;
			if (yes == ND_ENOTFOUND)
				continue;
			if (yes < 0) {
				rc = yes;
				break;
			}
			uint64_t pair = (uint64_t)docs[i] << 32 | o;
			void *p;
			if (was && !yes && (p = del, rc = nd_array_reserve(&p, &cdel, ndel + 1, sizeof(*del))) == ND_OK)
				del = p, del[ndel++] = pair;
			else if (!was && yes && (p = put, rc = nd_array_reserve(&p, &cput, nput + 1, sizeof(*put))) == ND_OK)
				put = p, put[nput++] = pair;
		}
		rc = rc == ND_ENOTFOUND ? ND_OK : rc;
		nd__rec_free(&x);
		free(linked);
		free(near);
	}
	nd__site_judge_free(&j);
	nd__common_free(common);
	/* Written after every verdict: the records were read in place. */
	if (rc == ND_OK && seeds && ndel + nput && !(*seeds = malloc(2 * (ndel + nput) * sizeof(**seeds))))
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < ndel + nput && rc == ND_OK; i++) {
		uint64_t pair = i < ndel ? del[i] : put[i - ndel];
		uint32_t a = (uint32_t)(pair >> 32), b = (uint32_t)pair;
		rc = i < ndel ? nd_store_link_del(txn, a, b) : nd_store_link_put(txn, a, b);
		if (seeds)
			(*seeds)[(*nseeds)++] = a, (*seeds)[(*nseeds)++] = b;
	}
	/* A site's template unmakes the links it made before its count:
	 * they are no sign that the collection's count is due. */
	if (rc == ND_OK && apart)
		rc = nd__links_apart_add(txn, apart);
	if (rc == ND_OK && seeds && *nseeds)
		*nseeds = nd__sort_unique_u32(*seeds, *nseeds);
	free(put);
	free(del);
	return rc;
}

int nd__site_verdict(nd__site_judge *j, nd__common *common, nd_docid a, nd_docid b)
{
	nd__extra e;
	nd__rec x = ND_REC_INIT, y = ND_REC_INIT;
	int rc = nd__site_templates(j, a, b, &e);
	if (rc == ND_OK && !e.n && !e.nfloors)
		return 2;
	if (rc == ND_OK && (rc = nd__rec_of_doc(j->txn, a, &x)) == ND_OK && (rc = nd__rec_of_doc(j->txn, b, &y)) == ND_OK)
		rc = verdict_with(NULL, &e, a, &x, b, &y, common);
	nd__rec_free(&x);
	nd__rec_free(&y);
	return rc;
}

int nd__merge_docids(nd_docid **v, size_t *n, const nd_docid *more, size_t nmore)
{
	nd_docid *all = realloc(*v, (*n + nmore) * sizeof(*all));
	if (!all)
		return nd_error_set(ND_ENOMEM, "out of memory");
	memcpy(all + *n, more, nmore * sizeof(*more));
	*v = all, *n = nd__sort_unique_u32(all, *n + nmore);
	return ND_OK;
}

int nd__site_arrived_all(nd_store_txn *txn, nd__site *s, const nd_docid *docs, size_t n)
{
	nd_docid *counted = NULL, since = 0;
	size_t ncounted = 0;
	int rc = ND_OK;
	if (!s->key || !n)
		return ND_OK;
	for (size_t i = 0; i + 1 < n && rc == ND_OK; i++)
		rc = nd__store_note_put(txn, docs[i], s->key);
	if (rc < 0 || (rc = nd__site_count(txn, s, docs[n - 1], &counted, &ncounted, &since)) < 0)
		return rc;
	/* Counted: its pages since its last count judged again with their
	 * neighbours, and these (a large site's are not all among the
	 * latest counted); else these, with its template. */
	if (ncounted) {
		nd_docid *rest = malloc((n + 1) * sizeof(*rest));
		size_t nrest = 0;
		if (!rest)
			rc = nd_error_set(ND_ENOMEM, "out of memory");
		for (size_t i = 0; rest && i < n; i++)
			if (!nd__in_sorted_u32(counted, ncounted, docs[i]))
				rest[nrest++] = docs[i];
		if (rc == ND_OK)
			rc = nd__site_rejudge(txn, counted, ncounted, since, 0, NULL, NULL);
		if (rc == ND_OK && nrest)
			rc = nd__site_rejudge(txn, rest, nrest, 0, 0, NULL, NULL);
		free(rest);
	} else if ((rc = site_templated(txn, s->key)) > 0)
		rc = nd__site_rejudge(txn, docs, n, 0, 0, NULL, NULL);
	free(counted);
	return rc;
}

typedef struct {
	uint64_t key;
	uint32_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int nd__group_by_key(const uint64_t *key, size_t n, uint32_t *order, size_t *start, size_t *ngroups)
{
	keyed *v = malloc((n + 1) * sizeof(*v));
	uint64_t *head = malloc((n + 1) * sizeof(*head));
	size_t ng = 0, k = 0;
	*ngroups = 0;
	if (!v || !head) {
		free(v), free(head);
		return nd_error_set(ND_ENOMEM, "out of memory grouping %zu pages", n);
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (keyed){key[i], (uint32_t)i};
	qsort(v, n, sizeof(*v), cmp_keyed);
	/* Each group's first index, and where it begins in v, in the order
	 * of the first indexes. */
	for (size_t i = 0; i < n; i++)
		if (!i || v[i].key != v[i - 1].key)
			head[ng++] = (uint64_t)v[i].i << 32 | i;
	nd__sort_u64(head, ng);
	for (size_t g = 0; g < ng; g++) {
		size_t at = (uint32_t)head[g];
		start[g] = k;
		for (size_t i = at; i < n && v[i].key == v[at].key; i++)
			order[k++] = v[i].i;
	}
	start[ng] = k;
	*ngroups = ng;
	free(v);
	free(head);
	return ND_OK;
}

int nd__site_frames_arrived(nd_store_txn *txn, const nd_docid *docs, size_t n)
{
	uint64_t *frame = malloc((n + 1) * sizeof(*frame)), *key = malloc((n + 1) * sizeof(*key));
	nd_docid *framed = malloc((n + 1) * sizeof(*framed));
	uint32_t *order = malloc((n + 1) * sizeof(*order));
	size_t *start = malloc((n + 2) * sizeof(*start)), m = 0, ng = 0;
	nd__site *site = NULL;
	int rc = frame && key && framed && order && start ? ND_OK : nd_error_set(ND_ENOMEM, "out of memory");
	/* Each page's frame (its record read in place: before the lists'
	 * writes), the pages grouped by the frame's site. */
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		nd__rec r;
		if ((rc = nd__rec_of_doc(txn, docs[i], &r)) == ND_ENOTFOUND) {
			rc = ND_OK;
			continue;
		}
		if (rc < 0)
			break;
		if (r.frame)
			framed[m] = docs[i], frame[m] = r.frame, key[m++] = frame_key(r.frame);
		nd__rec_free(&r);
	}
	if (rc == ND_OK && (rc = nd__group_by_key(key, m, order, start, &ng)) == ND_OK &&
	    !(site = calloc(ng + 1, sizeof(*site))))
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	/* Each page into its frame's list: the last list read holds the
	 * frame's pages, these among them. */
	for (size_t g = 0; g < ng && rc == ND_OK; g++)
		for (size_t k = start[g]; k < start[g + 1] && rc == ND_OK; k++) {
			nd__site_free(&site[g]);
			rc = nd__site_frame(txn, framed[order[k]], frame[order[k]], &site[g]);
		}
	/* Then each frame's site, with its pages of the pass (ascending:
	 * in index order). */
	nd_docid *mine = rc == ND_OK ? malloc((m + 1) * sizeof(*mine)) : NULL;
	if (rc == ND_OK && !mine)
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t g = 0; g < ng && rc == ND_OK; g++) {
		for (size_t k = start[g]; k < start[g + 1]; k++)
			mine[k] = framed[order[k]];
		rc = nd__site_arrived_all(txn, &site[g], mine + start[g], start[g + 1] - start[g]);
	}
	for (size_t g = 0; site && g < ng; g++)
		nd__site_free(&site[g]);
	free(site);
	free(mine);
	free(frame), free(key), free(framed), free(order), free(start);
	return rc;
}
