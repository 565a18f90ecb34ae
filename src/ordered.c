/*
 * ordered: a sorted-on-flush queue of copied records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ordered.h"

struct entry {
	uint64_t time;
	uint64_t seq;
	struct perf_event_header *rec;
};

struct ordered {
	struct entry *v;
	size_t n, cap;
	uint64_t seq;
};

int ordered__new(struct ordered **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void ordered__free(struct ordered *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++)
		free(q->v[i].rec);
	free(q->v);
	free(q);
}

int ordered__push(struct ordered *q, uint64_t time, const struct perf_event_header *hdr)
{
	struct perf_event_header *copy;

	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 1024;
		struct entry *nv = realloc(q->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		q->v = nv;
		q->cap = cap;
	}
	copy = malloc(hdr->size);
	if (!copy)
		return -ENOMEM;
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
