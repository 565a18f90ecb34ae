/*
 * cache-target: page-cache traffic of a known size, one phase per SIGUSR1,
 * for tests/system/cache.sh and cachetop.sh.
 *
 *   cache-target FILE [--mib N] [--delay-ms N] [--hold-ms N]
 *
 * Prints "pid=", "page_size=" and "pages=" (the file's size in pages),
 * then for each SIGUSR1 runs the next phase and prints its truth:
 *
 *   1. write: FILE created with N MiB (default 64) in 1 MiB write()s,
 *      fsync'ed: "write_pages=" pages written (each dirtied once).
 *   2. cold:  the file dropped from the page cache (fsync'ed pages are
 *      clean, so POSIX_FADV_DONTNEED drops them), "cold_resident=" pages
 *      still cached before reading (mincore; 0 when the drop worked), then
 *      the whole file read with 1 MiB read()s: "cold_pages=".
 *   3. warm:  "warm_resident=" pages cached before reading, then the whole
 *      file read again: "warm_pages=".
 *
 * Each phase ends with "done=PHASE", so a test can wait for it.  A fourth
 * SIGUSR1, or --hold-ms after the last phase, ends the program; it never
 * removes FILE (the test does).  SIGUSR1 is blocked and taken with
 * sigwait(), so a signal sent before the target waits is not lost.
 */
#define TRUTH_PROG "cache-target"
#define TRUTH_USAGE "usage: cache-target FILE [--mib N] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "truth.h"

#define CHUNK (1u << 20)

static char buf[CHUNK];
static struct out out;

static void die(const char *what)
{
	say(TRUTH_PROG ": ");
	say(what);
	say(": ");
	say(strerror(errno));
	say("\n");
	exit(1);
}

static void wait_usr1(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigwait(&set, &sig))
		die("sigwait");
}

static unsigned long write_file(const char *path, unsigned long mib)
{
	unsigned long done = 0;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("open for writing");
	for (unsigned long i = 0; i < mib; i++) {
		/* Not zeros: no filesystem may skip or compress them away. */
		memset(buf, (int)('a' + i % 26), CHUNK);
		if (write(fd, buf, CHUNK) != (ssize_t)CHUNK)
			die("write");
		done += CHUNK;
	}
	if (fsync(fd))
		die("fsync");
	close(fd);
	return done;
}

/* Pages of the file in the page cache now. */
static unsigned long resident(const char *path, unsigned long size, unsigned long page)
{
	static unsigned char vec[1u << 20];
	unsigned long pages = size / page, n = 0;
	void *map;
	int fd;

	if (pages > sizeof(vec))
		pages = sizeof(vec);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open for mincore");
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	if (mincore(map, pages * page, vec))
		die("mincore");
	for (unsigned long i = 0; i < pages; i++)
		n += vec[i] & 1;
	munmap(map, size);
	close(fd);
	return n;
}

static void drop(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("open for fadvise");
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		die("posix_fadvise");
	close(fd);
}

static unsigned long read_file(const char *path)
{
	unsigned long done = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open for reading");
	while ((n = read(fd, buf, CHUNK)) > 0)
		done += (unsigned long)n;
	if (n < 0)
		die("read");
	close(fd);
	return done;
}

int main(int argc, char **argv)
{
	unsigned long mib = 64, delay_ms = 0, hold_ms = 0, page, size, got;
	const char *path = NULL;
	sigset_t set;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--mib") == 0)
			mib = parse_num(argv[++a], "--mib needs a number");
		else if (argv[a][0] != '-' && !path)
			path = argv[a];
		else
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	}
	if (!path || !mib || mib > 4096)
		die_usage(path ? "--mib wants 1 to 4096" : "no FILE");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	page = (unsigned long)sysconf(_SC_PAGESIZE);
	size = mib * CHUNK;
	wait_go(delay_ms);
	out_kv(&out, "pid", (unsigned long long)getpid(), 10);
	out_kv(&out, "page_size", page, 10);
	out_kv(&out, "pages", size / page, 10);
	out_flush(&out);

	wait_usr1();
	got = write_file(path, mib);
	out_kv(&out, "write_pages", got / page, 10);
	out_str(&out, "done=write\n");
	out_flush(&out);

	wait_usr1();
	drop(path);
	out_kv(&out, "cold_resident", resident(path, size, page), 10);
	got = read_file(path);
	out_kv(&out, "cold_pages", got / page, 10);
	out_str(&out, "done=cold\n");
	out_flush(&out);

	wait_usr1();
	out_kv(&out, "warm_resident", resident(path, size, page), 10);
	got = read_file(path);
	out_kv(&out, "warm_pages", got / page, 10);
	out_str(&out, "done=warm\n");
	out_flush(&out);

	if (hold_ms)
		sleep_ms(hold_ms);
	else
		wait_usr1();
	return 0;
}
