/*
 * features: probe the kernel's tracing and perf facilities file by file.
 *
 * Each probe looks for the file that the facility creates (uprobe_events,
 * the uprobe PMU's "type", events/syscalls...) below a configurable root,
 * and records the evidence either way.  Versions are never compared:
 * distro backports make them lie.  Dependencies are explicit (uprobes need
 * a usable tracing dir, uretprobes need uprobes), so a masked or missing
 * base explains everything built on it.  Confidentiality lockdown makes
 * every tracefs file refuse to open, so tracefs counts as unusable there
 * even though the directory is still mounted.
 */
#ifndef _GNU_SOURCE	/* config.h (-include) may define it already */
#define _GNU_SOURCE 1
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "features.h"
#include "lib/file.h"
#include "lib/hashmap.h"

#define WHY_LEN 256
#define MASKED "masked by FAULTLINE_MASK"
#define MOUNT_HINT "mount it with 'mount -t tracefs nodev /sys/kernel/tracing'"
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

struct tp_mask {
	char *system;
	char *event;		/* NULL: every event of the system ("system:*") */
};

struct feature_mask {
	bool feat[FEAT__COUNT];
	struct tp_mask *tps;
	size_t ntps;
};

struct features {
	bool has[FEAT__COUNT];
	char why[FEAT__COUNT][WHY_LEN];
	char tracing[PATH_MAX];		/* "" when no tracing dir was found */
	char sysfs[PATH_MAX];
	char procfs[PATH_MAX];
	bool mounted;
	char lockdown[32];
	int paranoid;
	bool root;
	bool cap_sys_admin;
	bool cap_perfmon;
	int uprobe_pmu_type;
	int kprobe_pmu_type;
	struct feature_mask *mask;
	/* A recording's features (features__recorded): the events it holds
	 * are what "exists"; NULL for a live kernel or a fixture tree. */
	char **recorded;		/* "system:event" and "kfunc:NAME", sorted */
	size_t nrecorded;
	/* Kernel text symbols, read from kallsyms at the first kfunc
	 * question (a ladder asks up to a dozen): hashes of their names.
	 * Behind a pointer, so a const features can fill it. */
	struct ksyms *ksyms;
};

struct ksyms {
	bool loaded;
	int err;			/* errno of reading kallsyms, or 0 */
	struct hashmap *names;		/* hash_bytes(name) -> 1 */
};

/* Indexed by enum feature_id: these names are a stable interface
 * (FAULTLINE_MASK, ladder requirements, JSON output). */
static const char *const feature_names[FEAT__COUNT] = {
	[FEAT_TRACEFS] = "tracefs",
	[FEAT_UPROBES] = "uprobes",
	[FEAT_URETPROBES] = "uretprobes",
	[FEAT_KPROBES] = "kprobes",
	[FEAT_KRETPROBES] = "kretprobes",
	[FEAT_DYNAMIC_EVENTS] = "dynamic_events",
	[FEAT_UPROBE_PMU] = "uprobe_pmu",
	[FEAT_KPROBE_PMU] = "kprobe_pmu",
	[FEAT_PERF_EVENTS] = "perf_events",
	[FEAT_SYSCALL_TRACEPOINTS] = "syscall_tracepoints",
	[FEAT_EVENT_FILTERS] = "event_filters",
	[FEAT_FUNCTION_TRACER] = "function_tracer",
	[FEAT_ERROR_LOG] = "error_log",
	[FEAT_UPROBE_REF_CTR] = "uprobe_ref_ctr",
	[FEAT_UPROBE_PMU_REF_CTR] = "uprobe_pmu_ref_ctr",
	[FEAT_EVENT_TRIGGERS] = "event_triggers",
	[FEAT_HIST_TRIGGERS] = "hist_triggers",
	[FEAT_FUNCTION_PROFILER] = "function_profiler",
};

const char *feature__name(enum feature_id id)
{
	if ((int)id < 0 || id >= FEAT__COUNT)
		return NULL;
	return feature_names[id];
}

int feature__from_name(const char *name)
{
	int i;

	for (i = 0; i < FEAT__COUNT; i++)
		if (strcmp(feature_names[i], name) == 0)
			return i;
	return -ENOENT;
}

/* ---- FAULTLINE_MASK ---- */

void feature_mask__free(struct feature_mask *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->ntps; i++) {
		free(m->tps[i].system);
		free(m->tps[i].event);
	}
	free(m->tps);
	free(m);
}

/* A tracepoint system or event name as tracefs spells directories: no
 * slash, not empty, not "." or "..", so it can never escape events/. */
static bool valid_tp_name(const char *s)
{
	return s && s[0] && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

static int mask_add_item(struct feature_mask *m, char *item, struct errbuf *eb)
{
	struct tp_mask *tps;
	char *colon, *system = NULL, *event = NULL;
	int id;

	colon = strchr(item, ':');
	if (!colon) {
		id = feature__from_name(item);
		if (id < 0)
			return errbuf__set(eb, -EINVAL, "unknown feature '%s' in FAULTLINE_MASK", item);
		m->feat[id] = true;
		return 0;
	}
	*colon = '\0';
	if (!valid_tp_name(item) || !valid_tp_name(colon + 1) || strchr(colon + 1, ':')) {
		*colon = ':';
		return errbuf__set(eb, -EINVAL,
				   "bad tracepoint '%s' in FAULTLINE_MASK (want system:event or system:*)",
				   item);
	}
	system = strdup(item);
	if (strcmp(colon + 1, "*") != 0)
		event = strdup(colon + 1);
	if (!system || (strcmp(colon + 1, "*") != 0 && !event))
		goto nomem;
	tps = realloc(m->tps, (m->ntps + 1) * sizeof(*tps));
	if (!tps)
		goto nomem;
	m->tps = tps;
	m->tps[m->ntps].system = system;
	m->tps[m->ntps].event = event;
	m->ntps++;
	return 0;
nomem:
	free(system);
	free(event);
	return errbuf__set(eb, -ENOMEM, "out of memory parsing FAULTLINE_MASK");
}

int feature_mask__parse(const char *spec, struct feature_mask **out, struct errbuf *eb)
{
	struct feature_mask *m = NULL;
	char *copy = NULL, *item, *save = NULL, *end;
	int err = 0;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m) {
		err = errbuf__set(eb, -ENOMEM, "out of memory parsing FAULTLINE_MASK");
		goto out;
	}
	if (spec) {
		copy = strdup(spec);
		if (!copy) {
			err = errbuf__set(eb, -ENOMEM, "out of memory parsing FAULTLINE_MASK");
			goto out;
		}
		for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
			while (isspace((unsigned char)*item))
				item++;
			end = item + strlen(item);
			while (end > item && isspace((unsigned char)end[-1]))
				*--end = '\0';
			if (!*item)	/* "a,,b" or a trailing comma: harmless */
				continue;
			err = mask_add_item(m, item, eb);
			if (err)
				goto out;
		}
	}
	*out = m;
	m = NULL;
out:
	free(copy);
	feature_mask__free(m);
	return err;
}

bool feature_mask__has_feature(const struct feature_mask *m, enum feature_id id)
{
	return m && (int)id >= 0 && id < FEAT__COUNT && m->feat[id];
}

bool feature_mask__has_tracepoint(const struct feature_mask *m, const char *system, const char *event)
{
	size_t i;

	if (!m || !system)
		return false;
	for (i = 0; i < m->ntps; i++) {
		if (strcmp(m->tps[i].system, system) != 0)
			continue;
		if (!m->tps[i].event || (event && strcmp(m->tps[i].event, event) == 0))
			return true;
	}
	return false;
}

/* ---- small file helpers ---- */

/* 0 when dir/rel exists, else -errno; rel may be NULL. */
static int path_stat(const char *dir, const char *rel, struct stat *st)
{
	char path[PATH_MAX];
	struct stat tmp;
	int len;

	if (rel)
		len = snprintf(path, sizeof(path), "%s/%s", dir, rel);
	else
		len = snprintf(path, sizeof(path), "%s", dir);
	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	if (stat(path, st ? st : &tmp) < 0)
		return -errno;
	return 0;
}

static bool is_dir(const char *dir, const char *rel)
{
	struct stat st;

	return path_stat(dir, rel, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Read dir/rel (rel may be NULL) into a new NUL-terminated buffer, at most
 * max bytes: the files we read (README, sysctls, status) are small, and a
 * bound keeps a fixture or a strange file from costing memory.
 */
static int read_text(const char *dir, const char *rel, size_t max, char **out)
{
	char path[PATH_MAX];
	int plen;

	*out = NULL;
	if (rel)
		plen = snprintf(path, sizeof(path), "%s/%s", dir, rel);
	else
		plen = snprintf(path, sizeof(path), "%s", dir);
	if (plen < 0 || (size_t)plen >= sizeof(path))
		return -ENAMETOOLONG;
	return read_file(path, max, out, NULL);
}

/* Parse a decimal int file (sysctl, PMU type); -errno or -EINVAL. */
static int read_int(const char *dir, const char *rel, int *val)
{
	char *text = NULL, *end;
	long v;
	int err;

	err = read_text(dir, rel, 64, &text);
	if (err)
		goto out;
	errno = 0;
	v = strtol(text, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || end == text || *end || v < INT_MIN || v > INT_MAX) {
		err = -EINVAL;
		goto out;
	}
	*val = (int)v;
out:
	free(text);
	return err;
}

/* ---- locating the live tracing dir ---- */

/* /proc/mounts escapes blanks and backslashes as \ooo. */
static void unescape_mount_path(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

static int copy_path(char *out, size_t n, const char *a, const char *b, struct errbuf *eb)
{
	int len = b ? snprintf(out, n, "%s/%s", a, b) : snprintf(out, n, "%s", a);

	if (len < 0 || (size_t)len >= n)
		return errbuf__set(eb, -ENAMETOOLONG, "tracing dir path '%s' is too long", a);
	return 0;
}

int features__locate_tracefs(const char *procfs, bool mount_if_absent, char *out, size_t n,
			     bool *mounted, struct errbuf *eb)
{
	char path[PATH_MAX];
	char tracefs_mnt[PATH_MAX] = "", debugfs_mnt[PATH_MAX] = "";
	char *line = NULL, *save, *dev, *mnt, *type;
	size_t cap = 0;
	FILE *fp = NULL;
	bool mounted_debugfs = false;
	int err = 0, mount_err;

	if (mounted)
		*mounted = false;
	if (!procfs)
		procfs = "/proc";
	if (snprintf(path, sizeof(path), "%s/mounts", procfs) >= (int)sizeof(path))
		return errbuf__set(eb, -ENAMETOOLONG, "procfs path '%s' is too long", procfs);

	/* A missing mounts file (odd container) only means we guess paths. */
	fp = fopen(path, "re");
	while (fp && getline(&line, &cap, fp) > 0) {
		dev = strtok_r(line, " \t\n", &save);
		mnt = dev ? strtok_r(NULL, " \t\n", &save) : NULL;
		type = mnt ? strtok_r(NULL, " \t\n", &save) : NULL;
		if (!type)
			continue;
		unescape_mount_path(mnt);
		if (strlen(mnt) >= sizeof(tracefs_mnt))
			continue;
		/* A listed mount whose path is gone (hidden under another
		 * mount) is no mount at all. */
		if (strcmp(type, "tracefs") == 0 && access(mnt, F_OK) == 0) {
			strcpy(tracefs_mnt, mnt);
			break;
		}
		if (strcmp(type, "debugfs") == 0 && !debugfs_mnt[0])
			strcpy(debugfs_mnt, mnt);
	}

	/* A listed tracefs mount is taken even if events/ cannot be stat'ed:
	 * tracefs is 0700, and an unprivileged caller should hear "permission
	 * denied" from the probe, not "not mounted". */
	if (tracefs_mnt[0]) {
		err = copy_path(out, n, tracefs_mnt, NULL, eb);
		goto out;
	}
	if (is_dir("/sys/kernel/tracing", "events")) {
		err = copy_path(out, n, "/sys/kernel/tracing", NULL, eb);
		goto out;
	}
	if (is_dir("/sys/kernel/debug/tracing", "events")) {
		err = copy_path(out, n, "/sys/kernel/debug/tracing", NULL, eb);
		goto out;
	}
	if (debugfs_mnt[0] && snprintf(path, sizeof(path), "%s/tracing", debugfs_mnt) < (int)sizeof(path) &&
	    is_dir(path, "events")) {
		err = copy_path(out, n, path, NULL, eb);
		goto out;
	}
	if (!mount_if_absent) {
		err = errbuf__set(eb, -ENOENT, "tracefs is not mounted; " MOUNT_HINT);
		goto out;
	}

	/* 4.1+ has tracefs of its own; older kernels (RHEL 7) only have the
	 * tracing dir inside debugfs. */
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0) {
		if (mounted)
			*mounted = true;
		err = copy_path(out, n, "/sys/kernel/tracing", NULL, eb);
		goto out;
	}
	mount_err = errno;
	if (mount("nodev", "/sys/kernel/debug", "debugfs", 0, NULL) == 0)
		mounted_debugfs = true;
	if (is_dir("/sys/kernel/debug/tracing", "events")) {
		if (mounted)
			*mounted = mounted_debugfs;
		err = copy_path(out, n, "/sys/kernel/debug/tracing", NULL, eb);
		goto out;
	}
	if (mounted_debugfs)	/* it did not give us tracing: leave no trace */
		umount("/sys/kernel/debug");
	err = errbuf__set(eb, -ENOENT, "tracefs is not mounted and could not be mounted: %s; " MOUNT_HINT,
			  strerror(mount_err));
out:
	free(line);
	if (fp)
		fclose(fp);
	return err;
}

/* ---- probing ---- */

static void set(struct features *f, enum feature_id id, bool has, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set(struct features *f, enum feature_id id, bool has, const char *fmt, ...)
{
	va_list ap;

	f->has[id] = has;
	va_start(ap, fmt);
	vsnprintf(f->why[id], WHY_LEN, fmt, ap);
	va_end(ap);
}

/*
 * Decide the cheap cases before probing @id: masked, or a feature it
 * builds on is absent.  Returns true when @id is settled.
 */
static bool settled(struct features *f, enum feature_id id, int dep)
{
	if (feature_mask__has_feature(f->mask, id)) {
		set(f, id, false, MASKED);
		return true;
	}
	if (dep >= 0 && !f->has[dep]) {
		set(f, id, false, "needs %s: %s", feature_names[dep], f->why[dep]);
		return true;
	}
	return false;
}

/* A file in the tracing dir decides the feature. */
static void probe_tracing_file(struct features *f, enum feature_id id, int dep, const char *file)
{
	int err;

	if (settled(f, id, dep))
		return;
	err = path_stat(f->tracing, file, NULL);
	if (err == 0)
		set(f, id, true, "%s in %s", file, f->tracing);
	else if (err == -ENOENT)
		set(f, id, false, "no %s in %s", file, f->tracing);
	else
		set(f, id, false, "cannot access %s/%s: %s", f->tracing, file, strerror(-err));
}

/*
 * Find any events/<sys>/<ev>/<name>: per-event control files (filter,
 * trigger, hist) appear for every event when the facility is built in, so
 * the first hit settles it.  Writes "events/<sys>/<ev>/<name>" into rel.
 */
static int find_event_file(const char *tracing, const char *name, char *rel, size_t n)
{
	char events_dir[PATH_MAX], sys_dir[PATH_MAX];
	DIR *events = NULL, *sys = NULL;
	struct dirent *de, *ev;
	int err = -ENOENT;

	if (snprintf(events_dir, sizeof(events_dir), "%s/events", tracing) >= (int)sizeof(events_dir))
		return -ENAMETOOLONG;
	events = opendir(events_dir);
	if (!events)
		return -errno;
	while (err == -ENOENT && (de = readdir(events))) {
		if (de->d_name[0] == '.' || !is_dir(events_dir, de->d_name))
			continue;
		if (snprintf(sys_dir, sizeof(sys_dir), "%s/%s", events_dir, de->d_name) >= (int)sizeof(sys_dir))
			continue;
		sys = opendir(sys_dir);
		while (sys && (ev = readdir(sys))) {
			if (ev->d_name[0] == '.')
				continue;
			if (snprintf(rel, n, "events/%s/%s/%s", de->d_name, ev->d_name, name) >= (int)n)
				continue;
			if (path_stat(tracing, rel, NULL) == 0) {
				err = 0;
				break;
			}
		}
		if (sys)
			closedir(sys);
		sys = NULL;
	}
	closedir(events);
	return err;
}

static void probe_event_file(struct features *f, enum feature_id id, int dep, const char *name)
{
	char rel[PATH_MAX];
	int err;

	if (settled(f, id, dep))
		return;
	err = find_event_file(f->tracing, name, rel, sizeof(rel));
	if (err == 0)
		set(f, id, true, "%s in %s", rel, f->tracing);
	else if (err == -ENOENT)
		set(f, id, false, "no events/*/*/%s in %s", name, f->tracing);
	else
		set(f, id, false, "cannot read %s/events: %s", f->tracing, strerror(-err));
}

static void probe_lockdown(struct features *f)
{
	char *text = NULL, *open_b, *close_b;
	int err;

	err = read_text(f->sysfs, "kernel/security/lockdown", 256, &text);
	if (err == -ENOENT) {
		strcpy(f->lockdown, "absent");
		goto out;
	}
	/* "none integrity [confidentiality]": the bracketed word is in force. */
	open_b = text ? strchr(text, '[') : NULL;
	close_b = open_b ? strchr(open_b, ']') : NULL;
	if (err || !close_b || (size_t)(close_b - open_b - 1) >= sizeof(f->lockdown)) {
		strcpy(f->lockdown, "unknown");
		goto out;
	}
	memcpy(f->lockdown, open_b + 1, (size_t)(close_b - open_b - 1));
	f->lockdown[close_b - open_b - 1] = '\0';
out:
	free(text);
}

static void probe_privileges(struct features *f, bool live)
{
	char *text = NULL, *line, *save = NULL;
	unsigned long long capeff = 0;
	unsigned int ruid, euid;
	bool have_uid = false;

	if (read_text(f->procfs, "self/status", 16384, &text) == 0) {
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2) {
				have_uid = true;
				f->root = euid == 0;
			} else if (sscanf(line, "CapEff: %llx", &capeff) == 1) {
				f->cap_sys_admin = capeff >> CAP_SYS_ADMIN_BIT & 1;
				f->cap_perfmon = capeff >> CAP_PERFMON_BIT & 1;
			}
		}
	}
	/* No status to read on the live system: our own euid still tells. */
	if (!have_uid && live)
		f->root = geteuid() == 0;
	free(text);
}

static void probe_pmu(struct features *f, enum feature_id id, const char *pmu, int *type)
{
	char rel[64];
	int err;

	*type = -1;
	if (settled(f, id, -1))
		return;
	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/type", pmu);
	err = read_int(f->sysfs, rel, type);
	if (err) {
		*type = -1;
		if (err == -ENOENT)
			set(f, id, false, "no %s/%s", f->sysfs, rel);
		else
			set(f, id, false, "cannot read %s/%s: %s", f->sysfs, rel, strerror(-err));
		return;
	}
	if (id == FEAT_KPROBE_PMU && strcmp(f->lockdown, "confidentiality") == 0) {
		/* The PMU is registered, but trace_kprobe refuses to create
		 * kprobes under LOCKDOWN_KPROBES. */
		*type = -1;
		set(f, id, false, "kprobe creation is blocked under lockdown [confidentiality]");
		return;
	}
	set(f, id, true, "perf type %d in %s/%s", *type, f->sysfs, rel);
}

static void probe_tracefs(struct features *f, const struct fl_roots *roots)
{
	struct errbuf eb = { "" };
	int err;

	if (roots && roots->tracefs) {
		if (snprintf(f->tracing, sizeof(f->tracing), "%s", roots->tracefs) >= (int)sizeof(f->tracing)) {
			f->tracing[0] = '\0';
			set(f, FEAT_TRACEFS, false, "tracing dir path is too long");
			return;
		}
	} else if (!feature_mask__has_feature(f->mask, FEAT_TRACEFS)) {
		/* Masked means "pretend there is none": do not mount either. */
		err = features__locate_tracefs(f->procfs, true, f->tracing, sizeof(f->tracing),
					       &f->mounted, &eb);
		if (err) {
			f->tracing[0] = '\0';
			set(f, FEAT_TRACEFS, false, "%s", errbuf__str(&eb, err));
			return;
		}
	}
	if (settled(f, FEAT_TRACEFS, -1))
		return;
	if (strcmp(f->lockdown, "confidentiality") == 0) {
		set(f, FEAT_TRACEFS, false, "tracefs is unusable under lockdown [confidentiality]");
		return;
	}
	err = path_stat(f->tracing, NULL, NULL);
	if (err == -ENOENT) {
		set(f, FEAT_TRACEFS, false, "no tracing dir at %s", f->tracing);
		return;
	}
	if (err == 0)
		err = path_stat(f->tracing, "events", NULL);
	if (err == -EACCES)	/* tracefs is 0700: only root gets in */
		set(f, FEAT_TRACEFS, false, "cannot read %s: %s (tracefs is root-only)", f->tracing,
		    strerror(-err));
	else if (err == -ENOENT)
		set(f, FEAT_TRACEFS, false, "no events/ in %s", f->tracing);
	else if (err)
		set(f, FEAT_TRACEFS, false, "cannot access %s: %s", f->tracing, strerror(-err));
	else if (f->mounted)
		set(f, FEAT_TRACEFS, true, "tracing dir at %s (mounted by faultline)", f->tracing);
	else
		set(f, FEAT_TRACEFS, true, "tracing dir at %s", f->tracing);
}

/* uretprobes have come with uprobe_events since 3.10 (RHEL 7 too); a
 * README whose uprobe syntax omits them is the only evidence against. */
static void probe_uretprobes(struct features *f, const char *readme)
{
	static const char *const tokens[] = { "uretprobe", "r[maxactive]", "%return" };
	size_t i;

	if (settled(f, FEAT_URETPROBES, FEAT_UPROBES))
		return;
	if (!readme) {
		set(f, FEAT_URETPROBES, true, "no README in %s: assumed with uprobes", f->tracing);
		return;
	}
	for (i = 0; i < sizeof(tokens) / sizeof(tokens[0]); i++) {
		if (strcasestr(readme, tokens[i])) {
			set(f, FEAT_URETPROBES, true, "README in %s documents \"%s\"", f->tracing, tokens[i]);
			return;
		}
	}
	if (strcasestr(readme, "place (uprobe)"))
		set(f, FEAT_URETPROBES, false, "README in %s: uprobe syntax has no return probes",
		    f->tracing);
	else
		set(f, FEAT_URETPROBES, true, "README in %s has no uprobe syntax: assumed with uprobes",
		    f->tracing);
}

static void probe_uprobe_ref_ctr(struct features *f, const char *readme)
{
	if (settled(f, FEAT_UPROBE_REF_CTR, FEAT_UPROBES))
		return;
	if (!readme)
		set(f, FEAT_UPROBE_REF_CTR, false, "no README in %s to tell", f->tracing);
	else if (strstr(readme, "ref_ctr_offset"))
		set(f, FEAT_UPROBE_REF_CTR, true, "README in %s documents (ref_ctr_offset)", f->tracing);
	else
		set(f, FEAT_UPROBE_REF_CTR, false, "README in %s does not document (ref_ctr_offset)",
		    f->tracing);
}

static void probe_function_tracer(struct features *f)
{
	char *text = NULL, *tok, *save = NULL;
	int err;

	if (settled(f, FEAT_FUNCTION_TRACER, FEAT_TRACEFS))
		return;
	err = read_text(f->tracing, "available_tracers", 4096, &text);
	if (err == -ENOENT) {
		set(f, FEAT_FUNCTION_TRACER, false, "no available_tracers in %s", f->tracing);
		goto out;
	}
	if (err) {
		set(f, FEAT_FUNCTION_TRACER, false, "cannot read %s/available_tracers: %s", f->tracing,
		    strerror(-err));
		goto out;
	}
	/* Whole words: "function_graph" alone is not the function tracer. */
	for (tok = strtok_r(text, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (strcmp(tok, "function") == 0) {
			char *funcs = NULL;

			/* Listed is not usable: a kernel can name the tracer yet
			 * refuse its function list (as this project's own test
			 * machine does, EPERM).  A tree without the file (fixtures,
			 * old kernels) keeps the listing's word. */
			err = read_text(f->tracing, "available_filter_functions", 64, &funcs);
			free(funcs);
			if (err && err != -ENOENT)
				set(f, FEAT_FUNCTION_TRACER, false,
				    "\"function\" listed but %s/available_filter_functions: %s",
				    f->tracing, strerror(-err));
			else
				set(f, FEAT_FUNCTION_TRACER, true, "\"function\" in %s/available_tracers",
				    f->tracing);
			goto out;
		}
	}
	set(f, FEAT_FUNCTION_TRACER, false, "no \"function\" in %s/available_tracers", f->tracing);
out:
	free(text);
}

static void probe_syscall_tracepoints(struct features *f)
{
	int err;

	if (feature_mask__has_tracepoint(f->mask, "syscalls", NULL)) {
		set(f, FEAT_SYSCALL_TRACEPOINTS, false, MASKED);
		return;
	}
	if (settled(f, FEAT_SYSCALL_TRACEPOINTS, FEAT_TRACEFS))
		return;
	err = path_stat(f->tracing, "events/syscalls", NULL);
	if (err == 0)
		set(f, FEAT_SYSCALL_TRACEPOINTS, true, "events/syscalls in %s", f->tracing);
	else if (err == -ENOENT)
		set(f, FEAT_SYSCALL_TRACEPOINTS, false, "no events/syscalls in %s", f->tracing);
	else
		set(f, FEAT_SYSCALL_TRACEPOINTS, false, "cannot access %s/events/syscalls: %s",
		    f->tracing, strerror(-err));
}

static void probe_event_filters(struct features *f)
{
	if (settled(f, FEAT_EVENT_FILTERS, FEAT_TRACEFS))
		return;
	if (path_stat(f->tracing, "events/header_page", NULL) == 0) {
		set(f, FEAT_EVENT_FILTERS, true, "events/header_page in %s", f->tracing);
		return;
	}
	probe_event_file(f, FEAT_EVENT_FILTERS, FEAT_TRACEFS, "filter");
}

static void probe_uprobe_pmu_ref_ctr(struct features *f)
{
	static const char rel[] = "bus/event_source/devices/uprobe/format/ref_ctr_offset";
	int err;

	if (settled(f, FEAT_UPROBE_PMU_REF_CTR, FEAT_UPROBE_PMU))
		return;
	err = path_stat(f->sysfs, rel, NULL);
	if (err == 0)
		set(f, FEAT_UPROBE_PMU_REF_CTR, true, "%s/%s", f->sysfs, rel);
	else
		set(f, FEAT_UPROBE_PMU_REF_CTR, false, "no %s/%s", f->sysfs, rel);
}

int features__probe(const struct fl_roots *roots, struct features **out, struct errbuf *eb)
{
	struct features *f = NULL;
	char *readme = NULL;
	const char *sysfs, *procfs;
	int err;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f) {
		err = errbuf__set(eb, -ENOMEM, "out of memory probing kernel features");
		goto out;
	}
	f->paranoid = INT_MIN;
	f->uprobe_pmu_type = -1;
	f->kprobe_pmu_type = -1;
	f->ksyms = calloc(1, sizeof(*f->ksyms));
	err = feature_mask__parse(getenv("FAULTLINE_MASK"), &f->mask, eb);
	if (err)
		goto out;

	sysfs = roots && roots->sysfs ? roots->sysfs : "/sys";
	procfs = roots && roots->procfs ? roots->procfs : "/proc";
	if (snprintf(f->sysfs, sizeof(f->sysfs), "%s", sysfs) >= (int)sizeof(f->sysfs) ||
	    snprintf(f->procfs, sizeof(f->procfs), "%s", procfs) >= (int)sizeof(f->procfs)) {
		err = errbuf__set(eb, -ENAMETOOLONG, "sysfs or procfs root path is too long");
		goto out;
	}

	/* Order matters: lockdown decides tracefs and the kprobe PMU, and
	 * every tracefs-based feature depends on FEAT_TRACEFS. */
	probe_lockdown(f);
	probe_privileges(f, !(roots && roots->procfs));
	if (!settled(f, FEAT_PERF_EVENTS, -1)) {
		err = read_int(f->procfs, "sys/kernel/perf_event_paranoid", &f->paranoid);
		if (err) {
			f->paranoid = INT_MIN;
			set(f, FEAT_PERF_EVENTS, false, "cannot read %s/sys/kernel/perf_event_paranoid: %s",
			    f->procfs, strerror(-err));
		} else {
			set(f, FEAT_PERF_EVENTS, true, "perf_event_paranoid is %d", f->paranoid);
		}
	} else {
		/* Masked, but the level is still worth showing. */
		if (read_int(f->procfs, "sys/kernel/perf_event_paranoid", &f->paranoid))
			f->paranoid = INT_MIN;
	}
	err = 0;

	probe_tracefs(f, roots);
	if (f->has[FEAT_TRACEFS] && read_text(f->tracing, "README", 1 << 20, &readme))
		readme = NULL;

	probe_tracing_file(f, FEAT_UPROBES, FEAT_TRACEFS, "uprobe_events");
	probe_uretprobes(f, readme);
	probe_tracing_file(f, FEAT_KPROBES, FEAT_TRACEFS, "kprobe_events");
	if (!settled(f, FEAT_KRETPROBES, FEAT_KPROBES))	/* "r" probes are as old as kprobe_events */
		set(f, FEAT_KRETPROBES, true, "with kprobe_events in %s", f->tracing);
	probe_tracing_file(f, FEAT_DYNAMIC_EVENTS, FEAT_TRACEFS, "dynamic_events");
	probe_pmu(f, FEAT_UPROBE_PMU, "uprobe", &f->uprobe_pmu_type);
	probe_pmu(f, FEAT_KPROBE_PMU, "kprobe", &f->kprobe_pmu_type);
	probe_syscall_tracepoints(f);
	probe_event_filters(f);
	probe_function_tracer(f);
	probe_tracing_file(f, FEAT_ERROR_LOG, FEAT_TRACEFS, "error_log");
	probe_uprobe_ref_ctr(f, readme);
	probe_uprobe_pmu_ref_ctr(f);
	probe_event_file(f, FEAT_EVENT_TRIGGERS, FEAT_TRACEFS, "trigger");
	probe_event_file(f, FEAT_HIST_TRIGGERS, FEAT_EVENT_TRIGGERS, "hist");
	probe_tracing_file(f, FEAT_FUNCTION_PROFILER, FEAT_TRACEFS, "function_profile_enabled");

	*out = f;
	f = NULL;
out:
	free(readme);
	features__free(f);
	return err;
}

void features__free(struct features *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nrecorded; i++)
		free(f->recorded[i]);
	free(f->recorded);
	if (f->ksyms)
		hashmap__free(f->ksyms->names);
	free(f->ksyms);
	feature_mask__free(f->mask);
	free(f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool recorded(const struct features *f, const char *prefix, const char *a, const char *b)
{
	char key[512], *kp = key;

	snprintf(key, sizeof(key), "%s%s%s%s", prefix, a, b ? ":" : "", b ? b : "");
	return f->nrecorded &&
	       bsearch(&kp, f->recorded, f->nrecorded, sizeof(*f->recorded), cmp_str) != NULL;
}

int features__recorded(const char *const *names, size_t n, struct features **out,
		       struct errbuf *eb)
{
	struct features *f = calloc(1, sizeof(*f));
	bool uprobes = false, kprobes = false, syscalls = false;
	int err;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->paranoid = INT_MIN;
	f->uprobe_pmu_type = -1;
	f->kprobe_pmu_type = -1;
	err = feature_mask__parse(getenv("FAULTLINE_MASK"), &f->mask, eb);
	if (!err && n && !(f->recorded = calloc(n, sizeof(*f->recorded))))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < n; i++) {
		if (!(f->recorded[i] = strdup(names[i])))
			err = -ENOMEM;
		f->nrecorded = i + 1;
		uprobes |= !strncmp(names[i], "uprobe:", 7);
		kprobes |= !strncmp(names[i], "kfunc:", 6);
		syscalls |= !strncmp(names[i], "syscalls:", 9);
	}
	if (err) {
		features__free(f);
		return err;
	}
	if (f->nrecorded)
		qsort(f->recorded, f->nrecorded, sizeof(*f->recorded), cmp_str);
	f->has[FEAT_TRACEFS] = f->has[FEAT_PERF_EVENTS] = f->has[FEAT_EVENT_FILTERS] = true;
	f->has[FEAT_UPROBES] = f->has[FEAT_URETPROBES] = uprobes;
	f->has[FEAT_KPROBES] = f->has[FEAT_KRETPROBES] = kprobes;
	f->has[FEAT_SYSCALL_TRACEPOINTS] = syscalls;
	for (int i = 0; i < FEAT__COUNT; i++) {
		snprintf(f->why[i], WHY_LEN, "%s the recording", f->has[i] ? "in" : "not in");
		if (f->has[i] && feature_mask__has_feature(f->mask, (enum feature_id)i)) {
			f->has[i] = false;
			snprintf(f->why[i], WHY_LEN, MASKED);
		}
	}
	f->root = true;
	*out = f;
	return 0;
}

bool features__has(const struct features *f, enum feature_id id)
{
	return f && (int)id >= 0 && id < FEAT__COUNT && f->has[id];
}

const char *features__why(const struct features *f, enum feature_id id)
{
	if (!f || (int)id < 0 || id >= FEAT__COUNT)
		return "";
	return f->why[id];
}

bool features__tracepoint_why(const struct features *f, const char *system, const char *event,
			      char *why, size_t n)
{
	char rel[PATH_MAX];
	char dummy[1];
	int err;

	if (!why || !n) {
		why = dummy;
		n = sizeof(dummy);
	}
	why[0] = '\0';
	if (!valid_tp_name(system) || !valid_tp_name(event)) {
		snprintf(why, n, "invalid tracepoint name");
		return false;
	}
	if (!f->has[FEAT_TRACEFS]) {
		snprintf(why, n, "needs tracefs: %s", f->why[FEAT_TRACEFS]);
		return false;
	}
	if (feature_mask__has_tracepoint(f->mask, system, event) ||
	    (strcmp(system, "syscalls") == 0 &&
	     feature_mask__has_feature(f->mask, FEAT_SYSCALL_TRACEPOINTS))) {
		snprintf(why, n, MASKED);
		return false;
	}
	if (!f->tracing[0]) {	/* a recording: the events it holds */
		if (recorded(f, "", system, event))
			return true;
		snprintf(why, n, "not in the recording");
		return false;
	}
	snprintf(rel, sizeof(rel), "events/%s", system);
	err = path_stat(f->tracing, rel, NULL);
	if (err) {
		snprintf(why, n, "%s %s in %s", err == -ENOENT ? "no" : "cannot access", rel, f->tracing);
		return false;
	}
	if (snprintf(rel, sizeof(rel), "events/%s/%s/format", system, event) >= (int)sizeof(rel)) {
		snprintf(why, n, "invalid tracepoint name");
		return false;
	}
	err = path_stat(f->tracing, rel, NULL);
	if (err) {
		snprintf(why, n, "%s %s in %s", err == -ENOENT ? "no" : "cannot access", rel, f->tracing);
		return false;
	}
	return true;
}

bool features__has_tracepoint(const struct features *f, const char *system, const char *event)
{
	return features__tracepoint_why(f, system, event, NULL, 0);
}

/* Reads kallsyms' text symbols ("addr type name [module]": module
 * symbols count too) into @k once. */
static void ksyms__load(struct ksyms *k, const char *path)
{
	char line[512], name[256], type;
	FILE *fp;

	k->loaded = true;
	k->names = hashmap__new();
	if (!k->names) {
		k->err = ENOMEM;
		return;
	}
	fp = fopen(path, "re");
	if (!fp) {
		k->err = errno;
		return;
	}
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%*s %c %255s", &type, name) == 2 && (type == 'T' || type == 't') &&
		    hashmap__set(k->names, hash_bytes(name, strlen(name)), 1)) {
			k->err = ENOMEM;
			break;
		}
	}
	fclose(fp);
}

bool features__kfunc_why(const struct features *f, const char *func, char *why, size_t n)
{
	char path[PATH_MAX];
	char dummy[1];

	if (!why || !n) {
		why = dummy;
		n = sizeof(dummy);
	}
	why[0] = '\0';
	if (!f->has[FEAT_KPROBES]) {
		snprintf(why, n, "needs kprobes: %s", f->why[FEAT_KPROBES]);
		return false;
	}
	if (!f->tracing[0]) {	/* a recording: the functions it probed */
		if (recorded(f, "kfunc:", func, NULL))
			return true;
		snprintf(why, n, "no kprobe on %s in the recording", func);
		return false;
	}
	if (snprintf(path, sizeof(path), "%s/kallsyms", f->procfs) >= (int)sizeof(path)) {
		snprintf(why, n, "procfs path too long");
		return false;
	}
	if (!f->ksyms) {
		snprintf(why, n, "out of memory");
		return false;
	}
	if (!f->ksyms->loaded)
		ksyms__load(f->ksyms, path);
	if (f->ksyms->err) {
		snprintf(why, n, "cannot read %s: %s", path, strerror(f->ksyms->err));
		return false;
	}
	if (hashmap__get(f->ksyms->names, hash_bytes(func, strlen(func)), NULL))
		return true;
	snprintf(why, n, "no %s in %s", func, path);
	return false;
}

int features__paranoid(const struct features *f)
{
	return f->paranoid;
}

const char *features__lockdown(const struct features *f)
{
	return f->lockdown;
}

bool features__privileged(const struct features *f)
{
	return f->root || f->cap_sys_admin;
}

bool features__is_root(const struct features *f)
{
	return f->root;
}

bool features__cap_sys_admin(const struct features *f)
{
	return f->cap_sys_admin;
}

bool features__cap_perfmon(const struct features *f)
{
	return f->cap_perfmon;
}

const char *features__tracefs_dir(const struct features *f)
{
	return f->tracing;
}

const char *features__procfs_dir(const struct features *f)
{
	return f->procfs;
}

const char *features__sysfs_dir(const struct features *f)
{
	return f->sysfs;
}

bool features__mounted_tracefs(const struct features *f)
{
	return f->mounted;
}

int features__uprobe_pmu_type(const struct features *f)
{
	return f->has[FEAT_UPROBE_PMU] ? f->uprobe_pmu_type : -1;
}

int features__kprobe_pmu_type(const struct features *f)
{
	return f->has[FEAT_KPROBE_PMU] ? f->kprobe_pmu_type : -1;
}
