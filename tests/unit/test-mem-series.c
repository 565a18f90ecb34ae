/*
 * test-mem-series: indicator rows from samples (counter deltas, the
 * MemAvailable level, reclaim from traced totals or allocstall), the
 * ring's window and its merged last row, and the baseline rule: which
 * indicator leaves first, stalls only by more than 1 ms, MemAvailable
 * only by more than 1%.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agg/mem-series.h"
#include "check.h"

#define S 1000000000ULL

static struct mem_point point(uint64_t t, uint64_t some_us, uint64_t avail_kb, uint64_t memcg)
{
	struct mem_point p;

	memset(&p, 0, sizeof(p));
	for (int i = 0; i < MI__COUNT; i++)
		p.s.v[i] = 0;
	p.s.time_ns = t;
	p.s.v[MI_CG_SOME_US] = some_us;
	p.s.v[MI_CG_FULL_US] = PROCSTAT_ABSENT;
	p.s.v[MI_MEMAVAIL_KB] = avail_kb;
	p.have_reclaim = true;
	p.r.have[RECLAIM_DIRECT] = p.r.have[RECLAIM_MEMCG] = true;
	p.r.count[RECLAIM_MEMCG] = memcg;
	p.r.ns[RECLAIM_MEMCG] = memcg * 1000;
	return p;
}

static void test_diff(void)
{
	struct mem_point a = point(1 * S, 100, 5000, 2), b = point(2 * S, 1600, 4000, 9);
	struct mem_row r;

	mem_row__diff(&b, &a, &r);
	CHECK_EQ_U64(r.len_ns, S);
	CHECK(r.have[MC_CG_SOME_US] && !r.have[MC_CG_FULL_US]);
	CHECK_EQ_U64(r.v[MC_CG_SOME_US], 1500);
	CHECK_EQ_U64(r.v[MC_MEMAVAIL_KB], 4000);	/* a level, not a delta */
	CHECK_EQ_U64(r.v[MC_MEMCG], 7);
	CHECK_EQ_U64(r.v[MC_MEMCG_NS], 7000);
	/* Untraced: direct reclaim is allocstall's delta, no memcg column. */
	a.have_reclaim = b.have_reclaim = false;
	a.s.v[MI_ALLOCSTALL] = 3;
	b.s.v[MI_ALLOCSTALL] = 5;
	mem_row__diff(&b, &a, &r);
	CHECK(r.have[MC_DIRECT] && !r.have[MC_MEMCG] && !r.have[MC_DIRECT_NS]);
	CHECK_EQ_U64(r.v[MC_DIRECT], 2);
	CHECK_STR(mem_col__name(MC_MEMCG), "memcg_reclaims");
}

static void test_departure(void)
{
	/* cg stall: 0, 500, 0 (baseline), 1400 (not > 500 + 1000), 1600;
	 * memcg reclaims: 0, 0, 0, 0, 5 at the same row: the first column
	 * in order wins a tie. */
	uint64_t some[] = { 0, 0, 500, 500, 1900, 3500 };
	uint64_t memcg[] = { 0, 0, 0, 0, 0, 5 };
	struct mem_row rows[5];
	enum mem_col c;
	size_t at;

	for (int i = 0; i < 5; i++) {
		struct mem_point a = point((uint64_t)i * S, some[i], 1000000, memcg[i]);
		struct mem_point b = point((uint64_t)(i + 1) * S, some[i + 1], 1000000, memcg[i + 1]);

		mem_row__diff(&b, &a, &rows[i]);
	}
	CHECK(mem_rows__departure(rows, 5, &c, &at));
	CHECK_EQ_U64(c, MC_CG_SOME_US);
	CHECK_EQ_U64(at, 4);
	CHECK(!mem_rows__departure(rows, 3, &c, &at));	/* a baseline only */
	/* MemAvailable: 1% of 1000000 kB is 10000 kB. */
	rows[3].v[MC_MEMAVAIL_KB] = 995000;
	rows[4].v[MC_CG_SOME_US] = 0;
	rows[4].v[MC_MEMCG] = 0;
	rows[4].v[MC_MEMCG_NS] = 0;
	CHECK(!mem_rows__departure(rows, 5, &c, &at));
	rows[4].v[MC_MEMAVAIL_KB] = 989000;
	CHECK(mem_rows__departure(rows, 5, &c, &at));
	CHECK_EQ_U64(c, MC_MEMAVAIL_KB);
	CHECK_EQ_U64(at, 4);
}

static void test_ring(void)
{
	struct mem_series *ms = NULL;
	struct mem_row *rows = NULL;
	struct mem_point p, last;
	size_t n = 0;

	CHECK_EQ_U64(mem_series__new(3, &ms), 0);
	for (uint64_t i = 0; i < 5; i++) {
		p = point(i * S, i * 2000, 1000, 0);
		mem_series__push(ms, &p);
	}
	/* The ring keeps samples 2, 3, 4; from 3 s on: rows ending at 3, 4,
	 * and at @last (5 s). */
	last = point(5 * S, 10000, 1000, 0);
	CHECK_EQ_U64(mem_series__rows(ms, 2 * S, &last, &rows, &n), 0);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(rows[0].time_ns, 3 * S);
	CHECK_EQ_U64(rows[2].v[MC_CG_SOME_US], 2000);
	free(rows);
	/* @last 10 ms after the newest sample: it ends that row. */
	last = point(4 * S + 10000000, 8500, 1000, 0);
	CHECK_EQ_U64(mem_series__rows(ms, 2 * S, &last, &rows, &n), 0);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(rows[1].time_ns, 4 * S + 10000000);
	CHECK_EQ_U64(rows[1].v[MC_CG_SOME_US], 2500);
	free(rows);
	mem_series__free(ms);
	mem_series__free(NULL);
}

int main(void)
{
	test_diff();
	test_departure();
	test_ring();
	return check_done("test-mem-series");
}
