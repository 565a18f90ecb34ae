/*
 * perf-cgroup: the traced command's own cgroup for cgroup perf events
 * (perf-cgroup.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/errbuf.h"
#include "lib/file.h"
#include "proc/procstat.h"
#include "trace/perf-cgroup.h"
#include "trace/probe-group.h"

#define NAME_PREFIX "faultline_"

struct perf_cgroup {
	char *path;		/* the cgroup's directory */
	char *parent;		/* its parent's */
	char *procs;		/* path/cgroup.procs and parent's, made beforehand */
	char *parent_procs;	/* for perf_cgroup__remove_in_signal() */
	int fd;
	bool v2;		/* in the cgroup2 hierarchy (no v1 perf_event mount) */
};

/* The perf_event hierarchy's mount in @mnt and @pid's cgroup in it in
 * @rel ("/..." below the mount).  0 / -ENOENT. */
static int hierarchy(pid_t pid, char *mnt, size_t nmnt, char *rel, size_t nrel, bool *is_v2)
{
	char path[64], *buf = NULL, *line, *save = NULL;
	bool v1;
	int err = -ENOENT;

	procstat__cgroup_mount(NULL, "perf_event", mnt, nmnt);
	v1 = mnt[0] != '\0';
	if (!v1)
		procstat__cgroup_mount(NULL, NULL, mnt, nmnt);
	if (!mnt[0])
		return -ENOENT;
	*is_v2 = !v1;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (read_file(path, 65536, &buf, NULL))
		return -ENOENT;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* "ID:CONTROLLERS:PATH": v1's names perf_event, v2's is "0::". */
		char *c = strchr(line, ':'), *p = c ? strchr(c + 1, ':') : NULL;
		bool match = false;

		if (!c || !p)
			continue;
		*p = '\0';
		if (v1) {
			char *osave = NULL;

			for (char *o = strtok_r(c + 1, ",", &osave); o && !match;
			     o = strtok_r(NULL, ",", &osave))
				match = !strcmp(o, "perf_event");
		} else {
			match = line[0] == '0' && c == line + 1 && p == c + 1;
		}
		if (match) {
			if ((size_t)snprintf(rel, nrel, "%s", p + 1) < nrel)
				err = 0;
			break;
		}
	}
	free(buf);
	return err;
}

/* Write @pid into @dir/cgroup.procs.  0 / -errno. */
static int move_pid(const char *dir, pid_t pid)
{
	char path[4200], num[24];
	int fd, len, err = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	len = snprintf(num, sizeof(num), "%d\n", (int)pid);
	if (write(fd, num, (size_t)len) != len)
		err = -errno;
	close(fd);
	return err;
}

/* Write each pid listed in the cgroup.procs file @from into the one @to,
 * one write a pid as the kernel wants.  Async-signal-safe: open, read,
 * write and close only, no allocation. */
static void move_procs(const char *from, const char *to)
{
	char buf[512], pid[24];
	size_t len = 0;
	int in, out;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return;
	out = open(to, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (out >= 0) {
		while ((n = read(in, buf, sizeof(buf))) > 0) {
			for (ssize_t i = 0; i < n; i++) {
				if (buf[i] != '\n') {
					if (len < sizeof(pid) - 1)
						pid[len++] = buf[i];
					continue;
				}
				pid[len++] = '\n';
				if (write(out, pid, len) < 0) {
					/* gone already, or not movable: rmdir says */
				}
				len = 0;
			}
		}
		close(out);
	}
	close(in);
}

/* Move every process of @dir (its cgroup.procs @procs) to the parent (its
 * cgroup.procs @to), then remove @dir.  0 / -errno.  Async-signal-safe. */
static int empty_and_remove_at(const char *dir, const char *procs, const char *to)
{
	/* Three rounds: a process forking as it is moved leaves a child. */
	for (int round = 0; round < 3; round++) {
		move_procs(procs, to);
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
	}
	return -errno;
}

/* Move every process of @dir to @parent, then remove @dir.  0 / -errno. */
static int empty_and_remove(const char *dir, const char *parent)
{
	char procs[4200], to[4200];

	if ((size_t)snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir) >= sizeof(procs) ||
	    (size_t)snprintf(to, sizeof(to), "%s/cgroup.procs", parent) >= sizeof(to))
		return -ENAMETOOLONG;
	return empty_and_remove_at(dir, procs, to);
}

int perf_cgroup__new(pid_t pid, struct perf_cgroup **out, struct errbuf *eb)
{
	char mnt[4096], rel[4096], name[64];
	struct perf_cgroup *cg;
	bool v2 = false;
	int err;

	err = hierarchy(pid, mnt, sizeof(mnt), rel, sizeof(rel), &v2);
	if (err)
		return errbuf__set(eb, err, "no perf_event cgroup hierarchy (a v1 mount with "
				   "perf_event, or cgroup2) holding pid %d", (int)pid);
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	cg->fd = -1;
	cg->v2 = v2;
	if (asprintf(&cg->parent, "%s%s", mnt, strcmp(rel, "/") ? rel : "") < 0) {
		cg->parent = NULL;
		goto nomem;
	}
	probe_group__owner_name(name, sizeof(name));
	if (asprintf(&cg->path, "%s/%s", cg->parent, name) < 0) {
		cg->path = NULL;
		goto nomem;
	}
	if (asprintf(&cg->procs, "%s/cgroup.procs", cg->path) < 0) {
		cg->procs = NULL;
		goto nomem_unmade;
	}
	if (asprintf(&cg->parent_procs, "%s/cgroup.procs", cg->parent) < 0) {
		cg->parent_procs = NULL;
		goto nomem_unmade;
	}
	if (mkdir(cg->path, 0755)) {
		err = -errno;
		errbuf__set(eb, err, "cannot make cgroup '%s': %s", cg->path, strerror(-err));
		free(cg->path);
		cg->path = NULL;	/* not ours to remove */
		goto fail;
	}
	err = move_pid(cg->path, pid);
	if (err) {
		errbuf__set(eb, err, "cannot move pid %d into cgroup '%s': %s", (int)pid, cg->path,
			    strerror(-err));
		goto fail;
	}
	cg->fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0) {
		err = -errno;
		errbuf__set(eb, err, "cannot open cgroup '%s': %s", cg->path, strerror(-err));
		goto fail;
	}
	*out = cg;
	return 0;
nomem_unmade:
	free(cg->path);
	cg->path = NULL;	/* not made: nothing to remove */
nomem:
	err = -ENOMEM;
fail:
	perf_cgroup__free(cg);
	return err;
}

int perf_cgroup__add(struct perf_cgroup *cg, pid_t pid)
{
	return move_pid(cg->path, pid);
}

int perf_cgroup__fd(const struct perf_cgroup *cg)
{
	return cg->fd;
}

const char *perf_cgroup__path(const struct perf_cgroup *cg)
{
	return cg->path;
}

const char *perf_cgroup__parent(const struct perf_cgroup *cg)
{
	return cg->parent;
}

bool perf_cgroup__v2(const struct perf_cgroup *cg)
{
	return cg->v2;
}

void perf_cgroup__free(struct perf_cgroup *cg)
{
	if (!cg)
		return;
	if (cg->fd >= 0)
		close(cg->fd);
	if (cg->path && cg->parent)
		empty_and_remove_at(cg->path, cg->procs, cg->parent_procs);
	free(cg->path);
	free(cg->parent);
	free(cg->procs);
	free(cg->parent_procs);
	free(cg);
}

void perf_cgroup__remove_in_signal(const struct perf_cgroup *cg)
{
	if (cg && cg->path)
		empty_and_remove_at(cg->path, cg->procs, cg->parent_procs);
}

/* Look for faultline_<pid> directories below @dir, to @depth levels. */
static size_t stale_below(const char *dir, int depth, bool (*alive)(const char *name), bool dry,
			  char **names, size_t *nlen)
{
	size_t found = 0;
	struct dirent *de;
	DIR *d;

	if (depth < 0 || !(d = opendir(dir)))
		return 0;
	while ((de = readdir(d))) {
		char path[4200];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		if (strncmp(de->d_name, NAME_PREFIX, strlen(NAME_PREFIX))) {
			found += stale_below(path, depth - 1, alive, dry, names, nlen);
			continue;
		}
		if (alive(de->d_name))
			continue;
		if (!dry && empty_and_remove(path, dir))
			continue;
		found++;
		if (names) {
			size_t l = strlen(path);
			char *n = realloc(*names, *nlen + l + 2);

			if (n) {
				memcpy(n + *nlen, path, l);
				n[*nlen + l] = '\n';
				n[*nlen + l + 1] = '\0';
				*nlen += l + 1;
				*names = n;
			}
		}
	}
	closedir(d);
	return found;
}

size_t perf_cgroup__remove_stale(bool (*alive)(const char *name), bool dry, char **names)
{
	char mnt[4096];
	size_t nlen = 0;

	if (names)
		*names = NULL;
	procstat__cgroup_mount(NULL, "perf_event", mnt, sizeof(mnt));
	if (!mnt[0])
		procstat__cgroup_mount(NULL, NULL, mnt, sizeof(mnt));
	/* faultline's cgroups sit below the tracer's own: a few levels deep
	 * under systemd (user.slice/user-0.slice/session-1.scope). */
	return mnt[0] ? stale_below(mnt, 6, alive, dry, names, &nlen) : 0;
}
