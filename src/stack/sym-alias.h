/*
 * sym-alias: which of the names one address has is shown.  A function often
 * has several symbols at one address (glibc's __libc_malloc and malloc,
 * the kernel's __x64_sys_brk and friends); libdw and kallsyms answer with
 * whichever their table holds first, people know the plain one.
 */
#ifndef FAULTLINE_SYM_ALIAS_H
#define FAULTLINE_SYM_ALIAS_H

#include <stdbool.h>

/**
 * sym_alias__better() - whether alias @a names an address better than @b
 * @global_a: @a is a global or weak symbol
 * @a: its name
 * @global_b: @b is a global or weak symbol
 * @b: its name
 *
 * Fewer leading underscores (malloc over __libc_malloc, brk over __brk),
 * then global or weak over local, then the shorter name (mmap over
 * mmap64); false on a tie, so the first seen stays.
 */
bool sym_alias__better(bool global_a, const char *a, bool global_b, const char *b);

#endif
