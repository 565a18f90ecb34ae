/*
 * reclaim-watch: direct and memcg reclaim counted and timed from the
 * vmscan begin/end pairs (see reclaim-watch.h).  A begin is kept by thread
 * and kind in a hashmap until its end; one reclaim is microseconds to
 * seconds, so the map holds at most one entry per reclaiming thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "features.h"
#include "lib/hashmap.h"
#include "agg/reclaim-watch.h"
#include "trace/session.h"

struct reclaim_watch {
	struct hashmap *begin;		/* tid << 1 | kind -> begin time */
	struct reclaim_totals t;
	int err;
};

static void on_begin(struct reclaim_watch *w, const struct sample *smp, enum reclaim_kind k)
{
	if (hashmap__set(w->begin, (uint64_t)smp->tid << 1 | k, smp->time))
		w->err = -ENOMEM;
}

static void on_end(struct reclaim_watch *w, const struct sample *smp, enum reclaim_kind k)
{
	uint64_t t0;

	if (!hashmap__delete(w->begin, (uint64_t)smp->tid << 1 | k, &t0)) {
		w->t.unpaired++;
		return;
	}
	w->t.count[k]++;
	w->t.ns[k] += smp->time > t0 ? smp->time - t0 : 0;
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
	if (!w || !(w->begin = hashmap__new())) {
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
	w->t.have[RECLAIM_DIRECT] = true;
	/* The memcg pair is older than cgroup v2 but may be masked or absent
	 * in a recording: optional. */
	if (features__has_tracepoint(f, "vmscan", "mm_vmscan_memcg_reclaim_begin") &&
	    features__has_tracepoint(f, "vmscan", "mm_vmscan_memcg_reclaim_end") &&
	    !session__add_tracepoint(s, "vmscan", "mm_vmscan_memcg_reclaim_begin", 0, memcg_begin, w,
				     NULL, NULL) &&
	    !session__add_tracepoint(s, "vmscan", "mm_vmscan_memcg_reclaim_end", 0, memcg_end, w,
				     NULL, NULL))
		w->t.have[RECLAIM_MEMCG] = true;
	*out = w;
	return 0;
}

void reclaim_watch__totals(const struct reclaim_watch *w, struct reclaim_totals *out)
{
	if (w)
		*out = w->t;
	else
		memset(out, 0, sizeof(*out));
}

int reclaim_watch__err(const struct reclaim_watch *w)
{
	return w ? w->err : 0;
}

void reclaim_watch__free(struct reclaim_watch *w)
{
	if (!w)
		return;
	hashmap__free(w->begin);
	free(w);
}
