/* Fuzz target: the tokenizer on arbitrary bytes, lenient and strict.
 * Tokens must lie within ND_TOKEN_MAX_BYTES and be valid UTF-8; the
 * text's own words (quotes left out) are some of them, and some at all
 * when there are any. */
#include "neardup/tokenizer.h"

#include <stdlib.h>
#include <string.h>

static int valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t k;
		if (c < 0x80)
			k = 0;
		else if ((c & 0xE0) == 0xC0)
			k = 1;
		else if ((c & 0xF0) == 0xE0)
			k = 2;
		else if ((c & 0xF8) == 0xF0)
			k = 3;
		else
			return 0;
		if (k > n - i - 1)
			return 0;
		for (size_t j = 1; j <= k; j++)
			if ((s[i + j] & 0xC0) != 0x80)
				return 0;
		i += k + 1;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static nd_tokenizer *tk;
	const nd_token *t;
	size_t n;
	if (!tk && nd_tokenizer_new(&tk) < 0)
		abort();
	for (int strict = 0; strict <= 1; strict++) {
		int rc = nd_tokenize(tk, (const char *)data, size, strict ? ND_TOKENIZE_STRICT : 0, &t, &n, NULL);
		if (rc < 0) {
			if (!strict || rc != ND_EENCODING)
				abort(); /* lenient mode accepts any bytes */
			continue;
		}
		for (size_t i = 0; i < n; i++)
			if (t[i].len == 0 || t[i].len > ND_TOKEN_MAX_BYTES ||
			    !valid_utf8((const unsigned char *)t[i].text, t[i].len))
				abort();
		uint32_t *ids = malloc((n + 1) * sizeof(*ids));
		if (!ids)
			abort();
		size_t own = nd_word_ids_own((const char *)data, size, t, n, ids);
		free(ids);
		if (own > n || (n && !own))
			abort();
	}
	return 0;
}
