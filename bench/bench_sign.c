/* Benchmark: signing from the index vs Broder shingle sketches, on the
 * same documents in one run.
 *
 *   bench_sign [--docs N] [--words N] [--doclen N] [--jsonl FILE]
 *
 * Without --jsonl, N synthetic documents (Zipf-distributed words, lengths
 * doclen/2..3*doclen/2, seeded) are indexed into a temporary database;
 * with --jsonl, the file's records are.  Then the descriptive set is
 * chosen, every document is signed from the postlists (the timed part),
 * and the same documents' texts are tokenized and shingled (10-word
 * shingles, 64-bit fingerprints, modulus 16). Prints documents/s for each,
 * the ratio, and peak memory. */
#include "neardup/descriptor.h"
#include "neardup/indexer.h"
#include "neardup/shingle.h"
#include "neardup/tokenizer.h"

#include <jansson.h>
#include <math.h>
#include "bench/bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>


/* Document i of the synthetic corpus; the same i gives the same text. */
static size_t synth_doc(char *buf, uint64_t i, size_t doclen)
{
	uint64_t s = i * 0x2545f4914f6cdd1dULL + 17;
	size_t n = doclen / 2 + bench_rand(&s) % (doclen + 1), len = 0;
	static const double V = 50000;
	for (size_t k = 0; k < n; k++) {
		double u = (bench_rand(&s) >> 11) * (1.0 / 9007199254740992.0);
		unsigned w = (unsigned)(exp(u * log(V + 1)) - 1);
		len += (size_t)sprintf(buf + len, "%sq%ux", k ? " " : "", w);
	}
	return len;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_sign: %s: %s\n  %s\n", what, nd_strerror(rc), nd_error_last());
	exit(1);
}

typedef struct {
	char **text;
	size_t *len;
	size_t n, cap;
} texts;

static void add_text(texts *t, const char *s, size_t len)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->text = realloc(t->text, t->cap * sizeof(char *));
		t->len = realloc(t->len, t->cap * sizeof(size_t));
	}
	t->text[t->n] = malloc(len + 1);
	memcpy(t->text[t->n], s, len);
	t->text[t->n][len] = '\0';
	t->len[t->n++] = len;
}

int main(int argc, char **argv)
{
	size_t docs = 200000, doclen = 300;
	uint32_t words = 2000;
	const char *jsonl = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--docs") && i + 1 < argc)
			docs = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--words") && i + 1 < argc)
			words = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--doclen") && i + 1 < argc)
			doclen = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--jsonl") && i + 1 < argc)
			jsonl = argv[++i];
		else {
			fprintf(stderr, "usage: bench_sign [--docs N] [--words N] [--doclen N] [--jsonl FILE]\n");
			return 2;
		}
	}
	char tmpl[] = "/tmp/neardup-bench-XXXXXX";
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	char dbpath[512], storepath[512];
	snprintf(dbpath, sizeof(dbpath), "%s/db", tmpl);
	snprintf(storepath, sizeof(storepath), "%s/store", tmpl);

	/* Corpus: texts kept in memory for the shingle side. */
	texts t = {0};
	if (jsonl) {
		FILE *f = fopen(jsonl, "r");
		char *line = NULL;
		size_t cap = 0;
		if (!f) {
			perror(jsonl);
			return 1;
		}
		while (getline(&line, &cap, f) > 0) {
			json_t *o = json_loads(line, 0, NULL);
			json_t *tx = o ? json_object_get(o, "text") : NULL;
			if (json_is_string(tx))
				add_text(&t, json_string_value(tx), json_string_length(tx));
			json_decref(o);
		}
		free(line);
		fclose(f);
	} else {
		char *buf = malloc(doclen * 3 * 10 + 64);
		for (size_t i = 0; i < docs; i++)
			add_text(&t, buf, synth_doc(buf, i, doclen));
		free(buf);
	}
	nd_indexer *ix;
	int rc;
	double t0 = bench_cpu_now();
	if ((rc = nd_indexer_open(&ix, dbpath, NULL)) < 0)
		die(dbpath, rc);
	for (size_t i = 0; i < t.n; i++) {
		char id[32];
		snprintf(id, sizeof(id), "%zu", i);
		if ((rc = nd_indexer_add_text(ix, id, t.text[i], t.len[i], NULL, NULL)) < 0)
			die("index", rc);
	}
	uint64_t nwords = nd_indexer_stats(ix)->words;
	if ((rc = nd_indexer_close(ix)) < 0)
		die("commit", rc);
	double t_index = bench_cpu_now() - t0;

	nd_xdb *db;
	nd_store *st;
	nd_descriptor *d;
	nd_build_options bo = ND_BUILD_OPTIONS_INIT;
	nd_build_report br;
	bo.words = words;
	if ((rc = nd_xdb_open(&db, dbpath, ND_XDB_READ)) < 0)
		die(dbpath, rc);
	if ((rc = nd_descriptor_build(&d, db, &bo, &br)) < 0)
		die("build", rc);
	if ((rc = nd_store_open(&st, storepath, ND_STORE_WRITE)) < 0 ||
	    (rc = nd_descriptor_save(d, st, db, &bo)) < 0)
		die(storepath, rc);

	/* Signing from postlists; the store write is included. */
	nd_sign_report sr;
	t0 = bench_cpu_now();
	if ((rc = nd_sign_all(st, db, NULL, &sr)) < 0)
		die("sign", rc);
	double t_sign = bench_cpu_now() - t0;

	/* Shingling the same texts: tokenize + 10-word shingles mod 16. */
	nd_tokenizer *tk;
	nd_tokenizer_new(&tk);
	double t_tok = 0, t_sh = 0;
	uint64_t kept = 0;
	for (size_t i = 0; i < t.n; i++) {
		const nd_token *toks;
		size_t n, nfp;
		uint64_t *fp;
		double a = bench_cpu_now();
		nd_tokenize(tk, t.text[i], t.len[i], 0, &toks, &n, NULL);
		double b = bench_cpu_now();
		nd_shingles(toks, n, 10, 16, &fp, &nfp);
		t_sh += bench_cpu_now() - b;
		t_tok += b - a;
		kept += nfp;
		free(fp);
	}
	nd_tokenizer_free(tk);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);

	double n = (double)t.n;
	printf("corpus: %zu documents, %.0f words/doc (%s); indexed in %.1f s CPU\n", t.n,
	       nwords / n, jsonl ? jsonl : "synthetic", t_index);
	printf("descriptive set: %u words, coverage %.1f%%, chosen in %.2f s\n",
	       nd_descriptor_size(d), 100 * br.coverage, br.seconds);
	printf("%-44s %10s %14s\n", "method (CPU, one core)", "seconds", "documents/s");
	printf("%-44s %10.3f %14.0f\n", "sign from postlists (incl. LMDB writes)", t_sign, n / t_sign);
	printf("%-44s %10.3f %14.0f\n", "shingle sketches from tokens (w=10, mod 16)", t_sh, n / t_sh);
	printf("%-44s %10.3f %14.0f\n", "shingle sketches incl. ICU tokenizing", t_sh + t_tok,
	       n / (t_sh + t_tok));
	printf("ratio: signing is %.1fx faster than shingling from tokens, %.1fx incl. tokenizing\n",
	       t_sh / t_sign, (t_sh + t_tok) / t_sign);
	printf("postings read %llu (%.1fM/s); %llu keyed, %llu unkeyed; %.1f fingerprints/doc kept\n",
	       (unsigned long long)sr.postings, sr.postings / t_sign / 1e6,
	       (unsigned long long)sr.keyed, (unsigned long long)sr.unkeyed, kept / n);
	printf("peak RSS %.0f MiB (texts held in memory for the shingle side)\n", ru.ru_maxrss / 1024.0);

	for (size_t i = 0; i < t.n; i++)
		free(t.text[i]);
	free(t.text);
	free(t.len);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(db);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_sign: could not remove %s\n", tmpl);
	return 0;
}
