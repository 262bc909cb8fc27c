/* ICU word breaking on UTF-8 with per-token NFKC_Casefold.
 *
 * Why this shape: breaking directly on UTF-8 through utext_openUTF8 avoids a
 * whole-document UTF-16 copy; folding is done per token because most tokens
 * are ASCII and take a plain lower-casing fast path (folding costs ~50% of
 * the tokenizer's time otherwise, see DESIGN.md).  ICU maps invalid UTF-8
 * to U+FFFD, which word-break treats as a separator, so bad bytes split
 * words but never stop the document; we count them with our own scan,
 * because ICU does not report them. */
#include "neardup/tokenizer.h"
#include "common/nd_buf.h"
#include "common/nd_hash.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <unicode/ubrk.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utext.h>

struct nd_tokenizer {
	UBreakIterator *bi;
	const UNormalizer2 *fold;
	nd_token *tokens;
	size_t tokens_cap;
	nd_buf arena;          /* folded token text, NUL-separated */
	UChar *u16a, *u16b;    /* scratch for non-ASCII tokens */
	int32_t u16_cap;
};

int nd_tokenizer_new(nd_tokenizer **out)
{
	UErrorCode err = U_ZERO_ERROR;
	nd_tokenizer *tk;

	*out = NULL;
	if (!(tk = calloc(1, sizeof(*tk))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	tk->bi = ubrk_open(UBRK_WORD, "", NULL, 0, &err);
	if (U_FAILURE(err))
		goto icu_fail;
	tk->fold = unorm2_getNFKCCasefoldInstance(&err);
	if (U_FAILURE(err))
		goto icu_fail;
	*out = tk;
	return ND_OK;
icu_fail:
	nd_tokenizer_free(tk);
	return nd_error_set(ND_ERROR, "ICU: cannot open word breaker: %s", u_errorName(err));
}

void nd_tokenizer_free(nd_tokenizer *tk)
{
	if (!tk)
		return;
	if (tk->bi)
		ubrk_close(tk->bi);
	free(tk->tokens);
	nd_buf_free(&tk->arena);
	free(tk->u16a);
	free(tk->u16b);
	free(tk);
}

uint64_t nd_utf8_check(const char *text, size_t len, uint64_t *first)
{
	const unsigned char *s = (const unsigned char *)text;
	uint64_t bad = 0;
	size_t i = 0;

	while (i < len) {
		unsigned c = s[i];
		size_t need;
		unsigned lo = 0x80, hi = 0xBF; /* allowed range of the 2nd byte */

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			need = 1;
		else if (c >= 0xE0 && c <= 0xEF) {
			need = 2;
			if (c == 0xE0)
				lo = 0xA0;      /* overlong */
			else if (c == 0xED)
				hi = 0x9F;      /* surrogates */
		} else if (c >= 0xF0 && c <= 0xF4) {
			need = 3;
			if (c == 0xF0)
				lo = 0x90;      /* overlong */
			else if (c == 0xF4)
				hi = 0x8F;      /* past U+10FFFF */
		} else
			goto invalid;
		if (i + need >= len)
			goto invalid;   /* truncated at the end */
		if (s[i + 1] < lo || s[i + 1] > hi)
			goto invalid;
		for (size_t k = 2; k <= need; k++)
			if ((s[i + k] & 0xC0) != 0x80)
				goto invalid;
		i += need + 1;
		continue;
invalid:
		if (bad++ == 0 && first)
			*first = i;
		i++;
	}
	return bad;
}

static int ensure_u16(nd_tokenizer *tk, int32_t need)
{
	if (need <= tk->u16_cap)
		return ND_OK;
	int32_t cap = tk->u16_cap ? tk->u16_cap : 64;
	while (cap < need)
		cap *= 2;
	UChar *a = realloc(tk->u16a, (size_t)cap * sizeof(UChar));
	if (a)
		tk->u16a = a;
	UChar *b = realloc(tk->u16b, (size_t)cap * sizeof(UChar));
	if (b)
		tk->u16b = b;
	if (!a || !b)
		return nd_error_set(ND_ENOMEM, "out of memory folding a token");
	tk->u16_cap = cap;
	return ND_OK;
}

/* Append the folded form of word to the arena; *outlen gets its length. */
static int fold_into(nd_tokenizer *tk, const char *word, size_t len, size_t *outlen)
{
	size_t i;
	int rc;

	for (i = 0; i < len; i++)
		if ((unsigned char)word[i] >= 0x80)
			break;
	if (i == len) {
		/* ASCII fast path: NFKC_Casefold of ASCII is lower-casing. */
		if ((rc = nd_buf_grow(&tk->arena, len + 1)) < 0)
			return rc;
		char *dst = tk->arena.ptr + tk->arena.len;
		for (i = 0; i < len; i++) {
			char c = word[i];
			dst[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
		}
		dst[len] = '\0';
		tk->arena.len += len + 1;
		*outlen = len;
		return ND_OK;
	}

	UErrorCode err = U_ZERO_ERROR;
	int32_t n16 = 0, nf;
	if (len > INT32_MAX / 4)
		return nd_error_set(ND_ETOOBIG, "token of %zu bytes", len);
	if ((rc = ensure_u16(tk, (int32_t)len * 3 + 16)) < 0)
		return rc;
	u_strFromUTF8WithSub(tk->u16a, tk->u16_cap, &n16, word, (int32_t)len, 0xFFFD, NULL, &err);
	if (U_FAILURE(err))
		return nd_error_set(ND_EENCODING, "ICU: %s", u_errorName(err));
	for (;;) {
		err = U_ZERO_ERROR;
		nf = unorm2_normalize(tk->fold, tk->u16a, n16, tk->u16b, tk->u16_cap, &err);
		if (err != U_BUFFER_OVERFLOW_ERROR)
			break;
		if ((rc = ensure_u16(tk, nf + 16)) < 0)
			return rc;
		/* u16a was reallocated but kept its content */
	}
	if (U_FAILURE(err))
		return nd_error_set(ND_EENCODING, "ICU normalize: %s", u_errorName(err));
	/* A typographic apostrophe is the apostrophe, as Xapian's TermGenerator
	 * has it (U+2019, and U+201B where the word break keeps it inside a
	 * word): "William’s" on one site and "William's" on another are one
	 * word. */
	for (int32_t k = 0; k < nf; k++)
		if (tk->u16b[k] == 0x2019 || tk->u16b[k] == 0x201B)
			tk->u16b[k] = 0x27;
	int32_t need8 = 0;
	err = U_ZERO_ERROR;
	u_strToUTF8WithSub(NULL, 0, &need8, tk->u16b, nf, 0xFFFD, NULL, &err);
	if ((rc = nd_buf_grow(&tk->arena, (size_t)need8 + 1)) < 0)
		return rc;
	err = U_ZERO_ERROR;
	u_strToUTF8WithSub(tk->arena.ptr + tk->arena.len, need8 + 1, &need8, tk->u16b, nf,
			   0xFFFD, NULL, &err);
	if (U_FAILURE(err))
		return nd_error_set(ND_EENCODING, "ICU: %s", u_errorName(err));
	tk->arena.ptr[tk->arena.len + (size_t)need8] = '\0';
	tk->arena.len += (size_t)need8 + 1;
	*outlen = (size_t)need8;
	return ND_OK;
}

int nd_tokenize(nd_tokenizer *tk, const char *text, size_t len, int flags,
		const nd_token **tokens, size_t *ntokens, nd_tokenize_info *info)
{
	UErrorCode err = U_ZERO_ERROR;
	UText *ut = NULL;
	nd_tokenize_info local = {0, 0, 0};
	size_t n = 0;
	uint32_t pos = 0;
	int rc = ND_OK;

	*tokens = NULL;
	*ntokens = 0;
	if (!info)
		info = &local;
	memset(info, 0, sizeof(*info));
	tk->arena.len = 0;
	/* ICU's break iterator reports boundaries as int32_t. */
	if (len > (size_t)INT32_MAX)
		return nd_error_set(ND_ETOOBIG, "document of %zu bytes; the tokenizer takes at most "
				    "%d bytes", len, INT32_MAX);

	info->invalid_count = nd_utf8_check(text, len, &info->first_invalid);
	if (info->invalid_count && (flags & ND_TOKENIZE_STRICT))
		return nd_error_set(ND_EENCODING, "invalid UTF-8 at byte %llu (%llu invalid sequences)",
				    (unsigned long long)info->first_invalid,
				    (unsigned long long)info->invalid_count);

	ut = utext_openUTF8(NULL, len ? text : "", (int64_t)len, &err);
	if (U_FAILURE(err))
		return nd_error_set(ND_ERROR, "ICU utext_openUTF8: %s", u_errorName(err));
	ubrk_setUText(tk->bi, ut, &err);
	if (U_FAILURE(err)) {
		rc = nd_error_set(ND_ERROR, "ICU ubrk_setUText: %s", u_errorName(err));
		goto cleanup;
	}

	/* Native indexes of a UTF-8 UText are byte offsets. */
	int32_t start = ubrk_first(tk->bi), end;
	for (; (end = ubrk_next(tk->bi)) != UBRK_DONE; start = end) {
		if (ubrk_getRuleStatus(tk->bi) < UBRK_WORD_NONE_LIMIT)
			continue;
		size_t arena_at = tk->arena.len, flen;
		if ((rc = fold_into(tk, text + start, (size_t)(end - start), &flen)) < 0)
			goto cleanup;
		if (flen == 0 || flen > ND_TOKEN_MAX_BYTES) {
			if (flen)
				info->dropped_long++;
			tk->arena.len = arena_at;
			continue;
		}
		void *p = tk->tokens;
		if ((rc = nd_array_reserve(&p, &tk->tokens_cap, n + 1, sizeof(nd_token))) < 0)
			goto cleanup;
		tk->tokens = p;
		/* Arena offset for now; turned into a pointer once the arena stops moving. */
		tk->tokens[n].text = (const char *)(uintptr_t)arena_at;
		tk->tokens[n].len = (uint32_t)flen;
		tk->tokens[n].pos = ++pos;
		tk->tokens[n].offset = (uint64_t)start;
		n++;
	}
	for (size_t i = 0; i < n; i++)
		tk->tokens[i].text = tk->arena.ptr + (uintptr_t)tk->tokens[i].text;
	*tokens = tk->tokens;
	*ntokens = n;
cleanup:
	/* The break iterator keeps its own shallow clone of ut. */
	utext_close(ut);
	return rc;
}

int nd_tokenizer_fold(nd_tokenizer *tk, const char *word, size_t len, char **out, size_t *outlen)
{
	size_t flen;
	int rc;
	*out = NULL;
	tk->arena.len = 0;
	if ((rc = fold_into(tk, word, len, &flen)) < 0)
		return rc;
	if (!(*out = malloc(flen + 1)))
		return nd_error_set(ND_ENOMEM, "out of memory");
	memcpy(*out, tk->arena.ptr, flen + 1);
	if (outlen)
		*outlen = flen;
	return ND_OK;
}

uint32_t nd_word_id(const char *word, size_t len)
{
	uint32_t digit = 0;
	for (size_t i = 0; i < len && !digit; i++)
		digit = word[i] >= '0' && word[i] <= '9';
	return ((uint32_t)(nd_hash_bytes(word, len, 0x776f7264ULL) >> 32) & ~ND_WORD_DIGIT) | digit;
}

void nd_word_ids(const nd_token *tokens, size_t n, uint32_t *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = nd_word_id(tokens[i].text, tokens[i].len);
}

/* Whether text[at..end) is the line a mail program puts above the mail
 * it quotes unmarked, to the end of the reply: "-----Original
 * Message-----" and its translations, dashes or underscores around. */
static int quote_rule(const char *text, size_t at, size_t end)
{
	static const char *const names[] = {"original message", "ursprüngliche nachricht", "message d'origine",
					    "mensaje original", "messaggio originale", "oorspronkelijk bericht",
					    "mensagem original", "Исходное сообщение", NULL};
	size_t dashes = 0;
	while (at < end && (text[at] == '-' || text[at] == '_'))
		at++, dashes++;
	if (dashes < 2)
		return 0; /* most lines: every line of every text passes here */
	while (at < end && text[at] == ' ')
		at++;
	while (end > at && (text[end - 1] == '-' || text[end - 1] == '_' || text[end - 1] == ' ' ||
			    text[end - 1] == '\r'))
		end--;
	for (int i = 0; names[i]; i++)
		if (end - at == strlen(names[i]) && !strncasecmp(text + at, names[i], end - at))
			return 1;
	return 0;
}

size_t nd_word_ids_own(const char *text, size_t len, const nd_token *tokens, size_t n, uint32_t *out)
{
	size_t k = 0, line = 0, i = 0;
	int below = 0; /* under an "Original Message" line: quoted to the end */
	while (i < n && line <= len) { /* a line at a time, its tokens with it */
		size_t end = line;
		while (end < len && text[end] != '\n')
			end++;
		size_t at = line;
		while (at < end && (text[at] == ' ' || text[at] == '\t'))
			at++;
		below |= quote_rule(text, at, end);
		int quoted = below || (at < end && text[at] == '>');
		for (; i < n && tokens[i].offset <= end; i++)
			if (!quoted)
				out[k++] = nd_word_id(tokens[i].text, tokens[i].len);
		line = end + 1;
	}
	if (k == 0) { /* all quoted: the text is its quote */
		nd_word_ids(tokens, n, out);
		k = n;
	}
	return k;
}
