/*
 * memstat: the synthetic event "faultline:memstat", a sample of the
 * memory-pressure indicators (procstat.h's struct mem_sample: PSI totals,
 * MemAvailable, vmstat counters, a cgroup v2 group's PSI) as `faultline
 * record` writes one a second into a recording, so that a replay has what
 * a live tool reads from /proc (docs/record-format.md, "faultline:memstat").
 * Its payload is fixed, little-endian as the samples are, after the
 * 8 bytes of a tracepoint's common fields:
 *   offset 8           u64 time_ns (CLOCK_MONOTONIC when read)
 *   offset 16 + 8*i    u64 the value of indicator i (enum mem_ind, 11 of
 *                      them), UINT64_MAX where unknown
 *   offset 104 + 8*j   s64 avg10 of PSI line j (some, full, cg some, cg
 *                      full) in hundredths of a percent, -1 unknown
 * memstat__format() is the format text, in tracefs' syntax, the recorder
 * writes for it like any tracepoint's.  Pure, for tests.
 */
#ifndef FAULTLINE_MEMSTAT_H
#define FAULTLINE_MEMSTAT_H

#include <stddef.h>

#include "proc/procstat.h"

#define MEMSTAT_SYSTEM "faultline"
#define MEMSTAT_EVENT "memstat"
#define MEMSTAT_PAYLOAD_SIZE (16 + 8 * MI__COUNT + 8 * 4)

/* The payload of @ms into @buf (MEMSTAT_PAYLOAD_SIZE bytes). */
void memstat__encode(const struct mem_sample *ms, unsigned char *buf);

/* A payload back.  Return: 0, or -EBADMSG when @n is short. */
int memstat__decode(const void *raw, size_t n, struct mem_sample *ms);

/* The event's format text. */
const char *memstat__format(void);

#endif
