/* Fuzz target: decoding signature records as read back from the store.
 * A damaged record is refused (ND_ECORRUPT), never read past its end, and
 * an accepted one has ascending bits within the set. */
#include "neardup/descriptor.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	nd_sig s = ND_SIG_INIT;
	uint32_t nwords = size ? 1u + data[0] * 7u : 100;
	/* A copy of exactly size bytes, so ASan sees any overread. */
	unsigned char *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	int rc = nd_sig_decode(&s, copy, size, nwords);
	if (rc == ND_OK) {
		for (uint32_t i = 0; i < s.nbits; i++)
			if (s.bits[i] >= nwords || (i && s.bits[i] <= s.bits[i - 1]))
				abort();
		if ((s.key != 0) != (s.nbits >= ND_MIN_BITS))
			abort();
	} else if (rc != ND_ECORRUPT && rc != ND_ENOMEM) {
		abort();
	}
	nd_sig_clear(&s);
	free(copy);
	return 0;
}
