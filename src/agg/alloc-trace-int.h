/*
 * alloc-trace-int: the allocation tracer's insides (alloc-trace.h says
 * what it does), shared by its files, each with one job:
 *
 *   alloc-trace.c          the public front: the tracer made on its rung
 *                          (allocator probes and the program's own
 *                          mappings, or the kmem tracepoints) and freed,
 *                          what it tells; the contexts of its events
 *   alloc-trace-probes.c   the allocator's probes, placed from its spec
 *   alloc-trace-sample.c   -s N: whether the kernel samples, and why not
 *   alloc-trace-calls.c    the allocator's calls: an entry paired with its
 *                          return, frees, posix_memalign's store, the
 *                          returns the kernel sampled
 *   alloc-trace-regions.c  what the program maps itself: mmap, mremap,
 *                          brk, munmap (tracepoints or libc's wrappers)
 *   alloc-trace-kernel.c   kernel mode: the kmem tracepoints
 *   alloc-trace-keep.c     the table's doors: what is kept (sizes,
 *                          sampling, not the loader's nor a static
 *                          glibc's start-up), what a free releases
 *   alloc-trace-procs.c    processes and threads: exec, fork, a thread's
 *                          exit, lost events, and the state kept by them
 *   alloc-trace-late.c     allocators mapped once the run goes on
 *                          (dlopen'ed, exec'd), recorded and replayed
 *
 * What they share is named at__*.  Nothing outside these files includes
 * this.
 */
#ifndef FAULTLINE_ALLOC_TRACE_INT_H
#define FAULTLINE_ALLOC_TRACE_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agg/alloc-sample.h"
#include "agg/alloc-trace.h"
#include "agg/alloc-track.h"
#include "lib/errbuf.h"
#include "trace/sample.h"
#include "trace/session.h"
#include "trace/tp-catalog.h"

struct hashmap;
struct map;
struct probe_set;
struct probe_spec;
struct tp_event;

/* What a probe of the spec does, by its name without _enter/_return. */
struct role {
	const char *name;
	enum alloc_fn fn;
	bool is_free;
	bool zero_frees;	/* realloc(p, 0) frees p */
};

/* One event of the session and how to read it. */
struct probe_ctx {
	struct alloc_trace *at;
	const struct role *role;
	enum alloc_fn fn;		/* syscall and kernel events */
	struct tp_field f_size, f_nmemb, f_ptr, f_sp, f_ret, f_addr, f_len, f_flags, f_old_len,
		f_order, f_prot, f_hsz;
	bool has_nmemb, has_sp, has_ptr, has_flags, has_hsz;
	int kind;			/* KIND_* */
	uint64_t key_space;		/* kernel: which address space (slab, page, percpu) */
};

enum {
	KIND_ENTER, KIND_RETURN, KIND_STORE, KIND_FREE,	/* the allocator's probes */
	KIND_EVENT,	/* a tracepoint, or a libc wrapper standing in for one */
};

/* Kernel allocations live in the table under these pseudo-pids, one per
 * address space: a pfn and a slab pointer may be equal numbers. */
#define KPID_SLAB 0
#define KPID_PAGE (-2)
#define KPID_PCPU (-3)

/* An object's probes: the roles placed ("malloc, calloc, ..., free"), in
 * which file. */
struct probed {
	char roles[256];
	char path[PATH_MAX];
};

/* at->objs values. */
enum { OBJ_PLAIN = 1, OBJ_PROBED = 2, OBJ_UNPROBED = 3 };

/* An allocator probed once the run went on. */
struct late {
	struct probed p;
	char line[PATH_MAX + 300];	/* "jemalloc in PATH (dlopen'ed by pid N)" */
};

struct alloc_trace {
	struct alloc_trace_opts o;
	struct alloc_trace_hooks h;
	struct session *s;
	struct alloc_track *track;
	struct hashmap *breaks;		/* pid -> program break after its last brk */
	struct hashmap *last_free;	/* tid -> the block its last free released, */
	struct hashmap *last_free_probe;	/* and that free's probe; until it allocates */
	struct probe_ctx **ctxs;
	size_t nctxs;
	pid_t filter_pid;		/* kernel mode with a target: its allocations */
	uint64_t exec_time;		/* of the exec whose blocks go (on_gone) */
	struct alloc_trace_stats st;
	/* -s N: the rule; by address bits (ALLOC_SAMPLE_BITS) exactly when
	 * the kernel applies it (the return, store and free probes
	 * filtered; no entry probe but realloc's, which frees), or applied
	 * it to the recording replayed: ksampled(). */
	struct alloc_sample sample;
	char sampling[640];
	struct hashmap *last_ret;	/* ksampled(): tid -> the block its last return made */
	bool posix_memalign_untracked;
	/* A static glibc's start-up functions (file offsets in its
	 * executable, device and inode): blocks made there are left out. */
	struct { uint64_t off, end; } startup[3];
	size_t nstartup;
	uint64_t startup_ino;
	uint32_t startup_maj, startup_min;
	char obj[PATH_MAX];		/* the allocator found, when opts gave none */
	char found[96];			/* what it is: "static glibc", "jemalloc, preloaded" */
	struct probed first;		/* its roles probed, and where */
	/* Objects mapped once the run goes on, by device and inode
	 * (obj_key()): OBJ_PLAIN no allocator, OBJ_PROBED probed (the first
	 * allocator's from the start), OBJ_UNPROBED an allocator whose
	 * probes failed. */
	struct hashmap *objs;
	/* pid -> 1 once it entered a probed allocator function since its
	 * exec (or the start): its libraries are loaded, a new one is
	 * dlopen'ed. */
	struct hashmap *running;
	/* pid -> 1 from its exec until it maps an object that defines malloc:
	 * ld.so maps the executable's allocator first (the program, its
	 * preloads, then its libraries in load order), so that object is the
	 * one its malloc calls: a program exec'd into a container, with the
	 * container's libc, gets that libc probed. */
	struct hashmap *fresh;
	/* -O or --probes named the object: no other is looked for after exec. */
	bool chosen;
	struct late *late;		/* the allocators probed late */
	size_t nlate;
	char line[PATH_MAX + 400];	/* alloc_trace__probed()'s */
	char warning[1100];		/* errbuf message + what it means */
	int err;
};

/* The META of a recording whose allocations the kernel sampled (record
 * -s N): N. */
#define SAMPLE_META "alloc.sample"

/* Sampled in the kernel (or a recording that was): the rule is its. */
static inline bool ksampled(const struct alloc_trace *at)
{
	return at->sample.by == ALLOC_SAMPLE_BITS;
}

/* An object's identity in at->objs: device and inode. */
static inline uint64_t obj_key(uint32_t maj, uint32_t min, uint64_t ino)
{
	return ino ^ ((uint64_t)maj << 52) ^ ((uint64_t)min << 40);
}

static inline bool field_u64(const struct tp_field *f, const struct sample *smp, uint64_t *v)
{
	return tp_field__u64(f, smp->raw, smp->raw_size, v) == 0;
}

/* alloc-trace.c: a new context in at->ctxs (NULL: out of memory); a
 * tracepoint added with one, its fields read by name; whether the kernel
 * has a tracepoint. */
struct probe_ctx *at__new_ctx(struct alloc_trace *at, int kind);
void at__event_fields(struct probe_ctx *pc, const struct tp_event *ev, uint64_t key_space);
int at__add_event(struct alloc_trace *at, const char *sys, const char *event,
		  session_sample_fn handler, enum alloc_fn fn, uint64_t key_space,
		  unsigned int flags, struct errbuf *eb);
bool at__has_tp(struct alloc_trace *at, const char *sys, const char *event);

/* alloc-trace-probes.c */
int at__probe_object(struct alloc_trace *at, const char *name, const char *obj,
		     const char *suffix, struct probed *po, struct errbuf *eb);
int at__add_user_probes(struct alloc_trace *at, struct errbuf *eb);

/* alloc-trace-sample.c */
void at__describe_sampling(struct alloc_trace *at, const char *why);
bool at__sample_here(struct alloc_trace *at, const struct probe_set *set, const char *obj);
void at__sample_refused(struct alloc_trace *at, const struct errbuf *eb);
int at__sample_spec(struct alloc_trace *at, const struct probe_spec *spec, int kind,
		    struct probe_spec *out, char *buf, size_t n, struct errbuf *eb);
int at__recorded_sample(struct alloc_trace *at, const char *rate, struct errbuf *eb);

/* alloc-trace-calls.c: the handlers of the allocator's probes, and the
 * end of a call (its effect on the table, then the returned hook). */
void at__on_enter(struct session *s, const struct sample *smp, void *ctx);
void at__on_return(struct session *s, const struct sample *smp, void *ctx);
void at__on_made_sampled(struct session *s, const struct sample *smp, void *ctx);
void at__on_store(struct session *s, const struct sample *smp, void *ctx);
void at__on_free(struct session *s, const struct sample *smp, void *ctx);
void at__returned(struct alloc_trace *at, const struct sample *smp,
		  const struct alloc_rec *made);
void at__complete(struct alloc_trace *at, const struct sample *smp, const struct alloc_call *c,
		  uint64_t ret, bool zero_frees);

/* alloc-trace-regions.c */
int at__add_syscall_events(struct alloc_trace *at, struct errbuf *eb);

/* alloc-trace-kernel.c */
int at__add_kernel_events(struct alloc_trace *at, struct errbuf *eb);

/* alloc-trace-keep.c */
bool at__keep(struct alloc_trace *at, const struct sample *smp, struct alloc_rec *r,
	      bool kernel);
void at__release(struct alloc_trace *at, const struct sample *smp, pid_t pid, uint64_t addr,
		 uint64_t region_len);
void at__startup_find(struct alloc_trace *at, const char *path);
void at__startup_replay(struct alloc_trace *at, const char *meta);

/* alloc-trace-procs.c: the session consumer's process events */
void at__mark_running(struct alloc_trace *at, pid_t pid);
void at__on_exec(struct session *s, pid_t pid, uint64_t time, void *ctx);
void at__on_fork(struct session *s, pid_t parent, pid_t child, void *ctx);
void at__on_thread_exit(struct session *s, pid_t pid, pid_t tid, void *ctx);
void at__on_lost(struct session *s, uint64_t n, void *ctx);
void at__on_recorded(struct session *s, const struct sample *smp, session_sample_fn fn,
		     void *fn_ctx, void *ctx);

/* alloc-trace-late.c: the session consumer's mappings and metas */
void at__on_mmap(struct session *s, pid_t pid, const struct map *m, void *ctx);
void at__on_meta(struct session *s, const char *key, const char *value, void *ctx);

#endif
