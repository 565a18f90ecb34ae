/*
 * features: what the running kernel can do for us, found by probing files,
 * never by comparing version numbers (RHEL 7 is "3.10" yet has 4.17's perf
 * uprobe PMU; see /work/shared/KERNEL-COMPAT.md).
 *
 * Every probe reads below three roots (tracing dir, sysfs, procfs) so unit
 * tests can point them at fixture trees copied from kernels we do not have.
 * Each feature carries its evidence ("why") so `faultline features` can
 * show what was looked at.  FAULTLINE_MASK (comma list of feature names
 * and/or "system:event" / "system:*" tracepoints) makes items look absent,
 * so the lower rungs of every fallback ladder can be exercised for real on
 * a kernel that has everything.
 */
#ifndef FAULTLINE_FEATURES_H
#define FAULTLINE_FEATURES_H

/* The build names src/ and compat/ with -iquote, so this header never
 * shadows glibc's <features.h>. */
#include <stdbool.h>
#include <stddef.h>

#include "lib/errbuf.h"

/* Where to probe.  NULL members mean the live system. */
struct fl_roots {
	const char *tracefs;	/* tracing dir; NULL = locate (and mount if absent) live */
	const char *sysfs;	/* default "/sys" */
	const char *procfs;	/* default "/proc" */
};

/* Stable order: feature__name() and the `features` output follow it. */
enum feature_id {
	FEAT_TRACEFS,		/* a usable tracing dir (tracefs or debugfs/tracing) */
	FEAT_UPROBES,		/* <tracing>/uprobe_events */
	FEAT_URETPROBES,	/* "r" probes in uprobe_events */
	FEAT_KPROBES,		/* <tracing>/kprobe_events */
	FEAT_KRETPROBES,	/* "r" probes in kprobe_events */
	FEAT_DYNAMIC_EVENTS,	/* <tracing>/dynamic_events (5.0+) */
	FEAT_UPROBE_PMU,	/* perf "uprobe" PMU (4.17+, RHEL 7 backport) */
	FEAT_KPROBE_PMU,	/* perf "kprobe" PMU */
	FEAT_PERF_EVENTS,	/* perf_event_open exists (perf_event_paranoid sysctl) */
	FEAT_SYSCALL_TRACEPOINTS, /* <tracing>/events/syscalls */
	FEAT_EVENT_FILTERS,	/* event filter files */
	FEAT_FUNCTION_TRACER,	/* "function" in available_tracers */
	FEAT_ERROR_LOG,		/* <tracing>/error_log: the kernel says why a probe was refused */
	FEAT_UPROBE_REF_CTR,	/* "(ref_ctr_offset)" syntax of uprobe_events (USDT semaphores) */
	FEAT_UPROBE_PMU_REF_CTR, /* uprobe PMU format/ref_ctr_offset */
	FEAT_EVENT_TRIGGERS,	/* events/<sys>/<ev>/trigger */
	FEAT_HIST_TRIGGERS,	/* events/<sys>/<ev>/hist */
	FEAT_FUNCTION_PROFILER,	/* <tracing>/function_profile_enabled */
	FEAT__COUNT
};

struct features;

/**
 * features__locate_tracefs() - find (or mount) the live tracing directory
 * @procfs:          procfs root whose "mounts" is read; NULL means "/proc"
 * @mount_if_absent: mount tracefs (then debugfs) when no tracing dir is found
 * @out:             receives the directory path
 * @n:               size of @out
 * @mounted:         set to whether this call mounted something (may be NULL)
 * @eb:              detail on failure (may be NULL)
 *
 * Order: a tracefs mount listed in <procfs>/mounts, /sys/kernel/tracing if
 * it has events/, /sys/kernel/debug/tracing, a listed debugfs mount's
 * tracing/; then, if allowed, mount(2) tracefs on /sys/kernel/tracing and
 * after that debugfs on /sys/kernel/debug.  A mount made here is left in
 * place: the caller is about to use it.
 *
 * Return: 0, -ENOENT when nothing works, -ENAMETOOLONG if @out is short.
 */
int features__locate_tracefs(const char *procfs, bool mount_if_absent, char *out, size_t n,
			     bool *mounted, struct errbuf *eb);

/**
 * features__probe() - probe the kernel below @roots
 * @roots: where to look; NULL or NULL members mean the live system
 * @out:   receives a new features set, owned by the caller (features__free)
 * @eb:    detail on failure
 *
 * Reads FAULTLINE_MASK from the environment.  A missing file is not an
 * error (it is the evidence that a feature is absent); only a malformed
 * FAULTLINE_MASK (-EINVAL) or no memory (-ENOMEM) fail.
 *
 * Return: 0 or -errno.
 */
int features__probe(const struct fl_roots *roots, struct features **out, struct errbuf *eb);

/** features__free() - release @f; NULL is allowed. */
void features__free(struct features *f);

/**
 * features__recorded() - the features of a recording, for its replay
 * @names: what the recording holds: "system:event" for each tracepoint or
 *         probe event, "kfunc:NAME" for each kprobed kernel function,
 *         "uprobe:NAME" for each uprobe (copied)
 *
 * A tracepoint exists when it was recorded, a kernel function when a
 * kprobe on it was; uprobes and kprobes exist when some were recorded;
 * nothing of the live kernel is read.  FAULTLINE_MASK still applies, so a
 * lower rung of a recording holding several can be replayed.  Return: 0,
 * -ENOMEM, -EINVAL (a bad mask, detail in @eb).
 */
int features__recorded(const char *const *names, size_t n, struct features **out,
		       struct errbuf *eb);

/** features__has() - whether feature @id is usable (false when masked). */
bool features__has(const struct features *f, enum feature_id id);

/**
 * features__why() - the evidence for feature @id's value
 *
 * E.g. "no uprobe_events in /sys/kernel/tracing", "masked by FAULTLINE_MASK".
 * Return: a string owned by @f, valid until features__free().
 */
const char *features__why(const struct features *f, enum feature_id id);

/** feature__name() - stable lowercase name ("uprobes"), NULL if @id is out of range. */
const char *feature__name(enum feature_id id);

/** feature__from_name() - inverse of feature__name(); -ENOENT if unknown. */
int feature__from_name(const char *name);

/**
 * features__has_tracepoint() - whether <tracing>/events/@system/@event/format
 * exists, tracefs is usable and the tracepoint is not masked.
 */
bool features__has_tracepoint(const struct features *f, const char *system, const char *event);

/**
 * features__tracepoint_why() - like features__has_tracepoint(), and when
 * the tracepoint is absent write why into @why (@n bytes, may be NULL/0),
 * e.g. "masked by FAULTLINE_MASK", "no events/syscalls in /x/tracing".
 */
bool features__tracepoint_why(const struct features *f, const char *system, const char *event,
			      char *why, size_t n);

/**
 * features__kfunc_why() - whether kernel function @func can take a kprobe:
 * kprobes are usable (not masked) and <procfs>/kallsyms lists @func as a
 * text symbol under exactly that name (a ".isra"/".constprop" clone or an
 * inlined function is not the function).  When not, @why (@n bytes, may be
 * NULL/0) receives the reason, e.g. "no swap_readpage in /proc/kallsyms".
 */
bool features__kfunc_why(const struct features *f, const char *func, char *why, size_t n);

/** features__paranoid() - kernel.perf_event_paranoid, INT_MIN if unreadable. */
int features__paranoid(const struct features *f);

/**
 * features__lockdown() - "none", "integrity" or "confidentiality" (the
 * bracketed word of <sysfs>/kernel/security/lockdown); "absent" when the
 * kernel has no lockdown LSM file.  Owned by @f.
 */
const char *features__lockdown(const struct features *f);

/** features__privileged() - euid 0 or CAP_SYS_ADMIN effective. */
bool features__privileged(const struct features *f);
/** features__is_root() - effective uid 0 (from <procfs>/self/status). */
bool features__is_root(const struct features *f);
/** features__cap_sys_admin() - CAP_SYS_ADMIN (bit 21) in CapEff. */
bool features__cap_sys_admin(const struct features *f);
/** features__cap_perfmon() - CAP_PERFMON (bit 38, 5.8+) in CapEff. */
bool features__cap_perfmon(const struct features *f);

/**
 * features__tracefs_dir() - the tracing dir probed (located or given), or
 * "" when none was found.  Owned by @f.  Check FEAT_TRACEFS before use: the
 * dir may exist yet be unusable (lockdown, permissions).
 */
const char *features__tracefs_dir(const struct features *f);
/* The procfs root probed ("/proc" live, a fixture's proc otherwise). */
const char *features__procfs_dir(const struct features *f);
/* The sysfs root probed ("/sys" live, a fixture's sys otherwise). */
const char *features__sysfs_dir(const struct features *f);

/** features__mounted_tracefs() - whether features__probe() mounted the tracing dir. */
bool features__mounted_tracefs(const struct features *f);

/** features__uprobe_pmu_type() - perf type of the uprobe PMU, -1 if absent or masked. */
int features__uprobe_pmu_type(const struct features *f);
/** features__kprobe_pmu_type() - perf type of the kprobe PMU, -1 if absent or masked. */
int features__kprobe_pmu_type(const struct features *f);

/*
 * The FAULTLINE_MASK parser, separate so it can be unit tested.  Items are
 * separated by commas, blanks around them ignored: a feature name
 * ("kprobes"), or a tracepoint "system:event" or "system:*".
 */
struct feature_mask;

/**
 * feature_mask__parse() - parse @spec (NULL or "" give an empty mask)
 * @out: receives a new mask owned by the caller (feature_mask__free)
 *
 * Return: 0, -EINVAL with the offending item in @eb, or -ENOMEM.
 */
int feature_mask__parse(const char *spec, struct feature_mask **out, struct errbuf *eb);
/** feature_mask__free() - release @m; NULL is allowed. */
void feature_mask__free(struct feature_mask *m);
/** feature_mask__has_feature() - whether feature @id is masked. */
bool feature_mask__has_feature(const struct feature_mask *m, enum feature_id id);
/** feature_mask__has_tracepoint() - whether @system:@event is masked (by name or "system:*"). */
bool feature_mask__has_tracepoint(const struct feature_mask *m, const char *system, const char *event);

#endif
