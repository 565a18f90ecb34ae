/*
 * stackdb: interned stacks.
 *
 * Every sample carries a stack; aggregators keep a 32-bit id instead, so a
 * table of a million allocations from a hundred call sites stores a hundred
 * stacks, and symbolization at report time costs O(distinct stacks).  The
 * db only sees arrays of instruction pointers, so frame-pointer callchains
 * and DWARF-unwound stacks intern the same way.  A user stack also keeps
 * the image of the address space it was unwound in (addrspace.h): the same
 * ips in two images (a program and the one it exec'd, both at 0x5555...
 * under setarch -R) are two stacks, each named in its own maps.
 */
#ifndef FAULTLINE_STACKDB_H
#define FAULTLINE_STACKDB_H

#include <stdint.h>

struct stackdb;

/**
 * stackdb__new() - empty stack db
 * @out: out; free with stackdb__free()
 *
 * Return: 0 or -ENOMEM.
 */
int stackdb__new(struct stackdb **out);

/**
 * stackdb__free() - free the db and every stack in it
 * @db: may be NULL
 */
void stackdb__free(struct stackdb *db);

/**
 * stackdb__intern() - id of a stack, adding it when new
 * @db: stack db
 * @image: addrspaces__pin_image() of the process it was unwound in; 0 for
 *         none (a kernel stack, an unknown process)
 * @ips: instruction pointers, innermost first; copied; may be NULL when @nr is 0
 * @nr: number of @ips; 0 is a valid (empty) stack with its own id
 * @id: out; ids are dense, starting at 1, so 0 can mean "no stack"
 *
 * Return: 0, or -ENOMEM (the db is unchanged).
 */
int stackdb__intern(struct stackdb *db, uint32_t image, const uint64_t *ips, uint32_t nr,
		    uint32_t *id);

/**
 * stackdb__add() - stackdb__intern() without looking: always a new id
 *
 * For a recording's stacks, whose ids are the file's: one whose ips repeat
 * another's was unwound in another image.
 */
int stackdb__add(struct stackdb *db, uint32_t image, const uint64_t *ips, uint32_t nr,
		 uint32_t *id);

/* The image a stack was unwound in (0: none, or an unknown id). */
uint32_t stackdb__image(const struct stackdb *db, uint32_t id);
/* Set it later (a replayed stack's, at the first sample that names it). */
void stackdb__set_image(struct stackdb *db, uint32_t id, uint32_t image);

/**
 * stackdb__get() - the stack of an id
 * @db: stack db
 * @id: from stackdb__intern()
 * @nr: out, number of ips
 *
 * Return: the ips, owned by @db and valid for its life (interning more
 * stacks does not move them); NULL for an unknown id.
 */
const uint64_t *stackdb__get(const struct stackdb *db, uint32_t id, uint32_t *nr);

/**
 * stackdb__count() - number of distinct stacks (ids are 1..count)
 * @db: stack db
 */
uint32_t stackdb__count(const struct stackdb *db);

#endif
