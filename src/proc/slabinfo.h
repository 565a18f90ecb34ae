/*
 * slabinfo: the slab caches as /proc/slabinfo (version 2.x, root only)
 * lists them, and the slab totals of /proc/meminfo (SReclaimable,
 * SUnreclaim), for faultline slab.
 */
#ifndef FAULTLINE_SLABINFO_H
#define FAULTLINE_SLABINFO_H

#include <stddef.h>
#include <stdint.h>

#include "lib/errbuf.h"

struct slab_cache {
	char name[64];
	uint64_t active_objs, num_objs, objsize, objperslab, pagesperslab;
	uint64_t active_slabs, num_slabs;
};

/**
 * slabinfo__parse() - the caches of a /proc/slabinfo text
 * @text:  the file's text; not modified
 * @out:   receives a malloc'ed array (NULL when there is no cache); the
 *         caller frees it
 * @n:     receives its length
 *
 * Pure, for tests.  The two header lines and lines that do not parse are
 * skipped.  Return: 0, -EINVAL when the version line is not 2.x, -ENOMEM.
 */
int slabinfo__parse(const char *text, struct slab_cache **out, size_t *n);

/* slabinfo__parse() of <@procfs>/slabinfo (NULL: /proc).  0 or -errno,
 * the path in @eb. */
int slabinfo__read(const char *procfs, struct slab_cache **out, size_t *n, struct errbuf *eb);

/**
 * meminfo__kb() - "Name:   N kB" lines of a /proc/meminfo text
 * @names: NULL-terminated, without the colon ("SReclaimable")
 * @vals:  one value (kB) per name, UINT64_MAX when absent
 */
void meminfo__parse_kb(const char *text, const char *const *names, uint64_t *vals);
int meminfo__read_kb(const char *procfs, const char *const *names, uint64_t *vals,
		     struct errbuf *eb);

#endif
