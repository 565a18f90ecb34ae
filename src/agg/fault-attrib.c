/*
 * fault-attrib: faults attributed to allocations.  See fault-attrib.h.
 *
 * Owners live in one keyed table: a site under (pid << 32 | stack), a
 * region under 1 << 63 | pid << 32 | region << 24 | path id.  Distinct
 * pages are counted with one map from (pid, page) to the owner that last
 * faulted there, so a page counts again only for another owner (freed and
 * reused by another site, or unmapped and remapped).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/fault-attrib.h"
#include "agg/major-pair.h"
#include "lib/grow.h"
#include "lib/hashmap.h"
#include "lib/keyed.h"

#define PAGE_SHIFT 12
#define REGION_KEY (1ULL << 63)

/* A fault waiting for its thread's allocator call to return. */
struct waiting {
	uint64_t addr;
	enum fault_kind kind;
	bool major;
};

struct thread_wait {
	pid_t tid;
	size_t n, cap;
	struct waiting *v;
};

struct fault_attrib {
	const struct alloc_track *track;
	fault_region_fn region_fn;
	void *region_ctx;
	struct keyed *owners;		/* key -> struct fault_owner */
	struct hashmap *pages;		/* pid << 36 | page -> owner key */
	char **paths;			/* interned file paths; id = index */
	size_t npaths;
	struct hashmap *path_idx;	/* hash of a path -> id + 1 */
	struct thread_wait *waits;	/* threads with faults waiting */
	size_t nwaits;
	struct hashmap *wait_idx;	/* tid -> index + 1 in waits */
	/* The last fault of each thread: page, and its owner's key, or
	 * WAITING_KEY when it waits in the thread's list. */
	struct major_pair *majors;	/* each thread's last fault, for its major event */
	struct fault_totals totals;
};

#define WAITING_KEY UINT64_MAX

enum fault_kind fault_kind__from_error_code(uint64_t error_code)
{
	if (!(error_code & 1))
		return FAULT_FIRST_TOUCH;
	return error_code & 2 ? FAULT_COW : FAULT_PROT;
}

static const char *const region_names[REGION__COUNT] = {
	[REGION_STACK] = "stack", [REGION_HEAP] = "heap", [REGION_FILE] = "file",
	[REGION_ANON] = "anon", [REGION_OTHER] = "other",
};

const char *fault_region__name(enum fault_region r)
{
	return (unsigned int)r < REGION__COUNT ? region_names[r] : "?";
}

unsigned int alloc_rec__class(const struct alloc_rec *r)
{
	unsigned int c;

	if (r->region)
		return r->fn == ALLOC_BRK ? CLASS_BRK : CLASS_ANON;
	if (r->mapped)
		c = CLASS_MMAP;
	else
		c = r->size <= 128 ? CLASS_SMALL : CLASS_HEAP;
	return r->fn == ALLOC_CALLOC ? c | CLASS_ZEROED : c;
}

void alloc_class__format(unsigned int classes, char *buf, size_t n)
{
	static const char *const names[] = { "small", "heap", "mmap", "zeroed", "anon", "brk" };
	size_t len = 0;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int w;

		if (!(classes & (1u << i)) || len >= n)
			continue;
		w = snprintf(buf + len, n - len, "%s%s", len ? "," : "", names[i]);
		if (w > 0)
			len += (size_t)w;
	}
}

int fault_attrib__new(const struct alloc_track *track, fault_region_fn region_fn, void *ctx,
		      struct fault_attrib **out)
{
	struct fault_attrib *fa = calloc(1, sizeof(*fa));

	*out = NULL;
	if (!fa)
		return -ENOMEM;
	fa->track = track;
	fa->region_fn = region_fn;
	fa->region_ctx = ctx;
	fa->owners = keyed__new(sizeof(struct fault_owner));
	fa->pages = hashmap__new();
	fa->path_idx = hashmap__new();
	fa->wait_idx = hashmap__new();
	if (!fa->owners || !fa->pages || !fa->path_idx || !fa->wait_idx ||
	    major_pair__new(&fa->majors)) {
		fault_attrib__free(fa);
		return -ENOMEM;
	}
	*out = fa;
	return 0;
}

void fault_attrib__free(struct fault_attrib *fa)
{
	if (!fa)
		return;
	for (size_t i = 0; i < fa->npaths; i++)
		free(fa->paths[i]);
	free(fa->paths);
	for (size_t i = 0; i < fa->nwaits; i++)
		free(fa->waits[i].v);
	free(fa->waits);
	keyed__free(fa->owners);
	hashmap__free(fa->pages);
	hashmap__free(fa->path_idx);
	hashmap__free(fa->wait_idx);
	major_pair__free(fa->majors);
	free(fa);
}

/* ---- owners ---- */

static uint64_t site_key(pid_t pid, uint32_t stack)
{
	return (uint64_t)((uint32_t)pid & 0x7fffffff) << 32 | stack;
}

static struct fault_owner *site(struct fault_attrib *fa, pid_t pid, uint32_t stack)
{
	int created;
	struct fault_owner *o = keyed__get(fa->owners, site_key(pid, stack), &created);

	if (o && created) {
		o->is_site = true;
		o->pid = pid;
		o->stack = stack;
	}
	return o;
}

/* The id of @path, interned; -1 when out of memory. */
static long path_id(struct fault_attrib *fa, const char *path)
{
	uint64_t h = hash_bytes(path, strlen(path)), idx;
	char **nv;

	/* Equal hashes of different paths probe onwards. */
	for (;; h++) {
		if (!hashmap__get(fa->path_idx, h, &idx))
			break;
		if (!strcmp(fa->paths[idx - 1], path))
			return (long)(idx - 1);
	}
	if (fa->npaths >= (1u << 24))
		return -1;
	nv = realloc(fa->paths, (fa->npaths + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	fa->paths = nv;
	nv[fa->npaths] = strdup(path);
	if (!nv[fa->npaths] || hashmap__set(fa->path_idx, h, fa->npaths + 1)) {
		free(nv[fa->npaths]);
		return -1;
	}
	return (long)fa->npaths++;
}

static struct fault_owner *region(struct fault_attrib *fa, pid_t pid, uint64_t addr,
				  uint64_t *key)
{
	enum fault_region r = REGION_OTHER;
	const char *path = NULL;
	long id = 0;
	struct fault_owner *o;
	int created;

	if (fa->region_fn)
		fa->region_fn(fa->region_ctx, pid, addr, &r, &path);
	if ((unsigned int)r >= REGION__COUNT)
		r = REGION_OTHER;
	if (r != REGION_FILE)
		path = NULL;
	if (path && (id = path_id(fa, path)) < 0)
		return NULL;
	*key = REGION_KEY | (uint64_t)((uint32_t)pid & 0x7fffffff) << 32 | (uint64_t)r << 24 |
	       (uint64_t)id;
	o = keyed__get(fa->owners, *key, &created);
	if (o && created) {
		o->pid = pid;
		o->region = r;
		o->path = path ? fa->paths[id] : NULL;
	}
	return o;
}

/* Counts one fault for owner @o under @key. */
static int count(struct fault_attrib *fa, struct fault_owner *o, uint64_t key, pid_t pid,
		 uint64_t addr, enum fault_kind kind, bool major, bool in_allocator)
{
	uint64_t pkey = (uint64_t)(uint32_t)pid << 36 ^ (addr >> PAGE_SHIFT), prev;

	if (!hashmap__get(fa->pages, pkey, &prev) || prev != key) {
		if (hashmap__set(fa->pages, pkey, key))
			return -ENOMEM;
		o->pages++;
	}
	o->faults++;
	o->first_touch += kind == FAULT_FIRST_TOUCH;
	o->cow += kind == FAULT_COW;
	o->prot += kind == FAULT_PROT;
	o->major += major;
	o->in_allocator += in_allocator;
	fa->totals.faults++;
	if (o->is_site) {
		fa->totals.to_allocations++;
		fa->totals.in_allocator += in_allocator;
	} else {
		fa->totals.to_regions++;
	}
	return 0;
}

/* Attributes a fault by its address; *key gets its owner's key. */
static int by_address(struct fault_attrib *fa, pid_t pid, uint64_t addr, enum fault_kind kind,
		      bool major, uint64_t *key)
{
	struct alloc_rec r;
	struct fault_owner *o;

	if (!alloc_track__lookup(fa->track, pid, addr, &r)) {
		*key = site_key(pid, r.stack);
		o = site(fa, pid, r.stack);
		/* A fork child's copies were made in its parent. */
		if (o)
			o->classes |= alloc_rec__class(&r);
	} else {
		o = region(fa, pid, addr, key);
	}
	return o ? count(fa, o, *key, pid, addr, kind, major, false) : -ENOMEM;
}

/* ---- faults ---- */

static struct thread_wait *wait_of(struct fault_attrib *fa, pid_t tid, bool make)
{
	uint64_t idx;
	struct thread_wait *nv;

	if (hashmap__get(fa->wait_idx, (uint64_t)tid, &idx))
		return &fa->waits[idx - 1];
	if (!make)
		return NULL;
	nv = realloc(fa->waits, (fa->nwaits + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	fa->waits = nv;
	if (hashmap__set(fa->wait_idx, (uint64_t)tid, fa->nwaits + 1))
		return NULL;
	nv[fa->nwaits] = (struct thread_wait){ .tid = tid };
	return &nv[fa->nwaits++];
}

static int note_last(struct fault_attrib *fa, pid_t tid, uint64_t addr, uint64_t key)
{
	return major_pair__fault(fa->majors, tid, addr, key);
}

int fault_attrib__fault(struct fault_attrib *fa, pid_t pid, pid_t tid, uint64_t addr,
			enum fault_kind kind, bool in_allocator)
{
	uint64_t key = 0;
	int err;

	if (in_allocator) {
		struct thread_wait *w = wait_of(fa, tid, true);

		if (!w)
			return -ENOMEM;
		if (GROW_FOR(w->v, w->cap, w->n + 1, 16))
			return -ENOMEM;
		w->v[w->n++] = (struct waiting){ .addr = addr, .kind = kind };
		fa->totals.waiting++;
		return note_last(fa, tid, addr, WAITING_KEY);
	}
	err = by_address(fa, pid, addr, kind, false, &key);
	return err ? err : note_last(fa, tid, addr, key);
}

void fault_attrib__major(struct fault_attrib *fa, pid_t tid, uint64_t addr)
{
	uint64_t key;
	struct fault_owner *o;

	if (!major_pair__major(fa->majors, tid, addr, &key))
		return;	/* its fault came before tracing began */
	if (key == WAITING_KEY) {
		struct thread_wait *w = wait_of(fa, tid, false);

		if (w && w->n)
			w->v[w->n - 1].major = true;
		return;
	}
	o = keyed__find(fa->owners, key);
	if (o)
		o->major++;
}

int fault_attrib__made(struct fault_attrib *fa, const struct alloc_rec *r)
{
	struct fault_owner *o = site(fa, r->pid, r->stack);

	if (!o)
		return -ENOMEM;
	o->allocs++;
	o->bytes += r->size;
	o->classes |= alloc_rec__class(r);
	return 0;
}

/* Attributes @tid's waiting faults: to @made's site, as the allocator's
 * work, or each by its address when the call made nothing. */
static int flush(struct fault_attrib *fa, pid_t pid, pid_t tid, const struct alloc_rec *made)
{
	struct thread_wait *w = wait_of(fa, tid, false);
	uint64_t key = 0;
	int err = 0;

	if (!w || !w->n)
		return 0;
	for (size_t i = 0; i < w->n && !err; i++) {
		const struct waiting *f = &w->v[i];

		if (made) {
			struct fault_owner *o = site(fa, made->pid, made->stack);

			key = site_key(made->pid, made->stack);
			err = o ? count(fa, o, key, pid, f->addr, f->kind, f->major, true) : -ENOMEM;
		} else {
			err = by_address(fa, pid, f->addr, f->kind, f->major, &key);
		}
	}
	fa->totals.waiting -= w->n;
	/* A major-faults event still to come for the last one finds it. */
	if (!err)
		err = major_pair__reown(fa->majors, tid, WAITING_KEY, key);
	w->n = 0;
	return err;
}

int fault_attrib__returned(struct fault_attrib *fa, pid_t pid, pid_t tid,
			   const struct alloc_rec *made)
{
	return flush(fa, pid, tid, made);
}

int fault_attrib__thread_exit(struct fault_attrib *fa, pid_t pid, pid_t tid)
{
	uint64_t idx;
	int err = flush(fa, pid, tid, NULL);

	major_pair__forget(fa->majors, tid);
	if (!hashmap__delete(fa->wait_idx, (uint64_t)tid, &idx))
		return err;
	/* Fill the hole with the last thread's list. */
	free(fa->waits[idx - 1].v);
	if (idx != fa->nwaits) {
		fa->waits[idx - 1] = fa->waits[fa->nwaits - 1];
		if (hashmap__set(fa->wait_idx, (uint64_t)fa->waits[idx - 1].tid, idx))
			err = -ENOMEM;
	}
	fa->nwaits--;
	return err;
}

/* ---- results ---- */

size_t fault_attrib__count(const struct fault_attrib *fa)
{
	return keyed__count(fa->owners);
}

const struct fault_owner *fault_attrib__at(const struct fault_attrib *fa, size_t i)
{
	return keyed__at(fa->owners, i);
}

void fault_attrib__sort(struct fault_attrib *fa,
			int (*cmp)(const void *, const void *, void *), void *ctx)
{
	keyed__sort(fa->owners, cmp, ctx);
}

void fault_attrib__totals(const struct fault_attrib *fa, struct fault_totals *t)
{
	*t = fa->totals;
}
