/*
 * heap-flame: heap profile sites -> flame graph page.
 *
 * Each site's frames are rendered by report__folded(), the code behind
 * every tool's --folded, into a memory stream, so the page names frames
 * exactly as `leak --folded` does; the value written there is dropped and
 * the site's four measures go in instead.
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
#include "lib/errbuf.h"
#include "cmd/out/report.h"
#include "trace/sample.h"
#include "trace/session.h"

/* heaptrack's words, in its order; "calls" is also understood. */
static const struct flamegraph_weight heap_weights[] = {
	{ "leaked", NULL, "leaked", "bytes" },
	{ "peak", NULL, "peak", "bytes" },
	{ "allocations", "calls", "allocations", "calls" },
	{ "temporary", NULL, "temporary", "allocations" },
};

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
