/*
 * stackdb: content hash -> chain of ids; ips stored in fixed-size chunks.
 *
 * The hashmap maps a stack's hash_bytes() to the newest id with that hash;
 * each entry links to the previous id with the same hash, so a collision
 * costs a memcmp per colliding stack rather than a wrong answer.  Ips live
 * in chunks that never move (a stack bigger than a chunk gets its own), which
 * is what lets stackdb__get() hand out pointers valid for the db's life.
 * The hash is of the ips alone and the image is compared in the chain, so
 * an image set later (stackdb__set_image) leaves every chain as it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"
#include "stack/stackdb.h"

#define CHUNK_IPS 65536

struct entry {
	const uint64_t *ips;
	uint32_t nr;
	uint32_t image;		/* the address space's image it was unwound in, 0: none */
	uint32_t next;		/* previous id with the same hash, 0 = none */
};

struct chunk {
	struct chunk *prev;
	size_t used, cap;
	uint64_t ips[];
};

struct stackdb {
	struct hashmap *by_hash;	/* hash -> newest id with that hash */
	struct entry *entries;		/* id - 1 -> entry */
	uint32_t nr, cap;
	struct chunk *chunks;		/* newest first */
};

/* Stands in for the ips of empty stacks, so get() returns non-NULL for
 * every valid id. */
static const uint64_t empty_stack[1];

int stackdb__new(struct stackdb **out)
{
	struct stackdb *db = calloc(1, sizeof(*db));

	if (!db)
		return -ENOMEM;
	db->by_hash = hashmap__new();
	if (!db->by_hash) {
		free(db);
		return -ENOMEM;
	}
	*out = db;
	return 0;
}

void stackdb__free(struct stackdb *db)
{
	if (!db)
		return;
	while (db->chunks) {
		struct chunk *prev = db->chunks->prev;

		free(db->chunks);
		db->chunks = prev;
	}
	free(db->entries);
	hashmap__free(db->by_hash);
	free(db);
}

/* Room for @nr ips that never moves; NULL on ENOMEM. */
static uint64_t *store(struct stackdb *db, uint32_t nr)
{
	struct chunk *c = db->chunks;

	if (!c || c->cap - c->used < nr) {
		size_t cap = nr > CHUNK_IPS ? nr : CHUNK_IPS;
		struct chunk *n = malloc(sizeof(*n) + cap * sizeof(uint64_t));

		if (!n)
			return NULL;
		n->used = 0;
		n->cap = cap;
		/* A big stack in its own chunk goes behind the current one so
		 * the current one's free room is not wasted. */
		if (c && cap > CHUNK_IPS) {
			n->prev = c->prev;
			c->prev = n;
		} else {
			n->prev = c;
			db->chunks = n;
		}
		c = n;
	}
	c->used += nr;
	return c->ips + c->used - nr;
}

static uint64_t ips_hash(const uint64_t *ips, uint32_t nr)
{
	return hash_bytes(nr ? (const void *)ips : (const void *)empty_stack,
			  (size_t)nr * sizeof(uint64_t));
}

int stackdb__add(struct stackdb *db, uint32_t image, const uint64_t *ips, uint32_t nr,
		 uint32_t *id)
{
	size_t bytes = (size_t)nr * sizeof(uint64_t);
	uint64_t hash = ips_hash(ips, nr);
	uint64_t head = 0;
	const uint64_t *stored = empty_stack;
	struct entry *e;

	hashmap__get(db->by_hash, hash, &head);
	if (db->nr == UINT32_MAX - 1)
		return -ENOMEM;
	if (db->nr == db->cap) {
		uint32_t cap = db->cap ? (db->cap > UINT32_MAX / 2 ? UINT32_MAX : db->cap * 2) : 1024;
		struct entry *ne = realloc(db->entries, (size_t)cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		db->entries = ne;
		db->cap = cap;
	}
	/* Reserve the hash slot before taking ip room, so a failure leaves
	 * at most unused chunk space behind. */
	if (hashmap__set(db->by_hash, hash, db->nr + 1))
		return -ENOMEM;
	if (nr) {
		uint64_t *copy = store(db, nr);

		if (!copy) {
			/* Undo: restore the previous head (or drop the key). */
			if (head)
				hashmap__set(db->by_hash, hash, head);
			else
				hashmap__delete(db->by_hash, hash, NULL);
			return -ENOMEM;
		}
		memcpy(copy, ips, bytes);
		stored = copy;
	}
	e = &db->entries[db->nr++];
	e->ips = stored;
	e->nr = nr;
	e->image = image;
	e->next = (uint32_t)head;
	*id = db->nr;
	return 0;
}

int stackdb__intern(struct stackdb *db, uint32_t image, const uint64_t *ips, uint32_t nr,
		    uint32_t *id)
{
	size_t bytes = (size_t)nr * sizeof(uint64_t);
	uint64_t head = 0;

	if (hashmap__get(db->by_hash, ips_hash(ips, nr), &head)) {
		for (uint32_t i = (uint32_t)head; i; i = db->entries[i - 1].next) {
			const struct entry *e = &db->entries[i - 1];

			if (e->nr == nr && e->image == image &&
			    (!nr || memcmp(e->ips, ips, bytes) == 0)) {
				*id = i;
				return 0;
			}
		}
	}
	return stackdb__add(db, image, ips, nr, id);
}

const uint64_t *stackdb__get(const struct stackdb *db, uint32_t id, uint32_t *nr)
{
	if (!id || id > db->nr)
		return NULL;
	*nr = db->entries[id - 1].nr;
	return db->entries[id - 1].ips;
}

uint32_t stackdb__image(const struct stackdb *db, uint32_t id)
{
	return id && id <= db->nr ? db->entries[id - 1].image : 0;
}

void stackdb__set_image(struct stackdb *db, uint32_t id, uint32_t image)
{
	if (id && id <= db->nr)
		db->entries[id - 1].image = image;
}

uint32_t stackdb__count(const struct stackdb *db)
{
	return db->nr;
}
