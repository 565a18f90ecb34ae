/*
 * test-oom-join: an event takes its own report (by victim pid; a kprobe's,
 * with no victim, the first of its trigger, or any whose header was lost),
 * the event's fields win in the merge, a taken report is gone, and the
 * oldest report goes when the join is full.
 */
#include <string.h>

#include "agg/oom-join.h"
#include "check.h"

static struct oom_report report(int trigger, int victim, const char *vcomm, unsigned long kb)
{
	struct oom_report r;

	memset(&r, 0, sizeof(r));
	r.trigger_pid = trigger;
	r.victim_pid = victim;
	r.have = OOM_HAVE_TRIGGER_PID | OOM_HAVE_RSS;
	snprintf(r.trigger_comm, sizeof(r.trigger_comm), "trig%d", trigger);
	snprintf(r.victim_comm, sizeof(r.victim_comm), "%s", vcomm);
	r.anon_rss_kb = kb;
	snprintf(r.oom_memcg, sizeof(r.oom_memcg), "/cg%d", victim);
	return r;
}

static void add(struct oom_join *j, int trigger, int victim, const char *vcomm, unsigned long kb)
{
	struct oom_report r = report(trigger, victim, vcomm, kb);

	oom_join__add_report(j, &r);
}

int main(void)
{
	struct oom_join *j = NULL;
	struct oom_report ev;

	CHECK_EQ_U64(oom_join__new(2, &j), 0);
	add(j, 10, 11, "victim", 100);
	add(j, 20, 21, "other", 200);

	/* The tracepoint's event: by victim; its own RSS and comm win. */
	memset(&ev, 0, sizeof(ev));
	ev.victim_pid = 21;
	ev.trigger_pid = 20;
	ev.have = OOM_HAVE_TRIGGER_PID | OOM_HAVE_RSS;
	ev.anon_rss_kb = 222;
	snprintf(ev.victim_comm, sizeof(ev.victim_comm), "mine");
	CHECK(oom_join__take(j, &ev, 20));
	CHECK_EQ_U64(ev.anon_rss_kb, 222);
	CHECK_STR(ev.victim_comm, "mine");
	CHECK_STR(ev.oom_memcg, "/cg21");
	CHECK_STR(ev.trigger_comm, "trig20");
	CHECK(!oom_join__take(j, &ev, 20));	/* taken: gone */

	/* A kprobe's event (no victim): the report of its trigger thread. */
	memset(&ev, 0, sizeof(ev));
	ev.trigger_pid = 10;
	ev.have = OOM_HAVE_TRIGGER_PID;
	CHECK(!oom_join__take(j, &ev, 99));
	CHECK(oom_join__take(j, &ev, 10));
	CHECK_EQ_U64(ev.victim_pid, 11);
	CHECK_EQ_U64(ev.anon_rss_kb, 100);

	/* Full: the oldest goes. */
	for (int i = 1; i <= 3; i++)
		add(j, i, 30 + i, "x", (unsigned long)i);
	memset(&ev, 0, sizeof(ev));
	ev.victim_pid = 31;
	CHECK(!oom_join__take(j, &ev, 1));
	ev.victim_pid = 33;
	CHECK(oom_join__take(j, &ev, 3));
	oom_join__free(j);
	oom_join__free(NULL);
	return check_done("test-oom-join");
}
