/*
 * ring: reader of one perf mmap ring buffer.
 *
 * The kernel writes records at data_head; we read from data_tail and
 * publish how far we got by storing data_tail.  A record that wraps the end
 * of the data area is copied into a scratch buffer so callers always see it
 * contiguous.  Callers must not keep the record pointer beyond the callback.
 *
 * Records can also be read in place, which is how the session merges the
 * rings into one timeline without copying 8 KiB stack samples out of them:
 * ring__snapshot() takes the kernel's head, ring__peek() gives the record at
 * the reader's position (valid until the next peek or consume),
 * ring__consume() steps past it, ring__publish() hands the space consumed
 * back to the kernel.  Records not consumed stay for the next snapshot.
 */
#ifndef FAULTLINE_RING_H
#define FAULTLINE_RING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring;

/*
 * Map the ring of perf event fd with 2^k data pages (pages must be a power of
 * two).  The ring does not own fd.  0 / -errno (-EPERM with a hint when the
 * mlock limit perf_event_mlock_kb is hit).
 */
int ring__new(int fd, unsigned int pages, struct ring **out);
/* Unmap now, from a fatal-signal handler: async-signal-safe (munmap only);
 * the struct itself is left to leak with the dying process. */
void ring__unmap_in_signal(struct ring *r);
/* Unmap.  NULL is fine. */
void ring__free(struct ring *r);
int ring__fd(const struct ring *r);

/*
 * Consume every record available now, calling cb for each.  A non-zero
 * return from cb stops the read (the record is consumed) and is returned.
 */
typedef int (*ring_cb)(const struct perf_event_header *hdr, void *ctx);
int ring__read(struct ring *r, ring_cb cb, void *ctx);

/* Take the kernel's write position: true when records are there to read. */
bool ring__snapshot(struct ring *r);
/*
 * The next record of the snapshot into *@out, contiguous (one that wraps
 * the end of the ring is copied into the ring's scratch buffer).  0;
 * -ENOENT when the snapshot is read; -EIO for a corrupt or torn header,
 * after which the rest of the snapshot is dropped; -ENOMEM.
 */
int ring__peek(struct ring *r, const struct perf_event_header **out);
/* Bytes of the ring the kernel cannot write now: from the tail last
 * published to its head, as of this call. */
uint64_t ring__fill(const struct ring *r);
/* Step past the record ring__peek() gave. */
void ring__consume(struct ring *r);
/* Release what was consumed to the kernel. */
void ring__publish(struct ring *r);

#endif
