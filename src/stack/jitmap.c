/*
 * jitmap: the /tmp/perf-PID.map reader (see jitmap.h).  The symbols are
 * kept sorted by start, one per start (the last line wins), and found by
 * binary search; a symbol holds [start, start + size).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"
#include "lib/grow.h"
#include "lib/sorted.h"
#include "proc/nspid.h"
#include "stack/jitmap.h"

struct jitsym {
	uint64_t start, size;
	const char *name;		/* into jitmap.buf */
	size_t order;			/* line number: later lines win */
};

struct jitmap {
	char path[PATH_MAX];
	off_t size;			/* file size when read: reread when it grew */
	uid_t owner;			/* besides root, who may own the file */
	char *buf;
	struct jitsym *syms;
	size_t n;
};

static int cmp_jitsym(const void *a, const void *b)
{
	const struct jitsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Parse a perf map file ("START SIZE name", hex, one a line) into @j,
 * replacing what it held.  Malformed lines are skipped. */
static int jitmap__parse(struct jitmap *j, char *buf)
{
	struct jitsym *syms = NULL;
	size_t n = 0, cap = 0, out = 0;
	char *line, *save = NULL;

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *name;
		uint64_t start = strtoull(line, &end, 16), size;
		size_t len;

		if (end == line || (*end != ' ' && *end != '\t'))
			continue;
		name = end;
		size = strtoull(name, &end, 16);
		if (end == name || (*end != ' ' && *end != '\t') || !size)
			continue;
		name = end + strspn(end, " \t");
		len = strlen(name);
		while (len && (name[len - 1] == '\r' || name[len - 1] == ' '))
			name[--len] = '\0';
		if (!len)
			continue;
		if (GROW_FOR(syms, cap, n + 1, 256)) {
			free(syms);
			return -ENOMEM;
		}
		syms[n] = (struct jitsym){ start, size, name, n };
		n++;
	}
	if (n)
		qsort(syms, n, sizeof(*syms), cmp_jitsym);
	/* Code moved or recompiled at one address: the later line wins. */
	for (size_t i = 0; i < n; i++) {
		if (out && syms[out - 1].start == syms[i].start)
			out--;
		syms[out++] = syms[i];
	}
	free(j->syms);
	free(j->buf);
	j->syms = syms;
	j->n = out;
	j->buf = buf;
	return 0;
}

/* (Re)read @j's file. */
static int jitmap__read(struct jitmap *j)
{
	struct stat st;
	char *buf = NULL;
	int err, fd;

	/* As perf does: a map another user could write (not root's, not the
	 * process owner's), a symlink, a FIFO or a device is no map. */
	fd = open_regular(j->path, O_NOFOLLOW);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || (st.st_uid != 0 && st.st_uid != j->owner)) {
		close(fd);
		return 0;
	}
	err = read_fd(fd, 1u << 30, &buf, NULL);
	close(fd);
	if (err)
		return err == -ENOMEM ? err : 0;
	j->size = st.st_size;
	err = jitmap__parse(j, buf);
	if (err)
		free(buf);
	return err;
}

/* Where @pid's perf map file is: /tmp/perf-PID.map, or in its container
 * under its own pid there.  "" when neither exists. */
static void jitmap_path(pid_t pid, char *path, size_t n)
{
	long nspid;

	snprintf(path, n, "/tmp/perf-%d.map", (int)pid);
	if (access(path, R_OK) == 0)
		return;
	path[0] = '\0';
	nspid = nspid__read(pid);
	if (nspid > 0) {
		snprintf(path, n, "/proc/%d/root/tmp/perf-%ld.map", (int)pid, nspid);
		if (access(path, R_OK) != 0)
			path[0] = '\0';
	}
}

static int open_owned(const char *path, uid_t owner, struct jitmap **out)
{
	struct jitmap *j = calloc(1, sizeof(*j));
	int err = -ENOMEM;

	*out = NULL;
	if (!j)
		return err;
	snprintf(j->path, sizeof(j->path), "%s", path);
	j->owner = owner;
	err = jitmap__read(j);
	if (err) {
		jitmap__free(j);
		return err;
	}
	*out = j;
	return 0;
}

int jitmap__open(const char *path, struct jitmap **out)
{
	return open_owned(path, geteuid(), out);
}

/* The effective uid of @pid (the owner of its /proc directory), or root's
 * when it cannot be told: then only root's maps are read. */
static uid_t process_owner(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) == 0 ? st.st_uid : 0;
}

int jitmap__new(pid_t pid, struct jitmap **out)
{
	char path[PATH_MAX];

	*out = NULL;
	if (pid <= 0)
		return -ENOENT;
	jitmap_path(pid, path, sizeof(path));
	if (!path[0])
		return -ENOENT;
	return open_owned(path, process_owner(pid), out);
}

void jitmap__free(struct jitmap *j)
{
	if (!j)
		return;
	free(j->syms);
	free(j->buf);
	free(j);
}

const char *jitmap__path(const struct jitmap *j)
{
	return j->path;
}

int jitmap__lookup(struct jitmap *j, uint64_t addr, const char **name, uint64_t *offset)
{
	int err;

	*name = NULL;
	*offset = 0;
	for (int pass = 0; pass < 2; pass++) {
		size_t lo = SORTED_UPTO(j->syms, j->n, start, addr);
		struct stat st;

		if (lo && addr - j->syms[lo - 1].start < j->syms[lo - 1].size) {
			*name = j->syms[lo - 1].name;
			*offset = addr - j->syms[lo - 1].start;
			return 0;
		}
		/* A JIT appends as it compiles: a miss may be news. */
		if (pass || stat(j->path, &st) != 0 || st.st_size == j->size)
			break;
		if ((err = jitmap__read(j)))
			return err;
	}
	return 0;
}
