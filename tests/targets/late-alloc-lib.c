/*
 * late-alloc-lib: a tiny allocator of its own, for late-alloc (dlopen'ed
 * by it after faultline attached): malloc, calloc, realloc and free, each
 * block an anonymous mapping with its size in a header.  Nothing of
 * glibc's: what faultline probes here it found when the library was
 * mapped, not at start.  The functions never call each other through the
 * PLT (where glibc's malloc would win): they share static helpers.
 */
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#define HDR 16

static void *block_new(size_t n)
{
	size_t len = n + HDR;
	char *p;

	if (len < n)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, &len, sizeof(len));
	return p + HDR;
}

static void block_free(void *ptr)
{
	size_t len;

	if (!ptr)
		return;
	memcpy(&len, (char *)ptr - HDR, sizeof(len));
	munmap((char *)ptr - HDR, len);
}

void *malloc(size_t n)
{
	return block_new(n);
}

void *calloc(size_t nmemb, size_t size)
{
	if (size && nmemb > (size_t)-1 / size)
		return NULL;
	return block_new(nmemb * size);	/* fresh pages: zeroed */
}

void *realloc(void *ptr, size_t n)
{
	size_t len;
	char *q;

	if (!ptr)
		return block_new(n);
	if (!n) {
		block_free(ptr);
		return NULL;
	}
	q = block_new(n);
	if (!q)
		return NULL;
	memcpy(&len, (char *)ptr - HDR, sizeof(len));
	memcpy(q, ptr, len - HDR < n ? len - HDR : n);
	block_free(ptr);
	return q;
}

void free(void *ptr)
{
	block_free(ptr);
}
