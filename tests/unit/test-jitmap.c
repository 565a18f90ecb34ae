/*
 * test-jitmap: a perf map file's lines as jitmap reads them: hex start and
 * size, malformed and zero-sized lines skipped, the later line for one
 * start winning, [start, start + size) holding, and a file that grew
 * reread on a miss; a map that is a FIFO (it must not block), a symlink,
 * or owned by another user (nobody: as root only) names nothing, and
 * open_regular() refuses all but regular files.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "lib/file.h"
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

/* @path (gone) as a FIFO, a symlink to a good map, a map of nobody's. */
static void untrusted(const char *path)
{
	char good[] = "/tmp/test-jitmap-good-XXXXXX";
	struct jitmap *j = NULL;
	const char *name;
	uint64_t off;
	int fd;

	CHECK(mkfifo(path, 0600) == 0);
	CHECK_EQ_U64((uint64_t)open_regular(path, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(jitmap__open(path, &j), 0);	/* returns: it did not block */
	if (j)
		LOOKUP_IS(0x1000, NULL, 0);
	jitmap__free(j);
	j = NULL;
	unlink(path);
	fd = mkstemp(good);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	check_put(good, "w", "1000 100 ATTACKER_CHOSEN_NAME\n");
	fd = open_regular(good, O_NOFOLLOW);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK_EQ_U64((uint64_t)open_regular("/dev/null", 0), (uint64_t)-EINVAL);
	CHECK(symlink(good, path) == 0);
	CHECK_EQ_U64((uint64_t)open_regular(path, O_NOFOLLOW), (uint64_t)-EINVAL);
	CHECK_EQ_U64(jitmap__open(path, &j), 0);
	if (j)
		LOOKUP_IS(0x1000, NULL, 0);
	jitmap__free(j);
	j = NULL;
	unlink(path);
	/* Owned by nobody (65534), read by root: no names from it. */
	if (geteuid() == 0 && chown(good, 65534, 65534) == 0) {
		CHECK_EQ_U64(jitmap__open(good, &j), 0);
		if (j)
			LOOKUP_IS(0x1000, NULL, 0);
		jitmap__free(j);
		j = NULL;
		CHECK(chown(good, 0, 0) == 0);
		CHECK_EQ_U64(jitmap__open(good, &j), 0);
		if (j)
			LOOKUP_IS(0x1000, "ATTACKER_CHOSEN_NAME", 0);
		jitmap__free(j);
	} else {
		printf("test-jitmap: not root: the foreign-owner case is not run\n");
	}
	unlink(good);
}

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
	untrusted(path);
	return check_done("test-jitmap");
}
