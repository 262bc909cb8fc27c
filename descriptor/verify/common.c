/* The collection's common text: shingles that more than ND_COMMON_CAP
 * groups of near-identical documents hold, counted from the records, kept
 * in the store, read in place, and the passages two records share (see
 * record.h; the verdict that weighs by them: evidence.c).
 *
 * Counting shingles by documents would make a text copied a thousand
 * times common, and so no evidence of its own copies; counting them by
 * groups of near-identical documents keeps that text one group's, while a
 * template, a licence body or a list footer that distinct documents hold
 * is in many groups. */
#include "descriptor/verify/common.h"
#include "descriptor/verify/verify_internal.h"
#include "common/nd_hash.h"
#include "common/nd_parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- the common table ----
 *
 * As the store keeps it: a count, then per shingle its hash and the groups
 * holding it (4 bytes each, ascending by hash).  A check or a hook reads
 * it in place, inside its read transaction: loading it is free, where
 * copying a table of hundreds of thousands of shingles was half of each
 * check.  A batch pass that outlives its transaction owns a copy.
 *
 * Beside it ("common-passages"), per shingle in the same order, four
 * 16-bit MinHashes of the set of groups holding it: shingles of one
 * passage (a footer, a licence paragraph, a sentence) are held by the same
 * groups and agree, shingles of passages that distinct documents hold
 * independently do not.  A store signed before it has none: the passages
 * rule then never applies, until the next sign. */

#define PAS_BYTES (2 * ND_PASSAGE_HASHES)

/* The weight of every g a record keeps (1, or cap / g above the cap),
 * copy's then story's: a merge of two pages that share a template weighed
 * each shared shingle with two divisions behind two branches that its
 * groups decide, a third of story clustering on documentation in perf.
 * The same quotients, so the sums are the same to the bit. */
double nd__common_quotient[2][UINT16_MAX + 1];
static pthread_once_t quotient_once = PTHREAD_ONCE_INIT;

static void quotient_fill(void)
{
	for (uint32_t g = 0; g <= UINT16_MAX; g++) {
		nd__common_quotient[0][g] = g > ND_COMMON_CAP ? (double)ND_COMMON_CAP / g : 1.0;
		nd__common_quotient[1][g] = g > ND_STORY_COMMON_CAP ? (double)ND_STORY_COMMON_CAP / g : 1.0;
	}
}

/* Every table is made here, and only a table's shingles are weighed
 * (without one each weighs 1): the quotients are there before the first
 * weight, with no check of them on the merges' path. */
static nd__common *common_new(void)
{
	pthread_once(&quotient_once, quotient_fill);
	return calloc(1, sizeof(nd__common));
}

/* A table of n entries, with room for their passage hashes. */
static int common_alloc(nd__common **out, uint32_t n)
{
	nd__common *c = common_new();
	if (!c || !(c->owned = malloc((8 + PAS_BYTES) * (size_t)n + 1))) {
		free(c);
		return nd_error_set(ND_ENOMEM, "out of memory for %u common shingles", n);
	}
	c->n = n;
	c->ent = c->owned;
	c->pas = c->owned + 8 * (size_t)n;
	*out = c;
	return ND_OK;
}

void nd__common_free(nd__common *c)
{
	if (!c)
		return;
	free(c->index_owned);
	free(c->kin_owned);
	free(c->floors_owned);
	free(c->titles_owned);
	free(c->owned);
	free(c);
}

size_t nd__common_size(const nd__common *c)
{
	return c ? (size_t)c->n + c->nextra : 0;
}

#define FILTER_WORDS ((size_t)1 << 10) /* 2^16 bits */

/* Bits of the bucket index of a table of n entries (0: none): about 4
 * entries a bucket, so a lookup is one bucket read and a search of a few
 * neighbours, not twenty probes across the table. */
static uint32_t index_bits(uint32_t n)
{
	uint32_t bits = 8;
	if (n < 1024)
		return 0;
	while (bits < 24 && ((size_t)1 << bits) * 4 < n)
		bits++;
	return bits;
}

/* The index as the store keeps it ("common-index"): its bits and the
 * table's size, the filter, then the buckets. */
static size_t index_bytes(uint32_t bits)
{
	return 8 + FILTER_WORDS * 8 + (bits ? (((size_t)1 << bits) + 1) * 4 : 0);
}

/* The index of c's entries into buf (index_bytes of its bits). */
static void index_fill(const nd__common *c, uint32_t bits, uint8_t *buf)
{
	uint64_t *filter = (uint64_t *)(buf + 8);
	memcpy(buf, &bits, 4);
	memcpy(buf + 4, &c->n, 4);
	memset(filter, 0, FILTER_WORDS * 8);
	for (size_t i = 0; i < c->n; i++) {
		uint32_t h = nd__common_ent_hash(c, i) >> 16;
		filter[h >> 6] |= (uint64_t)1 << (h & 63);
	}
	if (!bits)
		return;
	uint32_t *bucket = (uint32_t *)(filter + FILTER_WORDS), shift = 32 - bits;
	size_t i = 0, nb = (size_t)1 << bits;
	for (size_t b = 0; b <= nb; b++) {
		while (i < c->n && (size_t)(nd__common_ent_hash(c, i) >> shift) < b)
			i++;
		bucket[b] = (uint32_t)i;
	}
}

static void index_use(nd__common *c, const uint8_t *buf, uint32_t bits)
{
	c->filter = (const uint64_t *)(buf + 8);
	c->bucket = bits ? (const uint32_t *)(buf + 8 + FILTER_WORDS * 8) : NULL;
	c->shift = 32 - bits;
}

int nd__common_own(nd__common *c)
{
	if (!c)
		return ND_OK;
	int rc = nd__kin_own(c);
	if (rc == ND_OK)
		rc = nd__floors_own(c);
	if (rc == ND_OK)
		rc = nd__titles_own(c);
	if (rc < 0 || c->owned || !c->n)
		return rc;
	size_t e = 8 * (size_t)c->n, p = c->pas ? PAS_BYTES * (size_t)c->n : 0;
	if (!(c->owned = malloc(e + p + 1)))
		return nd_error_set(ND_ENOMEM, "out of memory for %u common shingles", c->n);
	memcpy(c->owned, c->ent, e);
	if (p)
		memcpy(c->owned + e, c->pas, p);
	c->ent = c->owned;
	c->pas = p ? c->owned + e : NULL;
	if (c->filter && !c->index_owned) { /* the stored index, in the map too */
		uint32_t bits = c->bucket ? 32 - c->shift : 0;
		if (!(c->index_owned = malloc(index_bytes(bits))))
			return nd_error_set(ND_ENOMEM, "out of memory for the common shingles' index");
		memcpy(c->index_owned, (const uint8_t *)c->filter - 8, index_bytes(bits));
		index_use(c, c->index_owned, bits);
	}
	return ND_OK;
}

int nd__common_index(nd__common *c, size_t lookups)
{
	/* Worth it when the lookups outnumber a 64th of the entries: a
	 * search reads entries across the table, the index each entry once in
	 * order.  The factor is reasoned, not measured: on the tables
	 * bench_live makes (tens of entries) any choice is free.  A store
	 * signed since the index was kept has it already. */
	if (!c || !c->n || c->filter || lookups <= c->n / 64)
		return ND_OK;
	uint32_t bits = index_bits(c->n);
	if (!(c->index_owned = malloc(index_bytes(bits))))
		return nd_error_set(ND_ENOMEM, "out of memory for the common shingles' index");
	index_fill(c, bits, c->index_owned);
	index_use(c, c->index_owned, bits);
	return ND_OK;
}

int nd__common_indexed(const nd__common *c)
{
	return c && c->filter;
}


void nd__common_prefetch(const nd__common *c, const nd__u32u *h, uint32_t k, uint32_t n)
{
	if (!c || !c->bucket)
		return;
	if (k + 16 < n && nd__common_filter_bit(c, h[k + 16]))
		__builtin_prefetch(c->bucket + (h[k + 16] >> c->shift));
	if (k + 8 < n && nd__common_filter_bit(c, h[k + 8])) {
		uint32_t b = c->bucket[h[k + 8] >> c->shift];
		if (b < c->n) /* a damaged stored index points nowhere */
			__builtin_prefetch(c->ent + 8 * (size_t)b);
	}
}

uint32_t nd__common_groups(const nd__common *c, uint32_t h)
{
	return nd__common_lookup(c, h);
}

int nd__common_has_passages(const nd__common *c)
{
	return c && c->n && c->pas;
}

#define META "common"
#define META_PASSAGES "common-passages"
#define META_INDEX "common-index"
#define SPOT_CHECKS 256 /* entries a load checks, spread over the table */

/* The index kept with the table, read in place (a copy when the map
 * leaves it unaligned), when it is the table's: a hook's few hundred
 * lookups then cost a bucket read each, where indexing the table cost a
 * pass over all of it and searching without an index twenty probes.
 * A store signed before the index was kept, or whose table a writer
 * without it replaced, makes one as it did before. */
static int index_load(nd_store_txn *txn, nd__common *c)
{
	const void *v;
	size_t len;
	uint32_t bits = index_bits(c->n), hdr[2];
	int rc = nd_store_meta_get(txn, META_INDEX, &v, &len);
	if (rc == ND_ENOTFOUND)
		return ND_OK;
	if (rc < 0)
		return rc;
	if (len != index_bytes(bits) || (memcpy(hdr, v, 8), hdr[0] != bits || hdr[1] != c->n))
		return ND_OK;
	if ((uintptr_t)v % 8) {
		if (!(c->index_owned = malloc(len)))
			return nd_error_set(ND_ENOMEM, "out of memory for the common shingles' index");
		memcpy(c->index_owned, v, len);
		v = c->index_owned;
	}
	index_use(c, v, bits);
	/* Spot checks that it indexes these entries. */
	size_t step = c->n / SPOT_CHECKS + 1;
	for (size_t i = 0; i < c->n; i += step) {
		uint32_t h = nd__common_ent_hash(c, i);
		size_t b = bits ? h >> c->shift : 0;
		if (!nd__common_filter_bit(c, h) || (bits && (c->bucket[b] > i || c->bucket[b + 1] <= i))) {
			free(c->index_owned);
			c->index_owned = NULL;
			c->filter = NULL, c->bucket = NULL;
			return ND_OK;
		}
	}
	return ND_OK;
}

int nd__common_load(nd_store_txn *txn, nd__common **out)
{
	const void *v;
	size_t len;
	uint32_t n;
	int rc = nd_store_meta_get(txn, META, &v, &len);
	*out = NULL;
	if (rc == ND_ENOTFOUND)
		return common_alloc(out, 0);
	if (rc < 0)
		return rc;
	if (len < 4 || (memcpy(&n, v, 4), len != 4 + (size_t)n * 8))
		return nd_error_set(ND_ECORRUPT, "the store's record of common shingles is damaged "
				    "(%zu bytes); `neardup sign --restart` makes it again", len);
	nd__common *c = common_new();
	if (!c)
		return nd_error_set(ND_ENOMEM, "out of memory");
	c->n = n;
	c->ent = (const uint8_t *)v + 4;
	const void *pv;
	size_t plen;
	rc = nd_store_meta_get(txn, META_PASSAGES, &pv, &plen);
	if (rc == ND_OK && plen == PAS_BYTES * (size_t)n)
		c->pas = pv;
	else if (rc == ND_OK || rc != ND_ENOTFOUND) {
		free(c);
		return rc < 0 ? rc : nd_error_set(ND_ECORRUPT, "the store's passages of common shingles do not match "
						   "them (%zu bytes for %u); `neardup sign --restart` makes them again",
						   plen, n);
	}
	/* Spot checks, not a walk: a walk would cost what the copy did. */
	size_t step = n / SPOT_CHECKS + 1;
	for (size_t i = step; i < n; i += step)
		if (nd__common_ent_hash(c, i) <= nd__common_ent_hash(c, i - 1) || nd__common_ent_groups(c, i) <= ND_COMMON_CAP) {
			free(c);
			return nd_error_set(ND_ECORRUPT, "the store's record of common shingles is out of order; "
					    "`neardup sign --restart` makes it again");
		}
	if ((rc = index_load(txn, c)) < 0 || (rc = nd__kin_load(txn, c)) < 0 || (rc = nd__floors_load(txn, c)) < 0 ||
	    (rc = nd__titles_load(txn, c)) < 0) {
		nd__common_free(c);
		return rc;
	}
	*out = c;
	return ND_OK;
}

int nd__common_store(nd_store_txn *txn, const nd__common *c)
{
	size_t len = 4 + (size_t)c->n * 8;
	uint8_t *buf;
	int rc;
	if (c->n && !c->pas)
		return nd_error_set(ND_EINVAL, "a table of common shingles without their passages");
	if (!(buf = malloc(len)))
		return nd_error_set(ND_ENOMEM, "out of memory");
	memcpy(buf, &c->n, 4);
	memcpy(buf + 4, c->ent, 8 * (size_t)c->n);
	rc = nd_store_meta_put(txn, META, buf, len);
	free(buf);
	if (rc == ND_OK)
		rc = nd_store_meta_put(txn, META_PASSAGES, c->pas, PAS_BYTES * (size_t)c->n);
	if (rc < 0)
		return rc;
	uint32_t bits = index_bits(c->n);
	if (!(buf = malloc(index_bytes(bits))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	index_fill(c, bits, buf);
	rc = nd_store_meta_put(txn, META_INDEX, buf, index_bytes(bits));
	free(buf);
	if (rc == ND_OK)
		rc = nd__kin_store(txn, c);
	if (rc == ND_OK)
		rc = nd__floors_store(txn, c);
	return rc < 0 ? rc : nd__titles_store(txn, c);
}

/* Shingles (with their group) the counting passes of all threads hold
 * at most (8 bytes each, and as much again to sort them); and the fewest
 * a pass is given.  Every pass reads every record: at 1M documents, 16M
 * took the count 36.6 s, 24M 27.4 s, 32M 23.3 s, and 24M keeps the
 * count's peak (619 MiB) under the copy scoring's (745). */
#define PASS_MAX ((size_t)24 << 20)
#define PASS_LEAST ((size_t)4096)

/* The passage hashes of one shingle from the groups holding it (g[0..n),
 * each a group's ordinal in its low 32 bits; gh: ND_PASSAGE_HASHES hashes
 * per group): per hash, the least over the groups, a MinHash of the set. */
static void passage_hashes(const uint64_t *g, size_t n, const uint32_t *gh, uint16_t *out)
{
	uint32_t least[ND_PASSAGE_HASHES];
	for (int z = 0; z < ND_PASSAGE_HASHES; z++)
		least[z] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		const uint32_t *h = gh + ND_PASSAGE_HASHES * (uint32_t)g[i];
		for (int z = 0; z < ND_PASSAGE_HASHES; z++)
			least[z] = h[z] < least[z] ? h[z] : least[z];
	}
	for (int z = 0; z < ND_PASSAGE_HASHES; z++)
		out[z] = (uint16_t)nd_mix64(least[z]); /* a least is small: its top bits say little */
}

/* Hash ranges, one a counting pass: [bound[p], bound[p + 1]) of the
 * representatives' samples, cut where the histogram of their top 16 bits
 * passes *most (a sample is its text's lowest hashes, so long texts crowd
 * the low ranges; one range of 2^16 hashes may still take more): at least
 * four passes a thread once there are PASS_LEAST hashes (the threads'
 * shares even out), and every thread's pass within PASS_MAX together.  A record's samples are ascending, so
 * each pass reads its own slice of every record, and the passes come out
 * in hash order. */
static int pass_bounds(const nd__recset *rs, const uint32_t *reps, size_t n, unsigned jobs, size_t *most,
		       uint64_t **bound, uint32_t *npass)
{
	size_t *hist = calloc((size_t)1 << 16, sizeof(*hist));
	uint64_t *b = NULL;
	uint32_t k = 0;
	size_t total = 0;
	if (!hist)
		return nd_error_set(ND_ENOMEM, "out of memory");
	uint32_t tile = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		const nd__rec *r = nd__recset_get(rs, reps[i]);
		nd__recset_walked(rs, reps[i], &tile);
		for (uint32_t j = 0; j < r->nsample; j++)
			hist[r->sample[j] >> 16]++;
		total += r->nsample;
	}
	*most = total / (4 * jobs) + 1;
	if (*most < PASS_LEAST)
		*most = PASS_LEAST;
	if (*most > PASS_MAX / jobs)
		*most = PASS_MAX / jobs;
	/* At most one cut a histogram bucket, and the end. */
	if (!(b = malloc(((1u << 16) + 1) * sizeof(*b)))) {
		free(hist);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	size_t held = 0;
	b[k++] = 0;
	for (uint32_t t = 0; t < 1u << 16; t++) {
		if (held && held + hist[t] > *most)
			b[k++] = (uint64_t)t << 16, held = 0;
		held += hist[t];
	}
	b[k] = (uint64_t)1 << 32;
	free(hist);
	*bound = b, *npass = k;
	return ND_OK;
}

/* One pass's common shingles, as the table lays them out: (hash, groups)
 * pairs, and their passage hashes. */
typedef struct {
	uint32_t *ent;
	uint16_t *p;
	size_t n, cap;
	uint32_t *kin[2]; /* shingles of two kin, of three or more: at 1M
			     documents tens of millions, held until the
			     filter is made, at the count's peak */
	size_t nkin[2], kincap[2];
	uint64_t template; /* shingles taken for a site's template */
} common_part;

static int part_kin(common_part *k, uint32_t h, int three)
{
	if (k->nkin[three] == k->kincap[three]) {
		size_t nc = k->kincap[three] ? 2 * k->kincap[three] : 1024;
		uint32_t *a = realloc(k->kin[three], nc * sizeof(*a));
		if (!a)
			return nd_error_set(ND_ENOMEM, "out of memory");
		k->kin[three] = a, k->kincap[three] = nc;
	}
	k->kin[three][k->nkin[three]++] = h;
	return ND_OK;
}

/* Kin among the groups g[0..n) (each a group's ordinal in its low 32
 * bits), counted up to three. */
static int kin_count(const uint64_t *g, size_t n, const uint32_t *kin)
{
	uint32_t seen[2];
	int k = 0;
	for (size_t i = 0; i < n && k < 3; i++) {
		uint32_t x = kin[(uint32_t)g[i]];
		if ((k < 1 || seen[0] != x) && (k < 2 || seen[1] != x)) {
			if (k < 2)
				seen[k] = x;
			k++;
		}
	}
	return k;
}

static int part_add(common_part *k, uint32_t h, const uint64_t *g, size_t ng, uint32_t groups, const uint32_t *gh)
{
	if (k->n == k->cap) {
		size_t nc = k->cap ? 2 * k->cap : 1024;
		uint32_t *a = realloc(k->ent, nc * 8);
		uint16_t *c = a ? realloc(k->p, nc * PAS_BYTES) : NULL;
		if (a)
			k->ent = a;
		if (!c)
			return nd_error_set(ND_ENOMEM, "out of memory");
		k->p = c, k->cap = nc;
	}
	k->ent[2 * k->n] = h;
	k->ent[2 * k->n + 1] = groups;
	passage_hashes(g, ng, gh, k->p + ND_PASSAGE_HASHES * k->n);
	k->n++;
	return ND_OK;
}

/* The sites of the representatives: per site ordinal s (from 1), the
 * sample thresholds of its groups, ascending, at thr[at[s - 1]..at[s]). */
typedef struct {
	const uint32_t *of; /* per representative; 0: none */
	const uint32_t *ver; /* per representative: its version on its site */
	uint8_t *apart;      /* per site: a frame's, two of its pages framed apart */
	uint32_t nsites;
	uint32_t frame_from; /* sites from this ordinal on are frames' */
	uint32_t *at;
	uint32_t *thr;
} sites;

static void sites_free(sites *z)
{
	free(z->apart);
	free(z->at);
	free(z->thr);
}

static int sites_make(const nd__recset *rs, const uint32_t *reps, const uint32_t *site, uint32_t frame_from,
		      const uint32_t *ver, const uint8_t *apart, size_t n, sites *z)
{
	memset(z, 0, sizeof(*z));
	z->of = site, z->ver = ver, z->frame_from = frame_from;
	for (size_t i = 0; site && i < n; i++)
		z->nsites = site[i] > z->nsites ? site[i] : z->nsites;
	if (!z->nsites)
		return ND_OK;
	if (!(z->at = calloc((size_t)z->nsites + 1, sizeof(*z->at))) || !(z->thr = malloc((n + 1) * sizeof(*z->thr))) ||
	    !(z->apart = calloc((size_t)z->nsites + 1, 1)))
		return nd_error_set(ND_ENOMEM, "out of memory for %u sites", z->nsites);
	for (size_t i = 0; i < n; i++)
		if (site[i]) {
			z->at[site[i]]++;
			z->apart[site[i]] |= apart && apart[i];
		}
	for (uint32_t s = 1; s <= z->nsites; s++)
		z->at[s] += z->at[s - 1];
	/* In the records' order (a spilled set is read tile by tile), each
	 * site's run filled from its start. */
	uint32_t *next = malloc(((size_t)z->nsites + 1) * sizeof(*next)), tile = UINT32_MAX;
	if (!next)
		return nd_error_set(ND_ENOMEM, "out of memory for %u sites", z->nsites);
	memcpy(next + 1, z->at, (size_t)z->nsites * sizeof(*next));
	for (size_t i = 0; i < n; i++) {
		nd__recset_walked(rs, reps[i], &tile);
		if (site[i])
			z->thr[next[site[i]]++] = nd__recset_get(rs, reps[i])->thr;
	}
	free(next);
	for (uint32_t s = 1; s <= z->nsites; s++)
		nd__sort_u32(z->thr + z->at[s - 1], z->at[s] - z->at[s - 1]);
	return ND_OK;
}

/* Groups of site s whose samples reach hash h: those that could hold it. */
static uint32_t site_reach(const sites *z, uint32_t s, uint32_t h)
{
	size_t n = z->at[s] - z->at[s - 1];
	return (uint32_t)(n - nd__lower_bound_u32(z->thr + z->at[s - 1], n, h));
}

typedef struct {
	const nd__recset *rs;
	const uint32_t *reps;
	size_t n, most;
	const uint64_t *bound;
	const uint32_t *gh;
	const sites *site;
	const uint32_t *kin; /* each group's kin, or NULL */
	common_part *part;   /* one a pass */
} build_ctx;

/* Whether hash h, held by the groups g[0..ng), is a site's template: held
 * by ND_SITE_GROUPS versions on one site or more (on a frame's,
 * ND_FRAME_END_GROUPS when two of its pages are framed apart, else
 * ND_FRAME_GROUPS), and by at least 1 / ND_SITE_SHARE of
 * those of the site's groups whose samples reach h.  cnt: a zeroed count
 * per site, left zeroed; sc: room for ng.  Most hashes are held by a
 * group or two of each site: counted, not sorted. */
static int site_template(const sites *z, uint32_t h, const uint64_t *g, size_t ng, uint32_t *cnt, uint32_t *sc)
{
	size_t m = 0;
	for (size_t i = 0; i < ng; i++) {
		uint32_t s = z->of[(uint32_t)g[i]];
		if (s && ++cnt[s] == ND_SITE_GROUPS)
			sc[m++] = s; /* a site that may hold it as its template */
	}
	size_t keep = 0;
	for (size_t k = 0; k < m; k++)
		if (ND_SITE_SHARE * cnt[sc[k]] >= site_reach(z, sc[k], h))
			sc[keep++] = sc[k];
	for (size_t i = 0; i < ng; i++)
		cnt[z->of[(uint32_t)g[i]]] = 0;
	/* Those held by enough groups: by enough versions too? */
	for (size_t k = 0; k < keep; k++) {
		uint32_t s = sc[k], v[ND_FRAME_GROUPS], nv = 0;
		uint32_t need = s < z->frame_from ? ND_SITE_GROUPS : z->apart[s] ? ND_FRAME_END_GROUPS : ND_FRAME_GROUPS;
		for (size_t i = 0; i < ng && nv < need; i++) {
			uint32_t r = (uint32_t)g[i], x = 0;
			if (z->of[r] != s)
				continue;
			while (x < nv && v[x] != z->ver[r])
				x++;
			if (x == nv)
				v[nv++] = z->ver[r];
		}
		if (nv >= need)
			return 1;
	}
	return 0;
}

/* Passes [from, to), each its hashes' (hash, group) gathered and sorted,
 * every hash of more than ND_COMMON_CAP groups kept, and with kin, every
 * hash of two kin or more for the filter of own text. */
static int build_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	build_ctx *c = vctx;
	size_t cap = c->most + 1, sccap = 0;
	uint64_t *v = malloc(cap * sizeof(*v));
	uint32_t *at = malloc((c->n + 1) * sizeof(*at)), *sc = NULL;
	uint32_t *cnt = c->site->nsites ? calloc((size_t)c->site->nsites + 1, sizeof(*cnt)) : NULL;
	int rc = ND_OK;
	(void)t;
	if (!v || !at || (c->site->nsites && !cnt)) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu shingles", cap);
		goto done;
	}
	/* Where each record's slice of the first pass starts.  Every pass
	 * reads all the representatives in order: a spilled set's pages are
	 * released tile by tile. */
	uint32_t tile = UINT32_MAX;
	for (size_t i = 0; i < c->n; i++) {
		nd__recset_walked(c->rs, c->reps[i], &tile);
		at[i] = nd__rec_samples_below(nd__recset_get(c->rs, c->reps[i]), c->bound[from]);
	}
	for (uint32_t pass = from; pass < to && rc == ND_OK; pass++) {
		size_t m = 0;
		for (size_t i = 0; i < c->n && rc == ND_OK; i++) {
			const nd__rec *r = nd__recset_get(c->rs, c->reps[i]);
			nd__recset_walked(c->rs, c->reps[i], &tile);
			for (; at[i] < r->nsample && r->sample[at[i]] < c->bound[pass + 1]; at[i]++) {
				if (m == cap) { /* one 64k-hash bucket over the most */
					uint64_t *g = realloc(v, 2 * cap * sizeof(*v));
					if (!g) {
						rc = nd_error_set(ND_ENOMEM, "out of memory for %zu shingles", 2 * cap);
						break;
					}
					v = g, cap *= 2;
				}
				v[m++] = (uint64_t)r->sample[at[i]] << 32 | i; /* the group: its ordinal */
			}
		}
		if (rc < 0)
			break;
		/* A hash's groups together, in any order.  The sort's copy is
		 * made and given back a pass at a time: kept for all passes,
		 * the two threads' copies put sign's peak at 1M up 67 MB. */
		nd__sort_u64_high(v, m);
		for (size_t i = 0, j; i < m && rc == ND_OK; i = j) {
			for (j = i + 1; j < m && v[j] >> 32 == v[i] >> 32; j++)
				;
			uint32_t h = (uint32_t)(v[i] >> 32), groups = (uint32_t)(j - i);
			int kin = c->kin && j - i >= 2 ? kin_count(v + i, j - i, c->kin) : 1;
			if (kin >= 2 && (rc = part_kin(&c->part[pass], h, kin >= 3)) < 0)
				break;
			if (c->site->nsites && j - i >= ND_SITE_GROUPS && j - i < ND_SITE_TEMPLATE) {
				if (j - i > sccap) {
					uint32_t *g = realloc(sc, (j - i) * sizeof(*sc));
					if (!g) {
						rc = nd_error_set(ND_ENOMEM, "out of memory");
						break;
					}
					sc = g, sccap = j - i;
				}
				if (site_template(c->site, h, v + i, j - i, cnt, sc))
					groups = ND_SITE_TEMPLATE, c->part[pass].template++;
			}
			if (groups > ND_COMMON_CAP)
				rc = part_add(&c->part[pass], h, v + i, j - i, groups, c->gh);
		}
	}
done:
	free(v);
	free(at);
	free(sc);
	free(cnt);
	return rc;
}

int nd__common_entries(const nd__common *c, uint32_t **h, uint32_t **g, size_t *n)
{
	*h = *g = NULL, *n = 0;
	if (!c->n)
		return ND_OK;
	if (!(*h = malloc(c->n * sizeof(**h))) || !(*g = malloc(c->n * sizeof(**g)))) {
		free(*h);
		*h = NULL;
		return nd_error_set(ND_ENOMEM, "out of memory for %u common shingles", c->n);
	}
	for (uint32_t i = 0; i < c->n; i++) /* the table ascends */
		(*h)[i] = nd__common_ent_hash(c, i), (*g)[i] = nd__common_ent_groups(c, i);
	*n = c->n;
	return ND_OK;
}

void nd__common_set_extra(nd__common *c, const nd__extra *t)
{
	c->extra = t ? t->h : NULL, c->extra_groups = t ? t->g : NULL, c->nextra = t && t->h ? (uint32_t)t->n : 0;
	c->extra_floors = t ? t->floors : NULL, c->nextra_floors = t && t->floors ? (uint32_t)t->nfloors : 0;
}

nd__sites_seen nd__common_sites(const nd__common *c)
{
	return c ? c->sites : (nd__sites_seen){0, 0, 0, 0};
}

void nd__common_set_sites(nd__common *c, uint64_t hosts, uint64_t frames, uint64_t pages)
{
	c->sites.hosts = hosts, c->sites.frames = frames, c->sites.pages = pages;
}

int nd__common_build(const nd__recset *rs, const uint32_t *reps, const uint32_t *site, uint32_t frame_from,
		     const uint32_t *ver, const uint8_t *apart, const uint32_t *kin, size_t n, unsigned jobs,
		     nd__common **out)
{
	uint64_t *bound = NULL;
	uint32_t *gh = NULL, passes = 0;
	common_part *part = NULL;
	size_t nkeep = 0;
	sites z;
	int rc;

	*out = NULL;
	if (n > UINT32_MAX)
		return nd_error_set(ND_ETOOBIG, "%zu groups", n);
	jobs = jobs ? jobs : 1;
	size_t most = 0;
	if ((rc = sites_make(rs, reps, site, frame_from, ver, apart, n, &z)) < 0 ||
	    (rc = pass_bounds(rs, reps, n, jobs, &most, &bound, &passes)) < 0) {
		sites_free(&z);
		return rc;
	}
	if (!(gh = malloc((n + 1) * ND_PASSAGE_HASHES * sizeof(*gh))) || !(part = calloc(passes, sizeof(*part)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu groups", n);
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		for (int z = 0; z < ND_PASSAGE_HASHES; z++)
			gh[ND_PASSAGE_HASHES * i + z] =
				(uint32_t)nd_mix64((uint64_t)reps[i] * 0x9E3779B97F4A7C15ull + (uint64_t)z + 1);
	build_ctx c = {rs, reps, n, most, bound, gh, &z, kin, part};
	if ((rc = nd_parallel_shares(jobs < passes ? jobs : passes, passes, build_share, &c)) < 0)
		goto done;
	for (uint32_t p = 0; p < passes; p++)
		nkeep += part[p].n;
	if (nkeep > UINT32_MAX) {
		rc = nd_error_set(ND_ETOOBIG, "%zu common shingles", nkeep);
		goto done;
	}
	/* The passes took the hashes in ascending ranges: in order. */
	if ((rc = common_alloc(out, (uint32_t)nkeep)) < 0)
		goto done;
	uint8_t *ent = (*out)->owned, *pas = (*out)->owned + 8 * nkeep;
	for (uint32_t p = 0; p < passes; p++) {
		if (!part[p].n)
			continue; /* and ent may be NULL */
		memcpy(ent, part[p].ent, 8 * part[p].n);
		memcpy(pas, part[p].p, PAS_BYTES * part[p].n);
		ent += 8 * part[p].n, pas += PAS_BYTES * part[p].n;
		(*out)->sites.template_shingles += part[p].template;
	}
	if (kin) {
		size_t nkin = 0;
		for (uint32_t p = 0; p < passes; p++)
			nkin += part[p].nkin[0] + part[p].nkin[1];
		if ((rc = nd__kin_alloc(*out, nkin)) < 0)
			goto done;
		for (uint32_t p = 0; p < passes; p++)
			for (int three = 0; three < 2; three++)
				for (size_t i = 0; i < part[p].nkin[three]; i++)
					nd__kin_add(*out, part[p].kin[three][i], three);
	}
done:
	for (uint32_t p = 0; part && p < passes; p++) {
		free(part[p].ent);
		free(part[p].p);
		free(part[p].kin[0]);
		free(part[p].kin[1]);
	}
	free(part);
	free(gh);
	free(bound);
	sites_free(&z);
	/* After the passes' parts are freed: the titles' walk of every record
	 * would otherwise sit on the count's peak. */
	if (rc >= 0)
		rc = nd__common_titles(*out, rs, reps, kin, n);
	if (rc < 0) {
		nd__common_free(*out);
		*out = NULL;
	}
	return rc;
}

/* Shingles a passage count looks at, at most (a record keeps about
 * ND_REC_SAMPLE). */
#define PASSAGE_MAX 1024

static uint32_t pas_root(uint16_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/* Passages of common text the two records share: their shared common
 * shingles, joined when they agree on two or more of the passage hashes
 * (the pair's own groups are in every passage's set, so one agreement in
 * four is common between distinct passages, two are rare), counted by the
 * joins of two shingles or more. */
uint32_t nd__common_shared_passages(const nd__rec *a, const nd__rec *b, const nd__common *c)
{
	uint32_t t = nd__rec_pair_cut(a, b, c);
	uint32_t na = nd__rec_cut_at(a, t), nb = nd__rec_cut_at(b, t), i = 0, j = 0, m = 0;
	const uint8_t *at[PASSAGE_MAX];
	uint16_t up[PASSAGE_MAX], size[PASSAGE_MAX], slot_at[2 * PASSAGE_MAX];
	uint32_t slot_key[2 * PASSAGE_MAX];

	while (i < na && j < nb && m < PASSAGE_MAX) {
		uint32_t x = a->sample[i], y = b->sample[j];
		if (x == y && (!a->groups || a->groups[i])) { /* a weighed record knows it is not common */
			size_t e = nd__common_find(c, x);
			/* A site's template is one template, not passages. */
			if (e < c->n && nd__common_ent_groups(c, e) < ND_SITE_TEMPLATE &&
			    !(c->nextra && nd__common_extra_of(c, x) == ND_SITE_TEMPLATE))
				at[m++] = c->pas + PAS_BYTES * e;
		}
		i += x <= y, j += y <= x;
	}
	if (m < 2 * ND_PASSAGES)
		return 0; /* too few to make that many passages */
	uint32_t mask = 1;
	while (mask < 2 * m)
		mask <<= 1;
	mask--;
	for (uint32_t k = 0; k < m; k++)
		up[k] = (uint16_t)k, size[k] = 0;
	/* Per two hashes: the first shingle seen with both values, in a small
	 * open-addressed table; a later one with the same joins it. */
	for (int z1 = 0; z1 < ND_PASSAGE_HASHES; z1++)
		for (int z2 = z1 + 1; z2 < ND_PASSAGE_HASHES; z2++) {
			memset(slot_at, 0xff, (mask + 1) * sizeof(*slot_at));
			for (uint32_t k = 0; k < m; k++) {
				uint16_t h1, h2;
				memcpy(&h1, at[k] + 2 * z1, 2);
				memcpy(&h2, at[k] + 2 * z2, 2);
				uint32_t key = (uint32_t)h1 << 16 | h2, s = (uint32_t)nd_mix64(key) & mask;
				while (slot_at[s] != UINT16_MAX && slot_key[s] != key)
					s = (s + 1) & mask;
				if (slot_at[s] == UINT16_MAX) {
					slot_at[s] = (uint16_t)k, slot_key[s] = key;
					continue;
				}
				uint32_t x = pas_root(up, k), y = pas_root(up, slot_at[s]);
				if (x != y)
					up[x > y ? x : y] = (uint16_t)(x < y ? x : y);
			}
		}
	uint32_t n = 0;
	for (uint32_t k = 0; k < m; k++)
		n += ++size[pas_root(up, k)] == 2;
	return n;
}
