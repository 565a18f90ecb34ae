/*
 * cachestat: the page-cache counting shared by `faultline cache` and
 * `faultline cachetop` (see cachestat.h for what each rung counts).
 *
 * Sampled rungs deliver one callback per kernel event; the callbacks only
 * add to the tallies of the current interval (in total, and per process
 * when asked), so the commands decide when an interval ends.  The vmstat
 * rung has no events: the command polls /proc at each interval's end.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agg/cachestat.h"
#include "trace/tp-catalog.h"
#include "lib/file.h"
#include "lib/hashmap.h"
#include "lib/stopsig.h"
#include "trace/session.h"
#include "proc/pidstat.h"
#include "proc/procstat.h"
#include "ladder.h"
#include "lib/grow.h"

/* ---- formulas ------------------------------------------------------------- */

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void cache_tally__row(const struct cache_tally *t, enum cache_formula formula,
		      struct cache_row *r)
{
	uint64_t total, misses, write_misses;

	memset(r, 0, sizeof(*r));
	switch (formula) {
	case CACHE_FORMULA_KPROBE:
		/* BCC cachestat: accesses without the buffer dirtying that
		 * also marks pages accessed; misses without the pages added
		 * by writes (BCC assumes each dirtied page was added).
		 * DIRTIES, though, are the pages dirtied (the account-dirtied
		 * hook: once per page turning dirty), not BCC's
		 * mark_buffer_dirty calls: ext4 without a journal (an ext2
		 * layout) calls it twice per page written on 6.1, once for
		 * the page's buffer and once for the inode table's buffer,
		 * already dirty (generic_write_end -> ext4_dirty_inode ->
		 * __ext4_handle_dirty_metadata), which doubled DIRTIES in
		 * the guest (30,994 for 16,384 pages; function-tracer stacks
		 * in the issue 13 commit).  The tracepoint rung counts the
		 * same pages (writeback_dirty_folio). */
		total = sub0(t->accesses, t->buffer_dirties);
		misses = sub0(t->adds, t->dirties);
		r->dirties = t->dirties;
		write_misses = t->adds < t->dirties ? t->adds : t->dirties;
		r->write_hit_pct = pct(sub0(t->dirties, write_misses), t->dirties);
		break;
	case CACHE_FORMULA_TRACEPOINT:
		total = t->accesses;
		misses = sub0(t->adds, t->write_adds);
		r->dirties = t->dirties;
		r->write_hit_pct = pct(sub0(t->dirties, t->write_adds), t->dirties);
		break;
	case CACHE_FORMULA_VMSTAT:
	default:
		total = t->accesses;
		misses = t->adds;
		r->dirties = t->dirties;
		break;
	}
	if (misses > total) {
		/* Readahead counted in one interval, read in the next, or adds
		 * no access accounts for (mmap faults): BCC's clamp. */
		misses = total;
	}
	r->misses = misses;
	r->hits = total - misses;
	r->ratio = pct(r->hits, total);
	r->read_hit_pct = r->ratio;
}

void cache_tally__add(struct cache_tally *dst, const struct cache_tally *src)
{
	dst->accesses += src->accesses;
	dst->adds += src->adds;
	dst->dirties += src->dirties;
	dst->write_adds += src->write_adds;
	dst->buffer_dirties += src->buffer_dirties;
}

enum cache_formula cache_formula__of_rung(const char *rung_key)
{
	if (ladder__is(rung_key, "kprobe:"))
		return CACHE_FORMULA_KPROBE;
	if (ladder__is(rung_key, "tracepoint"))
		return CACHE_FORMULA_TRACEPOINT;
	return CACHE_FORMULA_VMSTAT;
}

/* ---- tracker ---------------------------------------------------------------- */

/* Folio memory values: order in bits 0-7, interval sequence above, and a
 * flag once the folio's add was taken out as a write miss. */
#define FOLIO_ORDER_MASK 0xffull
#define FOLIO_SEQ_SHIFT 8
#define FOLIO_DIRTIED (1ull << 63)
#define FOLIO_SEQ_MASK ((1ull << 54) - 1)

struct cache_tracker {
	struct hashmap *read_end;	/* tid -> hash(dev, ino, last) of its last range */
	struct hashmap *read_start;	/* tid -> index of its last range */
	struct hashmap *folios;		/* hash(ino, index) -> order | seq | flag */
	uint64_t seq;
};

#define MAX_TRACKED_TIDS (1u << 16)

int cache_tracker__new(struct cache_tracker **out)
{
	struct cache_tracker *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->read_end = hashmap__new();
	t->read_start = hashmap__new();
	t->folios = hashmap__new();
	if (!t->read_end || !t->read_start || !t->folios) {
		cache_tracker__free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void cache_tracker__free(struct cache_tracker *t)
{
	if (!t)
		return;
	hashmap__free(t->folios);
	hashmap__free(t->read_start);
	hashmap__free(t->read_end);
	free(t);
}

/* Empty a map by replacing it: hashmap has no clear. */
static int reset_map(struct hashmap **map)
{
	struct hashmap *fresh = hashmap__new();

	if (!fresh)
		return -ENOMEM;
	hashmap__free(*map);
	*map = fresh;
	return 0;
}

int cache_tracker__read(struct cache_tracker *t, uint32_t tid, uint64_t dev, uint64_t ino,
			uint64_t index, uint64_t last, uint64_t *pages)
{
	uint64_t key[3] = { dev, ino, last }, end = hash_bytes(key, sizeof(key));
	uint64_t prev_end, prev_start;
	bool cont;

	*pages = 0;
	cont = hashmap__get(t->read_end, tid, &prev_end) && prev_end == end &&
	       hashmap__get(t->read_start, tid, &prev_start) && index > prev_start && index <= last;
	if (!cont && last >= index)
		*pages = last - index + 1;
	if (hashmap__count(t->read_end) >= MAX_TRACKED_TIDS && !hashmap__get(t->read_end, tid, &prev_end) &&
	    (reset_map(&t->read_end) || reset_map(&t->read_start)))
		return -ENOMEM;
	if (hashmap__set(t->read_end, tid, end) || hashmap__set(t->read_start, tid, index))
		return -ENOMEM;
	return 0;
}

static uint64_t folio_key(uint64_t ino, uint64_t index)
{
	uint64_t key[2] = { ino, index };

	return hash_bytes(key, sizeof(key));
}

int cache_tracker__add(struct cache_tracker *t, uint64_t ino, uint64_t index, unsigned int order,
		       uint64_t *pages)
{
	/* An order past 30 is not a folio: read it as one page. */
	if (order > 30)
		order = 0;
	*pages = 1ull << order;
	if (hashmap__count(t->folios) >= CACHE_TRACKER_MAX_FOLIOS && reset_map(&t->folios))
		return -ENOMEM;
	return hashmap__set(t->folios, folio_key(ino, index),
			    order | (t->seq & FOLIO_SEQ_MASK) << FOLIO_SEQ_SHIFT);
}

int cache_tracker__dirty(struct cache_tracker *t, uint64_t ino, uint64_t index, uint64_t *pages,
			 bool *write_miss)
{
	uint64_t key = folio_key(ino, index), v;

	*pages = 1;
	*write_miss = false;
	if (!hashmap__get(t->folios, key, &v))
		return 0;
	*pages = 1ull << (v & FOLIO_ORDER_MASK);
	if (!(v & FOLIO_DIRTIED) && ((v >> FOLIO_SEQ_SHIFT) & FOLIO_SEQ_MASK) == (t->seq & FOLIO_SEQ_MASK)) {
		*write_miss = true;
		return hashmap__set(t->folios, key, v | FOLIO_DIRTIED);
	}
	return 0;
}

void cache_tracker__next_interval(struct cache_tracker *t)
{
	t->seq++;
}

/* ---- procfs parsers ------------------------------------------------------------ */

int cache_vmstat__parse(const char *text, struct cache_vmstat *out)
{
	static const char *const names[] = { "pgpgin", "nr_dirtied", "pswpin", NULL };
	uint64_t v[3];

	memset(out, 0, sizeof(*out));
	vmstat__parse(text, names, v);
	if (v[0] == VMSTAT_ABSENT || v[1] == VMSTAT_ABSENT)
		return -ENOENT;
	out->pgpgin_kb = v[0];
	out->nr_dirtied = v[1];
	/* Kernels without swap support have no pswpin: nothing to take out. */
	out->pswpin = v[2] == VMSTAT_ABSENT ? 0 : v[2];
	return 0;
}

int cache_io__parse(const char *text, struct cache_io *out)
{
	/* /proc/PID/io is "key: value" lines, as meminfo (without the kB). */
	static const char *const names[] = { "rchar", "read_bytes", "write_bytes", NULL };
	uint64_t v[3];

	memset(out, 0, sizeof(*out));
	meminfo__parse(text, names, v);
	if (v[0] == PROCSTAT_ABSENT || v[1] == PROCSTAT_ABSENT || v[2] == PROCSTAT_ABSENT)
		return -ENOENT;
	out->rchar = v[0];
	out->read_bytes = v[1];
	out->write_bytes = v[2];
	return 0;
}

int cache_meminfo__parse(const char *text, double *buffers_mb, double *cached_mb)
{
	static const char *const names[] = { "Buffers", "Cached", NULL };
	uint64_t v[2];

	meminfo__parse(text, names, v);
	if (v[0] == PROCSTAT_ABSENT || v[1] == PROCSTAT_ABSENT)
		return -ENOENT;
	*buffers_mb = (double)v[0] / 1024.0;
	*cached_mb = (double)v[1] / 1024.0;
	return 0;
}

static int read_proc(const char *procfs, const char *rel, char **text)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s", procfs ? procfs : "/proc", rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_file(path, 1u << 20, text, NULL);
}

int cache_meminfo__read(const char *procfs, double *buffers_mb, double *cached_mb)
{
	char *text = NULL;
	int err;

	err = read_proc(procfs, "meminfo", &text);
	if (!err)
		err = cache_meminfo__parse(text, buffers_mb, cached_mb);
	free(text);
	return err;
}

/* ---- source ---------------------------------------------------------------- */

enum cache_ev {
	EV_ACCESSED,		/* kprobe: mark accessed */
	EV_ADD,			/* kprobe: add to page cache */
	EV_DIRTIED,		/* kprobe: account dirtied */
	EV_BUFFER_DIRTY,	/* kprobe: mark_buffer_dirty */
	EV_GET_PAGES,		/* tracepoint: read range */
	EV_ADD_TP,		/* tracepoint: add with order */
	EV_DIRTY_TP,		/* tracepoint: folio/page dirtied */
	EV__COUNT
};

struct cache_source;

struct cache_cb {
	struct cache_source *cs;
	enum cache_ev ev;
};

struct io_prev {
	struct cache_io io;
	uint64_t gen;		/* poll generation that last saw the pid */
};

struct cache_source {
	char rung[64];
	enum cache_formula formula;
	bool per_pid;
	pid_t pid;
	const char *procfs;
	struct cache_cb cbs[EV__COUNT];
	struct cache_tracker *tracker;
	/* fields of the tracepoint rung */
	struct tp_field f_gp_ino, f_gp_dev, f_gp_index, f_gp_last;
	struct tp_field f_add_ino, f_add_index, f_add_order;
	struct tp_field f_dirty_ino, f_dirty_index;
	/* the interval */
	struct cache_tally total;
	struct cache_proc *procs;
	size_t nprocs, capprocs;
	struct hashmap *proc_idx;	/* pid -> index + 1 */
	/* vmstat rung */
	bool have_base;
	struct cache_vmstat vm_prev;
	struct hashmap *io_idx;		/* pid -> index + 1 into io_prev */
	struct io_prev *io_prev;
	size_t nio, capio;
	uint64_t gen;
	double prev_poll_s;		/* CLOCK_BOOTTIME of the previous poll */
	long ticks;			/* clock ticks per second */
	long page_size;
	int err;
	uint64_t bad;
};

int cache_source__new(const char *rung_key, bool per_pid, pid_t pid, const char *procfs,
		      struct cache_source **out)
{
	struct cache_source *cs;
	int err = -ENOMEM;

	*out = NULL;
	if (!ladder__is(rung_key, "kprobe:") && !ladder__is(rung_key, "tracepoint") &&
	    !ladder__is(rung_key, "vmstat"))
		return -EINVAL;
	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	snprintf(cs->rung, sizeof(cs->rung), "%s", rung_key);
	cs->formula = cache_formula__of_rung(rung_key);
	cs->per_pid = per_pid;
	cs->pid = pid;
	cs->procfs = procfs;
	cs->page_size = sysconf(_SC_PAGESIZE);
	if (cs->page_size <= 0)
		cs->page_size = 4096;
	cs->ticks = sysconf(_SC_CLK_TCK);
	for (int i = 0; i < EV__COUNT; i++)
		cs->cbs[i] = (struct cache_cb){ cs, (enum cache_ev)i };
	cs->proc_idx = hashmap__new();
	cs->io_idx = hashmap__new();
	if (!cs->proc_idx || !cs->io_idx)
		goto fail;
	err = cache_tracker__new(&cs->tracker);
	if (err)
		goto fail;
	*out = cs;
	return 0;
fail:
	cache_source__free(cs);
	return err;
}

void cache_source__free(struct cache_source *cs)
{
	if (!cs)
		return;
	cache_tracker__free(cs->tracker);
	hashmap__free(cs->io_idx);
	hashmap__free(cs->proc_idx);
	free(cs->io_prev);
	free(cs->procs);
	free(cs);
}

enum cache_formula cache_source__formula(const struct cache_source *cs)
{
	return cs->formula;
}

uint64_t cache_source__bad_records(const struct cache_source *cs)
{
	return cs->bad;
}

/* The tally of @pid in the current interval, NULL on no memory. */
static struct cache_tally *proc_tally(struct cache_source *cs, pid_t pid)
{
	uint64_t idx;

	if (hashmap__get(cs->proc_idx, (uint64_t)pid, &idx))
		return &cs->procs[idx - 1].t;
	if (GROW_FOR(cs->procs, cs->capprocs, cs->nprocs + 1, 64))
		return NULL;
	if (hashmap__set(cs->proc_idx, (uint64_t)pid, cs->nprocs + 1))
		return NULL;
	cs->procs[cs->nprocs] = (struct cache_proc){ .pid = pid };
	return &cs->procs[cs->nprocs++].t;
}

/* Add @d to the interval's total and, per process, to @pid's tally. */
static void count(struct cache_source *cs, pid_t pid, const struct cache_tally *d)
{
	struct cache_tally *pt;

	cache_tally__add(&cs->total, d);
	if (!cs->per_pid)
		return;
	pt = proc_tally(cs, pid);
	if (!pt) {
		cs->err = -ENOMEM;
		return;
	}
	cache_tally__add(pt, d);
}

static bool read_u64(struct cache_source *cs, const struct tp_field *f, const struct sample *smp,
		     uint64_t *v)
{
	if (tp_field__u64(f, smp->raw, smp->raw_size, v)) {
		cs->bad++;
		return false;
	}
	return true;
}

static void on_event(struct session *s, const struct sample *smp, void *ctx)
{
	const struct cache_cb *cb = ctx;
	struct cache_source *cs = cb->cs;
	struct cache_tally d = { 0 };
	uint64_t ino, dev = 0, index, last, order = 0, pages;
	bool miss;
	int err = 0;

	(void)s;
	switch (cb->ev) {
	case EV_ACCESSED:
		d.accesses = 1;
		break;
	case EV_ADD:
		d.adds = 1;
		break;
	case EV_DIRTIED:
		d.dirties = 1;
		break;
	case EV_BUFFER_DIRTY:
		d.buffer_dirties = 1;
		break;
	case EV_GET_PAGES:
		if (!read_u64(cs, &cs->f_gp_ino, smp, &ino) || !read_u64(cs, &cs->f_gp_index, smp, &index) ||
		    !read_u64(cs, &cs->f_gp_last, smp, &last))
			return;
		if (cs->f_gp_dev.present && !read_u64(cs, &cs->f_gp_dev, smp, &dev))
			return;
		err = cache_tracker__read(cs->tracker, smp->tid, dev, ino, index, last, &d.accesses);
		break;
	case EV_ADD_TP:
		if (!read_u64(cs, &cs->f_add_ino, smp, &ino) || !read_u64(cs, &cs->f_add_index, smp, &index))
			return;
		/* Kernels before the folio conversion have no order: one page. */
		if (cs->f_add_order.present && !read_u64(cs, &cs->f_add_order, smp, &order))
			return;
		err = cache_tracker__add(cs->tracker, ino, index, (unsigned int)order, &d.adds);
		break;
	case EV_DIRTY_TP:
		if (!read_u64(cs, &cs->f_dirty_ino, smp, &ino) || !read_u64(cs, &cs->f_dirty_index, smp, &index))
			return;
		err = cache_tracker__dirty(cs->tracker, ino, index, &pages, &miss);
		d.dirties = pages;
		d.write_adds = miss ? pages : 0;
		break;
	default:
		return;
	}
	if (err) {
		cs->err = err;
		return;
	}
	count(cs, (pid_t)smp->pid, &d);
}

/* A field by the first of @names the event has; -ENOENT naming the event. */
static int need_field(struct tp_event *ev, const char *const *names, struct tp_field *f,
		      struct errbuf *eb)
{
	for (size_t i = 0; names[i]; i++)
		if (!tp_event__field(ev, names[i], f))
			return 0;
	return errbuf__set(eb, -ENOENT, "event '%s' has no field '%s'", tp_event__name(ev), names[0]);
}

static int attach_kprobes(struct cache_source *cs, struct session *s, struct errbuf *eb)
{
	/* Function per event, by rung (see cmd-cache.c's ladder). */
	static const struct {
		const char *rung, *accessed, *add, *dirtied;
	} funcs[] = {
		{ "kprobe:folio", "folio_mark_accessed", "filemap_add_folio", "folio_account_dirtied" },
		{ "kprobe:folio-mark-dirty", "folio_mark_accessed", "filemap_add_folio", "__folio_mark_dirty" },
		{ "kprobe:page", "mark_page_accessed", "add_to_page_cache_lru", "account_page_dirtied" },
	};
	int err;

	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		if (!ladder__is(funcs[i].rung, cs->rung))
			continue;
		err = session__add_kprobe(s, "cache_accessed", funcs[i].accessed, false, NULL, 0, on_event,
					  &cs->cbs[EV_ACCESSED], NULL, eb);
		if (!err)
			err = session__add_kprobe(s, "cache_add", funcs[i].add, false, NULL, 0, on_event,
						  &cs->cbs[EV_ADD], NULL, eb);
		if (!err)
			err = session__add_kprobe(s, "cache_dirtied", funcs[i].dirtied, false, NULL, 0,
						  on_event, &cs->cbs[EV_DIRTIED], NULL, eb);
		if (!err)
			err = session__add_kprobe(s, "cache_buffer_dirty", "mark_buffer_dirty", false, NULL, 0,
						  on_event, &cs->cbs[EV_BUFFER_DIRTY], NULL, eb);
		return err;
	}
	return errbuf__set(eb, -EINVAL, "unknown cache rung '%s'", cs->rung);
}

static int attach_tracepoints(struct cache_source *cs, struct session *s, struct errbuf *eb)
{
	static const char *const ino[] = { "i_ino", "ino", NULL };
	static const char *const dev[] = { "s_dev", NULL };
	static const char *const index[] = { "index", NULL };
	static const char *const last[] = { "last_index", NULL };
	static const char *const order[] = { "order", NULL };
	struct tp_event *gp = NULL, *add = NULL, *dirty = NULL;
	struct errbuf ignore;
	int err;

	err = session__add_tracepoint(s, "filemap", "mm_filemap_get_pages", 0, on_event,
				      &cs->cbs[EV_GET_PAGES], &gp, eb);
	if (!err)
		err = session__add_tracepoint(s, "filemap", "mm_filemap_add_to_page_cache", 0, on_event,
					      &cs->cbs[EV_ADD_TP], &add, eb);
	if (!err) {
		/* Renamed in 5.16; the fields (ino, index) are the same. */
		err = session__add_tracepoint(s, "writeback", "writeback_dirty_folio", 0, on_event,
					      &cs->cbs[EV_DIRTY_TP], &dirty, &ignore);
		if (err == -ENOENT)
			err = session__add_tracepoint(s, "writeback", "writeback_dirty_page", 0, on_event,
						      &cs->cbs[EV_DIRTY_TP], &dirty, eb);
		else if (err)
			errbuf__set(eb, err, "%s", ignore.msg);
	}
	if (!err)
		err = need_field(gp, ino, &cs->f_gp_ino, eb);
	if (!err)
		err = need_field(gp, index, &cs->f_gp_index, eb);
	if (!err)
		err = need_field(gp, last, &cs->f_gp_last, eb);
	if (!err && need_field(gp, dev, &cs->f_gp_dev, NULL))
		cs->f_gp_dev.present = false;
	if (!err)
		err = need_field(add, ino, &cs->f_add_ino, eb);
	if (!err)
		err = need_field(add, index, &cs->f_add_index, eb);
	if (!err && need_field(add, order, &cs->f_add_order, NULL))
		cs->f_add_order.present = false;
	if (!err)
		err = need_field(dirty, ino, &cs->f_dirty_ino, eb);
	if (!err)
		err = need_field(dirty, index, &cs->f_dirty_index, eb);
	return err;
}

int cache_source__attach(struct cache_source *cs, struct session *s, struct errbuf *eb)
{
	if (ladder__is(cs->rung, "kprobe:"))
		return attach_kprobes(cs, s, eb);
	if (ladder__is(cs->rung, "tracepoint"))
		return attach_tracepoints(cs, s, eb);
	return 0;
}

/* The io_prev slot of @pid, created empty (gen 0) if new; NULL on no memory. */
static struct io_prev *io_slot(struct cache_source *cs, pid_t pid, bool *fresh)
{
	uint64_t idx;

	*fresh = false;
	if (hashmap__get(cs->io_idx, (uint64_t)pid, &idx))
		return &cs->io_prev[idx - 1];
	if (GROW_FOR(cs->io_prev, cs->capio, cs->nio + 1, 256))
		return NULL;
	if (hashmap__set(cs->io_idx, (uint64_t)pid, cs->nio + 1))
		return NULL;
	memset(&cs->io_prev[cs->nio], 0, sizeof(cs->io_prev[0]));
	*fresh = true;
	return &cs->io_prev[cs->nio++];
}

/* Pages between two byte counters, never negative (a counter that went
 * back belongs to a new process under a reused pid). */
static uint64_t page_delta(const struct cache_source *cs, uint64_t now, uint64_t before)
{
	uint64_t ps = (uint64_t)cs->page_size;

	return now / ps > before / ps ? now / ps - before / ps : 0;
}

/* Whether @pid started after the previous poll (its /proc/PID/stat
 * starttime, in clock ticks since boot, against CLOCK_BOOTTIME). */
static bool born_since(const struct cache_source *cs, pid_t pid)
{
	struct pid_stat st;

	return !pid_stat__read(cs->procfs, pid, &st) && cs->ticks > 0 &&
	       (double)st.starttime / (double)cs->ticks >= cs->prev_poll_s;
}

static int poll_pid(struct cache_source *cs, pid_t pid)
{
	char rel[64], *text = NULL;
	struct cache_io io;
	struct io_prev *prev;
	struct cache_tally d = { 0 };
	bool fresh;
	int err;

	snprintf(rel, sizeof(rel), "%d/io", (int)pid);
	err = read_proc(cs->procfs, rel, &text);
	if (!err)
		err = cache_io__parse(text, &io);
	free(text);
	if (err)
		return 0;	/* gone, or a kernel thread without io: skip it */
	prev = io_slot(cs, pid, &fresh);
	if (!prev)
		return -ENOMEM;
	/* A process first seen now counts from its birth if it was born
	 * since the last poll, else from now. */
	if (cs->have_base && (!fresh || born_since(cs, pid))) {
		d.accesses = page_delta(cs, io.rchar, prev->io.rchar);
		if (cs->per_pid) {
			d.adds = page_delta(cs, io.read_bytes, prev->io.read_bytes);
			d.dirties = page_delta(cs, io.write_bytes, prev->io.write_bytes);
			count(cs, pid, &d);
		} else {
			cs->total.accesses += d.accesses;
		}
	}
	prev->io = io;
	prev->gen = cs->gen;
	return cs->err;
}

/* Forget the pids a poll did not see: rebuild the index from the live ones. */
static int prune_io(struct cache_source *cs)
{
	size_t keep = 0;

	for (size_t i = 0; i < cs->nio; i++)
		if (cs->io_prev[i].gen == cs->gen)
			keep++;
	if (keep == cs->nio)
		return 0;
	/* The pid is not stored in io_prev: rebuild from the map's keys. */
	{
		struct hashmap *fresh = hashmap__new();
		struct io_prev *nv = malloc((keep ? keep : 1) * sizeof(*nv));
		uint64_t key, val;
		size_t pos = 0, n = 0;

		if (!fresh || !nv) {
			hashmap__free(fresh);
			free(nv);
			return -ENOMEM;
		}
		while (hashmap__next(cs->io_idx, &pos, &key, &val)) {
			if (cs->io_prev[val - 1].gen != cs->gen)
				continue;
			nv[n] = cs->io_prev[val - 1];
			if (hashmap__set(fresh, key, n + 1)) {
				hashmap__free(fresh);
				free(nv);
				return -ENOMEM;
			}
			n++;
		}
		hashmap__free(cs->io_idx);
		free(cs->io_prev);
		cs->io_idx = fresh;
		cs->io_prev = nv;
		cs->nio = n;
		cs->capio = keep ? keep : 1;
	}
	return 0;
}

int cache_source__poll_procfs(struct cache_source *cs, struct errbuf *eb)
{
	char *text = NULL, path[4096];
	struct cache_vmstat vm;
	pid_t self = getpid();
	struct dirent *de;
	struct timespec now;
	DIR *dir = NULL;
	int err;

	cs->gen++;
	clock_gettime(CLOCK_BOOTTIME, &now);
	if (!cs->per_pid) {
		err = read_proc(cs->procfs, "vmstat", &text);
		if (!err)
			err = cache_vmstat__parse(text, &vm);
		free(text);
		if (err)
			return errbuf__set(eb, err, "cannot read pgpgin/nr_dirtied from %s/vmstat",
					   cs->procfs ? cs->procfs : "/proc");
		if (cs->have_base) {
			uint64_t in_kb = sub0(vm.pgpgin_kb, cs->vm_prev.pgpgin_kb);
			uint64_t swap_kb = sub0(vm.pswpin, cs->vm_prev.pswpin) * (uint64_t)cs->page_size / 1024;

			cs->total.adds += sub0(in_kb, swap_kb) * 1024 / (uint64_t)cs->page_size;
			cs->total.dirties += sub0(vm.nr_dirtied, cs->vm_prev.nr_dirtied);
		}
		cs->vm_prev = vm;
	}
	if (cs->pid > 0) {
		err = poll_pid(cs, cs->pid);
	} else {
		snprintf(path, sizeof(path), "%s", cs->procfs ? cs->procfs : "/proc");
		dir = opendir(path);
		if (!dir)
			return errbuf__set(eb, -errno, "cannot list %s", path);
		err = 0;
		while (!err && (de = readdir(dir))) {
			char *end;
			long pid = strtol(de->d_name, &end, 10);

			/* Our own reads of /proc are not the workload's. */
			if (*end || pid <= 0 || pid == self)
				continue;
			err = poll_pid(cs, (pid_t)pid);
		}
		closedir(dir);
	}
	if (!err)
		err = prune_io(cs);
	if (err)
		return errbuf__set(eb, err, "cannot keep per-process counters");
	cs->have_base = true;
	cs->prev_poll_s = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	return 0;
}

void cache_source__peek(const struct cache_source *cs, const struct cache_proc **procs,
			size_t *nprocs)
{
	*procs = cs->procs;
	*nprocs = cs->nprocs;
}

int cache_source__take(struct cache_source *cs, struct cache_tally *total,
		       const struct cache_proc **procs, size_t *nprocs)
{
	int err = cs->err;

	*total = cs->total;
	memset(&cs->total, 0, sizeof(cs->total));
	if (procs)
		*procs = cs->procs;
	if (nprocs)
		*nprocs = cs->nprocs;
	/* The array is kept for the caller until the next take: only the
	 * index starts over, and the count restarts at the next event. */
	cs->nprocs = 0;
	if (reset_map(&cs->proc_idx) && !err)
		err = -ENOMEM;
	cache_tracker__next_interval(cs->tracker);
	cs->err = 0;
	return err;
}

/* ---- the interval loop ------------------------------------------------------ */

/* One interval ended: the command's row (last: the partial interval of
 * a stopped run). */
static int run_report(void *ctx)
{
	struct cache_run *r = ctx;

	return r->ops->interval(r->ops->ctx, r->cs, r->final);
}

void cache_run__init(struct cache_run *r, struct cache_source *cs, struct session *s,
		     double interval, unsigned long count, const struct cache_run_ops *ops)
{
	*r = (struct cache_run){ .cs = cs, .s = s, .ops = ops };
	every__init(&r->every, s, interval, count, run_report, r);
	/* The count's last row comes when it is due, and ends the run. */
	r->every.last_in_round = true;
}

int cache_run__open(struct cache_run *r, const char *rung_key, bool per_pid, pid_t pid,
		    struct session *s, double interval, unsigned long count,
		    const struct cache_run_ops *ops, struct errbuf *eb)
{
	struct cache_source *cs = NULL;
	int err;

	err = cache_source__new(rung_key, per_pid, pid, NULL, &cs);
	cache_run__init(r, cs, s, interval, count, ops);
	if (!err)
		err = cache_source__attach(cs, s, eb);
	return err;
}

void cache_run__close(struct cache_run *r)
{
	cache_source__free(r->cs);
	r->cs = NULL;
}

void cache_run__ready(struct cache_run *r)
{
	every__ready(&r->every);
	if (r->ops->ready)
		r->ops->ready(r->ops->ctx);
}

void cache_run__round(struct cache_run *r)
{
	if (r->stopped_by_us)
		return;
	if ((r->ops->idle && r->ops->idle(r->ops->ctx)) ||
	    every__tick(&r->every, session__now(r->s), session__replaying(r->s))) {
		r->stopped_by_us = true;
		session__stop(r->s);
	}
}

void cache_run__end(struct cache_run *r)
{
	/* A replay that reached the recording's end ends as the recorded run
	 * did when it was stopped: with the partial interval. */
	if (r->s && !r->stopped_by_us && (session__stop_reason(r->s) == SESSION_STOP_SIGNAL ||
					  session__replaying(r->s))) {
		r->final = true;
		every__final(&r->every);
	}
}

int cache_run__procfs(struct cache_run *r, struct errbuf *eb)
{
	uint64_t now, nap_ns;
	int err;

	stopsig__catch();
	err = cache_source__poll_procfs(r->cs, eb);
	if (err)
		goto out;
	cache_run__ready(r);
	for (;;) {
		if (stopsig__caught()) {
			err = cache_source__poll_procfs(r->cs, eb);
			r->final = true;
			if (!err)
				every__final(&r->every);
			break;
		}
		if (r->ops->idle && r->ops->idle(r->ops->ctx))
			break;
		now = every__now(&r->every);
		if (now >= r->every.next_ns) {
			err = cache_source__poll_procfs(r->cs, eb);
			if (err || every__tick(&r->every, now, false))
				break;
			continue;
		}
		/* Sleep to the interval's end, 100 ms at most (keys), woken by
		 * signals. */
		nap_ns = r->every.next_ns - now;
		if (nap_ns > 100000000ULL)
			nap_ns = 100000000ULL;
		nanosleep(&(struct timespec){ 0, (long)nap_ns }, NULL);
	}
out:
	stopsig__release();
	return err;
}
