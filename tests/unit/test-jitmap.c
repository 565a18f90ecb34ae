/*
 * test-jitmap: a perf map file's lines as jitmap reads them: hex start and
 * size, malformed and zero-sized lines skipped, the later line for one
 * start winning, [start, start + size) holding, and a file that grew
 * reread on a miss.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "stack/jitmap.h"

/* jitmap__lookup(j, @addr) succeeds with @want (NULL: no symbol) at
 * offset @want_off; a failure names this line. */
#define LOOKUP_IS(addr, want, want_off) do { \
	CHECK_EQ_U64(jitmap__lookup(j, (addr), &name, &off), 0); \
	if (want) \
		CHECK_STR(name, (const char *)(want)); \
	else \
		CHECK(name == NULL); \
	CHECK_EQ_U64(off, (want_off)); \
} while (0)

int main(void)
{
	char path[] = "/tmp/test-jitmap-XXXXXX";
	struct jitmap *j = NULL;
	const char *name;
	uint64_t off;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return check_done("test-jitmap");
	close(fd);
	check_put(path, "w",
		   "1000 100 first\n"
		   "junk line\n"
		   "2000 0 zero-sized\n"
		   "3000\t40\tLjava/lang/Object;::hashCode  \r\n"
		   "1000 20 recompiled\n"
		   "4000 10 \n"
		   "5000 10 last");
	CHECK_EQ_U64(jitmap__open(path, &j), 0);
	CHECK(j != NULL);
	if (!j)
		goto out;
	CHECK_STR(jitmap__path(j), path);
	LOOKUP_IS(0x1000, "recompiled", 0);
	LOOKUP_IS(0x101f, "recompiled", 0x1f);
	/* The later line replaced the first: past its 0x20 bytes, nothing. */
	LOOKUP_IS(0x1020, NULL, 0);
	LOOKUP_IS(0x2000, NULL, 0);
	LOOKUP_IS(0x303f, "Ljava/lang/Object;::hashCode", 0x3f);
	LOOKUP_IS(0x3040, NULL, 0);
	LOOKUP_IS(0x4000, NULL, 0);
	LOOKUP_IS(0x5009, "last", 9);
	LOOKUP_IS(0x6000, NULL, 0);
	/* The JIT compiled more: the miss rereads the grown file. */
	check_put(path, "a", "\n6000 8 later\n");
	LOOKUP_IS(0x6004, "later", 4);
	LOOKUP_IS(0x5000, "last", 0);
out:
	jitmap__free(j);
	jitmap__free(NULL);
	/* An empty map for a file that is not there: read again when it is. */
	unlink(path);
	j = NULL;
	CHECK_EQ_U64(jitmap__open(path, &j), 0);
	if (j) {
		LOOKUP_IS(0x1000, NULL, 0);
	}
	jitmap__free(j);
	CHECK_EQ_U64(jitmap__new(0, &j), (uint64_t)-ENOENT);
	CHECK(j == NULL);
	return check_done("test-jitmap");
}
