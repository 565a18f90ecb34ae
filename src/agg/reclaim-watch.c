/*
 * reclaim-watch: direct and memcg reclaim counted and timed from the
 * vmscan begin/end pairs (see reclaim-watch.h), paired by reclaim-pair.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "features.h"
#include "agg/reclaim-watch.h"
#include "trace/session.h"

struct reclaim_watch {
	struct reclaim_pair *pair;
	bool have[RECLAIM__COUNT];
	int err;
};

static void on_begin(struct reclaim_watch *w, const struct sample *smp, enum reclaim_kind k)
{
	if (reclaim_pair__begin(w->pair, (pid_t)smp->tid, k, smp->time))
		w->err = -ENOMEM;
}

static void on_end(struct reclaim_watch *w, const struct sample *smp, enum reclaim_kind k)
{
	uint64_t ns;

	reclaim_pair__end(w->pair, (pid_t)smp->tid, k, smp->time, 0, &ns);
}

static void direct_begin(struct session *s, const struct sample *smp, void *ctx)
{
	(void)s;
	on_begin(ctx, smp, RECLAIM_DIRECT);
}

static void direct_end(struct session *s, const struct sample *smp, void *ctx)
{
	(void)s;
	on_end(ctx, smp, RECLAIM_DIRECT);
}

static void memcg_begin(struct session *s, const struct sample *smp, void *ctx)
{
	(void)s;
	on_begin(ctx, smp, RECLAIM_MEMCG);
}

static void memcg_end(struct session *s, const struct sample *smp, void *ctx)
{
	(void)s;
	on_end(ctx, smp, RECLAIM_MEMCG);
}

int reclaim_watch__add(struct session *s, struct reclaim_watch **out, struct errbuf *eb)
{
	const struct features *f = session__features(s);
	struct reclaim_watch *w = calloc(1, sizeof(*w));
	int err;

	*out = NULL;
	if (!w || reclaim_pair__new(&w->pair)) {
		free(w);
		return errbuf__set(eb, -ENOMEM, "out of memory");
	}
	err = session__add_tracepoint(s, "vmscan", "mm_vmscan_direct_reclaim_begin", 0, direct_begin,
				      w, NULL, eb);
	if (!err)
		err = session__add_tracepoint(s, "vmscan", "mm_vmscan_direct_reclaim_end", 0,
					      direct_end, w, NULL, eb);
	if (err) {
		reclaim_watch__free(w);
		return err;
	}
	w->have[RECLAIM_DIRECT] = true;
	/* The memcg pair is older than cgroup v2 but may be masked or absent
	 * in a recording: optional. */
	if (features__has_tracepoint(f, "vmscan", "mm_vmscan_memcg_reclaim_begin") &&
	    features__has_tracepoint(f, "vmscan", "mm_vmscan_memcg_reclaim_end") &&
	    !session__add_tracepoint(s, "vmscan", "mm_vmscan_memcg_reclaim_begin", 0, memcg_begin, w,
				     NULL, NULL) &&
	    !session__add_tracepoint(s, "vmscan", "mm_vmscan_memcg_reclaim_end", 0, memcg_end, w,
				     NULL, NULL))
		w->have[RECLAIM_MEMCG] = true;
	*out = w;
	return 0;
}

void reclaim_watch__totals(const struct reclaim_watch *w, struct reclaim_totals *out)
{
	struct reclaim_sums sums;

	memset(out, 0, sizeof(*out));
	if (!w)
		return;
	reclaim_pair__sums(w->pair, &sums);
	memcpy(out->count, sums.count, sizeof(out->count));
	memcpy(out->ns, sums.ns, sizeof(out->ns));
	memcpy(out->have, w->have, sizeof(out->have));
	out->unpaired = sums.unpaired;
}

int reclaim_watch__err(const struct reclaim_watch *w)
{
	return w ? w->err : 0;
}

void reclaim_watch__free(struct reclaim_watch *w)
{
	if (!w)
		return;
	reclaim_pair__free(w->pair);
	free(w);
}
