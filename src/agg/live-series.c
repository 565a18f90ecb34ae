/*
 * live-series: see live-series.h.
 *
 * A bucket keeps three marked changes (lowest, highest, last), each with
 * its number among all the changes, so that the points come out in the
 * order the changes came even where times tie.  Merging two neighbours:
 * the lower of the lowests and the higher of the highests, the earlier
 * on a tie; the later one's last.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "agg/live-series.h"

struct mark {
	struct live_point p;
	uint64_t seq;
};

struct bucket {
	struct mark lo, hi, last;
	uint64_t n;		/* changes in it */
};

struct live_series {
	struct bucket b[LIVE_SERIES_BUCKETS];
	size_t nb;
	uint64_t k;		/* changes a bucket takes before the next opens */
	uint64_t changes;
};

int live_series__new(struct live_series **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->k = 1;
	return 0;
}

void live_series__free(struct live_series *ls)
{
	free(ls);
}

static void merge(struct bucket *m, const struct bucket *a, const struct bucket *b)
{
	struct bucket r = *a;

	if (b->lo.p.value < r.lo.p.value)
		r.lo = b->lo;
	if (b->hi.p.value > r.hi.p.value)
		r.hi = b->hi;
	r.last = b->last;
	r.n += b->n;
	*m = r;
}

void live_series__add(struct live_series *ls, uint64_t time, uint64_t value)
{
	struct mark m = { { time, value }, ls->changes++ };
	struct bucket *b;

	if (!ls->nb || ls->b[ls->nb - 1].n >= ls->k) {
		if (ls->nb == LIVE_SERIES_BUCKETS) {
			for (size_t i = 0; i < LIVE_SERIES_BUCKETS / 2; i++)
				merge(&ls->b[i], &ls->b[2 * i], &ls->b[2 * i + 1]);
			ls->nb = LIVE_SERIES_BUCKETS / 2;
			ls->k *= 2;
		}
		if (!ls->nb || ls->b[ls->nb - 1].n >= ls->k)
			ls->b[ls->nb++] = (struct bucket){ m, m, m, 0 };
	}
	b = &ls->b[ls->nb - 1];
	b->n++;
	if (value < b->lo.p.value)
		b->lo = m;
	if (value > b->hi.p.value)
		b->hi = m;
	b->last = m;
}

uint64_t live_series__changes(const struct live_series *ls)
{
	return ls->changes;
}

size_t live_series__points(const struct live_series *ls, struct live_point *out)
{
	size_t n = 0;

	for (size_t i = 0; i < ls->nb; i++) {
		struct mark m[3] = { ls->b[i].lo, ls->b[i].hi, ls->b[i].last }, t;

		/* three, by when they came; the last is the latest already */
		if (m[1].seq < m[0].seq) {
			t = m[0];
			m[0] = m[1];
			m[1] = t;
		}
		for (size_t j = 0; j < 3; j++)
			if (!j || m[j].seq != m[j - 1].seq)
				out[n++] = m[j].p;
	}
	return n;
}
