/*
 * symindex: the symbol a binary's address is in, exactly as
 * dwfl_module_addrinfo() would answer, without its cost.
 *
 * dwfl_module_addrinfo() walks the whole symbol table per address (tens
 * of microseconds in libc: a report of a busy trace fell behind its
 * events).  A symindex reads the table libdwfl assembled (the binary's
 * .symtab, else its separate debug file's, else .gnu_debugdata merged
 * with .dynsym) once, into sorted arrays that give, by binary search,
 * exactly what addrinfo would (test-symbolize compares the two address by
 * address; symindex.c says how).  The name it gives is the best-known
 * alias of that function (malloc, not __libc_malloc: sym-alias.h).
 */
#ifndef FAULTLINE_SYMINDEX_H
#define FAULTLINE_SYMINDEX_H

#include <stdint.h>

#include <elfutils/libdwfl.h>

/* The symbol an address is in. */
struct symindex_sym {
	uint64_t value;		/* its start (Dwfl address) */
	const char *name;	/* the name to show; libdwfl's string */
};

struct symindex;

/**
 * symindex__build() - index a module's symbol table
 * @mod: the module; its symbol table (and so, without a .symtab, its
 *       debug file) is read now.  It must outlive the index: the names
 *       are libdwfl's.
 * @out: out; free with symindex__free()
 *
 * A module without a symbol table gives an index that answers nothing,
 * as libdwfl does.
 *
 * Return: 0 or -ENOMEM.
 */
int symindex__build(Dwfl_Module *mod, struct symindex **out);

/* Free @x; NULL is fine. */
void symindex__free(struct symindex *x);

/**
 * symindex__lookup() - what dwfl_module_addrinfo() answers for an address
 * @x: index
 * @addr: Dwfl address in its module
 *
 * Return: the symbol, valid for @x's life; NULL when libdwfl would answer
 * nothing.
 */
const struct symindex_sym *symindex__lookup(const struct symindex *x, uint64_t addr);

#endif
