/*
 * fuzz-recfile: fuzz target of the recording reader (src/trace/recread.c).
 *
 * LLVMFuzzerTestOneInput() reads every record of its input through
 * recreader__open_mem() until the clean end or an error, and checks what
 * the reader promises beyond "no crash": a return of 1, 0 or -errno only,
 * errors that name an offset and stick, records in increasing order inside
 * the input, ids and counts within the documented limits, strings
 * terminated, raw data inside the input.  An input read cleanly to its end
 * is written again through the writer and must come out byte for byte the
 * same (the encoding is canonical), which catches a field decoded from the
 * wrong place.  Out-of-bounds reads and undefined behaviour are the
 * sanitizers' to catch: the check runs this in the ASan/UBSan build.
 *
 * Built with -DFUZZ_LIBFUZZER and -fsanitize=fuzzer (clang) it is a
 * libFuzzer target.  Otherwise main() below is a small standalone driver,
 * without coverage feedback: it builds seed recordings itself (every
 * record type, a newer minor version's file, a 1.1 file, whose END has no
 * pauses, the smallest file) plus any given as arguments, runs each as
 * is, then runs mutants of them (bit
 * flips, byte sets, truncations, length and count fields set to boundary
 * values, records deleted, duplicated, swapped and spliced) until the time
 * is up, or -n of them; mutants also set the records' time fields to
 * boundaries (0, 2^56, 2^64 - 1, far past the others).  Each input is
 * also replayed, as `faultline report` would (session__new_replay() on
 * it, every event added, rounds on): a replay follows the recorded times
 * with its 100 ms rounds, and one corrupt time once made it loop for
 * hours, so each input has a wall-clock budget (-b, 2 s; a watchdog thread
 * saves the input and aborts past it).  It exits 0 unless the reader or
 * the replay misbehaved; the failing input is saved to
 * fuzz-recfile-crash.bin, and `fuzz-recfile -t 0 FILE` replays it.
 *
 *   fuzz-recfile [-t SECONDS | -n INPUTS] [-b BUDGET] [-s RNG_SEED] [-v] [-w DIR]
 *                [SEED_FILE...]
 * (-v lists the distinct error messages reached, numbers blanked; -w DIR
 * writes the built seeds there, a corpus for libFuzzer, and exits.)
 *
 * libFuzzer, by hand, from the source tree:
 *   clang -g -O1 -DFUZZ_LIBFUZZER -fsanitize=fuzzer,address,undefined \
 *     -include BUILD/config.h -iquote src tests/fuzz/fuzz-recfile.c \
 *     src/trace/recfile.c src/trace/recread.c src/lib/errbuf.c -o fuzz-recfile-lf
 *   mkdir corpus && BUILD/tests/fuzz/fuzz-recfile -w corpus
 *   ./fuzz-recfile-lf -max_total_time=600 corpus
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create */
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "trace/recfile.h"
#ifndef FUZZ_LIBFUZZER
#include "trace/session.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* LeakSanitizer's built-in suppressions: libtraceevent 1.7 leaks what it
 * had parsed of an event's format when the rest of it fails to parse (the
 * replay hands it the fuzzed format texts); the leak is the library's, a
 * few dozen bytes per malformed format. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

/* Inputs of at most this size, so a mutant stays cheap to read. */
#define FUZZ_MAX_INPUT (1u << 20)

#ifndef FUZZ_LIBFUZZER
/* The input being run, for the crash file (this file is a test program:
 * its few globals are the driver's state, single-threaded; libFuzzer
 * saves its own crash inputs). */
static const uint8_t *cur_data;
static size_t cur_size;

static void save_crash(void)
{
	int fd = open("fuzz-recfile-crash.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t done = 0;
	ssize_t n;

	if (fd < 0)
		return;
	while (cur_data && done < cur_size) {
		n = write(fd, cur_data + done, cur_size - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	/* async-signal-safe: no stdio */
	n = write(2, "fuzz-recfile: input saved to fuzz-recfile-crash.bin\n", 52);
	(void)n;
}
#endif

static void misbehaved(const char *what, uint64_t detail, const char *msg)
{
	fprintf(stderr, "fuzz-recfile: the reader misbehaved: %s (%llu)%s%s\n", what,
		(unsigned long long)detail, msg ? ": " : "", msg ? msg : "");
#ifndef FUZZ_LIBFUZZER
	save_crash();
#endif
	abort();
}

/* The canonical-encoding check: a memfd the writer writes through
 * /proc/self/fd. */
static int reenc_fd = -1;
static char reenc_path[64];
static uint8_t *reenc_buf;

static struct recwriter *reenc_open(void)
{
	struct recwriter *w = NULL;

	if (reenc_fd < 0) {
		reenc_fd = memfd_create("fuzz-recfile", MFD_CLOEXEC);
		if (reenc_fd < 0)
			return NULL;
		snprintf(reenc_path, sizeof(reenc_path), "/proc/self/fd/%d", reenc_fd);
		reenc_buf = malloc(FUZZ_MAX_INPUT + 4096);
	}
	if (!reenc_buf || recwriter__open(reenc_path, &w, NULL) != 0)
		return NULL;
	return w;
}

static int reenc_write(struct recwriter *w, const struct rec *rec)
{
	switch (rec->type) {
	case REC_META:
		return recwriter__meta(w, rec->u.meta.key, rec->u.meta.value);
	case REC_EVENT:
		return recwriter__event(w, &rec->u.event);
	case REC_PROC:
		return recwriter__proc(w, &rec->u.proc);
	case REC_COMM:
		return recwriter__comm(w, &rec->u.comm);
	case REC_MMAP:
		return recwriter__mmap(w, &rec->u.mmap);
	case REC_FORK:
		return recwriter__fork(w, &rec->u.task);
	case REC_EXIT:
		return recwriter__exit(w, &rec->u.task);
	case REC_STACK:
		return recwriter__stack(w, &rec->u.stack);
	case REC_SAMPLE:
		return recwriter__sample(w, &rec->u.sample);
	case REC_LOST:
		return recwriter__lost(w, &rec->u.lost);
	case REC_END:
		return recwriter__end(w, &rec->u.end);
	case REC_KSYM:
		return recwriter__ksym(w, &rec->u.ksym);
	}
	return -EINVAL;
}

/* Outcomes, for the driver's summary: how many inputs read cleanly, and
 * which of the reader's error messages (numbers blanked) were reached, a
 * stand-in for coverage. */
static uint64_t n_clean, n_open_err, n_read_err;
#define MAX_KINDS 256
static char kinds[MAX_KINDS][96];
static unsigned int n_kinds;

static void note_error(const char *msg)
{
	char k[96];
	size_t j = 0;

	/* "offset 123: sample record names event 7, only 0x3 defined" ->
	 * "offset #: sample record names event #, only # defined" */
	for (size_t i = 0; msg[i] && j + 1 < sizeof(k);) {
		if (msg[i] == '0' && msg[i + 1] == 'x') {
			for (i += 2; isxdigit((unsigned char)msg[i]); i++)
				;
			k[j++] = '#';
		} else if (isdigit((unsigned char)msg[i])) {
			while (isdigit((unsigned char)msg[i]))
				i++;
			k[j++] = '#';
		} else {
			k[j++] = msg[i++];
		}
	}
	k[j] = '\0';
	for (unsigned int i = 0; i < n_kinds; i++)
		if (!strcmp(kinds[i], k))
			return;
	if (n_kinds < MAX_KINDS)
		memcpy(kinds[n_kinds++], k, sizeof(k));
}

/* Touch every byte handed out, so ASan sees a view that leaves its buffer. */
static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += b[i];
	sink += s;
}

static void check_str(const char *s, size_t size)
{
	size_t n;

	if (!s)
		misbehaved("a NULL string", 0, NULL);
	n = strlen(s);
	if (n > size)
		misbehaved("a string longer than the input", n, NULL);
	touch(s, n + 1);
}

static void check_record(const struct rec *rec, const uint8_t *data, size_t size,
			 uint64_t *events, uint64_t *stacks)
{
	const struct rec_sample *s = &rec->u.sample;

	switch (rec->type) {
	case REC_META:
		check_str(rec->u.meta.key, size);
		check_str(rec->u.meta.value, size);
		if (!rec->u.meta.key[0])
			misbehaved("an empty meta key", 0, NULL);
		break;
	case REC_EVENT:
		if (rec->u.event.id != *events)
			misbehaved("an event id out of sequence", rec->u.event.id, NULL);
		if (rec->u.event.kind < REC_EVENT_TRACEPOINT || rec->u.event.kind > REC_EVENT_SOFTWARE)
			misbehaved("an event kind unknown", rec->u.event.kind, NULL);
		(*events)++;
		check_str(rec->u.event.name, size);
		check_str(rec->u.event.path, size);
		check_str(rec->u.event.format, size);
		break;
	case REC_PROC:
		check_str(rec->u.proc.comm, size);
		break;
	case REC_COMM:
		check_str(rec->u.comm.comm, size);
		break;
	case REC_MMAP:
		check_str(rec->u.mmap.path, size);
		if (rec->u.mmap.build_id_size > REC_BUILD_ID_MAX)
			misbehaved("a build-id too long", rec->u.mmap.build_id_size, NULL);
		if (!rec->u.mmap.len || rec->u.mmap.start + rec->u.mmap.len < rec->u.mmap.start)
			misbehaved("a bad mapping range", rec->u.mmap.len, NULL);
		break;
	case REC_FORK:
	case REC_EXIT:
	case REC_LOST:
		break;
	case REC_STACK:
		if (rec->u.stack.id != *stacks + 1)
			misbehaved("a stack id out of sequence", rec->u.stack.id, NULL);
		if (rec->u.stack.nr > REC_MAX_FRAMES)
			misbehaved("too many frames", rec->u.stack.nr, NULL);
		if (rec->u.stack.nr && !rec->u.stack.ips)
			misbehaved("frames at NULL", rec->u.stack.nr, NULL);
		if (rec->u.stack.nr)
			touch(rec->u.stack.ips, 8ull * rec->u.stack.nr);
		(*stacks)++;
		break;
	case REC_SAMPLE:
		if (s->event >= *events)
			misbehaved("a sample of an undefined event", s->event, NULL);
		if (s->user_stack > *stacks || s->kernel_stack > *stacks)
			misbehaved("a sample of an undefined stack", s->user_stack, NULL);
		/* Reading memory, raw points into the input. */
		if (s->raw_size && (!s->raw || (const uint8_t *)s->raw < data ||
				    (const uint8_t *)s->raw + s->raw_size > data + size))
			misbehaved("raw data outside the input", s->raw_size, NULL);
		if (s->raw_size)
			touch(s->raw, s->raw_size);
		break;
	case REC_END:
		if (rec->u.end.nr_counters > REC_MAX_COUNTERS)
			misbehaved("too many counters", rec->u.end.nr_counters, NULL);
		if (!rec->u.end.pauses && rec->u.end.paused_ns)
			misbehaved("time paused without a pause", rec->u.end.paused_ns, NULL);
		break;
	case REC_KSYM:
		check_str(rec->u.ksym.name, size);
		check_str(rec->u.ksym.module, size);
		if (rec->u.ksym.start >= rec->u.ksym.end)
			misbehaved("an empty kernel symbol", rec->u.ksym.start, NULL);
		if (!rec->u.ksym.name[0])
			misbehaved("a kernel symbol without a name", 0, NULL);
		break;
	default:
		misbehaved("a record of unknown type", rec->type, NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recreader *r = NULL;
	struct recwriter *w = NULL;
	struct errbuf eb = { { 0 } };
	uint64_t events = 0, stacks = 0, last = 0;
	unsigned int major = 0, minor = 0;
	bool ended = false, first = true, reenc = false;
	struct rec rec;
	int ret, again;

	ret = recreader__open_mem(data, size, &r, &eb);
	if (ret) {
		if (ret > 0 || r)
			misbehaved("open returned a bad value", (uint64_t)ret, NULL);
		if (strncmp(eb.msg, "offset ", 7) != 0)
			misbehaved("an open error without an offset", (uint64_t)-ret, eb.msg);
		n_open_err++;
		note_error(eb.msg);
		return 0;
	}
	recreader__version(r, &major, &minor);
	if (major != REC_VERSION_MAJOR)
		misbehaved("a major version accepted", major, NULL);
	/* Files of our own version must re-encode to themselves. */
	if (minor == REC_VERSION_MINOR && size <= FUZZ_MAX_INPUT) {
		w = reenc_open();
		reenc = w != NULL;
	}
	while ((ret = recreader__next(r, &rec, &eb)) == 1) {
		if (ended)
			misbehaved("a record after the end record", rec.offset, NULL);
		if (rec.offset < 20 || rec.offset + 8 > size || (!first && rec.offset <= last))
			misbehaved("a record offset out of order or bounds", rec.offset, NULL);
		first = false;
		last = rec.offset;
		check_record(&rec, data, size, &events, &stacks);
		if (rec.type == REC_END)
			ended = true;
		if (w && (again = reenc_write(w, &rec)) != 0)
			misbehaved("the writer refused a record the reader accepted",
				   (uint64_t)-again, recwriter__errmsg(w, again));
	}
	if (ret == 0 && !ended)
		misbehaved("a clean end without an end record", 0, NULL);
	if (ret < 0) {
		if (ret != -EBADMSG && ret != -ENODATA && ret != -ENOMEM)
			misbehaved("an unexpected error", (uint64_t)-ret, eb.msg);
		if (strncmp(eb.msg, "offset ", 7) != 0)
			misbehaved("an error without an offset", (uint64_t)-ret, eb.msg);
		again = recreader__next(r, &rec, &eb);
		if (again != ret)
			misbehaved("an error that does not stick", (uint64_t)-again, NULL);
		n_read_err++;
		note_error(eb.msg);
	} else if (ret == 0) {
		n_clean++;
	}
	if (ret > 1)
		misbehaved("next returned a bad value", (uint64_t)ret, NULL);
	if (w) {
		again = recwriter__close(w, NULL);
		if (again)
			misbehaved("the re-encoding failed", (uint64_t)-again, NULL);
		if (ret == 0 && reenc) {
			ssize_t n = pread(reenc_fd, reenc_buf, FUZZ_MAX_INPUT + 4096, 0);

			if (n < 0 || (size_t)n != size || memcmp(reenc_buf, data, size) != 0)
				misbehaved("the input does not re-encode to itself", (uint64_t)n, NULL);
		}
	}
	recreader__free(r);
	return 0;
}

#ifndef FUZZ_LIBFUZZER

/* ---- standalone driver ---- */

struct buf {
	uint8_t *b;
	size_t n;
};

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from -s */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static size_t rnd_below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int file_to_buf(const char *path, struct buf *out)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	size_t n = 0, cap = 0, k;

	if (!f)
		return -errno;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			b = realloc(b, cap);
			if (!b)
				abort();
		}
		k = fread(b + n, 1, cap - n, f);
		if (!k)
			break;
		n += k;
	}
	fclose(f);
	out->b = b;
	out->n = n;
	return 0;
}

/* A recording with every record type, written by the writer. */
static int seed_full(struct buf *out, unsigned int variant)
{
	char path[] = "/tmp/fuzz-recfile-seed-XXXXXX";
	struct recwriter *w = NULL;
	uint64_t ips[40];
	uint8_t raw[96];
	int fd, err;

	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	close(fd);
	for (unsigned int i = 0; i < 40; i++)
		ips[i] = 0x7f0000001000ull + i * 0x10;
	for (unsigned int i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)i;
	err = recwriter__open(path, &w, NULL);
	if (err)
		goto out;
	recwriter__meta(w, "kernel", "6.18.0");
	recwriter__meta(w, "tools", "leak=uprobe,faults=tracepoint");
	/* A recording's start, which the replay's rounds count from. */
	recwriter__meta(w, "start_mono_ns", "50");
	recwriter__meta(w, "start_real_ns", "1780000000000000000");
	recwriter__event(w, &(struct rec_event){ 0, REC_EVENT_TRACEPOINT, 1, 0,
		"exceptions:page_fault_user", "",
		"name: page_fault_user\nID: 1\nformat:\n\tfield:unsigned long address;\toffset:8;\tsize:8;\tsigned:0;\n" });
	recwriter__event(w, &(struct rec_event){ 1, REC_EVENT_UPROBE, 3, 0x9a0f0,
		"faultline_1234:malloc_enter", "/usr/lib/libc.so.6", "name: malloc_enter\n" });
	recwriter__event(w, &(struct rec_event){ 2, REC_EVENT_SOFTWARE, 0, 2, "page-faults",
		"", "" });
	recwriter__event(w, &(struct rec_event){ 3, REC_EVENT_KPROBE, 0, 0, "faultline_1:k",
		"kfree", "f" });
	recwriter__proc(w, &(struct rec_proc){ 1234, 100, "demo" });
	recwriter__mmap(w, &(struct rec_mmap){ 1234, 101, 0x555555554000ull, 0x3000, 0, 5, 2,
		8, 1, 4242, 20, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
		19, 20 }, "/usr/bin/demo" });
	recwriter__mmap(w, &(struct rec_mmap){ 1234, 102, 0x7ffff7dd0000ull, 0x1000, 0, 3, 1,
		0, 0, 0, 0, { 0 }, "" });
	recwriter__comm(w, &(struct rec_comm){ 1234, 1235, 103, true, "demo2" });
	recwriter__fork(w, &(struct rec_task){ 1300, 1234, 1300, 1235, 104 });
	recwriter__ksym(w, &(struct rec_ksym){ 0xffffffff81000000ull, 0xffffffff81000040ull,
					       "d_alloc", "" });
	recwriter__ksym(w, &(struct rec_ksym){ 0xffffffffc0001000ull, 0xffffffffc0001100ull,
					       "ext4_lookup", "ext4" });
	for (unsigned int k = 0; k < 3 + variant; k++) {
		recwriter__stack(w, &(struct rec_stack){ k + 1,
			k % 2 ? REC_STACK_KERNEL : REC_STACK_USER, k * 7 % 41 > 40 ? 40 : k * 7 % 41,
			ips });
		recwriter__sample(w, &(struct rec_sample){ k % 4, 1234, 1235, k, 200 + k,
			0x1000 * k, k + 1, k % 2 ? k + 1 : 0, k % 4 == 2 ? 0 : 16 + 8 * k % 80,
			raw });
	}
	recwriter__lost(w, &(struct rec_lost){ 300, 5 });
	recwriter__exit(w, &(struct rec_task){ 1300, 1234, 1300, 1300, 301 });
	recwriter__end(w, &(struct rec_end){ 3, 0, 3, 5, 0, 7, { 1, 2, 3, 4, 5, 6, 7 }, 4,
					     41000000 + variant });
	err = recwriter__close(w, NULL);
	if (!err)
		err = file_to_buf(path, out);
out:
	unlink(path);
	return err;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* Where a record type's time is in its payload (docs/record-format.md),
 * or -1: none. */
static int time_offset(uint32_t type)
{
	switch (type) {
	case REC_PROC:
	case REC_MMAP:
		return 4;
	case REC_COMM:
		return 8;
	case REC_FORK:
	case REC_EXIT:
	case REC_SAMPLE:
		return 16;
	case REC_LOST:
		return 0;
	default:
		return -1;
	}
}

/* Insert n bytes of src at offset at of b (capacity: FUZZ_MAX_INPUT). */
static void insert(struct buf *b, size_t at, const uint8_t *src, size_t n)
{
	if (b->n + n > FUZZ_MAX_INPUT || at > b->n)
		return;
	memmove(b->b + at + n, b->b + at, b->n - at);
	memcpy(b->b + at, src, n);
	b->n += n;
}

static void erase(struct buf *b, size_t at, size_t n)
{
	if (at > b->n || n > b->n - at)
		return;
	memmove(b->b + at, b->b + at + n, b->n - at - n);
	b->n -= n;
}

/* The same file in a newer minor version: a longer header, a record type
 * of the future, a known record with a field appended. */
static void seed_newer(const struct buf *full, struct buf *out)
{
	static const uint8_t future[] = { 99, 0, 0, 0, 6, 0, 0, 0, 'f', 'u', 't', 'u', 'r', 'e' };
	static const uint8_t extra[4] = { 0xaa, 0xbb, 0xcc, 0xdd };
	uint32_t len;

	out->b = malloc(FUZZ_MAX_INPUT);
	if (!out->b)
		abort();
	memcpy(out->b, full->b, full->n);
	out->n = full->n;
	out->b[10] = REC_VERSION_MINOR + 1;	/* minor, low byte */
	put32(out->b + 16, 28);
	insert(out, 20, extra, 4);
	insert(out, 24, extra, 4);
	/* first record now at 28: a future record after it, a field more */
	len = get32(out->b + 28 + 4);
	insert(out, 28 + 8 + len, future, sizeof(future));
	insert(out, 28 + 8 + len, extra, 4);
	put32(out->b + 28 + 4, len + 4);
}

/* Offset of the END record of a seed the writer wrote. */
static size_t end_offset(const struct buf *full)
{
	size_t end_at = 0, at = 20;

	while (at + 8 <= full->n) {
		if (get32(full->b + at) == REC_END)
			end_at = at;
		at += 8 + get32(full->b + at + 4);
	}
	return end_at;
}

/* The same file as a 1.1 faultline wrote it: its END without 1.2's
 * pauses and paused_ns (the last 16 bytes of the file). */
static void seed_older(const struct buf *full, struct buf *out)
{
	size_t end_at = end_offset(full);

	out->b = malloc(FUZZ_MAX_INPUT);
	if (!out->b)
		abort();
	memcpy(out->b, full->b, full->n - 16);
	out->n = full->n - 16;
	out->b[10] = 1;	/* minor, low byte */
	put32(out->b + end_at + 4, get32(out->b + end_at + 4) - 16);
}

/* The smallest recording: the header and an END. */
static void seed_min(const struct buf *full, struct buf *out)
{
	size_t end_at = end_offset(full);

	out->b = malloc(FUZZ_MAX_INPUT);
	if (!out->b)
		abort();
	memcpy(out->b, full->b, 20);
	memcpy(out->b + 20, full->b + end_at, full->n - end_at);
	out->n = 20 + full->n - end_at;
}

/* Offsets of the records of b, as far as the lengths chain; up to max. */
static size_t record_offsets(const struct buf *b, size_t *offs, size_t max)
{
	size_t at = b->n >= 20 ? get32(b->b + 16) : 20, n = 0;

	if (at > b->n)
		at = 20;
	while (n < max && at + 8 <= b->n) {
		uint32_t len = get32(b->b + at + 4);

		if (len > b->n - at - 8)
			break;
		offs[n++] = at;
		at += 8 + len;
	}
	return n;
}

static const uint32_t boundary32[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 19, 20, 21, 1023, 1024, 1025, 0x7f, 0x80, 0xff,
	0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000u, 0xfffffffe, 0xffffffff,
	REC_MAX_PAYLOAD - 1, REC_MAX_PAYLOAD, REC_MAX_PAYLOAD + 1, 0x20000001,
};

static void mutate(struct buf *b, const struct buf *seeds, size_t nseeds)
{
	size_t offs[512], nrec, at, len, k;
	uint8_t tmp[4096];

	if (!b->n)
		return;
	nrec = record_offsets(b, offs, 512);
	switch (rnd_below(13)) {
	case 0:	/* bit flip */
		at = rnd_below(b->n);
		b->b[at] ^= (uint8_t)(1u << rnd_below(8));
		break;
	case 1:	/* byte set */
		at = rnd_below(b->n);
		b->b[at] = (uint8_t)(rnd_below(3) == 0 ? 0xff : rnd_below(3) == 0 ? 0 : rnd());
		break;
	case 2:	/* truncation */
		b->n = rnd_below(b->n);
		break;
	case 3:	/* a record's length field set to a boundary */
		if (!nrec)
			break;
		at = offs[rnd_below(nrec)];
		len = get32(b->b + at + 4);
		switch (rnd_below(4)) {
		case 0:
			put32(b->b + at + 4, boundary32[rnd_below(sizeof(boundary32) / 4)]);
			break;
		case 1:
			put32(b->b + at + 4, (uint32_t)(len + 1 + rnd_below(8)));
			break;
		case 2:
			put32(b->b + at + 4, (uint32_t)(len ? len - 1 - rnd_below(len) : 0));
			break;
		default:
			put32(b->b + at + 4, (uint32_t)(b->n - at - 8 + rnd_below(3) - 1));
		}
		break;
	case 4:	/* a u32 inside a record (ids, counts, string lengths) to a boundary */
		if (!nrec)
			break;
		k = rnd_below(nrec);
		at = offs[k];
		len = get32(b->b + at + 4);
		if (len < 4)
			break;
		at += 8 + 4 * rnd_below(len / 4 + 1);
		if (rnd_below(2))
			at = offs[k] + 8 + rnd_below(len - 3);
		if (at + 4 > b->n)
			break;
		if (rnd_below(3) == 0)
			put32(b->b + at, get32(b->b + at) + (uint32_t)rnd_below(3) - 1);
		else
			put32(b->b + at, boundary32[rnd_below(sizeof(boundary32) / 4)]);
		break;
	case 5:	/* type field */
		if (!nrec)
			break;
		put32(b->b + offs[rnd_below(nrec)], (uint32_t)rnd_below(16));
		break;
	case 6:	/* delete a record */
		if (!nrec)
			break;
		k = rnd_below(nrec);
		erase(b, offs[k], (k + 1 < nrec ? offs[k + 1] : b->n) - offs[k]);
		break;
	case 7:	/* duplicate a record, in place or elsewhere */
		if (!nrec)
			break;
		k = rnd_below(nrec);
		len = (k + 1 < nrec ? offs[k + 1] : b->n) - offs[k];
		if (len > sizeof(tmp))
			break;
		memcpy(tmp, b->b + offs[k], len);
		insert(b, rnd_below(2) ? offs[k] : offs[rnd_below(nrec)], tmp, len);
		break;
	case 8:	/* swap two neighbouring records */
		if (nrec < 2)
			break;
		k = rnd_below(nrec - 1);
		len = offs[k + 1] - offs[k];
		if (len > sizeof(tmp))
			break;
		memcpy(tmp, b->b + offs[k], len);
		erase(b, offs[k], len);
		insert(b, offs[k] + ((k + 2 < nrec ? offs[k + 2] : b->n + len) - offs[k + 1]),
		       tmp, len);
		break;
	case 9: {	/* splice a record of another seed in */
		const struct buf *o = &seeds[rnd_below(nseeds)];
		size_t ooffs[512], on = record_offsets(o, ooffs, 512);

		if (!on)
			break;
		k = rnd_below(on);
		len = (k + 1 < on ? ooffs[k + 1] : o->n) - ooffs[k];
		if (len > sizeof(tmp))
			break;
		memcpy(tmp, o->b + ooffs[k], len);
		insert(b, nrec ? offs[rnd_below(nrec)] : b->n, tmp, len);
		break;
	}
	case 12: {	/* a record's time to a boundary */
		static const uint64_t times[] = { 0, 1, 1ull << 56, UINT64_MAX, UINT64_MAX - 1,
						  1ull << 63, 1000000000ull * 3600 * 24 * 365 };
		int off;

		if (!nrec)
			break;
		at = offs[rnd_below(nrec)];
		off = time_offset(get32(b->b + at));
		if (off < 0 || at + 8 + (size_t)off + 8 > b->n)
			break;
		at += 8 + (size_t)off;
		if (rnd_below(2))
			put64(b->b + at, times[rnd_below(sizeof(times) / sizeof(times[0]))]);
		else	/* ahead by up to a few hours */
			put64(b->b + at, get64(b->b + at) + (rnd() % (1ull << 44)));
		break;
	}
	case 10:	/* garbage appended */
		len = 1 + rnd_below(16);
		for (size_t i = 0; i < len; i++)
			tmp[i] = (uint8_t)rnd();
		insert(b, b->n, tmp, len);
		break;
	default:	/* a run of bytes overwritten */
		at = rnd_below(b->n);
		len = 1 + rnd_below(8);
		for (size_t i = 0; i < len && at + i < b->n; i++)
			b->b[at + i] = (uint8_t)rnd();
	}
}

/* ---- the replay, under a wall-clock budget ---- */

static int replay_fd = -1;
static uint64_t rounds;

static void on_round(struct session *s, void *ctx)
{
	(void)s;
	(void)ctx;
	rounds++;
}

static void on_sample(struct session *s, const struct sample *smp, void *ctx)
{
	(void)s;
	(void)ctx;
	touch(smp->raw, smp->raw_size);
}

/* Replay the input as a report would: errors are fine, time is not. */
static void replay(const uint8_t *data, size_t size)
{
	struct replay_opts ro = { 0 };
	struct errbuf eb = { { 0 } };
	struct session *s = NULL;
	char path[64];

	if (replay_fd < 0 && (replay_fd = memfd_create("fuzz-replay", MFD_CLOEXEC)) < 0)
		return;
	if (ftruncate(replay_fd, 0) || pwrite(replay_fd, data, size, 0) != (ssize_t)size)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", replay_fd);
	ro.path = path;
	if (session__new_replay(&(struct session_opts){ 0 }, &ro, &s, &eb))
		return;
	for (size_t i = 0; i < session__recorded_events(s); i++)
		if (session__add_recorded(s, i, on_sample, NULL, NULL, &eb))
			break;
	if (!session__add_consumer(s, &(struct session_consumer){ .round = on_round }))
		session__run(s, &eb);
	session__free(s);
}

/* The watchdog: the start of the input being run (CLOCK_MONOTONIC ns, 0:
 * none) against the budget. */
static uint64_t budget_ns = 2000000000ull;
static volatile uint64_t input_start;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *watchdog(void *arg)
{
	(void)arg;
	for (;;) {
		uint64_t t0 = __atomic_load_n(&input_start, __ATOMIC_ACQUIRE);

		if (t0 && mono_ns() - t0 > budget_ns)
			misbehaved("an input over its time budget (ms)", budget_ns / 1000000,
				   "the replay does not end");
		nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	}
	return NULL;
}

static void run_one(const uint8_t *data, size_t size)
{
	/* An exact-size heap copy: ASan sees any read past its end. */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		abort();
	memcpy(copy, data, size);
	cur_data = copy;
	cur_size = size;
	__atomic_store_n(&input_start, mono_ns(), __ATOMIC_RELEASE);
	LLVMFuzzerTestOneInput(copy, size);
	replay(copy, size);
	__atomic_store_n(&input_start, 0, __ATOMIC_RELEASE);
	cur_data = NULL;
	free(copy);
}

/* Did a seed read cleanly to its end? */
static bool reads_clean(const struct buf *b)
{
	struct recreader *r = NULL;
	struct errbuf eb = { { 0 } };
	struct rec rec;
	int ret;

	if (recreader__open_mem(b->b, b->n, &r, &eb))
		return false;
	while ((ret = recreader__next(r, &rec, &eb)) == 1)
		;
	if (ret)
		fprintf(stderr, "fuzz-recfile: seed: %s\n", eb.msg);
	recreader__free(r);
	return ret == 0;
}

/* -w: the built seeds as files, a corpus for libFuzzer. */
static int write_seeds(const char *dir, const struct buf *seeds, size_t n)
{
	char path[4096];
	FILE *f;

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/seed-%zu.rec", dir, i);
		f = fopen(path, "wb");
		if (!f || fwrite(seeds[i].b, 1, seeds[i].n, f) != seeds[i].n || fclose(f) != 0) {
			fprintf(stderr, "fuzz-recfile: cannot write '%s'\n", path);
			return 2;
		}
	}
	printf("fuzz-recfile: %zu seeds written to %s\n", n, dir);
	return 0;
}

static void on_signal(int sig)
{
	save_crash();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* With the sanitizers, their report comes first and then this callback
 * saves the input; without them, a signal handler does. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

int main(int argc, char **argv)
{
	struct buf seeds[64], cur = { 0 };
	size_t nseeds = 0, nbuilt;
	double seconds = 10, start, elapsed;
	uint64_t execs = 0, rng_seed = 0, inputs = 0;
	pthread_t dog;
	const char *seed_dir = NULL;
	bool verbose = false;
	int opt, ret = 0;

	while ((opt = getopt(argc, argv, "t:n:b:s:vw:")) != -1) {
		switch (opt) {
		case 'n':
			inputs = strtoull(optarg, NULL, 0);
			seconds = 1e9;
			break;
		case 'b':
			budget_ns = (uint64_t)(strtod(optarg, NULL) * 1e9);
			break;
		case 'w':
			seed_dir = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		case 's':
			rng_seed = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: fuzz-recfile [-t SECONDS | -n INPUTS] [-b BUDGET] "
				"[-s RNG_SEED] [-v] [-w DIR] [SEED_FILE...]\n");
			return 2;
		}
	}
	if (!rng_seed)
		rng_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	rng_state = rng_seed;
	if (__sanitizer_set_death_callback) {
		__sanitizer_set_death_callback(save_crash);
	} else {
		signal(SIGSEGV, on_signal);
		signal(SIGBUS, on_signal);
		signal(SIGFPE, on_signal);
		signal(SIGILL, on_signal);
	}

	for (unsigned int v = 0; v < 3; v++) {
		if (seed_full(&seeds[nseeds], v) != 0) {
			fprintf(stderr, "fuzz-recfile: cannot build a seed recording\n");
			return 2;
		}
		nseeds++;
	}
	seed_newer(&seeds[0], &seeds[nseeds++]);
	seed_older(&seeds[0], &seeds[nseeds++]);
	seed_min(&seeds[0], &seeds[nseeds++]);
	nbuilt = nseeds;
	/* The built seeds must read cleanly: if not, the reader refuses a
	 * valid file, which is misbehaving too. */
	for (size_t i = 0; i < nbuilt; i++) {
		if (!reads_clean(&seeds[i])) {
			cur_data = seeds[i].b;
			cur_size = seeds[i].n;
			misbehaved("a valid seed refused", i, NULL);
		}
	}
	if (seed_dir) {
		ret = write_seeds(seed_dir, seeds, nbuilt);
		goto out;
	}
	for (int i = optind; i < argc && nseeds < 64; i++) {
		struct buf b;
		int err = file_to_buf(argv[i], &b);

		if (err) {
			fprintf(stderr, "fuzz-recfile: cannot read '%s': %s\n", argv[i], strerror(-err));
			ret = 2;
			goto out;
		}
		if (b.n > FUZZ_MAX_INPUT)
			b.n = FUZZ_MAX_INPUT;
		seeds[nseeds++] = b;
	}
	if (inputs)
		printf("fuzz-recfile: %zu seeds (%zu built), %llu inputs, rng seed %llu\n", nseeds,
		       nbuilt, (unsigned long long)inputs, (unsigned long long)rng_seed);
	else
		printf("fuzz-recfile: %zu seeds (%zu built), %.0f s, rng seed %llu\n", nseeds,
		       nbuilt, seconds, (unsigned long long)rng_seed);
	fflush(stdout);
	if (pthread_create(&dog, NULL, watchdog, NULL) || pthread_detach(dog)) {
		fprintf(stderr, "fuzz-recfile: cannot start the watchdog thread\n");
		ret = 2;
		goto out;
	}

	start = now_s();
	for (size_t i = 0; i < nseeds; i++, execs++)
		run_one(seeds[i].b, seeds[i].n);
	cur.b = malloc(FUZZ_MAX_INPUT);
	if (!cur.b)
		abort();
	for (;;) {
		if (seconds <= 0 || (execs % 256 == 0 && now_s() - start >= seconds) ||
		    (inputs && execs >= inputs + nseeds))
			break;
		const struct buf *s = &seeds[rnd_below(nseeds)];
		unsigned int n = 1 + (unsigned int)rnd_below(4);

		memcpy(cur.b, s->b, s->n);
		cur.n = s->n;
		for (unsigned int k = 0; k < n; k++)
			mutate(&cur, seeds, nseeds);
		run_one(cur.b, cur.n);
		execs++;
	}
	elapsed = now_s() - start;
	printf("fuzz-recfile: %llu executions in %.1f s (%.0f/s), %llu replay rounds, "
	       "no misbehaviour\n", (unsigned long long)execs, elapsed,
	       elapsed > 0 ? execs / elapsed : 0.0, (unsigned long long)rounds);
	printf("fuzz-recfile: %llu read cleanly, %llu refused at open, %llu refused later; "
	       "%u distinct error messages\n", (unsigned long long)n_clean,
	       (unsigned long long)n_open_err, (unsigned long long)n_read_err, n_kinds);
	for (unsigned int i = 0; verbose && i < n_kinds; i++)
		printf("  %s\n", kinds[i]);
out:
	free(cur.b);
	for (size_t i = 0; i < nseeds; i++)
		free(seeds[i].b);
	if (reenc_fd >= 0)
		close(reenc_fd);
	if (replay_fd >= 0)
		close(replay_fd);
	free(reenc_buf);
	return ret;
}

#endif /* FUZZ_LIBFUZZER */
