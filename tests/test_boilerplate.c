/* Main-content extraction: hand-made pages with navigation, link lists,
 * a footer, comment chrome and an article body; what is kept, what is
 * dropped, that the output is deterministic, and the fallbacks. */
#include "tests/test_util.h"
#include "indexer/html_text.h"
#include "neardup/indexer.h"
#include "neardup/tokenizer.h"
#include "common/nd_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char article_p1[] =
	"The city council voted on Tuesday to expand the bus network into the northern "
	"districts, a plan that has been debated for more than three years and that will "
	"cost about forty million over the next decade, according to the budget office.";
static const char article_p2[] =
	"Supporters of the plan said that it would cut commuting times for thousands of "
	"residents who now have to change buses twice, while critics argued that the money "
	"should be spent on repairing the roads that are already there.";

static char *page(const char *title_site)
{
	char *p = malloc(8192);
	snprintf(p, 8192,
		 "<html><head><title>%s</title><style>p{color:red}</style></head><body>"
		 "<div id=nav><ul><li><a href=/>Home</a></li><li><a href=/news>News</a></li>"
		 "<li><a href=/sport>Sport</a></li><li><a href=/weather>Weather and travel</a></li></ul></div>"
		 "<div class=menu><a href=/a>Business</a> | <a href=/b>Technology</a> | "
		 "<a href=/c>Entertainment and arts</a> | <a href=/d>Health</a></div>"
		 "<h1>Council expands bus network</h1>"
		 "<p>%s</p><p>%s</p>"
		 "<div class=related><h3>Related stories</h3><ul>"
		 "<li><a href=/x>Mayor opens new library in the old market hall downtown</a></li>"
		 "<li><a href=/y>Road repairs to start next spring, officials say today</a></li></ul></div>"
		 "<div class=comments><h3>Comments</h3><p><a href=/login>Log in</a> to comment. "
		 "<a href=/rules>Rules</a></p></div>"
		 "<div id=footer><p>\xC2\xA9 2007 %s. All rights reserved. Terms of use, privacy "
		 "policy and cookie settings apply to every page on this site.</p></div>"
		 "<script>var x = 'not text';</script></body></html>",
		 title_site, article_p1, article_p2, title_site);
	return p;
}

static char *text_of(const char *html, nd_content mode)
{
	char *t = NULL;
	size_t n;
	assert_int_equal(nd_html_text(html, strlen(html), "fixture.html", mode, &t, &n), ND_OK);
	assert_non_null(t);
	assert_int_equal(strlen(t), n);
	return t;
}

/* A page's main content holds every text of keep and none of drop (both
 * NULL-terminated); what failed names the page and shows its text. */
static void expect_main(const char *what, const char *html, const char *const *keep, const char *const *drop)
{
	char *main = text_of(html, ND_CONTENT_MAIN);
	for (; *keep; keep++)
		if (!strstr(main, *keep))
			fail_msg("%s lost \"%s\": %s", what, *keep, main);
	for (; *drop; drop++)
		if (strstr(main, *drop))
			fail_msg("%s kept \"%s\": %s", what, *drop, main);
	free(main);
}

#define TEXTS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_article_kept_chrome_dropped(void **state)
{
	(void)state;
	char *html = page("Daily Example");
	char *main = text_of(html, ND_CONTENT_MAIN), *full = text_of(html, ND_CONTENT_FULL);
	/* The article body and its heading are content. */
	assert_non_null(strstr(main, "expand the bus network into the northern"));
	assert_non_null(strstr(main, "repairing the roads that are already there"));
	assert_non_null(strstr(main, "Council expands bus network"));
	/* Navigation, link lists, comment chrome and the footer are not. */
	const char *dropped[] = {"Home", "Weather and travel", "Technology", "Mayor opens new library",
				 "Log in", "All rights reserved", "Related stories"};
	for (size_t i = 0; i < sizeof(dropped) / sizeof(*dropped); i++) {
		if (strstr(main, dropped[i]))
			fail_msg("main content kept boilerplate '%s':\n%s", dropped[i], main);
		assert_non_null(strstr(full, dropped[i])); /* but full text has it */
	}
	assert_null(strstr(full, "not text")); /* scripts never */
	free(main);
	free(full);
	free(html);
}

static void test_same_article_other_template(void **state)
{
	(void)state;
	/* Two sites, one article: main content is identical where full text is not. */
	char *a = page("Daily Example"), *b = page("The Other Courier Online");
	char *ma = text_of(a, ND_CONTENT_MAIN), *mb = text_of(b, ND_CONTENT_MAIN);
	char *fa = text_of(a, ND_CONTENT_FULL), *fb = text_of(b, ND_CONTENT_FULL);
	assert_string_equal(ma, mb);
	assert_string_not_equal(fa, fb);
	/* Deterministic: the same page gives the same text again. */
	char *ma2 = text_of(a, ND_CONTENT_MAIN);
	assert_string_equal(ma, ma2);
	free(ma2);
	free(ma);
	free(mb);
	free(fa);
	free(fb);
	free(a);
	free(b);
}

static void test_short_paragraph_page(void **state)
{
	(void)state;
	/* A wire story cut into sentences, none over 200 characters: still read
	 * as content, not kept whole with its menu. */
	const char *html =
		"<html><body><div><a href=/1>Home</a> <a href=/2>Local news</a> <a href=/3>Video</a></div>"
		"<p>The museum will reopen on Saturday after two years of work on the roof and the walls.</p>"
		"<p>Visitors will be able to see the new hall, which was built for the collection of old maps.</p>"
		"<p>The director said that the entrance will be free for the first month of the year.</p>"
		"</body></html>";
	char *main = text_of(html, ND_CONTENT_MAIN);
	assert_non_null(strstr(main, "reopen on Saturday"));
	assert_non_null(strstr(main, "free for the first month"));
	assert_null(strstr(main, "Local news"));
	free(main);
}

static void test_sentence_paragraphs_beside_long_boilerplate(void **state)
{
	(void)state;
	/* A wire story in one-sentence paragraphs, between a film menu (a
	 * <select>) and a long legal disclaimer that reads as prose: the run
	 * of near-good paragraphs is the article, the menu is never text. */
	const char *html =
		"<html><body><form><select><option>A Good Year</option><option>Children of Men</option>"
		"<option>Curse of the Golden Flower</option></select></form>"
		"<div><a href=/1>Events</a> <a href=/2>Movies</a> <a href=/3>Bars</a></div>"
		"<p>The daughter of the late wildlife presenter appeared on stage on Saturday in New York.</p>"
		"<p>She was there as part of the annual tourism week, where she sang and danced for the crowd.</p>"
		"<p>At least one young member of the audience said that she was inspired by the show.</p>"
		"<p>Her father was killed by a stingray last year while he was filming one of his programmes.</p>"
		"<p>She said on Friday that she is ready to carry on with the work that he had started.</p>"
		"<div><a href=/4>Site map</a> <a href=/5>Contact</a></div>"
		"<p>Disclaimer: many of the stories on this site may or may not contain copyrighted material "
		"whose use has not been specifically authorized by the owner, and we make such material "
		"available in our efforts to advance the understanding of the issues that are in the news.</p>"
		"</body></html>";
	char *main = text_of(html, ND_CONTENT_MAIN), *full = text_of(html, ND_CONTENT_FULL);
	assert_non_null(strstr(main, "appeared on stage on Saturday"));
	assert_non_null(strstr(main, "killed by a stingray"));
	assert_non_null(strstr(main, "carry on with the work"));
	assert_null(strstr(full, "Children of Men")); /* form controls are never text */
	assert_null(strstr(main, "Site map"));
	free(main);
	free(full);
}

static void test_other_language_and_fallback(void **state)
{
	(void)state;
	/* German prose is found through the German list. */
	const char *de =
		"<html><body><div><a href=/>Startseite</a> <a href=/p>Politik</a> <a href=/w>Wirtschaft</a></div>"
		"<p>Der Stadtrat hat am Dienstag beschlossen, das Busnetz in die n\xC3\xB6rdlichen Bezirke "
		"auszubauen, nachdem \xC3\xBC" "ber den Plan mehr als drei Jahre lang gestritten worden war und "
		"die Kosten in den n\xC3\xA4" "chsten zehn Jahren bei etwa vierzig Millionen liegen sollen.</p>"
		"</body></html>";
	char *main = text_of(de, ND_CONTENT_MAIN);
	assert_non_null(strstr(main, "Der Stadtrat"));
	assert_null(strstr(main, "Startseite"));
	free(main);
	/* No stopword list matches (digits and a link list only): the page is
	 * kept whole rather than emptied. */
	const char *none = "<html><body><p><a href=/a>1234</a> 5678 9012</p><p>3456 7890</p></body></html>";
	char *m = text_of(none, ND_CONTENT_MAIN), *f = text_of(none, ND_CONTENT_FULL);
	assert_string_equal(m, f);
	assert_non_null(strstr(m, "7890"));
	free(m);
	free(f);
}

/* Chinese and Japanese prose is found through their lists of function
 * words (as ICU's dictionary word break cuts the text), and a CJK
 * character counts as three letters in the lengths: without them no list
 * matched and the page was kept whole, menu and footer too. */
static void test_chinese_and_japanese_prose(void **state)
{
	(void)state;
	static const char *const pages[][3] = {
		{"<html><body><div><a href=/>首页</a> <a href=/n>新闻</a> <a href=/s>体育</a> <a href=/w>天气和交通</a></div>"
		 "<p>市议会周二投票决定将公交网络扩展到北部地区，这项计划已经讨论了三年多，根据预算办公室的数据，"
		 "在未来十年内将花费大约四千万元。</p>"
		 "<p>支持者表示，这个计划可以为成千上万的居民缩短通勤时间，因为他们现在需要换乘两次公交车；"
		 "而批评者认为，这笔钱应该用于修复已经存在的道路。</p>"
		 "<div><p>示例网站 使用条款 隐私政策 联系我们</p></div></body></html>",
		 "市议会周二", "隐私政策"},
		{"<html><body><div><a href=/>ホーム</a> <a href=/n>ニュース</a> <a href=/s>スポーツ</a> <a href=/w>天気</a></div>"
		 "<p>市議会は火曜日に、バス路線を北部の地区まで広げる計画を可決した。この計画は三年以上にわたって"
		 "議論されてきたもので、予算局によると今後十年間でおよそ四千万の費用がかかるという。</p>"
		 "<p>計画の支持者は、現在バスを二回乗り換えなければならない何千人もの住民の通勤時間が短くなると"
		 "述べたが、批判する人たちは、その資金をすでにある道路の修理に使うべきだと主張している。</p>"
		 "<div><p>サイト案内 利用規約 個人情報保護方針 お問い合わせ</p></div></body></html>",
		 "市議会は火曜日", "利用規約"},
	};
	expect_main("the Chinese page", pages[0][0], TEXTS(pages[0][1]), TEXTS(pages[0][2], "首页"));
	expect_main("the Japanese page", pages[1][0], TEXTS(pages[1][1]), TEXTS(pages[1][2], "ホーム"));
}

/* A page in a script no stopword list reads (Korean, Greek, ...) is
 * classified by length and links alone: its prose is kept, its menu is
 * not.  Read by the lists, the one paragraph with English words in it
 * had been its content (a Korean chapter kept 252 characters of 16,957),
 * and a page they matched nowhere was kept whole, menu too. */
static void test_script_without_a_list(void **state)
{
	(void)state;
	static const char ko[] =
		"<html><body><div><a href=/>홈</a> <a href=/n>뉴스</a> <a href=/s>스포츠</a> <a href=/w>날씨와 교통</a></div>"
		"<p>시의회는 화요일에 버스 노선을 북부 지역까지 확대하는 계획을 통과시켰다. 이 계획은 삼 년 넘게 논의되어 "
		"왔으며, 예산처에 따르면 앞으로 십 년 동안 약 사천만 원의 비용이 들 것으로 예상된다.</p>"
		"<p>계획을 지지하는 사람들은 지금 버스를 두 번 갈아타야 하는 수천 명의 주민들의 통근 시간이 줄어들 "
		"것이라고 말했지만, 비판하는 사람들은 그 돈을 이미 있는 도로를 고치는 데 써야 한다고 주장했다.</p>"
		"<p>이 디렉터리에는 자유 배포 가능한 패키지가 들어갑니다. 그러나 but somehow depend on a package that is "
		"not freely distributable and thus available only in the non-free section.</p>"
		"</body></html>";
	static const char el[] =
		"<html><body><ul><li><a href=/>Αρχική</a></li><li><a href=/n>Ειδήσεις</a></li>"
		"<li><a href=/s>Αθλητικά</a></li><li><a href=/w>Καιρός και κυκλοφορία</a></li></ul>"
		"<p>Το δημοτικό συμβούλιο ψήφισε την Τρίτη την επέκταση του δικτύου λεωφορείων στις βόρειες "
		"συνοικίες, ένα σχέδιο που συζητείται εδώ και περισσότερα από τρία χρόνια και που θα κοστίσει "
		"περίπου σαράντα εκατομμύρια την επόμενη δεκαετία, σύμφωνα με το γραφείο προϋπολογισμού.</p>"
		"</body></html>";
	expect_main("the Korean page", ko, TEXTS("시의회는 화요일에", "계획을 지지하는"), TEXTS("날씨와 교통"));
	expect_main("the Greek page", el, TEXTS("Το δημοτικό συμβούλιο"), TEXTS("Καιρός και κυκλοφορία"));
	/* Two paragraphs too short to be good alone, apart: prose all the same. */
	static const char ar[] =
		"<html><body><ul><li><a href=/>الرئيسية</a></li><li><a href=/n>أخبار</a></li><li><a href=/s>رياضة</a></li></ul>"
		"<p>صوّت مجلس المدينة يوم الثلاثاء على توسيع شبكة الحافلات لتشمل الأحياء الشمالية، وهي خطة نوقشت لأكثر "
		"من ثلاث سنوات وستكلف نحو أربعين مليونًا.</p>"
		"<div><a href=/x>مقالات ذات صلة</a> <a href=/y>الطقس اليوم</a> <a href=/z>حركة المرور</a></div>"
		"<p>وقال المؤيدون إن الخطة ستختصر وقت التنقل لآلاف السكان، بينما رأى المنتقدون أن المال يجب أن يُنفق "
		"على إصلاح الطرق القائمة في المدينة.</p></body></html>";
	expect_main("the Arabic page", ar, TEXTS("صوّت مجلس المدينة", "وقال المؤيدون"), TEXTS("رياضة"));
}

/* Czech, Romanian, Vietnamese and Ukrainian have lists of their own:
 * without them such a page was read by whichever list matched a few of its
 * words (Ukrainian by Russian's), its prose fell below the density of
 * prose, and the page was kept whole. */
static void test_languages_with_lists(void **state)
{
	(void)state;
	static const char *const pages[][3] = {
		{"<html><body><div><a href=/>Domů</a> <a href=/z>Zprávy</a> <a href=/s>Sport</a> "
		 "<a href=/p>Počasí a doprava</a></div>"
		 "<p>Městská rada v úterý schválila rozšíření autobusové sítě do severních čtvrtí. O plánu se "
		 "jednalo více než tři roky a podle rozpočtového odboru bude v příštích deseti letech stát "
		 "přibližně čtyřicet milionů korun.</p>"
		 "<p>Zastánci plánu říkají, že zkrátí dobu dojíždění tisícům obyvatel, kteří dnes musí dvakrát "
		 "přestupovat, ale kritici tvrdí, že by se peníze měly použít na opravu stávajících silnic.</p>"
		 "</body></html>",
		 "Městská rada v úterý", "Počasí a doprava"},
		{"<html><body><ul><li><a href=/>Acasă</a></li><li><a href=/s>Știri</a></li>"
		 "<li><a href=/p>Sport</a></li><li><a href=/v>Vremea și traficul</a></li></ul>"
		 "<p>Consiliul local a aprobat marți extinderea rețelei de autobuze în cartierele din nord. Planul "
		 "a fost discutat timp de mai mult de trei ani și, potrivit biroului de buget, va costa aproximativ "
		 "patruzeci de milioane în următorii zece ani.</p>"
		 "<p>Susținătorii planului spun că acesta va scurta timpul de navetă pentru mii de locuitori care "
		 "în prezent trebuie să schimbe de două ori autobuzul, dar criticii susțin că banii ar trebui "
		 "folosiți pentru repararea drumurilor existente.</p></body></html>",
		 "Consiliul local a aprobat", "Vremea și traficul"},
		{"<html><body><div><a href=/>Trang chủ</a> <a href=/t>Tin tức</a> <a href=/s>Thể thao</a> "
		 "<a href=/g>Thời tiết và giao thông</a></div>"
		 "<p>Hội đồng thành phố đã thông qua vào thứ Ba kế hoạch mở rộng mạng lưới xe buýt đến các khu phía "
		 "bắc. Kế hoạch này đã được thảo luận trong hơn ba năm và theo văn phòng ngân sách sẽ tốn khoảng "
		 "bốn mươi triệu trong mười năm tới.</p>"
		 "<p>Những người ủng hộ nói rằng kế hoạch sẽ rút ngắn thời gian đi lại cho hàng nghìn cư dân hiện "
		 "phải đổi xe hai lần, nhưng những người phản đối cho rằng số tiền đó nên được dùng để sửa chữa "
		 "các con đường hiện có.</p></body></html>",
		 "Hội đồng thành phố", "Thời tiết và giao thông"},
		{"<html><body><div><a href=/>Головна</a> <a href=/n>Новини</a> <a href=/s>Спорт</a> "
		 "<a href=/p>Погода та дороги</a></div>"
		 "<p>Міська рада у вівторок ухвалила розширення автобусної мережі до північних районів. План "
		 "обговорювали понад три роки, і за даними бюджетного відділу він коштуватиме близько сорока "
		 "мільйонів протягом наступних десяти років.</p>"
		 "<p>Прихильники плану кажуть, що він скоротить час поїздки для тисяч мешканців, які зараз мусять "
		 "двічі пересідати, але критики вважають, що ці гроші слід витратити на ремонт наявних доріг.</p>"
		 "</body></html>",
		 "Міська рада у вівторок", "Погода та дороги"},
	};
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		expect_main(pages[i][1], pages[i][0], TEXTS(pages[i][1]), TEXTS(pages[i][2]));
}

/* A word said over and over (a code listing's "end", a Danish stopword)
 * does not make the page Danish: its English prose stays its content. */
static void test_language_not_one_word(void **state)
{
	(void)state;
	char html[4096];
	int at = snprintf(html, sizeof(html), "%s",
			  "<html><body><div><a href=/>Home</a> <a href=/d>Downloads</a> <a href=/f>Forum</a> "
			  "<a href=/c>Contact the maintainers</a></div>"
			  "<p>The loop below reads each record of the file in turn and stops at the first one "
			  "that is empty, which is how the older version of the tool did it as well.</p>"
			  "<p>When a record is longer than the buffer, the rest of it is read into a second buffer "
			  "and the two are joined before the record is handed on, so that no caller has to know "
			  "how long a record may be.</p><pre>");
	for (int i = 0; i < 60; i++)
		at += snprintf(html + at, sizeof(html) - (size_t)at, "begin x%d := y; end\n", i);
	snprintf(html + at, sizeof(html) - (size_t)at, "%s", "</pre></body></html>");
	expect_main("the English page", html, TEXTS("The loop below reads"), TEXTS("Contact the maintainers"));
}

/* The one block of a fixture: its link characters over its visible ones,
 * bounded without repeating the classifier's count (which lies between
 * the block's non-space characters and all of them), and those counts. */
static void one_block(const char *html, double *lo, double *hi, size_t *nonspace, size_t *all)
{
	nd_buf text = ND_BUF_INIT, blocks = ND_BUF_INIT;
	assert_int_equal(nd_html_to_text(html, strlen(html), "block.html", &text, NULL, NULL, NULL, &blocks), ND_OK);
	const nd_html_block *b = (const nd_html_block *)(void *)blocks.ptr;
	assert_int_equal(blocks.len / sizeof(*b), 1);
	*nonspace = 0;
	for (size_t i = b[0].start; i < b[0].end; i++)
		*nonspace += text.ptr[i] != ' ';
	*all = b[0].end - b[0].start;
	*lo = (double)b[0].link_chars / (double)*all;
	*hi = (double)b[0].link_chars / (double)*nonspace;
	nd_buf_free(&text);
	nd_buf_free(&blocks);
}

static void test_linked_prose_and_iframe_fallback(void **state)
{
	(void)state;
	/* An article lead whose names are links (a quarter of its characters):
	 * long stopword-dense prose keeps Kohlschuetter's 1/3 (0.34) link-density
	 * bound, where a paragraph under 200 characters with as many links
	 * gets jusText's 0.2, good text on both sides or not. An <iframe>'s
	 * children are fallback markup for frameless browsers (here an
	 * advert's escaped HTML), never shown. */
	const char *lead =
		"<p>The <a href=/p/1>Prime Minister</a> said on Monday that <a href=/p/2>the Treasury</a> "
		"would not raise the tax on fuel this year, and that the <a href=/o/3>Bank of England</a> "
		"was right to hold interest rates where they were while the price of oil is still this "
		"high, in a speech to the <a href=/o/4>Confederation of Industry</a> in London.</p>";
	const char *linked =
		"<p>See also our report on <a href=/t>the price of oil and gas</a> and what it means for "
		"you, and <a href=/g>our guide to fuel</a> for all of you who drive to work every day.</p>";
	/* The fixtures are what they claim: both link densities lie between
	 * the bounds; the lead is over 200 characters, the other under. */
	double lo, hi;
	size_t chars, all;
	one_block(lead, &lo, &hi, &chars, &all);
	assert_true(lo > 0.2 && hi < 0.34 && chars > 200);
	one_block(linked, &lo, &hi, &chars, &all);
	assert_true(lo > 0.2 && hi < 0.34 && chars >= 70 && all <= 200);

	char html[4096];
	snprintf(html, sizeof(html),
		 "<html><body><div><a href=/>Home</a> <a href=/w>World</a> <a href=/b>Business</a></div>%s%s"
		 "<iframe src=/ad>&lt;A HREF=\"http://ads.example/click\"&gt;Advertisement fallback "
		 "text&lt;/A&gt;</iframe>"
		 "<p>Business leaders welcomed the decision, which they said would help the firms that "
		 "have been hit hardest by the rise in the cost of transport over the last two years, and "
		 "that they hoped it would be the first of many such steps.</p>"
		 "</body></html>",
		 lead, linked);
	char *main = text_of(html, ND_CONTENT_MAIN), *full = text_of(html, ND_CONTENT_FULL);
	assert_non_null(strstr(main, "would not raise the tax on fuel"));
	assert_non_null(strstr(main, "Business leaders welcomed"));
	assert_null(strstr(main, "See also"));
	assert_non_null(strstr(full, "See also"));
	assert_null(strstr(full, "Advertisement fallback"));
	assert_null(strstr(full, "ads.example"));
	free(main);
	free(full);
}

/* Two readers' comments: prose, longer than the article, stopword-dense. */
static const char comment_p1[] =
	"I have lived in the northern districts for twenty years and I can tell you that "
	"nobody there asked for this, because what we need is for the roads to be fixed "
	"before anything else is done with the money that we all pay every year.";
static const char comment_p2[] =
	"The buses that we have now are empty most of the day, so I do not see why they "
	"would be full when there are more of them, and I think that the council should "
	"have listened to the people who wrote to them about it last year.";

static char *page_with(const char *before, const char *wrap_open, const char *wrap_close)
{
	char *p = malloc(8192);
	snprintf(p, 8192,
		 "<html><body><div id=nav><a href=/>Home</a> <a href=/news>News</a></div>%s"
		 "%s<h3>Readers' comments</h3><p>%s</p><p>%s</p>%s</body></html>",
		 before, wrap_open, comment_p1, comment_p2, wrap_close);
	return p;
}

static void test_readers_comments(void **state)
{
	(void)state;
	char article[1024];
	snprintf(article, sizeof(article), "<h1>Council expands bus network</h1><p>%s</p><p>%s</p>",
		 article_p1, article_p2);
	/* After the article, a container whose class or id says "comment"
	 * holds boilerplate however much it reads like prose. */
	const char *marked[][2] = {{"<div id=comments>", "</div>"},
				   {"<div class=\"blog_Comments box\"><div class=commentBody>", "</div></div>"},
				   {"<table id=CommentsTable><tr><td>", "</td></tr></table>"}};
	for (size_t i = 0; i < sizeof(marked) / sizeof(*marked); i++) {
		char *html = page_with(article, marked[i][0], marked[i][1]);
		char *main = text_of(html, ND_CONTENT_MAIN), *full = text_of(html, ND_CONTENT_FULL);
		assert_non_null(strstr(main, "expand the bus network"));
		assert_non_null(strstr(main, "already there"));
		if (strstr(main, "nobody there asked") || strstr(main, "empty most of the day"))
			fail_msg("%s: comments kept as content:\n%s", marked[i][0], main);
		assert_non_null(strstr(full, "nobody there asked"));
		free(main);
		free(full);
		free(html);
	}
	/* The same prose unmarked, or in a "commentary", is content. */
	const char *unmarked[][2] = {{"<div class=story>", "</div>"}, {"<div class=commentary>", "</div>"}};
	for (size_t i = 0; i < sizeof(unmarked) / sizeof(*unmarked); i++) {
		char *html = page_with(article, unmarked[i][0], unmarked[i][1]);
		char *main = text_of(html, ND_CONTENT_MAIN);
		assert_non_null(strstr(main, "expand the bus network"));
		if (!strstr(main, "nobody there asked") || !strstr(main, "empty most of the day"))
			fail_msg("%s: prose dropped:\n%s", unmarked[i][0], main);
		free(main);
		free(html);
	}
	/* A site that lays its article out in a "CommentTable": with no
	 * content before it, the marked text is the article and is kept. */
	char *html = page_with("", "<table class=CommentTable><tr><td>", "</td></tr></table>");
	char *main = text_of(html, ND_CONTENT_MAIN);
	assert_non_null(strstr(main, "nobody there asked"));
	assert_non_null(strstr(main, "empty most of the day"));
	assert_null(strstr(main, "Home"));
	free(main);
	free(html);
}

static void test_blocks_and_classes(void **state)
{
	(void)state;
	/* The walk's blocks carry link characters and headings as marked up. */
	const char *html = "<body><h2>A heading</h2><p>plain <a href=x>linked words</a> tail</p><p> </p>"
			   "<div id=comments><p>said</p></div><p>after</p></body>";
	nd_buf text = ND_BUF_INIT, blocks = ND_BUF_INIT;
	assert_int_equal(nd_html_to_text(html, strlen(html), "b.html", &text, NULL, NULL, NULL, &blocks), ND_OK);
	const nd_html_block *b = (const nd_html_block *)(void *)blocks.ptr;
	assert_int_equal(blocks.len / sizeof(*b), 4); /* the blank paragraph is no block */
	assert_int_equal(b[0].heading, 1);
	assert_int_equal(b[0].link_chars, 0);
	assert_int_equal(b[1].heading, 0);
	assert_int_equal(b[1].link_chars, strlen("linkedwords"));
	assert_true(b[0].end <= b[1].start);
	/* Inside a comments container, and no longer once it closes. */
	assert_int_equal(b[0].comments + b[1].comments, 0);
	assert_int_equal(b[2].comments, 1);
	assert_int_equal(b[3].comments, 0);
	nd_buf_free(&text);
	nd_buf_free(&blocks);

	/* Landmarks: a header outside the article is chrome, inside it is
	 * not; a role marks one as nav would; closing one ends it. */
	const char *marked = "<body><header><p>site</p></header><main><header><p>title</p></header>"
			     "<p>story</p></main><div role=navigation><p>menu</p></div><p>after</p>"
			     "<footer><p>legal</p></footer></body>";
	text = (nd_buf)ND_BUF_INIT, blocks = (nd_buf)ND_BUF_INIT;
	assert_int_equal(nd_html_to_text(marked, strlen(marked), "m.html", &text, NULL, NULL, NULL, &blocks), ND_OK);
	b = (const nd_html_block *)(void *)blocks.ptr;
	assert_int_equal(blocks.len / sizeof(*b), 6);
	const uint32_t want[] = {1, 0, 0, 2, 0, 3}; /* each element its number */
	for (size_t i = 0; i < 6; i++)
		if (b[i].chrome != want[i])
			fail_msg("block %zu (%.*s): chrome %u", i, (int)(b[i].end - b[i].start), text.ptr + b[i].start,
				 b[i].chrome);
	nd_buf_free(&text);
	nd_buf_free(&blocks);
}

/* The site's own prose in its chrome: an "about us" paragraph in the
 * footer and in a sidebar, a mission statement under role=contentinfo,
 * each long and stopword-dense enough that jusText keeps it.  Marked as
 * the site's chrome (landmarks, or a class or id that names it), it is
 * dropped; the article's own header (title, byline) inside <article> is
 * kept; a page whose prose is (nearly) all in what looks like chrome keeps
 * it. */
static const char about[] =
	"The Northern Courier is an independent newspaper that has been published in the city "
	"since 1887, and it is owned by a trust that exists to keep it free of any political "
	"party, so that our reporters can cover the region without fear or favour.";

/* The main content of the page printf makes of fmt (freed by the caller). */
static char *main_of(const char *fmt, ...) ND_PRINTF(1, 2);
static char *main_of(const char *fmt, ...)
{
	char html[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(html, sizeof(html), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(html));
	return text_of(html, ND_CONTENT_MAIN);
}

/* main holds the story and, as about says, the site's about paragraph
 * or not; freed. */
static void story_kept(char *main, int about)
{
	assert_non_null(strstr(main, "repairing the roads"));
	if ((strstr(main, "independent newspaper") != NULL) != about)
		fail_msg("the about paragraph %s:\n%s", about ? "dropped" : "kept", main);
	free(main);
}

static void test_landmarks_are_chrome(void **state)
{
	(void)state;
	char html[8192];
	snprintf(html, sizeof(html),
		 "<html><body><header><p>%s</p></header>"
		 "<article><header><h1>Council expands bus network</h1><p>By a staff reporter of the "
		 "courier, who has followed the council for years and was there on the day</p></header>"
		 "<p>%s</p><p>%s</p></article>"
		 "<aside><h2>About us</h2><p>%s</p></aside>"
		 "<div role=contentinfo><p>%s</p></div>"
		 "<footer><p>%s</p></footer></body></html>",
		 about, article_p1, article_p2, about, about, about);
	char *main = text_of(html, ND_CONTENT_MAIN), *full = text_of(html, ND_CONTENT_FULL);
	assert_non_null(strstr(main, "expand the bus network into the northern"));
	assert_non_null(strstr(main, "repairing the roads"));
	assert_non_null(strstr(main, "By a staff reporter")); /* the article's header */
	if (strstr(main, "independent newspaper"))
		fail_msg("the site's about paragraph kept as content:\n%s", main);
	assert_non_null(strstr(full, "independent newspaper"));
	free(main);
	free(full);

	/* Without the landmarks the same paragraphs read as content: the
	 * markup is what tells. */
	main = main_of("<html><body><div><p>%s</p></div><p>%s</p><p>%s</p></body></html>", about, article_p1,
		       article_p2);
	assert_non_null(strstr(main, "independent newspaper"));
	free(main);

	/* Pages without landmarks name their chrome in class and id: a word
	 * beginning or ending with a chrome word, unless one names the
	 * article; inside the article its parts are its own. */
	const char *named[][2] = {{"<div class=sidebar>", "1"},   {"<div id=mainNav>", "1"},
				  {"<div class='site-footer x'>", "1"}, {"<div id=rightColumnWidget>", "1"},
				  {"<div class=canvas>", "0"},       {"<div class=article-header>", "0"},
				  {"<div class=content-sidebar>", "0"}, {"<div class=navigator>", "1"}};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		main = main_of("<html><body>%s<p>%s</p></div><p>%s</p><p>%s</p></body></html>", named[i][0], about,
			       article_p1, article_p2);
		if ((strstr(main, "independent newspaper") == NULL) != (named[i][1][0] == '1'))
			fail_msg("%s: about paragraph %s", named[i][0], named[i][1][0] == '1' ? "kept" : "dropped");
		free(main);
	}
	main = main_of("<html><body><article><p>%s</p><div class=related><p>%s</p></div></article></body></html>",
		       article_p1, about);
	assert_non_null(strstr(main, "independent newspaper"));
	free(main);

	/* A story inside a layout named for its sidebar, a paragraph of
	 * prose outside: the "chrome" holds over four times the good text
	 * outside, so the name misled and nothing is dropped; a sidebar
	 * inside the site's "content" wrapper is a sidebar. */
	main = main_of("<html><body><div class=layout-with-sidebar><div id=storyBody><p>%s</p><p>%s</p><p>%s</p>"
		       "<p>%s</p><p>%s</p></div></div><p>%s</p></body></html>",
		       article_p1, article_p2, article_p1, article_p2, article_p1, about);
	assert_non_null(strstr(main, "expand the bus network into the northern"));
	assert_non_null(strstr(main, "repairing the roads"));
	free(main);
	story_kept(main_of("<html><body><div id=content><div id=sidebar><p>%s</p></div><p>%s</p><p>%s</p></div>"
			   "</body></html>", about, article_p1, article_p2), 0);

	/* A short article between a sidebar and a footer, each holding the
	 * site's prose (five paragraphs of it): together they outweigh the
	 * article past four times, each alone does not, and each is the
	 * site's chrome. */
	char five[8 * sizeof(about)];
	snprintf(five, sizeof(five), "<p>%s</p><p>%s</p><p>%s</p><p>%s</p><p>%s</p>", about, about, about, about,
		 about);
	story_kept(main_of("<html><body><table><tr><td class=sidebar>%s</td><td><p>%s</p><p>%s</p></td></tr>"
			   "</table><div class=footer>%s</div></body></html>", five, article_p1, article_p2, five), 0);

	/* All of a page's prose in an aside: kept, not emptied. */
	main = main_of("<html><body><nav><a href=/>Home</a></nav><aside><p>%s</p><p>%s</p></aside></body></html>",
		       article_p1, article_p2);
	assert_non_null(strstr(main, "expand the bus network into the northern"));
	free(main);
}

/* A page that marks its main content (main, article, role=main) is that
 * content, all of it, as a documentation site's pages are: an index of
 * links, a stub of a line and a link, a listing of code.  Classified block
 * by block, the index kept only the footer's licence, the same on every
 * such page (so two letters of an index were one text), and a code page
 * kept one docstring or all of its code as a word changed. */
static const char licence[] =
	"This page is licensed under the Example Software Foundation License Version 2, and the "
	"examples, recipes and other code in the documentation are additionally licensed under a "
	"permissive licence, so that you can use them in your own work without asking us.";

/* Two pages' texts a and b, each holding its own words, not one text and
 * without the site's chrome (none; NULL: not asked): freed. */
static void two_texts(char *a, char *b, const char *in_a, const char *in_b, const char *none)
{
	assert_non_null(strstr(a, in_a));
	assert_non_null(strstr(b, in_b));
	assert_true(!none || (!strstr(a, none) && !strstr(b, none)));
	assert_string_not_equal(a, b);
	free(a);
	free(b);
}

static char *doc_page(const char *main_html)
{
	return main_of("<html><body><div class=related role=navigation><a href=/>index</a> | "
		       "<a href=/modules>modules</a> | <a href=/next>next</a></div>"
		       "<div class=document><div class=body role=main>%s</div></div>"
		       "<div class=sphinxsidebar role=navigation><h3>This page</h3><a href=/src>Show source</a></div>"
		       "<div class=footer><p>%s</p></div></body></html>",
		       main_html, licence);
}

static void test_marked_main_is_the_content(void **state)
{
	(void)state;
	char *b = doc_page("<h1>Index \xE2\x80\x93 B</h1><table><tr><td><a href=/b16>b16decode() (in module base64)</a>"
			   "</td><td><a href=/b2a>b2a_hex() (in module binascii)</a></td></tr></table>");
	char *c = doc_page("<h1>Index \xE2\x80\x93 C</h1><table><tr><td><a href=/cal>calendar (module)</a></td>"
			   "<td><a href=/cmath>cmath (module)</a></td><td><a href=/codecs>codecs (module)</a></td>"
			   "</tr></table>");
	assert_null(strstr(b, "Show source"));
	two_texts(b, c, "b16decode", "calendar", "licensed under");

	char *stub = doc_page("<h1>Uploading packages</h1><p>References to up to date documentation can be "
			      "found at <a href=/guide>the packaging user guide</a>.</p>");
	assert_non_null(strstr(stub, "References to up to date documentation"));
	assert_null(strstr(stub, "licensed under"));
	free(stub);

	/* Code with a docstring of prose: all of it, before and after an edit. */
	const char *code = "<h1>Source code for util.logging</h1><pre><span>def</span> <span>get_logger</span>"
			   "(name):\n    \"\"\"%s\"\"\"\n    <span>return</span> <span>adapter</span>(name)\n"
			   "<span>def</span> <span>%s</span>(level):\n    <span>return</span> level</pre>";
	char html[2048];
	snprintf(html, sizeof(html), code, article_p1, "set_level");
	char *one = doc_page(html);
	snprintf(html, sizeof(html), code, article_p1, "set_levels");
	char *two = doc_page(html);
	assert_non_null(strstr(one, "get_logger"));
	assert_non_null(strstr(one, "return adapter"));
	assert_non_null(strstr(two, "set_levels"));
	assert_int_equal(strlen(one) + 1, strlen(two));
	free(one);
	free(two);

	/* A mark can mislead: teaser cards in <article> below a story that
	 * is not marked, a main element a script fills.  The story is kept. */
	story_kept(main_of("<html><body><div class=story><h1>Council expands bus network</h1><p>%s</p><p>%s</p>"
			   "</div><div class=more><article><a href=/x>Mayor opens library</a></article>"
			   "<article><a href=/y>Road repairs to start</a></article></div></body></html>",
			   article_p1, article_p2), 0);
	story_kept(main_of("<html><body><main><p>Loading</p></main><div><p>%s</p><p>%s</p></div></body></html>",
			   article_p1, article_p2), 0);

	/* The main content is <main>, else the largest <article>: other
	 * articles are teaser cards, prose or not. */
	story_kept(main_of("<html><body><article><h1>Council expands bus network</h1><p>%s</p><p>%s</p></article>"
			   "<div class=more><article><h2><a href=/x>Courier history</a></h2><p>%s</p></article>"
			   "</div></body></html>", article_p1, article_p2, about), 0);
	story_kept(main_of("<html><body><main><p>%s</p><p>%s</p></main><div><article><p>%s</p></article></div>"
			   "</body></html>", article_p1, article_p2, about), 0);

	/* Readers' comments inside the main content are still not content. */
	story_kept(main_of("<html><body><main><h1>Council expands bus network</h1><p>%s</p><p>%s</p>"
			   "<div class=comments><p>%s</p></div></main><footer><p>%s</p></footer></body></html>",
			   article_p1, article_p2, about, about), 0);
}

/* An index a generator wrote marks no main content: a line of prose, then
 * lists of links, which jusText drops.  That line alone made every
 * letter's page one text; a page whose content is such a stub is kept
 * whole, its lists with it. */
static char *index_page(char letter, const char *a, const char *b)
{
	return main_of("<html><body><div id=top><div id=projectname>cairomm 1.14.4</div>"
		       "<div class=tabs><ul><li><a href=index.html>Main Page</a></li>"
		       "<li><a href=namespaces.html>Namespaces</a></li><li><a href=annotated.html>Classes</a></li>"
		       "</ul></div></div><div class=listing><div class=textblock>Here is a list of all class "
		       "members with links to the classes they belong to:</div><h3>- %c -</h3><ul>"
		       "<li>%s : <a href=classCairo_1_1Context.html>Cairo::Context</a></li>"
		       "<li>%s : <a href=classCairo_1_1Surface.html>Cairo::Surface</a></li></ul></div>"
		       "<hr class=footer><address class=footer>Generated by doxygen 1.9.4</address>"
		       "</body></html>",
		       letter, a, b);
}

/* A class page as Doxygen writes it (or, without generator, the same
 * markup from anything else): its content in <div class=contents>, the
 * members a table of links, then their inherited descriptions, the same
 * prose for every specialization of one template class. */
static char *class_page(const char *type, const char *generator)
{
	return main_of("<html><head><meta name=generator content=\"%s\"></head>"
		       "<body><div id=top><div id=projectname>glibmm 2.66.5</div>"
		       "<div class=tabs><ul><li><a href=index.html>Main Page</a></li>"
		       "<li><a href=annotated.html>Classes</a></li></ul></div></div>"
		       "<div class=header><div class=headertitle>Glib::Variant&lt; %s &gt; Class Reference</div></div>"
		       "<div class=contents><table class=memberdecls>"
		       "<tr><td class=memItemLeft>%s</td><td class=memItemRight><a href=#a1>get</a> () const</td></tr>"
		       "<tr><td class=memItemLeft>static Variant&lt; %s &gt;</td><td class=memItemRight>"
		       "<a href=#a2>create</a> (%s data)</td></tr></table>"
		       "<p>Provides access to the underlying C instance. The caller is responsible for freeing "
		       "it. Use when directly setting fields in structs.</p><p>Determines the number of bytes "
		       "that would be required to store the value with the store function, which is the "
		       "size that the serialised form of this variant takes in memory.</p></div>"
		       "<hr class=footer><address class=footer>Generated by doxygen 1.9.4</address>"
		       "</body></html>",
		       generator, type, type, type, type);
}

static void test_unmarked_stub_and_doxygen_contents(void **state)
{
	(void)state;
	char *b = index_page('b', "begin_new_path()", "begin_new_sub_path()");
	char *m = index_page('m', "mask()", "move_to()");
	assert_non_null(strstr(m, "Here is a list of all class members"));
	two_texts(b, m, "begin_new_sub_path", "move_to", NULL); /* whole: its menu too */
	/* Doxygen marks its content by class: a specialization's own members
	 * are its text, the descriptions it inherits are everyone's. */
	char *x = class_page("bool", "Doxygen 1.9.4"), *y = class_page("double", "Doxygen 1.9.4");
	assert_null(strstr(x, "Main Page"));
	two_texts(x, y, "create (bool data)", "create (double data)", "Generated by");
	/* Only Doxygen's: elsewhere the name may wrap a whole page, its menus
	 * with it, so the same markup reads as jusText reads it. */
	x = class_page("bool", "WordPress 6.4"), y = class_page("double", "WordPress 6.4");
	assert_null(strstr(x, "create (bool data)"));
	assert_string_equal(x, y);
	free(x);
	free(y);
	/* A page of prose keeps dropping its lists of links. */
	char *html = page("Daily Example");
	char *main = text_of(html, ND_CONTENT_MAIN);
	assert_null(strstr(main, "Mayor opens new library"));
	free(main);
	free(html);
}

/* A graphical class hierarchy: Doxygen's content is one line and an
 * image, the same line in every library's, so that the pages of two
 * libraries were one text.  A marked content of a line keeps the page
 * whole; a marked content of a sentence is still the content alone. */
static char *hierarchy_page(const char *project, const char *line)
{
	return main_of("<html><head><meta name=generator content=\"Doxygen 1.9.4\"></head>"
		       "<body><div id=top><div id=projectname>%s</div>"
		       "<div class=tabs><ul><li><a href=index.html>Main Page</a></li>"
		       "<li><a href=annotated.html>Classes</a></li></ul></div></div>"
		       "<div class=header><div class=headertitle><div class=title>Class Hierarchy</div></div></div>"
		       "<div class=contents><div class=textblock><a href=hierarchy.html>%s</a></div>"
		       "<img src=inherit_graph_0.png usemap=#map alt=\"\"></div>"
		       "<hr class=footer><address class=footer>Generated for %s by doxygen 1.9.4</address>"
		       "</body></html>",
		       project, line, project);
}

static void test_marked_stub_kept_whole(void **state)
{
	(void)state;
	const char *line = "Go to the textual class hierarchy";
	char *a = hierarchy_page("glibmm 2.66.5", line), *b = hierarchy_page("cairomm 1.14.4", line);
	assert_non_null(strstr(a, line));
	two_texts(a, b, "glibmm 2.66.5", "cairomm 1.14.4", NULL);
	const char *sentence = "This inheritance list is sorted roughly, but not completely, alphabetically";
	a = hierarchy_page("glibmm 2.66.5", sentence), b = hierarchy_page("cairomm 1.14.4", sentence);
	assert_non_null(strstr(a, "sorted roughly"));
	assert_non_null(strstr(a, "Class Hierarchy\nThis inheritance")); /* the title above its content */
	assert_null(strstr(a, "glibmm"));
	assert_string_equal(a, b);
	free(a);
	free(b);
}

/* A class page's inherited members: Doxygen writes them as rows of class
 * "inherit", which its stylesheet hides until the reader opens them, the
 * base class's text on every subclass's page.  Two classes that inherit
 * one long list were one text by it. */
static char *subclass_page(const char *cls, const char *member, const char *generator)
{
	return main_of("<html><head><meta name=generator content=\"%s\"></head><body>"
		       "<div id=top><div id=projectname>glibmm 2.66.5</div></div>"
		       "<div class=contents><table class=memberdecls>"
		       "<tr class=heading><td colspan=2><h2>Public Member Functions</h2></td></tr>"
		       "<tr class=\"memitem:a1\"><td class=memItemLeft>bool</td>"
		       "<td class=memItemRight><a href=#a1>%s</a> () override</td></tr>"
		       "<tr class=\"inherit_header pub_methods_classGlib_1_1Source\"><td colspan=2>"
		       "Public Member Functions inherited from Glib::Source</td></tr>"
		       "<tr class=\"memitem:b1 inherit pub_methods_classGlib_1_1Source\"><td class=memItemLeft>"
		       "unsigned int</td><td class=memItemRight><a href=#b1>attach</a> ()</td></tr>"
		       "<tr class=\"memdesc:b1 inherit pub_methods_classGlib_1_1Source\"><td class=mdescLeft></td>"
		       "<td class=mdescRight>Adds a source to a context so that it will be executed within "
		       "that context.</td></tr></table><p>The %s class is an event source of the main loop.</p>"
		       "</div></body></html>",
		       generator, member, cls);
}

static void test_doxygen_inherited_members_hidden(void **state)
{
	(void)state;
	char *a = subclass_page("IdleSource", "prepare", "Doxygen 1.9.4");
	char *b = subclass_page("TimeoutSource", "dispatch", "Doxygen 1.9.4");
	assert_non_null(strstr(a, "inherited from Glib::Source"));
	assert_null(strstr(a, "executed within"));
	two_texts(a, b, "prepare () override", "dispatch () override", "Adds a source");
	char *c = text_of("<html><head><meta name=generator content=\"Doxygen 1.9.4\"></head><body>"
			  "<table><tr class=\"inherit x\"><td>hidden row</td></tr>"
			  "<tr class=inherited><td>shown row</td></tr></table></body></html>",
			  ND_CONTENT_FULL);
	assert_null(strstr(c, "hidden row"));
	assert_non_null(strstr(c, "shown row"));
	free(c);
	/* Elsewhere the name hides nothing. */
	c = subclass_page("IdleSource", "prepare", "WordPress 6.4");
	assert_non_null(strstr(c, "executed within"));
	free(c);
}

/* A GTK-Doc reference page: a navigation table and a footer around one
 * <div> of <body> (refentry), whose function synopses and parameter
 * tables read as link lists and short cells.  That <div> is the page's
 * text, the bars are not; a page of another generator (DocBook's XSL
 * stylesheets too) is read as before, its synopses dropped as
 * boilerplate. */
static char *reference_page(const char *generator, const char *function)
{
	return main_of("<html><head><meta name=generator content=\"%s\"></head><body>"
		       "<table class=navigation id=top><tr><td><a href=index.html>Home</a></td>"
		       "<td><a href=prev.html>Prev</a></td><td><a href=next.html>Next</a></td></tr></table>"
		       "<div class=refentry><h2>GtkAspectFrame</h2>"
		       "<p>GtkAspectFrame is useful when you want to pack a widget so that it can resize but "
		       "always retains the same aspect ratio, as a preview of a larger image does. It "
		       "derives from the frame, so it can draw a label and a frame around the child, and "
		       "the frame will be shrink-wrapped to the size of the child it holds.</p>"
		       "<table class=functions><tr><td>GtkWidget *</td><td><a href=#f1>%s</a> ()</td></tr>"
		       "<tr><td>void</td><td><a href=#f2>gtk_aspect_frame_set</a> ()</td></tr></table>"
		       "<table class=params><tr><td>xalign</td><td>Horizontal alignment</td></tr>"
		       "<tr><td>ratio</td><td>The desired aspect ratio</td></tr></table></div>"
		       "<div class=footer><hr>Generated by GTK-Doc V1.33.1</div></body></html>",
		       generator, function);
}

static void test_gtkdoc_division_is_the_content(void **state)
{
	(void)state;
	char *a = reference_page("GTK-Doc V1.33.1 (XML mode)", "gtk_aspect_frame_new");
	char *b = reference_page("GTK-Doc V1.33.1 (XML mode)", "gtk_aspect_frame_new_full");
	assert_non_null(strstr(a, "Horizontal alignment"));
	assert_null(strstr(a, "Prev"));
	assert_null(strstr(a, "Generated by"));
	two_texts(a, b, "gtk_aspect_frame_new ()", "gtk_aspect_frame_new_full ()", "Next");
	/* Elsewhere the tables are what they look like: boilerplate. */
	const char *others[] = {"DocBook XSL Stylesheets Vsnapshot", "WordPress 6.4"};
	for (int g = 0; g < 2; g++) {
		char *c = reference_page(others[g], "gtk_aspect_frame_new");
		assert_non_null(strstr(c, "retains the same aspect ratio"));
		assert_null(strstr(c, "gtk_aspect_frame_new"));
		free(c);
	}
}

/* A documentation page whose theme marks nothing, as Django's Sphinx
 * theme: two releases' notes, the same security text, told apart by
 * their title.  A heading's permalink (a.headerlink, "¶")
 * is neither a link a reader follows nor the site's header: read as
 * either, the title was boilerplate and the two pages one text. */
static char *notes_page(const char *version, const char *date, const char *intro, const char *sections,
			const char *cve)
{
	return main_of("<html><head><title>Widget %s release notes | Widget documentation</title></head>"
		       "<body><div id=hd><h1><a href=../index.html>Widget 3.2.25 documentation</a></h1>"
		       "<div class=nav><a href=a.html>Home</a> | <a href=b.html>Table of contents</a> | "
		       "<a href=c.html>Index</a> | <a href=d.html>Modules</a></div></div>"
		       "<div id=bd><div class=yui-g><div class=section>"
		       "<h1>Widget %s release notes<a class=headerlink href=#notes title=\"Permalink\">\xC2\xB6</a></h1>"
		       "<p><em>%s</em></p><p>%s</p>%s</div></div>"
		       "<div class=sphinxsidebar role=navigation><h3>Table of Contents</h3><ul>"
		       "<li><a href=#notes>Widget %s release notes</a></li><li><a href=#a>%s</a></li>"
		       "</ul></div></div></body></html>",
		       version, version, date, intro, sections, version, cve);
}

static char *release_notes(const char *version, const char *previous)
{
	char intro[128], sections[4096];
	snprintf(intro, sizeof(intro), "Widget %s fixes two security issues in %s.", version, previous);
	int n = snprintf(sections, sizeof(sections),
			 "<div class=section><h2>CVE-2017-7233: Open redirect and XSS via user-supplied numeric "
			 "URLs in widget.utils.http.is_safe_url()<a class=headerlink href=#a>\xC2\xB6</a></h2>"
			 "<p>%s</p></div>"
			 "<div class=section><h2>CVE-2017-7234: Open redirect vulnerability in "
			 "widget.views.static.serve()<a class=headerlink href=#b>\xC2\xB6</a></h2>"
			 "<p>A maliciously crafted address given to the serve() view could redirect to any other "
			 "domain.</p><p>Note, however, that this view has always carried a warning that it is "
			 "not hardened for production use.</p></div>",
			 article_p1);
	assert_true(n > 0 && (size_t)n < sizeof(sections));
	return notes_page(version, "April 4, 2017", intro, sections, "CVE-2017-7233");
}

static void test_unmarked_documentation_headings(void **state)
{
	(void)state;
	char *a = release_notes("1.10.7", "1.10.6"), *b = release_notes("1.8.18", "1.8.17");
	assert_non_null(strstr(a, "expand the bus network")); /* good on its own */
	assert_null(strstr(a, "Table of Contents"));
	two_texts(a, b, "Widget 1.10.7 release notes", "Widget 1.8.18 release notes", "Modules");
}

/* Release notes whose first section has a long heading of few stopwords
 * (a CVE's title, 80 characters) and whose bug fixes name the API they
 * fix, each name a link to its reference (Sphinx, rustdoc, Javadoc):
 * the heading is what follows it, so the title and the line above it
 * stay, and names of code are prose, not navigation. */
static void test_long_heading_and_linked_code(void **state)
{
	(void)state;
	char sections[4096];
	int n = snprintf(sections, sizeof(sections),
			 "<div class=section><h2>CVE-2019-12781: Incorrect HTTP detection with reverse-proxy "
			 "connecting via HTTPS<a class=headerlink href=#a>\xC2\xB6</a></h2><p>%s</p></div>"
			 "<div class=section><h2>Bugfixes</h2><ul><li><p>Fixed a regression in Widget 2.2 where "
			 "<a class=reference href=x.html#avg><code>Avg</code></a>, <a class=reference href=x.html#sd>"
			 "<code>StdDev</code></a>, and <a class=reference href=x.html#var><code>Variance</code></a> "
			 "crash with filter argument (<a href=t/30542>#30542</a>).</p></li></ul></div>",
			 article_p1);
	assert_true(n > 0 && (size_t)n < sizeof(sections));
	char *t = notes_page("2.2.3", "July 1, 2019",
			     "Widget 2.2.3 fixes a security issue and several bugs in 2.2.2. Also, the latest "
			     "string translations from Transifex are incorporated.",
			     sections, "CVE-2019-12781");
	assert_non_null(strstr(t, "Widget 2.2.3 release notes"));
	assert_non_null(strstr(t, "fixes a security issue and several bugs"));
	assert_non_null(strstr(t, "crash with filter argument"));
	assert_null(strstr(t, "Table of Contents"));
	free(t);
}

/* A reference page of a line of prose (gi-docgen's): a stub, read whole,
 * but for the chrome it marks, where the site stamps its release; two
 * releases of the page are one text.  A page all chrome stays whole. */
static char *stamped_page(const char *release, const char *main_html)
{
	return main_of("<html><body><nav class=sidebar><h3>Pango</h3><p>API Version: 1.0</p>"
		       "<p>Library Version: %s</p><h3>Methods</h3><ul><li><a href=a.html>changed</a></li>"
		       "<li><a href=b.html>get_base_dir</a></li></ul>"
		       "<div class=\"section generator\">Generated by gi-docgen 2022.2</div></nav>%s</body></html>",
		       release, main_html);
}

/* The blocks nd_html_extract says it kept of page (0: the page whole,
 * which the index then keeps once, not also as its full text). */
static size_t blocks_kept(const char *page)
{
	nd_tokenizer *tk;
	nd_buf text = ND_BUF_INIT, full = ND_BUF_INIT;
	nd_boilerplate_info bi;
	assert_int_equal(nd_tokenizer_new(&tk), ND_OK);
	assert_int_equal(nd_html_extract(tk, page, strlen(page), "fixture.html", ND_CONTENT_MAIN, &text, &full,
					 NULL, NULL, NULL, &bi),
			 ND_OK);
	nd_buf_free(&text);
	nd_buf_free(&full);
	nd_tokenizer_free(tk);
	return bi.good_blocks;
}

static void test_stub_read_without_its_chrome(void **state)
{
	(void)state;
	const char *method = "<section id=main class=content><h1>PangoContext.get_gravity</h1>"
			     "<p>since: 1.16</p><h4>Declaration</h4><pre><code>PangoGravity\n"
			     "pango_context_get_gravity (\n  PangoContext* context\n)</code></pre>"
			     "<h4>Description</h4><p>Retrieves the gravity for the context.</p>"
			     "<h4>Return value</h4><p>Type: PangoGravity</p>"
			     "<p>The resolved gravity for the context.</p></section>";
	char *a = stamped_page("1.50.12", method), *b = stamped_page("1.50.13", method);
	assert_non_null(strstr(a, "pango_context_get_gravity ("));
	assert_non_null(strstr(a, "Retrieves the gravity"));
	assert_null(strstr(a, "Library Version"));
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = stamped_page("1.50.12", "<p>Pango</p>");
	assert_non_null(strstr(a, "Library Version: 1.50.12"));
	free(a);
	/* Read without its chrome, a page is not read whole: the index keeps
	 * the whole page beside it, as for a page whose content was found. */
	char html[4096];
	snprintf(html, sizeof(html), "<html><body><nav class=sidebar><p>Library Version: 1.50.12</p></nav>%s</body></html>",
		 method);
	assert_true(blocks_kept(html) > 0);
	assert_int_equal(blocks_kept("<html><body><nav><p>Library Version: 1.50.12</p></nav><p>Pango</p></body></html>"),
			 0);
}

/* A crawler runs no script, so a <noscript> in the article is what it is
 * shown: on Sphinx's search page, the request to turn JavaScript on, in
 * the page's language, is most of what tells the page's translations
 * apart (the sentence under it Sphinx leaves untranslated).  A script's
 * own text never is, nor a <noscript> outside the article: a script
 * application's pages would all be its one request. */
static char *search_page(const char *heading, const char *notice)
{
	char body[1024];
	int n = snprintf(body, sizeof(body),
			 "<h1 id=search-documentation>%s</h1><noscript><div class=\"admonition warning\"><p>%s</p>"
			 "</div></noscript><p>Searching for multiple words only shows matches that contain all "
			 "words.</p><form action=\"\"><input type=text name=q><input type=submit value=go></form>"
			 "<script>var notshown = 1;</script>",
			 heading, notice);
	assert_true(n > 0 && (size_t)n < sizeof(body));
	return doc_page(body);
}

static void test_noscript_is_shown(void **state)
{
	(void)state;
	char *de = search_page("Suche", "Bitte aktivieren Sie JavaScript, wenn Sie die Suchfunktion nutzen wollen.");
	char *en = search_page("Search", "Please activate JavaScript to enable the search functionality.");
	assert_non_null(strstr(de, "Searching for multiple words"));
	two_texts(de, en, "Bitte aktivieren Sie JavaScript", "Please activate JavaScript", "notshown");
	char *app = main_of("<html><head><title>Shop</title></head><body><noscript>You need to enable JavaScript "
			    "to run this app.</noscript><div id=root></div></body></html>");
	assert_null(strstr(app, "enable JavaScript"));
	free(app);
}

/* Two pages of one template, each about its own thing, say what in their
 * title more than in their text: Doxygen's div.title stands outside the
 * div.contents read as the article, gi-docgen's h1 is a trail of links in
 * a <header>.  The title right above the content is kept; a site's name
 * in a header above its menu is not. */
static char *file_page(const char *file, const char *header)
{
	return main_of("<html><head><meta name=generator content=\"Doxygen 1.9.4\"></head><body>"
		       "<div id=top><div id=projectname>libstdc++</div></div>"
		       "<div class=header><div class=summary><a href=#define-members>Macros</a></div>"
		       "<div class=headertitle><div class=title>%s File Reference</div></div></div>"
		       "<div class=contents><p>Go to the source code of this file.</p>"
		       "<h2>Detailed Description</h2><p>This is a Standard C++ Library file. You should include "
		       "this file in your programs, rather than any of the implementation files.</p>"
		       "<p>This is the C++ version of the Standard C Library header %s, and its contents are "
		       "(mostly) the same as that header.</p><p>Definition in file %s.</p></div>"
		       "<hr class=footer><address class=footer>Generated by doxygen 1.9.4</address></body></html>",
		       file, header, file);
}

static void test_title_above_the_content(void **state)
{
	(void)state;
	char *a = file_page("cassert", "assert.h"), *b = file_page("ctime", "time.h");
	assert_non_null(strstr(a, "Go to the source code"));
	assert_null(strstr(a, "Macros"));
	two_texts(a, b, "cassert File Reference\nGo to the source", "ctime File Reference", "libstdc++");
	/* A class in a group: its div.title holds its name, then the groups'
	 * trail as a div of its own; the name stays above the trail (the
	 * trail alone was all two traits' pages showed of what they are). */
	a = main_of("<html><head><meta name=generator content=\"Doxygen 1.9.4\"></head><body>"
		    "<div id=top><div id=projectname>libstdc++</div></div><div class=header>"
		    "<div class=headertitle><div class=title>std::is_same&lt; _Tp, _Up &gt; Struct Template Reference"
		    "<div class=ingroups><a href=a1.html>Utilities</a> &raquo; <a href=a2.html>Metaprogramming</a>"
		    "</div></div></div></div><div class=contents><p>Inheritance diagram for std::is_same&lt; _Tp, "
		    "_Up &gt;:</p><h2>Detailed Description</h2><p>The two types are one type: value is true, and "
		    "false otherwise, as the standard library's type traits say.</p><p>Definition at line 1429 "
		    "of file type_traits.</p></div><hr class=footer></body></html>");
	assert_non_null(strstr(a, "std::is_same< _Tp, _Up > Struct Template Reference\nUtilities"));
	assert_non_null(strstr(a, "Metaprogramming\nInheritance diagram"));
	assert_null(strstr(a, "libstdc++"));
	free(a);
	/* gi-docgen's <section id=main> is its article, header and all. */
	const char *method = "<h4>Declaration</h4><pre><code>PangoFontset*\npango_context_load_fontset (\n"
			     "  PangoContext* context,\n  const PangoFontDescription* desc\n)</code></pre>"
			     "<h4>Description</h4><p>Load a set of fonts in the context that can be used to render "
			     "a font matching desc.</p>";
	const char *sidebar = "<nav class=sidebar><h3>Pango</h3><ul><li><a href=a.html>changed</a></li>"
			      "<li><a href=b.html>get_base_dir</a></li></ul></nav>";
	const char *trail = "<h1><a href=index.html>Pango</a> <a href=class.Context.html>Context</a> load_fontset</h1>";
	a = main_of("<html><body>%s<section id=main><header><h3>Method</h3>%s</header>%s</section></body></html>",
		    sidebar, trail, method);
	assert_non_null(strstr(a, "Method\nPango Context load_fontset\n"));
	assert_non_null(strstr(a, "pango_context_load_fontset ("));
	assert_null(strstr(a, "get_base_dir"));
	free(a);
	/* As gi-docgen writes the trail: no space between its links, an
	 * empty <span class=sep> that its style draws as a dot. */
	a = main_of("<html><body><section id=main><header><h3>Method</h3><h1><a href=index.html>Pango</a>"
		    "<span class=sep></span><a href=class.Context.html>Context</a><span class=sep></span>"
		    "load_fontset</h1></header>%s</section></body></html>",
		    method);
	assert_non_null(strstr(a, "Method\nPango Context load_fontset\n"));
	free(a);
	/* Unmarked, its trail of links in a header above the content. */
	a = main_of("<html><body>%s<div class=page-header>%s</div><div>%s<p>The data is owned by the caller of "
		    "the function, who frees it when it is done with the fonts that it loaded.</p></div></body></html>",
		    sidebar, trail, method);
	assert_non_null(strstr(a, "Pango Context load_fontset\n"));
	assert_null(strstr(a, "get_base_dir"));
	free(a);
	char html[4096];
	snprintf(html, sizeof(html), "<html><body><header><h1>Daily Example</h1><nav><a href=/>Home</a> "
		 "<a href=/news>News</a> <a href=/sport>Sport</a></nav></header><main><h2>Council expands "
		 "bus network</h2><p>%s</p><p>%s</p></main></body></html>",
		 article_p1, article_p2);
	a = text_of(html, ND_CONTENT_MAIN);
	assert_non_null(strstr(a, "Council expands bus network"));
	assert_null(strstr(a, "Daily Example"));
	free(a);
}

/* mdBook marks the page's state on <html> ("sidebar-visible"): a class
 * of the page itself, not of an element of its chrome, which made every
 * block chrome and the page read whole, its table of contents with it. */
static void test_page_state_is_not_chrome(void **state)
{
	(void)state;
	char *t = main_of("<html class=\"sidebar-visible no-js light\"><body class=has-navbar>"
			  "<nav id=sidebar class=sidebar><ol><li><a href=a.html>1. Getting Started</a></li>"
			  "<li><a href=b.html>2. Programming a Guessing Game</a></li>"
			  "<li><a href=c.html>3. Common Programming Concepts</a></li></ol></nav>"
			  "<div id=content><main><h2>Storing Text with Strings</h2><p>The 2018 edition of the "
			  "book is no longer distributed with the documentation.</p><p>You may want to read "
			  "the current version instead.</p></main></div></body></html>");
	assert_non_null(strstr(t, "Storing Text with Strings"));
	assert_non_null(strstr(t, "current version instead"));
	assert_null(strstr(t, "Guessing Game"));
	free(t);
}

/* A page that is not UTF-8 and names a charset other than Latin-1 is
 * left to libxml2, which guesses when no <meta> declares it (here the
 * name is only in the text) and then loses a byte of the character after
 * '&'.  The text stays valid UTF-8 in both modes, the lone byte a '?'. */
static void test_decoded_by_libxml2_stays_utf8(void **state)
{
	(void)state;
	const char *html = "<html><body><p>Send it as charset=koi8-r, said R&\xF7 \xD0\xD2\xC9\xD7\xC5\xD4 to the "
			   "list, and more words of this page</p></body></html>";
	for (int m = 0; m < 2; m++) {
		char *t = text_of(html, m ? ND_CONTENT_MAIN : ND_CONTENT_FULL);
		if (nd_utf8_check(t, strlen(t), NULL))
			fail_msg("invalid UTF-8 in %s:\n%s", m ? "main" : "full", t);
		assert_non_null(strstr(t, "said R&"));
		free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_article_kept_chrome_dropped),
		cmocka_unit_test(test_same_article_other_template),
		cmocka_unit_test(test_short_paragraph_page),
		cmocka_unit_test(test_sentence_paragraphs_beside_long_boilerplate),
		cmocka_unit_test(test_other_language_and_fallback),
		cmocka_unit_test(test_chinese_and_japanese_prose),
		cmocka_unit_test(test_script_without_a_list),
		cmocka_unit_test(test_languages_with_lists),
		cmocka_unit_test(test_language_not_one_word),
		cmocka_unit_test(test_linked_prose_and_iframe_fallback),
		cmocka_unit_test(test_readers_comments),
		cmocka_unit_test(test_blocks_and_classes),
		cmocka_unit_test(test_landmarks_are_chrome),
		cmocka_unit_test(test_marked_main_is_the_content),
		cmocka_unit_test(test_unmarked_stub_and_doxygen_contents),
		cmocka_unit_test(test_marked_stub_kept_whole),
		cmocka_unit_test(test_doxygen_inherited_members_hidden),
		cmocka_unit_test(test_gtkdoc_division_is_the_content),
		cmocka_unit_test(test_unmarked_documentation_headings),
		cmocka_unit_test(test_long_heading_and_linked_code),
		cmocka_unit_test(test_stub_read_without_its_chrome),
		cmocka_unit_test(test_title_above_the_content),
		cmocka_unit_test(test_noscript_is_shown),
		cmocka_unit_test(test_page_state_is_not_chrome),
		cmocka_unit_test(test_decoded_by_libxml2_stays_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
