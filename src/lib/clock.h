/*
 * clock: a clock's time in nanoseconds, as the kernel stamps perf samples
 * (CLOCK_MONOTONIC) or as wall time (CLOCK_REALTIME).
 */
#ifndef FAULTLINE_CLOCK_H
#define FAULTLINE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock__ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
