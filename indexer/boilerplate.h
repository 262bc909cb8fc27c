/* Internal: main content of a web page, told from boilerplate (navigation,
 * link lists, footers, comments' chrome) block by block.
 *
 * The method is jusText's (Pomikálek 2011), which follows Kohlschütter et
 * al.'s finding that shallow features separate the two: a block is
 * boilerplate when much of its text is link text, and content when it is
 * long and reads like prose, i.e. many of its words are stopwords of the
 * page's language.  Short blocks and borderline ones then take the class
 * of their neighbours, and a heading just before content is kept.  The
 * language is the stopword list (indexer/stopwords/) that covers most of
 * the page's words. */
#ifndef ND_BOILERPLATE_H
#define ND_BOILERPLATE_H

#include "neardup/tokenizer.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
	const char *name;  /* language, e.g. "english" */
	const char *words; /* one per line, NUL-terminated */
} nd_stoplist;

/* Every list, ended by {NULL, NULL} (generated: stopwords_data.c). */
extern const nd_stoplist nd__stoplists[];

/* How much a character starting at p (avail bytes on) counts in the
 * lengths and link densities: a Han, kana or Hangul character 3, as it
 * says about as much as three Latin letters (jusText's lengths were
 * measured on them), any other 1. */
static inline size_t nd_char_weight(const unsigned char *p, size_t avail)
{
	if (avail < 3 || (p[0] & 0xF0) != 0xE0 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
		return 1;
	unsigned cp = (unsigned)(p[0] & 0x0F) << 12 | (unsigned)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
	return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3400 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
			       (cp >= 0xF900 && cp <= 0xFAFF)
		       ? 3
		       : 1;
}

/* One block of page text as the HTML walk cut it. */
typedef struct {
	size_t start, end;  /* bytes of its text in the page text */
	size_t link_chars;  /* characters inside <a> (nd_char_weight) */
	uint8_t heading;    /* some text inside h1..h6 */
	uint8_t title;      /* some text inside the page's title heading: <h1>,
			       or Doxygen's <div class=title> */
	uint8_t comments;   /* some text inside readers' comments (class or id) */
	uint8_t main;       /* some text inside <main> or ARIA role main */
	uint32_t chrome;    /* the outermost element of the page's own navigation,
			       header, footer or sidebar (HTML5 landmarks: nav,
			       aside, footer, a header outside the article; ARIA
			       roles; names) its text is in, from 1; 0 for none */
	uint32_t article;   /* the outermost <article> (or ARIA role article)
			       its text is in, numbered from 1; 0 for none */
} nd_html_block;

typedef enum {
	ND_BLOCK_BAD = 0,
	ND_BLOCK_SHORT = 1,
	ND_BLOCK_NEARGOOD = 2,
	ND_BLOCK_GOOD = 3,
} nd_block_class;

#define ND_UNLISTED (-3)

typedef struct {
	int language;        /* index into nd__stoplists, -1 when no list matched,
				ND_UNLISTED when most words are in a script no
				list reads (classified by length and links) */
	size_t good_blocks;  /* blocks kept */
	size_t blocks;       /* blocks seen */
	int marked;          /* the page marks its main content, kept whole */
} nd_boilerplate_info;

/* Classify blocks[0..n) of text: cls[i] gets ND_BLOCK_GOOD for content and
 * ND_BLOCK_BAD for boilerplate.  tk tokenizes and folds the words as the
 * index does.  info may be NULL. */
int nd_boilerplate_classify(nd_tokenizer *tk, const char *text, size_t text_len,
			    const nd_html_block *blocks, size_t n, uint8_t *cls,
			    nd_boilerplate_info *info);

/* The page's title heading (the blocks with .title) that stands right
 * before the first block cls keeps is kept too: the name of what follows,
 * though it stands in the page's header, outside the article it marks, or
 * is a trail of links ("Pango > Context > load_fontset").  Two pages of
 * one template often differ in little else, and the verdict reads a
 * text's first words as what it is about.  Returns the blocks it kept. */
int nd_boilerplate_keep_title(const nd_html_block *blocks, size_t n, uint8_t *cls);

#endif
