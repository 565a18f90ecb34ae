/*
 * kmsg: the kernel log's records as /dev/kmsg hands them out, from the
 * moment it is opened on: one record a read ("6,1234,5678901,-;text"),
 * records overwritten before they were read counted, not fatal.  What a
 * record says is proc/oom-kmsg's business.
 */
#ifndef FAULTLINE_KMSG_H
#define FAULTLINE_KMSG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/errbuf.h"

struct kmsg;

/* /dev/kmsg, at its end: only records from now on.  0, or -errno (detail
 * in @eb). */
int kmsg__open(struct kmsg **out, struct errbuf *eb);
/* NULL is fine. */
void kmsg__close(struct kmsg *k);
/* For poll(2): readable when a record is there. */
int kmsg__fd(const struct kmsg *k);
/* The next record into @buf (@n bytes; longer ones are cut): its length,
 * or 0 when there is none now (or on an error, the log being gone). */
size_t kmsg__read(struct kmsg *k, char *buf, size_t n);
/* Records the kernel overwrote before they were read. */
uint64_t kmsg__lost(const struct kmsg *k);
/* The wall-clock ns of a record's timestamp (printk's clock runs with
 * CLOCK_MONOTONIC, given back in *@mono, ns). */
uint64_t kmsg__realtime(uint64_t ts_usec, uint64_t *mono);

#endif
