/* Check a page before indexing it: is it a duplicate of a document the
 * index already holds?  The one-call open (nd_open) of neardup/handle.h.
 *
 *   cc check_page.c $(pkg-config --cflags --libs neardup) -o check_page
 *   ./check_page DB STORE PAGE.txt
 */
#include <neardup.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	nd_handle *h;
	nd_check_result r = ND_CHECK_RESULT_INIT;
	static char text[1 << 20];
	size_t len;
	FILE *f;

	if (argc != 4 || !(f = fopen(argv[3], "rb"))) {
		fprintf(stderr, "usage: check_page DB STORE PAGE\n");
		return 2;
	}
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	if (nd_open(&h, argv[1], argv[2], ND_OPEN_READ, NULL) < 0 || nd_check(h, text, len, &r) < 0) {
		fprintf(stderr, "check_page: %s\n", nd_error_last());
		return 1;
	}
	printf("%s: %zu duplicate(s)", argv[3], r.duplicates);
	for (size_t i = 0; i < r.nmembers; i++)
		if (r.members[i].duplicate)
			printf(" %u", r.members[i].docid);
	/* It compared a window's worth: the cluster it joins holds the rest. */
	nd_docid id, *rest;
	size_t size, nrest;
	if (nd_check_cluster(nd_handle_db(h), nd_handle_store(h), NULL, &r, ND_CHECK_CLUSTER_LISTED, &id, &size,
			     &rest, &nrest) < 0) {
		fprintf(stderr, "check_page: %s\n", nd_error_last());
		return 1;
	}
	for (size_t i = 0; i < nrest; i++)
		printf(" %u", rest[i]);
	if (id)
		printf(", in cluster %u of %zu documents", id, size);
	free(rest);
	putchar('\n');
	nd_check_result_clear(&r);
	nd_close(h);
	return 0;
}
