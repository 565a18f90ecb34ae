/*
 * ordered: a sorted-on-flush queue of copied records.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ordered.h"

struct entry {
	uint64_t time;
	uint64_t seq;
	struct perf_event_header *rec;
};

/* Header of a record's slot in the arena; a slot with size but no
 * record pads the end of the arena when a record did not fit there. */
struct slot {
	uint32_t size;		/* whole slot, header included, 8-aligned */
	uint32_t freed;
};

struct ordered {
	struct entry *v;
	size_t n, cap;
	uint64_t seq;
	/* A byte FIFO the records are copied into: mapped and faulted in
	 * once, so copying costs a memcpy, not a malloc whose fresh pages
	 * fault (in a VM, ~4 us a KiB: a DWARF sample's 8 KiB stack copy
	 * cost 30 us that way, and the reader fell behind at start-up).
	 * Records are freed roughly in order; the tail passes every freed
	 * slot.  When it is full, records go to malloc. */
	unsigned char *arena;
	size_t arena_size, head, tail, used;
};

int ordered__new(size_t arena_bytes, struct ordered **out)
{
	struct ordered *q = calloc(1, sizeof(*q));

	*out = NULL;
	if (!q)
		return -ENOMEM;
	arena_bytes &= ~(size_t)7;
	if (arena_bytes) {
		void *m = mmap(NULL, arena_bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (m == MAP_FAILED) {
			free(q);
			return -ENOMEM;
		}
		/* Not in a -c child: fork would mark every page copy-on-
		 * write, and each first write after it would fault again. */
		madvise(m, arena_bytes, MADV_DONTFORK);
		q->arena = m;
		q->arena_size = arena_bytes;
	}
	*out = q;
	return 0;
}

/* Whether a copy lives in the arena (else it was malloc'd). */
static bool in_arena(const struct ordered *q, const struct perf_event_header *rec)
{
	const unsigned char *p = (const unsigned char *)rec;

	return q->arena && p >= q->arena && p < q->arena + q->arena_size;
}

void ordered__free(struct ordered *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++)
		if (!in_arena(q, q->v[i].rec))
			free(q->v[i].rec);
	free(q->v);
	if (q->arena)
		munmap(q->arena, q->arena_size);
	free(q);
}

/* A slot of @need bytes at the head, or NULL when the arena is full. */
static struct slot *arena_take(struct ordered *q, size_t need)
{
	struct slot *sl;

	if (!q->arena || need > q->arena_size / 2)
		return NULL;
	if (q->head + need > q->arena_size) {
		size_t pad = q->arena_size - q->head;

		/* Pad to the end, then wrap, if the start has room. */
		if (q->used + pad + need > q->arena_size)
			return NULL;
		if (pad) {
			sl = (struct slot *)(q->arena + q->head);
			sl->size = (uint32_t)pad;
			sl->freed = 1;
			q->used += pad;
		}
		q->head = 0;
	}
	if (q->used + need > q->arena_size)
		return NULL;
	sl = (struct slot *)(q->arena + q->head);
	sl->size = (uint32_t)need;
	sl->freed = 0;
	q->head = (q->head + need) % q->arena_size;
	q->used += need;
	return sl;
}

static void arena_release(struct ordered *q, struct perf_event_header *rec)
{
	struct slot *sl = (struct slot *)((unsigned char *)rec - sizeof(struct slot));

	sl->freed = 1;
	while (q->used) {
		sl = (struct slot *)(q->arena + q->tail);
		if (!sl->freed)
			break;
		q->used -= sl->size;
		q->tail = (q->tail + sl->size) % q->arena_size;
	}
	if (!q->used)
		q->head = q->tail = 0;
}

int ordered__push(struct ordered *q, uint64_t time, const struct perf_event_header *hdr)
{
	size_t need = (sizeof(struct slot) + hdr->size + 7) & ~(size_t)7;
	struct perf_event_header *copy;
	struct slot *sl;

	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 1024;
		struct entry *nv = realloc(q->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		q->v = nv;
		q->cap = cap;
	}
	sl = arena_take(q, need);
	if (sl) {
		copy = (struct perf_event_header *)(sl + 1);
	} else {
		copy = malloc(hdr->size);
		if (!copy)
			return -ENOMEM;
	}
	memcpy(copy, hdr, hdr->size);
	q->v[q->n++] = (struct entry){ .time = time, .seq = q->seq++, .rec = copy };
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int ordered__flush(struct ordered *q, uint64_t upto, ring_cb cb, void *ctx)
{
	size_t i;
	int ret = 0;

	if (q->n)
		qsort(q->v, q->n, sizeof(*q->v), cmp_entry);
	for (i = 0; i < q->n && q->v[i].time <= upto; i++) {
		if (!ret)
			ret = cb(q->v[i].rec, ctx);
		if (in_arena(q, q->v[i].rec))
			arena_release(q, q->v[i].rec);
		else
			free(q->v[i].rec);
	}
	if (i < q->n)
		memmove(q->v, q->v + i, (q->n - i) * sizeof(*q->v));
	q->n -= i;
	return ret;
}

uint64_t ordered__pending(const struct ordered *q)
{
	return q->n;
}
