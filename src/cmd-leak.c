/*
 * faultline leak: outstanding allocations by stack, as BCC's memleak
 * prints them, without BPF.
 *
 * User mode (-p PID, -c CMD): uprobes on the allocator's functions, from
 * a probe spec (probes/glibc.probes, jemalloc.probes, tcmalloc.probes; -O
 * and --symbols-prefix retarget it), plus the mmap/munmap/mremap/brk
 * syscall tracepoints for anonymous memory the program maps itself.  An
 * entry probe gives the size, its return probe the address and the stack
 * (taken there, as memleak does, so the innermost frame is the caller of
 * malloc), a free removes the block.  The rules of pairing and of each
 * function are in alloc-track.c.
 *
 * Kernel mode (-k, or neither -p nor -c): the kmem tracepoints (kmalloc,
 * kmem_cache_alloc, their _node variants where the kernel still has them,
 * mm_page_alloc, and percpu with --percpu), frees from every CPU and
 * context, allocations from the target's tasks only when one is given.
 *
 * Cost: stacks are unwound only for blocks that are kept (past -z/-Z and
 * -s sampling); -z/-Z are kernel filters on the entry probes that carry
 * the size alone; free's probe moves to an instruction the kernel
 * emulates (SESSION_PLACE_CHEAP).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "addrspace.h"
#include "alloc-track.h"
#include "commands.h"
#include "event-fields.h"
#include "features.h"
#include "lib/hashmap.h"
#include "probe-spec.h"
#include "report.h"
#include "session.h"
#include "stackdb.h"
#include "tool-opts.h"

#define TOOL "leak"

static const char usage[] =
	"faultline leak [-p PID | -c CMD | -k] [-t] [-a] [-o MS] [-s N] [-T N] [-z MIN] [-Z MAX]\n"
	"                      [-O LIB] [--symbols-prefix P] [--probes SPEC] [--sort size|count]\n"
	"                      [--percpu] [--call-graph dwarf[,SIZE]|fp] [--json | --folded]\n"
	"                      [interval [count]]";
static const char help[] =
	"  -p PID       trace the allocations of this process\n"
	"  -c CMD       run CMD and trace it; when it exits, print what it still had\n"
	"               allocated and exit 0\n"
	"  -k, --kernel kernel allocations (kmalloc, kmem_cache, pages): the default\n"
	"               without -p and -c; with -p/-c, those made by that process\n"
	"  -t, --trace  print every allocation and free as it happens\n"
	"  -a, --show-allocs\n"
	"               list each outstanding allocation (address and size)\n"
	"  -o, --older MS\n"
	"               only allocations older than MS milliseconds (default 500) in\n"
	"               periodic reports; the report after a -c command exits shows all\n"
	"  -s, --sample-rate N\n"
	"               track one allocation in N (chosen by address, so frees match);\n"
	"               figures are estimates, scaled by N\n"
	"  -T, --top N  show the N stacks with the most outstanding bytes (default 10)\n"
	"  -z, --min-size B / -Z, --max-size B\n"
	"               only allocations of at least / at most B bytes\n"
	"  -O, --obj LIB\n"
	"               the allocator's library (default libc; a jemalloc or tcmalloc\n"
	"               library selects its probe spec)\n"
	"  --symbols-prefix P\n"
	"               prefix of the allocator's symbols (je_ for some jemalloc builds)\n"
	"  --probes SPEC\n"
	"               probe spec to use: a name in probes/ or a file\n"
	"  --sort size|count\n"
	"               order of stacks (default size)\n"
	"  --percpu     kernel mode: per-CPU allocations too\n"
	"  --combined-only\n"
	"               accepted for memleak compatibility (faultline always combines)\n"
	"  --json       one JSON object per stack, then a summary\n"
	"  --folded     FlameGraph folded stacks weighted by outstanding bytes\n"
	"  -m PAGES     ring buffer pages per CPU\n"
	TOOL_OPTS_STACK_HELP
	"  interval     print a report every interval seconds (default 5)\n"
	"  count        stop after count reports\n";

enum { OPT_PREFIX = 256, OPT_SORT, OPT_PERCPU, OPT_COMBINED, OPT_PROBES };

struct leak_opts {
	bool kernel, trace, show_allocs, percpu, sort_count;
	uint64_t older_ms;
	uint64_t sample_rate;
	unsigned int top;
	uint64_t min_size, max_size;
	const char *obj, *prefix, *probes;
	struct tool_interval every;	/* reports: every.secs apart, every.count of them */
};

/* What a probe of the spec does, by its name without _enter/_return. */
struct role {
	const char *name;
	enum alloc_fn fn;
	bool is_free;
	bool zero_frees;	/* realloc(p, 0) frees p */
};

static const struct role roles[] = {
	{ "malloc", ALLOC_MALLOC, false, false },
	{ "calloc", ALLOC_CALLOC, false, false },
	{ "realloc", ALLOC_REALLOC, false, true },
	{ "reallocarray", ALLOC_REALLOC, false, true },
	{ "aligned_alloc", ALLOC_MEMALIGN, false, false },
	{ "memalign", ALLOC_MEMALIGN, false, false },
	{ "valloc", ALLOC_MEMALIGN, false, false },
	{ "pvalloc", ALLOC_MEMALIGN, false, false },
	{ "posix_memalign", ALLOC_POSIX_MEMALIGN, false, false },
	{ "free", ALLOC_MALLOC, true, false },
	/* jemalloc's own API, C++ operators of tcmalloc */
	{ "mallocx", ALLOC_MALLOC, false, false },
	{ "rallocx", ALLOC_REALLOC, false, false },
	{ "dallocx", ALLOC_MALLOC, true, false },
	{ "sdallocx", ALLOC_MALLOC, true, false },
	{ "new", ALLOC_MALLOC, false, false },
	{ "delete", ALLOC_MALLOC, true, false },
};

struct leak;

/* One event of the session and how to read it. */
struct probe_ctx {
	struct leak *lk;
	const struct role *role;
	enum alloc_fn fn;		/* syscall and kernel events */
	struct tp_field f_size, f_nmemb, f_ptr, f_sp, f_ret, f_addr, f_len, f_flags, f_old_len,
		f_order, f_prot;
	bool has_nmemb, has_sp, has_ptr, has_flags;
	int kind;			/* KIND_* */
	uint64_t key_space;		/* kernel: which address space (slab, page, percpu) */
};

enum {
	KIND_ENTER, KIND_RETURN, KIND_STORE, KIND_FREE,
	KIND_SYS_ENTER, KIND_SYS_EXIT, KIND_MUNMAP,
	KIND_K_ALLOC, KIND_K_FREE,
};

/* Kernel allocations live in the table under these pseudo-pids, one per
 * address space: a pfn and a slab pointer may be equal numbers. */
#define KPID_SLAB 0
#define KPID_PAGE (-2)
#define KPID_PCPU (-3)

struct leak {
	struct tool_opts o;
	struct leak_opts lo;
	struct session *s;
	struct alloc_track *track;
	struct hashmap *breaks;		/* pid -> program break after its last brk */
	struct probe_ctx **ctxs;
	size_t nctxs;
	pid_t filter_pid;		/* kernel mode with a target: its allocations */
	uint64_t unknown_frees, dropped_exec, allocs, frees, failed, loader_regions;
	uint64_t next_report_ns;
	unsigned long reports;
	bool posix_memalign_untracked;
	int err;
};

/* ---- options ---- */

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && end != s && !*end && s[0] != '-';
}

static const char *leak_opt(int c, const char *arg, void *ctx)
{
	struct leak_opts *lo = ctx;
	uint64_t v;

	switch (c) {
	case 'k':
		lo->kernel = true;
		return NULL;
	case 't':
		lo->trace = true;
		return NULL;
	case 'a':
		lo->show_allocs = true;
		return NULL;
	case 'o':
		if (!parse_u64(arg, &lo->older_ms))
			return "-o wants milliseconds, not";
		return NULL;
	case 's':
		if (!parse_u64(arg, &v) || !v || v > (1u << 20))
			return "-s wants a sample rate from 1 to 1048576, not";
		lo->sample_rate = v;
		return NULL;
	case 'T':
		if (!parse_u64(arg, &v) || !v || v > INT_MAX)
			return "-T wants a number of stacks, not";
		lo->top = (unsigned int)v;
		return NULL;
	case 'z':
		if (!parse_u64(arg, &lo->min_size))
			return "-z wants a size in bytes, not";
		return NULL;
	case 'Z':
		if (!parse_u64(arg, &lo->max_size))
			return "-Z wants a size in bytes, not";
		return NULL;
	case 'O':
		lo->obj = arg;
		return NULL;
	case OPT_PREFIX:
		lo->prefix = arg;
		return NULL;
	case OPT_PROBES:
		lo->probes = arg;
		return NULL;
	case OPT_SORT:
		if (!strcmp(arg, "size"))
			lo->sort_count = false;
		else if (!strcmp(arg, "count"))
			lo->sort_count = true;
		else
			return "--sort is size or count, not";
		return NULL;
	case OPT_PERCPU:
		lo->percpu = true;
		return NULL;
	case OPT_COMBINED:
		return NULL;
	}
	return "unknown option";
}

static const char *leak_positional(int argc, char **argv, const char **arg, void *ctx)
{
	struct leak_opts *lo = ctx;

	return tool_opts__parse_interval(&lo->every, argc, argv, arg);
}

/* ---- events ---- */

static bool field_u64(const struct tp_field *f, const struct sample *smp, uint64_t *v)
{
	return tp_field__u64(f, smp->raw, smp->raw_size, v) == 0;
}

/* Sampling by address, so an allocation and its free agree. */
static bool sampled(const struct leak *lk, uint64_t addr)
{
	if (lk->lo.sample_rate <= 1)
		return true;
	return ((addr >> 4) * 0x9e3779b97f4a7c15ULL >> 32) % lk->lo.sample_rate == 0;
}

static bool size_wanted(const struct leak *lk, uint64_t size)
{
	return size >= lk->lo.min_size && (!lk->lo.max_size || size <= lk->lo.max_size);
}

static void trace_line(struct leak *lk, const struct sample *smp, const char *msg)
{
	if (lk->o.json) {
		printf("{\"type\":\"event\",\"time\":%.6f,\"pid\":%u,\"tid\":%u,\"msg\":",
		       session__elapsed(lk->s, smp->time), smp->pid, smp->tid);
		report__json_str(stdout, msg);
		printf("}\n");
	} else if (!lk->o.folded) {
		printf("%-12.6f %-7u %-7u %-16s %s\n", session__elapsed(lk->s, smp->time), smp->pid,
		       smp->tid, session__comm(lk->s, (pid_t)smp->pid), msg);
	}
	tool__event_done();
}

static void release(struct leak *lk, const struct sample *smp, pid_t pid, uint64_t addr,
		    uint64_t region_len)
{
	struct alloc_rec r;

	if (region_len) {
		if (alloc_track__unmap(lk->track, pid, addr, region_len) < 0)
			lk->err = -ENOMEM;
		return;
	}
	if (!alloc_track__remove(lk->track, pid, addr, &r)) {
		lk->frees++;
		if (lk->lo.trace) {
			char msg[96];

			snprintf(msg, sizeof(msg), "free entered, address = %" PRIx64 ", size = %" PRIu64,
				 addr, r.size);
			trace_line(lk, smp, msg);
		}
	} else if (sampled(lk, addr)) {
		lk->unknown_frees++;
	}
}

/* Whether a path is a dynamic loader: ld-linux-x86-64.so.2, ld-2.17.so,
 * ld-musl-x86_64.so.1, whatever the directory. */
static bool loader_path(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	return base && !strncmp(base, "ld-", 3) && strstr(base, ".so");
}

/*
 * A region the dynamic loader mapped for itself, every frame of its stack
 * inside the loader: ld.so's minimal malloc at start-up (search paths,
 * the initial TLS block) holds such memory for the life of the process.
 * It is the runtime's, not a leak of the program's, and BCC, which probes
 * libc's mmap only, never shows it either.
 */
static bool loader_own(struct leak *lk, pid_t pid, uint32_t stack)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(lk->s), stack, &nr);

	for (uint32_t i = 0; i < nr; i++) {
		const struct map *m = addrspaces__find(session__addrspaces(lk->s), pid, ips[i]);

		if (!m || !loader_path(m->path))
			return false;
	}
	return nr > 0;
}

static void keep(struct leak *lk, const struct sample *smp, pid_t pid, uint64_t addr,
		 uint64_t size, bool region, bool kernel)
{
	struct alloc_rec r = { .addr = addr, .size = size, .time = smp->time, .pid = pid,
			       .region = region };
	int err;

	/* Regions are few and large: sampling them would only add noise. */
	if (!size_wanted(lk, size) || (!region && !sampled(lk, addr)))
		return;
	err = kernel ? session__kernel_stack(lk->s, smp, &r.stack) :
		       session__user_stack(lk->s, smp, &r.stack);
	if (!err && region && !kernel && loader_own(lk, pid, r.stack)) {
		lk->loader_regions++;
		return;
	}
	if (!err)
		err = alloc_track__add(lk->track, &r);
	if (err) {
		lk->err = err;
		return;
	}
	lk->allocs++;
	if (lk->lo.trace) {
		char msg[96];

		snprintf(msg, sizeof(msg), "alloc exited, size = %" PRIu64 ", result = %" PRIx64, size,
			 addr);
		trace_line(lk, smp, msg);
	}
}

static void on_enter(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct leak *lk = pc->lk;
	struct alloc_call c = { .fn = pc->role->fn, .time = smp->time };
	uint64_t nmemb = 1;

	(void)s;
	if (!field_u64(&pc->f_size, smp, &c.size))
		return;
	if (pc->has_nmemb && field_u64(&pc->f_nmemb, smp, &nmemb) &&
	    __builtin_mul_overflow(c.size, nmemb, &c.size))
		c.size = 0;	/* the call fails with ENOMEM */
	if (pc->has_ptr)
		field_u64(&pc->f_ptr, smp, &c.old);
	if (pc->has_sp)
		field_u64(&pc->f_sp, smp, &c.sp);
	if (alloc_track__enter(lk->track, (pid_t)smp->tid, &c)) {
		lk->err = -ENOMEM;
		return;
	}
	if (lk->lo.trace && !c.inner) {
		char msg[64];

		snprintf(msg, sizeof(msg), "alloc entered, size = %" PRIu64, c.size);
		trace_line(lk, smp, msg);
	}
}

static void complete(struct leak *lk, const struct sample *smp, const struct alloc_call *c,
		     uint64_t ret, bool zero_frees)
{
	bool region = c->fn >= ALLOC_MMAP;
	struct alloc_effect e;

	alloc_call__effect(c, ret, zero_frees, &e);
	if (e.failed) {
		lk->failed++;
		return;
	}
	if (e.frees)
		release(lk, smp, (pid_t)smp->pid, e.freed, region ? e.freed_size : 0);
	if (e.allocates)
		keep(lk, smp, (pid_t)smp->pid, e.addr, e.size, region, false);
}

static void on_return(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct leak *lk = pc->lk;
	struct alloc_call c;
	uint64_t ret = 0, sp = 0;

	(void)s;
	if (!field_u64(&pc->f_ret, smp, &ret))
		return;
	if (pc->has_sp)
		field_u64(&pc->f_sp, smp, &sp);
	if (alloc_track__leave(lk->track, (pid_t)smp->tid, sp, &c) || c.inner)
		return;
	if (c.fn == ALLOC_POSIX_MEMALIGN && lk->posix_memalign_untracked)
		return;
	complete(lk, smp, &c, ret, pc->role->zero_frees);
}

static void on_store(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	uint64_t ptr = 0;

	(void)s;
	if (field_u64(&pc->f_ptr, smp, &ptr))
		alloc_track__note_ptr(pc->lk->track, (pid_t)smp->tid, ALLOC_POSIX_MEMALIGN, ptr);
}

static void on_free(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct leak *lk = pc->lk;
	uint64_t ptr = 0;

	(void)s;
	if (!field_u64(&pc->f_ptr, smp, &ptr) || !ptr)
		return;
	/* A free inside realloc is realloc's business. */
	if (alloc_track__busy(lk->track, (pid_t)smp->tid))
		return;
	release(lk, smp, (pid_t)smp->pid, ptr, 0);
}

/* mmap/mremap/brk entry.  Only anonymous memory is allocation: not file
 * mappings, not MAP_FIXED over an existing mapping (ld.so's .bss), not
 * thread stacks (MAP_STACK: glibc caches them), not PROT_NONE address
 * space reserved for later (glibc's per-thread arenas reserve 64 MiB
 * that way, from inside free() when a thread's first free sets up its
 * tcache, where no return probe marks the call as the allocator's). */
static void on_sys_enter(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct leak *lk = pc->lk;
	struct alloc_call c = { .fn = pc->fn, .time = smp->time };
	uint64_t flags = 0, prot = 0, brk = 0;

	(void)s;
	switch (pc->fn) {
	case ALLOC_MMAP:
		if (!field_u64(&pc->f_len, smp, &c.size) || !field_u64(&pc->f_flags, smp, &flags) ||
		    !field_u64(&pc->f_prot, smp, &prot))
			return;
		if (!(flags & MAP_ANONYMOUS) || (flags & (MAP_FIXED | MAP_STACK)) || prot == PROT_NONE)
			c.size = 0;	/* not an allocation: ignored at its exit */
		break;
	case ALLOC_MREMAP:
		if (!field_u64(&pc->f_addr, smp, &c.old) || !field_u64(&pc->f_old_len, smp, &c.old_size) ||
		    !field_u64(&pc->f_len, smp, &c.size))
			return;
		break;
	case ALLOC_BRK:
		if (!field_u64(&pc->f_size, smp, &c.size))
			return;
		if (hashmap__get(lk->breaks, (uint64_t)smp->pid, &brk))
			c.old = brk;
		break;
	default:
		return;
	}
	if (alloc_track__enter(lk->track, (pid_t)smp->tid, &c))
		lk->err = -ENOMEM;
}

static void on_sys_exit(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct leak *lk = pc->lk;
	struct alloc_call c;
	uint64_t ret = 0;

	(void)s;
	if (!field_u64(&pc->f_ret, smp, &ret))
		return;
	/* A syscall never nests: its exit pairs with the innermost entry. */
	if (alloc_track__leave(lk->track, (pid_t)smp->tid, 0, &c) || c.fn != pc->fn)
		return;
	/* The break moves whoever moved it, malloc included. */
	if (c.fn == ALLOC_BRK && !(ret >= (uint64_t)-4095) &&
	    hashmap__set(lk->breaks, (uint64_t)smp->pid, ret))
		lk->err = -ENOMEM;
	if (c.inner || (c.fn == ALLOC_MMAP && !c.size))
		return;
	complete(lk, smp, &c, ret, false);
}

static void on_munmap(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct leak *lk = pc->lk;
	uint64_t addr = 0, len = 0;

	(void)s;
	if (!field_u64(&pc->f_addr, smp, &addr) || !field_u64(&pc->f_len, smp, &len) || !len)
		return;
	if (alloc_track__busy(lk->track, (pid_t)smp->tid))
		return;
	release(lk, smp, (pid_t)smp->pid, addr, len);
}

static void on_k_alloc(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct leak *lk = pc->lk;
	uint64_t ptr = 0, size = 0, order = 0;

	(void)s;
	if (lk->filter_pid && (pid_t)smp->pid != lk->filter_pid)
		return;
	if (!field_u64(&pc->f_ptr, smp, &ptr) || ptr <= 16)	/* NULL, ZERO_SIZE_PTR */
		return;
	if (pc->key_space == (uint64_t)KPID_PAGE) {
		if (!field_u64(&pc->f_order, smp, &order) || order > 20)
			return;
		size = 4096ULL << order;
	} else if (!field_u64(&pc->f_size, smp, &size)) {
		return;
	}
	keep(lk, smp, (pid_t)pc->key_space, ptr, size, false, true);
}

static void on_k_free(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	uint64_t ptr = 0;

	(void)s;
	if (field_u64(&pc->f_ptr, smp, &ptr) && ptr > 16)
		release(pc->lk, smp, (pid_t)pc->key_space, ptr, 0);
}

static void on_exec(struct session *s, pid_t pid, void *ctx)
{
	struct leak *lk = ctx;

	(void)s;
	/* A new image: the old heap and mappings are gone, not leaked. */
	lk->dropped_exec += alloc_track__drop_pid(lk->track, pid);
	hashmap__delete(lk->breaks, (uint64_t)pid, NULL);
}

static void on_thread_exit(struct session *s, pid_t pid, pid_t tid, void *ctx)
{
	struct leak *lk = ctx;

	(void)s;
	alloc_track__forget_thread(lk->track, tid);
	if (pid == tid)
		hashmap__delete(lk->breaks, (uint64_t)pid, NULL);
}

/* ---- report ---- */

struct entry {
	pid_t pid;
	uint32_t stack;
	uint64_t bytes, count;
	size_t first_alloc;	/* -a: index in allocs[] after sorting */
};

struct gather {
	struct leak *lk;
	struct hashmap *idx;	/* pid << 32 | stack -> index + 1 */
	struct entry *entries;
	size_t n;
	struct alloc_rec *allocs;	/* -a */
	size_t nallocs;
	uint64_t min_time;		/* younger blocks are left out */
	uint64_t scale;			/* -s: what one sampled block stands for */
	bool any_pid_differs;
	pid_t first_pid;
	int err;
};

static pid_t report_pid(pid_t pid)
{
	return pid <= 0 ? 0 : pid;	/* kernel address spaces report as one */
}

static void gather_one(const struct alloc_rec *r, void *ctx)
{
	struct gather *g = ctx;
	pid_t pid = report_pid(r->pid);
	uint64_t key = (uint64_t)(uint32_t)pid << 32 | r->stack, idx;

	if (g->err || r->time > g->min_time)
		return;
	if (!hashmap__get(g->idx, key, &idx)) {
		struct entry *nv = realloc(g->entries, (g->n + 1) * sizeof(*nv));

		if (nv)
			g->entries = nv;
		if (!nv || hashmap__set(g->idx, key, g->n + 1)) {
			g->err = -ENOMEM;
			return;
		}
		nv[g->n] = (struct entry){ .pid = pid, .stack = r->stack };
		idx = ++g->n;
		if (g->n == 1)
			g->first_pid = pid;
		else if (pid != g->first_pid)
			g->any_pid_differs = true;
	}
	/* Sampled blocks stand for sample_rate blocks each; regions are
	 * never sampled. */
	g->entries[idx - 1].bytes += r->size * (r->region ? 1 : g->scale);
	g->entries[idx - 1].count += r->region ? 1 : g->scale;
	if (g->lk->lo.show_allocs) {
		struct alloc_rec *nv = realloc(g->allocs, (g->nallocs + 1) * sizeof(*nv));

		if (!nv) {
			g->err = -ENOMEM;
			return;
		}
		g->allocs = nv;
		nv[g->nallocs++] = *r;
	}
}

/* Ascending: BCC prints the largest last, nearest the prompt.  @ctx: a
 * bool, sort by count rather than bytes. */
static int cmp_entry(const void *a, const void *b, void *ctx)
{
	const struct entry *x = a, *y = b;
	bool by_count = *(const bool *)ctx;
	uint64_t kx = by_count ? x->count : x->bytes, ky = by_count ? y->count : y->bytes;

	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int cmp_alloc(const void *a, const void *b)
{
	const struct alloc_rec *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static void print_allocs(struct gather *g, const struct entry *e, const char *indent)
{
	for (size_t i = 0; i < g->nallocs; i++) {
		const struct alloc_rec *r = &g->allocs[i];

		if (report_pid(r->pid) != e->pid || r->stack != e->stack)
			continue;
		if (g->lk->o.json)
			printf("%s{\"addr\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 "}",
			       indent, r->addr, r->size);
		else
			printf("%saddr = %" PRIx64 " size = %" PRIu64 "\n", indent, r->addr, r->size);
		indent = g->lk->o.json ? "," : indent;
	}
}

static const char *entry_comm(struct leak *lk, pid_t pid)
{
	return pid ? session__comm(lk->s, pid) : "[kernel]";
}

static void print_report(struct leak *lk, bool final_all)
{
	uint64_t scale = lk->lo.sample_rate > 1 ? lk->lo.sample_rate : 1;
	struct gather g = { .lk = lk, .min_time = UINT64_MAX, .scale = scale };
	struct report r;
	char clock[16];
	size_t first;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!final_all && lk->lo.older_ms) {
		uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;

		g.min_time = now_ns - lk->lo.older_ms * 1000000ULL;
	}
	g.idx = hashmap__new();
	if (!g.idx) {
		lk->err = -ENOMEM;
		return;
	}
	alloc_track__foreach(lk->track, gather_one, &g);
	if (g.err) {
		lk->err = g.err;
		goto out;
	}
	if (g.n)
		qsort_r(g.entries, g.n, sizeof(*g.entries), cmp_entry, &lk->lo.sort_count);
	if (g.nallocs)
		qsort(g.allocs, g.nallocs, sizeof(*g.allocs), cmp_alloc);
	first = g.n > lk->lo.top ? g.n - lk->lo.top : 0;
	report__init(&r, lk->s, stdout, lk->o.srcline);
	{
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	}
	if (!lk->o.json && !lk->o.folded) {
		printf("[%s] Top %u stacks with outstanding allocations:\n", clock, lk->lo.top);
		if (scale > 1)
			printf("\t(sampled 1 allocation in %" PRIu64 ": bytes and counts are estimates)\n",
			       scale);
	}
	for (size_t i = first; i < g.n; i++) {
		const struct entry *e = &g.entries[i];
		const char *comm = entry_comm(lk, e->pid);

		if (lk->o.folded) {
			report__folded(&r, e->pid, comm, e->stack, e->bytes);
		} else if (lk->o.json) {
			printf("{\"type\":\"stack\",\"pid\":%d,\"comm\":", (int)e->pid);
			report__json_str(stdout, comm);
			printf(",\"bytes\":%" PRIu64 ",\"allocations\":%" PRIu64, e->bytes,
			       e->count);
			if (lk->lo.show_allocs) {
				printf(",\"allocs\":[");
				print_allocs(&g, e, "");
				printf("]");
			}
			printf(",\"stack\":");
			report__stack_json(&r, e->pid, e->stack);
			printf("}\n");
		} else {
			if (lk->lo.show_allocs)
				print_allocs(&g, e, "\taddr = ");
			if (g.any_pid_differs)
				printf("\t%" PRIu64 " bytes in %" PRIu64 " allocations from stack of pid %d (%s)\n",
				       e->bytes, e->count, (int)e->pid, comm);
			else
				printf("\t%" PRIu64 " bytes in %" PRIu64 " allocations from stack\n",
				       e->bytes, e->count);
			report__stack(&r, e->pid, e->stack, "\t\t", true);
		}
	}
	if (!lk->o.folded) {
		uint64_t bytes = 0, count = 0;

		for (size_t i = 0; i < g.n; i++) {
			bytes += g.entries[i].bytes;
			count += g.entries[i].count;
		}
		if (lk->o.json) {
			printf("{\"type\":\"leak_summary\",\"outstanding_bytes\":%" PRIu64
			       ",\"outstanding_allocations\":%" PRIu64 ",\"stacks\":%zu,\"sample_rate\":%"
			       PRIu64 ",\"traced_allocs\":%" PRIu64 ",\"traced_frees\":%" PRIu64
			       ",\"untracked_frees\":%" PRIu64 ",\"failed\":%" PRIu64
			       ",\"dropped_at_exec\":%" PRIu64 ",\"replaced\":%" PRIu64
			       ",\"loader_regions\":%" PRIu64 "}\n",
			       bytes, count, g.n, scale, lk->allocs, lk->frees,
			       lk->unknown_frees, lk->failed, lk->dropped_exec,
			       alloc_track__replaced(lk->track), lk->loader_regions);
		} else {
			printf("%" PRIu64 " bytes in %" PRIu64 " allocations outstanding from %zu stacks"
			       "; %" PRIu64 " allocations and %" PRIu64 " frees traced, %" PRIu64
			       " frees of blocks not seen allocated, %" PRIu64 " failed calls",
			       bytes, count, g.n, lk->allocs, lk->frees,
			       lk->unknown_frees, lk->failed);
			if (lk->dropped_exec)
				printf(", %" PRIu64 " dropped at exec", lk->dropped_exec);
			if (lk->loader_regions)
				printf(", %" PRIu64 " regions of the dynamic loader's own left out",
				       lk->loader_regions);
			if (alloc_track__replaced(lk->track))
				printf(", %" PRIu64 " reused addresses whose free was missed",
				       alloc_track__replaced(lk->track));
			printf("\n");
		}
		report__footer(&r, lk->o.json);
	}
	report__fini(&r);
	fflush(stdout);
out:
	hashmap__free(g.idx);
	free(g.entries);
	free(g.allocs);
}

static void on_round(void *ctx)
{
	struct leak *lk = ctx;
	struct timespec now;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
	if (!lk->next_report_ns) {
		lk->next_report_ns = ns + (uint64_t)(lk->lo.every.secs * 1e9);
		return;
	}
	if (ns < lk->next_report_ns)
		return;
	lk->next_report_ns = ns + (uint64_t)(lk->lo.every.secs * 1e9);
	print_report(lk, false);
	if (lk->lo.every.count && ++lk->reports >= lk->lo.every.count)
		raise(SIGINT);	/* the session's stop signal: ends it cleanly */
}

/* ---- setup ---- */

static struct probe_ctx *new_ctx(struct leak *lk, int kind)
{
	struct probe_ctx *pc = calloc(1, sizeof(*pc)), **nv;

	if (!pc)
		return NULL;
	nv = realloc(lk->ctxs, (lk->nctxs + 1) * sizeof(*nv));
	if (!nv) {
		free(pc);
		return NULL;
	}
	lk->ctxs = nv;
	nv[lk->nctxs++] = pc;
	pc->lk = lk;
	pc->kind = kind;
	return pc;
}

static const struct role *role_of(const char *probe, int *kind)
{
	static const struct { const char *suffix; int kind; } suffixes[] = {
		{ "_enter", KIND_ENTER }, { "_return", KIND_RETURN }, { "_store", KIND_STORE },
	};

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t ls = strlen(suffixes[i].suffix), lp = strlen(probe);

		if (lp <= ls || strcmp(probe + lp - ls, suffixes[i].suffix))
			continue;
		for (size_t r = 0; r < sizeof(roles) / sizeof(roles[0]); r++) {
			if (strlen(roles[r].name) == lp - ls && !strncmp(probe, roles[r].name, lp - ls)) {
				*kind = roles[r].is_free ? KIND_FREE : suffixes[i].kind;
				return &roles[r];
			}
		}
	}
	return NULL;
}

/* Which probe spec: --probes, else by the -O library's name. */
static const char *spec_name(const struct leak_opts *lo)
{
	if (lo->probes)
		return lo->probes;
	if (lo->obj && strstr(lo->obj, "jemalloc"))
		return "jemalloc";
	if (lo->obj && strstr(lo->obj, "tcmalloc"))
		return "tcmalloc";
	return "glibc";
}

struct placed {
	char path[PATH_MAX];
	uint64_t off;
	int kind;
};

static int add_user_probes(struct leak *lk, struct errbuf *eb)
{
	struct probe_set *set = NULL;
	struct placed *placed = NULL;
	const char *name = spec_name(&lk->lo);
	size_t nplaced = 0;
	bool have_malloc = false, have_free = false;
	int err;

	if (strchr(name, '/'))
		err = probe_set__load(name, &set, eb);
	else
		err = probe_set__load_named(name, &set, eb);
	if (!err)
		err = probe_set__retarget(set, lk->lo.obj, lk->lo.prefix);
	if (err)
		goto out;
	placed = calloc(probe_set__count(set) + 1, sizeof(*placed));
	if (!placed) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < probe_set__count(set); i++) {
		const struct probe_spec *spec = probe_set__at(set, i);
		struct placed *pl = &placed[nplaced];
		struct tp_event *ev = NULL;
		struct probe_ctx *pc;
		unsigned int flags = 0;
		bool dup = false;
		int kind;
		const struct role *role = role_of(spec->name, &kind);
		session_sample_fn fn;

		if (!role) {
			err = errbuf__set(eb, -EINVAL,
					  "probe '%s' of spec '%s' has no known role (malloc_enter, "
					  "free_enter, realloc_return...)", spec->name, name);
			goto out;
		}
		/* An entry probe alone may take the cheap placement; one
		 * sharing its function with a return probe stays at the
		 * entry, the breakpoint both then share. */
		if (kind == KIND_FREE && spec->kind == PROBE_ENTRY)
			flags |= SESSION_PLACE_CHEAP;
		err = session__uprobe_locate(lk->s, spec, flags, pl->path, sizeof(pl->path), &pl->off,
					     eb);
		if (err == -ENOENT && strcmp(role->name, "malloc") && strcmp(role->name, "free")) {
			err = 0;	/* this allocator lacks the function */
			continue;
		}
		if (err == -ENOEXEC && kind == KIND_STORE) {
			lk->posix_memalign_untracked = true;
			fprintf(stderr, "faultline " TOOL ": warning: %s; posix_memalign blocks are not "
				"tracked\n", eb->msg);
			err = 0;
			continue;
		}
		if (err)
			goto out;
		pl->kind = spec->kind;
		for (size_t k = 0; k < nplaced; k++)
			dup |= placed[k].off == pl->off && placed[k].kind == pl->kind &&
			       !strcmp(placed[k].path, pl->path);
		if (dup)
			continue;	/* one function, two names */
		nplaced++;
		pc = new_ctx(lk, kind);
		if (!pc) {
			err = -ENOMEM;
			goto out;
		}
		pc->role = role;
		switch (kind) {
		case KIND_RETURN:
			flags |= SESSION_USER_STACK;
			fn = on_return;
			break;
		case KIND_STORE:
			fn = on_store;
			break;
		case KIND_FREE:
			fn = on_free;
			have_free = true;
			break;
		default:
			fn = on_enter;
			have_malloc |= role->fn == ALLOC_MALLOC;
			break;
		}
		err = session__add_uprobe(lk->s, spec, flags, fn, pc, &ev, eb);
		if (err)
			goto out;
		pc->has_sp = !tp_event__field(ev, "sp", &pc->f_sp);
		pc->has_nmemb = !tp_event__field(ev, "nmemb", &pc->f_nmemb);
		pc->has_ptr = !tp_event__field(ev, "ptr", &pc->f_ptr);
		if ((kind == KIND_ENTER && tp_event__field(ev, "size", &pc->f_size)) ||
		    (kind == KIND_RETURN && tp_event__field(ev, "ret", &pc->f_ret)) ||
		    ((kind == KIND_FREE || kind == KIND_STORE) && !pc->has_ptr)) {
			err = errbuf__set(eb, -EINVAL, "probe '%s' of spec '%s' lacks the fetcharg its "
					  "role reads (size, ret or ptr)", spec->name, name);
			goto out;
		}
		/* Sizes filtered in the kernel where the size alone decides:
		 * not calloc (a product) nor realloc (whose 0 frees). */
		if (kind == KIND_ENTER && !pc->has_nmemb && role->fn != ALLOC_REALLOC &&
		    (lk->lo.min_size || lk->lo.max_size)) {
			char filter[96];

			if (lk->lo.max_size)
				snprintf(filter, sizeof(filter), "size >= %" PRIu64 " && size <= %" PRIu64,
					 lk->lo.min_size, lk->lo.max_size);
			else
				snprintf(filter, sizeof(filter), "size >= %" PRIu64, lk->lo.min_size);
			err = session__set_filter(lk->s, ev, filter, eb);
			if (err)
				goto out;
		}
		if (kind == KIND_FREE) {
			err = session__set_filter(lk->s, ev, "ptr != 0", eb);
			if (err)
				goto out;
		}
	}
	if (!have_malloc || !have_free)
		err = errbuf__set(eb, -ENOENT, "probe spec '%s' found no malloc or no free to probe",
				  name);
out:
	free(placed);
	probe_set__free(set);
	return err;
}

static int add_event(struct leak *lk, const char *sys, const char *event, int kind,
		     enum alloc_fn fn, uint64_t key_space, unsigned int flags, struct errbuf *eb)
{
	static const session_sample_fn fns[] = {
		[KIND_SYS_ENTER] = on_sys_enter, [KIND_SYS_EXIT] = on_sys_exit,
		[KIND_MUNMAP] = on_munmap, [KIND_K_ALLOC] = on_k_alloc, [KIND_K_FREE] = on_k_free,
	};
	struct probe_ctx *pc = new_ctx(lk, kind);
	struct tp_event *ev = NULL;
	int err;

	if (!pc)
		return -ENOMEM;
	pc->fn = fn;
	pc->key_space = key_space;
	err = session__add_tracepoint(lk->s, sys, event, flags, fns[kind], pc, &ev, eb);
	if (err)
		return err;
	/* Fields by name; which exist is the event's business. */
	tp_event__field(ev, "ret", &pc->f_ret);
	tp_event__field(ev, "addr", &pc->f_addr);
	if (tp_event__field(ev, "len", &pc->f_len))
		tp_event__field(ev, "new_len", &pc->f_len);
	tp_event__field(ev, "old_len", &pc->f_old_len);
	tp_event__field(ev, "flags", &pc->f_flags);
	tp_event__field(ev, "prot", &pc->f_prot);
	tp_event__field(ev, "order", &pc->f_order);
	if (tp_event__field(ev, "bytes_alloc", &pc->f_size) &&
	    tp_event__field(ev, "size", &pc->f_size))
		tp_event__field(ev, "brk", &pc->f_size);
	if (key_space == (uint64_t)KPID_PAGE) {
		/* pfn since 4.x; a struct page pointer before. */
		if (tp_event__field(ev, "pfn", &pc->f_ptr))
			tp_event__field(ev, "page", &pc->f_ptr);
	} else {
		tp_event__field(ev, "ptr", &pc->f_ptr);
	}
	return 0;
}

static bool has_tp(struct leak *lk, const char *sys, const char *event)
{
	return features__has_tracepoint(session__features(lk->s), sys, event);
}

static int add_syscall_events(struct leak *lk, struct errbuf *eb)
{
	static const struct {
		const char *enter, *exit;
		enum alloc_fn fn;
	} calls[] = {
		{ "sys_enter_mmap", "sys_exit_mmap", ALLOC_MMAP },
		{ "sys_enter_mremap", "sys_exit_mremap", ALLOC_MREMAP },
		{ "sys_enter_brk", "sys_exit_brk", ALLOC_BRK },
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && !err; i++) {
		if (!has_tp(lk, "syscalls", calls[i].enter) || !has_tp(lk, "syscalls", calls[i].exit))
			continue;
		err = add_event(lk, "syscalls", calls[i].enter, KIND_SYS_ENTER, calls[i].fn, 0, 0, eb);
		if (!err)
			err = add_event(lk, "syscalls", calls[i].exit, KIND_SYS_EXIT, calls[i].fn, 0,
					SESSION_USER_STACK, eb);
	}
	if (!err && has_tp(lk, "syscalls", "sys_enter_munmap"))
		err = add_event(lk, "syscalls", "sys_enter_munmap", KIND_MUNMAP, ALLOC_MMAP, 0, 0, eb);
	return err;
}

static int add_kernel_events(struct leak *lk, struct errbuf *eb)
{
	static const struct {
		const char *sys, *event;
		int kind;
		int space;
		bool percpu;
	} evs[] = {
		{ "kmem", "kmalloc", KIND_K_ALLOC, KPID_SLAB, false },
		{ "kmem", "kmalloc_node", KIND_K_ALLOC, KPID_SLAB, false },		/* < 6.1 */
		{ "kmem", "kmem_cache_alloc", KIND_K_ALLOC, KPID_SLAB, false },
		{ "kmem", "kmem_cache_alloc_node", KIND_K_ALLOC, KPID_SLAB, false },	/* < 6.1 */
		{ "kmem", "kfree", KIND_K_FREE, KPID_SLAB, false },
		{ "kmem", "kmem_cache_free", KIND_K_FREE, KPID_SLAB, false },
		{ "kmem", "mm_page_alloc", KIND_K_ALLOC, KPID_PAGE, false },
		{ "kmem", "mm_page_free", KIND_K_FREE, KPID_PAGE, false },
		{ "kmem", "mm_page_free_batched", KIND_K_FREE, KPID_PAGE, false },
		{ "percpu", "percpu_alloc_percpu", KIND_K_ALLOC, KPID_PCPU, true },
		{ "percpu", "percpu_free_percpu", KIND_K_FREE, KPID_PCPU, true },
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]) && !err; i++) {
		if (evs[i].percpu && !lk->lo.percpu)
			continue;
		if (!has_tp(lk, evs[i].sys, evs[i].event))
			continue;
		err = add_event(lk, evs[i].sys, evs[i].event, evs[i].kind, ALLOC_MALLOC,
				(uint64_t)(int64_t)evs[i].space,
				evs[i].kind == KIND_K_ALLOC ? SESSION_KERNEL_STACK : 0, eb);
	}
	return err;
}

int cmd_leak(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "kernel", no_argument, NULL, 'k' },
		{ "trace", no_argument, NULL, 't' },
		{ "show-allocs", no_argument, NULL, 'a' },
		{ "older", required_argument, NULL, 'o' },
		{ "sample-rate", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'T' },
		{ "min-size", required_argument, NULL, 'z' },
		{ "max-size", required_argument, NULL, 'Z' },
		{ "obj", required_argument, NULL, 'O' },
		{ "symbols-prefix", required_argument, NULL, OPT_PREFIX },
		{ "probes", required_argument, NULL, OPT_PROBES },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "percpu", no_argument, NULL, OPT_PERCPU },
		{ "combined-only", no_argument, NULL, OPT_COMBINED },
		{ NULL, 0, NULL, 0 },
	};
	struct leak lk = { .lo = { .older_ms = 500, .sample_rate = 1, .top = 10,
				   .every = { .secs = 5 } } };
	struct tool_extra extra = { "ktao:s:T:z:Z:O:", longopts, leak_opt, leak_positional, &lk.lo };
	struct errbuf eb = { "" };
	const char *rung, *label;
	int ret, err;

	ret = tool_opts__parse_ext(&lk.o, TOOL, TOOL_OPT_FOLDED, usage, help, &extra, argc, argv);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	if (lk.lo.max_size && lk.lo.min_size > lk.lo.max_size) {
		fprintf(stderr, "faultline " TOOL ": -z %" PRIu64 " is above -Z %" PRIu64 "\n",
			lk.lo.min_size, lk.lo.max_size);
		return EXIT_USAGE;
	}
	if (!lk.o.sess.pid && !lk.o.sess.cmd)
		lk.lo.kernel = true;
	if (lk.lo.percpu && !lk.lo.kernel) {
		fprintf(stderr, "faultline " TOOL ": --percpu is for kernel mode (-k)\n");
		return EXIT_USAGE;
	}
	if (lk.lo.kernel && (lk.lo.obj || lk.lo.prefix || lk.lo.probes)) {
		fprintf(stderr, "faultline " TOOL ": -O, --symbols-prefix and --probes are for user "
			"allocators (-p or -c without -k)\n");
		return EXIT_USAGE;
	}
	/* Kernel frees happen in any context (RCU, softirq, another task):
	 * watch every CPU, and keep the target's allocations only. */
	lk.o.sess.system_wide = lk.lo.kernel;
	ret = EXIT_FAIL;
	err = alloc_track__new(&lk.track);
	lk.breaks = hashmap__new();
	if (err || !lk.breaks) {
		fprintf(stderr, "faultline " TOOL ": out of memory\n");
		goto out;
	}
	lk.s = tool__start(&lk.o, lk.lo.kernel ? "leak -k" : TOOL, &rung, &label);
	if (!lk.s)
		goto out;
	session__on_task(lk.s, on_exec, on_thread_exit, &lk);
	if (lk.lo.kernel) {
		lk.filter_pid = session__target_pid(lk.s) > 0 ? session__target_pid(lk.s) : 0;
		err = add_kernel_events(&lk, &eb);
	} else {
		err = add_user_probes(&lk, &eb);
		if (!err)
			err = add_syscall_events(&lk, &eb);
	}
	if (err) {
		ret = tool__fail(TOOL, &eb, err);
		goto out;
	}
	if (lk.lo.trace && !lk.o.json && !lk.o.folded)
		printf("%-12s %-7s %-7s %-16s %s\n", "TIME(s)", "PID", "TID", "COMM", "EVENT");
	if (tool__run_with(lk.s, &lk.o, TOOL, lk.lo.kernel ? "kernel allocations" : "allocations",
			   label, on_round, &lk))
		goto out;
	if (lk.err) {
		ret = tool__fail(TOOL, NULL, lk.err);
		goto out;
	}
	/* After a -c command's exit, everything it still had is a leak,
	 * whatever its age. */
	if (!lk.lo.every.count || lk.reports < lk.lo.every.count)
		print_report(&lk, session__stop_reason(lk.s) == SESSION_STOP_TARGET_EXIT);
	ret = lk.err ? tool__fail(TOOL, NULL, lk.err) : EXIT_OK;
out:
	session__free(lk.s);
	for (size_t i = 0; i < lk.nctxs; i++)
		free(lk.ctxs[i]);
	free(lk.ctxs);
	hashmap__free(lk.breaks);
	alloc_track__free(lk.track);
	return ret;
}
