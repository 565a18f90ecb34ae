/*
 * test-heap-growth: the series and the growth rule of heap-growth.c on
 * hand-made runs whose every figure is known.
 */
#include <stdlib.h>

#include "../../src/agg/heap-growth.h"
#include "check.h"

/* A slow leak (stack 1: +1000 a step), a stack that fills to 3000 in the
 * first two steps and holds it (stack 2), a churning one back to 0 each
 * step (stack 3) and one that rises and falls (stack 4), over 8 steps. */
static void test_rule(void)
{
	struct heap_growth *hg;
	struct growth_site *v = NULL;
	uint64_t s[8];
	size_t n = 0;

	CHECK(heap_growth__new(&hg) == 0);
	for (int k = 0; k < 8; k++) {
		CHECK(heap_growth__change(hg, 7, 1, 1000, true) == 0);
		if (k < 2)
			CHECK(heap_growth__change(hg, 7, 2, 1500, true) == 0);
		CHECK(heap_growth__change(hg, 7, 3, 500, true) == 0);
		CHECK(heap_growth__change(hg, 7, 3, -500, false) == 0);
		CHECK(heap_growth__change(hg, 7, 4, k % 2 ? -200 : 200, k % 2 == 0) == 0);
		CHECK_EQ_U64(heap_growth__open_calls(hg), k < 2 ? 3 + (k % 2 == 0) : 2 + (k % 2 == 0));
		CHECK(heap_growth__close(hg, 100 * (uint64_t)(k + 1)) == 0);
	}
	CHECK_EQ_U64(heap_growth__intervals(hg), 8);
	CHECK_EQ_U64(heap_growth__interval(hg, 0)->bytes, 1000 + 1500 + 200);
	/* Within step 1: 1000 + 1500 + 500, then 200 more after the churn's free. */
	CHECK_EQ_U64(heap_growth__interval(hg, 0)->peak, 3000);
	CHECK_EQ_U64(heap_growth__interval(hg, 7)->bytes, 8000 + 3000);
	CHECK_EQ_U64(heap_growth__interval(hg, 7)->end_time, 800);
	CHECK_EQ_U64(heap_growth__interval(hg, 7)->calls, 8 + 2 + 8 + 4);
	CHECK(heap_growth__interval(hg, 8) == NULL);
	CHECK(heap_growth__rank(hg, &v, &n) == 0);
	CHECK_EQ_U64(n, 4);
	if (n == 4) {
		/* The leak first, growing; then by highest end. */
		CHECK_EQ_U64(v[0].stack, 1);
		CHECK(v[0].growing);
		CHECK_EQ_U64((uint64_t)v[0].growth, 7000);
		CHECK_EQ_U64(v[0].rises, 7);
		CHECK_EQ_U64(v[0].falls, 0);
		CHECK_EQ_U64(v[0].highest_at, 7);
		CHECK_EQ_U64(v[0].calls, 8);
		heap_growth__series(hg, &v[0], s);
		for (int k = 0; k < 8; k++)
			CHECK_EQ_U64(s[k], 1000 * (uint64_t)(k + 1));
		CHECK_EQ_U64(v[1].stack, 2);	/* peaked in interval 1 of 8 */
		CHECK(!v[1].growing);
		CHECK_EQ_U64(v[1].highest, 3000);
		CHECK_EQ_U64(v[1].highest_at, 1);
		CHECK_EQ_U64(v[2].stack, 4);	/* 200, 0, 200, ...: as often down as up */
		CHECK(!v[2].growing);
		CHECK_EQ_U64(v[2].rises, 3);
		CHECK_EQ_U64(v[2].falls, 4);
		heap_growth__series(hg, &v[2], s);
		CHECK_EQ_U64(s[6], 200);
		CHECK_EQ_U64(s[7], 0);
		CHECK_EQ_U64(v[3].stack, 3);
		CHECK(!v[3].growing);
		CHECK_EQ_U64(v[3].highest, 0);
		CHECK_EQ_U64(v[3].calls, 8);
	}
	free(v);
	heap_growth__free(hg);
}

/* Fewer than 3 intervals decide nothing; a stack first seen late starts
 * at 0; a release of more than is live (made before we looked) stops at
 * 0. */
static void test_edges(void)
{
	struct heap_growth *hg;
	struct growth_site *v = NULL;
	uint64_t s[4];
	size_t n = 0;

	CHECK(heap_growth__new(&hg) == 0);
	CHECK(heap_growth__change(hg, 1, 1, 10, true) == 0);
	CHECK(heap_growth__close(hg, 1) == 0);
	CHECK(heap_growth__change(hg, 1, 1, 10, true) == 0);
	CHECK(heap_growth__close(hg, 2) == 0);
	CHECK(heap_growth__rank(hg, &v, &n) == 0);
	CHECK_EQ_U64(n, 1);
	CHECK(n == 1 && !v[0].growing);
	free(v);
	CHECK(heap_growth__close(hg, 3) == 0);	/* a quiet interval */
	CHECK(heap_growth__change(hg, 1, 9, 5, true) == 0);
	CHECK(heap_growth__change(hg, 1, 9, -50, false) == 0);
	CHECK(heap_growth__close(hg, 4) == 0);
	CHECK_EQ_U64(heap_growth__interval(hg, 3)->bytes, 20);
	CHECK(heap_growth__rank(hg, &v, &n) == 0);
	CHECK_EQ_U64(n, 2);
	for (size_t i = 0; i < n; i++) {
		heap_growth__series(hg, &v[i], s);
		if (v[i].stack == 9) {
			CHECK_EQ_U64(s[0] + s[1] + s[2] + s[3], 0);
		} else {
			CHECK_EQ_U64(s[0], 10);
			CHECK_EQ_U64(s[2], 20);
			CHECK_EQ_U64(s[3], 20);
			/* 10, 20, 20, 20: rose once only. */
			CHECK(!v[i].growing);
		}
	}
	free(v);
	heap_growth__free(hg);
	heap_growth__free(NULL);
}

/* A run cut every @cut_ns ns or @calls calls, with one call at @call_ns
 * (0: none), ended at @end: @K intervals, the last ending at @last_end. */
static void check_end(uint64_t cut_ns, uint64_t calls, uint64_t call_ns, uint64_t end, size_t K,
		      uint64_t last_end)
{
	struct heap_growth *hg;

	CHECK(heap_growth__new(&hg) == 0);
	heap_growth__cut(hg, cut_ns, calls);
	if (call_ns) {
		CHECK(heap_growth__before(hg, call_ns, true) == 0);
		CHECK(heap_growth__change(hg, 1, 1, 1, true) == 0);
	}
	CHECK(heap_growth__end(hg, end) == 0);
	CHECK_EQ_U64(heap_growth__intervals(hg), K);
	if (heap_growth__intervals(hg) == K) {
		CHECK_EQ_U64(heap_growth__interval(hg, K - 1)->end_time, last_end);
		CHECK_EQ_U64(heap_growth__interval(hg, K - 1)->calls, call_ns ? 1 : 0);
	}
	heap_growth__free(hg);
}

/* Counts as faults are: stack 1 takes k + 1 in interval k (a rising rate),
 * stack 2 a steady 5, stack 3 6 - k, cut by heap_growth__cut every 12
 * calls; a 7th interval of one call is left out of the rate rule, as faults
 * leaves out one cut short.  Then cutting by time. */
static void test_rate_and_cut(void)
{
	struct heap_growth *hg;
	struct growth_site *v = NULL;
	size_t n = 0;
	uint64_t ns = 0;

	CHECK(heap_growth__new(&hg) == 0);
	heap_growth__cut(hg, 0, 12);
	for (int k = 0; k < 6; k++) {
		for (int j = 0; j < 12; j++) {
			uint32_t stack = j < k + 1 ? 1 : j < k + 6 ? 2 : 3;

			CHECK(heap_growth__before(hg, ns++, true) == 0);
			CHECK(heap_growth__change(hg, 1, stack, 1, true) == 0);
		}
	}
	CHECK(heap_growth__before(hg, ns++, true) == 0);	/* a 7th, of one call */
	CHECK(heap_growth__change(hg, 1, 3, 1, true) == 0);
	CHECK(heap_growth__end(hg, 90) == 0);
	CHECK(heap_growth__end(hg, 90) == 0);			/* closed already: no-op */
	CHECK_EQ_U64(heap_growth__intervals(hg), 7);
	CHECK_EQ_U64(heap_growth__interval(hg, 6)->end_time, 90);	/* the run's end */
	CHECK_EQ_U64(heap_growth__interval(hg, 5)->calls, 72);
	CHECK_EQ_U64(heap_growth__interval(hg, 5)->end_time, 71);
	CHECK(heap_growth__rank_rate(hg, 6, &v, &n) == 0);
	CHECK_EQ_U64(n, 3);
	if (n == 3) {
		CHECK_EQ_U64(v[0].stack, 1);	/* 1..6 an interval: rising */
		CHECK(v[0].growing);
		CHECK_EQ_U64((uint64_t)v[0].growth, 5);
		CHECK_EQ_U64(v[0].first, 1);
		CHECK_EQ_U64(v[0].last, 6);
		CHECK_EQ_U64(v[0].rises, 5);
		CHECK_EQ_U64(v[0].calls, 21);
		CHECK_EQ_U64(v[1].stack, 3);	/* 6, 5, ..., 1: falling */
		CHECK(!v[1].growing);
		CHECK_EQ_U64(v[1].highest, 6);
		CHECK_EQ_U64(v[1].highest_at, 0);
		CHECK_EQ_U64(v[1].falls, 5);
		CHECK_EQ_U64(v[1].calls, 22);
		CHECK_EQ_U64(v[2].stack, 2);	/* 5 each interval */
		CHECK(!v[2].growing);
		CHECK_EQ_U64(v[2].rises + v[2].falls, 0);
	}
	free(v);
	heap_growth__free(hg);

	/* By time: intervals of 100 ns; an event at 250 closes [0,100) and
	 * [100,200); the end, at 420, closes [200,300) at 300, the quiet
	 * [300,400) at 400, and not the [400,420) it ended in, which has no
	 * event. */
	CHECK(heap_growth__new(&hg) == 0);
	heap_growth__cut(hg, 100, 0);
	CHECK(heap_growth__before(hg, 50, true) == 0);
	CHECK(heap_growth__change(hg, 1, 1, 1, true) == 0);
	CHECK(heap_growth__before(hg, 250, true) == 0);
	CHECK(heap_growth__change(hg, 1, 1, 1, true) == 0);
	CHECK_EQ_U64(heap_growth__intervals(hg), 2);
	CHECK(heap_growth__end(hg, 420) == 0);
	CHECK_EQ_U64(heap_growth__intervals(hg), 4);
	CHECK_EQ_U64(heap_growth__interval(hg, 1)->calls, 1);
	CHECK_EQ_U64(heap_growth__interval(hg, 2)->end_time, 300);
	CHECK_EQ_U64(heap_growth__interval(hg, 2)->calls, 2);
	CHECK_EQ_U64(heap_growth__interval(hg, 3)->end_time, 400);
	CHECK_EQ_U64(heap_growth__interval(hg, 3)->calls, 2);
	heap_growth__free(hg);

	/* The run ends inside the interval of its last event: that interval
	 * ends at 260, not 300.  An idle run of 520 ns, by time: five quiet
	 * intervals, the last at 500; one shorter than an interval: one, at
	 * its end; by calls: one, at its end. */
	check_end(100, 0, 250, 260, 3, 260);
	check_end(100, 0, 0, 520, 5, 500);
	check_end(100, 0, 0, 40, 1, 40);
	check_end(0, 12, 0, 520, 1, 520);
}

int main(void)
{
	test_rule();
	test_edges();
	test_rate_and_cut();
	return check_done("test-heap-growth");
}
