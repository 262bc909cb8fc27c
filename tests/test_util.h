/* Helpers shared by the test suites. */
#ifndef ND_TEST_UTIL_H
#define ND_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "neardup/descriptor.h"
#include "neardup/indexer.h"
#include "neardup/store.h"

/* A fresh temporary directory (removed by tu_rmtree); caller frees. */
char *tu_tmpdir(void);
/* The slow suite (make slow) sets ND_SLOW=1: full sizes and loop counts;
 * the default run keeps each behaviour at a size that runs fast. */
int tu_slow(void);
void tu_rmtree(const char *path);
/* path joined with name; caller frees. */
char *tu_join(const char *dir, const char *name);
void tu_write_file(const char *path, const char *data, size_t len);

/* Records st holds, read through st now. */
uint64_t tu_records(nd_store *st);
/* Records the store at path holds as another process reads it (a child
 * with a read-only handle of its own), counted in units of unit: at most
 * 254 of them, and the count must be whole units. */
uint64_t tu_records_elsewhere(const char *path, uint64_t unit);

/* A seeded synthetic document: n words drawn Zipf-like from a vocabulary
 * of vocab words "wNNNNa".  Caller frees. */
char *tu_random_doc(uint64_t *rng, size_t n, size_t vocab);
/* Replace `edits` random words of doc with random vocabulary words. */
char *tu_edit_doc(uint64_t *rng, const char *doc, size_t edits, size_t vocab);
uint64_t tu_rand(uint64_t *rng);
/* tu_random_doc from seed, with `edits` words then replaced (seeded by
 * edit_seed; 0 edits: as drawn): a family's text and its copies. */
char *tu_copy_doc(uint64_t seed, uint64_t edit_seed, size_t n, size_t edits, size_t vocab);

/* The obvious average linkage, as a reference: n documents, similarity
 * s[i * n + j] for i < j (0: no pair); clusters of highest mean similarity
 * join while it is >= floor and > 0.  lv[i * n + j] (i < j) gets the level
 * at which i and j join, -1 if they never do. */
void tu_dense_upgma(size_t n, const double *s, double floor, double *lv);

/* As 'neardup build': choose `words` descriptive words from db and save
 * them to a new store at storepath, *st (open for writing), with no
 * document signed. */
void tu_build(nd_xdb *db, const char *storepath, uint32_t words, nd_store **st);

/* The set-up most suites share: choose `words` descriptive words from db,
 * save them to a new store at storepath and sign every document.  *st
 * gets the store, open for writing (st NULL: closed again). */
void tu_build_and_sign(nd_xdb *db, const char *storepath, uint32_t words, nd_store **st);

/* A hand-made set for exact bit tests: texts[i] indexed as ids[i] into a
 * new database at dbpath (*db, read-only), signed into a new store at
 * storepath (*st) with the descriptive words "s1".."s<nwords>", each set
 * above a relative frequency of 0.005 (*d).  Caller closes and frees. */
void tu_handmade_set(const char *dbpath, const char *storepath, const char *const *ids,
		     char *const *texts, size_t n, uint32_t nwords, nd_xdb **db, nd_store **st,
		     nd_descriptor **d);

#endif
