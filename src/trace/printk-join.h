/*
 * printk-join: the kernel log's lines, joined from the printk:console
 * tracepoint's pieces.
 *
 * 5.10+ trace each printk() call's text as stored, its level and trailing
 * newline gone and its pr_cont() continuations apart.  A piece continues
 * the line before it, of the same task, when it starts with ',' or ':' or
 * that line ends with '=' or ' ': how the pieces of the OOM report join
 * ("oom-kill:constraint=...", ",oom_memcg=", "/a/b", ...; "Memory cgroup
 * stats for ", "/a/b", ":").  A line is complete when the next one
 * starts, when it holds the caller's marker (a line printed by one printk
 * and never continued: "Killed process "), or once it is
 * PRINTK_JOIN_WAIT_NS old.  A complete line goes to the caller as the
 * /dev/kmsg record it is there ("6,SEQ,USEC,-;text", '\\' and control
 * characters escaped as kmsg escapes them), so that one parser reads both.
 * Pure: no kernel, no printing.
 */
#ifndef FAULTLINE_PRINTK_JOIN_H
#define FAULTLINE_PRINTK_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A line not continued for this long is complete. */
#define PRINTK_JOIN_WAIT_NS 50000000ULL
/* Longer lines are cut. */
#define PRINTK_JOIN_LINE 2048

struct printk_join;

typedef void (*printk_line_fn)(const char *rec, size_t len, void *ctx);

/* @marker: a line holding it is complete at once (may be NULL).  0 or
 * -ENOMEM. */
int printk_join__new(const char *marker, printk_line_fn fn, void *ctx, struct printk_join **out);
/* NULL is fine. */
void printk_join__free(struct printk_join *pj);
/* A piece of @tid at @time (ns).  True when it completed a line holding
 * the marker. */
bool printk_join__piece(struct printk_join *pj, uint32_t tid, uint64_t time, const char *piece);
/* The line waiting, if older than PRINTK_JOIN_WAIT_NS at @now, or
 * whatever its age when @now is 0: complete. */
void printk_join__flush(struct printk_join *pj, uint64_t now);

#endif
