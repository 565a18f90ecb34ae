/*
 * pprof-stacks: see pprof-stacks.h.
 *
 * Symbolization is the text reports' (symbolize.h): a return address is
 * looked up at the byte before it, as they do, and kept as sampled; the
 * function a frame is in is named by its symbol without the symbol
 * version ("malloc", not "malloc@@GLIBC_2.2.5", which stays in the
 * function's system name), and srcline's inlined functions come before
 * it, innermost first.  A location is symbolized once: pprof.c keeps it
 * by (mapping, address).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/out/pprof-stacks.h"
#include "cmd/tool.h"
#include "agg/heap-profile.h"
#include "lib/errbuf.h"
#include "lib/ostream.h"
#include "stack/addrspace.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"
#include "trace/session.h"

#define MAX_INLINES 16

static uint64_t mapping_of(struct pprof *p, const struct map *m)
{
	return pprof__mapping(p, &(struct pprof_map){
				      .start = m->start, .limit = m->end, .offset = m->pgoff,
				      .file = m->path, .build_id = m->build_id,
				      .build_id_size = m->build_id_size });
}

/* The target's program first: the mapping pprof names the profile after. */
static int main_mapping(struct pprof *p, struct session *s)
{
	pid_t pid = session__target_pid(s);
	size_t n = 0;
	const struct map *maps = pid > 0 ? addrspaces__maps(session__addrspaces(s), pid, &n) : NULL;

	for (size_t i = 0; i < n; i++)
		if (maps[i].path && maps[i].path[0] == '/' && (maps[i].prot & 4 /* PROT_EXEC */))
			return mapping_of(p, &maps[i]) ? 0 : -ENOMEM;
	return 0;
}

int pprof_stacks__new(struct session *s, const struct pprof_opts *o, struct pprof **out)
{
	char text[256];
	int err;

	*out = NULL;
	err = pprof__new(o, out);
	if (!err)
		err = main_mapping(*out, s);
	if (!err && session__lost(s)) {
		snprintf(text, sizeof(text), "lost %" PRIu64 " events: the values are short of what "
			 "happened", session__lost(s));
		err = pprof__comment(*out, text);
	}
	if (err) {
		pprof__free(*out);
		*out = NULL;
	}
	return err;
}

/* The location of @ip in @pid (an outer frame's when @is_return), made
 * and symbolized the first time; 0 when out of memory. */
static uint64_t location_of(struct pprof *p, struct session *s, pid_t pid, uint64_t ip,
			    bool is_return)
{
	struct addrspaces *as = session__addrspaces(s);
	struct symbolizer *sym = session__symbolizer(s);
	const struct map *m = addrspaces__find(as, pid, ip);
	uint64_t look = is_return && ip ? ip - 1 : ip, map = 0, id;
	struct sym_inline inl[MAX_INLINES];
	struct pprof_line lines[MAX_INLINES];
	struct sym_result res = { 0 };
	char name[512];
	size_t n = 0;

	if (m) {
		map = mapping_of(p, m);
		if (!map)
			return 0;
	}
	id = pprof__find_location(p, map, ip);
	if (id)
		return id;
	if (symbolizer__user(sym, as, pid, look, &res) ||
	    symbolizer__srcline(sym, as, pid, look, inl, MAX_INLINES, &n))
		return 0;
	for (size_t k = 0; k < n; k++)
		lines[k] = (struct pprof_line){ .func = inl[k].func, .file = inl[k].file,
						.line = inl[k].line };
	if (res.func) {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(res.func, "@"), res.func);
		if (!n)
			lines[n++] = (struct pprof_line){ 0 };
		lines[n - 1].func = name;
		lines[n - 1].system_name = res.func;
	}
	return pprof__location(p, map, ip, lines, n);
}

int pprof_stacks__sample(struct pprof *p, struct session *s, const struct pprof_who *w,
			 const int64_t *values)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(s), w->stack, &nr);
	uint64_t *locs = malloc((nr ? nr : 1) * sizeof(*locs));
	/* Before an exec: named in the image of then. */
	pid_t in = session__stack_pid(s, w->pid, w->stack);
	const char *comm = session__stack_comm(s, w->pid, w->stack);
	struct pprof_label labels[3] = { { .key = "pid", .num = w->pid } };
	size_t nlabels = 1;
	int err = 0;

	if (!locs)
		return -ENOMEM;
	if (w->tid > 0)
		labels[nlabels++] = (struct pprof_label){ .key = "tid", .num = w->tid };
	/* "?": the session never learned it (the reports print "?"). */
	if (comm && comm[0] && strcmp(comm, "?"))
		labels[nlabels++] = (struct pprof_label){ .key = "comm", .str = comm };
	for (uint32_t i = 0; i < nr && !err; i++) {
		locs[i] = location_of(p, s, in, ips[i], i > 0);
		if (!locs[i])
			err = -ENOMEM;
	}
	if (!err)
		err = pprof__sample(p, locs, nr, values, labels, nlabels);
	free(locs);
	return err;
}

int pprof_stacks__write(const struct pprof *p, const char *path, struct errbuf *eb)
{
	struct ostream *os;
	void *buf = NULL;
	size_t len = 0;
	int err;

	err = pprof__encode(p, &buf, &len);
	if (err)
		return errbuf__set(eb, err, "cannot make the profile: %s", strerror(-err));
	if (!strcmp(path, "-")) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
			err = errbuf__set(eb, -EIO, "cannot write to stdout: %s", strerror(errno));
		free(buf);
		return err;
	}
	err = tool__output_open(path, -1, &os, eb);
	if (!err) {
		if (fwrite(buf, 1, len, ostream__file(os)) != len)
			err = -EIO;
		err = tool__output_close(path, os, err, eb);
	}
	free(buf);
	return err;
}

/* ---- a tool's sites ---- */

static int site_sample(struct pprof *p, struct session *s, const struct stack_site *site,
		       const enum stack_col *cols, size_t ncols)
{
	int64_t values[STACK_NCOLS];

	for (size_t i = 0; i < ncols; i++)
		values[i] = (int64_t)stack_site__col(site, cols[i]);
	return pprof_stacks__sample(p, s, &(struct pprof_who){ site->pid, site->tid, site->stack },
				    values);
}

int pprof_stacks__table(struct pprof *p, struct session *s, const struct stack_table *t,
			const enum stack_col *cols, size_t ncols)
{
	int err = 0;

	if (ncols > STACK_NCOLS)
		return -EINVAL;
	for (size_t i = 0; i < stack_table__count(t) && !err; i++)
		err = site_sample(p, s, stack_table__at(t, i), cols, ncols);
	return err;
}

int pprof_stacks__sites(struct pprof *p, struct session *s, const struct stack_site *sites,
			size_t n, const enum stack_col *cols, size_t ncols)
{
	int err = 0;

	if (ncols > STACK_NCOLS)
		return -EINVAL;
	for (size_t i = 0; i < n && !err; i++)
		err = site_sample(p, s, &sites[i], cols, ncols);
	return err;
}

int pprof_stacks__heap(struct session *s, const struct heap_profile *hp, struct pprof **out)
{
	static const struct pprof_value_type types[] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
		{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
	};
	const struct heap_totals *t = heap_profile__totals(hp);
	struct pprof_opts o = {
		.types = types, .ntypes = 4,
		.period_type = { "space", "bytes" }, .period = 1,
		.default_type = "inuse_space",
		.time_nanos = t->first_time ? (int64_t)session__realtime(s, t->first_time) : 0,
		.duration_nanos = t->last_time > t->first_time ?
				  (int64_t)(t->last_time - t->first_time) : 0,
	};
	struct stack_site *sites = NULL;
	size_t nsites = 0;
	int err;

	*out = NULL;
	err = pprof_stacks__new(s, &o, out);
	if (!err)
		err = heap_profile__sites(hp, &sites, &nsites);
	if (!err)
		err = pprof_stacks__sites(*out, s, sites, nsites,
					  (const enum stack_col[]){ STACK_CALLS, STACK_BYTES,
						  STACK_LEAKED_BLOCKS, STACK_LEAKED }, 4);
	free(sites);
	if (err) {
		pprof__free(*out);
		*out = NULL;
	}
	return err;
}
