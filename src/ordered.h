/*
 * ordered: merge records from several per-CPU rings into time order.
 *
 * A task that migrates between CPUs writes its syscall entry into one ring
 * and its exit (or the MMAP2 in between) into another; correlating them
 * needs one timeline.  Records are copied in as they are read and handed
 * out in timestamp order up to a limit the caller knows is safe (the
 * oldest "newest record" among the rings that produced data this round, as
 * perf's ordered_events does), then everything at the end.
 */
#ifndef FAULTLINE_ORDERED_H
#define FAULTLINE_ORDERED_H

#include <stdint.h>

#include "ring.h"

struct ordered;

/* arena_bytes: room for copies, mapped and faulted in now (0: none, every
 * copy is malloc'd).  Copies that do not fit spill to malloc. */
int ordered__new(size_t arena_bytes, struct ordered **out);
void ordered__free(struct ordered *q);
/* Copy a record in.  0 / -ENOMEM. */
int ordered__push(struct ordered *q, uint64_t time, const struct perf_event_header *hdr);
/* Deliver, oldest first (ties in arrival order), every record with time <=
 * upto (UINT64_MAX: all).  A non-zero cb return stops and is returned. */
int ordered__flush(struct ordered *q, uint64_t upto, ring_cb cb, void *ctx);
uint64_t ordered__pending(const struct ordered *q);

#endif
