/*
 * alloc-where: a fixed set of malloc-family calls whose outstanding total
 * it prints, built against several allocators (tests/system/alloc-where.sh:
 * static glibc, static musl, jemalloc and tcmalloc linked in statically,
 * jemalloc preloaded), so that `faultline leak` must find and probe the
 * allocator where the program has it.
 *
 *   alloc-where [--go FIFO] [none]
 *
 * It keeps 100 blocks of 4096 B and 50 of 128 B (malloc), and frees every
 * other block it makes: calloc, realloc (grown twice), aligned_alloc and
 * plain malloc ones.  Then it prints on stdout
 *   outstanding BYTES COUNT
 * and exits 0.  "none" makes no allocation and prints "outstanding 0 0".
 * --go FIFO: first wait until the FIFO is opened for writing (the test's
 * handshake with a tracer attached by -p).
 *
 * Only write(2) and a digit loop print: stdio mallocs its buffer in some
 * libcs (glibc), which would add a block of the library's own.  The
 * pointers are kept in static arrays, so nothing but the calls below
 * allocates.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG 100
#define BIG_SIZE 4096
#define SMALL 50
#define SMALL_SIZE 128

static void *kept[BIG + SMALL];
/* Every block passes here: under -O2 (the user's CFLAGS come after the
 * targets' -O0) gcc drops a malloc whose block is only freed. */
static void *volatile sink;

/* Each call in its own function, not inlined: stacks name them. */
__attribute__((noinline)) static void *make(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 20; i++) {
		void *c = calloc(4, 32);
		void *r = realloc(NULL, 16);
		void *a = aligned_alloc(64, 256);
		void *m = malloc(100);

		sink = c;
		sink = a;
		sink = m;
		sink = r;
		r = realloc(r, 1000);
		sink = r;
		r = realloc(r, 5000);
		sink = r;
		free(c);
		free(r);
		free(a);
		free(m);
	}
}

static void print_u64(char *buf, size_t *len, unsigned long long v)
{
	char tmp[24];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		buf[(*len)++] = tmp[--n];
}

int main(int argc, char **argv)
{
	unsigned long long bytes = 0, count = 0;
	char out[80];
	size_t len = 0;

	if (argc >= 3 && !strcmp(argv[1], "--go")) {
		int fd = open(argv[2], O_RDONLY);
		char c;

		if (fd < 0)
			return 1;
		/* The writer's line read, so that its write never meets a
		 * closed FIFO. */
		while (read(fd, &c, 1) > 0)
			;
		close(fd);
		argc -= 2;
		argv += 2;
	}
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "none"))) {
		static const char usage[] = "usage: alloc-where [--go FIFO] [none]\n";

		(void)!write(2, usage, sizeof(usage) - 1);
		return 2;
	}
	if (argc == 1) {
		churn();
		for (int i = 0; i < BIG; i++) {
			kept[i] = make(BIG_SIZE);
			if (!kept[i])
				return 1;
			bytes += BIG_SIZE;
			count++;
		}
		for (int i = 0; i < SMALL; i++) {
			kept[BIG + i] = make(SMALL_SIZE);
			if (!kept[BIG + i])
				return 1;
			bytes += SMALL_SIZE;
			count++;
		}
		churn();
	}
	memcpy(out, "outstanding ", 12);
	len = 12;
	print_u64(out, &len, bytes);
	out[len++] = ' ';
	print_u64(out, &len, count);
	out[len++] = '\n';
	return write(1, out, len) == (ssize_t)len ? 0 : 1;
}
