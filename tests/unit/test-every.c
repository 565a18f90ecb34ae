/*
 * test-every: the clock of the tools' interval reports (agg/every.h) on a
 * clock the test sets: the reports each round prints, the count (its last
 * report in the round or after the session), a live round that comes late
 * (no burst), a replay's gap (each interval of it reported, as the live
 * run did), the end (the partial interval, or none once the count is
 * done), a report that stops the run, and the session's duration; then
 * through a real replay (a recording written here), on the session's
 * clock: the reports come at the recorded run's boundaries.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "agg/every.h"
#include "check.h"
#include "lib/errbuf.h"
#include "trace/recfile.h"
#include "trace/session.h"

#define S 1000000000ULL		/* one second in ns */

struct log {
	unsigned long n;		/* reports */
	int stop_at;			/* report number that returns nonzero (0: none) */
};

static int report(void *ctx)
{
	struct log *l = ctx;

	l->n++;
	return l->stop_at && (int)l->n == l->stop_at;
}

static void start(struct every *e, struct log *l, double secs, unsigned long count, bool in_round,
		  uint64_t t0)
{
	*l = (struct log){ 0 };
	every__init(e, NULL, secs, count, report, l);
	e->last_in_round = in_round;
	/* The first round starts the clock (no every__ready). */
	CHECK(!every__tick(e, t0, false));
	CHECK_EQ_U64(e->next_ns, t0 + (uint64_t)(secs * 1e9));
	CHECK_EQ_U64(l->n, 0);
}

static void test_intervals(void)
{
	struct every e;
	struct log l;

	start(&e, &l, 1.0, 0, false, 10 * S);
	/* Rounds every 100 ms: one report at each second's end, no other. */
	for (uint64_t t = 10 * S + S / 10; t < 13 * S + S / 2; t += S / 10)
		CHECK(!every__tick(&e, t, false));
	CHECK_EQ_U64(l.n, 3);
	CHECK_EQ_U64(e.printed, 3);
	CHECK_EQ_U64(e.next_ns, 14 * S);
	/* Exactly on the boundary: due. */
	CHECK(!every__tick(&e, 14 * S, false));
	CHECK_EQ_U64(l.n, 4);
	CHECK_EQ_U64(e.next_ns, 15 * S);
	/* The end: the interval in progress, always (no count). */
	every__final(&e);
	CHECK_EQ_U64(l.n, 5);
	CHECK_EQ_U64(e.printed, 5);

	/* Fractions of a second. */
	start(&e, &l, 0.25, 0, false, 0 + 1);
	CHECK(!every__tick(&e, S / 4, false));
	CHECK_EQ_U64(l.n, 0);
	CHECK(!every__tick(&e, S / 4 + 1, false));
	CHECK_EQ_U64(l.n, 1);
	CHECK_EQ_U64(e.next_ns, S / 2 + 1);
}

/* A live round 3.5 intervals late: one report, the grid kept, no burst. */
static void test_catch_up_live(void)
{
	struct every e;
	struct log l;

	start(&e, &l, 1.0, 0, false, 0);
	CHECK(!every__tick(&e, 4 * S + S / 2, false));
	CHECK_EQ_U64(l.n, 1);
	CHECK_EQ_U64(e.next_ns, 5 * S);
	CHECK(!every__tick(&e, 4 * S + S * 9 / 10, false));
	CHECK_EQ_U64(l.n, 1);
	CHECK(!every__tick(&e, 5 * S, false));
	CHECK_EQ_U64(l.n, 2);
	CHECK_EQ_U64(e.next_ns, 6 * S);
}

/* A replay's rounds come with records: a gap of 3.5 intervals between two
 * was 4 reports live (3 of them empty), and is 4 reports again, at the
 * recorded boundaries. */
static void test_replay_times(void)
{
	struct every e;
	struct log l;

	start(&e, &l, 1.0, 0, false, 100 * S);
	CHECK(!every__tick(&e, 100 * S + S / 2, true));
	CHECK_EQ_U64(l.n, 0);
	CHECK(!every__tick(&e, 104 * S + S / 2, true));
	CHECK_EQ_U64(l.n, 4);
	CHECK_EQ_U64(e.next_ns, 105 * S);
	CHECK(!every__tick(&e, 105 * S, true));
	CHECK_EQ_U64(l.n, 5);
	every__final(&e);
	CHECK_EQ_U64(l.n, 6);
}

/* count 3, the last after the session: two in rounds, the third at the
 * end; a live run ends by its duration, a replay where the third is due. */
static void test_count_after(void)
{
	struct every e;
	struct log l;

	start(&e, &l, 1.0, 3, false, 0);
	CHECK(!every__tick(&e, S, false));
	CHECK(!every__tick(&e, 2 * S, false));
	CHECK_EQ_U64(l.n, 2);
	/* Live: the third is not the round's, and the session's duration
	 * (not the clock) stops the run. */
	CHECK(!every__tick(&e, 3 * S, false));
	CHECK(!every__tick(&e, 3 * S + S / 10, false));
	CHECK_EQ_U64(l.n, 2);
	every__final(&e);
	CHECK_EQ_U64(l.n, 3);

	/* Replay: a gap past the third's end prints two, then stops. */
	start(&e, &l, 1.0, 3, false, 0);
	CHECK(!every__tick(&e, 2 * S + S / 2, true) );
	CHECK_EQ_U64(l.n, 2);
	CHECK(every__tick(&e, 7 * S, true));
	CHECK_EQ_U64(l.n, 2);
	every__final(&e);
	CHECK_EQ_U64(l.n, 3);
	/* Stopped before its count (the recording ended): the partial. */
	start(&e, &l, 1.0, 3, false, 0);
	CHECK(!every__tick(&e, S + S / 2, true));
	every__final(&e);
	CHECK_EQ_U64(l.n, 2);
}

/* count 3, the last in its round: the round that prints it stops the
 * run, and the end prints nothing more; stopped earlier, the partial. */
static void test_count_in_round(void)
{
	struct every e;
	struct log l;

	start(&e, &l, 2.0, 3, true, 0);
	CHECK(!every__tick(&e, 2 * S, false));
	CHECK(!every__tick(&e, 4 * S, false));
	CHECK(every__tick(&e, 6 * S, false));
	CHECK_EQ_U64(l.n, 3);
	CHECK(e.done);
	CHECK(!every__tick(&e, 8 * S, false));
	every__final(&e);
	CHECK_EQ_U64(l.n, 3);

	/* A replay gap past the count: the count, no more. */
	start(&e, &l, 2.0, 3, true, 0);
	CHECK(every__tick(&e, 20 * S, true));
	CHECK_EQ_U64(l.n, 3);
	every__final(&e);
	CHECK_EQ_U64(l.n, 3);

	start(&e, &l, 2.0, 3, true, 0);
	CHECK(!every__tick(&e, 2 * S, false));
	every__final(&e);
	CHECK_EQ_U64(l.n, 2);
}

/* A report that returns nonzero (cachetop's q) ends the reports. */
static void test_report_stops(void)
{
	struct every e;
	struct log l;

	start(&e, &l, 1.0, 0, true, 0);
	l.stop_at = 2;
	CHECK(!every__tick(&e, S, true));
	CHECK(every__tick(&e, 5 * S, true));
	CHECK_EQ_U64(l.n, 2);
	CHECK_EQ_U64(e.printed, 1);
	CHECK(e.done);
	every__final(&e);
	CHECK_EQ_U64(l.n, 2);
}

static void test_duration_and_ready(void)
{
	struct every e;
	struct log l;
	uint64_t before, after;

	CHECK(every__duration(1.0, 0) == 0);
	CHECK(every__duration(0.5, 4) == 2.0);
	CHECK(every__duration(1.0, 10000000) == 1e7);
	CHECK(every__duration(1.0, 10000001) == 0);	/* past 1e7 s: until stopped */

	/* Without a session: CLOCK_MONOTONIC; ready starts the interval. */
	every__init(&e, NULL, 3.0, 0, report, &l);
	before = every__now(&e);
	every__ready(&e);
	after = every__now(&e);
	CHECK(e.next_ns >= before + 3 * S && e.next_ns <= after + 3 * S);
	/* every__round without a session: nothing (no clock of its own). */
	l = (struct log){ 0 };
	e.next_ns = 1;
	every__round(&e);
	CHECK_EQ_U64(l.n, 0);
	/* every__final before every__init'ed (a failed setup): nothing. */
	e = (struct every){ 0 };
	every__final(&e);
	CHECK_EQ_U64(e.printed, 0);
}

/* ---- on a replay's clock ---- */

#define START (1 * S)

/* Samples of one software event at @times (ns, the recording's clock). */
static int make_recording(const char *path, const uint64_t *times, size_t n)
{
	struct errbuf eb = { { 0 } };
	struct recwriter *w = NULL;
	int err;

	err = recwriter__open(path, &w, &eb);
	if (!err)
		err = recwriter__meta(w, "start_mono_ns", "1000000000");
	if (!err)
		err = recwriter__event(w, &(struct rec_event){ .id = 0, .kind = REC_EVENT_SOFTWARE,
			.config = 2, .name = "tick", .path = "", .format = "" });
	if (!err)
		err = recwriter__proc(w, &(struct rec_proc){ 42, START, "prog" });
	for (size_t i = 0; !err && i < n; i++)
		err = recwriter__sample(w, &(struct rec_sample){ .event = 0, .pid = 42, .tid = 42,
								 .time = times[i] });
	if (!err)
		err = recwriter__end(w, &(struct rec_end){ .status = -1, .samples = n });
	if (w && recwriter__close(w, &eb) && !err)
		err = -EIO;
	return err;
}

struct replayed {
	struct every e;
	struct session *s;
	uint64_t at[16];		/* the reports' times, from the start */
	unsigned long n;
};

static int report_time(void *ctx)
{
	struct replayed *r = ctx;

	if (r->n < 16)
		r->at[r->n] = session__now(r->s) - START;
	r->n++;
	return 0;
}

static void on_tick(struct session *s, const struct sample *smp, void *ctx)
{
	(void)s;
	(void)smp;
	(void)ctx;
}

static void on_ready(struct session *s, void *ctx)
{
	(void)s;
	every__ready(&((struct replayed *)ctx)->e);
}

static void on_round(struct session *s, void *ctx)
{
	(void)s;
	every__round(&((struct replayed *)ctx)->e);
}

/* Replays samples at @times with reports every @secs, @count of them. */
static void replay(const uint64_t *times, size_t n, double secs, unsigned long count,
		   bool in_round, struct replayed *r)
{
	char path[] = "/tmp/test-every.XXXXXX";
	struct session_opts o = { 0 };
	struct replay_opts ro = { .path = path };
	struct errbuf eb = { { 0 } };
	int fd = mkstemp(path), err = -EIO;

	*r = (struct replayed){ .n = 0 };
	if (fd >= 0) {
		close(fd);
		err = make_recording(path, times, n);
	}
	if (!err)
		err = session__new_replay(&o, &ro, &r->s, &eb);
	if (!err)
		err = session__add_software(r->s, "tick", 2, 0, on_tick, r, &eb);
	if (!err) {
		every__init(&r->e, r->s, secs, count, report_time, r);
		r->e.last_in_round = in_round;
		err = session__add_consumer(r->s, &(struct session_consumer){ .ready = on_ready,
									   .round = on_round, .ctx = r });
		if (!err)
			err = session__run(r->s, &eb);
		every__final(&r->e);
	}
	CHECK_EQ_U64(err, 0);
	if (err)
		fprintf(stderr, "test-every: %s\n", errbuf__str(&eb, err));
	session__free(r->s);
	unlink(path);
}

static void test_replay_clock(void)
{
	static const uint64_t times[] = { START + S / 20, START + S * 5 / 2, START + S * 17 / 4 };
	static const uint64_t times2[] = { START + S / 20, START + 2 * S, START + S * 17 / 4 };
	struct replayed r;

	/* Until the end: at 1, 2, 3 s of the recorded run (empty ones too),
	 * then the partial interval at its last record (4.25 s). */
	replay(times, 3, 1.0, 0, false, &r);
	CHECK_EQ_U64(r.n, 5);
	CHECK_EQ_U64(r.at[0], 1 * S);
	CHECK_EQ_U64(r.at[1], 2 * S);
	CHECK_EQ_U64(r.at[2], 3 * S);
	CHECK_EQ_U64(r.at[3], 4 * S);
	CHECK_EQ_U64(r.at[4], S * 17 / 4);

	/* count 2: the first at 1 s, the second (the end's) where the live
	 * run's duration ended it, 2 s, though records follow.  (The replay
	 * stops after the record whose rounds reached 2 s, and delivers it:
	 * session__stop's "events already read are delivered first".  A
	 * record at 2.5 s would be in the last report, and its time the
	 * report's; the live run's ended at 2 s.) */
	replay(times2, 3, 1.0, 2, false, &r);
	CHECK_EQ_U64(r.n, 2);
	CHECK_EQ_U64(r.at[0], 1 * S);
	CHECK_EQ_U64(r.at[1], 2 * S);

	/* 0.5 s, the last in its round: 0.5, 1.0, 1.5, then stopped. */
	replay(times, 3, 0.5, 3, true, &r);
	CHECK_EQ_U64(r.n, 3);
	CHECK_EQ_U64(r.at[2], S * 3 / 2);
}

int main(void)
{
	test_intervals();
	test_catch_up_live();
	test_replay_times();
	test_count_after();
	test_count_in_round();
	test_report_stops();
	test_duration_and_ready();
	test_replay_clock();
	return check_done("test-every");
}
