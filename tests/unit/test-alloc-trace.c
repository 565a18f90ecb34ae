/*
 * test-alloc-trace: the pairing of `faultline leak`'s allocation tracer
 * (agg/alloc-trace.c) through its real entry points, no kernel: a
 * recording is written here, its head the events `record -e leak` writes
 * (glibc's uprobes as a recording of it holds them: malloc, calloc,
 * realloc, posix_memalign with its store probe, free; the syscall
 * tracepoints), its samples made up case by case; the replay runs
 * alloc_trace__new()'s tracer over them, and each case checks what the
 * tracer's hooks heard, in order, its counts and its table.
 *
 * The cases: malloc's entry, return and free in the orders they come;
 * nested calls (realloc calling malloc, paired by stack pointer); a tail
 * call returning through two return probes at once; events lost in
 * between (a return with no entry, an entry with no return, a LOST
 * record, a free of a block never seen); realloc (grow in place, move, NULL, size 0); calloc
 * (and its overflow); posix_memalign (the store probe gives the address,
 * the return code its success); and -s N sampled in the kernel, where the
 * returns alone make blocks, sized from glibc's chunk header, and two
 * returns of one block in a row are one call (last_ret).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg/alloc-trace.h"
#include "check.h"
#include "lib/errbuf.h"
#include "trace/recfile.h"
#include "trace/session.h"

#define PID 100

/* ---- the recording's events ---- */

#define HEAD "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define F(decl, off, size, sgn) \
	"\tfield:" decl ";\toffset:" #off ";\tsize:" #size ";\tsigned:" #sgn ";\n"
#define ENTRY F("unsigned long __probe_ip", 8, 8, 0)
#define RETURN F("unsigned long __probe_func", 8, 8, 0) F("unsigned long __probe_ret_ip", 16, 8, 0)
#define SYSNR F("int __syscall_nr", 8, 4, 1)

/* A value of a sample goes to (offset, size) of its raw data. */
struct slot {
	unsigned off, size;
};

struct evdef {
	const char *name;		/* the recorded name */
	enum rec_event_kind kind;
	unsigned flags;			/* as record -e leak wrote them */
	uint64_t config;		/* uprobe: the offset (entry and return share it) */
	const char *fields;
	struct slot v[3];		/* where the sample's values go */
};

/* Every event, glibc's probes as recorded unsampled. */
enum {
	MALLOC_IN, MALLOC_OUT, CALLOC_IN, CALLOC_OUT, REALLOC_IN, REALLOC_OUT,
	PM_IN, PM_OUT, PM_STORE, FREE, SYSCALLS,
	LOST = -1	/* not an event: a LOST record, v[0] events */
};

static const struct evdef plain[] = {
	[MALLOC_IN] = { "faultline_1:malloc_enter", REC_EVENT_UPROBE, 2, 0x1000,
			ENTRY F("u64 size", 16, 8, 0) F("u64 sp", 24, 8, 0), { { 16, 8 }, { 24, 8 } } },
	[MALLOC_OUT] = { "faultline_1:malloc_return", REC_EVENT_UPROBE, 1, 0x1000,
			 RETURN F("u64 ret", 24, 8, 0) F("u64 sp", 32, 8, 0), { { 24, 8 }, { 32, 8 } } },
	[CALLOC_IN] = { "faultline_1:calloc_enter", REC_EVENT_UPROBE, 2, 0x2000,
			ENTRY F("u64 nmemb", 16, 8, 0) F("u64 size", 24, 8, 0) F("u64 sp", 32, 8, 0),
			{ { 16, 8 }, { 24, 8 }, { 32, 8 } } },
	[CALLOC_OUT] = { "faultline_1:calloc_return", REC_EVENT_UPROBE, 1, 0x2000,
			 RETURN F("u64 ret", 24, 8, 0) F("u64 sp", 32, 8, 0), { { 24, 8 }, { 32, 8 } } },
	[REALLOC_IN] = { "faultline_1:realloc_enter", REC_EVENT_UPROBE, 2, 0x3000,
			 ENTRY F("u64 ptr", 16, 8, 0) F("u64 size", 24, 8, 0) F("u64 sp", 32, 8, 0),
			 { { 16, 8 }, { 24, 8 }, { 32, 8 } } },
	[REALLOC_OUT] = { "faultline_1:realloc_return", REC_EVENT_UPROBE, 1, 0x3000,
			  RETURN F("u64 ret", 24, 8, 0) F("u64 sp", 32, 8, 0), { { 24, 8 }, { 32, 8 } } },
	[PM_IN] = { "faultline_1:posix_memalign_enter", REC_EVENT_UPROBE, 2, 0x4000,
		    ENTRY F("u64 size", 16, 8, 0) F("u64 sp", 24, 8, 0), { { 16, 8 }, { 24, 8 } } },
	[PM_OUT] = { "faultline_1:posix_memalign_return", REC_EVENT_UPROBE, 1, 0x4000,
		     RETURN F("s32 ret", 24, 4, 1) F("u64 sp", 28, 8, 0), { { 24, 4 }, { 28, 8 } } },
	[PM_STORE] = { "faultline_1:posix_memalign_store", REC_EVENT_UPROBE, 0, 0x404a,
		       ENTRY F("u64 ptr", 16, 8, 0), { { 16, 8 } } },
	[FREE] = { "faultline_1:free_enter", REC_EVENT_UPROBE, 10, 0x5000,
		   ENTRY F("u64 ptr", 16, 8, 0), { { 16, 8 } } },
};

/* The same probes sampled in the kernel (record -s 64): no entry but
 * realloc's (it frees); returns, the store and the frees with the chunk
 * header (hsz) and the picking bits (sel) the kernel's filter read. */
static const struct evdef sampled[] = {
	[MALLOC_IN] = { NULL },
	[MALLOC_OUT] = { "faultline_1:malloc_return", REC_EVENT_UPROBE, 1, 0x1000,
			 RETURN F("u64 ret", 24, 8, 0) F("u64 hsz", 32, 8, 0) F("u64 sel", 40, 8, 0),
			 { { 24, 8 }, { 32, 8 }, { 40, 8 } } },
	[CALLOC_IN] = { NULL },
	[CALLOC_OUT] = { "faultline_1:calloc_return", REC_EVENT_UPROBE, 1, 0x2000,
			 RETURN F("u64 ret", 24, 8, 0) F("u64 hsz", 32, 8, 0) F("u64 sel", 40, 8, 0),
			 { { 24, 8 }, { 32, 8 }, { 40, 8 } } },
	[REALLOC_IN] = { "faultline_1:realloc_enter", REC_EVENT_UPROBE, 2, 0x3000,
			 ENTRY F("u64 ptr", 16, 8, 0) F("u64 size", 24, 8, 0) F("u64 sp", 32, 8, 0)
			 F("u64 hsz", 40, 8, 0) F("u64 sel", 48, 8, 0),
			 { { 16, 8 }, { 40, 8 }, { 48, 8 } } },
	[REALLOC_OUT] = { "faultline_1:realloc_return", REC_EVENT_UPROBE, 1, 0x3000,
			  RETURN F("u64 ret", 24, 8, 0) F("u64 hsz", 32, 8, 0) F("u64 sel", 40, 8, 0),
			  { { 24, 8 }, { 32, 8 }, { 40, 8 } } },
	[PM_IN] = { NULL },
	[PM_OUT] = { NULL },
	[PM_STORE] = { "faultline_1:posix_memalign_store", REC_EVENT_UPROBE, 0, 0x404a,
		       ENTRY F("u64 ptr", 16, 8, 0) F("u64 hsz", 24, 8, 0) F("u64 sel", 32, 8, 0),
		       { { 16, 8 }, { 24, 8 }, { 32, 8 } } },
	[FREE] = { "faultline_1:free_enter", REC_EVENT_UPROBE, 10, 0x5000,
		   ENTRY F("u64 ptr", 16, 8, 0) F("u64 hsz", 24, 8, 0) F("u64 sel", 32, 8, 0),
		   { { 16, 8 }, { 24, 8 }, { 32, 8 } } },
};

static const struct evdef syscalls[] = {
	{ "syscalls:sys_enter_mmap", REC_EVENT_TRACEPOINT, 0, 174,
	  SYSNR F("unsigned long addr", 16, 8, 0) F("unsigned long len", 24, 8, 0)
	  F("unsigned long prot", 32, 8, 0) F("unsigned long flags", 40, 8, 0)
	  F("unsigned long fd", 48, 8, 0) F("unsigned long off", 56, 8, 0), { { 0, 0 } } },
	{ "syscalls:sys_exit_mmap", REC_EVENT_TRACEPOINT, 1, 173,
	  SYSNR F("long ret", 16, 8, 1), { { 0, 0 } } },
	{ "syscalls:sys_enter_mremap", REC_EVENT_TRACEPOINT, 0, 707,
	  SYSNR F("unsigned long addr", 16, 8, 0) F("unsigned long old_len", 24, 8, 0)
	  F("unsigned long new_len", 32, 8, 0) F("unsigned long flags", 40, 8, 0)
	  F("unsigned long new_addr", 48, 8, 0), { { 0, 0 } } },
	{ "syscalls:sys_exit_mremap", REC_EVENT_TRACEPOINT, 1, 706,
	  SYSNR F("long ret", 16, 8, 1), { { 0, 0 } } },
	{ "syscalls:sys_enter_brk", REC_EVENT_TRACEPOINT, 0, 695,
	  SYSNR F("unsigned long brk", 16, 8, 0), { { 0, 0 } } },
	{ "syscalls:sys_exit_brk", REC_EVENT_TRACEPOINT, 1, 694,
	  SYSNR F("long ret", 16, 8, 1), { { 0, 0 } } },
	{ "syscalls:sys_enter_munmap", REC_EVENT_TRACEPOINT, 0, 693,
	  SYSNR F("unsigned long addr", 16, 8, 0) F("size_t len", 24, 8, 0), { { 0, 0 } } },
};

/* One made-up sample: an event of the table above, its thread, its
 * values in the event's slots (entry: size or nmemb, size; ptr, size for
 * realloc; then sp.  Return: ret, sp; sampled: ret, hsz, sel.  Store,
 * free: ptr; sampled: ptr, hsz, sel). */
struct ev {
	int event;
	int tid;
	uint64_t v[3];
};

/* ---- writing and replaying ---- */

static int write_event(struct recwriter *w, uint32_t id, const struct evdef *d)
{
	char format[2048];
	const char *colon = strchr(d->name, ':');

	snprintf(format, sizeof(format), "name: %s\nID: %u\nformat:\n" HEAD "%s\nprint fmt: \"\"\n",
		 colon + 1, 2000 + id, d->fields);
	return recwriter__event(w, &(struct rec_event){ .id = id, .kind = d->kind, .flags = d->flags,
		.config = d->config, .name = d->name,
		.path = d->kind == REC_EVENT_UPROBE ? "/lib/x86_64-linux-gnu/libc.so.6" : "",
		.format = format });
}

/* The recording: @defs (NULL names left out), the syscalls, @evs. */
static int make_recording(const char *path, const struct evdef *defs, const char *sample_meta,
			  const struct ev *evs, size_t n)
{
	struct errbuf eb = { { 0 } };
	struct recwriter *w = NULL;
	uint32_t ids[SYSCALLS], next = 0;
	int err;

	err = recwriter__open(path, &w, &eb);
	if (!err)
		err = recwriter__meta(w, "rung.leak", "uprobe");
	if (!err)
		err = recwriter__meta(w, "tools", "leak");
	if (!err)
		err = recwriter__meta(w, "start_mono_ns", "1000");
	if (!err)
		err = recwriter__meta(w, "target_pid", "100");
	if (!err)
		err = recwriter__meta(w, "target", "cmd");
	if (!err)
		err = recwriter__meta(w, "command", "prog");
	if (!err && sample_meta)
		err = recwriter__meta(w, "alloc.sample", sample_meta);
	for (int i = 0; !err && i < SYSCALLS; i++) {
		ids[i] = UINT32_MAX;
		if (defs[i].name) {
			ids[i] = next;
			err = write_event(w, next++, &defs[i]);
		}
	}
	for (size_t i = 0; !err && i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		err = write_event(w, next++, &syscalls[i]);
	if (!err)
		err = recwriter__proc(w, &(struct rec_proc){ PID, 1000, "prog" });
	for (size_t i = 0; !err && i < n; i++) {
		const struct evdef *d = evs[i].event == LOST ? NULL : &defs[evs[i].event];

		if (!d) {
			err = recwriter__lost(w, &(struct rec_lost){ 2000 + 1000 * i, evs[i].v[0] });
			continue;
		}
		uint8_t raw[64] = { 0 };
		/* common_type: the format's ID, as libtraceevent's filters
		 * (the replay's, as the kernel's) find the event by it. */
		uint16_t type = (uint16_t)(2000 + ids[evs[i].event]);

		memcpy(raw, &type, sizeof(type));
		for (int k = 0; k < 3 && d->v[k].size; k++)
			memcpy(raw + d->v[k].off, &evs[i].v[k], d->v[k].size);	/* little-endian */
		err = recwriter__sample(w, &(struct rec_sample){ .event = ids[evs[i].event],
			.pid = PID, .tid = (uint32_t)evs[i].tid, .time = 2000 + 1000 * i,
			.raw_size = 64, .raw = raw });
	}
	if (!err)
		err = recwriter__end(w, &(struct rec_end){ .status = 0, .samples = n });
	if (w && recwriter__close(w, &eb) && !err)
		err = -EIO;
	return err;
}

/* What the hooks heard, one word each, in order. */
struct heard {
	char log[2048];
	size_t len;
};

static void say(struct heard *h, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(h->log + h->len, sizeof(h->log) - h->len, fmt, ap);
	va_end(ap);
	if (w > 0 && h->len + (size_t)w < sizeof(h->log))
		h->len += (size_t)w;
}

static void on_entered(void *ctx, const struct sample *smp, const struct alloc_call *c)
{
	(void)smp;
	say(ctx, "enter %s %" PRIu64 ". ", alloc_fn__name(c->fn), c->size);
}

static void on_made(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	(void)smp;
	say(ctx, "made %s %" PRIx64 "+%" PRIu64 ". ", alloc_fn__name((enum alloc_fn)r->fn), r->addr,
	    r->size);
}

static void on_freed(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	(void)smp;
	say(ctx, "freed %" PRIx64 "+%" PRIu64 ". ", r->addr, r->size);
}

static void on_returned(void *ctx, const struct sample *smp, const struct alloc_rec *made)
{
	(void)smp;
	if (made)
		say(ctx, "ret %" PRIx64 ". ", made->addr);
	else
		say(ctx, "ret -. ");
}

struct result {
	struct heard h;
	struct alloc_trace_stats st;
	size_t outstanding;
	int err;
};

static int replay(const struct evdef *defs, const char *sample_meta, uint64_t rate,
		  const struct ev *evs, size_t n, struct result *res)
{
	char path[] = "/tmp/test-alloc-trace.XXXXXX";
	struct session_opts so = { 0 };
	struct replay_opts ro = { .path = path };
	struct errbuf eb = { { 0 } };
	struct session *s = NULL;
	struct alloc_trace *at = NULL;
	int fd, err;

	memset(res, 0, sizeof(*res));
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	close(fd);
	err = make_recording(path, defs, sample_meta, evs, n);
	if (!err)
		err = session__new_replay(&so, &ro, &s, &eb);
	if (!err)
		err = alloc_trace__new(s, &(struct alloc_trace_opts){ .sample_rate = rate },
			&(struct alloc_trace_hooks){ .entered = on_entered, .made = on_made,
				.freed = on_freed, .returned = on_returned, .ctx = &res->h }, &at, &eb);
	if (!err)
		err = session__run(s, &eb);
	if (err)
		fprintf(stderr, "test-alloc-trace: %s\n", errbuf__str(&eb, err));
	if (at) {
		res->st = *alloc_trace__stats(at);
		res->outstanding = alloc_track__count(alloc_trace__track(at));
		res->err = alloc_trace__error(at);
	}
	alloc_trace__free(at);
	session__free(s);
	unlink(path);
	return err;
}

#define RUN(defs, meta, rate, res, ...) do { \
	static const struct ev evs_[] = { __VA_ARGS__ }; \
	CHECK_EQ_U64(replay(defs, meta, rate, evs_, sizeof(evs_) / sizeof(evs_[0]), res), 0); \
	CHECK_EQ_U64((res)->err, 0); \
} while (0)

/* Entry sp, and the return's: the return address popped. */
#define SP 0x7ff000
#define RSP (SP + 8)

/* malloc's entry, return and free, in the orders they come. */
static void test_malloc_orders(void)
{
	struct result r;

	RUN(plain, NULL, 0, &r,
	    { MALLOC_IN, 1, { 16, SP } }, { MALLOC_OUT, 1, { 0x1000, RSP } },
	    { FREE, 1, { 0x1000 } });
	CHECK_STR(r.h.log, "enter malloc 16. made malloc 1000+16. ret 1000. freed 1000+16. ");
	CHECK_EQ_U64(r.st.allocs, 1);
	CHECK_EQ_U64(r.st.frees, 1);
	CHECK_EQ_U64(r.outstanding, 0);

	/* Two threads interleaved: each return pairs with its thread's
	 * entry; a thread frees a block while another is in malloc.  A
	 * free while its own thread is inside an allocator call is the
	 * allocator's business (realloc's, below): not a free. */
	RUN(plain, NULL, 0, &r,
	    { MALLOC_IN, 1, { 8, SP } }, { MALLOC_IN, 2, { 32, SP } },
	    { MALLOC_OUT, 2, { 0x2000, RSP } }, { FREE, 3, { 0x2000 } },
	    { FREE, 1, { 0x9000 } },
	    { MALLOC_OUT, 1, { 0x1000, RSP } });
	CHECK_STR(r.h.log, "enter malloc 8. enter malloc 32. made malloc 2000+32. ret 2000. "
		  "freed 2000+32. made malloc 1000+8. ret 1000. ");
	CHECK_EQ_U64(r.st.unknown_frees, 0);
	CHECK_EQ_U64(r.outstanding, 1);

	/* malloc(0) returns a block too; a failed malloc (NULL) makes none
	 * and counts as failed; free(NULL) is nothing. */
	RUN(plain, NULL, 0, &r,
	    { MALLOC_IN, 1, { 0, SP } }, { MALLOC_OUT, 1, { 0x1000, RSP } },
	    { MALLOC_IN, 1, { 1ULL << 50, SP } }, { MALLOC_OUT, 1, { 0, RSP } },
	    { FREE, 1, { 0 } });
	CHECK_STR(r.h.log, "enter malloc 0. made malloc 1000+0. ret 1000. enter malloc 1125899906842624. "
		  "ret -. ");
	CHECK_EQ_U64(r.st.failed, 1);
	CHECK_EQ_U64(r.st.frees + r.st.unknown_frees, 0);

	/* The address used again after its free: a new block. */
	RUN(plain, NULL, 0, &r,
	    { MALLOC_IN, 1, { 16, SP } }, { MALLOC_OUT, 1, { 0x1000, RSP } },
	    { FREE, 1, { 0x1000 } },
	    { MALLOC_IN, 1, { 24, SP } }, { MALLOC_OUT, 1, { 0x1000, RSP } });
	CHECK_STR(r.h.log, "enter malloc 16. made malloc 1000+16. ret 1000. freed 1000+16. "
		  "enter malloc 24. made malloc 1000+24. ret 1000. ");
	CHECK_EQ_U64(r.outstanding, 1);
}

/* Nested calls: realloc calling malloc and free, paired by stack pointer:
 * the outer call is the one counted. */
static void test_nested(void)
{
	struct result r;

	RUN(plain, NULL, 0, &r,
	    { REALLOC_IN, 1, { 0, 10, SP } },
	    { MALLOC_IN, 1, { 10, SP - 0x100 } }, { MALLOC_OUT, 1, { 0x1000, SP - 0xf8 } },
	    { REALLOC_OUT, 1, { 0x1000, RSP } },
	    /* realloc moving the block: its own malloc and free inside. */
	    { REALLOC_IN, 1, { 0x1000, 100, SP } },
	    { MALLOC_IN, 1, { 100, SP - 0x100 } }, { MALLOC_OUT, 1, { 0x2000, SP - 0xf8 } },
	    { FREE, 1, { 0x1000 } },
	    { REALLOC_OUT, 1, { 0x2000, RSP } });
	CHECK_STR(r.h.log, "enter realloc 10. made realloc 1000+10. ret 1000. "
		  "enter realloc 100. freed 1000+10. made realloc 2000+100. ret 2000. ");
	CHECK_EQ_U64(r.st.allocs, 2);
	CHECK_EQ_U64(r.st.frees, 1);
	CHECK_EQ_U64(r.outstanding, 1);

	/* A tail call (glibc's reallocarray jumps to realloc; here realloc
	 * to malloc): the second entry at the same stack pointer replaces
	 * the first, the call counted is the one jumped to (glibc.probes),
	 * and of the two returns at once through both return probes the
	 * second pairs with nothing.  One block. */
	RUN(plain, NULL, 0, &r,
	    { REALLOC_IN, 1, { 0, 10, SP } }, { MALLOC_IN, 1, { 10, SP } },
	    { MALLOC_OUT, 1, { 0x1000, RSP } }, { REALLOC_OUT, 1, { 0x1000, RSP } });
	CHECK_STR(r.h.log, "enter realloc 10. enter malloc 10. made malloc 1000+10. ret 1000. ");
	CHECK_EQ_U64(r.st.allocs, 1);
	CHECK_EQ_U64(r.outstanding, 1);
}

/* Events lost in between. */
static void test_lost(void)
{
	struct result r;

	/* A return with no entry: nothing made. */
	RUN(plain, NULL, 0, &r, { MALLOC_OUT, 1, { 0x1000, RSP } });
	CHECK_STR(r.h.log, "");
	CHECK_EQ_U64(r.st.allocs, 0);
	CHECK_EQ_U64(r.outstanding, 0);

	/* An entry with no return (its return lost, or a longjmp): a new
	 * call at the same depth replaces it; a shallower return drops it. */
	RUN(plain, NULL, 0, &r,
	    { MALLOC_IN, 1, { 16, SP } },
	    { CALLOC_IN, 1, { 2, 8, SP } }, { CALLOC_OUT, 1, { 0x1000, RSP } },
	    { MALLOC_IN, 1, { 32, SP - 0x100 } },
	    { MALLOC_IN, 1, { 64, SP } }, { MALLOC_OUT, 1, { 0x2000, RSP } });
	CHECK_STR(r.h.log, "enter malloc 16. enter calloc 16. made calloc 1000+16. ret 1000. "
		  "enter malloc 32. enter malloc 64. made malloc 2000+64. ret 2000. ");
	CHECK_EQ_U64(r.st.allocs, 2);

	/* Events lost (a LOST record): the calls in flight are forgotten,
	 * their returns, if they come, pair with nothing. */
	RUN(plain, NULL, 0, &r,
	    { MALLOC_IN, 1, { 16, SP } }, { LOST, 0, { 3 } }, { MALLOC_OUT, 1, { 0x1000, RSP } },
	    { MALLOC_IN, 1, { 24, SP } }, { MALLOC_OUT, 1, { 0x2000, RSP } });
	CHECK_STR(r.h.log, "enter malloc 16. enter malloc 24. made malloc 2000+24. ret 2000. ");
	CHECK_EQ_U64(r.outstanding, 1);

	/* A free of a block never seen made (made before tracing, or its
	 * return lost): counted, no hook. */
	RUN(plain, NULL, 0, &r, { FREE, 1, { 0x9000 } });
	CHECK_STR(r.h.log, "");
	CHECK_EQ_U64(r.st.frees, 0);
	CHECK_EQ_U64(r.st.unknown_frees, 1);

	/* A block made again at an address still outstanding (its free was
	 * lost): the new one replaces it. */
	RUN(plain, NULL, 0, &r,
	    { MALLOC_IN, 1, { 16, SP } }, { MALLOC_OUT, 1, { 0x1000, RSP } },
	    { MALLOC_IN, 1, { 48, SP } }, { MALLOC_OUT, 1, { 0x1000, RSP } },
	    { FREE, 1, { 0x1000 } });
	CHECK_STR(r.h.log, "enter malloc 16. made malloc 1000+16. ret 1000. "
		  "enter malloc 48. made malloc 1000+48. ret 1000. freed 1000+48. ");
	CHECK_EQ_U64(r.outstanding, 0);
}

/* realloc: grow and shrink in place, move, NULL, size 0, failure. */
static void test_realloc(void)
{
	struct result r;

	RUN(plain, NULL, 0, &r,
	    { MALLOC_IN, 1, { 16, SP } }, { MALLOC_OUT, 1, { 0x1000, RSP } },
	    { REALLOC_IN, 1, { 0x1000, 64, SP } }, { REALLOC_OUT, 1, { 0x1000, RSP } },
	    { REALLOC_IN, 1, { 0x1000, 8, SP } }, { REALLOC_OUT, 1, { 0x1000, RSP } },
	    { REALLOC_IN, 1, { 0x1000, 4096, SP } }, { REALLOC_OUT, 1, { 0x3000, RSP } });
	CHECK_STR(r.h.log, "enter malloc 16. made malloc 1000+16. ret 1000. "
		  "enter realloc 64. freed 1000+16. made realloc 1000+64. ret 1000. "
		  "enter realloc 8. freed 1000+64. made realloc 1000+8. ret 1000. "
		  "enter realloc 4096. freed 1000+8. made realloc 3000+4096. ret 3000. ");
	CHECK_EQ_U64(r.outstanding, 1);

	/* realloc(NULL, n) is malloc(n); realloc(p, 0) frees p (glibc
	 * returns NULL); a failed realloc keeps the old block. */
	RUN(plain, NULL, 0, &r,
	    { REALLOC_IN, 1, { 0, 32, SP } }, { REALLOC_OUT, 1, { 0x1000, RSP } },
	    { REALLOC_IN, 1, { 0x1000, 1ULL << 50, SP } }, { REALLOC_OUT, 1, { 0, RSP } },
	    { REALLOC_IN, 1, { 0x1000, 0, SP } }, { REALLOC_OUT, 1, { 0, RSP } });
	CHECK_STR(r.h.log, "enter realloc 32. made realloc 1000+32. ret 1000. "
		  "enter realloc 1125899906842624. ret -. "
		  "enter realloc 0. freed 1000+32. ret -. ");
	CHECK_EQ_U64(r.st.failed, 1);
	CHECK_EQ_U64(r.st.frees, 1);
	CHECK_EQ_U64(r.outstanding, 0);
}

/* calloc: nmemb * size; an overflowing product fails. */
static void test_calloc(void)
{
	struct result r;

	RUN(plain, NULL, 0, &r,
	    { CALLOC_IN, 1, { 4, 8, SP } }, { CALLOC_OUT, 1, { 0x1000, RSP } },
	    { CALLOC_IN, 1, { 1ULL << 33, 1ULL << 33, SP } }, { CALLOC_OUT, 1, { 0, RSP } });
	CHECK_STR(r.h.log, "enter calloc 32. made calloc 1000+32. ret 1000. enter calloc 0. ret -. ");
	CHECK_EQ_U64(r.st.failed, 1);
	CHECK_EQ_U64(r.outstanding, 1);
}

/* posix_memalign: its store probe gives the block, its return code the
 * success. */
static void test_posix_memalign(void)
{
	struct result r;

	RUN(plain, NULL, 0, &r,
	    { PM_IN, 1, { 64, SP } }, { PM_STORE, 1, { 0x5000 } }, { PM_OUT, 1, { 0, RSP } },
	    { FREE, 1, { 0x5000 } },
	    /* ENOMEM: no store of a block, no block. */
	    { PM_IN, 1, { 1ULL << 50, SP } }, { PM_STORE, 1, { 0 } }, { PM_OUT, 1, { 12, RSP } });
	CHECK_STR(r.h.log, "enter posix_memalign 64. made posix_memalign 5000+64. ret 5000. "
		  "freed 5000+64. enter posix_memalign 1125899906842624. ret -. ");
	CHECK_EQ_U64(r.st.failed, 1);
	CHECK_EQ_U64(r.outstanding, 0);

	/* Its store lost: the call succeeded, but no address, no block. */
	RUN(plain, NULL, 0, &r, { PM_IN, 1, { 64, SP } }, { PM_OUT, 1, { 0, RSP } });
	CHECK_STR(r.h.log, "enter posix_memalign 64. ret -. ");
	CHECK_EQ_U64(r.outstanding, 0);
}

/*
 * -s 64 sampled in the kernel: the returns and the store make blocks on
 * their own, sized from glibc's chunk header (0x31: a 48-byte chunk, 40
 * usable); realloc's entry frees.  Addresses picked by the rule have bits
 * 7-12 set (0x1f80); the kernel's filter let only those through.
 */
#define PICK(a) ((a) | 0x1f80)
static void test_sampled(void)
{
	struct result r;

	RUN(sampled, "64", 64, &r,
	    { MALLOC_OUT, 1, { PICK(0x10000), 0x31, 63 } },
	    /* A tail call: two returns of one block in a row, one call. */
	    { REALLOC_OUT, 1, { PICK(0x20000), 0x51, 63 } },
	    { MALLOC_OUT, 1, { PICK(0x20000), 0x51, 63 } },
	    { FREE, 1, { PICK(0x10000), 0x31, 63 } },
	    /* realloc moving a block: its entry frees, its return makes. */
	    { REALLOC_IN, 1, { PICK(0x20000), 0x51, 63 } },
	    { REALLOC_OUT, 1, { PICK(0x30000), 0x411, 63 } },
	    { PM_STORE, 1, { PICK(0x40000), 0x31, 63 } },
	    /* The same address again after its free: a new block. */
	    { FREE, 1, { PICK(0x40000), 0x31, 63 } },
	    { CALLOC_OUT, 1, { PICK(0x40000), 0x31, 63 } },
	    /* Not picked (sel 5): the filter drops a small block; a block
	     * of 1 KiB or more (0x811: 2056 usable) is kept whatever its
	     * address. */
	    { MALLOC_OUT, 1, { 0x50000, 0x31, 5 } },
	    { MALLOC_OUT, 1, { 0x60000, 0x811, 5 } },
	    /* A free of a picked address never seen made: unknown. */
	    { FREE, 1, { PICK(0x90000), 0x31, 63 } },
	    /* Two returns of one address in a row on thread 1, another
	     * thread freeing it in between: two calls, two blocks. */
	    { MALLOC_OUT, 1, { PICK(0x70000), 0x31, 63 } },
	    { FREE, 2, { PICK(0x70000), 0x31, 63 } },
	    { MALLOC_OUT, 1, { PICK(0x70000), 0x31, 63 } });
	CHECK_STR(r.h.log, "made malloc 11f80+40. ret 11f80. made malloc 21f80+72. ret 21f80. "
		  "freed 11f80+40. freed 21f80+72. made malloc 31f80+1032. ret 31f80. "
		  "made posix_memalign 41f80+40. ret 41f80. freed 41f80+40. "
		  "made malloc 41f80+40. ret 41f80. made malloc 60000+2056. ret 60000. "
		  "made malloc 71f80+40. ret 71f80. freed 71f80+40. made malloc 71f80+40. ret 71f80. ");
	CHECK_EQ_U64(r.st.sampled_events, 14);
	CHECK_EQ_U64(r.st.unknown_frees, 1);
	CHECK_EQ_U64(r.outstanding, 4);
}

int main(void)
{
	test_malloc_orders();
	test_nested();
	test_lost();
	test_realloc();
	test_calloc();
	test_posix_memalign();
	test_sampled();
	return check_done("test-alloc-trace");
}
