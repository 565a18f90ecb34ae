/*
 * grow: room for one more element in a malloc'ed array that doubles.
 *
 * The one copy of the loop every growing array had: when *@cap elements
 * are used, realloc to twice as many (@first the first time).  On failure
 * the array and its capacity are left as they were.
 */
#ifndef FAULTLINE_LIB_GROW_H
#define FAULTLINE_LIB_GROW_H

#include <stddef.h>

/* Room for @need elements of @elem bytes in *@arr (capacity *@cap).
 * 0, or -ENOMEM. */
int grow__to(void **arr, size_t *cap, size_t need, size_t elem, size_t first);

/* grow__to() for a typed array pointer @arr and its size_t capacity. */
#define GROW_FOR(arr, cap, need, first) \
	grow__to((void **)&(arr), &(cap), (need), sizeof(*(arr)), (first))

#endif
