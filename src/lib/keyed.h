/*
 * keyed: records of one type in a growable array, found by a 64-bit key
 * (a pid, "pid << 32 | stack id"), made zeroed on first use.  What a tool
 * aggregates per process or per stack, written once instead of in every
 * tool.
 *
 * Pointers into the array stay valid until the next keyed__get() that
 * creates a record, or keyed__sort().  keyed__sort() orders the records
 * for a report and keeps them found by key, so that the run may go on
 * after it (a snapshot's report); only when it runs out of memory are
 * lookups over (keyed__get() then returns NULL, as for any failure).
 */
#ifndef FAULTLINE_KEYED_H
#define FAULTLINE_KEYED_H

#include <stddef.h>
#include <stdint.h>

struct keyed;

/* A table of records of @elem_size bytes.  NULL when out of memory. */
struct keyed *keyed__new(size_t elem_size);
/* NULL-safe. */
void keyed__free(struct keyed *k);

/**
 * keyed__get() - the record of @key, made (all zero) when it is new
 * @created: NULL, or set to whether it was made now (the caller then
 *           fills in its identity fields)
 *
 * Return: the record, or NULL when out of memory.
 */
void *keyed__get(struct keyed *k, uint64_t key, int *created);

/* The record of @key, or NULL when there is none (nothing is made). */
void *keyed__find(const struct keyed *k, uint64_t key);

size_t keyed__count(const struct keyed *k);
/* Record @i in array order (creation order, or sorted order after
 * keyed__sort()); NULL when @i is out of range. */
void *keyed__at(const struct keyed *k, size_t i);
/* Sort the records with qsort_r's @cmp and @ctx (see above). */
void keyed__sort(struct keyed *k, int (*cmp)(const void *, const void *, void *), void *ctx);

#endif
