/* neardup: the one word tokenizer used for everything neardup indexes.
 *
 * UTF-8 in, read in place through an ICU UText (no whole-document UTF-16
 * copy); ICU word-break rules (dictionary-based for CJK and Thai); each word
 * folded with NFKC_Casefold so that "Straße", "STRASSE" and fullwidth
 * "ＳＴＲＡＳＳＥ" give the same token.  Punctuation and spaces are not
 * tokens.  Tokens longer than ND_TOKEN_MAX_BYTES after folding are dropped
 * (they are base64, hashes and the like, and Xapian caps term length); they
 * take no position. */
#ifndef ND_TOKENIZER_H
#define ND_TOKENIZER_H

#include "neardup/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ND_TOKEN_MAX_BYTES 64

/* An nd_tokenizer is one thread's (it holds ICU break iterators and the
 * tokens it lends until its next call); make one per thread. */
typedef struct nd_tokenizer nd_tokenizer;

typedef struct {
	const char *text; /* folded UTF-8, NUL-terminated */
	uint32_t len;     /* bytes in text */
	uint32_t pos;     /* word position, from 1 */
	uint64_t offset;  /* byte offset of the word in the input */
} nd_token;

typedef struct {
	uint64_t invalid_count;  /* invalid UTF-8 sequences met */
	uint64_t first_invalid;  /* byte offset of the first (valid if count > 0) */
	uint64_t dropped_long;   /* tokens over ND_TOKEN_MAX_BYTES */
} nd_tokenize_info;

enum {
	/* Fail with ND_EENCODING on invalid UTF-8 instead of treating each
	 * invalid sequence as a word separator and reporting it in info. */
	ND_TOKENIZE_STRICT = 1,
};

ND_EXTERN int nd_tokenizer_new(nd_tokenizer **out);
ND_EXTERN void nd_tokenizer_free(nd_tokenizer *tk);

/* Tokenize text[0..len), len at most INT32_MAX (2 GiB - 1; ND_ETOOBIG
 * beyond: ICU counts offsets in int32_t).  *tokens (borrowed) lives until
 * the next call on tk or its free.  info may be NULL.  In the default (lenient) mode invalid
 * UTF-8 never stops tokenizing: the rest of the document is still read and
 * the first offset is reported in info. */
ND_EXTERN int nd_tokenize(nd_tokenizer *tk, const char *text, size_t len, int flags,
			  const nd_token **tokens, size_t *ntokens, nd_tokenize_info *info);

/* Check UTF-8 (RFC 3629: no overlongs, surrogates or values past
 * U+10FFFF).  Returns the number of invalid sequences; *first gets the byte
 * offset of the first one. */
ND_EXTERN uint64_t nd_utf8_check(const char *text, size_t len, uint64_t *first);

/* Fold one word the way the tokenizer does (for query terms, tests).
 * *out (caller frees) is NUL-terminated. */
ND_EXTERN int nd_tokenizer_fold(nd_tokenizer *tk, const char *word, size_t len,
				char **out, size_t *outlen);

/* Words as the cross-check compares them: a 32-bit id of a folded token.
 * Equal words have equal ids, and two distinct words of one document pair
 * share an id with probability ~2e-4 at most for 1,000-word vocabularies,
 * which cannot move a verdict at the 8% bound by more than one word.  The
 * low bit (ND_WORD_DIGIT) is set exactly when the word holds a decimal
 * digit (a number, price, date or code), so the verdict can tell values
 * from words without the text. */
#define ND_WORD_DIGIT 1u
ND_EXTERN uint32_t nd_word_id(const char *word, size_t len);
/* Ids of tokens[0..n) into out[0..n). */
ND_EXTERN void nd_word_ids(const nd_token *tokens, size_t n, uint32_t *out);
/* The same for the text's own words, the word sequence the verdict
 * compares: tokens[0..n) of text (nd_tokenize's, by their offsets) but
 * those on quoted lines, whose first character other than a space or tab
 * is '>' (a reply's quote of the mail it answers, which is that mail's
 * text, not the reply's), and those from a line "-----Original
 * Message-----" (or its German, French, Spanish, Italian, Dutch,
 * Portuguese or Russian name) to the end, as Outlook quotes.  Every token
 * when all of them are quoted.
 * Returns how many ids it wrote to out (room for n). */
ND_EXTERN size_t nd_word_ids_own(const char *text, size_t len, const nd_token *tokens, size_t n, uint32_t *out);

#ifdef __cplusplus
}
#endif
#endif
