/* Fuzz target: the ground-truth readers (labeled pairs and clusters TSV).
 * Each input is written to a file and read as pairs, as clusters and by
 * auto-detection against a small database made once per process.  A read
 * either fails with ND_EPARSE (or ND_ETOOBIG) or gives a truth whose
 * documents, labels, groups and split agree with each other. */
#include "neardup/eval.h"
#include "neardup/indexer.h"
#include "neardup/xdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];
static nd_xdb *db;

static void cleanup(void)
{
	char cmd[128];
	nd_xdb_close(db);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_truth: could not remove %s\n", dir);
}

static void make_db(void)
{
	static const char *ids[] = {"a", "b", "c", "d/e", "d/f", "x y", "1", "2"};
	char path[96];
	nd_indexer *ix;
	snprintf(dir, sizeof(dir), "/tmp/nd-fuzz-truth-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/db", dir);
	if (nd_indexer_open(&ix, path, NULL) != ND_OK)
		abort();
	for (size_t i = 0; i < sizeof(ids) / sizeof(*ids); i++)
		if (nd_indexer_add_text(ix, ids[i], "some words here", 15, NULL, NULL) != ND_OK)
			abort();
	if (nd_indexer_close(ix) != ND_OK || nd_xdb_open(&db, path, ND_XDB_READ) != ND_OK)
		abort();
	atexit(cleanup);
}

static void check(const nd_truth *t)
{
	size_t n = nd_truth_ndocs(t);
	uint32_t groups = nd_truth_ngroups(t);
	uint64_t pos = 0;
	uint8_t side[16];
	if (n > 8 || nd_truth_positives(t) > nd_truth_judged(t))
		abort();
	for (size_t a = 0; a < n; a++) {
		if (nd_truth_group(t, a) >= groups || !nd_truth_id(t, a) || nd_truth_docid(t, a) == 0)
			abort();
		if (a && nd_truth_docid(t, a) <= nd_truth_docid(t, a - 1))
			abort();
		for (size_t b = a + 1; b < n; b++) {
			int l = nd_truth_label(t, a, b);
			if (l != nd_truth_label(t, b, a) || l < -1 || l > 1)
				abort();
			if (l == 1) {
				pos++;
				if (nd_truth_group(t, a) != nd_truth_group(t, b))
					abort(); /* a positive pair spans two groups */
			}
		}
	}
	if (pos != nd_truth_positives(t))
		abort();
	if (n && nd_truth_split(t, 0.5, 7, side) == ND_OK)
		for (size_t a = 0; a < n; a++)
			for (size_t b = 0; b < n; b++)
				if (nd_truth_group(t, a) == nd_truth_group(t, b) && side[a] != side[b])
					abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char path[96];
	FILE *f;
	if (!db)
		make_db();
	snprintf(path, sizeof(path), "%s/truth.tsv", dir);
	if (!(f = fopen(path, "wb")) || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	for (int kind = ND_TRUTH_AUTO; kind <= ND_TRUTH_CLUSTERS; kind++) {
		nd_truth *t = NULL;
		int rc = nd_truth_load(&t, db, path, (nd_truth_kind)kind);
		if (rc == ND_OK) {
			check(t);
			nd_truth_free(t);
		} else if (rc != ND_EPARSE && rc != ND_ETOOBIG) {
			fprintf(stderr, "fuzz_truth: unexpected %s\n", nd_strerror(rc));
			abort();
		} else if (t) {
			abort(); /* a failed load leaves nothing behind */
		}
	}
	return 0;
}
