/* The ICU tokenizer: folding, positions, scripts, and bad bytes. */
#include "tests/test_util.h"
#include "neardup/tokenizer.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

static nd_tokenizer *tk;

static int setup(void **state)
{
	(void)state;
	return nd_tokenizer_new(&tk);
}

static int teardown(void **state)
{
	(void)state;
	nd_tokenizer_free(tk);
	return 0;
}

/* Tokens joined by '|'. */
static char *joined(const char *text, size_t len, int flags, int *rc, nd_tokenize_info *info)
{
	const nd_token *t;
	size_t n;
	static char out[4096];
	out[0] = '\0';
	*rc = nd_tokenize(tk, text, len, flags, &t, &n, info);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(out, "|");
		strncat(out, t[i].text, t[i].len);
	}
	return out;
}

static void test_latin_positions(void **state)
{
	(void)state;
	const nd_token *t;
	size_t n;
	const char *s = "Hello, World!  It's 2024 -- don't panic.";
	assert_int_equal(nd_tokenize(tk, s, strlen(s), 0, &t, &n, NULL), ND_OK);
	assert_int_equal(n, 6);
	assert_string_equal(t[0].text, "hello");
	assert_int_equal(t[0].pos, 1);
	assert_int_equal(t[0].offset, 0);
	assert_string_equal(t[1].text, "world");
	assert_int_equal(t[1].offset, 7);
	assert_string_equal(t[2].text, "it's");
	assert_string_equal(t[3].text, "2024");
	assert_string_equal(t[4].text, "don't");
	assert_int_equal(t[5].pos, 6);
	assert_string_equal(t[5].text, "panic");
}

static void test_german_folding(void **state)
{
	(void)state;
	int rc;
	/* Straße, STRASSE and fullwidth ＳＴＲＡＳＳＥ fold to one token. */
	char *a = strdup(joined("Straße", strlen("Straße"), 0, &rc, NULL));
	assert_int_equal(rc, ND_OK);
	char *b = strdup(joined("STRASSE", 7, 0, &rc, NULL));
	const char *fw = "\xEF\xBC\xB3\xEF\xBC\xB4\xEF\xBC\xB2\xEF\xBC\xA1\xEF\xBC\xB3\xEF\xBC\xB3\xEF\xBC\xA5";
	char *c = strdup(joined(fw, strlen(fw), 0, &rc, NULL));
	assert_string_equal(a, "strasse");
	assert_string_equal(b, "strasse");
	assert_string_equal(c, "strasse");
	free(a);
	free(b);
	free(c);
	/* Ligature and accents: NFKC maps "ﬁ" to "fi"; case folds "Ä" to "ä". */
	assert_string_equal(joined("\xEF\xAC\x81le ÄRGER", strlen("\xEF\xAC\x81le ÄRGER"), 0, &rc, NULL),
			    "file|ärger");
	/* A typographic apostrophe (U+2019) is the apostrophe, as Xapian's
	 * TermGenerator has it: one site's "William’s" is another's
	 * "William's". */
	const char *curly = "William\xE2\x80\x99s Saddam\xE2\x80\x99S don't";
	assert_string_equal(joined(curly, strlen(curly), 0, &rc, NULL), "william's|saddam's|don't");
	assert_int_equal(rc, ND_OK);
}

static void test_cyrillic(void **state)
{
	(void)state;
	int rc;
	const char *s = "Москва — СТОЛИЦА России.";
	assert_string_equal(joined(s, strlen(s), 0, &rc, NULL), "москва|столица|россии");
	assert_int_equal(rc, ND_OK);
}

static void test_cjk_and_thai(void **state)
{
	(void)state;
	const nd_token *t;
	size_t n;
	/* "I am a student in Beijing": dictionary break gives several words. */
	const char *zh = "我是北京大学的学生";
	assert_int_equal(nd_tokenize(tk, zh, strlen(zh), 0, &t, &n, NULL), ND_OK);
	assert_true(n >= 4 && n <= 8);
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += t[i].len;
	assert_int_equal(total, strlen(zh)); /* every character is in some word */
	const char *th = "ภาษาไทยง่ายนิดเดียว"; /* Thai has no spaces */
	assert_int_equal(nd_tokenize(tk, th, strlen(th), 0, &t, &n, NULL), ND_OK);
	assert_true(n >= 3);
	/* Japanese mixed with Latin. */
	const char *ja = "東京タワーはTokyo Towerです";
	assert_int_equal(nd_tokenize(tk, ja, strlen(ja), 0, &t, &n, NULL), ND_OK);
	int found = 0;
	for (size_t i = 0; i < n; i++)
		found += !strcmp(t[i].text, "tokyo") || !strcmp(t[i].text, "tower");
	assert_int_equal(found, 2);
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	int rc;
	nd_tokenize_info info;
	/* A lone continuation byte at offset 6, then more text. */
	const char s[] = "hello \x80world and more";
	assert_string_equal(joined(s, sizeof(s) - 1, 0, &rc, &info), "hello|world|and|more");
	assert_int_equal(rc, ND_OK);
	assert_int_equal(info.invalid_count, 1);
	assert_int_equal(info.first_invalid, 6);
	/* Strict mode refuses it and names the offset. */
	joined(s, sizeof(s) - 1, ND_TOKENIZE_STRICT, &rc, &info);
	assert_int_equal(rc, ND_EENCODING);
	assert_non_null(strstr(nd_error_last(), "byte 6"));
	/* Overlong "/" (C0 AF), a surrogate (ED A0 80), past U+10FFFF (F4 90 80 80),
	 * and a truncated sequence at the end are all invalid. */
	uint64_t first;
	assert_true(nd_utf8_check("a\xC0\xAF", 3, &first) > 0);
	assert_int_equal(first, 1);
	assert_true(nd_utf8_check("\xED\xA0\x80", 3, &first) > 0);
	assert_true(nd_utf8_check("\xF4\x90\x80\x80", 4, &first) > 0);
	assert_true(nd_utf8_check("ok\xE2\x82", 4, &first) > 0);
	assert_int_equal(first, 2);
	assert_int_equal(nd_utf8_check("€ ok ß", strlen("€ ok ß"), &first), 0);
	/* NUL bytes separate words and do not end the document. */
	const char z[] = "one\0two three";
	assert_string_equal(joined(z, sizeof(z) - 1, 0, &rc, NULL), "one|two|three");
}

static void test_edge_sizes(void **state)
{
	(void)state;
	const nd_token *t;
	size_t n;
	nd_tokenize_info info;
	assert_int_equal(nd_tokenize(tk, "", 0, 0, &t, &n, NULL), ND_OK);
	assert_int_equal(n, 0);
	assert_int_equal(nd_tokenize(tk, " \t\n  ", 5, 0, &t, &n, NULL), ND_OK);
	assert_int_equal(n, 0);
	/* An over-long token is dropped and takes no position. */
	char big[300];
	memset(big, 'x', 200);
	strcpy(big + 200, " after");
	assert_int_equal(nd_tokenize(tk, big, strlen(big), 0, &t, &n, &info), ND_OK);
	assert_int_equal(n, 1);
	assert_string_equal(t[0].text, "after");
	assert_int_equal(t[0].pos, 1);
	assert_int_equal(info.dropped_long, 1);
	/* A large document: 200,000 words, positions count up. */
	size_t words = 200000;
	char *doc = malloc(words * 6 + 1);
	for (size_t i = 0; i < words; i++)
		memcpy(doc + i * 6, "word ", 6);
	doc[words * 6] = '\0';
	assert_int_equal(nd_tokenize(tk, doc, words * 6, 0, &t, &n, NULL), ND_OK);
	assert_int_equal(n, words);
	assert_int_equal(t[n - 1].pos, words);
	free(doc);
}

/* ICU's break iterator counts in int32_t: past 2 GiB the document must be
 * refused, naming the limit, not cut into wrong offsets.  A sparse private
 * mapping stands in for the document, so nothing is allocated. */
static void test_over_2gib_refused(void **state)
{
	(void)state;
	const nd_token *t;
	size_t n, len = (size_t)INT32_MAX + 2;
	void *big = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (big == MAP_FAILED)
		skip();
	assert_int_equal(nd_tokenize(tk, big, len, 0, &t, &n, NULL), ND_ETOOBIG);
	assert_int_equal(n, 0);
	assert_non_null(strstr(nd_error_last(), "2147483647"));
	munmap(big, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latin_positions),
		cmocka_unit_test(test_german_folding),
		cmocka_unit_test(test_cyrillic),
		cmocka_unit_test(test_cjk_and_thai),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_edge_sizes),
		cmocka_unit_test(test_over_2gib_refused),
	};
	return cmocka_run_group_tests_name("tokenizer", tests, setup, teardown);
}
