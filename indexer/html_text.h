/* Internal: HTML to plain text with libxml2's HTML parser. */
#ifndef ND_HTML_TEXT_H
#define ND_HTML_TEXT_H

#include "common/nd_buf.h"
#include "indexer/boilerplate.h"
#include "neardup/indexer.h"

/* Bounds on what libxml2 is given (see html_guard in html_text.c). */
#define ND_HTML_MAX_ELEMENTS 1000000
#define ND_HTML_MAX_ATTRS 256

/* Parse html[0..len) (charset from the document's meta tag or BOM; libxml2
 * falls back to ISO-8859-1 for undeclared non-UTF-8 bytes) and append its
 * visible text as UTF-8 to text, block elements separated by newlines,
 * script/style/noscript/template dropped.  The <title> goes to title (may
 * be NULL); the page's own address, when it gives one (an absolute
 * <link rel=canonical>, else <meta property=og:url>), to url (may be NULL;
 * NUL-terminated, untouched when there is none).  site (may be NULL) gets
 * "http://HOST/" when most of the page's absolute links, and 5 or more,
 * go to HOST: a page links to its own site more than to any other, so
 * that names its site when the page gives no address.  name is used in error messages.  Never recurses, so deeply
 * nested markup cannot exhaust the stack.  ND_ETOOBIG past
 * ND_HTML_MAX_ELEMENTS elements; attributes past ND_HTML_MAX_ATTRS in a
 * tag are dropped. */
int nd_html_to_text(const char *html, size_t len, const char *name, nd_buf *text, nd_buf *title,
		    nd_buf *url, nd_buf *site, nd_buf *blocks);
/* blocks (may be NULL) gets an nd_html_block per block with visible text. */

/* The host of url (after "scheme://" and any user, without port or
 * trailing dot; an [IPv6] address with its brackets): its length, and
 * *host where it starts in url; 0 for a URL without one. */
size_t nd_url_host(const char *url, const char **host);
/* A host's name as a site, host[0..len) without a leading "www." (sites
 * serve their pages under both names): its length, *bare where it starts. */
size_t nd_host_bare(const char *host, size_t len, const char **bare);

/* The charset a page declares in its first 8 KiB: none; Latin-1,
 * windows-1252 or ASCII (a page that is not UTF-8 is then read as
 * windows-1252, as it is with none); or another, which libxml2 decodes. */
enum { ND_HTML_CHARSET_NONE, ND_HTML_CHARSET_LATIN, ND_HTML_CHARSET_OTHER };
int nd_html_declares_charset(const char *html, size_t len);

/* Main content of fewer characters than this (nd_char_weight), on a page
 * that does not mark it, is a stub: about thirty words. */
#define ND_HTML_STUB_CHARS 200
/* On a page that marks it, under this: a line of under about eight
 * words, fewer than the verdict compares as more than the same text, so
 * that two such pages of two sites were one text whatever else they say
 * (a class hierarchy drawn as an image: "Go to the textual class
 * hierarchy" in every library's).  Either stub keeps the page whole. */
#define ND_HTML_MARKED_STUB_CHARS 40

/* The text to index: with ND_CONTENT_FULL all visible text, with
 * ND_CONTENT_MAIN the blocks indexer/boilerplate.c keeps, or all visible
 * text when it keeps none (a page in a language without a stopword list,
 * or with no prose) or, on a page that does not mark its main content,
 * only a stub (an index: a page of lists, whose one line of prose would
 * make it a copy of every other), less the chrome it marks when a line is
 * left without it; info->good_blocks is 0 when the text is all visible
 * text, else the blocks kept.  full (may
 * be NULL) gets all visible text too; info (may be NULL) says what was
 * kept; title, url and site as nd_html_to_text's. */
int nd_html_extract(nd_tokenizer *tk, const char *html, size_t len, const char *name,
		    nd_content mode, nd_buf *text, nd_buf *full, nd_buf *title, nd_buf *url,
		    nd_buf *site, nd_boilerplate_info *info);

#endif
