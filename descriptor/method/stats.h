/* Internal to descriptor/: candidate words and the document sample. */
#ifndef ND_DESC_STATS_H
#define ND_DESC_STATS_H

#include "descriptor/method/method.h"

typedef struct {
	uint32_t n;
	size_t cap;
	char **terms;   /* sorted in byte order */
	uint32_t *df;
	uint64_t words; /* word terms seen, candidates or not */
} nd_candidates;

typedef struct {
	uint32_t cand;  /* index into nd_candidates */
	uint32_t wdf;
} nd_sample_ent;

typedef struct {
	uint32_t len;   /* word length */
	uint32_t off;   /* first entry in ent */
	uint32_t m;     /* entries, sorted by cand */
} nd_sample_doc;

typedef struct {
	uint32_t n;
	nd_docid *docids;      /* in order of id (below) */
	uint64_t *id;          /* a hash of each document's unique id term (Q...),
				  ascending; of its docid in a database without
				  them.  What anything random about a sampled
				  document is drawn from, so that the same
				  documents give the same set however they are
				  spread over shards. */
	nd_sample_doc *docs;
	nd_sample_ent *ent;
	size_t nent, ent_cap;
	uint64_t total_len;
} nd_sample;

int nd_candidates_collect(nd_candidates *c, nd_xdb *db, const nd_build_options *o, uint32_t doccount);
void nd_candidates_free(nd_candidates *c);
/* Index of term among the candidates, or -1. */
int32_t nd_candidates_find(const nd_candidates *c, const char *term, size_t len);

int nd_sample_collect(nd_sample *s, nd_xdb *db, const nd_candidates *c, int word_lengths,
		      uint32_t want, uint64_t seed);
void nd_sample_free(nd_sample *s);

#endif
