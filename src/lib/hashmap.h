/*
 * hashmap: open-addressing map from a 64-bit key to a 64-bit value.
 *
 * The one associative container faultline needs on hot paths (stack ids,
 * per-thread state, per-process counters).  Keys are arbitrary u64s; callers
 * that key by something larger hash it first and resolve collisions in the
 * value they store.  Values that are pointers are owned by the caller.
 */
#ifndef FAULTLINE_HASHMAP_H
#define FAULTLINE_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap;

struct hashmap *hashmap__new(void);
void hashmap__free(struct hashmap *map);

/* Insert or replace.  0, or -ENOMEM (the map is unchanged). */
int hashmap__set(struct hashmap *map, uint64_t key, uint64_t value);
/* true and *value set when present. */
bool hashmap__get(const struct hashmap *map, uint64_t key, uint64_t *value);
/* true when the key was present (and is now gone); *value gets the old one. */
bool hashmap__delete(struct hashmap *map, uint64_t key, uint64_t *value);
size_t hashmap__count(const struct hashmap *map);

/* Iteration: start with *pos = 0; returns false at the end.  The map must not
 * be modified during iteration, except by hashmap__delete of the current key. */
bool hashmap__next(const struct hashmap *map, size_t *pos, uint64_t *key, uint64_t *value);

/* 64-bit mix of a byte string, for callers that key by content. */
uint64_t hash_bytes(const void *data, size_t len);

#endif
