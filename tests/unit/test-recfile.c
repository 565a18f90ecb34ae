/*
 * test-recfile: the recording format, written and read back.
 *
 * Every record type makes the round trip with edge values, through a real
 * file and through memory; a million samples read back with the same
 * checksum while the writer's memory stays one buffer; a small recording
 * cut at every byte gives a truncation error and never a record past the
 * cut; crafted files (built here by an encoder independent of the module,
 * after docs/record-format.md) trip each rule of the reader with a message
 * naming the offset; a newer minor version's records are skipped, a newer
 * major version is refused; a full disk is reported by close.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "trace/recfile.h"

/* ---- helpers ---- */

static char *tmp_path(void)
{
	static const char tmpl[] = "/tmp/test-recfile-XXXXXX";
	char *p = malloc(sizeof(tmpl));
	int fd;

	if (!p)
		abort();
	memcpy(p, tmpl, sizeof(tmpl));
	fd = mkstemp(p);
	if (fd < 0) {
		perror("mkstemp");
		abort();
	}
	close(fd);
	return p;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	unsigned char *buf = NULL;
	struct stat st;
	FILE *f = fopen(path, "rb");

	if (!f || fstat(fileno(f), &st) < 0)
		abort();
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		abort();
	fclose(f);
	*len = (size_t)st.st_size;
	return buf;
}

static long maxrss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * An encoder of the format written from docs/record-format.md, not from
 * recfile.c, to craft files the writer would never produce.
 */
struct bld {
	unsigned char *b;
	size_t n, cap;
};

static void b_bytes(struct bld *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->b = realloc(b->b, b->cap);
		if (!b->b)
			abort();
	}
	if (n)
		memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void b_u8(struct bld *b, uint8_t v)
{
	b_bytes(b, &v, 1);
}

static void b_u16(struct bld *b, uint16_t v)
{
	unsigned char x[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	b_bytes(b, x, 2);
}

static void b_u32(struct bld *b, uint32_t v)
{
	b_u16(b, (uint16_t)v);
	b_u16(b, (uint16_t)(v >> 16));
}

static void b_u64(struct bld *b, uint64_t v)
{
	b_u32(b, (uint32_t)v);
	b_u32(b, (uint32_t)(v >> 32));
}

static void b_str(struct bld *b, const char *s)
{
	b_u32(b, (uint32_t)strlen(s));
	b_bytes(b, s, strlen(s));
}

static void b_header(struct bld *b, uint16_t major, uint16_t minor, uint32_t order,
		     uint32_t hsize)
{
	b->n = 0;
	b_bytes(b, "FAULTREC", 8);
	b_u16(b, major);
	b_u16(b, minor);
	b_u32(b, order);
	b_u32(b, hsize);
	while (b->n < hsize && hsize <= 4096)
		b_u8(b, 0xee);
}

static void b_std_header(struct bld *b)
{
	b_header(b, REC_VERSION_MAJOR, REC_VERSION_MINOR, 0x01020304, 20);
}

/* Start a record: returns its offset, for b_done() to patch the length. */
static size_t b_rec(struct bld *b, uint32_t type)
{
	size_t at = b->n;

	b_u32(b, type);
	b_u32(b, 0);
	return at;
}

static void b_done(struct bld *b, size_t at)
{
	uint32_t len = (uint32_t)(b->n - at - 8);

	for (int i = 0; i < 4; i++)
		b->b[at + 4 + i] = (unsigned char)(len >> (8 * i));
}

static size_t b_event(struct bld *b, uint32_t id, uint32_t kind, const char *name)
{
	size_t at = b_rec(b, REC_EVENT);

	b_u32(b, id);
	b_u32(b, kind);
	b_u32(b, 0);
	b_u64(b, 0);
	b_str(b, name);
	b_str(b, "");
	b_str(b, "");
	b_done(b, at);
	return at;
}

static size_t b_stack(struct bld *b, uint32_t id, uint32_t kind, uint32_t nr)
{
	size_t at = b_rec(b, REC_STACK);

	b_u32(b, id);
	b_u32(b, kind);
	b_u32(b, nr);
	for (uint32_t i = 0; i < nr; i++)
		b_u64(b, 0x400000 + i);
	b_done(b, at);
	return at;
}

static size_t b_sample(struct bld *b, uint32_t event, uint32_t ustack, uint32_t kstack)
{
	size_t at = b_rec(b, REC_SAMPLE);

	b_u32(b, event);
	b_u32(b, 10);		/* pid */
	b_u32(b, 11);		/* tid */
	b_u32(b, 1);		/* cpu */
	b_u64(b, 1000);		/* time */
	b_u64(b, 0xdead);	/* addr */
	b_u32(b, ustack);
	b_u32(b, kstack);
	b_u32(b, 2);
	b_bytes(b, "ab", 2);
	b_done(b, at);
	return at;
}

/* An END with nr_pause of its 1.2 fields (pauses, paused_ns) after the
 * counters. */
static size_t b_end_n(struct bld *b, int nr_pause, uint64_t pauses, uint64_t ns)
{
	size_t at = b_rec(b, REC_END);

	b_u32(b, 3);
	b_u32(b, 0);
	b_u64(b, 1);
	b_u64(b, 0);
	b_u64(b, 0);
	b_u32(b, 0);
	if (nr_pause > 0)
		b_u64(b, pauses);
	if (nr_pause > 1)
		b_u64(b, ns);
	b_done(b, at);
	return at;
}

/* An END as the header's version writes it: 1.2 and later with its
 * pauses (none). */
static size_t b_end(struct bld *b)
{
	return b_end_n(b, b->n >= 12 && (b->b[10] | b->b[11] << 8) >= 2 ? 2 : 0, 0, 0);
}

static size_t b_proc(struct bld *b, const char *comm)
{
	size_t at = b_rec(b, REC_PROC);

	b_u32(b, 42);
	b_u64(b, 7);
	b_str(b, comm);
	b_done(b, at);
	return at;
}

/*
 * Read a recording in memory to its end.  Returns the number of records
 * read; *ret is the error of open, or the last return of next (0 or <0);
 * msg receives the error message.
 */
static int read_all(const void *buf, size_t len, int *ret, char *msg, size_t n)
{
	struct recreader *r = NULL;
	struct errbuf eb = { { 0 } };
	struct rec rec;
	int k = 0;

	*ret = recreader__open_mem(buf, len, &r, &eb);
	if (*ret == 0) {
		while ((*ret = recreader__next(r, &rec, &eb)) == 1)
			k++;
	}
	snprintf(msg, n, "%s", *ret < 0 ? eb.msg : "");
	recreader__free(r);
	return k;
}

/* ---- round trip ---- */

static const char long_format[] =
	"name: page_fault_user\nID: 123\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned long address;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"address=%ps\", (void *)REC->address\n";

#define RAW_BIG 65536u

static uint64_t frames[REC_MAX_FRAMES];
static unsigned char raw_big[RAW_BIG];

static void fill_edge_data(void)
{
	for (uint32_t i = 0; i < REC_MAX_FRAMES; i++)
		frames[i] = 0xffffffff00000000ull + i * 0x1000 + (i == 0 ? 0 : 0xff);
	frames[REC_MAX_FRAMES - 1] = UINT64_MAX;
	for (uint32_t i = 0; i < RAW_BIG; i++)
		raw_big[i] = (unsigned char)(i * 7 + (i >> 8));
}

static const uint8_t bid20[20] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99,
	0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01, 0x02, 0x03, 0xfe,
};

/* One record of every type, fields at their edges.  Returns the number
 * of records written. */
#define W(call) do { CHECK_EQ_U64(call, 0); n++; } while (0)

static int write_all_types(const char *path)
{
	struct recwriter *w = NULL;
	struct errbuf eb = { { 0 } };
	int n = 0;
	struct rec_mmap m1 = {
		.pid = 1234, .time = 6, .start = 0x555555554000ull, .len = 0x1000,
		.pgoff = 0x2000, .prot = 5, .flags = 2, .maj = 8, .min = 1, .ino = 99,
		.build_id_size = 20, .path = "/usr/bin/demo",
	};

	memcpy(m1.build_id, bid20, sizeof(bid20));
	CHECK_EQ_U64(recwriter__open(path, &w, &eb), 0);
	if (!w)
		return 0;
	W(recwriter__meta(w, "kernel", "6.18.0"));
	W(recwriter__meta(w, "empty", ""));
	W(recwriter__meta(w, "null", NULL));
	W(recwriter__event(w, &(struct rec_event){
		.id = 0, .kind = REC_EVENT_TRACEPOINT, .flags = 0xffffffff,
		.config = 0, .name = "exceptions:page_fault_user", .path = "",
		.format = long_format }));
	W(recwriter__event(w, &(struct rec_event){
		.id = 1, .kind = REC_EVENT_UPROBE, .flags = 3, .config = UINT64_MAX,
		.name = "faultline_1234:malloc_enter",
		.path = "/usr/lib/x86_64-linux-gnu/libc.so.6", .format = "x" }));
	W(recwriter__event(w, &(struct rec_event){
		.id = 2, .kind = REC_EVENT_SOFTWARE, .config = 2, .name = "page-faults" }));
	W(recwriter__event(w, &(struct rec_event){
		.id = 3, .kind = REC_EVENT_KPROBE, .name = "k" }));
	W(recwriter__proc(w, &(struct rec_proc){
		.pid = 1234, .time = 5, .comm = "demo" }));
	W(recwriter__proc(w, &(struct rec_proc){
		.pid = UINT32_MAX, .time = UINT64_MAX, .comm = "" }));
	W(recwriter__mmap(w, &m1));
	W(recwriter__mmap(w, &(struct rec_mmap){
		.pid = 1, .time = 0, .start = UINT64_MAX - 0x1fff, .len = 0x1000,
		.pgoff = UINT64_MAX, .prot = 0, .flags = 1, .ino = UINT64_MAX,
		.build_id_size = 0, .path = "" }));
	W(recwriter__comm(w, &(struct rec_comm){
		.pid = 1234, .tid = 1235, .time = 7, .exec = true, .comm = "demo2" }));
	W(recwriter__comm(w, &(struct rec_comm){
		.pid = 1234, .tid = 1236, .time = 8, .exec = false, .comm = "" }));
	W(recwriter__fork(w, &(struct rec_task){
		.pid = 2000, .ppid = 1234, .tid = 2000, .ptid = 1235, .time = 9 }));
	W(recwriter__exit(w, &(struct rec_task){
		.pid = UINT32_MAX, .ppid = 0, .tid = UINT32_MAX - 1, .ptid = 1,
		.time = UINT64_MAX }));
	W(recwriter__stack(w, &(struct rec_stack){
		.id = 1, .kind = REC_STACK_USER, .nr = REC_MAX_FRAMES, .ips = frames }));
	W(recwriter__stack(w, &(struct rec_stack){
		.id = 2, .kind = REC_STACK_KERNEL, .nr = 0, .ips = NULL }));
	W(recwriter__stack(w, &(struct rec_stack){
		.id = 3, .kind = REC_STACK_KERNEL, .nr = 2, .ips = frames + 10 }));
	W(recwriter__sample(w, &(struct rec_sample){
		.event = 0, .pid = 1234, .tid = 1235, .cpu = 1, .time = 10, .addr = 0x1000,
		.user_stack = 1, .kernel_stack = 3, .raw_size = 0, .raw = NULL }));
	W(recwriter__sample(w, &(struct rec_sample){
		.event = 3, .pid = 0, .tid = 0, .cpu = UINT32_MAX, .time = UINT64_MAX,
		.addr = UINT64_MAX, .user_stack = 0, .kernel_stack = 0,
		.raw_size = RAW_BIG, .raw = raw_big }));
	W(recwriter__lost(w, &(struct rec_lost){ .time = 11, .count = UINT64_MAX }));
	{
		struct rec_end e = { .stop = 2, .status = -1, .samples = 2, .lost = UINT64_MAX,
				     .bad = 5, .nr_counters = REC_MAX_COUNTERS, .pauses = 3,
				     .paused_ns = UINT64_MAX };

		for (uint32_t i = 0; i < REC_MAX_COUNTERS; i++)
			e.counters[i] = i == 15 ? UINT64_MAX : i * 3;
		W(recwriter__end(w, &e));
	}
	CHECK_EQ_U64(recwriter__close(w, &eb), 0);
	return n;
}

static void check_all_types(struct recreader *r, int nwritten, const char *how)
{
	struct errbuf eb = { { 0 } };
	struct rec rec;
	uint64_t prev_off = 0;
	int n = 0, ret;

	while ((ret = recreader__next(r, &rec, &eb)) == 1) {
		CHECK(rec.offset >= 20 && (n == 0 || rec.offset > prev_off));
		if (n == 0)
			CHECK_EQ_U64(rec.offset, 20);
		prev_off = rec.offset;
		switch (n) {
		case 0:
			CHECK_EQ_U64(rec.type, REC_META);
			CHECK_STR(rec.u.meta.key, "kernel");
			CHECK_STR(rec.u.meta.value, "6.18.0");
			break;
		case 1:
			CHECK_STR(rec.u.meta.key, "empty");
			CHECK_STR(rec.u.meta.value, "");
			break;
		case 2:
			CHECK_STR(rec.u.meta.key, "null");
			CHECK_STR(rec.u.meta.value, "");
			break;
		case 3:
			CHECK_EQ_U64(rec.type, REC_EVENT);
			CHECK_EQ_U64(rec.u.event.id, 0);
			CHECK_EQ_U64(rec.u.event.kind, REC_EVENT_TRACEPOINT);
			CHECK_EQ_U64(rec.u.event.flags, 0xffffffff);
			CHECK_EQ_U64(rec.u.event.config, 0);
			CHECK_STR(rec.u.event.name, "exceptions:page_fault_user");
			CHECK_STR(rec.u.event.path, "");
			CHECK_STR(rec.u.event.format, long_format);
			break;
		case 4:
			CHECK_EQ_U64(rec.u.event.id, 1);
			CHECK_EQ_U64(rec.u.event.kind, REC_EVENT_UPROBE);
			CHECK_EQ_U64(rec.u.event.flags, 3);
			CHECK_EQ_U64(rec.u.event.config, UINT64_MAX);
			CHECK_STR(rec.u.event.name, "faultline_1234:malloc_enter");
			CHECK_STR(rec.u.event.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
			CHECK_STR(rec.u.event.format, "x");
			break;
		case 5:
			CHECK_EQ_U64(rec.u.event.id, 2);
			CHECK_EQ_U64(rec.u.event.kind, REC_EVENT_SOFTWARE);
			CHECK_EQ_U64(rec.u.event.config, 2);
			CHECK_STR(rec.u.event.name, "page-faults");
			CHECK_STR(rec.u.event.format, "");
			break;
		case 6:
			CHECK_EQ_U64(rec.u.event.id, 3);
			CHECK_EQ_U64(rec.u.event.kind, REC_EVENT_KPROBE);
			break;
		case 7:
			CHECK_EQ_U64(rec.type, REC_PROC);
			CHECK_EQ_U64(rec.u.proc.pid, 1234);
			CHECK_EQ_U64(rec.u.proc.time, 5);
			CHECK_STR(rec.u.proc.comm, "demo");
			break;
		case 8:
			CHECK_EQ_U64(rec.u.proc.pid, UINT32_MAX);
			CHECK_EQ_U64(rec.u.proc.time, UINT64_MAX);
			CHECK_STR(rec.u.proc.comm, "");
			break;
		case 9:
			CHECK_EQ_U64(rec.type, REC_MMAP);
			CHECK_EQ_U64(rec.u.mmap.pid, 1234);
			CHECK_EQ_U64(rec.u.mmap.time, 6);
			CHECK_EQ_U64(rec.u.mmap.start, 0x555555554000ull);
			CHECK_EQ_U64(rec.u.mmap.len, 0x1000);
			CHECK_EQ_U64(rec.u.mmap.pgoff, 0x2000);
			CHECK_EQ_U64(rec.u.mmap.prot, 5);
			CHECK_EQ_U64(rec.u.mmap.flags, 2);
			CHECK_EQ_U64(rec.u.mmap.maj, 8);
			CHECK_EQ_U64(rec.u.mmap.min, 1);
			CHECK_EQ_U64(rec.u.mmap.ino, 99);
			CHECK_EQ_U64(rec.u.mmap.build_id_size, 20);
			CHECK(memcmp(rec.u.mmap.build_id, bid20, 20) == 0);
			CHECK_STR(rec.u.mmap.path, "/usr/bin/demo");
			break;
		case 10:
			CHECK_EQ_U64(rec.u.mmap.start, UINT64_MAX - 0x1fff);
			CHECK_EQ_U64(rec.u.mmap.pgoff, UINT64_MAX);
			CHECK_EQ_U64(rec.u.mmap.ino, UINT64_MAX);
			CHECK_EQ_U64(rec.u.mmap.build_id_size, 0);
			CHECK_STR(rec.u.mmap.path, "");
			break;
		case 11:
			CHECK_EQ_U64(rec.type, REC_COMM);
			CHECK_EQ_U64(rec.u.comm.pid, 1234);
			CHECK_EQ_U64(rec.u.comm.tid, 1235);
			CHECK_EQ_U64(rec.u.comm.time, 7);
			CHECK(rec.u.comm.exec);
			CHECK_STR(rec.u.comm.comm, "demo2");
			break;
		case 12:
			CHECK(!rec.u.comm.exec);
			CHECK_STR(rec.u.comm.comm, "");
			break;
		case 13:
			CHECK_EQ_U64(rec.type, REC_FORK);
			CHECK_EQ_U64(rec.u.task.pid, 2000);
			CHECK_EQ_U64(rec.u.task.ppid, 1234);
			CHECK_EQ_U64(rec.u.task.tid, 2000);
			CHECK_EQ_U64(rec.u.task.ptid, 1235);
			CHECK_EQ_U64(rec.u.task.time, 9);
			break;
		case 14:
			CHECK_EQ_U64(rec.type, REC_EXIT);
			CHECK_EQ_U64(rec.u.task.pid, UINT32_MAX);
			CHECK_EQ_U64(rec.u.task.ppid, 0);
			CHECK_EQ_U64(rec.u.task.tid, UINT32_MAX - 1);
			CHECK_EQ_U64(rec.u.task.ptid, 1);
			CHECK_EQ_U64(rec.u.task.time, UINT64_MAX);
			break;
		case 15:
			CHECK_EQ_U64(rec.type, REC_STACK);
			CHECK_EQ_U64(rec.u.stack.id, 1);
			CHECK_EQ_U64(rec.u.stack.kind, REC_STACK_USER);
			CHECK_EQ_U64(rec.u.stack.nr, REC_MAX_FRAMES);
			CHECK(rec.u.stack.ips &&
			      memcmp(rec.u.stack.ips, frames, sizeof(frames)) == 0);
			CHECK(((uintptr_t)rec.u.stack.ips & 7) == 0);
			break;
		case 16:
			CHECK_EQ_U64(rec.u.stack.id, 2);
			CHECK_EQ_U64(rec.u.stack.kind, REC_STACK_KERNEL);
			CHECK_EQ_U64(rec.u.stack.nr, 0);
			break;
		case 17:
			CHECK_EQ_U64(rec.u.stack.id, 3);
			CHECK_EQ_U64(rec.u.stack.nr, 2);
			CHECK(rec.u.stack.ips && rec.u.stack.ips[0] == frames[10] &&
			      rec.u.stack.ips[1] == frames[11]);
			break;
		case 18:
			CHECK_EQ_U64(rec.type, REC_SAMPLE);
			CHECK_EQ_U64(rec.u.sample.event, 0);
			CHECK_EQ_U64(rec.u.sample.pid, 1234);
			CHECK_EQ_U64(rec.u.sample.tid, 1235);
			CHECK_EQ_U64(rec.u.sample.cpu, 1);
			CHECK_EQ_U64(rec.u.sample.time, 10);
			CHECK_EQ_U64(rec.u.sample.addr, 0x1000);
			CHECK_EQ_U64(rec.u.sample.user_stack, 1);
			CHECK_EQ_U64(rec.u.sample.kernel_stack, 3);
			CHECK_EQ_U64(rec.u.sample.raw_size, 0);
			break;
		case 19:
			CHECK_EQ_U64(rec.u.sample.event, 3);
			CHECK_EQ_U64(rec.u.sample.pid, 0);
			CHECK_EQ_U64(rec.u.sample.cpu, UINT32_MAX);
			CHECK_EQ_U64(rec.u.sample.time, UINT64_MAX);
			CHECK_EQ_U64(rec.u.sample.addr, UINT64_MAX);
			CHECK_EQ_U64(rec.u.sample.user_stack, 0);
			CHECK_EQ_U64(rec.u.sample.kernel_stack, 0);
			CHECK_EQ_U64(rec.u.sample.raw_size, RAW_BIG);
			CHECK(rec.u.sample.raw && memcmp(rec.u.sample.raw, raw_big, RAW_BIG) == 0);
			break;
		case 20:
			CHECK_EQ_U64(rec.type, REC_LOST);
			CHECK_EQ_U64(rec.u.lost.time, 11);
			CHECK_EQ_U64(rec.u.lost.count, UINT64_MAX);
			break;
		case 21:
			CHECK_EQ_U64(rec.type, REC_END);
			CHECK_EQ_U64(rec.u.end.stop, 2);
			CHECK_EQ_U64(rec.u.end.status, (uint64_t)(int64_t)-1);
			CHECK(rec.u.end.status == -1);
			CHECK_EQ_U64(rec.u.end.samples, 2);
			CHECK_EQ_U64(rec.u.end.lost, UINT64_MAX);
			CHECK_EQ_U64(rec.u.end.bad, 5);
			CHECK_EQ_U64(rec.u.end.nr_counters, REC_MAX_COUNTERS);
			CHECK_EQ_U64(rec.u.end.counters[0], 0);
			CHECK_EQ_U64(rec.u.end.counters[14], 42);
			CHECK_EQ_U64(rec.u.end.counters[15], UINT64_MAX);
			CHECK_EQ_U64(rec.u.end.pauses, 3);
			CHECK_EQ_U64(rec.u.end.paused_ns, UINT64_MAX);
			break;
		}
		n++;
	}
	if (ret != 0)
		fprintf(stderr, "%s: %s\n", how, eb.msg);
	CHECK_EQ_U64(ret, 0);
	CHECK_EQ_U64(n, nwritten);
	/* The clean end stays the clean end. */
	CHECK_EQ_U64(recreader__next(r, &rec, &eb), 0);
}

static void test_round_trip(void)
{
	struct recreader *r = NULL;
	struct errbuf eb = { { 0 } };
	char *path = tmp_path();
	unsigned char *buf;
	unsigned int major = 9, minor = 9;
	size_t len;
	int n;

	fill_edge_data();
	n = write_all_types(path);
	CHECK_EQ_U64(n, 22);

	CHECK_EQ_U64(recreader__open(path, &r, &eb), 0);
	if (r) {
		recreader__version(r, &major, &minor);
		CHECK_EQ_U64(major, REC_VERSION_MAJOR);
		CHECK_EQ_U64(minor, REC_VERSION_MINOR);
		check_all_types(r, n, "file");
	}
	recreader__free(r);
	r = NULL;

	/* From memory: an exactly sized copy, so ASan sees any overread. */
	buf = slurp(path, &len);
	CHECK(len > RAW_BIG + 8 * REC_MAX_FRAMES);
	CHECK_EQ_U64(recreader__open_mem(buf, len, &r, &eb), 0);
	if (r)
		check_all_types(r, n, "memory");
	recreader__free(r);
	/* The file starts with the documented header. */
	CHECK(memcmp(buf, "FAULTREC\x01\x00\x02\x00\x04\x03\x02\x01\x14\x00\x00\x00", 20) == 0);
	free(buf);
	unlink(path);
	free(path);

	recreader__free(NULL);
	CHECK_EQ_U64(recwriter__close(NULL, NULL), 0);
	CHECK_EQ_U64(recwriter__bytes(NULL), 0);
	CHECK_STR(rec_type__name(REC_SAMPLE), "sample");
	CHECK_STR(rec_type__name((enum rec_type)0), "unknown");
	CHECK_STR(rec_type__name((enum rec_type)13), "unknown");
}

/* A record larger than both buffers streams through the writer's and
 * grows the reader's; the reader then goes back to ordinary records. */
static void test_large_record(void)
{
	size_t big = 3u << 20, len;
	char *text = malloc(big + 1);
	struct recwriter *w = NULL;
	struct recreader *r = NULL;
	struct errbuf eb = { { 0 } };
	char *path = tmp_path();
	unsigned char *buf;
	struct rec rec;
	int ret;

	for (size_t i = 0; i < big; i++)
		text[i] = (char)('a' + i % 26);
	text[big] = '\0';
	CHECK_EQ_U64(recwriter__open(path, &w, &eb), 0);
	CHECK_EQ_U64(recwriter__meta(w, "before", "x"), 0);
	CHECK_EQ_U64(recwriter__event(w, &(struct rec_event){
		.id = 0, .kind = REC_EVENT_TRACEPOINT, .name = "big", .format = text }), 0);
	CHECK_EQ_U64(recwriter__meta(w, "after", "y"), 0);
	CHECK_EQ_U64(recwriter__end(w, &(struct rec_end){ .status = 0 }), 0);
	CHECK_EQ_U64(recwriter__bytes(w), 20 + 23 + (43 + big) + 22 + 60);
	CHECK_EQ_U64(recwriter__close(w, &eb), 0);

	buf = slurp(path, &len);
	/* A file, memory, and a pipe (refused). */
	for (int pass = 0; pass < 3; pass++) {
		int fds[2] = { -1, -1 };
		char pipe_path[64];

		if (pass == 0) {
			CHECK_EQ_U64(recreader__open(path, &r, &eb), 0);
		} else if (pass == 1) {
			CHECK_EQ_U64(recreader__open_mem(buf, len, &r, &eb), 0);
		} else {
			if (pipe(fds) != 0)
				abort();
			snprintf(pipe_path, sizeof(pipe_path), "/proc/self/fd/%d", fds[0]);
			/* A recording's path is anyone's: a pipe there is
			 * refused, never waited on (report -i says so first). */
			CHECK(recreader__open(pipe_path, &r, &eb) == -EINVAL);
			CHECK(strstr(eb.msg, ": not a regular file") != NULL);
			CHECK(r == NULL);
			close(fds[0]);
			close(fds[1]);
		}
		if (!r)
			continue;
		CHECK_EQ_U64(recreader__next(r, &rec, &eb), 1);
		CHECK_STR(rec.u.meta.key, "before");
		CHECK_EQ_U64(recreader__next(r, &rec, &eb), 1);
		CHECK_EQ_U64(rec.type, REC_EVENT);
		CHECK(rec.u.event.format && strlen(rec.u.event.format) == big &&
		      memcmp(rec.u.event.format, text, big) == 0);
		CHECK_EQ_U64(recreader__next(r, &rec, &eb), 1);
		CHECK_STR(rec.u.meta.key, "after");
		CHECK_EQ_U64(rec.offset, 20 + 23 + 43 + big);
		CHECK_EQ_U64(recreader__next(r, &rec, &eb), 1);
		CHECK_EQ_U64(rec.type, REC_END);
		ret = recreader__next(r, &rec, &eb);
		CHECK_EQ_U64(ret, 0);
		recreader__free(r);
		r = NULL;
	}
	free(buf);
	free(text);
	unlink(path);
	free(path);
}

/* The smallest recording, byte for byte as docs/record-format.md shows it. */
static void test_golden(void)
{
	static const unsigned char want[80] = {
		0x46, 0x41, 0x55, 0x4c, 0x54, 0x52, 0x45, 0x43, 0x01, 0x00, 0x02, 0x00,
		0x04, 0x03, 0x02, 0x01, 0x14, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00,
		0x34, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
	};
	struct recwriter *w = NULL;
	struct errbuf eb = { { 0 } };
	char *path = tmp_path();
	unsigned char *buf;
	size_t len;

	CHECK_EQ_U64(recwriter__open(path, &w, &eb), 0);
	CHECK_EQ_U64(recwriter__end(w, &(struct rec_end){ .status = -1 }), 0);
	CHECK_EQ_U64(recwriter__close(w, &eb), 0);
	buf = slurp(path, &len);
	CHECK_EQ_U64(len, sizeof(want));
	CHECK(len == sizeof(want) && memcmp(buf, want, len) == 0);
	free(buf);
	unlink(path);
	free(path);
}

/* ---- a million samples ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

#define MANY 1000000u
#define MANY_STACKS 100u

static void test_million(void)
{
	struct recwriter *w = NULL;
	struct recreader *r = NULL;
	struct errbuf eb = { { 0 } };
	char *path = tmp_path();
	uint64_t sum_w = 0, sum_r = 0, ips[8];
	uint64_t samples = 0, stacks = 0, others = 0, bytes = 0;
	bool flushed = false, bounded = true;
	long rss_before, rss_after;
	struct rec rec;
	struct stat st;
	int ret;

	rss_before = maxrss_kib();
	CHECK_EQ_U64(recwriter__open(path, &w, &eb), 0);
	if (!w)
		return;
	recwriter__meta(w, "tool", "faults");
	recwriter__event(w, &(struct rec_event){ .id = 0, .kind = REC_EVENT_SOFTWARE,
						  .config = 2, .name = "page-faults" });
	recwriter__event(w, &(struct rec_event){ .id = 1, .kind = REC_EVENT_TRACEPOINT,
						  .name = "kmem:mm_page_alloc", .format = "f" });
	for (uint32_t i = 0; i < MANY; i++) {
		struct rec_sample s = {
			.event = i & 1, .pid = 1000 + i % 7, .tid = 2000 + i % 13, .cpu = i % 3,
			.time = 1000000000ull + i * 997ull, .addr = 0x7f0000000000ull + i * 4096ull,
		};
		uint64_t raw = (uint64_t)i * 0x100000001ull;

		if (i % (MANY / MANY_STACKS) == 0) {
			for (int k = 0; k < 8; k++)
				ips[k] = 0x400000 + i + (uint64_t)k;
			stacks++;
			CHECK_EQ_U64(recwriter__stack(w, &(struct rec_stack){
				.id = (uint32_t)stacks, .kind = REC_STACK_USER, .nr = 8,
				.ips = ips }), 0);
		}
		s.user_stack = (uint32_t)(1 + i % stacks);
		s.kernel_stack = i % 5 ? 0 : (uint32_t)stacks;
		if (s.event == 1) {
			s.raw = &raw;
			s.raw_size = sizeof(raw);
		}
		if (recwriter__sample(w, &s) != 0) {
			CHECK(!"sample write failed");
			break;
		}
		sum_w = mix(sum_w, s.event);
		sum_w = mix(sum_w, s.pid);
		sum_w = mix(sum_w, s.tid);
		sum_w = mix(sum_w, s.cpu);
		sum_w = mix(sum_w, s.time);
		sum_w = mix(sum_w, s.addr);
		sum_w = mix(sum_w, s.user_stack);
		sum_w = mix(sum_w, s.kernel_stack);
		sum_w = mix(sum_w, s.raw_size ? raw : 0);
		/* Memory bound: the file only ever gets whole buffers, and what
		 * the writer holds is less than one. */
		if (i % 4096 == 0) {
			if (stat(path, &st) != 0 || st.st_size % RECWRITER_BUFSIZE != 0 ||
			    recwriter__bytes(w) - (uint64_t)st.st_size >= RECWRITER_BUFSIZE)
				bounded = false;
			if (st.st_size > 0)
				flushed = true;
		}
	}
	CHECK(bounded);
	CHECK(flushed);
	recwriter__lost(w, &(struct rec_lost){ .time = 1, .count = 3 });
	recwriter__end(w, &(struct rec_end){ .samples = MANY, .lost = 3 });
	bytes = recwriter__bytes(w);
	CHECK_EQ_U64(recwriter__close(w, &eb), 0);
	CHECK(stat(path, &st) == 0);
	CHECK_EQ_U64((uint64_t)st.st_size, bytes);
	/* 52 bytes a sample, 8 more of raw for half of them. */
	CHECK(bytes > MANY * 52ull + MANY / 2 * 8);

	CHECK_EQ_U64(recreader__open(path, &r, &eb), 0);
	if (!r)
		return;
	while ((ret = recreader__next(r, &rec, &eb)) == 1) {
		const struct rec_sample *s = &rec.u.sample;
		uint64_t raw = 0;

		if (rec.type == REC_STACK) {
			CHECK_EQ_U64(rec.u.stack.nr, 8);
			continue;
		}
		if (rec.type != REC_SAMPLE) {
			others++;
			if (rec.type == REC_END)
				CHECK_EQ_U64(rec.u.end.samples, MANY);
			continue;
		}
		samples++;
		if (s->raw_size == 8)
			memcpy(&raw, s->raw, 8);
		sum_r = mix(sum_r, s->event);
		sum_r = mix(sum_r, s->pid);
		sum_r = mix(sum_r, s->tid);
		sum_r = mix(sum_r, s->cpu);
		sum_r = mix(sum_r, s->time);
		sum_r = mix(sum_r, s->addr);
		sum_r = mix(sum_r, s->user_stack);
		sum_r = mix(sum_r, s->kernel_stack);
		sum_r = mix(sum_r, raw);
	}
	if (ret)
		fprintf(stderr, "million: %s\n", eb.msg);
	CHECK_EQ_U64(ret, 0);
	CHECK_EQ_U64(samples, MANY);
	CHECK_EQ_U64(others, 3 + 2);	/* meta, 2 events, lost, end */
	CHECK_EQ_U64(sum_r, sum_w);
	recreader__free(r);
	rss_after = maxrss_kib();
	/* A file of ~60 MB went through both: neither held it (the bound is
	 * loose for the sanitizers' own bookkeeping). */
	printf("million: %llu bytes, peak rss grew %ld KiB\n", (unsigned long long)bytes,
	       rss_after - rss_before);
	CHECK(rss_after - rss_before < 16 * 1024);
	unlink(path);
	free(path);
}

/* ---- truncation ---- */

static void test_truncation(void)
{
	struct recwriter *w = NULL;
	struct errbuf eb = { { 0 } };
	char *path = tmp_path();
	uint64_t ends[64];
	uint64_t ips[3] = { 1, 2, 3 };
	unsigned char *buf;
	char msg[1024];
	size_t len;
	int nrec = 0, ret, got;
	bool all_ok = true;
	struct recreader *r = NULL;
	struct rec rec;

	CHECK_EQ_U64(recwriter__open(path, &w, &eb), 0);
	recwriter__meta(w, "k", "v");
	recwriter__event(w, &(struct rec_event){ .id = 0, .kind = REC_EVENT_UPROBE,
						  .name = "g:e", .path = "/bin/x", .format = "fmt" });
	recwriter__proc(w, &(struct rec_proc){ .pid = 1, .comm = "a" });
	recwriter__mmap(w, &(struct rec_mmap){ .pid = 1, .start = 0x1000, .len = 0x1000,
						.build_id_size = 3, .path = "/bin/x" });
	recwriter__comm(w, &(struct rec_comm){ .pid = 1, .tid = 1, .comm = "b" });
	recwriter__fork(w, &(struct rec_task){ .pid = 2, .ppid = 1 });
	recwriter__stack(w, &(struct rec_stack){ .id = 1, .kind = REC_STACK_USER, .nr = 3,
						  .ips = ips });
	recwriter__sample(w, &(struct rec_sample){ .event = 0, .user_stack = 1, .raw_size = 3,
						    .raw = "xyz" });
	recwriter__lost(w, &(struct rec_lost){ .count = 1 });
	recwriter__exit(w, &(struct rec_task){ .pid = 2 });
	recwriter__end(w, &(struct rec_end){ .nr_counters = 2 });
	CHECK_EQ_U64(recwriter__close(w, &eb), 0);

	/* Where each record ends, from a full read. */
	buf = slurp(path, &len);
	CHECK_EQ_U64(recreader__open_mem(buf, len, &r, &eb), 0);
	while (r && (ret = recreader__next(r, &rec, &eb)) == 1) {
		if (nrec > 0)
			ends[nrec - 1] = rec.offset;
		nrec++;
	}
	ends[nrec - 1] = len;
	recreader__free(r);
	CHECK_EQ_U64(nrec, 11);

	for (size_t cut = 0; cut < len; cut++) {
		int whole = 0;

		while (whole < nrec && ends[whole] <= cut)
			whole++;
		got = read_all(buf, cut, &ret, msg, sizeof(msg));
		/* Every record wholly before the cut, none after it, and then
		 * a truncation error naming an offset. */
		if (got != whole || ret != -ENODATA || strncmp(msg, "offset ", 7) != 0) {
			if (all_ok)
				fprintf(stderr, "cut at %zu: %d records (%d whole), ret %d: %s\n",
					cut, got, whole, ret, msg);
			all_ok = false;
		}
	}
	CHECK(all_ok);
	/* Examples of the messages, pinned. */
	read_all(buf, 0, &ret, msg, sizeof(msg));
	CHECK_STR(msg, "offset 0: the recording ends inside its header (0 of 20 bytes)");
	read_all(buf, 20, &ret, msg, sizeof(msg));
	CHECK_STR(msg, "offset 20: the recording ends without an end record (truncated)");
	read_all(buf, 25, &ret, msg, sizeof(msg));
	CHECK_STR(msg, "offset 20: the recording ends inside a record header (5 of 8 bytes, truncated)");
	read_all(buf, 30, &ret, msg, sizeof(msg));
	CHECK_STR(msg, "offset 20: meta record of 10 bytes is cut after 2 (truncated)");

	/* The same through files of the cut length, for the buffered path. */
	for (size_t cut = 0; cut < len; cut++) {
		int whole = 0, k = 0;
		FILE *f;

		while (whole < nrec && ends[whole] <= cut)
			whole++;
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, cut, f) != cut || fclose(f) != 0)
			abort();
		ret = recreader__open(path, &r, &eb);
		if (ret == 0) {
			while ((ret = recreader__next(r, &rec, &eb)) == 1)
				k++;
		}
		recreader__free(r);
		r = NULL;
		if (k != whole || ret != -ENODATA) {
			if (all_ok)
				fprintf(stderr, "file cut at %zu: %d records (%d whole), ret %d: %s\n",
					cut, k, whole, ret, eb.msg);
			all_ok = false;
		}
	}
	CHECK(all_ok);
	free(buf);
	unlink(path);
	free(path);
}

/* ---- corruption ---- */

static void expect(struct bld *b, int records, int err, const char *message, int line)
{
	char msg[1024];
	int ret, got;

	got = read_all(b->b, b->n, &ret, msg, sizeof(msg));
	check_count++;
	if (got != records || ret != err || strcmp(msg, message) != 0) {
		check_failures++;
		fprintf(stderr, "%s:%d: %d records, ret %d \"%s\"; expected %d, %d \"%s\"\n",
			__FILE__, line, got, ret, msg, records, err, message);
	}
}

#define EXPECT(b, records, err, message) expect(b, records, err, message, __LINE__)

static void test_corruption(void)
{
	struct bld b = { 0 };
	size_t at, at2;
	char msg[128];

	/* The crafted base reads cleanly. */
	b_std_header(&b);
	b_event(&b, 0, REC_EVENT_TRACEPOINT, "a:b");
	b_stack(&b, 1, REC_STACK_USER, 2);
	b_sample(&b, 0, 1, 0);
	b_end(&b);
	EXPECT(&b, 4, 0, "");

	/* Header. */
	b_std_header(&b);
	b.b[0] = 'X';
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 0: not a faultline recording (no 'FAULTREC' magic)");
	b.n = 5;
	EXPECT(&b, 0, -EBADMSG, "offset 0: not a faultline recording (no 'FAULTREC' magic)");
	b_header(&b, 1, 0, 0x04030201, 20);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG,
	       "offset 12: big-endian recording: this faultline reads little-endian ones");
	b_header(&b, 1, 0, 0x01020305, 20);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 12: bad byte-order marker 0x01020305");
	b_header(&b, 1, 0, 0x01020304, 24);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 16: bad header size 24 for format version 1.0");
	b_header(&b, 1, 3, 0x01020304, 16);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 16: bad header size 16 for format version 1.3");
	b_header(&b, 1, 3, 0x01020304, 5000);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 16: bad header size 5000 for format version 1.3");
	b_header(&b, 1, 3, 0x01020304, 64);
	b.n = 40;
	EXPECT(&b, 0, -ENODATA, "offset 0: the recording ends inside its header (40 of 64 bytes)");

	/* A record longer than the file; over the limit. */
	b_std_header(&b);
	at = b_event(&b, 0, REC_EVENT_TRACEPOINT, "a:b");
	b_end(&b);
	b.b[at + 4] += 100;
	EXPECT(&b, 0, -ENODATA, "offset 20: event record of 135 bytes is cut after 95 (truncated)");
	b_std_header(&b);
	b_u32(&b, REC_SAMPLE);
	b_u32(&b, REC_MAX_PAYLOAD + 1);
	EXPECT(&b, 0, -EBADMSG,
	       "offset 20: sample record (type 9) of 67108865 bytes, more than the limit of 67108864");
	b_std_header(&b);
	b_u32(&b, 77);
	b_u32(&b, UINT32_MAX);
	EXPECT(&b, 0, -EBADMSG,
	       "offset 20: unknown record (type 77) of 4294967295 bytes, more than the limit of 67108864");

	/* A string overrunning its record, a length of 4 GiB, a nul inside. */
	b_std_header(&b);
	at = b_rec(&b, REC_META);
	b_u32(&b, 1);
	b_bytes(&b, "k", 1);
	b_u32(&b, 10);
	b_bytes(&b, "abc", 3);
	b_done(&b, at);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG,
	       "offset 20: meta record: 'value' of 10 bytes overruns the record (3 bytes left)");
	b_std_header(&b);
	at = b_rec(&b, REC_PROC);
	b_u32(&b, 1);
	b_u64(&b, 2);
	b_u32(&b, UINT32_MAX);
	b_bytes(&b, "abc", 3);
	b_done(&b, at);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG,
	       "offset 20: proc record: 'comm' of 4294967295 bytes overruns the record (3 bytes left)");
	b_std_header(&b);
	b_proc(&b, "ab");
	b.b[b.n - 1] = '\0';
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: proc record: 'comm' contains a nul byte");

	/* Fixed fields past the record; bytes left after them. */
	b_std_header(&b);
	at = b_rec(&b, REC_LOST);
	b_u64(&b, 1);
	b_u32(&b, 2);
	b_done(&b, at);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: lost record of 12 bytes ends inside its 'count'");
	b_std_header(&b);
	at = b_rec(&b, REC_LOST);
	b_u64(&b, 1);
	b_u64(&b, 2);
	b_u8(&b, 0);
	b_done(&b, at);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: lost record has 1 bytes after its fields");

	/* Event ids: a sample naming one not defined; out of sequence. */
	b_std_header(&b);
	b_event(&b, 0, REC_EVENT_TRACEPOINT, "a:b");
	b_event(&b, 1, REC_EVENT_TRACEPOINT, "a:c");
	b_event(&b, 2, REC_EVENT_SOFTWARE, "page-faults");
	at = b_sample(&b, 7, 0, 0);
	b_end(&b);
	snprintf(msg, sizeof(msg), "offset %zu: sample record names event 7, only 3 defined", at);
	EXPECT(&b, 3, -EBADMSG, msg);
	b_std_header(&b);
	b_sample(&b, 0, 0, 0);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: sample record names event 0, only 0 defined");
	b_std_header(&b);
	b_event(&b, 0, REC_EVENT_TRACEPOINT, "a:b");
	at = b_event(&b, 2, REC_EVENT_TRACEPOINT, "a:c");
	b_end(&b);
	snprintf(msg, sizeof(msg),
		 "offset %zu: event record defines id 2, expected 1 (ids are dense from 0)", at);
	EXPECT(&b, 1, -EBADMSG, msg);
	b_std_header(&b);
	b_event(&b, 0, REC_EVENT_TRACEPOINT, "a:b");
	at = b_event(&b, 0, REC_EVENT_TRACEPOINT, "a:b");
	b_end(&b);
	snprintf(msg, sizeof(msg),
		 "offset %zu: event record defines id 0, expected 1 (ids are dense from 0)", at);
	EXPECT(&b, 1, -EBADMSG, msg);

	/* Stack ids: never defined; out of sequence; not starting at 1. */
	b_std_header(&b);
	b_event(&b, 0, REC_EVENT_TRACEPOINT, "a:b");
	b_stack(&b, 1, REC_STACK_USER, 1);
	b_stack(&b, 2, REC_STACK_KERNEL, 1);
	at = b_sample(&b, 0, 5, 0);
	b_end(&b);
	snprintf(msg, sizeof(msg), "offset %zu: sample record names user stack 5, only 2 defined", at);
	EXPECT(&b, 3, -EBADMSG, msg);
	b_std_header(&b);
	b_event(&b, 0, REC_EVENT_TRACEPOINT, "a:b");
	b_stack(&b, 1, REC_STACK_USER, 1);
	b_sample(&b, 0, 1, 1);
	at = b_sample(&b, 0, 1, 2);
	b_end(&b);
	snprintf(msg, sizeof(msg), "offset %zu: sample record names kernel stack 2, only 1 defined",
		 at);
	EXPECT(&b, 3, -EBADMSG, msg);
	b_std_header(&b);
	b_stack(&b, 1, REC_STACK_USER, 1);
	at = b_stack(&b, 3, REC_STACK_USER, 1);
	b_end(&b);
	snprintf(msg, sizeof(msg),
		 "offset %zu: stack record defines id 3, expected 2 (ids are consecutive from 1)", at);
	EXPECT(&b, 1, -EBADMSG, msg);
	b_std_header(&b);
	b_stack(&b, 0, REC_STACK_USER, 1);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG,
	       "offset 20: stack record defines id 0, expected 1 (ids are consecutive from 1)");

	/* Counts: too many frames; a frame count that would overflow a
	 * 32-bit byte count; frames past the record; raw past the record;
	 * too many counters. */
	b_std_header(&b);
	b_stack(&b, 1, REC_STACK_USER, REC_MAX_FRAMES + 1);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: stack record has 1025 frames, more than 1024");
	b_std_header(&b);
	at = b_rec(&b, REC_STACK);
	b_u32(&b, 1);
	b_u32(&b, REC_STACK_USER);
	b_u32(&b, 0x20000001);	/* 8 * nr wraps to 8 in 32 bits */
	b_u64(&b, 0x1234);
	b_done(&b, at);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: stack record has 536870913 frames, more than 1024");
	b_std_header(&b);
	at = b_stack(&b, 1, REC_STACK_USER, 4);
	b.b[at + 16] = 5;	/* nr 5, 4 frames there */
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG,
	       "offset 20: stack record: 'ips' of 40 bytes overruns the record (32 bytes left)");
	b_std_header(&b);
	b_event(&b, 0, REC_EVENT_TRACEPOINT, "a:b");
	at = b_sample(&b, 0, 0, 0);
	memset(b.b + at + 8 + 40, 0xff, 4);	/* raw_size 4 GiB - 1 */
	b_end(&b);
	snprintf(msg, sizeof(msg),
		 "offset %zu: sample record: 'raw' of 4294967295 bytes overruns the record (2 bytes left)",
		 at);
	EXPECT(&b, 1, -EBADMSG, msg);
	b_std_header(&b);
	at = b_rec(&b, REC_END);
	b_u32(&b, 0);
	b_u32(&b, 0);
	b_u64(&b, 0);
	b_u64(&b, 0);
	b_u64(&b, 0);
	b_u32(&b, 17);
	for (int i = 0; i < 17; i++)
		b_u64(&b, 1);
	b_done(&b, at);
	EXPECT(&b, 0, -EBADMSG, "offset 20: end record has 17 counters, more than 16");
	b_std_header(&b);
	at = b_rec(&b, REC_END);
	b_u32(&b, 0);
	b_u32(&b, 0);
	b_u64(&b, 0);
	b_u64(&b, 0);
	b_u64(&b, 0);
	b_u32(&b, 3);
	b_u64(&b, 1);
	b_done(&b, at);
	EXPECT(&b, 0, -EBADMSG, "offset 20: end record of 44 bytes ends inside its 'counters'");

	/* MMAP: a build-id over 20 bytes, an empty range, a wrapping one. */
	for (int c = 0; c < 3; c++) {
		static const char *const want[] = {
			"offset 20: mmap record has a build-id of 21 bytes, more than 20",
			"offset 20: mmap record has an empty range at 0x1000",
			"offset 20: mmap record range 0xfffffffffffff000 + 0x2000 wraps around",
		};

		b_std_header(&b);
		at = b_rec(&b, REC_MMAP);
		b_u32(&b, 1);
		b_u64(&b, 0);
		b_u64(&b, c == 2 ? 0xfffffffffffff000ull : 0x1000);
		b_u64(&b, c == 1 ? 0 : c == 2 ? 0x2000 : 0x1000);
		b_u64(&b, 0);
		for (int i = 0; i < 4; i++)
			b_u32(&b, 0);
		b_u64(&b, 0);
		b_u8(&b, c == 0 ? 21 : 0);
		for (int i = 0; c == 0 && i < 21; i++)
			b_u8(&b, 1);
		b_str(&b, "");
		b_done(&b, at);
		b_end(&b);
		EXPECT(&b, 0, -EBADMSG, want[c]);
	}

	/* Enumerations and required strings. */
	b_std_header(&b);
	b_event(&b, 0, 5, "a:b");
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: event record has unknown kind 5");
	b_std_header(&b);
	b_event(&b, 0, 0, "a:b");
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: event record has unknown kind 0");
	b_std_header(&b);
	b_event(&b, 0, REC_EVENT_TRACEPOINT, "");
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: event record has an empty name");
	b_std_header(&b);
	b_stack(&b, 1, 3, 0);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: stack record has unknown kind 3");
	b_std_header(&b);
	at = b_rec(&b, REC_META);
	b_str(&b, "");
	b_str(&b, "v");
	b_done(&b, at);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: meta record has an empty key");
	b_std_header(&b);
	at = b_rec(&b, REC_COMM);
	b_u32(&b, 1);
	b_u32(&b, 1);
	b_u64(&b, 0);
	b_u32(&b, 2);
	b_str(&b, "c");
	b_done(&b, at);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: comm record has exec flag 2 (0 or 1 expected)");

	/* Unknown types in a file of our own minor version. */
	b_std_header(&b);
	at = b_rec(&b, 13);
	b_done(&b, at);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: unknown record type 13 (format version 1.2)");
	b_std_header(&b);
	b_proc(&b, "a");
	at = b_rec(&b, 0);
	b_u32(&b, 0);
	b_done(&b, at);
	b_end(&b);
	snprintf(msg, sizeof(msg), "offset %zu: unknown record type 0 (format version 1.2)", at);
	EXPECT(&b, 1, -EBADMSG, msg);

	/* After END: a record, a second END, garbage; none at all. */
	b_std_header(&b);
	b_end(&b);
	at = b_proc(&b, "late");
	snprintf(msg, sizeof(msg), "offset %zu: data after the end record", at);
	EXPECT(&b, 1, -EBADMSG, msg);
	b_std_header(&b);
	b_end(&b);
	at = b_end(&b);
	snprintf(msg, sizeof(msg), "offset %zu: data after the end record", at);
	EXPECT(&b, 1, -EBADMSG, msg);
	b_std_header(&b);
	b_proc(&b, "a");
	at2 = b_end(&b);
	at = b.n;
	b_bytes(&b, "\0\0\0", 3);
	snprintf(msg, sizeof(msg), "offset %zu: data after the end record", at);
	EXPECT(&b, 2, -EBADMSG, msg);
	b_std_header(&b);
	b_proc(&b, "a");
	at = b.n;
	snprintf(msg, sizeof(msg), "offset %zu: the recording ends without an end record (truncated)",
		 at);
	EXPECT(&b, 1, -ENODATA, msg);
	CHECK(at2 > 20);

	/* An error sticks: the next call gives it again, message and all. */
	{
		struct recreader *r = NULL;
		struct errbuf eb = { { 0 } };
		struct rec rec;

		b_std_header(&b);
		b_sample(&b, 0, 0, 0);
		b_end(&b);
		CHECK_EQ_U64(recreader__open_mem(b.b, b.n, &r, &eb), 0);
		CHECK(recreader__next(r, &rec, &eb) == -EBADMSG);
		eb.msg[0] = '\0';
		CHECK(recreader__next(r, &rec, &eb) == -EBADMSG);
		CHECK_STR(eb.msg, "offset 20: sample record names event 0, only 0 defined");
		recreader__free(r);
	}
	free(b.b);
}

/* ---- versions ---- */

static void test_versions(void)
{
	struct recreader *r = NULL;
	struct errbuf eb = { { 0 } };
	struct bld b = { 0 };
	struct rec rec;
	unsigned int major, minor;
	size_t at;

	/* A newer minor: a longer header, a record type we do not know (with
	 * and without payload), a PROC with a field appended: read, the
	 * unknown skipped, the extra field ignored. */
	b_header(&b, REC_VERSION_MAJOR, REC_VERSION_MINOR + 1, 0x01020304, 28);
	at = b_rec(&b, REC_META);
	b_str(&b, "k");
	b_str(&b, "v");
	b_done(&b, at);
	at = b_rec(&b, 40);
	b_bytes(&b, "0123456789", 10);
	b_done(&b, at);
	at = b_rec(&b, 41);
	b_done(&b, at);
	at = b_rec(&b, REC_PROC);
	b_u32(&b, 42);
	b_u64(&b, 7);
	b_str(&b, "newer");
	b_u32(&b, 0xabcdef);	/* a field of 1.1 */
	b_done(&b, at);
	b_end(&b);
	CHECK_EQ_U64(recreader__open_mem(b.b, b.n, &r, &eb), 0);
	if (r) {
		recreader__version(r, &major, &minor);
		CHECK_EQ_U64(minor, REC_VERSION_MINOR + 1);
		CHECK_EQ_U64(recreader__next(r, &rec, &eb), 1);
		CHECK_EQ_U64(rec.type, REC_META);
		CHECK_EQ_U64(rec.offset, 28);
		CHECK_STR(rec.u.meta.value, "v");
		CHECK_EQ_U64(recreader__next(r, &rec, &eb), 1);
		CHECK_EQ_U64(rec.type, REC_PROC);
		CHECK_EQ_U64(rec.offset, 28 + 18 + 18 + 8);
		CHECK_EQ_U64(rec.u.proc.pid, 42);
		CHECK_STR(rec.u.proc.comm, "newer");
		CHECK_EQ_U64(recreader__next(r, &rec, &eb), 1);
		CHECK_EQ_U64(rec.type, REC_END);
		CHECK_EQ_U64(recreader__next(r, &rec, &eb), 0);
	}
	recreader__free(r);
	r = NULL;

	/* A newer major: refused at open, whatever follows. */
	b_header(&b, REC_VERSION_MAJOR + 1, 0, 0x01020304, 20);
	b_end(&b);
	CHECK(recreader__open_mem(b.b, b.n, &r, &eb) == -ENOTSUP);
	CHECK(r == NULL);
	CHECK_STR(eb.msg, "offset 8: format version 2.0: this faultline reads 1.x only");
	b_header(&b, 0, 9, 0x01020304, 20);
	CHECK(recreader__open_mem(b.b, b.n, &r, &eb) == -ENOTSUP);
	CHECK_STR(eb.msg, "offset 8: format version 0.9: this faultline reads 1.x only");
	free(b.b);
}

/* ---- END's pauses (1.2): back-pressure's totals ---- */

/* A file of format 1.minor of just an END with nr_pause pause fields. */
static size_t b_end_pauses(struct bld *b, unsigned int minor, int nr_pause, uint64_t pauses,
			   uint64_t ns)
{
	b_header(b, 1, (uint16_t)minor, 0x01020304, 20);
	return b_end_n(b, nr_pause, pauses, ns);
}

/* The END's pause totals of a one-record file, or UINT64_MAX when it does
 * not read. */
static uint64_t end_pauses(const struct bld *b, uint64_t *ns)
{
	struct recreader *r = NULL;
	struct rec rec;
	uint64_t pauses = UINT64_MAX;

	if (recreader__open_mem(b->b, b->n, &r, NULL) == 0 &&
	    recreader__next(r, &rec, NULL) == 1 && rec.type == REC_END &&
	    recreader__next(r, &rec, NULL) == 0) {
		pauses = rec.u.end.pauses;
		*ns = rec.u.end.paused_ns;
	}
	recreader__free(r);
	return pauses;
}

static void test_pauses(void)
{
	struct recwriter *w = NULL;
	struct errbuf eb = { { 0 } };
	struct bld b = { 0 };
	uint64_t ns = 1;

	/* 1.2 has them; 1.1 and 1.0 have none, and read as never paused. */
	b_end_pauses(&b, 2, 2, 3, 41000000);
	CHECK_EQ_U64(end_pauses(&b, &ns), 3);
	CHECK_EQ_U64(ns, 41000000);
	for (unsigned int minor = 0; minor < 2; minor++) {
		b_end_pauses(&b, minor, 0, 0, 0);
		ns = 1;
		CHECK_EQ_U64(end_pauses(&b, &ns), 0);
		CHECK_EQ_U64(ns, 0);
	}
	/* A newer minor's END keeps them where they are. */
	b_end_pauses(&b, 3, 2, 7, 9);
	b_u32(&b, 0xabcdef);
	b.b[24] += 4;
	CHECK_EQ_U64(end_pauses(&b, &ns), 7);
	CHECK_EQ_U64(ns, 9);

	/* Corrupt: cut, time paused without a pause, a 1.1 END with them. */
	b_end_pauses(&b, 2, 0, 0, 0);
	EXPECT(&b, 0, -EBADMSG, "offset 20: end record of 36 bytes ends inside its 'pauses'");
	b_end_pauses(&b, 2, 1, 3, 0);
	EXPECT(&b, 0, -EBADMSG, "offset 20: end record of 44 bytes ends inside its 'paused_ns'");
	b_end_pauses(&b, 2, 2, 0, 5);
	EXPECT(&b, 0, -EBADMSG, "offset 20: end record has 5 ns paused but no pause");
	b_end_pauses(&b, 1, 2, 3, 5);
	EXPECT(&b, 0, -EBADMSG, "offset 20: end record has 16 bytes after its fields");
	free(b.b);

	/* The writer refuses what the reader would. */
	CHECK_EQ_U64(recwriter__open("/dev/null", &w, &eb), 0);
	if (!w)
		return;
	CHECK_EQ_U64(recwriter__end(w, &(struct rec_end){ .paused_ns = 5 }), -EINVAL);
	CHECK_STR(recwriter__errmsg(w, -EINVAL), "end record with 5 ns paused but no pause");
	CHECK_EQ_U64(recwriter__end(w, &(struct rec_end){ .pauses = 1, .paused_ns = 5 }), 0);
	CHECK_EQ_U64(recwriter__close(w, &eb), 0);
}

/* ---- writer errors ---- */

static void test_write_errors(void)
{
	struct recwriter *w = NULL;
	struct recreader *r = NULL;
	struct errbuf eb = { { 0 } };
	char *path = tmp_path();
	uint64_t ips[REC_MAX_FRAMES + 1] = { 0 };
	uint8_t raw[4096] = { 0 };
	struct rec rec;
	int ret = 0, n;

	/* A full disk: reported by close, and latched once a flush failed. */
	CHECK_EQ_U64(recwriter__open("/dev/full", &w, &eb), 0);
	if (w) {
		CHECK_EQ_U64(recwriter__meta(w, "k", "v"), 0);
		CHECK_EQ_U64(recwriter__close(w, &eb), -ENOSPC);
		CHECK_STR(eb.msg, "cannot write '/dev/full': No space left on device");
	}
	w = NULL;
	CHECK_EQ_U64(recwriter__open("/dev/full", &w, &eb), 0);
	if (w) {
		recwriter__event(w, &(struct rec_event){ .id = 0, .kind = REC_EVENT_SOFTWARE,
							  .name = "e" });
		for (n = 0; n < 1000 && ret == 0; n++)
			ret = recwriter__sample(w, &(struct rec_sample){
				.event = 0, .raw = raw, .raw_size = sizeof(raw) });
		CHECK_EQ_U64(ret, -ENOSPC);
		CHECK(n > 200 && n < 300);	/* after a buffer of 1 MiB */
		CHECK_EQ_U64(recwriter__lost(w, &(struct rec_lost){ 0 }), -ENOSPC);
		CHECK_STR(recwriter__errmsg(w, -ENOSPC),
			  "cannot write '/dev/full': No space left on device");
		eb.msg[0] = '\0';
		CHECK_EQ_U64(recwriter__close(w, &eb), -ENOSPC);
		CHECK_STR(eb.msg, "cannot write '/dev/full': No space left on device");
	}
	w = NULL;
	CHECK(recwriter__open("/nonexistent/dir/rec", &w, &eb) == -ENOENT);
	CHECK(w == NULL);
	CHECK_STR(eb.msg, "cannot create '/nonexistent/dir/rec': No such file or directory");
	CHECK(recreader__open("/nonexistent/dir/rec", &r, &eb) == -ENOENT);
	CHECK_STR(eb.msg, "cannot open '/nonexistent/dir/rec': No such file or directory");

	/* Records the reader would refuse are refused, the writer goes on,
	 * and the file reads back clean. */
	CHECK_EQ_U64(recwriter__open(path, &w, &eb), 0);
	if (!w)
		return;
	CHECK_EQ_U64(recwriter__meta(w, "", "v"), -EINVAL);
	CHECK_STR(recwriter__errmsg(w, -EINVAL), "meta record with an empty key");
	CHECK_EQ_U64(recwriter__event(w, &(struct rec_event){ .id = 1, .kind = 1, .name = "e" }),
		     -EINVAL);
	CHECK_STR(recwriter__errmsg(w, -EINVAL), "event record defines id 1, expected 0");
	CHECK_EQ_U64(recwriter__event(w, &(struct rec_event){ .id = 0, .kind = 9, .name = "e" }),
		     -EINVAL);
	CHECK_EQ_U64(recwriter__event(w, &(struct rec_event){ .id = 0, .kind = 1, .name = "" }),
		     -EINVAL);
	CHECK_EQ_U64(recwriter__event(w, &(struct rec_event){ .id = 0, .kind = 1, .name = "e" }), 0);
	CHECK_EQ_U64(recwriter__sample(w, &(struct rec_sample){ .event = 1 }), -EINVAL);
	CHECK_STR(recwriter__errmsg(w, -EINVAL), "sample record names event 1, only 1 defined");
	CHECK_EQ_U64(recwriter__sample(w, &(struct rec_sample){ .event = 0, .user_stack = 1 }),
		     -EINVAL);
	CHECK_EQ_U64(recwriter__sample(w, &(struct rec_sample){ .event = 0, .raw_size = 1 }),
		     -EINVAL);
	CHECK_EQ_U64(recwriter__stack(w, &(struct rec_stack){ .id = 2, .kind = 1 }), -EINVAL);
	CHECK_EQ_U64(recwriter__stack(w, &(struct rec_stack){
		.id = 1, .kind = 1, .nr = REC_MAX_FRAMES + 1, .ips = ips }), -EINVAL);
	CHECK_STR(recwriter__errmsg(w, -EINVAL), "stack record with 1025 frames, more than 1024");
	CHECK_EQ_U64(recwriter__stack(w, &(struct rec_stack){ .id = 1, .kind = 0 }), -EINVAL);
	CHECK_EQ_U64(recwriter__stack(w, &(struct rec_stack){ .id = 1, .kind = 1, .nr = 1 }),
		     -EINVAL);
	CHECK_EQ_U64(recwriter__stack(w, &(struct rec_stack){ .id = 1, .kind = 1 }), 0);
	CHECK_EQ_U64(recwriter__sample(w, &(struct rec_sample){ .event = 0, .kernel_stack = 1 }), 0);
	CHECK_EQ_U64(recwriter__mmap(w, &(struct rec_mmap){ .start = 1, .len = 1,
							    .build_id_size = 21 }), -EINVAL);
	CHECK_EQ_U64(recwriter__mmap(w, &(struct rec_mmap){ .start = 1, .len = 0 }), -EINVAL);
	CHECK_EQ_U64(recwriter__mmap(w, &(struct rec_mmap){ .start = UINT64_MAX, .len = 2 }),
		     -EINVAL);
	CHECK_EQ_U64(recwriter__end(w, &(struct rec_end){ .nr_counters = 17 }), -EINVAL);
	CHECK_EQ_U64(recwriter__end(w, &(struct rec_end){ .nr_counters = 0 }), 0);
	CHECK_EQ_U64(recwriter__meta(w, "late", "v"), -EINVAL);
	CHECK_STR(recwriter__errmsg(w, -EINVAL), "meta record after the end record");
	CHECK_EQ_U64(recwriter__end(w, &(struct rec_end){ 0 }), -EINVAL);
	CHECK_EQ_U64(recwriter__close(w, &eb), 0);

	CHECK_EQ_U64(recreader__open(path, &r, &eb), 0);
	n = 0;
	while (r && (ret = recreader__next(r, &rec, &eb)) == 1)
		n++;
	CHECK_EQ_U64(ret, 0);
	CHECK_EQ_U64(n, 4);	/* event, stack, sample, end */
	recreader__free(r);
	unlink(path);
	free(path);
}

/* ---- KSYM (1.1): kernel symbols a recording names its frames with ---- */

static size_t b_ksym(struct bld *b, uint64_t start, uint64_t end, const char *name,
		     const char *module)
{
	size_t at = b_rec(b, REC_KSYM);

	b_u64(b, start);
	b_u64(b, end);
	b_str(b, name);
	b_str(b, module);
	b_done(b, at);
	return at;
}

static void test_ksym(void)
{
	static const uint64_t kips[2] = { 0xffffffff81234567ull, 0xffffffffc0001010ull };
	struct recwriter *w = NULL;
	struct recreader *r = NULL;
	struct errbuf eb = { { 0 } };
	char *path = tmp_path();
	struct bld b = { 0 };
	struct rec rec;
	char msg[160];
	size_t at;
	int n = 0, ret;

	/* Written before the stack that needs them, read back as written. */
	CHECK_EQ_U64(recwriter__open(path, &w, &eb), 0);
	CHECK_EQ_U64(recwriter__ksym(w, &(struct rec_ksym){ 0xffffffff81234500ull,
		0xffffffff81234600ull, "__d_alloc", "" }), 0);
	CHECK_EQ_U64(recwriter__ksym(w, &(struct rec_ksym){ 0xffffffffc0001000ull,
		0xffffffffc0001100ull, "ext4_lookup", "ext4" }), 0);
	CHECK_EQ_U64(recwriter__ksym(w, &(struct rec_ksym){ 0, UINT64_MAX, "all", NULL }), 0);
	/* The writer refuses what the reader would. */
	CHECK_EQ_U64(recwriter__ksym(w, &(struct rec_ksym){ 5, 5, "x", "" }), -EINVAL);
	CHECK_STR(recwriter__errmsg(w, -EINVAL), "ksym record with an empty range 0x5-0x5");
	CHECK_EQ_U64(recwriter__ksym(w, &(struct rec_ksym){ 6, 5, "x", "" }), -EINVAL);
	CHECK_EQ_U64(recwriter__ksym(w, &(struct rec_ksym){ 1, 5, "", "" }), -EINVAL);
	CHECK_STR(recwriter__errmsg(w, -EINVAL), "ksym record with an empty name");
	CHECK_EQ_U64(recwriter__ksym(w, &(struct rec_ksym){ 1, 5, NULL, "" }), -EINVAL);
	CHECK_EQ_U64(recwriter__stack(w, &(struct rec_stack){ 1, REC_STACK_KERNEL, 2, kips }), 0);
	CHECK_EQ_U64(recwriter__end(w, &(struct rec_end){ .status = -1 }), 0);
	/* 8 + 16 + 4 + 9 + 4 + 0 bytes for __d_alloc in vmlinux. */
	CHECK_EQ_U64(recwriter__bytes(w), 20 + (8 + 24 + 9) + (8 + 24 + 11 + 4) + (8 + 24 + 3) +
					   (8 + 12 + 16) + (8 + 52));
	CHECK_EQ_U64(recwriter__close(w, &eb), 0);
	CHECK_EQ_U64(recreader__open(path, &r, &eb), 0);
	while ((ret = recreader__next(r, &rec, &eb)) == 1) {
		switch (n++) {
		case 0:
			CHECK_EQ_U64(rec.type, REC_KSYM);
			CHECK_EQ_U64(rec.offset, 20);
			CHECK_EQ_U64(rec.u.ksym.start, 0xffffffff81234500ull);
			CHECK_EQ_U64(rec.u.ksym.end, 0xffffffff81234600ull);
			CHECK_STR(rec.u.ksym.name, "__d_alloc");
			CHECK_STR(rec.u.ksym.module, "");
			break;
		case 1:
			CHECK_EQ_U64(rec.type, REC_KSYM);
			CHECK_STR(rec.u.ksym.name, "ext4_lookup");
			CHECK_STR(rec.u.ksym.module, "ext4");
			break;
		case 2:
			CHECK_EQ_U64(rec.u.ksym.start, 0);
			CHECK_EQ_U64(rec.u.ksym.end, UINT64_MAX);
			CHECK_STR(rec.u.ksym.module, "");
			break;
		case 3:
			CHECK_EQ_U64(rec.type, REC_STACK);
			CHECK_EQ_U64(rec.u.stack.kind, REC_STACK_KERNEL);
			CHECK_EQ_U64(rec.u.stack.nr, 2);
			break;
		case 4:
			CHECK_EQ_U64(rec.type, REC_END);
			break;
		}
	}
	CHECK_EQ_U64(ret, 0);
	CHECK_EQ_U64(n, 5);
	CHECK_STR(rec_type__name(REC_KSYM), "ksym");
	recreader__free(r);
	unlink(path);
	free(path);

	/* A bad KSYM is refused at its offset. */
	b_std_header(&b);
	b_proc(&b, "a");
	at = b_ksym(&b, 0x2000, 0x2000, "f", "");
	b_end(&b);
	snprintf(msg, sizeof(msg), "offset %zu: ksym record has an empty range 0x2000-0x2000 "
		 "(start must be below end)", at);
	EXPECT(&b, 1, -EBADMSG, msg);
	b_std_header(&b);
	b_ksym(&b, 0x3000, 0x2000, "f", "");
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: ksym record has an empty range 0x3000-0x2000 "
	       "(start must be below end)");
	b_std_header(&b);
	b_ksym(&b, 0x1000, 0x2000, "", "ext4");
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: ksym record has an empty name");
	b_std_header(&b);
	at = b_rec(&b, REC_KSYM);
	b_u64(&b, 1);
	b_u64(&b, 2);
	b_u32(&b, 100);		/* a name longer than the record */
	b_bytes(&b, "abc", 3);
	b_done(&b, at);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: ksym record: 'name' of 100 bytes overruns the record "
	       "(3 bytes left)");
	b_std_header(&b);
	at = b_rec(&b, REC_KSYM);
	b_u64(&b, 1);
	b_done(&b, at);
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: ksym record of 8 bytes ends inside its 'end'");
	b_std_header(&b);
	b_ksym(&b, 1, 2, "f", "");
	b_u8(&b, 0);	/* a byte after the fields, counted in the length */
	b.b[24] = 16 + 4 + 1 + 4 + 1;
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: ksym record has 1 bytes after its fields");
	/* 1.0 had no KSYM: in a 1.0 file it is corruption, not the future. */
	b_header(&b, 1, 0, 0x01020304, 20);
	b_ksym(&b, 1, 2, "f", "");
	b_end(&b);
	EXPECT(&b, 0, -EBADMSG, "offset 20: ksym record in a format 1.0 recording (ksym "
	       "records are 1.1's)");
	/* A 1.0 file without one (every recording made before 1.1) reads. */
	b_header(&b, 1, 0, 0x01020304, 20);
	b_event(&b, 0, REC_EVENT_TRACEPOINT, "a:b");
	b_stack(&b, 1, REC_STACK_KERNEL, 2);
	b_sample(&b, 0, 0, 1);
	b_end(&b);
	EXPECT(&b, 4, 0, "");
	free(b.b);
}

int main(void)
{
	/* First, so the peak RSS it measures is its own. */
	test_million();
	test_round_trip();
	test_golden();
	test_large_record();
	test_truncation();
	test_corruption();
	test_versions();
	test_pauses();
	test_ksym();
	test_write_errors();
	return check_done("test-recfile");
}
