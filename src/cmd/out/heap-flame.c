/*
 * heap-flame: heap profile sites -> flame graph page.
 *
 * Each site's frames are rendered by report__folded(), the code behind
 * every tool's --folded, into a memory stream, so the page names frames
 * exactly as `leak --folded` does; the value written there is dropped and
 * the site's four measures go in instead.
 *
 * Under the graph, the heap's live bytes over the run (heap-profile's
 * live series), on the clock of heap's report: seconds from the start
 * (session__elapsed), to its "total runtime"; its highest point is
 * heap's peak, at heap's peak time.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "agg/alloc-trace.h"
#include "cmd/tool.h"
#include "lib/ostream.h"
#include "cmd/out/flamegraph.h"
#include "cmd/out/heap-flame.h"
#include "agg/heap-profile.h"
#include "agg/live-series.h"
#include "lib/errbuf.h"
#include "cmd/out/report.h"
#include "trace/sample.h"
#include "trace/session.h"

/* heaptrack's words, in its order; "calls" is also understood. */
static const struct flamegraph_weight heap_weights[] = {
	{ "leaked", NULL, "leaked", "bytes",
	  "leaked bytes: what was still allocated when the run ended" },
	{ "peak", NULL, "peak", "bytes",
	  "bytes live at the peak: what was allocated at the instant the whole heap was "
	  "largest (marked on the chart below)" },
	{ "allocations", "calls", "allocations", "calls",
	  "allocation calls: how many times the malloc family was called" },
	{ "temporary", NULL, "temporary", "allocations",
	  "temporary allocations: blocks freed before other allocations were made "
	  "(--temporary-allocation-threshold)" },
};

/* The live bytes over time, into the page's chart. */
static int add_series(struct flamegraph *fg, struct session *s, const struct heap_profile *hp)
{
	const struct live_series *ls = heap_profile__series(hp);
	struct live_point *p = malloc(LIVE_SERIES_MAX_POINTS * sizeof(*p));
	double *t = malloc(LIVE_SERIES_MAX_POINTS * sizeof(*t));
	uint64_t *v = malloc(LIVE_SERIES_MAX_POINTS * sizeof(*v));
	uint64_t end_ns;
	size_t n;
	int err = -ENOMEM;

	if (p && t && v) {
		n = live_series__points(ls, p);
		for (size_t i = 0; i < n; i++) {
			t[i] = session__elapsed(s, p[i].time);
			v[i] = p[i].value;
		}
		/* the run's end as heap's runtime: to the ns */
		end_ns = (uint64_t)(session__elapsed(s, session__now(s)) * 1e9);
		err = flamegraph__set_series(fg, "live heap bytes", t, v, n, (double)end_ns / 1e9,
					     live_series__changes(ls));
	}
	free(p);
	free(t);
	free(v);
	return err;
}

int heap_flame__write(struct session *s, const struct heap_profile *hp, bool srcline,
		      const char *title, const char *path, int fd, struct errbuf *eb)
{
	struct flamegraph *fg = NULL;
	struct stack_site *sites = NULL;
	struct report r = { 0 };
	size_t n = 0, len = 0;
	char *buf = NULL, full[768];
	struct ostream *os = NULL;
	FILE *mem = NULL;
	int err;

	/* What the command warned of goes on the page too: it outlives the
	 * terminal. */
	if (session__lost(s))
		snprintf(full, sizeof(full), "%s (WARNING: lost %llu events: allocations and frees "
			 "were missed)", title, (unsigned long long)session__lost(s));
	else
		snprintf(full, sizeof(full), "%s", title);
	err = flamegraph__new(full, heap_weights, sizeof(heap_weights) / sizeof(heap_weights[0]),
			      &fg);
	if (!err)
		err = add_series(fg, s, hp);
	if (!err)
		err = heap_profile__sites(hp, &sites, &n);
	if (err)
		goto out;
	mem = open_memstream(&buf, &len);
	if (!mem) {
		err = -errno;
		goto out;
	}
	report__init(&r, s, mem, srcline);
	for (size_t i = 0; i < n && !err; i++) {
		const struct stack_site *hs = &sites[i];
		uint64_t v[] = { hs->leaked, hs->peak, hs->calls, hs->temporary };
		char *sp;
		off_t end;

		rewind(mem);
		report__folded(&r, hs->pid, hs->pid > 0 ? session__comm(s, hs->pid) : "[kernel]",
			       hs->stack, 0);
		end = ftello(mem);
		if (fflush(mem) || end < 0) {
			err = -ENOMEM;
			break;
		}
		buf[end] = '\0';
		/* "comm;frame;... 0\n": the comm may hold spaces, frames not. */
		sp = strrchr(buf, ' ');
		if (sp)
			*sp = '\0';
		err = flamegraph__add(fg, buf, v);
	}
	if (err)
		goto out;
	err = tool__output_open(path, fd, &os, eb);
	fd = -1;
	if (err)
		goto out;
	err = tool__output_close(path, os, flamegraph__write(fg, ostream__file(os)), eb);
out:
	if (fd >= 0)
		close(fd);
	report__fini(&r);
	if (mem)
		fclose(mem);
	free(buf);
	free(sites);
	flamegraph__free(fg);
	return err;
}
