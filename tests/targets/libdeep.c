/*
 * libdeep.so: the library frames of deep-target's call chain (see
 * libdeep.h and deep-target.c).  Built like the executable, -O2 without
 * frame pointers, so only its CFI (.eh_frame) says where each frame's
 * return address is.
 *
 * Every function is kept out of interprocedural optimisation (noipa: no
 * inlining, cloning or splitting, so each keeps its own name and frame)
 * and does something after each call, so that no call becomes a jump
 * (a sibling call would drop the caller's frame from every stack).
 */
#include <stdlib.h>

#include "libdeep.h"

#if defined(__clang__)
#define DEEP_FRAME __attribute__((noinline))
#else
#define DEEP_FRAME __attribute__((noipa))
#endif

/* Written after each call: the work the compiler may not move before it. */
static volatile unsigned long deep_lib_steps;

DEEP_FRAME int deep_lib_sort(deep_cmp_fn cmp)
{
	int v[2] = { 2, 1 };

	qsort(v, 2, sizeof(v[0]), cmp);
	deep_lib_steps++;
	return v[0] == 1 && v[1] == 2 ? 0 : -1;
}

DEEP_FRAME int deep_lib_enter(deep_cmp_fn cmp)
{
	int ret = deep_lib_sort(cmp);

	deep_lib_steps++;
	return ret;
}

DEEP_FRAME int deep_lib_leaf(deep_step_fn first, deep_step_fn second)
{
	int r1, r2;

	r1 = first();
	deep_lib_steps++;
	r2 = second();
	deep_lib_steps++;
	return r1 == 0 && r2 == 0 ? 0 : -1;
}
