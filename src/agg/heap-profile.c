/*
 * heap-profile: see heap-profile.h.
 *
 * Sites are the per-stack table's (agg/stack-table.h), records that begin
 * with its struct stack_site; s.leaked is the site's live bytes as the
 * events go.  The lazy peak: `events` numbers every allocation and free; the
 * latest peak is at event `peak_event`.  A site that last changed at or
 * before it still holds what it held at the peak; a site about to change
 * after it first saves that value (snap, for peak_event), unless it saved
 * it for this very peak already.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "agg/alloc-sample.h"
#include "agg/alloc-track.h"
#include "agg/heap-profile.h"
#include "agg/live-series.h"
#include "agg/stack-table.h"
#include "lib/hashmap.h"
#include "trace/sample.h"

struct site {
	struct stack_site s;	/* first; s.peak unused until heap_profile__sites */
	uint64_t changed;	/* event of the last change */
	uint64_t snap;		/* live at the peak of event snap_for */
	uint64_t snap_for;
};

/* One of the last allocations, for the temporary rules. */
struct recent {
	pid_t pid;
	uint64_t addr;
	uint64_t size;
	uint32_t stack;
	uint64_t call;		/* its number among the calls (1-based) */
};

struct heap_profile {
	struct heap_totals t;
	struct stack_table *sites;	/* of struct site */
	struct hashmap *sizes;		/* size -> calls */
	uint64_t events, peak_event;
	unsigned int threshold;		/* 1: heaptrack's rule */
	struct recent *recent;		/* ring of the last threshold allocations */
	size_t recent_head;
	bool last_valid;		/* heaptrack: the last event was an allocation */
	int err;			/* the first of heap_profile__made() */
	/* heap --sample-rate: what each block made by the hooks stands for
	 * (NULL, or a rate <= 1: itself). */
	const struct alloc_sample *sample;
	struct live_series *series;	/* live bytes over time */
};

int heap_profile__new(unsigned int temp_threshold, struct heap_profile **out)
{
	struct heap_profile *hp = calloc(1, sizeof(*hp));

	*out = NULL;
	if (!hp)
		return -ENOMEM;
	hp->threshold = temp_threshold ? temp_threshold : 1;
	hp->sizes = hashmap__new();
	hp->recent = calloc(hp->threshold, sizeof(*hp->recent));
	if (stack_table__new(sizeof(struct site), &hp->sites) || !hp->sizes || !hp->recent ||
	    live_series__new(&hp->series)) {
		heap_profile__free(hp);
		return -ENOMEM;
	}
	*out = hp;
	return 0;
}

void heap_profile__free(struct heap_profile *hp)
{
	if (!hp)
		return;
	stack_table__free(hp->sites);
	hashmap__free(hp->sizes);
	free(hp->recent);
	live_series__free(hp->series);
	free(hp);
}

/* The site of @pid's @stack: made when @create, else NULL if none. */
static struct site *site_of(struct heap_profile *hp, pid_t pid, uint32_t stack, bool create)
{
	/* s is the record's first member: the table's site is the record. */
	if (!create)
		return (struct site *)stack_table__find(hp->sites, pid, stack);
	return (struct site *)stack_table__get(hp->sites, pid, stack);
}

/* @st is about to change at event hp->events. */
static void before_change(struct heap_profile *hp, struct site *st)
{
	if (st->changed <= hp->peak_event && st->snap_for != hp->peak_event) {
		st->snap = st->s.leaked;
		st->snap_for = hp->peak_event;
	}
	st->changed = hp->events;
}

static void note_time(struct heap_profile *hp, uint64_t time)
{
	if (!hp->t.first_time || time < hp->t.first_time)
		hp->t.first_time = time;
	if (time > hp->t.last_time)
		hp->t.last_time = time;
}

/* A block of @size standing for @w blocks like it. */
static int alloc_w(struct heap_profile *hp, pid_t pid, uint64_t addr, uint64_t size,
		   uint32_t stack, uint64_t time, uint64_t w)
{
	struct site *st = site_of(hp, pid, stack, true);
	uint64_t n = 0;

	if (!st)
		return -ENOMEM;
	hashmap__get(hp->sizes, size, &n);
	if (hashmap__set(hp->sizes, size, n + w))
		return -ENOMEM;
	hp->events++;
	note_time(hp, time);
	before_change(hp, st);
	st->s.calls += w;
	st->s.bytes += size * w;
	st->s.leaked += size * w;
	st->s.leaked_blocks += w;
	hp->t.calls += w;
	hp->t.live_bytes += size * w;
	hp->t.live_blocks += w;
	if (hp->t.live_bytes > hp->t.peak_bytes) {
		hp->t.peak_bytes = hp->t.live_bytes;
		hp->t.peak_time = time;
		hp->peak_event = hp->events;
	}
	live_series__add(hp->series, time, hp->t.live_bytes);
	hp->recent[hp->recent_head] = (struct recent){ pid, addr, size, stack, hp->t.calls };
	hp->recent_head = (hp->recent_head + 1) % hp->threshold;
	hp->last_valid = true;
	return 0;
}

int heap_profile__alloc(struct heap_profile *hp, pid_t pid, uint64_t addr, uint64_t size,
			uint32_t stack, uint64_t time)
{
	return alloc_w(hp, pid, addr, size, stack, time, 1);
}

/*
 * Whether freeing @addr of @pid (@size bytes from @stack) now makes its
 * allocation temporary.  heaptrack's rule as heaptrack_print applies it:
 * the last event was an allocation of the same size from the same stack
 * (heaptrack compares the allocation's (size, trace) entry, not the
 * address, so a block just like the one just made counts too).
 */
static bool sampled(const struct heap_profile *hp)
{
	return hp->sample && hp->sample->rate > 1;
}

static bool temporary(const struct heap_profile *hp, pid_t pid, uint64_t addr, uint64_t size,
		      uint32_t stack)
{
	if (hp->threshold == 1) {
		const struct recent *r = &hp->recent[0];

		return hp->last_valid && r->pid == pid && r->size == size && r->stack == stack;
	}
	for (unsigned int i = 0; i < hp->threshold; i++) {
		const struct recent *r = &hp->recent[i];

		/* Made among the last threshold calls: fewer than threshold
		 * allocations came after it. */
		if (r->call && r->pid == pid && r->addr == addr && hp->t.calls - r->call < hp->threshold)
			return true;
	}
	return false;
}

/* @size bytes of @pid's @stack are no longer live: its site, or NULL
 * when they were made before we looked (not ours). */
static struct site *unlive(struct heap_profile *hp, pid_t pid, uint32_t stack, uint64_t size,
			   uint64_t w)
{
	struct site *st = site_of(hp, pid, stack, false);

	hp->last_valid = false;
	if (!st || st->s.leaked < size * w || st->s.leaked_blocks < w)
		return NULL;
	hp->events++;
	before_change(hp, st);
	st->s.leaked -= size * w;
	st->s.leaked_blocks -= w;
	hp->t.live_bytes -= size * w;
	hp->t.live_blocks -= w;
	return st;
}

static void release_w(struct heap_profile *hp, pid_t pid, uint64_t addr, uint64_t size,
		      uint32_t stack, uint64_t time, uint64_t w)
{
	struct site *st;
	/* Sampled, the events between two seen are not: "freed before any
	 * other event" cannot be told, and is not counted. */
	bool temp = !sampled(hp) && temporary(hp, pid, addr, size, stack);

	st = unlive(hp, pid, stack, size, w);
	if (!st)
		return;
	note_time(hp, time);
	live_series__add(hp->series, time, hp->t.live_bytes);
	hp->t.frees += w;
	if (temp) {
		st->s.temporary++;
		hp->t.temporary++;
	}
}

void heap_profile__release(struct heap_profile *hp, pid_t pid, uint64_t addr, uint64_t size,
			   uint32_t stack, uint64_t time)
{
	release_w(hp, pid, addr, size, stack, time, 1);
}

/* What the block @r stands for under the profile's sampling. */
static uint64_t weight(const struct heap_profile *hp, const struct alloc_rec *r)
{
	return hp->sample ? alloc_sample__weight(hp->sample, r->addr, r->size) : 1;
}

void heap_profile__made(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	struct heap_profile *hp = ctx;
	uint64_t w = weight(hp, r);

	(void)smp;
	if (!r->region && !hp->err && w)
		hp->err = alloc_w(hp, r->pid, r->addr, r->size, r->stack, r->time, w);
}

void heap_profile__freed(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	struct heap_profile *hp = ctx;
	uint64_t w = weight(hp, r);

	if (!r->region && w)
		release_w(hp, r->pid, r->addr, r->size, r->stack, smp->time, w);
}

void heap_profile__gone(void *ctx, const struct alloc_rec *r, uint64_t time)
{
	struct heap_profile *hp = ctx;
	uint64_t w = weight(hp, r);

	/* not the program's event: the run's times stay its own, but the
	 * live bytes fall then */
	if (!r->region && w && unlive(hp, r->pid, r->stack, r->size, w))
		live_series__add(hp->series, time, hp->t.live_bytes);
}

void heap_profile__set_sample(struct heap_profile *hp, const struct alloc_sample *s)
{
	hp->sample = s;
}

int heap_profile__error(const struct heap_profile *hp)
{
	return hp->err;
}

const struct heap_totals *heap_profile__totals(const struct heap_profile *hp)
{
	return &hp->t;
}

const struct live_series *heap_profile__series(const struct heap_profile *hp)
{
	return hp->series;
}

int heap_profile__sites(const struct heap_profile *hp, struct stack_site **out, size_t *n)
{
	size_t count = stack_table__count(hp->sites);
	struct stack_site *v = malloc((count ? count : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++) {
		const struct site *st = (const struct site *)stack_table__at(hp->sites, i);

		v[i] = st->s;
		if (!hp->peak_event)
			v[i].peak = 0;
		else if (st->changed <= hp->peak_event)
			v[i].peak = st->s.leaked;
		else
			v[i].peak = st->snap_for == hp->peak_event ? st->snap : 0;
	}
	*out = v;
	*n = count;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int heap_profile__histogram(const struct heap_profile *hp, uint64_t **sizes, uint64_t **counts,
			    size_t *n)
{
	size_t k = hashmap__count(hp->sizes), pos = 0, i = 0;
	uint64_t *s = malloc((k ? k : 1) * sizeof(*s)), *c = malloc((k ? k : 1) * sizeof(*c));
	uint64_t key, val;

	if (!s || !c) {
		free(s);
		free(c);
		return -ENOMEM;
	}
	while (i < k && hashmap__next(hp->sizes, &pos, &key, &val))
		s[i++] = key;
	qsort(s, i, sizeof(*s), cmp_u64);
	for (size_t j = 0; j < i; j++)
		hashmap__get(hp->sizes, s[j], &c[j]);
	*sizes = s;
	*counts = c;
	*n = i;
	return 0;
}
