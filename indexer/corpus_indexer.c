#include "neardup/indexer.h"
#include "neardup/tokenizer.h"
#include "neardup/words.h"
#include "common/nd_hash.h"
#include "common/nd_buf.h"
#include "indexer/html_text.h"
#include "indexer/input.h"

#include <dirent.h>
#include <stdarg.h>
#include <strings.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct nd_indexer {
	nd_xdb *db;
	nd_tokenizer *tk;
	nd_index_options opts;
	nd_index_stats st;
	size_t pending;
	nd_docid last;   /* docid of the last document indexed, 0 if skipped */
	nd_docid first;  /* docids above this were added by this indexer */
	uint8_t *seen;   /* bit per docid <= first: replaced by this indexer */
	int from_paths;  /* inputs came through add_path: an id twice is an input error */
	nd_buf data;     /* document data being built */
	nd_buf scratch;  /* decoded text */
	nd_buf title;
	nd_buf words;    /* word ids of the document being built */
	nd_buf full;     /* an HTML page's whole visible text (ND_CONTENT_MAIN) */
	nd_buf fullwords;
	nd_buf url;      /* a file's: opts.url_base and its id */
	nd_buf page_url; /* an HTML page's own, when it gives one */
	nd_buf site;     /* a file's directory named like a host, as a URL */
	nd_buf link_site; /* the host most of an HTML page's links go to */
};

/* Xapian terms are at most 245 bytes. */
#define ND_UID_MAX 240

static uint64_t fnv1a64(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

char *nd_uid_term(const char *id)
{
	size_t n = strlen(id);
	char *t = malloc(n < ND_UID_MAX ? n + 2 : ND_UID_MAX + 2);
	if (!t)
		return NULL;
	if (n < ND_UID_MAX) {
		t[0] = 'Q';
		memcpy(t + 1, id, n + 1);
	} else {
		/* Long ids keep a readable head and a hash of the whole. */
		snprintf(t, ND_UID_MAX + 2, "Q%.*s#%016llx", ND_UID_MAX - 18, id,
			 (unsigned long long)fnv1a64(id, n));
	}
	return t;
}

static void warnf(nd_indexer *ix, const char *fmt, ...) ND_PRINTF(2, 3);
static void warnf(nd_indexer *ix, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;
	if (!ix->opts.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ix->opts.warn(msg, ix->opts.ctx);
}

int nd_indexer_open(nd_indexer **out, const char *path, const nd_index_options *opts)
{
	nd_indexer *ix;
	int rc;
	nd_index_options defaults = ND_INDEX_OPTIONS_INIT;

	*out = NULL;
	if (!(ix = calloc(1, sizeof(*ix))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	ix->opts = opts ? *opts : defaults;
	if (ix->opts.url_base && !(ix->opts.url_base = strdup(ix->opts.url_base))) {
		free(ix);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	if (!ix->opts.batch_docs)
		ix->opts.batch_docs = defaults.batch_docs;
	if ((rc = nd_xdb_open(&ix->db, path, ND_XDB_WRITE)) < 0 ||
	    (rc = nd_xdb_lastdocid(ix->db, &ix->first)) < 0 ||
	    (rc = nd_tokenizer_new(&ix->tk)) < 0) {
		nd_xdb_close(ix->db);
		free((char *)ix->opts.url_base);
		free(ix);
		return rc;
	}
	*out = ix;
	return ND_OK;
}

/* Has this indexer written docid d before (and note that it has now)?
 * Docids past `first` are ours; older ones are remembered in a bitmap of
 * first/8 bytes, allocated when the first old document is replaced. */
static int seen_twice(nd_indexer *ix, nd_docid d)
{
	if (d > ix->first)
		return 1;
	if (!ix->seen && !(ix->seen = calloc(ix->first / 8 + 1, 1)))
		return 0; /* out of memory only costs the warning */
	int was = ix->seen[d / 8] >> (d % 8) & 1;
	ix->seen[d / 8] |= (uint8_t)(1u << (d % 8));
	return was;
}

/* The boolean term of url's host, as omindex writes it ("H" and the
 * host, lower case, without user or port; NULL: a URL without a host,
 * or too long for a term).  The common-text count reads it: text that
 * many pages of one site hold is that site's template. */
static char *host_term(const char *url)
{
	const char *p;
	size_t n = nd_url_host(url, &p);
	if (!n || n >= ND_UID_MAX)
		return NULL;
	char *t = malloc(n + 2);
	if (!t)
		return NULL;
	t[0] = 'H';
	for (size_t i = 0; i < n; i++)
		t[i + 1] = (char)((p[i] >= 'A' && p[i] <= 'Z') ? p[i] + 32 : p[i]);
	t[n + 1] = 0;
	return t;
}

/* A directory named like a host: a mirror laid out as host/path, as
 * wget -r and httrack write one.  Names of files and packages have dots
 * too (python3.11, conf.d, lazr.uri), so a name counts only when its
 * last label is a country's two letters or a common top-level domain,
 * or it begins with "www.", or it is an IPv4 address; a port (wget's
 * host:8080) may follow. */
static int names_host(const char *s, size_t n)
{
	static const char *const tld[] = {"com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "name",
					  "pro", "app", "dev", "blog", "news", "online", "site", "shop", "xyz", "example",
					  "test", "local", NULL};
	const char *colon = memchr(s, ':', n);
	if (colon) {
		if ((size_t)(colon + 1 - s) == n || strspn(colon + 1, "0123456789") < (size_t)(s + n - colon - 1))
			return 0;
		n = (size_t)(colon - s);
	}
	size_t labels = 0, digits = 1, len = 0, last = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			if (!len || len > 63 || s[i - 1] == '-')
				return 0;
			labels++, last = i - len, len = 0;
			continue;
		}
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c == '-' && len)))
			return 0;
		if (c < '0' || c > '9')
			digits = 0;
		len++;
	}
	if (labels < 2)
		return 0;
	if (digits)
		return labels == 4 && n <= 15;
	size_t tl = n - last;
	if (tl < 2)
		return 0;
	for (size_t i = last; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	if (tl == 2 || (n > 4 && !strncasecmp(s, "www.", 4)))
		return 1;
	for (size_t i = 0; tld[i]; i++)
		if (strlen(tld[i]) == tl && !strncasecmp(s + last, tld[i], tl))
			return 1;
	return 0;
}

/* The deepest directory of path named like a host, as a URL for
 * host_term ("http://NAME/"); 0 if none. */
static int host_dir(const char *path, nd_buf *out)
{
	const char *best = NULL, *end = strrchr(path, '/');
	size_t bn = 0;
	for (const char *p = path; end && p < end;) {
		size_t n = strcspn(p, "/");
		if (n && names_host(p, n))
			best = p, bn = n;
		p += n + 1;
	}
	out->len = 0;
	if (!best)
		return 0;
	int rc;
	if ((rc = nd_buf_put(out, "http://", 7)) < 0 || (rc = nd_buf_put(out, best, bn)) < 0 ||
	    (rc = nd_buf_put(out, "/", 2)) < 0)
		return rc;
	return 1;
}

/* omega document data is "name=value" lines; keep values on one line. */
static int put_field(nd_buf *b, const char *name, const char *value)
{
	int rc;
	if (!value)
		return ND_OK;
	if ((rc = nd_buf_put(b, name, strlen(name))) < 0 || (rc = nd_buf_putc(b, '=')) < 0)
		return rc;
	for (const char *p = value; *p; p++)
		if ((rc = nd_buf_putc(b, (*p == '\n' || *p == '\r') ? ' ' : *p)) < 0)
			return rc;
	return nd_buf_putc(b, '\n');
}

/* Index text under id; full (may be NULL) is the whole page when text is
 * its main content, kept as word ids in ND_SLOT_FULL_WORDS. */
static int index_doc(nd_indexer *ix, const char *id, const char *text, size_t len,
		     const nd_buf *full, const char *url, const char *site, const char *title)
{
	const nd_token *toks;
	size_t ntok;
	nd_tokenize_info info;
	nd_xdb_doc *doc = NULL;
	char *uid = NULL, *host = NULL;
	uint32_t tf = 0;
	int rc;

	ix->last = 0;
	if (!id || !*id) {
		ix->st.skipped++;
		ix->st.skipped_bad++;
		warnf(ix, "skipped a document with an empty id");
		return ND_OK;
	}
	size_t nfull = 0;
	if (full) {
		/* Tokens are borrowed until the next call: keep these as ids first. */
		if ((rc = nd_tokenize(ix->tk, full->ptr, full->len, 0, &toks, &ntok, NULL)) == ND_OK &&
		    (rc = nd_buf_grow(&ix->fullwords, ntok * 4)) == ND_OK) {
			nfull = nd_word_ids_own(full->ptr, full->len, toks, ntok, (uint32_t *)(void *)ix->fullwords.ptr);
		}
		if (rc == ND_ENOMEM)
			return rc;
	}
	if ((rc = nd_tokenize(ix->tk, text, len, 0, &toks, &ntok, &info)) < 0) {
		ix->st.skipped++;
		ix->st.skipped_bad++;
		warnf(ix, "%s: skipped: %s", id, nd_error_last());
		return ND_OK;
	}
	if (info.invalid_count) {
		ix->st.invalid_utf8++;
		warnf(ix, "%s: invalid UTF-8 at byte %llu (%llu bytes); treated as word separators",
		      id, (unsigned long long)info.first_invalid,
		      (unsigned long long)info.invalid_count);
	}
	if (ntok == 0) {
		ix->st.skipped++;
		ix->st.skipped_empty++;
		warnf(ix, "%s: skipped: no words", id);
		return ND_OK;
	}
	if (!(uid = nd_uid_term(id)))
		return nd_error_set(ND_ENOMEM, "out of memory");
	host = host_term(url);
	if (!host && site)
		host = host_term(site);
	if ((rc = nd_xdb_doc_new(&doc)) < 0)
		goto cleanup;
	if ((rc = nd_buf_grow(&ix->words, ntok * 4)) < 0)
		goto cleanup;
	/* malloc'd, so aligned for uint32_t.  Every word is searchable; the
	 * word sequence for verification (see neardup/words.h) is the text's
	 * own, without the lines it quotes. */
	size_t nown = nd_word_ids_own(text, len, toks, ntok, (uint32_t *)(void *)ix->words.ptr);
	for (size_t i = 0; i < ntok; i++)
		if ((rc = nd_xdb_doc_add_posting(doc, toks[i].text, toks[i].len, toks[i].pos)) < 0)
			goto cleanup;
	if ((rc = nd_xdb_doc_set_value(doc, ND_SLOT_WORDS, ix->words.ptr, nown * 4)) < 0)
		goto cleanup;
	if (nfull && (rc = nd_xdb_doc_set_value(doc, ND_SLOT_FULL_WORDS, ix->fullwords.ptr, nfull * 4)) < 0)
		goto cleanup;
	uint64_t th = nd_hash_bytes(ix->words.ptr, nown * 4, nfull);
	if (nfull)
		th = nd_hash_bytes(ix->fullwords.ptr, nfull * 4, th);
	if ((rc = nd_xdb_doc_set_value(doc, ND_SLOT_TEXT_HASH, (const char *)&th, sizeof(th))) < 0)
		goto cleanup;
	ix->data.len = 0;
	if ((rc = put_field(&ix->data, "id", id)) < 0 ||
	    (rc = put_field(&ix->data, "url", url)) < 0 ||
	    (rc = put_field(&ix->data, "caption", title)) < 0 ||
	    (rc = nd_xdb_doc_add_boolean(doc, uid)) < 0 ||
	    (host && (rc = nd_xdb_doc_add_boolean(doc, host)) < 0) ||
	    (rc = nd_xdb_doc_set_data(doc, ix->data.ptr, ix->data.len)) < 0 ||
	    (rc = nd_xdb_termfreq(ix->db, uid, &tf, NULL)) < 0 ||
	    (rc = nd_xdb_replace(ix->db, uid, doc, &ix->last)) < 0)
		goto cleanup;
	if (tf && ix->from_paths && seen_twice(ix, ix->last)) {
		/* Replacing a document this run wrote: the input holds the id twice. */
		ix->st.replaced++;
		ix->st.duplicate_ids++;
		warnf(ix, "%s: id given twice in this input; the later document replaces the earlier", id);
	} else if (tf)
		ix->st.replaced++;
	else
		ix->st.added++;
	ix->st.words += ntok;
	if (++ix->pending >= ix->opts.batch_docs)
		rc = nd_indexer_commit(ix);
	if (ix->opts.progress)
		ix->opts.progress(&ix->st, id, ix->opts.ctx);
cleanup:
	if (rc < 0 && rc != ND_ENOMEM && rc != ND_EFULL && rc != ND_EIO) {
		/* A document Xapian refuses is skipped, not fatal. */
		ix->st.skipped++;
		ix->st.skipped_bad++;
		warnf(ix, "%s: skipped: %s", id, nd_error_last());
		rc = ND_OK;
	}
	nd_xdb_doc_free(doc);
	free(uid);
	free(host);
	return rc;
}

int nd_indexer_add_text(nd_indexer *ix, const char *id, const char *text, size_t len,
			const char *url, const char *title)
{
	return index_doc(ix, id, text, len, NULL, url, NULL, title);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcasecmp(s + n - m, suffix);
}

static int add_jsonl(nd_indexer *ix, const char *path)
{
	FILE *f = NULL;
	nd_jsonl *r = NULL;
	nd_jsonl_record rec;
	int rc, got, fd;

	if ((rc = nd_input_open(path, &fd)) < 0 || !(f = fdopen(fd, "rb"))) {
		if (rc == ND_OK) {
			nd_error_set(ND_EIO, "%s: %s", path, strerror(errno));
			close(fd);
		}
		ix->st.skipped++;
		ix->st.skipped_bad++;
		warnf(ix, "%s: skipped", nd_error_last());
		return ND_OK;
	}
	ix->st.files++;
	if ((rc = nd_jsonl_open(&r, f, path, ix->opts.max_line_bytes)) < 0)
		goto cleanup;
	for (;;) {
		long before = ftell(f);
		got = nd_jsonl_next(r, &rec);
		long after = ftell(f);
		if (after > before)
			ix->st.bytes += (uint64_t)(after - before);
		if (got == 0)
			break;
		if (got == ND_EIO) {
			rc = got;
			break;
		}
		if (got < 0) {
			ix->st.skipped++;
			if (got == ND_ETOOBIG)
				ix->st.skipped_large++;
			else
				ix->st.skipped_bad++;
			warnf(ix, "%s: skipped", nd_error_last());
			continue;
		}
		if ((rc = nd_indexer_add_text(ix, rec.id, rec.text, rec.text_len, rec.url, rec.title)) < 0)
			break;
	}
cleanup:
	nd_jsonl_close(r);
	fclose(f);
	return rc;
}

/* A name without an extension (README, copyright): plain text, unless
 * its first bytes say binary (checked below, as for every file). */
static int no_extension(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return *base && !strchr(base, '.');
}

static int add_file(nd_indexer *ix, const char *path, const char *id)
{
	char *data = NULL;
	const char *url = NULL, *site = NULL;
	size_t len;
	int rc = ND_OK, html = 0;

	if (ends_with(path, ".jsonl"))
		return add_jsonl(ix, path);
	if (!ix->opts.url_base) { /* else the URL gives the host */
		if ((rc = host_dir(path, &ix->site)) < 0)
			return rc;
		if (rc)
			site = ix->site.ptr;
		rc = ND_OK;
	} else {
		ix->url.len = 0;
		if ((rc = nd_buf_put(&ix->url, ix->opts.url_base, strlen(ix->opts.url_base))) < 0 ||
		    (rc = nd_buf_put(&ix->url, id, strlen(id) + 1)) < 0)
			return rc;
		url = ix->url.ptr;
	}
	if (ends_with(path, ".html") || ends_with(path, ".htm"))
		html = 1;
	else if (!ends_with(path, ".txt") && !ends_with(path, ".text") && !no_extension(path)) {
		ix->st.skipped++;
		ix->st.skipped_type++;
		warnf(ix, "%s: skipped: not .txt, .text, .html, .htm, .jsonl or a name without extension", path);
		return ND_OK;
	}
	if ((rc = nd_read_file(&data, &len, path, ix->opts.max_doc_bytes)) < 0) {
		ix->st.skipped++;
		if (rc == ND_ETOOBIG)
			ix->st.skipped_large++;
		else
			ix->st.skipped_bad++;
		warnf(ix, "%s: skipped", nd_error_last());
		return ND_OK;
	}
	ix->st.files++;
	ix->st.bytes += len;
	ix->title.len = 0;
	/* Whatever the name says: an executable called page.html is no page. */
	if (memchr(data, '\0', len < 8192 ? len : 8192)) {
		ix->st.skipped++;
		ix->st.skipped_binary++;
		warnf(ix, "%s: skipped: binary file (NUL byte in the first 8 KiB)", path);
		goto cleanup;
	}
	if (html) {
		nd_boilerplate_info bi;
		int main = ix->opts.content == ND_CONTENT_MAIN;
		uint64_t first = 0;
		/* A page declared Latin-1 or windows-1252 is read as declared;
		 * one undeclared or declared otherwise (UTF-8, mostly) that is
		 * not UTF-8 is a guess worth saying. */
		int cs = nd_html_declares_charset(data, len);
		if (cs != ND_HTML_CHARSET_LATIN && nd_utf8_check(data, len, &first)) {
			ix->st.reencoded += cs == ND_HTML_CHARSET_NONE;
			warnf(ix, "%s: not UTF-8 (first invalid byte at offset %llu); %s", path,
			      (unsigned long long)first, cs == ND_HTML_CHARSET_NONE ? "no charset declared, read "
			      "as windows-1252" : "decoded as its declared charset");
		}
		ix->scratch.len = ix->full.len = ix->page_url.len = ix->link_site.len = 0;
		if ((rc = nd_html_extract(ix->tk, data, len, path, ix->opts.content, &ix->scratch,
					  main ? &ix->full : NULL, &ix->title, url ? NULL : &ix->page_url,
					  url || site ? NULL : &ix->link_site, &bi)) < 0) {
			if (rc == ND_ENOMEM)
				goto cleanup;
			ix->st.skipped++;
			ix->st.skipped_bad++;
			warnf(ix, "%s: skipped", nd_error_last());
			rc = ND_OK;
			goto cleanup;
		}
		ix->st.html_pages++;
		if (!url && ix->page_url.len)
			url = ix->page_url.ptr; /* the address the page gives itself */
		if (!site && ix->link_site.len)
			site = ix->link_site.ptr; /* where most of its links go */
		if (main && !bi.good_blocks)
			ix->st.html_whole++;
		rc = index_doc(ix, id, ix->scratch.ptr, ix->scratch.len,
			       main && bi.good_blocks ? &ix->full : NULL, url, site,
			       ix->title.len ? ix->title.ptr : NULL);
	} else {
		uint64_t first = 0;
		if (nd_utf8_check(data, len, &first)) {
			/* Plain text that is not UTF-8 is nearly always a legacy
			 * 8-bit encoding; windows-1252 is the common one (omindex
			 * makes the same guess). */
			if ((rc = nd_cp1252_to_utf8(&ix->scratch, data, len)) < 0)
				goto cleanup;
			ix->st.reencoded++;
			warnf(ix, "%s: not UTF-8 (first invalid byte at offset %llu); read as windows-1252",
			      path, (unsigned long long)first);
			rc = index_doc(ix, id, ix->scratch.ptr, ix->scratch.len, NULL, url, site, NULL);
		} else
			rc = index_doc(ix, id, data, len, NULL, url, site, NULL);
	}
cleanup:
	free(data);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Walk dir (root + "/" + rel) in sorted order. */
/* rel is the directory's id, relative to root; its first `named` bytes
 * are a name given to root itself (nd_indexer_add_path_as), not a path. */
static int add_dir(nd_indexer *ix, const char *root, const char *rel, size_t named)
{
	nd_buf path = ND_BUF_INIT;
	char **names = NULL;
	size_t n = 0, cap = 0;
	DIR *d = NULL;
	struct dirent *e;
	int rc = ND_OK;
	const char *under = rel + named;

	if (*under == '/')
		under++;
	if ((rc = nd_buf_put(&path, root, strlen(root))) < 0)
		goto cleanup;
	if (*under && ((rc = nd_buf_putc(&path, '/')) < 0 || (rc = nd_buf_put(&path, under, strlen(under))) < 0))
		goto cleanup;
	if (!(d = opendir(path.ptr))) {
		ix->st.skipped++;
		ix->st.skipped_bad++;
		warnf(ix, "%s: skipped directory: %s", path.ptr, strerror(errno));
		goto cleanup;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		void *p = names;
		if ((rc = nd_array_reserve(&p, &cap, n + 1, sizeof(char *))) < 0)
			goto cleanup;
		names = p;
		if (!(names[n] = strdup(e->d_name))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			goto cleanup;
		}
		n++;
	}
	if (n > 1)
		qsort(names, n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		nd_buf child = ND_BUF_INIT, childrel = ND_BUF_INIT;
		struct stat st, lst;
		if ((rc = nd_buf_put(&child, path.ptr, path.len)) < 0 ||
		    (rc = nd_buf_putc(&child, '/')) < 0 ||
		    (rc = nd_buf_put(&child, names[i], strlen(names[i]))) < 0)
			goto next;
		if (*rel && ((rc = nd_buf_put(&childrel, rel, strlen(rel))) < 0 ||
			     (rc = nd_buf_putc(&childrel, '/')) < 0))
			goto next;
		if ((rc = nd_buf_put(&childrel, names[i], strlen(names[i]))) < 0)
			goto next;
		if (lstat(child.ptr, &lst) < 0 || stat(child.ptr, &st) < 0) {
			ix->st.skipped++;
			ix->st.skipped_bad++;
			warnf(ix, "%s: skipped: %s", child.ptr, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			if (!S_ISLNK(lst.st_mode)) /* no symlink loops */
				rc = add_dir(ix, root, childrel.ptr, named);
		} else if (S_ISREG(st.st_mode))
			rc = add_file(ix, child.ptr, childrel.ptr);
		else {
			ix->st.skipped++;
			ix->st.skipped_bad++;
			warnf(ix, "%s: skipped: not a regular file (FIFO, socket or device)", child.ptr);
		}
next:
		nd_buf_free(&child);
		nd_buf_free(&childrel);
	}
cleanup:
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	nd_buf_free(&path);
	return rc;
}

int nd_indexer_add_path(nd_indexer *ix, const char *path)
{
	return nd_indexer_add_path_as(ix, path, NULL);
}

int nd_indexer_add_path_as(nd_indexer *ix, const char *path, const char *id)
{
	struct stat st;
	ix->from_paths = 1; /* a crawler re-fetching through add_text replaces, silently */
	if (stat(path, &st) < 0)
		return nd_error_set(errno == ENOENT ? ND_ENOTFOUND : ND_EIO, "%s: %s", path,
				    strerror(errno));
	if (S_ISDIR(st.st_mode))
		return add_dir(ix, path, id ? id : "", id ? strlen(id) : 0);
	if (!S_ISREG(st.st_mode))
		return nd_error_set(ND_EINVAL, "%s: not a regular file (FIFO, socket or device); only files "
				    "and directories are read", path);
	const char *base = strrchr(path, '/');
	return add_file(ix, path, id ? id : base ? base + 1 : path);
}

const nd_index_stats *nd_indexer_stats(const nd_indexer *ix)
{
	return &ix->st;
}

nd_xdb *nd_indexer_db(nd_indexer *ix)
{
	return ix->db;
}

nd_docid nd_indexer_last_docid(const nd_indexer *ix)
{
	return ix->last;
}

int nd_indexer_delete(nd_indexer *ix, const char *id, nd_docid *docid)
{
	char *uid = nd_uid_term(id);
	nd_docid d = 0;
	int rc;
	if (docid)
		*docid = 0;
	if (!uid)
		return nd_error_set(ND_ENOMEM, "out of memory");
	if ((rc = nd_xdb_find_uid(ix->db, uid + 1, &d)) == ND_OK &&
	    (rc = nd_xdb_delete(ix->db, uid)) == ND_OK && ++ix->pending >= ix->opts.batch_docs)
		rc = nd_indexer_commit(ix);
	if (rc == ND_OK && docid)
		*docid = d;
	free(uid);
	return rc;
}

int nd_indexer_commit(nd_indexer *ix)
{
	ix->pending = 0;
	return nd_xdb_commit(ix->db);
}

int nd_indexer_close(nd_indexer *ix)
{
	int rc;
	if (!ix)
		return ND_OK;
	rc = nd_indexer_commit(ix);
	nd_xdb_close(ix->db);
	nd_tokenizer_free(ix->tk);
	nd_buf_free(&ix->data);
	nd_buf_free(&ix->scratch);
	nd_buf_free(&ix->title);
	nd_buf_free(&ix->full);
	nd_buf_free(&ix->fullwords);
	nd_buf_free(&ix->words);
	nd_buf_free(&ix->url);
	nd_buf_free(&ix->page_url);
	nd_buf_free(&ix->site);
	nd_buf_free(&ix->link_site);
	free((char *)ix->opts.url_base);
	free(ix->seen);
	free(ix);
	return rc;
}

int nd_html_text(const char *html, size_t len, const char *name, nd_content mode, char **text,
		 size_t *text_len)
{
	nd_buf b = ND_BUF_INIT;
	nd_tokenizer *tk = NULL;
	int rc = nd_tokenizer_new(&tk);
	if (rc == ND_OK)
		rc = nd_html_extract(tk, html, len, name, mode, &b, NULL, NULL, NULL, NULL, NULL);
	nd_tokenizer_free(tk);
	if (rc == ND_OK && !b.ptr)
		rc = nd_buf_put(&b, "", 0);
	if (rc < 0) {
		nd_buf_free(&b);
		*text = NULL;
		return rc;
	}
	*text = b.ptr;
	*text_len = b.len;
	return ND_OK;
}
