/*
 * uprobe-tmpfs: whether this kernel can place a uprobe in a file on tmpfs.
 *
 * 3.10 (RHEL 7) cannot: it reads the probed instruction through the
 * file's readpage, which tmpfs lacks, and fails with EIO, but only when a
 * process maps the file; the tracing "enable" file reports that failure
 * (probe-group checks it there), while a perf uprobe PMU open ignores it
 * (uprobe_perf_open drops the return of uprobe_apply): the open succeeds,
 * the probe never fires, and a tool would report nothing.  Measured in
 * the el7 guest: leak -p, on the PMU rung, of a leak-target using a libc
 * copied to /tmp: "Tracing", then 0 allocations of the malloc family.
 * A kernel that can (6.x) writes its breakpoint into every private
 * mapping of the page as the probe is opened, this process's too: so the
 * PMU rung maps the page here, opens the probe on this process alone and
 * reads the byte back (uprobe_tmpfs__check_pmu()).
 */
#ifndef FAULTLINE_UPROBE_TMPFS_H
#define FAULTLINE_UPROBE_TMPFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/errbuf.h"

/* Whether @path is a file on a tmpfs this process could map code from
 * (not mounted noexec): the only case checked. */
bool uprobe_tmpfs__is(const char *path);

/**
 * uprobe_tmpfs__map() - map the page of @path holding file offset @off,
 * read-only and private (a mapping a uprobe is placed in), and the byte
 * at @off as the file holds it
 * Return: 0 with *@map, *@len (uprobe_tmpfs__unmap()) and *@byte set;
 * -errno.
 */
int uprobe_tmpfs__map(const char *path, uint64_t off, void **map, size_t *len, uint8_t *byte);
void uprobe_tmpfs__unmap(void *map, size_t len);

/* The one line: @probe at @where cannot be placed, why, and the remedy.
 * Returns -EIO. */
int uprobe_tmpfs__refuse(struct errbuf *eb, const char *probe, const char *where);

/**
 * uprobe_tmpfs__check_pmu() - whether a PMU uprobe (perf type @type) at
 * @off in @path, a file on tmpfs, gets its breakpoint: opened on this
 * process with the page mapped here, closed again
 * @probe, @where: the probe's name and place, for the refusal
 * Return: 0 when it does, or when that cannot be told (the open failed:
 * the caller's own open reports why; the file holds 0xcc there); -EIO
 * with uprobe_tmpfs__refuse()'s line when the byte stayed as the file has
 * it.
 */
int uprobe_tmpfs__check_pmu(int type, const char *path, uint64_t off, const char *probe,
			    const char *where, struct errbuf *eb);

#endif
