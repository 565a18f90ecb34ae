/*
 * alloc-trace-keep: the doors of the allocation tracer's table
 * (alloc-trace-int.h): what a block or region made must pass to be kept
 * (the size limits, -s N, not the dynamic loader's own regions nor a
 * static glibc's start-up blocks; its stack taken), and what a free or an
 * unmap releases; the made and freed hooks.  And where a static glibc's
 * start-up functions are, found in its file or read from a recording.
 *
 * May call: agg/alloc-track and alloc-sample, trace/session (stacks,
 * recording metas), stack/ (the address spaces, stack table, ELF
 * symbols), lib/.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "stack/addrspace.h"
#include "stack/elf-sym.h"
#include "agg/alloc-sample.h"
#include "agg/alloc-trace-int.h"
#include "lib/file.h"
#include "trace/session.h"
#include "stack/stackdb.h"

static bool size_wanted(const struct alloc_trace *at, uint64_t size)
{
	return size >= at->o.min_size && (!at->o.max_size || size <= at->o.max_size);
}

void at__release(struct alloc_trace *at, const struct sample *smp, pid_t pid, uint64_t addr,
		 uint64_t region_len)
{
	struct alloc_rec r;

	if (region_len) {
		if (alloc_track__unmap(at->track, pid, addr, region_len) < 0)
			at->err = -ENOMEM;
		return;
	}
	if (!alloc_track__remove(at->track, pid, addr, &r)) {
		at->st.frees++;
		if (at->h.freed)
			at->h.freed(at->h.ctx, smp, &r);
	} else if (alloc_sample__picked(&at->sample, addr)) {
		/* (the block's size unknown: among the addresses the small
		 * blocks' stratum would have kept) */
		at->st.unknown_frees++;
	}
}

/* Whether a path is a dynamic loader: ld-linux-x86-64.so.2, ld-2.17.so,
 * ld-musl-x86_64.so.1, whatever the directory; or musl's libc.so, which is
 * its loader (/lib/ld-musl-x86_64.so.1 links to it, and maps show the
 * file: its start-up brk of 8 KiB came out as a leak). */
static bool loader_path(const char *path)
{
	const char *base = path ? path_base(path) : NULL;

	return base && ((!strncmp(base, "ld-", 3) && strstr(base, ".so")) ||
			(!strcmp(base, "libc.so") && strstr(path, "musl")));
}

/*
 * A region the dynamic loader mapped for itself, every frame of its stack
 * inside the loader: ld.so's minimal malloc at start-up (search paths,
 * the initial TLS block) holds such memory for the life of the process.
 * It is the runtime's, not a leak of the program's, and BCC, which probes
 * libc's mmap only, never shows it either.
 */
static bool loader_own(struct alloc_trace *at, pid_t pid, uint32_t stack)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(at->s), stack, &nr);

	for (uint32_t i = 0; i < nr; i++) {
		const struct map *m = addrspaces__find(session__addrspaces(at->s), pid, ips[i]);

		if (!m || !loader_path(m->path))
			return false;
	}
	return nr > 0;
}

/*
 * A block or region a static glibc's start-up made for itself, before
 * main: _dl_non_dynamic_init (the paths, link map and origin its built-in
 * loader keeps: 5 blocks, ~1.8 KB) and __libc_setup_tls (the TLS block, by
 * brk).  In a dynamic program ld.so makes them with its own minimal
 * malloc, which is not probed; counted, they made every static program
 * look as if it leaked them.  Looked for in the innermost frames only.
 */
static bool startup_own(struct alloc_trace *at, pid_t pid, uint32_t stack)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(at->s), stack, &nr);

	for (uint32_t i = 0; i < nr && i < 6; i++) {
		uint64_t ip = ips[i] - (i > 0);	/* a return address: the call is before */
		const struct map *m = addrspaces__find(session__addrspaces(at->s), pid, ip);
		uint64_t off;

		if (!m || m->ino != at->startup_ino || m->maj != at->startup_maj ||
		    m->min != at->startup_min)
			continue;
		off = ip - m->start + m->pgoff;
		for (size_t k = 0; k < at->nstartup; k++)
			if (off >= at->startup[k].off && off < at->startup[k].end)
				return true;
	}
	return false;
}

/* Keep @r (its stack still to take) if the options want it; true when
 * it was kept. */
bool at__keep(struct alloc_trace *at, const struct sample *smp, struct alloc_rec *r,
	      bool kernel)
{
	int err;

	/* Regions are few and large: sampling them would only add noise. */
	if (!size_wanted(at, r->size) ||
	    (!r->region && !alloc_sample__weight(&at->sample, r->addr, r->size)))
		return false;
	err = kernel ? session__kernel_stack(at->s, smp, &r->stack) :
		       session__user_stack(at->s, smp, &r->stack);
	if (!err && r->region && !kernel && loader_own(at, r->pid, r->stack)) {
		at->st.loader_regions++;
		return false;
	}
	/* Sampled in the kernel, the allocator's entries are not seen: a
	 * region made while a call of it is in flight (its mmap for a large
	 * block, its brk) shows its return probe's trampoline on the stack,
	 * and is the allocator's, not the program's. */
	if (!err && r->region && !kernel && ksampled(at) &&
	    session__stack_return_probed(at->s, r->pid, r->stack))
		return false;
	if (!err && !kernel && at->nstartup && startup_own(at, r->pid, r->stack)) {
		at->st.startup_blocks++;
		return false;
	}
	if (!err)
		err = alloc_track__add(at->track, r);
	if (err) {
		at->err = err;
		return false;
	}
	at->st.allocs++;
	at->st.allocs_by_kind[alloc_rec__kind(r)]++;
	if (at->h.made)
		at->h.made(at->h.ctx, smp, r);
	return true;
}

/* A static glibc's start-up functions in @path (startup_own), kept in a
 * recording's meta "alloc.startup" as "INO MAJ MIN OFF-END..." for its
 * replay.  Missing functions are no error: there is less to leave out. */
void at__startup_find(struct alloc_trace *at, const char *path)
{
	static const char *const fns[] = { "_dl_non_dynamic_init", "__libc_setup_tls",
					   "__libc_init_first" };
	char meta[256];
	struct stat st;
	size_t used;

	if (stat(path, &st))
		return;
	at->startup_ino = st.st_ino;
	at->startup_maj = major(st.st_dev);
	at->startup_min = minor(st.st_dev);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		uint64_t off, size;

		if (elf_sym__function(path, fns[i], &off, &size, NULL) || !size)
			continue;
		at->startup[at->nstartup].off = off;
		at->startup[at->nstartup++].end = off + size;
	}
	if (!at->nstartup || !session__recording(at->s))
		return;
	used = (size_t)snprintf(meta, sizeof(meta), "%" PRIu64 " %u %u", at->startup_ino,
				at->startup_maj, at->startup_min);
	for (size_t k = 0; k < at->nstartup && used < sizeof(meta); k++)
		used += (size_t)snprintf(meta + used, sizeof(meta) - used, " %" PRIu64 "-%" PRIu64,
					 at->startup[k].off, at->startup[k].end);
	session__record_meta(at->s, "alloc.startup", meta);
}

/* The same from a recording's meta. */
void at__startup_replay(struct alloc_trace *at, const char *meta)
{
	const char *s = meta;
	char *end;

	if (!s || sscanf(s, "%" SCNu64 " %u %u", &at->startup_ino, &at->startup_maj,
			 &at->startup_min) != 3)
		return;
	for (int f = 0; f < 3 && s; f++)
		s = strchr(s + 1, ' ');
	while (s && at->nstartup < sizeof(at->startup) / sizeof(at->startup[0])) {
		uint64_t off = strtoull(s + 1, &end, 10), e;

		if (*end != '-')
			break;
		e = strtoull(end + 1, &end, 10);
		at->startup[at->nstartup].off = off;
		at->startup[at->nstartup++].end = e;
		s = *end == ' ' ? end : NULL;
	}
}

