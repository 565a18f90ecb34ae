/*
 * grow: see grow.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/grow.h"

int grow__to(void **arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t ncap = *cap ? *cap : (first ? first : 1);
	void *nv;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	nv = realloc(*arr, ncap * elem);
	if (!nv)
		return -ENOMEM;
	*arr = nv;
	*cap = ncap;
	return 0;
}
