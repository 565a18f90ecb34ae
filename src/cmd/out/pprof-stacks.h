/*
 * pprof-stacks: a session's stacks as the samples of a pprof profile
 * (pprof.h), for the commands that write one: report pprof (cmd-pprof.c)
 * and goalloc --pprof.
 *
 * Each sample is one stack of one process, and of one thread when the
 * tool knows it, with the labels `go tool pprof -tags` lists and
 * -tagfocus/-tagignore/-tagshow filter by:
 *   pid   (a number label)  the process
 *   tid   (a number label)  the thread, when known (not for a site that
 *                           is a process's, as report pprof's heap)
 *   comm  (a string label)  the process's command name in the image the
 *                           stack was taken in (the text reports' COMM;
 *                           not a thread's own name); none when the
 *                           session never learned it (the reports' "?")
 * Every frame is a location in its mapping (file, range, recorded
 * build-id), named as the text reports name it, with DWARF the source file
 * and line and the functions inlined there.  The first mapping is the
 * target's program, which pprof names the profile after.
 *
 * A tool's sites (agg/stack-table.h, per process or per thread) are
 * written as samples whole, the columns it names as the values.
 *
 * pprof_stacks__heap() is the heap profile that report pprof and heap
 * --pprof write, from the heap's count (agg/heap-profile.h).
 *
 * Calls pprof.h, the stack table, the heap profile, the session's address spaces, stacks and
 * symbolizer, and tool.h's output file; returns 0 or -errno and never prints.
 */
#ifndef FAULTLINE_PPROF_STACKS_H
#define FAULTLINE_PPROF_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agg/stack-table.h"
#include "cmd/out/pprof.h"

struct session;
struct errbuf;
struct heap_profile;

/* Whose stack a sample is. */
struct pprof_who {
	pid_t pid;
	pid_t tid;		/* <= 0: not known (no tid label) */
	uint32_t stack;		/* a user stack of the session's stackdb */
};

/**
 * pprof_stacks__new() - an empty profile of @s's stacks
 * @o:   pprof__new()'s
 * @out: out; pprof__free() it
 *
 * Its first mapping is the target's program (when the session has a
 * target process); when @s lost events, a comment says how many.
 * Return: 0, -EINVAL (@o), -ENOMEM.
 */
int pprof_stacks__new(struct session *s, const struct pprof_opts *o, struct pprof **out);

/**
 * pprof_stacks__sample() - one sample of @w's stack with @values (one per
 * sample type) and the labels above; the frames symbolized the first time
 * their address is seen.  0, -ENOMEM.
 */
int pprof_stacks__sample(struct pprof *p, struct session *s, const struct pprof_who *w,
			 const int64_t *values);

/**
 * pprof_stacks__write() - @p encoded (gzipped profile.proto) into @path,
 * created or truncated ("-": standard output, when nothing else goes
 * there).  0 or -errno, the detail in @eb ("cannot write 'PATH': ...").
 */
int pprof_stacks__write(const struct pprof *p, const char *path, struct errbuf *eb);

/**
 * pprof_stacks__table() - each site of @t a sample, in the order they were
 * made, its counters @cols (@ncols of them, one per sample type) the
 * values; labelled as pprof_stacks__sample()'s, tid when @t is per thread.
 * Return: 0, -EINVAL (@ncols beyond STACK_NCOLS), -ENOMEM.
 */
int pprof_stacks__table(struct pprof *p, struct session *s, const struct stack_table *t,
			const enum stack_col *cols, size_t ncols);
/* The same for the @n sites of @sites (a sorted copy; tid when not 0). */
int pprof_stacks__sites(struct pprof *p, struct session *s, const struct stack_site *sites,
			size_t n, const enum stack_col *cols, size_t ncols);

/**
 * pprof_stacks__heap() - @hp (the heap's count of @s's allocations) as a
 * heap profile with Go's four sample types: alloc_objects/count and
 * alloc_space/bytes (every allocation seen), inuse_objects/count and
 * inuse_space/bytes (what is allocated now, or at the end: the leaks),
 * inuse_space shown first; one sample per allocation site (a process and
 * a stack), labelled pid and comm but no tid (the heap's sites are a
 * process's).
 * @out: out; pprof__free() it
 * Return: 0, -ENOMEM.
 */
int pprof_stacks__heap(struct session *s, const struct heap_profile *hp, struct pprof **out);

#endif
