/*
 * jitmap: a JIT's perf map file (/tmp/perf-PID.map), the names it gives
 * the code it wrote into anonymous memory.
 *
 * The format is perf's: "START SIZE name", START and SIZE in hex, one
 * symbol a line, appended as the JIT compiles.  A line for an address seen
 * before (code moved or recompiled there) replaces the earlier one.  The
 * file is read whole when opened and read again when a lookup misses and
 * the file has grown since: a miss may be code compiled after the last
 * read.
 */
#ifndef FAULTLINE_JITMAP_H
#define FAULTLINE_JITMAP_H

#include <stdint.h>
#include <sys/types.h>

struct jitmap;

/**
 * jitmap__new() - the perf map file of a process
 * @pid: the process: its /tmp/perf-PID.map, else, in its own root (a
 *       container), the one named after its pid there
 * @out: out; free with jitmap__free()
 *
 * A file that exists but cannot be read is an empty map (read again once
 * it grows), and so is one that is not trusted, as perf does: a file not
 * owned by root or the process's owner (the owner of /proc/PID), a
 * symlink, anything but a regular file (opened O_NOFOLLOW|O_NONBLOCK, so a
 * FIFO there blocks nothing).
 *
 * Return: 0; -ENOENT when the process has no perf map file; -ENOMEM.
 */
int jitmap__new(pid_t pid, struct jitmap **out);

/**
 * jitmap__open() - a perf map file by its path
 * @path: the file, trusted when owned by root or the caller's euid
 * @out: out; free with jitmap__free()
 *
 * Return: 0 (an unreadable file is an empty map); -ENOMEM.
 */
int jitmap__open(const char *path, struct jitmap **out);

/* Free @j and the names it handed out; NULL is fine. */
void jitmap__free(struct jitmap *j);

/* The path of @j's file, for as long as @j lives. */
const char *jitmap__path(const struct jitmap *j);

/**
 * jitmap__lookup() - the JIT symbol holding an address
 * @j: map; reread when @addr is in no symbol and the file has grown
 * @addr: address
 * @name: out; NULL when no symbol holds @addr, else valid until the next
 *        lookup in @j (which may reread the file) or jitmap__free()
 * @offset: out; @addr - the symbol's start, 0 when none
 *
 * Return: 0 (also when not found); -ENOMEM.
 */
int jitmap__lookup(struct jitmap *j, uint64_t addr, const char **name, uint64_t *offset);

#endif
