/*
 * stack-table: the per-stack table, one site per (pid, stack id), that
 * every report by stack counts into: leak (the calls each stack made and,
 * at a report, what it holds), heap, flamegraph, diff and pprof (through
 * heap-profile.c, which builds on it), report's timeline (an OOM victim's
 * allocation and fault sites at the kill), goalloc's report.
 *
 * A table made per thread (stack_table__new_threads()) keeps one site per
 * (pid, tid, stack id) instead: the pprof profiles labelled by thread
 * (report pprof --faults, goalloc --pprof).  In a per-process table every
 * site's tid is 0 and the tid given to the _tid() calls is not looked at
 * (the threads of a process count into one site).
 *
 * A site's counters, and what each tool puts in them:
 *   calls, bytes    events from the stack and the bytes they asked for:
 *                   allocations made (weighted under sampling, leak -s,
 *                   heap --sample-rate) and their sizes; a fault table's
 *                   faults and the bytes of the pages they brought in;
 *   temporary       of the calls, those freed at once (heap's rule);
 *   peak            bytes the stack held at the heap's peak (heap-profile
 *                   resolves it);
 *   leaked, leaked_blocks  bytes and blocks the stack holds: live as the
 *                   events go (heap-profile: at the end, what leaked), or
 *                   taken from the live blocks at a report (leak, the
 *                   timeline at a kill: stack_table__clear_held(), then
 *                   stack_table__hold() for each block).
 *
 * A table may hold bigger records that begin with a struct stack_site
 * (heap-profile keeps its lazy peak there).  Sites are made zeroed on
 * first use; pointers to them stay valid until the next one is made.
 * Pure: no kernel, no printing.
 */
#ifndef FAULTLINE_STACK_TABLE_H
#define FAULTLINE_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stack_site {
	pid_t pid;
	uint32_t stack;
	pid_t tid;		/* a per-thread table's; 0 in a per-process one */
	uint64_t calls, temporary;
	uint64_t bytes;		/* asked for by the calls */
	uint64_t peak;		/* bytes live at the peak instant */
	uint64_t leaked;	/* bytes held now */
	uint64_t leaked_blocks;
};

struct stack_table;

/* A table of records of @site_size bytes, each beginning with a struct
 * stack_site (0: sizeof(struct stack_site)).  0 or -ENOMEM, -EINVAL for a
 * size smaller than a site. */
int stack_table__new(size_t site_size, struct stack_table **out);
/* The same, a site per (pid, tid, stack id). */
int stack_table__new_threads(size_t site_size, struct stack_table **out);
/* NULL is fine. */
void stack_table__free(struct stack_table *t);
/* Whether @t is per thread. */
bool stack_table__threads(const struct stack_table *t);

/* The site of @pid's @stack, made (zeroed, pid and stack set) when new;
 * NULL when out of memory. */
struct stack_site *stack_table__get(struct stack_table *t, pid_t pid, uint32_t stack);
/* The site of @pid's @stack, or NULL when there is none. */
struct stack_site *stack_table__find(const struct stack_table *t, pid_t pid, uint32_t stack);
/* The same for @tid's (0 in a per-process table, whatever @tid). */
struct stack_site *stack_table__get_tid(struct stack_table *t, pid_t pid, pid_t tid,
					uint32_t stack);
struct stack_site *stack_table__find_tid(const struct stack_table *t, pid_t pid, pid_t tid,
					 uint32_t stack);

size_t stack_table__count(const struct stack_table *t);
/* Site @i in the order they were made; NULL when @i is out of range. */
struct stack_site *stack_table__at(const struct stack_table *t, size_t i);

/* @w calls of @size bytes from @pid's @stack (a sampled block stands for
 * @w).  0 or -ENOMEM. */
int stack_table__call(struct stack_table *t, pid_t pid, uint32_t stack, uint64_t size,
		      uint64_t w);
/* The same from thread @tid (see stack_table__get_tid()). */
int stack_table__call_tid(struct stack_table *t, pid_t pid, pid_t tid, uint32_t stack,
			  uint64_t size, uint64_t w);
/* @pid's @stack holds @w more blocks of @size bytes.  0 or -ENOMEM. */
int stack_table__hold(struct stack_table *t, pid_t pid, uint32_t stack, uint64_t size,
		      uint64_t w);
/*
 * stack_table__by_process - the sites of per-thread @t summed by (pid,
 * stack id) into a new per-process table *@out (every counter added up;
 * the caller frees it): goalloc's text report from the table its --pprof
 * keeps by thread, rather than a second table counted on every event.
 * 0 or -ENOMEM (*@out NULL).
 */
int stack_table__by_process(const struct stack_table *t, struct stack_table **out);

/* No site holds anything (leaked, leaked_blocks zeroed): before the
 * blocks live at a report are held again. */
void stack_table__clear_held(struct stack_table *t);

/* The counters a report orders sites by. */
enum stack_col {
	STACK_CALLS,
	STACK_TEMPORARY,
	STACK_BYTES,
	STACK_PEAK,
	STACK_LEAKED,
	STACK_LEAKED_BLOCKS,
};
#define STACK_NCOLS (STACK_LEAKED_BLOCKS + 1)

/* @s's counter @c. */
uint64_t stack_site__col(const struct stack_site *s, enum stack_col c);

struct stack_order {
	enum stack_col by;	/* the key */
	enum stack_col then;	/* the key of its ties (by again: none) */
	bool descending;	/* of the keys: most first */
	bool held_only;		/* only the sites holding a block */
};

/*
 * stack_table__sorted - copies of the sites of @t in the order @o says,
 * the ties of both keys by pid, then stack id, then tid, ascending
 * (whatever @o->descending), into *@out (the caller frees it, none or not).
 * The table is not changed: lookups go on.  0 or -ENOMEM.
 */
int stack_table__sorted(const struct stack_table *t, const struct stack_order *o,
			struct stack_site **out, size_t *n);

#endif
