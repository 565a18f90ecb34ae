/*
 * unwind-libunwind: the libunwind backend, remote unwinding of a sample's
 * registers and stack copy through accessors (as perf's
 * unwind-libunwind-local.c does).
 *
 * libunwind asks for three things.  Unwind info for an ip (find_proc_info):
 * we find the mapping, the binary behind it (from the session's one cache,
 * binary.h, held for the unwinder's life), its .eh_frame_hdr binary-search
 * table (noted by the cache at open), and let
 * libunwind's own dwarf_search_unwind_table look the ip up in it, at the
 * address the table has in the process.  Memory (access_mem): the stack
 * copy, or the bytes of the file behind a read-only file mapping, which is
 * how the table and .eh_frame it points into are read; nothing else, since
 * the heap and other stacks are gone by the time we look.  Registers
 * (access_reg): the sample's.  Binaries without .eh_frame_hdr (only a
 * .debug_frame) are not unwound: libunwind's .debug_frame reader is not
 * exported, and every linker builds .eh_frame_hdr by default.
 *
 * One libunwind address space per process: its register-state cache is
 * keyed by ip alone, so it must not serve another process's code at the
 * same address.  A single space flushed whenever the pid changes would lose
 * the cache on every sample of a trace of several processes; per process,
 * the cache is flushed only when that process's executable mappings change
 * (not on every mmap of data, which bumps the generation too).  Spaces are
 * bounded (least recently used one dropped) since pids come and go.  The
 * sample being unwound reaches the accessors through unw_init_remote's arg.
 *
 * The [vdso] has no file: its bytes are read from our own vDSO, the same
 * image for every 64-bit process under this kernel.  Code in no file
 * mapping (JIT, anonymous) ends the walk as NO_MAP.
 *
 * Where libunwind finds no unwind info it guesses the caller from rbp; in
 * code built without frame pointers that guess is noise, so a step whose
 * lookup found nothing ends the walk (NO_CFI, NO_MAP) whatever it gave.
 *
 * Cost: libunwind masks signals (two rt_sigprocmask calls) around every
 * use of its cache and of its allocator, whatever the caching policy; the
 * cache still saves the FDE search and CFI parse of each frame.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libunwind.h>

#include "stack/addrspace.h"
#include "stack/binary.h"
#include "lib/hashmap.h"
#include "stack/unwind.h"

/* Exported by libunwind-generic (as _Ux86_64_dwarf_search_unwind_table)
 * but not declared by its headers. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di,
					      unw_proc_info_t *pi, int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

enum {
	MAX_PROCS = 64,		/* libunwind address spaces kept */
	RS_CACHE_SIZE = 1024,	/* register states cached per process (default 128) */
	MEMOS = 2,		/* file mappings remembered per sample */
};

/* A process's libunwind address space and what its cache was built for. */
struct lu_proc {
	unw_addr_space_t uas;
	uint64_t generation;		/* addrspaces code generation */
	uint64_t exec_sig;		/* hash of the executable mappings */
	uint64_t last_use;
};

struct lu_state {
	struct addrspaces *as;
	unw_accessors_t accessors;	/* given to (and copied by) each address space */
	struct hashmap *procs;		/* pid -> struct lu_proc * */
	uint64_t clock;
	struct bincache *cache;		/* the session's binaries (binary.h) */
	struct hashmap *held;		/* struct binary * held -> 1: kept for the unwinder's life */
	uint64_t *sps;			/* per frame of the current walk, for loop checks */
	uint32_t sps_cap;
};

/* A file mapping already looked up during this sample. */
struct memo {
	uint64_t start, end, pgoff;
	const struct bin_image *img;
};

/* The sample being unwound, handed to the accessors as their arg. */
struct sample_ctx {
	struct lu_state *st;
	const struct unwind_input *in;
	uint64_t sp;
	enum unwind_stop no_info;	/* NO_MAP or NO_CFI for an ip; UNWIND__COUNT: none */
	bool off_copy;			/* a read ran past the stack copy */
	int err;			/* -ENOMEM from an accessor */
	struct memo memo[MEMOS];
	unsigned next_memo;
};

/* UNW_X86_64_* -> PERF_REG_X86_*. */
static const int8_t perf_reg_of[UNW_X86_64_RIP + 1] = {
	[UNW_X86_64_RAX] = PERF_REG_X86_AX, [UNW_X86_64_RDX] = PERF_REG_X86_DX,
	[UNW_X86_64_RCX] = PERF_REG_X86_CX, [UNW_X86_64_RBX] = PERF_REG_X86_BX,
	[UNW_X86_64_RSI] = PERF_REG_X86_SI, [UNW_X86_64_RDI] = PERF_REG_X86_DI,
	[UNW_X86_64_RBP] = PERF_REG_X86_BP, [UNW_X86_64_RSP] = PERF_REG_X86_SP,
	[UNW_X86_64_R8] = PERF_REG_X86_R8, [UNW_X86_64_R9] = PERF_REG_X86_R9,
	[UNW_X86_64_R10] = PERF_REG_X86_R10, [UNW_X86_64_R11] = PERF_REG_X86_R11,
	[UNW_X86_64_R12] = PERF_REG_X86_R12, [UNW_X86_64_R13] = PERF_REG_X86_R13,
	[UNW_X86_64_R14] = PERF_REG_X86_R14, [UNW_X86_64_R15] = PERF_REG_X86_R15,
	[UNW_X86_64_RIP] = PERF_REG_X86_IP,
};

static bool is_vdso(const struct map *m)
{
	return m->path && strcmp(m->path, "[vdso]") == 0;
}

/* A mapping whose bytes we can serve: a file's, or the vDSO. */
static bool has_image(const struct map *m)
{
	return m->path && (m->path[0] == '/' || is_vdso(m));
}

/* ---- binaries ---- */

/* What unwinding needs of an opened binary: 64-bit x86-64 with PT_LOADs. */
static const struct bin_image *usable(const struct binary *b)
{
	const struct bin_image *img = b ? binary__image(b) : NULL;

	if (!img || img->elfclass != ELFCLASS64 || img->machine != EM_X86_64 || !img->nloads)
		return NULL;
	return img;
}

/* The binary behind @m (a file, or the vDSO), opened on first use and held
 * for the unwinder's life; *out NULL when it cannot be used.  -ENOMEM only. */
static int get_image(struct lu_state *st, pid_t pid, const struct map *m, const struct bin_image **out)
{
	struct binary *b = NULL;
	uint64_t one;
	int err;

	*out = NULL;
	err = is_vdso(m) ? binary__vdso(st->cache, &b) : binary__get(st->cache, st->as, pid, m, &b);
	if (err || !b)
		return err;
	if (hashmap__get(st->held, (uint64_t)(uintptr_t)b, &one)) {
		binary__put(b);	/* held already */
	} else if (hashmap__set(st->held, (uint64_t)(uintptr_t)b, 1)) {
		binary__put(b);
		return -ENOMEM;
	}
	*out = usable(b);
	/* Our vDSO must fit the process's mapping of it, and be a few pages. */
	if (*out && is_vdso(m) && ((*out)->size > m->end - m->start || (*out)->size > (64u << 10)))
		*out = NULL;
	return 0;
}

/* The load bias of @img as mapped by @m, from an address @addr in it:
 * the PT_LOAD holding addr's file offset gives its vaddr. */
static bool image__bias(const struct bin_image *img, const struct map *m, uint64_t addr, uint64_t *bias)
{
	uint64_t off = addr - m->start + m->pgoff;

	for (size_t i = 0; i < img->nloads; i++) {
		const struct bin_load *l = &img->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*bias = addr - (off - l->offset + l->vaddr);
			return true;
		}
	}
	return false;
}

/* ---- accessors ---- */

/* The image behind the file mapping holding @addr, remembered for the
 * sample; NULL when there is none we can read. */
static const struct memo *lookup_file(struct sample_ctx *ctx, uint64_t addr)
{
	const struct map *m;
	const struct bin_image *img;
	struct memo *mo;

	for (unsigned i = 0; i < MEMOS; i++)
		if (ctx->memo[i].img && addr >= ctx->memo[i].start && addr < ctx->memo[i].end)
			return &ctx->memo[i];
	m = addrspaces__find(ctx->st->as, ctx->in->pid, addr);
	/* A writable mapping's memory is no longer its file's (relocations,
	 * data): only read-only ones are served from the file. */
	if (!m || !has_image(m) || (m->prot & PROT_WRITE))
		return NULL;
	if (get_image(ctx->st, ctx->in->pid, m, &img)) {
		ctx->err = -ENOMEM;
		return NULL;
	}
	if (!img)
		return NULL;
	mo = &ctx->memo[ctx->next_memo++ % MEMOS];
	*mo = (struct memo){ m->start, m->end, m->pgoff, img };
	return mo;
}

/* Whether a failed read at @addr means the walk ran off the stack copy:
 * at or above sp, and not in a mapping that is something else than a
 * stack (anonymous, or the main thread's [stack]). */
static bool beyond_copy(const struct sample_ctx *ctx, uint64_t addr)
{
	const struct map *m;

	if (addr < ctx->sp)
		return false;
	m = addrspaces__find(ctx->st->as, ctx->in->pid, addr);
	return !m || !m->path || strcmp(m->path, "[stack]") == 0;
}

static int lu_access_mem(unw_addr_space_t uas, unw_word_t addr, unw_word_t *valp, int write, void *arg)
{
	struct sample_ctx *ctx = arg;
	const struct unwind_input *in = ctx->in;
	const struct memo *mo;
	uint64_t off;

	if (write)
		return -UNW_EINVAL;
	/* The stack copy first: most reads are there. */
	if (in->stack && addr >= ctx->sp && addr - ctx->sp < in->stack_size &&
	    in->stack_size - (addr - ctx->sp) >= 8) {
		memcpy(valp, in->stack + (addr - ctx->sp), 8);
		if (in->npatches)
			unwind_input__patch(in, addr, valp, 8);
		return 0;
	}
	mo = lookup_file(ctx, addr);
	if (mo) {
		off = addr - mo->start + mo->pgoff;
		if (off < mo->img->size) {
			size_t n = mo->img->size - off < 8 ? mo->img->size - off : 8;

			/* Past the end of the file, its last page reads as 0. */
			*valp = 0;
			memcpy(valp, mo->img->data + off, n);
			return 0;
		}
	}
	if (beyond_copy(ctx, addr))
		ctx->off_copy = true;
	return -UNW_EINVAL;
}

static int lu_access_reg(unw_addr_space_t uas, unw_regnum_t regnum, unw_word_t *valp, int write, void *arg)
{
	struct sample_ctx *ctx = arg;
	uint64_t val;

	if (write)
		return -UNW_EREADONLYREG;
	if (regnum < 0 || regnum > UNW_X86_64_RIP || !unwind_input__reg(ctx->in, perf_reg_of[regnum], &val))
		return -UNW_EBADREG;
	*valp = val;
	return 0;
}

static int lu_access_fpreg(unw_addr_space_t uas, unw_regnum_t regnum, unw_fpreg_t *val, int write,
			   void *arg)
{
	return -UNW_EINVAL;
}

static int lu_resume(unw_addr_space_t uas, unw_cursor_t *c, void *arg)
{
	return -UNW_EINVAL;
}

static int lu_get_proc_name(unw_addr_space_t uas, unw_word_t addr, char *buf, size_t len, unw_word_t *offp,
			    void *arg)
{
	return -UNW_EINVAL;
}

/* No dynamically registered unwind info (JITs registering with libunwind
 * in the target cannot be read: its heap is not in the sample). */
static int lu_get_dyn_info_list_addr(unw_addr_space_t uas, unw_word_t *dil_addr, void *arg)
{
	return -UNW_ENOINFO;
}

/* dwarf_search_unwind_table's unwind info is libunwind's own to release. */
static void lu_put_unwind_info(unw_addr_space_t uas, unw_proc_info_t *pi, void *arg)
{
}

static int lu_find_proc_info(unw_addr_space_t uas, unw_word_t ip, unw_proc_info_t *pi, int need_unwind_info,
			     void *arg)
{
	struct sample_ctx *ctx = arg;
	const struct map *m = addrspaces__find(ctx->st->as, ctx->in->pid, ip);
	const struct bin_image *img;
	unw_dyn_info_t di;
	uint64_t bias;
	int ret;

	if (!m || !has_image(m)) {
		ctx->no_info = UNWIND_NO_MAP;
		return -UNW_ENOINFO;
	}
	if (get_image(ctx->st, ctx->in->pid, m, &img)) {
		ctx->err = -ENOMEM;
		return -UNW_ENOMEM;
	}
	if (!img || !img->has_eh_table || !image__bias(img, m, ip, &bias) || ip < img->min_vaddr + bias ||
	    ip >= img->hi + bias) {
		/* ip here is a call's address (libunwind looks up ip - 1). */
		ctx->no_info = img && image__bias(img, m, ip, &bias) &&
			       unwind__at_entry_point(img->elf, bias, ip) ? UNWIND_END : UNWIND_NO_CFI;
		return -UNW_ENOINFO;
	}
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = img->min_vaddr + bias;
	di.end_ip = img->hi + bias;
	/* Table entries are relative to .eh_frame_hdr (datarel). */
	di.u.rti.segbase = img->eh_hdr_vaddr + bias;
	di.u.rti.table_data = di.u.rti.segbase + img->eh_table_off;
	di.u.rti.table_len = img->eh_fde_count * 8 / sizeof(unw_word_t);
	ret = dwarf_search_unwind_table(uas, ip, &di, pi, need_unwind_info, arg);
	if (ret == -UNW_ENOINFO)
		ctx->no_info = unwind__at_entry_point(img->elf, bias, ip) ? UNWIND_END : UNWIND_NO_CFI;
	return ret;
}

/* ---- per-process address spaces ---- */

static void lu_proc__free(struct lu_proc *p)
{
	if (!p)
		return;
	if (p->uas)
		unw_destroy_addr_space(p->uas);
	free(p);
}

/* What the cached register states depend on: the executable mappings. */
static uint64_t exec_signature(const struct addrspaces *as, pid_t pid)
{
	size_t n;
	const struct map *maps = addrspaces__maps(as, pid, &n);
	uint64_t sig = 0;

	for (size_t i = 0; i < n; i++) {
		const struct map *m = &maps[i];
		uint64_t id[6] = { m->start, m->end, m->pgoff, m->ino, m->maj, m->min };

		if (!(m->prot & PROT_EXEC))
			continue;
		sig = (sig ^ hash_bytes(id, sizeof(id))) * 0x100000001b3ULL;
		if (m->path)
			sig ^= hash_bytes(m->path, strlen(m->path));
	}
	return sig;
}

/* Drop the least recently used address space. */
static void evict_one(struct lu_state *st)
{
	uint64_t key, value, lru_key = 0, lru_use = UINT64_MAX;
	size_t pos = 0;

	while (hashmap__next(st->procs, &pos, &key, &value)) {
		const struct lu_proc *p = (const struct lu_proc *)(uintptr_t)value;

		if (p->last_use < lru_use) {
			lru_use = p->last_use;
			lru_key = key;
		}
	}
	if (lru_use != UINT64_MAX && hashmap__delete(st->procs, lru_key, &value))
		lu_proc__free((struct lu_proc *)(uintptr_t)value);
}

/* @pid's address space, created on first use and flushed when its
 * executable mappings changed.  0 or -ENOMEM. */
static int get_proc(struct lu_state *st, pid_t pid, struct lu_proc **out)
{
	/* Only code changes can stale the cache: data mmaps (every large
	 * malloc) leave the code generation alone, so the signature is not
	 * recomputed on them. */
	uint64_t v, gen = addrspaces__code_generation(st->as, pid);
	struct lu_proc *p = NULL;
	int err = -ENOMEM;

	if (hashmap__get(st->procs, (uint64_t)pid, &v)) {
		p = (struct lu_proc *)(uintptr_t)v;
		if (p->generation != gen) {
			uint64_t sig = exec_signature(st->as, pid);

			if (sig != p->exec_sig)
				unw_flush_cache(p->uas, 0, 0);
			p->exec_sig = sig;
			p->generation = gen;
		}
		p->last_use = ++st->clock;
		*out = p;
		return 0;
	}
	if (hashmap__count(st->procs) >= MAX_PROCS)
		evict_one(st);
	p = calloc(1, sizeof(*p));
	if (!p)
		goto out;
	p->uas = unw_create_addr_space(&st->accessors, 0);
	if (!p->uas)
		goto out;
	/* Global: one cache per address space, i.e. per process (the
	 * per-thread cache would be shared by all of them). */
	if (unw_set_caching_policy(p->uas, UNW_CACHE_GLOBAL) || unw_set_cache_size(p->uas, RS_CACHE_SIZE, 0))
		goto out;
	p->generation = gen;
	p->exec_sig = exec_signature(st->as, pid);
	p->last_use = ++st->clock;
	if (hashmap__set(st->procs, (uint64_t)pid, (uint64_t)(uintptr_t)p))
		goto out;
	*out = p;
	p = NULL;
	err = 0;
out:
	lu_proc__free(p);
	return err;
}

/* ---- the backend ---- */

static void lu_fini(void *priv)
{
	struct lu_state *st = priv;
	uint64_t key, value;
	size_t pos = 0;

	if (!st)
		return;
	if (st->procs) {
		while (hashmap__next(st->procs, &pos, &key, &value))
			lu_proc__free((struct lu_proc *)(uintptr_t)value);
	}
	hashmap__free(st->procs);
	pos = 0;
	if (st->held) {
		while (hashmap__next(st->held, &pos, &key, &value))
			binary__put((struct binary *)(uintptr_t)key);
	}
	hashmap__free(st->held);
	bincache__unref(st->cache);
	free(st->sps);
	free(st);
}

static int lu_init(struct addrspaces *as, struct bincache *cache, void **priv)
{
	struct lu_state *st = NULL;
	int err = -ENOMEM;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		err = -EINVAL;
		goto out;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		goto out;
	st->as = as;
	st->cache = bincache__ref(cache);
	st->accessors = (unw_accessors_t){
		.find_proc_info = lu_find_proc_info,
		.put_unwind_info = lu_put_unwind_info,
		.get_dyn_info_list_addr = lu_get_dyn_info_list_addr,
		.access_mem = lu_access_mem,
		.access_reg = lu_access_reg,
		.access_fpreg = lu_access_fpreg,
		.resume = lu_resume,
		.get_proc_name = lu_get_proc_name,
	};
	st->procs = hashmap__new();
	st->held = hashmap__new();
	if (!st->procs || !st->held)
		goto out;
	*priv = st;
	st = NULL;
	err = 0;
out:
	lu_fini(st);
	return err;
}

/* Whether frame (ip, sp) was seen earlier in this walk.  A walk can only
 * come back to a state if sp did not grow, so only then is it searched. */
static bool seen(const struct lu_state *st, const uint64_t *ips, uint32_t n, uint64_t ip, uint64_t sp)
{
	if (sp > st->sps[n - 1])
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (ips[i] == ip && st->sps[i] == sp)
			return true;
	return false;
}

static int lu_unwind(void *priv, const struct unwind_input *in, uint64_t *ips, uint32_t max, uint32_t *n,
		     enum unwind_stop *stop)
{
	struct lu_state *st = priv;
	struct sample_ctx ctx = { .st = st, .in = in };
	struct lu_proc *p;
	unw_cursor_t cursor;
	uint64_t ip;
	int err, ret;

	*n = 0;
	*stop = UNWIND_MAX_DEPTH;
	if (!max)
		return 0;
	*stop = UNWIND_NO_REGS;
	if (!unwind_input__reg(in, PERF_REG_X86_IP, &ip))
		return 0;
	ips[(*n)++] = ip;
	if (!unwind_input__reg(in, PERF_REG_X86_SP, &ctx.sp))
		return 0;
	if (st->sps_cap < max) {
		uint64_t *sps = realloc(st->sps, max * sizeof(*sps));

		if (!sps)
			return -ENOMEM;
		st->sps = sps;
		st->sps_cap = max;
	}
	st->sps[0] = ctx.sp;
	err = get_proc(st, in->pid, &p);
	if (err)
		return err;
	*stop = UNWIND_ERROR;
	if (unw_init_remote(&cursor, p->uas, &ctx) < 0)
		return ctx.err;
	for (;;) {
		unw_word_t next_ip, next_sp;

		ctx.no_info = UNWIND__COUNT;
		ctx.off_copy = false;
		ret = unw_step(&cursor);
		if (ctx.err)
			return ctx.err;
		/* No info or no mapping: libunwind then guesses from rbp (and
		 * its reads may fail too), which in code without frame
		 * pointers is noise.  Stop, whatever the guess gave. */
		if (ctx.no_info != UNWIND__COUNT) {
			*stop = ctx.no_info;
			break;
		}
		if (ret == 0) {
			*stop = UNWIND_END;
			break;
		}
		if (ret < 0) {
			*stop = ctx.off_copy ? UNWIND_STACK_END : UNWIND_ERROR;
			break;
		}
		if (unw_get_reg(&cursor, UNW_REG_IP, &next_ip) < 0 ||
		    unw_get_reg(&cursor, UNW_REG_SP, &next_sp) < 0) {
			*stop = UNWIND_ERROR;
			break;
		}
		if (!next_ip) {
			*stop = UNWIND_END;
			break;
		}
		if (seen(st, ips, *n, next_ip, next_sp)) {
			*stop = UNWIND_ERROR;
			break;
		}
		/* A frame that does not fit: the walk was cut, not over. */
		if (*n == max) {
			*stop = UNWIND_MAX_DEPTH;
			break;
		}
		st->sps[*n] = next_sp;
		ips[(*n)++] = next_ip;
	}
	return 0;
}

/*
 * unwind_libunwind - the libunwind backend.  Its state (per-process
 * libunwind address spaces, opened binaries) lives from init to fini; the
 * addrspaces given to init must outlive it.  Not thread-safe: one unwinder
 * per thread.
 */
const struct unwind_backend unwind_libunwind = {
	.name = "libunwind",
	.init = lu_init,
	.fini = lu_fini,
	.unwind = lu_unwind,
};
