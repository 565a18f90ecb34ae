/*
 * dl-alloc.h: an allocator library that a target dlopen's once traced and
 * calls by dlsym()'s pointers (late-alloc, alloc-where-dl), so that
 * faultline must probe it from its mapping on; and the command line around
 * it, LIB first, then --probed FIFO: the target waits there after the
 * dlopen, before its first call into LIB, while a tracer probes LIB.
 * Included after truth.h.
 */
#ifndef FAULTLINE_DL_ALLOC_H
#define FAULTLINE_DL_ALLOC_H

#include <dlfcn.h>

struct dl_alloc {
	void *(*malloc_fn)(size_t);
	void *(*calloc_fn)(size_t, size_t);
	void *(*realloc_fn)(void *, size_t);
	void *(*aligned_alloc_fn)(size_t, size_t);
	void (*free_fn)(void *);
};

/* "PROG LIB [--probed FIFO] [truth.h's options]": --probed's FIFO in
 * *@probed (NULL without it); a usage error exits 2. */
static inline void dl_alloc_opts(int argc, char **argv, const char **probed,
				 unsigned long *delay_ms, unsigned long *hold_ms)
{
	if (argc < 2 || argv[1][0] == '-')
		die_usage(argc < 2 ? "LIB missing" : NULL);
	*probed = NULL;
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--probed")) {
			*probed = argv[++a];
			if (!*probed)
				die_usage("--probed needs a FIFO");
		} else {
			parse_shared_opt(argv, &a, delay_ms, hold_ms);
		}
	}
}

/* dlopen(@path), its own symbols only (RTLD_LOCAL: the program's malloc
 * stays libc's), and its malloc, calloc, realloc, aligned_alloc and free;
 * exits 1 when it cannot. */
static inline void dl_alloc_open(const char *path, struct dl_alloc *a)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		say(TRUTH_PROG ": dlopen failed\n");
		exit(1);
	}
	a->malloc_fn = (void *(*)(size_t))dlsym(h, "malloc");
	a->calloc_fn = (void *(*)(size_t, size_t))dlsym(h, "calloc");
	a->realloc_fn = (void *(*)(void *, size_t))dlsym(h, "realloc");
	a->aligned_alloc_fn = (void *(*)(size_t, size_t))dlsym(h, "aligned_alloc");
	a->free_fn = (void (*)(void *))dlsym(h, "free");
	if (!a->malloc_fn || !a->calloc_fn || !a->realloc_fn || !a->aligned_alloc_fn ||
	    !a->free_fn) {
		say(TRUTH_PROG ": LIB lacks malloc, calloc, realloc, aligned_alloc or free\n");
		exit(1);
	}
}

#endif
