/*
 * recfile: the writer of faultline recordings (docs/record-format.md); the
 * reader is recread.c, what both share recfile-int.h.
 *
 * The writer packs each record little-endian into one buffer and writes
 * the buffer out whole each time it fills, so a run of any length costs
 * RECWRITER_BUFSIZE bytes of memory and large sequential writes.  (The
 * buffer starts smaller and doubles up to that size before the first
 * write: a short recording, or a fuzzer's, does not pay for 1 MiB.)  A
 * write error is latched: the session goes on tracing (its live output
 * does not depend on the recording) and learns of the failure from every
 * later call and from recwriter__close().
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

static const char *const type_names[] = {
	[REC_META] = "meta",
	[REC_EVENT] = "event",
	[REC_PROC] = "proc",
	[REC_COMM] = "comm",
	[REC_MMAP] = "mmap",
	[REC_FORK] = "fork",
	[REC_EXIT] = "exit",
	[REC_STACK] = "stack",
	[REC_SAMPLE] = "sample",
	[REC_LOST] = "lost",
	[REC_END] = "end",
	[REC_KSYM] = "ksym",
};

const char *rec_type__name(enum rec_type type)
{
	if ((unsigned int)type >= REC_META && (unsigned int)type <= REC_KSYM)
		return type_names[type];
	return "unknown";
}


struct recwriter {
	int fd;
	char *path;
	unsigned char *buf;		/* cap bytes, at most RECWRITER_BUFSIZE */
	size_t used, cap;
	uint64_t bytes;			/* header + records, flushed or not */
	int err;			/* latched write error, or 0 */
	struct errbuf ioerr;		/* its detail, for recwriter__close() */
	struct errbuf last;		/* detail of the last failure of any kind */
	uint64_t nr_events;		/* EVENT ids 0..nr_events-1 are defined */
	uint64_t nr_stacks;		/* STACK ids 1..nr_stacks are defined */
	bool ended;
};

static void w_flush(struct recwriter *w)
{
	size_t done = 0;
	ssize_t n;

	while (!w->err && done < w->used) {
		n = write(w->fd, w->buf + done, w->used - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* write(2) returning 0 for a non-empty buffer: no progress
			 * will come, call it what a full device is. */
			w->err = n < 0 ? -errno : -ENOSPC;
			errbuf__set(&w->ioerr, w->err, "cannot write '%s': %s", w->path,
				    w->err == -EFBIG ? "file size limit reached" :
						       strerror(-w->err));
			w->last = w->ioerr;
			break;
		}
		done += (size_t)n;
	}
	w->used = 0;
}

/* A full buffer: grow it while under RECWRITER_BUFSIZE, else write it
 * out.  Growing is only an economy: when realloc fails, write out the
 * smaller buffer instead. */
static void w_full(struct recwriter *w)
{
	unsigned char *nb;

	if (w->cap < RECWRITER_BUFSIZE) {
		nb = realloc(w->buf, w->cap * 2);
		if (nb) {
			w->buf = nb;
			w->cap *= 2;
			return;
		}
	}
	w_flush(w);
}

/* Append bytes, writing the buffer out each time it is full: a record
 * larger than the buffer streams through it. */
static void w_put(struct recwriter *w, const void *p, size_t n)
{
	const unsigned char *src = p;
	size_t chunk;

	while (n && !w->err) {
		chunk = w->cap - w->used;
		if (chunk > n)
			chunk = n;
		memcpy(w->buf + w->used, src, chunk);
		w->used += chunk;
		w->bytes += chunk;
		src += chunk;
		n -= chunk;
		if (w->used == w->cap)
			w_full(w);
	}
}

static void w_u8(struct recwriter *w, uint8_t v)
{
	w_put(w, &v, 1);
}

static void w_u32(struct recwriter *w, uint32_t v)
{
	unsigned char b[4];

	put_le32(b, v);
	w_put(w, b, sizeof(b));
}

static void w_u64(struct recwriter *w, uint64_t v)
{
	unsigned char b[8];

	put_le64(b, v);
	w_put(w, b, sizeof(b));
}

static void w_str(struct recwriter *w, const char *s, uint32_t len)
{
	w_u32(w, len);
	w_put(w, s, len);
}

static int w_invalid(struct recwriter *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int w_invalid(struct recwriter *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->last.msg, sizeof(w->last.msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Can a record be written at all: no latched error, no END yet. */
static int w_check(struct recwriter *w, enum rec_type type)
{
	if (w->err)
		return w->err;
	if (w->ended)
		return w_invalid(w, "%s record after the end record", rec_type__name(type));
	return 0;
}

/* Length of a string field; NULL is "". */
static int w_strlen(struct recwriter *w, enum rec_type type, const char *what, const char *s,
		    uint32_t *len)
{
	size_t n = s ? strlen(s) : 0;

	if (n > REC_MAX_PAYLOAD)
		return w_invalid(w, "%s record: '%s' of %zu bytes is over the record limit",
				 rec_type__name(type), what, n);
	*len = (uint32_t)n;
	return 0;
}

static int w_begin(struct recwriter *w, enum rec_type type, uint64_t payload)
{
	if (payload > REC_MAX_PAYLOAD)
		return w_invalid(w, "%s record of %llu bytes is over the limit of %u",
				 rec_type__name(type), (unsigned long long)payload,
				 REC_MAX_PAYLOAD);
	w_u32(w, type);
	w_u32(w, (uint32_t)payload);
	return 0;
}

int recwriter__open(const char *path, struct recwriter **out, struct errbuf *eb)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	*out = NULL;
	if (fd < 0)
		return errbuf__set(eb, -errno, "cannot create '%s': %s", path, strerror(errno));
	return recwriter__open_fd(fd, path, out, eb);
}

int recwriter__open_fd(int fd, const char *name, struct recwriter **out, struct errbuf *eb)
{
	unsigned char hdr[REC_HEADER_SIZE];
	struct recwriter *w = NULL;
	int err = 0;

	(void)eb;
	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		err = -ENOMEM;
		goto out;
	}
	w->fd = fd;
	fd = -1;
	w->path = strdup(name);
	w->cap = RECWRITER_BUFSIZE / 16;	/* a power-of-two fraction: doubles to it */
	w->buf = malloc(w->cap);
	if (!w->path || !w->buf) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(hdr, REC_MAGIC, REC_MAGIC_LEN);
	put_le16(hdr + 8, REC_VERSION_MAJOR);
	put_le16(hdr + 10, REC_VERSION_MINOR);
	put_le32(hdr + 12, REC_BYTE_ORDER);
	put_le32(hdr + 16, REC_HEADER_SIZE);
	w_put(w, hdr, sizeof(hdr));
	*out = w;
	w = NULL;
out:
	if (fd >= 0)
		close(fd);
	if (w) {
		if (w->fd >= 0)
			close(w->fd);
		free(w->buf);
		free(w->path);
		free(w);
	}
	return err;
}

int recwriter__meta(struct recwriter *w, const char *key, const char *value)
{
	uint32_t klen = 0, vlen = 0;
	int err;

	if ((err = w_check(w, REC_META)))
		return err;
	if (!key || !*key)
		return w_invalid(w, "meta record with an empty key");
	if ((err = w_strlen(w, REC_META, "key", key, &klen)) ||
	    (err = w_strlen(w, REC_META, "value", value, &vlen)) ||
	    (err = w_begin(w, REC_META, 8ull + klen + vlen)))
		return err;
	w_str(w, key, klen);
	w_str(w, value, vlen);
	return w->err;
}

int recwriter__event(struct recwriter *w, const struct rec_event *e)
{
	uint32_t nlen = 0, plen = 0, flen = 0;
	int err;

	if ((err = w_check(w, REC_EVENT)))
		return err;
	if (e->id != w->nr_events)
		return w_invalid(w, "event record defines id %u, expected %llu", e->id,
				 (unsigned long long)w->nr_events);
	if (!event_kind_valid(e->kind))
		return w_invalid(w, "event record has unknown kind %u", (unsigned int)e->kind);
	if (!e->name || !*e->name)
		return w_invalid(w, "event record with an empty name");
	if ((err = w_strlen(w, REC_EVENT, "name", e->name, &nlen)) ||
	    (err = w_strlen(w, REC_EVENT, "path", e->path, &plen)) ||
	    (err = w_strlen(w, REC_EVENT, "format", e->format, &flen)) ||
	    (err = w_begin(w, REC_EVENT, 20ull + 12 + nlen + plen + flen)))
		return err;
	w_u32(w, e->id);
	w_u32(w, e->kind);
	w_u32(w, e->flags);
	w_u64(w, e->config);
	w_str(w, e->name, nlen);
	w_str(w, e->path, plen);
	w_str(w, e->format, flen);
	if (!w->err)
		w->nr_events++;
	return w->err;
}

int recwriter__proc(struct recwriter *w, const struct rec_proc *p)
{
	uint32_t clen = 0;
	int err;

	if ((err = w_check(w, REC_PROC)) ||
	    (err = w_strlen(w, REC_PROC, "comm", p->comm, &clen)) ||
	    (err = w_begin(w, REC_PROC, 12ull + 4 + clen)))
		return err;
	w_u32(w, p->pid);
	w_u64(w, p->time);
	w_str(w, p->comm, clen);
	return w->err;
}

int recwriter__comm(struct recwriter *w, const struct rec_comm *c)
{
	uint32_t clen = 0;
	int err;

	if ((err = w_check(w, REC_COMM)) ||
	    (err = w_strlen(w, REC_COMM, "comm", c->comm, &clen)) ||
	    (err = w_begin(w, REC_COMM, 20ull + 4 + clen)))
		return err;
	w_u32(w, c->pid);
	w_u32(w, c->tid);
	w_u64(w, c->time);
	w_u32(w, c->exec ? 1 : 0);
	w_str(w, c->comm, clen);
	return w->err;
}

int recwriter__mmap(struct recwriter *w, const struct rec_mmap *m)
{
	uint32_t plen = 0;
	int err;

	if ((err = w_check(w, REC_MMAP)))
		return err;
	if (m->build_id_size > REC_BUILD_ID_MAX)
		return w_invalid(w, "mmap record with a build-id of %u bytes, more than %u",
				 m->build_id_size, REC_BUILD_ID_MAX);
	if (m->len == 0 || m->start + m->len < m->start)
		return w_invalid(w, "mmap record with a bad range 0x%llx + 0x%llx",
				 (unsigned long long)m->start, (unsigned long long)m->len);
	if ((err = w_strlen(w, REC_MMAP, "path", m->path, &plen)) ||
	    (err = w_begin(w, REC_MMAP, 60ull + 1 + m->build_id_size + 4 + plen)))
		return err;
	w_u32(w, m->pid);
	w_u64(w, m->time);
	w_u64(w, m->start);
	w_u64(w, m->len);
	w_u64(w, m->pgoff);
	w_u32(w, m->prot);
	w_u32(w, m->flags);
	w_u32(w, m->maj);
	w_u32(w, m->min);
	w_u64(w, m->ino);
	w_u8(w, m->build_id_size);
	w_put(w, m->build_id, m->build_id_size);
	w_str(w, m->path, plen);
	return w->err;
}

static int w_task(struct recwriter *w, enum rec_type type, const struct rec_task *t)
{
	int err;

	if ((err = w_check(w, type)) || (err = w_begin(w, type, 24)))
		return err;
	w_u32(w, t->pid);
	w_u32(w, t->ppid);
	w_u32(w, t->tid);
	w_u32(w, t->ptid);
	w_u64(w, t->time);
	return w->err;
}

int recwriter__fork(struct recwriter *w, const struct rec_task *t)
{
	return w_task(w, REC_FORK, t);
}

int recwriter__exit(struct recwriter *w, const struct rec_task *t)
{
	return w_task(w, REC_EXIT, t);
}

int recwriter__stack(struct recwriter *w, const struct rec_stack *s)
{
	int err;

	if ((err = w_check(w, REC_STACK)))
		return err;
	if (s->id != w->nr_stacks + 1)
		return w_invalid(w, "stack record defines id %u, expected %llu", s->id,
				 (unsigned long long)(w->nr_stacks + 1));
	if (!stack_kind_valid(s->kind))
		return w_invalid(w, "stack record has unknown kind %u", (unsigned int)s->kind);
	if (s->nr > REC_MAX_FRAMES)
		return w_invalid(w, "stack record with %u frames, more than %u", s->nr,
				 REC_MAX_FRAMES);
	if (s->nr && !s->ips)
		return w_invalid(w, "stack record with %u frames at NULL", s->nr);
	if ((err = w_begin(w, REC_STACK, 12ull + 8ull * s->nr)))
		return err;
	w_u32(w, s->id);
	w_u32(w, s->kind);
	w_u32(w, s->nr);
	for (uint32_t i = 0; i < s->nr; i++)
		w_u64(w, s->ips[i]);
	if (!w->err)
		w->nr_stacks++;
	return w->err;
}

int recwriter__sample(struct recwriter *w, const struct rec_sample *s)
{
	unsigned char b[REC_RECORD_HEADER + 44];
	int err;

	if ((err = w_check(w, REC_SAMPLE)))
		return err;
	if (s->event >= w->nr_events)
		return w_invalid(w, "sample record names event %u, only %llu defined", s->event,
				 (unsigned long long)w->nr_events);
	if (s->user_stack > w->nr_stacks || s->kernel_stack > w->nr_stacks)
		return w_invalid(w, "sample record names stacks %u and %u, only %llu defined",
				 s->user_stack, s->kernel_stack,
				 (unsigned long long)w->nr_stacks);
	if (s->raw_size && !s->raw)
		return w_invalid(w, "sample record with %u bytes of raw data at NULL",
				 s->raw_size);
	if (44ull + s->raw_size > REC_MAX_PAYLOAD)
		return w_invalid(w, "sample record of %llu bytes is over the limit of %u",
				 44ull + s->raw_size, REC_MAX_PAYLOAD);
	/* The hot path: one copy of the fixed part. */
	put_le32(b, REC_SAMPLE);
	put_le32(b + 4, 44 + s->raw_size);
	put_le32(b + 8, s->event);
	put_le32(b + 12, s->pid);
	put_le32(b + 16, s->tid);
	put_le32(b + 20, s->cpu);
	put_le64(b + 24, s->time);
	put_le64(b + 32, s->addr);
	put_le32(b + 40, s->user_stack);
	put_le32(b + 44, s->kernel_stack);
	put_le32(b + 48, s->raw_size);
	w_put(w, b, sizeof(b));
	w_put(w, s->raw, s->raw_size);
	return w->err;
}

int recwriter__ksym(struct recwriter *w, const struct rec_ksym *k)
{
	uint32_t nlen = 0, mlen = 0;
	int err;

	if ((err = w_check(w, REC_KSYM)))
		return err;
	if (k->start >= k->end)
		return w_invalid(w, "ksym record with an empty range 0x%llx-0x%llx",
				 (unsigned long long)k->start, (unsigned long long)k->end);
	if (!k->name || !*k->name)
		return w_invalid(w, "ksym record with an empty name");
	if ((err = w_strlen(w, REC_KSYM, "name", k->name, &nlen)) ||
	    (err = w_strlen(w, REC_KSYM, "module", k->module, &mlen)) ||
	    (err = w_begin(w, REC_KSYM, 16ull + 8 + nlen + mlen)))
		return err;
	w_u64(w, k->start);
	w_u64(w, k->end);
	w_str(w, k->name, nlen);
	w_str(w, k->module, mlen);
	return w->err;
}

int recwriter__lost(struct recwriter *w, const struct rec_lost *l)
{
	int err;

	if ((err = w_check(w, REC_LOST)) || (err = w_begin(w, REC_LOST, 16)))
		return err;
	w_u64(w, l->time);
	w_u64(w, l->count);
	return w->err;
}

int recwriter__end(struct recwriter *w, const struct rec_end *e)
{
	int err;

	if ((err = w_check(w, REC_END)))
		return err;
	if (e->nr_counters > REC_MAX_COUNTERS)
		return w_invalid(w, "end record with %u counters, more than %u", e->nr_counters,
				 REC_MAX_COUNTERS);
	if (!e->pauses && e->paused_ns)
		return w_invalid(w, "end record with %llu ns paused but no pause",
				 (unsigned long long)e->paused_ns);
	if ((err = w_begin(w, REC_END, 36ull + 8ull * e->nr_counters + 16)))
		return err;
	w_u32(w, e->stop);
	w_u32(w, (uint32_t)e->status);
	w_u64(w, e->samples);
	w_u64(w, e->lost);
	w_u64(w, e->bad);
	w_u32(w, e->nr_counters);
	for (uint32_t i = 0; i < e->nr_counters; i++)
		w_u64(w, e->counters[i]);
	w_u64(w, e->pauses);
	w_u64(w, e->paused_ns);
	w->ended = true;
	return w->err;
}

const char *recwriter__errmsg(const struct recwriter *w, int err)
{
	return errbuf__str(w ? &w->last : NULL, err);
}

int recwriter__flush(struct recwriter *w)
{
	w_flush(w);
	return w->err;
}

void recwriter__flush_in_signal(const struct recwriter *w)
{
	if (!w->err && w->fd >= 0 && w->used && write(w->fd, w->buf, w->used) < 0) {
		/* dying: nothing more to do */
	}
}

uint64_t recwriter__bytes(const struct recwriter *w)
{
	return w ? w->bytes : 0;
}

int recwriter__close(struct recwriter *w, struct errbuf *eb)
{
	int err;

	if (!w)
		return 0;
	w_flush(w);
	/* close(2) is where NFS and some FUSE file systems report a failed
	 * write-back: it counts as a write error. */
	if (close(w->fd) < 0 && !w->err) {
		w->err = -errno;
		errbuf__set(&w->ioerr, w->err, "cannot close '%s': %s", w->path, strerror(errno));
	}
	err = w->err;
	if (err && eb)
		*eb = w->ioerr;
	free(w->buf);
	free(w->path);
	free(w);
	return err;
}
