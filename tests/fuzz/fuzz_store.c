/* Fuzz target: whole store files.  The input is written as a store's
 * data.mdb; opening it must either refuse it (ND_ECORRUPT, ND_EVERSION,
 * ND_ESTATE...) or give a store that every reader walks without crashing,
 * and that a writer can change and read back.  The seeds are small real
 * stores (tests/fuzz/corpora/store), so mutations reach the B-trees. */
#include "neardup/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64], file[96];

static int each_doc(uint32_t docid, uint64_t key, const void *payload, size_t len, void *ctx)
{
	size_t *sum = ctx;
	(void)key;
	*sum += docid + len + (len ? ((const unsigned char *)payload)[len - 1] : 0);
	return 0;
}

/* Everything a reader of the store reads. */
static void read_all(nd_store *st)
{
	nd_store_txn *txn;
	nd_store_keys *it;
	uint64_t key, docs, keys, gen;
	size_t count, sum = 0;
	if (nd_store_read_begin(st, &txn) < 0)
		return;
	nd_store_docs_each(txn, each_doc, &sum);
	nd_store_counts(txn, &docs, &keys);
	nd_store_records_gen(txn, &gen);
	if (nd_store_keys_open(txn, &it) == ND_OK) {
		while (nd_store_keys_next(it, &key, &count) == 1) {
			uint32_t *m;
			size_t n;
			if (nd_store_key_docs(txn, key, &m, &n) == ND_OK)
				free(m);
		}
		nd_store_keys_free(it);
	}
	for (uint16_t bit = 0; bit < 64; bit++) {
		uint32_t *m;
		size_t n;
		if (nd_store_bit_docs(txn, bit, &m, &n) == ND_OK)
			free(m);
	}
	const void *v;
	size_t len;
	nd_store_meta_get(txn, "set.words", &v, &len);
	nd_store_cluster_cache_get(txn, 1, &v, &len);
	nd_store_doc_cache_get(txn, 1, &v, &len);
	nd_store_txn_end(txn);
}

typedef struct {
	uint32_t docid;
} put_ctx;

static int put_one(nd_store_txn *txn, void *vctx)
{
	put_ctx *c = vctx;
	unsigned char rec[2 + 4 * 2 + 8] = {4, 0, 1, 0, 2, 0, 3, 0, 4, 0};
	int rc = nd_store_doc_put(txn, c->docid, 0x1234 + c->docid, rec, sizeof(rec));
	if (rc == ND_OK)
		rc = nd_store_doc_del(txn, c->docid + 1);
	return rc == ND_ENOTFOUND ? ND_OK : rc;
}

/* The scratch store goes with the process: a replay in `make test` or a
 * fuzzing run leaves nothing in /tmp. */
static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[sizeof(dir) + 300];
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	nd_store *st;
	if (!*dir) {
		snprintf(dir, sizeof(dir), "/tmp/nd-fuzz-store-%ld", (long)getpid());
		snprintf(file, sizeof(file), "%s/data.mdb", dir);
		if (mkdir(dir, 0700) < 0 && access(dir, W_OK) < 0)
			abort();
		atexit(remove_dir);
	}
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	if (nd_store_open(&st, dir, ND_STORE_READ) == ND_OK) {
		read_all(st);
		nd_store_close(st);
	}
	if (nd_store_open(&st, dir, ND_STORE_WRITE) == ND_OK) {
		put_ctx c = {size % 1000 + 1};
		nd_store_write(st, put_one, &c);
		read_all(st);
		nd_store_close(st);
	}
	return 0;
}
