/*
 * uret-fixup: the return addresses the kernel's uretprobes took, put back
 * for the unwinder.
 *
 * At the entry of a function with a return probe the kernel saves the
 * word at the stack pointer (the caller's return address) and writes the
 * address of its trampoline there, the first byte of the "[uprobes]"
 * page it maps into the process (prepare_uretprobe).  A stack sampled
 * inside that call (a page fault in _int_malloc, the brk of sysmalloc)
 * then holds the trampoline where the caller's address was, and every
 * unwinder stops there: no binary maps it.  The DWARF stack copy has no
 * way back; 6.11+ kernels mend their own frame-pointer callchains, 6.1's
 * do not.
 *
 * The tracer sees each entry (the entry probe's sample: %sp and the word
 * there, read before the kernel replaced it) and each return (the return
 * probe's sample: %sp, 8 above the entry's), so it keeps, per thread, the
 * pending returns as the kernel does (its utask->return_instances): the
 * slot (the entry's %sp) and the address it held, innermost last.  The
 * kernel's rules are followed so both lists stay the same: an entry
 * drops the pending returns below its %sp (frames left by longjmp or a
 * lost return), and at its own slot unless the call is chained (a tail
 * call from one probed function into another: the slot already holds
 * the trampoline, and the original is the outer call's); a return drops
 * its own slot and everything below it.
 *
 * A stack is mended where the trampoline is found: a DWARF sample's copy
 * gets the saved word back at each pending slot inside the copy that
 * holds the trampoline (unwind_input's patches, so every backend reads the
 * same words), and a frame-pointer callchain gets its trampoline entries
 * replaced innermost first, as the 6.11 kernel does.
 */
#ifndef FAULTLINE_URET_FIXUP_H
#define FAULTLINE_URET_FIXUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stack/unwind.h"

struct uret_pending {
	uint64_t slot;		/* the stack address of the return address (entry %sp) */
	uint64_t ret;		/* what it held before the trampoline; 0: unknown */
};

struct uret_table;

/* An empty table (no thread has a pending return).  0 or -ENOMEM. */
int uret_table__new(struct uret_table **out);
/* NULL is fine. */
void uret_table__free(struct uret_table *t);

/**
 * uret_table__enter() - a thread entered a function with a return probe
 * @t: table
 * @tid: the thread
 * @sp: its stack pointer at the entry: the return address's slot
 * @word: the word at @sp as the entry probe saw it (before the kernel's
 *        return probe replaced it)
 * @chained: @word is the trampoline (a probed function tail-called this
 *           one): the original is the pending return's at the same slot
 *
 * Return: 0 or -ENOMEM (the table is as before).
 */
int uret_table__enter(struct uret_table *t, pid_t tid, uint64_t sp, uint64_t word, bool chained);

/* The return probe of @tid fired with stack pointer @sp (the slot + 8):
 * that pending return, and any below it, are gone. */
void uret_table__leave(struct uret_table *t, pid_t tid, uint64_t sp);

/* @tid exited, or exec'd (a new stack): its pending returns go. */
void uret_table__forget(struct uret_table *t, pid_t tid);

/* fork(): the kernel copies the parent thread's pending returns to the
 * child (uprobe_copy_process), as its stack is a copy.  0 or -ENOMEM. */
int uret_table__fork(struct uret_table *t, pid_t parent_tid, pid_t child_tid);

/* @tid's pending returns, outermost first (the innermost is [*n - 1]);
 * NULL and *n = 0 when none.  Valid until the table changes. */
const struct uret_pending *uret_table__pending(const struct uret_table *t, pid_t tid, size_t *n);

/* Threads with pending returns (for tests and leaks). */
size_t uret_table__threads(const struct uret_table *t);

/**
 * uret_fixup__stack() - the patches that mend a DWARF sample's stack copy
 * @p, @np: the thread's pending returns (uret_table__pending())
 * @in: the sample (its sp and stack copy); @in's own patches are ignored
 * @lo, @hi: the trampoline page (addrspaces__uprobes_page())
 * @out, @max: room for the patches (one per pending return is enough)
 *
 * A patch for each pending slot inside the copy whose word lies in the
 * trampoline page and whose original is known.
 *
 * Return: the number of patches written.
 */
uint32_t uret_fixup__stack(const struct uret_pending *p, size_t np, const struct unwind_input *in,
			   uint64_t lo, uint64_t hi, struct unwind_patch *out, uint32_t max);

/* A sample taken at the trampoline itself (its first fetch faults the
 * page in), stack pointer @sp: the address it is about to return to, the
 * innermost pending return whose slot is below @sp.  False when unknown. */
bool uret_fixup__at_trampoline(const struct uret_pending *p, size_t np, uint64_t sp, uint64_t *ip);

/* A frame-pointer callchain's user frames ips[0..n): each one in the
 * trampoline page [lo, hi) gets the next pending return's original,
 * innermost first (returns sharing a slot are one frame).  Returns how
 * many frames were mended; those beyond what is pending stay. */
uint32_t uret_fixup__ips(const struct uret_pending *p, size_t np, uint64_t lo, uint64_t hi,
			 uint64_t *ips, uint32_t n);

#endif
