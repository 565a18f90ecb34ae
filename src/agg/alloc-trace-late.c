/*
 * alloc-trace-late: allocators a process of the target maps once the run
 * goes on (alloc-trace-int.h): a library it dlopen's, or the first
 * allocator of a program it exec's, probed while the session runs
 * (session__grow_begin()); recording, told to the replay by a META, from
 * which a replay adds the same probes' recorded events.
 *
 * May call: the tracer's probes (alloc-trace-probes.c), stack/
 * (allocator identification, mapped ELF files), trace/session, lib/.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "stack/addrspace.h"
#include "stack/alloc-find.h"
#include "stack/elf-sym.h"
#include "agg/alloc-trace-int.h"
#include "lib/hashmap.h"
#include "trace/session.h"

/* The probes of spec @spec on @path, their events named with @suffix,
 * added to the running session (in a replay: the recorded ones). */
static int probe_late(struct alloc_trace *at, const char *spec, const char *path,
		      const char *suffix, struct late *lt, struct errbuf *eb)
{
	struct errbuf eb2 = { "" };
	int err, err2;

	err = session__grow_begin(at->s, eb);
	if (err)
		return err;
	err = at__probe_object(at, spec, path, suffix, &lt->p, eb);
	err2 = session__grow_end(at->s, !err, &eb2);
	if (!err && err2) {
		errbuf__set(eb, err2, "%s", eb2.msg);
		err = err2;
	}
	return err;
}

/* A new slot in at->late, zeroed; NULL when out of memory. */
static struct late *new_late(struct alloc_trace *at)
{
	struct late *nv = realloc(at->late, (at->nlate + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	at->late = nv;
	memset(&nv[at->nlate], 0, sizeof(*nv));
	return &nv[at->nlate];
}

/*
 * Recording, an allocator probed late is told to the replay in the stream,
 * after its EVENTs (session__grow_end wrote them): the META "alloc.late",
 * "SUFFIX<tab>SPEC<tab>PATH<tab>WHAT" (the events' name suffix, the probe
 * spec, the object, the line the tools print).  A replay adds the same
 * probes' recorded events there (at__on_meta).
 */
#define LATE_META "alloc.late"

static void record_late(struct alloc_trace *at, const char *suffix, const char *spec,
			const char *path, const char *what)
{
	char v[sizeof(((struct late *)0)->line) + PATH_MAX + 128];
	int err;

	snprintf(v, sizeof(v), "%s\t%s\t%s\t%s", suffix, spec, path, what);
	err = session__record_meta(at->s, LATE_META, v);
	if (err && !at->err)
		at->err = err;	/* the recorder latched it too: the run fails */
}

/*
 * A process of the target mapped code.  Looked at when the process runs
 * already (it entered the allocator since its exec: a library dlopen'ed;
 * the libraries ld.so loads at start-up, among them a libc whose malloc a
 * preloaded or linked-in allocator overrides, come before), or when it was
 * exec'd and this is the first object it maps that defines malloc (its
 * program's allocator: a command that enters a container execs a program
 * whose libc is the container's).  One that defines malloc and is not
 * probed yet gets its allocator's probes now, on every task of the target;
 * what it allocated before is not seen.
 */
void at__on_mmap(struct session *s, pid_t pid, const struct map *m, void *ctx)
{
	struct alloc_trace *at = ctx;
	struct errbuf eb = { "" };
	char path[PATH_MAX];
	struct allocator al;
	struct late *lt;
	char suffix[24];
	uint64_t key = obj_key(m->maj, m->min, m->ino), seen = 0;
	bool fresh;
	int err;

	/* A replay learns them from the recording (at__on_meta), not from
	 * files here. */
	if (at->o.kernel || !(m->prot & PROT_EXEC) || !m->path || m->path[0] != '/' || !m->ino ||
	    session__replaying(s) || !session__in_target(s, pid))
		return;
	fresh = hashmap__get(at->fresh, (uint64_t)pid, NULL);
	if (!fresh && !hashmap__get(at->running, (uint64_t)pid, NULL))
		return;
	if (hashmap__get(at->objs, key, &seen)) {
		/* Its allocator is one looked at before: decided. */
		if (fresh && seen != OBJ_PLAIN)
			hashmap__delete(at->fresh, (uint64_t)pid, NULL);
		return;
	}
	if (elf_sym__mapped_file(pid, m, path, sizeof(path), NULL))
		return;		/* gone already */
	if (allocator__identify(path, fresh ? "exec'd" : "dlopen'ed", &al)) {
		if (hashmap__set(at->objs, key, OBJ_PLAIN))
			at->err = -ENOMEM;
		return;
	}
	hashmap__delete(at->fresh, (uint64_t)pid, NULL);
	lt = new_late(at);
	if (!lt || hashmap__set(at->objs, key, OBJ_UNPROBED)) {
		at->err = -ENOMEM;
		return;
	}
	snprintf(suffix, sizeof(suffix), "_l%zu", at->nlate + 1);
	err = probe_late(at, al.spec, al.path, suffix, lt, &eb);
	if (fresh)
		snprintf(lt->line, sizeof(lt->line),
			 "%s in %s as pid %d sees it (the allocator of the program it exec'd)",
			 al.name, m->path, (int)pid);
	else
		snprintf(lt->line, sizeof(lt->line), "%s in %s (dlopen'ed by pid %d)", al.name,
			 m->path, (int)pid);
	if (!err) {
		at->nlate++;
		hashmap__set(at->objs, key, OBJ_PROBED);
		if (session__recording(s))
			record_late(at, suffix, al.spec, al.path, lt->line);
	}
	if (at->h.late)
		at->h.late(at->h.ctx, lt->line, lt->p.roles, err, eb.msg);
}

/* Replaying: an allocator the recording probed late (record_late()), its
 * recorded events added from here on.  Said only when that fails: the
 * report names it with the others (alloc_trace__late()). */
void at__on_meta(struct session *s, const char *key, const char *value, void *ctx)
{
	struct alloc_trace *at = ctx;
	struct errbuf eb = { "" };
	char f[4][sizeof(((struct late *)0)->line)];
	const char *p = value;
	struct late *lt;
	int err;

	if (strcmp(key, LATE_META) || at->o.kernel)
		return;
	for (int i = 0; i < 4; i++) {
		size_t n = i < 3 ? strcspn(p, "\t") : strlen(p);

		if (n >= sizeof(f[i]) || (i < 3 && p[n] != '\t')) {
			f[0][0] = '\0';
			break;
		}
		memcpy(f[i], p, n);
		f[i][n] = '\0';
		p += n + (i < 3);
	}
	lt = new_late(at);
	if (!lt) {
		at->err = -ENOMEM;
		return;
	}
	/* A spec by name only: a recording names no file to load. */
	if (strncmp(f[0], "_l", 2) || !f[1][0] || strchr(f[1], '/') || !f[2][0]) {
		snprintf(lt->line, sizeof(lt->line), "an allocator the recording probed late");
		err = errbuf__set(&eb, -EBADMSG, "the recording's %s is malformed", LATE_META);
	} else {
		snprintf(lt->line, sizeof(lt->line), "%s", f[3]);
		err = probe_late(at, f[1], f[2], f[0], lt, &eb);
	}
	if (!err)
		at->nlate++;
	else if (at->h.late)
		at->h.late(at->h.ctx, lt->line, lt->p.roles, err, eb.msg);
	(void)s;
}

