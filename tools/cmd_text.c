/* neardup text: what the indexer reads from an HTML page. */
#include "tool.h"
#include "neardup/indexer.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: neardup text [--content main|full] FILE.html...\n"
	"\n"
	"Print the text 'neardup index' indexes for each HTML page: with --content\n"
	"main (the default) the article without navigation, link lists and\n"
	"footers, or all of what the page marks as its main content (main,\n"
	"article, role=main, section id=main, Doxygen's div.contents, a GTK-Doc\n"
	"page's division) when it marks some, or the whole page when what it\n"
	"reads as the article is a stub of about thirty words (a line above\n"
	"lists, as on an index), less the navigation, sidebars and footers it\n"
	"marks when a line is left without them; with full, all visible text.\n"
	"The page's title (its h1, Doxygen's div.title) right above the article\n"
	"is kept with it.\n"
	"For checking what the boilerplate removal keeps.\n"
	"\n"
	"  --content MODE   main or full (default main)\n"
	"  -q, --quiet      accepted for uniformity: text prints only the text\n"
	"  -h, --help       this text\n";

int nd_cmd_text(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"content", required_argument, NULL, 'C'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	nd_content mode = ND_CONTENT_MAIN;
	int c, failed = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			if (tool_parse_content(optarg, &mode) < 0) {
				return tool_usage("text", "--content is main or full, not '%s'", optarg);
			}
			break;
		case 'q': tool_quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return tool_usage("text", NULL);
		}
	}
	if (optind >= argc)
		return tool_usage("text", "no FILE given");
	for (int i = optind; i < argc; i++) {
		char *html = NULL, *text = NULL;
		size_t len = 0, tlen = 0;
		int rc;
		if ((rc = tool_read_input(argv[i], (size_t)64 << 20, &html, &len)) < 0) {
			tool_fail("text", rc, argv[i]);
			failed = 1;
		} else if ((rc = nd_html_text(html, len, argv[i], mode, &text, &tlen)) < 0) {
			tool_fail("text", rc, argv[i]);
			failed = 1;
		} else {
			if (argc - optind > 1)
				printf("==> %s <==\n", argv[i]);
			fwrite(text, 1, tlen, stdout);
			if (tlen && text[tlen - 1] != '\n')
				putchar('\n');
		}
		free(html);
		free(text);
	}
	return failed ? EXIT_ERR : EXIT_OK;
}
