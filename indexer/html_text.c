#include "indexer/html_text.h"
#include "indexer/boilerplate.h"
#include "common/nd_hash.h"
#include "neardup/common.h"
#include "neardup/tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

/* Whether an element (name; in_main: inside the article) is never read.
 * Form controls too: a <select> of 500 film titles is never content.
 * An <iframe>'s children are the fallback for browsers without frames
 * (often an advert's markup as escaped text), never shown.  A crawler
 * runs no script and is shown a <noscript>, so inside the article it is
 * the article's (Sphinx's search page asks, in the page's language, to
 * turn JavaScript on; a script's fallback is its content).  Outside it is
 * the page's frame: a script application's "enable JavaScript to run this
 * app", which would make every page of such a site one text where its
 * reader sees many. */
static int is_skipped(const char *name, size_t in_main)
{
	static const char *const skip[] = {"script", "style", "template", "head", "svg",
					   "object", "select", "option", "button", "textarea", "iframe",
					   NULL};
	for (int i = 0; skip[i]; i++)
		if (!strcasecmp(name, skip[i]))
			return 1;
	return !in_main && !strcasecmp(name, "noscript");
}

static int is_block(const char *name)
{
	static const char *const blocks[] = {
		"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6",
		"tr", "td", "th", "table", "section", "article", "header", "footer",
		"nav", "aside", "blockquote", "pre", "dd", "dt", "dl", "hr", "form",
		"title", "body", "main", "figure", "figcaption", "address", NULL};
	for (int i = 0; blocks[i]; i++)
		if (!strcasecmp(name, blocks[i]))
			return 1;
	return 0;
}

static void collect_text(xmlNode *node, nd_buf *out, int *rc)
{
	for (xmlNode *c = node ? node->children : NULL; c && *rc == ND_OK; c = c->next)
		if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
			const char *s = (const char *)c->content;
			if (s)
				*rc = nd_buf_put(out, s, strlen(s));
		}
}

static int is_heading(const char *name)
{
	return (name[0] == 'h' || name[0] == 'H') && name[1] >= '1' && name[1] <= '6' && !name[2];
}

/* n's attribute name, read in place (NULL: none): the HTML parser keeps
 * an attribute's value as one text node. */
static const char *attr_of(xmlNode *n, const char *name)
{
	xmlAttr *a = n->properties ? xmlHasNsProp(n, (const xmlChar *)name, NULL) : NULL;
	return a && a->children && a->children->content ? (const char *)a->children->content : NULL;
}

/* Readers' comments under an article are prose, so jusText keeps them,
 * and they can outgrow the article tenfold.  Sites mark their containers:
 * a class or id with "comment" in it ("comments", "commentBody",
 * "blog_comments"), but not "commentary", which is an article kind. */
static int is_comments(xmlNode *n)
{
	static const char *const attrs[] = {"class", "id", NULL};
	for (int a = 0; attrs[a]; a++)
		for (const char *p = attr_of(n, attrs[a]); p && *p; p++)
			if (!strncasecmp(p, "comment", 7) && strncasecmp(p + 7, "ary", 3))
				return 1;
	return 0;
}

static int one_of(const char *v, const char *const *words)
{
	for (int i = 0; v && words[i]; i++)
		if (!strcasecmp(v, words[i]))
			return 1;
	return 0;
}

/* Whether the space-separated list v (a class attribute) holds the word
 * tok. */
static int has_token(const char *v, const char *tok)
{
	static const char space[] = " \t\n\r\f";
	size_t n = strlen(tok);
	while (v && *v) {
		v += strspn(v, space);
		size_t len = strcspn(v, space);
		if (len == n && !strncmp(v, tok, n))
			return 1;
		v += len;
	}
	return 0;
}

/* Generators whose pages mark their article in a way of their own (read
 * from <meta name=generator>). */
enum { GEN_OTHER, GEN_DOXYGEN, GEN_GTKDOC };

/* A heading that titles a page: <h1>, and on a page Doxygen wrote its
 * <div class=title> ("cassert File Reference"), which stands outside the
 * <div class=contents> read as the article. */
static int is_title(xmlNode *n, int gen)
{
	const char *nm = (const char *)n->name;
	if (!strcasecmp(nm, "h1"))
		return 1;
	return gen == GEN_DOXYGEN && !strcasecmp(nm, "div") && has_token(attr_of(n, "class"), "title");
}

/* A member a class page inherits, on a page Doxygen wrote: its rows are
 * class "inherit", which Doxygen's stylesheet hides until the reader opens
 * them (the header "... inherited from X" stays).  They are the base
 * class's text, the same on every subclass's page. */
static int doxygen_inherited(xmlNode *n, int gen)
{
	return gen == GEN_DOXYGEN && has_token(attr_of(n, "class"), "inherit");
}

/* The article itself: <main> or role=main (2), <article>, role=article
 * or <section id=main> (1: gi-docgen's page, whose reference entries
 * jusText reads as a stub or not as one word of the description changes),
 * and by its generator (gen) 1 for: on a page Doxygen wrote, <div
 * class=contents> (a class page's member tables are its text, the prose
 * around them what it inherits); on a page GTK-Doc wrote, a <div> of
 * <body> other than its footer (the refentry or chapter below the
 * navigation table: a reference's function tables and parameter lists
 * are its text, which read as link lists and short cells).  Not DocBook's
 * XSL pages, though they are laid out alike: there a book's tables and
 * listings, which its translations share, read as its text.  0 for
 * neither.  Only there: elsewhere such a name may wrap a whole page, its
 * menus with it. */
static int main_kind(xmlNode *n, int gen)
{
	static const char *const roles[] = {"main", NULL}, *const articles[] = {"article", NULL};
	static const char *const named[] = {"contents", NULL};
	static const char *const footer[] = {"footer", NULL};
	const char *nm = (const char *)n->name;
	if (!strcasecmp(nm, "main") || one_of(attr_of(n, "role"), roles))
		return 2;
	if (!strcasecmp(nm, "article") || one_of(attr_of(n, "role"), articles) ||
	    (!strcasecmp(nm, "section") && one_of(attr_of(n, "id"), roles)))
		return 1;
	if (strcasecmp(nm, "div"))
		return 0;
	if (gen == GEN_DOXYGEN)
		return one_of(attr_of(n, "class"), named);
	return gen == GEN_GTKDOC && n->parent && n->parent->type == XML_ELEMENT_NODE &&
	       !strcasecmp((const char *)n->parent->name, "body") && !one_of(attr_of(n, "class"), footer);
}

/* Whether a class or id names the site's chrome: one of its words (cut
 * at '-', '_', spaces and case changes) begins or ends with a chrome
 * word ("sidebar", "mainNav", "footer-links"), and none names the article
 * ("article-header", "content-sidebar" are the article's). */
static int names_chrome(const char *v)
{
	static const char *const chrome[] = {"nav", "menu", "footer", "header", "sidebar", "breadcrumb",
					     "banner", "masthead", "widget", "related", "share", "social",
					     "sponsor", "advert", "cookie", "pagination", "pager", "popup",
					     "subscribe", "newsletter", "toolbar", "skyscraper", NULL};
	static const char *const article[] = {"article", "content", "story", "post", "entry",
					      "body", "text", NULL};
	int hit = 0;
	for (const char *p = v; p && *p;) {
		while (*p && !isalnum((unsigned char)*p))
			p++;
		const char *w = p;
		/* a word: letters and digits up to a separator or an upper case
		 * letter after a lower case one */
		while (*p && isalnum((unsigned char)*p) &&
		       !(p > w && isupper((unsigned char)*p) && islower((unsigned char)p[-1])))
			p++;
		size_t len = (size_t)(p - w);
		for (int i = 0; len && article[i]; i++) {
			size_t k = strlen(article[i]);
			if (k <= len && !strncasecmp(w, article[i], k))
				return 0;
		}
		for (int i = 0; len && chrome[i] && !hit; i++) {
			size_t k = strlen(chrome[i]);
			hit = k <= len && (!strncasecmp(w, chrome[i], k) || !strncasecmp(w + len - k, chrome[i], k));
		}
	}
	return hit;
}

/* The site's own chrome: as HTML5 and ARIA mark it (navigation, sidebars,
 * footers, and a header that is not the article's; in_main: articles
 * open around n), or as its class or id names it.  What sites put there
 * is their template, however much it reads like prose (an "about us"
 * paragraph, teasers). */
static int is_chrome(xmlNode *n, size_t in_main)
{
	static const char *const roles[] = {"navigation", "banner", "contentinfo", "complementary", "search", NULL};
	static const char *const attrs[] = {"class", "id", NULL};
	const char *nm = (const char *)n->name;
	if (!strcasecmp(nm, "nav") || !strcasecmp(nm, "aside") || !strcasecmp(nm, "footer") ||
	    (!strcasecmp(nm, "header") && !in_main) || one_of(attr_of(n, "role"), roles))
		return 1;
	if (in_main || !strcasecmp(nm, "html") || !strcasecmp(nm, "body"))
		return 0; /* inside the article, its own parts are named freely;
			     the page's own classes say its state ("sidebar-visible") */
	for (int a = 0; attrs[a]; a++)
		if (names_chrome(attr_of(n, attrs[a])))
			return 1;
	return 0;
}

static int is_link(const char *name)
{
	return (name[0] == 'a' || name[0] == 'A') && !name[1];
}

/* Code in running text: documentation links each name of an API it
 * mentions (Sphinx, rustdoc, Javadoc), which is prose, not navigation. */
static int is_code(const char *name)
{
	return !strcasecmp(name, "code") || !strcasecmp(name, "tt") || !strcasecmp(name, "kbd") ||
	       !strcasecmp(name, "samp") || !strcasecmp(name, "var");
}

/* Non-space characters of s[0..len) (UTF-8), weighed as the lengths
 * weigh them (nd_char_weight). */
static size_t count_range(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c & 0xC0) != 0x80 && c != ' ' && c != '\t' && c != '\n' && c != '\r')
			n += nd_char_weight((const unsigned char *)s + i, len - i);
	}
	return n;
}

static size_t count_chars(const char *s)
{
	return count_range(s, strlen(s));
}

/* Whether s holds a letter or a digit: a link of symbols alone (a
 * heading's permalink, "¶" or "#") is not one a reader follows as text. */
static int has_alnum(const char *s)
{
	int32_t i = 0, len = (int32_t)strnlen(s, INT32_MAX);
	while (i < len) {
		UChar32 c;
		U8_NEXT(s, i, len, c);
		if (c >= 0 && u_isalnum(c))
			return 1;
	}
	return 0;
}

/* Blocks of the walk: the text since the last boundary, if any shows
 * (chars > 0). */
typedef struct {
	nd_buf *out;      /* nd_html_block array, or NULL when not wanted */
	size_t start;     /* where the open block's text begins */
	size_t link_chars;
	size_t chars, chrome_chars; /* visible characters, and those in chrome */
	uint8_t heading, title, comments, main;
	uint32_t article, chrome;
} block_cut;

static int cut_block(block_cut *bc, const nd_buf *text)
{
	int rc = ND_OK;
	if (bc->out && bc->chars) {
		/* A block is chrome when most of its text is: a heading's
		 * permalink (Sphinx's a.headerlink) does not make it the site's. */
		uint32_t chrome = 2 * bc->chrome_chars > bc->chars ? bc->chrome : 0;
		nd_html_block b = {bc->start, text->len, bc->link_chars, bc->heading, bc->title, bc->comments,
				   bc->main, chrome, bc->article};
		rc = nd_buf_put(bc->out, &b, sizeof(b));
	}
	bc->start = text->len;
	bc->link_chars = bc->chars = bc->chrome_chars = 0;
	bc->heading = bc->title = bc->comments = bc->main = 0;
	bc->article = bc->chrome = 0;
	return rc;
}

/* libxml2 drops a byte of a character after '&' when it decodes a page
 * from another charset itself ("R&\xD0" in KOI8-R), leaving a broken
 * sequence.  Such bytes become '?', in place: the blocks hold offsets. */
static void utf8_mend(nd_buf *b, size_t from)
{
	unsigned char *s = (unsigned char *)b->ptr;
	if (!s || !nd_utf8_check(b->ptr + from, b->len - from, NULL))
		return; /* nearly always */
	for (size_t i = from; i < b->len;) {
		size_t need = s[i] < 0x80 ? 1 : s[i] >= 0xF0 ? 4 : s[i] >= 0xE0 ? 3 : s[i] >= 0xC0 ? 2 : 1;
		if (need == 1 && s[i] >= 0x80)
			s[i++] = '?';
		else if (i + need <= b->len && !nd_utf8_check((const char *)s + i, need, NULL))
			i += need;
		else
			s[i++] = '?';
	}
}

static void quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

int nd_html_declares_charset(const char *html, size_t len)
{
	size_t n = len < 8192 ? len : 8192;
	for (size_t i = 0; i + 8 < n; i++) {
		if (strncasecmp(html + i, "charset=", 8))
			continue;
		const char *v = html + i + 8;
		size_t left = n - i - 8;
		while (left && (*v == '"' || *v == '\'' || *v == ' ')) {
			v++;
			left--;
		}
		static const char *const latin[] = {"iso-8859-1", "iso8859-1", "latin1", "latin-1",
						    "windows-1252", "cp1252", "us-ascii", "ascii", NULL};
		for (int k = 0; latin[k]; k++) {
			size_t m = strlen(latin[k]);
			if (left >= m && !strncasecmp(v, latin[k], m))
				return ND_HTML_CHARSET_LATIN;
		}
		return ND_HTML_CHARSET_OTHER;
	}
	return ND_HTML_CHARSET_NONE;
}

/* libxml2 checks each attribute of a tag against every one before it (a
 * 1.3 MB tag of 60,000 attributes took 9 s), and holds each element in
 * its tree (about 350 bytes an element: 32 MB of <p>w</p> peaked at
 * 1.5 GB).  A linear pass first: tags past ND_HTML_MAX_ELEMENTS are
 * refused, and attributes past ND_HTML_MAX_ATTRS in a tag are dropped
 * (*out gets the page without them; NULL when nothing is dropped).  Text
 * is all we read, and real pages have tens of attributes a tag. */
static int html_guard(const char *html, size_t len, const char *name, nd_buf *out, int *rewrote)
{
	size_t elements = 0, copied = 0;
	*rewrote = 0;
	for (size_t i = 0; i < len; i++) {
		if (html[i] != '<')
			continue;
		if (i + 3 < len && !memcmp(html + i, "<!--", 4)) {
			for (i += 4; i + 2 < len && memcmp(html + i, "-->", 3); i++)
				;
			i += 2;
			continue;
		}
		if (i + 1 >= len || !((html[i + 1] | 0x20) >= 'a' && (html[i + 1] | 0x20) <= 'z'))
			continue;
		if (++elements > ND_HTML_MAX_ELEMENTS)
			return nd_error_set(ND_ETOOBIG, "%s: HTML of more than %d elements (its parse tree "
					    "would take gigabytes)", name, ND_HTML_MAX_ELEMENTS);
		/* The tag: its name, then attributes split by spaces outside quotes. */
		size_t j = i + 1, attrs = 0, cut = 0;
		while (j < len && html[j] != '>' && html[j] != '/' && !strchr(" \t\r\n\f", html[j]))
			j++;
		while (j < len && html[j] != '>') {
			while (j < len && strchr(" \t\r\n\f/", html[j]))
				j++;
			if (j >= len || html[j] == '>')
				break;
			if (++attrs == ND_HTML_MAX_ATTRS + 1)
				cut = j;
			char q = 0;
			for (; j < len && (q || (html[j] != '>' && !strchr(" \t\r\n\f", html[j]))); j++)
				if (q ? html[j] == q : (html[j] == '"' || html[j] == '\''))
					q = q ? 0 : html[j];
		}
		if (cut) {
			int rc;
			if ((rc = nd_buf_put(out, html + copied, cut - copied)) < 0)
				return rc;
			copied = j; /* from the tag's '>' on */
			*rewrote = 1;
		}
		i = j;
	}
	return *rewrote ? nd_buf_put(out, html + copied, len - copied) : ND_OK;
}

/* Whether v is an absolute http(s) URL. */
static int absolute_url(const char *v)
{
	return v && (!strncasecmp(v, "http://", 7) || !strncasecmp(v, "https://", 8));
}

size_t nd_host_bare(const char *host, size_t len, const char **bare)
{
	int www = len > 4 && !memcmp(host, "www.", 4);
	*bare = www ? host + 4 : host;
	return www ? len - 4 : len;
}

size_t nd_url_host(const char *url, const char **host)
{
	const char *p = url ? strstr(url, "://") : NULL;
	if (!p)
		return 0;
	p += 3;
	size_t n = strcspn(p, "/?#\"");
	const char *at = memchr(p, '@', n);
	if (at)
		n -= (size_t)(at + 1 - p), p = at + 1;
	/* The port goes: after the brackets of an [IPv6] address. */
	const char *bracket = n && p[0] == '[' ? memchr(p, ']', n) : NULL;
	size_t from = bracket ? (size_t)(bracket - p) : 0;
	const char *colon = memchr(p + from, ':', n - from);
	if (colon)
		n = (size_t)(colon - p);
	if (n && p[n - 1] == '.')
		n--; /* example.org. is example.org */
	*host = p;
	return n;
}

/* The hosts of a page's absolute links, counted: the most linked one,
 * when it has most of them, is the page's own site.  Pages link to few
 * hosts; past LINK_HOSTS distinct ones a new host is counted in the
 * total only.  A page that links to its own site by relative addresses
 * only has its menu instead: the first MENU_LINKS distinct paths it
 * links to, in order, which every page under one menu shares. */
#define LINK_HOSTS 32
#define LINK_HOST_MAX 128
#define LINK_SITE_MIN 5
#define MENU_LINKS 8
typedef struct {
	char host[LINK_HOSTS][LINK_HOST_MAX];
	uint32_t count[LINK_HOSTS];
	size_t n;
	uint32_t total;
	uint64_t menu[MENU_LINKS]; /* hashes of the first relative paths */
	size_t nmenu;
} link_hosts;

/* A relative link's path (no scheme, not "//host", not "#here"; its
 * query and fragment left out) into the menu, when it is a new one. */
static void count_menu(link_hosts *lh, const char *href)
{
	size_t n = strcspn(href, "?#");
	if (lh->nmenu == MENU_LINKS || !n || (href[0] == '/' && href[1] == '/'))
		return;
	if (memchr(href, ':', strcspn(href, "/?#")))
		return; /* mailto:, javascript: */
	while (n > 2 && href[0] == '.' && href[1] == '/')
		href += 2, n -= 2;
	uint64_t h = nd_hash_bytes(href, n, 0);
	for (size_t i = 0; i < lh->nmenu; i++)
		if (lh->menu[i] == h)
			return;
	lh->menu[lh->nmenu++] = h;
}

static void count_host(link_hosts *lh, const char *href)
{
	const char *p;
	if (!href)
		return;
	if (!absolute_url(href)) {
		count_menu(lh, href);
		return;
	}
	size_t n = nd_url_host(href, &p);
	if (!n || n >= LINK_HOST_MAX)
		return;
	char h[LINK_HOST_MAX];
	for (size_t i = 0; i < n; i++)
		h[i] = (char)((p[i] >= 'A' && p[i] <= 'Z') ? p[i] + 32 : p[i]);
	h[n] = 0;
	lh->total++;
	/* With "www." and without, one host: counted as one, named as first
	 * met (sign joins the two names too). */
	const char *b, *bi;
	size_t nb = nd_host_bare(h, n, &b);
	for (size_t i = 0; i < lh->n; i++)
		if (nd_host_bare(lh->host[i], strlen(lh->host[i]), &bi) == nb && !memcmp(bi, b, nb)) {
			lh->count[i]++;
			return;
		}
	if (lh->n < LINK_HOSTS) {
		memcpy(lh->host[lh->n], h, n + 1);
		lh->count[lh->n++] = 1;
	}
}

static int links_site(const link_hosts *lh, nd_buf *site)
{
	size_t best = 0;
	for (size_t i = 1; i < lh->n; i++)
		if (lh->count[i] > lh->count[best])
			best = i;
	char menu[64];
	const char *host = lh->host[best];
	if (!lh->n || lh->count[best] < LINK_SITE_MIN || 2 * (uint64_t)lh->count[best] < lh->total) {
		/* No host has most of its links: its menu, when it has one, as a
		 * host that cannot be a real one (RFC 2606). */
		if (lh->nmenu < MENU_LINKS)
			return ND_OK;
		snprintf(menu, sizeof(menu), "menu-%016llx.invalid",
			 (unsigned long long)nd_hash_bytes(lh->menu, sizeof(lh->menu), 0));
		host = menu;
	}
	int rc;
	site->len = 0;
	if ((rc = nd_buf_put(site, "http://", 7)) < 0 || (rc = nd_buf_put(site, host, strlen(host) + 1)) < 0)
		return rc;
	site->len--; /* NUL-terminated, not counted */
	return ND_OK;
}

/* What the page says of itself outside its body: its title, its address
 * (<link rel=canonical>, else <meta property=og:url>, when absolute),
 * whose host is the page's site, and its generator (<meta
 * name=generator>). */
static void head_of(xmlNode *root, nd_buf *title, nd_buf *url, int *gen, int *rc)
{
	static const char *const canonical[] = {"canonical", NULL}, *const og_url[] = {"og:url", NULL};
	static const char *const generator[] = {"generator", NULL};
	const char *canon = NULL, *og = NULL;
	int titled = !title;
	xmlNode *n = root;
	while (n && *rc == ND_OK) {
		const char *nm = n->type == XML_ELEMENT_NODE ? (const char *)n->name : "";
		if (!titled && !strcasecmp(nm, "title")) {
			collect_text(n, title, rc);
			titled = 1;
		} else if (!canon && !strcasecmp(nm, "link") && one_of(attr_of(n, "rel"), canonical) &&
			   absolute_url(attr_of(n, "href")))
			canon = attr_of(n, "href");
		else if (!og && !strcasecmp(nm, "meta") && one_of(attr_of(n, "property"), og_url) &&
			 absolute_url(attr_of(n, "content")))
			og = attr_of(n, "content");
		else if (!strcasecmp(nm, "meta") && one_of(attr_of(n, "name"), generator) && attr_of(n, "content")) {
			const char *g = attr_of(n, "content");
			if (!strncasecmp(g, "doxygen", 7))
				*gen = GEN_DOXYGEN;
			else if (!strncasecmp(g, "gtk-doc", 7))
				*gen = GEN_GTKDOC;
			else
				*gen = GEN_OTHER;
		}
		if (n->children && *nm && strcasecmp(nm, "body") && strcasecmp(nm, "title")) {
			n = n->children;
			continue;
		}
		while (n && !n->next && n != root)
			n = n->parent;
		n = (n && n != root) ? n->next : NULL;
	}
	const char *u = canon ? canon : og;
	if (url && u && *rc == ND_OK) {
		url->len = 0;
		if ((*rc = nd_buf_put(url, u, strlen(u) + 1)) == ND_OK)
			url->len--; /* NUL-terminated, not counted */
	}
}

int nd_html_to_text(const char *html, size_t len, const char *name, nd_buf *text, nd_buf *title,
		    nd_buf *url, nd_buf *site, nd_buf *blocks)
{
	htmlDocPtr doc;
	nd_buf decoded = ND_BUF_INIT;
	const char *encoding = NULL;
	int rc = ND_OK;
	size_t from = text->len;

	if (len > INT32_MAX)
		return nd_error_set(ND_ETOOBIG, "%s: HTML of %zu bytes is over libxml2's 2 GiB limit",
				    name, len);
	/* libxml2 stops at the first byte its iconv cannot convert (a 0x9D in
	 * a page labelled windows-1252 loses the rest of the page), so we
	 * decode the common cases ourselves, as browsers do: valid UTF-8 is
	 * UTF-8 whatever the label says, and Latin-1/windows-1252 or unlabelled
	 * pages are windows-1252 with undefined bytes as U+FFFD.  Only other
	 * declared charsets (and UTF-16 with a BOM) are left to libxml2. */
	int bom16 = len >= 2 && (((unsigned char)html[0] == 0xFF && (unsigned char)html[1] == 0xFE) ||
				 ((unsigned char)html[0] == 0xFE && (unsigned char)html[1] == 0xFF));
	if (!bom16) {
		if (nd_utf8_check(html, len, NULL) == 0)
			encoding = "UTF-8";
		else if (nd_html_declares_charset(html, len) != ND_HTML_CHARSET_OTHER) {
			if ((rc = nd_cp1252_to_utf8(&decoded, html, len)) < 0)
				return rc;
			html = decoded.ptr;
			len = decoded.len;
			encoding = "UTF-8";
			if (len > INT32_MAX) {
				nd_buf_free(&decoded);
				return nd_error_set(ND_ETOOBIG, "%s: HTML too large after decoding", name);
			}
		}
	}
	nd_buf guarded = ND_BUF_INIT;
	int rewrote;
	if ((rc = html_guard(html, len, name, &guarded, &rewrote)) < 0) {
		nd_buf_free(&decoded);
		nd_buf_free(&guarded);
		return rc;
	}
	if (rewrote) {
		nd_buf_free(&decoded);
		decoded = guarded;
		html = decoded.ptr;
		len = decoded.len;
	}
	/* XML_PARSE_HUGE lifts libxml2's nesting limit of 256 elements, past
	 * which it drops the rest of the page silently, and its 10 MB cap on
	 * one text node; our own max_doc_bytes bounds the input instead.  The
	 * parse and our walk are iterative: depth costs linear time. */
	xmlSetGenericErrorFunc(NULL, quiet);
	xmlSetStructuredErrorFunc(NULL, NULL);
	doc = htmlReadMemory(html, (int)len, NULL, encoding,
			     HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
			     HTML_PARSE_NONET | HTML_PARSE_COMPACT | XML_PARSE_HUGE);
	if (!doc) {
		nd_buf_free(&decoded);
		return nd_error_set(ND_EPARSE, "%s: libxml2 could not parse the HTML", name);
	}

	xmlNode *root = xmlDocGetRootElement(doc);
	/* The head first: the walk skips it.  Always: whether Doxygen wrote
	 * the page says what its stylesheet hides, in full text too. */
	int gen = GEN_OTHER;
	if (root)
		head_of(root, title, url, &gen, &rc);

	/* Iterative depth-first walk; in_link and in_heading count the open
	 * <a> and <h1>..<h6> elements around the current node. */
	xmlNode *n = root;
	block_cut bc = {blocks, text->len, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	size_t in_link = 0, in_code = 0, in_heading = 0, in_title = 0, in_comments = 0, in_main = 0, in_chrome = 0;
	/* <main> elements open; <article> elements open, and the outermost's number */
	size_t in_primary = 0, in_article = 0;
	uint32_t articles = 0, chromes = 0;
	link_hosts lh = {0};
	while (n && rc == ND_OK) {
		int descend = 0;
		if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
			if (n->content) {
				const char *s = (const char *)n->content;
				size_t chars = count_chars(s);
				rc = nd_buf_put(text, s, strlen(s));
				bc.heading |= in_heading && chars;
				bc.title |= in_title && chars;
				bc.comments |= in_comments && chars;
				bc.chars += chars;
				if (in_chrome && chars) {
					bc.chrome = chromes;
					bc.chrome_chars += chars;
				}
				bc.main |= in_primary && chars;
				if (in_article && chars)
					bc.article = articles;
				if (in_link && !in_code && has_alnum(s))
					bc.link_chars += chars;
			}
		} else if (n->type == XML_ELEMENT_NODE) {
			const char *nm = (const char *)n->name;
			if (site && is_link(nm))
				count_host(&lh, attr_of(n, "href"));
			if (!is_skipped(nm, in_main) && !doxygen_inherited(n, gen)) {
				/* An empty element between words is a separator its
				 * style draws (gi-docgen's <span class=sep>). */
				if (is_block(nm) && (rc = cut_block(&bc, text)) == ND_OK)
					rc = nd_buf_putc(text, '\n');
				else if (!n->children && rc == ND_OK)
					rc = nd_buf_putc(text, ' ');
				descend = n->children != NULL;
				if (descend) {
					in_link += is_link(nm);
					in_code += is_code(nm);
					in_heading += is_heading(nm);
					in_title += is_title(n, gen);
					in_comments += is_comments(n);
					int ch = is_chrome(n, in_main);
					chromes += ch && !in_chrome;
					in_chrome += ch;
					int kind = main_kind(n, gen);
					in_main += kind != 0;
					in_primary += kind == 2;
					articles += kind == 1 && !in_article;
					in_article += kind == 1;
				}
			}
		}
		if (descend) {
			n = n->children;
			continue;
		}
		/* Climb until a sibling exists, closing blocks on the way. */
		while (n && n != root && !n->next) {
			n = n->parent;
			if (!n || n->type != XML_ELEMENT_NODE)
				continue;
			const char *nm = (const char *)n->name;
			in_link -= in_link && is_link(nm);
			in_code -= in_code && is_code(nm);
			in_heading -= in_heading && is_heading(nm);
			in_title -= in_title && is_title(n, gen);
			in_comments -= in_comments && is_comments(n);
			int kind = main_kind(n, gen);
			in_main -= in_main && kind != 0;
			in_primary -= in_primary && kind == 2;
			in_article -= in_article && kind == 1;
			in_chrome -= in_chrome && is_chrome(n, in_main);
			if (is_block(nm) && rc == ND_OK && (rc = cut_block(&bc, text)) == ND_OK)
				rc = nd_buf_putc(text, '\n');
		}
		n = (n && n != root) ? n->next : NULL;
	}
	if (rc == ND_OK)
		rc = cut_block(&bc, text);
	if (rc == ND_OK && site)
		rc = links_site(&lh, site);
	if (rc == ND_OK && !text->ptr)
		rc = nd_buf_put(text, "", 0);
	if (rc == ND_OK && encoding == NULL) { /* libxml2 decoded it */
		utf8_mend(text, from);
		if (title)
			utf8_mend(title, 0);
		if (url)
			utf8_mend(url, 0);
	}
	xmlFreeDoc(doc);
	nd_buf_free(&decoded);
	return rc;
}

/* The blocks cls calls good, in order. */
static int put_blocks(nd_buf *text, const nd_buf *all, const nd_html_block *b, size_t n, const uint8_t *cls)
{
	size_t start = text->len;
	int rc = ND_OK;
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		if (cls[i] != ND_BLOCK_GOOD)
			continue;
		/* A block begins with the line break before it: one is enough
		 * after the last one kept, so the content is never longer than
		 * the page's text (plus a line break). */
		size_t a = b[i].start + (all->ptr[b[i].start] == '\n' && text->len > start);
		if ((rc = nd_buf_put(text, all->ptr + a, b[i].end - a)) == ND_OK)
			rc = nd_buf_putc(text, '\n');
	}
	return rc;
}

int nd_html_extract(nd_tokenizer *tk, const char *html, size_t len, const char *name,
		    nd_content mode, nd_buf *text, nd_buf *full, nd_buf *title, nd_buf *url,
		    nd_buf *site, nd_boilerplate_info *info)
{
	nd_buf all = ND_BUF_INIT, blocks = ND_BUF_INIT;
	uint8_t *cls = NULL;
	nd_boilerplate_info bi = {-1, 0, 0, 0};
	int rc;
	if (mode == ND_CONTENT_FULL) {
		if ((rc = nd_html_to_text(html, len, name, text, title, url, site, NULL)) == ND_OK && full)
			rc = nd_buf_put(full, text->ptr, text->len);
		goto done;
	}
	if ((rc = nd_html_to_text(html, len, name, &all, title, url, site, &blocks)) < 0)
		goto done;
	const nd_html_block *b = (const nd_html_block *)(void *)blocks.ptr;
	size_t n = blocks.len / sizeof(*b);
	if (n && !(cls = malloc(n))) {
		rc = nd_error_set(ND_ENOMEM, "%s: out of memory", name);
		goto done;
	}
	if ((rc = nd_boilerplate_classify(tk, all.ptr, all.len, b, n, cls, &bi)) < 0) {
		char why[256];
		snprintf(why, sizeof(why), "%s", nd_error_last());
		nd_error_set(rc, "%s: %s", name, why);
		goto done;
	}
	/* Nothing read as content, or only a stub: where the page does not
	 * mark its main content, a list's or table's one line of prose
	 * (jusText drops link-dense blocks, and an index page or a directory
	 * listing is all links); where it does, a line.  Such a page is its
	 * lists or its template: kept whole, the template left to the
	 * collection (a site's template weighs as no evidence of a copy),
	 * less the chrome it marks (navigation, sidebars, footers) when more
	 * than a line is left, as where it marks its content: there a site
	 * stamps its release ("Library Version: 1.50.12"), which the verdict
	 * reads as values.  The title is kept after the stub's bound: a line
	 * under a name is a stub. */
	size_t stub = bi.marked ? ND_HTML_MARKED_STUB_CHARS : ND_HTML_STUB_CHARS, shown = 0, own = 0, kept = 0;
	for (size_t i = 0; i < n; i++) {
		size_t chars = count_range(all.ptr + b[i].start, b[i].end - b[i].start);
		shown += cls[i] == ND_BLOCK_GOOD ? chars : 0;
		own += b[i].chrome ? 0 : chars;
		kept += !b[i].chrome;
	}
	if (bi.good_blocks && shown < stub)
		bi.good_blocks = 0;
	if (bi.good_blocks) {
		bi.good_blocks += nd_boilerplate_keep_title(b, n, cls);
		rc = put_blocks(text, &all, b, n, cls);
	} else if (own >= ND_HTML_MARKED_STUB_CHARS && kept < n) {
		for (size_t i = 0; i < n; i++)
			cls[i] = b[i].chrome ? ND_BLOCK_BAD : ND_BLOCK_GOOD;
		kept += nd_boilerplate_keep_title(b, n, cls);
		bi.good_blocks = kept; /* not the whole page: full keeps it */
		rc = put_blocks(text, &all, b, n, cls);
	} else
		rc = nd_buf_put(text, all.ptr, all.len); /* keep the page whole */
	if (rc == ND_OK && full)
		rc = nd_buf_put(full, all.ptr, all.len);
done:
	if (info)
		*info = bi;
	free(cls);
	nd_buf_free(&blocks);
	nd_buf_free(&all);
	return rc;
}
