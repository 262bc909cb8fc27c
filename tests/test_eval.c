/* neardup eval: metrics on a hand-computed toy set, the ground-truth
 * loaders on fixtures, the split by group, each method's scores on known
 * pairs, and candidates found through the methods' indexes. */
#include "tests/test_util.h"
#include "eval/eval_internal.h"
#include "common/nd_buf.h"
#include "neardup/descriptor.h"
#include "neardup/indexer.h"
#include "neardup/verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir, *dbpath, *storepath;

/* Documents: a base text, an identical copy, a one-word edit, a 30% edit,
 * an unrelated text, and 40 filler texts for the statistics. */
enum { BASE, COPY, EDIT1, FAR, OTHER, NROLES };
static const char *role_id[] = {"base", "copy", "edit1", "far", "other"};

static int setup(void **state)
{
	(void)state;
	uint64_t rng = 3, e1 = 4, e2 = 5;
	nd_indexer *ix;
	dir = tu_tmpdir();
	dbpath = tu_join(dir, "db");
	storepath = tu_join(dir, "store");
	char *base = tu_random_doc(&rng, 300, 2000);
	char *texts[NROLES] = {base, strdup(base), tu_edit_doc(&e1, base, 1, 2000),
			       tu_edit_doc(&e2, base, 90, 2000), tu_random_doc(&rng, 300, 2000)};
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (int i = 0; i < NROLES; i++) {
		assert_int_equal(nd_indexer_add_text(ix, role_id[i], texts[i], strlen(texts[i]), NULL, NULL), ND_OK);
		free(texts[i]);
	}
	for (int i = 0; i < 40; i++) {
		char id[16], *t = tu_random_doc(&rng, 200, 2000);
		snprintf(id, sizeof(id), "fill%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
		free(t);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	/* A signed store for the descriptive methods. */
	nd_xdb *db;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	tu_build_and_sign(db, storepath, 200, NULL);
	nd_xdb_close(db);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmtree(dir);
	free(dir);
	free(dbpath);
	free(storepath);
	return 0;
}

static void near(double got, double want)
{
	if (fabs(got - want) > 1e-9)
		fail_msg("got %.12f, want %.12f", got, want);
}

/* Scores 0.9 (dup), 0.8 (not), 0.7 (dup), 0.2 (dup); 4 duplicates in the
 * truth, so one is never scored.  At threshold 0.75: tp 1, fp 1, fn 3. */
static void test_metrics_toy(void **state)
{
	(void)state;
	nd_scored_pair p[] = {{0.7, 1}, {0.9, 1}, {0.2, 1}, {0.8, 0}};
	nd_eval_result r;
	memset(&r, 0, sizeof(r));
	assert_int_equal(nd_eval_metrics(p, 4, 4, 0.75, &r), ND_OK);
	assert_int_equal(r.suggested, 2);
	assert_int_equal(r.tp, 1);
	assert_int_equal(r.fp, 1);
	assert_int_equal(r.fn, 3);
	near(r.precision, 0.5);
	near(r.recall, 0.25);
	near(r.f1, 1.0 / 3);
	near(r.alpha, 0.75);
	near(r.beta, 0.5);
	/* Sweep: 0.9 -> P 1 R .25; 0.8 -> .5/.25; 0.7 -> 2/3, .5; 0.2 -> .75/.75. */
	assert_int_equal(r.ncurve, 4);
	near(r.curve[0].threshold, 0.9);
	near(r.curve[0].precision, 1.0);
	near(r.curve[2].precision, 2.0 / 3);
	near(r.curve[2].f1, 4.0 / 7);
	near(r.best.threshold, 0.2);
	near(r.best.f1, 0.75);
	/* The best is the sweep's last point: cut when candidates had a floor,
	 * duplicates are still missed and the method is scored, not a verdict. */
	assert_true(r.best.lowest && !r.curve[0].lowest && r.curve[3].lowest);
	r.verdict = 0;
	r.floor = 0.1;
	assert_true(nd_eval_cut(&r, &r.best));
	assert_false(nd_eval_cut(&r, &r.curve[2]));
	r.floor = 0; /* labeled pairs: every one was scored */
	assert_false(nd_eval_cut(&r, &r.best));
	r.floor = 0.1;
	r.verdict = 1;
	assert_false(nd_eval_cut(&r, &r.best));
	r.verdict = 0;
	nd_scored_pair all[] = {{0.9, 1}, {0.8, 1}, {0.3, 0}}; /* every duplicate found */
	assert_int_equal(nd_eval_metrics(all, 3, 2, 0.5, &r), ND_OK);
	assert_true(!r.best.lowest && r.best.threshold == 0.8 && !nd_eval_cut(&r, &r.best));
	nd_scored_pair low[] = {{0.9, 1}, {0.8, 1}}; /* found at the last point, none missed */
	assert_int_equal(nd_eval_metrics(low, 2, 2, 0.5, &r), ND_OK);
	assert_true(r.best.lowest && !nd_eval_cut(&r, &r.best));
	/* Ties are one threshold: two pairs at 0.5, one of them a duplicate. */
	nd_scored_pair q[] = {{0.5, 1}, {0.5, 0}};
	assert_int_equal(nd_eval_metrics(q, 2, 1, 0.5, &r), ND_OK);
	assert_int_equal(r.ncurve, 1);
	near(r.precision, 0.5);
	near(r.recall, 1.0);
	/* Nothing suggested: precision 0, every duplicate missed. */
	assert_int_equal(nd_eval_metrics(q, 2, 1, 0.9, &r), ND_OK);
	assert_int_equal(r.suggested, 0);
	near(r.f1, 0);
	near(r.alpha, 1);
	free(r.curve);
}

static nd_xdb *open_db(void)
{
	nd_xdb *db;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	return db;
}

static void test_loaders(void **state)
{
	(void)state;
	nd_xdb *db = open_db();
	nd_truth *t;
	const char *const *unk;
	char *p = tu_join(dir, "clusters.tsv");
	const char *cl = "id\tcluster\nbase\tA\ncopy\tA\nedit1\tA\nfar\tB\nother\tC\nnot-there\tA\n";
	tu_write_file(p, cl, strlen(cl));
	assert_int_equal(nd_truth_load(&t, db, p, ND_TRUTH_AUTO), ND_OK);
	assert_int_equal(nd_truth_kind_of(t), ND_TRUTH_CLUSTERS);
	assert_int_equal(nd_truth_ndocs(t), 5);
	assert_int_equal(nd_truth_ngroups(t), 3);
	assert_int_equal(nd_truth_positives(t), 3); /* A: 3 members */
	assert_int_equal(nd_truth_judged(t), 10);
	assert_int_equal(nd_truth_unknown(t, &unk), 1);
	assert_string_equal(unk[0], "not-there");
	/* Docids ascend with the order indexed: base is doc 0, copy 1, far 3. */
	assert_string_equal(nd_truth_id(t, 0), "base");
	assert_int_equal(nd_truth_label(t, 0, 1), 1);
	assert_int_equal(nd_truth_label(t, 0, 3), 0);
	assert_int_equal(nd_truth_label(t, 2, 2), -1);
	nd_truth_free(t);

	/* Pairs, with a header; a conflict and a bad label name file and line. */
	const char *pr = "a\tb\tlabel\nbase\tcopy\t1\nbase\tfar\t0\nedit1\tbase\t1\nother\tghost\t0\n";
	tu_write_file(p, pr, strlen(pr));
	assert_int_equal(nd_truth_load(&t, db, p, ND_TRUTH_AUTO), ND_OK);
	assert_int_equal(nd_truth_kind_of(t), ND_TRUTH_PAIRS);
	assert_int_equal(nd_truth_npairs(t), 3);
	assert_int_equal(nd_truth_positives(t), 2);
	assert_int_equal(nd_truth_unknown(t, &unk), 1);
	assert_string_equal(unk[0], "ghost");
	assert_int_equal(nd_truth_label(t, 2, 0), 1); /* edit1-base, either order */
	/* base, copy, edit1 are one component; far another. */
	assert_int_equal(nd_truth_group(t, 0), nd_truth_group(t, 1));
	assert_int_equal(nd_truth_group(t, 0), nd_truth_group(t, 2));
	assert_true(nd_truth_group(t, 0) != nd_truth_group(t, 3));
	nd_truth_free(t);
	const char *conflict = "base\tcopy\t1\ncopy\tbase\t0\n";
	tu_write_file(p, conflict, strlen(conflict));
	assert_int_equal(nd_truth_load(&t, db, p, ND_TRUTH_PAIRS), ND_EPARSE);
	assert_non_null(strstr(nd_error_last(), "labeled both"));
	const char *badlabel = "base\tcopy\t1\nbase\tfar\tyes\n";
	tu_write_file(p, badlabel, strlen(badlabel));
	assert_int_equal(nd_truth_load(&t, db, p, ND_TRUTH_PAIRS), ND_EPARSE);
	assert_non_null(strstr(nd_error_last(), "clusters.tsv:2"));
	const char *two = "base\tA\tx\tz\n";
	tu_write_file(p, two, strlen(two));
	assert_int_equal(nd_truth_load(&t, db, p, ND_TRUTH_CLUSTERS), ND_EPARSE);
	assert_int_equal(nd_truth_load(&t, db, "/nonexistent/truth.tsv", ND_TRUTH_AUTO), ND_ENOTFOUND);
	assert_non_null(strstr(nd_error_last(), "/nonexistent/truth.tsv"));

	/* The gold set's layout: a directory per cluster; ids cluster/file.
	 * The fixture database holds ids "base" etc., so index two files by
	 * those paths first. */
	nd_indexer *ix;
	char *gold = tu_join(dir, "gold"), cmd[2048];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/X' '%s/Y' && echo one two > '%s/X/a.txt' && "
		 "echo one two three > '%s/X/b.txt' && echo four > '%s/Y/c.txt' && echo z > '%s/Y/.hidden'",
		 gold, gold, gold, gold, gold, gold);
	assert_int_equal(system(cmd), 0);
	char *gdb = tu_join(dir, "gold-db");
	assert_int_equal(nd_indexer_open(&ix, gdb, NULL), ND_OK);
	assert_int_equal(nd_indexer_add_path(ix, gold), ND_OK);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_xdb *g;
	assert_int_equal(nd_xdb_open(&g, gdb, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_truth_load(&t, g, gold, ND_TRUTH_AUTO), ND_OK);
	assert_int_equal(nd_truth_kind_of(t), ND_TRUTH_CLUSTERS);
	assert_int_equal(nd_truth_ndocs(t), 3);
	assert_int_equal(nd_truth_ngroups(t), 2);
	assert_int_equal(nd_truth_positives(t), 1);
	assert_string_equal(nd_truth_id(t, 0), "X/a.txt");
	nd_truth_free(t);
	nd_xdb_close(g);
	free(gdb);
	free(gold);
	free(p);
	nd_xdb_close(db);
}

/* 200 documents in 37 clusters: no cluster on both sides, about the share asked. */
static void test_split(void **state)
{
	(void)state;
	nd_xdb *db = open_db();
	nd_truth *t;
	char *p = tu_join(dir, "split.tsv");
	/* Only 45 documents exist; give each a cluster of i % 7. */
	char buf[4096];
	size_t n = 0;
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "fill%d\tc%d\n", i, i % 7);
	tu_write_file(p, buf, n);
	assert_int_equal(nd_truth_load(&t, db, p, ND_TRUTH_CLUSTERS), ND_OK);
	assert_int_equal(nd_truth_ngroups(t), 7);
	uint8_t side[64];
	int first = -1, differs = 0;
	const double shares[] = {0.5, 0.3, 1.0};
	const int want[] = {4, 2, 7}; /* round(share * 7) */
	for (int k = 0; k < 3; k++)
		for (uint64_t seed = 1; seed <= 20; seed++) {
			assert_int_equal(nd_truth_split(t, shares[k], seed, side), ND_OK);
			int sides[7] = {0}, test_groups = 0, mask = 0;
			for (size_t i = 0; i < nd_truth_ndocs(t); i++)
				sides[nd_truth_group(t, i)] |= 1 << side[i];
			for (int g = 0; g < 7; g++) {
				assert_true(sides[g] == 1 || sides[g] == 2); /* never both */
				test_groups += sides[g] == 2;
				mask |= (sides[g] == 2) << g;
			}
			assert_int_equal(test_groups, want[k]); /* the halves' sizes are not left to chance */
			if (k == 0 && first < 0)
				first = mask;
			differs |= k == 0 && mask != first; /* another seed, another split */
		}
	assert_true(differs);
	assert_int_equal(nd_truth_split(t, 1.5, 1, side), ND_EINVAL);
	nd_truth_free(t);
	free(p);
	nd_xdb_close(db);
}

static const ev_method *method(const char *name)
{
	for (size_t i = 0; ev_methods[i]; i++)
		if (!strcmp(ev_methods[i]->name, name))
			return ev_methods[i];
	fail_msg("no method %s", name);
	return NULL;
}

/* Scores of (base, role) for one method. */
static void scores(ev_corpus *c, const char *name, double out[NROLES])
{
	const ev_method *m = method(name);
	void *s;
	assert_int_equal(m->prepare(&s, c), ND_OK);
	for (int r = 0; r < NROLES; r++)
		assert_int_equal(m->score(s, c, BASE, (size_t)r, &out[r]), ND_OK);
	m->release(s);
}

static void test_method_scores(void **state)
{
	(void)state;
	nd_xdb *db = open_db();
	nd_store *st;
	nd_truth *t;
	char *p = tu_join(dir, "roles.tsv");
	const char *cl = "base\t1\ncopy\t1\nedit1\t1\nfar\t2\nother\t3\n";
	tu_write_file(p, cl, strlen(cl));
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_READ), ND_OK);
	assert_int_equal(nd_truth_load(&t, db, p, ND_TRUTH_CLUSTERS), ND_OK);
	for (int r = 0; r < NROLES; r++)
		assert_string_equal(nd_truth_id(t, (size_t)r), role_id[r]);
	nd_eval_options o = ND_EVAL_OPTIONS_INIT;
	ev_corpus c;
	assert_int_equal(ev_corpus_load(&c, db, st, t, &o), ND_OK);
	double s[NROLES];
	/* Resemblance-type scores: 1 for the copy, high for one word of 300
	 * (10-word shingles: 290/310 shared), low for 30% edits, ~0 unrelated. */
	const char *setlike[] = {"shingles", "shingles-mod16", "sscr", "docq4", "minhash"};
	/* Character 4-grams of the fixture's words ("wabcda") are shared by
	 * any two texts, so docq of unrelated ones is about 0.5 here. */
	const double max_other[] = {0.2, 0.2, 0.2, 0.6, 0.2};
	for (size_t k = 0; k < sizeof(setlike) / sizeof(*setlike); k++) {
		scores(&c, setlike[k], s);
		if (s[COPY] != 1.0)
			fail_msg("%s: copy %.3f", setlike[k], s[COPY]);
		if (!(s[EDIT1] >= 0.8 && s[EDIT1] < 1.0) && !(k == 1 && s[EDIT1] >= 0.8))
			fail_msg("%s: one-word edit %.3f", setlike[k], s[EDIT1]);
		if (!(s[FAR] < s[EDIT1] && s[OTHER] < max_other[k] && s[OTHER] <= s[FAR]))
			fail_msg("%s: far %.3f other %.3f", setlike[k], s[FAR], s[OTHER]);
	}
	scores(&c, "shingles", s);
	assert_true(fabs(s[EDIT1] - 290.0 / 310.0) < 0.02);
	/* simhash: bit agreement; unrelated texts agree on about half. */
	scores(&c, "simhash", s);
	assert_true(s[COPY] == 1.0 && s[EDIT1] >= 0.9 && s[OTHER] > 0.25 && s[OTHER] < 0.75);
	assert_true(s[FAR] > s[OTHER]);
	/* Verdicts: equal signatures for the copy, none for unrelated text. */
	const char *verdicts[] = {"descriptive", "descriptive+xcheck", "imatch", "descriptive-multi",
				  "descriptive-multi+xcheck", "descriptive-tolerant+lev"};
	for (size_t k = 0; k < 6; k++) {
		scores(&c, verdicts[k], s);
		if (s[COPY] != 1.0 || s[OTHER] != 0.0)
			fail_msg("%s: copy %.0f other %.0f", verdicts[k], s[COPY], s[OTHER]);
	}
	/* The cross-check refuses the 30% edit even if its key were equal. */
	scores(&c, "descriptive+xcheck", s);
	assert_true(s[FAR] == 0.0);
	scores(&c, "descriptive-tolerant+lev", s);
	assert_true(s[FAR] == 0.0 && s[EDIT1] == 1.0);
	/* LSH bands: whatever the set hashed, the copy shares every band and
	 * is scored by shingles; unrelated text shares none, so scores 0. */
	const int sets[] = {ND_EVAL_LSH_PRESENT, ND_EVAL_LSH_RARE, ND_EVAL_LSH_WORDS, ND_EVAL_LSH_BITS};
	for (size_t k = 0; k < 4; k++) {
		o.lsh_set = sets[k];
		scores(&c, "descriptive-lsh+xcheck", s);
		if (s[COPY] != 1.0 || s[OTHER] != 0.0)
			fail_msg("lsh set %d: copy %.3f other %.3f", sets[k], s[COPY], s[OTHER]);
	}
	o.lsh_set = ND_EVAL_LSH_PRESENT;
	scores(&c, "descriptive-near+xcheck", s); /* a labeled pair is scored whatever the index */
	assert_true(s[COPY] == 1.0);
	/* The product's verdict: strict says yes to the copy and the one-word
	 * edit, no to the far text; copy and story score an equal text 1, the
	 * rest by the records' 3-shingle resemblance (or 1 if contained). */
	scores(&c, "verdict-strict", s);
	assert_true(s[COPY] == 1.0 && s[EDIT1] == 1.0 && s[FAR] == 0.0 && s[OTHER] == 0.0);
	scores(&c, "verdict-copy", s);
	assert_true(s[COPY] == 1.0 && s[EDIT1] > 0.9 && s[EDIT1] < 1.0);
	assert_true(s[OTHER] < nd_point_resemblance(ND_POINT_COPY));
	scores(&c, "descriptive-lsh+xcheck", s);
	assert_true(s[EDIT1] > 0.8 && s[EDIT1] < 1.0);
	o.lsh_bands = 0;
	const ev_method *lsh = method("descriptive-lsh+xcheck");
	void *ls;
	assert_int_equal(lsh->prepare(&ls, &c), ND_EINVAL);
	o.lsh_bands = 50;
	ev_corpus_free(&c);

	/* Through the harness: every method's index proposes the copy pair
	 * (base, copy); the scored ones also (base, edit1) and (copy, edit1). */
	nd_eval_result *res;
	size_t nres;
	assert_int_equal(nd_eval_run(db, st, t, NULL, &o, &res, &nres), ND_OK);
	assert_int_equal(nres, 20);
	for (size_t i = 0; i < nres; i++) {
		if (res[i].candidate_tp < 1)
			fail_msg("%s proposed no duplicate pair", res[i].method);
		if (!res[i].verdict && res[i].candidate_tp != 3)
			fail_msg("%s proposed %llu of 3 duplicate pairs", res[i].method,
				 (unsigned long long)res[i].candidate_tp);
		assert_true(res[i].precision >= 0.0 && res[i].precision <= 1.0);
		assert_int_equal(res[i].tp + res[i].fn, 3);
	}
	nd_eval_results_free(res, nres);

	/* The candidate floor: with the 30% edit in the copies' cluster, a floor
	 * above its score cuts shingles' sweep (recall 1/2 at its last point);
	 * a floor below it finds all six duplicate pairs.  docq4 keeps its own
	 * floor of 0.5 whatever min_score says. */
	nd_truth *t4;
	const char *cl4 = "base\t1\ncopy\t1\nedit1\t1\nfar\t1\nother\t3\n";
	tu_write_file(p, cl4, strlen(cl4));
	assert_int_equal(nd_truth_load(&t4, db, p, ND_TRUTH_CLUSTERS), ND_OK);
	const char *sh[] = {"shingles", "docq4", NULL};
	nd_eval_options hi = o, lo = o;
	hi.min_score = 0.5;
	lo.min_score = 0.001;
	assert_int_equal(nd_eval_run(db, st, t4, sh, &hi, &res, &nres), ND_OK);
	assert_true(res[0].floor == 0.5 && res[1].floor == 0.5);
	near(res[0].best.recall, 0.5);
	assert_true(nd_eval_cut(&res[0], &res[0].best));
	nd_eval_results_free(res, nres);
	assert_int_equal(nd_eval_run(db, st, t4, sh, &lo, &res, &nres), ND_OK);
	assert_true(res[0].floor == 0.001 && res[1].floor == 0.5);
	near(res[0].best.recall, 1.0);
	assert_false(nd_eval_cut(&res[0], &res[0].best));
	nd_eval_results_free(res, nres);
	nd_truth_free(t4);
	const char *bad[] = {"no-such-method", NULL};
	assert_int_equal(nd_eval_run(db, st, t, bad, &o, &res, &nres), ND_EINVAL);
	nd_truth_free(t);
	nd_store_close(st);
	nd_xdb_close(db);
	free(p);
}

/* The learned methods on a corpus of 40 clusters of edited copies: they
 * need a split, train on one side, are measured on pairs within the other
 * (whose positives the result counts), and rank duplicates first. */
static void test_learned(void **state)
{
	(void)state;
	char *ldir = tu_tmpdir(), *ldb = tu_join(ldir, "db"), *tsv = tu_join(ldir, "truth.tsv");
	nd_indexer *ix;
	nd_buf truth = ND_BUF_INIT;
	uint64_t rng = 42;
	assert_int_equal(nd_indexer_open(&ix, ldb, NULL), ND_OK);
	for (int k = 0; k < 40; k++) {
		char *base = tu_random_doc(&rng, 150 + 10 * (size_t)(k % 7), 3000);
		for (int m = 0; m < 4; m++) {
			char id[32], line[64];
			char *t = m ? tu_edit_doc(&rng, base, (size_t)(3 * m + k % 5), 3000) : strdup(base);
			snprintf(id, sizeof(id), "c%d-%d", k, m);
			assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
			snprintf(line, sizeof(line), "%s\tc%d\n", id, k);
			assert_int_equal(nd_buf_put(&truth, line, strlen(line)), ND_OK);
			free(t);
		}
		free(base);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	tu_write_file(tsv, truth.ptr, truth.len);
	nd_buf_free(&truth);

	nd_xdb *db;
	nd_truth *t;
	nd_eval_result *res;
	size_t nres;
	assert_int_equal(nd_xdb_open(&db, ldb, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_truth_load(&t, db, tsv, ND_TRUTH_CLUSTERS), ND_OK);
	const char *learned[] = {"svm", "weights", NULL};
	nd_eval_options o = ND_EVAL_OPTIONS_INIT;
	assert_true(nd_eval_method_learned("svm") && nd_eval_method_learned("weights"));
	assert_false(nd_eval_method_learned("shingles"));
	/* No split, no learning. */
	assert_int_equal(nd_eval_run(db, NULL, t, learned, &o, &res, &nres), ND_EINVAL);
	o.test_share = 0.5;
	uint8_t side[160];
	assert_int_equal(nd_truth_split(t, o.test_share, o.seed, side), ND_OK);
	uint64_t test_pos = 0, sizes[40] = {0};
	for (size_t i = 0; i < nd_truth_ndocs(t); i++)
		sizes[nd_truth_group(t, i)] += side[i];
	for (int k = 0; k < 40; k++)
		test_pos += sizes[k] * (sizes[k] ? sizes[k] - 1 : 0) / 2;
	assert_true(test_pos > 0 && test_pos < nd_truth_positives(t));
	int lrc = nd_eval_run(db, NULL, t, learned, &o, &res, &nres);
	if (lrc != ND_OK)
		fail_msg("learned: %s", nd_error_last());
	assert_int_equal(nres, 2);
	for (size_t i = 0; i < nres; i++) {
		assert_true(res[i].learned);
		assert_int_equal(res[i].tp + res[i].fn, test_pos);
		if (res[i].best.f1 < 0.9)
			fail_msg("%s: max-F1 %.3f on easy clusters", res[i].method, res[i].best.f1);
	}
	nd_eval_results_free(res, nres);

	/* Splits: each split's best is what a run with that seed alone gives,
	 * for a method scored once (shingles) and one trained per split. */
	const char *both[] = {"shingles", "weights", NULL};
	o.splits = 3;
	o.seed = 5;
	assert_int_equal(nd_eval_run(db, NULL, t, both, &o, &res, &nres), ND_OK);
	assert_int_equal(nres, 2);
	int differ = 0;
	for (size_t k = 0; k < 3; k++) {
		nd_eval_options one = o;
		nd_eval_result *r1;
		size_t n1;
		one.splits = 0;
		one.seed = 5 + k;
		assert_int_equal(nd_eval_run(db, NULL, t, both, &one, &r1, &n1), ND_OK);
		for (size_t i = 0; i < 2; i++) {
			assert_int_equal(res[i].nsplits, 3);
			if (fabs(res[i].split_best[k].f1 - r1[i].best.f1) > 1e-12 ||
			    fabs(res[i].split_best[k].threshold - r1[i].best.threshold) > 1e-12)
				fail_msg("%s split %zu: %.6f, alone %.6f", res[i].method, k, res[i].split_best[k].f1,
					 r1[i].best.f1);
			/* ... and so are its figures at the method's own threshold. */
			const nd_eval_point *at = &res[i].split_point[k];
			if (at->threshold != r1[i].threshold || fabs(at->f1 - r1[i].f1) > 1e-12 ||
			    fabs(at->precision - r1[i].precision) > 1e-12 || fabs(at->recall - r1[i].recall) > 1e-12)
				fail_msg("%s split %zu at %.3f: F1 %.6f, alone %.6f", res[i].method, k, at->threshold,
					 at->f1, r1[i].f1);
			if (k == 0) /* the result's own figures are the first split's */
				assert_true(res[i].best.f1 == r1[i].best.f1 && res[i].tp + res[i].fn == r1[i].tp + r1[i].fn);
		}
		nd_eval_results_free(r1, n1);
	}
	uint8_t side2[160];
	assert_int_equal(nd_truth_split(t, 0.5, 5, side), ND_OK);
	for (uint64_t seed = 6; seed <= 7; seed++) {
		assert_int_equal(nd_truth_split(t, 0.5, seed, side2), ND_OK);
		differ |= memcmp(side, side2, nd_truth_ndocs(t)) != 0; /* the seeds give other splits */
	}
	assert_true(differ);
	nd_eval_results_free(res, nres);
	o.test_share = 0;
	assert_int_equal(nd_eval_run(db, NULL, t, both, &o, &res, &nres), ND_EINVAL);
	nd_truth_free(t);
	nd_xdb_close(db);
	tu_rmtree(ldir);
	free(ldir);
	free(ldb);
	free(tsv);
}

typedef struct {
	size_t pairs[16][2];
	double score[16];
	size_t n;
} found_t;

static int collect(size_t a, size_t b, double score, void *ctx)
{
	found_t *f = ctx;
	if (f->n < 16) {
		f->pairs[f->n][0] = a;
		f->pairs[f->n][1] = b;
		f->score[f->n++] = score;
	}
	return 0;
}

static int found(const found_t *f, size_t a, size_t b)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->pairs[i][0] == a && f->pairs[i][1] == b)
			return 1;
	return 0;
}

/* Tolerant descriptive matching: a pair whose bit vectors differ in k bits
 * is found at Hamming <= k and not at k - 1, for every k up to the limit,
 * whichever bits differ (the rarest, the commonest). */
/* The learned weights' training follows ev_quad_cosine's gradient: it is
 * checked against central differences, and its cosine against the one of
 * the weight vectors themselves, on random documents. */
static void test_weights_gradient(void **state)
{
	(void)state;
	enum { TERMS = 12, SHARED = 5 };
	uint64_t rng = 42;
	for (int round = 0; round < 20; round++) {
		double pa[TERMS][EV_NF], pb[TERMS][EV_NF], lambda[EV_NF];
		double m[EV_NF][EV_NF] = {{0}}, qa[EV_NF][EV_NF] = {{0}}, qb[EV_NF][EV_NF] = {{0}};
		for (int t = 0; t < TERMS; t++)
			for (int k = 0; k < EV_NF; k++) {
				pa[t][k] = (double)(tu_rand(&rng) % 1000) / 500.0;
				pb[t][k] = (double)(tu_rand(&rng) % 1000) / 500.0;
			}
		for (int k = 0; k < EV_NF; k++)
			lambda[k] = (double)(tu_rand(&rng) % 1000) / 250.0 - 1.0;
		/* Terms 0..SHARED-1 are in both documents; the forms as training builds them. */
		for (int k = 0; k < EV_NF; k++)
			for (int l = 0; l < EV_NF; l++)
				for (int t = 0; t < TERMS; t++) {
					qa[k][l] += pa[t][k] * pa[t][l];
					qb[k][l] += pb[t][k] * pb[t][l];
					if (t < SHARED)
						m[k][l] += 0.5 * (pa[t][k] * pb[t][l] + pb[t][k] * pa[t][l]);
				}
		double wa[TERMS], wb[TERMS], ab = 0, aa = 0, bb = 0;
		for (int t = 0; t < TERMS; t++) {
			wa[t] = wb[t] = 0;
			for (int k = 0; k < EV_NF; k++)
				wa[t] += lambda[k] * pa[t][k], wb[t] += lambda[k] * pb[t][k];
			aa += wa[t] * wa[t];
			bb += wb[t] * wb[t];
			if (t < SHARED)
				ab += wa[t] * wb[t];
		}
		double grad[EV_NF], g2[EV_NF];
		double cos = ev_quad_cosine(m, qa, qb, lambda, grad);
		assert_true(fabs(cos - ab / sqrt(aa * bb)) < 1e-12);
		for (int k = 0; k < EV_NF; k++) {
			const double h = 1e-6;
			double up[EV_NF], down[EV_NF];
			memcpy(up, lambda, sizeof(up));
			memcpy(down, lambda, sizeof(down));
			up[k] += h;
			down[k] -= h;
			double fd = (ev_quad_cosine(m, qa, qb, up, g2) - ev_quad_cosine(m, qa, qb, down, g2)) / (2 * h);
			if (fabs(grad[k] - fd) > 1e-6 * (1 + fabs(fd)))
				fail_msg("round %d, d cos / d lambda[%d]: %.9f, by differences %.9f", round, k, grad[k], fd);
		}
	}
}

static void test_hamming_join(void **state)
{
	(void)state;
	for (unsigned k = 1; k <= 8; k++)
		for (int rare = 0; rare < 2; rare++) {
			/* Doc 0: bits 100..119.  Doc 1: k of them changed.  Docs 2..5:
			 * fillers holding bits 100..109, so those are the common ones. */
			uint64_t v[6][40];
			ev_set sets[6];
			for (int d = 0; d < 6; d++) {
				size_t m = 0;
				for (uint64_t b = 100; b < (d >= 2 ? 110 : 120); b++)
					v[d][m++] = b;
				sets[d].v = v[d];
				sets[d].n = m;
			}
			/* Doc 1 drops k - k/2 of doc 0's bits (from the rare end 119..
			 * or the common end 100..) and adds k/2 new ones (200..): both
			 * kinds of difference, Hamming distance k. */
			unsigned drop = k - k / 2;
			size_t m = 0;
			uint64_t w[40];
			for (uint64_t b = 100; b < 120; b++)
				if (!(rare ? b >= 120 - drop : b < 100 + drop))
					w[m++] = b;
			for (unsigned j = 0; j < k / 2; j++)
				w[m++] = 200 + j;
			memcpy(v[1], w, m * sizeof(uint64_t));
			sets[1].n = m;
			found_t f = {0};
			assert_int_equal(ev_hamming_join(sets, 6, k, collect, &f), ND_OK);
			if (!found(&f, 0, 1))
				fail_msg("k=%u rare=%d: pair at Hamming %u not found", k, rare, k);
			for (size_t i = 0; i < f.n; i++)
				if (f.pairs[i][0] == 0 && f.pairs[i][1] == 1 && fabs(f.score[i] - 1.0 / (1 + k)) > 1e-12)
					fail_msg("k=%u: score %f", k, f.score[i]);
			f.n = 0;
			assert_int_equal(ev_hamming_join(sets, 6, k - 1, collect, &f), ND_OK);
			if (found(&f, 0, 1))
				fail_msg("k=%u rare=%d: pair at Hamming %u found at <= %u", k, rare, k, k - 1);
			/* The fillers are 10 bits from doc 0: never at k < 10. */
			assert_false(found(&f, 0, 2));
		}
}

/* Average linkage: a hand-worked case where it differs from single
 * linkage, then random graphs against a dense, obvious UPGMA. */
#define LN 12

/* Every pair across a join gets its level (lv: LN x LN, -1 where none). */
static int level_of(const nd_join *j, void *ctx)
{
	double *lv = ctx;
	for (uint32_t x = j->a; x != UINT32_MAX; x = j->next[x])
		for (uint32_t y = j->b; y != UINT32_MAX; y = j->next[y]) {
			uint32_t a = x < y ? x : y, b = x < y ? y : x;
			if (a == b || b >= LN)
				fail_msg("pair (%u, %u) out of range", a, b);
			if (lv[a * LN + b] >= 0)
				fail_msg("pair (%u, %u) joined twice", a, b);
			lv[a * LN + b] = j->level;
		}
	return 0;
}

static void linkage_levels(const nd_scored *p, size_t np, double floor_, double *lv)
{
	for (size_t i = 0; i < LN * LN; i++)
		lv[i] = -1;
	assert_int_equal(nd_average_linkage(LN, p, np, floor_, level_of, lv), ND_OK);
}

static void test_average_linkage(void **state)
{
	(void)state;
	double lv[LN * LN], ref[LN * LN];

	/* 0-1 at 0.9 and 1-2 at 0.6, 0-2 missing: {0, 1} forms at 0.9, and 2
	 * joins it at (0 + 0.6) / 2 = 0.3, not at single linkage's 0.6.  A
	 * pair listed twice keeps its higher score; doc 3 has no pairs. */
	nd_scored hand[] = {{0, 1, 0.9}, {1, 2, 0.6}, {1, 2, 0.2}, {4, 5, 0}};
	linkage_levels(hand, 4, 0.01, lv);
	near(lv[0 * LN + 1], 0.9);
	near(lv[0 * LN + 2], 0.3);
	near(lv[1 * LN + 2], 0.3);
	assert_true(lv[0 * LN + 3] < 0 && lv[4 * LN + 5] < 0);
	nd_scored outside[] = {{0, LN, 0.5}}; /* a document the count does not hold */
	assert_int_equal(nd_average_linkage(LN, outside, 1, 0.01, level_of, lv), ND_EINVAL);
	linkage_levels(hand, 4, 0.35, lv); /* the floor stops the second merge */
	near(lv[0 * LN + 1], 0.9);
	assert_true(lv[0 * LN + 2] < 0 && lv[1 * LN + 2] < 0);

	uint64_t rng = 11;
	for (int round = 0; round < 300; round++) {
		double s[LN * LN] = {0}, floor_ = round % 3 ? 0.01 : 0.2;
		nd_scored p[LN * LN];
		size_t np = 0;
		int density = 20 + round % 60; /* percent of pairs present */
		for (uint32_t i = 0; i < LN; i++)
			for (uint32_t j = i + 1; j < LN; j++) {
				rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
				if ((int)(rng >> 33) % 100 >= density)
					continue;
				s[i * LN + j] = (double)((rng >> 11) % 1000000 + 1) / 1000001.0;
				/* Either order: the function takes a pair as given. */
				p[np++] = round % 2 ? (nd_scored){j, i, s[i * LN + j]} : (nd_scored){i, j, s[i * LN + j]};
			}
		linkage_levels(p, np, floor_, lv);
		tu_dense_upgma(LN, s, floor_, ref);
		for (int i = 0; i < LN; i++)
			for (int j = i + 1; j < LN; j++)
				if (fabs(lv[i * LN + j] - ref[i * LN + j]) > 1e-12)
					fail_msg("round %d, pair (%d, %d): level %.6f, reference %.6f", round, i, j,
						 lv[i * LN + j], ref[i * LN + j]);
	}
}


/* Documents with fewer than ND_MIN_BITS bits get no key, so exact equality
 * never pairs them; the tolerant methods still use their bits (the score
 * decides there), and --bits-floor bounds descriptive-tolerant+xcheck's
 * candidates.  Set: "zebra" and "yak" above 1%. */
static void test_few_bits(void **state)
{
	(void)state;
	char *fdir = tu_tmpdir(), *fdb = tu_join(fdir, "db"), *fst = tu_join(fdir, "st"),
	     *tsv = tu_join(fdir, "truth.tsv");
	uint64_t rng = 9;
	char *filler = tu_random_doc(&rng, 60, 2000), *other = tu_random_doc(&rng, 60, 2000);
	size_t flen = strlen(filler) + 32;
	char *two = malloc(flen), *one = malloc(flen);
	snprintf(two, flen, "zebra yak %s", filler);   /* bits {yak, zebra} */
	snprintf(one, flen, "zebra moth %s", filler);  /* bits {zebra}: Jaccard 1/2 */
	/* Both words once in 182: below 1%, no bit, but both present. */
	size_t glen = 3 * strlen(filler) + 32;
	char *faint = malloc(glen);
	snprintf(faint, glen, "zebra yak %s %s %s", filler, filler, filler);
	const char *ids[] = {"two", "twin", "one", "other", "faint"};
	const char *texts[] = {two, two, one, other, faint};
	nd_indexer *ix;
	assert_int_equal(nd_indexer_open(&ix, fdb, NULL), ND_OK);
	for (int i = 0; i < 5; i++)
		assert_int_equal(nd_indexer_add_text(ix, ids[i], texts[i], strlen(texts[i]), NULL, NULL), ND_OK);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	const char *cl = "two\t1\ntwin\t1\none\t1\nother\t2\nfaint\t1\n";
	tu_write_file(tsv, cl, strlen(cl));

	nd_xdb *db;
	nd_store *st;
	nd_descriptor *d;
	nd_truth *t;
	const char *words[] = {"zebra", "yak"};
	const double th[] = {0.01, 0.01};
	assert_int_equal(nd_xdb_open(&db, fdb, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_descriptor_from_words(&d, words, th, 2, 0), ND_OK);
	assert_int_equal(nd_store_open(&st, fst, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_descriptor_save(d, st, db, NULL), ND_OK);
	assert_int_equal(nd_sign_all(st, db, NULL, NULL), ND_OK);
	nd_descriptor_free(d);
	assert_int_equal(nd_truth_load(&t, db, tsv, ND_TRUTH_CLUSTERS), ND_OK);

	nd_eval_options o = ND_EVAL_OPTIONS_INIT;
	ev_corpus c;
	assert_int_equal(ev_corpus_load(&c, db, st, t, &o), ND_OK);
	double s[4];
	size_t two_i = 5, twin_i = 5, one_i = 5, other_i = 5, faint_i = 5;
	for (size_t i = 0; i < 5; i++) {
		const char *id = nd_truth_id(t, i);
		size_t *slot = !strcmp(id, "two") ? &two_i : !strcmp(id, "twin") ? &twin_i
			       : !strcmp(id, "one") ? &one_i : !strcmp(id, "faint") ? &faint_i : &other_i;
		*slot = i;
	}
	const char *names[] = {"descriptive", "descriptive-jaccard", "descriptive-tolerant+xcheck"};
	for (int k = 0; k < 3; k++) {
		const ev_method *m = method(names[k]);
		void *ms;
		assert_int_equal(m->prepare(&ms, &c), ND_OK);
		assert_int_equal(m->score(ms, &c, two_i, twin_i, &s[0]), ND_OK);
		assert_int_equal(m->score(ms, &c, two_i, one_i, &s[1]), ND_OK);
		assert_int_equal(m->score(ms, &c, two_i, other_i, &s[2]), ND_OK);
		o.bits_floor = 0.6;
		o.presence_floor = 0; /* both hold zebra: the present words would pair them */
		assert_int_equal(m->score(ms, &c, two_i, one_i, &s[3]), ND_OK);
		o.bits_floor = 0.05;
		o.presence_floor = 0.2;
		m->release(ms);
		if (k == 0)
			assert_true(s[0] == 0.0 && s[1] == 0.0); /* two bits: no key */
		else {
			if (s[0] != 1.0)
				fail_msg("%s: identical two-bit documents score %.3f", names[k], s[0]);
			assert_true(s[1] > 0.3 && s[1] < 1.0);
			assert_true(s[2] == 0.0);
		}
		if (k == 1)
			assert_true(fabs(s[1] - 0.5) < 1e-12 && s[3] == s[1]);
		if (k == 2)
			assert_true(s[3] == 0.0); /* Jaccard 1/2 below the floor */
	}
	/* faint shares no bit with two, but both of its descriptive words:
	 * a candidate of the pipeline through the present words, scored by the
	 * cross-check, and not without them. */
	{
		const ev_method *m = method("descriptive-tolerant+xcheck");
		void *ms;
		found_t f = {0};
		double with, without;
		assert_int_equal(m->prepare(&ms, &c), ND_OK);
		assert_int_equal(m->score(ms, &c, two_i, faint_i, &with), ND_OK);
		assert_int_equal(m->candidates(ms, &c, 0.05, collect, &f), ND_OK);
		o.presence_floor = 0;
		assert_int_equal(m->score(ms, &c, two_i, faint_i, &without), ND_OK);
		found_t g = {0};
		assert_int_equal(m->candidates(ms, &c, 0.05, collect, &g), ND_OK);
		o.presence_floor = 0.2;
		m->release(ms);
		int found = 0, found_without = 0;
		size_t lo = two_i < faint_i ? two_i : faint_i, hi = two_i ^ faint_i ^ lo;
		for (size_t i = 0; i < f.n; i++)
			found |= f.pairs[i][0] == lo && f.pairs[i][1] == hi && f.score[i] == with;
		for (size_t i = 0; i < g.n; i++)
			found_without |= g.pairs[i][0] == lo && g.pairs[i][1] == hi;
		if (!(with > 0.05 && without == 0.0 && found && !found_without))
			fail_msg("faint: score %.3f with present words, %.3f without; candidate %d, %d", with,
				 without, found, found_without);
	}
	ev_corpus_free(&c);
	nd_truth_free(t);
	nd_store_close(st);
	nd_xdb_close(db);
	free(two), free(one), free(filler), free(other), free(faint);
	tu_rmtree(fdir);
	free(fdir), free(fdb), free(fst), free(tsv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_toy),
		cmocka_unit_test(test_loaders),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_method_scores),
		cmocka_unit_test(test_hamming_join),
		cmocka_unit_test(test_average_linkage),
		cmocka_unit_test(test_few_bits),
		cmocka_unit_test(test_learned),
		cmocka_unit_test(test_weights_gradient),
	};
	return cmocka_run_group_tests_name("eval", tests, setup, teardown);
}
