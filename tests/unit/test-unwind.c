/*
 * test-unwind: the unwinder self-test on the test's own stack, as perf's
 * tests/dwarf-unwind.c.
 *
 * A chain of functions built without frame pointers (Makefile.am gives
 * this file -fomit-frame-pointer -fno-inline -fno-optimize-sibling-calls),
 * crossing libc through bsearch's comparator, ends in a function that
 * captures its registers in perf's x86 layout and copies the stack above
 * its sp, as the kernel does for PERF_SAMPLE_REGS_USER|STACK_USER.  Every
 * backend must then walk exactly that chain down to main, through CFI
 * alone, and stop for the right reason when the copy is cut short, the
 * registers are missing, the array is full or the ip is in no mapping.
 * A backend that is not written yet fails here: it is never skipped.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stack/addrspace.h"
#include "stack/symbolize.h"
#include "stack/unwind.h"
#include "check.h"

enum {
	STACK_COPY = 32 * 1024,
	NREGS = __builtin_popcountll(UNWIND_REGS_MASK),
	MAX_FRAMES = 64,
	FAKE_PID = 5000000,	/* above any pid_max: never a real process */
};

typedef void *(*bsearch_fn)(const void *, const void *, size_t, size_t, int (*)(const void *, const void *));

struct capture {
	bsearch_fn search;	/* libc's bsearch */
	uint64_t stack_end;	/* end of the stack mapping: the copy stops there */
	uint64_t regs[NREGS];	/* packed as UNWIND_REGS_MASK orders them */
	uint64_t stack_size;
	unsigned char stack[STACK_COPY];
};

/* innermost first: what a walk from the capture must give, then main */
static const char *const expected[] = {
	"test_unwind_e", "test_unwind_d", "test_unwind_c", "bsearch", "test_unwind_b", "test_unwind_a", "main",
};
enum { NEXPECTED = sizeof(expected) / sizeof(expected[0]) };

/* Extern so that they keep their names (no .constprop/.isra clones). */
int test_unwind_a(struct capture *cap);
int test_unwind_b(struct capture *cap);
int test_unwind_c(const void *key, const void *elem);
int test_unwind_d(struct capture *cap);
int test_unwind_e(struct capture *cap);

/* The stack is read word by word, not by memcpy: under AddressSanitizer
 * memcpy would check the frames' redzones we copy on purpose. */
__attribute__((noinline, no_sanitize_address)) static void copy_stack(unsigned char *dst, uint64_t sp,
								       uint64_t size)
{
	const volatile uint64_t *src = (const volatile uint64_t *)(uintptr_t)sp;

	for (uint64_t i = 0; i < size / 8; i++) {
		uint64_t word = src[i];

		memcpy(dst + i * 8, &word, 8);
	}
}

/* Registers in PERF_REG_X86_* order at label 1, whose CFI is this
 * function's body: ip is the label, sp is unchanged by the asm. */
__attribute__((noinline, noclone)) int test_unwind_e(struct capture *cap)
{
	uint64_t perf[PERF_REG_X86_64_MAX] = { 0 };
	size_t k = 0;

	__asm__ volatile("movq %%rax, 0(%[r])\n\t"
			 "movq %%rbx, 8(%[r])\n\t"
			 "movq %%rcx, 16(%[r])\n\t"
			 "movq %%rdx, 24(%[r])\n\t"
			 "movq %%rsi, 32(%[r])\n\t"
			 "movq %%rdi, 40(%[r])\n\t"
			 "movq %%rbp, 48(%[r])\n\t"
			 "movq %%rsp, 56(%[r])\n\t"
			 "movq %%r8, 128(%[r])\n\t"
			 "movq %%r9, 136(%[r])\n\t"
			 "movq %%r10, 144(%[r])\n\t"
			 "movq %%r11, 152(%[r])\n\t"
			 "movq %%r12, 160(%[r])\n\t"
			 "movq %%r13, 168(%[r])\n\t"
			 "movq %%r14, 176(%[r])\n\t"
			 "movq %%r15, 184(%[r])\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "movq %%rax, 64(%[r])\n"
			 "1:\n\t"
			 :
			 : [r] "r"(perf)
			 : "rax", "memory");
	for (int reg = 0; reg < PERF_REG_X86_64_MAX; reg++)
		if (UNWIND_REGS_MASK & (1ULL << reg))
			cap->regs[k++] = perf[reg];
	cap->stack_size = cap->stack_end - perf[PERF_REG_X86_SP];
	if (cap->stack_size > STACK_COPY)
		cap->stack_size = STACK_COPY;
	copy_stack(cap->stack, perf[PERF_REG_X86_SP], cap->stack_size);
	return (int)k;
}

__attribute__((noinline, noclone)) int test_unwind_d(struct capture *cap)
{
	return test_unwind_e(cap) + 1;
}

/* bsearch's comparator: the walk crosses libc here. */
__attribute__((noinline, noclone)) int test_unwind_c(const void *key, const void *elem)
{
	return test_unwind_d((struct capture *)key) == NREGS + 1 ? 0 : 1;
}

/* libc's own bsearch: glibc's header may offer an inline one, and under
 * AddressSanitizer the symbol is libasan's interceptor, one more frame. */
static bsearch_fn libc_bsearch(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *fn = libc ? dlsym(libc, "bsearch") : NULL;
	bsearch_fn f = bsearch;

	if (fn)
		memcpy(&f, &fn, sizeof(f));
	if (libc)
		dlclose(libc);
	return f;
}

__attribute__((noinline, noclone)) int test_unwind_b(struct capture *cap)
{
	static const int elem = 1;

	return cap->search(cap, &elem, 1, sizeof(elem), test_unwind_c) != NULL;
}

__attribute__((noinline, noclone)) int test_unwind_a(struct capture *cap)
{
	return test_unwind_b(cap) + 1;
}

/* Index of perf register @reg in the packed sample registers. */
static int packed(int reg)
{
	return __builtin_popcountll(UNWIND_REGS_MASK & ((1ULL << reg) - 1));
}

static struct unwind_input input_of(const struct capture *cap, pid_t pid)
{
	return (struct unwind_input){ pid, cap->regs, UNWIND_REGS_MASK, cap->stack, cap->stack_size,
				      NULL, 0 };
}

/* Symbolize frame @i as reports do: return addresses at ip - 1. */
static void frame_sym(struct symbolizer *s, const struct addrspaces *as, pid_t pid, const uint64_t *ips,
		      uint32_t i, struct sym_result *res)
{
	int err = symbolizer__user(s, as, pid, i ? ips[i] - 1 : ips[i], res);

	CHECK_EQ_U64(err, 0);
}

static void print_frames(const char *what, struct symbolizer *s, const struct addrspaces *as, pid_t pid,
			 const uint64_t *ips, uint32_t n, enum unwind_stop stop)
{
	printf("%s: %u frames, %s\n", what, n, unwind_stop__name(stop));
	for (uint32_t i = 0; i < n; i++) {
		struct sym_result res;
		char buf[256];

		frame_sym(s, as, pid, ips, i, &res);
		sym_result__format(&res, buf, sizeof(buf));
		printf("  #%u 0x%" PRIx64 " %s\n", i, ips[i], buf);
	}
}

/* The walk from the capture: our chain down to main, then at most libc's
 * start code and _start. */
static void check_chain(const char *name, struct symbolizer *s, const struct addrspaces *as, pid_t pid,
			const uint64_t *ips, uint32_t n, enum unwind_stop stop)
{
	CHECK(n >= NEXPECTED);
	for (uint32_t i = 0; i < n; i++) {
		struct sym_result res;

		frame_sym(s, as, pid, ips, i, &res);
		if (i < NEXPECTED) {
			CHECK_STR(res.func, expected[i]);
			if (i == 3)
				CHECK_STR(res.module, "libc.so.6");
		} else {
			bool start_code = (res.module && !strcmp(res.module, "libc.so.6")) ||
					  (res.func && !strcmp(res.func, "_start"));

			if (!start_code)
				fprintf(stderr, "%s: frame #%u past main is not start code\n", name, i);
			CHECK(start_code);
		}
	}
	CHECK(n <= NEXPECTED + 3);
	CHECK_EQ_U64(stop, UNWIND_END);
}

/* Offset in the stack copy of the slot holding return address @ra. */
static int64_t slot_of(const struct capture *cap, uint64_t ra)
{
	for (uint64_t off = 0; off + 8 <= cap->stack_size; off += 8) {
		uint64_t word;

		memcpy(&word, cap->stack + off, 8);
		if (word == ra)
			return (int64_t)off;
	}
	return -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_backend(const char *name, struct addrspaces *as, struct symbolizer *s, const struct capture *cap)
{
	pid_t pid = getpid();
	struct unwind_input in = input_of(cap, pid);
	uint64_t ips[MAX_FRAMES], again[MAX_FRAMES], regs[NREGS];
	uint32_t n = 0, n2 = 0;
	enum unwind_stop stop = UNWIND__COUNT;
	struct unwinder *u = NULL;
	int64_t slot;
	int err;

	err = unwinder__new(name, as, symbolizer__bincache(s), &u);
	if (err)
		fprintf(stderr, "%s: unwinder__new: %s\n", name, strerror(-err));
	CHECK_EQ_U64(err, 0);
	if (err)
		return;
	CHECK_STR(unwinder__name(u), name);

	/* The whole chain. */
	err = unwinder__unwind(u, &in, ips, MAX_FRAMES, &n, &stop);
	if (err)
		fprintf(stderr, "%s: unwind: %s\n", name, strerror(-err));
	CHECK_EQ_U64(err, 0);
	if (err)
		goto out;
	print_frames(name, s, as, pid, ips, n, stop);
	check_chain(name, s, as, pid, ips, n, stop);
	CHECK_EQ_U64(ips[0], cap->regs[packed(PERF_REG_X86_IP)]);

	/* Again: the per-process state kept from the first walk must give
	 * the same answer. */
	err = unwinder__unwind(u, &in, again, MAX_FRAMES, &n2, &stop);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(n2, n);
	CHECK(n2 == n && memcmp(ips, again, n * sizeof(*ips)) == 0);
	CHECK_EQ_U64(stop, UNWIND_END);

	/* The array full: a frame was left out. */
	err = unwinder__unwind(u, &in, again, 3, &n2, &stop);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(n2, 3);
	CHECK(memcmp(ips, again, 3 * sizeof(*ips)) == 0);
	CHECK_EQ_U64(stop, UNWIND_MAX_DEPTH);
	/* Exactly as many slots as frames: nothing was left out. */
	err = unwinder__unwind(u, &in, again, n, &n2, &stop);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(n2, n);
	CHECK_EQ_U64(stop, UNWIND_END);

	/* The copy cut just after the slot of frame 2's return address:
	 * frames 0..2, then frame 2's own return address lies beyond. */
	slot = slot_of(cap, ips[2]);
	CHECK(slot >= 0);
	if (slot >= 0) {
		in.stack_size = (uint64_t)slot + 8;
		err = unwinder__unwind(u, &in, again, MAX_FRAMES, &n2, &stop);
		CHECK_EQ_U64(err, 0);
		CHECK_EQ_U64(n2, 3);
		CHECK(memcmp(ips, again, 3 * sizeof(*ips)) == 0);
		CHECK_EQ_U64(stop, UNWIND_STACK_END);
	}
	/* No stack at all: the sampled ip only. */
	in.stack_size = 0;
	err = unwinder__unwind(u, &in, again, MAX_FRAMES, &n2, &stop);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(n2, 1);
	CHECK_EQ_U64(again[0], ips[0]);
	CHECK_EQ_U64(stop, UNWIND_STACK_END);
	in = input_of(cap, pid);

	/* No registers. */
	in.regs_mask = 0;
	err = unwinder__unwind(u, &in, again, MAX_FRAMES, &n2, &stop);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(n2, 0);
	CHECK_EQ_U64(stop, UNWIND_NO_REGS);
	in = input_of(cap, pid);

	/* An ip in no mapping (below mmap_min_addr), rbp 0 so that no
	 * frame-pointer guess goes further. */
	memcpy(regs, cap->regs, sizeof(regs));
	regs[packed(PERF_REG_X86_IP)] = 0x1000;
	regs[packed(PERF_REG_X86_BP)] = 0;
	in.regs = regs;
	err = unwinder__unwind(u, &in, again, MAX_FRAMES, &n2, &stop);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(n2, 1);
	CHECK_EQ_U64(again[0], 0x1000);
	CHECK_EQ_U64(stop, UNWIND_NO_MAP);
	in = input_of(cap, pid);

	/* Another process with the same maps (a fork): binaries already
	 * opened serve it; then many processes, more than any cache keeps,
	 * and the first one again. */
	for (int i = 0; i < 100; i++) {
		pid_t fake = FAKE_PID + i;

		err = addrspaces__fork(as, pid, fake);
		CHECK_EQ_U64(err, 0);
		in.pid = fake;
		err = unwinder__unwind(u, &in, again, MAX_FRAMES, &n2, &stop);
		CHECK_EQ_U64(err, 0);
		if (i == 0 || i == 99) {
			CHECK_EQ_U64(n2, n);
			CHECK(n2 == n && memcmp(ips, again, n * sizeof(*ips)) == 0);
			CHECK_EQ_U64(stop, UNWIND_END);
		}
	}
	in.pid = FAKE_PID;
	err = unwinder__unwind(u, &in, again, MAX_FRAMES, &n2, &stop);
	CHECK_EQ_U64(err, 0);
	CHECK(n2 == n && memcmp(ips, again, n * sizeof(*ips)) == 0);
	CHECK_EQ_U64(stop, UNWIND_END);
	in = input_of(cap, pid);

	/* The maps change (a new anonymous mapping): the code did not, so
	 * the unwinder keeps its state; same walk.  An executable mapping
	 * changes the code generation. */
	{
		struct map anon = { .start = 0x10000, .end = 0x11000, .prot = 3, .flags = 2 };
		struct map text = { .start = 0x20000, .end = 0x21000, .prot = 5, .flags = 2 };
		uint64_t gen = addrspaces__code_generation(as, pid);

		err = addrspaces__add(as, pid, &anon);
		CHECK_EQ_U64(err, 0);
		CHECK_EQ_U64(addrspaces__code_generation(as, pid), gen);
		err = addrspaces__add(as, pid, &text);
		CHECK_EQ_U64(err, 0);
		CHECK(addrspaces__code_generation(as, pid) != gen);
		err = unwinder__unwind(u, &in, again, MAX_FRAMES, &n2, &stop);
		CHECK_EQ_U64(err, 0);
		CHECK(n2 == n && memcmp(ips, again, n * sizeof(*ips)) == 0);
		CHECK_EQ_U64(stop, UNWIND_END);
	}

	/* Throughput on this stack, for the report (not checked). */
	{
		double t0 = now(), t;
		unsigned iters = 0;

		do {
			for (int i = 0; i < 1000; i++)
				unwinder__unwind(u, &in, again, MAX_FRAMES, &n2, &stop);
			iters += 1000;
			t = now() - t0;
		} while (t < 0.5);
		printf("%s: %.0f unwinds/s of %u frames\n", name, iters / t, n);
	}
out:
	unwinder__free(u);
}

int main(void)
{
	static const char *const backends[] = { "libdw", "libdw-walk", "libunwind" };
	struct capture *cap = calloc(1, sizeof(*cap));
	struct addrspaces *as = NULL;
	struct symbolizer *s = NULL;
	const struct map *m;
	pid_t pid = getpid();
	int err, local = 0;

	CHECK(cap != NULL);
	if (!cap)
		return check_done("test-unwind");
	err = addrspaces__new(&as);
	CHECK_EQ_U64(err, 0);
	err = err ? err : addrspaces__load_pid(as, pid, NULL);
	CHECK_EQ_U64(err, 0);
	err = err ? err : symbolizer__new(&s);
	CHECK_EQ_U64(err, 0);
	if (err)
		goto out;
	m = addrspaces__find(as, pid, (uint64_t)(uintptr_t)&local);
	CHECK(m != NULL);
	if (!m)
		goto out;
	cap->stack_end = m->end;
	cap->search = libc_bsearch();

	CHECK_EQ_U64(test_unwind_a(cap), 2);
	CHECK(cap->stack_size >= 1024);

	/* Not one: an unknown backend. */
	{
		struct unwinder *u = NULL;

		CHECK_EQ_U64(unwinder__new("frame-pointer", as, NULL, &u), (uint64_t)-EINVAL);
	}
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		test_backend(backends[i], as, s, cap);
out:
	symbolizer__free(s);
	addrspaces__free(as);
	free(cap);
	return check_done("test-unwind");
}
