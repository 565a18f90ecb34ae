/*
 * test-replay-late: a replay of a recording whose run added an event once
 * it went on (an allocator dlopen'ed by the target: alloc-trace writes
 * its EVENTs, then the META alloc.late, among the other records; see
 * docs/record-format.md).  No root, no kernel: the recording is written
 * here.  The replay hears the EVENT (task hook .event, its index) and
 * the META (.meta, key and value, in the stream's order: after the first
 * sample, before the second), session__meta() finds the META from then
 * on, and an evsel added from the .meta hook gets the new event's samples,
 * which no evsel of the head's event does; a sample of the head's event
 * after that still reaches only its own.  A META naming an event that a
 * tool adds is the same as one it does not know: kept, and nothing else.
 * A second consumer hears the EVENT too, after the first (added first).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/errbuf.h"
#include "trace/recfile.h"
#include "trace/session.h"

/* Two software events: the head's (id 0) and the one added later (1). */
#define HEAD_CONFIG 2
#define LATE_CONFIG 7

static int make_recording(const char *path)
{
	struct errbuf eb = { { 0 } };
	struct recwriter *w = NULL;
	int err;

	err = recwriter__open(path, &w, &eb);
	if (!err)
		err = recwriter__meta(w, "start_mono_ns", "1000");
	if (!err)
		err = recwriter__event(w, &(struct rec_event){ .id = 0, .kind = REC_EVENT_SOFTWARE,
			.config = HEAD_CONFIG, .name = "head-event", .path = "", .format = "" });
	if (!err)
		err = recwriter__proc(w, &(struct rec_proc){ 42, 1000, "prog" });
	if (!err)
		err = recwriter__sample(w, &(struct rec_sample){ .event = 0, .pid = 42, .tid = 42,
								 .time = 2000 });
	if (!err)
		err = recwriter__event(w, &(struct rec_event){ .id = 1, .kind = REC_EVENT_SOFTWARE,
			.config = LATE_CONFIG, .name = "late-event", .path = "", .format = "" });
	if (!err)
		err = recwriter__meta(w, "test.late", "late-event");
	if (!err)
		err = recwriter__meta(w, "test.other", "x");
	if (!err)
		err = recwriter__sample(w, &(struct rec_sample){ .event = 1, .pid = 42, .tid = 42,
								 .time = 3000 });
	if (!err)
		err = recwriter__sample(w, &(struct rec_sample){ .event = 1, .pid = 42, .tid = 42,
								 .time = 3500 });
	if (!err)
		err = recwriter__sample(w, &(struct rec_sample){ .event = 0, .pid = 42, .tid = 42,
								 .time = 4000 });
	if (!err)
		err = recwriter__end(w, &(struct rec_end){ .status = -1, .samples = 4 });
	if (w && recwriter__close(w, &eb) && !err)
		err = -EIO;
	return err;
}

struct seen {
	unsigned head, late;		/* samples of each, by their evsels */
	unsigned metas, events;		/* hooks heard */
	unsigned events2;		/* by the second consumer */
	bool second_after_first;	/* it heard the EVENT after the first did */
	size_t event_index;
	uint64_t head_time_at_meta;	/* the last head sample's time when the META came */
	uint64_t last_head;
	bool meta_found;		/* session__meta() had it in the hook */
	int add_err;
};

static void on_head(struct session *s, const struct sample *smp, void *ctx)
{
	struct seen *sn = ctx;

	(void)s;
	sn->head++;
	sn->last_head = smp->time;
}

static void on_late(struct session *s, const struct sample *smp, void *ctx)
{
	struct seen *sn = ctx;

	(void)s;
	(void)smp;
	sn->late++;
}

static void on_event(struct session *s, size_t i, void *ctx)
{
	struct seen *sn = ctx;

	(void)s;
	sn->events++;
	sn->event_index = i;
}

static void on_event_second(struct session *s, size_t i, void *ctx)
{
	struct seen *sn = ctx;

	(void)s;
	sn->events2++;
	sn->second_after_first = sn->events == 1 && i == sn->event_index;
}

static void on_meta(struct session *s, const char *key, const char *value, void *ctx)
{
	struct seen *sn = ctx;
	struct errbuf eb = { { 0 } };

	sn->metas++;
	if (strcmp(key, "test.late"))
		return;
	sn->head_time_at_meta = sn->last_head;
	sn->meta_found = session__meta(s, "test.late") && !strcmp(session__meta(s, "test.late"),
								  value);
	sn->add_err = session__add_software(s, value, LATE_CONFIG, 0, on_late, sn, &eb);
}

int main(void)
{
	char path[] = "/tmp/test-replay-late.XXXXXX";
	struct session_opts o = { 0 };
	struct replay_opts ro = { 0 };
	struct errbuf eb = { { 0 } };
	struct session *s = NULL;
	struct seen sn = { 0 };
	int fd, err;

	fd = mkstemp(path);
	if (fd < 0 || make_recording(path)) {
		fprintf(stderr, "test-replay-late: no recording to replay\n");
		return 99;
	}
	close(fd);
	ro.path = path;
	err = session__new_replay(&o, &ro, &s, &eb);
	CHECK_EQ_U64(err, 0);
	if (!err) {
		/* The head holds one event; the later one is not known yet. */
		CHECK_EQ_U64(session__recorded_events(s), 1);
		CHECK(session__meta(s, "test.late") == NULL);
		err = session__add_software(s, "head-event", HEAD_CONFIG, 0, on_head, &sn, &eb);
		CHECK_EQ_U64(err, 0);
		/* Not in the head: no tool can ask for it before the run. */
		CHECK(session__add_software(s, "late-event", LATE_CONFIG, 0, on_late, &sn, &eb) ==
		      -ENOENT);
		err = session__add_consumer(s, &(struct session_consumer){
			.event = on_event, .meta = on_meta, .ctx = &sn });
		CHECK_EQ_U64(err, 0);
		err = session__add_consumer(s, &(struct session_consumer){
			.event = on_event_second, .ctx = &sn });
		CHECK_EQ_U64(err, 0);
		err = session__run(s, &eb);
		CHECK_EQ_U64(err, 0);
		if (err)
			fprintf(stderr, "test-replay-late: run: %s\n", errbuf__str(&eb, err));
		CHECK_EQ_U64(sn.events, 1);
		CHECK_EQ_U64(sn.event_index, 1);
		CHECK_EQ_U64(sn.events2, 1);
		CHECK(sn.second_after_first);
		CHECK_EQ_U64(sn.metas, 2);
		CHECK(sn.meta_found);
		CHECK_EQ_U64(sn.add_err, 0);
		CHECK_EQ_U64(sn.head_time_at_meta, 2000);	/* after the first sample only */
		CHECK_EQ_U64(sn.head, 2);
		CHECK_EQ_U64(sn.late, 2);
		CHECK_EQ_U64(session__recorded_events(s), 2);
		CHECK(session__recorded_event(s, 1, NULL) &&
		      !strcmp(session__recorded_event(s, 1, NULL), "late-event"));
		CHECK(session__meta(s, "test.other") && !strcmp(session__meta(s, "test.other"), "x"));
	}
	session__free(s);
	unlink(path);
	return check_done("test-replay-late");
}
