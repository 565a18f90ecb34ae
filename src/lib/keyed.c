/*
 * keyed: a growable array of records and a hashmap from key to index + 1.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"
#include "lib/keyed.h"
#include "lib/grow.h"

struct keyed {
	unsigned char *v;
	size_t elem, n, cap;
	struct hashmap *idx;	/* key -> index + 1; NULL once sorted */
};

struct keyed *keyed__new(size_t elem_size)
{
	struct keyed *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->elem = elem_size;
	k->idx = hashmap__new();
	if (!k->idx) {
		free(k);
		return NULL;
	}
	return k;
}

void keyed__free(struct keyed *k)
{
	if (!k)
		return;
	hashmap__free(k->idx);
	free(k->v);
	free(k);
}

void *keyed__find(const struct keyed *k, uint64_t key)
{
	uint64_t i;

	return k->idx && hashmap__get(k->idx, key, &i) ? k->v + (i - 1) * k->elem : NULL;
}

void *keyed__get(struct keyed *k, uint64_t key, int *created)
{
	void *r = keyed__find(k, key);

	if (created)
		*created = 0;
	if (r || !k->idx)
		return r;
	if (grow__to((void **)&k->v, &k->cap, k->n + 1, k->elem, 16))
		return NULL;
	if (hashmap__set(k->idx, key, k->n + 1))
		return NULL;
	r = k->v + k->n * k->elem;
	memset(r, 0, k->elem);
	k->n++;
	if (created)
		*created = 1;
	return r;
}

size_t keyed__count(const struct keyed *k)
{
	return k->n;
}

void *keyed__at(const struct keyed *k, size_t i)
{
	return i < k->n ? k->v + i * k->elem : NULL;
}

void keyed__sort(struct keyed *k, int (*cmp)(const void *, const void *, void *), void *ctx)
{
	hashmap__free(k->idx);
	k->idx = NULL;
	if (k->n)
		qsort_r(k->v, k->n, k->elem, cmp, ctx);
}
