/*
 * oom-join: kernel reports waiting for their events (see oom-join.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/oom-join.h"

struct oom_join {
	struct oom_report *rep;
	size_t n, max;
};

int oom_join__new(size_t max, struct oom_join **out)
{
	struct oom_join *j = calloc(1, sizeof(*j));

	*out = NULL;
	if (!j || !(j->rep = calloc(max ? max : 1, sizeof(*j->rep)))) {
		free(j);
		return -ENOMEM;
	}
	j->max = max ? max : 1;
	*out = j;
	return 0;
}

void oom_join__free(struct oom_join *j)
{
	if (!j)
		return;
	free(j->rep);
	free(j);
}

void oom_join__add_report(struct oom_join *j, const struct oom_report *rep)
{
	if (j->n == j->max) {
		memmove(j->rep, j->rep + 1, (j->max - 1) * sizeof(*j->rep));
		j->n--;
	}
	j->rep[j->n++] = *rep;
}

bool oom_join__take(struct oom_join *j, struct oom_report *r, int trigger_tid)
{
	for (size_t i = 0; i < j->n; i++) {
		const struct oom_report *rep = &j->rep[i];
		/* The kprobe knows no victim: it takes the next report of the
		 * same trigger, or any when the header was lost. */
		bool hit = r->victim_pid ? rep->victim_pid == r->victim_pid :
			(!(rep->have & OOM_HAVE_TRIGGER_PID) || rep->trigger_pid == trigger_tid);

		if (hit) {
			oom_join__merge(r, rep, trigger_tid);
			memmove(&j->rep[i], &j->rep[i + 1], (j->n - i - 1) * sizeof(*j->rep));
			j->n--;
			return true;
		}
	}
	return false;
}

/* Merge the kernel's report into an event: the event's own fields win. */
void oom_join__merge(struct oom_report *r, const struct oom_report *rep, int trigger_tid)
{
	unsigned int own = r->have;
	struct oom_report mine = *r;

	*r = *rep;
	r->have |= own;
	if (mine.victim_pid)
		r->victim_pid = mine.victim_pid;
	if (mine.victim_comm[0])
		snprintf(r->victim_comm, sizeof(r->victim_comm), "%s", mine.victim_comm);
	if (own & OOM_HAVE_TRIGGER_PID) {
		r->trigger_pid = mine.trigger_pid;
		/* The report's comm is the trigger's if its pid agrees. */
		if (!(rep->have & OOM_HAVE_TRIGGER_PID) || rep->trigger_pid != trigger_tid ||
		    !rep->trigger_comm[0])
			snprintf(r->trigger_comm, sizeof(r->trigger_comm), "%s", mine.trigger_comm);
	}
#define KEEP(bit, field) do { if (own & (bit)) r->field = mine.field; } while (0)
	KEEP(OOM_HAVE_RSS, total_vm_kb);
	KEEP(OOM_HAVE_RSS, anon_rss_kb);
	KEEP(OOM_HAVE_RSS, file_rss_kb);
	KEEP(OOM_HAVE_SHMEM, shmem_rss_kb);
	KEEP(OOM_HAVE_PGTABLES, pgtables_kb);
	KEEP(OOM_HAVE_UID, uid);
	KEEP(OOM_HAVE_SCORE_ADJ, oom_score_adj);
#undef KEEP
}
