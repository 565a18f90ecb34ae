/*
 * ring: perf mmap ring reader.
 *
 * Ordering contract (see the comment above struct perf_event_mmap_page in
 * linux/perf_event.h): load data_head with acquire semantics before reading
 * any record, and store data_tail with release semantics after the last
 * read, so the kernel never overwrites bytes we are still reading.
 * Positions are free-running u64s; only the offset within the buffer wraps.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/ring.h"

struct ring {
	int fd;
	void *base;		/* control page followed by data pages */
	size_t map_len;
	unsigned char *data;
	uint64_t mask;		/* data size - 1 */
	unsigned char *scratch;	/* for records that wrap */
	size_t scratch_len;
	uint64_t head, tail;	/* the snapshot being read */
	uint16_t peeked;	/* size of the record ring__peek() gave */
};

int ring__new(int fd, unsigned int pages, struct ring **out)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	struct ring *r;

	if (!pages || (pages & (pages - 1)))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = fd;
	r->map_len = (pages + 1) * psz;
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (r->base == MAP_FAILED) {
		int err = -errno;

		free(r);
		return err;
	}
	r->data = (unsigned char *)r->base + psz;
	r->mask = (uint64_t)pages * psz - 1;
	*out = r;
	return 0;
}

void ring__unmap_in_signal(struct ring *r)
{
	if (r && r->base) {
		munmap(r->base, r->map_len);
		r->base = NULL;
	}
}

void ring__free(struct ring *r)
{
	if (!r)
		return;
	if (r->base)
		munmap(r->base, r->map_len);
	free(r->scratch);
	free(r);
}

int ring__fd(const struct ring *r)
{
	return r->fd;
}

/* The header of the record at @pos, which may straddle the end. */
static void header_at(const struct ring *r, uint64_t pos, struct perf_event_header *hdr)
{
	uint64_t off = pos & r->mask;
	size_t first = r->mask + 1 - off;

	if (first >= sizeof(*hdr)) {
		memcpy(hdr, r->data + off, sizeof(*hdr));
	} else {
		memcpy(hdr, r->data + off, first);
		memcpy((char *)hdr + first, r->data, sizeof(*hdr) - first);
	}
}

/* The record of @size bytes at @pos, contiguous: in place, or copied into
 * *@buf (grown as needed). */
static int record_at(const struct ring *r, uint64_t pos, uint16_t size, unsigned char **buf,
		     size_t *buf_len, const struct perf_event_header **out)
{
	uint64_t off = pos & r->mask;
	size_t first = r->mask + 1 - off;

	if (size <= first) {
		*out = (const void *)(r->data + off);
		return 0;
	}
	if (*buf_len < size) {
		unsigned char *nv = realloc(*buf, size);

		if (!nv)
			return -ENOMEM;
		*buf = nv;
		*buf_len = size;
	}
	memcpy(*buf, r->data + off, first);
	memcpy(*buf + first, r->data, size - first);
	*out = (const void *)*buf;
	return 0;
}

bool ring__snapshot(struct ring *r)
{
	struct perf_event_mmap_page *pc = r->base;

	r->head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	r->tail = pc->data_tail;
	r->peeked = 0;
	return r->tail < r->head;
}

uint64_t ring__fill(const struct ring *r)
{
	struct perf_event_mmap_page *pc = r->base;

	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE) - pc->data_tail;
}

int ring__peek(struct ring *r, const struct perf_event_header **out)
{
	struct perf_event_header hdr;
	int err;

	if (r->tail >= r->head)
		return -ENOENT;
	header_at(r, r->tail, &hdr);
	if (hdr.size < sizeof(hdr) || hdr.size > r->head - r->tail) {
		/* Corrupt or torn: drop what we have rather than loop. */
		r->tail = r->head;
		return -EIO;
	}
	err = record_at(r, r->tail, hdr.size, &r->scratch, &r->scratch_len, out);
	if (!err)
		r->peeked = hdr.size;
	return err;
}

void ring__consume(struct ring *r)
{
	r->tail += r->peeked;
	r->peeked = 0;
}

void ring__publish(struct ring *r)
{
	struct perf_event_mmap_page *pc = r->base;

	__atomic_store_n(&pc->data_tail, r->tail, __ATOMIC_RELEASE);
}

int ring__read(struct ring *r, ring_cb cb, void *ctx)
{
	const struct perf_event_header *rec;
	int ret = 0;

	ring__snapshot(r);
	while ((ret = ring__peek(r, &rec)) == 0) {
		ring__consume(r);
		ret = cb(rec, ctx);
		if (ret)
			break;
	}
	ring__publish(r);
	return ret == -ENOENT ? 0 : ret;
}
