/*
 * test-live-series: the bounded series of the heap's live bytes against
 * the whole one.  Short series are kept point for point; long ones (a
 * million changes, a random walk, and runs with their highest value
 * early, late, repeated) are drawn from at most LIVE_SERIES_MAX_POINTS
 * points, in order, each one of the changes given, with the highest
 * value at the first time it was reached, the lowest, and the last
 * exactly.  And heap-profile's series: its highest point is the heap's
 * peak and peak time.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "agg/heap-profile.h"
#include "agg/live-series.h"
#include "check.h"

static struct live_point out[LIVE_SERIES_MAX_POINTS];

/* @n changes of @v (time i * 10 + 5) against what the series draws. */
static void against(const uint64_t *v, size_t n, const char *what)
{
	struct live_series *ls;
	size_t hi = 0, lo = 0, k;
	bool hi_in = !n, lo_in = !n, early = false, ordered = true, from_input = true;

	CHECK_EQ_U64(live_series__new(&ls), 0);
	if (!ls)
		return;
	for (size_t i = 0; i < n; i++) {
		live_series__add(ls, i * 10 + 5, v[i]);
		if (v[i] > v[hi])
			hi = i;
		if (v[i] < v[lo])
			lo = i;
	}
	CHECK_EQ_U64(live_series__changes(ls), n);
	k = live_series__points(ls, out);
	CHECK(k <= LIVE_SERIES_MAX_POINTS);
	if (n <= LIVE_SERIES_BUCKETS)
		CHECK_EQ_U64(k, n);
	for (size_t i = 0; i < k; i++) {
		uint64_t idx = (out[i].time - 5) / 10;

		/* each point is a change given, after the one before */
		if (i && out[i].time <= out[i - 1].time)
			ordered = false;
		if (idx >= n || out[i].time != idx * 10 + 5 || v[idx] != out[i].value)
			from_input = false;
		if (out[i].time == hi * 10 + 5)
			hi_in = true;
		if (out[i].time == lo * 10 + 5)
			lo_in = true;
		/* the highest is never drawn before the first time it was reached */
		if (n && out[i].value == v[hi] && out[i].time < hi * 10 + 5)
			early = true;
	}
	if (!ordered || !from_input || !hi_in || !lo_in || early)
		fprintf(stderr, "%s: ordered %d, from the input %d, highest %d (early %d), lowest %d\n",
			what, ordered, from_input, hi_in, early, lo_in);
	CHECK(ordered);
	CHECK(from_input);
	CHECK(hi_in);
	CHECK(!early);
	CHECK(lo_in);
	CHECK(n == 0 || (k > 0 && out[k - 1].time == (n - 1) * 10 + 5 &&
			 out[k - 1].value == v[n - 1]));
	live_series__free(ls);
}

static void test_series(void)
{
	size_t n = 1000000;
	uint64_t *v = malloc(n * sizeof(*v)), x = 1u << 30;

	CHECK(v != NULL);
	if (!v)
		return;
	srand(7);
	for (size_t i = 0; i < n; i++) {
		x += (uint64_t)(rand() % 2001) - 1000;
		v[i] = x;
	}
	against(v, 0, "empty");
	against(v, 1, "one");
	against(v, LIVE_SERIES_BUCKETS, "a full first round");
	against(v, LIVE_SERIES_BUCKETS + 1, "one merge");
	against(v, n, "a random walk");
	/* the highest early, then repeated, near (so that merges bring them
	 * into one bucket) and later (the first is the peak) */
	v[3] = 1ull << 40;
	v[5] = 1ull << 40;
	v[1000] = 1ull << 40;
	v[n / 2] = 1ull << 40;
	v[n - 1] = 1ull << 40;
	against(v, n, "highest early and repeated");
	against(v, 12345, "highest early, repeated at the end");
	v[3] = v[5] = v[1000] = 0;
	v[n / 2] = 0;
	v[n - 1] = 0;
	/* a sawtooth rising to its highest at the very end */
	for (size_t i = 0; i < n; i++)
		v[i] = (i % 1000) * 8 + i / 1000;
	against(v, n, "sawtooth");
	/* plateaus: the highest, then the lowest, held for the rest of the
	 * run, from inside a bucket */
	for (size_t i = 0; i < n; i++)
		v[i] = i < n / 3 ? i : n / 3;
	against(v, n, "a plateau at the highest");
	for (size_t i = 0; i < n; i++)
		v[i] = i < n / 3 ? n - i : n - n / 3;
	against(v, n, "a plateau at the lowest");
	live_series__free(NULL);
	free(v);
}

/* heap-profile's series: each allocation and free, its highest point
 * heap's peak at its time. */
static void test_heap(void)
{
	struct heap_profile *hp;
	const struct heap_totals *t;
	size_t k, best = 0;
	uint64_t addr = 0x1000;

	CHECK_EQ_U64(heap_profile__new(1, &hp), 0);
	if (!hp)
		return;
	srand(11);
	for (uint64_t i = 0; i < 20000; i++) {
		CHECK_EQ_U64(heap_profile__alloc(hp, 1, addr, 16 + i % 100, 1 + i % 3, 100 + i * 2), 0);
		if (i % 3)
			heap_profile__release(hp, 1, addr, 16 + i % 100, 1 + i % 3, 101 + i * 2);
		addr += 0x1000;
	}
	t = heap_profile__totals(hp);
	CHECK_EQ_U64(live_series__changes(heap_profile__series(hp)), t->calls + t->frees);
	k = live_series__points(heap_profile__series(hp), out);
	for (size_t i = 1; i < k; i++)
		if (out[i].value > out[best].value)
			best = i;
	CHECK_EQ_U64(out[best].value, t->peak_bytes);
	CHECK_EQ_U64(out[best].time, t->peak_time);
	CHECK_EQ_U64(out[k - 1].value, t->live_bytes);
	heap_profile__free(hp);
}

int main(void)
{
	test_series();
	test_heap();
	return check_done("test-live-series");
}
