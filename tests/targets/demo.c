/*
 * demo: the quickstart's sample program, a tiny "image cache" that uses
 * memory the way real programs do, so `faultline brk -c` and
 * `faultline mmap -c` (run by scripts/quickstart) have real stacks to show.
 *
 * What it does (deterministic; about 0.3 s):
 *   - Pins glibc's mmap threshold at 256 KiB (mallopt), because glibc
 *     raises it after the first free of a mapped chunk and the demo
 *     should map every decode buffer, not only the first.
 *   - For 24 images, one every 10 ms, main -> handle_request(id):
 *       load_thumbnail(id)  malloc(48 KiB + (id % 4) * 8 KiB), filled:
 *                           small enough for the heap, so the heap grows
 *                           by brk from here (via malloc, sbrk, brk);
 *       cache_insert(id)    malloc of a list node; past 8 entries the
 *                           oldest is evicted, and the eviction "forgets"
 *                           the thumbnail when id % 3 == 0 (the deliberate
 *                           leak: ids 0, 3, 6, 9, 12, 15);
 *       decode_image(id)    for id % 3 == 0: malloc(1 MiB), above the
 *                           threshold so glibc mmaps it, filled and
 *                           freed (munmap), except for id 12, whose
 *                           buffer is leaked on an "error path".
 *   - At exit the cache is freed properly, so only the deliberate leaks
 *     stay outstanding.
 *   - Prints, with write(2) (no stdio, which would add its own malloc),
 *     one human line and key=value ground truth: images, decoded,
 *     leaked_thumbnails, leaked_thumbnail_bytes, leaked_decode_bytes, pid.
 *   - Options --delay-ms N and --hold-ms N as for the other targets.
 *
 * Note for the stacks shown: the brk and mmap calls happen inside glibc
 * (sbrk/brk, sysmalloc/mmap), which has no frame pointers, so the
 * kernel's frame-pointer callchain stops in libc.  The named functions
 * appear with DWARF unwinding (user stack copies), which is what the
 * quickstart demonstrates.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRUTH_PROG "demo"
#define TRUTH_USAGE "usage: demo [--delay-ms N] [--hold-ms N]\n"
#include "truth.h"

#define NOINLINE __attribute__((noinline))
#define NIMAGES 24
#define CACHE_MAX 8
#define DECODE_BYTES (1024 * 1024)
#define LEAKY_DECODE_ID 12

struct entry {
	struct entry *next;
	int id;
	size_t size;
	unsigned char *thumb;
};

/* The demo's whole state; a test program keeps it in plain statics. */
static struct entry *cache_head, *cache_tail;
static int cache_len;
static int ndecoded;
static int leaked_thumbs;
static unsigned long long leaked_thumb_bytes;
static unsigned long long leaked_decode_bytes;
static unsigned long checksum;

NOINLINE static unsigned char *load_thumbnail(int id, size_t *size)
{
	size_t n = 48 * 1024 + (size_t)(id % 4) * 8 * 1024;
	unsigned char *p = malloc(n);

	if (!p)
		return NULL;
	memset(p, 0x40 + id, n);
	*size = n;
	return p;
}

static void evict_oldest(void)
{
	struct entry *old = cache_head;

	cache_head = old->next;
	if (!cache_head)
		cache_tail = NULL;
	cache_len--;
	/* The deliberate bug: thumbnails of every third image are
	 * "shared" and the eviction forgets them. */
	if (old->id % 3 == 0) {
		leaked_thumbs++;
		leaked_thumb_bytes += old->size;
	} else {
		free(old->thumb);
	}
	free(old);
}

NOINLINE static int cache_insert(int id, unsigned char *thumb, size_t size)
{
	struct entry *e = malloc(sizeof(*e));

	if (!e)
		return -1;
	e->next = NULL;
	e->id = id;
	e->size = size;
	e->thumb = thumb;
	if (cache_tail)
		cache_tail->next = e;
	else
		cache_head = e;
	cache_tail = e;
	if (++cache_len > CACHE_MAX)
		evict_oldest();
	return 0;
}

NOINLINE static int decode_image(int id)
{
	unsigned char *buf = malloc(DECODE_BYTES);
	size_t i;

	if (!buf)
		return -1;
	memset(buf, id, DECODE_BYTES);
	for (i = 0; i < DECODE_BYTES; i += 4096)
		checksum += buf[i];
	ndecoded++;
	if (id == LEAKY_DECODE_ID) {
		/* The "error path" that returns without freeing. */
		leaked_decode_bytes += DECODE_BYTES;
		return 0;
	}
	free(buf);
	return 0;
}

NOINLINE static int handle_request(int id)
{
	unsigned char *thumb;
	size_t size = 0;

	thumb = load_thumbnail(id, &size);
	if (!thumb)
		return -1;
	if (cache_insert(id, thumb, size)) {
		free(thumb);
		return -1;
	}
	if (id % 3 == 0)
		return decode_image(id);
	return 0;
}

static void cache_destroy(void)
{
	while (cache_head) {
		struct entry *e = cache_head;

		cache_head = e->next;
		free(e->thumb);
		free(e);
	}
	cache_tail = NULL;
	cache_len = 0;
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long delay_ms = 0, hold_ms = 0;
	int id, a, failed = 0;

	for (a = 1; a < argc; a++) {
		/* demo reports every error as the usage alone: no message. */
		if (strcmp(argv[a], "--delay-ms") == 0)
			delay_ms = parse_num(argv[++a], NULL);
		else if (strcmp(argv[a], "--hold-ms") == 0)
			hold_ms = parse_num(argv[++a], NULL);
		else
			die_usage(NULL);
	}
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	sleep_ms(delay_ms);

	for (id = 0; id < NIMAGES; id++) {
		if (handle_request(id))
			failed = 1;
		sleep_ms(10);
	}
	cache_destroy();

	out_str(&o, "demo: loaded ");
	out_num(&o, NIMAGES, 10);
	out_str(&o, " thumbnails, decoded ");
	out_num(&o, (unsigned long long)ndecoded, 10);
	out_str(&o, " images; leaked on purpose ");
	out_num(&o, (unsigned long long)leaked_thumbs, 10);
	out_str(&o, " thumbnails and 1 decode buffer\n");
	out_kv(&o, "images", NIMAGES, 10);
	out_kv(&o, "decoded", (unsigned long long)ndecoded, 10);
	out_kv(&o, "leaked_thumbnails", (unsigned long long)leaked_thumbs, 10);
	out_kv(&o, "leaked_thumbnail_bytes", leaked_thumb_bytes, 10);
	out_kv(&o, "leaked_decode_bytes", leaked_decode_bytes, 10);
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);

	sleep_ms(hold_ms);
	return failed;
}
