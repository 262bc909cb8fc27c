/* A crawler's loop with the neardup library, as the README shows it:
 * check each fetched page before indexing, index it, commit, then tell
 * neardup through the hook.  Pages are text files here; a crawler has
 * them in memory.
 *
 *   crawl-example DB STORE FILE...
 *
 * DB must have been built by `neardup index`, with a store from
 * `neardup build` + `neardup sign`.
 *
 * Why the hook comes after the commit: a hook records what the database
 * holds.  Run before the commit, a crash would leave records of documents
 * the database never kept (their docids handed out again later).  Run
 * after it, a crash leaves committed documents the store has not seen
 * yet, which nd_hook_update finds; so the loop begins with one. */
#include "neardup/check.h"
#include "neardup/collapse.h"
#include "neardup/hook.h"
#include "neardup/indexer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = '\0';
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int fail(const char *what, int rc)
{
	fprintf(stderr, "crawl-example: %s: %s\n", what, nd_error_last()[0] ? nd_error_last() : nd_strerror(rc));
	return 1;
}

/* Pages indexed between commits: a commit (an fsync) per page would cost
 * more than everything else here. */
#define BATCH 64

int main(int argc, char **argv)
{
	nd_indexer *ix;
	nd_store *st;
	nd_descriptor *d;
	nd_tokenizer *tk;
	nd_hook *h;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	nd_docid batch[BATCH];
	const char *names[BATCH];
	size_t nb = 0;
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: crawl-example DB STORE FILE...\n");
		return 2;
	}
	/* One writable database handle, shared by the indexer and the hook. */
	if ((rc = nd_indexer_open(&ix, argv[1], NULL)) < 0)
		return fail(argv[1], rc);
	nd_xdb *db = nd_indexer_db(ix);
	if ((rc = nd_store_open(&st, argv[2], ND_STORE_WRITE)) < 0 ||
	    (rc = nd_descriptor_load(&d, st, db)) < 0)
		return fail(argv[2], rc);
	/* The hooks' store writes commit once a batch, as the index does. */
	ho.group_commit = 1;
	if ((rc = nd_hook_open(&h, db, st, &ho)) < 0)
		return fail(argv[2], rc);
	if ((rc = nd_tokenizer_new(&tk)) < 0)
		return fail("tokenizer", rc);
	/* 0. Catch up with what a crash between a commit and its hooks left. */
	if ((rc = nd_hook_update(h, NULL, NULL, NULL)) < 0)
		return fail(argv[2], rc);

	for (int i = 3; i < argc; i++) {
		size_t len;
		char *text = slurp(argv[i], &len);
		if (!text) {
			fprintf(stderr, "crawl-example: %s: cannot read\n", argv[i]);
			continue;
		}
		/* 1. Before indexing: would this page duplicate one we have? */
		nd_check_result cr = ND_CHECK_RESULT_INIT;
		if ((rc = nd_check_text(tk, d, db, st, text, len, NULL, ND_CHECK_COMPARE, &cr)) < 0)
			return fail(argv[i], rc);
		printf("%s: check: %zu verified duplicate(s) already indexed\n", argv[i], cr.duplicates);
		nd_check_result_clear(&cr);

		/* 2. Index it (a crawler could skip duplicates here instead). */
		if ((rc = nd_indexer_add_text(ix, argv[i], text, len, NULL, NULL)) < 0)
			return fail(argv[i], rc);
		free(text);
		nd_docid docid = nd_indexer_last_docid(ix);
		if (docid) { /* 0: skipped, no words */
			batch[nb] = docid;
			names[nb++] = argv[i];
		}
		if (nb < BATCH && i + 1 < argc)
			continue;

		/* 3. Commit, then the hooks: sign each page, join its cluster,
		 * get its duplicates. */
		if ((rc = nd_indexer_commit(ix)) < 0)
			return fail(argv[1], rc);
		for (size_t k = 0; k < nb; k++) {
			nd_hook_result hr = ND_HOOK_RESULT_INIT;
			if ((rc = nd_hook_changed(h, batch[k], &hr)) < 0)
				return fail(names[k], rc);
			printf("%s: docid %u %s, %zu duplicate(s):", names[k], batch[k], nd_change_name(hr.change),
			       hr.nduplicates);
			for (size_t m = 0; m < hr.nduplicates; m++)
				printf(" %u", hr.duplicates[m].docid);
			/* The cluster it is in: the hook compared a window's worth. */
			nd_docid id, *members;
			size_t size, nmembers;
			if ((rc = nd_collapse_cluster(db, st, NULL, batch[k], 0, &id, &size, &members, &nmembers)) < 0)
				return fail(names[k], rc);
			if (size > 1)
				printf(", in cluster %u of %zu documents", id, size);
			free(members); /* none with max 0, but the call's to free */
			putchar('\n');
			nd_hook_result_clear(&hr);
		}
		nb = 0;
		/* A store that keeps collapse ids wrote them into the database;
		 * then the store's own commit. */
		if ((rc = nd_indexer_commit(ix)) < 0)
			return fail(argv[1], rc);
		if ((rc = nd_hook_commit(h)) < 0)
			return fail(argv[2], rc);
	}
	nd_hook_free(h);
	nd_tokenizer_free(tk);
	nd_descriptor_free(d);
	nd_store_close(st);
	return nd_indexer_close(ix) < 0 ? fail(argv[1], ND_EIO) : 0;
}
