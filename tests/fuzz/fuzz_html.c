/* Fuzz target: HTML to text (charset sniffing, our cp1252 and UTF-8
 * decoding, libxml2's parser, block cutting and boilerplate removal).
 * Both modes give valid UTF-8 of the length reported, and the main
 * content is made of the page's blocks, so it is never longer than the
 * whole text (plus the newline after its last block).  The page's site
 * (from its links' hosts, or its menu of relative paths), when it has
 * one, is a URL whose host a term can hold. */
#include "neardup/indexer.h"
#include "neardup/tokenizer.h"
#include "indexer/html_text.h"
#include "common/nd_buf.h"

#include <stdlib.h>
#include <string.h>

static size_t run(const unsigned char *data, size_t size, nd_content mode, int *ok)
{
	char *text = NULL;
	size_t len = 0;
	int rc = nd_html_text((const char *)data, size, "fuzz.html", mode, &text, &len);
	*ok = rc == ND_OK;
	if (rc == ND_OK) {
		if (!text || strlen(text) > len || nd_utf8_check(text, len, NULL))
			abort();
		free(text);
	} else if (text) {
		abort(); /* nothing handed out on error */
	}
	return len;
}

static void site_of(const unsigned char *data, size_t size)
{
	nd_buf text = ND_BUF_INIT, title = ND_BUF_INIT, url = ND_BUF_INIT, site = ND_BUF_INIT;
	if (nd_html_to_text((const char *)data, size, "fuzz.html", &text, &title, &url, &site, NULL) == ND_OK &&
	    site.len) {
		const char *host;
		size_t n = nd_url_host(site.ptr, &host);
		if (strncmp(site.ptr, "http://", 7) || strlen(site.ptr) != site.len || !n || n >= 128)
			abort();
	}
	nd_buf_free(&text);
	nd_buf_free(&title);
	nd_buf_free(&url);
	nd_buf_free(&site);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	int ok_full, ok_main;
	site_of(data, size);
	size_t full = run(data, size, ND_CONTENT_FULL, &ok_full);
	size_t main = run(data, size, ND_CONTENT_MAIN, &ok_main);
	if (ok_full != ok_main || (ok_main && main > full + 1))
		abort();
	return 0;
}
