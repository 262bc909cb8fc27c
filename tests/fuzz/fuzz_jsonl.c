/* Fuzz target: the JSONL corpus reader.  Every line either gives a record
 * with an id and text, or an error naming the line; the reader goes on. */
#include "neardup/indexer.h"
#include "neardup/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	FILE *f = fmemopen((void *)(size ? data : (const unsigned char *)""), size ? size : 1, "rb");
	nd_jsonl *r;
	nd_jsonl_record rec;
	int rc;
	size_t records = 0, guard = 0;
	if (!f)
		return 0;
	if (nd_jsonl_open(&r, f, "fuzz.jsonl", 4096) < 0)
		abort();
	while ((rc = nd_jsonl_next(r, &rec)) != 0) {
		if (++guard > size + 2)
			abort(); /* more results than lines: a loop */
		if (rc == 1) {
			if (!rec.id || !rec.text || rec.line == 0)
				abort();
			records++;
		} else if (rc == ND_EIO) {
			break;
		} else if (rc != ND_EPARSE && rc != ND_ETOOBIG) {
			abort();
		}
	}
	nd_jsonl_close(r);
	fclose(f);
	(void)records;
	return 0;
}
