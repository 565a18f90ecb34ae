/*
 * sorted: the binary search every sorted table here does.
 *
 * Records of @size bytes sorted by a u64 key at byte offset @off: how many
 * have a key at or below @key, i.e. the index of the first one above it
 * (so the record holding an address is the one before it, if any).
 */
#ifndef FAULTLINE_LIB_SORTED_H
#define FAULTLINE_LIB_SORTED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t sorted__upto(const void *base, size_t n, size_t size, size_t off, uint64_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, b + mid * size + off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* sorted__upto() over a typed array @arr of @n records keyed by @field. */
#define SORTED_UPTO(arr, n, field, key) \
	sorted__upto((arr), (n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), (key))

#endif
