/*
 * oom-join: an OOM kill's event (oom:mark_victim, or the oom_kill_process
 * kprobe) joined with the kernel's report of it (/dev/kmsg or
 * printk:console, parsed by proc/oom-kmsg.h): the reports wait here until
 * an event takes the one that is its own, and the event's fields win over
 * the report's.  Decoded reports in, merged reports out: nothing here
 * knows of perf records, sessions or printing.
 */
#ifndef FAULTLINE_OOM_JOIN_H
#define FAULTLINE_OOM_JOIN_H

#include <stdbool.h>
#include <stddef.h>

#include "proc/oom-kmsg.h"

struct oom_join;

/* Keeping at most @max reports (the oldest goes).  0 or -ENOMEM. */
int oom_join__new(size_t max, struct oom_join **out);
void oom_join__free(struct oom_join *j);

/* A kernel report, until an event takes it. */
void oom_join__add_report(struct oom_join *j, const struct oom_report *rep);

/**
 * oom_join__take() - the report of event @r, merged into it
 * @r:           the event's fields (victim_pid 0: a kprobe's, which knows
 *               no victim, and takes the first report of its trigger, or
 *               any when the report's header was lost)
 * @trigger_tid: the thread the event fired in
 *
 * The report taken is gone from @j.  Return: true when one matched.
 */
bool oom_join__take(struct oom_join *j, struct oom_report *r, int trigger_tid);

/* The report merged into an event's @r: the event's own fields win. */
void oom_join__merge(struct oom_report *r, const struct oom_report *rep, int trigger_tid);

#endif
