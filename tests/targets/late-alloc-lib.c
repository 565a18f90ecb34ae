/*
 * late-alloc-lib: a tiny allocator of its own, for late-alloc and
 * alloc-where-dl (dlopen'ed by them after faultline attached): malloc,
 * calloc, realloc, aligned_alloc and free, each block an anonymous mapping
 * with its length and offset in a header.  Nothing of glibc's: what
 * faultline probes here it found when the library was mapped, not at
 * start.  The functions never call each other through the PLT (where
 * glibc's malloc would win): they share static helpers.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* The header before each block: the mapping's length and the block's
 * offset in it. */
#define HDR 16

static void *block_new(size_t n, size_t align)
{
	size_t len = n + HDR + align, off;
	char *p;

	if (len < n)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	off = HDR;
	if (align)
		off = (size_t)(-(uintptr_t)(p + HDR) & (align - 1)) + HDR;
	memcpy(p + off - HDR, &len, sizeof(len));
	memcpy(p + off - HDR + sizeof(len), &off, sizeof(off));
	return p + off;
}

/* The block's usable bytes, and its mapping in *base and *len. */
static size_t block_of(void *ptr, char **base, size_t *len)
{
	size_t off;

	memcpy(len, (char *)ptr - HDR, sizeof(*len));
	memcpy(&off, (char *)ptr - HDR + sizeof(*len), sizeof(off));
	*base = (char *)ptr - off;
	return *len - off;
}

static void block_free(void *ptr)
{
	char *base;
	size_t len;

	if (!ptr)
		return;
	block_of(ptr, &base, &len);
	munmap(base, len);
}

void *malloc(size_t n)
{
	return block_new(n, 0);
}

void *calloc(size_t nmemb, size_t size)
{
	if (size && nmemb > (size_t)-1 / size)
		return NULL;
	return block_new(nmemb * size, 0);	/* fresh pages: zeroed */
}

void *realloc(void *ptr, size_t n)
{
	size_t len, have;
	char *q, *base;

	if (!ptr)
		return block_new(n, 0);
	if (!n) {
		block_free(ptr);
		return NULL;
	}
	q = block_new(n, 0);
	if (!q)
		return NULL;
	have = block_of(ptr, &base, &len);
	memcpy(q, ptr, have < n ? have : n);
	block_free(ptr);
	return q;
}

/* align: a power of two (C11 leaves the rest to the implementation). */
void *aligned_alloc(size_t align, size_t n)
{
	if (!align || (align & (align - 1)))
		return NULL;
	return block_new(n, align);
}

void free(void *ptr)
{
	block_free(ptr);
}
