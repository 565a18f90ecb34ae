/*
 * heap-flame: a heap profile (heap-profile.c) as a flame graph page
 * (flamegraph.c), weighted by heaptrack's four measures of a stack:
 * leaked bytes, bytes live at the peak, allocations (calls) and temporary
 * allocations.  Frames are named as --folded names them (report.c), the
 * process's command first.  Shared by `faultline flamegraph` (live and
 * from a recording) and `faultline leak --flamegraph`.
 */
#ifndef FAULTLINE_HEAP_FLAME_H
#define FAULTLINE_HEAP_FLAME_H

#include <stdbool.h>

struct alloc_rec;
struct errbuf;
struct heap_profile;
struct sample;
struct session;

/*
 * heap_flame__write - write @hp's sites as a flame graph page to @path
 * @s:       the session whose stacks and address spaces the sites name
 * @srcline: frames with file:line (--srcline)
 * @title:   the page's title (lost events, if any, are said after it)
 * @fd:      where to write it (tool__stdout_aside's, for -o -; taken), or -1:
 *           @path is created
 * 0 or -errno (detail in @eb).  A page is written even with no site.
 */
int heap_flame__write(struct session *s, const struct heap_profile *hp, bool srcline,
		      const char *title, const char *path, int fd, struct errbuf *eb);

#endif
