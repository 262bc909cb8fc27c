/* The verdict over records: what two documents share, weighed by how much
 * of the collection shares it (see record.h).
 *
 * Counting shingles by documents would make a text copied a thousand
 * times common, and so no evidence of its own copies; counting them by
 * groups of near-identical documents keeps that text one group's, while a
 * template, a licence body or a list footer that distinct documents hold
 * is in many groups.  A weight of min(1, ND_COMMON_CAP / groups) held one
 * threshold across documentation with shared sections, a copied family
 * and the scale corpus, where document frequency, own-text cut-offs and
 * uncapped weights did not (DESIGN.md, "Third stage"). */
#include "descriptor/verify/record.h"
#include "descriptor/verify/verify_internal.h"
#include "common/nd_hash.h"
#include "common/nd_parallel.h"

#include <pthread.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <tmmintrin.h>
#define HAVE_SSSE3_TARGET 1
#endif
#include <math.h>
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

struct nd__common {
	uint32_t n;
	const uint8_t *ent; /* n entries of 8 bytes, in the map or in owned */
	const uint8_t *pas; /* n entries of ND_PASSAGE_HASHES * 2 bytes; NULL: none */
	uint8_t *owned;
	const uint32_t *bucket; /* the index: entries of bucket b (of hash h *
				   nbuckets / 2^32) are [bucket[b], bucket[b + 1]) */
	uint32_t shift;         /* bucket of h: h >> shift */
	const uint64_t *filter; /* the index: bit h >> 16 set for every entry
				   (most shingles are not common: one bit says so) */
	void *index_owned;      /* the index when not read in place */
};

static uint32_t ent_hash(const nd__common *c, size_t i)
{
	uint32_t h;
	memcpy(&h, c->ent + 8 * i, 4);
	return h;
}

static uint32_t ent_groups(const nd__common *c, size_t i)
{
	uint32_t g;
	memcpy(&g, c->ent + 8 * i + 4, 4);
	return g;
}

#define PAS_BYTES (2 * ND_PASSAGE_HASHES)

/* The weight of every g a record keeps (1, or cap / g above the cap),
 * copy's then story's: a merge of two pages that share a template weighed
 * each shared shingle with two divisions behind two branches that its
 * groups decide, a third of story clustering on documentation in perf.
 * The same quotients, so the sums are the same to the bit. */
static double quotient[2][UINT16_MAX + 1];
static pthread_once_t quotient_once = PTHREAD_ONCE_INIT;

static void quotient_fill(void)
{
	for (uint32_t g = 0; g <= UINT16_MAX; g++) {
		quotient[0][g] = g > ND_COMMON_CAP ? (double)ND_COMMON_CAP / g : 1.0;
		quotient[1][g] = g > ND_STORY_COMMON_CAP ? (double)ND_STORY_COMMON_CAP / g : 1.0;
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
	free(c->owned);
	free(c);
}

size_t nd__common_size(const nd__common *c)
{
	return c ? c->n : 0;
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
		uint32_t h = ent_hash(c, i) >> 16;
		filter[h >> 6] |= (uint64_t)1 << (h & 63);
	}
	if (!bits)
		return;
	uint32_t *bucket = (uint32_t *)(filter + FILTER_WORDS), shift = 32 - bits;
	size_t i = 0, nb = (size_t)1 << bits;
	for (size_t b = 0; b <= nb; b++) {
		while (i < c->n && (size_t)(ent_hash(c, i) >> shift) < b)
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
	if (!c || c->owned || !c->n)
		return ND_OK;
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

/* The filter's bit of h (c->filter set): 0 says h is not common. */
static inline uint64_t filter_bit(const nd__common *c, uint32_t h)
{
	return c->filter[h >> 22] >> ((h >> 16) & 63) & 1;
}

/* The entry of h, or c->n when h is not common. */
static size_t common_find(const nd__common *c, uint32_t h)
{
	size_t lo = 0, hi = c->n;
	if (c->filter && !filter_bit(c, h))
		return c->n;
	if (c->bucket) {
		lo = c->bucket[h >> c->shift], hi = c->bucket[(h >> c->shift) + 1];
		if (hi > c->n)
			hi = c->n; /* a damaged stored index misses, never reads past */
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ent_hash(c, mid) < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && ent_hash(c, lo) == h ? lo : c->n;
}

void nd__common_prefetch(const nd__common *c, uint32_t h, int entry)
{
	if (!c || !c->bucket || !filter_bit(c, h))
		return;
	const uint32_t *b = c->bucket + (h >> c->shift);
	if (!entry)
		__builtin_prefetch(b);
	else if (*b < c->n) /* a damaged stored index points nowhere */
		__builtin_prefetch(c->ent + 8 * (size_t)*b);
}

uint32_t nd__common_groups(const nd__common *c, uint32_t h)
{
	if (!c || !c->n)
		return 0;
	size_t i = common_find(c, h);
	return i < c->n ? ent_groups(c, i) : 0;
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
		uint32_t h = ent_hash(c, i);
		size_t b = bits ? h >> c->shift : 0;
		if (!filter_bit(c, h) || (bits && (c->bucket[b] > i || c->bucket[b + 1] <= i))) {
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
		if (ent_hash(c, i) <= ent_hash(c, i - 1) || ent_groups(c, i) <= ND_COMMON_CAP) {
			free(c);
			return nd_error_set(ND_ECORRUPT, "the store's record of common shingles is out of order; "
					    "`neardup sign --restart` makes it again");
		}
	if ((rc = index_load(txn, c)) < 0) {
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
	return rc;
}

/* Shingles (with their group) the counting passes of all threads hold
 * at most; and the fewest a pass is given. */
#define PASS_MAX ((size_t)16 << 20)
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

/* How many of r's samples are below x.  They are hashes spread evenly
 * up to r->thr, so x's place is guessed from its value and the guess
 * walked to the answer, a few samples in one or two cache lines: a binary
 * search over the whole sample was several dependent cache misses on a
 * record not yet read, an eighth of sign's verdicts at 100k in perf. */
static uint32_t samples_below(const nd__rec *r, uint64_t x)
{
	uint64_t guess = x > r->thr ? r->nsample : (uint64_t)r->nsample * x / ((uint64_t)r->thr + 1);
	uint32_t at = guess < r->nsample ? (uint32_t)guess : r->nsample;
	while (at < r->nsample && r->sample[at] < x)
		at++;
	while (at > 0 && r->sample[at - 1] >= x)
		at--;
	return at;
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
} common_part;

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
	uint32_t nsites;
	uint32_t *at;
	uint32_t *thr;
} sites;

static void sites_free(sites *z)
{
	free(z->at);
	free(z->thr);
}

static int sites_make(const nd__recset *rs, const uint32_t *reps, const uint32_t *site, const uint32_t *ver,
		      size_t n, sites *z)
{
	memset(z, 0, sizeof(*z));
	z->of = site, z->ver = ver;
	for (size_t i = 0; site && i < n; i++)
		z->nsites = site[i] > z->nsites ? site[i] : z->nsites;
	if (!z->nsites)
		return ND_OK;
	if (!(z->at = calloc((size_t)z->nsites + 1, sizeof(*z->at))) || !(z->thr = malloc((n + 1) * sizeof(*z->thr))))
		return nd_error_set(ND_ENOMEM, "out of memory for %u sites", z->nsites);
	for (size_t i = 0; i < n; i++)
		if (site[i])
			z->at[site[i]]++;
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
	common_part *part; /* one a pass */
} build_ctx;

/* Whether hash h, held by the groups g[0..ng), is a site's template: held
 * by ND_SITE_GROUPS versions on one site or more, and by at least half of
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
		if (2 * cnt[sc[k]] >= site_reach(z, sc[k], h))
			sc[keep++] = sc[k];
	for (size_t i = 0; i < ng; i++)
		cnt[z->of[(uint32_t)g[i]]] = 0;
	/* Those held by enough groups: by enough versions too? */
	for (size_t k = 0; k < keep; k++) {
		uint32_t s = sc[k], v[ND_SITE_GROUPS], nv = 0;
		for (size_t i = 0; i < ng && nv < ND_SITE_GROUPS; i++) {
			uint32_t r = (uint32_t)g[i], x = 0;
			if (z->of[r] != s)
				continue;
			while (x < nv && v[x] != z->ver[r])
				x++;
			if (x == nv)
				v[nv++] = z->ver[r];
		}
		if (nv >= ND_SITE_GROUPS)
			return 1;
	}
	return 0;
}

/* Passes [from, to), each its hashes' (hash, group) gathered and sorted,
 * every hash of more than ND_COMMON_CAP groups kept. */
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
		at[i] = samples_below(nd__recset_get(c->rs, c->reps[i]), c->bound[from]);
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
					groups = ND_SITE_TEMPLATE;
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

int nd__common_build(const nd__recset *rs, const uint32_t *reps, const uint32_t *site, const uint32_t *ver,
		     size_t n, unsigned jobs, nd__common **out)
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
	if ((rc = sites_make(rs, reps, site, ver, n, &z)) < 0 ||
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
	build_ctx c = {rs, reps, n, most, bound, gh, &z, part};
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
	}
done:
	for (uint32_t p = 0; part && p < passes; p++) {
		free(part[p].ent);
		free(part[p].p);
	}
	free(part);
	free(gh);
	free(bound);
	sites_free(&z);
	if (rc < 0) {
		nd__common_free(*out);
		*out = NULL;
	}
	return rc;
}

/* ---- two records ---- */

/* How many of r's samples are at or below t. */
static uint32_t cut_at(const nd__rec *r, uint32_t t)
{
	if (r->thr <= t)
		return r->nsample; /* all of it: the usual side */
	return samples_below(r, (uint64_t)t + 1);
}

/* Clamped as a weighed record keeps it, so that a pass over weighed
 * records and a hook over one record weigh alike. */
static inline uint32_t groups_of(const nd__rec *r, uint32_t k, const nd__common *common)
{
	if (r->groups)
		return r->groups[k];
	uint32_t g = nd__common_groups(common, r->sample[k]);
	return g > UINT16_MAX ? UINT16_MAX : g;
}

/* g at most UINT16_MAX (groups_of's), cap one of the two; only with a
 * table (common_new). */
static inline double weight(uint32_t g, uint32_t cap)
{
	return quotient[cap != ND_COMMON_CAP][g];
}

void nd__rec_weights(const nd__rec *r, uint32_t n, const nd__common *common, double *w, double *ws)
{
	uint32_t k = 0;
	*w = *ws = n;
	if (!nd__common_size(common))
		return;
	/* Not weighed, and the filter says of every shingle that it is not
	 * common (most records, against a small table): one a shingle, as
	 * the loop would sum them, without a lookup each. */
	if (!r->groups && common->filter) {
		uint64_t hit = 0;
		for (uint32_t i = 0; i < n; i++)
			hit |= filter_bit(common, r->sample[i]);
		if (!hit)
			return;
	}
	*w = *ws = 0;
	if (r->cum && n >= ND_REC_CUM_STEP) {
		/* The sums as the loop below had them there: the same result. */
		k = n / ND_REC_CUM_STEP * ND_REC_CUM_STEP;
		*w = r->cum[2 * (k / ND_REC_CUM_STEP - 1)], *ws = r->cum[2 * (k / ND_REC_CUM_STEP - 1) + 1];
	}
	for (; k < n; k++) {
		uint32_t g = groups_of(r, k, common);
		*w += weight(g, ND_COMMON_CAP), *ws += weight(g, ND_STORY_COMMON_CAP);
	}
}

void nd__rec_cum(nd__rec *r, const nd__common *common, double *cum)
{
	double w = 0, ws = 0;
	for (uint32_t k = 0; k < r->nsample; k++) {
		uint32_t g = groups_of(r, k, common);
		w += weight(g, ND_COMMON_CAP), ws += weight(g, ND_STORY_COMMON_CAP);
		if ((k + 1) % ND_REC_CUM_STEP == 0)
			cum[2 * (k / ND_REC_CUM_STEP)] = w, cum[2 * (k / ND_REC_CUM_STEP) + 1] = ws;
	}
	r->wsum = w, r->ssum = ws;
}

/* Sums of r's weights over its first n samples (copy's, story's). */
static void weights_of(const nd__rec *r, uint32_t n, const nd__common *common, double *w, double *ws)
{
	if (r->groups && n == r->nsample && nd__common_size(common))
		*w = r->wsum, *ws = r->ssum; /* weighed once for the pass, summed alike */
	else
		nd__rec_weights(r, n, common, w, ws);
}

/* ---- bounds by bucket ----
 *
 * Most candidate pairs share little, yet a bounded merge reads about half
 * of both samples before its floors are out of reach (the passages rule's
 * plain floor keeps it going), and the second record is a cache miss.
 * The buckets bound what a merge could find from 448 bytes a record: the
 * levels round a bucket's weight up, and what the top levels leave out is
 * added back as the smaller of the two records' totals.  A pair whose
 * bound misses every floor is refused as the merge would refuse it. */

#define WLEVELS 16
/* Copy weight levels, hundredths (a shingle weighs 1, or 3/groups). */
static const uint8_t wlevel[WLEVELS] = {0, 2, 4, 7, 10, 15, 20, 30, 45, 60, 80, 100, 125, 160, 200, 200};
#define WTOP 2.0 /* wlevel[WLEVELS - 1] / 100 */
#define NTOP 3   /* two bits of count */
#define CUTS_AT (ND_REC_BUCKETS / 2 + ND_REC_BUCKETS / 4)
#define CUT_SCALE 65536.0 /* a cut's weight in fixed point */

int nd__rec_buckets_simd = 1;

void nd__rec_buckets(nd__rec *r, const nd__common *common, uint8_t *out)
{
	double w[ND_REC_BUCKETS];
	uint16_t n[ND_REC_BUCKETS];
	/* Only the buckets the sample reaches are read or written. */
	for (uint32_t k = 0; k < r->nsample; k++)
		w[r->sample[k] % ND_REC_BUCKETS] = 0, n[r->sample[k] % ND_REC_BUCKETS] = 0;
	for (uint32_t k = 0; k < r->nsample; k++) {
		uint32_t b = r->sample[k] % ND_REC_BUCKETS;
		w[b] += weight(groups_of(r, k, common), ND_COMMON_CAP);
		n[b]++;
	}
	memset(out, 0, ND_REC_BUCKET_BYTES);
	r->bucket_wx = 0, r->bucket_nx = 0;
	for (uint32_t k = 0; k < r->nsample; k++) {
		uint32_t b = r->sample[k] % ND_REC_BUCKETS;
		if (!n[b])
			continue; /* done */
		uint8_t c = 0; /* the first level at or above: the levels under it, counted without a branch */
		for (int l = 0; l < WLEVELS - 1; l++)
			c += w[b] * 100 > wlevel[l];
		if (w[b] > WTOP)
			r->bucket_wx += w[b] - WTOP;
		out[b % (ND_REC_BUCKETS / 2)] |= (uint8_t)(c << 4 * (b / (ND_REC_BUCKETS / 2)));
		uint32_t m = n[b] < NTOP ? n[b] : NTOP;
		r->bucket_nx += n[b] - m;
		out[ND_REC_BUCKETS / 2 + b % (ND_REC_BUCKETS / 4)] |= (uint8_t)(m << 2 * (b / (ND_REC_BUCKETS / 4)));
		n[b] = 0;
	}
	/* The cuts: the checkpoints' copy weights (nd__rec_cum), with the
	 * hash each ends at. */
	uint8_t *cuts = out + CUTS_AT;
	for (uint32_t c = 0; c < ND_REC_BUCKET_CUTS; c++) {
		uint32_t end = ND_REC_CUM_STEP * (c + 1), q = UINT32_MAX, fixed = 0;
		if (end <= r->nsample) {
			q = r->sample[end - 1];
			double f = r->cum[2 * c] * CUT_SCALE; /* truncated: rounded down */
			fixed = f < UINT32_MAX ? (uint32_t)f : UINT32_MAX;
		}
		memcpy(cuts + 4 * c, &q, 4);
		memcpy(cuts + 4 * (ND_REC_BUCKET_CUTS + c), &fixed, 4);
	}
}

void nd__rec_cut_least(const nd__rec *r, uint32_t t, uint32_t *n, double *w)
{
	const uint8_t *cuts = r->buckets + CUTS_AT;
	*n = 0, *w = 0;
	if (r->thr <= t) {
		*n = r->nsample, *w = r->wsum; /* not cut */
		return;
	}
	for (uint32_t c = 0; c < ND_REC_BUCKET_CUTS; c++) {
		uint32_t q, fixed;
		memcpy(&q, cuts + 4 * c, 4);
		if (q > t)
			break;
		memcpy(&fixed, cuts + 4 * (ND_REC_BUCKET_CUTS + c), 4);
		*n = ND_REC_CUM_STEP * (c + 1), *w = fixed / CUT_SCALE;
	}
}

/* Sums over buckets of the smaller level, weight (hundredths) and count. */
static void bucket_sums_portable(const uint8_t *a, const uint8_t *b, uint32_t *w, uint32_t *n)
{
	*w = *n = 0;
	for (uint32_t k = 0; k < ND_REC_BUCKETS / 2; k++)
		for (int h = 0; h < 8; h += 4) {
			uint32_t x = a[k] >> h & 15, y = b[k] >> h & 15;
			*w += wlevel[x < y ? x : y];
		}
	for (uint32_t k = ND_REC_BUCKETS / 2; k < CUTS_AT; k++)
		for (int h = 0; h < 8; h += 2) {
			uint32_t x = a[k] >> h & 3, y = b[k] >> h & 3;
			*n += x < y ? x : y;
		}
}

#if defined(HAVE_SSSE3_TARGET)
__attribute__((target("ssse3"))) static void bucket_sums_ssse3(const uint8_t *a, const uint8_t *b, uint32_t *w,
							       uint32_t *n)
{
	const __m128i lut = _mm_loadu_si128((const __m128i *)wlevel), zero = _mm_setzero_si128();
	const __m128i m4 = _mm_set1_epi8(15), m2 = _mm_set1_epi8(3);
	__m128i sw = zero, sn = zero;
	for (int k = 0; k < ND_REC_BUCKETS / 2; k += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(a + k)), y = _mm_loadu_si128((const __m128i *)(b + k));
		__m128i lo = _mm_min_epu8(_mm_and_si128(x, m4), _mm_and_si128(y, m4));
		__m128i hi = _mm_min_epu8(_mm_and_si128(_mm_srli_epi16(x, 4), m4), _mm_and_si128(_mm_srli_epi16(y, 4), m4));
		sw = _mm_add_epi64(sw, _mm_sad_epu8(_mm_shuffle_epi8(lut, lo), zero));
		sw = _mm_add_epi64(sw, _mm_sad_epu8(_mm_shuffle_epi8(lut, hi), zero));
	}
	for (int k = ND_REC_BUCKETS / 2; k < CUTS_AT; k += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(a + k)), y = _mm_loadu_si128((const __m128i *)(b + k));
		__m128i m = _mm_min_epu8(_mm_and_si128(x, m2), _mm_and_si128(y, m2));
		m = _mm_add_epi8(m, _mm_min_epu8(_mm_and_si128(_mm_srli_epi16(x, 2), m2), _mm_and_si128(_mm_srli_epi16(y, 2), m2)));
		m = _mm_add_epi8(m, _mm_min_epu8(_mm_and_si128(_mm_srli_epi16(x, 4), m2), _mm_and_si128(_mm_srli_epi16(y, 4), m2)));
		m = _mm_add_epi8(m, _mm_min_epu8(_mm_and_si128(_mm_srli_epi16(x, 6), m2), _mm_and_si128(_mm_srli_epi16(y, 6), m2)));
		sn = _mm_add_epi64(sn, _mm_sad_epu8(m, zero));
	}
	*w = (uint32_t)(_mm_cvtsi128_si64(sw) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sw, sw)));
	*n = (uint32_t)(_mm_cvtsi128_si64(sn) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sn, sn)));
}
#endif

void nd__rec_bucket_bounds(const nd__rec *a, const nd__rec *b, double *weight, uint32_t *count)
{
	uint32_t w, n;
#if defined(HAVE_SSSE3_TARGET)
	static int ssse3 = -1; /* read and written atomically: threads may ask at once */
	int have = __atomic_load_n(&ssse3, __ATOMIC_RELAXED);
	if (have < 0) {
		have = __builtin_cpu_supports("ssse3") != 0;
		__atomic_store_n(&ssse3, have, __ATOMIC_RELAXED);
	}
	if (have && nd__rec_buckets_simd)
		bucket_sums_ssse3(a->buckets, b->buckets, &w, &n);
	else
#endif
		bucket_sums_portable(a->buckets, b->buckets, &w, &n);
	/* Rounding slack: the levels are compared with sums in another order. */
	*weight = w / 100.0 + (a->bucket_wx < b->bucket_wx ? a->bucket_wx : b->bucket_wx) + 1e-6;
	*count = n + (a->bucket_nx < b->bucket_nx ? a->bucket_nx : b->bucket_nx);
}

/* The copy weight of r's first samples, rounded down to a checkpoint
 * (a lower bound of the first i's; 0 without checkpoints). */
static inline double weight_before(const nd__rec *r, uint32_t i)
{
	return r->cum && i >= ND_REC_CUM_STEP ? r->cum[2 * (i / ND_REC_CUM_STEP - 1)] : 0;
}

/* Merge steps between checks of whether a bounded merge can still reach
 * its floor. */
#define BOUND_EVERY 16

/* A bounded merge's state, and whether its floors are out of reach:
 * what is left to share is at most one a shingle, and at most the weight
 * either side has left.  A side not weighed yet (lazy) is summed as the
 * merge passes it: it weighs at least that, or what the pair shares so
 * far if more, and every shingle the pair may still share besides (those
 * lie beyond what was passed). */
typedef struct {
	uint32_t na, nb;
	double wsa, wsb;
	int a_shorter;      /* a has the fewer shingles: containment's base */
	int lazy_a, lazy_b; /* wsa, wsb only summed so far */
	uint32_t done_a, done_b; /* a lazy side's samples summed in wsa, wsb */
	double res_floor, cont_floor;
	int passages;
	const nd__common *common;
} merge_bound;

/* Whether a pair that shares at most weight most, rest of it still to
 * come, and nmost samples misses every floor (each test only more likely
 * as a side's weight grows, and the shares still to come weigh on a lazy
 * side too: so a lazy side's partial sum, or what is shared so far, plus
 * rest, is a bound). */
static int floors_missed(const merge_bound *m, double most, double rest, double nmost)
{
	double wsa = m->lazy_a ? fmax(m->wsa + rest, most) : m->wsa;
	double wsb = m->lazy_b ? fmax(m->wsb + rest, most) : m->wsb;
	double wu_least = wsa + wsb - most, shorter = m->a_shorter ? wsa : wsb;
	/* The passages rule: both its floors in reach. */
	return (m->res_floor <= 0 || (wu_least > 0 && most < m->res_floor * wu_least)) &&
	       (m->cont_floor <= 0 || most < m->cont_floor * shorter) &&
	       (!m->passages || (wu_least > 0 && most < ND_PASSAGE_RESEMBLANCE * wu_least) ||
		nmost < ND_PASSAGE_PLAIN * (m->na + m->nb - nmost));
}

/* A lazy side's samples [*done, to) added to *w: those the filter says
 * are not common weigh 1; the others at least 0, for a lookup each would
 * cost more than the merge steps it saves. */
static void lazy_pass(const nd__rec *r, uint32_t to, const nd__common *common, uint32_t *done, double *w)
{
	if (common->filter)
		for (uint32_t k = *done; k < to; k++)
			*w += !filter_bit(common, r->sample[k]);
	*done = to > *done ? to : *done;
}

static int out_of_reach(merge_bound *m, const nd__rec *a, const nd__rec *b, uint32_t i, uint32_t j, double wi,
			uint32_t ni)
{
	double rest = m->na - i < m->nb - j ? m->na - i : m->nb - j;
	double ra = m->wsa - weight_before(a, i), rb = m->wsb - weight_before(b, j);
	if (m->lazy_a)
		lazy_pass(a, i, m->common, &m->done_a, &m->wsa);
	else if (ra < rest)
		rest = ra;
	if (m->lazy_b)
		lazy_pass(b, j, m->common, &m->done_b, &m->wsb);
	else if (rb < rest)
		rest = rb;
	/* Plain: every shingle left a match at most.  A hair over, as in
	 * lazy_weights: a bound that ends on a floor is left to the scores. */
	double most = wi + rest;
	return floors_missed(m, most + 1e-9 * (1 + most), rest, ni + (m->na - i < m->nb - j ? m->na - i : m->nb - j));
}

/* A lazy side's weights over its first n samples, summed as
 * nd__rec_weights sums them, stopping (0) once the pair, sharing wi and
 * ni, misses every floor; else 1, *w and *ws whole and the side weighed. */
static int lazy_weights(merge_bound *m, int side_b, const nd__rec *r, uint32_t n, const nd__common *common,
			double wi, uint32_t ni, double *w, double *ws)
{
	double *low = side_b ? &m->wsb : &m->wsa;
	/* A hair over what is shared: a sum that ends on a floor is left to
	 * the scores, which divide where this multiplies. */
	double most = wi + 1e-9 * (1 + wi);
	*w = *ws = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t g = groups_of(r, k, common);
		*w += weight(g, ND_COMMON_CAP), *ws += weight(g, ND_STORY_COMMON_CAP);
		if ((k + 1) % BOUND_EVERY == 0) {
			*low = *w;
			if (floors_missed(m, most, 0, ni))
				return 0;
		}
	}
	*low = *w;
	if (side_b)
		m->lazy_b = 0;
	else
		m->lazy_a = 0;
	return 1;
}

/* The shingle part of nd__rec_compare: over the union's sample (every
 * shingle of either at or below the lower threshold), the shared weight
 * by a merge that adds only at matches, and each side's weight by a sum,
 * so that union = side + side - shared.  With floors (> 0), a merge that
 * can no longer bring resemblance to res_floor nor containment to
 * cont_floor stops and returns 0, s incomplete (each shingle still to
 * merge adds at most 1 to the shared weight, and no more than either side
 * has left); else 1, s as without.  With passages, it goes on while the
 * passages rule's two floors are both in reach. */
static int shingle_scores(const nd__rec *a, const nd__rec *b, const nd__common *common, nd__rec_scores *s,
			  double res_floor, double cont_floor, int passages)
{
	uint32_t t = a->thr < b->thr ? a->thr : b->thr;
	const nd__u32u *sa = a->sample, *sb = b->sample;
	uint32_t i = 0, j = 0, ni = 0, steps = 0;
	double wi = 0, si = 0, ssa, ssb;
	int weighed = nd__common_size(common) > 0;
	merge_bound m = {0, 0, 0, 0, a->nshingles <= b->nshingles, 0, 0, 0, 0, res_floor, cont_floor, passages, common};

	memset(s, 0, sizeof(*s));
	s->equal = a->text == b->text && a->nwords == b->nwords;
	if (s->equal) { /* the same words: nothing to weigh or merge */
		s->resemblance = s->story = s->plain = s->containment = 1;
		return 1;
	}
	int bounded = res_floor > 0 || cont_floor > 0;
	/* Most pairs are refused by their buckets, before the cut is read
	 * (the sizes at the cut bounded from below by the buckets' cuts). */
	int bucketed = bounded && weighed && a->buckets && b->buckets;
	double bw = 0;
	uint32_t bn = 0;
	if (bucketed) {
		/* A cut shares at most what either whole sample holds. */
		nd__rec_bucket_bounds(a, b, &bw, &bn);
		bw = fmin(bw, fmin(a->wsum, b->wsum));
		bn = bn < a->nsample ? bn : a->nsample;
		bn = bn < b->nsample ? bn : b->nsample;
		nd__rec_cut_least(a, t, &m.na, &m.wsa);
		nd__rec_cut_least(b, t, &m.nb, &m.wsb);
		if (floors_missed(&m, bw, 0, bn))
			return 0;
	}
	m.na = cut_at(a, t), m.nb = cut_at(b, t);
	/* A record not weighed (a hook's neighbour, met once) is summed as the
	 * merge passes it, and after the merge only as far as the floors need:
	 * most such pairs share nearly nothing, and its weights so far refuse
	 * them. */
	m.lazy_a = bounded && weighed && !a->groups, m.lazy_b = bounded && weighed && !b->groups;
	if (m.lazy_a)
		m.wsa = 0;
	else
		weights_of(a, m.na, common, &m.wsa, &ssa);
	if (m.lazy_b)
		m.wsb = 0;
	else
		weights_of(b, m.nb, common, &m.wsb, &ssb);
	if (bucketed) { /* again with the sizes at the cut */
		uint32_t nmost = bn < m.na ? bn : m.na;
		if (floors_missed(&m, fmin(bw, fmin(m.wsa, m.wsb)), 0, nmost < m.nb ? nmost : m.nb))
			return 0;
	}
#define MATCH(k)                                                                              \
	do {                                                                                  \
		if (weighed) {                                                                \
			uint32_t g_ = groups_of(a, (k), common);                              \
			wi += weight(g_, ND_COMMON_CAP), si += weight(g_, ND_STORY_COMMON_CAP); \
		} else                                                                        \
			wi += 1.0, si += 1.0;                                                 \
		ni++;                                                                         \
	} while (0)
#if defined(__SSE2__)
	/* Four of each side at a time: each of a's four against every one of
	 * b's, matches taken in a's order (the sums come out as one at a
	 * time gives them), then the side with the lower last moves on. */
	while (i + 4 <= m.na && j + 4 <= m.nb) {
		__m128i va = _mm_loadu_si128((const __m128i *)(sa + i));
		__m128i vb = _mm_loadu_si128((const __m128i *)(sb + j));
		__m128i eq = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi32(va, vb), _mm_cmpeq_epi32(va, _mm_shuffle_epi32(vb, 0x39))),
			_mm_or_si128(_mm_cmpeq_epi32(va, _mm_shuffle_epi32(vb, 0x4e)),
				     _mm_cmpeq_epi32(va, _mm_shuffle_epi32(vb, 0x93))));
		unsigned hit = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(eq));
		while (hit) {
			MATCH(i + (uint32_t)__builtin_ctz(hit));
			hit &= hit - 1;
		}
		uint32_t x = sa[i + 3], y = sb[j + 3];
		i += x <= y ? 4 : 0, j += y <= x ? 4 : 0;
		if (bounded && ++steps % (BOUND_EVERY / 4) == 0 && out_of_reach(&m, a, b, i, j, wi, ni))
			return 0;
	}
#endif
	while (i < m.na && j < m.nb) {
		uint32_t x = sa[i], y = sb[j];
		if (x == y)
			MATCH(i);
		i += x <= y, j += y <= x;
		if (bounded && ++steps % BOUND_EVERY == 0 && out_of_reach(&m, a, b, i, j, wi, ni))
			return 0;
	}
#undef MATCH
	if ((m.lazy_a && !lazy_weights(&m, 0, a, m.na, common, wi, ni, &m.wsa, &ssa)) ||
	    (m.lazy_b && !lazy_weights(&m, 1, b, m.nb, common, wi, ni, &m.wsb, &ssb)))
		return 0;
	double shorter = m.a_shorter ? m.wsa : m.wsb;
	double wu = m.wsa + m.wsb - wi, su = ssa + ssb - si;
	uint32_t nu = m.na + m.nb - ni;
	s->resemblance = wu > 0 ? wi / wu : 0;
	s->story = su > 0 ? si / su : 0;
	s->plain = nu ? (double)ni / nu : 0;
	s->containment = shorter > 0 ? wi / shorter : 0;
	return 1;
}

/* Whether word bits w (NAME_WORD_BITS of a name) are among r's names. */
static int has_word(const nd__rec *r, uint32_t w)
{
	for (uint32_t i = 0; i < r->nnames; i++)
		if ((r->names[i] & ~ND_NAME_PLACE_MASK) == w)
			return 1;
	return 0;
}

/* A rename: the same template about another named thing (two man pages of
 * two commands, a product page for another product).  Places both sample
 * (the lower threshold) where each text has one word of those it repeats
 * and the words differ, the same two words in ND_RENAME_PLACES places or
 * more, neither among the other text's repeated words.  An edited version
 * keeps its words: its edits are words it does not repeat, or ones still
 * elsewhere in the other. */
static int renamed(const nd__rec *a, const nd__rec *b)
{
	enum { MOST = 4 * ND_REC_NAMES };
	const uint32_t word = ~ND_NAME_PLACE_MASK, bits = ND_NAME_WORD_BITS;
	uint32_t pair[MOST], n = 0, i = 0, j = 0;
	uint32_t t = a->nthr < b->nthr ? a->nthr : b->nthr;
	while (i < a->nnames && j < b->nnames && n < MOST) {
		uint32_t pa = a->names[i] & ND_NAME_PLACE_MASK, pb = b->names[j] & ND_NAME_PLACE_MASK;
		if (a->names[i] > t || b->names[j] > t)
			break;
		uint32_t ie = i, je = j;
		while (ie < a->nnames && (a->names[ie] & ND_NAME_PLACE_MASK) == pa)
			ie++;
		while (je < b->nnames && (b->names[je] & ND_NAME_PLACE_MASK) == pb)
			je++;
		if (pa == pb && ie - i == 1 && je - j == 1 && (a->names[i] & word) != (b->names[j] & word))
			pair[n++] = (a->names[i] & word) << bits | (b->names[j] & word);
		if (pa <= pb)
			i = ie;
		if (pb <= pa)
			j = je;
	}
	nd__sort_u32(pair, n);
	/* Most pairs have no such place twice: the other's words are read
	 * only for one that has. */
	for (i = 0; i + ND_RENAME_PLACES <= n; i = j) {
		for (j = i + 1; j < n && pair[j] == pair[i]; j++)
			;
		if (j - i >= ND_RENAME_PLACES && !has_word(b, pair[i] >> bits) && !has_word(a, pair[i] & word))
			return 1;
	}
	return 0;
}

/* The values part: other values in the same places, and whether the
 * shorter text's values are all in the longer. */
static void value_scores(const nd__rec *a, const nd__rec *b, nd__rec_scores *s)
{
	uint32_t i, j;
	/* Values in the same places: a place both sample (the lower
	 * threshold) whose value sets have nothing in common changed. */
	uint32_t pt = a->pthr < b->pthr ? a->pthr : b->pthr;
	uint32_t changed = 0;
	i = j = 0;
	while (i < a->nplaces && j < b->nplaces) {
		uint32_t pa = (uint32_t)(a->places[i] >> 32), pb = (uint32_t)(b->places[j] >> 32);
		if (pa > pt || pb > pt)
			break;
		if (pa != pb) {
			if (pa < pb)
				i++;
			else
				j++;
			continue;
		}
		uint32_t ie = i, je = j;
		while (ie < a->nplaces && (uint32_t)(a->places[ie] >> 32) == pa)
			ie++;
		while (je < b->nplaces && (uint32_t)(b->places[je] >> 32) == pb)
			je++;
		int common = 0;
		for (uint32_t x = i, y = j; x < ie && y < je && !common;) {
			uint32_t va = (uint32_t)a->places[x], vb = (uint32_t)b->places[y];
			if (va == vb)
				common = 1;
			else if (va < vb)
				x++;
			else
				y++;
		}
		changed += !common;
		i = ie, j = je;
	}
	/* Scaled from the sample to the text: the veto's count, and per 100
	 * words of the shorter text (a text kept whole counts exactly). */
	uint32_t shorter_words = a->nwords < b->nwords ? a->nwords : b->nwords;
	double est = changed * (4294967296.0 / ((double)pt + 1));
	s->values_differ = changed && est > ND_VALUES_MIN - 0.5 &&
			   est * 100 >= (double)shorter_words * ND_VALUES_PER_100;

	/* Every value of the shorter text in the longer (at the lower
	 * threshold of the two value samples). */
	const nd__rec *sh = a->nwords <= b->nwords ? a : b, *lo = sh == a ? b : a;
	uint32_t vt = a->vthr < b->vthr ? a->vthr : b->vthr;
	s->values_kept = 1;
	for (i = 0, j = 0; i < sh->nvalues && sh->values[i] <= vt; i++) {
		while (j < lo->nvalues && lo->values[j] < sh->values[i])
			j++;
		if (j == lo->nvalues || lo->values[j] != sh->values[i]) {
			s->values_kept = 0;
			break;
		}
	}
}

/* Whether two documents' descriptive signatures say they are other texts:
 * both keyed, and fewer than ND_SIGNATURE_JACCARD of their bits in common;
 * 0 when either is not known (a record made from words alone). */
static int signature_differs(const nd__rec *a, const nd__rec *b)
{
	if (!a->bits || !b->bits || a->nbits < ND_MIN_BITS || b->nbits < ND_MIN_BITS)
		return 0;
	uint32_t i = 0, j = 0, both = 0;
	while (i < a->nbits && j < b->nbits) {
		uint16_t x = a->bits[i], y = b->bits[j];
		both += x == y;
		i += x <= y, j += y <= x;
	}
	return both < ND_SIGNATURE_JACCARD * (a->nbits + b->nbits - both);
}

/* Why a pair that a rule accepts at point is refused all the same, or 0:
 * other values in the same places (ND_REFUSED_VALUES, at every point; s's
 * values read here unless read), a rename (ND_REFUSED_RENAMED, not at
 * story: a story retold says "said" where it said "says"), or, for a pair
 * whose resemblance alone barely accepts it at copy, signatures that
 * disagree (ND_REFUSED_SIGNATURE). */
static nd_verify_how refusal(nd_point point, const nd__rec *a, const nd__rec *b, nd__rec_scores *s, int read,
			     int barely)
{
	if (!read)
		value_scores(a, b, s);
	if (s->values_differ)
		return ND_REFUSED_VALUES;
	if (point != ND_POINT_STORY && renamed(a, b))
		return ND_REFUSED_RENAMED;
	if (barely && signature_differs(a, b))
		return ND_REFUSED_SIGNATURE;
	return 0;
}

int nd__rec_refused(nd_point point, const nd__rec *a, const nd__rec *b, nd_verify_how *how)
{
	nd__rec_scores s;
	nd_verify_how h = refusal(point, a, b, &s, 0, 0);
	if (h && how)
		*how = h;
	return h != 0;
}

void nd__rec_compare(const nd__rec *a, const nd__rec *b, const nd__common *common, nd__rec_scores *s)
{
	shingle_scores(a, b, common, s, 0, 0, 0);
	value_scores(a, b, s);
	s->renamed = renamed(a, b);
}

double nd__rec_plain_floor(const nd__rec *a, const nd__rec *b, double floor)
{
	uint32_t t = a->thr < b->thr ? a->thr : b->thr;
	uint32_t na = cut_at(a, t), nb = cut_at(b, t), i = 0, j = 0, ni = 0, steps = 0;
	/* ni / (na + nb - ni) >= floor needs ni >= need. */
	double need = floor * (na + nb) / (1 + floor);
	while (i < na && j < nb) {
		uint32_t x = a->sample[i], y = b->sample[j];
		ni += x == y;
		i += x <= y, j += y <= x;
		if (++steps % BOUND_EVERY == 0 && ni + (na - i < nb - j ? na - i : nb - j) < need)
			return 0;
	}
	uint32_t nu = na + nb - ni;
	return nu ? (double)ni / nu : (a->text == b->text && a->nwords == b->nwords);
}

double nd__rec_plain(const nd__rec *a, const nd__rec *b)
{
	return nd__rec_plain_floor(a, b, 0); /* nothing is out of reach of 0 */
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
static uint32_t shared_passages(const nd__rec *a, const nd__rec *b, const nd__common *c)
{
	uint32_t t = a->thr < b->thr ? a->thr : b->thr;
	uint32_t na = cut_at(a, t), nb = cut_at(b, t), i = 0, j = 0, m = 0;
	const uint8_t *at[PASSAGE_MAX];
	uint16_t up[PASSAGE_MAX], size[PASSAGE_MAX], slot_at[2 * PASSAGE_MAX];
	uint32_t slot_key[2 * PASSAGE_MAX];

	while (i < na && j < nb && m < PASSAGE_MAX) {
		uint32_t x = a->sample[i], y = b->sample[j];
		if (x == y && (!a->groups || a->groups[i])) { /* a weighed record knows it is not common */
			size_t e = common_find(c, x);
			if (e < c->n)
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

/* The verdict at point from a pair's complete shingle scores (values read
 * only for a pair it would accept). */
static int decide(nd_point point, const nd__rec *a, const nd__rec *b, const nd__common *common,
		  nd__rec_scores *s, int can_contain, nd_verify_how *how, double *distance)
{
	nd_verify_how h = ND_VERIFIED_RESEMBLANCE;
	double d = 1;
	int yes = 0;
	if (s->equal) {
		yes = 1, d = 0;
		goto done;
	}
	if (a->nwords < ND_REC_SHORT_WORDS || b->nwords < ND_REC_SHORT_WORDS)
		goto done; /* a short text is a copy only of the same words */
	d = 1 - s->resemblance;
	/* Each rule on its own: a rule that refuses does not hide the next
	 * (an edited copy may lose a value containment wants kept and still
	 * share its passages). */
	int read = 0; /* the values, read only for a pair a rule would accept */
	if (s->resemblance >= nd_point_resemblance(point))
		yes = 1;
	if (!yes && can_contain && s->containment >= ND_POINT_COPY_CONTAINMENT) {
		value_scores(a, b, s), read = 1;
		if (s->values_kept)
			yes = 1, h = ND_VERIFIED_CONTAINMENT, d = 1 - s->containment;
	}
	if (!yes && point == ND_POINT_COPY && s->resemblance >= ND_PASSAGE_RESEMBLANCE && s->plain >= ND_PASSAGE_PLAIN &&
	    nd__common_has_passages(common) && shared_passages(a, b, common) >= ND_PASSAGES)
		yes = 1, h = ND_VERIFIED_PASSAGES, d = 1 - s->plain;
	if (!yes)
		goto done; /* most pairs: the values are never read */
	/* The signature reads the whole text's relative frequencies: not
	 * for a pair that containment could accept (a thread added), nor one
	 * that common text discounted brought up (another site's template). */
	int barely = point == ND_POINT_COPY && h == ND_VERIFIED_RESEMBLANCE && s->resemblance < ND_SIGNATURE_BAND &&
		     s->resemblance <= s->plain && !(can_contain && s->containment >= ND_POINT_COPY_CONTAINMENT);
	nd_verify_how no = refusal(point, a, b, s, read, barely);
	if (no)
		yes = 0, h = no;
done:
	if (how)
		*how = h;
	if (distance)
		*distance = d;
	return yes;
}

static int can_contain(const nd__rec *a, const nd__rec *b)
{
	uint32_t ns = a->nwords < b->nwords ? a->nwords : b->nwords;
	uint32_t nl = a->nwords < b->nwords ? b->nwords : a->nwords;
	return ns >= ND_CONTAIN_MIN_WORDS && (double)nl <= ND_CONTAIN_MAX_RATIO * ns;
}

int nd__rec_verdict(nd_point point, const nd__rec *a, const nd__rec *b, const nd__common *common,
		    nd_verify_how *how, double *distance)
{
	nd__rec_scores s;
	if (point == ND_POINT_STRICT)
		return nd_error_set(ND_EINVAL, "the strict point reads words, not records");
	int contain = a->nwords && b->nwords && can_contain(a, b);
	/* A caller that wants only yes or no lets the merge stop once
	 * neither measure can reach its point. */
	double res_floor = 0, cont_floor = 0;
	int passages = 0;
	if (!how && !distance) {
		res_floor = nd_point_resemblance(point);
		cont_floor = contain ? ND_POINT_COPY_CONTAINMENT : 0;
		passages = point == ND_POINT_COPY && nd__common_has_passages(common);
		if (a->nwords < ND_REC_SHORT_WORDS || b->nwords < ND_REC_SHORT_WORDS)
			res_floor = 1.01, cont_floor = 0, passages = 0; /* equal text only: the first check stops it */
	}
	if (!a->nwords || !b->nwords || !shingle_scores(a, b, common, &s, res_floor, cont_floor, passages)) {
		/* no text: nothing to call a copy; or the merge stopped */
		if (how)
			*how = ND_VERIFIED_RESEMBLANCE;
		if (distance)
			*distance = 1;
		return 0;
	}
	return decide(point, a, b, common, &s, contain, how, distance);
}

float nd__rec_story_score(const nd__rec *a, const nd__rec *b, const nd__common *common)
{
	nd__rec_scores s;
	shingle_scores(a, b, common, &s, 0, 0, 0);
	return (float)s.story;
}

void nd__rec_story(const nd__rec *a, const nd__rec *b, const nd__common *common, float *story, int *copy)
{
	nd__rec_scores s;
	shingle_scores(a, b, common, &s, 0, 0, 0);
	*story = (float)s.story;
	*copy = a->nwords && b->nwords && decide(ND_POINT_COPY, a, b, common, &s, can_contain(a, b), NULL, NULL) == 1;
}
