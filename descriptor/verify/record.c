/* A document's record of what the verdict compares (see record.h). */
#include "descriptor/verify/record.h"
#include "descriptor/verify/verify_internal.h"
#include "neardup/descriptor.h"
#include "neardup/similarity.h"
#include "neardup/tokenizer.h"
#include "common/nd_hash.h"
#include "common/nd_parallel.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define VERSION 1
#define HEAD 36 /* u8 version, u8 0, u16 nsample, nplaces, nvalues, u32 nwords,
		   nshingles, thr, pthr, vthr, u64 text.  The set of values
		   (nvalues u32s after the places) is written empty since no
		   rule reads it; an older record's is skipped. */
#define TEXT_BINS (ND_TEXT_TREES * ND_NEAR_ROWS)

/* The threshold keeping about want of n uniform 32-bit hashes. */
static uint32_t threshold(size_t n, size_t want)
{
	if (n <= want)
		return UINT32_MAX;
	return (uint32_t)(((uint64_t)want << 32) / n);
}

/* Sorted distinct v[0..n): keep those <= *thr, at most cap of them (the
 * threshold then falls to the last kept, so the sample is still "all at
 * or below it"). */
static size_t keep_below(uint32_t *v, size_t n, uint32_t *thr, size_t cap)
{
	size_t k = 0;
	while (k < n && v[k] <= *thr)
		k++;
	if (k > cap) {
		k = cap;
		*thr = v[k - 1];
	}
	return k;
}

static uint32_t top32(uint64_t x)
{
	return (uint32_t)(x >> 32);
}

/* The place of ids[i]: the two words before it and the one after (as the
 * verdict on words has it). */
static uint32_t place_hash(const uint32_t *ids, size_t i)
{
	return top32(nd_mix64(((uint64_t)ids[i - 2] << 32 | ids[i - 1]) ^
			      nd_mix64(ids[i + 1] + 0x9e3779b97f4a7c15ULL)));
}

/* The word back places before ids[i] as a lead's place reads it: any
 * number as one word (a page's own number stands beside its name: "37.40.
 * routine_column_usage", "Table 37.38. routine_column_usage"), and the
 * text's start as a word, where a title begins with its name ("cassert
 * File Reference"). */
static uint32_t lead_context(const uint32_t *ids, size_t i, size_t back)
{
	if (i < back)
		return 0x73746172u; /* even: no word's id is both this and a number */
	return ids[i - back] & ND_WORD_DIGIT ? 0x6e756d31u : ids[i - back];
}

/* A value's place: in the title, the two words before it as a lead reads
 * them and the one after, below ND_TITLE_PLACES (a page's number stands
 * at its start: "Django 1.4.14 release notes"); elsewhere place_hash, at
 * or above it. */
static uint32_t value_place(const uint32_t *ids, size_t i)
{
	if (i < ND_TITLE_WORDS)
		return top32(nd_mix64(((uint64_t)lead_context(ids, i, 2) << 32 | lead_context(ids, i, 1)) ^
				      nd_mix64(ids[i + 1] + 0x7469746c65ULL))) %
		       ND_TITLE_PLACES;
	uint32_t h = place_hash(ids, i);
	return h < ND_TITLE_PLACES ? ND_TITLE_PLACES : h;
}

/* A lead word's place: the two words before it.  Not the word after, as
 * a name's place has it: a name stands before another type parameter on
 * each page ("Peekable<I> as", "ArgsOs as"). */
static uint32_t lead_place(const uint32_t *ids, size_t i)
{
	return top32(nd_mix64(((uint64_t)lead_context(ids, i, 2) << 32 | lead_context(ids, i, 1)) ^
			      0x6c656164706c6163ULL));
}

/* One-permutation MinHash: bin b of TEXT_BINS holds the least hash that
 * falls in it, as 16 bits of its place within the bin (order kept, so the
 * least hash gives the least key); an empty bin takes the next non-empty
 * one's, as scheme says (ND_TEXT_KEYS_*).  UINT16_MAX is "no key", so keys
 * stop one short of it. */
static void text_keys(const uint32_t *h, size_t n, uint16_t *keys, int scheme)
{
	uint32_t best[TEXT_BINS];
	int have[TEXT_BINS] = {0};
	for (unsigned b = 0; b < TEXT_BINS; b++)
		best[b] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = (uint64_t)h[i] * TEXT_BINS;
		unsigned b = (unsigned)(x >> 32);
		uint32_t frac = (uint32_t)x;
		if (!have[b] || frac < best[b])
			best[b] = frac, have[b] = 1;
	}
	for (unsigned b = 0; b < TEXT_BINS; b++) {
		unsigned k = b;
		for (unsigned step = 0; step < TEXT_BINS && !have[k]; step++)
			k = (k + 1) % TEXT_BINS;
		uint16_t v = !have[k] ? UINT16_MAX :
			     k == b || scheme == ND_TEXT_KEYS_ROTATED ? (uint16_t)(best[k] >> 16) :
			     (uint16_t)(nd_mix64((uint64_t)k << 40 ^ (uint64_t)b << 32 ^ best[k]) >> 48);
		keys[b] = n && v == UINT16_MAX ? UINT16_MAX - 1 : v;
	}
}

/* A word's bits in a name. */
static uint32_t name_word(uint32_t id)
{
	return top32(nd_mix64(id ^ 0x6e616d65ULL)) >> (32 - ND_NAME_WORD_BITS);
}

static int is_lead(const uint32_t *lead, uint32_t nl, uint32_t id)
{
	for (uint32_t x = 0; x < nl; x++)
		if (lead[x] == id)
			return 1;
	return 0;
}

/* The distinct words of the text's title (its first ND_TITLE_WORDS),
 * into lead (room for ND_TITLE_WORDS): how many. */
static uint32_t lead_words(const uint32_t *ids, size_t n, uint32_t *lead)
{
	uint32_t nl = 0;
	for (size_t i = 0; i < n && i < ND_TITLE_WORDS; i++)
		if (!is_lead(lead, nl, ids[i]))
			lead[nl++] = ids[i];
	return nl;
}

/* The places of the words ids[0..n) repeats (2 to ND_NAME_MAX_COUNT
 * times, a word of its lead to ND_LEAD_MAX_COUNT), sampled by place, into
 * e (room for n + 1), out's names, and how many times the text says each
 * of its title's words lead[0..nl) into lead_count.  A kept place keeps
 * all its words, as value places do.  The counts are an open-addressing
 * table: a sort and a search a word cost as much again as
 * the rest of the record. */
static int make_names(const uint32_t *ids, size_t n, uint32_t *e, nd__rec *out, const uint32_t *lead, uint32_t nl,
		      uint32_t *lead_count)
{
	size_t cap = 16;
	unsigned bits = 4;
	while (cap < 2 * n)
		cap <<= 1, bits++;
	uint32_t *key = calloc(2 * cap, sizeof(*key));
	if (!key)
		return nd_error_set(ND_ENOMEM, "out of memory for a record of %zu words", n);
	uint32_t *cnt = key + cap; /* not before the check: NULL + cap is undefined */
	uint32_t *slot_of = e; /* each word's slot, then the entries over it */
	for (size_t i = 0; i < n; i++) {
		size_t at = (size_t)((ids[i] * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
		while (cnt[at] && key[at] != ids[i])
			at = (at + 1) & (cap - 1);
		key[at] = ids[i], cnt[at]++, slot_of[i] = (uint32_t)at;
	}
	for (size_t i = 0; i < n && i < ND_TITLE_WORDS; i++) /* the title's counts, for its leads */
		for (uint32_t x = 0; x < nl; x++)
			if (lead[x] == ids[i])
				lead_count[x] = cnt[slot_of[i]];
	size_t ne = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = cnt[slot_of[i]];
		if (i >= 2 && i + 1 < n && c >= 2 &&
		    (c <= ND_NAME_MAX_COUNT || (c <= ND_LEAD_MAX_COUNT && is_lead(lead, nl, ids[i]))))
			e[ne++] = (place_hash(ids, i) & ND_NAME_PLACE_MASK) | name_word(ids[i]);
	}
	free(key);
	/* The threshold from the places counted with their repeats, so that
	 * only the sample is sorted. */
	out->nthr = threshold(ne, ND_REC_NAMES) | ~ND_NAME_PLACE_MASK;
	size_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (e[i] <= out->nthr)
			e[k++] = e[i];
	nd__sort_u32(e, k);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || e[i] != e[u - 1])
			e[u++] = e[i];
	k = u;
	if (k > 2 * ND_REC_NAMES) {
		size_t cut = 2 * ND_REC_NAMES;
		while (cut > 1 && (e[cut - 1] & ND_NAME_PLACE_MASK) == (e[cut] & ND_NAME_PLACE_MASK))
			cut--;
		k = cut;
		out->nthr = e[k - 1] | ~ND_NAME_PLACE_MASK;
	}
	out->nnames = (uint32_t)k;
	for (size_t i = 0; k && i < n && i < ND_LEAD_WORDS; i++) {
		uint32_t w = name_word(ids[i]);
		out->lead[w >> 6 & 1] |= (uint64_t)1 << (w & 63);
	}
	return ND_OK;
}

/* Whether ids[i] is a word its lead (its first ND_LEAD_WORDS) said
 * before: a title said twice (a page's <title> and its heading) is one
 * place of its words, or an edited headline is a rename. */
static int said_in_lead(const uint32_t *ids, size_t i)
{
	for (size_t k = 0; i < ND_LEAD_WORDS && k < i; k++)
		if (ids[k] == ids[i])
			return 1;
	return 0;
}

/* out's leads (record.h, ND_REC_LEADS): every place of the title's words
 * (lead[0..nl), each said count[x] times, as make_names counted them) that
 * the text repeats 2 to ND_LEAD_MAX_COUNT times, and no more than one
 * word in ND_LEAD_SHARE or ND_LEAD_FLOOR times; in the lead, only where
 * it first says it. */
static int make_leads(const uint32_t *ids, size_t n, nd__rec *out, const uint32_t *lead, uint32_t nl,
		      const uint32_t *count)
{
	enum { MOST = ND_TITLE_WORDS * ND_LEAD_MAX_COUNT };
	size_t most = n / ND_LEAD_SHARE;
	most = most < ND_LEAD_FLOOR ? ND_LEAD_FLOOR : most > ND_LEAD_MAX_COUNT ? ND_LEAD_MAX_COUNT : most;
	out->lthr = 0, out->nleads = 0, out->leads = NULL;
	uint32_t *e = malloc(MOST * sizeof(*e)), ne = 0;
	if (!e)
		return nd_error_set(ND_ENOMEM, "out of memory for a record of %zu words", n);
	for (size_t i = 0; i < n; i++)
		for (uint32_t x = 0; x < nl; x++)
			if (lead[x] == ids[i] && count[x] >= 2 && count[x] <= most && ne < MOST &&
			    !said_in_lead(ids, i))
				e[ne++] = (lead_place(ids, i) & ND_LEAD_PLACE_MASK) |
					  (ids[i] & ND_WORD_DIGIT ? ND_LEAD_DIGIT : 0) | name_word(ids[i]);
	nd__sort_u32(e, ne);
	uint32_t u = 0;
	for (uint32_t i = 0; i < ne; i++)
		if (!u || e[i] != e[u - 1])
			e[u++] = e[i];
	out->lthr = UINT32_MAX;
	if (u > ND_REC_LEADS) { /* cut at a place boundary, as names are */
		uint32_t cut = ND_REC_LEADS;
		while (cut > 1 && (e[cut - 1] & ND_LEAD_PLACE_MASK) == (e[cut] & ND_LEAD_PLACE_MASK))
			cut--;
		u = cut;
		out->lthr = e[u - 1] | ~ND_LEAD_PLACE_MASK;
	}
	if (!u) {
		free(e);
		return ND_OK;
	}
	uint32_t *shrunk = realloc(e, u * sizeof(*e)); /* a record is kept while its pass runs */
	out->nleads = u;
	out->leads = shrunk ? shrunk : e;
	return ND_OK;
}

/* pos[j]: where sample[j] (ascending, every one <= thr) first stands
 * among the k untagged hashes first[] in text order, in
 * ND_REC_POS_UNKNOWN parts; a later occurrence's (tagged) hash is none of
 * them and keeps ND_REC_POS_UNKNOWN.  By a table of the sample: a text of
 * a few hundred words keeps every shingle, and a search each was a tenth
 * of signing. */
static int place_samples(const uint32_t *sample, uint32_t ns, uint32_t thr, const uint32_t *first, size_t k,
			 uint8_t *pos)
{
	unsigned bits = 1;
	while ((1u << bits) < 2 * ns)
		bits++;
	uint16_t *slot = calloc((size_t)1 << bits, sizeof(*slot)); /* sample index + 1; 0: empty */
	if (!slot)
		return nd_error_set(ND_ENOMEM, "out of memory for a record's places");
	uint32_t mask = (1u << bits) - 1;
	for (uint32_t j = 0; j < ns; j++) {
		uint32_t x = (sample[j] * 0x9e3779b1u) >> (32 - bits);
		while (slot[x])
			x = (x + 1) & mask;
		slot[x] = (uint16_t)(j + 1);
	}
	memset(pos, ND_REC_POS_UNKNOWN, ns);
	for (size_t i = 0; i < k; i++) {
		if (first[i] > thr)
			continue;
		for (uint32_t x = (first[i] * 0x9e3779b1u) >> (32 - bits); slot[x]; x = (x + 1) & mask)
			if (sample[slot[x] - 1] == first[i]) {
				uint8_t *p = &pos[slot[x] - 1];
				if (*p == ND_REC_POS_UNKNOWN)
					*p = (uint8_t)((uint64_t)i * ND_REC_POS_UNKNOWN / k);
				break;
			}
	}
	free(slot);
	return ND_OK;
}

int nd__rec_make(const uint32_t *ids, size_t n, nd__rec *out, uint16_t *keys, int scheme)
{
	uint64_t *fp = NULL;
	uint32_t *h = NULL, *first = NULL, *names = NULL;
	uint64_t *pl = NULL;
	uint8_t *pos = NULL;
	size_t k = n ? (n >= ND_REC_SHINGLE_WIDTH ? n - ND_REC_SHINGLE_WIDTH + 1 : 1) : 0;
	int rc = ND_OK;

	memset(out, 0, sizeof(*out));
	if (n > UINT32_MAX)
		return nd_error_set(ND_ETOOBIG, "a text of %zu words", n);
	out->nwords = (uint32_t)n;
	out->text = n ? nd_hash_bytes(ids, n * sizeof(uint32_t), 0x7265636f7264ULL) | 1 : 0;
	if (n >= ND_FRAME_MIN)
		out->frame = (nd_hash_bytes(ids, ND_FRAME_WORDS * sizeof(uint32_t), 0x6672616d65ULL) ^
			      nd_mix64(nd_hash_bytes(ids + n - ND_FRAME_WORDS, ND_FRAME_WORDS * sizeof(uint32_t),
						     0x666f6f74ULL))) | 1;
	if (!(fp = malloc((k + 1) * sizeof(*fp))) || !(h = malloc((k + 1) * sizeof(*h))) ||
	    !(first = malloc((k + 1) * sizeof(*first))) || !(pl = malloc((n + 1) * sizeof(*pl))) ||
	    !(names = malloc((n + 1) * sizeof(*names)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for a record of %zu words", n);
		goto done;
	}
	/* Shingles as a set: the j-th occurrence of one is tagged j. */
	for (size_t i = 0; i < k; i++) {
		fp[i] = nd_shingle_fp(ids, n, i, ND_REC_SHINGLE_WIDTH);
		first[i] = top32(nd_mix64(fp[i])); /* its hash untagged, in text order */
	}
	nd__sort_u64(fp, k);
	for (size_t i = 0, j = 0; i < k; i++) {
		j = i && fp[i] == fp[i - 1] ? j + 1 : 0;
		h[i] = top32(nd_mix64(fp[i] + j * 0x9e3779b97f4a7c15ULL));
	}
	free(fp); /* before the names' table: a long text's peak is the sum */
	fp = NULL;
	nd__sort_u32(h, k);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || h[i] != h[u - 1])
			h[u++] = h[i];
	out->nshingles = (uint32_t)u;
	if (keys)
		text_keys(h, u, keys, scheme);
	out->thr = threshold(u, ND_REC_SAMPLE);
	out->nsample = (uint32_t)keep_below(h, u, &out->thr, 2 * ND_REC_SAMPLE);
	if (out->nsample && !(pos = malloc(out->nsample))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for a record of %zu words", n);
		goto done;
	}
	if (pos && (rc = place_samples(h, out->nsample, out->thr, first, k, pos)) < 0)
		goto done;
	free(first);
	first = NULL;

	/* Values in their places. */
	size_t np = 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (ids[i] & ND_WORD_DIGIT)
			pl[np++] = (uint64_t)value_place(ids, i) << 32 | ids[i];
	nd__sort_u64(pl, np);
	u = 0;
	size_t places = 0;
	for (size_t i = 0; i < np; i++)
		if (!u || pl[i] != pl[u - 1]) {
			places += !u || pl[i] >> 32 != pl[u - 1] >> 32;
			pl[u++] = pl[i];
		}
	out->pthr = threshold(places, ND_REC_VALUES);
	np = 0;
	while (np < u && (uint32_t)(pl[np] >> 32) <= out->pthr)
		np++;
	if (np > 2 * ND_REC_VALUES) {
		/* cut at a place boundary, so a kept place keeps all its values */
		size_t cut = 2 * ND_REC_VALUES;
		while (cut > 1 && pl[cut - 1] >> 32 == pl[cut] >> 32)
			cut--;
		np = cut;
		out->pthr = (uint32_t)(pl[np - 1] >> 32);
	}
	out->nplaces = (uint32_t)np;
	uint32_t lead[ND_TITLE_WORDS], lead_count[ND_TITLE_WORDS] = {0}, nl = lead_words(ids, n, lead);
	if ((rc = make_names(ids, n, names, out, lead, nl, lead_count)) < 0 ||
	    (rc = make_leads(ids, n, out, lead, nl, lead_count)) < 0)
		goto done;

	/* Kept: the sample shrinks to what it holds (a long text's hashes are
	 * many more). */
	uint32_t *shrunk = realloc(h, ((size_t)out->nsample + 1) * sizeof(*h));
	out->sample = shrunk ? shrunk : h, h = NULL;
	out->places = pl, pl = NULL;
	out->names = names, names = NULL;
	out->pos = pos, pos = NULL;
done:
	free(fp);
	free(h);
	free(first);
	free(pos);
	free(pl);
	free(names);
	if (rc < 0)
		nd__rec_free(out);
	return rc;
}

nd__rec nd__rec_unweighed(const nd__rec *r)
{
	nd__rec u = *r;
	u.groups = NULL, u.cum = NULL, u.buckets = NULL;
	u.wsum = u.ssum = u.bucket_wx = 0, u.bucket_nx = 0, u.floor = 0, u.rotating = 0;
	u.borrowed = 1; /* its arrays are r's */
	return u;
}

void nd__rec_free(nd__rec *r)
{
	if (!r->borrowed) {
		free(r->sample);
		free(r->places);
		free(r->names);
		free(r->pos);
		free(r->leads);
	}
	free(r->groups);
	free(r->cum);
	memset(r, 0, sizeof(*r));
}

/* After the head's arrays, a record with names (head byte 1: HAS_NAMES;
 * records from before them have none, and are read as such): u32 nthr, u16
 * nnames, the names. */
#define HAS_NAMES 1
#define LIST_HEAD 6 /* names' and leads': u32 threshold, u16 count */
#define NAMES_HEAD LIST_HEAD
/* Then, for a text of ND_FRAME_MIN words or more (HAS_FRAME), its u64
 * frame; then, for a mail in a thread (HAS_THREAD), its u32 thread; then
 * (HAS_POS) the samples' places in the text, a byte each.  Records
 * without them stay as they were. */
#define HAS_THREAD 2
#define HAS_FRAME 4
#define HAS_POS 8
/* Then, for a text with names (HAS_LEAD), the words that lead it: two u64;
 * then, for one with leads (HAS_LEADS), u32 lthr, u16 nleads, the leads. */
#define HAS_LEAD 16
#define HAS_LEADS 32
#define LEADS_HEAD LIST_HEAD

static size_t arrays_size(size_t ns, size_t np, size_t nv)
{
	return HEAD + ns * 4 + np * 8 + nv * 4;
}

size_t nd__rec_size(const nd__rec *r)
{
	return arrays_size(r->nsample, r->nplaces, 0) + NAMES_HEAD + (size_t)r->nnames * 4 +
	       (r->thread ? 4 : 0) + (r->frame ? 8 : 0) + (r->pos ? r->nsample : 0) + (nd__rec_has_lead(r) ? 16 : 0) +
	       (r->nleads ? LEADS_HEAD + (size_t)r->nleads * 4 : 0);
}

static void put16(uint8_t *p, uint32_t v)
{
	uint16_t x = (uint16_t)v;
	memcpy(p, &x, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

size_t nd__rec_encode(const nd__rec *r, uint8_t *out)
{
	uint8_t *p = out;
	p[0] = VERSION, p[1] = HAS_NAMES | (r->thread ? HAS_THREAD : 0) | (r->frame ? HAS_FRAME : 0) | (r->pos ? HAS_POS : 0) |
	       (nd__rec_has_lead(r) ? HAS_LEAD : 0) | (r->nleads ? HAS_LEADS : 0);
	put16(p + 2, r->nsample);
	put16(p + 4, r->nplaces);
	put16(p + 6, 0);
	put32(p + 8, r->nwords);
	put32(p + 12, r->nshingles);
	put32(p + 16, r->thr);
	put32(p + 20, r->pthr);
	put32(p + 24, 0);
	memcpy(p + 28, &r->text, 8);
	p += HEAD;
	memcpy(p, r->sample, (size_t)r->nsample * 4);
	p += (size_t)r->nsample * 4;
	memcpy(p, r->places, (size_t)r->nplaces * 8);
	p += (size_t)r->nplaces * 8;
	put32(p, r->nthr);
	put16(p + 4, r->nnames);
	p += NAMES_HEAD;
	memcpy(p, r->names, (size_t)r->nnames * 4);
	p += (size_t)r->nnames * 4;
	if (r->frame) {
		memcpy(p, &r->frame, 8);
		p += 8;
	}
	if (r->thread) {
		put32(p, r->thread);
		p += 4;
	}
	if (r->pos) {
		memcpy(p, r->pos, r->nsample);
		p += r->nsample;
	}
	if (nd__rec_has_lead(r)) {
		memcpy(p, r->lead, 16);
		p += 16;
	}
	if (r->nleads) {
		put32(p, r->lthr);
		put16(p + 4, r->nleads);
		memcpy(p + LEADS_HEAD, r->leads, (size_t)r->nleads * 4);
		p += LEADS_HEAD + (size_t)r->nleads * 4;
	}
	return (size_t)(p - out);
}

/* An optional section of size bytes (16 at most) of an encoding of len
 * bytes at *at, into dst: never 0, which is its absence. */
static int decode_section(const uint8_t *p, size_t len, size_t *at, void *dst, size_t size, const char *what)
{
	static const uint8_t zero[16];
	if (len < *at + size)
		return nd_error_set(ND_ECORRUPT, "verdict record of %zu bytes does not add up", len);
	memcpy(dst, p + *at, size);
	*at += size;
	if (!memcmp(dst, zero, size))
		return nd_error_set(ND_ECORRUPT, "verdict record with a %s of 0", what);
	return ND_OK;
}

/* A list of u32 (names, leads) at *at: its u32 threshold into thr and
 * u16 count into n, *at past its entries. */
static int decode_list(const uint8_t *p, size_t len, size_t *at, uint32_t *thr, uint16_t *n)
{
	if (len < *at + LIST_HEAD)
		return nd_error_set(ND_ECORRUPT, "verdict record of %zu bytes does not add up", len);
	memcpy(thr, p + *at, 4);
	memcpy(n, p + *at + 4, 2);
	*at += LIST_HEAD + (size_t)*n * 4;
	return ND_OK;
}

/* The head of an encoding into out (counts and thresholds, no arrays),
 * checked against its length; *names_at the offset of its names, *pos_at
 * of its places (0: none), *leads_at of its leads. */
static int decode_head(const uint8_t *p, size_t len, nd__rec *out, size_t *names_at, size_t *pos_at,
		       size_t *leads_at)
{
	uint16_t ns, np, nv, nn = 0, nl = 0;
	int rc;
	memset(out, 0, sizeof(*out));
	*names_at = *pos_at = *leads_at = 0;
	if (len < HEAD || p[0] != VERSION ||
	    (p[1] & ~(HAS_NAMES | HAS_THREAD | HAS_FRAME | HAS_POS | HAS_LEAD | HAS_LEADS)))
		return nd_error_set(ND_ECORRUPT, "verdict record of %zu bytes, version %u", len,
				    len ? p[0] : 0);
	memcpy(&ns, p + 2, 2);
	memcpy(&np, p + 4, 2);
	memcpy(&nv, p + 6, 2);
	memcpy(&out->nwords, p + 8, 4);
	memcpy(&out->nshingles, p + 12, 4);
	memcpy(&out->thr, p + 16, 4);
	memcpy(&out->pthr, p + 20, 4);
	memcpy(&out->text, p + 28, 8);
	size_t at = arrays_size(ns, np, nv);
	*names_at = at + NAMES_HEAD;
	if ((p[1] & HAS_NAMES) && (rc = decode_list(p, len, &at, &out->nthr, &nn)) < 0)
		return rc;
	if ((p[1] & HAS_FRAME) && (rc = decode_section(p, len, &at, &out->frame, 8, "frame")) < 0)
		return rc;
	if ((p[1] & HAS_THREAD) && (rc = decode_section(p, len, &at, &out->thread, 4, "thread")) < 0)
		return rc;
	if ((p[1] & HAS_POS) && ns) {
		if (len < at + ns)
			return nd_error_set(ND_ECORRUPT, "verdict record of %zu bytes does not add up", len);
		*pos_at = at, at += ns;
	}
	if ((p[1] & HAS_LEAD) && (rc = decode_section(p, len, &at, out->lead, 16, "lead")) < 0)
		return rc;
	*leads_at = at + LIST_HEAD;
	if ((p[1] & HAS_LEADS) && (rc = decode_list(p, len, &at, &out->lthr, &nl)) < 0)
		return rc;
	if (len != at || ns > out->nshingles || (out->nwords && !out->text) || (out->frame && out->nwords < ND_FRAME_MIN) ||
	    (!out->nwords && (out->text || ns || np || nv || nn || nl)) || ((p[1] & HAS_LEADS) && !nl))
		return nd_error_set(ND_ECORRUPT, "verdict record of %zu bytes does not add up", len);
	out->nsample = ns, out->nplaces = np, out->nnames = nn, out->nleads = nl;
	return ND_OK;
}

/* Whether r's arrays are ascending and within their thresholds, as the
 * merges need. */
static int check_arrays(const nd__rec *r)
{
	for (uint32_t i = 0; i < r->nsample; i++)
		if (r->sample[i] > r->thr || (i && r->sample[i] <= r->sample[i - 1]))
			return nd_error_set(ND_ECORRUPT, "verdict record out of order");
	for (uint32_t i = 0; i < r->nplaces; i++)
		if ((uint32_t)(r->places[i] >> 32) > r->pthr || (i && r->places[i] <= r->places[i - 1]))
			return nd_error_set(ND_ECORRUPT, "verdict record out of order");
	for (uint32_t i = 0; i < r->nnames; i++)
		if (r->names[i] > r->nthr || (i && r->names[i] <= r->names[i - 1]))
			return nd_error_set(ND_ECORRUPT, "verdict record out of order");
	for (uint32_t i = 0; i < r->nleads; i++)
		if (r->leads[i] > r->lthr || (i && r->leads[i] <= r->leads[i - 1]))
			return nd_error_set(ND_ECORRUPT, "verdict record out of order");
	return ND_OK;
}

/* The arrays of an encoding whose head is in r (its names at names_at),
 * copied into the room r's pointers give them, and checked there. */
static int decode_arrays(const uint8_t *p, const nd__rec *r, size_t names_at, size_t pos_at, size_t leads_at)
{
	if (r->nleads)
		memcpy(r->leads, p + leads_at, (size_t)r->nleads * 4);
	memcpy(r->sample, p + HEAD, (size_t)r->nsample * 4);
	memcpy(r->places, p + HEAD + (size_t)r->nsample * 4, (size_t)r->nplaces * 8);
	if (r->nnames)
		memcpy(r->names, p + names_at, (size_t)r->nnames * 4);
	if (r->pos)
		memcpy(r->pos, p + pos_at, r->nsample);
	return check_arrays(r);
}

int nd__rec_decode(const void *vp, size_t len, nd__rec *out)
{
	size_t names_at, pos_at, leads_at;
	int rc = decode_head(vp, len, out, &names_at, &pos_at, &leads_at);
	if (rc < 0)
		return rc;
	/* In place, and the arrays' order not checked: a hook reads a hundred
	 * records to judge each once, and most merges stop a third of the way
	 * into a sample, so reading all of it would be most of the cost.  The
	 * merges stay within the counts the head checked; an array out of
	 * order (a damaged page) gives a wrong verdict, not a wrong read. */
	uint8_t *p = (uint8_t *)vp + HEAD;
	out->borrowed = 1;
	out->sample = (nd__u32u *)(void *)p;
	out->places = (nd__u64u *)(void *)(p + (size_t)out->nsample * 4);
	out->names = (nd__u32u *)(void *)((uint8_t *)vp + names_at);
	out->pos = pos_at ? (uint8_t *)vp + pos_at : NULL;
	out->leads = out->nleads ? (nd__u32u *)(void *)((uint8_t *)vp + leads_at) : NULL;
	return ND_OK;
}

int nd__rec_of_doc(nd_store_txn *txn, uint32_t docid, nd__rec *out)
{
	uint64_t key;
	const void *pay, *rec;
	size_t len, reclen;
	int rc = nd_store_doc_get(txn, docid, &key, &pay, &len);
	memset(out, 0, sizeof(*out));
	if (rc < 0)
		return rc;
	const uint16_t *bits;
	uint32_t nbits;
	if ((rc = nd__payload_rec(pay, len, &rec, &reclen, &bits, &nbits)) < 0)
		return rc;
	if (reclen && (rc = nd__rec_decode(rec, reclen, out)) < 0)
		return rc; /* none: a text without words */
	out->bits = bits, out->nbits = nbits;
	return ND_OK;
}

/* ---- many records ---- */

#define CHUNK ((size_t)16 << 20)
/* A spilled set's file and mapping grow by this much at a time (the
 * kernel merges the mappings). */
#define SPILL_GROW ((size_t)256 << 10)
/* Address space reserved for a spilled set, a record: room for what
 * records hold (about 2.3 KB weighed at ND_REC_SAMPLE); a set that needs
 * more takes the rest from the heap. */
#define SPILL_PER_RECORD ((size_t)8 << 10)

size_t nd__recset_spill_docs = 131072;
size_t nd__recset_tile_bytes = (size_t)32 << 20;
size_t nd__recset_load_batch = 4096;

typedef struct rs_chunk {
	struct rs_chunk *next;
	size_t used, cap;
	uint64_t v[]; /* 8-byte aligned room */
} rs_chunk;

/* A tile's bytes in the file: its records' fields, their samples,
 * places and names as loaded, and their weights (nd__recset_weigh). */
typedef struct {
	size_t lo[3], hi[3];
} rs_span;

struct nd__recset {
	size_t n;
	nd__rec *r;
	rs_chunk *chunks;     /* room from the heap: not spilled, or past the file */
	size_t bytes;
	/* Spilled: room in an unlinked temporary file, mapped shared into
	 * address space reserved at map, so that the kernel can drop its
	 * pages (they are clean page cache or written back) and a pass
	 * releases what it has read. */
	int fd;               /* -1: not spilled */
	uint8_t *map;
	size_t reserved, mapped, used;
	int full;             /* the file could not grow: the heap from now on */
	uint32_t ntiles;      /* 1 when not spilled */
	uint16_t *tile;       /* record -> its tile */
	uint32_t *first;      /* tile -> its first record; [ntiles] = n */
	rs_span *span;        /* tile -> where its records are in the file */
};

static int spill_grow(nd__recset *s, size_t need)
{
	size_t to = (need + SPILL_GROW - 1) / SPILL_GROW * SPILL_GROW;
	if (to > s->reserved)
		to = s->reserved;
	/* Allocated now, so that a full disk is this error and not a
	 * SIGBUS when a page is first written. */
	if (posix_fallocate(s->fd, (off_t)s->mapped, (off_t)(to - s->mapped)) != 0 ||
	    mmap(s->map + s->mapped, to - s->mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, s->fd,
		 (off_t)s->mapped) == MAP_FAILED)
		return -1;
	s->mapped = to;
	return 0;
}

static void *rs_room(nd__recset *s, size_t bytes)
{
	size_t words = (bytes + 7) / 8;
	if (s->map && !s->full) {
		size_t need = s->used + words * 8;
		if (need <= s->mapped || (need <= s->reserved && spill_grow(s, need) == 0)) {
			void *at = s->map + s->used;
			s->used = need;
			s->bytes += words * 8;
			return at;
		}
		s->full = 1; /* the records stay right: only memory is lost */
	}
	rs_chunk *c = s->chunks;
	if (!c || c->cap - c->used < words) {
		size_t cap = words * 8 > CHUNK ? words : CHUNK / 8;
		if (!(c = malloc(sizeof(rs_chunk) + cap * 8)))
			return NULL;
		c->next = s->chunks, c->used = 0, c->cap = cap;
		s->chunks = c;
		s->bytes += sizeof(rs_chunk) + cap * 8;
	}
	void *at = c->v + c->used;
	c->used += words;
	return at;
}

/* An unlinked temporary file in dir, else in $TMPDIR or /tmp, and the
 * address space for it; nothing (in memory, then) when neither works. */
static void spill_open(nd__recset *s, const char *dir)
{
	const char *tmp = getenv("TMPDIR");
	const char *where[2] = {dir, tmp && *tmp ? tmp : "/tmp"};
	if ((size_t)-1 / SPILL_PER_RECORD <= s->n + 1)
		return;
	for (int k = 0; k < 2 && s->fd < 0; k++) {
		char path[4096];
		if (!where[k] || snprintf(path, sizeof(path), "%s/.neardup-records-XXXXXX", where[k]) >= (int)sizeof(path))
			continue;
		if ((s->fd = mkstemp(path)) >= 0)
			unlink(path); /* gone with the process, however it ends */
	}
	if (s->fd < 0)
		return;
	s->reserved = (s->n + 1) * SPILL_PER_RECORD;
	void *m = mmap(NULL, s->reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		close(s->fd);
		s->fd = -1;
		return;
	}
	s->map = m;
}

/* The whole pages of file bytes [lo, hi). */
static void release_bytes(const nd__recset *s, size_t lo, size_t hi)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	lo = (lo + page - 1) / page * page;
	hi = hi / page * page;
	if (hi > s->mapped)
		hi = s->mapped / page * page;
	if (lo < hi)
		(void)madvise(s->map + lo, hi - lo, MADV_DONTNEED); /* a hint: failing costs memory only */
}

void nd__recset_release(const nd__recset *s)
{
	if (s && s->map)
		release_bytes(s, 0, s->mapped);
}

/* Whether p is in the file (else the heap). */
static int in_file(const nd__recset *s, const void *p)
{
	return s->map && (const uint8_t *)p >= s->map && (const uint8_t *)p < s->map + s->used;
}

void nd__recset_release_arrays(const nd__recset *s)
{
	if (s && s->map)
		release_bytes(s, in_file(s, s->r) ? (size_t)((const uint8_t *)(s->r + s->n + 1) - s->map) : 0, s->mapped);
}

void nd__recset_release_tile(const nd__recset *s, uint32_t t)
{
	if (!s || !s->span || t >= s->ntiles)
		return;
	for (int k = 0; k < 3; k++)
		release_bytes(s, s->span[t].lo[k], s->span[t].hi[k]);
}

uint32_t nd__recset_tiles(const nd__recset *s)
{
	return s->ntiles;
}

uint32_t nd__recset_tile(const nd__recset *s, size_t i)
{
	return s->tile ? s->tile[i] : 0;
}

void nd__recset_walked(const nd__recset *s, size_t i, uint32_t *tile)
{
	uint32_t t = nd__recset_tile(s, i);
	if (t != *tile && *tile != UINT32_MAX)
		nd__recset_release(s);
	*tile = t;
}

/* A record whose room is given, to be copied into it: the walk of the
 * store is one cursor, the copies (most of the load) are shared out a
 * batch at a time. */
typedef struct {
	const uint8_t *rec;
	const uint16_t *bits;
	uint16_t *bits_to;
	size_t names_at, pos_at, leads_at;
	uint32_t i, nbits;
} rs_task;

/* A batch's store pages and room stay resident until it is copied: a few
 * MB beside the tile being written. */
#define LOAD_BATCH_BYTES ((size_t)4 << 20)
#define LOAD_CHUNK 128

typedef struct {
	nd__recset *s;
	const nd_docid *docs;
	size_t at;
	size_t released;      /* s->used at the last release */
	unsigned jobs;
	rs_task *task; /* nd__recset_load_batch of them */
	size_t ntask, batch_bytes;
} rs_load;

static int rs_copy_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	rs_load *l = vctx;
	(void)t;
	for (uint32_t k = from; k < to; k++) {
		const rs_task *x = &l->task[k];
		nd__rec *r = &l->s->r[x->i];
		int rc = decode_arrays(x->rec, r, x->names_at, x->pos_at, x->leads_at);
		if (rc < 0) {
			memset(r, 0, sizeof(*r)); /* its room is the set's, freed with it */
			return nd_error_set(rc, "document %u: %s", l->docs[x->i], nd_error_last());
		}
		memcpy(x->bits_to, x->bits, (size_t)x->nbits * 2);
	}
	return ND_OK;
}

/* The batch's copies, then its written pages to the page cache. */
static int rs_flush(rs_load *l)
{
	nd__recset *s = l->s;
	int rc = nd_parallel_chunks(l->jobs ? l->jobs : 1, (uint32_t)l->ntask, LOAD_CHUNK, rs_copy_share, l);
	l->ntask = l->batch_bytes = 0;
	if (rc == ND_OK && s->used - l->released >= nd__recset_tile_bytes) {
		nd__recset_release(s);
		l->released = s->used;
	}
	return rc;
}

static int rs_one(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	rs_load *l = vctx;
	nd__recset *s = l->s;
	const void *rec;
	size_t reclen;
	int rc;
	(void)key;
	while (l->at < s->n && l->docs[l->at] < docid)
		l->at++;
	if (l->at == s->n)
		return 1; /* past the last wanted */
	if (l->docs[l->at] != docid)
		return 0;
	const uint16_t *bits;
	uint32_t nbits;
	if ((rc = nd__payload_rec(payload, len, &rec, &reclen, &bits, &nbits)) < 0)
		return rc;
	if (!reclen)
		return 0;
	/* Its room now, in the walk's order (the tiles follow it); its
	 * arrays decoded straight into it with the batch. */
	nd__rec *r = &s->r[l->at];
	rs_task *x = &l->task[l->ntask];
	if ((rc = decode_head(rec, reclen, r, &x->names_at, &x->pos_at, &x->leads_at)) < 0)
		return nd_error_set(rc, "document %u: %s", docid, nd_error_last());
	r->sample = rs_room(s, (size_t)r->nsample * 4);
	r->places = rs_room(s, (size_t)r->nplaces * 8);
	r->names = rs_room(s, (size_t)r->nnames * 4);
	r->pos = x->pos_at ? rs_room(s, r->nsample) : NULL;
	r->leads = r->nleads ? rs_room(s, (size_t)r->nleads * 4) : NULL;
	uint16_t *b = rs_room(s, (size_t)nbits * 2);
	if (!r->sample || !r->places || !r->names || (x->pos_at && !r->pos) || (r->nleads && !r->leads) || !b) {
		memset(r, 0, sizeof(*r));
		return nd_error_set(ND_ENOMEM, "out of memory for the records of %zu documents", s->n);
	}
	r->bits = b, r->nbits = nbits;
	x->rec = rec, x->bits = bits, x->bits_to = b, x->nbits = nbits, x->i = (uint32_t)l->at;
	l->ntask++;
	l->batch_bytes += reclen;
	return l->ntask == nd__recset_load_batch || l->batch_bytes >= LOAD_BATCH_BYTES ? rs_flush(l) : 0;
}

/* Tiles of consecutive records holding about nd__recset_tile_bytes of
 * the file each, from where their samples were put; loaded ends at the
 * end of the last record loaded. */
static int rs_tiles(nd__recset *s, size_t loaded)
{
	int r_in_file = in_file(s, s->r);
	size_t start = r_in_file ? (size_t)((uint8_t *)(s->r + s->n + 1) - s->map) : 0;
	uint32_t t = 0;
	if (!(s->tile = malloc((s->n + 1) * sizeof(*s->tile))) || !(s->first = malloc((s->n + 2) * sizeof(*s->first))) ||
	    !(s->span = calloc(s->n < UINT16_MAX ? s->n + 1 : UINT16_MAX, sizeof(*s->span))))
		return nd_error_set(ND_ENOMEM, "out of memory for the records of %zu documents", s->n);
	s->first[0] = 0;
	s->span[0].lo[1] = start;
	for (size_t i = 0; i < s->n; i++) {
		const uint8_t *p = (const uint8_t *)s->r[i].sample;
		if (in_file(s, p) && (size_t)(p - s->map) - start >= nd__recset_tile_bytes &&
		    t + 1 < UINT16_MAX) {
			s->span[t].hi[1] = (size_t)(p - s->map);
			s->first[++t] = (uint32_t)i;
			start = s->span[t].lo[1] = (size_t)(p - s->map);
		}
		s->tile[i] = (uint16_t)t;
	}
	s->span[t].hi[1] = loaded;
	s->ntiles = t + 1;
	s->first[s->ntiles] = (uint32_t)s->n;
	for (uint32_t k = 0; r_in_file && k < s->ntiles; k++) {
		s->span[k].lo[0] = (size_t)((uint8_t *)(s->r + s->first[k]) - s->map);
		s->span[k].hi[0] = (size_t)((uint8_t *)(s->r + s->first[k + 1]) - s->map);
	}
	return ND_OK;
}

int nd__recset_load(nd_store_txn *txn, const nd_docid *docs, size_t n, const char *spill_dir, unsigned jobs,
		    nd__recset **out)
{
	nd__recset *s = calloc(1, sizeof(*s));
	int rc;
	*out = NULL;
	if (!s)
		return nd_error_set(ND_ENOMEM, "out of memory for the records of %zu documents", n);
	s->n = n;
	s->fd = -1;
	s->ntiles = 1;
	if (spill_dir && n >= nd__recset_spill_docs)
		spill_open(s, spill_dir);
	/* The records' own fields in the same room (in the file when
	 * spilled: 104 MB at a million), where new bytes read as zeros. */
	if (!(s->r = rs_room(s, (n + 1) * sizeof(*s->r)))) {
		nd__recset_free(s);
		return nd_error_set(ND_ENOMEM, "out of memory for the records of %zu documents", n);
	}
	if (!in_file(s, s->r))
		memset(s->r, 0, (n + 1) * sizeof(*s->r));
	rs_load l = {s, docs, 0, s->used, jobs, NULL, 0, 0};
	if (!nd__recset_load_batch || !(l.task = malloc(nd__recset_load_batch * sizeof(*l.task)))) {
		nd__recset_free(s);
		return nd_error_set(ND_ENOMEM, "out of memory for the records of %zu documents", n);
	}
	rc = n ? nd_store_docs_from(txn, docs[0], rs_one, &l) : ND_OK;
	if (rc == 1)
		rc = ND_OK;
	if (rc == ND_OK && l.ntask)
		rc = rs_flush(&l);
	free(l.task);
	if (rc == ND_OK && s->map)
		rc = rs_tiles(s, s->used);
	nd__recset_release(s);
	if (rc < 0) {
		nd__recset_free(s);
		return rc;
	}
	*out = s;
	return ND_OK;
}

const nd__rec *nd__recset_get(const nd__recset *s, size_t i)
{
	return &s->r[i];
}

size_t nd__recset_size(const nd__recset *s)
{
	return s->n;
}

typedef struct {
	nd__recset *s;
	const nd__common *common;
	uint32_t from;
} weigh_ctx;

/* r's groups, weight checkpoints and buckets, into the room r->groups,
 * r->cum and r->buckets (NULL: none) point to. */
static void weigh_into(nd__rec *r, const nd__common *common)
{
	for (uint32_t k = 0; k < r->nsample; k++) {
		nd__common_prefetch(common, r->sample, k, r->nsample);
		uint32_t g = nd__common_groups(common, r->sample[k]);
		r->groups[k] = (uint16_t)(g > UINT16_MAX ? UINT16_MAX : g);
	}
	r->floor = nd__common_floor(common, r->text);
	r->rotating = (uint32_t)nd__rec_rotating(r, common, NULL);
	if (r->nsample)
		nd__rec_cum(r, common, r->cum);
	if (r->buckets)
		nd__rec_buckets(r, common, r->buckets);
}

int nd__rec_weigh(nd__rec *r, const nd__common *common)
{
	uint32_t ncum = r->nsample / ND_REC_CUM_STEP;
	if (r->groups || !r->nsample || !nd__common_size(common))
		return ND_OK;
	if (!(r->groups = malloc((size_t)r->nsample * 2)) ||
	    (ncum && !(r->cum = malloc((size_t)ncum * 2 * sizeof(double))))) {
		nd__rec_unweigh(r);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	weigh_into(r, common);
	return ND_OK;
}

void nd__rec_unweigh(nd__rec *r)
{
	free(r->groups);
	free(r->cum);
	r->groups = NULL, r->cum = NULL;
	r->wsum = r->ssum = 0;
	r->floor = r->rotating = 0;
}

static int weigh_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	weigh_ctx *c = vctx;
	(void)t;
	for (uint32_t i = c->from + from; i < c->from + to; i++)
		weigh_into(&c->s->r[i], c->common);
	return ND_OK;
}

/* Records a thread weighs at a time: a record costs its sample's
 * lookups, from none to ND_REC_SAMPLE. */
#define WEIGH_CHUNK 256

int nd__recset_weigh(nd__recset *s, const nd__common *common, unsigned jobs, int buckets)
{
	int rc = ND_OK;
	if (!nd__common_size(common) || !s->n)
		return ND_OK;
	/* A tile at a time, its room first (the room is one thread's), then
	 * the lookups, a cache miss each, on every core; then its pages are
	 * released. */
	for (uint32_t t = 0; t < s->ntiles && rc == ND_OK; t++) {
		size_t from = s->first ? s->first[t] : 0, to = s->first ? s->first[t + 1] : s->n;
		if (s->span)
			s->span[t].lo[2] = s->used;
		for (size_t i = from; i < to; i++) {
			nd__rec *r = &s->r[i];
			uint32_t ncum = r->nsample / ND_REC_CUM_STEP;
			if (!r->nsample)
				continue;
			if (!(r->groups = rs_room(s, (size_t)r->nsample * 2)) ||
			    (ncum && !(r->cum = rs_room(s, (size_t)ncum * 2 * sizeof(double)))) ||
			    (buckets && r->nsample >= ND_REC_BUCKET_MIN && !(r->buckets = rs_room(s, ND_REC_BUCKET_BYTES))))
				return nd_error_set(ND_ENOMEM, "out of memory for the records of %zu documents", s->n);
		}
		if (s->span)
			s->span[t].hi[2] = s->used;
		weigh_ctx c = {s, common, (uint32_t)from};
		rc = nd_parallel_chunks(jobs ? jobs : 1, (uint32_t)(to - from), WEIGH_CHUNK, weigh_share, &c);
		nd__recset_release(s);
	}
	return rc;
}

size_t nd__recset_bytes(const nd__recset *s)
{
	return s ? s->bytes : 0;
}

size_t nd__recset_spilled(const nd__recset *s)
{
	return s && s->map ? s->used : 0;
}

void nd__recset_free(nd__recset *s)
{
	if (!s)
		return;
	for (rs_chunk *c = s->chunks, *nx; c; c = nx) {
		nx = c->next;
		free(c);
	}
	if (s->map) /* the records and their arrays are in the chunks or the file */
		munmap(s->map, s->reserved);
	if (s->fd >= 0)
		close(s->fd);
	free(s->tile);
	free(s->first);
	free(s->span);
	free(s);
}
