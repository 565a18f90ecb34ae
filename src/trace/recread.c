/*
 * recread: the reader of faultline recordings (docs/record-format.md); the
 * writer is recfile.c, what both share recfile-int.h.
 *
 * The reader takes its bytes either from the caller's memory or from a
 * file read through a buffer (so a pipe works and a file shrinking under
 * us cannot SIGBUS, as a mapping would).  Both go through one accessor,
 * avail(), which yields a contiguous view of the next n bytes or says how
 * many there are; the decoders then read fields through a cursor that
 * knows how many bytes of the record are left, so no read can leave the
 * record, and every id is checked against what the file defined before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/file.h"
#include "trace/recfile-int.h"


struct recreader {
	int fd;				/* -1: reading memory */
	const unsigned char *mem;	/* memory: the recording, mem_len bytes */
	size_t mem_len;
	unsigned char *buf;		/* file: bytes [head, tail) read, not consumed */
	size_t cap, head, tail;
	bool eof;
	uint64_t off;			/* file offset of the next byte to consume */
	unsigned int major, minor;
	uint64_t nr_events;		/* EVENT ids 0..nr_events-1 seen */
	uint64_t nr_stacks;		/* STACK ids 1..nr_stacks seen */
	bool ended;			/* END seen */
	int err;			/* latched: every later next() returns it */
	struct errbuf errmsg;
	uint64_t cut_bytes;		/* -ENODATA: bytes of the record cut off */
	char *scratch;			/* the current record's strings, terminated */
	size_t scratch_cap, scratch_used;
	uint64_t ips[REC_MAX_FRAMES];	/* the current STACK's, host order */
};

/*
 * A contiguous view of the next n bytes (n at most REC_MAX_PAYLOAD plus a
 * record header): *p, and *got = how many of the n there are (fewer only
 * at the end of the recording).  Nothing is consumed.
 */
static int avail(struct recreader *r, size_t n, const unsigned char **p, size_t *got)
{
	size_t cap;
	ssize_t rd;
	void *nb;

	*p = NULL;
	*got = 0;
	if (r->fd < 0) {
		/* r->off never passes mem_len: only consumed views advance it. */
		size_t left = r->mem_len - (size_t)r->off;

		*p = r->mem + r->off;
		*got = left < n ? left : n;
		return 0;
	}
	if (r->tail - r->head < n && !r->eof) {
		if (r->cap - r->head < n) {
			memmove(r->buf, r->buf + r->head, r->tail - r->head);
			r->tail -= r->head;
			r->head = 0;
		}
		if (r->cap < n) {
			/* Only for a record larger than the buffer: grow to it. */
			cap = r->cap * 2 > n ? r->cap * 2 : n;
			nb = realloc(r->buf, cap);
			if (!nb)
				return -ENOMEM;
			r->buf = nb;
			r->cap = cap;
		}
		while (r->tail - r->head < n && !r->eof) {
			rd = read(r->fd, r->buf + r->tail, r->cap - r->tail);
			if (rd < 0 && errno == EINTR)
				continue;
			if (rd < 0)
				return -errno;
			if (rd == 0)
				r->eof = true;
			r->tail += (size_t)rd;
		}
	}
	*p = r->buf + r->head;
	*got = r->tail - r->head < n ? r->tail - r->head : n;
	return 0;
}

static void consume(struct recreader *r, size_t n)
{
	r->off += n;
	if (r->fd >= 0)
		r->head += n;
}

/* Latch an error: "offset N: ..." for the format's, as given otherwise. */
static int fail(struct recreader *r, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct recreader *r, int err, uint64_t off, const char *fmt, ...)
{
	char *m = r->errmsg.msg;
	size_t n = sizeof(r->errmsg.msg);
	int k;
	va_list ap;

	k = snprintf(m, n, "offset %llu: ", (unsigned long long)off);
	if (k > 0 && (size_t)k < n) {
		va_start(ap, fmt);
		vsnprintf(m + k, n - (size_t)k, fmt, ap);
		va_end(ap);
	}
	r->err = err;
	return err;
}

static int fail_io(struct recreader *r, int err)
{
	if (err == -ENOMEM)
		fail(r, err, r->off, "out of memory for a record");
	else
		fail(r, err, r->off, "cannot read the recording: %s", strerror(-err));
	return err;
}

/* A record being decoded: fields are taken from the front of what is left
 * of its payload; the first failure sticks, later reads yield zeroes. */
struct cur {
	struct recreader *r;
	enum rec_type type;
	uint64_t off;			/* of the record */
	uint32_t len;			/* payload bytes */
	const unsigned char *p;
	uint32_t left;
	int err;
};

static bool c_need(struct cur *c, uint32_t n, const char *what)
{
	if (c->err)
		return false;
	if (c->left < n) {
		c->err = fail(c->r, -EBADMSG, c->off,
			      "%s record of %u bytes ends inside its '%s'",
			      rec_type__name(c->type), c->len, what);
		return false;
	}
	return true;
}

static uint32_t c_u32(struct cur *c, const char *what)
{
	uint32_t v;

	if (!c_need(c, 4, what))
		return 0;
	v = get_le32(c->p);
	c->p += 4;
	c->left -= 4;
	return v;
}

static uint64_t c_u64(struct cur *c, const char *what)
{
	uint64_t v;

	if (!c_need(c, 8, what))
		return 0;
	v = get_le64(c->p);
	c->p += 8;
	c->left -= 8;
	return v;
}

static uint8_t c_u8(struct cur *c, const char *what)
{
	uint8_t v;

	if (!c_need(c, 1, what))
		return 0;
	v = c->p[0];
	c->p++;
	c->left--;
	return v;
}

/* n bytes, returned in place (no copy). */
static const unsigned char *c_bytes(struct cur *c, uint32_t n, const char *what)
{
	const unsigned char *v;

	if (c->err)
		return NULL;
	if (c->left < n) {
		c->err = fail(c->r, -EBADMSG, c->off,
			      "%s record: '%s' of %u bytes overruns the record (%u bytes left)",
			      rec_type__name(c->type), what, n, c->left);
		return NULL;
	}
	v = c->p;
	c->p += n;
	c->left -= n;
	return v;
}

/* A string: u32 length and bytes, copied NUL-terminated into scratch
 * (sized for the record by the caller).  "" after a failure. */
static const char *c_str(struct cur *c, const char *what)
{
	const unsigned char *s;
	uint32_t n;
	char *d;

	n = c_u32(c, what);
	s = c_bytes(c, n, what);
	if (!s)
		return "";
	if (memchr(s, '\0', n)) {
		c->err = fail(c->r, -EBADMSG, c->off, "%s record: '%s' contains a nul byte",
			      rec_type__name(c->type), what);
		return "";
	}
	d = c->r->scratch + c->r->scratch_used;
	memcpy(d, s, n);
	d[n] = '\0';
	c->r->scratch_used += (size_t)n + 1;
	return d;
}

/* After the last field: bytes left over are corruption in a file of our
 * minor version or older, and fields we do not know in a newer one. */
static int c_done(struct cur *c)
{
	if (c->err)
		return c->err;
	if (c->left && c->r->minor <= REC_VERSION_MINOR)
		return fail(c->r, -EBADMSG, c->off, "%s record has %u bytes after its fields",
			    rec_type__name(c->type), c->left);
	return 0;
}

static int bad(struct cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct cur *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fail(c->r, -EBADMSG, c->off, "%s record %s", rec_type__name(c->type), msg);
}

static int dec_meta(struct cur *c, struct rec_meta *m)
{
	int err;

	m->key = c_str(c, "key");
	m->value = c_str(c, "value");
	if ((err = c_done(c)))
		return err;
	if (!*m->key)
		return bad(c, "has an empty key");
	return 0;
}

static int dec_event(struct cur *c, struct rec_event *e)
{
	uint32_t kind;
	int err;

	e->id = c_u32(c, "id");
	kind = c_u32(c, "kind");
	e->kind = (enum rec_event_kind)kind;
	e->flags = c_u32(c, "flags");
	e->config = c_u64(c, "config");
	e->name = c_str(c, "name");
	e->path = c_str(c, "path");
	e->format = c_str(c, "format");
	if ((err = c_done(c)))
		return err;
	if (e->id != c->r->nr_events)
		return bad(c, "defines id %u, expected %llu (ids are dense from 0)", e->id,
			   (unsigned long long)c->r->nr_events);
	if (!event_kind_valid(kind))
		return bad(c, "has unknown kind %u", kind);
	if (!*e->name)
		return bad(c, "has an empty name");
	c->r->nr_events++;
	return 0;
}

static int dec_proc(struct cur *c, struct rec_proc *p)
{
	p->pid = c_u32(c, "pid");
	p->time = c_u64(c, "time");
	p->comm = c_str(c, "comm");
	return c_done(c);
}

static int dec_comm(struct cur *c, struct rec_comm *m)
{
	uint32_t exec;
	int err;

	m->pid = c_u32(c, "pid");
	m->tid = c_u32(c, "tid");
	m->time = c_u64(c, "time");
	exec = c_u32(c, "exec");
	m->exec = exec != 0;
	m->comm = c_str(c, "comm");
	if ((err = c_done(c)))
		return err;
	if (exec > 1)
		return bad(c, "has exec flag %u (0 or 1 expected)", exec);
	return 0;
}

static int dec_mmap(struct cur *c, struct rec_mmap *m)
{
	const unsigned char *b;
	int err;

	m->pid = c_u32(c, "pid");
	m->time = c_u64(c, "time");
	m->start = c_u64(c, "start");
	m->len = c_u64(c, "len");
	m->pgoff = c_u64(c, "pgoff");
	m->prot = c_u32(c, "prot");
	m->flags = c_u32(c, "flags");
	m->maj = c_u32(c, "maj");
	m->min = c_u32(c, "min");
	m->ino = c_u64(c, "ino");
	m->build_id_size = c_u8(c, "build_id_size");
	if (!c->err && m->build_id_size > REC_BUILD_ID_MAX)
		return bad(c, "has a build-id of %u bytes, more than %u", m->build_id_size,
			   REC_BUILD_ID_MAX);
	b = c_bytes(c, m->build_id_size, "build_id");
	memset(m->build_id, 0, sizeof(m->build_id));
	if (b)
		memcpy(m->build_id, b, m->build_id_size);
	m->path = c_str(c, "path");
	if ((err = c_done(c)))
		return err;
	if (m->len == 0)
		return bad(c, "has an empty range at 0x%llx", (unsigned long long)m->start);
	if (m->start + m->len < m->start)
		return bad(c, "range 0x%llx + 0x%llx wraps around", (unsigned long long)m->start,
			   (unsigned long long)m->len);
	return 0;
}

static int dec_task(struct cur *c, struct rec_task *t)
{
	t->pid = c_u32(c, "pid");
	t->ppid = c_u32(c, "ppid");
	t->tid = c_u32(c, "tid");
	t->ptid = c_u32(c, "ptid");
	t->time = c_u64(c, "time");
	return c_done(c);
}

static int dec_stack(struct cur *c, struct rec_stack *s)
{
	const unsigned char *b;
	uint32_t kind;
	int err;

	s->id = c_u32(c, "id");
	kind = c_u32(c, "kind");
	s->kind = (enum rec_stack_kind)kind;
	s->nr = c_u32(c, "nr");
	if (c->err)
		return c->err;
	if (s->id != c->r->nr_stacks + 1)
		return bad(c, "defines id %u, expected %llu (ids are consecutive from 1)", s->id,
			   (unsigned long long)(c->r->nr_stacks + 1));
	if (!stack_kind_valid(kind))
		return bad(c, "has unknown kind %u", kind);
	if (s->nr > REC_MAX_FRAMES)
		return bad(c, "has %u frames, more than %u", s->nr, REC_MAX_FRAMES);
	/* nr <= 1024, so 8 * nr cannot overflow. */
	b = c_bytes(c, 8 * s->nr, "ips");
	if (!b)
		return c->err;
	for (uint32_t i = 0; i < s->nr; i++)
		c->r->ips[i] = get_le64(b + 8 * i);
	s->ips = c->r->ips;
	if ((err = c_done(c)))
		return err;
	c->r->nr_stacks++;
	return 0;
}

static int dec_sample(struct cur *c, struct rec_sample *s)
{
	uint64_t nr_stacks = c->r->nr_stacks;
	int err;

	s->event = c_u32(c, "event");
	s->pid = c_u32(c, "pid");
	s->tid = c_u32(c, "tid");
	s->cpu = c_u32(c, "cpu");
	s->time = c_u64(c, "time");
	s->addr = c_u64(c, "addr");
	s->user_stack = c_u32(c, "user_stack");
	s->kernel_stack = c_u32(c, "kernel_stack");
	s->raw_size = c_u32(c, "raw_size");
	s->raw = c_bytes(c, s->raw_size, "raw");
	if ((err = c_done(c)))
		return err;
	if (s->event >= c->r->nr_events)
		return bad(c, "names event %u, only %llu defined", s->event,
			   (unsigned long long)c->r->nr_events);
	if (s->user_stack > nr_stacks)
		return bad(c, "names user stack %u, only %llu defined", s->user_stack,
			   (unsigned long long)nr_stacks);
	if (s->kernel_stack > nr_stacks)
		return bad(c, "names kernel stack %u, only %llu defined", s->kernel_stack,
			   (unsigned long long)nr_stacks);
	return 0;
}

static int dec_ksym(struct cur *c, struct rec_ksym *k)
{
	int err;

	k->start = c_u64(c, "start");
	k->end = c_u64(c, "end");
	k->name = c_str(c, "name");
	k->module = c_str(c, "module");
	if ((err = c_done(c)))
		return err;
	if (c->r->minor < 1)
		return bad(c, "in a format %u.%u recording (ksym records are 1.1's)", c->r->major,
			   c->r->minor);
	if (k->start >= k->end)
		return bad(c, "has an empty range 0x%llx-0x%llx (start must be below end)",
			   (unsigned long long)k->start, (unsigned long long)k->end);
	if (!*k->name)
		return bad(c, "has an empty name");
	return 0;
}

static int dec_lost(struct cur *c, struct rec_lost *l)
{
	l->time = c_u64(c, "time");
	l->count = c_u64(c, "count");
	return c_done(c);
}

static int dec_end(struct cur *c, struct rec_end *e)
{
	int err;

	e->stop = c_u32(c, "stop");
	e->status = (int32_t)c_u32(c, "status");
	e->samples = c_u64(c, "samples");
	e->lost = c_u64(c, "lost");
	e->bad = c_u64(c, "bad");
	e->nr_counters = c_u32(c, "nr_counters");
	if (!c->err && e->nr_counters > REC_MAX_COUNTERS)
		return bad(c, "has %u counters, more than %u", e->nr_counters, REC_MAX_COUNTERS);
	memset(e->counters, 0, sizeof(e->counters));
	for (uint32_t i = 0; i < e->nr_counters && !c->err; i++)
		e->counters[i] = c_u64(c, "counters");
	/* 1.2's back-pressure totals; an older file has none (0, 0). */
	if (c->r->minor >= 2) {
		e->pauses = c_u64(c, "pauses");
		e->paused_ns = c_u64(c, "paused_ns");
	}
	if ((err = c_done(c)))
		return err;
	if (!e->pauses && e->paused_ns)
		return bad(c, "has %llu ns paused but no pause", (unsigned long long)e->paused_ns);
	c->r->ended = true;
	return 0;
}

/* Check the file header and step over it. */
static int read_header(struct recreader *r)
{
	const unsigned char *p = NULL;
	unsigned int hsize;
	uint32_t order;
	size_t got = 0;
	int err;

	if ((err = avail(r, REC_HEADER_SIZE, &p, &got)))
		return fail_io(r, err);
	/* A prefix of the magic (an empty file: a `record` killed before its
	 * first write) is a truncated recording, anything else is not one. */
	if (memcmp(p, REC_MAGIC, got < REC_MAGIC_LEN ? got : REC_MAGIC_LEN) != 0)
		return fail(r, -EBADMSG, 0, "not a faultline recording (no '%s' magic)", REC_MAGIC);
	if (got < REC_HEADER_SIZE)
		return fail(r, -ENODATA, 0, "the recording ends inside its header (%zu of %u bytes)",
			    got, REC_HEADER_SIZE);
	r->major = get_le16(p + 8);
	r->minor = get_le16(p + 10);
	order = get_le32(p + 12);
	hsize = get_le32(p + 16);
	if (order == 0x04030201u)
		return fail(r, -EBADMSG, 12, "big-endian recording: this faultline reads little-endian ones");
	if (order != REC_BYTE_ORDER)
		return fail(r, -EBADMSG, 12, "bad byte-order marker 0x%08x", order);
	if (r->major != REC_VERSION_MAJOR)
		return fail(r, -ENOTSUP, 8, "format version %u.%u: this faultline reads %u.x only",
			    r->major, r->minor, REC_VERSION_MAJOR);
	if (hsize < REC_HEADER_SIZE || hsize > REC_HEADER_MAX ||
	    (hsize != REC_HEADER_SIZE && r->minor <= REC_VERSION_MINOR))
		return fail(r, -EBADMSG, 16, "bad header size %u for format version %u.%u", hsize,
			    r->major, r->minor);
	/* A newer minor's longer header: skip what we do not know. */
	if ((err = avail(r, hsize, &p, &got)))
		return fail_io(r, err);
	if (got < hsize)
		return fail(r, -ENODATA, 0, "the recording ends inside its header (%zu of %u bytes)",
			    got, hsize);
	consume(r, hsize);
	return 0;
}

static int reader_new(struct recreader **out)
{
	struct recreader *r;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	*out = r;
	return 0;
}

int recreader__open_mem(const void *buf, size_t len, struct recreader **out, struct errbuf *eb)
{
	struct recreader *r = NULL;
	int err;

	*out = NULL;
	if ((err = reader_new(&r)))
		goto out;
	r->mem = buf;
	r->mem_len = len;
	if ((err = read_header(r))) {
		if (eb)
			*eb = r->errmsg;
		goto out;
	}
	*out = r;
	r = NULL;
out:
	recreader__free(r);
	return err;
}

int recreader__open(const char *path, struct recreader **out, struct errbuf *eb)
{
	struct recreader *r = NULL;
	int err;

	*out = NULL;
	if ((err = reader_new(&r)))
		goto out;
	r->cap = RECREADER_BUFSIZE;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		err = -ENOMEM;
		goto out;
	}
	/* A recording's path is anyone's: no FIFO to wait on, no device. */
	r->fd = open_regular(path, 0);
	if (r->fd < 0) {
		err = errbuf__set(eb, r->fd, "cannot open '%s': %s", path,
				  r->fd == -EINVAL ? "not a regular file" : strerror(-r->fd));
		r->fd = -1;
		goto out;
	}
	if ((err = read_header(r))) {
		if (eb)
			errbuf__set(eb, err, "'%s': %s", path, r->errmsg.msg);
		goto out;
	}
	*out = r;
	r = NULL;
out:
	recreader__free(r);
	return err;
}

void recreader__version(const struct recreader *r, unsigned int *major, unsigned int *minor)
{
	if (major)
		*major = r->major;
	if (minor)
		*minor = r->minor;
}

/* Room for the strings of a record of len payload bytes: at most len
 * bytes of text plus a terminator for each of its strings (three at
 * most, an EVENT's). */
#define REC_MAX_STRINGS 3

static int scratch_reserve(struct recreader *r, uint32_t len)
{
	size_t need = (size_t)len + REC_MAX_STRINGS;
	char *nb;

	r->scratch_used = 0;
	if (need <= r->scratch_cap)
		return 0;
	if (need < 4096)
		need = 4096;
	nb = realloc(r->scratch, need);
	if (!nb)
		return -ENOMEM;
	r->scratch = nb;
	r->scratch_cap = need;
	return 0;
}

static int next_record(struct recreader *r, struct rec *out)
{
	const unsigned char *p = NULL;
	uint32_t type, len;
	struct cur c;
	uint64_t off;
	size_t got = 0;
	int err;

	for (;;) {
		off = r->off;
		if ((err = avail(r, REC_RECORD_HEADER, &p, &got)))
			return fail_io(r, err);
		r->cut_bytes = got;
		if (got == 0) {
			if (r->ended)
				return 0;
			return fail(r, -ENODATA, off,
				    "the recording ends without an end record (truncated)");
		}
		if (r->ended)
			return fail(r, -EBADMSG, off, "data after the end record");
		if (got < REC_RECORD_HEADER)
			return fail(r, -ENODATA, off,
				    "the recording ends inside a record header (%zu of %u bytes, truncated)",
				    got, REC_RECORD_HEADER);
		type = get_le32(p);
		len = get_le32(p + 4);
		if (len > REC_MAX_PAYLOAD)
			return fail(r, -EBADMSG, off,
				    "%s record (type %u) of %u bytes, more than the limit of %u",
				    rec_type__name((enum rec_type)type), type, len, REC_MAX_PAYLOAD);
		if ((err = avail(r, REC_RECORD_HEADER + (size_t)len, &p, &got)))
			return fail_io(r, err);
		r->cut_bytes = got;
		if (got < REC_RECORD_HEADER + (size_t)len)
			return fail(r, -ENODATA, off,
				    "%s record of %u bytes is cut after %zu (truncated)",
				    rec_type__name((enum rec_type)type), len,
				    got - REC_RECORD_HEADER);
		if (type >= REC_META && type <= REC_KSYM)
			break;
		if (r->minor <= REC_VERSION_MINOR)
			return fail(r, -EBADMSG, off, "unknown record type %u (format version %u.%u)",
				    type, r->major, r->minor);
		/* A newer minor version's record: not for us. */
		consume(r, REC_RECORD_HEADER + (size_t)len);
	}

	/* Only records with strings need the scratch; a large SAMPLE does not. */
	if (type != REC_STACK && type != REC_SAMPLE && (err = scratch_reserve(r, len)))
		return fail_io(r, err);
	c = (struct cur){
		.r = r, .type = (enum rec_type)type, .off = off, .len = len,
		.p = p + REC_RECORD_HEADER, .left = len,
	};
	memset(out, 0, sizeof(*out));
	out->type = (enum rec_type)type;
	out->offset = off;
	switch (out->type) {
	case REC_META:
		err = dec_meta(&c, &out->u.meta);
		break;
	case REC_EVENT:
		err = dec_event(&c, &out->u.event);
		break;
	case REC_PROC:
		err = dec_proc(&c, &out->u.proc);
		break;
	case REC_COMM:
		err = dec_comm(&c, &out->u.comm);
		break;
	case REC_MMAP:
		err = dec_mmap(&c, &out->u.mmap);
		break;
	case REC_FORK:
	case REC_EXIT:
		err = dec_task(&c, &out->u.task);
		break;
	case REC_STACK:
		err = dec_stack(&c, &out->u.stack);
		break;
	case REC_SAMPLE:
		err = dec_sample(&c, &out->u.sample);
		break;
	case REC_LOST:
		err = dec_lost(&c, &out->u.lost);
		break;
	case REC_END:
		err = dec_end(&c, &out->u.end);
		break;
	case REC_KSYM:
		err = dec_ksym(&c, &out->u.ksym);
		break;
	default:
		err = fail(r, -EBADMSG, off, "unknown record type %u", type);
		break;
	}
	if (err)
		return err;
	consume(r, REC_RECORD_HEADER + (size_t)len);
	return 1;
}

int recreader__next(struct recreader *r, struct rec *out, struct errbuf *eb)
{
	int ret;

	if (r->err)
		ret = r->err;
	else
		ret = next_record(r, out);
	if (ret < 0 && eb)
		*eb = r->errmsg;
	return ret;
}

bool recreader__cut(const struct recreader *r, uint64_t *whole, uint64_t *cut)
{
	if (r->err != -ENODATA)
		return false;
	if (whole)
		*whole = r->off;
	if (cut)
		*cut = r->cut_bytes;
	return true;
}

void recreader__free(struct recreader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r->scratch);
	free(r);
}
