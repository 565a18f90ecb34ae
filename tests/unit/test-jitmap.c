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
	CHECK_EQ_U64(jitmap__lookup(j, 0x1000, &name, &off), 0);
	CHECK_STR(name, "recompiled");
	CHECK_EQ_U64(off, 0);
	CHECK_EQ_U64(jitmap__lookup(j, 0x101f, &name, &off), 0);
	CHECK_STR(name, "recompiled");
	CHECK_EQ_U64(off, 0x1f);
	/* The later line replaced the first: past its 0x20 bytes, nothing. */
	CHECK_EQ_U64(jitmap__lookup(j, 0x1020, &name, &off), 0);
	CHECK(name == NULL);
	CHECK_EQ_U64(off, 0);
	CHECK_EQ_U64(jitmap__lookup(j, 0x2000, &name, &off), 0);
	CHECK(name == NULL);
	CHECK_EQ_U64(jitmap__lookup(j, 0x303f, &name, &off), 0);
	CHECK_STR(name, "Ljava/lang/Object;::hashCode");
	CHECK_EQ_U64(off, 0x3f);
	CHECK_EQ_U64(jitmap__lookup(j, 0x3040, &name, &off), 0);
	CHECK(name == NULL);
	CHECK_EQ_U64(jitmap__lookup(j, 0x4000, &name, &off), 0);
	CHECK(name == NULL);
	CHECK_EQ_U64(jitmap__lookup(j, 0x5009, &name, &off), 0);
	CHECK_STR(name, "last");
	CHECK_EQ_U64(off, 9);
	CHECK_EQ_U64(jitmap__lookup(j, 0x6000, &name, &off), 0);
	CHECK(name == NULL);
	/* The JIT compiled more: the miss rereads the grown file. */
	check_put(path, "a", "\n6000 8 later\n");
	CHECK_EQ_U64(jitmap__lookup(j, 0x6004, &name, &off), 0);
	CHECK_STR(name, "later");
	CHECK_EQ_U64(off, 4);
	CHECK_EQ_U64(jitmap__lookup(j, 0x5000, &name, &off), 0);
	CHECK_STR(name, "last");
out:
	jitmap__free(j);
	jitmap__free(NULL);
	/* An empty map for a file that is not there: read again when it is. */
	unlink(path);
	j = NULL;
	CHECK_EQ_U64(jitmap__open(path, &j), 0);
	if (j) {
		CHECK_EQ_U64(jitmap__lookup(j, 0x1000, &name, &off), 0);
		CHECK(name == NULL);
	}
	jitmap__free(j);
	CHECK_EQ_U64(jitmap__new(0, &j), (uint64_t)-ENOENT);
	CHECK(j == NULL);
	return check_done("test-jitmap");
}
