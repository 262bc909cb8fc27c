/* neardup: near-duplicate detection on a Xapian word index.  The whole
 * library; one header a module under neardup/ for those who want less.
 * Start with neardup/handle.h (nd_open, nd_check, nd_changed) and man 3
 * neardup. */
#ifndef NEARDUP_H
#define NEARDUP_H

#include "neardup/common.h"
#include "neardup/point.h"
#include "neardup/xdb.h"
#include "neardup/tokenizer.h"
#include "neardup/indexer.h"
#include "neardup/words.h"
#include "neardup/store.h"
#include "neardup/descriptor.h"
#include "neardup/shingle.h"
#include "neardup/similarity.h"
#include "neardup/verify.h"
#include "neardup/cluster.h"
#include "neardup/shards.h"
#include "neardup/check.h"
#include "neardup/hook.h"
#include "neardup/collapse.h"
#include "neardup/handle.h"
#include "neardup/window.h"

#endif
