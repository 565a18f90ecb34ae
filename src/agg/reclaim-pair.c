/*
 * reclaim-pair: see reclaim-pair.h.  A begin is kept by thread and kind
 * (tid << 2 | kind) in a hashmap until its end; one reclaim is
 * microseconds to seconds, so the map holds at most a few entries per
 * reclaiming thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agg/reclaim-pair.h"
#include "lib/hashmap.h"

struct reclaim_pair {
	struct hashmap *begin;		/* tid << 2 | kind -> begin time */
	struct reclaim_sums sums;
};

static uint64_t key(pid_t tid, enum reclaim_kind k)
{
	return (uint64_t)(uint32_t)tid << 2 | (uint64_t)k;
}

int reclaim_pair__new(struct reclaim_pair **out)
{
	struct reclaim_pair *rp = calloc(1, sizeof(*rp));

	*out = NULL;
	if (!rp || !(rp->begin = hashmap__new())) {
		free(rp);
		return -ENOMEM;
	}
	*out = rp;
	return 0;
}

void reclaim_pair__free(struct reclaim_pair *rp)
{
	if (!rp)
		return;
	hashmap__free(rp->begin);
	free(rp);
}

int reclaim_pair__begin(struct reclaim_pair *rp, pid_t tid, enum reclaim_kind k, uint64_t time)
{
	return hashmap__set(rp->begin, key(tid, k), time) ? -ENOMEM : 0;
}

bool reclaim_pair__end(struct reclaim_pair *rp, pid_t tid, enum reclaim_kind k, uint64_t time,
		       uint64_t pages, uint64_t *ns)
{
	uint64_t t0;

	if (!hashmap__delete(rp->begin, key(tid, k), &t0)) {
		rp->sums.unpaired++;
		return false;
	}
	*ns = time > t0 ? time - t0 : 0;
	rp->sums.count[k]++;
	rp->sums.ns[k] += *ns;
	rp->sums.pages[k] += pages;
	return true;
}

void reclaim_pair__sums(const struct reclaim_pair *rp, struct reclaim_sums *out)
{
	if (rp)
		*out = rp->sums;
	else
		memset(out, 0, sizeof(*out));
}
