/*
 * vmstat: named counters of /proc/vmstat, for the tools' last-resort rungs
 * (swap-ins as pswpin, direct reclaim as allocstall_*) on kernels where no
 * event says who did what.  Counter names come and go between kernels
 * (allocstall became allocstall_<zone> in 4.8; workingset_* split in 5.9),
 * so a name may end in '*' to sum every counter with that prefix, and an
 * absent name is reported as absent, never as zero.
 */
#ifndef FAULTLINE_VMSTAT_H
#define FAULTLINE_VMSTAT_H

#include <stdint.h>

#include "lib/errbuf.h"

/* The value of a counter the kernel does not have. */
#define VMSTAT_ABSENT UINT64_MAX

/**
 * vmstat__parse() - look counters up in the text of /proc/vmstat
 * @text:  "name value\n" lines; not modified
 * @names: NULL-terminated; "pswpin" is one counter, "allocstall*" the sum
 *         of every counter whose name starts with "allocstall"
 * @vals:  receives one value per name, VMSTAT_ABSENT when no line matched
 *
 * Pure, for tests.  Lines that do not parse are skipped.
 */
void vmstat__parse(const char *text, const char *const *names, uint64_t *vals);

/**
 * vmstat__read() - vmstat__parse() of <@procfs>/vmstat
 * @procfs: procfs root; NULL means "/proc"
 *
 * Return: 0, or -errno of the read with the path in @eb.
 */
int vmstat__read(const char *procfs, const char *const *names, uint64_t *vals, struct errbuf *eb);

/* Counter delta @now - @then, 0 when either is absent or the counter went
 * backwards (never a negative or huge number). */
uint64_t vmstat__delta(uint64_t now, uint64_t then);

#endif
