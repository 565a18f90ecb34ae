/*
 * test-keyed: records found by key, made zeroed once, kept across growth,
 * then sorted for a report, and found again after (the run goes on).
 */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "lib/keyed.h"

struct rec {
	uint64_t key, count;
};

static int by_count_desc(const void *a, const void *b, void *ctx)
{
	const struct rec *x = a, *y = b;

	(void)ctx;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

int main(void)
{
	struct keyed *k = keyed__new(sizeof(struct rec));
	struct rec *r;
	int created;

	CHECK(k != NULL);
	for (uint64_t i = 0; i < 1000; i++) {
		for (uint64_t j = 0; j <= i % 7; j++) {
			r = keyed__get(k, i << 32 | 5, &created);
			CHECK(r != NULL);
			CHECK(created == (j == 0));
			if (created)
				r->key = i << 32 | 5;
			CHECK(r->key == (i << 32 | 5));
			r->count++;
		}
	}
	CHECK_EQ_U64(keyed__count(k), 1000);
	CHECK(keyed__find(k, 3ULL << 32 | 5) != NULL);
	CHECK_EQ_U64(((struct rec *)keyed__find(k, 3ULL << 32 | 5))->count, 4);
	CHECK(keyed__find(k, 3ULL << 32 | 6) == NULL);
	CHECK_EQ_U64(keyed__count(k), 1000);
	CHECK(keyed__at(k, 1000) == NULL);
	keyed__sort(k, by_count_desc, NULL);
	CHECK_EQ_U64(((struct rec *)keyed__at(k, 0))->count, 7);
	CHECK_EQ_U64(((struct rec *)keyed__at(k, 999))->count, 1);
	/* Sorted: every record still found by its key, where the sort put
	 * it, and the run goes on (a snapshot's report, then more events). */
	for (uint64_t i = 0; i < 1000; i++) {
		r = keyed__find(k, i << 32 | 5);
		CHECK(r != NULL && r->key == (i << 32 | 5) && r->count == i % 7 + 1);
	}
	r = keyed__get(k, 3ULL << 32 | 5, &created);
	CHECK(r != NULL && !created && r->count == 4);
	r->count += 10;
	r = keyed__get(k, 1, &created);
	CHECK(r != NULL && created);
	r->key = 1;
	r->count = 9;
	CHECK_EQ_U64(keyed__count(k), 1001);
	keyed__sort(k, by_count_desc, NULL);
	CHECK_EQ_U64(((struct rec *)keyed__at(k, 0))->count, 14);
	CHECK_EQ_U64(((struct rec *)keyed__at(k, 1))->count, 9);
	CHECK_EQ_U64(((struct rec *)keyed__find(k, 1))->count, 9);
	CHECK_EQ_U64(((struct rec *)keyed__find(k, 3ULL << 32 | 5))->count, 14);
	keyed__free(k);
	keyed__free(NULL);
	return check_done("test-keyed");
}
