/*
 * hashmap: linear-probing table with tombstones, power-of-two capacity,
 * grown at 70% load (counting tombstones, so deletes cannot make probes
 * unbounded).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"

enum { SLOT_EMPTY = 0, SLOT_FULL = 1, SLOT_DEAD = 2 };

struct slot {
	uint64_t key;
	uint64_t value;
	uint8_t state;
};

struct hashmap {
	struct slot *slots;
	size_t cap;	/* power of two */
	size_t count;	/* live keys */
	size_t used;	/* live + tombstones */
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL ^ len;

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		h = mix64(h ^ w);
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t w = 0;

		memcpy(&w, p, len);
		h = mix64(h ^ w);
	}
	return h;
}

struct hashmap *hashmap__new(void)
{
	struct hashmap *map = calloc(1, sizeof(*map));

	if (!map)
		return NULL;
	map->cap = 16;
	map->slots = calloc(map->cap, sizeof(*map->slots));
	if (!map->slots) {
		free(map);
		return NULL;
	}
	return map;
}

void hashmap__free(struct hashmap *map)
{
	if (!map)
		return;
	free(map->slots);
	free(map);
}

static struct slot *find(const struct hashmap *map, uint64_t key)
{
	size_t mask = map->cap - 1;
	size_t i = mix64(key) & mask;

	for (;;) {
		struct slot *s = &map->slots[i];

		if (s->state == SLOT_EMPTY)
			return NULL;
		if (s->state == SLOT_FULL && s->key == key)
			return s;
		i = (i + 1) & mask;
	}
}

static int grow(struct hashmap *map)
{
	size_t newcap = map->count * 2 >= map->cap ? map->cap * 2 : map->cap;
	struct slot *old = map->slots, *slots;
	size_t oldcap = map->cap;

	slots = calloc(newcap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	map->slots = slots;
	map->cap = newcap;
	map->used = map->count;
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (old[i].state != SLOT_FULL)
			continue;
		j = mix64(old[i].key) & (newcap - 1);
		while (slots[j].state == SLOT_FULL)
			j = (j + 1) & (newcap - 1);
		slots[j] = old[i];
	}
	free(old);
	return 0;
}

int hashmap__set(struct hashmap *map, uint64_t key, uint64_t value)
{
	struct slot *s = find(map, key);
	size_t mask, i;

	if (s) {
		s->value = value;
		return 0;
	}
	if ((map->used + 1) * 10 >= map->cap * 7) {
		int err = grow(map);

		if (err)
			return err;
	}
	mask = map->cap - 1;
	i = mix64(key) & mask;
	while (map->slots[i].state == SLOT_FULL)
		i = (i + 1) & mask;
	if (map->slots[i].state == SLOT_EMPTY)
		map->used++;
	map->slots[i] = (struct slot){ .key = key, .value = value, .state = SLOT_FULL };
	map->count++;
	return 0;
}

bool hashmap__get(const struct hashmap *map, uint64_t key, uint64_t *value)
{
	struct slot *s = find(map, key);

	if (!s)
		return false;
	if (value)
		*value = s->value;
	return true;
}

bool hashmap__delete(struct hashmap *map, uint64_t key, uint64_t *value)
{
	struct slot *s = find(map, key);

	if (!s)
		return false;
	if (value)
		*value = s->value;
	s->state = SLOT_DEAD;
	map->count--;
	return true;
}

size_t hashmap__count(const struct hashmap *map)
{
	return map->count;
}

bool hashmap__next(const struct hashmap *map, size_t *pos, uint64_t *key, uint64_t *value)
{
	while (*pos < map->cap) {
		const struct slot *s = &map->slots[(*pos)++];

		if (s->state == SLOT_FULL) {
			*key = s->key;
			*value = s->value;
			return true;
		}
	}
	return false;
}
