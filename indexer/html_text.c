#include "indexer/html_text.h"
#include "neardup/common.h"

#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

static int is_skipped(const char *name)
{
	static const char *const skip[] = {"script", "style", "noscript", "template",
					   "head", "svg", "object", NULL};
	for (int i = 0; skip[i]; i++)
		if (!strcasecmp(name, skip[i]))
			return 1;
	return 0;
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

int nd_html_to_text(const char *html, size_t len, const char *name, nd_buf *text, nd_buf *title)
{
	htmlDocPtr doc;
	int rc = ND_OK;

	if (len > INT32_MAX)
		return nd_error_set(ND_ETOOBIG, "%s: HTML of %zu bytes is over libxml2's 2 GiB limit",
				    name, len);
	doc = htmlReadMemory(html, (int)len, NULL, NULL,
			     HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
			     HTML_PARSE_NONET | HTML_PARSE_COMPACT);
	if (!doc)
		return nd_error_set(ND_EPARSE, "%s: libxml2 could not parse the HTML", name);

	xmlNode *root = xmlDocGetRootElement(doc);
	/* Title first: it lives in <head>, which the walk skips. */
	if (title && root) {
		xmlNode *n = root;
		while (n && rc == ND_OK) {
			if (n->type == XML_ELEMENT_NODE && !strcasecmp((const char *)n->name, "title")) {
				collect_text(n, title, &rc);
				break;
			}
			if (n->children && n->type == XML_ELEMENT_NODE &&
			    strcasecmp((const char *)n->name, "body")) {
				n = n->children;
				continue;
			}
			while (n && !n->next && n != root)
				n = n->parent;
			n = (n && n != root) ? n->next : NULL;
		}
	}

	/* Iterative depth-first walk. */
	xmlNode *n = root;
	while (n && rc == ND_OK) {
		int descend = 0;
		if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
			if (n->content)
				rc = nd_buf_put(text, (const char *)n->content,
						strlen((const char *)n->content));
		} else if (n->type == XML_ELEMENT_NODE) {
			const char *nm = (const char *)n->name;
			if (!is_skipped(nm)) {
				if (is_block(nm))
					rc = nd_buf_putc(text, '\n');
				descend = n->children != NULL;
			}
		}
		if (descend) {
			n = n->children;
			continue;
		}
		/* Climb until a sibling exists, closing blocks on the way. */
		while (n && n != root && !n->next) {
			n = n->parent;
			if (n && n->type == XML_ELEMENT_NODE && is_block((const char *)n->name) && rc == ND_OK)
				rc = nd_buf_putc(text, '\n');
		}
		n = (n && n != root) ? n->next : NULL;
	}
	if (rc == ND_OK && !text->ptr)
		rc = nd_buf_put(text, "", 0);
	xmlFreeDoc(doc);
	return rc;
}
