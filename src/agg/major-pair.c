/*
 * major-pair: see major-pair.h.  Two tables by tid: the page of the
 * thread's last fault (+1, so page 0 is a value) and its owner.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "agg/major-pair.h"
#include "lib/hashmap.h"

struct major_pair {
	uint64_t page_size;
	struct hashmap *page;	/* tid -> page + 1 of its last fault */
	struct hashmap *owner;	/* tid -> its owner */
};

int major_pair__new(struct major_pair **out)
{
	struct major_pair *mp = calloc(1, sizeof(*mp));
	long ps = sysconf(_SC_PAGESIZE);

	*out = NULL;
	if (!mp)
		return -ENOMEM;
	mp->page_size = ps > 0 ? (uint64_t)ps : 4096;
	mp->page = hashmap__new();
	mp->owner = hashmap__new();
	if (!mp->page || !mp->owner) {
		major_pair__free(mp);
		return -ENOMEM;
	}
	*out = mp;
	return 0;
}

void major_pair__free(struct major_pair *mp)
{
	if (!mp)
		return;
	hashmap__free(mp->page);
	hashmap__free(mp->owner);
	free(mp);
}

int major_pair__fault(struct major_pair *mp, pid_t tid, uint64_t addr, uint64_t owner)
{
	if (hashmap__set(mp->page, (uint64_t)tid, addr / mp->page_size + 1) ||
	    hashmap__set(mp->owner, (uint64_t)tid, owner))
		return -ENOMEM;
	return 0;
}

bool major_pair__major(struct major_pair *mp, pid_t tid, uint64_t addr, uint64_t *owner)
{
	uint64_t page;

	if (!hashmap__get(mp->page, (uint64_t)tid, &page) || page != addr / mp->page_size + 1 ||
	    !hashmap__get(mp->owner, (uint64_t)tid, owner))
		return false;
	hashmap__delete(mp->page, (uint64_t)tid, NULL);
	return true;
}

int major_pair__reown(struct major_pair *mp, pid_t tid, uint64_t from, uint64_t to)
{
	uint64_t cur;

	if (!hashmap__get(mp->owner, (uint64_t)tid, &cur) || cur != from)
		return 0;
	return hashmap__set(mp->owner, (uint64_t)tid, to) ? -ENOMEM : 0;
}

void major_pair__forget(struct major_pair *mp, pid_t tid)
{
	hashmap__delete(mp->page, (uint64_t)tid, NULL);
	hashmap__delete(mp->owner, (uint64_t)tid, NULL);
}
