/*
 * ladder: the choice of a rung of a tool's fallback ladder.
 *
 * The ladders themselves are data in each tool's file (src/cmd/cmd-*.c,
 * before its struct tool), the whole policy: a tool never tests the kernel
 * itself, it asks for its ladder's first usable rung.  A requirement that
 * does not parse (a typo in a table) makes its rung unusable with a reason
 * saying so; the unit test checks every table entry parses.  It may call
 * features (compat/) and lib/ only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ladder.h"

const char *const ladder_no_needs[] = { NULL };
const char *const ladder_uprobe_needs[] = { "feat:uprobes", "feat:uretprobes", NULL };
/* The perf uprobe PMU: probes by perf_event_open, no tracefs, so still
 * there under lockdown [confidentiality]; arguments are the registers
 * sampled at the breakpoint (src/trace/uprobe-pmu.h).  The session uses it
 * exactly when the rung above lacks uprobes or uretprobes. */
const char *const ladder_uprobe_pmu_needs[] = { "feat:uprobe_pmu", NULL };

bool ladder__is(const char *key, const char *want)
{
	size_t n = strlen(want);

	if (!key)
		return false;
	if (n && want[n - 1] == ':')
		return !strncmp(key, want, n);
	return !strcmp(key, want);
}

/* One requirement; on failure the reason goes into why. */
static bool need_met(const char *need, const struct features *f, char *why, size_t n)
{
	char system[128], detail[256];
	const char *colon;
	size_t len;
	int id;

	if (strncmp(need, "tp:", 3) == 0) {
		colon = strchr(need + 3, ':');
		len = colon ? (size_t)(colon - (need + 3)) : 0;
		if (!colon || !len || len >= sizeof(system) || !colon[1])
			goto bad;
		memcpy(system, need + 3, len);
		system[len] = '\0';
		if (features__tracepoint_why(f, system, colon + 1, detail, sizeof(detail)))
			return true;
		snprintf(why, n, "tracepoint %s:%s absent (%s)", system, colon + 1, detail);
		return false;
	}
	if (strncmp(need, "kfunc:", 6) == 0) {
		if (!need[6])
			goto bad;
		if (features__kfunc_why(f, need + 6, detail, sizeof(detail)))
			return true;
		snprintf(why, n, "kernel function %s unusable (%s)", need + 6, detail);
		return false;
	}
	/* A file below procfs that must be readable ("proc:kpageflags"). */
	if (strncmp(need, "proc:", 5) == 0) {
		if (!need[5] || strchr(need + 5, '.'))
			goto bad;
		snprintf(detail, sizeof(detail), "%s/%s", features__procfs_dir(f), need + 5);
		if (access(detail, R_OK) == 0)
			return true;
		snprintf(why, n, "%s unreadable (%s)", detail, strerror(errno));
		return false;
	}
	if (strncmp(need, "feat:", 5) == 0) {
		id = feature__from_name(need + 5);
		if (id < 0)
			goto bad;
		if (features__has(f, id))
			return true;
		snprintf(why, n, "%s absent (%s)", need + 5, features__why(f, id));
		return false;
	}
bad:
	snprintf(why, n, "unknown requirement '%s'", need);
	return false;
}

bool ladder__rung_ready(const struct rung *r, const struct features *f, char *why, size_t n)
{
	char dummy[1];
	size_t i;

	if (!why || !n) {
		why = dummy;
		n = sizeof(dummy);
	}
	why[0] = '\0';
	/* The first unmet need is enough: the rest usually follow from it. */
	for (i = 0; r->needs && r->needs[i]; i++)
		if (!need_met(r->needs[i], f, why, n))
			return false;
	return true;
}

int ladder__choose(const struct ladder *l, const struct features *f, char (*why)[256], size_t nwhy)
{
	int chosen = -ENOTSUP;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (ladder__rung_ready(&l->rungs[i], f, why && i < nwhy ? why[i] : NULL, sizeof(why[0])) &&
		    chosen < 0)
			chosen = (int)i;
	}
	return chosen;
}
