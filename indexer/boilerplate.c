#include "indexer/boilerplate.h"
#include "neardup/common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

/* jusText's lengths and link density.  Its stopword densities (0.30 and
 * 0.32) suit its own lists of about 300 words a language; with the shorter
 * Snowball lists prose reads sparser, so ours are measured on news prose
 * (paragraphs of 70+ characters; scripts/stopword-density.py):
 * 0.22 leaves 8.3% of Reuters-21578's 83,862 paragraphs and 2.8% of BBC
 * News' 10,151 below it, 0.18 leaves 3.7% and 1.9% (jusText's 0.32 would
 * leave 38% and 14%). */
#define LENGTH_LOW 70        /* characters: shorter blocks are "short" */
#define LENGTH_HIGH 200      /* longer prose blocks are good outright */
#define STOPWORDS_LOW 0.18   /* stopword density of borderline prose */
#define STOPWORDS_HIGH 0.22  /* and of clear prose */
#define MAX_LINK_DENSITY 0.2 /* share of characters in links */
#define MAX_LINK_DENSITY_PROSE 0.34 /* ... in long prose: Kohlschuetter's 1/3, rounded up */
#define MAX_HEADING_DISTANCE 200
#define SAID_MAX 16          /* times a word counts towards the page's language */
#define RUN_SPAN 2           /* a run of near-good blocks this many LENGTH_HIGHs long is good */

/* ---- stopword table: folded word -> bit set of languages ---- */

typedef struct {
	char *word;
	uint32_t langs;
} stop_slot;

static stop_slot *table;
static size_t table_mask;
static int nlangs;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static uint64_t hash_word(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static stop_slot *slot_of(const char *w, size_t n)
{
	size_t i = (size_t)hash_word(w, n) & table_mask;
	while (table[i].word && (strlen(table[i].word) != n || memcmp(table[i].word, w, n)))
		i = (i + 1) & table_mask;
	return &table[i];
}

/* Built once per process and kept: the lists are static data, folded with
 * the tokenizer so they match the index's words (German "daß" -> "dass"). */
static void build_table(void)
{
	nd_tokenizer *tk;
	size_t words = 0;
	for (nlangs = 0; nd__stoplists[nlangs].name; nlangs++)
		for (const char *p = nd__stoplists[nlangs].words; *p; p++)
			words += *p == '\n';
	if (nlangs > 32 || nd_tokenizer_new(&tk) < 0)
		return;
	size_t size = 64;
	while (size < 2 * words)
		size *= 2;
	stop_slot *t = calloc(size, sizeof(*t));
	if (!t) {
		nd_tokenizer_free(tk);
		return;
	}
	table = t;
	table_mask = size - 1;
	for (int l = 0; l < nlangs; l++) {
		const char *p = nd__stoplists[l].words;
		while (*p) {
			const char *e = strchr(p, '\n');
			char *folded = NULL;
			size_t flen;
			if (nd_tokenizer_fold(tk, p, (size_t)(e - p), &folded, &flen) == ND_OK && flen) {
				stop_slot *s = slot_of(folded, flen);
				if (s->word)
					free(folded);
				else
					s->word = folded;
				s->langs |= 1u << l;
			} else
				free(folded);
			p = e + 1;
		}
	}
	nd_tokenizer_free(tk);
}

/* ---- classification ---- */

/* Characters of text[a..b) with whitespace runs counted once, trimmed. */
static size_t visible_chars(const char *text, size_t a, size_t b)
{
	size_t n = 0;
	int space = 1;
	for (size_t i = a; i < b; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			space = 1;
			continue;
		}
		if ((c & 0xC0) == 0x80)
			continue; /* UTF-8 continuation byte */
		if (space && n)
			n++;
		space = 0;
		n += nd_char_weight((const unsigned char *)text + i, b - i);
	}
	return n;
}

static int has_copyright(const char *text, size_t a, size_t b)
{
	for (size_t i = a; i + 1 < b; i++)
		if ((unsigned char)text[i] == 0xC2 && (unsigned char)text[i + 1] == 0xA9)
			return 1; /* U+00A9 */
	return 0;
}

/* Nearest class before (dir -1) or after (+1) block i that is not short
 * (nor near-good when skip_neargood); the page's edges count as bad. */
/* For every block, the class of the nearest block before it (before[i])
 * and after it (after[i]) that is not short (nor near-good, with
 * skip_neargood); bad past the ends.  Two passes: looking the neighbour
 * up per block cost quadratic time on runs of short blocks. */
static void neighbours(const uint8_t *cls, size_t n, int skip_neargood, uint8_t *before, uint8_t *after)
{
	uint8_t last = ND_BLOCK_BAD;
	for (size_t i = 0; i < n; i++) {
		before[i] = last;
		if (cls[i] != ND_BLOCK_SHORT && !(skip_neargood && cls[i] == ND_BLOCK_NEARGOOD))
			last = cls[i];
	}
	last = ND_BLOCK_BAD;
	for (size_t i = n; i-- > 0;) {
		after[i] = last;
		if (cls[i] != ND_BLOCK_SHORT && !(skip_neargood && cls[i] == ND_BLOCK_NEARGOOD))
			last = cls[i];
	}
}

typedef struct {
	size_t chars, words, stops;
} block_stat;

/* Whether a word is written in a script no stopword list reads (Hangul,
 * Greek, Arabic, Hebrew, Devanagari, Thai, ...): the lists are of
 * languages written in Latin, Cyrillic, Han and kana. */
static int unlisted_script(const char *w, size_t len)
{
	UChar32 c;
	size_t i = 0;
	UErrorCode err = U_ZERO_ERROR;
	if (!len || (unsigned char)w[0] < 0x80)
		return 0; /* ASCII: Latin, digits or symbols, with no lookup (most words) */
	U8_NEXT(w, i, len, c);
	if (c < 0 || !u_isalpha(c))
		return 0; /* digits and symbols are in no language */
	UScriptCode sc = uscript_getScript(c, &err);
	return U_SUCCESS(err) && sc != USCRIPT_LATIN && sc != USCRIPT_CYRILLIC && sc != USCRIPT_HAN &&
	       sc != USCRIPT_HIRAGANA && sc != USCRIPT_KATAKANA && sc != USCRIPT_COMMON && sc != USCRIPT_INHERITED;
}

/* The page's language (the stopword list that covers most of its
 * words; -1 if none; ND_UNLISTED when most of its words are in a script
 * no list reads) and each block's words and stopwords: tokens and
 * blocks both run in order. */
static int block_stats(const nd_token *toks, size_t ntok, const nd_html_block *blocks, size_t n,
		       block_stat *bs)
{
	uint32_t *mask = malloc((ntok ? ntok : 1) * sizeof(*mask));
	unsigned char *said = calloc(table_mask + 1, 1);
	size_t per_lang[32] = {0}, unlisted = 0;
	if (!mask || !said) {
		free(mask);
		free(said);
		return -2;
	}
	for (size_t t = 0; t < ntok; t++) {
		stop_slot *s = slot_of(toks[t].text, toks[t].len);
		mask[t] = s->word ? s->langs : 0;
		/* Each word counts at most SAID_MAX times: one word said often
		 * (a listing's parameter "il", French for "he") is no language. */
		if (s->word && said[s - table] < SAID_MAX) {
			said[s - table]++;
			for (uint32_t m = mask[t]; m; m &= m - 1)
				per_lang[__builtin_ctz(m)]++;
		}
		unlisted += unlisted_script(toks[t].text, toks[t].len);
	}
	free(said);
	int lang = -1;
	for (int l = 0; l < nlangs; l++)
		if (per_lang[l] && (lang < 0 || per_lang[l] > per_lang[lang]))
			lang = l;
	if (2 * unlisted > ntok)
		lang = ND_UNLISTED; /* no stopwords: another list's would be chance */
	size_t b = 0;
	for (size_t t = 0; t < ntok; t++) {
		while (b < n && blocks[b].end <= toks[t].offset)
			b++;
		if (b == n)
			break;
		if (toks[t].offset < blocks[b].start)
			continue;
		bs[b].words++;
		if (lang == ND_UNLISTED || (lang >= 0 && (mask[t] >> lang & 1)))
			bs[b].stops++; /* without a list, every word reads as prose */
	}
	free(mask);
	return lang;
}

/* Each block's class on its own: length, link density, stopword density.
 * A page in a script no list reads is classified as jusText does without
 * a list, by length and link density, every word read as a stopword
 * (block_stats) and a heading short: a list that read nothing of it, or
 * none, had kept its one paragraph with English in it (252 characters of
 * a Korean chapter's 16,957). */
static void classify_alone(const char *text, const nd_html_block *blocks, size_t n, block_stat *bs, int unlisted,
			   uint8_t *cf)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = bs[i].chars = visible_chars(text, blocks[i].start, blocks[i].end);
		double link = len ? (double)blocks[i].link_chars / (double)len : 0;
		double stop = bs[i].words ? (double)bs[i].stops / (double)bs[i].words : 0;
		if (link > (len > LENGTH_HIGH && stop >= STOPWORDS_HIGH ? MAX_LINK_DENSITY_PROSE : MAX_LINK_DENSITY))
			cf[i] = ND_BLOCK_BAD;
		else if (has_copyright(text, blocks[i].start, blocks[i].end))
			cf[i] = ND_BLOCK_BAD; /* a copyright line */
		else if (len < LENGTH_LOW || (blocks[i].heading && link == 0 && (stop < STOPWORDS_LOW || unlisted)))
			/* A heading says what follows in few stopwords, however
			 * long ("CVE-2019-12781: Incorrect HTTP detection with
			 * reverse-proxy connecting via HTTPS"): what follows tells. */
			cf[i] = link > 0 ? ND_BLOCK_BAD : ND_BLOCK_SHORT;
		else if (stop >= STOPWORDS_HIGH)
			cf[i] = len > LENGTH_HIGH ? ND_BLOCK_GOOD : ND_BLOCK_NEARGOOD;
		else if (stop >= STOPWORDS_LOW)
			cf[i] = ND_BLOCK_NEARGOOD;
		else
			cf[i] = ND_BLOCK_BAD;
	}
}

/* Wire stories are often cut at every sentence: paragraphs of 70-200
 * characters, none long enough to be good on its own, so jusText drops
 * the article when boilerplate surrounds it.  A run of near-good blocks
 * (short ones may sit between) holding LENGTH_HIGH * RUN_SPAN characters
 * is prose as a whole, and good.  A page with prose but no run of it: its
 * prose-dense blocks. */
static void promote_prose(size_t n, const block_stat *bs, uint8_t *cf)
{
	for (size_t i = 0; i < n;) {
		if (cf[i] != ND_BLOCK_NEARGOOD) {
			i++;
			continue;
		}
		size_t j = i, chars = 0, near = 0;
		for (; j < n && (cf[j] == ND_BLOCK_NEARGOOD || cf[j] == ND_BLOCK_SHORT); j++)
			if (cf[j] == ND_BLOCK_NEARGOOD)
				chars += bs[j].chars, near++;
		if (near >= 2 && chars >= LENGTH_HIGH * RUN_SPAN)
			for (size_t k = i; k < j; k++)
				if (cf[k] == ND_BLOCK_NEARGOOD)
					cf[k] = ND_BLOCK_GOOD;
		i = j;
	}
	size_t good = 0;
	for (size_t i = 0; i < n; i++)
		good += cf[i] == ND_BLOCK_GOOD;
	for (size_t i = 0; i < n && good == 0; i++)
		if (cf[i] == ND_BLOCK_NEARGOOD && bs[i].words &&
		    (double)bs[i].stops / (double)bs[i].words >= STOPWORDS_HIGH)
			cf[i] = ND_BLOCK_GOOD; /* good stays 0: every such block is promoted */
}

/* Readers' comments follow the article they are about: inside a
 * container marked as comments (html_text.c), after good text outside
 * one, they are boilerplate however much they read like prose.  The order
 * matters: some sites call the article's own table "Comment". */
static void drop_comments(const nd_html_block *blocks, size_t n, uint8_t *cf)
{
	for (size_t i = 0, seen = 0; i < n; i++) {
		if (blocks[i].comments && seen)
			cf[i] = ND_BLOCK_BAD;
		seen |= cf[i] == ND_BLOCK_GOOD && !blocks[i].comments;
	}
}

/* The page's main content as it marks it, in mine[]: its <main> (or ARIA
 * main), else its largest <article> (or ARIA article), less the chrome in
 * it.  Trusted only when it holds at least a quarter as much text as the
 * good text (cf) outside it and the chrome: a mark can mislead as a name
 * can (a main element that a script fills; other articles are teaser
 * cards).  Returns whether the page marks it so. */
static int main_blocks(const nd_html_block *blocks, size_t n, const uint8_t *cf, uint8_t *mine)
{
	int primary = 0;
	uint32_t best = 0;
	size_t best_len = 0, in = 0, out = 0;
	for (size_t i = 0; i < n; i++)
		primary |= blocks[i].main && !blocks[i].chrome;
	for (size_t i = 0, j; i < n && !primary; i = j) { /* an article's blocks follow each other */
		size_t len = 0;
		for (j = i; j < n && blocks[j].article == blocks[i].article; j++)
			len += blocks[j].chrome ? 0 : blocks[j].end - blocks[j].start;
		if (blocks[i].article && len > best_len)
			best = blocks[i].article, best_len = len;
	}
	for (size_t i = 0; i < n; i++) {
		mine[i] = !blocks[i].chrome && (primary ? blocks[i].main : best && blocks[i].article == best);
		if (mine[i])
			in += blocks[i].end - blocks[i].start;
		else if (!blocks[i].chrome && cf[i] == ND_BLOCK_GOOD)
			out += blocks[i].end - blocks[i].start;
	}
	int marked = in && 4 * in >= out;
	if (!marked)
		memset(mine, 0, n);
	return marked;
}

/* A page that marks its main content (readability's reading, not
 * jusText's) is that content, all of it: its index, table of contents,
 * code or a stub of a line and a link as much as its prose, less the
 * chrome and the readers' comments inside it.  Classified block by
 * block, a small edit flips such a page between a line of it and all of
 * it, and a page of links kept only its footer's licence. */
static void keep_main(const nd_html_block *blocks, size_t n, const uint8_t *mine, uint8_t *cls)
{
	for (size_t i = 0, seen = 0; i < n; i++) {
		cls[i] = mine[i] && !(blocks[i].comments && seen) ? ND_BLOCK_GOOD : ND_BLOCK_BAD;
		seen |= mine[i] && !blocks[i].comments;
	}
}

/* An element of the site's chrome (html_text.c: landmarks, ARIA roles,
 * names) is boilerplate when good text outside all chrome is at least a
 * quarter of the good text in it.  A page that is all chrome, or whose
 * article sits in an element named like chrome (a layout named for its
 * sidebar, with a paragraph of prose outside), keeps what jusText keeps;
 * a short article between an "about" box and a legal notice does not
 * keep both because together they outweigh it.  An element's blocks
 * are one run. */
static void drop_chrome(const nd_html_block *blocks, size_t n, uint8_t *cf)
{
	size_t out = 0;
	for (size_t i = 0; i < n; i++)
		if (cf[i] == ND_BLOCK_GOOD && !blocks[i].chrome)
			out += blocks[i].end - blocks[i].start;
	for (size_t i = 0, j; out && i < n; i = j) {
		size_t in = 0;
		for (j = i; j < n && blocks[j].chrome == blocks[i].chrome; j++)
			in += cf[j] == ND_BLOCK_GOOD ? blocks[j].end - blocks[j].start : 0;
		for (size_t k = i; blocks[i].chrome && 4 * out >= in && k < j; k++)
			cf[k] = ND_BLOCK_BAD;
	}
}

int nd_boilerplate_keep_title(const nd_html_block *blocks, size_t n, uint8_t *cls)
{
	size_t i = 0;
	while (i < n && cls[i] != ND_BLOCK_GOOD)
		i++;
	if (i == n)
		return 0;
	/* A title can be blocks: Doxygen's div.title holds the page's name,
	 * then its groups' trail as a div of its own. */
	int kept = 0;
	for (; i > 0 && blocks[i - 1].title; i--, kept++)
		cls[i - 1] = ND_BLOCK_GOOD;
	return kept;
}

/* 1 if a good block (in cls) starts within MAX_HEADING_DISTANCE
 * characters after block i. */
static int good_follows(const uint8_t *cls, const block_stat *bs, size_t n, size_t i)
{
	size_t dist = 0;
	for (size_t j = i + 1; j < n && dist <= MAX_HEADING_DISTANCE; j++) {
		if (cls[j] == ND_BLOCK_GOOD)
			return 1;
		dist += bs[j].chars;
	}
	return 0;
}

/* Short blocks take their neighbours' class, read on the classes before
 * this pass (cf); a good-bad boundary leans good when the bad side is
 * near-good text.  Then near-good blocks are content unless boilerplate is
 * on both sides.  nb: room for 4n bytes. */
static void classify_in_context(const uint8_t *cf, size_t n, uint8_t *mid, uint8_t *nb, uint8_t *cls)
{
	uint8_t *pb = nb, *qb = nb + n, *pn = nb + 2 * n, *qn = nb + 3 * n;
	memcpy(cls, cf, n);
	neighbours(cf, n, 1, pb, qb);
	neighbours(cf, n, 0, pn, qn);
	for (size_t i = 0; i < n; i++) {
		if (cf[i] != ND_BLOCK_SHORT)
			continue;
		uint8_t p = pb[i], q = qb[i];
		if (p == ND_BLOCK_GOOD && q == ND_BLOCK_GOOD)
			cls[i] = ND_BLOCK_GOOD;
		else if (p == ND_BLOCK_BAD && q == ND_BLOCK_BAD)
			cls[i] = ND_BLOCK_BAD;
		else if ((p == ND_BLOCK_BAD && pn[i] == ND_BLOCK_NEARGOOD) ||
			 (q == ND_BLOCK_BAD && qn[i] == ND_BLOCK_NEARGOOD))
			cls[i] = ND_BLOCK_GOOD;
		else
			cls[i] = ND_BLOCK_BAD;
	}
	memcpy(mid, cls, n);
	neighbours(mid, n, 1, pb, qb);
	for (size_t i = 0; i < n; i++) {
		if (mid[i] != ND_BLOCK_NEARGOOD)
			continue;
		cls[i] = (pb[i] == ND_BLOCK_BAD && qb[i] == ND_BLOCK_BAD) ? ND_BLOCK_BAD : ND_BLOCK_GOOD;
	}
}

int nd_boilerplate_classify(nd_tokenizer *tk, const char *text, size_t text_len,
			    const nd_html_block *blocks, size_t n, uint8_t *cls,
			    nd_boilerplate_info *info)
{
	const nd_token *toks;
	size_t ntok;
	int rc;
	pthread_once(&table_once, build_table);
	if (!table)
		return nd_error_set(ND_ENOMEM, "out of memory building the stopword table");
	if (info) {
		info->language = -1;
		info->good_blocks = 0;
		info->blocks = n;
		info->marked = 0;
	}
	if (n == 0)
		return ND_OK;
	if ((rc = nd_tokenize(tk, text, text_len, 0, &toks, &ntok, NULL)) < 0)
		return rc;
	block_stat *bs = calloc(n, sizeof(*bs));
	/* context-free classes; after the short pass; neighbours (4 arrays); main content */
	uint8_t *cf = malloc(7 * n), *mid = cf ? cf + n : NULL, *nb = cf ? cf + 2 * n : NULL;
	uint8_t *mine = cf ? cf + 6 * n : NULL;
	int lang = bs && cf ? block_stats(toks, ntok, blocks, n, bs) : -2;
	if (lang == -2) {
		free(bs);
		free(cf);
		return nd_error_set(ND_ENOMEM, "out of memory classifying %zu blocks", n);
	}
	classify_alone(text, blocks, n, bs, lang == ND_UNLISTED, cf);
	promote_prose(n, bs, cf);
	drop_comments(blocks, n, cf);
	int marked = main_blocks(blocks, n, cf, mine);
	drop_chrome(blocks, n, cf);
	/* A short heading shortly before good text becomes near-good. */
	for (size_t i = 0; i < n; i++)
		if (blocks[i].heading && cf[i] == ND_BLOCK_SHORT && good_follows(cf, bs, n, i))
			cf[i] = ND_BLOCK_NEARGOOD;
	classify_in_context(cf, n, mid, nb, cls);
	/* A heading that was not boilerplate on its own, followed closely by
	 * content, is the content's heading. */
	for (size_t i = 0; i < n; i++)
		if (blocks[i].heading && cls[i] == ND_BLOCK_BAD && cf[i] != ND_BLOCK_BAD && good_follows(cls, bs, n, i))
			cls[i] = ND_BLOCK_GOOD;
	if (marked) /* decides every block: the passes above read the rest */
		keep_main(blocks, n, mine, cls);
	if (info) {
		info->language = lang;
		info->marked = marked;
		for (size_t i = 0; i < n; i++)
			info->good_blocks += cls[i] == ND_BLOCK_GOOD;
	}
	free(bs);
	free(cf);
	return ND_OK;
}
