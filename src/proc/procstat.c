/*
 * procstat: /proc/vmstat, /proc/meminfo, PSI files and cgroup mounts (see
 * procstat.h).  Each file is a few KiB: it is read whole and scanned once
 * per lookup set, so one sample of every indicator is three reads (four
 * with a cgroup), about 30 us here.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/file.h"
#include "proc/procstat.h"

/* Whether counter @name (length @len) is what pattern @pat names. */
static int matches(const char *pat, const char *name, size_t len)
{
	size_t plen = strlen(pat);

	if (plen && pat[plen - 1] == '*')
		return len >= plen - 1 && strncmp(name, pat, plen - 1) == 0;
	return len == plen && strncmp(name, pat, len) == 0;
}

void vmstat__parse(const char *text, const char *const *names, uint64_t *vals)
{
	const char *line = text, *sp, *eol;
	size_t i;

	for (i = 0; names[i]; i++)
		vals[i] = VMSTAT_ABSENT;
	for (; line && *line; line = eol ? eol + 1 : NULL) {
		unsigned long long v;
		char *end;

		eol = strchr(line, '\n');
		sp = strchr(line, ' ');
		if (!sp || sp == line || (eol && sp > eol))
			continue;
		errno = 0;
		v = strtoull(sp + 1, &end, 10);
		if (errno || end == sp + 1 || (*end != '\n' && *end != '\0'))
			continue;
		for (i = 0; names[i]; i++) {
			if (!matches(names[i], line, (size_t)(sp - line)))
				continue;
			vals[i] = (vals[i] == VMSTAT_ABSENT ? 0 : vals[i]) + v;
		}
	}
}

/* <@procfs>/<@rel>, whole, into *@text (the caller frees it). */
static int read_proc(const char *procfs, const char *rel, char **text, struct errbuf *eb)
{
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/%s", procfs ? procfs : "/proc", rel);
	err = read_file(path, 1 << 20, text, NULL);
	if (err)
		return errbuf__set(eb, err, "cannot read '%s': %s", path, strerror(-err));
	return 0;
}

int vmstat__read(const char *procfs, const char *const *names, uint64_t *vals, struct errbuf *eb)
{
	char *text = NULL;
	int err = read_proc(procfs, "vmstat", &text, eb);

	if (!err)
		vmstat__parse(text, names, vals);
	free(text);
	return err;
}

uint64_t vmstat__delta(uint64_t now, uint64_t then)
{
	if (now == VMSTAT_ABSENT || then == VMSTAT_ABSENT || now < then)
		return 0;
	return now - then;
}

void meminfo__parse(const char *text, const char *const *names, uint64_t *vals)
{
	const char *line = text, *eol, *colon;
	size_t i;

	for (i = 0; names[i]; i++)
		vals[i] = PROCSTAT_ABSENT;
	for (; line && *line; line = eol ? eol + 1 : NULL) {
		unsigned long long v;
		const char *p;
		char *end;

		eol = strchr(line, '\n');
		colon = strchr(line, ':');
		if (!colon || colon == line || (eol && colon > eol))
			continue;
		for (p = colon + 1; *p == ' ' || *p == '\t'; p++)
			;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || end == p)
			continue;
		for (i = 0; names[i]; i++)
			if (strlen(names[i]) == (size_t)(colon - line) &&
			    !strncmp(names[i], line, (size_t)(colon - line)))
				vals[i] = v;
	}
}

int meminfo__read(const char *procfs, const char *const *names, uint64_t *vals, struct errbuf *eb)
{
	char *text = NULL;
	int err = read_proc(procfs, "meminfo", &text, eb);

	if (!err)
		meminfo__parse(text, names, vals);
	free(text);
	return err;
}

/* "avg10=0.12 avg60=0.00 avg300=0.00 total=123" after "some " or "full ". */
static bool psi_fields(const char *p, struct psi_line *l)
{
	unsigned long long total;

	if (sscanf(p, " avg10=%lf avg60=%lf avg300=%lf total=%llu", &l->avg10, &l->avg60,
		   &l->avg300, &total) != 4)
		return false;
	l->total_us = total;
	l->have = true;
	return true;
}

int psi__parse(const char *text, struct psi *out)
{
	const char *line = text;

	memset(out, 0, sizeof(*out));
	for (; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "some ", 5))
			psi_fields(line + 4, &out->some);
		else if (!strncmp(line, "full ", 5))
			psi_fields(line + 4, &out->full);
	}
	return out->some.have ? 0 : -ENOENT;
}

int psi__read(const char *path, struct psi *out, struct errbuf *eb)
{
	char *text = NULL;
	int err;

	err = read_file(path, 1 << 16, &text, NULL);
	if (err)
		return errbuf__set(eb, err, "cannot read '%s': %s", path, strerror(-err));
	err = psi__parse(text, out);
	free(text);
	if (err)
		return errbuf__set(eb, err, "'%s' has no \"some\" line", path);
	return 0;
}

/* "150ms" into microseconds; false when it does not parse. */
static bool parse_us(const char *s, size_t len, uint64_t *us)
{
	char buf[32], *end;
	double v, mul;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (errno || end == buf || v <= 0)
		return false;
	if (!strcmp(end, "us"))
		mul = 1;
	else if (!strcmp(end, "ms"))
		mul = 1e3;
	else if (!strcmp(end, "s") || !*end)
		mul = 1e6;
	else
		return false;
	if (v * mul > 1e12)
		return false;
	*us = (uint64_t)(v * mul + 0.5);
	return *us > 0;
}

int psi_trigger__parse(const char *spec, bool *full, uint64_t *stall_us, uint64_t *window_us,
		       struct errbuf *eb)
{
	const char *p = spec, *slash;

	if (!strncmp(p, "some", 4))
		*full = false;
	else if (!strncmp(p, "full", 4))
		*full = true;
	else
		return errbuf__set(eb, -EINVAL, "a trigger is 'some|full STALL/WINDOW' (\"some 150ms/1s\")");
	p += 4;
	while (*p == ' ' || *p == ':' || *p == '=')
		p++;
	slash = strchr(p, '/');
	if (!slash || !parse_us(p, (size_t)(slash - p), stall_us) ||
	    !parse_us(slash + 1, strlen(slash + 1), window_us))
		return errbuf__set(eb, -EINVAL, "a trigger is 'some|full STALL/WINDOW' (\"some 150ms/1s\")");
	/* The kernel's own limits (psi_trigger_create): 500 ms..10 s windows. */
	if (*window_us < 500000 || *window_us > 10000000)
		return errbuf__set(eb, -EINVAL, "the trigger's window must be 500ms to 10s");
	if (*stall_us >= *window_us)
		return errbuf__set(eb, -EINVAL, "the trigger's stall must be below its window");
	return 0;
}

int psi_trigger__open(const char *path, bool full, uint64_t stall_us, uint64_t window_us, int *fd,
		      struct errbuf *eb)
{
	char buf[64];
	int n, f, err;

	f = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (f < 0)
		return errbuf__set(eb, -errno, "cannot open '%s': %s", path, strerror(errno));
	n = snprintf(buf, sizeof(buf), "%s %" PRIu64 " %" PRIu64, full ? "full" : "some", stall_us,
		     window_us);
	/* The kernel wants the string with its NUL (psi.rst's example). */
	if (write(f, buf, (size_t)n + 1) < 0) {
		err = -errno;
		close(f);
		/* 6.5+ lets a task without CAP_SYS_RESOURCE set triggers, with
		 * windows in whole multiples of 2 s only (psi_trigger_create). */
		if (err == -EINVAL && window_us % 2000000)
			return errbuf__set(eb, err, "the kernel refused the trigger '%s' in '%s': "
					   "without CAP_SYS_RESOURCE its window must be a multiple "
					   "of 2s", buf, path);
		return errbuf__set(eb, err, "cannot set the trigger '%s' in '%s': %s", buf, path,
				   strerror(-err));
	}
	*fd = f;
	return 0;
}

void procstat__cgroup_mount(const char *procfs, const char *controller, char *out, size_t n)
{
	char path[4096], *buf = NULL, *line, *save = NULL;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/self/mounts", procfs ? procfs : "/proc");
	if (read_file(path, 1 << 20, &buf, NULL) != 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line && !out[0]; line = strtok_r(NULL, "\n", &save)) {
		char dev[256], mnt[4096], type[64], opts[1024], *o, *osave = NULL;

		if (sscanf(line, "%255s %4095s %63s %1023s", dev, mnt, type, opts) != 4)
			continue;
		if (!controller && !strcmp(type, "cgroup2"))
			snprintf(out, n, "%s", mnt);
		if (!controller || strcmp(type, "cgroup"))
			continue;
		for (o = strtok_r(opts, ",", &osave); o; o = strtok_r(NULL, ",", &osave))
			if (!strcmp(o, controller))
				snprintf(out, n, "%s", mnt);
	}
	free(buf);
}

int procstat__cgroup_pressure(const char *arg, char *dir, size_t ndir, char *pressure,
			      size_t npressure, struct errbuf *eb)
{
	char v2[4096];
	struct stat sb;
	int len;

	pressure[0] = '\0';
	if (stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		snprintf(dir, ndir, "%s", arg);
	} else {
		procstat__cgroup_mount(NULL, NULL, v2, sizeof(v2));
		len = snprintf(dir, ndir, "%s/%s", v2, arg);
		if (!v2[0] || len < 0 || (size_t)len >= ndir || stat(dir, &sb) != 0 ||
		    !S_ISDIR(sb.st_mode))
			return errbuf__set(eb, -ENOENT, "no cgroup '%s' (a directory, or a path below "
					   "the cgroup2 mount%s%s)", arg, v2[0] ? " " : "", v2);
	}
	len = snprintf(pressure, npressure, "%s/memory.pressure", dir);
	if (len < 0 || (size_t)len >= npressure || access(pressure, R_OK) != 0)
		pressure[0] = '\0';
	return 0;
}

void procstat__pid_cgroup_pressure(const char *procfs, int pid, char *out, size_t n)
{
	char path[4200], v2[4096], *buf = NULL, *line;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/%d/cgroup", procfs ? procfs : "/proc", pid);
	if (pid <= 0 || read_file(path, 65536, &buf, NULL))
		return;
	procstat__cgroup_mount(procfs, NULL, v2, sizeof(v2));
	for (line = buf; v2[0] && line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t len = strcspn(line, "\n");
		int w;

		if (strncmp(line, "0::/", 4) || len <= 4)
			continue;	/* not the v2 line, or the root group (no file) */
		w = snprintf(path, sizeof(path), "%s%.*s/memory.pressure", v2, (int)(len - 3), line + 3);
		if (w > 0 && (size_t)w < sizeof(path) && (size_t)w < n && access(path, R_OK) == 0)
			snprintf(out, n, "%s", path);
		break;
	}
	free(buf);
}

static const struct {
	const char *name, *source;
} inds[MI__COUNT] = {
	[MI_PSI_SOME_US] = { "psi_some_us", "/proc/pressure/memory some total" },
	[MI_PSI_FULL_US] = { "psi_full_us", "/proc/pressure/memory full total" },
	[MI_CG_SOME_US] = { "cg_some_us", "cgroup memory.pressure some total" },
	[MI_CG_FULL_US] = { "cg_full_us", "cgroup memory.pressure full total" },
	[MI_MEMAVAIL_KB] = { "memavailable_kb", "/proc/meminfo MemAvailable" },
	[MI_PGMAJFAULT] = { "major_faults", "/proc/vmstat pgmajfault" },
	[MI_PSWPIN] = { "pswpin", "/proc/vmstat pswpin" },
	[MI_PSWPOUT] = { "pswpout", "/proc/vmstat pswpout" },
	[MI_ALLOCSTALL] = { "allocstall", "/proc/vmstat allocstall*" },
	[MI_COMPACT_STALL] = { "compact_stall", "/proc/vmstat compact_stall" },
	[MI_OOM_KILL] = { "oom_kill", "/proc/vmstat oom_kill" },
};

const char *mem_ind__name(enum mem_ind i)
{
	return i < MI__COUNT ? inds[i].name : "?";
}

const char *mem_ind__source(enum mem_ind i)
{
	return i < MI__COUNT ? inds[i].source : "?";
}

bool mem_ind__gauge(enum mem_ind i)
{
	return i == MI_MEMAVAIL_KB;
}

static void take_psi(const char *path, struct mem_sample *out, enum mem_ind some)
{
	struct psi p;

	if (!path || psi__read(path, &p, NULL))
		return;
	out->v[some] = p.some.total_us;
	out->avg10[some - MI_PSI_SOME_US] = p.some.avg10;
	if (p.full.have) {
		out->v[some + 1] = p.full.total_us;
		out->avg10[some + 1 - MI_PSI_SOME_US] = p.full.avg10;
	}
}

int mem_sample__read(const char *procfs, const char *cg_pressure, unsigned int flags,
		     struct mem_sample *out, struct errbuf *eb)
{
	static const char *const vm_names[] = { "pgmajfault", "pswpin", "pswpout", "allocstall*",
						"compact_stall", "oom_kill", NULL };
	static const char *const mi_names[] = { "MemAvailable", NULL };
	char path[4096];
	uint64_t vm[6];
	int err, err2;

	for (size_t i = 0; i < MI__COUNT; i++)
		out->v[i] = PROCSTAT_ABSENT;
	for (size_t i = 0; i < 4; i++)
		out->avg10[i] = -1;
	out->time_ns = clock__ns(CLOCK_MONOTONIC);
	snprintf(path, sizeof(path), "%s/pressure/memory", procfs ? procfs : "/proc");
	if (!(flags & MEM_SAMPLE_NO_SYSTEM_PSI))
		take_psi(path, out, MI_PSI_SOME_US);
	take_psi(cg_pressure, out, MI_CG_SOME_US);
	err = meminfo__read(procfs, mi_names, &out->v[MI_MEMAVAIL_KB], eb);
	err2 = vmstat__read(procfs, vm_names, vm, eb);
	if (!err2)
		memcpy(&out->v[MI_PGMAJFAULT], vm, sizeof(vm));
	return err && err2 ? err2 : 0;
}
