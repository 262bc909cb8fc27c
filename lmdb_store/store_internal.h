/* Internal to the store and its tests. */
#ifndef ND_STORE_INTERNAL_H
#define ND_STORE_INTERNAL_H

#include "neardup/store.h"

/* Set the map size now (tests use a tiny map to exercise growth). */
int nd__store_set_mapsize(nd_store *st, size_t bytes);

#endif
