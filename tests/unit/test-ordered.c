/*
 * test-ordered: src/ordered.c merging the records of several "CPUs" into
 * time order.  Records carry their time and an id in their payload, so
 * the callback can check what it got against what was pushed.  Checked:
 * records pushed out of order across CPUs come out sorted; a flush limit
 * (the oldest newest time among the rings read, as session.c computes
 * it) delivers exactly the records at or before it and keeps the rest
 * for the next round, where a later record of a slower CPU still sorts
 * before them; ties keep arrival order; a callback's non-zero return is
 * returned and nothing more is delivered; records larger than half the
 * arena, and records pushed while the arena is full, go to malloc and
 * come back intact; the arena wraps around as records are freed; a queue
 * without an arena works the same.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ordered.h"

struct rec {
	struct perf_event_header h;
	uint64_t time, id;
	unsigned char pad[];
};

/* Push a record of @size bytes (>= sizeof(struct rec)) whose pad bytes
 * repeat the id's low byte. */
static int push(struct ordered *q, uint64_t time, uint64_t id, size_t size)
{
	unsigned char buf[8192];
	struct rec *r = (struct rec *)buf;

	if (size > sizeof(buf) || size < sizeof(*r))
		abort();
	r->h.type = PERF_RECORD_SAMPLE;
	r->h.misc = 0;
	r->h.size = (uint16_t)size;
	r->time = time;
	r->id = id;
	memset(r->pad, (int)(id & 0xff), size - sizeof(*r));
	return ordered__push(q, time, &r->h);
}

struct got {
	size_t n;
	uint64_t id[4096], time[4096];
	int bad;		/* a record not as pushed */
	size_t stop_after;	/* return 5 after this many, 0: never */
};

static int take(const struct perf_event_header *hdr, void *ctx)
{
	const struct rec *r = (const struct rec *)hdr;
	struct got *g = ctx;

	if (g->n >= 4096)
		return -1;
	for (size_t i = 0; i < hdr->size - sizeof(*r); i++)
		g->bad += r->pad[i] != (unsigned char)(r->id & 0xff);
	g->id[g->n] = r->id;
	g->time[g->n] = r->time;
	g->n++;
	return g->stop_after && g->n == g->stop_after ? 5 : 0;
}

static int sorted(const struct got *g)
{
	for (size_t i = 1; i < g->n; i++)
		if (g->time[i] < g->time[i - 1])
			return 0;
	return 1;
}

/* Two CPUs, a round at a time, as session.c's read_round() drives it. */
static void test_rounds(size_t arena)
{
	struct ordered *q;
	struct got g = { 0 };

	CHECK_EQ_U64(ordered__new(arena, &q), 0);
	/* Round 1: CPU 0 read up to time 50, CPU 1 up to 30.  The limit is
	 * 30: CPU 0 may still hold nothing older, CPU 1 may have records
	 * between 30 and 50 not read yet. */
	CHECK_EQ_U64(push(q, 10, 1, 32), 0);	/* cpu 0 */
	CHECK_EQ_U64(push(q, 40, 2, 32), 0);
	CHECK_EQ_U64(push(q, 50, 3, 32), 0);
	CHECK_EQ_U64(push(q, 20, 4, 48), 0);	/* cpu 1 */
	CHECK_EQ_U64(push(q, 30, 5, 48), 0);
	CHECK_EQ_U64(ordered__pending(q), 5);
	CHECK_EQ_U64(ordered__flush(q, 30, take, &g), 0);
	CHECK_EQ_U64(g.n, 3);
	CHECK_EQ_U64(g.id[0], 1);
	CHECK_EQ_U64(g.id[1], 4);
	CHECK_EQ_U64(g.id[2], 5);
	CHECK_EQ_U64(ordered__pending(q), 2);
	/* Round 2: CPU 1's record at 35 comes before CPU 0's held 40. */
	CHECK_EQ_U64(push(q, 35, 6, 32), 0);	/* cpu 1 */
	CHECK_EQ_U64(push(q, 60, 7, 32), 0);	/* cpu 0 */
	CHECK_EQ_U64(ordered__flush(q, 45, take, &g), 0);
	CHECK_EQ_U64(g.n, 5);
	CHECK_EQ_U64(g.id[3], 6);
	CHECK_EQ_U64(g.id[4], 2);
	/* The end: everything, in order. */
	CHECK_EQ_U64(ordered__flush(q, UINT64_MAX, take, &g), 0);
	CHECK_EQ_U64(g.n, 7);
	CHECK_EQ_U64(g.id[5], 3);
	CHECK_EQ_U64(g.id[6], 7);
	CHECK(sorted(&g));
	CHECK_EQ_U64(g.bad, 0);
	CHECK_EQ_U64(ordered__pending(q), 0);
	/* A limit older than everything delivers nothing. */
	CHECK_EQ_U64(push(q, 100, 8, 32), 0);
	CHECK_EQ_U64(ordered__flush(q, 99, take, &g), 0);
	CHECK_EQ_U64(g.n, 7);
	CHECK_EQ_U64(ordered__flush(q, 100, take, &g), 0);
	CHECK_EQ_U64(g.n, 8);
	ordered__free(q);
}

/* Equal times: arrival order, across flushes too. */
static void test_ties(void)
{
	struct ordered *q;
	struct got g = { 0 };

	CHECK_EQ_U64(ordered__new(4096, &q), 0);
	for (uint64_t i = 0; i < 10; i++)
		CHECK_EQ_U64(push(q, 77, i, 24), 0);
	CHECK_EQ_U64(push(q, 76, 100, 24), 0);
	CHECK_EQ_U64(ordered__flush(q, 77, take, &g), 0);
	CHECK_EQ_U64(g.n, 11);
	CHECK_EQ_U64(g.id[0], 100);
	for (uint64_t i = 0; i < 10; i++)
		CHECK_EQ_U64(g.id[i + 1], i);
	ordered__free(q);
}

/* The callback's error is returned; nothing more is delivered. */
static void test_stop(void)
{
	struct ordered *q;
	struct got g = { .stop_after = 2 };

	CHECK_EQ_U64(ordered__new(4096, &q), 0);
	for (uint64_t i = 0; i < 5; i++)
		CHECK_EQ_U64(push(q, 10 + i, i, 24), 0);
	CHECK_EQ_U64(push(q, 100, 9, 24), 0);
	CHECK_EQ_U64(ordered__flush(q, 50, take, &g), 5);
	CHECK_EQ_U64(g.n, 2);
	/* The records up to the limit are consumed all the same (the session
	 * ends on that error); what was past the limit is still there. */
	CHECK_EQ_U64(ordered__pending(q), 1);
	g.stop_after = 0;
	CHECK_EQ_U64(ordered__flush(q, UINT64_MAX, take, &g), 0);
	CHECK_EQ_U64(g.id[g.n - 1], 9);
	ordered__free(q);
}

/* A small arena: records too large for it, records pushed while it is
 * full, and its wrap-around as the oldest are freed. */
static void test_arena(void)
{
	struct ordered *q;
	struct got g = { 0 };
	uint64_t t = 1, id = 1;

	CHECK_EQ_U64(ordered__new(1024, &q), 0);
	/* Larger than half the arena: malloc'd. */
	CHECK_EQ_U64(push(q, t++, id++, 600), 0);
	/* Fill the arena, then overflow it into malloc. */
	for (int i = 0; i < 20; i++)
		CHECK_EQ_U64(push(q, t++, id++, 100), 0);
	CHECK_EQ_U64(ordered__flush(q, 10, take, &g), 0);
	CHECK_EQ_U64(g.n, 10);
	/* Rounds that free the oldest and push new ones: the arena's head
	 * wraps past its end many times. */
	for (int round = 0; round < 200; round++) {
		for (int i = 0; i < 3; i++)
			CHECK_EQ_U64(push(q, t++, id++, 72 + 8 * (size_t)((round + i) % 9)), 0);
		CHECK_EQ_U64(ordered__flush(q, t - 4, take, &g), 0);
	}
	CHECK_EQ_U64(ordered__flush(q, UINT64_MAX, take, &g), 0);
	CHECK_EQ_U64(g.n, id - 1);
	CHECK(sorted(&g));
	CHECK_EQ_U64(g.bad, 0);
	for (size_t i = 0; i < g.n; i++)
		if (g.id[i] != i + 1) {
			CHECK_EQ_U64(g.id[i], i + 1);
			break;
		}
	ordered__free(q);
}

/* Freed with records still queued (an error path): no leak, no crash
 * (the sanitizer build checks). */
static void test_free_pending(void)
{
	struct ordered *q;

	CHECK_EQ_U64(ordered__new(512, &q), 0);
	for (int i = 0; i < 10; i++)
		CHECK_EQ_U64(push(q, 5, (uint64_t)i, 200), 0);
	CHECK_EQ_U64(ordered__pending(q), 10);
	ordered__free(q);
	ordered__free(NULL);
}

int main(void)
{
	test_rounds(1 << 16);
	test_rounds(0);		/* no arena: every copy malloc'd */
	test_ties();
	test_stop();
	test_arena();
	test_free_pending();
	return check_done("test-ordered");
}
