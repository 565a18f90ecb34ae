/*
 * sample: PERF_RECORD_* decoding with a cursor that never reads past the
 * record.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "trace/sample.h"

struct cursor {
	const unsigned char *p, *end;
};

static void cursor__init(struct cursor *c, const struct perf_event_header *hdr)
{
	c->p = (const unsigned char *)(hdr + 1);
	/* A size below the header's own leaves nothing to read (end before
	 * p would make cursor__has()'s length wrap to a huge one). */
	c->end = hdr->size < sizeof(*hdr) ? c->p : (const unsigned char *)hdr + hdr->size;
}

static bool cursor__has(const struct cursor *c, size_t n)
{
	return (size_t)(c->end - c->p) >= n;
}

static int cursor__u64(struct cursor *c, uint64_t *v)
{
	if (!cursor__has(c, 8))
		return -EINVAL;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
}

/* Two u32 packed in one u64 slot (pid/tid, cpu/res). */
static int cursor__u32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	if (!cursor__has(c, 8))
		return -EINVAL;
	memcpy(a, c->p, 4);
	memcpy(b, c->p + 4, 4);
	c->p += 8;
	return 0;
}

/* An array of n u64s, returned as a pointer into the record. */
static int cursor__array(struct cursor *c, uint64_t n, const uint64_t **v)
{
	if (n > (uint64_t)(c->end - c->p) / 8)
		return -EINVAL;
	*v = (const uint64_t *)c->p;
	c->p += n * 8;
	return 0;
}

int sample__id_pos(uint64_t st, struct sample_id_pos *pos)
{
	if (st & PERF_SAMPLE_IDENTIFIER) {
		*pos = (struct sample_id_pos){ 0, 1 };
		return 0;
	}
	if (!(st & PERF_SAMPLE_ID))
		return -EINVAL;
	pos->sample = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
		      !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
	pos->trailer = 1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU);
	return 0;
}

int sample__peek_id(const struct perf_event_header *hdr, const struct sample_id_pos *pos,
		    uint64_t *id)
{
	size_t words = hdr->size < sizeof(*hdr) ? 0 : (hdr->size - sizeof(*hdr)) / 8;

	if (hdr->type == PERF_RECORD_SAMPLE) {
		if (pos->sample >= words)
			return -EINVAL;
		memcpy(id, (const unsigned char *)(hdr + 1) + 8 * (size_t)pos->sample, 8);
	} else {
		if (!pos->trailer || pos->trailer > words)
			return -EINVAL;
		memcpy(id, (const unsigned char *)hdr + hdr->size - 8 * (size_t)pos->trailer, 8);
	}
	return 0;
}

int sample__peek_time(const struct perf_event_header *hdr, uint64_t st, uint64_t *time)
{
	size_t off = 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
			  !!(st & PERF_SAMPLE_TID));

	if (!(st & PERF_SAMPLE_TIME) || hdr->size < sizeof(*hdr) + off + 8)
		return -EINVAL;
	memcpy(time, (const unsigned char *)(hdr + 1) + off, 8);
	return 0;
}

int sample__parse(const struct perf_event_header *hdr, uint64_t st,
		  unsigned int nr_user_regs, struct sample *s)
{
	struct cursor c;
	uint64_t dummy;
	uint32_t d32;

	memset(s, 0, sizeof(*s));
	cursor__init(&c, hdr);
	if ((st & PERF_SAMPLE_IDENTIFIER) && cursor__u64(&c, &s->id))
		return -EINVAL;
	if ((st & PERF_SAMPLE_IP) && cursor__u64(&c, &dummy))
		return -EINVAL;
	if ((st & PERF_SAMPLE_TID) && cursor__u32x2(&c, &s->pid, &s->tid))
		return -EINVAL;
	if ((st & PERF_SAMPLE_TIME) && cursor__u64(&c, &s->time))
		return -EINVAL;
	if ((st & PERF_SAMPLE_ADDR) && cursor__u64(&c, &s->addr))
		return -EINVAL;
	if ((st & PERF_SAMPLE_ID) && cursor__u64(&c, &s->id))
		return -EINVAL;
	if ((st & PERF_SAMPLE_STREAM_ID) && cursor__u64(&c, &dummy))
		return -EINVAL;
	if ((st & PERF_SAMPLE_CPU) && cursor__u32x2(&c, &s->cpu, &d32))
		return -EINVAL;
	if ((st & PERF_SAMPLE_PERIOD) && cursor__u64(&c, &s->period))
		return -EINVAL;
	if (st & PERF_SAMPLE_READ)
		return -EINVAL;	/* never requested: its layout depends on read_format */
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (cursor__u64(&c, &s->nr_callchain) ||
		    cursor__array(&c, s->nr_callchain, &s->callchain))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (!cursor__has(&c, 4))
			return -EINVAL;
		memcpy(&s->raw_size, c.p, 4);
		c.p += 4;
		if (!cursor__has(&c, s->raw_size))
			return -EINVAL;
		s->raw = c.p;
		c.p += s->raw_size;	/* the kernel pads raw to u64 alignment */
	}
	if (st & PERF_SAMPLE_BRANCH_STACK)
		return -EINVAL;	/* never requested */
	if (st & PERF_SAMPLE_REGS_USER) {
		if (cursor__u64(&c, &s->regs_abi))
			return -EINVAL;
		if (s->regs_abi) {
			s->nr_regs = nr_user_regs;
			if (cursor__array(&c, nr_user_regs, &s->regs))
				return -EINVAL;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size;

		if (cursor__u64(&c, &size))
			return -EINVAL;
		if (size) {
			if (!cursor__has(&c, size))
				return -EINVAL;
			s->stack = c.p;
			c.p += size;
			if (cursor__u64(&c, &s->stack_size) || s->stack_size > size)
				return -EINVAL;
		}
	}
	return 0;
}

uint32_t sample__user_ips(const struct sample *s, uint64_t *ips, uint32_t max)
{
	return sample__context_ips(s, PERF_CONTEXT_USER, ips, max);
}

uint32_t sample__context_ips(const struct sample *s, uint64_t context, uint64_t *ips, uint32_t max)
{
	bool in = false;
	uint32_t n = 0;

	for (uint64_t i = 0; i < s->nr_callchain && n < max; i++) {
		uint64_t ip = s->callchain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			in = ip == context;
			continue;
		}
		/* A zero is where a frame-pointer walk ran off its chain,
		 * never a frame. */
		if (in && ip)
			ips[n++] = ip;
	}
	return n;
}

/* A NUL-terminated string that must end inside the record. */
static int cursor__str(struct cursor *c, const char **str)
{
	const unsigned char *nul = memchr(c->p, '\0', (size_t)(c->end - c->p));

	if (!nul)
		return -EINVAL;
	*str = (const char *)c->p;
	c->p = nul + 1;
	return 0;
}

int sample__parse_mmap2(const struct perf_event_header *hdr, struct sb_mmap2 *m)
{
	struct cursor c;
	uint64_t majmin, gen;

	if (hdr->type != PERF_RECORD_MMAP2)
		return -EINVAL;
	cursor__init(&c, hdr);
	if (cursor__u32x2(&c, &m->pid, &m->tid) || cursor__u64(&c, &m->addr) ||
	    cursor__u64(&c, &m->len) || cursor__u64(&c, &m->pgoff) ||
	    cursor__u64(&c, &majmin) || cursor__u64(&c, &m->ino) ||
	    cursor__u64(&c, &gen) || cursor__u32x2(&c, &m->prot, &m->flags) ||
	    cursor__str(&c, &m->filename))
		return -EINVAL;
	if (hdr->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		/* We never ask for build ids in records; the union then has none. */
		m->maj = m->min = 0;
		m->ino = 0;
	} else {
		m->maj = (uint32_t)majmin;
		m->min = (uint32_t)(majmin >> 32);
	}
	return 0;
}

int sample__parse_mmap(const struct perf_event_header *hdr, struct sb_mmap2 *m)
{
	struct cursor c;

	if (hdr->type != PERF_RECORD_MMAP)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	cursor__init(&c, hdr);
	if (cursor__u32x2(&c, &m->pid, &m->tid) || cursor__u64(&c, &m->addr) ||
	    cursor__u64(&c, &m->len) || cursor__u64(&c, &m->pgoff) ||
	    cursor__str(&c, &m->filename))
		return -EINVAL;
	m->prot = hdr->misc & PERF_RECORD_MISC_MMAP_DATA ? PROT_READ | PROT_WRITE :
							   PROT_READ | PROT_EXEC;
	return 0;
}

int sample__parse_comm(const struct perf_event_header *hdr, struct sb_comm *cm)
{
	struct cursor c;

	if (hdr->type != PERF_RECORD_COMM)
		return -EINVAL;
	cursor__init(&c, hdr);
	if (cursor__u32x2(&c, &cm->pid, &cm->tid) || cursor__str(&c, &cm->comm))
		return -EINVAL;
	cm->exec = hdr->misc & PERF_RECORD_MISC_COMM_EXEC;
	return 0;
}

int sample__parse_task(const struct perf_event_header *hdr, struct sb_task *t)
{
	struct cursor c;

	if (hdr->type != PERF_RECORD_FORK && hdr->type != PERF_RECORD_EXIT)
		return -EINVAL;
	cursor__init(&c, hdr);
	if (cursor__u32x2(&c, &t->pid, &t->ppid) || cursor__u32x2(&c, &t->tid, &t->ptid) ||
	    cursor__u64(&c, &t->time))
		return -EINVAL;
	return 0;
}

int sample__parse_lost(const struct perf_event_header *hdr, struct sb_lost *l)
{
	struct cursor c;

	if (hdr->type != PERF_RECORD_LOST)
		return -EINVAL;
	cursor__init(&c, hdr);
	if (cursor__u64(&c, &l->id) || cursor__u64(&c, &l->lost))
		return -EINVAL;
	return 0;
}

int sample__parse_id(const struct perf_event_header *hdr, uint64_t st, struct sb_id *sid)
{
	size_t n = 0;
	const unsigned char *end = (const unsigned char *)hdr + hdr->size;
	struct cursor c;
	uint32_t d32;
	uint64_t dummy;

	memset(sid, 0, sizeof(*sid));
	n += !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
	     !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	     !!(st & PERF_SAMPLE_IDENTIFIER);
	if (hdr->size < sizeof(*hdr) + n * 8)
		return -EINVAL;
	c.p = end - n * 8;
	c.end = end;
	if ((st & PERF_SAMPLE_TID) && cursor__u32x2(&c, &sid->pid, &sid->tid))
		return -EINVAL;
	if ((st & PERF_SAMPLE_TIME) && cursor__u64(&c, &sid->time))
		return -EINVAL;
	if ((st & PERF_SAMPLE_ID) && cursor__u64(&c, &sid->id))
		return -EINVAL;
	if ((st & PERF_SAMPLE_STREAM_ID) && cursor__u64(&c, &dummy))
		return -EINVAL;
	if ((st & PERF_SAMPLE_CPU) && cursor__u32x2(&c, &sid->cpu, &d32))
		return -EINVAL;
	if ((st & PERF_SAMPLE_IDENTIFIER) && cursor__u64(&c, &sid->id))
		return -EINVAL;
	return 0;
}
