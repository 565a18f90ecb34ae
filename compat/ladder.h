/*
 * ladder: each tool's event sources as data, best first.
 *
 * A rung names what it needs ("tp:syscalls:sys_enter_brk",
 * "feat:uprobes") and what it loses against the best rung.  Tools switch
 * on the chosen rung's key; `faultline features` prints the choice and why
 * better rungs were refused.  Keeping this as data means adding a kernel
 * workaround is a table row, and the choice is testable on fixture trees.
 * Each tool's ladder is defined in its own file, before its struct tool
 * (src/cmd/cmd-*.c); the command table lists them all (commands__ladders).
 */
#ifndef FAULTLINE_LADDER_H
#define FAULTLINE_LADDER_H

#include <stdbool.h>
#include <stddef.h>

#include "features.h"

/*
 * key:   stable string the tool switches on ("tracepoint", "uprobe")
 * label: what `features` prints ("tracepoint syscalls:sys_enter_brk")
 * needs: NULL-terminated requirements: "tp:<system>:<event>",
 *        "feat:<feature name>" (see feature__name()) or "kfunc:<kernel
 *        function>" (kprobes usable and the function in kallsyms)
 * loses: what this rung loses against the best one; "" for the best
 */
struct rung {
	const char *key, *label, *const *needs, *loses;
};

struct ladder {
	const char *tool;	/* its name in features, record's META rung.TOOL */
	const struct rung *rungs;
	size_t n;
};

/* A ladder of the array @rungs, named @tool ("leak -k"). */
#define LADDER(tool, rungs) { (tool), (rungs), sizeof(rungs) / sizeof((rungs)[0]) }

/* The needs several ladders share: none, uprobes with uretprobes, the
 * perf uprobe PMU. */
extern const char *const ladder_no_needs[];
extern const char *const ladder_uprobe_needs[];
extern const char *const ladder_uprobe_pmu_needs[];

/**
 * ladder__is() - whether the chosen rung @key is @want ("tracepoint");
 * a @want ending in ':' ("kprobe:") is a family and matches every key it
 * begins ("kprobe:swap_readpage").  False for a NULL @key.  Tools compare
 * rungs through this, never by strcmp.
 */
bool ladder__is(const char *key, const char *want);

/**
 * ladder__rung_ready() - whether every need of @r is met by @f
 * @why: when not, receives the first unmet need's reason, e.g.
 *       "tracepoint syscalls:sys_enter_brk absent (masked by FAULTLINE_MASK)";
 *       "" when ready.  May be NULL.
 * @n:   size of @why
 */
bool ladder__rung_ready(const struct rung *r, const struct features *f, char *why, size_t n);

/**
 * ladder__choose() - pick the first rung of @l whose needs are all met
 * @why:  NULL, or an array of @nwhy strings; why[i] receives the reason
 *        rung i is unusable, "" when it is usable.  Every rung is
 *        evaluated, so rungs below the chosen one are reported too.
 *
 * Return: the chosen rung's index, or -ENOTSUP when none is usable.
 */
int ladder__choose(const struct ladder *l, const struct features *f, char (*why)[256], size_t nwhy);

#endif
