/* neardup: near-duplicate detection over a Xapian index. */
#include "tool.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *what;
} commands[] = {
	{"index", nd_cmd_index, "build or extend a Xapian database from text, HTML or JSONL"},
	{"build", nd_cmd_build, "choose the descriptive word set from a database's statistics"},
	{"sign", nd_cmd_sign, "sign every document from the postlists into the store"},
	{"clusters", nd_cmd_clusters, "list duplicate clusters, largest first"},
	{"check", nd_cmd_check, "crawl-time: the verified duplicates of a document not yet indexed"},
	{"update", nd_cmd_update, "apply every add, replace and delete since the store last saw the database"},
	{"search", nd_cmd_search, "ranked search with near-duplicates collapsed"},
	{"fsck", nd_cmd_fsck, "check a store's consistency, and against its database"},
	{"text", nd_cmd_text, "print the text indexed from HTML pages (main content or full)"},
	{"eval", nd_cmd_eval, "compare every method against labeled pairs or clusters"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: neardup COMMAND [OPTIONS]   (neardup help COMMAND for each)\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\nExit status: 0 ok, 1 error, 2 usage.\n");
}

/* What a command printed reached its reader: standard output on a full
 * disk is an error, not a listing cut short with status 0. */
static int flushed(const char *cmd, int rc)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	fprintf(stderr, "neardup %s: writing standard output: %s\n", cmd,
		errno ? strerror(errno) : "write error");
	return rc == EXIT_OK ? EXIT_ERR : rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || (argc > 2 && !strcmp(argv[2], "--version"))) {
		printf("neardup %s\n", nd_version());
		return EXIT_OK;
	}
	/* "help CMD" is "CMD --help", as git's and Xapian's tools take it. */
	if ((!strcmp(argv[1], "help") && argc > 2) || (argc > 2 && !strcmp(argv[1], "--help"))) {
		char *args[] = {argv[2], "--help", NULL};
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].fn(2, args);
		fprintf(stderr, "neardup: no command '%s'\nTry 'neardup --help'.\n", argv[2]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return flushed(argv[1], commands[i].fn(argc - 1, argv + 1));
	fprintf(stderr, "neardup: unknown command '%s'\nTry 'neardup --help'.\n", argv[1]);
	return EXIT_USAGE;
}
