#include "tests/test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int tu_slow(void)
{
	const char *s = getenv("ND_SLOW");
	return s && s[0] == '1';
}

char *tu_tmpdir(void)
{
	char tmpl[] = "/tmp/neardup-test-XXXXXX";
	char *d = mkdtemp(tmpl);
	assert_non_null(d);
	return strdup(d);
}

void tu_rmtree(const char *path)
{
	char cmd[4200];
	if (!path || strncmp(path, "/tmp/neardup-test-", 18))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
}

char *tu_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

void tu_write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

uint64_t tu_rand(uint64_t *s)
{
	uint64_t x = (*s += 0x9e3779b97f4a7c15ULL);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static size_t zipf_word(uint64_t *rng, size_t vocab)
{
	/* Inverse of a continuous 1/x law: word ranks spread over vocab. */
	double u = (tu_rand(rng) >> 11) * (1.0 / 9007199254740992.0);
	size_t w = (size_t)(exp(u * log((double)vocab + 1)) - 1);
	return w < vocab ? w : vocab - 1;
}

/* Word k of the fixtures' vocabulary: "w" and k's four decimal digits
 * spelled as letters (0 -> a ... 9 -> j), then "a": six letters and no
 * digit, so no fixture word is a value to the verdict (ND_WORD_DIGIT). */
static void vocab_word(char out[7], size_t k)
{
	out[0] = 'w';
	for (int i = 4; i >= 1; i--, k /= 10)
		out[i] = (char)('a' + k % 10);
	out[5] = 'a';
	out[6] = '\0';
}

char *tu_random_doc(uint64_t *rng, size_t n, size_t vocab)
{
	char *doc = malloc(n * 8 + 1), *p = doc, w[7];
	for (size_t i = 0; i < n; i++) {
		vocab_word(w, zipf_word(rng, vocab));
		p += sprintf(p, "%s%s", i ? " " : "", w);
	}
	*p = '\0';
	return doc;
}

char *tu_edit_doc(uint64_t *rng, const char *doc, size_t edits, size_t vocab)
{
	char *out = strdup(doc);
	size_t nwords = (strlen(out) + 1) / 7;
	for (size_t e = 0; e < edits; e++) {
		size_t at = tu_rand(rng) % nwords;
		char word[7];
		vocab_word(word, (size_t)(tu_rand(rng) % (vocab < 10000 ? vocab : 10000)));
		memcpy(out + at * 7, word, 6);
	}
	return out;
}

void tu_handmade_set(const char *dbpath, const char *storepath, const char *const *ids,
		     char *const *texts, size_t n, uint32_t nwords, nd_xdb **db, nd_store **st,
		     nd_descriptor **d)
{
	nd_indexer *ix;
	char names[32][12];
	const char *words[32];
	double th[32];
	assert_true(nwords <= 32);
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(nd_indexer_add_text(ix, ids[i], texts[i], strlen(texts[i]), NULL, NULL), ND_OK);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	for (uint32_t w = 0; w < nwords; w++) {
		snprintf(names[w], sizeof(names[w]), "s%u", w + 1);
		words[w] = names[w];
		th[w] = 0.005;
	}
	assert_int_equal(nd_xdb_open(db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_descriptor_from_words(d, words, th, nwords, 0), ND_OK);
	assert_int_equal(nd_store_open(st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_descriptor_save(*d, *st, *db, NULL), ND_OK);
	assert_int_equal(nd_sign_all(*st, *db, NULL, NULL), ND_OK);
}

void tu_build(nd_xdb *db, const char *storepath, uint32_t words, nd_store **st)
{
	nd_descriptor *d;
	nd_build_options o = ND_BUILD_OPTIONS_INIT;
	o.words = words;
	assert_int_equal(nd_descriptor_build(&d, db, &o, NULL), ND_OK);
	assert_int_equal(nd_store_open(st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_descriptor_save(d, *st, db, &o), ND_OK);
	nd_descriptor_free(d);
}

void tu_build_and_sign(nd_xdb *db, const char *storepath, uint32_t words, nd_store **st)
{
	nd_store *s;
	tu_build(db, storepath, words, &s);
	assert_int_equal(nd_sign_all(s, db, NULL, NULL), ND_OK);
	if (st)
		*st = s;
	else
		nd_store_close(s);
}

void tu_dense_upgma(size_t n, const double *s, double floor, double *lv)
{
	size_t *cl = malloc(n * sizeof(*cl));
	for (size_t i = 0; i < n; i++)
		cl[i] = i;
	for (size_t i = 0; i < n * n; i++)
		lv[i] = -1;
	for (;;) {
		double best = 0;
		size_t ba = n, bb = n;
		for (size_t x = 0; x < n; x++)
			for (size_t y = x + 1; y < n; y++) {
				double sum = 0;
				size_t nx = 0, ny = 0;
				if (cl[x] != x || cl[y] != y)
					continue;
				for (size_t i = 0; i < n; i++) {
					nx += cl[i] == x;
					ny += cl[i] == y;
					for (size_t j = 0; j < n; j++)
						if (cl[i] == x && cl[j] == y)
							sum += s[i < j ? i * n + j : j * n + i];
				}
				if (sum / (double)(nx * ny) > best) {
					best = sum / (double)(nx * ny);
					ba = x;
					bb = y;
				}
			}
		if (ba == n || best < floor)
			break;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++)
				if (cl[i] == ba && cl[j] == bb)
					lv[i < j ? i * n + j : j * n + i] = best;
		for (size_t i = 0; i < n; i++)
			if (cl[i] == bb)
				cl[i] = ba;
	}
	free(cl);
}

char *tu_copy_doc(uint64_t seed, uint64_t edit_seed, size_t n, size_t edits, size_t vocab)
{
	char *doc = tu_random_doc(&seed, n, vocab);
	if (!edits)
		return doc;
	char *e = tu_edit_doc(&edit_seed, doc, edits, vocab);
	free(doc);
	return e;
}

uint64_t tu_records_elsewhere(const char *path, uint64_t unit)
{
	pid_t pid = fork();
	int status;
	assert_true(pid >= 0);
	if (pid == 0) {
		nd_store *st;
		nd_store_txn *txn;
		uint64_t docs;
		if (nd_store_open(&st, path, ND_STORE_READ) || nd_store_read_begin(st, &txn) ||
		    nd_store_counts(txn, &docs, NULL) || docs % unit || docs / unit > 254)
			_exit(255);
		_exit((int)(docs / unit));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 255);
	return (uint64_t)WEXITSTATUS(status) * unit;
}

uint64_t tu_records(nd_store *st)
{
	nd_store_txn *txn;
	uint64_t n;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_counts(txn, &n, NULL), ND_OK);
	nd_store_txn_end(txn);
	return n;
}
