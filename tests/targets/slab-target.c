/*
 * slab-target: creates and stats a known number of files, for the system
 * tests of `faultline slab`: each new file takes one dentry (d_alloc in
 * the path lookup of open(O_CREAT)) and one inode of its filesystem's
 * inode cache; the stat that follows finds both cached and allocates
 * neither.
 *
 * What it does, in order:
 *   1. Parses DIR (an empty directory the test made) and --files N
 *      (default 100000), then waits for --go FIFO (truth.h).
 *   2. The measured phase, main -> create_files: for i in 0..N-1,
 *      make_file(DIR/fI): open(O_CREAT|O_EXCL|O_WRONLY, 0600), close,
 *      then stat_file: stat(2) of the same path.
 *   3. Prints files=N, stats=N and pid=P, then waits for --end FIFO and
 *      exits 0 (1 if a call fails).  The files stay: the test removes
 *      them, after tracing, so that their removal is not counted.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRUTH_PROG "slab-target"
#define TRUTH_USAGE "usage: slab-target DIR [--files N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

static char path[4096];

static void fail_call(const char *what)
{
	say(TRUTH_PROG ": ");
	say(what);
	say(" ");
	say(path);
	say(": ");
	say(strerror(errno));
	say("\n");
	exit(1);
}

/* DIR/fNUMBER into path, without stdio. */
static void name_file(const char *dir, unsigned long i)
{
	char num[24];
	int k = (int)sizeof(num);
	size_t len = strlen(dir);

	num[--k] = '\0';
	do {
		num[--k] = (char)('0' + i % 10);
		i /= 10;
	} while (i);
	if (len + 3 + sizeof(num) > sizeof(path))
		die_usage("DIR is too long");
	memcpy(path, dir, len);
	path[len] = '/';
	path[len + 1] = 'f';
	strcpy(path + len + 2, num + k);
}

__attribute__((noinline)) static void make_file(void)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);

	if (fd < 0)
		fail_call("open");
	close(fd);
}

__attribute__((noinline)) static void stat_file(void)
{
	struct stat sb;

	if (stat(path, &sb))
		fail_call("stat");
}

__attribute__((noinline)) static void create_files(const char *dir, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		name_file(dir, i);
		make_file();
		stat_file();
	}
}

int main(int argc, char **argv)
{
	static struct out out;
	unsigned long files = 100000, none = 0;
	const char *dir = NULL;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--files") == 0)
			files = parse_num(argv[++a], "--files needs a number");
		else if (argv[a][0] != '-' && !dir)
			dir = argv[a];
		else
			parse_shared_opt(argv, &a, &none, &none);
	}
	if (!dir)
		die_usage("DIR missing");
	wait_go(0);
	create_files(dir, files);
	out_kv(&out, "files", files, 10);
	out_kv(&out, "stats", files, 10);
	out_kv(&out, "pid", (unsigned long long)getpid(), 10);
	out_flush(&out);
	wait_end(0);
	return 0;
}
