/*
 * mmap-flags: decode mmap(2) prot and flags words into text.
 *
 * The words come from the traced process (syscall tracepoint fields or
 * uprobe fetchargs), so they are decoded with the kernel ABI's values,
 * not with whatever the build machine's <sys/mman.h> happens to define:
 * an old libc header lacks MAP_FIXED_NOREPLACE or MAP_SYNC, yet the
 * kernel we trace may see them.  Values are those of x86-64 and the
 * generic ABI (arm64, riscv); mips, parisc, alpha, sparc and powerpc
 * number several flags differently and are not handled.
 */
#ifndef FAULTLINE_MMAP_FLAGS_H
#define FAULTLINE_MMAP_FLAGS_H

#include <stddef.h>
#include <stdint.h>

/**
 * mmap_prot__format() - "RWX" style protection, '-' for absent bits
 * @prot: PROT_* word; bits other than READ/WRITE/EXEC are ignored
 * @buf:  receives e.g. "RW-" (PROT_READ|PROT_WRITE) or "---" (PROT_NONE)
 * @n:    size of @buf, 4 or more for the full text; shorter buffers get
 *        a NUL-terminated prefix
 */
void mmap_prot__format(uint64_t prot, char *buf, size_t n);

/**
 * mmap_flags__format() - MAP_* flags as "PRIVATE|ANONYMOUS|FIXED"
 * @flags: MAP_* word
 * @buf:   receives names without the MAP_ prefix: the mapping type first
 *         (SHARED, PRIVATE, SHARED_VALIDATE, DROPPABLE), then flags in bit
 *         order; with HUGETLB, the page size bits as HUGE_2MB, HUGE_1GB...;
 *         bits without a name last, as one "0x..." word.  0 gives "0".
 *         Always NUL-terminated when @n > 0.
 * @n:     size of @buf
 *
 * Return: 0, or -ENOSPC if @buf was too small (the text is cut at the
 * last whole name that fitted).
 */
int mmap_flags__format(uint64_t flags, char *buf, size_t n);

/**
 * mmap_flags__short() - single letters, as the book's mmapsnoop prints
 * @flags: MAP_* word
 * @buf:   receives 'S' (shared, incl. SHARED_VALIDATE) or 'P' (private),
 *         neither for other types, then 'F' if MAP_FIXED, 'A' if
 *         MAP_ANONYMOUS: e.g. "PA"
 * @n:     size of @buf, 8 or more; shorter buffers get a prefix
 */
void mmap_flags__short(uint64_t flags, char *buf, size_t n);

#endif
