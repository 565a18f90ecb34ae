/*
 * unwind: user stacks from a sample's registers and stack copy, with DWARF
 * call-frame information, as perf --call-graph dwarf does.
 *
 * The kernel gives each sample the user registers (PERF_SAMPLE_REGS_USER,
 * UNWIND_REGS_MASK) and a copy of the top of the user stack
 * (PERF_SAMPLE_STACK_USER).  The copy dies when the ring slot is consumed,
 * so unwinding happens at sample time, into an array of instruction
 * pointers that the stack database interns.  Two backends answer the same
 * call: libdw (dwfl with a memory reader serving the stack copy) and
 * libunwind (remote unwinding through accessors).  Each keeps its
 * per-process and per-binary state across samples, rebuilt when the
 * process's executable mappings change (addrspaces__code_generation()).
 *
 * Memory the unwinder asks for is served from the stack copy, or from the
 * mapped file's bytes for read-only file mappings; anything else (heap,
 * another thread's stack) is unreadable, as it is gone by the time we look.
 */
#ifndef FAULTLINE_UNWIND_H
#define FAULTLINE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <asm/perf_regs.h>

struct addrspaces;
struct bincache;

/* x86-64 registers sampled for DWARF: ip, sp and bp, as the eBPF
 * profilers take (Parca, opentelemetry-ebpf-profiler).  CFA rules are
 * rsp- or rbp-based (stack realignment included), return addresses and
 * saved rbp are read from the stack; the kernel's sample output costs
 * about 45 ns per register here, so the 17 general-purpose registers
 * perf takes cost 0.75 us more per sample than these three
 * (bench/sample-cost).  CFI that needs another register fails the walk,
 * counted, rather than reading garbage. */
#define UNWIND_REGS_MASK                                                        \
	((1ULL << PERF_REG_X86_IP) | (1ULL << PERF_REG_X86_SP) | (1ULL << PERF_REG_X86_BP))

/* Why a walk ended.  Counted per reason in every report's footer. */
enum unwind_stop {
	UNWIND_END,		/* reached the outermost frame (no return address) */
	UNWIND_MAX_DEPTH,	/* the caller's array was full */
	UNWIND_STACK_END,	/* the next frame lies beyond the copied stack */
	UNWIND_NO_CFI,		/* a pc in a binary without unwind info for it */
	UNWIND_NO_MAP,		/* a pc in no known mapping (JIT, gone) */
	UNWIND_NO_REGS,		/* the sample has no user registers */
	UNWIND_ERROR,		/* anything else the backend reports */
	UNWIND__COUNT
};

const char *unwind_stop__name(enum unwind_stop stop);

/* A word of the stack copy to read as another value: a return address
 * that a uretprobe replaced with its trampoline (stack/uret-fixup.h). */
struct unwind_patch {
	uint64_t addr;		/* 8 bytes at addr, inside the copy */
	uint64_t val;
};

/* What one sample gives the unwinder.  regs[i] is the i-th set bit of
 * regs_mask, in PERF_REG_X86_* order (the kernel's layout). */
struct unwind_input {
	pid_t pid;
	const uint64_t *regs;
	uint64_t regs_mask;
	const unsigned char *stack;	/* copy of [sp, sp + stack_size) */
	uint64_t stack_size;
	/* Words read through every backend as these values; may be NULL. */
	const struct unwind_patch *patches;
	uint32_t npatches;
};

/* The value of perf register `reg` (PERF_REG_X86_*) in in->regs. */
bool unwind_input__reg(const struct unwind_input *in, int reg, uint64_t *val);
/* Read len bytes at addr from the stack copy; false when not all inside. */
bool unwind_input__read(const struct unwind_input *in, uint64_t addr, void *buf, size_t len);
/* buf holds the copy's bytes [addr, addr + len): apply in's patches to
 * them.  Every read of the copy goes through this (or _read). */
void unwind_input__patch(const struct unwind_input *in, uint64_t addr, void *buf, size_t len);

struct Elf;
/*
 * Is pc (a call's address, i.e. return address - 1) in the first bytes of
 * the ELF's entry point?  The loader's _start has no CFI; a walk that
 * reaches it has reached the process's first frame, which is complete, not
 * a missing-CFI failure.  bias: the ELF's load bias in the process.
 */
bool unwind__at_entry_point(struct Elf *elf, uint64_t bias, uint64_t pc);

/* A backend.  Its private state is created per unwinder. */
struct unwind_backend {
	const char *name;
	int (*init)(struct addrspaces *as, struct bincache *cache, void **priv);
	void (*fini)(void *priv);
	/* Fill ips[0..*n) innermost first (ips[0] = the sampled ip), at most
	 * max.  Returns 0 with *stop set (a partial stack is still a result),
	 * or -errno on a hard error (ENOMEM). */
	int (*unwind)(void *priv, const struct unwind_input *in, uint64_t *ips, uint32_t max,
		      uint32_t *n, enum unwind_stop *stop);
};

extern const struct unwind_backend unwind_libdw;
extern const struct unwind_backend unwind_libdw_walk;
extern const struct unwind_backend unwind_libunwind;

struct unwinder;

/* name: "libdw" or "libunwind".  -EINVAL for another name.  The unwinder
 * reads as (which must outlive it) and never changes it.  It opens
 * binaries through cache (binary.h; it takes a reference), the one the
 * session's symbolizer uses (symbolizer__bincache()); NULL: a cache of its
 * own. */
int unwinder__new(const char *name, struct addrspaces *as, struct bincache *cache,
		  struct unwinder **out);
void unwinder__free(struct unwinder *u);
const char *unwinder__name(const struct unwinder *u);
int unwinder__unwind(struct unwinder *u, const struct unwind_input *in, uint64_t *ips,
		     uint32_t max, uint32_t *n, enum unwind_stop *stop);

#endif
