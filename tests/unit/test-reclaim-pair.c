/*
 * test-reclaim-pair: an end pairs with its thread's last begin of the same
 * kind, once, and has its length; another thread's, another kind's, a
 * consumed begin's or a missing begin's end is unpaired.  The sums add
 * the paired ends' counts, nanoseconds and pages by kind.
 */
#include <stdint.h>

#include "check.h"
#include "agg/reclaim-pair.h"

int main(void)
{
	struct reclaim_pair *rp = NULL;
	struct reclaim_sums sums;
	uint64_t ns = 77;

	reclaim_pair__sums(NULL, &sums);
	CHECK(sums.count[RECLAIM_DIRECT] == 0 && sums.unpaired == 0);
	CHECK(reclaim_pair__new(&rp) == 0);
	/* An end before any begin: unpaired, no length. */
	CHECK(!reclaim_pair__end(rp, 1, RECLAIM_DIRECT, 100, 5, &ns));
	CHECK(ns == 77);
	CHECK(reclaim_pair__begin(rp, 1, RECLAIM_DIRECT, 1000) == 0);
	CHECK(!reclaim_pair__end(rp, 2, RECLAIM_DIRECT, 1500, 5, &ns));	/* another thread */
	CHECK(!reclaim_pair__end(rp, 1, RECLAIM_MEMCG, 1500, 5, &ns));	/* another kind */
	CHECK(reclaim_pair__end(rp, 1, RECLAIM_DIRECT, 1700, 32, &ns));
	CHECK(ns == 700);
	CHECK(!reclaim_pair__end(rp, 1, RECLAIM_DIRECT, 1800, 32, &ns));	/* consumed */
	/* Kinds of one thread nest: slab shrinking inside a memcg reclaim. */
	CHECK(reclaim_pair__begin(rp, 3, RECLAIM_MEMCG, 2000) == 0);
	CHECK(reclaim_pair__begin(rp, 3, RECLAIM_SLAB, 2100) == 0);
	CHECK(reclaim_pair__end(rp, 3, RECLAIM_SLAB, 2150, 0, &ns) && ns == 50);
	CHECK(reclaim_pair__end(rp, 3, RECLAIM_MEMCG, 2500, 10, &ns) && ns == 500);
	/* A later begin replaces one left without its end. */
	CHECK(reclaim_pair__begin(rp, 4, RECLAIM_DIRECT, 3000) == 0);
	CHECK(reclaim_pair__begin(rp, 4, RECLAIM_DIRECT, 3400) == 0);
	CHECK(reclaim_pair__end(rp, 4, RECLAIM_DIRECT, 3500, 1, &ns) && ns == 100);
	/* An end stamped before its begin (another CPU's clock) has length 0. */
	CHECK(reclaim_pair__begin(rp, 5, RECLAIM_DIRECT, 4000) == 0);
	CHECK(reclaim_pair__end(rp, 5, RECLAIM_DIRECT, 3990, 2, &ns) && ns == 0);
	/* High tids do not collide with low ones. */
	CHECK(reclaim_pair__begin(rp, 0x40000001, RECLAIM_DIRECT, 5000) == 0);
	CHECK(!reclaim_pair__end(rp, 1, RECLAIM_DIRECT, 5100, 0, &ns));
	CHECK(reclaim_pair__end(rp, 0x40000001, RECLAIM_DIRECT, 5100, 0, &ns) && ns == 100);
	reclaim_pair__sums(rp, &sums);
	CHECK(sums.count[RECLAIM_DIRECT] == 4);
	CHECK(sums.ns[RECLAIM_DIRECT] == 700 + 100 + 0 + 100);
	CHECK(sums.pages[RECLAIM_DIRECT] == 32 + 1 + 2);
	CHECK(sums.count[RECLAIM_MEMCG] == 1 && sums.ns[RECLAIM_MEMCG] == 500 &&
	      sums.pages[RECLAIM_MEMCG] == 10);
	CHECK(sums.count[RECLAIM_SLAB] == 1 && sums.ns[RECLAIM_SLAB] == 50);
	CHECK(sums.unpaired == 5);
	reclaim_pair__free(rp);
	reclaim_pair__free(NULL);
	return check_done("test-reclaim-pair");
}
