/* Word sequences for verification: the stored slot, or the positional index. */
#include "neardup/words.h"
#include "neardup/similarity.h"
#include "neardup/tokenizer.h"
#include "common/nd_buf.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	uint32_t pos, id;
} pos_id;

typedef struct {
	nd_xdb *db;
	nd_docid docid;
	pos_id *v;
	size_t n, cap;
	int rc;
} rebuild_ctx;

static int on_term(const char *term, size_t len, uint32_t wdf, void *vctx)
{
	rebuild_ctx *c = vctx;
	uint32_t *pos;
	size_t np;
	(void)wdf;
	if (term[0] >= 'A' && term[0] <= 'Z')
		return 0;
	char *t = strndup(term, len);
	if (!t) {
		c->rc = nd_error_set(ND_ENOMEM, "out of memory");
		return 1;
	}
	c->rc = nd_xdb_positions(c->db, c->docid, t, &pos, &np);
	free(t);
	if (c->rc < 0)
		return 1;
	void *p = c->v;
	if ((c->rc = nd_array_reserve(&p, &c->cap, c->n + np, sizeof(pos_id))) < 0) {
		free(pos);
		return 1;
	}
	c->v = p;
	uint32_t id = nd_word_id(term, len);
	for (size_t i = 0; i < np; i++)
		c->v[c->n++] = (pos_id){pos[i], id};
	free(pos);
	return 0;
}

static int cmp_pos(const void *a, const void *b)
{
	uint32_t x = ((const pos_id *)a)->pos, y = ((const pos_id *)b)->pos;
	return x < y ? -1 : x > y;
}

/* The text in omega-style document data: the "sample=" field, or all of
 * it when the data is not name=value lines.  Points into data. */
static const char *data_text(const char *data, size_t len, size_t *tlen)
{
	const char *p = data, *end = data + len;
	int fields = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *eq = memchr(p, '=', (size_t)(le - p));
		if (eq) {
			fields++;
			if (eq - p == 6 && !memcmp(p, "sample", 6)) {
				*tlen = (size_t)(le - eq - 1);
				return eq + 1;
			}
		}
		p = nl ? nl + 1 : end;
	}
	*tlen = fields ? 0 : len;
	return data;
}

static int words_from_data(nd_xdb *db, nd_docid docid, uint32_t **out, size_t *n)
{
	char *data = NULL;
	size_t len, tlen, nt;
	nd_tokenizer *tk = NULL;
	const nd_token *t;
	int rc;
	if ((rc = nd_xdb_doc_data(db, docid, &data, &len)) < 0)
		return rc;
	const char *text = data_text(data, len, &tlen);
	if (tlen && (rc = nd_tokenizer_new(&tk)) == ND_OK &&
	    (rc = nd_tokenize(tk, text, tlen, 0, &t, &nt, NULL)) == ND_OK && nt) {
		if (!(*out = malloc(nt * sizeof(uint32_t))))
			rc = nd_error_set(ND_ENOMEM, "out of memory");
		else {
			nd_word_ids(t, nt, *out);
			*n = nt;
		}
	}
	nd_tokenizer_free(tk);
	free(data);
	return rc;
}

int nd_words_get(nd_xdb *db, nd_docid docid, uint32_t **out, size_t *n, nd_words_source *source)
{
	char *val = NULL;
	size_t len;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = nd_xdb_doc_value(db, docid, ND_SLOT_WORDS, &val, &len)) < 0)
		return rc;
	if (len) {
		if (len % 4) {
			free(val);
			return nd_error_set(ND_ECORRUPT, "%s: document %u: word sequence of %zu bytes",
					    nd_xdb_path(db), docid, len);
		}
		/* The value buffer is ours and suitably aligned by malloc. */
		*out = (uint32_t *)(void *)val;
		*n = len / 4;
		if (source)
			*source = ND_WORDS_STORED;
		return ND_OK;
	}
	free(val);

	rebuild_ctx c = {db, docid, NULL, 0, 0, ND_OK};
	if ((rc = nd_xdb_termlist(db, docid, on_term, &c)) < 0 || (rc = c.rc) < 0) {
		free(c.v);
		return rc;
	}
	if (c.n == 0) {
		free(c.v);
		if ((rc = words_from_data(db, docid, out, n)) < 0)
			return rc;
		if (*n) {
			if (source)
				*source = ND_WORDS_DATA;
			return ND_OK;
		}
		return nd_error_set(ND_ENOTFOUND, "%s: document %u has no stored word sequence, "
				    "no positions to rebuild one from, and no text in its data",
				    nd_xdb_path(db), docid);
	}
	qsort(c.v, c.n, sizeof(pos_id), cmp_pos);
	uint32_t *ids = malloc(c.n * sizeof(uint32_t));
	if (!ids) {
		free(c.v);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < c.n; i++)
		ids[i] = c.v[i].id;
	free(c.v);
	*out = ids;
	*n = c.n;
	if (source)
		*source = ND_WORDS_POSITIONS;
	return ND_OK;
}
