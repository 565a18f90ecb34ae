/*
 * drain: the thread that empties perf rings into spools (drain.h).
 *
 * A spool is a chain of chunks holding whole records back to back; the
 * drain thread appends at its tail, the reader hands chunks from its head
 * back once read past, for the drain to fill again: a steady stream
 * allocates nothing, and the spool's memory is the most it ever held.
 * What is shared, and how:
 *   - written: bytes spooled so far, stored with release after the records'
 *     bytes and their chunk's `used` (and the link to a new chunk);
 *     the reader's acquire of it makes all of that visible.
 *   - consumed: bytes the reader is done with, for the bound.
 *   - free: the chunks read, a stack (chunk_get()).
 * A record never spans two chunks: one that does not fit in the tail chunk
 * starts the next, so the reader meets the end of a chunk exactly where
 * its `used` says and follows `next`, which was linked before `written`
 * covered the record.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "trace/drain.h"

#define CHUNK ((1u << 20) - 64)	/* with its header, 1 MiB; a record is at most 64 KiB */
/* The drain hands ring space back to the kernel at least this often
 * within one pass over a full ring. */
#define PUBLISH_EVERY (1u << 20)

struct chunk {
	struct chunk *next;	/* atomic; set once this chunk is full */
	size_t used;		/* atomic; bytes of whole records in data */
	size_t cap;
	unsigned char data[];
};

struct spool {
	struct ring *ring;
	/* the drain thread's */
	struct chunk *w;
	uint64_t wpos;
	uint64_t peak, capped, torn, copied, ring_peak, passes, trimmed;
	/* shared */
	_Alignas(64) uint64_t written;
	_Alignas(64) uint64_t consumed;
	struct chunk *free;	/* chunks read and kept for the drain */
	/* the reader's */
	_Alignas(64) struct chunk *r;
	size_t rpos;
	uint64_t rlog, limit;
	uint16_t peeked;
};

/* A ring's watcher (drain__set_backpressure(), @watch). */
struct watch {
	struct drain *d;
	int i;
	pthread_t thread;
	bool started;
};

struct drain {
	struct spool *sp;
	int n;
	size_t cap;
	struct pollfd *pfd;	/* ctl_fd, then the rings' */
	int npfd;
	int ctl_fd;		/* wakes the thread to stop */
	int wait_fd;		/* wakes the reader */
	/* Catch-up requests while the thread runs (drain__catch_up()): the
	 * reader asks for pass number cu_req and waits on cu_fd until the
	 * thread has made a pass begun after it (cu_done).  The thread
	 * never waits for the reader: a reader descheduled, or held in a
	 * ptrace stop, in the middle of a pass of its own would keep the
	 * rings from being emptied while they fill. */
	uint64_t cu_req, cu_done;	/* atomic */
	int cu_fd;
	pthread_t thread;
	bool started;
	/* One pass at a time: the thread's, or the reader's while the
	 * thread is not running (drain__flush(), a catch-up then). */
	pthread_mutex_t lock;
	int quit;		/* atomic */
	int busy;		/* atomic: the thread is touching the rings */
	int busy_reader;	/* atomic: the reader is, in a pass of its own */
	long tid;		/* atomic: the thread's, for the signal path */
	bool full;		/* atomic: the last pass left a ring for lack of room */
	int rt_prio;		/* SCHED_FIFO priority asked for the thread; 0: none */
	int rt_got;		/* atomic: 1 once the thread has it, -1 refused */
	bool nomem;		/* the last pass could not get a chunk */
	/* back-pressure (drain__set_backpressure()), under plock: the
	 * drain's passes and the watchers both pause */
	struct drain_backpressure bp;
	pthread_mutex_t plock;
	bool paused;		/* atomic for the thread's timeout */
	bool refused;		/* the last pause stopped nothing */
	uint64_t paused_at, pauses, paused_ns;
	/* The rings' watchers, one per ring, pinned to its CPU (ring i is
	 * CPU i's): woken with the drain's wakeup, they pause the producer
	 * when the drain is not there to (see drain.h). */
	struct watch *watch;
	int watch_fd;		/* wakes the watchers to stop */
	int watching;		/* atomic: watchers looking at a ring */
	/* stack trimming (drain__set_trim()), sorted by id; read-only once started */
	struct drain_trim *trim;
	size_t ntrim;
	unsigned int id_word;	/* a sample's id: its u64 word after the header */
};

/* Mapped whole and populated: one system call for the chunk's 256 pages,
 * where first touches would take the drain thread 256 page faults. */
static struct chunk *chunk_new(size_t cap)
{
	struct chunk *c = mmap(NULL, sizeof(*c) + cap, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (c == MAP_FAILED)
		return NULL;
	c->next = NULL;
	c->used = 0;
	c->cap = cap;
	return c;
}

/* Unmap @c and every chunk linked after it. */
static void chain_free(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;

		munmap(c, sizeof(*c) + c->cap);
		c = next;
	}
}

/* A chunk for the drain: a free one when there is one.  Chunks are kept
 * (a stack the reader pushes on and a pass pops from; one pusher, and one
 * pass at a time under d->lock: no ABA) rather than freed: a fresh one would cost the drain
 * thread a page fault every 4 KiB, which is where it lost time. */
static struct chunk *chunk_get(struct spool *sp)
{
	struct chunk *c = __atomic_load_n(&sp->free, __ATOMIC_ACQUIRE);

	while (c && !__atomic_compare_exchange_n(&sp->free, &c, c->next, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
		;
	if (!c)
		return chunk_new(CHUNK);
	c->next = NULL;
	c->used = 0;
	return c;
}

/* A chunk the reader is done with, for the drain to fill again. */
static void chunk_put(struct spool *sp, struct chunk *c)
{
	struct chunk *top = __atomic_load_n(&sp->free, __ATOMIC_RELAXED);

	do
		c->next = top;
	while (!__atomic_compare_exchange_n(&sp->free, &top, c, false, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

static int trim_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct drain_trim *)a)->id, y = ((const struct drain_trim *)b)->id;

	return x < y ? -1 : x > y;
}

/*
 * The bytes of @h to spool, and in *@keep the stack bytes kept (the
 * record unchanged when the return is h->size).  Layout of a trimmed
 * sample: [header, id, ...][u64 size][data][u64 dyn_size], its size field
 * at h->size - 16 - stack_size.
 */
static size_t trim_size(const struct drain *d, const struct perf_event_header *h,
			size_t *off, uint64_t *keep)
{
	const unsigned char *b = (const void *)h;
	struct drain_trim key, *t;
	uint64_t size, dyn;

	if (!d->ntrim || h->type != PERF_RECORD_SAMPLE ||
	    h->size < sizeof(*h) + 8 * ((size_t)d->id_word + 1))
		return h->size;
	memcpy(&key.id, b + sizeof(*h) + 8 * (size_t)d->id_word, sizeof(key.id));
	t = bsearch(&key, d->trim, d->ntrim, sizeof(*d->trim), trim_cmp);
	if (!t || h->size < sizeof(*h) + 8 + 8 + (size_t)t->stack_size + 8)
		return h->size;
	*off = h->size - 16 - (size_t)t->stack_size;
	memcpy(&size, b + *off, sizeof(size));
	memcpy(&dyn, b + h->size - 8, sizeof(dyn));
	if (size != t->stack_size || dyn > size)
		return h->size;
	*keep = (dyn + 7) & ~(uint64_t)7;
	return *off + 8 + (size_t)*keep + 8;
}

/* Append one record to the spool's tail, its stack copy trimmed to what
 * the kernel filled; the reader sees it once `written` is stored.  The
 * bytes it takes in the spool; -ENOMEM. */
static long spool_append(const struct drain *d, struct spool *sp, const struct perf_event_header *h)
{
	struct chunk *c = sp->w;
	size_t off = 0, n;
	uint64_t keep = 0;

	n = trim_size(d, h, &off, &keep);
	if (c->cap - c->used < n) {
		struct chunk *nc = chunk_get(sp);

		if (!nc)
			return -ENOMEM;
		__atomic_store_n(&c->next, nc, __ATOMIC_RELEASE);
		sp->w = c = nc;
	}
	if (n == h->size) {
		memcpy(c->data + c->used, h, n);
	} else {
		unsigned char *o = c->data + c->used;
		struct perf_event_header nh = *h;

		nh.size = (uint16_t)n;
		memcpy(o, h, off);
		memcpy(o, &nh, sizeof(nh));
		memcpy(o + off, &keep, 8);
		memcpy(o + off + 8, (const unsigned char *)h + off + 8, (size_t)keep);
		memcpy(o + off + 8 + keep, (const unsigned char *)h + h->size - 8, 8);
		sp->trimmed += h->size - n;
	}
	__atomic_store_n(&c->used, c->used + n, __ATOMIC_RELAXED);
	sp->wpos += n;
	return (long)n;
}

void drain__set_id_word(struct drain *d, unsigned int word)
{
	d->id_word = word;
}

int drain__set_trim(struct drain *d, const struct drain_trim *t, size_t n)
{
	struct drain_trim *copy = NULL;

	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, t, n * sizeof(*copy));
		qsort(copy, n, sizeof(*copy), trim_cmp);
	}
	free(d->trim);
	d->trim = copy;
	d->ntrim = n;
	return 0;
}

/* Past a high-water mark: pause the producer, once. */
static void pressure(struct drain *d)
{
	if (!d->bp.pause)
		return;
	pthread_mutex_lock(&d->plock);
	if (!d->paused && !d->refused) {
		if (d->bp.pause(d->bp.ctx)) {
			d->paused_at = clock__ns(CLOCK_MONOTONIC);
			__atomic_store_n(&d->paused, true, __ATOMIC_RELAXED);
		} else {
			__atomic_store_n(&d->refused, true, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&d->plock);
}

/* Half the ring is the kernel's no more (what is unpublished, and what
 * it wrote since the pass began): pause the producer, whose stop takes
 * the time of a signal, while the other half takes its records. */
static void ring_pressure(struct drain *d, const struct spool *sp)
{
	if (d->bp.ring_bytes && ring__fill(sp->ring) >= d->bp.ring_bytes / 2)
		pressure(d);
}

/* Under plock. */
static void resume(struct drain *d)
{
	if (!d->paused)
		return;
	d->bp.resume(d->bp.ctx);
	/* Read by drain__stats() on the reader's thread as they go. */
	__atomic_store_n(&d->paused_ns, d->paused_ns + clock__ns(CLOCK_MONOTONIC) - d->paused_at,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&d->pauses, d->pauses + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&d->paused, false, __ATOMIC_RELAXED);
}

/* After a pass: every spool down to a quarter of its bound, the producer
 * may go on. */
static void relieve(struct drain *d)
{
	if (!__atomic_load_n(&d->paused, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&d->refused, __ATOMIC_RELAXED))
		return;
	for (int i = 0; i < d->n; i++) {
		struct spool *sp = &d->sp[i];

		if (sp->ring && d->cap &&
		    sp->wpos - __atomic_load_n(&sp->consumed, __ATOMIC_ACQUIRE) > d->cap / 4)
			return;
	}
	if (__atomic_load_n(&d->full, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&d->plock);
	__atomic_store_n(&d->refused, false, __ATOMIC_RELAXED);
	resume(d);
	pthread_mutex_unlock(&d->plock);
}

/* Move what ring @sp has now into the spool, up to the bound when
 * @bounded.  Returns the bytes moved; records it could not take for lack
 * of memory stay in the ring (d->nomem), for the kernel to count lost if
 * it must. */
static long spool_fill(struct drain *d, struct spool *sp, bool bounded)
{
	const struct perf_event_header *h;
	uint64_t unread, since = 0;
	long moved = 0, took;
	int err = 0;

	if (!ring__snapshot(sp->ring))
		return 0;
	unread = sp->wpos - __atomic_load_n(&sp->consumed, __ATOMIC_ACQUIRE);
	/* Late already (woken at a quarter, or kept from running): stop the
	 * producer before copying, not half a ring of copying later. */
	if (bounded)
		ring_pressure(d, sp);
	while ((err = ring__peek(sp->ring, &h)) == 0) {
		if (bounded && d->cap && unread + h->size > d->cap) {
			sp->capped++;
			__atomic_store_n(&d->full, true, __ATOMIC_RELAXED);
			break;
		}
		took = spool_append(d, sp, h);
		if (took < 0) {
			err = (int)took;
			__atomic_store_n(&d->full, true, __ATOMIC_RELAXED);
			d->nomem = true;
			break;
		}
		moved += h->size;
		ring__consume(sp->ring);
		unread += (uint64_t)took;
		since += (uint64_t)took;
		/* Not in the last, unbounded pass: the producer is done. */
		if (bounded && d->cap && unread >= d->cap / 2)
			pressure(d);
		if (since >= PUBLISH_EVERY) {
			__atomic_store_n(&sp->written, sp->wpos, __ATOMIC_RELEASE);
			ring__publish(sp->ring);
			since = 0;
			/* The producer outruns the copy. */
			if (bounded)
				ring_pressure(d, sp);
		}
	}
	sp->torn += err == -EIO;
	sp->passes++;
	if ((uint64_t)moved > sp->ring_peak)
		sp->ring_peak = (uint64_t)moved;
	if (unread > sp->peak)
		sp->peak = unread;
	sp->copied += (uint64_t)moved;
	__atomic_store_n(&sp->written, sp->wpos, __ATOMIC_RELEASE);
	ring__publish(sp->ring);
	return moved;
}

/* One pass over every ring, under d->lock: the bytes moved. */
static long pass(struct drain *d, bool bounded)
{
	long total = 0;

	__atomic_store_n(&d->full, false, __ATOMIC_RELAXED);
	d->nomem = false;
	for (int i = 0; i < d->n; i++)
		if (d->sp[i].ring)
			total += spool_fill(d, &d->sp[i], bounded);
	relieve(d);
	return total;
}

static void *drain_main(void *arg)
{
	struct drain *d = arg;
	uint64_t v, want;

	pthread_setname_np(pthread_self(), "fl-drain");
	if (d->rt_prio > 0) {
		struct sched_param sp = { .sched_priority = d->rt_prio };

		/* Refused (no CAP_SYS_NICE, an RLIMIT_RTPRIO of 0, a cgroup
		 * without RT runtime): the thread runs as before. */
		__atomic_store_n(&d->rt_got, pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) ? -1 : 1,
				 __ATOMIC_SEQ_CST);
	}
	__atomic_store_n(&d->tid, (long)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	for (;;) {
		/* A ring left full for lack of room is looked at again soon;
		 * a paused producer waits for the reader, who does not wake
		 * this thread. */
		int timeout = __atomic_load_n(&d->paused, __ATOMIC_RELAXED) ? 1 :
			      __atomic_load_n(&d->full, __ATOMIC_RELAXED) ? 5 : 100;

		if (poll(d->pfd, (nfds_t)d->npfd, timeout) > 0) {
			for (int i = 1; i < d->npfd; i++)
				/* A hung-up event stays readable: passes still
				 * read its ring, poll no longer waits on it. */
				if (d->pfd[i].revents & (POLLHUP | POLLERR))
					d->pfd[i].fd = -1;
			if ((d->pfd[0].revents & POLLIN) && read(d->ctl_fd, &v, sizeof(v)) < 0) {
				/* EAGAIN: drained already */
			}
		}
		__atomic_store_n(&d->busy, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&d->quit, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&d->busy, 0, __ATOMIC_SEQ_CST);
			break;
		}
		/* The requests made before this pass begins are served by it. */
		want = __atomic_load_n(&d->cu_req, __ATOMIC_ACQUIRE);
		pthread_mutex_lock(&d->lock);
		v = pass(d, true) > 0;
		pthread_mutex_unlock(&d->lock);
		__atomic_store_n(&d->busy, 0, __ATOMIC_SEQ_CST);
		if (v && write(d->wait_fd, &v, sizeof(v)) < 0) {
			/* the counter is full: the reader is woken anyway */
		}
		if (want != __atomic_load_n(&d->cu_done, __ATOMIC_RELAXED)) {
			uint64_t one = 1;

			__atomic_store_n(&d->cu_done, want, __ATOMIC_RELEASE);
			if (write(d->cu_fd, &one, sizeof(one)) < 0) {
				/* full counter: the reader is woken anyway */
			}
		}
	}
	return NULL;
}

/*
 * A ring's watcher: woken by the kernel with the drain's own wakeup (a
 * quarter of the ring written), on the CPU that wrote it, where its
 * real-time class runs it before the producer's next instruction.  A
 * ring half full then means the drain is not keeping up, whatever kept
 * it (another CPU busy, a virtual CPU the host did not run): the
 * producer is paused from here.  Then the drain is woken for its pass,
 * the wakeup being the watcher's now (a perf ring's poll state goes to
 * the first to look).
 */
static void *watch_main(void *arg)
{
	struct watch *w = arg;
	struct drain *d = w->d;
	struct spool *sp = &d->sp[w->i];
	struct pollfd pfd[2] = {
		{ .fd = d->watch_fd, .events = POLLIN },
		{ .fd = ring__fd(sp->ring), .events = POLLIN },
	};
	uint64_t one = 1;
	char name[16];

	snprintf(name, sizeof(name), "fl-watch/%d", w->i);
	pthread_setname_np(pthread_self(), name);
	if (d->rt_prio > 0) {
		struct sched_param prm = { .sched_priority = d->rt_prio < 99 ? d->rt_prio + 1 : 99 };

		/* Refused: the watcher still wakes, as the drain does. */
		pthread_setschedparam(pthread_self(), SCHED_FIFO, &prm);
	}
	for (;;) {
		if (poll(pfd, 2, -1) <= 0)
			continue;
		if (pfd[0].revents)
			break;
		/* Hung up: the drain's passes still read the ring. */
		if (pfd[1].revents & (POLLHUP | POLLERR))
			pfd[1].fd = -1;
		if (!(pfd[1].revents & POLLIN))
			continue;
		/* Counted before quit is looked at: the signal path sets
		 * quit, then waits for none to be watching. */
		__atomic_add_fetch(&d->watching, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&d->quit, __ATOMIC_SEQ_CST))
			ring_pressure(d, sp);
		__atomic_sub_fetch(&d->watching, 1, __ATOMIC_SEQ_CST);
		if (write(d->ctl_fd, &one, sizeof(one)) < 0) {
			/* full counter: the drain is awake already */
		}
	}
	return NULL;
}

/* Stop and join the watchers; once. */
static void watch_stop(struct drain *d)
{
	uint64_t one = 1;

	if (!d->watch)
		return;
	if (write(d->watch_fd, &one, sizeof(one)) < 0) {
		/* full counter: they are woken anyway */
	}
	for (int i = 0; i < d->n; i++)
		if (d->watch[i].started)
			pthread_join(d->watch[i].thread, NULL);
	free(d->watch);
	d->watch = NULL;
}

/* A watcher for each ring on its CPU, when back-pressure asks for them;
 * a ring whose CPU this process may not run on is the drain's to poll. */
static void watch_start(struct drain *d)
{
	if (!d->bp.watch || !d->bp.pause || !d->bp.ring_bytes || d->watch_fd < 0)
		return;
	d->watch = calloc((size_t)d->n, sizeof(*d->watch));
	if (!d->watch)
		return;
	for (int i = 0, p = 1; i < d->n; i++) {
		struct watch *w = &d->watch[i];
		pthread_attr_t attr;
		cpu_set_t set;

		if (!d->sp[i].ring)
			continue;
		w->d = d;
		w->i = i;
		CPU_ZERO(&set);
		CPU_SET(i, &set);
		if (pthread_attr_init(&attr))
			continue;
		w->started = !pthread_attr_setaffinity_np(&attr, sizeof(set), &set) &&
			     !pthread_create(&w->thread, &attr, watch_main, w);
		pthread_attr_destroy(&attr);
		/* The drain's poll array: ctl_fd, then the rings in order. */
		while (p < d->npfd && d->pfd[p].fd != ring__fd(d->sp[i].ring))
			p++;
		if (w->started && p < d->npfd)
			d->pfd[p].fd = -1;
	}
}

int drain__new(struct ring *const *rings, int n, size_t cap, size_t reserve, struct drain **out)
{
	struct drain *d = calloc(1, sizeof(*d));
	int err = -ENOMEM;

	if (!d)
		return -ENOMEM;
	d->ctl_fd = d->wait_fd = d->cu_fd = d->watch_fd = -1;
	/* No priority inheritance needed: the reader takes the lock only
	 * while the thread is not running (drain__catch_up() asks it). */
	pthread_mutex_init(&d->lock, NULL);
	pthread_mutex_init(&d->plock, NULL);
	d->n = n;
	d->cap = cap;
	d->sp = calloc((size_t)(n > 0 ? n : 1), sizeof(*d->sp));
	if (!d->sp)
		goto fail;
	for (int i = 0; i < n; i++) {
		struct spool *sp = &d->sp[i];

		if (!rings[i])
			continue;
		sp->ring = rings[i];
		sp->w = sp->r = chunk_new(CHUNK);
		if (!sp->w)
			goto fail;
		for (size_t have = CHUNK; have < reserve; have += CHUNK) {
			struct chunk *c = chunk_new(CHUNK);

			if (!c)
				goto fail;
			chunk_put(sp, c);
		}
	}
	d->ctl_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	d->wait_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	d->cu_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	d->watch_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->ctl_fd < 0 || d->wait_fd < 0 || d->cu_fd < 0 || d->watch_fd < 0) {
		err = -errno;
		goto fail;
	}
	d->pfd = calloc((size_t)n + 1, sizeof(*d->pfd));
	if (!d->pfd)
		goto fail;
	d->pfd[d->npfd].fd = d->ctl_fd;
	d->pfd[d->npfd++].events = POLLIN;
	for (int i = 0; i < n; i++)
		if (rings[i]) {
			d->pfd[d->npfd].fd = ring__fd(rings[i]);
			d->pfd[d->npfd++].events = POLLIN;
		}
	*out = d;
	return 0;
fail:
	drain__free(d);
	return err;
}

void drain__set_backpressure(struct drain *d, const struct drain_backpressure *bp)
{
	d->bp = *bp;
}

void drain__set_realtime(struct drain *d, int prio)
{
	d->rt_prio = prio;
}

int drain__realtime(const struct drain *d)
{
	return __atomic_load_n(&d->rt_got, __ATOMIC_SEQ_CST);
}

int drain__start(struct drain *d)
{
	sigset_t all, old;
	int err;

	if (d->started)
		return 0;
	__atomic_store_n(&d->quit, 0, __ATOMIC_SEQ_CST);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	watch_start(d);
	err = pthread_create(&d->thread, NULL, drain_main, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		watch_stop(d);
		return -err;
	}
	d->started = true;
	return 0;
}

void drain__stop(struct drain *d)
{
	uint64_t one = 1;

	if (!d)
		return;
	if (!d->started)
		goto out;
	__atomic_store_n(&d->quit, 1, __ATOMIC_SEQ_CST);
	/* The watchers first: none pauses after the last resume. */
	watch_stop(d);
	if (write(d->ctl_fd, &one, sizeof(one)) < 0) {
		/* full counter: the thread is awake already */
	}
	pthread_join(d->thread, NULL);
	d->started = false;
	__atomic_store_n(&d->tid, 0, __ATOMIC_SEQ_CST);
out:
	pthread_mutex_lock(&d->lock);
	pthread_mutex_lock(&d->plock);
	resume(d);
	pthread_mutex_unlock(&d->plock);
	pthread_mutex_unlock(&d->lock);
}

/* A pass from the reader's thread; false when the signal path has the
 * rings. */
static bool reader_pass(struct drain *d, bool bounded)
{
	bool ok = true;

	__atomic_store_n(&d->busy_reader, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&d->quit, __ATOMIC_SEQ_CST) && d->started) {
		ok = false;
	} else {
		pthread_mutex_lock(&d->lock);
		pass(d, bounded);
		ok = !d->nomem;
		pthread_mutex_unlock(&d->lock);
	}
	__atomic_store_n(&d->busy_reader, 0, __ATOMIC_SEQ_CST);
	return ok;
}

int drain__flush(struct drain *d)
{
	if (d->started)
		return -EBUSY;
	return reader_pass(d, false) ? 0 : -ENOMEM;
}

void drain__catch_up(struct drain *d)
{
	struct pollfd pfd;
	uint64_t r, one = 1;

	if (!d->started) {
		reader_pass(d, true);
		return;
	}
	r = __atomic_add_fetch(&d->cu_req, 1, __ATOMIC_ACQ_REL);
	if (write(d->ctl_fd, &one, sizeof(one)) < 0) {
		/* full counter: the thread is awake already */
	}
	pfd.fd = d->cu_fd;
	pfd.events = POLLIN;
	/* The thread answers every wakeup with a pass; the timeout only
	 * bounds a missed one, and a thread told to quit serves no more. */
	while (__atomic_load_n(&d->cu_done, __ATOMIC_ACQUIRE) < r &&
	       !__atomic_load_n(&d->quit, __ATOMIC_SEQ_CST)) {
		if (poll(&pfd, 1, 100) > 0 && read(d->cu_fd, &one, sizeof(one)) < 0) {
			/* EAGAIN: another wait took it */
		}
	}
}

int drain__wait_fd(const struct drain *d)
{
	return d->wait_fd;
}

void drain__ack(struct drain *d)
{
	uint64_t v;

	if (read(d->wait_fd, &v, sizeof(v)) < 0) {
		/* nothing new: EAGAIN */
	}
}

bool drain__snapshot(struct drain *d, int i)
{
	struct spool *sp = &d->sp[i];

	if (!sp->ring)
		return false;
	sp->limit = __atomic_load_n(&sp->written, __ATOMIC_ACQUIRE);
	sp->peeked = 0;
	return sp->rlog < sp->limit;
}

int drain__peek(struct drain *d, int i, const struct perf_event_header **out)
{
	struct spool *sp = &d->sp[i];
	const struct perf_event_header *h;

	if (!sp->ring || sp->rlog >= sp->limit)
		return -ENOENT;
	if (sp->rpos == __atomic_load_n(&sp->r->used, __ATOMIC_RELAXED)) {
		struct chunk *next = __atomic_load_n(&sp->r->next, __ATOMIC_ACQUIRE);

		if (!next)
			return -ENOENT;	/* cannot be: `written` covers a record */
		chunk_put(sp, sp->r);
		sp->r = next;
		sp->rpos = 0;
	}
	h = (const void *)(sp->r->data + sp->rpos);
	sp->peeked = h->size;
	*out = h;
	return 0;
}

void drain__consume(struct drain *d, int i)
{
	struct spool *sp = &d->sp[i];

	sp->rpos += sp->peeked;
	sp->rlog += sp->peeked;
	sp->peeked = 0;
}

void drain__publish(struct drain *d, int i)
{
	struct spool *sp = &d->sp[i];

	__atomic_store_n(&sp->consumed, sp->rlog, __ATOMIC_RELEASE);
}

uint64_t drain__pauses(const struct drain *d, uint64_t *ns)
{
	uint64_t n = __atomic_load_n(&d->pauses, __ATOMIC_ACQUIRE);

	if (ns)
		*ns = __atomic_load_n(&d->paused_ns, __ATOMIC_RELAXED);
	return n;
}

void drain__stats(const struct drain *d, struct drain_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->pauses = drain__pauses(d, &out->paused_ns);
	for (int i = 0; i < d->n; i++) {
		const struct spool *sp = &d->sp[i];

		out->copied += sp->copied;
		out->capped += sp->capped;
		out->torn += sp->torn;
		out->trimmed += sp->trimmed;
		out->passes += sp->passes;
		if (sp->ring_peak > out->ring_peak)
			out->ring_peak = sp->ring_peak;
		if (sp->peak > out->peak)
			out->peak = sp->peak;
	}
}

void drain__quiesce_in_signal(struct drain *d)
{
	const int *other;
	long tid;

	if (!d)
		return;
	__atomic_store_n(&d->quit, 1, __ATOMIC_SEQ_CST);
	tid = __atomic_load_n(&d->tid, __ATOMIC_SEQ_CST);
	/* On the drain thread, the reader may be in a pass of its own;
	 * elsewhere, the drain thread in its pass.  The handler's own
	 * thread does not go back to the pass it interrupted. */
	other = tid && tid == (long)syscall(SYS_gettid) ? &d->busy_reader : &d->busy;
	/* A pass over full rings takes milliseconds, a watcher's pause
	 * as long; give them two seconds. */
	for (int i = 0; i < 2000 && (__atomic_load_n(other, __ATOMIC_SEQ_CST) ||
				     __atomic_load_n(&d->watching, __ATOMIC_SEQ_CST)); i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
}

void drain__free(struct drain *d)
{
	if (!d)
		return;
	drain__stop(d);
	for (int i = 0; d->sp && i < d->n; i++) {
		chain_free(d->sp[i].r);
		chain_free(d->sp[i].free);
	}
	free(d->sp);
	free(d->pfd);
	free(d->trim);
	pthread_mutex_destroy(&d->lock);
	pthread_mutex_destroy(&d->plock);
	if (d->ctl_fd >= 0)
		close(d->ctl_fd);
	if (d->wait_fd >= 0)
		close(d->wait_fd);
	if (d->cu_fd >= 0)
		close(d->cu_fd);
	if (d->watch_fd >= 0)
		close(d->watch_fd);
	free(d);
}
