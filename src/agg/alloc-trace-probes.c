/*
 * alloc-trace-probes: the allocator's probes for the allocation tracer
 * (alloc-trace-int.h): the allocator found (without -O and --probes: the
 * object that provides the target's malloc), its probe spec loaded and
 * retargeted, each probe's role (malloc_enter, free_enter,
 * realloc_return...), placement, handler, fields and kernel filters;
 * sampled in the kernel, the probes its filters read.
 *
 * May call: the tracer's parts (alloc-trace-int.h: sampling, start-up
 * functions, handlers, contexts), stack/alloc-find, trace/probe-spec and
 * session, lib/.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "stack/alloc-find.h"
#include "agg/alloc-sample.h"
#include "agg/alloc-trace-int.h"
#include "trace/tp-catalog.h"
#include "lib/hashmap.h"
#include "trace/probe-spec.h"
#include "trace/session.h"

static const struct role roles[] = {
	{ "malloc", ALLOC_MALLOC, false, false },
	{ "calloc", ALLOC_CALLOC, false, false },
	{ "realloc", ALLOC_REALLOC, false, true },
	{ "reallocarray", ALLOC_REALLOC, false, true },
	{ "aligned_alloc", ALLOC_MEMALIGN, false, false },
	{ "memalign", ALLOC_MEMALIGN, false, false },
	{ "valloc", ALLOC_MEMALIGN, false, false },
	{ "pvalloc", ALLOC_MEMALIGN, false, false },
	{ "posix_memalign", ALLOC_POSIX_MEMALIGN, false, false },
	{ "free", ALLOC_MALLOC, true, false },
	/* jemalloc's own API; C++ operators (new__array, delete__sized...) */
	{ "mallocx", ALLOC_MALLOC, false, false },
	{ "rallocx", ALLOC_REALLOC, false, false },
	{ "dallocx", ALLOC_MALLOC, true, false },
	{ "sdallocx", ALLOC_MALLOC, true, false },
	{ "new", ALLOC_MALLOC, false, false },
	{ "delete", ALLOC_MALLOC, true, false },
};


/*
 * The role of a probe named ROLE_enter, ROLE_return or ROLE_store, or
 * ROLE__VARIANT_... : one role served by several functions (operator new,
 * new[], their nothrow and aligned forms are all "new": new__array_enter,
 * new__aligned_nothrow_return...).  Entry and return pair by stack
 * pointer, so the variants of a role never mix.
 */
static const struct role *role_of(const char *probe, int *kind)
{
	static const struct { const char *suffix; int kind; } suffixes[] = {
		{ "_enter", KIND_ENTER }, { "_return", KIND_RETURN }, { "_store", KIND_STORE },
	};

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t ls = strlen(suffixes[i].suffix), lp = strlen(probe), lr;
		const char *variant = strstr(probe, "__");

		if (lp <= ls || strcmp(probe + lp - ls, suffixes[i].suffix))
			continue;
		lr = variant && variant > probe && (size_t)(variant - probe) < lp - ls ?
		     (size_t)(variant - probe) : lp - ls;
		for (size_t r = 0; r < sizeof(roles) / sizeof(roles[0]); r++) {
			if (strlen(roles[r].name) == lr && !strncmp(probe, roles[r].name, lr)) {
				*kind = roles[r].is_free ? KIND_FREE : suffixes[i].kind;
				return &roles[r];
			}
		}
	}
	return NULL;
}

/* Which probe spec: --probes, else by the -O library's name, else the
 * one of the allocator found (@found), else glibc's. */
static const char *spec_name(const struct alloc_trace_opts *lo, const char *found)
{
	if (lo->probes)
		return lo->probes;
	if (lo->obj && strstr(lo->obj, "jemalloc"))
		return "jemalloc";
	if (lo->obj && strstr(lo->obj, "tcmalloc"))
		return "tcmalloc";
	if (lo->obj && strstr(lo->obj, "mimalloc"))
		return "mimalloc";
	return found ? found : "glibc";
}

/*
 * Without -O and --probes: the object that provides the target's malloc
 * (alloc-find.h), for a command before it runs, for a process from its
 * maps; a replay takes the spec the recording was made with.  0 and
 * *spec NULL: nothing to find (every process, or a file we cannot read),
 * the spec's library by name as before; -ENOENT: the target has no
 * allocator, said in @eb.
 */
static int find_allocator(struct alloc_trace *at, struct allocator *al, const char **spec,
			  struct errbuf *eb)
{
	const char *exe = session__target_exe(at->s);
	pid_t pid = session__target_pid(at->s);
	struct errbuf why = { "" };
	int err;

	*spec = NULL;
	if (at->o.obj || at->o.probes) {
		at->chosen = true;
		return 0;
	}
	if (session__replaying(at->s)) {
		*spec = session__meta(at->s, "alloc.spec");
		at__startup_replay(at, session__meta(at->s, "alloc.startup"));
		return 0;
	}
	err = session__need_user_space(at->s, eb);
	if (err)
		return err;
	if (exe)
		err = allocator__find_exec(exe, getenv("LD_PRELOAD"), getenv("LD_LIBRARY_PATH"), al,
					   &why);
	else if (pid > 0)
		err = allocator__find_pid(pid, al, &why);
	else
		return 0;
	if (err == -ENOENT)
		return errbuf__set(eb, err, "no allocator to probe: %s (-O names one)", why.msg);
	if (err)
		return 0;
	*spec = al->spec;
	snprintf(at->obj, sizeof(at->obj), "%s", al->path);
	at->o.obj = at->obj;
	if (!strcmp(al->where, "static") && !strcmp(al->spec, "glibc"))
		at__startup_find(at, al->path);
	if (!strcmp(al->where, "static"))
		snprintf(at->found, sizeof(at->found), "static %s", al->name);
	else if (!strcmp(al->where, "library"))
		snprintf(at->found, sizeof(at->found), "%s", al->name);
	else
		snprintf(at->found, sizeof(at->found), "%s, %s", al->name, al->where);
	return 0;
}

/* "malloc, calloc, ..." grows by the role of a probe placed. */
static void note_probed(struct probed *po, const struct role *role)
{
	size_t len = strlen(po->roles);
	char *hit = strstr(po->roles, role->name);

	while (hit && ((hit > po->roles && hit[-1] != ' ') ||
		       (hit[strlen(role->name)] && hit[strlen(role->name)] != ',')))
		hit = strstr(hit + 1, role->name);
	if (!hit)
		snprintf(po->roles + len, sizeof(po->roles) - len, "%s%s", len ? ", " : "",
			 role->name);
}

struct placed {
	char path[PATH_MAX];
	uint64_t off;
	int kind;
};

/* The handler of a probe of @kind (@ks: sampled in the kernel), and the
 * flags its event takes, added to *@flags. */
static session_sample_fn probe_handler(int kind, bool ks, unsigned int *flags)
{
	switch (kind) {
	case KIND_RETURN:
		*flags |= SESSION_USER_STACK | SESSION_RETURN_PROBED;
		return ks ? at__on_made_sampled : at__on_return;
	case KIND_STORE:
		return ks ? at__on_made_sampled : at__on_store;
	case KIND_FREE:
		return at__on_free;
	default:
		/* Its return is probed: stacks sampled inside the call (a
		 * fault, a brk) need the entry's return address to unwind
		 * past the kernel's trampoline. */
		*flags |= SESSION_RETURN_PROBED;
		return at__on_enter;
	}
}

/* The fields @pc reads from its event @ev, and the event's kernel
 * filters: the sizes of -z/-Z, the sampling rule (@ks), free's NULL. */
static int probe_fields(struct alloc_trace *at, struct probe_ctx *pc, const struct tp_event *ev,
			const struct probe_spec *spec, const char *name, bool ks, struct errbuf *eb)
{
	int kind = pc->kind;
	char filter[128];
	int err = 0;

	pc->has_sp = !tp_event__field(ev, "sp", &pc->f_sp);
	pc->has_hsz = !tp_event__field(ev, "hsz", &pc->f_hsz);
	pc->has_nmemb = !tp_event__field(ev, "nmemb", &pc->f_nmemb);
	pc->has_ptr = !tp_event__field(ev, "ptr", &pc->f_ptr);
	if ((kind == KIND_ENTER && tp_event__field(ev, "size", &pc->f_size)) ||
	    (kind == KIND_RETURN && tp_event__field(ev, "ret", &pc->f_ret)) ||
	    ((kind == KIND_FREE || kind == KIND_STORE) && !pc->has_ptr))
		return errbuf__set(eb, -EINVAL, "probe '%s' of spec '%s' lacks the fetcharg its "
				   "role reads (size, ret or ptr)", spec->name, name);
	/* Sizes filtered in the kernel where the size alone decides: not
	 * calloc (a product) nor realloc (whose 0 frees). */
	if (kind == KIND_ENTER && !pc->has_nmemb && pc->role->fn != ALLOC_REALLOC &&
	    (at->o.min_size || at->o.max_size)) {
		if (at->o.max_size)
			snprintf(filter, sizeof(filter), "size >= %" PRIu64 " && size <= %" PRIu64,
				 at->o.min_size, at->o.max_size);
		else
			snprintf(filter, sizeof(filter), "size >= %" PRIu64, at->o.min_size);
		err = session__set_filter(at->s, ev, filter, eb);
	}
	if (!err && ks && pc->has_hsz) {
		err = alloc_sample__filter(&at->sample, kind == KIND_RETURN ? "ret" : "ptr", filter,
					   sizeof(filter));
		if (!err)
			err = session__set_filter(at->s, ev, filter, eb);
	} else if (!err && kind == KIND_FREE) {
		err = session__set_filter(at->s, ev, "ptr != 0", eb);
	}
	return err;
}

/* A probe's spec with @suffix added to its names (its event's and its
 * PMU event's), kept in @r. */
struct renamed {
	struct probe_spec spec, pmu;
	char name[128], pmu_name[128];
};

static const struct probe_spec *rename_spec(const struct probe_spec *spec, const char *suffix,
					    struct renamed *r)
{
	r->spec = *spec;
	snprintf(r->name, sizeof(r->name), "%s%s", spec->name, suffix);
	r->spec.name = r->name;
	if (spec->pmu) {
		r->pmu = *spec->pmu;
		snprintf(r->pmu_name, sizeof(r->pmu_name), "%s%s", spec->pmu->name, suffix);
		r->pmu.name = r->pmu_name;
		r->spec.pmu = &r->pmu;
	}
	return &r->spec;
}

/*
 * The probes of spec @name (on at->o.obj when it retargets, with
 * at->o.prefix; on @obj when given: an allocator found later), their
 * events named with @suffix ("" the first object's; "_l1"... later ones,
 * unique in the session's probe group).  What was placed goes to @po.
 */
int at__probe_object(struct alloc_trace *at, const char *name, const char *obj,
		     const char *suffix, struct probed *po, struct errbuf *eb)
{
	struct probe_set *set = NULL;
	struct placed *placed = NULL;
	size_t nplaced = 0, added = 0;
	bool have_malloc = false, have_free = false, ks;
	int err;

	if (strchr(name, '/'))
		err = probe_set__load(name, &set, eb);
	else
		err = probe_set__load_named(name, &set, eb);
	if (!err)
		err = obj ? probe_set__retarget(set, obj, NULL) :
			    probe_set__retarget(set, at->o.obj, at->o.prefix);
	if (err)
		goto out;
	placed = calloc(probe_set__count(set) + 1, sizeof(*placed));
	if (!placed) {
		err = -ENOMEM;
		goto out;
	}
	ks = at__sample_here(at, set, obj);
	for (size_t i = 0; i < probe_set__count(set); i++) {
		const struct probe_spec *spec = probe_set__at(set, i);
		struct renamed renamed;
		struct probe_spec sampled;
		char fetchargs[512];
		struct placed *pl = &placed[nplaced];
		struct tp_event *ev = NULL;
		struct probe_ctx *pc;
		unsigned int flags = 0;
		bool dup = false;
		int kind;
		const struct role *role = role_of(spec->name, &kind);
		session_sample_fn fn;

		if (suffix[0])
			spec = rename_spec(spec, suffix, &renamed);
		if (!role) {
			err = errbuf__set(eb, -EINVAL,
					  "probe '%s' of spec '%s' has no known role (malloc_enter, "
					  "free_enter, realloc_return...)", spec->name, name);
			goto out;
		}
		/* Sampled in the kernel, no entry is traced: a return (or
		 * posix_memalign's store) makes its block alone, with the
		 * size from the block's header, and realloc's entry frees
		 * the old block. */
		if (ks && kind == KIND_ENTER && role->fn == ALLOC_REALLOC) {
			kind = KIND_FREE;
		} else if (ks && (kind == KIND_ENTER ||
				  (kind == KIND_RETURN && role->fn == ALLOC_POSIX_MEMALIGN))) {
			continue;
		}
		if (ks && kind != KIND_ENTER) {
			err = at__sample_spec(at, spec, kind, &sampled, fetchargs, sizeof(fetchargs),
					      eb);
			if (err)
				goto out;
			spec = &sampled;
		}
		/* An entry probe alone may take the cheap placement; one
		 * sharing its function with a return probe stays at the
		 * entry, the breakpoint both then share. */
		if (kind == KIND_FREE && spec->kind == PROBE_ENTRY && role->is_free)
			flags |= SESSION_PLACE_CHEAP;
		err = session__uprobe_locate(at->s, spec, flags, pl->path, sizeof(pl->path), &pl->off,
					     eb);
		if (err == -ENOENT && strcmp(role->name, "malloc") && strcmp(role->name, "free")) {
			err = 0;	/* this allocator lacks the function */
			continue;
		}
		if (err == -ENOEXEC && kind == KIND_STORE && obj) {
			err = 0;	/* another build: its blocks come from aligned_alloc */
			continue;
		}
		if (err == -ENOEXEC && kind == KIND_STORE) {
			at->posix_memalign_untracked = true;
			snprintf(at->warning, sizeof(at->warning),
				 "%s; posix_memalign blocks are not tracked", eb->msg);
			err = 0;
			continue;
		}
		if (err)
			goto out;
		pl->kind = spec->kind;
		for (size_t k = 0; k < nplaced; k++)
			dup |= placed[k].off == pl->off && placed[k].kind == pl->kind &&
			       !strcmp(placed[k].path, pl->path);
		if (dup)
			continue;	/* one function, two names */
		nplaced++;
		if (!po->path[0])
			snprintf(po->path, sizeof(po->path), "%s", pl->path);
		if (spec->kind == PROBE_ENTRY || ks)
			note_probed(po, role);
		pc = at__new_ctx(at, kind);
		if (!pc) {
			err = -ENOMEM;
			goto out;
		}
		pc->role = role;
		fn = probe_handler(kind, ks, &flags);
		have_malloc |= role->fn == ALLOC_MALLOC && (ks ? kind == KIND_RETURN : kind == KIND_ENTER);
		have_free |= kind == KIND_FREE && role->is_free;
		err = session__add_uprobe(at->s, spec, flags, fn, pc, &ev, eb);
		if (err && ks && !added && !obj) {
			/* The kernel cannot read the header (uprobes without
			 * memory fetchargs or bit fields): every event then,
			 * sampled here. */
			at__sample_refused(at, eb);
			ks = false;
			nplaced = 0;
			have_malloc = have_free = false;
			po->roles[0] = po->path[0] = '\0';
			i = (size_t)-1;
			continue;
		}
		if (err)
			goto out;
		added++;
		err = probe_fields(at, pc, ev, spec, name, ks, eb);
		if (err)
			goto out;
	}
	if (!have_malloc || !have_free)
		err = errbuf__set(eb, -ENOENT, "probe spec '%s' found no malloc or no free to probe",
				  name);
out:
	free(placed);
	probe_set__free(set);
	return err;
}

int at__add_user_probes(struct alloc_trace *at, struct errbuf *eb)
{
	struct allocator al;
	const char *name, *found;
	struct stat st;
	int err;

	err = find_allocator(at, &al, &found, eb);
	if (err)
		return err;
	name = spec_name(&at->o, found);
	if (session__recording(at->s))
		session__record_meta(at->s, "alloc.spec", name);
	err = at__probe_object(at, name, NULL, "", &at->first, eb);
	/* Never probed again when a process maps it later. */
	if (!err && at->first.path[0] && !stat(at->first.path, &st) &&
	    hashmap__set(at->objs, obj_key(major(st.st_dev), minor(st.st_dev), st.st_ino),
			 OBJ_PROBED))
		err = -ENOMEM;
	return err;
}

