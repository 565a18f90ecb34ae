/*
 * late-alloc: allocates through an allocator library it dlopen's once
 * running, and prints its own account of what it leaked there
 * (tests/system/late-alloc.sh).
 *
 * usage: late-alloc LIB [--probed FIFO] [--go FIFO] [--end FIFO]
 *   --go FIFO      wait before dlopen()ing LIB (a tracer attaches first)
 *   --probed FIFO  wait after dlopen(), before the first call into LIB (a
 *                  tracer probes LIB meanwhile)
 *   --end FIFO     wait after the account is printed
 *
 * Through LIB's malloc, calloc, realloc and free, called by dlsym()'s
 * pointers (the program's own malloc stays glibc's): late_keep keeps 40
 * blocks of 1000 B, late_zeroed 10 of 5 x 100 B, late_grown 5 grown by
 * realloc from 10 B to 3000 B (the 10 B blocks freed by it), temp_late
 * frees its 20 blocks of 700 B.  Printed as "site fn=F bytes=B count=C"
 * lines, then "late_bytes=B late_count=C".
 */
#define TRUTH_PROG "late-alloc"
#define TRUTH_USAGE "usage: late-alloc LIB [--probed FIFO] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#include <dlfcn.h>
#include <stdio.h>

static void *(*lib_malloc)(size_t);
static void *(*lib_calloc)(size_t, size_t);
static void *(*lib_realloc)(void *, size_t);
static void (*lib_free)(void *);
static void *kept[55];

void late_keep(void)
{
	for (int i = 0; i < 40; i++)
		kept[i] = lib_malloc(1000);
}

void late_zeroed(void)
{
	for (int i = 0; i < 10; i++)
		kept[40 + i] = lib_calloc(5, 100);
}

void late_grown(void)
{
	for (int i = 0; i < 5; i++)
		kept[50 + i] = lib_realloc(lib_malloc(10), 3000);
}

void temp_late(void)
{
	for (int i = 0; i < 20; i++)
		lib_free(lib_malloc(700));
}

int main(int argc, char **argv)
{
	static char out[512];
	const char *probed = NULL;
	unsigned long delay = 0, hold = 0;
	void *h;
	int n;

	if (argc < 2 || argv[1][0] == '-')
		die_usage(argc < 2 ? "LIB missing" : NULL);
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--probed")) {
			probed = argv[++a];
			if (!probed)
				die_usage("--probed needs a FIFO");
		} else {
			parse_shared_opt(argv, &a, &delay, &hold);
		}
	}
	wait_go(delay);
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		say(TRUTH_PROG ": dlopen failed\n");
		return 1;
	}
	lib_malloc = (void *(*)(size_t))dlsym(h, "malloc");
	lib_calloc = (void *(*)(size_t, size_t))dlsym(h, "calloc");
	lib_realloc = (void *(*)(void *, size_t))dlsym(h, "realloc");
	lib_free = (void (*)(void *))dlsym(h, "free");
	if (!lib_malloc || !lib_calloc || !lib_realloc || !lib_free) {
		say(TRUTH_PROG ": LIB lacks malloc, calloc, realloc or free\n");
		return 1;
	}
	wait_fifo(probed);
	late_keep();
	late_zeroed();
	late_grown();
	temp_late();
	for (int i = 0; i < 55; i++)
		if (!kept[i]) {
			say(TRUTH_PROG ": an allocation failed\n");
			return 1;
		}
	n = snprintf(out, sizeof(out),
		     "site fn=late_keep bytes=40000 count=40\n"
		     "site fn=late_zeroed bytes=5000 count=10\n"
		     "site fn=late_grown bytes=15000 count=5\n"
		     "late_bytes=60000 late_count=55\n");
	(void)!write(1, out, (size_t)n);
	wait_end(hold);
	return 0;
}
