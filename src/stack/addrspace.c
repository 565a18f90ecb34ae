/*
 * addrspace: per-process maps as sorted, non-overlapping arrays.
 *
 * A process has a few hundred mappings and lookups outnumber changes by far,
 * so a sorted array with binary search beats a tree here: lookups touch a
 * few cache lines and a change is one memmove.  Processes are found through
 * the u64 hashmap (tgid -> struct proc *).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"
#include "stack/addrspace.h"
#include "lib/hashmap.h"
#include "lib/sorted.h"
#include "lib/grow.h"

#define DELETED_SUFFIX " (deleted)"

struct proc {
	struct map *maps;	/* sorted by start, non-overlapping */
	size_t nr, cap;
	uint64_t code_gen;	/* changes when executable mappings change */
	/* The program image (addrspaces__pin_image): new at exec, a fork
	 * child's is its parent's.  pinned: a stack was unwound in it, so
	 * an exec keeps it (retired, under an alias) instead of freeing it. */
	uint32_t image;
	bool pinned;
	/* The "[uprobes]" page as of code generation xol_gen (a cache:
	 * asked at every probed call, it changes only with the code). */
	bool xol_known, xol_have;
	uint64_t xol_gen, xol_lo, xol_hi;
};

struct addrspaces {
	/* tgid -> struct proc *; a retired image under its alias (< 0) */
	struct hashmap *procs;
	uint64_t next_gen;
	uint32_t next_image;
	/* Retired images: pid << 32 | image -> alias (a negative pid_t). */
	struct hashmap *retired;
	uint32_t nretired;
	size_t retired_maps;
	/* Descriptors of deleted executables, taken while their process
	 * lived: (dev, inode) hash -> fd.  See addrspaces__kept_fd(). */
	struct hashmap *kept;
	size_t nkept;
};

#define MAX_KEPT 256
/* Images kept after their exec for the stacks unwound in them, and their
 * mappings in all (~120 bytes each): beyond these (a long -a run), such
 * stacks are named in the pid's new image, as they were before images. */
#define MAX_RETIRED 1024
#define MAX_RETIRED_MAPS (1u << 18)

static uint64_t file_key(const struct map *m)
{
	uint64_t k[3] = { m->maj, m->min, m->ino };

	return hash_bytes(k, sizeof(k));
}

/*
 * A deleted executable can only be opened through /proc/PID/map_files while
 * its process lives, and so can one whose path names another file here, or
 * none (a container's, in a mount namespace whose files we cannot reach by
 * path: its root is gone with its last process); samples are read (and
 * unwound, and named) a little later, possibly after it exited.  Take a
 * descriptor now and keep it.
 */
static void keep_unreachable(struct addrspaces *as, pid_t pid, const struct map *m)
{
	char path[96];
	struct stat st;
	int fd;

	if (!m->path || m->path[0] != '/' || !(m->prot & PROT_EXEC) || !m->ino ||
	    as->nkept >= MAX_KEPT || hashmap__get(as->kept, file_key(m), NULL))
		return;
	if (!m->deleted && stat(m->path, &st) == 0 && st.st_ino == m->ino)
		return;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid,
		 m->start, m->end);
	fd = open_regular(path, 0);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || st.st_ino != m->ino ||
	    hashmap__set(as->kept, file_key(m), (uint64_t)fd)) {
		close(fd);
		return;
	}
	as->nkept++;
}

int addrspaces__kept_fd(const struct addrspaces *as, const struct map *m)
{
	uint64_t fd;

	return hashmap__get(as->kept, file_key(m), &fd) ? (int)fd : -1;
}

/* Strictly 1-16 hex digits (strtoull would accept spaces, signs and "0x"). */
static int parse_hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	for (;; s++, n++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (n == 16)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
	}
	if (!n)
		return -EINVAL;
	*v = x;
	*p = s;
	return 0;
}

static int parse_dec(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	*p = s;
	return 0;
}

static int expect(const char **p, char c)
{
	if (**p != c)
		return -EINVAL;
	(*p)++;
	return 0;
}

/* Copy a path, moving a " (deleted)" suffix into *deleted.  "" -> NULL. */
static int dup_path(const char *s, size_t len, char **out, bool *deleted)
{
	size_t sl = strlen(DELETED_SUFFIX);

	*out = NULL;
	if (len >= sl && memcmp(s + len - sl, DELETED_SUFFIX, sl) == 0) {
		*deleted = true;
		len -= sl;
	}
	if (!len)
		return 0;
	*out = strndup(s, len);
	if (!*out)
		return -ENOMEM;
	/* show_map_vma escapes a newline of the path as "\012" (and nothing
	 * else): undo it, or a file with a newline in its name is never found
	 * (callers check the inode, so a name that held "\012" is no risk). */
	for (char *r = *out, *w = *out;; r++, w++) {
		if (!strncmp(r, "\\012", 4)) {
			*w = '\n';
			r += 3;
		} else if (!(*w = *r)) {
			break;
		}
	}
	return 0;
}

int map__parse_line(const char *line, struct map *m)
{
	const char *p = line, *path;
	struct map tmp = { 0 };
	uint64_t maj, min;
	size_t len;

	if (parse_hex(&p, &tmp.start) || expect(&p, '-') || parse_hex(&p, &tmp.end) || expect(&p, ' '))
		return -EINVAL;
	if (tmp.end <= tmp.start)
		return -EINVAL;
	if (p[0] == 'r')
		tmp.prot |= PROT_READ;
	else if (p[0] != '-')
		return -EINVAL;
	if (p[1] == 'w')
		tmp.prot |= PROT_WRITE;
	else if (p[1] != '-')
		return -EINVAL;
	if (p[2] == 'x')
		tmp.prot |= PROT_EXEC;
	else if (p[2] != '-')
		return -EINVAL;
	if (p[3] == 's')
		tmp.flags = MAP_SHARED;
	else if (p[3] == 'p')
		tmp.flags = MAP_PRIVATE;
	else
		return -EINVAL;
	p += 4;
	if (expect(&p, ' ') || parse_hex(&p, &tmp.pgoff) || expect(&p, ' '))
		return -EINVAL;
	if (parse_hex(&p, &maj) || expect(&p, ':') || parse_hex(&p, &min) || expect(&p, ' '))
		return -EINVAL;
	if (maj > UINT32_MAX || min > UINT32_MAX)
		return -EINVAL;
	tmp.maj = (uint32_t)maj;
	tmp.min = (uint32_t)min;
	if (parse_dec(&p, &tmp.ino))
		return -EINVAL;
	if (*p && *p != ' ' && *p != '\n')
		return -EINVAL;
	/* The kernel pads to a column, then the path runs to the end of the
	 * line: it may contain spaces. */
	while (*p == ' ')
		p++;
	path = p;
	len = strlen(path);
	if (len && path[len - 1] == '\n')
		len--;
	if (dup_path(path, len, &tmp.path, &tmp.deleted))
		return -ENOMEM;
	*m = tmp;
	return 0;
}

void map__clear(struct map *m)
{
	if (!m)
		return;
	free(m->path);
	memset(m, 0, sizeof(*m));
}

bool map__anonymous(const struct map *m)
{
	return !m->path || !strcmp(m->path, "//anon") || !strncmp(m->path, "[anon", 5);
}

bool map__swap_backed(const struct map *m)
{
	if (map__anonymous(m))
		return true;
	if (m->path[0] == '[')
		return !strcmp(m->path, "[heap]") || !strncmp(m->path, "[stack", 6);
	return !strcmp(m->path, "/dev/zero") || !strncmp(m->path, "/SYSV", 5) ||
	       !strncmp(m->path, "/memfd:", 7) || !strncmp(m->path, "/dev/shm/", 9);
}

bool map__uprobes(const struct map *m)
{
	return m->path && !strcmp(m->path, "[uprobes]");
}

static void proc__free(struct proc *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr; i++)
		free(p->maps[i].path);
	free(p->maps);
	free(p);
}

static int proc__reserve(struct proc *p, size_t need)
{
	return GROW_FOR(p->maps, p->cap, need, 16);
}

/* Index of the first mapping whose end is above @addr (nr if none). */
static size_t proc__lower(const struct proc *p, uint64_t addr)
{
	/* Ends sorted as starts are: mappings do not overlap. */
	return SORTED_UPTO(p->maps, p->nr, end, addr);
}

static struct proc *get_proc(const struct addrspaces *as, pid_t pid)
{
	uint64_t v;

	if (!hashmap__get(as->procs, (uint64_t)(uint32_t)pid, &v))
		return NULL;
	return (struct proc *)(uintptr_t)v;
}

static uint64_t retired_key(pid_t pid, uint32_t image)
{
	return (uint64_t)(uint32_t)pid << 32 | image;
}

/*
 * @old is no longer @pid's image (an exec, or a new process under a reused
 * pid).  When a stack was unwound in it, it stays, under an alias, so that
 * the stack is named in the maps it was taken under (perf keeps a thread's
 * maps per exec the same way); else it goes.  Return: the alias, or 0 when
 * it went.
 */
static pid_t retire(struct addrspaces *as, pid_t pid, struct proc *old)
{
	pid_t alias;

	if (!old->pinned || as->nretired >= MAX_RETIRED ||
	    as->retired_maps + old->nr > MAX_RETIRED_MAPS)
		goto drop;
	alias = -(pid_t)(as->nretired + 1);
	if (hashmap__set(as->procs, (uint64_t)(uint32_t)alias, (uint64_t)(uintptr_t)old))
		goto drop;
	if (hashmap__set(as->retired, retired_key(pid, old->image), (uint64_t)(uint32_t)alias)) {
		hashmap__delete(as->procs, (uint64_t)(uint32_t)alias, NULL);
		goto drop;
	}
	as->nretired++;
	as->retired_maps += old->nr;
	return alias;
drop:
	proc__free(old);
	return 0;
}

/* Install @p as @pid's maps; the old ones go, or are retired when @p is
 * another image.  On error @p is not taken. */
static int set_proc(struct addrspaces *as, pid_t pid, struct proc *p)
{
	struct proc *old = get_proc(as, pid);
	int err;

	err = hashmap__set(as->procs, (uint64_t)(uint32_t)pid, (uint64_t)(uintptr_t)p);
	if (err)
		return err;
	if (old && old->image != p->image)
		retire(as, pid, old);
	else
		proc__free(old);
	return 0;
}

/* A pid's maps changed; when @code, executable mappings may have too:
 * unwinders and name caches keyed by its code generation start over. */
static void touch_maps(struct addrspaces *as, pid_t pid, bool code)
{
	struct proc *p = get_proc(as, pid);

	if (p && code)
		p->code_gen = ++as->next_gen;
}

static void touch(struct addrspaces *as, pid_t pid)
{
	touch_maps(as, pid, true);
}

int addrspaces__new(struct addrspaces **out)
{
	struct addrspaces *as = calloc(1, sizeof(*as));

	if (!as)
		return -ENOMEM;
	as->procs = hashmap__new();
	as->kept = hashmap__new();
	as->retired = hashmap__new();
	if (!as->procs || !as->kept || !as->retired) {
		hashmap__free(as->procs);
		hashmap__free(as->kept);
		hashmap__free(as->retired);
		free(as);
		return -ENOMEM;
	}
	*out = as;
	return 0;
}

void addrspaces__free(struct addrspaces *as)
{
	uint64_t key, value;
	size_t pos = 0;

	if (!as)
		return;
	while (hashmap__next(as->procs, &pos, &key, &value))
		proc__free((struct proc *)(uintptr_t)value);
	hashmap__free(as->procs);
	hashmap__free(as->retired);
	pos = 0;
	while (as->kept && hashmap__next(as->kept, &pos, &key, &value))
		close((int)value);
	hashmap__free(as->kept);
	free(as);
}

static int cmp_start(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int addrspaces__load_pid(struct addrspaces *as, pid_t pid, const char *procfs)
{
	struct proc *p = NULL, *old;
	char file[4096];
	char *line = NULL;
	size_t cap = 0;
	FILE *fp = NULL;
	int err = 0;

	snprintf(file, sizeof(file), "%s/%d/maps", procfs ? procfs : "/proc", (int)pid);
	fp = fopen(file, "re");
	if (!fp) {
		err = errno == ENOENT ? -ESRCH : -errno;
		goto out;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	errno = 0;
	while (getline(&line, &cap, fp) > 0) {
		struct map m;
		int perr = map__parse_line(line, &m);

		if (perr == -ENOMEM) {
			err = perr;
			goto out;
		}
		if (perr)
			continue;
		if (proc__reserve(p, p->nr + 1)) {
			map__clear(&m);
			err = -ENOMEM;
			goto out;
		}
		keep_unreachable(as, pid, &m);
		p->maps[p->nr++] = m;
	}
	if (ferror(fp)) {
		/* The process exited while we read. */
		err = errno == ESRCH || errno == ENOENT || !errno ? -ESRCH : -errno;
		goto out;
	}
	/* The kernel lists maps sorted; sort anyway so a fixture cannot break
	 * the binary search. */
	if (p->nr)
		qsort(p->maps, p->nr, sizeof(*p->maps), cmp_start);
	/* Read again, a known process is the same image. */
	if ((old = get_proc(as, pid))) {
		p->image = old->image;
		p->pinned = old->pinned;
	} else {
		p->image = ++as->next_image;
	}
	err = set_proc(as, pid, p);
	if (!err) {
		p = NULL;
		touch(as, pid);
	}
out:
	proc__free(p);
	free(line);
	if (fp)
		fclose(fp);
	return err;
}

int addrspaces__add(struct addrspaces *as, pid_t pid, const struct map *m)
{
	struct proc *p = get_proc(as, pid), *fresh = NULL;
	struct map nm = *m, left, right;
	size_t k, e, replaced, pieces;
	bool has_left, has_right, code, fresh_proc;
	char *right_path = NULL;
	int err = 0;

	nm.path = NULL;
	if (m->end <= m->start)
		return -EINVAL;
	if (m->path && dup_path(m->path, strlen(m->path), &nm.path, &nm.deleted)) {
		err = -ENOMEM;
		goto out;
	}
	keep_unreachable(as, pid, &nm);
	if (!p) {
		fresh = calloc(1, sizeof(*fresh));
		if (!fresh) {
			err = -ENOMEM;
			goto out;
		}
		fresh->image = ++as->next_image;
		p = fresh;
	}

	/* Mappings [k, e) overlap the new one. */
	k = proc__lower(p, nm.start);
	for (e = k; e < p->nr && p->maps[e].start < nm.end; e++)
		;
	replaced = e - k;
	code = nm.prot & PROT_EXEC;
	for (size_t i = k; i < e; i++)
		code |= p->maps[i].prot & PROT_EXEC;
	has_left = replaced && p->maps[k].start < nm.start;
	has_right = replaced && p->maps[e - 1].end > nm.end;
	pieces = 1 + has_left + has_right;
	if (has_left) {
		left = p->maps[k];
		left.end = nm.start;
	}
	if (has_right) {
		right = p->maps[e - 1];
		right.pgoff += nm.end - right.start;
		right.start = nm.end;
		/* A split in the middle leaves two pieces of one mapping:
		 * each needs its own path. */
		if (has_left && e - 1 == k && right.path) {
			right_path = strdup(right.path);
			if (!right_path) {
				err = -ENOMEM;
				goto out;
			}
			right.path = right_path;
		}
	}
	if (pieces > replaced && proc__reserve(p, p->nr + pieces - replaced)) {
		err = -ENOMEM;
		goto out;
	}
	fresh_proc = fresh != NULL;
	if (fresh && (err = set_proc(as, pid, fresh)))
		goto out;
	fresh = NULL;

	/* Past this point nothing fails. */
	for (size_t i = k; i < e; i++) {
		if ((i == k && has_left) || (i == e - 1 && has_right && !right_path))
			continue;	/* path moves to the remaining piece */
		free(p->maps[i].path);
	}
	memmove(p->maps + k + pieces, p->maps + e, (p->nr - e) * sizeof(*p->maps));
	p->nr = p->nr - replaced + pieces;
	if (has_left)
		p->maps[k++] = left;
	p->maps[k++] = nm;
	if (has_right)
		p->maps[k] = right;
	nm.path = NULL;
	right_path = NULL;
	/* Data mappings (malloc's, every anonymous mmap) leave the code as it
	 * was: caches of names and unwind tables stay valid. */
	touch_maps(as, pid, code || fresh_proc);
out:
	free(right_path);
	free(nm.path);
	proc__free(fresh);
	return err;
}

int addrspaces__fork(struct addrspaces *as, pid_t parent, pid_t child)
{
	const struct proc *pp = get_proc(as, parent);
	struct proc *c = NULL;
	int err = 0;

	if (parent == child)
		return 0;
	if (!pp)
		return -ESRCH;
	c = calloc(1, sizeof(*c));
	if (!c || proc__reserve(c, pp->nr)) {
		err = -ENOMEM;
		goto out;
	}
	c->image = pp->image;	/* the same program, until the child execs */
	for (size_t i = 0; i < pp->nr; i++) {
		struct map m = pp->maps[i];

		if (m.path && !(m.path = strdup(m.path))) {
			err = -ENOMEM;
			goto out;
		}
		c->maps[c->nr++] = m;
	}
	err = set_proc(as, child, c);
	if (!err) {
		c = NULL;
		touch(as, child);
	}
out:
	proc__free(c);
	return err;
}

pid_t addrspaces__exec(struct addrspaces *as, pid_t pid)
{
	struct proc *old = get_proc(as, pid), *p = calloc(1, sizeof(*p));
	pid_t alias = 0;

	if (p)
		p->image = ++as->next_image;
	if (p && !hashmap__set(as->procs, (uint64_t)(uint32_t)pid, (uint64_t)(uintptr_t)p)) {
		/* Known from now on, with no maps: the new image's MMAP2s follow. */
		if (old)
			alias = retire(as, pid, old);
	} else {
		free(p);
		if (old) {
			/* Out of memory: the old image's stacks lose their maps. */
			for (size_t i = 0; i < old->nr; i++)
				free(old->maps[i].path);
			old->nr = 0;
			old->image = ++as->next_image;
			old->pinned = false;
		}
	}
	touch(as, pid);
	return alias;
}

uint32_t addrspaces__pin_image(struct addrspaces *as, pid_t pid)
{
	struct proc *p = get_proc(as, pid);

	if (!p)
		return 0;
	p->pinned = true;
	return p->image;
}

pid_t addrspaces__image_pid(const struct addrspaces *as, pid_t pid, uint32_t image)
{
	const struct proc *p = get_proc(as, pid);
	uint64_t alias;

	if (!image || (p && p->image == image) ||
	    !hashmap__get(as->retired, retired_key(pid, image), &alias))
		return pid;
	return (pid_t)(int32_t)(uint32_t)alias;
}

const struct map *addrspaces__find(const struct addrspaces *as, pid_t pid, uint64_t addr)
{
	const struct proc *p = get_proc(as, pid);
	size_t i;

	if (!p)
		return NULL;
	i = proc__lower(p, addr);
	if (i < p->nr && p->maps[i].start <= addr)
		return &p->maps[i];
	return NULL;
}

bool addrspaces__known(const struct addrspaces *as, pid_t pid)
{
	return get_proc(as, pid) != NULL;
}

const struct map *addrspaces__maps(const struct addrspaces *as, pid_t pid, size_t *n)
{
	const struct proc *p = get_proc(as, pid);

	*n = p ? p->nr : 0;
	return p ? p->maps : NULL;
}

bool addrspaces__uprobes_page(const struct addrspaces *as, pid_t pid, uint64_t *lo, uint64_t *hi)
{
	struct proc *p = get_proc(as, pid);

	if (!p)
		return false;
	if (!p->xol_known || p->xol_gen != p->code_gen) {
		p->xol_have = false;
		/* Mapped last, usually high: search from the top. */
		for (size_t i = p->nr; i-- > 0;) {
			if (map__uprobes(&p->maps[i])) {
				p->xol_have = true;
				p->xol_lo = p->maps[i].start;
				p->xol_hi = p->maps[i].end;
				break;
			}
		}
		p->xol_known = true;
		p->xol_gen = p->code_gen;
	}
	*lo = p->xol_lo;
	*hi = p->xol_hi;
	return p->xol_have;
}

uint64_t addrspaces__code_generation(const struct addrspaces *as, pid_t pid)
{
	const struct proc *p = get_proc(as, pid);

	return p ? p->code_gen : 0;
}
