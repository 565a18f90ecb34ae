/*
 * test-ring: src/trace/ring.c reading a ring the test writes itself.  ring__new
 * maps (1 + pages) pages of a descriptor MAP_SHARED, the control page
 * first: a memfd stands in for the perf event, and the test maps it too,
 * to play the kernel (records at data_head) and to see what the reader
 * publishes in data_tail.  Checked: records in order and whole; a record
 * wrapping the end of the data area, and one whose very header does,
 * handed over contiguous; positions that run past the buffer size many
 * times (they are free-running u64s); a callback that stops the read
 * (that record consumed, the next read going on after it); LOST records
 * passed through for sample__parse_lost; a torn or corrupt header (size
 * below a header, or beyond data_head) dropped with -EIO, never looped on.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* memfd_create */
#endif
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "trace/ring.h"
#include "trace/sample.h"

#define PAGES 1

struct fake {
	int fd;
	size_t psz, size;		/* page size, data size */
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	struct ring *r;
};

static int fake_new(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->psz = (size_t)sysconf(_SC_PAGESIZE);
	f->size = PAGES * f->psz;
	f->fd = memfd_create("test-ring", MFD_CLOEXEC);
	if (f->fd < 0 || ftruncate(f->fd, (off_t)(f->psz + f->size)))
		return -1;
	f->pc = mmap(NULL, f->psz + f->size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	if (f->pc == MAP_FAILED)
		return -1;
	f->data = (unsigned char *)f->pc + f->psz;
	return ring__new(f->fd, PAGES, &f->r);
}

static void fake_free(struct fake *f)
{
	ring__free(f->r);
	munmap(f->pc, f->psz + f->size);
	close(f->fd);
}

/* The kernel's side: write @n bytes at position @pos (wrapping), no head
 * update. */
static void fake_write(struct fake *f, uint64_t pos, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		f->data[(pos + i) & (f->size - 1)] = ((const unsigned char *)p)[i];
}

/* A record of @size bytes (8-aligned) whose payload bytes count up from
 * @seed, written at data_head, which then moves past it. */
static void fake_record(struct fake *f, uint32_t type, uint16_t size, unsigned char seed)
{
	unsigned char buf[512];
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };

	memcpy(buf, &h, sizeof(h));
	for (size_t i = sizeof(h); i < size; i++)
		buf[i] = (unsigned char)(seed + i);
	fake_write(f, f->pc->data_head, buf, size);
	f->pc->data_head += size;
}

/* The same for a record of any size up to the data area's. */
static void fake_record_big(struct fake *f, uint16_t size, unsigned char seed)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = 0, .size = size };
	unsigned char *buf = malloc(size);

	if (!buf)
		abort();
	memcpy(buf, &h, sizeof(h));
	for (size_t i = sizeof(h); i < size; i++)
		buf[i] = (unsigned char)(seed + i);
	fake_write(f, f->pc->data_head, buf, size);
	f->pc->data_head += size;
	free(buf);
}

/* Start both positions at @pos: as if everything before was read. */
static void fake_at(struct fake *f, uint64_t pos)
{
	f->pc->data_head = f->pc->data_tail = pos;
}

struct seen {
	int n;
	uint32_t type[16];
	uint16_t size[16];
	int intact[16];		/* payload as written, contiguous */
	unsigned char seed[16];
	int stop_at;		/* callback returns 7 at this record (1-based), 0: never */
	uint64_t lost;
};

static int collect(const struct perf_event_header *hdr, void *ctx)
{
	struct seen *s = ctx;
	const unsigned char *p = (const unsigned char *)hdr;
	int i = s->n++;
	int ok = 1;

	if (i >= 16)
		return -1;
	s->type[i] = hdr->type;
	s->size[i] = hdr->size;
	for (size_t k = sizeof(*hdr); k < hdr->size; k++)
		ok &= p[k] == (unsigned char)(s->seed[i] + k);
	s->intact[i] = ok;
	if (hdr->type == PERF_RECORD_LOST) {
		struct sb_lost l;

		if (sample__parse_lost(hdr, &l) == 0)
			s->lost += l.lost;
	}
	return s->stop_at && s->n == s->stop_at ? 7 : 0;
}

static void test_in_order(struct fake *f)
{
	struct seen s = { 0 };

	fake_at(f, 0);
	s.seed[0] = 1, s.seed[1] = 2, s.seed[2] = 3;
	fake_record(f, PERF_RECORD_SAMPLE, 64, 1);
	fake_record(f, PERF_RECORD_MMAP2, 128, 2);
	fake_record(f, PERF_RECORD_SAMPLE, 8, 3);	/* header only */
	CHECK_EQ_U64(ring__read(f->r, collect, &s), 0);
	CHECK_EQ_U64(s.n, 3);
	CHECK_EQ_U64(s.type[1], PERF_RECORD_MMAP2);
	CHECK_EQ_U64(s.size[0] + s.size[1] + s.size[2], 200);
	CHECK(s.intact[0] && s.intact[1] && s.intact[2]);
	CHECK_EQ_U64(f->pc->data_tail, 200);
	/* Nothing new: nothing delivered, the tail stays. */
	s.n = 0;
	CHECK_EQ_U64(ring__read(f->r, collect, &s), 0);
	CHECK_EQ_U64(s.n, 0);
	CHECK_EQ_U64(f->pc->data_tail, 200);
}

/* A record across the end of the data area, header whole before it. */
static void test_wrap_record(struct fake *f)
{
	struct seen s = { 0 };
	uint64_t start = 5 * f->size - 40;	/* 40 bytes before the end, 5th lap */

	fake_at(f, start);
	s.seed[0] = 9, s.seed[1] = 10;
	fake_record(f, PERF_RECORD_SAMPLE, 200, 9);	/* 40 here, 160 from the start */
	fake_record(f, PERF_RECORD_SAMPLE, 24, 10);
	CHECK_EQ_U64(ring__read(f->r, collect, &s), 0);
	CHECK_EQ_U64(s.n, 2);
	CHECK_EQ_U64(s.size[0], 200);
	CHECK(s.intact[0]);
	CHECK(s.intact[1]);
	CHECK_EQ_U64(f->pc->data_tail, start + 224);
}

/* The header itself split by the end: 4 bytes before it, 4 after. */
static void test_wrap_header(struct fake *f)
{
	struct seen s = { 0 };
	uint64_t start = 3 * f->size - 4;

	fake_at(f, start);
	s.seed[0] = 20;
	fake_record(f, PERF_RECORD_SAMPLE, 48, 20);
	CHECK_EQ_U64(ring__read(f->r, collect, &s), 0);
	CHECK_EQ_U64(s.n, 1);
	CHECK_EQ_U64(s.type[0], PERF_RECORD_SAMPLE);
	CHECK_EQ_U64(s.size[0], 48);
	CHECK(s.intact[0]);
	CHECK_EQ_U64(f->pc->data_tail, start + 48);
}

/* A record as large as the whole data area less one header, wrapping:
 * the scratch copy grows to hold it. */
static void test_wrap_large(struct fake *f)
{
	struct seen s = { 0 };
	uint64_t start = 7 * f->size + f->size / 2;

	fake_at(f, start);
	s.seed[0] = 60;
	fake_record_big(f, (uint16_t)(f->size - 8), 60);
	CHECK_EQ_U64(ring__read(f->r, collect, &s), 0);
	CHECK_EQ_U64(s.n, 1);
	CHECK_EQ_U64(s.size[0], f->size - 8);
	CHECK(s.intact[0]);
	CHECK_EQ_U64(f->pc->data_tail, start + f->size - 8);
}

/* A non-zero callback return stops the read after consuming that record. */
static void test_stop(struct fake *f)
{
	struct seen s = { 0 };

	fake_at(f, 1000);
	for (int i = 0; i < 4; i++) {
		s.seed[i] = (unsigned char)(30 + i);
		fake_record(f, PERF_RECORD_SAMPLE, 32, (unsigned char)(30 + i));
	}
	s.stop_at = 2;
	CHECK_EQ_U64(ring__read(f->r, collect, &s), 7);
	CHECK_EQ_U64(s.n, 2);
	CHECK_EQ_U64(f->pc->data_tail, 1000 + 64);
	/* The next read goes on with the third. */
	s.stop_at = 0;
	s.seed[2] = 32, s.seed[3] = 33;
	CHECK_EQ_U64(ring__read(f->r, collect, &s), 0);
	CHECK_EQ_U64(s.n, 4);
	CHECK(s.intact[2] && s.intact[3]);
	CHECK_EQ_U64(f->pc->data_tail, 1000 + 128);
}

/* LOST records come through as any other, and wrap as any other. */
static void test_lost(struct fake *f)
{
	struct seen s = { 0 };
	struct {
		struct perf_event_header h;
		uint64_t id, lost, sample_id;
	} rec = { { PERF_RECORD_LOST, 0, sizeof(rec) }, 0x1d, 41, 0x1d };
	uint64_t start = 2 * f->size - 16;

	fake_at(f, start);
	fake_write(f, start, &rec, sizeof(rec));
	f->pc->data_head += sizeof(rec);
	rec.lost = 1;
	fake_write(f, f->pc->data_head, &rec, sizeof(rec));
	f->pc->data_head += sizeof(rec);
	CHECK_EQ_U64(ring__read(f->r, collect, &s), 0);
	CHECK_EQ_U64(s.n, 2);
	CHECK_EQ_U64(s.type[0], PERF_RECORD_LOST);
	CHECK_EQ_U64(s.lost, 42);
}

/* A header whose size cannot be: dropped up to data_head, -EIO, and the
 * ring usable afterwards. */
static void test_corrupt(struct fake *f)
{
	struct seen s = { 0 };
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 4 };

	fake_at(f, 64);
	fake_write(f, 64, &bad, sizeof(bad));
	f->pc->data_head = 64 + 64;
	CHECK_EQ_U64(ring__read(f->r, collect, &s), -EIO);
	CHECK_EQ_U64(s.n, 0);
	CHECK_EQ_U64(f->pc->data_tail, 128);

	/* Larger than what the kernel has published (torn). */
	bad.size = 200;
	fake_write(f, 128, &bad, sizeof(bad));
	f->pc->data_head = 128 + 64;
	CHECK_EQ_U64(ring__read(f->r, collect, &s), -EIO);
	CHECK_EQ_U64(s.n, 0);
	CHECK_EQ_U64(f->pc->data_tail, 192);

	/* Size 0 would loop forever if accepted. */
	bad.size = 0;
	fake_write(f, 192, &bad, sizeof(bad));
	f->pc->data_head = 192 + 8;
	CHECK_EQ_U64(ring__read(f->r, collect, &s), -EIO);
	CHECK_EQ_U64(f->pc->data_tail, 200);

	s.seed[0] = 50;
	fake_record(f, PERF_RECORD_SAMPLE, 16, 50);
	CHECK_EQ_U64(ring__read(f->r, collect, &s), 0);
	CHECK_EQ_U64(s.n, 1);
	CHECK(s.intact[0]);
}

int main(void)
{
	struct fake f;
	struct ring *r;

	CHECK_EQ_U64(ring__new(-1, 3, &r), -EINVAL);	/* not a power of two */
	CHECK_EQ_U64(ring__new(-1, 0, &r), -EINVAL);
	if (fake_new(&f)) {
		fprintf(stderr, "test-ring: cannot set up a memfd ring\n");
		return 99;
	}
	CHECK_EQ_U64(ring__fd(f.r), f.fd);
	test_in_order(&f);
	test_wrap_record(&f);
	test_wrap_header(&f);
	test_wrap_large(&f);
	test_stop(&f);
	test_lost(&f);
	test_corrupt(&f);
	fake_free(&f);
	return check_done("test-ring");
}
