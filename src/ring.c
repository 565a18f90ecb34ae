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

#include "ring.h"

struct ring {
	int fd;
	void *base;		/* control page followed by data pages */
	size_t map_len;
	unsigned char *data;
	uint64_t mask;		/* data size - 1 */
	unsigned char *scratch;	/* for records that wrap */
	size_t scratch_len;
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

int ring__read(struct ring *r, ring_cb cb, void *ctx)
{
	struct perf_event_mmap_page *pc = r->base;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;
	int ret = 0;

	while (tail < head) {
		uint64_t off = tail & r->mask;
		struct perf_event_header hdr;
		const struct perf_event_header *rec;
		size_t first;

		/* The header itself may straddle the end. */
		first = r->mask + 1 - off;
		if (first >= sizeof(hdr)) {
			memcpy(&hdr, r->data + off, sizeof(hdr));
		} else {
			memcpy(&hdr, r->data + off, first);
			memcpy((char *)&hdr + first, r->data, sizeof(hdr) - first);
		}
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail) {
			/* Corrupt or torn: drop what we have rather than loop. */
			tail = head;
			ret = -EIO;
			break;
		}
		if (hdr.size <= first) {
			rec = (const void *)(r->data + off);
		} else {
			if (r->scratch_len < hdr.size) {
				unsigned char *s = realloc(r->scratch, hdr.size);

				if (!s) {
					ret = -ENOMEM;
					break;
				}
				r->scratch = s;
				r->scratch_len = hdr.size;
			}
			memcpy(r->scratch, r->data + off, first);
			memcpy(r->scratch + first, r->data, hdr.size - first);
			rec = (const void *)r->scratch;
		}
		tail += hdr.size;
		ret = cb(rec, ctx);
		if (ret)
			break;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}
