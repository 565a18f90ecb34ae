/*
 * numa-maps: a process's pages per NUMA node, as /proc/PID/numa_maps lists
 * them (one line a mapping: start address, memory policy, then
 * "file=PATH" / "heap" / "stack" / "huge" and KEY=COUNT tokens, N<node>=
 * pages among them), summed by the kind of mapping numastat -p shows;
 * and the node list syntax of /sys/devices/system/node/online ("0-1,3").
 */
#ifndef FAULTLINE_NUMA_MAPS_H
#define FAULTLINE_NUMA_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/errbuf.h"

/* Node ids above this are refused (a line that names one is counted as
 * bad): MAX_NUMNODES is 1 << CONFIG_NODES_SHIFT, at most 1 << 10. */
#define NUMA_MAX_NODES 1024

/* The kind of a mapping, numastat -p's rows (File added: numastat counts
 * file pages among Private). */
enum numa_kind {
	NUMA_HUGE,	/* hugetlbfs ("huge") */
	NUMA_HEAP,	/* the brk heap ("heap") */
	NUMA_STACK,	/* the main thread's stack ("stack") */
	NUMA_PRIVATE,	/* anonymous: no file= */
	NUMA_FILE,	/* file= (files, shmem, memfd, SysV shm) */
	NUMA_KINDS
};

/* "Huge", "Heap", "Stack", "Private", "File"; NULL outside the enum. */
const char *numa_kind__name(enum numa_kind k);

/* One mapping.  Pages are in units of page_kb (huge pages for hugetlbfs,
 * base pages otherwise, a THP counting as its base pages). */
struct numa_vma {
	uint64_t start;
	char policy[48];	/* "default", "bind:1", "interleave:0-1"... cut if longer */
	char *path;		/* file=, unescaped (\012 -> newline); NULL if none */
	enum numa_kind kind;
	uint64_t page_kb;	/* kernelpagesize_kB; 0 when no page is present */
	uint64_t anon, dirty, mapped;
	size_t nn;		/* entries of node[] and pages[] */
	unsigned int *node;	/* node ids, in the order of the line */
	uint64_t *pages;	/* pages on node[i] */
};

struct numa_maps;

/**
 * numa_maps__parse() - the mappings of a /proc/PID/numa_maps text
 * @text: the file's text, @len bytes (need not be NUL-terminated)
 * @out:  receives the parse, owned by the caller (numa_maps__free)
 *
 * Pure, for tests.  A line that does not parse (no hex start address, a
 * count that is not a number or overflows, a node id above
 * NUMA_MAX_NODES, a page size that makes a mapping's bytes overflow) is
 * skipped and counted (numa_maps__bad); unknown KEY=VALUE and bare tokens
 * are ignored, as later kernels may add some.  Return: 0 or -ENOMEM.
 */
int numa_maps__parse(const char *text, size_t len, struct numa_maps **out);

/**
 * numa_maps__read() - numa_maps__parse() of <@procfs>/@pid/numa_maps
 * @procfs: procfs root; NULL means "/proc"
 *
 * Return: 0, or -errno of the read (-ENOENT: no such process, or a
 * kernel without CONFIG_NUMA), the path in @eb.
 */
int numa_maps__read(const char *procfs, pid_t pid, struct numa_maps **out, struct errbuf *eb);

void numa_maps__free(struct numa_maps *nm);

size_t numa_maps__count(const struct numa_maps *nm);
/* Mapping @i (< numa_maps__count), valid until numa_maps__free. */
const struct numa_vma *numa_maps__vma(const struct numa_maps *nm, size_t i);
/* Lines skipped as not understood. */
size_t numa_maps__bad(const struct numa_maps *nm);
/* One more than the highest node id any mapping has pages on; 0 if none. */
unsigned int numa_maps__nodes(const struct numa_maps *nm);
/* Pages of @v on @node (0 when none). */
uint64_t numa_vma__pages(const struct numa_vma *v, unsigned int node);
/* KiB of @kind (NUMA_KINDS: every kind) on @node. */
uint64_t numa_maps__kb(const struct numa_maps *nm, enum numa_kind kind, unsigned int node);

/**
 * numa_nodelist__parse() - a node list as sysfs prints one ("0", "0-1,3")
 * @s:    the text; trailing whitespace allowed
 * @mask: NUMA_MAX_NODES bits, set for each node listed (not cleared first)
 *
 * Return: 0, or -EINVAL (nothing listed, a bad range, a node too big).
 */
int numa_nodelist__parse(const char *s, uint64_t mask[NUMA_MAX_NODES / 64]);

#endif
