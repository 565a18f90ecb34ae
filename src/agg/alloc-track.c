/*
 * alloc-track: calls in flight, the rules of completed calls, and the
 * blocks and regions outstanding.  See alloc-track.h.
 *
 * Blocks live in one open-addressing table (linear probing, deletion by
 * backward shift, so no tombstones slow a table that sees millions of
 * malloc/free pairs), keyed by (pid, address): 40 bytes a block, and the
 * table doubles at 50% load, so 80 to 160 bytes a block.  It grows without
 * a pause, as Redis rehashes its dicts: the doubled table takes every new
 * block at once while the old one's slots move over a few per operation,
 * lookups trying both meanwhile (a slot moved or freed in the old table
 * becomes a tombstone there, so its probe runs stay intact until it is
 * freed whole).  Rehashing 250,000 blocks at once stalled the reader for
 * 20 ms, long enough for a busy target to overflow its ring.  Regions (mmap,
 * brk growth) are few and must be searched by range, so they are a plain
 * array scanned per munmap.
 *
 * The address index (only once alloc_track__index was called) finds the
 * block around an address.  A block spanning at most 16 4-KiB pages has a
 * link {address, next} in a per-(pid, page) list for every page it
 * touches; the list heads are in a hashmap keyed by pid << 36 | page,
 * which is collision-free for pids below 2^28 and addresses below 2^48
 * (others are not indexed, or go with the large blocks).  A lookup walks
 * its page's list, picks the nearest start below the address and re-finds
 * that block in the table for its size: links hold addresses, never slot
 * numbers, since slots move on growth and on backward-shift deletion.
 * Larger blocks (few: big buffers) sit in an array scanned per lookup, so
 * one 1 GiB block does not cost 262144 links.  Links are 16 bytes, pooled
 * with a free list (pool doubling: up to 32); a page's head is one
 * 24-byte hashmap slot at 35-70% load, 34 to 69 bytes a page, shared by
 * the blocks on it; a large block is a 24-byte entry.  The pool never
 * shrinks: it holds the peak number of links, at most 16 per block, so
 * the index's memory still follows the peak block count that
 * alloc_track__peak() reports.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agg/alloc-track.h"
#include "lib/grow.h"
#include "lib/hashmap.h"

/* Calls one thread can have in flight: malloc inside realloc inside a
 * user's allocation callback is three; deeper means lost returns. */
#define MAX_DEPTH 8

/* The address index: 4 KiB pages, blocks spanning up to IDX_MAX_PAGES of
 * them are linked per page; the page key packs 28 bits of pid over 36 of
 * page number. */
#define IDX_PAGE_SHIFT 12
#define IDX_MAX_PAGES 16
#define IDX_PID_LIMIT (1 << 28)
#define IDX_ADDR_LIMIT (1ULL << 48)
#define IDX_NIL UINT32_MAX

struct idx_link {
	uint64_t addr;		/* the block's start: re-found in the table */
	uint32_t next;		/* pool index, IDX_NIL: end of list */
};

struct idx_large {
	uint64_t addr, size;
	pid_t pid;
};

enum idx_class { IDX_NONE, IDX_PAGES, IDX_LARGE };

struct thread_calls {
	pid_t tid;
	unsigned int n;
	struct alloc_call calls[MAX_DEPTH];
};

struct alloc_track {
	struct alloc_rec *slots;	/* addr == 0: empty */
	size_t cap, count, peak;	/* cap: power of two; count: blocks in both tables */
	struct alloc_rec *old;		/* the table being moved into slots, or NULL */
	size_t oldcap, cursor;		/* old's slots below cursor have moved */
	struct alloc_rec *regions;
	size_t nregions, capregions;
	struct hashmap *thread_idx;	/* tid -> index + 1 in threads */
	struct thread_calls *threads;
	size_t nthreads;
	uint64_t replaced;
	/* Bytes outstanding (blocks and regions), their running peak and the
	 * time of the event that first reached it: two adds a change, so
	 * leak shows its peak at no measurable cost (bench/leak-overhead). */
	uint64_t bytes, peak_bytes, peak_time;
	/* The address index, when indexed. */
	bool indexed;
	struct hashmap *pages;		/* pid << 36 | page -> first link */
	struct idx_link *links;		/* the pool */
	uint32_t nlinks, caplinks, free_link;
	struct idx_large *large;
	size_t nlarge, caplarge;
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

enum alloc_kind alloc_rec__kind(const struct alloc_rec *r)
{
	if (!r->region)
		return ALLOC_KIND_MALLOC;
	return r->fn == ALLOC_BRK ? ALLOC_KIND_BRK : ALLOC_KIND_MMAP;
}

const char *alloc_kind__name(enum alloc_kind k)
{
	static const char *const names[ALLOC_KIND__COUNT] = {
		[ALLOC_KIND_MALLOC] = "malloc",
		[ALLOC_KIND_MMAP] = "mmap",
		[ALLOC_KIND_BRK] = "brk",
	};

	return (unsigned int)k < ALLOC_KIND__COUNT ? names[k] : "?";
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
	hashmap__free(t->pages);
	free(t->links);
	free(t->large);
	free(t->slots);
	free(t->old);
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

void alloc_track__note_map(struct alloc_track *t, pid_t tid, uint64_t addr, uint64_t len)
{
	struct thread_calls *th = thread_of(t, tid);

	/* Every level: which one completes as the counted (outermost) call
	 * is only known at its return. */
	for (unsigned int i = 0; th && i < th->n; i++) {
		th->calls[i].map_addr = addr;
		th->calls[i].map_len = len;
	}
}

uint64_t alloc_track__drop_calls(struct alloc_track *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->nthreads; i++) {
		n += t->threads[i].n;
		t->threads[i].n = 0;
	}
	return n;
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

/* An old table's slot whose block moved or was freed. */
#define DEAD_PID INT32_MIN
/* Old slots moved per operation while growing: the move ends before the
 * new table, twice the size, is a quarter fuller than the old one was. */
#define MOVE_PER_OP 4

static size_t home_of(size_t cap, pid_t pid, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 20) & (cap - 1);
}

static size_t slot_of(const struct alloc_track *t, pid_t pid, uint64_t addr)
{
	return home_of(t->cap, pid, addr);
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

/* @pid's block at @addr in the old table, or NULL. */
static struct alloc_rec *find_old(const struct alloc_track *t, pid_t pid, uint64_t addr)
{
	size_t i;

	if (!t->old)
		return NULL;
	for (i = home_of(t->oldcap, pid, addr); t->old[i].addr; i = (i + 1) & (t->oldcap - 1))
		if (t->old[i].addr == addr && t->old[i].pid == pid)
			return &t->old[i];
	return NULL;
}

/* @pid's block at @addr in either table, or NULL. */
static struct alloc_rec *block_get(const struct alloc_track *t, pid_t pid, uint64_t addr)
{
	bool found;
	size_t i = find(t, pid, addr, &found);

	return found ? &t->slots[i] : find_old(t, pid, addr);
}

/* Move a few of the old table's blocks over; free it once all are. */
static void move_some(struct alloc_track *t)
{
	for (int k = 0; t->old && k < MOVE_PER_OP; k++) {
		struct alloc_rec *o;
		bool found;
		size_t i;

		if (t->cursor == t->oldcap) {
			free(t->old);
			t->old = NULL;
			break;
		}
		o = &t->old[t->cursor++];
		if (!o->addr || o->pid == DEAD_PID)
			continue;
		/* Not in the new table: a block added there kills its old copy. */
		i = find(t, o->pid, o->addr, &found);
		t->slots[i] = *o;
		o->pid = DEAD_PID;
	}
}

/* Start growing: the table doubles, the old one moves over gradually. */
static int grow(struct alloc_track *t)
{
	struct alloc_rec *nv = calloc(t->cap * 2, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	t->old = t->slots;
	t->oldcap = t->cap;
	t->cursor = 0;
	t->slots = nv;
	t->cap *= 2;
	return 0;
}

/* Next block of either table from *@pos (0 to start), or NULL. */
static const struct alloc_rec *block_next(const struct alloc_track *t, size_t *pos)
{
	while (*pos < t->cap) {
		const struct alloc_rec *r = &t->slots[(*pos)++];

		if (r->addr)
			return r;
	}
	while (t->old && *pos - t->cap < t->oldcap) {
		const struct alloc_rec *r = &t->old[(*pos)++ - t->cap];

		if (r->addr && r->pid != DEAD_PID)
			return r;
	}
	return NULL;
}

/* ---- the address index ---- */

static enum idx_class idx_class(const struct alloc_rec *r)
{
	uint64_t first, last;

	if (r->region || !r->size || r->pid < 0 || r->pid >= IDX_PID_LIMIT)
		return IDX_NONE;
	if (r->addr >= IDX_ADDR_LIMIT || r->size > IDX_ADDR_LIMIT - r->addr)
		return IDX_LARGE;	/* page numbers would not fit the key */
	first = r->addr >> IDX_PAGE_SHIFT;
	last = (r->addr + r->size - 1) >> IDX_PAGE_SHIFT;
	return last - first < IDX_MAX_PAGES ? IDX_PAGES : IDX_LARGE;
}

static uint64_t page_key(pid_t pid, uint64_t page)
{
	return (uint64_t)pid << 36 | page;
}

static int link_alloc(struct alloc_track *t, uint32_t *out)
{
	if (t->free_link != IDX_NIL) {
		*out = t->free_link;
		t->free_link = t->links[*out].next;
		return 0;
	}
	if (t->nlinks == t->caplinks) {
		uint32_t cap = t->caplinks ? t->caplinks * 2 : 1024;
		struct idx_link *nv;

		if (t->caplinks >= IDX_NIL / 2)
			return -ENOMEM;	/* the 32-bit link numbers are spent */
		nv = realloc(t->links, (size_t)cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->links = nv;
		t->caplinks = cap;
	}
	*out = t->nlinks++;
	return 0;
}

/* Take the block at @addr out of pages [@from, @to] of @pid. */
static void unlink_pages(struct alloc_track *t, pid_t pid, uint64_t addr, uint64_t from,
			 uint64_t to)
{
	for (uint64_t p = from; p <= to; p++) {
		uint64_t key = page_key(pid, p), head;
		uint32_t prev = IDX_NIL, l;

		if (!hashmap__get(t->pages, key, &head))
			continue;
		for (l = (uint32_t)head; l != IDX_NIL; prev = l, l = t->links[l].next)
			if (t->links[l].addr == addr)
				break;
		if (l == IDX_NIL)
			continue;
		if (prev != IDX_NIL)
			t->links[prev].next = t->links[l].next;
		else if (t->links[l].next != IDX_NIL)
			hashmap__set(t->pages, key, t->links[l].next);	/* present: cannot fail */
		else
			hashmap__delete(t->pages, key, NULL);
		t->links[l].next = t->free_link;
		t->free_link = l;
	}
}

/* Put the block at @addr on pages [@from, @to] of @pid; all or none. */
static int link_pages(struct alloc_track *t, pid_t pid, uint64_t addr, uint64_t from,
		      uint64_t to)
{
	uint64_t p;
	int err = 0;

	for (p = from; p <= to; p++) {
		uint64_t key = page_key(pid, p), head;
		uint32_t l;

		err = link_alloc(t, &l);
		if (err)
			break;
		t->links[l].addr = addr;
		t->links[l].next = hashmap__get(t->pages, key, &head) ? (uint32_t)head : IDX_NIL;
		err = hashmap__set(t->pages, key, l);
		if (err) {
			t->links[l].next = t->free_link;
			t->free_link = l;
			break;
		}
	}
	if (err && p > from)
		unlink_pages(t, pid, addr, from, p - 1);
	return err;
}

static struct idx_large *large_find(const struct alloc_track *t, pid_t pid, uint64_t addr)
{
	for (size_t i = 0; i < t->nlarge; i++)
		if (t->large[i].addr == addr && t->large[i].pid == pid)
			return &t->large[i];
	return NULL;
}

static void page_span(const struct alloc_rec *r, uint64_t *first, uint64_t *last)
{
	*first = r->addr >> IDX_PAGE_SHIFT;
	*last = (r->addr + r->size - 1) >> IDX_PAGE_SHIFT;
}

/*
 * The index follows a block change: @old (NULL: none) becomes @nw (NULL:
 * removed), both of the same pid and address.  The only step that can
 * fail (adding links or a large entry) comes first, so -ENOMEM leaves the
 * index as it was.  A size change only touches the pages in the
 * difference.
 */
static int idx_update(struct alloc_track *t, const struct alloc_rec *old, const struct alloc_rec *nw)
{
	enum idx_class co = old ? idx_class(old) : IDX_NONE, cn = nw ? idx_class(nw) : IDX_NONE;
	uint64_t of = 0, ol = 0, nf = 0, nl = 0;

	if (!t->indexed)
		return 0;
	if (co == IDX_PAGES)
		page_span(old, &of, &ol);
	if (cn == IDX_PAGES) {
		page_span(nw, &nf, &nl);
		if (co == IDX_PAGES)
			nf = ol + 1;	/* same start: pages up to ol are linked */
		if (nf <= nl && link_pages(t, nw->pid, nw->addr, nf, nl))
			return -ENOMEM;
	} else if (cn == IDX_LARGE) {
		struct idx_large *l = co == IDX_LARGE ? large_find(t, old->pid, old->addr) : NULL;

		if (l) {
			l->size = nw->size;
		} else {
			if (GROW_FOR(t->large, t->caplarge, t->nlarge + 1, 16))
				return -ENOMEM;
			t->large[t->nlarge++] = (struct idx_large){ nw->addr, nw->size, nw->pid };
		}
	}
	if (co == IDX_PAGES) {
		if (cn == IDX_PAGES)
			of = nl + 1;	/* the new block keeps pages up to its last */
		if (of <= ol)
			unlink_pages(t, old->pid, old->addr, of, ol);
	} else if (co == IDX_LARGE && cn != IDX_LARGE) {
		struct idx_large *l = large_find(t, old->pid, old->addr);

		if (l)
			*l = t->large[--t->nlarge];
	}
	return 0;
}

static void idx_off(struct alloc_track *t)
{
	hashmap__free(t->pages);
	free(t->links);
	free(t->large);
	t->pages = NULL;
	t->links = NULL;
	t->large = NULL;
	t->nlinks = t->caplinks = 0;
	t->free_link = IDX_NIL;
	t->nlarge = t->caplarge = 0;
	t->indexed = false;
}

int alloc_track__index(struct alloc_track *t)
{
	const struct alloc_rec *r;

	if (t->indexed)
		return 0;
	t->pages = hashmap__new();
	if (!t->pages)
		return -ENOMEM;
	t->free_link = IDX_NIL;
	t->indexed = true;
	for (size_t pos = 0; (r = block_next(t, &pos));) {
		if (idx_update(t, NULL, r)) {
			idx_off(t);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Blocks and regions only: the index's links (1 to 16 a block, pooled at
 * their peak) and page heads grow with the same blocks, so the peak block
 * count still bounds the tracker's memory, within a factor. */
static void update_peak(struct alloc_track *t)
{
	if (t->count + t->nregions > t->peak)
		t->peak = t->count + t->nregions;
}

/* @r was added: its bytes count, and may make a new peak. */
static void add_bytes(struct alloc_track *t, const struct alloc_rec *r)
{
	t->bytes += r->size;
	if (t->bytes > t->peak_bytes) {
		t->peak_bytes = t->bytes;
		t->peak_time = r->time;
	}
}

static int add_region(struct alloc_track *t, const struct alloc_rec *r)
{
	if (GROW_FOR(t->regions, t->capregions, t->nregions + 1, 16))
		return -ENOMEM;
	t->regions[t->nregions++] = *r;
	update_peak(t);
	add_bytes(t, r);
	return 0;
}

int alloc_track__add(struct alloc_track *t, const struct alloc_rec *r)
{
	bool found;
	size_t i;

	if (!r->addr)
		return 0;
	struct alloc_rec *old = NULL;

	if (r->region)
		return add_region(t, r);
	move_some(t);
	if (!t->old && (t->count + 1) * 2 > t->cap && grow(t))
		return -ENOMEM;
	i = find(t, r->pid, r->addr, &found);
	if (!found)
		old = find_old(t, r->pid, r->addr);
	/* The index first: it is the step that can fail, and the slot stays
	 * put meanwhile (only move_some() and remove() move slots). */
	if (idx_update(t, found ? &t->slots[i] : old, r))
		return -ENOMEM;
	if (found || old)
		t->replaced++;
	else
		t->count++;
	if (found || old)
		t->bytes -= found ? t->slots[i].size : old->size;
	if (old)
		old->pid = DEAD_PID;
	t->slots[i] = *r;
	update_peak(t);
	add_bytes(t, r);
	return 0;
}

bool alloc_track__has(struct alloc_track *t, pid_t pid, uint64_t addr)
{
	bool found;

	find(t, pid, addr, &found);
	return found || find_old(t, pid, addr);
}

int alloc_track__remove(struct alloc_track *t, pid_t pid, uint64_t addr, struct alloc_rec *out)
{
	struct alloc_rec *old;
	bool found;
	size_t i, j;

	move_some(t);
	i = find(t, pid, addr, &found);
	if (!found) {
		old = find_old(t, pid, addr);
		if (!old)
			return -ENOENT;
		if (out)
			*out = *old;
		idx_update(t, old, NULL);
		t->bytes -= old->size;
		old->pid = DEAD_PID;
		t->count--;
		return 0;
	}
	if (out)
		*out = t->slots[i];
	t->bytes -= t->slots[i].size;
	idx_update(t, &t->slots[i], NULL);	/* removing: cannot fail */
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
			t->bytes -= tail.size;	/* add_region counts it again */
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
	t->bytes -= (uint64_t)released;
	return released;
}

size_t alloc_track__drop_pid(struct alloc_track *t, pid_t pid,
			     void (*gone)(void *ctx, const struct alloc_rec *r), void *ctx)
{
	size_t dropped = 0;

	/* Finish any move first: removal moves slots of both tables. */
	while (t->old)
		move_some(t);
	for (size_t i = 0; i < t->cap; i++) {
		/* Removal shifts later slots back: look at slot i again. */
		while (t->slots[i].addr && t->slots[i].pid == pid) {
			struct alloc_rec r;

			alloc_track__remove(t, pid, t->slots[i].addr, &r);
			if (gone)
				gone(ctx, &r);
			dropped++;
		}
	}
	for (size_t i = 0; i < t->nregions;) {
		if (t->regions[i].pid == pid) {
			if (gone)
				gone(ctx, &t->regions[i]);
			t->bytes -= t->regions[i].size;
			t->regions[i] = t->regions[--t->nregions];
			dropped++;
		} else {
			i++;
		}
	}
	return dropped;
}

int alloc_track__fork(struct alloc_track *t, pid_t parent, pid_t child)
{
	struct alloc_rec *blocks = NULL;
	const struct alloc_rec *r;
	size_t n = 0, k = 0, nregions = t->nregions;
	int copied = 0, err = 0;

	if (parent == child)
		goto out;
	/* Collect first: adding while walking the table would see it
	 * rehashed under us by grow(). */
	for (size_t pos = 0; (r = block_next(t, &pos));)
		n += r->pid == parent;
	if (n) {
		blocks = malloc(n * sizeof(*blocks));
		if (!blocks) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (size_t pos = 0; k < n && (r = block_next(t, &pos));)
		if (r->pid == parent)
			blocks[k++] = *r;
	for (k = 0; k < n; k++) {
		blocks[k].pid = child;
		err = alloc_track__add(t, &blocks[k]);
		if (err)
			goto out;
		copied++;
	}
	/* The child's copies go to the end, past nregions; add_region() may
	 * move the array, so copy the record out first. */
	for (size_t i = 0; i < nregions; i++) {
		struct alloc_rec reg = t->regions[i];

		if (reg.pid != parent)
			continue;
		reg.pid = child;
		err = add_region(t, &reg);
		if (err)
			goto out;
		copied++;
	}
out:
	free(blocks);
	return err ? err : copied;
}

/* The block of @pid starting at @start, if it contains @addr. */
static bool block_at(const struct alloc_track *t, pid_t pid, uint64_t start, uint64_t addr,
		     struct alloc_rec *out)
{
	const struct alloc_rec *r = block_get(t, pid, start);

	if (!r || addr < start || addr - start >= r->size)
		return false;
	if (out)
		*out = *r;
	return true;
}

static bool lookup_page(const struct alloc_track *t, pid_t pid, uint64_t addr,
			struct alloc_rec *out)
{
	uint64_t head, best = 0;
	uint32_t l;
	bool have = false;

	if (addr >= IDX_ADDR_LIMIT ||
	    !hashmap__get(t->pages, page_key(pid, addr >> IDX_PAGE_SHIFT), &head))
		return false;
	/* Blocks do not overlap: only the nearest start at or below @addr
	 * can hold it, and only it needs its size from the table. */
	for (l = (uint32_t)head; l != IDX_NIL; l = t->links[l].next) {
		uint64_t a = t->links[l].addr;

		if (a <= addr && (!have || a > best)) {
			best = a;
			have = true;
		}
	}
	if (!have)
		return false;
	if (block_at(t, pid, best, addr, out))
		return true;
	/* Unless a free was never seen and a stale block overlaps: then
	 * an earlier one may still hold it. */
	for (l = (uint32_t)head; l != IDX_NIL; l = t->links[l].next) {
		uint64_t a = t->links[l].addr;

		if (a < best && block_at(t, pid, a, addr, out))
			return true;
	}
	return false;
}

int alloc_track__lookup(const struct alloc_track *t, pid_t pid, uint64_t addr,
			struct alloc_rec *out)
{
	if (!t->indexed || pid < 0 || pid >= IDX_PID_LIMIT)
		return -ENOENT;
	if (lookup_page(t, pid, addr, out))
		return 0;
	for (size_t i = 0; i < t->nlarge; i++) {
		const struct idx_large *l = &t->large[i];

		if (l->pid == pid && addr >= l->addr && addr - l->addr < l->size &&
		    block_at(t, pid, l->addr, addr, out))
			return 0;
	}
	for (size_t i = 0; i < t->nregions; i++) {
		const struct alloc_rec *r = &t->regions[i];

		if (r->pid == pid && addr >= r->addr && addr - r->addr < r->size) {
			if (out)
				*out = *r;
			return 0;
		}
	}
	return -ENOENT;
}

int alloc_track__index_check(const struct alloc_track *t)
{
	const struct alloc_rec *r;
	uint64_t key, head, want_links = 0, used = 0, nfree = 0;
	size_t pos = 0, want_large = 0;

	if (!t->indexed)
		return 0;
	for (uint32_t l = t->free_link; l != IDX_NIL; l = t->links[l].next)
		if (l >= t->nlinks || ++nfree > t->nlinks)
			return -EUCLEAN;
	while (hashmap__next(t->pages, &pos, &key, &head)) {
		pid_t pid = (pid_t)(key >> 36);
		uint64_t page = key & ((1ULL << 36) - 1);

		if (head == IDX_NIL)
			return -EUCLEAN;	/* an empty list keeps its key */
		for (uint32_t l = (uint32_t)head; l != IDX_NIL; l = t->links[l].next) {
			const struct alloc_rec *b = block_get(t, pid, t->links[l].addr);
			uint64_t first, last;

			if (l >= t->nlinks || ++used > t->nlinks)
				return -EUCLEAN;
			if (!b || idx_class(b) != IDX_PAGES)
				return -EUCLEAN;
			page_span(b, &first, &last);
			if (page < first || page > last)
				return -EUCLEAN;
			/* Bounded: a corrupt list may be a cycle. */
			for (uint32_t m = t->links[l].next, steps = 0;
			     m != IDX_NIL && m < t->nlinks && steps < t->nlinks;
			     m = t->links[m].next, steps++)
				if (t->links[m].addr == t->links[l].addr)
					return -EUCLEAN;	/* linked twice */
		}
	}
	/* Each link is valid and unique per page: with the right total,
	 * every block has all its pages. */
	for (size_t p = 0; (r = block_next(t, &p));) {
		const struct idx_large *l;
		uint64_t first, last;

		switch (idx_class(r)) {
		case IDX_PAGES:
			page_span(r, &first, &last);
			want_links += last - first + 1;
			break;
		case IDX_LARGE:
			l = large_find(t, r->pid, r->addr);
			if (!l || l->size != r->size)
				return -EUCLEAN;
			want_large++;
			break;
		case IDX_NONE:
			break;
		}
	}
	if (used != want_links || used + nfree != t->nlinks || want_large != t->nlarge)
		return -EUCLEAN;
	return 0;
}

void alloc_track__foreach(const struct alloc_track *t,
			  void (*fn)(const struct alloc_rec *r, void *ctx), void *ctx)
{
	const struct alloc_rec *r;

	for (size_t pos = 0; (r = block_next(t, &pos));)
		fn(r, ctx);
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

uint64_t alloc_track__bytes(const struct alloc_track *t)
{
	return t->bytes;
}

uint64_t alloc_track__peak_bytes(const struct alloc_track *t, uint64_t *time)
{
	if (time)
		*time = t->peak_time;
	return t->peak_bytes;
}
