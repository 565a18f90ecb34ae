/*
 * mem-series: indicator rows, their ring and the baseline rule (see
 * mem-series.h).  Samples are a few hundred bytes: 32 of them, the
 * default --before of 30 s at 1 s and two to spare, are 10 KiB.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agg/mem-series.h"

/* A row shorter than this at the end is merged into the one before. */
#define MEM_SERIES_MERGE_NS 100000000ULL

static const struct {
	const char *name, *header;
} cols[MC__COUNT] = {
	[MC_PSI_SOME_US] = { "psi_some_us", "SOME_MS" },
	[MC_PSI_FULL_US] = { "psi_full_us", "FULL_MS" },
	[MC_CG_SOME_US] = { "cg_some_us", "CGS_MS" },
	[MC_CG_FULL_US] = { "cg_full_us", "CGF_MS" },
	[MC_MEMAVAIL_KB] = { "memavailable_kb", "AVAIL_MB" },
	[MC_MAJFLT] = { "major_faults", "MAJFLT" },
	[MC_PSWPIN] = { "pswpin", "SWPIN" },
	[MC_PSWPOUT] = { "pswpout", "SWPOUT" },
	[MC_DIRECT] = { "direct_reclaims", "DIRECT" },
	[MC_DIRECT_NS] = { "direct_reclaim_ns", "DIR_MS" },
	[MC_MEMCG] = { "memcg_reclaims", "MEMCG" },
	[MC_MEMCG_NS] = { "memcg_reclaim_ns", "MCG_MS" },
	[MC_COMPACT] = { "compact_stalls", "COMPACT" },
	[MC_OOM] = { "oom_kills", "OOM" },
};

const char *mem_col__name(enum mem_col c)
{
	return c < MC__COUNT ? cols[c].name : "?";
}

const char *mem_col__header(enum mem_col c)
{
	return c < MC__COUNT ? cols[c].header : "?";
}

/* Column @c from counter @i of the samples. */
static void counter(struct mem_row *out, enum mem_col c, const struct mem_point *now,
		    const struct mem_point *then, enum mem_ind i)
{
	out->have[c] = now->s.v[i] != PROCSTAT_ABSENT && then->s.v[i] != PROCSTAT_ABSENT;
	out->v[c] = vmstat__delta(now->s.v[i], then->s.v[i]);
}

static void reclaim(struct mem_row *out, enum mem_col c, const struct mem_point *now,
		    const struct mem_point *then, enum reclaim_kind k)
{
	out->have[c] = out->have[c + 1] = now->r.have[k];
	out->v[c] = now->r.count[k] - then->r.count[k];
	out->v[c + 1] = now->r.ns[k] - then->r.ns[k];
}

void mem_row__diff(const struct mem_point *now, const struct mem_point *then, struct mem_row *out)
{
	memset(out, 0, sizeof(*out));
	out->time_ns = now->s.time_ns;
	out->len_ns = now->s.time_ns - then->s.time_ns;
	counter(out, MC_PSI_SOME_US, now, then, MI_PSI_SOME_US);
	counter(out, MC_PSI_FULL_US, now, then, MI_PSI_FULL_US);
	counter(out, MC_CG_SOME_US, now, then, MI_CG_SOME_US);
	counter(out, MC_CG_FULL_US, now, then, MI_CG_FULL_US);
	out->have[MC_MEMAVAIL_KB] = now->s.v[MI_MEMAVAIL_KB] != PROCSTAT_ABSENT;
	out->v[MC_MEMAVAIL_KB] = now->s.v[MI_MEMAVAIL_KB];
	counter(out, MC_MAJFLT, now, then, MI_PGMAJFAULT);
	counter(out, MC_PSWPIN, now, then, MI_PSWPIN);
	counter(out, MC_PSWPOUT, now, then, MI_PSWPOUT);
	if (now->have_reclaim) {
		reclaim(out, MC_DIRECT, now, then, RECLAIM_DIRECT);
		reclaim(out, MC_MEMCG, now, then, RECLAIM_MEMCG);
	} else {
		counter(out, MC_DIRECT, now, then, MI_ALLOCSTALL);
	}
	counter(out, MC_COMPACT, now, then, MI_COMPACT_STALL);
	counter(out, MC_OOM, now, then, MI_OOM_KILL);
}

bool mem_rows__departure(const struct mem_row *rows, size_t n, enum mem_col *col, size_t *row)
{
	bool found = false;

	if (n <= MEM_SERIES_BASELINE)
		return false;
	for (int c = 0; c < MC__COUNT; c++) {
		uint64_t lo = UINT64_MAX, hi = 0;
		bool known = true;

		/* Times follow their counts; the kill's own count is the end,
		 * not a precursor. */
		if (c == MC_DIRECT_NS || c == MC_MEMCG_NS || c == MC_OOM)
			continue;
		for (size_t i = 0; i < MEM_SERIES_BASELINE; i++) {
			known &= rows[i].have[c];
			lo = rows[i].v[c] < lo ? rows[i].v[c] : lo;
			hi = rows[i].v[c] > hi ? rows[i].v[c] : hi;
		}
		if (!known)
			continue;
		for (size_t i = MEM_SERIES_BASELINE; i < n && (!found || i < *row); i++) {
			bool stall = c <= MC_CG_FULL_US;
			uint64_t drop = lo / 100 > MEM_SERIES_AVAIL_DROP_KB ? lo / 100 :
					MEM_SERIES_AVAIL_DROP_KB;
			bool left = c == MC_MEMAVAIL_KB ? rows[i].v[c] + drop < lo :
				    rows[i].v[c] > hi + (stall ? MEM_SERIES_STALL_MIN_US : 0);

			if (rows[i].have[c] && left) {
				*col = (enum mem_col)c;
				*row = i;
				found = true;
				break;
			}
		}
	}
	return found;
}

struct mem_series {
	struct mem_point *p;
	size_t cap, n, head;		/* head: index of the oldest */
};

int mem_series__new(size_t cap, struct mem_series **out)
{
	struct mem_series *ms = calloc(1, sizeof(*ms));

	if (!ms || !(ms->p = calloc(cap ? cap : 1, sizeof(*ms->p)))) {
		free(ms);
		return -ENOMEM;
	}
	ms->cap = cap ? cap : 1;
	*out = ms;
	return 0;
}

void mem_series__free(struct mem_series *ms)
{
	if (!ms)
		return;
	free(ms->p);
	free(ms);
}

void mem_series__push(struct mem_series *ms, const struct mem_point *p)
{
	if (ms->n < ms->cap) {
		ms->p[(ms->head + ms->n++) % ms->cap] = *p;
		return;
	}
	ms->p[ms->head] = *p;
	ms->head = (ms->head + 1) % ms->cap;
}

int mem_series__rows(const struct mem_series *ms, uint64_t since_ns, const struct mem_point *last,
		     struct mem_row **out, size_t *n)
{
	const struct mem_point *prev = NULL, *before_prev = NULL;
	struct mem_row *rows = calloc(ms->n + 1, sizeof(*rows));
	size_t k = 0;

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i <= ms->n; i++) {
		const struct mem_point *p = i < ms->n ? &ms->p[(ms->head + i) % ms->cap] : last;

		if (!p)
			break;
		/* @last just after the newest sample (a round that took one
		 * a moment before): it ends that row instead of making one of
		 * a few milliseconds. */
		if (p == last && k && before_prev && p->s.time_ns - prev->s.time_ns < MEM_SERIES_MERGE_NS) {
			mem_row__diff(p, before_prev, &rows[k - 1]);
			break;
		}
		/* The sample before @since_ns is the first row's start. */
		if (prev && p->s.time_ns > since_ns && p->s.time_ns > prev->s.time_ns)
			mem_row__diff(p, prev, &rows[k++]);
		before_prev = prev;
		prev = p;
	}
	*out = rows;
	*n = k;
	return 0;
}
