/*
 * recorder: the observer of a live session that writes what it delivers to
 * a recording (faultline record; session-int.h: struct session_observer).
 *
 * The events first (each unique name once, with the tracefs format text
 * so the payloads decode anywhere), then, in delivery order, the processes
 * as they become known (comm and every mapping: what the live session
 * learnt from /proc), the side-band records, the stacks (each once, when
 * first interned, numbered as the session's stackdb numbers them) and
 * the samples; the totals last.  A replay that applies the same
 * records in the same order rebuilds the same address spaces and stack
 * ids (replay.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "stack/addrspace.h"
#include "stack/binary.h"
#include "trace/tp-catalog.h"
#include "lib/hashmap.h"
#include "trace/memstat.h"
#include "lib/clock.h"
#include "lib/safeout.h"
#include "trace/recfile.h"
#include "trace/session-int.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "?"
#endif

struct build_id {
	uint8_t size;
	uint8_t id[REC_BUILD_ID_MAX];
};

struct recorder {
	struct safe_out *out;		/* the file: a temporary until tracing starts */
	struct recwriter *w;
	char path[4096];
	uint32_t *ev_of;		/* evsel index -> recorded event id, or NO_EVENT */
	size_t nev;			/* evsels known: those of the start, then grown */
	uint32_t next_id;		/* the id the next EVENT written gets */
	struct tp_field *call_site;	/* evsel index -> its 'call_site' field (.present) */
	uint32_t memstat_id;		/* faultline:memstat's recorded id, or NO_EVENT */
	uint32_t stacks_written;	/* stackdb ids 1 .. stacks_written are in the file */
	struct hashmap *bid_idx;	/* hash of (maj, min, ino) -> index + 1 in bids */
	struct build_id *bids;
	size_t nbids;
	struct hashmap *ksyms;		/* start of each KSYM written -> 1 */
	bool started;
	uint64_t flush_ns;		/* the longest a record waits in memory */
	uint64_t flushed_ns;		/* when the file was last written */
	int err;			/* the first write error */
	uint64_t bytes;			/* the file's size once closed */
};

#define NO_EVENT UINT32_MAX

static void recorder_free(struct recorder *r);
static void rec_proc(struct session *s, pid_t pid);
static const struct session_observer recorder_observer;

static void latch(struct recorder *r, int err)
{
	if (err && !r->err)
		r->err = err;
}

/* Record to @path, or to a duplicate of @src_fd when it is >= 0 (@path
 * then only names it). */
static int record_to(struct session *s, const char *path, int src_fd, struct errbuf *eb)
{
	struct recorder *r = calloc(1, sizeof(*r));
	int err, fd = -1;

	if (!r)
		return -ENOMEM;
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->flush_ns = RECORD_FLUSH_NS;
	r->bid_idx = hashmap__new();
	r->ksyms = hashmap__new();
	if (!r->bid_idx || !r->ksyms) {
		hashmap__free(r->bid_idx);
		hashmap__free(r->ksyms);
		free(r);
		return -ENOMEM;
	}
	if (src_fd >= 0) {
		err = safe_out__adopt(src_fd, &r->out, &fd);
		if (err)
			errbuf__set(eb, err, "cannot write to %s: %s", path, strerror(-err));
	} else {
		err = safe_out__open(path, 0600, SAFE_OUT_EXACT_MODE, &r->out, &fd, eb);
	}
	if (!err)
		err = recwriter__open_fd(fd, path, &r->w, eb);
	if (err) {
		recorder_free(r);
		return err;
	}
	s->rec = r;
	s->obs = &recorder_observer;
	return 0;
}

int session__record(struct session *s, const char *path, struct errbuf *eb)
{
	return record_to(s, path, -1, eb);
}

int session__record_fd(struct session *s, int fd, const char *name, struct errbuf *eb)
{
	return record_to(s, name, fd, eb);
}

void session__record_flush_every(struct session *s, uint64_t ns)
{
	if (s->rec)
		s->rec->flush_ns = ns;
}

int session__record_meta(struct session *s, const char *key, const char *value)
{
	if (!s->rec)
		return 0;
	return recwriter__meta(s->rec->w, key, value);
}

uint64_t session__recorded_bytes(const struct session *s)
{
	if (!s->rec)
		return 0;
	return s->rec->w ? recwriter__bytes(s->rec->w) : s->rec->bytes;
}

void session__record_flush_in_signal(struct session *s)
{
	if (s->rec && s->rec->w)
		recwriter__flush_in_signal(s->rec->w);
}

bool session__recording(const struct session *s)
{
	return s->rec != NULL;
}

static void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	recwriter__close(r->w, NULL);
	safe_out__free(r->out);
	hashmap__free(r->bid_idx);
	hashmap__free(r->ksyms);
	free(r->bids);
	free(r->ev_of);
	free(r->call_site);
	free(r);
}

/* ---- start: what the run is, its events and what is known already ---- */

static void meta_u64(struct recorder *r, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	latch(r, recwriter__meta(r->w, key, buf));
}

static int write_meta(struct session *s)
{
	struct recorder *r = s->rec;
	struct utsname u;
	char host[256] = "";

	if (!uname(&u)) {
		latch(r, recwriter__meta(r->w, "kernel", u.release));
		latch(r, recwriter__meta(r->w, "machine", u.machine));
	}
	gethostname(host, sizeof(host) - 1);
	latch(r, recwriter__meta(r->w, "hostname", host));
	latch(r, recwriter__meta(r->w, "faultline", PACKAGE_VERSION));
	meta_u64(r, "start_mono_ns", s->start_mono_ns);
	meta_u64(r, "start_real_ns", s->start_real_ns);
	meta_u64(r, "target_pid", (uint64_t)(session__target_pid(s) > 0 ? session__target_pid(s) : 0));
	latch(r, recwriter__meta(r->w, "target", session__is_cmd(s) ? "cmd" :
				 session__target_pid(s) > 0 ? "pid" : "all"));
	if (s->opts.cmd)
		latch(r, recwriter__meta(r->w, "command", s->opts.cmd));
	latch(r, recwriter__meta(r->w, "call_graph",
				 s->opts.callgraph == CALLGRAPH_DWARF ? "dwarf" : "fp"));
	if (s->opts.callgraph == CALLGRAPH_DWARF)
		meta_u64(r, "stack_size", s->opts.stack_size);
	return r->err;
}

static enum rec_event_kind kind_of(enum evsel_kind k)
{
	switch (k) {
	case EVSEL_UPROBE:
		return REC_EVENT_UPROBE;
	case EVSEL_KPROBE:
		return REC_EVENT_KPROBE;
	case EVSEL_SOFTWARE:
		return REC_EVENT_SOFTWARE;
	default:
		return REC_EVENT_TRACEPOINT;
	}
}

static int write_event(struct session *s, const struct evsel *e, uint32_t id, struct errbuf *eb)
{
	struct rec_event re = { .id = id, .kind = kind_of(e->kind), .flags = e->flags,
				.config = e->kind == EVSEL_UPROBE ? e->probe_off : e->config,
				.name = e->name, .path = e->probe_path, .format = "" };
	char sys[128], *text = NULL;
	const char *colon = strchr(e->name, ':');
	size_t len = 0;
	int err;

	if (e->pmu_format) {
		re.format = e->pmu_format;	/* a PMU uprobe's: ours, not tracefs' */
	} else if (e->kind != EVSEL_SOFTWARE && colon && (size_t)(colon - e->name) < sizeof(sys)) {
		memcpy(sys, e->name, (size_t)(colon - e->name));
		sys[colon - e->name] = '\0';
		err = tp_catalog__read_format(s->catalog, sys, colon + 1, &text, &len);
		if (err)
			return errbuf__set(eb, err, "cannot read the format of '%s' to record it: %s",
					   e->name, strerror(-err));
		re.format = text;
	}
	err = recwriter__event(s->rec->w, &re);
	free(text);
	if (err)
		return errbuf__set(eb, err, "%s: %s", s->rec->path, recwriter__errmsg(s->rec->w, err));
	return 0;
}

/*
 * The EVENTs of the evsels added since the last call (all of them at the
 * start; then those a tool added while the run went on, session__grow_end):
 * one recorded event per name, the one evsel of that name with a perf
 * event of its own (add_evsel() made the others aliases).  The kernel
 * addresses a report names, kernel stacks' frames and the kmem events'
 * call sites (slab's caller rows, where the event has no cache name), are
 * read from kallsyms now, not at the first one inside the run (KSYM
 * records, write_ksym()).
 */
static int write_events(struct session *s, struct errbuf *eb)
{
	struct recorder *r = s->rec;
	size_t n = s->nevsels ? s->nevsels : 1, from = r->nev;
	uint32_t *ev_of = realloc(r->ev_of, n * sizeof(*ev_of));
	struct tp_field *call_site;
	int err;

	if (ev_of)
		r->ev_of = ev_of;
	call_site = ev_of ? realloc(r->call_site, n * sizeof(*call_site)) : NULL;
	if (!call_site)
		return errbuf__set(eb, -ENOMEM, "out of memory");
	r->call_site = call_site;
	for (size_t i = from; i < s->nevsels; i++) {
		r->ev_of[i] = NO_EVENT;
		memset(&r->call_site[i], 0, sizeof(r->call_site[i]));
	}
	r->nev = s->nevsels;
	for (size_t i = from; i < s->nevsels; i++) {
		const struct evsel *e = &s->evsels[i];
		struct sym_ksym k;
		struct tp_field f;

		if (e->alias)
			continue;
		err = write_event(s, e, r->next_id, eb);
		if (err)
			return err;
		r->ev_of[i] = r->next_id++;
		if (e->kind == EVSEL_TRACEPOINT && e->tev &&
		    !tp_event__field(e->tev, "call_site", &f)) {
			r->call_site[i] = f;
			r->call_site[i].present = true;
		}
		if ((e->flags & SESSION_KERNEL_STACK) || r->call_site[i].present)
			symbolizer__kernel_sym(s->sym, 0, &k);
	}
	return 0;
}

static int rec_start(struct session *s, struct errbuf *eb)
{
	struct recorder *r = s->rec;
	uint64_t key, val;
	size_t pos = 0;
	int err;

	err = write_meta(s);
	if (err)
		return errbuf__set(eb, err, "%s: %s", r->path, recwriter__errmsg(r->w, err));
	err = write_events(s, eb);
	if (err)
		return err;
	/* The memory-indicator samples a tool asked for, as one more event. */
	r->memstat_id = NO_EVENT;
	if (s->memstat_on) {
		struct rec_event re = { .id = r->next_id, .kind = REC_EVENT_TRACEPOINT,
					.name = MEMSTAT_SYSTEM ":" MEMSTAT_EVENT, .path = "",
					.format = memstat__format() };

		err = recwriter__event(r->w, &re);
		if (err)
			return errbuf__set(eb, err, "%s: %s", r->path, recwriter__errmsg(r->w, err));
		r->memstat_id = r->next_id++;
	}
	/* The head ends here: a file cut right after it (a fatal signal
	 * before any other record was written) is a run cut short, which a
	 * report reads, not a head cut short (replay.c: read_head()). */
	meta_u64(r, "head_events", r->next_id);
	r->started = true;
	/* What the session knew before the run (the -p target). */
	while (hashmap__next(s->comms, &pos, &key, &val))
		rec_proc(s, (pid_t)key);
	return r->err ? errbuf__set(eb, r->err, "%s: %s", r->path, recwriter__errmsg(r->w, r->err))
		      : 0;
}

/* ---- processes and side-band ---- */

/* The build-id of a mapped file, from the session's cache of open
 * binaries (binary.h): the file as its process sees it (in a container,
 * the path its maps give may name another file here, the host's library
 * of that name, or none), opened once for the recorder, the unwinder and
 * the symbolizer, whichever asks first.  Remembered per (device, inode)
 * once read; a file not opened yet (its process is gone) is asked for
 * again with the next process that maps it, as the cache retries it. */
static struct build_id build_id_of(struct session *s, pid_t pid, const struct map *m)
{
	struct recorder *r = s->rec;
	uint64_t k[3] = { m->maj, m->min, m->ino }, idx;
	struct build_id b = { 0 };
	uint64_t h = hash_bytes(k, sizeof(k));
	const unsigned char *id;
	struct binary *bin = NULL;
	struct build_id *nv;
	size_t len;

	if (!m->path || m->path[0] != '/' || !m->ino)
		return b;
	if (hashmap__get(r->bid_idx, h, &idx))
		return r->bids[idx - 1];
	if (binary__get(symbolizer__bincache(s->sym), s->as, pid, m, &bin))
		return b;
	len = binary__build_id(bin, &id);
	if (len > REC_BUILD_ID_MAX)
		len = REC_BUILD_ID_MAX;
	b.size = (uint8_t)len;
	if (len)
		memcpy(b.id, id, len);
	/* Opened: its answer is final, with or without a build-id. */
	if (binary__image(bin) && (nv = realloc(r->bids, (r->nbids + 1) * sizeof(*nv)))) {
		r->bids = nv;
		nv[r->nbids] = b;
		if (!hashmap__set(r->bid_idx, h, r->nbids + 1))
			r->nbids++;
	}
	binary__put(bin);
	return b;
}

static void rec_mmap(struct session *s, pid_t pid, const struct map *m, uint64_t time)
{
	struct recorder *r = s->rec;
	struct build_id b;
	struct rec_mmap rm = { .pid = (uint32_t)pid, .time = time, .start = m->start,
			       .len = m->end - m->start, .pgoff = m->pgoff, .prot = m->prot,
			       .flags = m->flags, .maj = m->maj, .min = m->min, .ino = m->ino,
			       .path = m->path ? m->path : "" };

	if (!r->started || m->end <= m->start)
		return;
	b = build_id_of(s, pid, m);
	rm.build_id_size = b.size;
	memcpy(rm.build_id, b.id, b.size);
	latch(r, recwriter__mmap(r->w, &rm));
}

static void rec_proc(struct session *s, pid_t pid)
{
	struct recorder *r = s->rec;
	uint64_t now = session__now(s);
	const struct map *maps;
	size_t n = 0;

	if (!r->started)
		return;	/* rec_start() writes what is known then */
	latch(r, recwriter__proc(r->w, &(struct rec_proc){ (uint32_t)pid, now,
							   session__comm(s, pid) }));
	maps = addrspaces__maps(s->as, pid, &n);
	for (size_t i = 0; i < n; i++)
		rec_mmap(s, pid, &maps[i], now);
}

static void rec_comm(struct session *s, pid_t pid, pid_t tid, const char *comm, bool exec,
		    uint64_t time)
{
	if (s->rec->started)
		latch(s->rec, recwriter__comm(s->rec->w, &(struct rec_comm){
			(uint32_t)pid, (uint32_t)tid, time, exec, comm }));
}

static void rec_task(struct session *s, const struct sb_task *tk, bool fork)
{
	struct rec_task t = { tk->pid, tk->ppid, tk->tid, tk->ptid, tk->time };

	if (!s->rec->started)
		return;
	latch(s->rec, fork ? recwriter__fork(s->rec->w, &t) : recwriter__exit(s->rec->w, &t));
}

static void rec_lost(struct session *s, uint64_t time, uint64_t count)
{
	if (s->rec->started)
		latch(s->rec, recwriter__lost(s->rec->w, &(struct rec_lost){ time, count }));
}

/* ---- samples ---- */

/*
 * The KSYM of the kernel symbol holding addr, unless written already: the
 * recording names its kernel frames itself (docs/record-format.md), from
 * this machine's kallsyms now, not the report's later.  Kallsyms shows no
 * addresses (unprivileged) or none holds addr: no KSYM, the frame stays
 * unknown in the report, as it would live.
 */
static void write_ksym(struct session *s, uint64_t addr)
{
	struct recorder *r = s->rec;
	struct sym_ksym k;
	uint64_t one;

	if (symbolizer__kernel_sym(s->sym, addr, &k) || hashmap__get(r->ksyms, k.start, &one))
		return;
	latch(r, recwriter__ksym(r->w, &(struct rec_ksym){ k.start, k.end, k.name,
							   k.module ? k.module : "" }));
	/* Out of memory, the same KSYM comes again later: harmless. */
	hashmap__set(r->ksyms, k.start, 1);
}

/* Writes the stacks interned since the last call; a kernel one after the
 * KSYMs of its frames.  Both ip and ip - 1: a report names a return
 * address after ip - 1 (a call that ends its function returns into the
 * next one), the innermost frame after ip. */
static void write_stacks(struct session *s, enum rec_stack_kind kind)
{
	struct recorder *r = s->rec;
	uint32_t count = stackdb__count(s->stacks);

	while (r->stacks_written < count) {
		uint32_t nr = 0, id = r->stacks_written + 1;
		const uint64_t *ips = stackdb__get(s->stacks, id, &nr);

		if (nr > REC_MAX_FRAMES)
			nr = REC_MAX_FRAMES;
		for (uint32_t i = 0; kind == REC_STACK_KERNEL && i < nr; i++) {
			write_ksym(s, ips[i]);
			if (ips[i])
				write_ksym(s, ips[i] - 1);
		}
		latch(r, recwriter__stack(r->w, &(struct rec_stack){ id, kind, nr, ips }));
		r->stacks_written = id;
	}
}

static void rec_sample(struct session *s, const struct evsel *e, size_t idx,
		      const struct sample *smp)
{
	struct recorder *r = s->rec;
	struct rec_sample rs = { .pid = smp->pid, .tid = smp->tid, .cpu = smp->cpu,
				 .time = smp->time, .addr = smp->addr, .raw_size = smp->raw_size,
				 .raw = smp->raw };
	uint64_t site = 0;
	uint32_t id;

	if (idx >= r->nev || r->ev_of[idx] == NO_EVENT)
		return;
	rs.event = r->ev_of[idx];
	if ((e->flags & SESSION_USER_STACK) && !session__user_stack(s, smp, &id)) {
		write_stacks(s, REC_STACK_USER);
		rs.user_stack = id;
	}
	if ((e->flags & SESSION_KERNEL_STACK) && !session__kernel_stack(s, smp, &id)) {
		write_stacks(s, REC_STACK_KERNEL);
		rs.kernel_stack = id;
	}
	if (r->call_site[idx].present &&
	    !tp_field__u64(&r->call_site[idx], smp->raw, smp->raw_size, &site) && site)
		write_ksym(s, site);
	latch(r, recwriter__sample(r->w, &rs));
}

/* A sample of the memory indicators: the event's payload, at its time,
 * from no task. */
static void rec_memstat(struct session *s, const struct mem_sample *ms)
{
	struct recorder *r = s->rec;
	unsigned char raw[MEMSTAT_PAYLOAD_SIZE];

	if (!r->started || r->memstat_id == NO_EVENT)
		return;
	memstat__encode(ms, raw);
	latch(r, recwriter__sample(r->w, &(struct rec_sample){ .event = r->memstat_id,
		.time = ms->time_ns, .raw_size = sizeof(raw), .raw = raw }));
}

/* Tracing has started: the recording replaces the file that -o named (a
 * run that failed before left that file as it was). */
static int rec_tracing(struct session *s, struct errbuf *eb)
{
	return safe_out__commit(s->rec->out, eb);
}

/* A recording survives its recorder: SIGKILL, or the OOM killer, leaves
 * every record older than flush_ns in the file (the buffer otherwise
 * reaches it in 1 MiB writes only: a quiet `record -e oom -a` killed 7 s
 * in had written 0 bytes).  A round ends between records, so the file
 * then ends at a whole one. */
static void rec_round(struct session *s)
{
	struct recorder *r = s->rec;
	uint64_t now = clock__ns(CLOCK_MONOTONIC);

	if (!r->w || now - r->flushed_ns < r->flush_ns)
		return;
	latch(r, recwriter__flush(r->w));
	r->flushed_ns = now;
}

/* Events added while the run goes on: written before their samples. */
static int rec_grow(struct session *s, struct errbuf *eb)
{
	return s->rec->started ? write_events(s, eb) : 0;
}

static int rec_finish(struct session *s, struct errbuf *eb)
{
	struct recorder *r = s->rec;
	struct rec_end end = { .stop = (uint32_t)s->stop, .status = session__cmd_status(s),
			       .samples = s->samples, .lost = session__lost(s), .bad = s->bad,
			       .nr_counters = UNWIND__COUNT < REC_MAX_COUNTERS ? UNWIND__COUNT :
										REC_MAX_COUNTERS };
	int err;

	for (uint32_t i = 0; i < end.nr_counters; i++)
		end.counters[i] = s->unwind_stops[i];
	end.pauses = session__pauses(s, &end.paused_ns);
	latch(r, recwriter__end(r->w, &end));
	r->bytes = recwriter__bytes(r->w);
	err = recwriter__close(r->w, eb);
	r->w = NULL;
	if (!err && r->err)
		err = errbuf__set(eb, r->err, "writing %s failed: %s", r->path,
				  r->err == -EFBIG ? "file size limit reached" : strerror(-r->err));
	return err;
}

static void rec_free(struct session *s)
{
	recorder_free(s->rec);
	s->rec = NULL;
}

static const struct session_observer recorder_observer = {
	.start = rec_start,
	.sample = rec_sample,
	.proc = rec_proc,
	.mmap = rec_mmap,
	.comm = rec_comm,
	.task = rec_task,
	.lost = rec_lost,
	.grow = rec_grow,
	.memstat = rec_memstat,
	.tracing = rec_tracing,
	.round = rec_round,
	.finish = rec_finish,
	.free = rec_free,
};
