/*
 * major-pair: which fault a major-faults event belongs to.
 *
 * The kernel reports a page fault twice when it is major: the fault's
 * own event (exceptions:page_fault_user or the page-faults software
 * event), with the stack and the address, then a major-faults software
 * event of the same thread and page once the fault turned out to need
 * I/O.  A major-faults event is the thread's last fault, on the same
 * page, or it belongs to a fault from before tracing began and is not
 * counted.  Each caller keeps its own owner of a fault (a stack site, an
 * allocation, a process) as an opaque u64; this module keeps the pairing
 * rule, once, for faults, faults --by-alloc and the timeline.
 */
#ifndef FAULTLINE_MAJOR_PAIR_H
#define FAULTLINE_MAJOR_PAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct major_pair;

/* Pages of the machine's size (sysconf), 4096 when it cannot be had. */
int major_pair__new(struct major_pair **out);
void major_pair__free(struct major_pair *mp);

/* A fault of @tid at @addr, owned by @owner.  0 or -ENOMEM. */
int major_pair__fault(struct major_pair *mp, pid_t tid, uint64_t addr, uint64_t owner);

/*
 * major_pair__major - a major-faults event of @tid at @addr
 * @owner: set to the owner of the fault it marks
 *
 * True when it marks the thread's last fault (same page), which it then
 * consumes: a second major event for it marks nothing.
 */
bool major_pair__major(struct major_pair *mp, pid_t tid, uint64_t addr, uint64_t *owner);

/* The owner of @tid's last fault, @from, is now @to (a fault that waited
 * for its allocation to be known); nothing when its owner is not @from.
 * 0 or -ENOMEM. */
int major_pair__reown(struct major_pair *mp, pid_t tid, uint64_t from, uint64_t to);

/* @tid exited: its last fault is no one's to mark. */
void major_pair__forget(struct major_pair *mp, pid_t tid);

#endif
