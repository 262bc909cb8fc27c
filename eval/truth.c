/* Ground truth: labeled pairs or clusters, resolved to docids. */
#include "neardup/eval.h"
#include "common/nd_buf.h"
#include "common/nd_hash.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

typedef struct {
	nd_docid docid;
	char *id;
	char *cluster; /* clusters: its cluster's name while loading */
	uint32_t group;
} tdoc;

typedef struct {
	uint64_t ab; /* a << 32 | b, a < b (doc indexes) */
	int label;
} tpair;

struct nd_truth {
	nd_truth_kind kind;
	tdoc *docs;
	size_t ndocs, capdocs;
	char **unknown;
	size_t nunknown, capunknown;
	tpair *pairs;
	size_t npairs, cappairs;
	uint32_t ngroups;
	uint64_t positives, judged;
};

static int add_unknown(nd_truth *t, const char *id)
{
	for (size_t i = 0; i < t->nunknown; i++)
		if (!strcmp(t->unknown[i], id))
			return ND_OK;
	if (nd_array_reserve((void **)&t->unknown, &t->capunknown, t->nunknown + 1, sizeof(char *)) < 0 ||
	    !(t->unknown[t->nunknown] = strdup(id)))
		return nd_error_set(ND_ENOMEM, "out of memory");
	t->nunknown++;
	return ND_OK;
}

/* Resolve id; *docid 0 when db lacks it (listed as unknown). */
static int resolve(nd_truth *t, nd_xdb *db, const char *id, nd_docid *docid)
{
	int rc = nd_xdb_find_uid(db, id, docid);
	if (rc == ND_ENOTFOUND) {
		*docid = 0;
		return add_unknown(t, id);
	}
	return rc;
}

static int add_doc(nd_truth *t, nd_docid d, const char *id, const char *cluster)
{
	if (nd_array_reserve((void **)&t->docs, &t->capdocs, t->ndocs + 1, sizeof(tdoc)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory");
	tdoc *x = &t->docs[t->ndocs];
	x->docid = d;
	x->id = strdup(id);
	x->cluster = cluster ? strdup(cluster) : NULL;
	x->group = 0;
	if (!x->id || (cluster && !x->cluster)) {
		free(x->id);
		free(x->cluster);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	t->ndocs++;
	return ND_OK;
}

static int cmp_docid(const void *a, const void *b)
{
	nd_docid x = ((const tdoc *)a)->docid, y = ((const tdoc *)b)->docid;
	return x < y ? -1 : x > y;
}

static int cmp_cluster(const void *a, const void *b)
{
	return strcmp((*(const tdoc *const *)a)->cluster, (*(const tdoc *const *)b)->cluster);
}

static int cmp_pair(const void *a, const void *b)
{
	uint64_t x = ((const tpair *)a)->ab, y = ((const tpair *)b)->ab;
	return x < y ? -1 : x > y;
}

static size_t doc_index(const nd_truth *t, nd_docid d)
{
	size_t lo = 0, hi = t->ndocs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->docs[mid].docid < d)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Split a line into up to 4 fields on tabs, or on runs of spaces when it
 * has no tab.  Returns the field count. */
static int split_fields(char *line, char **f)
{
	int n = 0;
	size_t len = strlen(line);
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	const char *sep = strchr(line, '\t') ? "\t" : " ";
	char *p = line;
	while (*p && n < 4) {
		if (*sep == ' ')
			while (*p == ' ')
				p++;
		if (!*p)
			break;
		f[n++] = p;
		char *e = strstr(p, sep);
		if (!e)
			break;
		*e = '\0';
		p = e + 1;
	}
	return n;
}

static int is_word(const char *s, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (!strcasecmp(s, words[i]))
			return 1;
	return 0;
}

/* Clusters from docs' cluster names: group numbers in name order. */
static int finish_clusters(nd_truth *t, const char *path)
{
	tdoc **by = NULL;
	if (t->ndocs > 1) /* docs is NULL when no id is in the database */
		qsort(t->docs, t->ndocs, sizeof(tdoc), cmp_docid);
	/* One document listed twice must agree with itself.  The compaction
	 * runs to the end even after a conflict, so docs[0..ndocs) owns each
	 * string once when nd_truth_free cleans up. */
	size_t u = 0;
	int rc = ND_OK;
	for (size_t i = 0; i < t->ndocs; i++) {
		if (u && t->docs[u - 1].docid == t->docs[i].docid) {
			if (rc == ND_OK && strcmp(t->docs[u - 1].cluster, t->docs[i].cluster))
				rc = nd_error_set(ND_EPARSE, "%s: document '%s' is in two clusters, '%s' and '%s'",
						  path, t->docs[i].id, t->docs[u - 1].cluster, t->docs[i].cluster);
			free(t->docs[i].id);
			free(t->docs[i].cluster);
			continue;
		}
		t->docs[u++] = t->docs[i];
	}
	t->ndocs = u;
	if (rc < 0)
		return rc;
	if (t->ndocs && !(by = malloc(t->ndocs * sizeof(*by))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < t->ndocs; i++)
		by[i] = &t->docs[i];
	if (t->ndocs > 1)
		qsort(by, t->ndocs, sizeof(*by), cmp_cluster);
	uint64_t run = 0;
	t->ngroups = 0;
	for (size_t i = 0; i < t->ndocs; i++) {
		if (i && strcmp(by[i]->cluster, by[i - 1]->cluster)) {
			t->positives += run * (run - 1) / 2;
			run = 0;
			t->ngroups++;
		}
		by[i]->group = t->ngroups;
		run++;
	}
	if (t->ndocs) {
		t->positives += run * (run - 1) / 2;
		t->ngroups++;
	}
	t->judged = (uint64_t)t->ndocs * (t->ndocs ? t->ndocs - 1 : 0) / 2;
	free(by);
	return ND_OK;
}

/* Union-find root with path halving. */
static uint32_t root(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

/* Pairs: resolve raw docid pairs (stored in ab as docids) to doc indexes,
 * check conflicts, and number groups by positive-pair components. */
static int finish_pairs(nd_truth *t, const char *path)
{
	if (t->ndocs > 1) /* docs is NULL when no id is in the database */
		qsort(t->docs, t->ndocs, sizeof(tdoc), cmp_docid);
	size_t u = 0;
	for (size_t i = 0; i < t->ndocs; i++) {
		if (u && t->docs[u - 1].docid == t->docs[i].docid) {
			free(t->docs[i].id);
			continue;
		}
		t->docs[u++] = t->docs[i];
	}
	t->ndocs = u;
	for (size_t k = 0; k < t->npairs; k++) {
		uint64_t a = doc_index(t, (nd_docid)(t->pairs[k].ab >> 32));
		uint64_t b = doc_index(t, (nd_docid)(t->pairs[k].ab & 0xffffffffu));
		t->pairs[k].ab = a < b ? a << 32 | b : b << 32 | a;
	}
	if (t->npairs > 1)
		qsort(t->pairs, t->npairs, sizeof(tpair), cmp_pair);
	u = 0;
	for (size_t k = 0; k < t->npairs; k++) {
		if (u && t->pairs[u - 1].ab == t->pairs[k].ab) {
			if (t->pairs[u - 1].label != t->pairs[k].label) {
				uint64_t ab = t->pairs[k].ab;
				return nd_error_set(ND_EPARSE, "%s: pair '%s' '%s' is labeled both 1 and 0", path,
						    t->docs[ab >> 32].id, t->docs[ab & 0xffffffffu].id);
			}
			continue;
		}
		t->pairs[u++] = t->pairs[k];
	}
	t->npairs = u;
	uint32_t *parent = malloc((t->ndocs + 1) * sizeof(uint32_t));
	if (!parent)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < t->ndocs; i++)
		parent[i] = (uint32_t)i;
	for (size_t k = 0; k < t->npairs; k++) {
		t->judged++;
		if (!t->pairs[k].label)
			continue;
		t->positives++;
		uint32_t a = root(parent, (uint32_t)(t->pairs[k].ab >> 32));
		uint32_t b = root(parent, (uint32_t)(t->pairs[k].ab & 0xffffffffu));
		if (a != b)
			parent[a > b ? a : b] = a < b ? a : b;
	}
	/* Number components in order of their smallest doc index. */
	t->ngroups = 0;
	for (size_t i = 0; i < t->ndocs; i++) {
		uint32_t r = root(parent, (uint32_t)i);
		if (r == i)
			t->docs[i].group = t->ngroups++;
		else
			t->docs[i].group = t->docs[r].group;
	}
	free(parent);
	return ND_OK;
}

/* A truth file, under the guards every input has: a regular file (a FIFO
 * would block, /dev/zero never end), of lines no longer than
 * ND_TRUTH_MAX_LINE. */
static FILE *open_truth(const char *path, int *rc)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO: no wait for a writer */
	FILE *f;
	*rc = ND_OK;
	if (fd < 0) {
		*rc = nd_error_set(errno == ENOENT ? ND_ENOTFOUND : ND_EIO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		*rc = nd_error_set(ND_EINVAL, "%s: not a regular file (a truth file is read whole)", path);
		return NULL;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "r"))) {
		close(fd);
		*rc = nd_error_set(ND_EIO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	return f;
}

#define ND_TRUTH_MAX_LINE 65536

static int load_file(nd_truth *t, nd_xdb *db, const char *path, nd_truth_kind kind)
{
	FILE *f;
	char *line = NULL, *fld[4];
	size_t cap = 0, lineno = 0;
	ssize_t got;
	int rc = ND_OK, first = 1;
	static const char *const cluster_words[] = {"cluster", "group", "label", "class", NULL};

	if (!(f = open_truth(path, &rc)))
		return rc;
	while (rc == ND_OK && (got = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (got > ND_TRUTH_MAX_LINE) {
			rc = nd_error_set(ND_EPARSE, "%s:%zu: a line of %zd bytes (at most %d: ids and a label)",
					  path, lineno, got, ND_TRUTH_MAX_LINE);
			break;
		}
		int n = split_fields(line, fld);
		if (n == 0 || fld[0][0] == '#')
			continue;
		if (kind == ND_TRUTH_AUTO)
			kind = n >= 3 ? ND_TRUTH_PAIRS : ND_TRUTH_CLUSTERS;
		t->kind = kind;
		if (kind == ND_TRUTH_PAIRS) {
			if (n != 3 && !first) {
				rc = nd_error_set(ND_EPARSE, "%s:%zu: want 'id_a<TAB>id_b<TAB>label', got %d field%s",
						  path, lineno, n, n == 1 ? "" : "s");
				break;
			}
			int is_label = n == 3 && (!strcmp(fld[2], "0") || !strcmp(fld[2], "1"));
			if (!is_label) {
				if (first) { /* header */
					first = 0;
					continue;
				}
				rc = nd_error_set(ND_EPARSE, "%s:%zu: label must be 1 or 0, not '%s'", path,
						  lineno, fld[2]);
				break;
			}
			first = 0;
			nd_docid a, b;
			if ((rc = resolve(t, db, fld[0], &a)) < 0 || (rc = resolve(t, db, fld[1], &b)) < 0)
				break;
			if (!a || !b)
				continue;
			if (a == b) {
				rc = nd_error_set(ND_EPARSE, "%s:%zu: a pair of '%s' with itself", path, lineno, fld[0]);
				break;
			}
			if ((rc = add_doc(t, a, fld[0], NULL)) < 0 || (rc = add_doc(t, b, fld[1], NULL)) < 0)
				break;
			if (nd_array_reserve((void **)&t->pairs, &t->cappairs, t->npairs + 1, sizeof(tpair)) < 0) {
				rc = nd_error_set(ND_ENOMEM, "out of memory");
				break;
			}
			t->pairs[t->npairs++] = (tpair){(uint64_t)a << 32 | b, fld[2][0] == '1'};
		} else {
			if (n != 2) {
				rc = nd_error_set(ND_EPARSE, "%s:%zu: want 'id<TAB>cluster', got %d field%s", path,
						  lineno, n, n == 1 ? "" : "s");
				break;
			}
			if (first && is_word(fld[1], cluster_words)) {
				first = 0;
				continue;
			}
			first = 0;
			nd_docid d;
			if ((rc = resolve(t, db, fld[0], &d)) < 0)
				break;
			if (d && (rc = add_doc(t, d, fld[0], fld[1])) < 0)
				break;
		}
	}
	if (rc == ND_OK && ferror(f))
		rc = nd_error_set(ND_EIO, "%s: read error", path);
	free(line);
	fclose(f);
	if (rc == ND_OK && t->kind == ND_TRUTH_AUTO)
		rc = nd_error_set(ND_EPARSE, "%s: no labeled rows", path);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the entries of dir (no hidden ones); want_dir picks
 * directories or regular files. */
static int list_dir(const char *dir, int want_dir, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (!d)
		return nd_error_set(errno == ENOENT ? ND_ENOTFOUND : ND_EIO, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = malloc(strlen(dir) + strlen(e->d_name) + 2);
		struct stat st;
		if (!p)
			break;
		sprintf(p, "%s/%s", dir, e->d_name);
		int ok = stat(p, &st) == 0 && (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
		free(p);
		if (!ok)
			continue;
		if (nd_array_reserve((void **)out, &cap, *n + 1, sizeof(char *)) < 0 ||
		    !((*out)[*n] = strdup(e->d_name)))
			break;
		(*n)++;
	}
	closedir(d);
	if (e) {
		for (size_t i = 0; i < *n; i++)
			free((*out)[i]);
		free(*out);
		*out = NULL;
		*n = 0;
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	if (*n)
		if (*n > 1)
			qsort(*out, *n, sizeof(char *), cmp_str);
	return ND_OK;
}

static void free_list(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static int load_dir(nd_truth *t, nd_xdb *db, const char *path)
{
	char **clusters, **files;
	size_t nc, nf;
	int rc = list_dir(path, 1, &clusters, &nc);
	if (rc < 0)
		return rc;
	t->kind = ND_TRUTH_CLUSTERS;
	for (size_t c = 0; c < nc && rc == ND_OK; c++) {
		char *sub = malloc(strlen(path) + strlen(clusters[c]) + 2);
		if (!sub) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			break;
		}
		sprintf(sub, "%s/%s", path, clusters[c]);
		rc = list_dir(sub, 0, &files, &nf);
		free(sub);
		for (size_t i = 0; i < nf && rc == ND_OK; i++) {
			char *id = malloc(strlen(clusters[c]) + strlen(files[i]) + 2);
			nd_docid d;
			if (!id) {
				rc = nd_error_set(ND_ENOMEM, "out of memory");
				break;
			}
			sprintf(id, "%s/%s", clusters[c], files[i]);
			if ((rc = resolve(t, db, id, &d)) == ND_OK && d)
				rc = add_doc(t, d, id, clusters[c]);
			free(id);
		}
		free_list(files, nf);
	}
	free_list(clusters, nc);
	if (rc == ND_OK && !t->ndocs && !t->nunknown)
		rc = nd_error_set(ND_EPARSE, "%s: no cluster directories with files", path);
	return rc;
}

int nd_truth_load(nd_truth **out, nd_xdb *db, const char *path, nd_truth_kind kind)
{
	struct stat st;
	nd_truth *t;
	int rc;

	*out = NULL;
	if (stat(path, &st) < 0)
		return nd_error_set(errno == ENOENT ? ND_ENOTFOUND : ND_EIO, "%s: %s", path, strerror(errno));
	if (!(t = calloc(1, sizeof(*t))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	if (S_ISDIR(st.st_mode)) {
		if (kind == ND_TRUTH_PAIRS)
			rc = nd_error_set(ND_EINVAL, "%s: labeled pairs come in a file, not a directory", path);
		else
			rc = load_dir(t, db, path);
	} else
		rc = load_file(t, db, path, kind);
	if (rc == ND_OK)
		rc = t->kind == ND_TRUTH_PAIRS ? finish_pairs(t, path) : finish_clusters(t, path);
	if (rc < 0) {
		nd_truth_free(t);
		return rc;
	}
	for (size_t i = 0; i < t->ndocs; i++) {
		free(t->docs[i].cluster);
		t->docs[i].cluster = NULL;
	}
	*out = t;
	return ND_OK;
}

void nd_truth_free(nd_truth *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ndocs; i++) {
		free(t->docs[i].id);
		free(t->docs[i].cluster);
	}
	free(t->docs);
	free_list(t->unknown, t->nunknown);
	free(t->pairs);
	free(t);
}

nd_truth_kind nd_truth_kind_of(const nd_truth *t) { return t->kind; }
size_t nd_truth_ndocs(const nd_truth *t) { return t->ndocs; }
nd_docid nd_truth_docid(const nd_truth *t, size_t doc) { return t->docs[doc].docid; }
const char *nd_truth_id(const nd_truth *t, size_t doc) { return t->docs[doc].id; }
uint64_t nd_truth_positives(const nd_truth *t) { return t->positives; }
uint64_t nd_truth_judged(const nd_truth *t) { return t->judged; }
uint32_t nd_truth_group(const nd_truth *t, size_t doc) { return t->docs[doc].group; }
uint32_t nd_truth_ngroups(const nd_truth *t) { return t->ngroups; }
size_t nd_truth_npairs(const nd_truth *t) { return t->kind == ND_TRUTH_PAIRS ? t->npairs : 0; }

size_t nd_truth_unknown(const nd_truth *t, const char *const **ids)
{
	*ids = (const char *const *)t->unknown;
	return t->nunknown;
}

void nd_truth_pair(const nd_truth *t, size_t k, size_t *a, size_t *b, int *label)
{
	*a = (size_t)(t->pairs[k].ab >> 32);
	*b = (size_t)(t->pairs[k].ab & 0xffffffffu);
	*label = t->pairs[k].label;
}

int nd_truth_label(const nd_truth *t, size_t a, size_t b)
{
	if (a == b || a >= t->ndocs || b >= t->ndocs)
		return -1;
	if (t->kind == ND_TRUTH_CLUSTERS)
		return t->docs[a].group == t->docs[b].group;
	tpair key = {a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a, 0};
	const tpair *p = bsearch(&key, t->pairs, t->npairs, sizeof(tpair), cmp_pair);
	return p ? p->label : -1;
}

int nd_truth_split(const nd_truth *t, double test_share, uint64_t seed, uint8_t *side)
{
	if (test_share < 0 || test_share > 1)
		return nd_error_set(ND_EINVAL, "test share %g is not in [0, 1]", test_share);
	/* Exactly round(share * groups) groups on the test side, as Hajishirzi et al.
	 * halves the clusters: a seeded shuffle of the groups, first ones test.
	 * A per-group coin would leave the halves' sizes to chance too. */
	uint32_t g = t->ngroups, ntest = (uint32_t)(test_share * g + 0.5);
	uint32_t *order = malloc((g + 1) * sizeof(*order));
	uint8_t *test = calloc(g + 1, 1);
	if (!order || !test) {
		free(order);
		free(test);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	nd_rng rng = {nd_mix64(seed ^ 0x9e3779b97f4a7c15ULL)};
	for (uint32_t k = 0; k < g; k++)
		order[k] = k;
	for (uint32_t k = g; k > 1; k--) {
		uint32_t j = (uint32_t)nd_rng_below(&rng, k), x = order[k - 1];
		order[k - 1] = order[j];
		order[j] = x;
	}
	for (uint32_t k = 0; k < ntest; k++)
		test[order[k]] = 1;
	for (size_t i = 0; i < t->ndocs; i++)
		side[i] = test[t->docs[i].group];
	free(order);
	free(test);
	return ND_OK;
}
