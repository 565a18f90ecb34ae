/*
 * probe-group: create and remove faultline's dynamic probes with
 * libtracefs (tracefs_uprobe_alloc + tracefs_dynevent_create), one group per
 * faultline process.
 *
 * Nothing goes into tracefs that probe-line has not checked: a path the
 * command syntax cannot carry (a newline would be a second command, a
 * space splits the line) is probed as /proc/<our pid>/fd/N of the file
 * opened here.  The kernel resolves a uprobe's path to its inode when the
 * probe is created (kern_path in trace_uprobe_create), so the fd is closed
 * right after (see enable_check for the one thing checked before that):
 * measured on 6.18, a probe so made on a copy of libc under
 * "sp ace" fired 1,043 times in a process mapping the copy, none in one
 * mapping the original, after the fd was closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "lib/file.h"
#include "proc/nspid.h"
#include "trace/probe-group.h"
#include "trace/probe-line.h"
#include "trace/uprobe-tmpfs.h"

#define PROBE_TYPES (TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE | \
		     TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE)

struct probe_group {
	char name[64];
	struct tracefs_dynevent **ev;
	bool *is_kprobe;
	size_t n;
	char *removal[2];	/* [0] uprobes, [1] kprobes */
	bool no_hex_types;	/* a probe refused with x types was taken with u types */
	bool tmpfs_ok;		/* a uprobe on a tmpfs file was enabled */
};

int probe_group__new(struct probe_group **out)
{
	struct probe_group *g = calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	probe_group__owner_name(g->name, sizeof(g->name));
	*out = g;
	return 0;
}

const char *probe_group__name(const struct probe_group *g)
{
	return g->name;
}

size_t probe_group__count(const struct probe_group *g)
{
	return g->n;
}

/* Keep the emergency removal text current: one "-:group/event\n" per probe. */
static int append_removal(struct probe_group *g, const char *event, bool kprobe)
{
	char **s = &g->removal[kprobe];
	size_t old = *s ? strlen(*s) : 0;
	size_t add = strlen(g->name) + strlen(event) + 4;
	char *ns = realloc(*s, old + add + 1);

	if (!ns)
		return -ENOMEM;
	snprintf(ns + old, add + 1, "-:%s/%s\n", g->name, event);
	*s = ns;
	return 0;
}

static int track(struct probe_group *g, struct tracefs_dynevent *ev, const char *event,
		 bool kprobe, struct errbuf *eb)
{
	struct tracefs_dynevent **nv;
	bool *nk;
	int err;

	nv = realloc(g->ev, (g->n + 1) * sizeof(*nv));
	if (!nv)
		goto nomem;
	g->ev = nv;
	nk = realloc(g->is_kprobe, (g->n + 1) * sizeof(*nk));
	if (!nk)
		goto nomem;
	g->is_kprobe = nk;
	err = append_removal(g, event, kprobe);
	if (err)
		goto nomem;
	g->ev[g->n] = ev;
	g->is_kprobe[g->n] = kprobe;
	g->n++;
	return 0;
nomem:
	/* Created but not trackable: take it down now rather than leak it. */
	tracefs_dynevent_destroy(ev, true);
	tracefs_dynevent_free(ev);
	return errbuf__set(eb, -ENOMEM, "out of memory while tracking probe '%s'", event);
}

/* The kernel's error_log entry of @cmd, or "" when it logged none: only
 * an entry that the log did not hold before the write (@before, read
 * then) is quoted, never an older one, another process's or this same
 * command's from an earlier try. */
static void kernel_says(const char *before, const char *cmd, char *msg, size_t n)
{
	char *log = tracefs_error_all(NULL);

	if (!probe_line__kernel_error(before, log, cmd, msg, n))
		msg[0] = '\0';
	free(log);
}

static int create(struct probe_group *g, struct tracefs_dynevent *ev, const char *event,
		  const char *where, const char *cmd, bool kprobe, struct errbuf *eb)
{
	char klog[512], *before;
	int err;

	if (!ev)
		return errbuf__set(eb, -errno ? -errno : -EINVAL,
				   "cannot describe probe '%s' at '%s'", event, where);
	before = tracefs_error_all(NULL);	/* NULL: none yet (or no log: 3.10) */
	if (tracefs_dynevent_create(ev) < 0) {
		err = -(errno ? errno : EINVAL);
		kernel_says(before, cmd, klog, sizeof(klog));
		free(before);
		errbuf__set(eb, err, "cannot create probe '%s/%s' at '%s': %s%s%s", g->name,
			    event, where, strerror(-err), klog[0] ? ": kernel says: " : "", klog);
		tracefs_dynevent_free(ev);
		return err;
	}
	free(before);
	return track(g, ev, event, kprobe, eb);
}

/* @path as a probe line can carry it: itself, or /proc/<pid>/fd/N of it
 * opened now (*fd, the caller's to close once the probe exists). */
static int probe_path(const char *path, char *out, size_t n, int *fd, struct errbuf *eb)
{
	*fd = -1;
	if (probe_line__path_ok(path)) {
		snprintf(out, n, "%s", path);
		return 0;
	}
	*fd = open_regular(path, 0);
	if (*fd < 0)
		return errbuf__set(eb, *fd, "cannot open '%s': %s", path,
				   *fd == -EINVAL ? "not a regular file" : strerror(-*fd));
	snprintf(out, n, "/proc/%d/fd/%d", (int)getpid(), *fd);
	return 0;
}

/* What one probe is: a uprobe at @path (already fit for a line) and
 * @offset, or a kprobe on @func. */
struct probe_what {
	const char *event, *where, *path, *func;
	uint64_t offset;
	bool kprobe, retprobe;
};

/* Check its line, describe it to libtracefs and create it with @args. */
static int attempt(struct probe_group *g, const struct probe_what *w, const char *args,
		   struct errbuf *eb)
{
	char cmd[PROBE_LINE_MAX + 1];
	struct tracefs_dynevent *ev;
	int err;

	if (w->kprobe)
		err = probe_line__kprobe(cmd, sizeof(cmd), g->name, w->event, w->func, w->retprobe,
					 args, eb);
	else
		err = probe_line__uprobe(cmd, sizeof(cmd), g->name, w->event, w->path, w->offset,
					 w->retprobe, args, eb);
	if (err)
		return err;
	errno = 0;
	if (w->kprobe && w->retprobe)
		ev = tracefs_kretprobe_alloc(g->name, w->event, w->func, args, 0);
	else if (w->kprobe)
		ev = tracefs_kprobe_alloc(g->name, w->event, w->func, args);
	else if (w->retprobe)
		ev = tracefs_uretprobe_alloc(g->name, w->event, w->path, w->offset, args);
	else
		ev = tracefs_uprobe_alloc(g->name, w->event, w->path, w->offset, args);
	return create(g, ev, w->event, w->where, cmd, w->kprobe, eb);
}

/*
 * A kernel without the x fetch types (3.10: RHEL 7) refuses the whole
 * probe with EINVAL and has no error_log to say why; the same probe with
 * u types of the same widths is then tried, and once one is accepted so,
 * the group writes u types from the start.  A kernel that has them never
 * sees a second line.
 */
static int add(struct probe_group *g, const struct probe_what *w, const char *fetchargs,
	       struct errbuf *eb)
{
	char alt[PROBE_LINE_MAX + 1];
	bool hex = probe_line__unhex(fetchargs, alt, sizeof(alt));
	int err;

	if (hex && g->no_hex_types)
		return attempt(g, w, alt, eb);
	err = attempt(g, w, fetchargs, eb);
	if (err != -EINVAL || !hex)
		return err;
	if (attempt(g, w, alt, NULL))
		return err;
	g->no_hex_types = true;
	errbuf__clear(eb);
	return 0;
}

/*
 * A uprobe in a file on tmpfs, where 3.10 (RHEL 7) cannot place one
 * (uprobe-tmpfs.h): the tracing "enable" file reports that, so the first
 * time in a group the event is enabled and disabled at once through it
 * while this process maps the page; a kernel that can (6.x) passes, and
 * is not asked again.
 */
static int enable_check(struct probe_group *g, const char *event, const char *path,
			uint64_t offset, const char *where, struct errbuf *eb)
{
	char probe[sizeof(g->name) + 80];
	uint8_t byte;
	size_t len;
	void *map;
	int err = 0;

	if (g->tmpfs_ok || !uprobe_tmpfs__is(path) ||
	    uprobe_tmpfs__map(path, offset, &map, &len, &byte))
		return 0;
	errno = 0;
	if (tracefs_event_enable(NULL, g->name, event) < 0) {
		err = -(errno ? errno : EIO);
	} else {
		tracefs_event_disable(NULL, g->name, event);
		g->tmpfs_ok = true;
	}
	uprobe_tmpfs__unmap(map, len);
	if (err != -EIO)
		return 0;	/* not the tmpfs case: perf's open will say */
	snprintf(probe, sizeof(probe), "%s/%s", g->name, event);
	return uprobe_tmpfs__refuse(eb, probe, where);
}

int probe_group__add_uprobe(struct probe_group *g, const char *event, const char *path,
			    uint64_t offset, bool retprobe, const char *fetchargs,
			    struct errbuf *eb)
{
	char where[4200], target[64 + PROBE_LINE_PATH_MAX];
	struct probe_what w = {
		.event = event, .where = where, .path = target, .offset = offset,
		.retprobe = retprobe,
	};
	int err, fd;

	snprintf(where, sizeof(where), "%s:0x%llx", path, (unsigned long long)offset);
	err = probe_path(path, target, sizeof(target), &fd, eb);
	if (err)
		return err;
	err = add(g, &w, fetchargs, eb);
	if (!err)
		err = enable_check(g, event, target, offset, where, eb);
	if (fd >= 0)
		close(fd);
	return err;
}

int probe_group__add_kprobe(struct probe_group *g, const char *event, const char *func,
			    bool retprobe, const char *fetchargs, struct errbuf *eb)
{
	struct probe_what w = {
		.event = event, .where = func, .func = func, .kprobe = true, .retprobe = retprobe,
	};

	return add(g, &w, fetchargs, eb);
}

const char *probe_group__removal_lines(const struct probe_group *g, bool kprobes)
{
	return g->removal[kprobes];
}

int probe_group__remove_all(struct probe_group *g, struct errbuf *eb)
{
	int first = 0;

	for (size_t i = g->n; i-- > 0;) {
		errno = 0;
		if (tracefs_dynevent_destroy(g->ev[i], true) < 0 && errno != ENOENT && !first)
			first = errbuf__set(eb, -(errno ? errno : EBUSY),
					    "cannot remove a probe of group '%s'", g->name);
		tracefs_dynevent_free(g->ev[i]);
	}
	g->n = 0;
	free(g->removal[0]);
	free(g->removal[1]);
	g->removal[0] = g->removal[1] = NULL;
	return first;
}

void probe_group__free(struct probe_group *g)
{
	if (!g)
		return;
	probe_group__remove_all(g, NULL);
	free(g->ev);
	free(g->is_kprobe);
	free(g);
}

/* faultline's own PID namespace; the initial one where it cannot be read
 * (a kernel before 3.8 has but the one). */
static unsigned long own_ns(void)
{
	unsigned long ns;

	return nspid__ns(0, &ns) ? NSPID_INIT_NS : ns;
}

void probe_group__owner_name(char *buf, size_t len)
{
	unsigned long ns = own_ns();

	if (ns == NSPID_INIT_NS)
		snprintf(buf, len, PROBE_GROUP_PREFIX "%d", (int)getpid());
	else
		snprintf(buf, len, PROBE_GROUP_PREFIX "%d_%lu", (int)getpid(), ns);
}

int probe_group__parse_owner(const char *group, pid_t *pid, unsigned long *ns)
{
	size_t plen = strlen(PROBE_GROUP_PREFIX);
	char *end;
	long v;

	if (strncmp(group, PROBE_GROUP_PREFIX, plen) != 0)
		return -EINVAL;
	group += plen;
	if (*group < '0' || *group > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(group, &end, 10);
	if (errno || v <= 0 || v > 0x7fffffff)
		return -EINVAL;
	*pid = (pid_t)v;
	*ns = NSPID_INIT_NS;
	if (!*end)
		return 0;
	if (*end != '_' || end[1] < '0' || end[1] > '9')
		return -EINVAL;
	errno = 0;
	*ns = strtoul(end + 1, &end, 10);
	return errno || *end || *ns == NSPID_INIT_NS ? -EINVAL : 0;
}

pid_t probe_group__parse_pid(const char *group)
{
	unsigned long ns;
	pid_t pid;

	return probe_group__parse_owner(group, &pid, &ns) ? -1 : pid;
}

/*
 * Whether process @pid may be a faultline, for the one question whose
 * wrong answer harms: is a group's owner alive.  Judged generously, as a
 * live owner's probes must never be removed under it: its name is
 * "faultline" or begins with it (an install under another name:
 * faultline-el7, faultline-0.1), or it runs the very executable this
 * process runs (a symlink's name, "fl", is the comm then).  A stranger
 * that reuses a dead owner's pid and names itself so keeps a stale group
 * alive: a leftover, never a removal.
 */
static bool is_faultline(pid_t pid)
{
	char path[64], comm[64] = "";
	struct stat me, it;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	if (!strncmp(comm, "faultline", 9))
		return true;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return !stat("/proc/self/exe", &me) && !stat(path, &it) && me.st_dev == it.st_dev &&
	       me.st_ino == it.st_ino;
}

/*
 * A group's pid is its owner's in the owner's PID namespace, named in the
 * group when it is not the initial one.  One of faultline's own namespace
 * is judged by /proc.  One of another namespace is judged only from the
 * initial one, which sees every process: there the namespace's processes
 * are found by their NSpid, and the owner is dead when none is its pid.
 * From inside a container, a group of the host or of a sibling cannot be
 * told dead: it is left alone, as a live one.
 */
bool probe_group__owner_alive(const char *group)
{
	unsigned long ns, mine = own_ns();
	pid_t pid;
	long host;

	if (probe_group__parse_owner(group, &pid, &ns))
		return true;
	if (ns == mine)
		return pid == getpid() || is_faultline(pid);
	if (mine != NSPID_INIT_NS)
		return true;
	host = nspid__find(ns, pid);
	if (host < 0)
		return host != -ENOENT;
	return is_faultline((pid_t)host);
}

int probe_groups__find_stale(struct stale_group **out, size_t *n, struct errbuf *eb)
{
	struct tracefs_dynevent **all;
	struct stale_group *v = NULL;
	size_t cnt = 0;

	*out = NULL;
	*n = 0;
	errno = 0;
	all = tracefs_dynevent_get_all(PROBE_TYPES, NULL);
	if (!all)
		return errno && errno != ENOENT ?
			errbuf__set(eb, -errno, "cannot list dynamic events: %s", strerror(errno)) : 0;
	for (size_t i = 0; all[i]; i++) {
		char *sys = NULL, *name = NULL;
		bool dup = false;
		pid_t pid;
		size_t j;

		tracefs_dynevent_info(all[i], &sys, &name, NULL, NULL, NULL);
		pid = sys ? probe_group__parse_pid(sys) : -1;
		/* The same event can be listed twice (see probe_groups__remove). */
		for (size_t k = 0; k < i && !dup && pid >= 0; k++) {
			char *ks = NULL, *kn = NULL;

			tracefs_dynevent_info(all[k], &ks, &kn, NULL, NULL, NULL);
			dup = ks && kn && name && !strcmp(ks, sys) && !strcmp(kn, name);
			free(ks);
			free(kn);
		}
		free(name);
		if (pid < 0 || dup || probe_group__owner_alive(sys)) {
			free(sys);
			continue;
		}
		for (j = 0; j < cnt && strcmp(v[j].name, sys); j++)
			;
		if (j == cnt) {
			struct stale_group *nv = realloc(v, (cnt + 1) * sizeof(*nv));

			if (!nv) {
				free(sys);
				free(v);
				tracefs_dynevent_list_free(all);
				return -ENOMEM;
			}
			v = nv;
			memset(&v[cnt], 0, sizeof(v[cnt]));
			snprintf(v[cnt].name, sizeof(v[cnt].name), "%s", sys);
			v[cnt].pid = pid;
			cnt++;
		}
		v[j].nprobes++;
		free(sys);
	}
	tracefs_dynevent_list_free(all);
	*out = v;
	*n = cnt;
	return 0;
}

int probe_groups__remove(const char *group, struct errbuf *eb)
{
	struct tracefs_dynevent **all;
	int first = 0;

	errno = 0;
	all = tracefs_dynevent_get_all(PROBE_TYPES, group);
	if (!all)
		return errno && errno != ENOENT ?
			errbuf__set(eb, -errno, "cannot list dynamic events of '%s'", group) : 0;
	for (size_t i = 0; all[i]; i++) {
		/* libtracefs lists an event once per file that shows it
		 * (uprobe_events and dynamic_events): gone already is fine. */
		errno = 0;
		if (tracefs_dynevent_destroy(all[i], true) < 0 && errno != ENOENT && !first)
			first = errbuf__set(eb, -(errno ? errno : EBUSY),
					    "cannot remove a probe of group '%s': %s", group,
					    strerror(errno ? errno : EBUSY));
	}
	tracefs_dynevent_list_free(all);
	return first;
}
