/* Collection statistics for choosing a descriptive set: candidate words
 * from the all-terms list, a seeded document sample, and each sampled
 * document's candidate-word counts. */
#include "descriptor/method/stats.h"
#include "common/nd_buf.h"

#include <stdlib.h>
#include <string.h>

int nd_desc_lengths(nd_xdb *db, int word_lengths, nd_docid lo, nd_docid hi,
		    uint32_t *len, uint32_t *present)
{
	int rc = nd_xdb_lengths(db, lo, hi, present, word_lengths ? len : NULL);
	if (rc == ND_OK && !word_lengths)
		memcpy(len, present, sizeof(*len) * (hi - lo));
	return rc;
}

/* Numbers (digits with separators) and single characters say little about
 * a document and change with trivia such as dates. */
static int poor_candidate(const char *t, size_t n)
{
	size_t i, cp = 0;
	int digits = 1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		if ((c & 0xC0) != 0x80)
			cp++;
		if (!((c >= '0' && c <= '9') || c == '.' || c == ',' || c == ':' || c == '-' ||
		      c == '/' || c == '_'))
			digits = 0;
	}
	return cp <= 1 || digits;
}

static int push_candidate(nd_candidates *c, const char *term, size_t len, uint32_t df)
{
	int rc;
	void *p = c->terms;
	if ((rc = nd_array_reserve(&p, &c->cap, c->n + 1, sizeof(char *))) < 0)
		return rc;
	c->terms = p;
	void *q = realloc(c->df, c->cap * sizeof(uint32_t));
	if (!q)
		return nd_error_set(ND_ENOMEM, "out of memory");
	c->df = q;
	if (!(c->terms[c->n] = malloc(len + 1)))
		return nd_error_set(ND_ENOMEM, "out of memory");
	memcpy(c->terms[c->n], term, len);
	c->terms[c->n][len] = '\0';
	c->df[c->n] = df;
	c->n++;
	return ND_OK;
}

typedef struct {
	char *term;
	uint32_t df;
} term_df;

static int cmp_df_desc(const void *a, const void *b)
{
	const term_df *x = a, *y = b;
	if (x->df != y->df)
		return x->df > y->df ? -1 : 1;
	return strcmp(x->term, y->term);
}

static int cmp_term(const void *a, const void *b)
{
	return strcmp(((const term_df *)a)->term, ((const term_df *)b)->term);
}

int nd_candidates_collect(nd_candidates *c, nd_xdb *db, const nd_build_options *o, uint32_t doccount)
{
	nd_xdb_terms *it = NULL;
	const char *term;
	size_t len;
	uint32_t tf;
	int rc, got;
	double lo_f = o->min_df_frac * doccount;
	uint32_t lo = o->min_df > lo_f ? o->min_df : (uint32_t)(lo_f + 0.999999);
	uint32_t hi = (uint32_t)(o->max_df_frac * doccount);

	memset(c, 0, sizeof(*c));
	if ((rc = nd_xdb_terms_open(&it, db, NULL)) < 0)
		return rc;
	while ((got = nd_xdb_terms_next(it, &term, &len, &tf, NULL)) == 1) {
		if (term[0] >= 'A' && term[0] <= 'Z')
			continue; /* prefixed: not a word */
		c->words++;
		if (tf < lo || tf > hi || poor_candidate(term, len))
			continue;
		if (o->word_share < 1.0 &&
		    (double)(nd_hash_bytes(term, len, o->seed) >> 11) * 0x1p-53 >= o->word_share)
			continue;
		if ((rc = push_candidate(c, term, len, tf)) < 0)
			goto cleanup;
	}
	if (got < 0) {
		rc = got;
		goto cleanup;
	}
	if (c->n > o->max_candidates) {
		/* Keep the most frequent: rare words cover few documents. */
		term_df *v = malloc(c->n * sizeof(*v));
		if (!v) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			goto cleanup;
		}
		for (uint32_t i = 0; i < c->n; i++)
			v[i] = (term_df){c->terms[i], c->df[i]};
		qsort(v, c->n, sizeof(*v), cmp_df_desc);
		for (uint32_t i = o->max_candidates; i < c->n; i++)
			free(v[i].term);
		qsort(v, o->max_candidates, sizeof(*v), cmp_term);
		c->n = o->max_candidates;
		for (uint32_t i = 0; i < c->n; i++) {
			c->terms[i] = v[i].term;
			c->df[i] = v[i].df;
		}
		free(v);
	}
	rc = ND_OK;
cleanup:
	nd_xdb_terms_free(it);
	return rc;
}

void nd_candidates_free(nd_candidates *c)
{
	for (uint32_t i = 0; i < c->n; i++)
		free(c->terms[i]);
	free(c->terms);
	free(c->df);
	memset(c, 0, sizeof(*c));
}

int32_t nd__find_sorted(char *const *words, uint32_t n, const char *term, size_t len)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int cmp = strncmp(words[mid], term, len);
		if (cmp == 0 && words[mid][len] != '\0')
			cmp = 1; /* words[mid] is longer: it sorts after term */
		if (cmp < 0)
			lo = mid + 1;
		else if (cmp > 0)
			hi = mid;
		else
			return (int32_t)mid;
	}
	return -1;
}

int32_t nd_candidates_find(const nd_candidates *c, const char *term, size_t len)
{
	return nd__find_sorted(c->terms, c->n, term, len);
}

#define BLOCK 65536

/* The sample by unique id: the want documents whose id terms (Q<id>, one a
 * document, as neardup index, omindex and scriptindex's unique fields
 * write them) hash lowest under seed.  Docids play no part, so a stub over
 * shards and one database holding the same documents sample the same
 * ones.  A max-heap of the lowest hashes so far, each with its term. */
typedef struct {
	uint64_t h;
	char *term;
} uid_ent;

static void uid_sift_down(uid_ent *e, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && e[c + 1].h > e[c].h)
			c++;
		if (e[c].h <= e[i].h)
			break;
		uid_ent t = e[c];
		e[c] = e[i];
		e[i] = t;
		i = c;
	}
}

static int cmp_uid_ent(const void *a, const void *b)
{
	const uid_ent *x = a, *y = b;
	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return strcmp(x->term, y->term);
}

/* *n 0 when the database has no id terms. */
static int sample_by_uid(nd_xdb *db, uint32_t want, uint64_t seed, nd_docid **out, uint64_t **ids, uint32_t *n)
{
	nd_xdb_terms *it;
	uid_ent *e = calloc((size_t)want + 1, sizeof(*e));
	size_t m = 0;
	int rc;
	*n = 0;
	if (!e)
		return nd_error_set(ND_ENOMEM, "out of memory");
	if ((rc = nd_xdb_terms_open(&it, db, "Q")) < 0) {
		free(e);
		return rc;
	}
	for (;;) {
		const char *term;
		size_t len;
		if ((rc = nd_xdb_terms_next(it, &term, &len, NULL, NULL)) <= 0)
			break;
		uint64_t h = nd_hash_bytes(term, len, seed ^ 0x51d5a3b1e0ULL);
		if (m == want && h >= e[0].h)
			continue;
		char *copy = malloc(len + 1);
		if (!copy) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			break;
		}
		memcpy(copy, term, len);
		copy[len] = '\0';
		if (m == want) {
			free(e[0].term);
			e[0] = (uid_ent){h, copy};
			uid_sift_down(e, m, 0);
		} else {
			size_t i = m++;
			e[i] = (uid_ent){h, copy};
			while (i && e[(i - 1) / 2].h < e[i].h) {
				uid_ent t = e[i];
				e[i] = e[(i - 1) / 2];
				e[(i - 1) / 2] = t;
				i = (i - 1) / 2;
			}
		}
	}
	nd_xdb_terms_free(it);
	if (rc == ND_OK && m) {
		qsort(e, m, sizeof(*e), cmp_uid_ent);
		if (!(*out = malloc(m * sizeof(**out))) || !(*ids = malloc(m * sizeof(**ids))))
			rc = nd_error_set(ND_ENOMEM, "out of memory");
		for (size_t i = 0; i < m && rc == ND_OK; i++) {
			nd_docid d;
			uint32_t len;
			rc = nd_xdb_find_uid(db, e[i].term + 1, &d);
			if (rc == ND_ENOTFOUND) { /* an id term of no document: skip */
				rc = ND_OK;
				continue;
			}
			if (rc == ND_OK && (rc = nd_xdb_lengths(db, d, d + 1, &len, NULL)) == ND_OK && len) {
				(*out)[*n] = d;
				(*ids)[(*n)++] = e[i].h;
			}
		}
	}
	for (size_t i = 0; i < m; i++)
		free(e[i].term);
	free(e);
	return rc;
}

/* Reservoir sample of present documents (Algorithm R), seeded: for a
 * database without id terms. */
static int sample_docids(nd_xdb *db, uint32_t want, uint64_t seed, nd_docid **out, uint32_t *n)
{
	nd_docid last;
	uint32_t *lens = NULL;
	nd_docid *res = NULL;
	uint64_t seen = 0;
	nd_rng rng = {seed ^ 0x5a17e5a17e5a17e5ULL};
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = nd_xdb_lastdocid(db, &last)) < 0)
		return rc;
	if (!(lens = malloc(BLOCK * sizeof(*lens))) || !(res = malloc((size_t)want * sizeof(*res) + 1))) {
		free(lens);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (uint64_t lo = 1; lo <= last; lo += BLOCK) {
		nd_docid hi = (nd_docid)(lo + BLOCK > (uint64_t)last + 1 ? (uint64_t)last + 1 : lo + BLOCK);
		if ((rc = nd_xdb_lengths(db, (nd_docid)lo, hi, lens, NULL)) < 0)
			goto fail;
		for (nd_docid d = (nd_docid)lo; d < hi; d++) {
			if (!lens[d - lo])
				continue;
			if (seen < want)
				res[seen] = d;
			else {
				uint64_t j = nd_rng_below(&rng, seen + 1);
				if (j < want)
					res[j] = d;
			}
			seen++;
		}
	}
	free(lens);
	*n = (uint32_t)(seen < want ? seen : want);
	*out = res;
	return ND_OK;
fail:
	free(lens);
	free(res);
	return rc;
}

typedef struct {
	nd_sample *s;
	const nd_candidates *c;
	uint32_t words;   /* unprefixed wdf sum */
} tl_ctx;

static int on_term(const char *term, size_t len, uint32_t wdf, void *vctx)
{
	tl_ctx *t = vctx;
	if (term[0] >= 'A' && term[0] <= 'Z')
		return 0;
	t->words += wdf;
	int32_t ci = nd_candidates_find(t->c, term, len);
	if (ci < 0 || wdf == 0)
		return 0;
	void *p = t->s->ent;
	if (nd_array_reserve(&p, &t->s->ent_cap, t->s->nent + 1, sizeof(nd_sample_ent)) < 0)
		return ND_ENOMEM;
	t->s->ent = p;
	t->s->ent[t->s->nent++] = (nd_sample_ent){(uint32_t)ci, wdf};
	return 0;
}

int nd_sample_collect(nd_sample *s, nd_xdb *db, const nd_candidates *c, int word_lengths,
		      uint32_t want, uint64_t seed)
{
	int rc;
	memset(s, 0, sizeof(*s));
	if ((rc = sample_by_uid(db, want, seed, &s->docids, &s->id, &s->n)) < 0)
		return rc;
	if (!s->n) {
		free(s->docids);
		free(s->id);
		s->docids = NULL;
		s->id = NULL;
		if ((rc = sample_docids(db, want, seed, &s->docids, &s->n)) < 0)
			return rc;
		qsort(s->docids, s->n, sizeof(nd_docid), nd_cmp_u32);
		if (!(s->id = malloc(((size_t)s->n + 1) * sizeof(*s->id))))
			return nd_error_set(ND_ENOMEM, "out of memory");
		for (uint32_t j = 0; j < s->n; j++)
			s->id[j] = nd_mix64(s->docids[j] ^ seed);
	}
	if (!(s->docs = calloc(s->n + 1, sizeof(*s->docs))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (uint32_t j = 0; j < s->n; j++) {
		tl_ctx t = {s, c, 0};
		uint32_t dl = 0;
		s->docs[j].off = s->nent;
		/* Termlists come in byte order, as do candidates: entries are
		 * sorted by candidate index. */
		if ((rc = nd_xdb_termlist(db, s->docids[j], on_term, &t)) != 0)
			return rc < 0 ? rc : nd_error_set(ND_ENOMEM, "out of memory");
		/* The walk above summed the word length; Xapian's is one lookup. */
		if (word_lengths)
			dl = t.words;
		else if ((rc = nd_xdb_lengths(db, s->docids[j], s->docids[j] + 1, &dl, NULL)) < 0)
			return rc;
		s->docs[j].m = s->nent - s->docs[j].off;
		s->docs[j].len = dl;
		s->total_len += dl;
	}
	return ND_OK;
}

void nd_sample_free(nd_sample *s)
{
	free(s->docids);
	free(s->id);
	free(s->docs);
	free(s->ent);
	memset(s, 0, sizeof(*s));
}
