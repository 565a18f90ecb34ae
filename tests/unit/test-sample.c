/*
 * test-sample: src/trace/sample.c decodes PERF_RECORD_* records built here byte
 * by byte, and refuses every truncated or oversized one: a record whose
 * header claims less than its fields need, an array count or a size field
 * that points past the record's end, a string with no NUL inside it.
 * Each record sits in a buffer filled with 0xa5 beyond its end, so a
 * decoder that read past it would see that filler, not zeros.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"
#include "trace/sample.h"

/* A record under construction: header, then u64 slots. */
struct rec {
	union {
		struct perf_event_header hdr;
		unsigned char bytes[4096];
		uint64_t align;
	};
	size_t len;
};

static void rec_init(struct rec *r, uint32_t type)
{
	memset(r->bytes, 0xa5, sizeof(r->bytes));
	memset(&r->hdr, 0, sizeof(r->hdr));
	r->hdr.type = type;
	r->len = sizeof(r->hdr);
	r->hdr.size = (uint16_t)r->len;
}

static void put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->bytes + r->len, p, n);
	r->len += n;
	r->hdr.size = (uint16_t)r->len;
}

static void put64(struct rec *r, uint64_t v)
{
	put(r, &v, 8);
}

static void put32x2(struct rec *r, uint32_t a, uint32_t b)
{
	put(r, &a, 4);
	put(r, &b, 4);
}

/* Where the id is with PERF_SAMPLE_IDENTIFIER: first, and last. */
static const struct sample_id_pos ident = { 0, 1 };

#define ST_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

/* A sample with every field faultline asks for: IDENTIFIER IP TID TIME
 * ADDR CPU PERIOD CALLCHAIN RAW REGS_USER (2 regs) STACK_USER. */
#define ST_ALL (ST_BASE | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | \
		PERF_SAMPLE_STACK_USER)

/* Offsets of the size fields in the full sample, for the oversize cases. */
struct full_offs {
	size_t nr_callchain, raw_size, stack_size, dyn_size;
};

static void build_full(struct rec *r, struct full_offs *o)
{
	static const unsigned char raw[12] = "raw payload";	/* 4 + 12 = 16: u64-aligned */
	uint32_t raw_size = sizeof(raw);
	unsigned char stack[32];

	rec_init(r, PERF_RECORD_SAMPLE);
	put64(r, 0x1d);			/* IDENTIFIER */
	put64(r, 0x401000);		/* IP */
	put32x2(r, 100, 101);		/* pid, tid */
	put64(r, 123456789);		/* TIME */
	put64(r, 0xdead000);		/* ADDR */
	put32x2(r, 1, 0);		/* cpu, res */
	put64(r, 1);			/* PERIOD */
	o->nr_callchain = r->len;
	put64(r, 5);
	put64(r, (uint64_t)PERF_CONTEXT_KERNEL);
	put64(r, 0xffffffff81000000ULL);
	put64(r, (uint64_t)PERF_CONTEXT_USER);
	put64(r, 0x401000);
	put64(r, 0x402000);
	o->raw_size = r->len;
	put(r, &raw_size, 4);
	put(r, raw, sizeof(raw));
	put64(r, 2);			/* regs abi: 64-bit */
	put64(r, 0x7ffc0000);		/* two registers */
	put64(r, 0x7ffc0010);
	o->stack_size = r->len;
	put64(r, sizeof(stack));
	for (size_t i = 0; i < sizeof(stack); i++)
		stack[i] = (unsigned char)i;
	put(r, stack, sizeof(stack));
	o->dyn_size = r->len;
	put64(r, 24);			/* dyn_size: bytes really copied */
}

static void test_full_sample(void)
{
	struct rec r;
	struct full_offs o;
	struct sample s;
	uint64_t ips[8], id = 0, t = 0;

	build_full(&r, &o);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 2, &s), 0);
	CHECK_EQ_U64(s.id, 0x1d);
	CHECK_EQ_U64(s.pid, 100);
	CHECK_EQ_U64(s.tid, 101);
	CHECK_EQ_U64(s.time, 123456789);
	CHECK_EQ_U64(s.addr, 0xdead000);
	CHECK_EQ_U64(s.cpu, 1);
	CHECK_EQ_U64(s.period, 1);
	CHECK_EQ_U64(s.nr_callchain, 5);
	CHECK_EQ_U64(s.raw_size, 12);
	CHECK(s.raw && memcmp(s.raw, "raw payload", 12) == 0);
	CHECK_EQ_U64(s.regs_abi, 2);
	CHECK_EQ_U64(s.nr_regs, 2);
	CHECK(s.regs && s.regs[1] == 0x7ffc0010);
	CHECK_EQ_U64(s.stack_size, 24);
	CHECK(s.stack && ((const unsigned char *)s.stack)[31] == 31);

	/* The user part of the callchain, and the kernel part. */
	CHECK_EQ_U64(sample__user_ips(&s, ips, 8), 2);
	CHECK_EQ_U64(ips[0], 0x401000);
	CHECK_EQ_U64(ips[1], 0x402000);
	CHECK_EQ_U64(sample__user_ips(&s, ips, 1), 1);
	CHECK_EQ_U64(sample__context_ips(&s, (uint64_t)PERF_CONTEXT_KERNEL, ips, 8), 1);
	CHECK_EQ_U64(ips[0], 0xffffffff81000000ULL);

	CHECK_EQ_U64(sample__peek_id(&r.hdr, &ident, &id), 0);
	CHECK_EQ_U64(id, 0x1d);
	CHECK_EQ_U64(sample__peek_time(&r.hdr, ST_ALL, &t), 0);
	CHECK_EQ_U64(t, 123456789);
	CHECK_EQ_U64(sample__peek_time(&r.hdr, ST_ALL & ~(uint64_t)PERF_SAMPLE_TIME, &t), -EINVAL);

	/* Bytes after the last field (the kernel never sends them, but a
	 * recording could): ignored, the fields are the same. */
	put64(&r, 0);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 2, &s), 0);
	CHECK_EQ_U64(s.stack_size, 24);
}

/* Every length short of the whole record fails, none reads past it. */
static void test_truncated_sample(void)
{
	struct rec r;
	struct full_offs o;
	struct sample s;
	size_t full;
	uint64_t t;
	int bad = 0;

	build_full(&r, &o);
	full = r.len;
	for (size_t len = 0; len < full; len++) {
		r.hdr.size = (uint16_t)len;
		if (sample__parse(&r.hdr, ST_ALL, 2, &s) != -EINVAL) {
			fprintf(stderr, "a sample cut to %zu of %zu bytes parsed\n", len, full);
			bad++;
		}
	}
	CHECK_EQ_U64(bad, 0);
	/* A header cut short (size below the header itself). */
	r.hdr.size = 4;
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_BASE, 0, &s), -EINVAL);
	CHECK_EQ_U64(sample__peek_time(&r.hdr, ST_BASE, &t), -EINVAL);
	r.hdr.size = (uint16_t)full;
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 2, &s), 0);
}

/* A count or size field claiming more than the record holds. */
static void test_oversized_fields(void)
{
	struct rec r;
	struct full_offs o;
	struct sample s;
	uint64_t v;
	uint32_t v32;

	build_full(&r, &o);
	v = 6;	/* one more frame than there is */
	memcpy(r.bytes + o.nr_callchain, &v, 8);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 2, &s), -EINVAL);
	v = UINT64_MAX / 8 + 2;	/* n * 8 wraps to a small number */
	memcpy(r.bytes + o.nr_callchain, &v, 8);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 2, &s), -EINVAL);

	build_full(&r, &o);
	v32 = 4096;
	memcpy(r.bytes + o.raw_size, &v32, 4);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 2, &s), -EINVAL);
	v32 = UINT32_MAX;
	memcpy(r.bytes + o.raw_size, &v32, 4);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 2, &s), -EINVAL);

	build_full(&r, &o);
	v = 64;	/* stack size beyond the record */
	memcpy(r.bytes + o.stack_size, &v, 8);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 2, &s), -EINVAL);
	v = UINT64_MAX;
	memcpy(r.bytes + o.stack_size, &v, 8);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 2, &s), -EINVAL);

	build_full(&r, &o);
	v = 33;	/* more copied than the stack's size */
	memcpy(r.bytes + o.dyn_size, &v, 8);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 2, &s), -EINVAL);

	/* More user registers than the record carries. */
	build_full(&r, &o);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL, 40, &s), -EINVAL);

	/* Layouts faultline never asks for are refused, not guessed. */
	build_full(&r, &o);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL | PERF_SAMPLE_READ, 2, &s), -EINVAL);
	CHECK_EQ_U64(sample__parse(&r.hdr, ST_ALL | PERF_SAMPLE_BRANCH_STACK, 2, &s), -EINVAL);
}

/* A zero in the callchain (a frame-pointer walk off its chain) is no
 * frame; frames of a context other than the one asked are not copied. */
static void test_callchain_filter(void)
{
	struct rec r;
	struct sample s;
	uint64_t ips[8];

	rec_init(&r, PERF_RECORD_SAMPLE);
	put64(&r, 4);
	put64(&r, (uint64_t)PERF_CONTEXT_USER);
	put64(&r, 0x1000);
	put64(&r, 0);
	put64(&r, 0x2000);
	CHECK_EQ_U64(sample__parse(&r.hdr, PERF_SAMPLE_CALLCHAIN, 0, &s), 0);
	CHECK_EQ_U64(sample__user_ips(&s, ips, 8), 2);
	CHECK_EQ_U64(ips[1], 0x2000);
	CHECK_EQ_U64(sample__context_ips(&s, (uint64_t)PERF_CONTEXT_KERNEL, ips, 8), 0);
}

/* An MMAP2 record (or with @type PERF_RECORD_MMAP, an MMAP: no device,
 * inode, prot or flags) of pid 7, tid 8, [0x400000, +0x2000) at file
 * offset 0x1000 of /usr/bin/x; the name's offset in *@fname. */
static void mmap_rec(struct rec *r, uint32_t type, size_t *fname)
{
	rec_init(r, type);
	put32x2(r, 7, 8);
	put64(r, 0x400000);
	put64(r, 0x2000);
	put64(r, 0x1000);
	if (type == PERF_RECORD_MMAP2) {
		put64(r, (uint64_t)3 << 32 | 253);	/* min << 32 | maj, as perf lays them */
		put64(r, 4242);
		put64(r, 1);
		put32x2(r, 5, 2);
	}
	*fname = r->len;
	put(r, "/usr/bin/x\0\0\0\0\0\0", 16);
	put64(r, 0x1d);			/* sample_id: IDENTIFIER */
}

/* What both records say alike. */
static void check_mmap_common(const struct sb_mmap2 *m)
{
	CHECK_EQ_U64(m->pid, 7);
	CHECK_EQ_U64(m->tid, 8);
	CHECK_EQ_U64(m->addr, 0x400000);
	CHECK_EQ_U64(m->len, 0x2000);
	CHECK_EQ_U64(m->pgoff, 0x1000);
	CHECK_STR(m->filename, "/usr/bin/x");
}

/* @parse refuses @r spoilt: a file name with no NUL before the record's
 * end, then cut inside the fixed fields, then of type @other. */
static void check_mmap_refused(struct rec *r, size_t fname,
			       int (*parse)(const struct perf_event_header *, struct sb_mmap2 *),
			       uint32_t other)
{
	struct sb_mmap2 m;

	memset(r->bytes + fname, 'x', r->len - fname);
	CHECK_EQ_U64(parse(&r->hdr, &m), -EINVAL);
	r->hdr.size = (uint16_t)(fname - 4);
	CHECK_EQ_U64(parse(&r->hdr, &m), -EINVAL);
	r->hdr.type = other;
	CHECK_EQ_U64(parse(&r->hdr, &m), -EINVAL);
}

static void test_mmap2(void)
{
	struct rec r;
	struct sb_mmap2 m;
	size_t fname;

	mmap_rec(&r, PERF_RECORD_MMAP2, &fname);
	CHECK_EQ_U64(sample__parse_mmap2(&r.hdr, &m), 0);
	check_mmap_common(&m);
	CHECK_EQ_U64(m.maj, 253);
	CHECK_EQ_U64(m.min, 3);
	CHECK_EQ_U64(m.ino, 4242);
	CHECK_EQ_U64(m.prot, 5);
	CHECK_EQ_U64(m.flags, 2);

	/* With a build id the union holds no device or inode. */
	r.hdr.misc = PERF_RECORD_MISC_MMAP_BUILD_ID;
	CHECK_EQ_U64(sample__parse_mmap2(&r.hdr, &m), 0);
	CHECK_EQ_U64(m.maj, 0);
	CHECK_EQ_U64(m.ino, 0);
	r.hdr.misc = 0;

	check_mmap_refused(&r, fname, sample__parse_mmap2, PERF_RECORD_MMAP);
}

static void test_comm_task_lost(void)
{
	struct rec r;
	struct sb_comm c;
	struct sb_task t;
	struct sb_lost l;
	struct sb_id sid;
	uint64_t id = 0;

	rec_init(&r, PERF_RECORD_COMM);
	r.hdr.misc = PERF_RECORD_MISC_COMM_EXEC;
	put32x2(&r, 9, 9);
	put(&r, "leak-target\0\0\0\0", 16);
	CHECK_EQ_U64(sample__parse_comm(&r.hdr, &c), 0);
	CHECK_STR(c.comm, "leak-target");
	CHECK(c.exec);
	memset(r.bytes + sizeof(r.hdr) + 8, 'c', 16);
	CHECK_EQ_U64(sample__parse_comm(&r.hdr, &c), -EINVAL);

	rec_init(&r, PERF_RECORD_EXIT);
	put32x2(&r, 10, 1);
	put32x2(&r, 11, 1);
	put64(&r, 555);
	CHECK_EQ_U64(sample__parse_task(&r.hdr, &t), 0);
	CHECK_EQ_U64(t.pid, 10);
	CHECK_EQ_U64(t.ppid, 1);
	CHECK_EQ_U64(t.tid, 11);
	CHECK_EQ_U64(t.time, 555);
	r.hdr.size -= 1;
	CHECK_EQ_U64(sample__parse_task(&r.hdr, &t), -EINVAL);

	/* LOST, with a sample_id trailer (TID TIME CPU IDENTIFIER). */
	rec_init(&r, PERF_RECORD_LOST);
	put64(&r, 0x1d);
	put64(&r, 17);
	put32x2(&r, 12, 13);
	put64(&r, 999);
	put32x2(&r, 1, 0);
	put64(&r, 0x1d);
	CHECK_EQ_U64(sample__parse_lost(&r.hdr, &l), 0);
	CHECK_EQ_U64(l.id, 0x1d);
	CHECK_EQ_U64(l.lost, 17);
	CHECK_EQ_U64(sample__peek_id(&r.hdr, &ident, &id), 0);
	CHECK_EQ_U64(id, 0x1d);
	CHECK_EQ_U64(sample__parse_id(&r.hdr, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				      PERF_SAMPLE_IDENTIFIER, &sid), 0);
	CHECK_EQ_U64(sid.pid, 12);
	CHECK_EQ_U64(sid.tid, 13);
	CHECK_EQ_U64(sid.time, 999);
	CHECK_EQ_U64(sid.cpu, 1);
	CHECK_EQ_U64(sid.id, 0x1d);
	/* A LOST cut inside its count; a trailer longer than the record. */
	r.hdr.size = sizeof(r.hdr) + 12;
	CHECK_EQ_U64(sample__parse_lost(&r.hdr, &l), -EINVAL);
	r.hdr.size = sizeof(r.hdr) + 16;
	CHECK_EQ_U64(sample__parse_id(&r.hdr, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				      PERF_SAMPLE_IDENTIFIER, &sid), -EINVAL);
	/* A record too short to hold an identifier at all. */
	r.hdr.size = sizeof(r.hdr) + 4;
	CHECK_EQ_U64(sample__peek_id(&r.hdr, &ident, &id), -EINVAL);
	r.hdr.type = PERF_RECORD_SAMPLE;
	CHECK_EQ_U64(sample__peek_id(&r.hdr, &ident, &id), -EINVAL);
}

/* A kernel without PERF_SAMPLE_IDENTIFIER (before 3.12): PERF_SAMPLE_ID,
 * after TID TIME ADDR in a sample and before CPU in a trailer, as the
 * session lays every event out then. */
static void test_no_identifier(void)
{
	const uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			    PERF_SAMPLE_CPU;
	struct sample_id_pos pos;
	struct sample s;
	struct sb_id sid;
	struct rec r;
	uint64_t id = 0;

	CHECK_EQ_U64(sample__id_pos(st | PERF_SAMPLE_IDENTIFIER, &pos), 0);
	CHECK_EQ_U64(pos.sample, 0);
	CHECK_EQ_U64(pos.trailer, 1);
	CHECK_EQ_U64(sample__id_pos(st, &pos), 0);
	CHECK_EQ_U64(pos.sample, 3);
	CHECK_EQ_U64(pos.trailer, 2);
	CHECK_EQ_U64(sample__id_pos(st | PERF_SAMPLE_IP | PERF_SAMPLE_STREAM_ID, &pos), 0);
	CHECK_EQ_U64(pos.sample, 4);
	CHECK_EQ_U64(pos.trailer, 3);
	CHECK_EQ_U64(sample__id_pos(st & ~(uint64_t)PERF_SAMPLE_ID, &pos), -EINVAL);

	CHECK_EQ_U64(sample__id_pos(st, &pos), 0);
	rec_init(&r, PERF_RECORD_SAMPLE);
	put32x2(&r, 100, 101);
	put64(&r, 777);			/* TIME */
	put64(&r, 0x7f0000001000);	/* ADDR */
	put64(&r, 0x2e);		/* ID */
	put32x2(&r, 1, 0);
	CHECK_EQ_U64(sample__peek_id(&r.hdr, &pos, &id), 0);
	CHECK_EQ_U64(id, 0x2e);
	CHECK_EQ_U64(sample__parse(&r.hdr, st, 0, &s), 0);
	CHECK_EQ_U64(s.id, 0x2e);
	CHECK_EQ_U64(s.addr, 0x7f0000001000);
	CHECK_EQ_U64(s.cpu, 1);
	CHECK_EQ_U64(sample__peek_time(&r.hdr, st, &id), 0);
	CHECK_EQ_U64(id, 777);
	/* Too short for the fourth word. */
	r.hdr.size = (uint16_t)(sizeof(r.hdr) + 24);
	CHECK_EQ_U64(sample__peek_id(&r.hdr, &pos, &id), -EINVAL);

	/* A side-band record's trailer: TID TIME ID CPU. */
	rec_init(&r, PERF_RECORD_EXIT);
	put32x2(&r, 5, 4);
	put32x2(&r, 5, 4);
	put64(&r, 888);
	put32x2(&r, 5, 5);
	put64(&r, 888);
	put64(&r, 0x2f);
	put32x2(&r, 1, 0);
	CHECK_EQ_U64(sample__peek_id(&r.hdr, &pos, &id), 0);
	CHECK_EQ_U64(id, 0x2f);
	CHECK_EQ_U64(sample__parse_id(&r.hdr, st, &sid), 0);
	CHECK_EQ_U64(sid.id, 0x2f);
	CHECK_EQ_U64(sid.time, 888);
	CHECK_EQ_U64(sid.cpu, 1);
	r.hdr.size = (uint16_t)(sizeof(r.hdr) + 8);
	CHECK_EQ_U64(sample__peek_id(&r.hdr, &pos, &id), -EINVAL);
}

/* PERF_RECORD_MMAP (no mmap2, before 3.16): code or data by its misc. */
static void test_mmap(void)
{
	struct sb_mmap2 m;
	struct rec r;
	size_t fname;

	mmap_rec(&r, PERF_RECORD_MMAP, &fname);
	CHECK_EQ_U64(sample__parse_mmap(&r.hdr, &m), 0);
	check_mmap_common(&m);
	CHECK_EQ_U64(m.ino, 0);
	CHECK_EQ_U64(m.maj, 0);
	CHECK_EQ_U64(m.flags, 0);
	CHECK_EQ_U64(m.prot, PROT_READ | PROT_EXEC);
	r.hdr.misc = PERF_RECORD_MISC_MMAP_DATA;
	CHECK_EQ_U64(sample__parse_mmap(&r.hdr, &m), 0);
	CHECK_EQ_U64(m.prot, PROT_READ | PROT_WRITE);
	check_mmap_refused(&r, fname, sample__parse_mmap, PERF_RECORD_MMAP2);
}

int main(void)
{
	test_full_sample();
	test_truncated_sample();
	test_oversized_fields();
	test_callchain_filter();
	test_mmap2();
	test_comm_task_lost();
	test_no_identifier();
	test_mmap();
	return check_done("test-sample");
}
