/*
 * replay: the recording source of a session (faultline report; session-int.h:
 * struct session_source).
 *
 * session__new_replay() reads the recording's head (its metadata and
 * event definitions, written before anything else), makes the features a
 * tool's ladder sees from the events it holds, and leaves the rest for
 * session__run(), which applies the records in their order through the
 * same side-band functions a live session uses (session.c) and hands each
 * sample to every event a tool added under that recorded event, filters
 * applied in user space.  A tool cannot tell it from a live run, except
 * that its clock (session__now) is the recording's.
 *
 * A recording's times are not trusted: the run's rounds follow them (a
 * round every 100 ms of recorded time), so one corrupt time of 2^56 ns
 * made `report leak` replay 720 million empty rounds past SIGTERM.  A
 * regular file is read once ahead (prescan(): a pass of the reader alone,
 * no decoding into the tools) for the time of its last record and for
 * where it was cut; a record timed after that (with a second of slack),
 * or after the time that has passed on this machine since the run
 * started (a pipe, which cannot be read twice), is a bad record: counted,
 * told in one line, skipped.  A file cut short (its recorder killed, its
 * disk full) is replayed up to its last whole record and said to end
 * early, first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/clock.h"
#include "stack/addrspace.h"
#include "trace/tp-catalog.h"
#include "features.h"
#include "lib/hashmap.h"
#include "trace/probe-spec.h"
#include "trace/memstat.h"
#include "trace/recfile.h"
#include "trace/session-int.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"

struct rev {
	uint32_t id;
	enum rec_event_kind kind;
	uint32_t flags;
	uint64_t config;
	char *name, *path, *format;
};

struct kv {
	char *key, *value;
};

struct replay {
	struct recreader *r;
	char path[4096];
	struct rec first;		/* the first record after the head */
	bool have_first, ended;
	bool end_read;			/* the END record was applied */
	void (*warn)(void *ctx, const char *msg);	/* replay_opts' */
	void *warn_ctx;
	struct rev *evs;
	size_t nevs;
	struct kv *meta;
	size_t nmeta;
	double since, until;
	uint64_t read;			/* records read */
	uint64_t samples;		/* of them samples of the kernel's events */
	/* prescan(): the time of the file's last timed record (0: not read
	 * ahead, or none), and where the file was cut (cut: it was). */
	uint64_t last_ns;
	bool corrupt;			/* prescan(): the replay will fail */
	bool cut, cut_told;
	bool target_exited;		/* the recorded target's EXIT was read */
	uint64_t cut_ns, cut_bytes;
	uint64_t end_ns;		/* a record timed after this is bad */
	uint64_t rounds;		/* rounds replayed so far */
	uint64_t bad_times, bad_off, bad_ns;	/* how many, the first's offset and time */
	uint32_t memstat_id;		/* faultline:memstat's id, UINT32_MAX: none */
	/* The evsels of each recorded event, in the order they were added:
	 * route[route_start[id] .. route_start[id + 1]), built when the run
	 * starts, so a sample visits its own evsels only; built again when
	 * an EVENT or an evsel comes once the run went on (stale). */
	size_t *route_start, *route;
	bool routes_stale;
};

static const struct session_source replay_source;

static void rev_clear(struct rev *e)
{
	free(e->name);
	free(e->path);
	free(e->format);
}

static void replay_free(struct session *s)
{
	struct replay *rp = s->replay;

	if (!rp)
		return;
	s->replay = NULL;
	recreader__free(rp->r);
	free(rp->route_start);
	free(rp->route);
	for (size_t i = 0; i < rp->nevs; i++)
		rev_clear(&rp->evs[i]);
	free(rp->evs);
	for (size_t i = 0; i < rp->nmeta; i++) {
		free(rp->meta[i].key);
		free(rp->meta[i].value);
	}
	free(rp->meta);
	free(rp);
}

static const char *replay_meta(const struct session *s, const char *key)
{
	for (size_t i = 0; s->replay && i < s->replay->nmeta; i++)
		if (!strcmp(s->replay->meta[i].key, key))
			return s->replay->meta[i].value;
	return NULL;
}

static uint64_t meta_u64(const struct session *s, const char *key)
{
	const char *v = session__meta(s, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

/* ---- the head: metadata and events ---- */

static int keep_meta(struct replay *rp, const struct rec_meta *m)
{
	struct kv *nv = realloc(rp->meta, (rp->nmeta + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	rp->meta = nv;
	nv[rp->nmeta].key = strdup(m->key);
	nv[rp->nmeta].value = strdup(m->value);
	if (!nv[rp->nmeta].key || !nv[rp->nmeta].value) {
		free(nv[rp->nmeta].key);
		free(nv[rp->nmeta].value);
		return -ENOMEM;
	}
	rp->nmeta++;
	return 0;
}

static int keep_event(struct replay *rp, const struct rec_event *e)
{
	struct rev *nv = realloc(rp->evs, (rp->nevs + 1) * sizeof(*nv));
	struct rev *v;

	if (!nv)
		return -ENOMEM;
	rp->evs = nv;
	v = &nv[rp->nevs];
	*v = (struct rev){ .id = e->id, .kind = e->kind, .flags = e->flags, .config = e->config,
			   .name = strdup(e->name), .path = strdup(e->path),
			   .format = strdup(e->format) };
	if (!v->name || !v->path || !v->format) {
		rev_clear(v);
		return -ENOMEM;
	}
	rp->nevs++;
	return 0;
}

static int read_error(struct replay *rp, int err, struct errbuf *eb)
{
	char msg[sizeof(eb->msg)];

	snprintf(msg, sizeof(msg), "%s", eb->msg);	/* errbuf__set writes eb->msg */
	if (err == -ENODATA)
		return errbuf__set(eb, err, "%s is truncated (a run that did not end cleanly?): "
				   "%s", rp->path, msg);
	return errbuf__set(eb, err, "%s: %s", rp->path, msg);
}

/* Nothing may follow END (docs/record-format.md): a file that goes on is
 * two recordings glued together or a damaged one, whatever its head. */
static int check_tail(struct replay *rp, struct errbuf *eb)
{
	struct rec rec;
	int ret = recreader__next(rp->r, &rec, eb);

	if (ret == 0)
		return 0;
	return read_error(rp, ret < 0 ? ret : -EBADMSG, eb);
}

/* Whether the head read is the whole of it: its META head_events, the
 * recorder's last head record, counts the EVENTs read (a recording
 * without one, an older faultline's, cannot tell). */
static bool head_whole(const struct replay *rp)
{
	for (size_t i = rp->nmeta; i-- > 0;)
		if (!strcmp(rp->meta[i].key, "head_events"))
			return strtoull(rp->meta[i].value, NULL, 10) == rp->nevs;
	return false;
}

static int read_head(struct replay *rp, struct errbuf *eb)
{
	int ret, err;

	while ((ret = recreader__next(rp->r, &rp->first, eb)) == 1) {
		if (rp->first.type == REC_META)
			err = keep_meta(rp, &rp->first.u.meta);
		else if (rp->first.type == REC_EVENT)
			err = keep_event(rp, &rp->first.u.event);
		else {
			rp->have_first = true;
			return 0;
		}
		if (err)
			return err;
	}
	if (ret == 0) {
		rp->ended = true;	/* nothing but a head: an empty run */
		return 0;
	}
	/* Cut after its whole head: nothing recorded yet (a recorder killed
	 * by a fault as it began); replay_run() finds the cut again and
	 * says it, as for a cut anywhere after the head. */
	if (ret == -ENODATA && head_whole(rp))
		return 0;
	return read_error(rp, ret, eb);
}

/* What the recording holds, as features__recorded() wants it. */
static int make_features(struct session *s, struct errbuf *eb)
{
	struct replay *rp = s->replay;
	char **names = calloc(2 * rp->nevs + 1, sizeof(*names));
	size_t n = 0;
	int err = 0;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < rp->nevs && !err; i++) {
		const struct rev *e = &rp->evs[i];
		char buf[4200];

		if (e->kind == REC_EVENT_SOFTWARE)
			continue;
		if (!(names[n++] = strdup(e->name)))
			err = -ENOMEM;
		if (e->kind == REC_EVENT_UPROBE || e->kind == REC_EVENT_KPROBE) {
			snprintf(buf, sizeof(buf), "%s:%s", e->kind == REC_EVENT_UPROBE ? "uprobe" :
				 "kfunc", e->kind == REC_EVENT_UPROBE ? e->name : e->path);
			if (!(names[n++] = strdup(buf)))
				err = -ENOMEM;
		}
	}
	if (!err)
		err = features__recorded((const char *const *)names, n, &s->features, eb);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

static void warn_live_kallsyms(void *ctx)
{
	struct replay *rp = ctx;
	char msg[sizeof(rp->path) + 256];

	snprintf(msg, sizeof(msg), "%s is a format 1.0 recording, without kernel symbols: its "
		 "kernel frames are named from this machine's /proc/kallsyms (right only on the "
		 "machine and boot it was recorded on)", rp->path);
	rp->warn(rp->warn_ctx, msg);
}

int session__new_replay(const struct session_opts *o, const struct replay_opts *ro,
			struct session **out, struct errbuf *eb)
{
	struct session *s = calloc(1, sizeof(*s));
	struct replay *rp;
	const char *target;
	unsigned int minor = 0;
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->refs = 1;
	s->opts = *o;
	s->use_clockid = true;
	s->src = &replay_source;
	s->replay = rp = calloc(1, sizeof(*rp));
	s->comms = hashmap__new();
	s->ids = hashmap__new();
	s->execs = hashmap__new();
	err = -ENOMEM;
	if (!rp || !s->comms || !s->ids || !s->execs)
		goto fail;
	snprintf(rp->path, sizeof(rp->path), "%s", ro->path);
	rp->memstat_id = UINT32_MAX;
	rp->since = ro->since;
	rp->until = ro->until;
	if ((err = tp_catalog__new("", &s->catalog)) || (err = addrspaces__new(&s->as)) ||
	    (err = stackdb__new(&s->stacks)) || (err = symbolizer__new(&s->sym)))
		goto fail;
	if (ro->symfs && (err = symbolizer__set_symfs(s->sym, ro->symfs))) {
		errbuf__set(eb, err, "--symfs '%s': %s", ro->symfs, strerror(-err));
		goto fail;
	}
	session__catch_signals(s);
	err = recreader__open(ro->path, &rp->r, eb);
	if (err)
		goto fail;
	recreader__version(rp->r, NULL, &minor);
	rp->warn = ro->warn;
	rp->warn_ctx = ro->warn_ctx;
	/* Since 1.1 a recording names its kernel frames itself (KSYM);
	 * before, only this machine's kallsyms can, which is said. */
	if (minor >= 1)
		symbolizer__recorded_kernel(s->sym);
	else if (ro->warn)
		symbolizer__on_kallsyms(s->sym, warn_live_kallsyms, rp);
	err = read_head(rp, eb);
	if (!err)
		err = make_features(s, eb);
	if (err)
		goto fail;
	s->start_mono_ns = meta_u64(s, "start_mono_ns");
	s->start_real_ns = meta_u64(s, "start_real_ns");
	s->now_ns = s->start_mono_ns;
	s->rec_target_pid = (pid_t)meta_u64(s, "target_pid");
	target = session__meta(s, "target");
	s->rec_is_cmd = target && !strcmp(target, "cmd");
	s->rec_cmd_status = -1;
	*out = s;
	return 0;
fail:
	session__free(s);
	return err;
}

/* ---- events a tool adds ---- */

static const char *event_part(const char *name)
{
	const char *colon = strchr(name, ':');

	return colon ? colon + 1 : name;
}

static const struct rev *find_event(const struct replay *rp, enum evsel_kind kind,
				    const char *name, uint64_t config)
{
	for (size_t i = 0; i < rp->nevs; i++) {
		const struct rev *e = &rp->evs[i];

		switch (kind) {
		case EVSEL_TRACEPOINT:
			if (e->kind == REC_EVENT_TRACEPOINT && !strcmp(e->name, name))
				return e;
			break;
		case EVSEL_UPROBE:
			if (e->kind == REC_EVENT_UPROBE && !strcmp(event_part(e->name), name))
				return e;
			break;
		case EVSEL_KPROBE:
			if (e->kind == REC_EVENT_KPROBE && !strcmp(event_part(e->name), name))
				return e;
			break;
		case EVSEL_SOFTWARE:
			if (e->kind == REC_EVENT_SOFTWARE && e->config == config)
				return e;
			break;
		}
	}
	return NULL;
}

static int missing(const struct session *s, const char *what, struct errbuf *eb)
{
	const char *tools = session__meta(s, "tools");

	return errbuf__set(eb, -ENOENT, "the recording %s has no %s (it holds the events of: %s; "
			   "record the tool with faultline record -e)", s->replay->path, what,
			   tools ? tools : "?");
}

static int replay_add(struct session *s, int kind, const char *name, uint64_t config,
		      unsigned int flags, session_sample_fn fn, void *ctx, struct tp_event **ev,
		      struct errbuf *eb)
{
	const struct rev *re = find_event(s->replay, (enum evsel_kind)kind, name, config);
	struct tp_event *tev = NULL;
	struct evsel *nv, *e;
	char what[300];
	int err;

	if (!re) {
		snprintf(what, sizeof(what), "event '%s'", name);
		return missing(s, what, eb);
	}
	/* Stacks and addresses cannot be had after the fact. */
	if (flags & ~re->flags & (SESSION_USER_STACK | SESSION_KERNEL_STACK | SESSION_SAMPLE_ADDR))
		return errbuf__set(eb, -ENOENT, "the recording %s holds '%s' without the %s this "
				   "tool needs", s->replay->path, re->name,
				   flags & ~re->flags & SESSION_USER_STACK ? "user stacks" :
				   flags & ~re->flags & SESSION_KERNEL_STACK ? "kernel stacks" :
									       "addresses");
	if (re->kind != REC_EVENT_SOFTWARE) {
		const char *colon = strchr(re->name, ':');
		char sys[256];

		if (!colon || (size_t)(colon - re->name) >= sizeof(sys))
			return errbuf__set(eb, -EINVAL, "%s: event '%s' has no system", s->replay->path,
					   re->name);
		memcpy(sys, re->name, (size_t)(colon - re->name));
		sys[colon - re->name] = '\0';
		err = tp_catalog__load_text(s->catalog, sys, colon + 1, re->format,
					    strlen(re->format), &tev, eb);
		if (err)
			return err;
	}
	nv = realloc(s->evsels, (s->nevsels + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	s->evsels = nv;
	e = &nv[s->nevsels++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", re->name);
	e->fn = fn;
	e->ctx = ctx;
	e->flags = flags;
	e->kind = (enum evsel_kind)kind;
	e->tev = tev;
	e->rec_id = re->id;
	if (ev)
		*ev = tev;
	s->replay->routes_stale = true;
	return 0;
}

size_t session__recorded_events(const struct session *s)
{
	return s->replay ? s->replay->nevs : 0;
}

const char *session__recorded_event(const struct session *s, size_t i, unsigned int *flags)
{
	if (!s->replay || i >= s->replay->nevs)
		return NULL;
	if (flags)
		*flags = s->replay->evs[i].flags;
	return s->replay->evs[i].name;
}

int session__add_recorded(struct session *s, size_t i, session_sample_fn fn, void *ctx,
			  struct tp_event **ev, struct errbuf *eb)
{
	static const enum evsel_kind kinds[] = {
		[REC_EVENT_TRACEPOINT] = EVSEL_TRACEPOINT, [REC_EVENT_UPROBE] = EVSEL_UPROBE,
		[REC_EVENT_KPROBE] = EVSEL_KPROBE, [REC_EVENT_SOFTWARE] = EVSEL_SOFTWARE,
	};
	const struct rev *e;

	if (!s->replay || i >= s->replay->nevs)
		return -ENOENT;
	e = &s->replay->evs[i];
	if ((unsigned int)e->kind >= sizeof(kinds) / sizeof(kinds[0]))
		return errbuf__set(eb, -EINVAL, "event '%s' of an unknown kind", e->name);
	return replay_add(s, kinds[e->kind], e->kind == REC_EVENT_TRACEPOINT ? e->name :
		event_part(e->name), e->config, e->flags, fn, ctx, ev, eb);
}

/* ---- the source's calls ---- */

static int replay_add_tracepoint(struct session *s, const char *system, const char *event,
				 unsigned int flags, session_sample_fn fn, void *ctx,
				 struct tp_event **ev, struct errbuf *eb)
{
	char name[256];

	snprintf(name, sizeof(name), "%s:%s", system, event);
	return replay_add(s, EVSEL_TRACEPOINT, name, 0, flags, fn, ctx, ev, eb);
}

static int replay_add_uprobe(struct session *s, const struct probe_spec *spec,
			     unsigned int flags, session_sample_fn fn, void *ctx,
			     struct tp_event **ev, struct errbuf *eb)
{
	return replay_add(s, EVSEL_UPROBE, spec->name, 0, flags, fn, ctx, ev, eb);
}

static int replay_add_software(struct session *s, const char *name, uint64_t config,
			       unsigned int flags, session_sample_fn fn, void *ctx,
			       struct errbuf *eb)
{
	return replay_add(s, EVSEL_SOFTWARE, name, config, flags, fn, ctx, NULL, eb);
}

static int replay_add_kprobe(struct session *s, const char *event, const char *func,
			     bool retprobe, const char *fetchargs, unsigned int flags,
			     session_sample_fn fn, void *ctx, struct tp_event **ev,
			     struct errbuf *eb)
{
	(void)func;
	(void)retprobe;
	(void)fetchargs;
	return replay_add(s, EVSEL_KPROBE, event, 0, flags, fn, ctx, ev, eb);
}

/* A recorded faultline:memstat sample to the listener. */
static void on_memstat(struct session *s, const struct sample *smp, void *ctx)
{
	struct mem_sample ms;

	(void)ctx;
	if (s->memstat_fn && !memstat__decode(smp->raw, smp->raw_size, &ms))
		s->memstat_fn(s, &ms, s->memstat_ctx);
}

static int replay_add_memstat(struct session *s, struct errbuf *eb)
{
	const struct rev *re = find_event(s->replay, EVSEL_TRACEPOINT,
					  MEMSTAT_SYSTEM ":" MEMSTAT_EVENT, 0);

	if (!re)
		return missing(s, "/proc or cgroup samples (faultline:memstat)", eb);
	s->replay->memstat_id = re->id;
	return replay_add(s, EVSEL_TRACEPOINT, re->name, 0, 0, on_memstat, NULL, NULL, eb);
}

static int replay_uprobe_locate(struct session *s, const struct probe_spec *spec,
				unsigned int flags, char *path, size_t n, uint64_t *off,
				struct errbuf *eb)
{
	const struct rev *re = find_event(s->replay, EVSEL_UPROBE, spec->name, 0);
	char what[300];

	(void)flags;
	if (!re) {
		snprintf(what, sizeof(what), "probe '%s'", spec->name);
		return missing(s, what, eb);
	}
	snprintf(path, n, "%s", re->path);
	*off = re->config;
	return 0;
}

/* The stack of the sample being delivered: its file id is its stackdb id
 * (0: none, the empty stack). */
static int replay_stack(struct session *s, const struct sample *smp, bool user,
			uint32_t *stack_id)
{
	uint32_t file_id = user ? s->cur_ustack : s->cur_kstack;

	(void)smp;
	if (file_id)
		*stack_id = file_id;
	else
		return stackdb__intern(s->stacks, 0, NULL, 0, stack_id);
	return 0;
}

/* ---- the run ---- */

/* Counting sort of the evsels by recorded event id (see struct replay). */
static int build_routes(struct session *s)
{
	struct replay *rp = s->replay;
	size_t *fill;

	free(rp->route_start);
	free(rp->route);
	rp->routes_stale = false;
	rp->route_start = calloc(rp->nevs + 1, sizeof(*rp->route_start));
	rp->route = calloc(s->nevsels ? s->nevsels : 1, sizeof(*rp->route));
	fill = calloc(rp->nevs + 1, sizeof(*fill));
	if (!rp->route_start || !rp->route || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nevsels; i++)
		if (s->evsels[i].rec_id < rp->nevs)
			rp->route_start[s->evsels[i].rec_id + 1]++;
	for (size_t id = 0; id < rp->nevs; id++)
		rp->route_start[id + 1] += rp->route_start[id];
	for (size_t i = 0; i < s->nevsels; i++) {
		uint32_t id = s->evsels[i].rec_id;

		if (id < rp->nevs)
			rp->route[rp->route_start[id] + fill[id]++] = i;
	}
	free(fill);
	return 0;
}

static void deliver_sample(struct session *s, const struct rec_sample *rs)
{
	struct sample smp = { .pid = rs->pid, .tid = rs->tid, .time = rs->time, .cpu = rs->cpu,
			      .addr = rs->addr, .raw_size = rs->raw_size, .raw = rs->raw };
	double at = session__elapsed(s, rs->time);
	/* The image the live session unwound the user stack in: its
	 * process's now (the recording keeps the order it saw events in),
	 * kept for naming it after an exec. */
	uint32_t image = rs->user_stack ? addrspaces__pin_image(s->as, (pid_t)rs->pid) : 0;

	if (image && !stackdb__image(s->stacks, rs->user_stack))
		stackdb__set_image(s->stacks, rs->user_stack, image);
	if (at < s->replay->since || (s->replay->until > 0 && at > s->replay->until))
		return;
	/* -p in a report keeps one process's samples (its maps and the
	 * others' side-band still apply). */
	if (s->opts.pid > 0 && (pid_t)rs->pid != s->opts.pid && rs->event != s->replay->memstat_id)
		return;	/* (faultline:memstat's are no process's) */
	s->cur_ustack = rs->user_stack;
	s->cur_kstack = rs->kernel_stack;
	if (rs->event >= s->replay->nevs)
		return;	/* the reader checked it was defined: never */
	for (size_t r = s->replay->route_start[rs->event]; r < s->replay->route_start[rs->event + 1];
	     r++) {
		const struct evsel *e = &s->evsels[s->replay->route[r]];

		if (!e->fn)
			continue;
		if (e->filter && !tp_filter__match(e->filter, rs->raw, rs->raw_size))
			continue;
		e->fn(s, &smp, e->ctx);
	}
}

static int apply(struct session *s, const struct rec *rec, struct errbuf *eb)
{
	struct map m;
	struct sb_task tk;
	uint32_t id;

	switch (rec->type) {
	case REC_PROC:
		s->now_ns = rec->u.proc.time > s->now_ns ? rec->u.proc.time : s->now_ns;
		session__set_comm(s, (pid_t)rec->u.proc.pid, rec->u.proc.comm);
		addrspaces__exec(s->as, (pid_t)rec->u.proc.pid);	/* known; its maps follow */
		return 0;
	case REC_MMAP:
		m = (struct map){ .start = rec->u.mmap.start,
				  .end = rec->u.mmap.start + rec->u.mmap.len,
				  .pgoff = rec->u.mmap.pgoff, .prot = rec->u.mmap.prot,
				  .flags = rec->u.mmap.flags, .maj = rec->u.mmap.maj,
				  .min = rec->u.mmap.min, .ino = rec->u.mmap.ino,
				  .path = rec->u.mmap.path[0] ? (char *)rec->u.mmap.path : NULL,
				  .build_id_size = rec->u.mmap.build_id_size };
		memcpy(m.build_id, rec->u.mmap.build_id, sizeof(m.build_id));
		session__on_mmap(s, (pid_t)rec->u.mmap.pid, &m, rec->u.mmap.time);
		return 0;
	case REC_COMM:
		session__on_comm(s, (pid_t)rec->u.comm.pid, (pid_t)rec->u.comm.tid, rec->u.comm.comm,
				 rec->u.comm.exec, rec->u.comm.time);
		return 0;
	case REC_FORK:
	case REC_EXIT:
		tk = (struct sb_task){ rec->u.task.pid, rec->u.task.ppid, rec->u.task.tid,
				       rec->u.task.ptid, rec->u.task.time };
		/* The recording's clock is at the task's time for its hooks. */
		s->now_ns = tk.time > s->now_ns ? tk.time : s->now_ns;
		if (rec->type == REC_FORK) {
			session__on_fork(s, &tk);
		} else {
			session__on_exit(s, &tk);
			if (s->rec_target_pid > 0 && (pid_t)tk.pid == s->rec_target_pid &&
			    tk.pid == tk.tid)
				s->replay->target_exited = true;
		}
		return 0;
	case REC_STACK:
		/* Its image is the one its first sample's process has then
		 * (deliver_sample): the same ips may come again, for another. */
		if (stackdb__add(s->stacks, 0, rec->u.stack.ips, rec->u.stack.nr, &id))
			return -ENOMEM;
		if (id != rec->u.stack.id)
			return errbuf__set(eb, -EBADMSG, "%s: offset %" PRIu64 ": stack %u defined "
					   "as stack %u", s->replay->path, rec->offset,
					   rec->u.stack.id, id);
		return 0;
	case REC_SAMPLE:
		if (s->replay->routes_stale && build_routes(s))
			return -ENOMEM;
		s->now_ns = rec->u.sample.time > s->now_ns ? rec->u.sample.time : s->now_ns;
		if (rec->u.sample.event != s->replay->memstat_id)
			s->replay->samples++;
		deliver_sample(s, &rec->u.sample);
		return 0;
	case REC_KSYM:
		/* Before the stacks it names: the reader checked its range and name. */
		return symbolizer__add_kernel_sym(s->sym, &(struct sym_ksym){
			rec->u.ksym.start, rec->u.ksym.end, rec->u.ksym.name, rec->u.ksym.module });
	case REC_EVENT:
		/* Added while the run went on (session__grow_end), before its
		 * samples: a tool adds its evsels when a META tells it to. */
		if (keep_event(s->replay, &rec->u.event))
			return -ENOMEM;
		s->replay->routes_stale = true;
		session__each_consumer(s, c, event)
			c->event(s, s->replay->nevs - 1, c->ctx);
		return 0;
	case REC_META:
		if (keep_meta(s->replay, &rec->u.meta))
			return -ENOMEM;
		session__each_consumer(s, c, meta)
			c->meta(s, rec->u.meta.key, rec->u.meta.value, c->ctx);
		return 0;
	case REC_LOST:
		/* The tools hear of it where it was, and the count so far is
		 * the session's until END sets the run's total. */
		s->lost += rec->u.lost.count;
		session__each_consumer(s, c, lost)
			c->lost(s, rec->u.lost.count, c->ctx);
		return 0;
	case REC_END:
		s->replay->end_read = true;
		s->stop = (enum session_stop)rec->u.end.stop;
		s->rec_cmd_status = rec->u.end.status;
		s->samples = rec->u.end.samples;
		s->lost = rec->u.end.lost;
		s->bad = rec->u.end.bad;
		s->pauses = rec->u.end.pauses;
		s->paused_ns = rec->u.end.paused_ns;
		for (uint32_t i = 0; i < rec->u.end.nr_counters && i < UNWIND__COUNT; i++)
			s->unwind_stops[i] = rec->u.end.counters[i];
		return 0;
	default:
		return errbuf__set(eb, -EBADMSG, "%s: offset %" PRIu64 ": a %s record among the "
				   "others", s->replay->path, rec->offset, rec_type__name(rec->type));
	}
}

/* Rounds as a live session has them: every 100 ms of recorded time. */
#define ROUND_NS 100000000ULL

/* The time a record carries, or 0 (metadata, stacks, END). */
static uint64_t record_time(const struct rec *rec)
{
	switch (rec->type) {
	case REC_PROC:
		return rec->u.proc.time;
	case REC_MMAP:
		return rec->u.mmap.time;
	case REC_COMM:
		return rec->u.comm.time;
	case REC_FORK:
	case REC_EXIT:
		return rec->u.task.time;
	case REC_SAMPLE:
		return rec->u.sample.time;
	case REC_LOST:
		return rec->u.lost.time;
	default:
		return 0;
	}
}

/* What rounds a replay follows whatever the file says: a day of them, and
 * an hour more for each record read (a corrupt file can hold several wild
 * times alike, which a file's own times cannot tell from real ones). */
#define ROUNDS_FLOOR (86400ULL * 10)
#define ROUNDS_PER_RECORD (3600ULL * 10)

/* Slack past the last record's time: a PROC's time is when /proc was
 * read, a little after the events the ordered queue delivers next. */
#define END_SLACK_NS 1000000000ULL
/* And past the time passed here since the run started: the recording
 * machine's clocks against this one's. */
#define CLOCK_SLACK_NS (86400ULL * 1000000000ULL)

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Read a regular file once ahead: the time of its last timed record, and
 * where it was cut.  That last time is not taken when it is more than a
 * day after every other and after the start (a corrupt last record: a
 * real run that was quiet for a day before it ended costs 864,000 empty
 * rounds, milliseconds).  A
 * file that is corrupt (a reader error) makes the replay fail where it
 * is: its times are not looked at (no rounds), the error is said. */
static void prescan(struct replay *rp, uint64_t start)
{
	struct recreader *r = NULL;
	uint64_t before = start, t, whole = 0;
	struct stat st;
	struct rec rec;
	int ret;

	if (stat(rp->path, &st) || !S_ISREG(st.st_mode) || recreader__open(rp->path, &r, NULL))
		return;
	while ((ret = recreader__next(r, &rec, NULL)) == 1) {
		if ((t = record_time(&rec))) {
			if (rp->last_ns > before)
				before = rp->last_ns;
			rp->last_ns = t;
		}
	}
	if (recreader__cut(r, &whole, &rp->cut_bytes)) {
		rp->cut = true;
		rp->cut_ns = rp->last_ns;
	} else if (ret != 0) {
		rp->corrupt = true;
	}
	if (before && rp->last_ns > add_sat(before, CLOCK_SLACK_NS))
		rp->last_ns = before;
	recreader__free(r);
}

static uint64_t time_bound(const struct session *s)
{
	const struct replay *rp = s->replay;
	uint64_t wall = clock__ns(CLOCK_REALTIME), bound = UINT64_MAX;

	if (s->start_real_ns && wall > s->start_real_ns)
		bound = add_sat(add_sat(s->start_mono_ns, wall - s->start_real_ns), CLOCK_SLACK_NS);
	if (rp->last_ns && add_sat(rp->last_ns, END_SLACK_NS) < bound)
		bound = add_sat(rp->last_ns, END_SLACK_NS);
	return bound;
}

static void warn_cut(struct session *s)
{
	struct replay *rp = s->replay;
	char msg[256];

	if (!rp->cut || rp->cut_told || !rp->warn)
		return;
	rp->cut_told = true;
	snprintf(msg, sizeof(msg), "the recording ends early at %.3f s (%" PRIu64 " bytes of a "
		 "record cut off): no END record", session__elapsed(s, rp->cut_ns), rp->cut_bytes);
	rp->warn(rp->warn_ctx, msg);
}

static void warn_bad_times(struct session *s)
{
	struct replay *rp = s->replay;
	char msg[512];

	if (!rp->bad_times || !rp->warn)
		return;
	snprintf(msg, sizeof(msg), "%" PRIu64 " malformed record%s skipped: timed after the "
		 "recording's end (%.3f s); the first at offset %" PRIu64 ", %.3f s", rp->bad_times,
		 rp->bad_times == 1 ? "" : "s", session__elapsed(s, rp->last_ns ? rp->last_ns :
								  s->now_ns),
		 rp->bad_off, session__elapsed(s, rp->bad_ns));
	rp->warn(rp->warn_ctx, msg);
}

/* One record: the rounds before it, then the record; a record timed past
 * the recording's end is skipped. */
static int replay_one(struct session *s, bool rounds, uint64_t *next_round, const struct rec *rec,
		      struct errbuf *eb)
{
	struct replay *rp = s->replay;
	uint64_t t = record_time(rec), budget;

	budget = add_sat(ROUNDS_FLOOR, (rp->read + rp->bad_times) * ROUNDS_PER_RECORD);
	if (t > rp->end_ns ||
	    (rounds && t >= *next_round &&
	     (t - *next_round) / ROUND_NS >= budget - rp->rounds)) {
		if (!rp->bad_times++) {
			rp->bad_off = rec->offset;
			rp->bad_ns = t;
		}
		return 0;
	}
	/* The rounds a live run had before this record: at each 100 ms
	 * boundary, on that boundary's clock, so an interval report
	 * closes before the first record of the next interval.  (No start
	 * in the metadata, which a recording always has: from its first
	 * time.) */
	if (*next_round == ROUND_NS && t)
		*next_round = t + ROUND_NS;
	while (rounds && t >= *next_round && !rp->corrupt &&
	       !session__stop_requested()) {
		s->now_ns = *next_round;
		session__consumers_round(s);
		*next_round += ROUND_NS;
		rp->rounds++;
	}
	if (s->opts.duration > 0 && t > s->start_mono_ns &&
	    t - s->start_mono_ns >= (uint64_t)(s->opts.duration * 1e9)) {
		s->stop = SESSION_STOP_DURATION;
		return 0;
	}
	rp->read++;
	return apply(s, rec, eb);
}

static int replay_run(struct session *s, struct errbuf *eb)
{
	bool rounds = session__consumers_want_round(s);
	struct replay *rp = s->replay;
	uint64_t next_round = s->start_mono_ns + ROUND_NS, whole = 0;
	struct rec rec;
	int ret = 1, err = 0;

	if (build_routes(s))
		return -ENOMEM;
	prescan(rp, s->start_mono_ns);
	rp->end_ns = time_bound(s);
	warn_cut(s);
	session__consumers_ready(s);
	if (rp->have_first) {
		err = replay_one(s, rounds, &next_round, &rp->first, eb);
		rp->have_first = false;
	}
	while (!err && !rp->ended && !s->stop && (ret = recreader__next(rp->r, &rec, eb)) == 1) {
		if (session__stop_requested()) {
			s->stop = SESSION_STOP_SIGNAL;	/* Ctrl-C, or a tool done early */
			break;
		}
		err = replay_one(s, rounds, &next_round, &rec, eb);
	}
	if (!err && session__stop_requested())
		s->stop = SESSION_STOP_SIGNAL;
	if (!err && ret == -ENODATA && recreader__cut(rp->r, &whole, &rp->cut_bytes)) {
		/* Cut short: what it holds, and no END's totals but ours. */
		if (!rp->cut) {
			rp->cut = true;
			rp->cut_ns = s->now_ns;
		}
		/* Why it stopped, as END would have said: the target's exit
		 * when it was read, else the recorder's end (a signal). */
		if (!s->stop)
			s->stop = s->rec_is_cmd && rp->target_exited ? SESSION_STOP_TARGET_EXIT :
								       SESSION_STOP_SIGNAL;
		ret = 0;
		warn_cut(s);
	} else if (!err && ret < 0) {
		err = read_error(rp, ret, eb);
	}
	if (!err && rp->end_read)
		err = check_tail(rp, eb);
	/* Cut short, or stopped (a signal, --duration) before END: the
	 * samples replayed, not 0 (END's total is the whole run's). */
	if (!err && !rp->end_read)
		s->samples = rp->samples;
	s->bad += rp->bad_times;
	warn_bad_times(s);
	if (!err && rounds)
		session__consumers_round(s);
	return err;
}

bool session__replay_cut(const struct session *s, double *at, uint64_t *bytes)
{
	if (!s->replay || !s->replay->cut)
		return false;
	if (at)
		*at = session__elapsed(s, s->replay->cut_ns);
	if (bytes)
		*bytes = s->replay->cut_bytes;
	return true;
}

static uint64_t replay_now(const struct session *s)
{
	return s->now_ns;
}

static time_t replay_wall(const struct session *s)
{
	return (time_t)(session__realtime(s, s->now_ns) / 1000000000ULL);
}

static pid_t replay_target_pid(const struct session *s)
{
	return s->rec_target_pid;
}

static bool replay_is_cmd(const struct session *s)
{
	return s->rec_is_cmd;
}

static int replay_cmd_status(const struct session *s)
{
	return s->rec_cmd_status;
}

static bool replay_dwarf(const struct session *s)
{
	const char *cg = replay_meta(s, "call_graph");

	return cg && !strcmp(cg, "dwarf");
}

static const struct session_source replay_source = {
	.name = "recording",
	.learns_processes = false,
	.add_tracepoint = replay_add_tracepoint,
	.add_uprobe = replay_add_uprobe,
	.add_software = replay_add_software,
	.add_kprobe = replay_add_kprobe,
	.add_memstat = replay_add_memstat,
	.uprobe_locate = replay_uprobe_locate,
	.set_filter = session__filter_here,
	.run = replay_run,
	.stack = replay_stack,
	.now = replay_now,
	.wall = replay_wall,
	.target_pid = replay_target_pid,
	.is_cmd = replay_is_cmd,
	.cmd_status = replay_cmd_status,
	.dwarf = replay_dwarf,
	.meta = replay_meta,
	.free = replay_free,
};
