/* Internal to descriptor/: what the verdict compares, per document, kept
 * in its store record so that deciding a pair reads two records and never
 * a text (the record's own sections: record.c; the collection's common
 * text: common.c, its layout for the verdict's loops in common.h; the
 * verdict over records: evidence.c).
 *
 * A document's text is its word 3-shingles as a set (the k-th occurrence
 * of a shingle tagged k), each a 32-bit hash.  A record keeps those at or
 * below a threshold that gives about ND_REC_SAMPLE of them (all of a
 * shorter text's): a sample coordinated by hash, so that two records
 * compared at the lower of their thresholds see the same shingles of the
 * union.  Beside it: the values (words with a digit) in their places,
 * sampled the same way by place; the word
 * count; a hash of the whole word sequence; the places of the words the
 * text repeats (a rename: the same template about another named thing);
 * a mail's thread (nd_xdb_doc_thread: two mails of one thread are two
 * messages unless their words are the same); its frame (first and last
 * words: a site's header and footer, for pages that have no host); and
 * the text trees' keys for the near-neighbour index (one-permutation
 * MinHash of the shingles, so every document with a word has candidates,
 * whatever the descriptive set holds). */
#ifndef ND_DESC_RECORD_H
#define ND_DESC_RECORD_H

#include "neardup/common.h"
#include "neardup/point.h"
#include "neardup/store.h"
#include "neardup/verify.h"

#include <stddef.h>
#include <stdint.h>

#define ND_REC_SAMPLE 256      /* shingles a record keeps, about */
/* A sample's place in its text, in this many parts; a shingle's later
 * occurrence (tagged) has none: this value. */
#define ND_REC_POS_UNKNOWN 255
#define ND_REC_VALUES 32       /* value places it keeps, about */
/* A value among the title's words (the first ND_TITLE_WORDS) has its
 * place below this, read as a lead's (the text's start a word), and is
 * always kept; every other place is at or above it.  A number in the
 * title names what the text is about ("Django 1.4.14 release notes")
 * unless many texts' titles hold it (a site's release, its name:
 * nd__common_title_many), and its change then stands for the values
 * veto's rate. */
#define ND_TITLE_PLACES 0x10000u
#define ND_REC_NAMES 64        /* places of repeated words it keeps, about */
#define ND_REC_SHINGLE_WIDTH 3
/* A word is a name's candidate when the text holds it 2 to this many
 * times: the command a man page describes, the product a page sells. */
#define ND_NAME_MAX_COUNT 32
/* A rename: one word of the one text in this many places or more where the
 * other has one other word, neither word repeated in the other text but
 * where its own has it too. */
#define ND_RENAME_PLACES 2
/* A name: a place hash's top bits, then ND_NAME_WORD_BITS of the word's. */
#define ND_NAME_WORD_BITS 12
/* The words that lead a text (a man page's NAME line, a reference page's
 * title): two texts led alike are about one named thing, so a word
 * renamed all through them is an edit, not a rename. */
#define ND_LEAD_WORDS 16
/* The name a page is about stands in its title and all through it (a
 * type in each of its methods' signatures: rustdoc's iterator pages say
 * their type's name 30 to 50 times, in 3,000 words that thirty pages
 * share).  A sample of places sees such a name in one place or none, so
 * each record keeps its leads: every place of the words of its title (its
 * first ND_TITLE_WORDS) that it repeats up to ND_LEAD_MAX_COUNT times, up
 * to ND_REC_LEADS places (the lowest place hashes).  Two pages of one
 * template about two named things then meet at every place the name
 * stands, and the rename rule sees it.  The title, not the whole lead: a
 * release whose first sentence names another base class everywhere
 * (glibmm's VariantIter) is about the same class.  A lead's place counts
 * the text's start as a word and any number as one, so that short pages
 * that begin with their name or stand it beside their own section
 * numbers meet at two places ("cassert File Reference", "37.40.
 * routine_column_usage"). */
#define ND_TITLE_WORDS 6
/* rustdoc's Range, with every trait it implements, says "range" 67
 * times (one word in 73); ND_LEAD_SHARE is what keeps "the" out. */
#define ND_LEAD_MAX_COUNT 128
#define ND_REC_LEADS 64
/* A name is said often, but not as often as "the": a title's word that
 * is more than one word in ND_LEAD_SHARE of its text keeps no places (the
 * iterator pages' names are one in 80 to 130 of their words, "the" one in
 * 20 of a news story's), which keeps most records' leads short. */
#define ND_LEAD_SHARE 25
/* ...except in a short text, where a name said a few times is a large
 * share: Doxygen's page of a header file says its name twice in 25 words,
 * std::hash<int>'s says "int" 5 times in 123.  Up to this many times a
 * title's word keeps its places at any length (6 words of the title keep
 * at most 48 places, under ND_REC_LEADS). */
#define ND_LEAD_FLOOR 8
/* Leads meet in a rename's places only if those are this share of the
 * places either text says its word at: a name renamed is renamed where it
 * stands, while two titles' common words ("to", "a") meet by chance in
 * two places of their forty. */
#define ND_RENAME_LED_SHARE 0.25
#define ND_NAME_PLACE_MASK (~(uint32_t)0 << ND_NAME_WORD_BITS)
/* A lead's place is the top bits of its hash (the two words before it),
 * then a bit for a word with a digit (a release's number is a value,
 * which value_scores reads: two numbers are no rename), then the word's
 * bits, as a name's. */
#define ND_LEAD_PLACE_MASK (ND_NAME_PLACE_MASK << 1)
#define ND_LEAD_DIGIT ((uint32_t)1 << ND_NAME_WORD_BITS)
/* A pair that resemblance alone accepts at copy, by less than this, is a
 * copy only if the two descriptive signatures (each of ND_MIN_BITS bits or
 * more) share ND_SIGNATURE_JACCARD of their bits or more.  The thresholds
 * are chosen so that small edits leave a bit alone, while two fillings of
 * one template, a fifth of their words their own, cross many: their 3-shingles
 * agree as much as an edited version's, their words do not.  The
 * signature reads the whole text's relative frequencies, so not for a pair
 * that containment could accept (a thread added), nor one that common text
 * discounted brought up (a text in another site's template). */
#define ND_SIGNATURE_BAND 0.6
#define ND_SIGNATURE_JACCARD 0.5
/* Texts shorter than this are copies only of the same words: one word of
 * five is another text, not an edit. */
#define ND_REC_SHORT_WORDS 8
/* A page's frame: its first and last ND_FRAME_WORDS words, the header and
 * footer of a site's template that extraction left.  Pages without a site
 * (no URL, no host, a mail) that share a frame are one site's pages. */
#define ND_FRAME_WORDS 8
#define ND_FRAME_MIN (4 * ND_FRAME_WORDS)
/* Text trees: near-neighbour sequences from the shingles, after the
 * descriptive set's ND_NEAR_TREES in a record's near section. */
#define ND_TEXT_TREES 6

/* A record's arrays as read in place from the store, where LMDB aligns a
 * value to 2 bytes only (x86 and arm64 load them unaligned). */
typedef uint32_t nd__u32u __attribute__((aligned(1)));
typedef uint64_t nd__u64u __attribute__((aligned(1)));

typedef struct {
	uint32_t nwords;      /* words of the text */
	uint32_t nshingles;   /* distinct tagged shingles */
	uint64_t text;        /* hash of the word sequence; 0: no words */
	uint32_t thr;         /* sample: every shingle hash <= thr */
	uint32_t nsample;
	nd__u32u *sample;     /* ascending */
	uint32_t pthr;        /* places: every place hash <= pthr */
	uint32_t nplaces;
	nd__u64u *places;     /* place hash << 32 | value word id, ascending */
	uint32_t nthr;        /* names: every place bits <= nthr */
	uint32_t nnames;
	nd__u32u *names;      /* places of words the text repeats: the place hash's
				 top 20 bits | 12 bits of the word's, ascending */
	uint8_t *pos;         /* parallel to sample: where each stands in the text
				 (nd__rec_make); NULL in a record made before
				 records kept it */
	uint16_t *groups;     /* parallel to sample when weighed (nd__recset_weigh):
				 nd__common_groups of each, at most UINT16_MAX;
				 NULL: looked up as compared */
	double wsum, ssum;    /* when weighed: the whole sample's copy and story
				 weights */
	double *cum;          /* when weighed: the copy and story weights of the
				 first ND_REC_CUM_STEP * (c + 1) samples at 2c and
				 2c + 1, so that a pair whose sample is cut adds up
				 at most ND_REC_CUM_STEP - 1 of them */
	uint8_t *buckets;     /* when weighed in a set for the copy verdict, a
				 sample of at least ND_REC_BUCKET_MIN: its copy
				 weight and count by bucket (nd__rec_buckets);
				 NULL: none */
	double bucket_wx;     /* weight its buckets' top level leaves out */
	uint32_t bucket_nx;   /* samples its counts' top level leaves out */
	int borrowed;         /* sample, places, names and pos point into a store
				 page (nd__rec_of_doc): not freed */
	const uint16_t *bits; /* the document's descriptive bits, ascending (from
				 its store payload, 2-aligned as LMDB aligns a
				 value, or its signature; never owned by the
				 record); NULL: not known */
	uint32_t nbits;
	uint32_t thread;      /* the mail thread it is in (nd_xdb_doc_thread); 0: none */
	uint64_t frame;       /* a text of ND_FRAME_MIN words or more: hash of its
				 first and last ND_FRAME_WORDS words; 0: none */
	uint64_t lead[2];     /* a text with names: the name word bits of its first
				 ND_LEAD_WORDS words, each as bit (w & 127);
				 zeros: not known (a record made before records
				 kept it) */
	uint32_t floor;       /* when weighed: its site's floor (nd__common_floor);
				 0: looked up as compared */
	uint32_t rotating;    /* when weighed: how many of its samples are its
				 template's rotating parts (nd__rec_rotating) */
	uint32_t lthr;        /* leads: every place hash <= lthr */
	uint32_t nleads;
	nd__u32u *leads;      /* the places of its title's words (ND_TITLE_WORDS,
				 above), as names are but each place its two
				 words before (ND_LEAD_PLACE_MASK); ascending */
} nd__rec;

/* How many of r's samples are below x.  They are hashes spread evenly
 * up to r->thr, so x's place is guessed from its value and the guess
 * walked to the answer, a few samples in one or two cache lines: a binary
 * search over the whole sample was several dependent cache misses on a
 * record not yet read, an eighth of sign's verdicts at 100k in perf. */
static inline uint32_t nd__rec_samples_below(const nd__rec *r, uint64_t x)
{
	uint64_t guess = x > r->thr ? r->nsample : (uint64_t)r->nsample * x / ((uint64_t)r->thr + 1);
	uint32_t at = guess < r->nsample ? (uint32_t)guess : r->nsample;
	while (at < r->nsample && r->sample[at] < x)
		at++;
	while (at > 0 && r->sample[at - 1] >= x)
		at--;
	return at;
}

/* How many of r's samples are at or below t. */
static inline uint32_t nd__rec_cut_at(const nd__rec *r, uint32_t t)
{
	if (r->thr <= t)
		return r->nsample; /* all of it: the usual side */
	return nd__rec_samples_below(r, (uint64_t)t + 1);
}

/* Whether r knows the words that lead its text (records made before
 * they were kept do not). */
static inline int nd__rec_has_lead(const nd__rec *r)
{
	return (r->lead[0] | r->lead[1]) != 0;
}

#define ND_REC_CUM_STEP 32
#define ND_REC_INIT {0, 0, 0, 0, 0, NULL, 0, 0, NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0, 0, NULL, 0, 0, 0, {0, 0}, 0, 0, 0, 0, NULL}

/* Buckets by the low bits of a sample's hash: a nibble of copy weight
 * and two bits of count each, rounded up to a few levels.  A pair
 * shares at most the smaller of its two records' in every bucket, so
 * the sum of those bounds what a merge could find. */
#define ND_REC_BUCKETS 512
/* ... then, for the first ND_REC_CUM_STEP * (c + 1) samples, c <
 * ND_REC_BUCKET_CUTS: the last one's hash and their weight rounded down,
 * so that where another record cuts this one is bounded without reading
 * its sample. */
#define ND_REC_BUCKET_CUTS 8
#define ND_REC_BUCKET_BYTES (ND_REC_BUCKETS / 2 + ND_REC_BUCKETS / 4 + 8 * ND_REC_BUCKET_CUTS)
#define ND_REC_BUCKET_MIN 64 /* a smaller sample's merge is short */

/* How the text trees fill a MinHash bin no shingle fell in (a text of
 * fewer shingles than bins).  ROTATED takes the next filled bin's value,
 * so every text of one shingle (1-3 words) has one of 65,536 keys, and
 * among 200,000 short texts unrelated ones sharing a key crowd copies out
 * of each other's windows.  MIXED takes a hash of that value and both
 * bins: as many keys as shingle hashes.  A set keeps the one it was built
 * with (ROTATED: a store from before MIXED). */
enum { ND_TEXT_KEYS_ROTATED = 0, ND_TEXT_KEYS_MIXED = 1 };

/* The record of word ids[0..n), and its text trees' keys (ND_TEXT_TREES *
 * ND_NEAR_ROWS, all UINT16_MAX when there is no word: not indexed), made
 * as scheme (ND_TEXT_KEYS_*) says. */
int nd__rec_make(const uint32_t *ids, size_t n, nd__rec *out, uint16_t *text_keys, int scheme);
void nd__rec_free(nd__rec *r);
/* Bytes of the encoding; the encoding; the decoding (in place: its arrays
 * point into p, which must outlive out; its sizes checked, ND_ECORRUPT
 * naming what is wrong, its arrays' order not). */
size_t nd__rec_size(const nd__rec *r);
size_t nd__rec_encode(const nd__rec *r, uint8_t *out);
int nd__rec_decode(const void *p, size_t len, nd__rec *out);

/* ---- the collection: text many documents share (common.c) ---- */

/* A shingle held by more than ND_COMMON_CAP groups of near-identical
 * documents weighs ND_COMMON_CAP / groups; any other weighs 1.  Groups,
 * not documents: a text copied a thousand times is one group, so its
 * shingles stay evidence, while a template, licence or footer that
 * distinct documents share weighs little. */
#define ND_COMMON_CAP 3
/* The story point's cap: a story's shingles are shared by the tens of
 * sites that ran it, a template's by hundreds of pages. */
#define ND_STORY_COMMON_CAP 10
/* Near-identical, for the groups: plain resemblance of the samples. */
#define ND_GROUP_RESEMBLANCE 0.9

/* ---- own text: what no other document holds (own.c) ----
 *
 * Two fillings of one template (a product page, a form letter to another
 * name) share the template, which the template's other fillings hold
 * too, and each has words of its own that no other document holds.  Two
 * versions of one text differ otherwise: what the one lacks of the other
 * is mostly the text as it was, which the text's other versions hold.
 * Counted over kin, documents of plain resemblance ND_KIN_RESEMBLANCE or
 * more joined (a filling and its edited copy are one kin, two fillings
 * two), in a filter the store keeps beside the common table: each
 * shingle held by two kin or more, and each held by three or more.
 *
 * Copy refuses a pair that resemblance alone accepts, under
 * ND_OWN_BAND, when each of the two has ND_OWN_SHARE or more of its
 * samples to itself, ND_OWN_COMMON or more of the samples they share
 * are held by three kin or more, and under ND_OWN_HELD of either one's
 * own samples by two kin or more (ND_REFUSED_FILLINGS).  It needs no
 * descriptive set: a collection of a few hundred documents, whose set
 * holds its templates' words, has it as a large one does. */
#define ND_KIN_RESEMBLANCE 0.8
/* A text copied many times, each copy edited a little (a counter, a date,
 * a word), is kin of more groups than near-identical ones: its shingles
 * in G groups weigh ND_COMMON_CAP / G, and two copies of plain
 * resemblance r keep weighted resemblance 0.5 (copy's) only while G <=
 * ND_COMMON_CAP * r / (1 - r), 12 at ND_KIN_RESEMBLANCE.  A kin of more
 * groups is counted as one group. */
#define ND_KIN_FAMILY 12
#define ND_OWN_BAND 0.65
#define ND_OWN_SHARE 0.2
#define ND_OWN_COMMON 0.9
#define ND_OWN_HELD 0.25

/* A site's template rotates parts (teasers, "most read") that few of its
 * pages show, so the collection calls them a page's own text.  Where they
 * stand tells them: short runs of a page's own text between runs of its
 * site's template, against the article, its longest run.  Copy accepts a
 * pair of weighted resemblance ND_ROTATING_FROM or more when it reaches
 * the point with each page's own runs shorter than 1/ND_ROTATING_SHARE of
 * its longest (in the order its samples stand, nd__rec.pos) weighed as
 * its template. */
#define ND_ROTATING_FROM 0.3
#define ND_ROTATING_SHARE 2
/* ... and the same for containment (a page whose template is its own text
 * to the collection, the other's rotating parts weighed off), from a
 * containment of this. */
#define ND_ROTATING_CONTAINED_FROM 0.5

/* A copy edited in place loses its common text as it loses its own, but
 * each edit's new words are the copy's own to the collection: weighed at
 * 1 against the little the lost common text weighed, they take a page
 * that is half a flag table or a licence from weighted resemblance 0.65
 * to under 0.5 at 8% of its words edited.  So where one side's unshared
 * samples weigh on average no more than its samples do (ND_EDIT_SLACK
 * standard errors over), ND_EDIT_MIN_LOST or more of them, and its
 * samples weigh on average at most ND_EDIT_COMMON (common text to lose),
 * it lost them as edits lose text: copy then weighs the other side's
 * unshared samples as that side's average, at most as they weigh.  Two
 * distinct pages of one template each lose their own text, which weighs
 * more than their average, and are judged as before.  Asked from
 * weighted resemblance ND_EDIT_FROM. */
#define ND_EDIT_FROM 0.35
/* Edits are spread through a text; what two pages of one table or one
 * options list differ in is a block (another table's rows, a section of
 * their own).  The lost side's unshared samples, counted in eighths of
 * the text by where they stand, must not stray from its samples' spread
 * by more than this chi-square (7 degrees of freedom, 1 in 100; counted
 * three samples to an edit).  A record without places is not asked. */
#define ND_EDIT_SPREAD 18.5
#define ND_EDIT_MIN_LOST 8
#define ND_EDIT_SLACK 1.5
#define ND_EDIT_COMMON 0.85
/* Containment is a text and the same text with more added: the base's
 * own text (its samples that at most ND_COMMON_CAP groups hold) is in the
 * other too, at least this share of it (ND_EDIT_MIN_LOST such samples or
 * more; fewer: ND_OWN_LEAST).  A page and another that shows a long
 * section both show (a trait's provided methods, an options section)
 * beside more of its own share that section, not the page's own text:
 * copy neither accepts such a pair by containment nor spares it the
 * signature's test for containment's sake.  A cut copy whose edits fell
 * on its own text keeps three quarters of it. */
#define ND_OWN_CONTAINED 0.5
/* Fewer own samples than ND_EDIT_MIN_LOST say nothing, unless they are
 * under 1 in ND_OWN_LEAST of the base's samples and its other samples are
 * mostly text that at most ND_KIN_FAMILY groups hold: a page that is
 * almost all a section a few distinct pages include (git's diff options
 * under a synopsis) holds in another page only what they all hold.  Text
 * that more groups hold, not a site's template, is one text copied (a
 * wire story a dozen sites carry, its copies too far apart for kin), and
 * a text copied a thousand times is one group's: their copies keep this
 * evidence. */
#define ND_OWN_LEAST 20

/* A pair of records whose shared text is common may still be a copy: a
 * text made of passages that other documents hold each on its own (news
 * sentences, quotations, a listing's lines) is new as a whole.  Copy
 * accepts a pair of plain resemblance >= ND_PASSAGE_PLAIN that shares at
 * least ND_PASSAGES passages of common text, where a passage is two or
 * more shared common shingles held by the same groups: shingles agree on
 * two or more of ND_PASSAGE_HASHES MinHashes of their groups.  Shingles of one
 * template, licence or footer are held by the same groups, so pages that
 * share one share one passage. */
#define ND_PASSAGE_HASHES 4
#define ND_PASSAGE_PLAIN 0.4
/* ... and weighted resemblance >= this, far above what pages that share
 * only a template score: their merges stop early, their passages are
 * never counted. */
#define ND_PASSAGE_RESEMBLANCE 0.15
#define ND_PASSAGES 7
/* ... and neither has more than this share of its samples to itself and
 * not common: such a text is its passages, and a copy's own words are
 * its edits.  Two pages of one small site, whose template is made of
 * phrases that other sites' templates hold too, each have their article. */
#define ND_PASSAGE_OWN 0.25

typedef struct nd__common nd__common;
/* What a fresh count of the common text found of sites: sites by host or
 * base URL, sites by frame, the pages in either, and the shingles taken
 * for a site's template. */
typedef struct {
	uint64_t hosts, frames, pages, template_shingles;
} nd__sites_seen;
/* That of c (zeros for a table read from the store, or none: no
 * document had a record to count). */
nd__sites_seen nd__common_sites(const nd__common *c);
/* The common shingles the store holds (an empty table when it has none),
 * read in place: valid while txn is open, unless nd__common_own copies it. */
int nd__common_load(nd_store_txn *txn, nd__common **out);
int nd__common_own(nd__common *c);
void nd__common_free(nd__common *c);
/* Shingles in the table. */
size_t nd__common_size(const nd__common *c);
/* An index that makes nd__common_groups one bit read for most shingles
 * (a filter of the table's hashes) and a bucket read for the rest of a
 * large table, made when the lookups to come make it worth its pass over
 * the table (SIZE_MAX: a batch).  The table must stay where it is:
 * owned, or its transaction open. */
int nd__common_index(nd__common *c, size_t lookups);
/* Whether c has its index (made, or kept with the table since the sign
 * that stored it). */
int nd__common_indexed(const nd__common *c);
/* Ask, while h[0..n) (a record's samples, perhaps read in place in the
 * store's map: unaligned) are looked up in order and h[k] is next, for what
 * later lookups will read (a large table's lookups are two cache misses
 * each): h[k + 16]'s bucket, and h[k + 8]'s entries, whose bucket has
 * come by then.  Nothing without the index. */
void nd__common_prefetch(const nd__common *c, const nd__u32u *h, uint32_t k, uint32_t n);
/* Groups holding h when it is common (more than ND_COMMON_CAP), else 0. */
uint32_t nd__common_groups(const nd__common *c, uint32_t h);
/* Whether the table has its passage hashes (a store signed before them
 * has none). */
int nd__common_has_passages(const nd__common *c);
/* Passages of common text that a and b share: their shared common
 * shingles, joined when they agree on two or more of the passage hashes,
 * counted by the joins of two shingles or more (copy's passages rule). */
uint32_t nd__common_shared_passages(const nd__rec *a, const nd__rec *b, const nd__common *c);

/* A site's template: text that ND_SITE_GROUPS or more versions of pages
 * of one site hold (a host's pages, versions: pages of plain resemblance
 * ND_SITE_VERSION or more joined), and at least 1 / ND_SITE_SHARE of the
 * site's groups that could hold it.  Only the site says so: on a site of a few pages
 * its template is in as few groups as an article copied twice, and weighs
 * as much by counting alone; versions keep a page edited three times on
 * its own site the page's text.  Two distinct pages of one host share
 * nothing but its template.  It weighs as text ND_SITE_TEMPLATE groups
 * hold. */
#define ND_SITE_GROUPS 2
/* A third, not half: a template's rotating parts (six of a dozen teasers,
 * "most read") stand on about half of its pages, and a half needed them
 * on more than half of those few. */
#define ND_SITE_SHARE 3
/* A site that only a frame tells (no host) needs this many versions for
 * text anywhere on its pages to be its template: two near-copies of one
 * text share their ends, and may be two versions where edits are dense
 * (characters of CJK text). */
#define ND_FRAME_GROUPS 3
/* A frame site needs this many pages, and its template this many
 * versions when two of its pages are framed apart (nd__rec_framed_apart):
 * two pages of a template share their ends, each with its own text
 * between; two copies share what is between too, and need
 * ND_FRAME_GROUPS. */
#define ND_FRAME_END_GROUPS 2
_Static_assert(ND_FRAME_GROUPS >= ND_SITE_GROUPS && ND_FRAME_GROUPS >= ND_FRAME_END_GROUPS,
	       "a site's versions are counted in room for ND_FRAME_GROUPS");
/* A page with 8% of its words replaced (the strict point's bound) keeps
 * about 0.6 of its 3-shingles: past that, another page, though a
 * template may make up most of both. */
#define ND_SITE_VERSION 0.6
/* ... and a page that another of its site holds nearly whole is a version
 * of it too: its print version, the article without the template. */
#define ND_SITE_CONTAINED 0.9
#define ND_SITE_TEMPLATE 1000
/* A site's template is counted from its pages' samples, each at or below
 * its record's threshold: above the threshold of one of them, that page's
 * share of the template is unseen.  A page of a site is therefore
 * compared at its site's floor when that is lower than its own threshold:
 * the threshold that the site's ND_SITE_FLOOR_PAGES shortest pages reach
 * (every page of a smaller site), and at least half its own. */
#define ND_SITE_FLOOR_PAGES 4

typedef struct nd__recset nd__recset;
/* The common shingles of the groups whose representatives are the
 * records reps[0..n) of rs: each representative's sample counted once, in
 * passes by hash range, on jobs threads, that hold at most 16M hashes
 * together.  site (may be NULL): each group's site, an ordinal from 1, 0
 * for none, sites from frame_from on told by their frames only; ver (with
 * site): its version there (equal for versions); apart (may be NULL):
 * nonzero for a group of a frame site two of whose pages are framed apart.
 * kin (may be NULL: no filter of own text): each group's kin, equal for
 * groups of one kin.  The numbers of their titles are counted with it
 * (common.h, nd__common_titles). */
int nd__common_build(const nd__recset *rs, const uint32_t *reps, const uint32_t *site, uint32_t frame_from,
		     const uint32_t *ver, const uint8_t *apart, const uint32_t *kin, size_t n, unsigned jobs,
		     nd__common **out);
/* The sites that made it: hosts and frames counted, and their pages. */
void nd__common_set_sites(nd__common *c, uint64_t hosts, uint64_t frames, uint64_t pages);
/* Kept in the store's meta ("common", with its passages, its index and
 * the filter of own text), where nd__common_load reads it. */
int nd__common_store(nd_store_txn *txn, const nd__common *c);
/* Each site's floor from the records rs[0..n) and their sites (an
 * ordinal from 1, 0: none), kept in c for the pages it cuts (by the hash
 * of their word sequence), replacing any it had. */
int nd__common_floors(nd__common *c, const nd__recset *rs, const uint32_t *site, size_t n);
/* r without what weighing kept of it: weighed again as compared (by a
 * table with a site's template counted apart, nd__common_set_extra).
 * Shares r's arrays: not freed. */
nd__rec nd__rec_unweighed(const nd__rec *r);
/* c's entries: each shingle's hash (ascending) and its groups count (a
 * site's template's ND_SITE_TEMPLATE), into *h and *g (caller frees). */
int nd__common_entries(const nd__common *c, uint32_t **h, uint32_t **g, size_t *n);
/* A site counted apart from the table (hooks, sites.c): what its count
 * took for common (each shingle's hash, ascending, and its groups among
 * the site's pages, ND_SITE_TEMPLATE for its template), read as at least
 * that many groups, and the floors of its pages (entries as the table
 * keeps them: a text's hash and its floor, ascending). */
typedef struct {
	const uint32_t *h, *g;
	size_t n;
	const uint8_t *floors;
	size_t nfloors;
} nd__extra;
#define ND_FLOOR_BYTES 12
/* Every lookup of c reads t too, till set again (NULL: none).  Not
 * copied: kept by the caller while c is used. */
void nd__common_set_extra(nd__common *c, const nd__extra *t);
/* The floor of text in floor entries v[0..n) (ascending); UINT32_MAX:
 * none. */
uint32_t nd__floor_in(const uint8_t *v, size_t n, uint64_t text);
/* c's floors, as nd__extra keeps them (read in place). */
void nd__common_floor_entries(const nd__common *c, const uint8_t **v, size_t *n);
/* Whether value is a number many titles hold (a site's); 1 when c (may
 * be NULL) has no count. */
int nd__common_title_many(const nd__common *c, uint32_t value);
/* The floor of the page whose words hash to text; UINT32_MAX: none. */
uint32_t nd__common_floor(const nd__common *c, uint64_t text);
size_t nd__common_nfloors(const nd__common *c);

/* Whether c has the filter of own text (a store signed before it, or
 * before its first count, has none: the rule then says nothing). */
int nd__common_has_kin(const nd__common *c);
/* Kin holding h, as the filter says: 1, 2, or 3 for three or more (a
 * false positive now and then says more); 0 without the filter. */
uint32_t nd__common_kin(const nd__common *c, uint32_t h);
/* Whether a and b are two fillings of one template, by their own text
 * (ND_OWN_SHARE, ND_OWN_COMMON, ND_OWN_HELD; not the band, which the
 * verdict asks); 0 without the filter. */
int nd__rec_filled(const nd__rec *a, const nd__rec *b, const nd__common *c);
/* Whether a and b look like two copies of one text, each edited in places
 * of its own: of lengths ND_EDITED_LENGTH alike, ND_OWN_COMMON of the
 * samples they share held by three kin or more (a text many copies hold),
 * and ND_OWN_HELD or more of what each has that the other lacks (the text
 * as the other copies keep it where the other was edited).  Two fillings
 * of one template fail the last: what each lacks is the other's slots,
 * which no other document holds.  Write-ups of one agency story on many
 * sites, and short pages around the boilerplate they share, can pass
 * those two; they differ in length, copies edited in place (a counter, a
 * date, a word replaced) do not (on the gold set, distinct stories were
 * joined from a ratio of 0.9 on, none at 0.94). */
#define ND_EDITED_LENGTH 0.97
int nd__rec_edited(const nd__rec *a, const nd__rec *b, const nd__common *c);

/* The record in docid's store record (ND_ENOTFOUND: none), read in
 * place: valid while txn is open and nothing is written in it. */
int nd__rec_of_doc(nd_store_txn *txn, uint32_t docid, nd__rec *out);

/* r's whole weights (wsum, ssum) and the checkpoints of cum (r->groups
 * set, common not empty), summed in nd__rec_weights's order. */
void nd__rec_cum(nd__rec *r, const nd__common *common, double *cum);
/* r's buckets (r->groups and, by nd__rec_cum, r->cum set; common not
 * empty) into out (ND_REC_BUCKET_BYTES), and what their top levels leave
 * out. */
void nd__rec_buckets(nd__rec *r, const nd__common *common, uint8_t *out);
/* The bounds two records' buckets give of the copy weight and the
 * samples they share (both with buckets). */
void nd__rec_bucket_bounds(const nd__rec *a, const nd__rec *b, double *weight, uint32_t *count);
/* At least how many of r's samples (with buckets), and how much of its
 * copy weight, are at or below t, from its buckets' cuts. */
void nd__rec_cut_least(const nd__rec *r, uint32_t t, uint32_t *n, double *w);
extern int nd__rec_buckets_simd; /* 0: the portable sums (tests) */

/* Weigh one record by common (groups and checkpoints, malloc'd: freed by
 * nd__rec_free or nd__rec_unweigh), for a record compared with several:
 * each comparison then reads its weights instead of looking them up.
 * Nothing to do for a record already weighed, or an empty table. */
int nd__rec_weigh(nd__rec *r, const nd__common *common);
void nd__rec_unweigh(nd__rec *r);

/* Records of many documents, decoded once, for a batch pass (arrays in
 * chunks of their own, so the whole takes what the samples take).
 * docs[0..n) ascending; a document without a record gets an empty one.
 *
 * With spill_dir and at least nd__recset_spill_docs documents, the arrays
 * go to an unlinked temporary file there (else in $TMPDIR), mapped: the
 * set is then in tiles of consecutive records, about
 * nd__recset_tile_bytes of the file each, and a pass that releases what it
 * has read (nd__recset_release) keeps a tile or two resident however
 * many documents there are.  At a million, the records are 2.3 GB.
 * The copies are shared over jobs threads (0: one), nd__recset_load_batch
 * records at a time. */
extern size_t nd__recset_spill_docs, nd__recset_tile_bytes, nd__recset_load_batch; /* tests set them */
int nd__recset_load(nd_store_txn *txn, const nd_docid *docs, size_t n, const char *spill_dir, unsigned jobs,
		    nd__recset **out);
const nd__rec *nd__recset_get(const nd__recset *s, size_t i);
size_t nd__recset_size(const nd__recset *s);
/* Tiles (1 when not spilled), and record i's. */
uint32_t nd__recset_tiles(const nd__recset *s);
uint32_t nd__recset_tile(const nd__recset *s, size_t i);
/* Drop the spilled records' pages from the resident set (they stay in
 * the page cache, or on disk, and are read again when next used): all
 * of them, or tile t's, or all but the records' own fields (for a pass
 * that reads a few records' arrays anywhere and every record's fields). */
void nd__recset_release(const nd__recset *s);
void nd__recset_release_tile(const nd__recset *s, uint32_t t);
void nd__recset_release_arrays(const nd__recset *s);
/* For a pass over records in ascending order: at record i, release what
 * the pass read when i starts another tile (*tile: UINT32_MAX first). */
void nd__recset_walked(const nd__recset *s, size_t i, uint32_t *tile);
/* Look up every sample's groups in common once, for a pass that compares
 * each record with many (a lookup is a cache miss in a table that can hold
 * millions: on jobs threads), and keep the weight checkpoints (and, with
 * buckets, the buckets the copy verdict refuses most pairs by). */
int nd__recset_weigh(nd__recset *s, const nd__common *common, unsigned jobs, int buckets);
/* Sums of r's copy and story weights over its first n samples. */
void nd__rec_weights(const nd__rec *r, uint32_t n, const nd__common *common, double *w, double *ws);
size_t nd__recset_bytes(const nd__recset *s);
/* Of them, the bytes in the file (0: not spilled). */
size_t nd__recset_spilled(const nd__recset *s);
void nd__recset_free(nd__recset *s);

/* What two records say of each other, weighed by the collection (common
 * may be NULL: every shingle weighs 1). */
typedef struct {
	double resemblance;   /* weighted: shared weight / union weight */
	double story;         /* the same, weighted by ND_STORY_COMMON_CAP */
	double plain;         /* unweighted */
	double containment;   /* weighted: shared / the lighter text's */
	double edited;        /* weighted, as edits made it (ND_EDIT_FROM); 0: not edits */
	int edited_b;         /* b is the side that lost samples as edits do */
	int equal;            /* the same word sequence */
	int values_differ;    /* other values in the same places (the veto) */
	int base_a;           /* a is the lighter text: containment's base */
} nd__rec_scores;

void nd__rec_compare(const nd__rec *a, const nd__rec *b, const nd__common *common, nd__rec_scores *s);
/* Whether a pair that a rule accepts at point is refused all the same: other
 * values in the same places, or (not at story) a rename; *how (may be NULL)
 * says which (ND_REFUSED_VALUES, ND_REFUSED_RENAMED).  The strict point,
 * which decides by words, asks it as copy and story do. */
int nd__rec_refused(nd_point point, const nd__rec *a, const nd__rec *b, nd_verify_how *how);
/* The plain resemblance alone (groups of near-identical documents) when
 * it can reach floor; else some value below floor (the merge stops as
 * soon as it cannot; 0: never). */
double nd__rec_plain_floor(const nd__rec *a, const nd__rec *b, double floor);
/* Where the verdict compares a pair: the lower of the two thresholds,
 * and of their sites' floors (common may be NULL: no floors). */
uint32_t nd__rec_pair_cut(const nd__rec *a, const nd__rec *b, const nd__common *common);
/* Samples both records keep at or below t: how many they share, and in
 * *na and *nb how many each keeps. */
uint32_t nd__rec_shared(const nd__rec *a, const nd__rec *b, uint32_t t, uint32_t *na, uint32_t *nb);
/* The share of the smaller sample that the other holds (containment),
 * when it can reach floor; else some value below floor. */
double nd__rec_contained_floor(const nd__rec *a, const nd__rec *b, double floor);
/* Marks in rot[k] (1; rot may be NULL) r's samples that are its
 * template's rotating parts: in the order the samples stand in the text,
 * runs of its own (not a site's template) between two of the template's,
 * each shorter than 1/ND_ROTATING_SHARE of its longest own run; samples
 * of no known place are skipped.  Returns how many (0 without places). */
int nd__rec_rotating(const nd__rec *r, const nd__common *common, uint8_t *rot);
/* Whether a and b, two pages of one frame, are framed apart: each holds,
 * between text both hold, a run of its own of a quarter of its samples
 * or more (an article inside a template), where two copies of one text,
 * however edited, share what stands between their ends. */
int nd__rec_framed_apart(const nd__rec *a, const nd__rec *b);
/* The verdict at point (copy or story; strict reads words) over two
 * records: 1 duplicates, 0 not; *how and *distance (may be NULL) say by
 * what and how far (1 - the measure). */
int nd__rec_verdict(nd_point point, const nd__rec *a, const nd__rec *b, const nd__common *common,
		    nd_verify_how *how, double *distance);
/* One merge for a story pass: the story resemblance (1 for equal texts)
 * and whether the copy verdict accepts the pair (1 or 0). */
void nd__rec_story(const nd__rec *a, const nd__rec *b, const nd__common *common, float *story, int *copy);
/* The story score alone (no values read). */
float nd__rec_story_score(const nd__rec *a, const nd__rec *b, const nd__common *common);

#endif
