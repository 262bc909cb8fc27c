// The only C++ in neardup: a C view of Xapian.  Every extern "C" body is
// try { ... } catch (...) { return xapian_error(); }, where xapian_error()
// re-throws and classifies from the most specific exception down.

#include "neardup/xdb.h"
#include "neardup/window.h"
#include "indexer/xapian_terms.h"
#include "common/nd_hash.h"

#include <xapian.h>

#include <algorithm>
#include <utility>
#include <vector>

#include <cctype>
#include <cerrno>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

struct nd_xdb {
	Xapian::Database *db;          // always set; points at wdb when writable
	Xapian::WritableDatabase *wdb; // set only when writable
	std::string path;
	uint32_t max_query_terms = ND_XDB_MAX_QUERY_TERMS;
	// How queries are parsed (nd_xdb_set_query_parser); auto: decided at
	// the first search from the database's terms.
	bool parser_auto = true;
	std::string stemmer; // "" or "none": no stemming
	std::vector<std::pair<std::string, std::string>> prefixes, boolean_prefixes;
	int notmuch = -1; // a notmuch database (its ids are "id:..."); -1: not yet known
	int mu = -1;      // a mu database (its threads are W terms); -1: not yet known
	// An application that prefixes every word (mu: B) and its ids (mu: I):
	// words are handed out and looked up without the prefix, and other
	// terms are not words (nd_xdb_set_prefixes).
	std::string word_prefix, uid_prefix;
};

struct nd_xdb_terms {
	nd_xdb *db;
	std::string prefix;
	size_t skip; // what terms_next leaves off: the word prefix of words
	std::string current;
	Xapian::TermIterator it, end;
	bool started;
};

struct nd_xdb_postlist {
	nd_xdb *db;
	std::string term;
	Xapian::PostingIterator it, end;
	nd_docid last;
};

struct nd_xdb_doc {
	Xapian::Document doc;
};

namespace {

// Classify the exception being handled.  Must be called inside a catch.
// Writes pass their database, so a full disk names the database it filled.
int xapian_error(const nd_xdb *db = nullptr)
{
	std::string where = db ? " " + db->path : std::string();
	try {
		throw;
	} catch (const Xapian::DatabaseLockError &e) {
		return nd_error_set(ND_ELOCKED, "xapian%s: %s", where.c_str(), e.get_description().c_str());
	} catch (const Xapian::DatabaseNotFoundError &e) {
		return nd_error_set(ND_ENOTFOUND, "xapian%s: %s", where.c_str(), e.get_description().c_str());
	} catch (const Xapian::DatabaseVersionError &e) {
		return nd_error_set(ND_EVERSION, "xapian%s: %s", where.c_str(), e.get_description().c_str());
	} catch (const Xapian::DatabaseOpeningError &e) {
		return nd_error_set(ND_ENOTFOUND, "xapian%s: %s", where.c_str(), e.get_description().c_str());
	} catch (const Xapian::DatabaseModifiedError &e) {
		return nd_error_set(ND_ERETRY, "xapian%s: %s", where.c_str(), e.get_description().c_str());
	} catch (const Xapian::DatabaseCorruptError &e) {
		return nd_error_set(ND_ECORRUPT, "xapian%s: %s", where.c_str(), e.get_description().c_str());
	} catch (const Xapian::DocNotFoundError &e) {
		return nd_error_set(ND_ENOTFOUND, "xapian%s: %s", where.c_str(), e.get_description().c_str());
	} catch (const Xapian::InvalidArgumentError &e) {
		return nd_error_set(ND_EINVAL, "xapian%s: %s", where.c_str(), e.get_description().c_str());
	} catch (const Xapian::DatabaseError &e) {
		const char *es = e.get_error_string();
		if (es && (std::strstr(es, "No space left") || std::strstr(es, "quota") ||
			   std::strstr(es, "File too large")))
			return nd_error_set(ND_EFULL, "xapian%s: %s", where.c_str(), e.get_description().c_str());
		return nd_error_set(ND_EIO, "xapian%s: %s", where.c_str(), e.get_description().c_str());
	} catch (const Xapian::Error &e) {
		return nd_error_set(ND_EXAPIAN, "xapian%s: %s", where.c_str(), e.get_description().c_str());
	} catch (const std::bad_alloc &) {
		return nd_error_set(ND_ENOMEM, "xapian: out of memory");
	} catch (const std::exception &e) {
		return nd_error_set(ND_ERROR, "xapian wrapper: %s", e.what());
	} catch (...) {
		return nd_error_set(ND_ERROR, "xapian wrapper: unknown exception");
	}
}

// Run a stateless read; on DatabaseModifiedError reopen once and run again.
template <typename F>
int with_retry(nd_xdb *db, F fn)
{
	try {
		try {
			fn();
		} catch (const Xapian::DatabaseModifiedError &) {
			db->db->reopen();
			fn();
		}
		return ND_OK;
	} catch (...) {
		return xapian_error();
	}
}

inline bool is_prefixed(const std::string &t)
{
	return !t.empty() && t[0] >= 'A' && t[0] <= 'Z';
}

// A word of the text: unprefixed, or under the application's word prefix.
inline bool is_word(const nd_xdb *db, const std::string &t)
{
	if (db->word_prefix.empty())
		return !is_prefixed(t);
	size_t n = db->word_prefix.size();
	return t.size() > n && t.compare(0, n, db->word_prefix) == 0 && !(t[n] >= 'A' && t[n] <= 'Z');
}

char *dup_string(const std::string &s, size_t *len)
{
	char *p = static_cast<char *>(std::malloc(s.size() + 1));
	if (!p)
		throw std::bad_alloc();
	std::memcpy(p, s.data(), s.size());
	p[s.size()] = '\0';
	if (len)
		*len = s.size();
	return p;
}

} // namespace

extern "C" {

int nd_xdb_open(nd_xdb **out, const char *path, int mode)
{
	*out = nullptr;
	nd_xdb *db = nullptr;
	try {
		db = new nd_xdb();
		db->path = path;
		db->db = nullptr;
		db->wdb = nullptr;
		if (mode == ND_XDB_WRITE) {
			db->wdb = new Xapian::WritableDatabase(path, Xapian::DB_CREATE_OR_OPEN);
			db->db = db->wdb;
		} else {
			db->db = new Xapian::Database(path);
		}
		*out = db;
		return ND_OK;
	} catch (...) {
		int rc = xapian_error();
		if (db) {
			delete db->db;
			delete db;
		}
		// Name the database in the message: Xapian's own often does not.
		std::string detail = nd_error_last();
		return nd_error_set(rc, "%s: %s", path, detail.c_str());
	}
}

void nd_xdb_close(nd_xdb *db)
{
	if (!db)
		return;
	try {
		if (db->wdb)
			db->wdb->close();
	} catch (...) {
		(void)xapian_error();
	}
	delete db->db;
	delete db;
}

int nd_xdb_reopen(nd_xdb *db, int *changed)
{
	try {
		bool c = db->db->reopen();
		if (changed)
			*changed = c;
		return ND_OK;
	} catch (...) {
		return xapian_error();
	}
}

const char *nd_xdb_path(const nd_xdb *db)
{
	return db->path.c_str();
}

int nd_xdb_writable(const nd_xdb *db)
{
	return db->wdb != nullptr;
}

int nd_xdb_doccount(nd_xdb *db, uint32_t *out)
{
	return with_retry(db, [&] { *out = db->db->get_doccount(); });
}

int nd_xdb_lastdocid(nd_xdb *db, nd_docid *out)
{
	return with_retry(db, [&] { *out = db->db->get_lastdocid(); });
}

int nd_xdb_avglength(nd_xdb *db, double *out)
{
	return with_retry(db, [&] { *out = db->db->get_avlength(); });
}

int nd_xdb_uuid(nd_xdb *db, char **out)
{
	*out = nullptr;
	return with_retry(db, [&] {
		std::free(*out);
		*out = dup_string(db->db->get_uuid(), nullptr);
	});
}

int nd_xdb_revision(nd_xdb *db, uint64_t *out)
{
	/* A database of several shards (a stub, remote shards) has no single
	 * revision: 0, and callers that compare revisions see no change. */
	return with_retry(db, [&] { *out = db->db->size() == 1 ? db->db->get_revision() : 0; });
}

// A word as the database stores it: behind its word prefix.  A term that
// begins with a capital letter is a field's own (H, J, Q): as written.
static std::string stored_term(const nd_xdb *db, const char *term)
{
	if (term[0] >= 'A' && term[0] <= 'Z')
		return std::string(term);
	return db->word_prefix + term;
}

int nd_xdb_termfreq(nd_xdb *db, const char *term, uint32_t *tf, uint64_t *cf)
{
	return with_retry(db, [&] {
		std::string t = stored_term(db, term);
		if (tf)
			*tf = db->db->get_termfreq(t);
		if (cf)
			*cf = db->db->get_collection_freq(t);
	});
}

int nd_xdb_terms_open(nd_xdb_terms **out, nd_xdb *db, const char *prefix)
{
	*out = nullptr;
	nd_xdb_terms *it = nullptr;
	try {
		it = new nd_xdb_terms();
		it->db = db;
		it->prefix = stored_term(db, prefix ? prefix : "");
		it->skip = it->prefix.size() - (prefix ? strlen(prefix) : 0);
		it->started = false;
		it->it = db->db->allterms_begin(it->prefix);
		it->end = db->db->allterms_end(it->prefix);
		*out = it;
		return ND_OK;
	} catch (...) {
		delete it;
		return xapian_error();
	}
}

int nd_xdb_terms_next(nd_xdb_terms *t, const char **term, size_t *len,
		      uint32_t *tf, uint64_t *cf)
{
	for (int attempt = 0;; attempt++) {
		try {
			if (t->started)
				++t->it;
			t->started = true;
			if (t->it == t->end)
				return 0;
			t->current = *t->it;
			size_t skip = t->skip; // words without their prefix
			*term = t->current.c_str() + skip;
			if (len)
				*len = t->current.size() - skip;
			if (tf)
				*tf = t->it.get_termfreq();
			if (cf)
				*cf = t->db->db->get_collection_freq(t->current);
			return 1;
		} catch (const Xapian::DatabaseModifiedError &) {
			if (attempt >= 3)
				return xapian_error();
			// Resume after the last term handed out, on the new revision.
			try {
				t->db->db->reopen();
				t->it = t->db->db->allterms_begin(t->prefix);
				t->end = t->db->db->allterms_end(t->prefix);
				if (t->started && !t->current.empty()) {
					t->it.skip_to(t->current);
					if (t->it != t->end && *t->it == t->current)
						continue; // loop increments past it
				}
				t->started = false;
			} catch (...) {
				return xapian_error();
			}
		} catch (...) {
			return xapian_error();
		}
	}
}

void nd_xdb_terms_free(nd_xdb_terms *it)
{
	delete it;
}

int nd_xdb_postlist_open(nd_xdb_postlist **out, nd_xdb *db, const char *term)
{
	*out = nullptr;
	nd_xdb_postlist *pl = nullptr;
	try {
		pl = new nd_xdb_postlist();
		pl->db = db;
		pl->term = stored_term(db, term);
		pl->last = 0;
		pl->it = db->db->postlist_begin(pl->term);
		pl->end = db->db->postlist_end(pl->term);
		*out = pl;
		return ND_OK;
	} catch (...) {
		delete pl;
		return xapian_error();
	}
}

static int postlist_resume(nd_xdb_postlist *pl)
{
	try {
		pl->db->db->reopen();
		pl->it = pl->db->db->postlist_begin(pl->term);
		pl->end = pl->db->db->postlist_end(pl->term);
		if (pl->last)
			pl->it.skip_to(pl->last + 1);
		return ND_OK;
	} catch (...) {
		return xapian_error();
	}
}

int nd_xdb_postlist_next(nd_xdb_postlist *pl, nd_docid limit,
			 nd_posting *buf, size_t cap, size_t *n)
{
	size_t k = 0;
	for (int attempt = 0;; attempt++) {
		try {
			while (k < cap && pl->it != pl->end) {
				nd_docid d = *pl->it;
				if (limit && d >= limit)
					break;
				buf[k].docid = d;
				buf[k].wdf = pl->it.get_wdf();
				pl->last = d;
				k++;
				++pl->it;
			}
			*n = k;
			return ND_OK;
		} catch (const Xapian::DatabaseModifiedError &) {
			int rc;
			if (attempt >= 3 || (rc = postlist_resume(pl)) < 0) {
				*n = k;
				return attempt >= 3 ? nd_error_set(ND_ERETRY,
					"xapian: database kept changing while reading postlist of '%s'",
					pl->term.c_str()) : rc;
			}
		} catch (...) {
			*n = k;
			return xapian_error();
		}
	}
}

int nd_xdb_postlist_skip(nd_xdb_postlist *pl, nd_docid target)
{
	for (int attempt = 0;; attempt++) {
		try {
			pl->it.skip_to(target);
			if (target > 0)
				pl->last = target - 1;
			return ND_OK;
		} catch (const Xapian::DatabaseModifiedError &) {
			int rc;
			if (attempt >= 3)
				return xapian_error();
			if ((rc = postlist_resume(pl)) < 0)
				return rc;
		} catch (...) {
			return xapian_error();
		}
	}
}

void nd_xdb_postlist_free(nd_xdb_postlist *pl)
{
	delete pl;
}

int nd_xdb_lengths(nd_xdb *db, nd_docid lo, nd_docid hi, uint32_t *doclen, uint32_t *words)
{
	for (uint32_t *out : {doclen, words})
		if (out && hi > lo)
			std::memset(out, 0, sizeof(*out) * (hi - lo));
	return with_retry(db, [&] {
		Xapian::PostingIterator it = db->db->postlist_begin("");
		Xapian::PostingIterator end = db->db->postlist_end("");
		it.skip_to(lo);
		for (; it != end; ++it) {
			nd_docid d = *it;
			if (d >= hi)
				break;
			if (doclen)
				doclen[d - lo] = it.get_doclength();
			if (!words)
				continue;
			uint32_t sum = 0;
			for (Xapian::TermIterator t = db->db->termlist_begin(d);
			     t != db->db->termlist_end(d); ++t)
				if (is_word(db, *t))
					sum += t.get_wdf();
			words[d - lo] = sum;
		}
	});
}

int nd_xdb_prefixed_wdf(nd_xdb *db, uint64_t *out)
{
	// Prefixes are either boolean (wdf 0: Q, U, D, ...) or not (Z, S, ...)
	// for all their terms, so a few terms per initial letter tell.
	return with_retry(db, [&] {
		uint64_t sum = 0;
		for (char c = 'A'; c <= 'Z'; c++) {
			std::string p(1, c);
			int seen = 0;
			for (Xapian::TermIterator t = db->db->allterms_begin(p);
			     t != db->db->allterms_end(p) && seen < 8; ++t, ++seen)
				sum += db->db->get_collection_freq(*t);
		}
		// A word prefix makes lengths word counts, whatever else there is.
		*out = db->word_prefix.empty() ? sum : std::max<uint64_t>(sum, 1);
	});
}

int nd_xdb_termlist(nd_xdb *db, nd_docid docid, nd_xdb_term_fn fn, void *ctx)
{
	int stop = 0;
	int rc = with_retry(db, [&] {
		stop = 0;
		size_t skip = db->word_prefix.size();
		for (Xapian::TermIterator t = db->db->termlist_begin(docid);
		     t != db->db->termlist_end(docid); ++t) {
			std::string term = *t;
			if (skip && !is_word(db, term))
				continue; // with a word prefix, only words are terms to us
			if ((stop = fn(term.data() + skip, term.size() - skip, t.get_wdf(), ctx)) != 0)
				break;
		}
	});
	return rc < 0 ? rc : stop;
}

int nd_xdb_positions(nd_xdb *db, nd_docid docid, const char *term,
		     uint32_t **out, size_t *n)
{
	*out = nullptr;
	*n = 0;
	uint32_t *buf = nullptr;
	int rc = with_retry(db, [&] {
		std::free(buf);
		buf = nullptr;
		size_t cap = 0, k = 0;
		std::string t = db->word_prefix + term;
		for (Xapian::PositionIterator p = db->db->positionlist_begin(docid, t);
		     p != db->db->positionlist_end(docid, t); ++p) {
			if (k == cap) {
				cap = cap ? cap * 2 : 16;
				uint32_t *nb = static_cast<uint32_t *>(std::realloc(buf, cap * sizeof(uint32_t)));
				if (!nb)
					throw std::bad_alloc();
				buf = nb;
			}
			buf[k++] = *p;
		}
		*n = k;
	});
	if (rc < 0) {
		std::free(buf);
		*n = 0;
		return rc;
	}
	*out = buf;
	return ND_OK;
}

int nd_xdb_doc_data(nd_xdb *db, nd_docid docid, char **out, size_t *len)
{
	*out = nullptr;
	return with_retry(db, [&] {
		*out = dup_string(db->db->get_document(docid).get_data(), len);
	});
}

int nd_xdb_doc_value(nd_xdb *db, nd_docid docid, unsigned slot, char **out, size_t *len)
{
	*out = nullptr;
	return with_retry(db, [&] {
		*out = dup_string(db->db->get_document(docid).get_value(slot), len);
	});
}

int nd_xdb_values_each(nd_xdb *db, unsigned slot, nd_xdb_value_fn fn, void *ctx)
{
	std::vector<std::pair<Xapian::docid, std::string>> vals;
	int rc = with_retry(db, [&] {
		vals.clear();
		for (Xapian::ValueIterator v = db->db->valuestream_begin(slot); v != db->db->valuestream_end(slot); ++v)
			vals.emplace_back(v.get_docid(), *v);
	});
	for (size_t i = 0; rc == ND_OK && i < vals.size(); i++)
		rc = fn(vals[i].first, vals[i].second.data(), vals[i].second.size(), ctx);
	return rc;
}

int nd_xdb_values_range(nd_xdb *db, unsigned slot, nd_docid lo, nd_docid hi, nd_xdb_value_fn fn, void *ctx)
{
	std::vector<std::pair<Xapian::docid, std::string>> vals;
	int rc = with_retry(db, [&] {
		vals.clear();
		Xapian::ValueIterator v = db->db->valuestream_begin(slot), end = db->db->valuestream_end(slot);
		if (v != end && lo > 1)
			v.skip_to(lo);
		for (; v != end && v.get_docid() < hi; ++v)
			vals.emplace_back(v.get_docid(), *v);
	});
	for (size_t i = 0; rc == ND_OK && i < vals.size(); i++)
		rc = fn(vals[i].first, vals[i].second.data(), vals[i].second.size(), ctx);
	return rc;
}

namespace {

// notmuch types every document: mail, or ghost for a message only heard of.
bool is_notmuch(nd_xdb *db)
{
	if (db->notmuch < 0)
		db->notmuch = db->db->term_exists("Tmail") || db->db->term_exists("Tghost");
	return db->notmuch > 0;
}

// mu keeps its schema and maildir in the metadata.
bool is_mu(nd_xdb *db)
{
	if (db->mu < 0)
		db->mu = !is_notmuch(db) && !db->db->get_metadata("schema-version").empty() &&
			 !db->db->get_metadata("maildir").empty();
	return db->mu > 0;
}

// The first term of docid with prefix p (one capital letter), empty when
// none: a longer prefix that begins with the letter is another field's.
std::string doc_prefixed(nd_xdb *db, nd_docid docid, char p, bool empty_ok)
{
	Xapian::TermIterator t = db->db->termlist_begin(docid);
	t.skip_to(std::string(1, p));
	if (t == db->db->termlist_end(docid))
		return std::string();
	std::string term = *t;
	if (term.empty() || term[0] != p || (term.size() == 1 && !empty_ok) ||
	    (term.size() > 1 && isupper((unsigned char)term[1])))
		return std::string();
	return term;
}

} // namespace

int nd_xdb_doc_uid(nd_xdb *db, nd_docid docid, char **out)
{
	*out = nullptr;
	int rc = with_retry(db, [&] {
		std::vector<std::string> prefixes = {"Q", "U"};
		if (!db->uid_prefix.empty())
			prefixes = {db->uid_prefix};
		for (const std::string &p : prefixes) {
			Xapian::TermIterator t = db->db->termlist_begin(docid);
			t.skip_to(p);
			if (t != db->db->termlist_end(docid)) {
				std::string term = *t;
				if (term.compare(0, p.size(), p) == 0 && term.size() > p.size()) {
					std::string uid = term.substr(p.size());
					// As its application writes it: notmuch's id:, and
					// Recoll's file without the '|' before an empty ipath.
					if (is_notmuch(db))
						uid = "id:" + uid;
					else if (uid.size() > 1 && uid.back() == '|')
						uid.pop_back();
					*out = dup_string(uid, nullptr);
					return;
				}
			}
		}
	});
	if (rc == ND_OK && !*out)
		return nd_error_set(ND_ENOTFOUND, "%s: document %u has no Q or U unique-id term",
				    db->path.c_str(), docid);
	return rc;
}

int nd_xdb_doc_thread(nd_xdb *db, nd_docid docid, uint32_t *thread)
{
	*thread = 0;
	return with_retry(db, [&] {
		// notmuch: G and the thread id in hex; mu: W and the thread's
		// first message id (mu's G terms are flags).
		const char *p = is_notmuch(db) ? "G" : is_mu(db) ? "W" : nullptr;
		if (!p)
			return;
		Xapian::TermIterator t = db->db->termlist_begin(docid);
		t.skip_to(p);
		if (t == db->db->termlist_end(docid))
			return;
		std::string term = *t;
		// A longer prefix that begins with the letter is another field's.
		if (term.size() < 2 || term[0] != *p || (*p == 'G' && !isxdigit((unsigned char)term[1])))
			return;
		uint32_t h = (uint32_t)nd_hash_bytes(term.data() + 1, term.size() - 1, 0);
		*thread = h ? h : 1;
	});
}

int nd_xdb_doc_host(nd_xdb *db, nd_docid docid, char **out)
{
	*out = nullptr;
	return with_retry(db, [&] {
		std::string term = is_mu(db) ? std::string() : doc_prefixed(db, docid, 'H', false);
		if (!term.empty())
			*out = dup_string(term.substr(1), nullptr);
	});
}

int nd_xdb_doc_site(nd_xdb *db, nd_docid docid, char **out)
{
	*out = nullptr;
	return with_retry(db, [&] {
		if (is_mu(db))
			return;
		std::string term = doc_prefixed(db, docid, 'H', false);
		if (term.empty()) // omindex's J: the run's base URL, "J" alone for "/"
			term = doc_prefixed(db, docid, 'J', true);
		if (!term.empty())
			*out = dup_string(term, nullptr);
	});
}

int nd_xdb_names_sites(nd_xdb *db, int *yes)
{
	*yes = 0;
	return with_retry(db, [&] { *yes = !is_mu(db); });
}

int nd_xdb_find_uid(nd_xdb *db, const char *uid, nd_docid *out)
{
	*out = 0;
	int rc = with_retry(db, [&] {
		std::string id(uid);
		if (id.compare(0, 3, "id:") == 0 && is_notmuch(db))
			id = id.substr(3);
		std::vector<std::string> prefixes = {"Q", "U"};
		if (!db->uid_prefix.empty())
			prefixes = {db->uid_prefix};
		for (const std::string &form : {id, id + "|"}) // Recoll's, as shown
			for (const std::string &p : prefixes) {
				std::string term = p + form;
				Xapian::PostingIterator it = db->db->postlist_begin(term);
				if (it != db->db->postlist_end(term)) {
					*out = *it;
					return;
				}
			}
	});
	if (rc == ND_OK && !*out)
		return nd_error_set(ND_ENOTFOUND, "%s: no document with id '%s'",
				    db->path.c_str(), uid);
	return rc;
}

int nd_xdb_doc_new(nd_xdb_doc **out)
{
	try {
		*out = new nd_xdb_doc();
		return ND_OK;
	} catch (...) {
		*out = nullptr;
		return xapian_error();
	}
}

void nd_xdb_doc_free(nd_xdb_doc *doc)
{
	delete doc;
}

int nd_xdb_doc_add_posting(nd_xdb_doc *doc, const char *term, size_t len, uint32_t pos)
{
	try {
		doc->doc.add_posting(std::string(term, len), pos);
		return ND_OK;
	} catch (...) {
		return xapian_error();
	}
}

int nd_xdb_doc_add_boolean(nd_xdb_doc *doc, const char *term)
{
	try {
		doc->doc.add_boolean_term(term);
		return ND_OK;
	} catch (...) {
		return xapian_error();
	}
}

int nd_xdb_doc_set_data(nd_xdb_doc *doc, const char *data, size_t len)
{
	try {
		doc->doc.set_data(std::string(data, len));
		return ND_OK;
	} catch (...) {
		return xapian_error();
	}
}

int nd_xdb_doc_set_value(nd_xdb_doc *doc, unsigned slot, const char *val, size_t len)
{
	try {
		doc->doc.add_value(slot, std::string(val, len));
		return ND_OK;
	} catch (...) {
		return xapian_error();
	}
}

int nd_xdb_replace(nd_xdb *db, const char *uid_term, nd_xdb_doc *doc, nd_docid *docid)
{
	if (!db->wdb)
		return nd_error_set(ND_EINVAL, "%s: database opened read-only", db->path.c_str());
	try {
		Xapian::docid d = db->wdb->replace_document(uid_term, doc->doc);
		if (docid)
			*docid = d;
		return ND_OK;
	} catch (...) {
		return xapian_error(db);
	}
}

int nd_xdb_delete(nd_xdb *db, const char *uid_term)
{
	if (!db->wdb)
		return nd_error_set(ND_EINVAL, "%s: database opened read-only", db->path.c_str());
	try {
		if (!db->wdb->term_exists(uid_term))
			return nd_error_set(ND_ENOTFOUND, "%s: no document with unique term '%s'",
					    db->path.c_str(), uid_term);
		db->wdb->delete_document(uid_term);
		return ND_OK;
	} catch (...) {
		return xapian_error(db);
	}
}

int nd_xdb_commit(nd_xdb *db)
{
	if (!db->wdb)
		return nd_error_set(ND_EINVAL, "%s: database opened read-only", db->path.c_str());
	try {
		db->wdb->commit();
		return ND_OK;
	} catch (...) {
		return xapian_error(db);
	}
}

int nd_xdb_set_value(nd_xdb *db, nd_docid docid, unsigned slot, const void *val, size_t len)
{
	if (!db->wdb)
		return nd_error_set(ND_EINVAL, "%s: database opened read-only", db->path.c_str());
	try {
		Xapian::Document doc = db->wdb->get_document(docid);
		if (len)
			doc.add_value(slot, std::string(static_cast<const char *>(val), len));
		else
			doc.remove_value(slot);
		db->wdb->replace_document(docid, doc);
		return ND_OK;
	} catch (...) {
		return xapian_error(db);
	}
}

int nd_xdb_set_prefixes(nd_xdb *db, const char *word_prefix, const char *uid_prefix)
{
	for (const char *p : {word_prefix, uid_prefix}) {
		size_t n = p ? strlen(p) : 0;
		bool ok = n <= 8;
		for (size_t i = 0; i < n; i++)
			ok = ok && p[i] >= 'A' && p[i] <= 'Z';
		if (!ok)
			return nd_error_set(ND_EINVAL, "a term prefix is up to 8 capital letters (as Xapian's "
					    "applications write them), not '%s'", p);
	}
	db->word_prefix = word_prefix ? word_prefix : "";
	db->uid_prefix = uid_prefix ? uid_prefix : "";
	return ND_OK;
}

void nd_xdb_get_prefixes(const nd_xdb *db, const char **word_prefix, const char **uid_prefix)
{
	*word_prefix = db->word_prefix.c_str();
	*uid_prefix = db->uid_prefix.c_str();
}

void nd_xdb_set_max_query_terms(nd_xdb *db, uint32_t n)
{
	db->max_query_terms = n ? n : ND_XDB_MAX_QUERY_TERMS;
}

namespace {

int parse_prefixes(const char *const *v, size_t n, const char *what,
		   std::vector<std::pair<std::string, std::string>> &out)
{
	out.clear();
	for (size_t i = 0; i < n; i++) {
		const char *colon = v[i] ? strchr(v[i], ':') : nullptr;
		if (!colon)
			return nd_error_set(ND_EINVAL, "%s '%s' is not FIELD:PREFIX (as quest spells it)", what,
					    v[i] ? v[i] : "(null)");
		out.emplace_back(std::string(v[i], colon), std::string(colon + 1));
	}
	return ND_OK;
}

// What Omega and omindex do: English stems under Z, and the query
// template's fields.  Known when the database holds Z terms.
void parser_defaults(nd_xdb *db)
{
	Xapian::TermIterator it = db->db->allterms_begin("Z");
	bool omega = it != db->db->allterms_end("Z");
	db->stemmer = omega ? "english" : "";
	db->prefixes.clear();
	db->boolean_prefixes.clear();
	if (omega)
		db->prefixes = {{"title", "S"}, {"author", "A"}, {"topic", "B"}};
	db->parser_auto = false;
}

} // namespace

int nd_xdb_set_query_parser(nd_xdb *db, const char *stemmer, const char *const *prefixes, size_t nprefixes,
			    const char *const *boolean_prefixes, size_t nboolean)
{
	try {
		if (!stemmer) {
			db->parser_auto = true;
			return ND_OK;
		}
		if (strcmp(stemmer, "none") && *stemmer)
			Xapian::Stem check(stemmer); // throws for a language Snowball lacks
		std::vector<std::pair<std::string, std::string>> p, b;
		int rc;
		if ((rc = parse_prefixes(prefixes, nprefixes, "prefix", p)) < 0 ||
		    (rc = parse_prefixes(boolean_prefixes, nboolean, "boolean prefix", b)) < 0)
			return rc;
		db->stemmer = strcmp(stemmer, "none") ? stemmer : "";
		db->prefixes = p;
		db->boolean_prefixes = b;
		db->parser_auto = false;
		return ND_OK;
	} catch (const Xapian::InvalidArgumentError &) {
		return nd_error_set(ND_EINVAL, "no stemmer for '%s' (Xapian's languages: %s)", stemmer,
				    Xapian::Stem::get_available_languages().c_str());
	} catch (...) {
		return xapian_error(db);
	}
}

int nd_xdb_search(nd_xdb *db, const char *query, const nd_xdb_query *q,
		  nd_xdb_hit *hits, size_t *n, uint32_t *estimated)
{
	Xapian::termcount terms = 0;
	*n = 0;
	int rc = with_retry(db, [&] {
		*n = 0;
		Xapian::QueryParser qp;
		qp.set_database(*db->db);
		if (db->parser_auto)
			parser_defaults(db);
		if (db->stemmer.empty()) {
			qp.set_stemming_strategy(Xapian::QueryParser::STEM_NONE);
		} else {
			qp.set_stemmer(Xapian::Stem(db->stemmer));
			qp.set_stemming_strategy(Xapian::QueryParser::STEM_SOME); // as quest does
		}
		if (!db->word_prefix.empty())
			qp.add_prefix("", db->word_prefix);
		for (const auto &p : db->prefixes)
			qp.add_prefix(p.first, p.second);
		for (const auto &p : db->boolean_prefixes)
			qp.add_boolean_prefix(p.first, p.second);
		/* The matcher's time grows with the square of a query's terms
		 * (8,000 took 2 s, 200,000 minutes): a wildcard expands to the
		 * most frequent terms that fit, and longer queries are refused. */
		qp.set_max_expansion(db->max_query_terms, Xapian::Query::WILDCARD_LIMIT_MOST_FREQUENT);
		Xapian::Query parsed;
		try {
			parsed = qp.parse_query(query, Xapian::QueryParser::FLAG_DEFAULT |
							       Xapian::QueryParser::FLAG_WILDCARD);
		} catch (const Xapian::QueryParserError &e) {
			throw Xapian::InvalidArgumentError("cannot parse query '" + std::string(query).substr(0, 200) +
							   "': " + e.get_msg());
		}
		if ((terms = parsed.get_length()) > db->max_query_terms)
			return;
		Xapian::Enquire enq(*db->db);
		enq.set_query(parsed);
		enq.set_docid_order(Xapian::Enquire::ASCENDING);
		if (q->collapse_slot >= 0)
			enq.set_collapse_key(static_cast<Xapian::valueno>(q->collapse_slot), 1);
		Xapian::MSet ms = enq.get_mset(q->offset, q->max, q->check_at_least);
		for (Xapian::MSetIterator it = ms.begin(); it != ms.end() && *n < q->max; ++it) {
			hits[*n].docid = *it;
			hits[*n].weight = it.get_weight();
			hits[*n].collapsed = q->collapse_slot >= 0 ? it.get_collapse_count() : 0;
			++*n;
		}
		if (estimated)
			*estimated = ms.get_matches_estimated();
	});
	if (rc == ND_OK && terms > db->max_query_terms)
		return nd_error_set(ND_ETOOBIG, "a query of %u terms; at most %u (Xapian's matcher takes time "
				    "quadratic in them)", (unsigned)terms, (unsigned)db->max_query_terms);
	return rc;
}

} // extern "C"

int nd__xapian_terms_of(const char *text, size_t len, nd__xapian_terms *out)
{
	out->tokens = nullptr;
	out->n = 0;
	out->buf = nullptr;
	try {
		Xapian::Document doc;
		Xapian::TermGenerator tg;
		tg.set_document(doc);
		tg.index_text(std::string(text, len));
		// Each distinct term once, then (position, term) for every word.
		std::vector<std::string> terms;
		std::vector<std::pair<Xapian::termpos, uint32_t>> at;
		size_t bytes = 0;
		for (Xapian::TermIterator t = doc.termlist_begin(); t != doc.termlist_end(); ++t) {
			terms.push_back(*t);
			bytes += terms.back().size() + 1;
			for (Xapian::PositionIterator p = t.positionlist_begin(); p != t.positionlist_end(); ++p)
				at.emplace_back(*p, static_cast<uint32_t>(terms.size() - 1));
		}
		std::sort(at.begin(), at.end());
		out->tokens = static_cast<nd_token *>(malloc((at.size() + 1) * sizeof(nd_token)));
		out->buf = static_cast<char *>(malloc(bytes + 1));
		if (!out->tokens || !out->buf) {
			nd__xapian_terms_free(out);
			return nd_error_set(ND_ENOMEM, "out of memory for %zu words", at.size());
		}
		std::vector<const char *> where(terms.size());
		char *w = out->buf;
		for (size_t i = 0; i < terms.size(); i++) {
			memcpy(w, terms[i].c_str(), terms[i].size() + 1);
			where[i] = w;
			w += terms[i].size() + 1;
		}
		for (const auto &x : at) {
			out->tokens[out->n] = nd_token{where[x.second], static_cast<uint32_t>(terms[x.second].size()),
						       static_cast<uint32_t>(out->n + 1), 0};
			out->n++;
		}
		return ND_OK;
	} catch (...) {
		nd__xapian_terms_free(out);
		return xapian_error();
	}
}

void nd__xapian_terms_free(nd__xapian_terms *t)
{
	free(t->tokens);
	free(t->buf);
	t->tokens = nullptr;
	t->buf = nullptr;
	t->n = 0;
}

void nd__xdb_copy_settings(nd_xdb *to, const nd_xdb *from)
{
	to->word_prefix = from->word_prefix;
	to->uid_prefix = from->uid_prefix;
	to->max_query_terms = from->max_query_terms;
	to->parser_auto = from->parser_auto;
	to->stemmer = from->stemmer;
	to->prefixes = from->prefixes;
	to->boolean_prefixes = from->boolean_prefixes;
}

int nd_xdb_value_upper(nd_xdb *db, unsigned slot, char **out, size_t *len)
{
	*out = nullptr;
	return with_retry(db, [&] { *out = dup_string(db->db->get_value_upper_bound(slot), len); });
}

int nd_date_of_value(const void *val, size_t len, uint64_t *seconds)
{
	const unsigned char *v = static_cast<const unsigned char *>(val);
	if (!len)
		return ND_ENOTFOUND;
	size_t digits = 0;
	while (digits < len && v[digits] >= '0' && v[digits] <= '9')
		digits++;
	if (digits == len && len <= 14) {
		uint64_t n = 0;
		for (size_t i = 0; i < len; i++)
			n = n * 10 + (v[i] - '0');
		if (len != 8 && len != 12 && len != 14) {
			*seconds = n; // decimal seconds
			return ND_OK;
		}
		// YYYYMMDD[hhmm[ss]], UTC
		auto num = [&](size_t at, size_t w) {
			int x = 0;
			for (size_t i = at; i < at + w; i++)
				x = x * 10 + (v[i] - '0');
			return x;
		};
		struct tm tm = {};
		tm.tm_year = num(0, 4) - 1900;
		tm.tm_mon = num(4, 2) - 1;
		tm.tm_mday = num(6, 2);
		if (len >= 12)
			tm.tm_hour = num(8, 2), tm.tm_min = num(10, 2);
		if (len == 14)
			tm.tm_sec = num(12, 2);
		if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
		    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
			return ND_ENOTFOUND;
		time_t t = timegm(&tm);
		if (t < 0)
			return ND_ENOTFOUND;
		*seconds = (uint64_t)t;
		return ND_OK;
	}
	if (v[0] > 'f' && v[0] <= 'f' + 16 && len == (size_t)(v[0] - 'f') + 1) { // mu: 'f' + digits, then hex
		uint64_t n = 0;
		size_t i = 1;
		for (; i < len && std::isxdigit(v[i]) && !std::isupper(v[i]); i++)
			n = n * 16 + (uint64_t)(v[i] <= '9' ? v[i] - '0' : v[i] - 'a' + 10);
		if (i == len) {
			*seconds = n;
			return ND_OK;
		}
	}
	if (len == 4 && v[0] < 0x80) { // omindex: big-endian unsigned
		*seconds = (uint64_t)v[0] << 24 | (uint64_t)v[1] << 16 | (uint64_t)v[2] << 8 | v[3];
		return ND_OK;
	}
	if (v[0] < 0x80)
		return ND_ENOTFOUND; // sortable_serialise of a negative number, or not one
	double x = Xapian::sortable_unserialise(std::string(reinterpret_cast<const char *>(v), len));
	if (!(x >= 0 && x < 1099511627776.0))
		return ND_ENOTFOUND;
	*seconds = (uint64_t)x;
	return ND_OK;
}
