/* Internal: HTML to plain text with libxml2's HTML parser. */
#ifndef ND_HTML_TEXT_H
#define ND_HTML_TEXT_H

#include "common/nd_buf.h"

/* Parse html[0..len) (charset from the document's meta tag or BOM; libxml2
 * falls back to ISO-8859-1 for undeclared non-UTF-8 bytes) and append its
 * visible text as UTF-8 to text, block elements separated by newlines,
 * script/style/noscript/template dropped.  The <title> goes to title (may
 * be NULL).  name is used in error messages.  Never recurses, so deeply
 * nested markup cannot exhaust the stack. */
int nd_html_to_text(const char *html, size_t len, const char *name, nd_buf *text, nd_buf *title);

#endif
