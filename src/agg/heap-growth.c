/*
 * heap-growth: see heap-growth.h.
 *
 * Each stack keeps its live bytes and, sparsely, a point (interval,
 * bytes) for every interval in which it changed; the stacks changed in
 * the open interval are listed, so a close costs what changed in it.
 * Between points a stack's value carries forward.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agg/heap-growth.h"
#include "lib/grow.h"
#include "lib/keyed.h"

struct point {
	size_t k;
	uint64_t v;
};

struct gsite {
	pid_t pid;
	uint32_t stack;
	uint64_t live, calls;
	size_t dirty;		/* open interval + 1 when changed in it, else 0 */
	struct point *pts;
	size_t npts, cappts;
};

struct heap_growth {
	struct keyed *sites;		/* pid << 32 | stack -> struct gsite */
	size_t *dirty;			/* indices of sites changed in the open interval */
	size_t ndirty, capdirty;
	struct growth_interval *iv;
	size_t niv, capiv;
	uint64_t bytes, open_peak, calls, open_calls;
	/* heap_growth__cut */
	uint64_t cut_ns, cut_calls;
	uint64_t bin;			/* by time: the interval open */
	uint64_t last_ns;		/* of the last event, since the start */
	bool open;			/* events since the last close */
};

int heap_growth__new(struct heap_growth **out)
{
	struct heap_growth *hg = calloc(1, sizeof(*hg));

	*out = NULL;
	if (!hg)
		return -ENOMEM;
	hg->sites = keyed__new(sizeof(struct gsite));
	if (!hg->sites) {
		free(hg);
		return -ENOMEM;
	}
	*out = hg;
	return 0;
}

void heap_growth__free(struct heap_growth *hg)
{
	if (!hg)
		return;
	for (size_t i = 0; i < keyed__count(hg->sites); i++)
		free(((struct gsite *)keyed__at(hg->sites, i))->pts);
	keyed__free(hg->sites);
	free(hg->dirty);
	free(hg->iv);
	free(hg);
}

int heap_growth__change(struct heap_growth *hg, pid_t pid, uint32_t stack, int64_t delta,
			bool call)
{
	uint64_t key = (uint64_t)(uint32_t)pid << 32 | stack;
	size_t idx = keyed__count(hg->sites);
	int created = 0;
	struct gsite *st = keyed__get(hg->sites, key, &created);

	if (!st)
		return -ENOMEM;
	if (created) {
		st->pid = pid;
		st->stack = stack;
	} else {
		idx = (size_t)(st - (struct gsite *)keyed__at(hg->sites, 0));
	}
	if (st->dirty != hg->niv + 1) {
		if (GROW_FOR(hg->dirty, hg->capdirty, hg->ndirty + 1, 64))
			return -ENOMEM;
		hg->dirty[hg->ndirty++] = idx;
		st->dirty = hg->niv + 1;
	}
	/* A release larger than what is live was made before we looked. */
	if (delta < 0 && (uint64_t)-delta > st->live)
		delta = -(int64_t)st->live;
	st->live += (uint64_t)delta;
	hg->bytes += (uint64_t)delta;
	if (hg->bytes > hg->open_peak)
		hg->open_peak = hg->bytes;
	if (call) {
		st->calls++;
		hg->calls++;
		hg->open_calls++;
	}
	return 0;
}

uint64_t heap_growth__open_calls(const struct heap_growth *hg)
{
	return hg->open_calls;
}

int heap_growth__close(struct heap_growth *hg, uint64_t end_time)
{
	if (GROW_FOR(hg->iv, hg->capiv, hg->niv + 1, 64))
		return -ENOMEM;
	for (size_t i = 0; i < hg->ndirty; i++) {
		struct gsite *st = keyed__at(hg->sites, hg->dirty[i]);

		if (GROW_FOR(st->pts, st->cappts, st->npts + 1, 4))
			return -ENOMEM;
		st->pts[st->npts++] = (struct point){ hg->niv, st->live };
		st->dirty = 0;
	}
	hg->ndirty = 0;
	hg->iv[hg->niv++] = (struct growth_interval){ end_time, hg->calls, hg->bytes,
						      hg->open_peak };
	hg->open_peak = hg->bytes;
	hg->open_calls = 0;
	hg->open = false;
	return 0;
}

void heap_growth__cut(struct heap_growth *hg, uint64_t interval_ns, uint64_t calls)
{
	hg->cut_ns = interval_ns;
	hg->cut_calls = calls;
}

int heap_growth__before(struct heap_growth *hg, uint64_t ns, bool call)
{
	int err = 0;

	if (hg->cut_calls) {
		if (call && hg->open_calls == hg->cut_calls)
			err = heap_growth__close(hg, hg->last_ns);
	} else if (hg->cut_ns) {
		for (; !err && ns / hg->cut_ns > hg->bin; hg->bin++)
			err = heap_growth__close(hg, (hg->bin + 1) * hg->cut_ns);
	}
	hg->last_ns = ns;
	hg->open = true;
	return err;
}

int heap_growth__end(struct heap_growth *hg, uint64_t end_ns)
{
	uint64_t bound;
	int err = 0;

	if (end_ns < hg->last_ns)
		end_ns = hg->last_ns;
	/* By time, every interval over before the run was, quiet or not:
	 * an idle run of 5 s in intervals of 1 s has 5. */
	for (; !hg->cut_calls && hg->cut_ns && !err && end_ns / hg->cut_ns > hg->bin; hg->bin++)
		err = heap_growth__close(hg, (hg->bin + 1) * hg->cut_ns);
	if (err || (!hg->open && hg->niv))
		return err;
	/* The interval the run ended in ends with it, never after. */
	bound = hg->cut_calls ? end_ns : (hg->bin + 1) * hg->cut_ns;
	return heap_growth__close(hg, end_ns < bound ? end_ns : bound);
}

size_t heap_growth__intervals(const struct heap_growth *hg)
{
	return hg->niv;
}

const struct growth_interval *heap_growth__interval(const struct heap_growth *hg, size_t k)
{
	return k < hg->niv ? &hg->iv[k] : NULL;
}

static void series_of(const struct heap_growth *hg, const struct gsite *st, uint64_t *v)
{
	uint64_t cur = 0;
	size_t p = 0;

	for (size_t k = 0; k < hg->niv; k++) {
		if (p < st->npts && st->pts[p].k == k)
			cur = st->pts[p++].v;
		v[k] = cur;
	}
}

void heap_growth__series(const struct heap_growth *hg, const struct growth_site *site,
			 uint64_t *v)
{
	series_of(hg, keyed__at(hg->sites, site->index), v);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct growth_site *x = a, *y = b;

	if (x->growing != y->growing)
		return x->growing ? -1 : 1;
	if (x->growing && x->growth != y->growth)
		return x->growth > y->growth ? -1 : 1;
	if (x->highest != y->highest)
		return x->highest > y->highest ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int rank(const struct heap_growth *hg, size_t K, bool rate, struct growth_site **out,
		size_t *n)
{
	size_t count = keyed__count(hg->sites);
	struct growth_site *v = calloc(count ? count : 1, sizeof(*v));
	uint64_t *s = calloc(hg->niv ? hg->niv : 1, sizeof(*s));

	if (!v || !s) {
		free(v);
		free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < count; i++) {
		const struct gsite *st = keyed__at(hg->sites, i);
		struct growth_site *g = &v[i];

		g->pid = st->pid;
		g->stack = st->stack;
		g->calls = st->calls;
		g->index = i;
		if (!K)
			continue;
		series_of(hg, st, s);
		if (rate)
			for (size_t k = K; k-- > 1;)
				s[k] -= s[k - 1];
		g->first = s[0];
		g->last = s[K - 1];
		g->growth = (int64_t)(s[K - 1] - s[0]);
		for (size_t k = 0; k < K; k++) {
			if (k && s[k] > s[k - 1])
				g->rises++;
			else if (k && s[k] < s[k - 1])
				g->falls++;
			if (s[k] > g->highest) {
				g->highest = s[k];
				g->highest_at = k;
			}
		}
		/* The last quarter: k >= K - ceil(K / 4). */
		g->growing = K >= 3 && g->growth > 0 && g->rises >= 2 && g->rises >= 2 * g->falls &&
			     g->highest_at >= K - (K + 3) / 4;
	}
	free(s);
	qsort(v, count, sizeof(*v), cmp_rank);
	*out = v;
	*n = count;
	return 0;
}

int heap_growth__rank(const struct heap_growth *hg, struct growth_site **out, size_t *n)
{
	return rank(hg, hg->niv, false, out, n);
}

int heap_growth__rank_rate(const struct heap_growth *hg, size_t K, struct growth_site **out,
			   size_t *n)
{
	return rank(hg, K < hg->niv ? K : hg->niv, true, out, n);
}
