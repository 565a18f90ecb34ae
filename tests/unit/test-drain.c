/*
 * test-drain: src/trace/drain.c emptying rings the test writes itself.  As
 * in test-ring, a memfd of (1 + pages) pages stands in for each perf event:
 * ring__new maps it, and the test maps it too, to play the kernel (records
 * at data_head, written only where data_tail leaves room) and to see in
 * data_tail what the drain handed back.  Every record carries a sequence
 * number and a payload pattern derived from it, and sizes (multiples of 8)
 * derived from it too, so the reader knows what must come next.
 * Checked:
 *   - the drain thread empties a small ring the kernel fills 100 times
 *     over while the reader reads nothing, so a paused reader does not
 *     hold the kernel up; then every record reaches the reader once, in
 *     order, intact, records that wrapped the end of the ring included;
 *     the stats count every byte, nothing capped or torn; the wait fd was
 *     readable;
 *   - the bound: with the reader paused, the drain spools the longest
 *     prefix of records that fits in @cap (sized to total @cap exactly:
 *     the bound is inclusive) and no more, the ring then fills
 *     and the kernel loses records; what is read is exactly that prefix,
 *     never more than @cap per snapshot; once the reader publishes, the
 *     drain copies again and a long stream gets through a spool that stays
 *     within @cap;
 *   - drain__stop leaves later records in the ring, drain__flush copies
 *     them all, past the bound, and gives data_tail == data_head; flush
 *     while running is -EBUSY; a torn header is dropped and counted; a
 *     drain started again after its stop copies again;
 *   - several MiB of records of up to the largest size (65528) cross the
 *     1 MiB chunks, chunks filled exactly included (4096-byte records
 *     for a 1 MiB data area, 8128-byte ones for 1 MiB - 64, drain.c's),
 *     with the reader paused and with a producer thread racing the
 *     reader; the chunks read, and those reserved, are reused by the next
 *     rounds;
 *   - drain__catch_up: records written before it, in every ring, are in
 *     the spools after it, with the thread stopped or running beside it,
 *     the bound kept;
 *   - NULL entries in the rings array are spools that never have records;
 *     a drain of no rings starts and stops;
 *   - drain__free(NULL); drain__free of a running drain with unread
 *     records over several chunks stops it (the ring is left alone after);
 *     drain__quiesce_in_signal makes the thread leave the rings alone;
 *   - back-pressure: a producer paused at half the bound and resumed at
 *     a quarter loses nothing, the bound never met, every pause resumed
 *     (drain__stop too); a pause refused is asked again only below a
 *     quarter; a ring more than half full when a pass begins pauses the
 *     producer before anything is copied;
 *   - drain__set_realtime: SCHED_FIFO for the thread while it runs, when
 *     granted (root), its normal class when refused;
 *   - stack trimming: a sample of a trimmed id is spooled with its stack
 *     copy cut to dyn_size rounded up to 8 (size field rewritten, header
 *     size, the fields before and the filled bytes intact, dyn_size kept),
 *     a whole copy and a sample of another id or another layout (size field
 *     not the id's, dyn_size past it, too short) copied unchanged, records
 *     wrapping the ring's end included; the stats count the bytes saved.
 * Waits are bounded by LIMIT seconds only as a safety net: passing one
 * fails the test; no outcome depends on timing.  Run under ASan/UBSan in
 * the sanitizer build as well.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* memfd_create */
#endif
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "trace/drain.h"
#include "trace/ring.h"

#define LIMIT 10.0		/* seconds: the safety net of every wait */
#define CHUNK (1u << 20)	/* drain.c's chunk, about */
#define MAX_REC 65528u		/* the largest 8-aligned perf record */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A moment for a thread that should be gone to show it is not; the
 * outcome of a correct drain never depends on it. */
static void settle(void)
{
	for (int i = 0; i < 2000; i++)
		sched_yield();
}

/* ---- the fake kernel ---- */

struct fake {
	int fd;
	size_t psz, size;		/* page size, data size */
	unsigned int pages;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	struct ring *r;
	uint64_t start;			/* data_head at the beginning */
	uint64_t head;			/* the producer's data_head */
	uint64_t wraps;			/* records written across the end */
	unsigned char *buf;		/* the record being built */
};

static void fake_new(struct fake *f, unsigned int pages, uint64_t start)
{
	memset(f, 0, sizeof(*f));
	f->psz = (size_t)sysconf(_SC_PAGESIZE);
	f->pages = pages;
	f->size = pages * f->psz;
	f->fd = memfd_create("test-drain", MFD_CLOEXEC);
	f->buf = malloc(MAX_REC + 8);
	if (f->fd < 0 || !f->buf || ftruncate(f->fd, (off_t)(f->psz + f->size)))
		goto fail;
	f->pc = mmap(NULL, f->psz + f->size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	if (f->pc == MAP_FAILED)
		goto fail;
	f->data = (unsigned char *)f->pc + f->psz;
	f->pc->data_head = f->pc->data_tail = f->start = f->head = start;
	if (ring__new(f->fd, pages, &f->r) == 0)
		return;
fail:
	fprintf(stderr, "test-drain: cannot set up a memfd ring\n");
	exit(99);
}

static void fake_free(struct fake *f)
{
	ring__free(f->r);
	munmap(f->pc, f->psz + f->size);
	close(f->fd);
	free(f->buf);
}

static uint64_t fake_tail(const struct fake *f)
{
	return __atomic_load_n(&f->pc->data_tail, __ATOMIC_ACQUIRE);
}

static unsigned char pat(uint64_t seq, size_t i)
{
	return (unsigned char)(seq * 167 + i * 7 + (i >> 8));
}

/* Write record @seq of @size bytes at data_head (wrapping), then publish
 * data_head past it, as the kernel does.  The caller checked the room. */
static void fake_emit(struct fake *f, uint64_t seq, uint16_t size)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = 0, .size = size };
	size_t off = f->head & (f->size - 1), first = f->size - off;

	memcpy(f->buf, &h, sizeof(h));
	memcpy(f->buf + sizeof(h), &seq, sizeof(seq));
	for (size_t i = 16; i < size; i++)
		f->buf[i] = pat(seq, i);
	if (size <= first) {
		memcpy(f->data + off, f->buf, size);
	} else {
		memcpy(f->data + off, f->buf, first);
		memcpy(f->data, f->buf + first, size - first);
		f->wraps++;
	}
	f->head += size;
	__atomic_store_n(&f->pc->data_head, f->head, __ATOMIC_RELEASE);
}

static bool fake_room(const struct fake *f, uint16_t size)
{
	return f->head + size - fake_tail(f) <= f->size;
}

/* The kernel would drop a record that finds no room: false. */
static bool fake_try_put(struct fake *f, uint64_t seq, uint16_t size)
{
	if (!fake_room(f, size))
		return false;
	fake_emit(f, seq, size);
	return true;
}

/* Wait for room (the drain must make it), then write.  0; -1 past
 * @deadline. */
static int fake_put_wait(struct fake *f, uint64_t seq, uint16_t size, double deadline)
{
	while (!fake_room(f, size)) {
		if (now() > deadline)
			return -1;
		sched_yield();
	}
	fake_emit(f, seq, size);
	return 0;
}

/* Wait until the drain took everything written.  0; -1 past @deadline. */
static int fake_wait_empty(const struct fake *f, double deadline)
{
	while (fake_tail(f) != f->head) {
		if (now() > deadline)
			return -1;
		sched_yield();
	}
	return 0;
}

/*
 * A full pass of the drain over the rings before @m, which must be the
 * last of the drain's array: a marker record in @m, copied, then another.
 * The second can only be copied by a pass that began after the drain saw
 * the first, hence after everything written to the other rings before
 * this call; that pass handled them before reaching @m.  0; -1 past
 * @deadline.
 */
static int fake_barrier(struct fake *m, double deadline)
{
	for (int k = 0; k < 2; k++)
		if (fake_put_wait(m, m->head, 16, deadline) || fake_wait_empty(m, deadline))
			return -1;
	return 0;
}

/* ---- record sizes ---- */

struct gen {
	unsigned int fixed;		/* every record this size, or */
	unsigned int small_max;		/* 16 .. small_max */
	unsigned int big, big_every;	/* and every big_every-th this size */
	uint64_t at;			/* and record @at, when at_size, */
	unsigned int at_size;		/* this size */
};

static uint16_t gen_size(const struct gen *g, uint64_t seq)
{
	uint64_t h = (seq + 1) * 0x9e3779b97f4a7c15ull;

	if (g->at_size && seq == g->at)
		return (uint16_t)g->at_size;
	if (g->fixed)
		return (uint16_t)g->fixed;
	if (g->big_every && seq % g->big_every == g->big_every - 1)
		return (uint16_t)g->big;
	return (uint16_t)(16 + ((h >> 32) % ((g->small_max - 16) / 8 + 1)) * 8);
}

/* The first sequence number past @from whose records from @from on total
 * at least @bytes. */
static uint64_t gen_upto(const struct gen *g, uint64_t from, uint64_t bytes)
{
	uint64_t sum = 0, seq = from;

	while (sum < bytes)
		sum += gen_size(g, seq++);
	return seq;
}

/* ---- the reader ---- */

struct rd {
	const struct gen *g;
	uint64_t seq;			/* the next expected */
	uint64_t bytes;			/* read so far */
	uint64_t max_pass;		/* the most bytes one snapshot gave */
	uint64_t bad;
};

static void rd_check(struct rd *rd, const struct perf_event_header *h)
{
	const unsigned char *p = (const void *)h;
	uint64_t seq = UINT64_MAX;
	bool ok = h->type == PERF_RECORD_SAMPLE && h->size == gen_size(rd->g, rd->seq);

	if (ok) {
		memcpy(&seq, p + sizeof(*h), sizeof(seq));
		ok = seq == rd->seq;
	}
	for (size_t i = 16; ok && i < h->size; i++)
		ok = p[i] == pat(rd->seq, i);
	if (!ok && rd->bad++ < 5)
		fprintf(stderr, "test-drain: record %llu: type %u size %u seq %llu, not as written\n",
			(unsigned long long)rd->seq, h->type, h->size, (unsigned long long)seq);
	rd->seq++;
	rd->bytes += h->size;
}

/* Read what spool @i has now (one snapshot), then publish.  The bytes
 * read. */
static uint64_t rd_pass(struct drain *d, int i, struct rd *rd)
{
	const struct perf_event_header *h;
	uint64_t got = 0;

	if (!drain__snapshot(d, i))
		return 0;
	while (drain__peek(d, i, &h) == 0) {
		if (h->size < sizeof(*h)) {	/* would never advance */
			rd->bad++;
			break;
		}
		rd_check(rd, h);
		got += h->size;
		drain__consume(d, i);
	}
	drain__publish(d, i);
	if (got > rd->max_pass)
		rd->max_pass = got;
	return got;
}

/* Read spool @i until record @end is next.  0; -1 past @deadline. */
static int rd_until(struct drain *d, int i, struct rd *rd, uint64_t end, double deadline)
{
	struct pollfd pfd = { .fd = drain__wait_fd(d), .events = POLLIN };

	while (rd->seq < end && !rd->bad) {
		drain__ack(d);
		if (rd_pass(d, i, rd))
			continue;
		if (now() > deadline)
			return -1;
		poll(&pfd, 1, 1);
	}
	return rd->bad ? -1 : 0;
}

/* ---- the cases ---- */

/* The kernel fills a 4-page ring 100 times over while the reader reads
 * nothing: only the drain can make the room it waits for. */
static void test_paused_reader(void)
{
	struct fake f;
	struct drain *d;
	struct drain_stats st;
	struct gen g = { .small_max = 2048, .big_every = 61 };
	struct rd rd = { .g = &g };
	struct pollfd pfd;
	double deadline = now() + LIMIT;
	uint64_t n, seq;

	fake_new(&f, 4, 9 * 4 * (uint64_t)sysconf(_SC_PAGESIZE) - 24);	/* near a wrap, 10th lap */
	g.big = f.size - 8 < MAX_REC ? (unsigned int)f.size - 8 : MAX_REC;
	n = gen_upto(&g, 0, 100 * (uint64_t)f.size);
	CHECK_EQ_U64(drain__new(&f.r, 1, 0, 0, &d), 0);
	CHECK_EQ_U64(drain__start(d), 0);
	CHECK_EQ_U64(drain__start(d), 0);	/* started already: nothing */
	for (seq = 0; seq < n; seq++)
		if (fake_put_wait(&f, seq, gen_size(&g, seq), deadline))
			break;
	CHECK_EQ_U64(seq, n);	/* else the producer waited for room in vain */
	CHECK(f.wraps > 0);
	/* Something was spooled and nobody acknowledged it. */
	pfd = (struct pollfd){ .fd = drain__wait_fd(d), .events = POLLIN };
	CHECK_EQ_U64(poll(&pfd, 1, 0), 1);
	CHECK(pfd.revents & POLLIN);

	CHECK_EQ_U64(rd_until(d, 0, &rd, n, now() + LIMIT), 0);
	CHECK_EQ_U64(rd.seq, n);
	CHECK_EQ_U64(rd.bytes, f.head - f.start);
	CHECK_EQ_U64(rd.bad, 0);
	CHECK_EQ_U64(fake_tail(&f), f.head);
	drain__stop(d);
	CHECK(!drain__snapshot(d, 0));	/* nothing twice, nothing more */
	drain__stats(d, &st);
	CHECK_EQ_U64(st.copied, f.head - f.start);
	CHECK_EQ_U64(st.capped, 0);
	CHECK_EQ_U64(st.torn, 0);
	CHECK(st.ring_peak > 0 && st.ring_peak <= f.size);
	CHECK(st.copied <= st.passes * st.ring_peak);
	/* Unread, the spool held all but what the ring held last. */
	CHECK(st.peak >= f.head - f.start - f.size && st.peak <= f.head - f.start);
	/* Stopped and acknowledged: nothing new. */
	drain__ack(d);
	drain__ack(d);		/* nothing to read: must not block */
	CHECK_EQ_U64(poll(&pfd, 1, 0), 0);
	drain__free(d);
	fake_free(&f);
}

/*
 * The bound, cap = 3 rings.  With the reader paused, the drain must spool
 * records 0..P-1, the longest prefix that fits in cap (one record's size
 * is chosen for them to total cap exactly: the bound is inclusive), and
 * no more; records P..J-1 then fill the ring, and record J finds no room:
 * lost.  The test knows P and J from the sizes, so it waits for room only
 * where a correct drain must make it.
 */
static void test_bound(void)
{
	struct fake f, m;		/* the ring bounded, a marker ring */
	struct ring *rings[2];
	struct drain *d;
	struct drain_stats st;
	struct gen g = { .small_max = 2048 };
	struct rd rd = { .g = &g };
	double deadline = now() + LIMIT;
	uint64_t cap, p, j, seq, prefix = 0, fill = 0, lost = 0, end;

	fake_new(&f, 4, 5 * 4 * (uint64_t)sysconf(_SC_PAGESIZE) - 72);
	fake_new(&m, 1, 0);
	cap = 3 * f.size;
	rings[0] = f.r;
	rings[1] = m.r;		/* last: see fake_barrier() */
	for (p = 0; prefix + gen_size(&g, p) <= cap; p++)
		prefix += gen_size(&g, p);
	if (cap - prefix >= 16) {	/* one more, of just the size left */
		g.at = p++;
		g.at_size = (unsigned int)(cap - prefix);
	} else {			/* the last one larger by that */
		g.at = p - 1;
		g.at_size = gen_size(&g, p - 1) + (unsigned int)(cap - prefix);
	}
	prefix = cap;
	for (j = p; fill + gen_size(&g, j) <= f.size; j++)
		fill += gen_size(&g, j);
	CHECK_EQ_U64(drain__new(rings, 2, cap, 0, &d), 0);
	CHECK_EQ_U64(drain__start(d), 0);

	for (seq = 0; seq < j; seq++)
		if (fake_put_wait(&f, seq, gen_size(&g, seq), deadline))
			break;
	CHECK_EQ_U64(seq, j);
	CHECK_EQ_U64(fake_barrier(&m, deadline), 0);
	/* A pass saw records P.. and left them: the ring stays full. */
	CHECK_EQ_U64(fake_tail(&f), f.start + prefix);
	for (int k = 0; k < 8; k++)
		lost += !fake_try_put(&f, j, gen_size(&g, j));
	CHECK_EQ_U64(lost, 8);
	CHECK(f.head + gen_size(&g, j) - fake_tail(&f) > f.size);

	/* The reader gets exactly the prefix: within cap, and cap full. */
	CHECK_EQ_U64(rd_pass(d, 0, &rd), prefix);
	CHECK_EQ_U64(rd.seq, p);
	CHECK_EQ_U64(rd.bad, 0);
	CHECK(!drain__snapshot(d, 0));

	/* Published: the drain copies again, the rest of the ring first. */
	CHECK_EQ_U64(rd_until(d, 0, &rd, j, deadline), 0);
	CHECK_EQ_U64(fake_wait_empty(&f, deadline), 0);

	/* A long stream through the bound: the reader reads only when the
	 * kernel finds no room. */
	end = gen_upto(&g, j, 8 * cap);
	for (seq = j; seq < end;) {
		if (fake_try_put(&f, seq, gen_size(&g, seq))) {
			seq++;
			continue;
		}
		if (!rd_pass(d, 0, &rd)) {
			if (now() > deadline)
				break;
			sched_yield();
		}
	}
	CHECK_EQ_U64(seq, end);
	CHECK_EQ_U64(rd_until(d, 0, &rd, end, deadline), 0);
	CHECK_EQ_U64(rd.seq, end);
	CHECK_EQ_U64(rd.bytes, f.head - f.start);
	CHECK_EQ_U64(rd.bad, 0);
	CHECK(rd.max_pass <= cap);
	drain__stop(d);
	drain__stats(d, &st);
	CHECK_EQ_U64(st.copied, (f.head - f.start) + (m.head - m.start));
	CHECK(st.capped > 0);
	CHECK_EQ_U64(st.peak, cap);
	CHECK_EQ_U64(st.torn, 0);
	CHECK(st.ring_peak <= f.size);
	drain__free(d);
	fake_free(&f);
	fake_free(&m);
}

/* A producer that stops when told, as a SIGSTOP'd target: the pause
 * callback's side. */
struct bp_state {
	int paused;			/* atomic */
	int calls, resumes;
	bool refuse;			/* pause() stops nothing */
	struct drain *d;		/* with it: what was copied at the first pause */
	uint64_t copied_at_pause;
};

static bool bp_pause(void *ctx)
{
	struct bp_state *b = ctx;

	if (b->d && !b->calls) {
		struct drain_stats st;

		/* The drain's own thread: its counters are its own. */
		drain__stats(b->d, &st);
		b->copied_at_pause = st.copied;
	}
	b->calls++;
	if (b->refuse)
		return false;
	__atomic_store_n(&b->paused, 1, __ATOMIC_SEQ_CST);
	return true;
}

static void bp_resume(void *ctx)
{
	struct bp_state *b = ctx;

	b->resumes++;
	__atomic_store_n(&b->paused, 0, __ATOMIC_SEQ_CST);
}

/*
 * Back-pressure, cap = 8 rings: the producer writes while not paused and
 * the reader reads only while it is (a reader slower than any producer).
 * Half the cap unread pauses it; what it writes after (one record, and
 * what the ring holds) fits in the other half, so the bound is never met:
 * nothing is capped, every record arrives, in order.  The reader read
 * all, the spool is below a quarter: resumed, every pause.  drain__stop
 * resumes a pause still on.  A pause that stops nothing is asked again
 * only once the spool is down to a quarter.
 */
static void test_backpressure(void)
{
	struct fake f;
	struct drain *d;
	struct drain_stats st;
	struct gen g = { .small_max = 2048 };
	struct rd rd = { .g = &g };
	struct bp_state b = { 0 };
	struct drain_backpressure bp = { .pause = bp_pause, .resume = bp_resume, .ctx = &b };
	struct pollfd pfd;
	double deadline = now() + LIMIT;
	uint64_t cap, seq, end;

	fake_new(&f, 4, 0);
	cap = 8 * f.size;
	end = gen_upto(&g, 0, 10 * cap);
	CHECK_EQ_U64(drain__new(&f.r, 1, cap, 0, &d), 0);
	drain__set_backpressure(d, &bp);
	CHECK_EQ_U64(drain__start(d), 0);
	pfd = (struct pollfd){ .fd = drain__wait_fd(d), .events = POLLIN };
	for (seq = 0; seq < end;) {
		if (!__atomic_load_n(&b.paused, __ATOMIC_SEQ_CST)) {
			if (fake_put_wait(&f, seq, gen_size(&g, seq), deadline))
				break;
			seq++;
			continue;
		}
		drain__ack(d);
		if (!rd_pass(d, 0, &rd)) {
			if (now() > deadline)
				break;
			poll(&pfd, 1, 1);
		}
	}
	CHECK_EQ_U64(seq, end);
	CHECK_EQ_U64(rd_until(d, 0, &rd, end, deadline), 0);
	CHECK_EQ_U64(rd.seq, end);
	CHECK_EQ_U64(rd.bad, 0);
	drain__stop(d);
	CHECK_EQ_U64(__atomic_load_n(&b.paused, __ATOMIC_SEQ_CST), 0);
	drain__stats(d, &st);
	CHECK(b.calls >= 10);		/* 10 caps through, a pause every half */
	CHECK_EQ_U64(st.pauses, (uint64_t)b.calls);
	CHECK_EQ_U64(b.resumes, b.calls);
	CHECK(st.paused_ns > 0);
	CHECK_EQ_U64(st.capped, 0);
	CHECK(st.peak < cap);
	drain__free(d);
	fake_free(&f);

	/* Refused: asked once above half; again only after a quarter. */
	fake_new(&f, 4, 0);
	memset(&b, 0, sizeof(b));
	memset(&rd, 0, sizeof(rd));
	rd.g = &g;
	b.refuse = true;
	deadline = now() + LIMIT;
	CHECK_EQ_U64(drain__new(&f.r, 1, cap, 0, &d), 0);
	drain__set_backpressure(d, &bp);
	CHECK_EQ_U64(drain__start(d), 0);
	end = gen_upto(&g, 0, cap * 3 / 4);
	for (seq = 0; seq < end; seq++)
		if (fake_put_wait(&f, seq, gen_size(&g, seq), deadline))
			break;
	CHECK_EQ_U64(fake_wait_empty(&f, deadline), 0);
	CHECK_EQ_U64(b.calls, 1);
	CHECK_EQ_U64(rd_until(d, 0, &rd, end, deadline), 0);
	/* Read: a pass (records written now) finds the spool low. */
	end = gen_upto(&g, seq, cap * 3 / 4);
	for (; seq < end; seq++)
		if (fake_put_wait(&f, seq, gen_size(&g, seq), deadline))
			break;
	CHECK_EQ_U64(fake_wait_empty(&f, deadline), 0);
	CHECK_EQ_U64(b.calls, 2);
	CHECK_EQ_U64(b.resumes, 0);
	CHECK_EQ_U64(rd_until(d, 0, &rd, end, deadline), 0);
	CHECK_EQ_U64(rd.bad, 0);
	drain__stop(d);
	drain__stats(d, &st);
	CHECK_EQ_U64(st.pauses, 0);
	drain__free(d);
	fake_free(&f);
}

/*
 * A late drain: the ring is already more than half full when the thread's
 * first pass begins (the thread was kept from running while the producer
 * wrote).  The producer is paused before a byte is copied, not after half
 * a ring of copying, during which it would go on writing into the little
 * room left.  Unbounded spool: only the ring's fill can ask for it.
 */
static void test_late_drain(void)
{
	struct fake f;
	struct drain *d;
	struct drain_stats st;
	struct gen g = { .small_max = 2048 };
	struct rd rd = { .g = &g };
	struct bp_state b = { 0 };
	struct drain_backpressure bp = { .pause = bp_pause, .resume = bp_resume, .ctx = &b };
	double deadline = now() + LIMIT;
	uint64_t seq, end;

	fake_new(&f, 64, 0);
	end = gen_upto(&g, 0, f.size * 3 / 4);
	for (seq = 0; seq < end; seq++)
		CHECK(fake_try_put(&f, seq, gen_size(&g, seq)));
	CHECK_EQ_U64(drain__new(&f.r, 1, 0, 0, &d), 0);
	b.d = d;
	bp.ring_bytes = f.size;
	drain__set_backpressure(d, &bp);
	CHECK_EQ_U64(drain__start(d), 0);
	CHECK_EQ_U64(rd_until(d, 0, &rd, end, deadline), 0);
	CHECK_EQ_U64(rd.seq, end);
	CHECK_EQ_U64(rd.bad, 0);
	drain__stop(d);
	drain__stats(d, &st);
	CHECK_EQ_U64(b.calls, 1);
	CHECK_EQ_U64(b.copied_at_pause, 0);
	CHECK_EQ_U64(st.pauses, 1);
	CHECK_EQ_U64(b.resumes, 1);
	drain__free(d);
	fake_free(&f);
}

/* drain__stop leaves what comes later in the ring; drain__flush takes it
 * all, bound or not. */
static void test_stop_flush(void)
{
	struct fake f;
	struct drain *d;
	struct drain_stats st;
	struct gen g = { .small_max = 512 };
	struct rd rd = { .g = &g };
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 4 };
	const struct perf_event_header *h;
	double deadline = now() + LIMIT;
	uint64_t cap = 4096, tail, seq, before = 0;

	fake_new(&f, 4, 3 * 4 * (uint64_t)sysconf(_SC_PAGESIZE) - 40);
	CHECK_EQ_U64(drain__new(&f.r, 1, cap, 0, &d), 0);
	CHECK_EQ_U64(drain__flush(d), 0);	/* not started: nothing there */
	CHECK_EQ_U64(drain__start(d), 0);
	CHECK_EQ_U64(drain__flush(d), -EBUSY);
	for (seq = 0; seq < 6; seq++) {		/* 6 * 512 < cap: never capped */
		before += gen_size(&g, seq);
		CHECK_EQ_U64(fake_put_wait(&f, seq, gen_size(&g, seq), deadline), 0);
	}
	CHECK(before < cap);
	CHECK_EQ_U64(rd_until(d, 0, &rd, 6, deadline), 0);
	CHECK_EQ_U64(fake_tail(&f), f.head);
	drain__stop(d);
	drain__stop(d);		/* stopped already: nothing */

	/* Fill the ring: past cap, across the end of the data area. */
	tail = fake_tail(&f);
	while (fake_try_put(&f, seq, gen_size(&g, seq)))
		seq++;
	CHECK(f.head - tail > cap);
	CHECK(f.wraps > 0);
	settle();
	CHECK_EQ_U64(fake_tail(&f), tail);
	CHECK(!drain__snapshot(d, 0));
	CHECK_EQ_U64(drain__peek(d, 0, &h), -ENOENT);

	CHECK_EQ_U64(drain__flush(d), 0);
	CHECK_EQ_U64(fake_tail(&f), f.head);
	CHECK_EQ_U64(rd_pass(d, 0, &rd), f.head - tail);
	CHECK_EQ_U64(rd.seq, seq);
	CHECK_EQ_U64(rd.bad, 0);
	CHECK_EQ_U64(drain__flush(d), 0);	/* nothing left */
	CHECK(!drain__snapshot(d, 0));

	/* A torn header: dropped up to data_head, counted, and the ring
	 * usable after. */
	memcpy(f.data + (f.head & (f.size - 1)), &bad, sizeof(bad));
	f.head += 64;
	__atomic_store_n(&f.pc->data_head, f.head, __ATOMIC_RELEASE);
	CHECK_EQ_U64(drain__flush(d), 0);
	CHECK_EQ_U64(fake_tail(&f), f.head);
	CHECK(!drain__snapshot(d, 0));
	CHECK(fake_try_put(&f, seq, gen_size(&g, seq)));
	seq++;
	CHECK_EQ_U64(drain__flush(d), 0);
	CHECK_EQ_U64(rd_pass(d, 0, &rd), gen_size(&g, seq - 1));
	CHECK_EQ_U64(rd.seq, seq);
	CHECK_EQ_U64(rd.bad, 0);
	drain__stats(d, &st);
	CHECK_EQ_U64(st.copied, f.head - f.start - 64);
	CHECK_EQ_U64(st.torn, 1);
	CHECK_EQ_U64(st.capped, 0);

	/* Started again after a stop, the thread copies again. */
	CHECK_EQ_U64(drain__start(d), 0);
	CHECK_EQ_U64(fake_put_wait(&f, seq, gen_size(&g, seq), deadline), 0);
	seq++;
	CHECK_EQ_U64(rd_until(d, 0, &rd, seq, deadline), 0);
	CHECK_EQ_U64(fake_tail(&f), f.head);
	drain__free(d);
	fake_free(&f);
}

struct producer {
	struct fake *f;
	const struct gen *g;
	uint64_t from, to, done;
};

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	double deadline = now() + LIMIT;

	for (p->done = p->from; p->done < p->to; p->done++)
		if (fake_put_wait(p->f, p->done, gen_size(p->g, p->done), deadline))
			break;
	return NULL;
}

/* Write records @seq.. up to @bytes with the reader paused, then read
 * them all.  The next sequence number. */
static uint64_t round_paused(struct fake *f, struct drain *d, struct rd *rd, const struct gen *g,
			     uint64_t seq, uint64_t bytes)
{
	double deadline = now() + LIMIT;
	uint64_t end = gen_upto(g, seq, bytes);

	rd->g = g;
	for (; seq < end; seq++)
		if (fake_put_wait(f, seq, gen_size(g, seq), deadline))
			break;
	CHECK_EQ_U64(seq, end);
	CHECK_EQ_U64(rd_until(d, 0, rd, end, deadline), 0);
	CHECK_EQ_U64(rd->seq, end);
	CHECK_EQ_U64(rd->bad, 0);
	return end;
}

/* Records across 1 MiB chunks, in rounds that reuse the chunks read. */
static void test_chunks(void)
{
	struct fake f;
	struct drain *d;
	struct drain_stats st;
	struct gen exact1 = { .fixed = 4096 };	/* 256 to 1 MiB */
	struct gen exact2 = { .fixed = 8128 };	/* 129 to 1 MiB - 64 */
	struct gen big = { .fixed = MAX_REC };
	struct gen mixed = { .small_max = 4096, .big = MAX_REC, .big_every = 23 };
	struct rd rd = { .g = &exact1 };
	struct producer pr = { .f = &f, .g = &mixed };
	pthread_t t;
	uint64_t seq = 0;

	fake_new(&f, 64, 0);
	if (f.size < 2 * MAX_REC) {
		fprintf(stderr, "test-drain: pages too small for the chunk test\n");
		CHECK(0);
		fake_free(&f);
		return;
	}
	/* Two chunks reserved: the first rounds start in them. */
	CHECK_EQ_U64(drain__new(&f.r, 1, 0, 2 * CHUNK, &d), 0);
	CHECK_EQ_U64(drain__start(d), 0);

	seq = round_paused(&f, d, &rd, &exact1, seq, 3 * CHUNK + CHUNK / 2);
	seq = round_paused(&f, d, &rd, &exact2, seq, 3 * CHUNK + CHUNK / 2);
	seq = round_paused(&f, d, &rd, &big, seq, 3 * CHUNK);

	/* A producer thread racing the reader, mixed sizes, twice. */
	rd.g = &mixed;
	for (int round = 0; round < 2; round++) {
		pr.from = seq;
		pr.to = gen_upto(&mixed, seq, 6 * CHUNK);
		CHECK_EQ_U64(pthread_create(&t, NULL, producer_main, &pr), 0);
		CHECK_EQ_U64(rd_until(d, 0, &rd, pr.to, now() + LIMIT), 0);
		pthread_join(t, NULL);
		CHECK_EQ_U64(pr.done, pr.to);
		CHECK_EQ_U64(rd.seq, pr.to);
		CHECK_EQ_U64(rd.bad, 0);
		seq = pr.to;
	}

	/* The reader paused again, on the chunks kept. */
	seq = round_paused(&f, d, &rd, &mixed, seq, 4 * CHUNK);
	CHECK_EQ_U64(rd.bytes, f.head - f.start);
	CHECK(f.wraps > 0);
	CHECK_EQ_U64(fake_tail(&f), f.head);
	drain__stop(d);
	drain__stats(d, &st);
	CHECK_EQ_U64(st.copied, f.head - f.start);
	CHECK_EQ_U64(st.torn, 0);
	CHECK_EQ_U64(st.capped, 0);
	CHECK(st.ring_peak > 0 && st.ring_peak <= f.size);
	CHECK(st.passes > 0 && st.copied <= st.passes * st.ring_peak);
	drain__free(d);
	fake_free(&f);
}

/* drain__catch_up: what the kernel wrote before it, in every ring, is in
 * the spools after it, without the thread (not started, then stopped)
 * and beside it; a full spool's bound holds there too. */
static void test_catch_up(void)
{
	struct fake a, b;
	struct ring *rings[2];
	struct drain *d;
	struct gen g = { .small_max = 256 };
	struct rd ra = { .g = &g }, rb = { .g = &g };
	double deadline = now() + LIMIT;
	uint64_t seq_a = 0, seq_b = 0;

	fake_new(&a, 2, 0);
	fake_new(&b, 2, 0);
	rings[0] = a.r;
	rings[1] = b.r;
	CHECK_EQ_U64(drain__new(rings, 2, 0, 0, &d), 0);
	for (; seq_a < 5; seq_a++)
		CHECK(fake_try_put(&a, seq_a, gen_size(&g, seq_a)));
	for (; seq_b < 3; seq_b++)
		CHECK(fake_try_put(&b, seq_b, gen_size(&g, seq_b)));
	CHECK(!drain__snapshot(d, 0));		/* nothing copied yet */
	drain__catch_up(d);
	CHECK_EQ_U64(fake_tail(&a), a.head);
	CHECK_EQ_U64(fake_tail(&b), b.head);
	CHECK_EQ_U64(rd_pass(d, 0, &ra), a.head - a.start);
	CHECK_EQ_U64(rd_pass(d, 1, &rb), b.head - b.start);
	CHECK_EQ_U64(ra.seq, seq_a);
	CHECK_EQ_U64(rb.seq, seq_b);

	/* Beside the thread: one pass at a time, nothing lost or doubled. */
	CHECK_EQ_U64(drain__start(d), 0);
	for (int round = 0; round < 200; round++) {
		CHECK_EQ_U64(fake_put_wait(&a, seq_a, gen_size(&g, seq_a), deadline), 0);
		seq_a++;
		CHECK_EQ_U64(fake_put_wait(&b, seq_b, gen_size(&g, seq_b), deadline), 0);
		seq_b++;
		drain__catch_up(d);
		/* Written before the call: in the spools now. */
		rd_pass(d, 0, &ra);
		rd_pass(d, 1, &rb);
		CHECK_EQ_U64(ra.seq, seq_a);
		CHECK_EQ_U64(rb.seq, seq_b);
	}
	CHECK_EQ_U64(ra.bad + rb.bad, 0);
	drain__stop(d);
	CHECK(fake_try_put(&b, seq_b, gen_size(&g, seq_b)));
	seq_b++;
	drain__catch_up(d);	/* stopped: the caller's pass */
	rd_pass(d, 1, &rb);
	CHECK_EQ_U64(rb.seq, seq_b);
	drain__free(d);

	/* The bound: a spool at cap leaves the rest in the ring. */
	CHECK_EQ_U64(drain__new(rings, 1, 1024, 0, &d), 0);
	while (fake_try_put(&a, seq_a, gen_size(&g, seq_a)))
		seq_a++;
	drain__catch_up(d);
	CHECK(fake_tail(&a) != a.head);
	CHECK(rd_pass(d, 0, &ra) <= 1024);
	CHECK(ra.seq < seq_a);
	CHECK_EQ_U64(ra.bad, 0);
	drain__free(d);
	fake_free(&a);
	fake_free(&b);
}

/* NULL rings: spools with nothing, ever; the others work as usual. */
static void test_null_rings(void)
{
	struct fake f;
	struct ring *rings[3];
	struct ring *none[1] = { NULL };
	struct drain *d;
	struct drain_stats st;
	const struct perf_event_header *h;
	struct gen g = { .small_max = 256 };
	struct rd rd = { .g = &g };
	double deadline = now() + LIMIT;

	fake_new(&f, 1, 0);
	rings[0] = NULL;
	rings[1] = f.r;
	rings[2] = NULL;
	CHECK_EQ_U64(drain__new(rings, 3, 0, 0, &d), 0);
	CHECK(drain__wait_fd(d) >= 0);
	CHECK_EQ_U64(drain__start(d), 0);
	for (uint64_t seq = 0; seq < 20; seq++)
		CHECK_EQ_U64(fake_put_wait(&f, seq, gen_size(&g, seq), deadline), 0);
	CHECK_EQ_U64(rd_until(d, 1, &rd, 20, deadline), 0);
	CHECK_EQ_U64(rd.bad, 0);
	for (int i = 0; i < 3; i += 2) {
		CHECK(!drain__snapshot(d, i));
		CHECK_EQ_U64(drain__peek(d, i, &h), -ENOENT);
	}
	drain__stop(d);
	CHECK_EQ_U64(drain__flush(d), 0);
	CHECK(!drain__snapshot(d, 0));
	CHECK(!drain__snapshot(d, 2));
	drain__stats(d, &st);
	CHECK_EQ_U64(st.copied, f.head - f.start);
	drain__free(d);

	/* Only NULL rings, and none at all. */
	CHECK_EQ_U64(drain__new(rings, 1, 0, 0, &d), 0);
	CHECK_EQ_U64(drain__start(d), 0);
	CHECK(!drain__snapshot(d, 0));
	drain__stop(d);
	CHECK_EQ_U64(drain__flush(d), 0);
	drain__free(d);
	CHECK_EQ_U64(drain__new(none, 0, 0, CHUNK, &d), 0);
	CHECK_EQ_U64(drain__start(d), 0);
	drain__free(d);
	fake_free(&f);
}

/* Threads of this process in SCHED_FIFO now. */
static int fifo_threads(void)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	while (dir && (de = readdir(dir)))
		if (de->d_name[0] != '.' && sched_getscheduler(atoi(de->d_name)) == SCHED_FIFO)
			n++;
	if (dir)
		closedir(dir);
	return n;
}

/* drain__set_realtime: the thread is in SCHED_FIFO while it runs when it
 * says it got it (as root), in its normal class when refused (not root)
 * or not asked, and nothing is left in SCHED_FIFO once it stopped. */
static void test_realtime(void)
{
	struct drain *d;
	double deadline = now() + LIMIT;

	CHECK_EQ_U64(drain__new(NULL, 0, 0, 0, &d), 0);
	CHECK_EQ_U64(drain__start(d), 0);
	CHECK_EQ_U64(drain__realtime(d), 0);
	CHECK_EQ_U64(fifo_threads(), 0);
	drain__stop(d);
	drain__set_realtime(d, 1);
	CHECK_EQ_U64(drain__start(d), 0);
	while (drain__realtime(d) == 0 && now() < deadline)
		sched_yield();
	CHECK(drain__realtime(d) != 0);
	CHECK_EQ_U64(fifo_threads(), drain__realtime(d) > 0 ? 1 : 0);
	drain__stop(d);
	CHECK_EQ_U64(fifo_threads(), 0);
	drain__free(d);
}

/* drain__free of nothing, and of a running drain with records unread in
 * several chunks and chunks read kept; drain__quiesce_in_signal. */
static void test_free(void)
{
	struct fake f;
	struct drain *d;
	const struct perf_event_header *h;
	struct gen g = { .fixed = 4096 };
	struct rd rd = { .g = &g };
	double deadline = now() + LIMIT;
	uint64_t seq = 0, end, tail;

	drain__free(NULL);
	drain__stop(NULL);
	drain__quiesce_in_signal(NULL);

	fake_new(&f, 64, 0);
	CHECK_EQ_U64(drain__new(&f.r, 1, 0, 2 * CHUNK, &d), 0);
	CHECK_EQ_U64(drain__start(d), 0);
	end = gen_upto(&g, 0, 2 * CHUNK + CHUNK / 2);
	for (; seq < end; seq++)
		if (fake_put_wait(&f, seq, gen_size(&g, seq), deadline))
			break;
	CHECK_EQ_U64(fake_wait_empty(&f, deadline), 0);
	/* Read into the second chunk: the first goes to the kept ones. */
	CHECK(drain__snapshot(d, 0));
	while (rd.bytes < CHUNK + CHUNK / 4 && drain__peek(d, 0, &h) == 0) {
		rd_check(&rd, h);
		drain__consume(d, 0);
	}
	drain__publish(d, 0);
	CHECK(rd.bytes >= CHUNK + CHUNK / 4);
	CHECK_EQ_U64(rd.bad, 0);
	/* More, which may take the kept chunk. */
	end = gen_upto(&g, seq, CHUNK + CHUNK / 2);
	for (; seq < end; seq++)
		if (fake_put_wait(&f, seq, gen_size(&g, seq), deadline))
			break;
	CHECK_EQ_U64(fake_wait_empty(&f, deadline), 0);
	drain__free(d);		/* running: stops it, frees every chunk */
	tail = fake_tail(&f);
	CHECK(fake_try_put(&f, seq, gen_size(&g, seq)));
	settle();
	CHECK_EQ_U64(fake_tail(&f), tail);

	/* Quiesced, the thread leaves the rings alone. */
	deadline = now() + LIMIT;
	f.pc->data_tail = f.head;	/* as if read: no drain runs now */
	CHECK_EQ_U64(drain__new(&f.r, 1, 0, 0, &d), 0);
	CHECK_EQ_U64(drain__start(d), 0);
	seq++;
	CHECK_EQ_U64(fake_put_wait(&f, seq, gen_size(&g, seq), deadline), 0);
	CHECK_EQ_U64(fake_wait_empty(&f, deadline), 0);
	drain__quiesce_in_signal(d);
	tail = fake_tail(&f);
	seq++;
	CHECK(fake_try_put(&f, seq, gen_size(&g, seq)));
	settle();
	CHECK_EQ_U64(fake_tail(&f), tail);
	drain__free(d);
	fake_free(&f);
}

/* ---- stack trimming ---- */

/* Write @n bytes of @rec at data_head (wrapping), as the kernel does. */
static void fake_emit_raw(struct fake *f, const unsigned char *rec, size_t n)
{
	size_t off = f->head & (f->size - 1), first = f->size - off;

	if (n <= first) {
		memcpy(f->data + off, rec, n);
	} else {
		memcpy(f->data + off, rec, first);
		memcpy(f->data, rec + first, n - first);
		f->wraps++;
	}
	f->head += n;
	__atomic_store_n(&f->pc->data_head, f->head, __ATOMIC_RELEASE);
}

/* A sample [header][id][u64 tag][u64 size][data size][u64 dyn] in @buf;
 * data bytes are pat(tag, i).  Its size. */
static size_t stack_rec(unsigned char *buf, uint64_t id, uint64_t tag, uint64_t size, uint64_t dyn)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
				       .size = (uint16_t)(sizeof(h) + 24 + size + 8) };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 8, &id, 8);
	memcpy(buf + 16, &tag, 8);
	memcpy(buf + 24, &size, 8);
	for (uint64_t i = 0; i < size; i++)
		buf[32 + i] = pat(tag, i);
	memcpy(buf + 32 + size, &dyn, 8);
	return h.size;
}

static void test_trim(void)
{
	static const struct drain_trim trims[] = { { 9, 8 }, { 7, 1024 } };
	/* id, stack size in the record, dyn_size, whether it is trimmed */
	static const struct {
		uint64_t id, size, dyn;
		bool cut;
	} recs[] = {
		{ 7, 1024, 100, true }, { 7, 1024, 1024, false }, { 7, 1024, 0, true },
		{ 7, 1024, 1017, true }, { 8, 1024, 100, false }, { 7, 512, 100, false },
		{ 7, 1024, 1025, false }, { 9, 8, 3, true }, { 7, 0, 0, false },
	};
	unsigned char *buf = malloc(4096);
	struct fake f;
	struct drain *d;
	struct drain_stats st;
	const struct perf_event_header *h;
	uint64_t saved = 0;
	size_t k = 0;

	CHECK(buf != NULL);
	/* Start near the end of the data area: records wrap it. */
	fake_new(&f, 4, 4 * (uint64_t)sysconf(_SC_PAGESIZE) - 1500);
	CHECK_EQ_U64(drain__new(&f.r, 1, 0, 0, &d), 0);
	CHECK_EQ_U64(drain__set_trim(d, trims, 2), 0);
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		size_t n = stack_rec(buf, recs[i].id, i, recs[i].size, recs[i].dyn);

		fake_emit_raw(&f, buf, n);
		if (recs[i].cut)
			saved += recs[i].size - ((recs[i].dyn + 7) & ~7ull);
	}
	CHECK(f.wraps > 0);
	CHECK_EQ_U64(drain__flush(d), 0);
	CHECK_EQ_U64(fake_tail(&f), f.head);
	CHECK(drain__snapshot(d, 0));
	while (drain__peek(d, 0, &h) == 0) {
		const unsigned char *p = (const void *)h;
		uint64_t id, tag, size, dyn, keep;

		CHECK(k < sizeof(recs) / sizeof(recs[0]));
		if (k >= sizeof(recs) / sizeof(recs[0]))
			break;
		keep = recs[k].cut ? (recs[k].dyn + 7) & ~7ull : recs[k].size;
		CHECK_EQ_U64(h->type, PERF_RECORD_SAMPLE);
		CHECK_EQ_U64(h->size, sizeof(*h) + 24 + keep + 8);
		memcpy(&id, p + 8, 8);
		memcpy(&tag, p + 16, 8);
		memcpy(&size, p + 24, 8);
		memcpy(&dyn, p + h->size - 8, 8);
		CHECK_EQ_U64(id, recs[k].id);
		CHECK_EQ_U64(tag, k);
		CHECK_EQ_U64(size, keep);
		CHECK_EQ_U64(dyn, recs[k].dyn);
		for (uint64_t i = 0; i < (recs[k].cut ? recs[k].dyn : keep); i++)
			if (p[32 + i] != pat(k, i)) {
				CHECK(!"a stack byte changed");
				break;
			}
		k++;
		drain__consume(d, 0);
	}
	drain__publish(d, 0);
	CHECK_EQ_U64(k, sizeof(recs) / sizeof(recs[0]));
	drain__stats(d, &st);
	CHECK_EQ_U64(st.trimmed, saved);
	drain__free(d);
	fake_free(&f);
	free(buf);
}

/* Without PERF_SAMPLE_IDENTIFIER the id is not a sample's first word:
 * drain__set_id_word() names the one to look up (here the second, where
 * stack_rec() puts its tag). */
static void test_trim_id_word(void)
{
	static const struct drain_trim trims[] = { { 7, 1024 } };
	unsigned char *buf = malloc(4096);
	const struct perf_event_header *h;
	struct fake f;
	struct drain *d;
	uint64_t tag;

	CHECK(buf != NULL);
	fake_new(&f, 4, 0);
	CHECK_EQ_U64(drain__new(&f.r, 1, 0, 0, &d), 0);
	drain__set_id_word(d, 1);
	CHECK_EQ_U64(drain__set_trim(d, trims, 1), 0);
	fake_emit_raw(&f, buf, stack_rec(buf, 0x55, 7, 1024, 100));	/* id 7 in word 1 */
	fake_emit_raw(&f, buf, stack_rec(buf, 7, 0x55, 1024, 100));	/* 7 in word 0 only */
	CHECK_EQ_U64(drain__flush(d), 0);
	CHECK(drain__snapshot(d, 0));
	CHECK_EQ_U64(drain__peek(d, 0, &h), 0);
	memcpy(&tag, (const unsigned char *)h + 16, 8);
	CHECK_EQ_U64(tag, 7);
	CHECK_EQ_U64(h->size, sizeof(*h) + 24 + 104 + 8);
	drain__consume(d, 0);
	CHECK_EQ_U64(drain__peek(d, 0, &h), 0);
	CHECK_EQ_U64(h->size, sizeof(*h) + 24 + 1024 + 8);
	drain__consume(d, 0);
	drain__publish(d, 0);
	drain__free(d);
	fake_free(&f);
	free(buf);
}

int main(void)
{
	double t0 = now();

	test_paused_reader();
	test_bound();
	test_stop_flush();
	test_backpressure();
	test_late_drain();
	test_chunks();
	test_catch_up();
	test_null_rings();
	test_free();
	test_realtime();
	test_trim();
	test_trim_id_word();
	fprintf(stderr, "test-drain: %.2f s\n", now() - t0);
	return check_done("test-drain");
}
