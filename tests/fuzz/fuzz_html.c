/* Fuzz target: HTML to visible text (charset sniffing, our cp1252 and
 * UTF-8 decoding, libxml2's parser).  Output must be valid UTF-8 of the
 * length reported. */
#include "neardup/indexer.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = NULL;
	size_t len = 0;
	int rc = nd_html_text((const char *)data, size, "fuzz.html", &text, &len);
	if (rc == ND_OK) {
		if (!text || strlen(text) > len)
			abort();
		free(text);
	} else if (text) {
		abort(); /* nothing handed out on error */
	}
	return 0;
}
