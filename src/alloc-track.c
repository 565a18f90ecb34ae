/*
 * alloc-track: calls in flight, the rules of completed calls, and the
 * blocks and regions outstanding.  See alloc-track.h.
 *
 * Blocks live in one open-addressing table (linear probing, deletion by
 * backward shift, so no tombstones slow a table that sees millions of
 * malloc/free pairs), keyed by (pid, address): 32 bytes a block, and the
 * table doubles at 50% load.  Regions (mmap, brk growth) are few and must
 * be searched by range, so they are a plain array scanned per munmap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc-track.h"
#include "lib/hashmap.h"

/* Calls one thread can have in flight: malloc inside realloc inside a
 * user's allocation callback is three; deeper means lost returns. */
#define MAX_DEPTH 8

struct thread_calls {
	pid_t tid;
	unsigned int n;
	struct alloc_call calls[MAX_DEPTH];
};

struct alloc_track {
	struct alloc_rec *slots;	/* addr == 0: empty */
	size_t cap, count, peak;	/* cap: power of two */
	struct alloc_rec *regions;
	size_t nregions, capregions;
	struct hashmap *thread_idx;	/* tid -> index + 1 in threads */
	struct thread_calls *threads;
	size_t nthreads;
	uint64_t replaced;
};

static const char *const fn_names[ALLOC_FN__COUNT] = {
	[ALLOC_MALLOC] = "malloc",
	[ALLOC_CALLOC] = "calloc",
	[ALLOC_REALLOC] = "realloc",
	[ALLOC_MEMALIGN] = "memalign",
	[ALLOC_POSIX_MEMALIGN] = "posix_memalign",
	[ALLOC_MMAP] = "mmap",
	[ALLOC_MREMAP] = "mremap",
	[ALLOC_BRK] = "brk",
};

const char *alloc_fn__name(enum alloc_fn fn)
{
	return (unsigned int)fn < ALLOC_FN__COUNT ? fn_names[fn] : "?";
}

/* A syscall's return value that is an error (-4095..-1). */
static bool syscall_failed(uint64_t ret)
{
	return ret >= (uint64_t)-4095;
}

void alloc_call__effect(const struct alloc_call *c, uint64_t ret, bool realloc_zero_frees,
			struct alloc_effect *e)
{
	memset(e, 0, sizeof(*e));
	switch (c->fn) {
	case ALLOC_REALLOC:
		if (!c->old)
			break;	/* realloc(NULL, n) is malloc(n) */
		if (ret) {
			e->frees = true;
			e->freed = c->old;
		} else if (c->size == 0 && realloc_zero_frees) {
			e->frees = true;
			e->freed = c->old;
			return;
		} else {
			e->failed = true;
			return;
		}
		break;
	case ALLOC_POSIX_MEMALIGN:
		if (ret != 0 || !c->ptr) {
			e->failed = true;
			return;
		}
		e->allocates = true;
		e->addr = c->ptr;
		e->size = c->size;
		return;
	case ALLOC_MMAP:
	case ALLOC_MREMAP:
		if (syscall_failed(ret) || !c->size) {
			e->failed = true;
			return;
		}
		if (c->fn == ALLOC_MREMAP) {
			e->frees = true;
			e->freed = c->old;
			e->freed_size = c->old_size;
		}
		e->allocates = true;
		e->addr = ret;
		e->size = c->size;
		return;
	case ALLOC_BRK:
		/* Without the break before the call (the first call seen),
		 * the result only sets the baseline. */
		if (!c->old || ret == c->old) {
			e->failed = c->old && c->size && ret != c->size;
			return;
		}
		if (ret > c->old) {
			e->allocates = true;
			e->addr = c->old;
			e->size = ret - c->old;
		} else {
			e->frees = true;
			e->freed = ret;
			e->freed_size = c->old - ret;
		}
		return;
	default:
		break;
	}
	if (!ret) {
		e->failed = true;
		return;
	}
	e->allocates = true;
	e->addr = ret;
	e->size = c->size;
}

int alloc_track__new(struct alloc_track **out)
{
	struct alloc_track *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->cap = 1024;
	t->slots = calloc(t->cap, sizeof(*t->slots));
	t->thread_idx = hashmap__new();
	if (!t->slots || !t->thread_idx) {
		alloc_track__free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void alloc_track__free(struct alloc_track *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t->regions);
	free(t->threads);
	hashmap__free(t->thread_idx);
	free(t);
}

/* ---- calls in flight ---- */

static struct thread_calls *thread_of(const struct alloc_track *t, pid_t tid)
{
	uint64_t idx;

	return hashmap__get(t->thread_idx, (uint64_t)tid, &idx) ? &t->threads[idx - 1] : NULL;
}

int alloc_track__enter(struct alloc_track *t, pid_t tid, struct alloc_call *c)
{
	struct thread_calls *th = thread_of(t, tid);

	if (!th) {
		struct thread_calls *nv = realloc(t->threads, (t->nthreads + 1) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		t->threads = nv;
		th = &nv[t->nthreads];
		th->tid = tid;
		th->n = 0;
		if (hashmap__set(t->thread_idx, (uint64_t)tid, t->nthreads + 1))
			return -ENOMEM;
		t->nthreads++;
	}
	/* A call at or above an in-flight call's stack pointer means that
	 * call's frame is gone: its return was never seen. */
	while (th->n && c->sp && th->calls[th->n - 1].sp && th->calls[th->n - 1].sp <= c->sp)
		th->n--;
	c->inner = th->n > 0;
	if (th->n == MAX_DEPTH) {
		memmove(th->calls, th->calls + 1, (MAX_DEPTH - 1) * sizeof(th->calls[0]));
		th->n--;
	}
	th->calls[th->n++] = *c;
	return 0;
}

int alloc_track__leave(struct alloc_track *t, pid_t tid, uint64_t sp, struct alloc_call *out)
{
	struct thread_calls *th = thread_of(t, tid);

	if (!th || !th->n)
		return -ENOENT;
	/* The return popped the return address: the entry's sp is 8 less. */
	while (th->n) {
		struct alloc_call *top = &th->calls[th->n - 1];

		if (!sp || !top->sp || top->sp == sp - 8) {
			*out = *top;
			th->n--;
			return 0;
		}
		if (top->sp > sp - 8)
			return -ENOENT;	/* an outer call: this return is not its */
		th->n--;		/* deeper, never returned */
	}
	return -ENOENT;
}

bool alloc_track__busy(const struct alloc_track *t, pid_t tid)
{
	const struct thread_calls *th = thread_of(t, tid);

	return th && th->n > 0;
}

void alloc_track__note_ptr(struct alloc_track *t, pid_t tid, enum alloc_fn fn, uint64_t ptr)
{
	struct thread_calls *th = thread_of(t, tid);

	for (unsigned int i = th ? th->n : 0; i-- > 0;) {
		if (th->calls[i].fn == fn) {
			th->calls[i].ptr = ptr;
			return;
		}
	}
}

void alloc_track__forget_thread(struct alloc_track *t, pid_t tid)
{
	uint64_t idx;

	if (!hashmap__delete(t->thread_idx, (uint64_t)tid, &idx))
		return;
	/* Fill the hole with the last thread, so memory follows the
	 * threads alive, not all that ever were. */
	if (idx != t->nthreads) {
		t->threads[idx - 1] = t->threads[t->nthreads - 1];
		hashmap__set(t->thread_idx, (uint64_t)t->threads[idx - 1].tid, idx);
	}
	t->nthreads--;
}

/* ---- blocks ---- */

static size_t slot_of(const struct alloc_track *t, pid_t pid, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 20) & (t->cap - 1);
}

static int grow(struct alloc_track *t)
{
	struct alloc_rec *old = t->slots;
	size_t oldcap = t->cap;

	t->slots = calloc(oldcap * 2, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return -ENOMEM;
	}
	t->cap = oldcap * 2;
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].addr)
			continue;
		for (j = slot_of(t, old[i].pid, old[i].addr); t->slots[j].addr; j = (j + 1) & (t->cap - 1))
			;
		t->slots[j] = old[i];
	}
	free(old);
	return 0;
}

static size_t find(const struct alloc_track *t, pid_t pid, uint64_t addr, bool *found)
{
	size_t i = slot_of(t, pid, addr);

	while (t->slots[i].addr) {
		if (t->slots[i].addr == addr && t->slots[i].pid == pid) {
			*found = true;
			return i;
		}
		i = (i + 1) & (t->cap - 1);
	}
	*found = false;
	return i;
}

static void update_peak(struct alloc_track *t)
{
	if (t->count + t->nregions > t->peak)
		t->peak = t->count + t->nregions;
}

static int add_region(struct alloc_track *t, const struct alloc_rec *r)
{
	if (t->nregions == t->capregions) {
		size_t cap = t->capregions ? t->capregions * 2 : 16;
		struct alloc_rec *nv = realloc(t->regions, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		t->regions = nv;
		t->capregions = cap;
	}
	t->regions[t->nregions++] = *r;
	update_peak(t);
	return 0;
}

int alloc_track__add(struct alloc_track *t, const struct alloc_rec *r)
{
	bool found;
	size_t i;

	if (!r->addr)
		return 0;
	if (r->region)
		return add_region(t, r);
	if ((t->count + 1) * 2 > t->cap && grow(t))
		return -ENOMEM;
	i = find(t, r->pid, r->addr, &found);
	if (found)
		t->replaced++;
	else
		t->count++;
	t->slots[i] = *r;
	update_peak(t);
	return 0;
}

int alloc_track__remove(struct alloc_track *t, pid_t pid, uint64_t addr, struct alloc_rec *out)
{
	bool found;
	size_t i = find(t, pid, addr, &found), j;

	if (!found)
		return -ENOENT;
	if (out)
		*out = t->slots[i];
	/* Backward shift: move later members of the probe run into the hole
	 * when their home slot is not after it. */
	for (j = (i + 1) & (t->cap - 1); t->slots[j].addr; j = (j + 1) & (t->cap - 1)) {
		size_t home = slot_of(t, t->slots[j].pid, t->slots[j].addr);

		if (((j - home) & (t->cap - 1)) >= ((j - i) & (t->cap - 1))) {
			t->slots[i] = t->slots[j];
			i = j;
		}
	}
	memset(&t->slots[i], 0, sizeof(t->slots[i]));
	t->count--;
	return 0;
}

int64_t alloc_track__unmap(struct alloc_track *t, pid_t pid, uint64_t addr, uint64_t len)
{
	uint64_t end = addr + len;
	int64_t released = 0;

	for (size_t i = 0; i < t->nregions;) {
		struct alloc_rec *r = &t->regions[i];
		uint64_t rend = r->addr + r->size;

		if (r->pid != pid || rend <= addr || r->addr >= end) {
			i++;
			continue;
		}
		if (r->addr >= addr && rend <= end) {
			released += (int64_t)r->size;
			*r = t->regions[--t->nregions];
			continue;	/* look at the one moved here */
		}
		if (r->addr < addr && rend > end) {
			struct alloc_rec tail = *r;

			tail.addr = end;
			tail.size = rend - end;
			r->size = addr - r->addr;
			released += (int64_t)len;
			if (add_region(t, &tail))
				return -ENOMEM;
			i++;
			continue;
		}
		if (r->addr < addr) {
			released += (int64_t)(rend - addr);
			r->size = addr - r->addr;
		} else {
			released += (int64_t)(end - r->addr);
			r->size = rend - end;
			r->addr = end;
		}
		i++;
	}
	return released;
}

size_t alloc_track__drop_pid(struct alloc_track *t, pid_t pid)
{
	size_t dropped = 0;

	for (size_t i = 0; i < t->cap; i++) {
		/* Removal shifts later slots back: look at slot i again. */
		while (t->slots[i].addr && t->slots[i].pid == pid) {
			alloc_track__remove(t, pid, t->slots[i].addr, NULL);
			dropped++;
		}
	}
	for (size_t i = 0; i < t->nregions;) {
		if (t->regions[i].pid == pid) {
			t->regions[i] = t->regions[--t->nregions];
			dropped++;
		} else {
			i++;
		}
	}
	return dropped;
}

void alloc_track__foreach(const struct alloc_track *t,
			  void (*fn)(const struct alloc_rec *r, void *ctx), void *ctx)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].addr)
			fn(&t->slots[i], ctx);
	for (size_t i = 0; i < t->nregions; i++)
		fn(&t->regions[i], ctx);
}

size_t alloc_track__count(const struct alloc_track *t)
{
	return t->count + t->nregions;
}

uint64_t alloc_track__replaced(const struct alloc_track *t)
{
	return t->replaced;
}

size_t alloc_track__peak(const struct alloc_track *t)
{
	return t->peak;
}
