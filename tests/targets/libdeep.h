/*
 * libdeep: the shared-library half of deep-target's call chain.
 *
 * deep-target's chain crosses this library twice so that a DWARF unwinder
 * must switch between the CFI of three objects (the executable, libdeep.so
 * and libc) on the way to main.  The library calls back into the
 * executable only through the function pointers it is given: it has no
 * undefined symbols of the executable's, so it links without -rdynamic.
 */
#ifndef FAULTLINE_LIBDEEP_H
#define FAULTLINE_LIBDEEP_H

/* A qsort comparator, and a step of work the executable hands down. */
typedef int (*deep_cmp_fn)(const void *a, const void *b);
typedef int (*deep_step_fn)(void);

/* deep_lib_enter() - call deep_lib_sort(cmp); the library's outer frame.
 * Returns deep_lib_sort's result. */
int deep_lib_enter(deep_cmp_fn cmp);

/* deep_lib_sort() - sort the two-element int array {2, 1} with libc's
 * qsort and cmp, which qsort calls exactly once (two elements, one
 * comparison).  Returns 0 when the array came out {1, 2}, else -1. */
int deep_lib_sort(deep_cmp_fn cmp);

/* deep_lib_leaf() - call first(), then second(), from two call sites of
 * this one function.  Returns 0 when both returned 0, else -1. */
int deep_lib_leaf(deep_step_fn first, deep_step_fn second);

#endif
