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
	struct hashmap *idx;	/* key -> index + 1; NULL once a sort ran out of memory */
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

struct by_record {
	const struct keyed *k;
	int (*cmp)(const void *, const void *, void *);
	void *ctx;
};

static int cmp_index(const void *a, const void *b, void *ctx)
{
	const struct by_record *c = ctx;

	return c->cmp(c->k->v + *(const size_t *)a * c->k->elem,
		      c->k->v + *(const size_t *)b * c->k->elem, c->ctx);
}

/*
 * Sorted through an array of indices, then the records copied into that
 * order and each key's index set to its new place, so that a report may
 * run more than once (a snapshot, then the final one) and the run go on
 * between.  Record i's key is read back from the index (key -> i + 1),
 * not kept beside every record, and the index is updated where it is:
 * its keys are all there already, so hashmap__set() neither allocates nor
 * fails.  Without the memory for the indices and the copy, sorted in
 * place and lookups ended.
 */
void keyed__sort(struct keyed *k, int (*cmp)(const void *, const void *, void *), void *ctx)
{
	struct by_record c = { k, cmp, ctx };
	size_t *order = k->n && k->idx ? malloc(k->n * sizeof(*order)) : NULL;
	uint64_t *keys = order ? malloc(k->n * sizeof(*keys)) : NULL;
	unsigned char *v = keys ? malloc(k->n * k->elem) : NULL;
	uint64_t key, i1;
	size_t pos = 0;

	if (!v) {
		free(order);
		free(keys);
		if (!k->n)
			return;
		hashmap__free(k->idx);
		k->idx = NULL;
		qsort_r(k->v, k->n, k->elem, cmp, ctx);
		return;
	}
	while (hashmap__next(k->idx, &pos, &key, &i1))
		keys[i1 - 1] = key;
	for (size_t i = 0; i < k->n; i++)
		order[i] = i;
	qsort_r(order, k->n, sizeof(*order), cmp_index, &c);
	for (size_t i = 0; i < k->n; i++) {
		memcpy(v + i * k->elem, k->v + order[i] * k->elem, k->elem);
		(void)hashmap__set(k->idx, keys[order[i]], i + 1);
	}
	free(k->v);
	k->v = v;
	k->cap = k->n;
	free(order);
	free(keys);
}
