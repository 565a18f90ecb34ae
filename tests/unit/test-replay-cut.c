/*
 * test-replay-cut: a recording cut right after its head (its META and
 * EVENT records), as a `faultline record -c` killed by a fault as its
 * command began leaves it: the emergency flush writes what there is, and
 * nothing but the head was there.  With the recorder's META head_events
 * last in the head (the number of its EVENTs), the head is known whole:
 * the replay opens, runs, reads nothing and says the recording was cut.
 * Without it (an older recording), or with fewer EVENTs than it counts,
 * a head cut at a record boundary cannot be told from one cut inside,
 * and opening it fails as truncated, as before.  No root, no kernel: the
 * recordings are written here, then cut with truncate(2).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/errbuf.h"
#include "trace/recfile.h"
#include "trace/session.h"

#define CONFIG 2

/* A whole recording: META start_mono_ns, @nev EVENTs, META head_events
 * @count (if not NULL), PROC, SAMPLE, END.  *@head: the bytes of its
 * head (what a cut after it keeps). */
static int make_recording(const char *path, int nev, const char *count, uint64_t *head)
{
	struct errbuf eb = { { 0 } };
	struct recwriter *w = NULL;
	int err;

	err = recwriter__open(path, &w, &eb);
	if (!err)
		err = recwriter__meta(w, "start_mono_ns", "1000");
	for (int i = 0; !err && i < nev; i++)
		err = recwriter__event(w, &(struct rec_event){ .id = (uint32_t)i,
			.kind = REC_EVENT_SOFTWARE, .config = CONFIG + (uint64_t)i,
			.name = i ? "other-event" : "head-event", .path = "", .format = "" });
	if (!err && count)
		err = recwriter__meta(w, "head_events", count);
	*head = recwriter__bytes(w);
	if (!err)
		err = recwriter__proc(w, &(struct rec_proc){ 42, 1000, "prog" });
	if (!err)
		err = recwriter__sample(w, &(struct rec_sample){ .event = 0, .pid = 42, .tid = 42,
								 .time = 2000 });
	if (!err)
		err = recwriter__end(w, &(struct rec_end){ .status = -1, .samples = 1 });
	if (w && recwriter__close(w, &eb) && !err)
		err = -EIO;
	return err;
}

static void on_sample(struct session *s, const struct sample *smp, void *ctx)
{
	(void)s;
	(void)smp;
	(*(unsigned *)ctx)++;
}

/* Replay @path cut after its head; @whole: the head is known whole. */
static void check_cut(const char *what, const char *path, int nev, const char *count,
		      bool whole)
{
	struct session_opts o = { 0 };
	struct replay_opts ro = { .path = path };
	struct errbuf eb = { { 0 } };
	struct session *s = NULL;
	unsigned samples = 0;
	uint64_t head = 0, bytes = 99;
	double at = -1;
	int err;

	if (make_recording(path, nev, count, &head) || truncate(path, (off_t)head)) {
		fprintf(stderr, "test-replay-cut: %s: no recording to replay\n", what);
		CHECK(0);
		return;
	}
	err = session__new_replay(&o, &ro, &s, &eb);
	if (!whole) {
		CHECK_EQ_U64(err, (uint64_t)-ENODATA);
		if (err != -ENODATA)
			fprintf(stderr, "test-replay-cut: %s: opened (%d)\n", what, err);
		else
			CHECK(strstr(eb.msg, "truncated") != NULL);
		session__free(s);
		return;
	}
	CHECK_EQ_U64(err, 0);
	if (err) {
		fprintf(stderr, "test-replay-cut: %s: %s\n", what, errbuf__str(&eb, err));
		return;
	}
	CHECK_EQ_U64(session__recorded_events(s), (uint64_t)nev);
	err = session__add_software(s, "head-event", CONFIG, 0, on_sample, &samples, &eb);
	CHECK_EQ_U64(err, 0);
	err = session__run(s, &eb);
	CHECK_EQ_U64(err, 0);
	if (err)
		fprintf(stderr, "test-replay-cut: %s: run: %s\n", what, errbuf__str(&eb, err));
	CHECK_EQ_U64(samples, 0);
	CHECK(session__replay_cut(s, &at, &bytes));
	CHECK_EQ_U64(bytes, 0);
	CHECK(at == 0.0);
	session__free(s);
}

int main(void)
{
	char path[] = "/tmp/test-replay-cut.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0) {
		fprintf(stderr, "test-replay-cut: no temp file\n");
		return 99;
	}
	close(fd);
	check_cut("head_events 2, 2 events", path, 2, "2", true);
	check_cut("no head_events", path, 2, NULL, false);
	/* A head_events that counts more EVENTs than were read. */
	check_cut("head_events 3, 2 events", path, 2, "3", false);
	unlink(path);
	return check_done("test-replay-cut");
}
