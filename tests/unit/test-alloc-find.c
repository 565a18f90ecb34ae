/*
 * test-alloc-find: the allocator of this very process (a dynamic glibc
 * program: libc.so.6), found from its maps and from its file as a command
 * would be run, the same file both ways; a preloaded jemalloc (when
 * installed) found before libc; a "#!" script's interpreter followed; a
 * file neither ELF nor script refused as such.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "stack/alloc-find.h"

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* What this test's own malloc calls reach: under ASan its runtime, which
 * interposes malloc ahead of libc. */
#ifdef __SANITIZE_ADDRESS__
#define OWN_ALLOCATOR "libasan.so"
#else
#define OWN_ALLOCATOR "libc.so"
#endif

int main(void)
{
	struct allocator mine, run, pre;
	struct errbuf eb = { "" };
	char exe[PATH_MAX], tmp[] = "/tmp/test-alloc-find-XXXXXX";
	const char *je = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	int fd;

	CHECK(len > 0);
	exe[len] = '\0';
	CHECK_EQ_U64(allocator__find_pid(getpid(), &mine, &eb), 0);
	printf("maps: %s (%s, %s)\n", mine.path, mine.name, mine.where);
	CHECK_STR(mine.where, "library");
	CHECK(strstr(mine.path, OWN_ALLOCATOR) != NULL);
	CHECK_EQ_U64(allocator__find_exec(exe, NULL, NULL, &run, &eb), 0);
	printf("exec: %s (%s, %s)\n", run.path, run.name, run.where);
#ifndef __SANITIZE_ADDRESS__
	CHECK_STR(mine.spec, "glibc");
	CHECK_STR(run.spec, "glibc");
#endif
	/* Its maps and its file agree (DT_NEEDED's soname is found mapped
	 * under its versioned name: libasan.so.8 as libasan.so.8.0.0). */
	CHECK_STR(run.spec, mine.spec);
	CHECK(same_file(run.path, mine.path));
	if (access(je, R_OK) == 0) {
		CHECK_EQ_U64(allocator__find_exec(exe, je, NULL, &pre, &eb), 0);
		CHECK_STR(pre.spec, "jemalloc");
		CHECK_STR(pre.where, "preloaded");
		CHECK(same_file(pre.path, je));
		/* A bare name is searched as ld.so searches DT_NEEDED ones. */
		CHECK_EQ_U64(allocator__find_exec(exe, "libjemalloc.so.2", NULL, &pre, &eb), 0);
		CHECK(same_file(pre.path, je));
	}
	/* A script: its interpreter's allocator. */
	fd = mkstemp(tmp);
	CHECK(fd >= 0);
	f = fdopen(fd, "w");
	CHECK(f != NULL);
	fprintf(f, "#!/bin/sh\nexit 0\n");
	fclose(f);
	CHECK_EQ_U64(allocator__find_exec(tmp, NULL, NULL, &run, &eb), 0);
	CHECK_STR(run.spec, "glibc");
	/* Neither ELF nor script. */
	f = fopen(tmp, "w");
	CHECK(f != NULL);
	fprintf(f, "plain text\n");
	fclose(f);
	CHECK_EQ_U64(allocator__find_exec(tmp, NULL, NULL, &run, &eb), (uint64_t)-ENOEXEC);
	printf("text: %s\n", eb.msg);
	/* A missing file is not "no allocator" (-ENOENT). */
	CHECK_EQ_U64(allocator__find_exec("/nonexistent/prog", NULL, NULL, &run, &eb),
		     (uint64_t)-ENXIO);
	unlink(tmp);
	return check_done("test-alloc-find");
}
