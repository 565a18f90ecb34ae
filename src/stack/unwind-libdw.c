/*
 * unwind-libdw: the DWARF unwinder backend built on elfutils' libdwfl, as
 * perf's util/unwind-libdw.c and eu-stack walk frames.
 *
 * Per process, one Dwfl with a module reported at its load bias for every
 * executable file mapping (and the vDSO), attached once to thread
 * callbacks that read the *current* sample: libdwfl allows a single
 * dwfl_attach_state per Dwfl, but dwfl_getthread_frames builds the initial
 * frame afresh through set_initial_registers on every call and keeps no
 * frame state between calls, so the Dwfl and the CFI it has parsed serve
 * sample after sample.  (perf built a new Dwfl per sample, opening every
 * binary again each time, which made its libdw unwinding 18x slower than
 * reusing it.)  A Dwfl is
 * kept per pid while the pid's code generation stands (data mappings do not
 * change it); a new one whose executable mappings are the same keeps it
 * too.  At most MAX_PROCS are kept, least recently used dropped
 * first, so tracing many short-lived processes stays bounded.
 *
 * Binaries come from the session's one cache (binary.h), shared with the
 * symbolizer: opened once per (device, inode, path), whichever process
 * maps them, and read whole into memory by libelf.  A kept Dwfl holds the
 * entries it reports; the cache frees the ones nobody holds past its
 * bound.  Each Dwfl gets the shared Elf through its find_elf callback as a
 * libelf duplicate (elf_begin on a reference counts it), so no file is
 * reopened or re-read per process.
 *
 * Memory the CFI asks for is served from the sample's stack copy; for other
 * addresses, from the bytes of a read-only mapping of a binary we hold
 * (not RELRO, which the loader wrote to).  Anything else fails the read:
 * the heap and other stacks are gone by the time we unwind.
 *
 * Only x86-64 processes: registers are mapped from perf's x86 layout to
 * the x86-64 DWARF numbering.
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

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "stack/addrspace.h"
#include "stack/binary.h"
#include "stack/cfi-table.h"
#include "lib/file.h"
#include "lib/hashmap.h"
#include "lib/sorted.h"
#include "stack/unwind.h"

enum {
	MAX_PROCS = 64,		/* Dwfls kept, one per process */
	DWARF_NREGS = 17,	/* x86-64: 16 general registers and the return address */
};

/* perf register (PERF_REG_X86_*) for each x86-64 DWARF register number. */
static const int dwarf_to_perf[DWARF_NREGS] = {
	PERF_REG_X86_AX, PERF_REG_X86_DX, PERF_REG_X86_CX, PERF_REG_X86_BX,
	PERF_REG_X86_SI, PERF_REG_X86_DI, PERF_REG_X86_BP, PERF_REG_X86_SP,
	PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_R10, PERF_REG_X86_R11,
	PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
	PERF_REG_X86_IP,
};

/* A module as reported to a process's Dwfl. */
struct modref {
	struct binary *bin;		/* held; NULL for an executable mapping we cannot use */
	const struct bin_image *img;	/* bin's */
	uint64_t lo, hi;		/* reported range */
};

/* One process's Dwfl, attached to thread callbacks whose argument is this. */
struct proc_ctx {
	struct proc_ctx *prev, *next;	/* LRU ring, most recent after the sentinel */
	struct libdw_unwinder *u;
	pid_t pid;
	uint64_t gen;			/* addrspaces code generation it was built for */
	Dwfl *dwfl;			/* NULL when no module could be used */
	struct modref *mods;
	size_t nmods;
};

/* The sample being unwound and what the callbacks learnt of it. */
struct walk {
	const struct unwind_input *in;
	uint64_t *ips;
	uint32_t max, n;
	bool overflow;			/* a frame came after the array filled */
	bool read_failed;		/* since the last frame, a read failed */
	bool read_beyond;		/* ... on the stack past the copy */
	bool looped;			/* a frame repeated the one before it */
	uint64_t last_pc, last_sp;
	bool last_activation, last_sp_known;
};

struct libdw_unwinder {
	struct addrspaces *as;
	/* libdwfl keeps a pointer to its callbacks and reads the debuginfo
	 * path through a char **: both live here, so nothing is global. */
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;		/* NULL: libdw's default search */
	struct bincache *cache;		/* the session's binaries (binary.h) */
	struct binary *vdso;		/* held */
	bool vdso_tried;
	struct hashmap *procs;		/* pid -> struct proc_ctx * */
	struct proc_ctx lru;		/* sentinel */
	size_t nprocs;
	uint64_t page_size;
	struct walk *walk;		/* set only during dwfl_getthread_frames */
	bool walk_only;			/* "libdw-walk": no fast path */
};

/* ---- binaries ---- */

/* What unwinding needs of an opened binary: an x86-64 executable or shared
 * object, with PT_LOADs. */
static const struct bin_image *usable(const struct binary *b)
{
	const struct bin_image *img = b ? binary__image(b) : NULL;

	if (!img || img->elfclass != ELFCLASS64 || img->machine != EM_X86_64 ||
	    (img->type != ET_EXEC && img->type != ET_DYN) || !img->phdrs_ok || !img->nloads)
		return NULL;
	return img;
}

/* The vDSO of x86-64 processes is the kernel's one image: ours, copied
 * (its pages are not a file libelf could map), serves every process at
 * whatever address each maps it.  NULL when unavailable. */
static struct binary *get_vdso(struct libdw_unwinder *u)
{
	if (!u->vdso_tried) {
		u->vdso_tried = true;
		if (binary__vdso(u->cache, &u->vdso) == 0 && !usable(u->vdso)) {
			binary__put(u->vdso);
			u->vdso = NULL;
		}
	}
	return u->vdso;
}

/* The load bias of @b as mapping @m places it: the PT_LOAD holding the
 * mapping's file offset tells which vaddr lands at m->start.  False when
 * no PT_LOAD holds it. */
static bool binary__bias(const struct bin_image *b, const struct map *m, uint64_t page_size, uint64_t *bias)
{
	for (size_t i = 0; i < b->nloads; i++) {
		const struct bin_load *l = &b->loads[i];

		if (m->pgoff < (l->offset & ~(page_size - 1)) || m->pgoff >= l->offset + l->filesz)
			continue;
		/* vaddr = offset + (p_vaddr - p_offset) within a segment. */
		*bias = m->start - m->pgoff - (l->vaddr - l->offset);
		return true;
	}
	return false;
}

/* ---- libdwfl callbacks ---- */

/* Hand libdwfl the shared Elf of the module's binary; no Elf for a module
 * we cannot use. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	return bin_image__find_elf(*userdata, file_name, elfp);
}

static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	/* One thread: the sample's.  *thread_argp starts NULL per walk. */
	if (*thread_argp)
		return 0;
	*thread_argp = dwfl_arg;
	return dwfl_pid(dwfl);
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	*thread_argp = dwfl_arg;
	return true;
}

/* A failed read at @addr: note whether it lay on the stack past the copy
 * (in the mapping holding sp, above sp), which is why the walk would stop. */
static void note_failed_read(struct proc_ctx *ctx, struct walk *w, uint64_t addr)
{
	const struct map *m;
	uint64_t sp;

	w->read_failed = true;
	if (!unwind_input__reg(w->in, PERF_REG_X86_SP, &sp) || addr < sp)
		return;
	m = addrspaces__find(ctx->u->as, ctx->pid, sp);
	if (!m || addr < m->end)
		w->read_beyond = true;
}

/* The word at @addr from a read-only mapping of a binary we hold. */
static bool read_mapped_file(struct proc_ctx *ctx, uint64_t addr, Dwarf_Word *result)
{
	const struct map *m = addrspaces__find(ctx->u->as, ctx->pid, addr);
	const struct bin_image *b = NULL;
	uint64_t off, vaddr = 0;
	bool vaddr_known = false;

	if (!m || !m->path || (m->prot & PROT_WRITE) || addr > UINT64_MAX - sizeof(*result) ||
	    addr + sizeof(*result) > m->end)
		return false;
	if (m->path[0] == '/')
		b = usable(bincache__find(ctx->u->cache, m));
	else if (strcmp(m->path, "[vdso]") == 0 && ctx->u->vdso)
		b = binary__image(ctx->u->vdso);
	if (!b)
		return false;
	off = addr - m->start + m->pgoff;
	if (off > b->size || b->size - off < sizeof(*result))
		return false;
	for (size_t i = 0; i < b->nloads; i++) {
		const struct bin_load *l = &b->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			vaddr = off - l->offset + l->vaddr;
			vaddr_known = true;
			break;
		}
	}
	/* RELRO was written by the loader before it became read-only: the
	 * file does not hold what the process sees there. */
	if (!vaddr_known || (vaddr + sizeof(*result) > b->relro_lo && vaddr < b->relro_hi))
		return false;
	memcpy(result, b->data + off, sizeof(*result));
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	struct proc_ctx *ctx = dwfl_arg;
	struct walk *w = ctx->u->walk;

	if (unwind_input__read(w->in, addr, result, sizeof(*result)) || read_mapped_file(ctx, addr, result))
		return true;
	note_failed_read(ctx, w, addr);
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct proc_ctx *ctx = thread_arg;
	const struct unwind_input *in = ctx->u->walk->in;
	uint64_t val;

	/* Only the registers the sample has: a missing one stays unset, and
	 * CFI needing it fails rather than reading garbage. */
	for (int regno = 0; regno < DWARF_NREGS; regno++) {
		Dwarf_Word word;

		if (!unwind_input__reg(in, dwarf_to_perf[regno], &val))
			continue;
		word = val;
		if (!dwfl_thread_state_registers(thread, regno, 1, &word))
			return false;
	}
	if (unwind_input__reg(in, PERF_REG_X86_IP, &val))
		dwfl_thread_state_register_pc(thread, val);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	Dwarf_Word sp = 0;
	bool activation = false, sp_known;

	if (w->n == w->max) {
		w->overflow = true;
		return DWARF_CB_ABORT;
	}
	/* Asking for isactivation unwinds the next frame now: the reads
	 * that fail from here on are the ones that end the walk after this
	 * frame. */
	w->read_failed = false;
	w->read_beyond = false;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	/* Every call pushes a return address, so a caller's sp is above
	 * its callee's: the same pc and sp again is a corrupt stack that
	 * would repeat until the array fills. */
	sp_known = dwfl_frame_reg(frame, 7, &sp) == 0;
	if (w->n && sp_known && w->last_sp_known && sp == w->last_sp && pc == w->last_pc) {
		w->looped = true;
		return DWARF_CB_ABORT;
	}
	w->ips[w->n++] = pc;
	w->last_pc = pc;
	w->last_sp = sp;
	w->last_sp_known = sp_known;
	w->last_activation = activation;
	return DWARF_CB_OK;
}

/* ---- per-process Dwfls ---- */

static void release_mods(struct modref *mods, size_t n)
{
	for (size_t i = 0; i < n; i++)
		binary__put(mods[i].bin);
	free(mods);
}

static void proc_ctx__clear(struct proc_ctx *ctx)
{
	if (ctx->dwfl)
		dwfl_end(ctx->dwfl);
	ctx->dwfl = NULL;
	release_mods(ctx->mods, ctx->nmods);
	ctx->mods = NULL;
	ctx->nmods = 0;
}

static void proc_ctx__free(struct proc_ctx *ctx)
{
	if (!ctx)
		return;
	proc_ctx__clear(ctx);
	free(ctx);
}

static int modref_cmp(const void *a, const void *b)
{
	const struct modref *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The modules @pid's executable mappings make, in address order, each
 * holding a use of its binary. */
static int collect_mods(struct libdw_unwinder *u, pid_t pid, struct modref **out, size_t *nout)
{
	size_t n, k = 0;
	const struct map *maps = addrspaces__maps(u->as, pid, &n);
	struct modref *mods = calloc(n ? n : 1, sizeof(*mods));
	int err = 0;

	if (!mods)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct map *m = &maps[i];
		struct modref r = { NULL, NULL, m->start, m->end };
		struct binary *b = NULL;
		const struct bin_image *img;
		uint64_t bias;
		bool dup = false;

		if (!(m->prot & PROT_EXEC) || !m->path)
			continue;
		if (m->path[0] == '/') {
			err = binary__get(u->cache, u->as, pid, m, &b);
			if (err)
				goto out;
		} else if (strcmp(m->path, "[vdso]") == 0) {
			b = get_vdso(u);
			if (b)
				binary__hold(b);
		} else {
			continue;	/* [vsyscall]: no CFI anywhere */
		}
		img = usable(b);
		if (img && binary__bias(img, m, u->page_size, &bias)) {
			r.bin = b;
			r.img = img;
			r.lo = bias + img->lo;
			r.hi = bias + img->hi;
		}
		/* Several executable mappings of one binary (split by
		 * mprotect) make one module. */
		for (size_t j = 0; j < k && !dup; j++)
			dup = mods[j].bin == r.bin && mods[j].lo == r.lo && mods[j].hi == r.hi;
		if (dup || !r.bin)
			binary__put(b);
		if (dup)
			continue;
		mods[k++] = r;
	}
out:
	if (err) {
		release_mods(mods, k);
		return err;
	}
	/* By address, for the fast path's search (libdwfl sorts its own). */
	qsort(mods, k, sizeof(*mods), modref_cmp);
	*out = mods;
	*nout = k;
	return 0;
}

/* A Dwfl for @ctx's modules, attached to the sample callbacks; ctx->dwfl
 * stays NULL when none of them could be used (libdwfl finds the
 * architecture from a module's ELF). */
static int proc_ctx__build_dwfl(struct libdw_unwinder *u, struct proc_ctx *ctx)
{
	Dwfl *dwfl;
	int err = -ENOMEM;
	bool any = false;

	for (size_t i = 0; i < ctx->nmods; i++)
		any = any || ctx->mods[i].bin;
	if (!any)
		return 0;
	dwfl = dwfl_begin(&u->callbacks);
	if (!dwfl)
		return -ENOMEM;
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < ctx->nmods; i++) {
		const struct modref *r = &ctx->mods[i];
		const char *name = r->bin ? path_base(binary__path(r->bin)) : "[unusable]";
		Dwfl_Module *mod = dwfl_report_module(dwfl, name, r->lo, r->hi);
		void **userdata;

		if (!mod)
			goto out;
		/* find_elf gets the binary through the module's userdata. */
		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		*userdata = (void *)r->img;
	}
	if (dwfl_report_end(dwfl, NULL, NULL) != 0)
		goto out;
	/* The callbacks read u->walk, the sample of the moment: attached
	 * once, they serve every sample of this Dwfl. */
	if (dwfl_attach_state(dwfl, NULL, ctx->pid, &thread_callbacks, ctx)) {
		ctx->dwfl = dwfl;
		dwfl = NULL;
	}
	err = 0;
out:
	if (dwfl)
		dwfl_end(dwfl);
	return err;
}

static bool same_mods(const struct modref *a, size_t na, const struct modref *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (a[i].bin != b[i].bin || a[i].lo != b[i].lo || a[i].hi != b[i].hi)
			return false;
	return true;
}

/* Bring @ctx up to generation @gen of its maps. */
static int proc_ctx__update(struct libdw_unwinder *u, struct proc_ctx *ctx, uint64_t gen)
{
	struct modref *mods = NULL;
	size_t nmods = 0;
	int err;

	err = collect_mods(u, ctx->pid, &mods, &nmods);
	if (err)
		return err;
	/* Executable mappings redone as they were (a reload of the maps)
	 * leave the modules as they were: keep the Dwfl and its parsed CFI. */
	if (ctx->gen && same_mods(ctx->mods, ctx->nmods, mods, nmods)) {
		release_mods(mods, nmods);
		ctx->gen = gen;
		return 0;
	}
	proc_ctx__clear(ctx);
	ctx->mods = mods;
	ctx->nmods = nmods;
	ctx->gen = gen;
	return proc_ctx__build_dwfl(u, ctx);
}

static void lru_unlink(struct proc_ctx *ctx)
{
	ctx->prev->next = ctx->next;
	ctx->next->prev = ctx->prev;
}

static void lru_push_front(struct libdw_unwinder *u, struct proc_ctx *ctx)
{
	ctx->prev = &u->lru;
	ctx->next = u->lru.next;
	u->lru.next->prev = ctx;
	u->lru.next = ctx;
}

/* @pid's context, current with its maps; the least recently used is
 * dropped beyond MAX_PROCS. */
static int get_proc_ctx(struct libdw_unwinder *u, pid_t pid, struct proc_ctx **out)
{
	/* Modules come from executable mappings only: data mmaps (every
	 * large malloc) leave the code generation, and this context, alone. */
	uint64_t gen = addrspaces__code_generation(u->as, pid), v;
	struct proc_ctx *ctx;
	int err;

	if (hashmap__get(u->procs, (uint64_t)(uint32_t)pid, &v)) {
		ctx = (struct proc_ctx *)(uintptr_t)v;
		lru_unlink(ctx);
		lru_push_front(u, ctx);
	} else {
		ctx = calloc(1, sizeof(*ctx));
		if (!ctx)
			return -ENOMEM;
		ctx->u = u;
		ctx->pid = pid;
		ctx->gen = 0;
		if (hashmap__set(u->procs, (uint64_t)(uint32_t)pid, (uint64_t)(uintptr_t)ctx)) {
			free(ctx);
			return -ENOMEM;
		}
		lru_push_front(u, ctx);
		u->nprocs++;
		if (u->nprocs > MAX_PROCS) {
			struct proc_ctx *old = u->lru.prev;

			lru_unlink(old);
			hashmap__delete(u->procs, (uint64_t)(uint32_t)old->pid, NULL);
			proc_ctx__free(old);
			u->nprocs--;
		}
		/* Built below even for generation 0 (an unknown pid): it then
		 * has no modules, which is the answer until its maps come. */
		err = proc_ctx__update(u, ctx, gen);
		if (err)
			goto fail;
		*out = ctx;
		return 0;
	}
	if (ctx->gen != gen) {
		err = proc_ctx__update(u, ctx, gen);
		if (err)
			goto fail;
	}
	*out = ctx;
	return 0;
fail:
	/* Half-built: drop it, the next sample tries again. */
	lru_unlink(ctx);
	hashmap__delete(u->procs, (uint64_t)(uint32_t)pid, NULL);
	proc_ctx__free(ctx);
	u->nprocs--;
	return err;
}

/* ---- the backend ---- */

static void libdw_fini(void *priv)
{
	struct libdw_unwinder *u = priv;

	if (!u)
		return;
	/* Dwfls first: they hold duplicates of the binaries' Elfs. */
	while (u->lru.next && u->lru.next != &u->lru) {
		struct proc_ctx *ctx = u->lru.next;

		lru_unlink(ctx);
		proc_ctx__free(ctx);
	}
	binary__put(u->vdso);
	bincache__unref(u->cache);
	hashmap__free(u->procs);
	free(u);
}

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod; (void)userdata; (void)modname; (void)base; (void)file_name;
	(void)debuglink_file; (void)debuglink_crc; (void)debuginfo_file_name;
	return -1;
}

static int libdw_init(struct addrspaces *as, struct bincache *cache, void **priv)
{
	struct libdw_unwinder *u = calloc(1, sizeof(*u));
	int err = -ENOMEM;

	if (!u)
		goto out;
	u->as = as;
	u->cache = bincache__ref(cache);
	u->lru.prev = u->lru.next = &u->lru;
	/* No separate debug files: unwinding reads .eh_frame (and the
	 * binary's own .debug_frame), which every binary that can throw or be
	 * unwound by its own libgcc carries, stripped or not.  The standard
	 * search found libc6-dbg's debug file for libc and inflated its
	 * compressed DWARF on the first sample (20 ms, during which a fast
	 * target overflows the ring); code with CFI only in a separate debug
	 * file ends its walk with no-cfi instead. */
	u->callbacks.find_elf = find_elf;
	u->callbacks.find_debuginfo = no_debuginfo;
	u->callbacks.section_address = dwfl_offline_section_address;
	u->callbacks.debuginfo_path = &u->debuginfo_path;
	u->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	u->procs = hashmap__new();
	if (!u->procs)
		goto out;
	/* libelf refuses to work before its version is set; we open ELF
	 * files before any dwfl_begin() would set it. */
	if (elf_version(EV_CURRENT) == EV_NONE) {
		err = -ENOSYS;
		goto out;
	}
	*priv = u;
	u = NULL;
	err = 0;
out:
	libdw_fini(u);
	return err;
}

/* @mod's CFI for @pc, from .eh_frame or else .debug_frame; NULL when it
 * has none.  The caller frees it. */
static Dwarf_Frame *module_cfi_frame(Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);

	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0)
		return frame;
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0)
		return frame;
	return NULL;
}

/* Why the walk ended after the last frame we got, @rc being
 * dwfl_getthread_frames()'s answer. */
static enum unwind_stop classify(struct proc_ctx *ctx, const struct walk *w, int rc)
{
	Dwarf_Op ops_mem[3], *ops = NULL;
	Dwarf_Frame *frame;
	Dwfl_Module *mod;
	Dwarf_Addr pc;
	size_t nops = 0;
	bool ra_undefined;
	int ra;

	if (!w->n)
		return UNWIND_ERROR;
	/* A return address points after its call: look up the call. */
	pc = w->last_activation ? w->last_pc : w->last_pc - 1;
	mod = dwfl_addrmodule(ctx->dwfl, pc);
	if (!mod)
		return rc == 0 ? UNWIND_END : UNWIND_NO_MAP;
	/* Without CFI libdwfl tries rbp as a frame pointer, whose reads may
	 * fail on the stack too: the missing CFI is the cause. */
	frame = module_cfi_frame(mod, pc);
	if (!frame) {
		Dwarf_Addr bias = 0;
		Elf *elf = dwfl_module_getelf(mod, &bias);

		if (rc == 0 || unwind__at_entry_point(elf, bias, pc))
			return UNWIND_END;
		return UNWIND_NO_CFI;
	}
	/* libdwfl reports a return address it could not read as the end of
	 * the stack, as it does one the CFI marks undefined (_start, a
	 * thread's start): only the latter is the outermost frame. */
	ra = dwarf_frame_info(frame, NULL, NULL, NULL);
	ra_undefined = ra >= 0 && dwarf_frame_register(frame, ra, ops_mem, &ops, &nops) == 0 && nops == 0 &&
		       ops == ops_mem;
	free(frame);
	if (rc == 0 && (ra_undefined || !w->read_failed))
		return UNWIND_END;
	if (w->read_beyond)
		return UNWIND_STACK_END;
	return UNWIND_ERROR;
}

/* ---- the fast path ---- */

enum fast {
	FAST_DONE,		/* *n and *stop are the walk's answer */
	FAST_LIBDW,		/* a frame the rows cannot express: walk with libdw */
};

/* The module holding @pc, or NULL. */
static const struct modref *mod_of(const struct proc_ctx *ctx, uint64_t pc)
{
	size_t i = SORTED_UPTO(ctx->mods, ctx->nmods, lo, pc);

	return i && pc < ctx->mods[i - 1].hi ? &ctx->mods[i - 1] : NULL;
}

/* Whether a read at @addr failed because the copy ends before it, as
 * note_failed_read judges for libdw's walks. */
static bool beyond_copy(struct proc_ctx *ctx, const struct unwind_input *in, uint64_t addr)
{
	struct walk w = { .in = in };

	note_failed_read(ctx, &w, addr);
	return w.read_beyond;
}

/* The word at @addr of the stack copy starting at @sp0
 * (unwind_input__read() without finding sp each time). */
static inline bool copy_word(const struct unwind_input *in, uint64_t sp0, uint64_t addr, uint64_t *val)
{
	if (addr < sp0 || addr - sp0 > in->stack_size || in->stack_size - (addr - sp0) < sizeof(*val))
		return false;
	memcpy(val, in->stack + (addr - sp0), sizeof(*val));
	if (in->npatches)
		unwind_input__patch(in, addr, val, sizeof(*val));
	return true;
}

/*
 * Walk the sample with the binaries' compact CFI rows (cfi-table.h): the
 * CFA from rsp or rbp, the return address and rbp from the stack copy.
 * The frames and the stop reason are the ones libdw's walk gives; at the
 * first frame the rows cannot express, or anything unusual (a pc in no
 * module, a read outside the copy, a frame repeating itself), the answer
 * is FAST_LIBDW and libdw walks the whole sample, so every case the rows
 * do not cover keeps libdw's behaviour.  Most samples of a process end
 * here, at a few binary searches per frame.
 */
static int fast_walk(struct proc_ctx *ctx, const struct unwind_input *in, uint64_t *ips, uint32_t max,
		     uint32_t *n, enum unwind_stop *stop, enum fast *how)
{
	uint64_t pc, sp, bp = 0, sp0;
	bool bp_known, first = true;
	uint32_t k = 0;

	*how = FAST_LIBDW;
	if (!unwind_input__reg(in, PERF_REG_X86_IP, &pc) || !unwind_input__reg(in, PERF_REG_X86_SP, &sp) ||
	    !in->stack)
		return 0;
	sp0 = sp;
	bp_known = unwind_input__reg(in, PERF_REG_X86_BP, &bp);
	for (;;) {
		const struct modref *m;
		struct cfi_table *cfi;
		struct cfi_row row;
		uint64_t lpc, cfa, ra;
		int err;

		if (k == max) {
			*stop = UNWIND_MAX_DEPTH;
			break;
		}
		ips[k++] = pc;
		/* A return address points after its call: the call's row. */
		lpc = first ? pc : pc - 1;
		m = mod_of(ctx, lpc);
		if (!m || !m->bin)
			return 0;
		err = binary__cfi(m->bin, &cfi);
		if (err)
			return err;
		err = cfi_table__find(cfi, lpc - (m->lo - m->img->lo), &row);
		if (err)
			return err;
		if (row.kind != CFI_SIMPLE || (row.cfa_bp && !bp_known))
			return 0;
		cfa = (row.cfa_bp ? bp : sp) + (uint64_t)(int64_t)row.cfa_off;
		if (row.ra_rule == CFI_REG_UNDEF) {
			*stop = UNWIND_END;	/* _start, a thread's start */
			break;
		}
		if (!copy_word(in, sp0, cfa + (uint64_t)(int64_t)row.ra_off, &ra)) {
			if (!beyond_copy(ctx, in, cfa + (uint64_t)(int64_t)row.ra_off))
				return 0;
			*stop = UNWIND_STACK_END;
			break;
		}
		if (row.bp_rule == CFI_REG_AT)
			bp_known = copy_word(in, sp0, cfa + (uint64_t)(int64_t)row.bp_off, &bp);
		else if (row.bp_rule == CFI_REG_UNDEF)
			bp_known = false;
		if (!ra) {
			*stop = UNWIND_END;	/* libdwfl: a zero pc ends the stack */
			break;
		}
		if (ra == pc && cfa == sp)
			return 0;	/* a frame repeating itself: corrupt, libdw says how */
		pc = ra;
		sp = cfa;
		first = false;
	}
	*n = k;
	*how = FAST_DONE;
	return 0;
}

static int libdw_unwind(void *priv, const struct unwind_input *in, uint64_t *ips, uint32_t max, uint32_t *n,
			enum unwind_stop *stop)
{
	enum fast how;
	struct libdw_unwinder *u = priv;
	struct walk w = { .in = in, .ips = ips, .max = max };
	struct proc_ctx *ctx;
	uint64_t ip;
	int err, rc;

	*n = 0;
	*stop = UNWIND_ERROR;
	if (!unwind_input__reg(in, PERF_REG_X86_IP, &ip)) {
		*stop = UNWIND_NO_REGS;
		return 0;
	}
	if (!max) {
		*stop = UNWIND_MAX_DEPTH;
		return 0;
	}
	err = get_proc_ctx(u, in->pid, &ctx);
	if (err)
		return err;
	if (!ctx->dwfl) {
		const struct map *m = addrspaces__find(u->as, in->pid, ip);

		/* No usable module: the sampled ip is all there is. */
		ips[0] = ip;
		*n = 1;
		*stop = m && m->path && (m->prot & PROT_EXEC) ? UNWIND_NO_CFI : UNWIND_NO_MAP;
		return 0;
	}
	how = FAST_LIBDW;
	err = u->walk_only ? 0 : fast_walk(ctx, in, ips, max, n, stop, &how);
	if (err || how == FAST_DONE)
		return err;
	*n = 0;
	*stop = UNWIND_ERROR;
	u->walk = &w;
	rc = dwfl_getthread_frames(ctx->dwfl, in->pid, frame_cb, &w);
	u->walk = NULL;
	*n = w.n;
	if (w.overflow)
		*stop = UNWIND_MAX_DEPTH;
	else if (w.looped)
		*stop = UNWIND_ERROR;
	else if (rc == 0 && !w.read_failed)
		*stop = UNWIND_END;	/* the common case: no lookup */
	else
		*stop = classify(ctx, &w, rc);
	return 0;
}

/* libdw for every frame: what the fast path must agree with (tests,
 * bench/unwind-throughput). */
static int libdw_walk_init(struct addrspaces *as, struct bincache *cache, void **priv)
{
	int err = libdw_init(as, cache, priv);

	if (!err)
		((struct libdw_unwinder *)*priv)->walk_only = true;
	return err;
}

const struct unwind_backend unwind_libdw = { "libdw", libdw_init, libdw_fini, libdw_unwind };
const struct unwind_backend unwind_libdw_walk = { "libdw-walk", libdw_walk_init, libdw_fini, libdw_unwind };
