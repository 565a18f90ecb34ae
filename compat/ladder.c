/*
 * ladder: the fallback ladders of the tools, and the choice of a rung.
 *
 * The tables below are the whole policy: a tool never tests the kernel
 * itself, it asks for its ladder's first usable rung.  A requirement that
 * does not parse (a typo in a table) makes its rung unusable with a reason
 * saying so; the unit test checks every table entry parses.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ladder.h"

static const char *const brk_tracepoint_needs[] = { "tp:syscalls:sys_enter_brk", NULL };
static const char *const uprobe_needs[] = { "feat:uprobes", "feat:uretprobes", NULL };
/* The perf uprobe PMU: probes by perf_event_open, no tracefs, so still
 * there under lockdown [confidentiality]; arguments are the registers
 * sampled at the breakpoint (src/trace/uprobe-pmu.h).  The session uses it
 * exactly when the rung above lacks uprobes or uretprobes. */
static const char *const uprobe_pmu_needs[] = { "feat:uprobe_pmu", NULL };

static const struct rung brk_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoint syscalls:sys_enter_brk",
	  .needs = brk_tracepoint_needs, .loses = "" },
	{ .key = "uprobe", .label = "uprobe libc brk", .needs = uprobe_needs,
	  .loses = "only brk calls made through libc's brk/sbrk (not raw syscalls)" },
	{ .key = "uprobe-pmu", .label = "perf uprobe PMU on libc brk (registers sampled)",
	  .needs = uprobe_pmu_needs,
	  .loses = "only brk calls made through libc's brk/sbrk (not raw syscalls)" },
};

static const char *const mmap_tracepoint_needs[] = {
	"tp:syscalls:sys_enter_mmap", "tp:syscalls:sys_exit_mmap",
	"tp:syscalls:sys_enter_munmap", "tp:syscalls:sys_exit_munmap", NULL
};

static const struct rung mmap_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoint syscalls:sys_{enter,exit}_{mmap,munmap}",
	  .needs = mmap_tracepoint_needs, .loses = "" },
	{ .key = "uprobe", .label = "uprobe+uretprobe libc mmap/munmap", .needs = uprobe_needs,
	  .loses = "only calls made through libc" },
	{ .key = "uprobe-pmu", .label = "perf uprobe PMU on libc mmap/munmap (registers sampled)",
	  .needs = uprobe_pmu_needs, .loses = "only calls made through libc" },
};

/* reclaim: per-event latency needs begin/end pairs; the memcg and vmscan.bt
 * summary events are optional extras the tool adds when present. */
static const char *const reclaim_tracepoint_needs[] = {
	"tp:vmscan:mm_vmscan_direct_reclaim_begin", "tp:vmscan:mm_vmscan_direct_reclaim_end", NULL
};
static const char *const no_needs[] = { NULL };

static const struct rung reclaim_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoints vmscan:mm_vmscan_{direct,memcg}_reclaim_{begin,end}",
	  .needs = reclaim_tracepoint_needs, .loses = "" },
	{ .key = "vmstat", .label = "/proc/vmstat allocstall/pgscan_direct/pgsteal_direct (system-wide)",
	  .needs = no_needs,
	  .loses = "no events, latency or processes: system-wide direct reclaim counts per interval" },
};

/* pressure: PSI and the /proc counters on every rung; reclaim from the
 * vmscan pairs where the kernel has them, else /proc/vmstat allocstall. */
static const char *const pressure_tracepoint_needs[] = {
	"proc:pressure/memory", "tp:vmscan:mm_vmscan_direct_reclaim_begin",
	"tp:vmscan:mm_vmscan_direct_reclaim_end", NULL
};
static const char *const pressure_psi_needs[] = { "proc:pressure/memory", NULL };

static const struct rung pressure_rungs[] = {
	{ .key = "tracepoint", .label = "PSI /proc/pressure/memory and cgroup memory.pressure; "
	  "reclaim from tracepoints vmscan:mm_vmscan_{direct,memcg}_reclaim_{begin,end}; "
	  "/proc/meminfo MemAvailable; /proc/vmstat pgmajfault pswpin pswpout compact_stall oom_kill",
	  .needs = pressure_tracepoint_needs, .loses = "" },
	{ .key = "vmstat", .label = "PSI /proc/pressure/memory and cgroup memory.pressure; "
	  "reclaim from /proc/vmstat allocstall*; /proc/meminfo, /proc/vmstat",
	  .needs = pressure_psi_needs,
	  .loses = "direct reclaims counted without their time; no memcg reclaim" },
	{ .key = "nopsi", .label = "/proc/meminfo and /proc/vmstat only", .needs = no_needs,
	  .loses = "no PSI (no CONFIG_PSI, or booted psi=0): no stall times, no triggers; "
		   "reclaim from /proc/vmstat allocstall*" },
};

/* swapin: BCC's kprobes first (folio name, then the pre-6.8 one). */
static const char *const swapin_folio_needs[] = { "feat:kprobes", "kfunc:swap_read_folio", NULL };
static const char *const swapin_page_needs[] = { "feat:kprobes", "kfunc:swap_readpage", NULL };
static const char *const swapin_majfault_needs[] = { "feat:perf_events", NULL };

static const struct rung swapin_rungs[] = {
	{ .key = "kprobe:swap_read_folio", .label = "kprobe swap_read_folio", .needs = swapin_folio_needs,
	  .loses = "" },
	{ .key = "kprobe:swap_readpage", .label = "kprobe swap_readpage", .needs = swapin_page_needs,
	  .loses = "" },
	{ .key = "majfault", .label = "major faults in anonymous/shmem mappings (software event with fault address)",
	  .needs = swapin_majfault_needs,
	  .loses = "counts faults, not reads: pages read ahead, and swap-ins outside a fault "
		   "(swapoff, MADV_WILLNEED, khugepaged), are not seen" },
	{ .key = "vmstat", .label = "/proc/vmstat pswpin (system-wide)", .needs = no_needs,
	  .loses = "no per-process counts: one system-wide line of pages swapped in" },
};

/* cache and cachetop: BCC cachestat's kprobes, folio names first (5.16+;
 * the page names survive there only as wrappers the hot paths skip), the
 * account-dirtied hook by whichever name is not inlined; then tracepoints
 * (mm_filemap_get_pages is 6.11+); then procfs counters. */
static const char *const cache_kprobe_folio_needs[] = {
	"feat:kprobes", "kfunc:folio_mark_accessed", "kfunc:filemap_add_folio",
	"kfunc:folio_account_dirtied", "kfunc:mark_buffer_dirty", NULL
};
static const char *const cache_kprobe_folio_mark_dirty_needs[] = {
	"feat:kprobes", "kfunc:folio_mark_accessed", "kfunc:filemap_add_folio",
	"kfunc:__folio_mark_dirty", "kfunc:mark_buffer_dirty", NULL
};
static const char *const cache_kprobe_page_needs[] = {
	"feat:kprobes", "kfunc:mark_page_accessed", "kfunc:add_to_page_cache_lru",
	"kfunc:account_page_dirtied", "kfunc:mark_buffer_dirty", NULL
};
static const char *const cache_tracepoint_needs[] = {
	"tp:filemap:mm_filemap_get_pages", "tp:filemap:mm_filemap_add_to_page_cache",
	"tp:writeback:writeback_dirty_folio", NULL
};
static const char *const cache_vmstat_needs[] = { NULL };

static const struct rung cache_rungs[] = {
	{ .key = "kprobe:folio", .label = "kprobes folio_mark_accessed, filemap_add_folio, "
	  "folio_account_dirtied, mark_buffer_dirty", .needs = cache_kprobe_folio_needs, .loses = "" },
	{ .key = "kprobe:folio-mark-dirty", .label = "kprobes folio_mark_accessed, filemap_add_folio, "
	  "__folio_mark_dirty, mark_buffer_dirty", .needs = cache_kprobe_folio_mark_dirty_needs,
	  .loses = "" },
	{ .key = "kprobe:page", .label = "kprobes mark_page_accessed, add_to_page_cache_lru, "
	  "account_page_dirtied, mark_buffer_dirty", .needs = cache_kprobe_page_needs, .loses = "" },
	{ .key = "tracepoint", .label = "tracepoints filemap:mm_filemap_get_pages, "
	  "filemap:mm_filemap_add_to_page_cache, writeback:writeback_dirty_folio",
	  .needs = cache_tracepoint_needs,
	  .loses = "read() accesses only (no write or mmap accesses); pages, not calls" },
	{ .key = "vmstat", .label = "/proc/vmstat pgpgin, nr_dirtied and /proc/PID/io deltas "
	  "(approximation)", .needs = cache_vmstat_needs,
	  .loses = "approximation: misses are block reads (any, incl. metadata and direct I/O), hits "
		   "are read() bytes of any kind (pipes, sockets too), short-lived processes unseen" },
};

/* oom: the tracepoint (4.13+) names trigger and victim; before it, a
 * kprobe gives the trigger and the kernel's log report the victim (the
 * probe reads no argument: their layout differs on 3.10, 4.6-4.12 and
 * 4.13+); the log report alone is the last resort. */
static const char *const oom_tracepoint_needs[] = { "tp:oom:mark_victim", NULL };
static const char *const oom_kprobe_needs[] = { "feat:kprobes", "kfunc:oom_kill_process", NULL };
static const char *const oom_kmsg_needs[] = { NULL };

static const struct rung oom_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoint oom:mark_victim (+ /dev/kmsg report)",
	  .needs = oom_tracepoint_needs, .loses = "" },
	{ .key = "kprobe", .label = "kprobe oom_kill_process (trigger) + /dev/kmsg report (victim)",
	  .needs = oom_kprobe_needs,
	  .loses = "the victim's fields as the kernel log prints them; a kill the log lost is dropped" },
	{ .key = "kmsg", .label = "/dev/kmsg OOM report", .needs = oom_kmsg_needs,
	  .loses = "the trigger only from the report's header, which is rate limited; kills of "
		   "already-exiting tasks are not reported" },
};

/* shm: shmsnoop's four calls from the syscall tracepoints; else libc's
 * wrappers. */
static const char *const shm_tracepoint_needs[] = {
	"tp:syscalls:sys_enter_shmget", "tp:syscalls:sys_exit_shmget",
	"tp:syscalls:sys_enter_shmat", "tp:syscalls:sys_exit_shmat",
	"tp:syscalls:sys_enter_shmdt", "tp:syscalls:sys_exit_shmdt",
	"tp:syscalls:sys_enter_shmctl", "tp:syscalls:sys_exit_shmctl", NULL
};

static const struct rung shm_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoints syscalls:sys_{enter,exit}_shm{get,at,dt,ctl}",
	  .needs = shm_tracepoint_needs, .loses = "" },
	{ .key = "uprobe", .label = "uprobes+uretprobes libc shmget/shmat/shmdt/shmctl",
	  .needs = uprobe_needs,
	  .loses = "only calls made through libc; RET is libc's -1 on failure, not -errno" },
};

/* slab: the slab events give per-cache (or, without the name field,
 * per-call-site) allocations per process, beside /proc/slabinfo's caches
 * when it is readable (a replay has events only); /proc/slabinfo alone
 * gives the system's active objects per cache. */
static const char *const slab_tracepoint_needs[] = {
	"tp:kmem:kmem_cache_alloc", "tp:kmem:kmem_cache_free", NULL
};
static const char *const slab_slabinfo_needs[] = { "proc:slabinfo", NULL };

static const struct rung slab_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoints kmem:kmem_cache_alloc/kmem_cache_free + "
	  "/proc/slabinfo", .needs = slab_tracepoint_needs, .loses = "" },
	{ .key = "slabinfo", .label = "/proc/slabinfo (system-wide)", .needs = slab_slabinfo_needs,
	  .loses = "no allocations, frees, processes or stacks: the change in active objects per "
		   "cache per interval" },
};

/* compact: direct compaction is try_to_compact_pages and the per-zone
 * begin/end pairs in the allocating task; the scan, migration and
 * huge_memory events are added when present. */
static const char *const compact_tracepoint_needs[] = {
	"tp:compaction:mm_compaction_try_to_compact_pages", "tp:compaction:mm_compaction_begin",
	"tp:compaction:mm_compaction_end", NULL
};

static const struct rung compact_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoints compaction:mm_compaction_* "
	  "(+ huge_memory:mm_collapse_huge_page)", .needs = compact_tracepoint_needs, .loses = "" },
	{ .key = "vmstat", .label = "/proc/vmstat compact_stall/compact_fail/compact_success, thp_* "
	  "(system-wide)", .needs = no_needs,
	  .loses = "no events, latency or processes: system-wide counts per interval" },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* leak: user allocators need a return probe for the address. */
static const struct rung leak_rungs[] = {
	{ .key = "uprobe", .label = "uprobes+uretprobes on the allocator, syscall tracepoints",
	  .needs = uprobe_needs, .loses = "" },
	{ .key = "uprobe-pmu", .label = "perf uprobe PMU on the allocator (registers sampled), "
	  "syscall tracepoints or else libc's mmap/munmap/brk", .needs = uprobe_pmu_needs,
	  .loses = "without syscall tracepoints, only mmap/munmap/brk calls made through libc" },
};

/* leak -k: the slab events first; the page allocator alone still sees
 * page-sized leaks.  The _node variants (before 6.1) are added when present. */
static const char *const kleak_slab_needs[] = {
	"tp:kmem:kmalloc", "tp:kmem:kfree", "tp:kmem:kmem_cache_alloc", "tp:kmem:kmem_cache_free",
	NULL
};
static const char *const kleak_page_needs[] = { "tp:kmem:mm_page_alloc", "tp:kmem:mm_page_free",
						NULL };

static const struct rung kleak_rungs[] = {
	{ .key = "kmem", .label = "tracepoints kmem:kmalloc/kmem_cache_alloc/mm_page_alloc and frees",
	  .needs = kleak_slab_needs, .loses = "" },
	{ .key = "pages", .label = "tracepoints kmem:mm_page_alloc/mm_page_free",
	  .needs = kleak_page_needs, .loses = "slab allocations (kmalloc, kmem_cache) unseen" },
};

/* faults: the tracepoint (3.13+, x86) gives address, ip and error code at
 * the fault's entry; the software event gives the address alone.  Both
 * learn major faults from the major-faults software event. */
static const char *const faults_tracepoint_needs[] = {
	"tp:exceptions:page_fault_user", "feat:perf_events", NULL
};
static const char *const faults_software_needs[] = { "feat:perf_events", NULL };

static const struct rung faults_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoint exceptions:page_fault_user + software major-faults",
	  .needs = faults_tracepoint_needs, .loses = "" },
	{ .key = "software", .label = "software events page-faults and major-faults, with addresses",
	  .needs = faults_software_needs, .loses = "no error code: write/protection faults not told apart" },
};

/* ffaults: the page cache's own fault tracepoint first; else every fault,
 * kept when its address lies in a file mapping. */
static const char *const ffaults_filemap_needs[] = {
	"tp:filemap:mm_filemap_fault", "feat:perf_events", NULL
};

static const struct rung ffaults_rungs[] = {
	{ .key = "filemap", .label = "tracepoint filemap:mm_filemap_fault + software major-faults",
	  .needs = ffaults_filemap_needs, .loses = "" },
	{ .key = "mapping", .label = "every user fault, looked up in the process's file mappings",
	  .needs = faults_software_needs,
	  .loses = "counts pages mapped by fault-around too, not only page-cache faults" },
};

/* hfaults: hfaults.bt's kprobe and THP's fault function; else every user
 * fault, classified after the fact by the page now at its address. */
static const char *const hfaults_kprobe_needs[] = {
	"feat:kprobes", "kfunc:hugetlb_fault", "kfunc:do_huge_pmd_anonymous_page", NULL
};

static const char *const hfaults_pageflags_needs[] = {
	"feat:perf_events", "proc:kpageflags", NULL
};

static const struct rung hfaults_rungs[] = {
	{ .key = "kprobe", .label = "kprobes hugetlb_fault, do_huge_pmd_anonymous_page",
	  .needs = hfaults_kprobe_needs, .loses = "" },
	{ .key = "page-flags", .label = "every user fault, its page classified by /proc/PID/pagemap "
	  "and /proc/kpageflags", .needs = hfaults_pageflags_needs,
	  .loses = "counts huge pages faulted in (once per process and address), not fault calls; "
		   "a fault whose process or page is gone by the lookup is unresolved" },
};

/* goalloc: an entry uprobe only (Go's stack copying does not survive a
 * uretprobe's rewritten return address). */
static const char *const goalloc_needs[] = { "feat:uprobes", NULL };

static const struct rung goalloc_rungs[] = {
	{ .key = "uprobe", .label = "uprobe on runtime.mallocgc's entry, frame-pointer stacks",
	  .needs = goalloc_needs, .loses = "" },
};

static const struct ladder ladders[] = {
	{ .tool = "ffaults", .rungs = ffaults_rungs, .n = ARRAY_SIZE(ffaults_rungs) },
	{ .tool = "hfaults", .rungs = hfaults_rungs, .n = ARRAY_SIZE(hfaults_rungs) },
	{ .tool = "faults", .rungs = faults_rungs, .n = ARRAY_SIZE(faults_rungs) },
	{ .tool = "leak", .rungs = leak_rungs, .n = ARRAY_SIZE(leak_rungs) },
	{ .tool = "leak -k", .rungs = kleak_rungs, .n = ARRAY_SIZE(kleak_rungs) },
	{ .tool = "goalloc", .rungs = goalloc_rungs, .n = ARRAY_SIZE(goalloc_rungs) },
	{ .tool = "brk", .rungs = brk_rungs, .n = ARRAY_SIZE(brk_rungs) },
	{ .tool = "mmap", .rungs = mmap_rungs, .n = ARRAY_SIZE(mmap_rungs) },
	{ .tool = "oom", .rungs = oom_rungs, .n = ARRAY_SIZE(oom_rungs) },
	{ .tool = "reclaim", .rungs = reclaim_rungs, .n = ARRAY_SIZE(reclaim_rungs) },
	{ .tool = "pressure", .rungs = pressure_rungs, .n = ARRAY_SIZE(pressure_rungs) },
	{ .tool = "swapin", .rungs = swapin_rungs, .n = ARRAY_SIZE(swapin_rungs) },
	{ .tool = "cache", .rungs = cache_rungs, .n = ARRAY_SIZE(cache_rungs) },
	{ .tool = "cachetop", .rungs = cache_rungs, .n = ARRAY_SIZE(cache_rungs) },
	{ .tool = "shm", .rungs = shm_rungs, .n = ARRAY_SIZE(shm_rungs) },
	{ .tool = "slab", .rungs = slab_rungs, .n = ARRAY_SIZE(slab_rungs) },
	{ .tool = "compact", .rungs = compact_rungs, .n = ARRAY_SIZE(compact_rungs) },
};

bool ladder__is(const char *key, const char *want)
{
	size_t n = strlen(want);

	if (!key)
		return false;
	if (n && want[n - 1] == ':')
		return !strncmp(key, want, n);
	return !strcmp(key, want);
}

const struct ladder *ladder__find(const char *tool)
{
	size_t i;

	for (i = 0; tool && i < ARRAY_SIZE(ladders); i++)
		if (strcmp(ladders[i].tool, tool) == 0)
			return &ladders[i];
	return NULL;
}

const struct ladder *ladder__all(size_t *n)
{
	*n = ARRAY_SIZE(ladders);
	return ladders;
}

/* One requirement; on failure the reason goes into why. */
static bool need_met(const char *need, const struct features *f, char *why, size_t n)
{
	char system[128], detail[256];
	const char *colon;
	size_t len;
	int id;

	if (strncmp(need, "tp:", 3) == 0) {
		colon = strchr(need + 3, ':');
		len = colon ? (size_t)(colon - (need + 3)) : 0;
		if (!colon || !len || len >= sizeof(system) || !colon[1])
			goto bad;
		memcpy(system, need + 3, len);
		system[len] = '\0';
		if (features__tracepoint_why(f, system, colon + 1, detail, sizeof(detail)))
			return true;
		snprintf(why, n, "tracepoint %s:%s absent (%s)", system, colon + 1, detail);
		return false;
	}
	if (strncmp(need, "kfunc:", 6) == 0) {
		if (!need[6])
			goto bad;
		if (features__kfunc_why(f, need + 6, detail, sizeof(detail)))
			return true;
		snprintf(why, n, "kernel function %s unusable (%s)", need + 6, detail);
		return false;
	}
	/* A file below procfs that must be readable ("proc:kpageflags"). */
	if (strncmp(need, "proc:", 5) == 0) {
		if (!need[5] || strchr(need + 5, '.'))
			goto bad;
		snprintf(detail, sizeof(detail), "%s/%s", features__procfs_dir(f), need + 5);
		if (access(detail, R_OK) == 0)
			return true;
		snprintf(why, n, "%s unreadable (%s)", detail, strerror(errno));
		return false;
	}
	if (strncmp(need, "feat:", 5) == 0) {
		id = feature__from_name(need + 5);
		if (id < 0)
			goto bad;
		if (features__has(f, id))
			return true;
		snprintf(why, n, "%s absent (%s)", need + 5, features__why(f, id));
		return false;
	}
bad:
	snprintf(why, n, "unknown requirement '%s'", need);
	return false;
}

bool ladder__rung_ready(const struct rung *r, const struct features *f, char *why, size_t n)
{
	char dummy[1];
	size_t i;

	if (!why || !n) {
		why = dummy;
		n = sizeof(dummy);
	}
	why[0] = '\0';
	/* The first unmet need is enough: the rest usually follow from it. */
	for (i = 0; r->needs && r->needs[i]; i++)
		if (!need_met(r->needs[i], f, why, n))
			return false;
	return true;
}

int ladder__choose(const struct ladder *l, const struct features *f, char (*why)[256], size_t nwhy)
{
	int chosen = -ENOTSUP;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (ladder__rung_ready(&l->rungs[i], f, why && i < nwhy ? why[i] : NULL, sizeof(why[0])) &&
		    chosen < 0)
			chosen = (int)i;
	}
	return chosen;
}
