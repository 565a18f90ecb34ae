/*
 * tool: the life of a tracing tool, the same for its command line, for
 * faultline record and for faultline report (see tool.h), and the driver's
 * parts the commands share: the session and rung (tool__start), the
 * "Tracing" line, the run, the output and the exit status.  It may call
 * every layer below cmd/ and the commands' own lost.c; only cmd/ prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agg/alloc-trace.h"
#include "cmd/commands.h"
#include "cmd/out/lost.h"
#include "cmd/out/screen.h"
#include "cmd/out/status.h"
#include "cmd/tool.h"
#include "cmd/tool-opts.h"
#include "cmd/tool-snap.h"
#include "features.h"
#include "ladder.h"
#include "lib/errbuf.h"
#include "lib/file.h"
#include "lib/ostream.h"
#include "lib/stopsig.h"
#include "trace/perf-event.h"
#include "trace/session.h"

struct tool_run {
	const struct tool *t;
	struct tool_opts o;
	struct session *s;
	const char *rung, *label;
	const struct ladder *ladder;	/* t's, or its variant's */
	const char *what;		/* likewise */
	void *st;			/* t's state, its init ran */
	uint64_t lost_said;		/* events lost, as last said during the run */
	uint64_t lost_said_ns;		/* when */
	bool cut_said;			/* a cut recording's caveat is out */
	struct status *status;		/* the line on a terminal, or NULL */
	struct tool_snap snap;		/* --output, snapshots */
};

void tool_run__free(struct tool_run *r)
{
	if (!r)
		return;
	status__free(r->status);
	tool_snap__close(&r->snap, EXIT_FAIL);
	if (r->t->fini)
		r->t->fini(r->st);
	session__free(r->s);
	free(r->st);
	free(r);
}

/* The session and the rung; 0, or -1 after printing why. */
static int start(struct tool_run *r)
{
	const struct tool *t = r->t;

	r->ladder = t->ladder;
	r->what = t->what;
	if (t->variant)
		t->variant(r->st, &r->ladder, &r->what);
	r->o.name = t->name;	/* heap's messages are heap's, on leak's ladder */
	if (t->bare_rung)
		return tool__start_bare(&r->o, r->ladder, t->bare_rung, &r->s, &r->rung, &r->label);
	r->s = tool__start(&r->o, r->ladder, &r->rung, &r->label);
	return r->s ? 0 : -1;
}

/* The counters rung refused (a line printed): true. */
static bool counters_refused(const struct tool_run *r)
{
	const struct tool_counters *c = &r->t->counters;
	const char *loses = c->loses;

	if (!c->rung || !ladder__is(r->rung, c->rung))
		return false;
	if (!loses)
		loses = r->o.sess.cmd ? "the counts are not limited to the command"
				      : "the counts are not limited to -p";
	return tool__counters_rung(&r->o, r->t->name, c->source, c->what, loses);
}

int tool__setup(const struct tool *t, const struct tool_mode *mode, int argc, char **argv,
		struct tool_run **run)
{
	struct errbuf eb = { "" };
	struct tool_run *r;
	int err, ret = EXIT_FAIL;

	*run = NULL;
	r = calloc(1, sizeof(*r));
	if (r)
		r->st = calloc(1, t->size ? t->size : 1);
	if (!r || !r->st) {
		free(r);
		fprintf(stderr, "faultline %s: out of memory\n", t->name);
		return EXIT_FAIL;
	}
	r->t = t;
	err = t->init(r->st, &r->o, mode, argc, argv);
	if (err) {
		if (err == 1)
			ret = EXIT_OK;
		else if (err == -EINVAL)
			ret = EXIT_USAGE;
		else if (err == TOOL_INIT_FAILED)
			ret = EXIT_FAIL;
		else
			ret = tool__fail(t->name, NULL, err);
		goto fail;
	}
	/* Only user stacks unwound from a copy need DWARF's large rings. */
	if (t->stacks != TOOL_STACKS_USER)
		r->o.sess.callgraph = CALLGRAPH_FP;
	if (r->o.output && tool_snap__output(&r->snap, t->name, r->o.output))
		goto fail;
	if (start(r) || counters_refused(r))
		goto fail;
	err = t->add_events(r->st, r->s, r->rung, r->label, &eb);
	if (err < 0)
		tool__fail(t->name, &eb, err);
	if (err)
		goto fail;
	*run = r;
	return EXIT_OK;
fail:
	ret = tool__exit_status(&r->o, NULL, ret);
	tool_run__free(r);
	return ret;
}

/*
 * A recording cut short is said before any result, in the output's own
 * format (stderr has it from the replay): when the replay starts for a
 * file read ahead, when it ends for a pipe.  Folded output is FlameGraph's
 * input: nothing there.
 */
static void say_cut(struct tool_run *r)
{
	uint64_t bytes = 0;
	double at = 0;

	if (r->cut_said || !session__replay_cut(r->s, &at, &bytes) || r->o.folded)
		return;
	r->cut_said = true;
	if (r->o.json)
		printf("{\"type\":\"truncated\",\"ends_at_s\":%.3f,\"cut_bytes\":%" PRIu64
		       ",\"message\":\"the recording ends early at %.3f s (%" PRIu64 " bytes of a "
		       "record cut off): no END record\"}\n", at, bytes, at, bytes);
	else
		printf("WARNING: the recording ends early at %.3f s (%" PRIu64 " bytes of a record "
		       "cut off): no END record\n", at, bytes);
}

/* The status line, when due: the session's figures and the tool's. */
static void status_tick(struct tool_run *r)
{
	char head[256] = "";
	uint64_t now;

	if (!r->status)
		return;
	now = session__now(r->s);
	if (!status__due(r->status, now))
		return;
	if (r->t->headline)
		r->t->headline(r->st, head, sizeof(head));
	status__show(r->status, now, session__samples(r->s), session__lost(r->s), head);
}

/*
 * A live run on a terminal keeps a status line there from now on; not one
 * that runs a command (-c, --): the command writes to the same terminal
 * whenever it likes, out of faultline's reach, and its lines would be
 * glued to the status line's ("...in 187 allocationshi").
 */
static void status_begin(struct tool_run *r)
{
	if (tool__replaying(&r->o) || r->o.sess.cmd || !status__wanted(r->o.quiet) ||
	    status__new(STDERR_FILENO, session__now(r->s), session__samples(r->s), &r->status))
		return;
	if (status__take_streams(r->status, status__stdout_shared() && !r->o.output)) {
		status__free(r->status);
		r->status = NULL;
	}
	status_tick(r);
}

/* Tracing is live: the tool's ready hook, then the line that says so. */
static void on_ready(void *ctx)
{
	struct tool_run *r = ctx;

	say_cut(r);
	if (r->t->ready)
		r->t->ready(r->st);
	tool_snap__ready(&r->snap);
	/* No .what: the tool's ready said its own line (swapin's). */
	if (r->what)
		tool__banner(&r->o, r->what, r->label, r->t->flags & TOOL_NO_TARGET);
	status_begin(r);
}

/*
 * Events lost while the tool runs are said as they happen, before what the
 * round prints next (an interval's rows, the events that follow): at most
 * once a second, with the total so far.  The tools' reports say the total
 * again, before the results it shortens.
 */
static void say_lost(struct tool_run *r)
{
	uint64_t lost = session__lost(r->s), now = session__now(r->s);

	if (lost <= r->lost_said || (r->lost_said && now - r->lost_said_ns < 1000000000ULL))
		return;
	lost__warn(r->s, r->t->name, lost, "so far, a ring buffer was full, and what is printed "
		   "from here on is short of them");
	r->lost_said = lost;
	r->lost_said_ns = now;
}

static void on_round(void *ctx)
{
	struct tool_run *r = ctx;

	say_lost(r);
	if (r->t->round)
		r->t->round(r->st);
	if (tool_snap__round(&r->snap))
		session__stop(r->s);
	status_tick(r);
}

int tool__drive(struct tool_run *r)
{
	const struct tool *t = r->t;
	struct errbuf eb = { "" };
	int err;

	if (t->before_run)
		t->before_run(r->st);
	fflush(stdout);
	/* A tool with a bare rung has its own loop there only. */
	if (!r->s) {
		if (r->o.snapshot_secs > 0)
			fprintf(stderr, "faultline %s: no snapshot: %s reads its counters in its own "
				"loop\n", t->name, r->label);
		err = t->run(r->st, r->s, &eb);
		if (err)
			return tool__fail(t->name, &eb, err);
	} else {
		tool_snap__begin(&r->snap, &r->o, r->s, t->snapshot, r->st);
		err = tool__run_with(r->s, &r->o, t->name, NULL, r->label, on_ready, on_round, r);
		tool_snap__stop(&r->snap);
		if (err)
			return EXIT_FAIL;
		if (r->snap.status)
			return r->snap.status;
	}
	status__end(r->status);	/* gone before the report */
	if (r->s)
		say_cut(r);
	return t->report(r->st, r->s);
}

int tool__main(const struct tool *t, const struct tool_mode *mode, int argc, char **argv)
{
	struct tool_run *r;
	int ret;

	ret = tool__setup(t, mode, argc, argv, &r);
	if (!r)
		return ret;
	ret = tool__drive(r);
	/* Checked before the command's status takes its place. */
	ret = tool__exit_status(&r->o, r->s, tool__output_status(tool_snap__close(&r->snap, ret)));
	tool_run__free(r);
	return ret;
}

/* stdout's buffer when it is not a terminal: larger than any one event's
 * lines (a deep stack with --srcline is a few KiB) many times over. */
#define OUTPUT_BUFFER (4u << 20)

bool tool__recording(const struct tool_opts *o)
{
	return o->mode->record != NULL;
}

bool tool__refuse_live(const struct tool_opts *o, const char *tool, const char *what)
{
	if (!o->mode->record && !o->mode->replay)
		return false;
	fprintf(stderr, "faultline %s: its source here reads %s, which %s\n", tool, what,
		o->mode->record ? "cannot be recorded" : "a recording does not hold");
	return true;
}

bool tool__counters_rung(const struct tool_opts *o, const char *tool, const char *refused,
			 const char *what, const char *loses)
{
	if (tool__refuse_live(o, tool, refused))
		return true;
	if (o->sess.pid > 0 || o->sess.cmd || o->stacks)
		fprintf(stderr, "faultline %s: warning: %s is system-wide: %s\n", tool, what, loses);
	return false;
}

bool tool__replaying(const struct tool_opts *o)
{
	return o->mode->replay != NULL;
}

/* Recording: the shared session, with this tool's rung noted in it. */
static struct session *start_recording(struct session *rec, const char *tool, const struct ladder *l,
				       const char **rung_key, const char **rung_label)
{
	char why[8][256], key[64];
	int idx;

	memset(why, 0, sizeof(why));
	idx = l ? ladder__choose(l, session__features(rec), why, 8) : -1;
	if (idx < 0) {
		fprintf(stderr, "faultline record: %s: this kernel offers no event source for it\n",
			tool);
		return NULL;
	}
	*rung_key = l->rungs[idx].key;
	*rung_label = l->rungs[idx].label;
	snprintf(key, sizeof(key), "rung.%s", tool);
	session__record_meta(rec, key, *rung_key);
	return session__ref(rec);
}

void tool__alloc_notes(const char *tool, struct alloc_trace *at)
{
	if (at && alloc_trace__probed(at))
		fprintf(stderr, "faultline %s: %s\n", tool, alloc_trace__probed(at));
	if (at && alloc_trace__warning(at))
		fprintf(stderr, "faultline %s: warning: %s\n", tool, alloc_trace__warning(at));
}

void tool__alloc_late(const char *tool, const char *what, const char *roles, int err,
		      const char *msg)
{
	if (err)
		fprintf(stderr, "faultline %s: cannot probe %s: %s; its calls are not seen\n", tool,
			what, msg && msg[0] ? msg : strerror(-err));
	else
		fprintf(stderr, "faultline %s: probing %s of %s from now on; its earlier calls are "
			"not seen\n", tool, roles, what);
}

int tool__output_status(int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	if (status != EXIT_OK)
		return status;	/* the command said what went wrong */
	if (stopsig__ended_by() == SIGPIPE)
		return status;	/* the reader gone: main.c's line says so */
	if (errno)
		fprintf(stderr, "faultline: cannot write the output: %s\n", strerror(errno));
	else
		fprintf(stderr, "faultline: cannot write the output\n");
	return EXIT_FAIL;
}

int tool__exit_status(const struct tool_opts *o, const struct session *s, int own)
{
	int st;

	/* A recording's command ran long ago: report's status is its own. */
	if (!o->sess.cmd || (o->mode && (o->mode->replay || o->mode->record)))
		return own;
	if (own == EXIT_FAIL)
		return EXIT_CMD_FAIL;
	st = own == EXIT_OK && s ? session__cmd_status(s) : -1;
	if (st == -1)
		return own;	/* -h, usage, or tracing ended before the command */
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return own;
}

int tool__stdout_aside(void)
{
	int fd;

	fflush(stdout);
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int output_error(const char *path, int err, struct errbuf *eb)
{
	return errbuf__set(eb, err, "cannot write '%s': %s", strcmp(path, "-") ? path : "stdout",
			   strerror(-err));
}

int tool__output_open(const char *path, int fd, struct ostream **os, struct errbuf *eb)
{
	int err = fd >= 0 ? ostream__fdopen(fd, os) : ostream__open(path, os);

	if (err == -ESTALE && fd < 0)
		return errbuf__set(eb, err, "'%s' was replaced while it was opened: not writing it",
				   path);
	if (err && fd < 0)
		return errbuf__set(eb, err, "cannot create '%s': %s", path, strerror(-err));
	return err ? output_error(path, err, eb) : 0;
}

int tool__output_close(const char *path, struct ostream *os, int err, struct errbuf *eb)
{
	int cerr = ostream__close(os);

	if (cerr)
		err = cerr;	/* the write's own errno, over ferror's -EIO */
	return err ? output_error(path, err, eb) : 0;
}

const char *tool__file_kind(const char *path, bool nofollow)
{
	struct stat st;

	if ((nofollow ? lstat(path, &st) : stat(path, &st)) != 0)
		return "not a regular file";
	if (S_ISLNK(st.st_mode))
		return "a symbolic link, which is not followed";
	if (S_ISFIFO(st.st_mode))
		return "a FIFO";
	if (S_ISDIR(st.st_mode))
		return "a directory";
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return "a device";
	if (S_ISSOCK(st.st_mode))
		return "a socket";
	return "not a regular file";
}

int tool__check_recording(const char *tool, const char *path)
{
	int fd = open_regular(path, 0);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (fd == -EINVAL)
		fprintf(stderr, "faultline %s: cannot read '%s': it is %s, and a recording is read "
			"from a regular file (save it to one first)\n", tool, path,
			tool__file_kind(path, false));
	else
		fprintf(stderr, "faultline %s: cannot open '%s': %s\n", tool, path, strerror(-fd));
	return -1;
}

int tool__fail(const char *tool, const struct errbuf *eb, int err)
{
	screen__end_active();	/* the words on the shell's screen, not a view's */
	fprintf(stderr, "faultline %s: %s\n", tool, errbuf__str(eb, err));
	return EXIT_FAIL;
}

void tool__perf_note(const char *tool, const struct session *s)
{
	static const struct {
		enum perf_cap cap;
		const char *instead;
	} sideband[] = {
		{ PERF_CAP_DUMMY, "side-band records on a page-fault counter that never samples" },
		{ PERF_CAP_IDENTIFIER, "events told apart by PERF_SAMPLE_ID, every sample with an "
		  "address" },
		{ PERF_CAP_MMAP2, "mappings from PERF_RECORD_MMAP, without device, inode or flags" },
		{ PERF_CAP_COMM_EXEC, "an exec taken as a process's first name change after its "
		  "fork" },
	};
	unsigned int caps = session__perf_caps(s);
	const char *sep = "";

	if (session__replaying(s))
		return;
	for (size_t i = 0; i < sizeof(sideband) / sizeof(sideband[0]); i++) {
		if (caps & (1u << sideband[i].cap))
			continue;
		if (!*sep)
			fprintf(stderr, "faultline %s: this kernel's perf_event_open lacks ", tool);
		fprintf(stderr, "%s%s (Linux %s): %s", sep, perf_cap__name(sideband[i].cap),
			perf_cap__since(sideband[i].cap), sideband[i].instead);
		sep = "; ";
	}
	if (*sep)
		fputc('\n', stderr);
}

/*
 * "falling back to RUNG (WHY; WHY): LOSES" when rung @idx of @l is not the
 * first: why each rung above it could not serve, in the ladder's order,
 * each reason once (the kprobe rungs of a kernel without kprobes share
 * theirs).  Live only: a replay takes the rung the recording holds the
 * events of, which record chose on its kernel; above it, a recording has
 * nothing ("not in the recording"), and a warning of that would be about
 * a choice the report did not make.  report info names each recorded
 * rung and what it loses.
 */
static void say_fallback(const struct tool_opts *o, const char *tool, const struct ladder *l,
			 int idx, char (*why)[256])
{
	/* Room for the label, the loss and the 8 reasons of 256. */
	char line[4096];
	size_t n = sizeof(line), len;

	if (idx <= 0 || o->mode->replay)
		return;
	len = (size_t)snprintf(line, n, "faultline %s: falling back to %s (", tool,
			       l->rungs[idx].label);
	for (int i = 0; i < idx && i < 8 && len < n; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(why[i], why[j]);
		if (!seen)
			len += (size_t)snprintf(line + len, n - len, "%s%s", i ? "; " : "", why[i]);
	}
	if (len < n)
		snprintf(line + len, n - len, "): %s", l->rungs[idx].loses);
	fprintf(stderr, "%s\n", line);
}

/* A recording without @tool's events: which it has, and why record left
 * the tool out when it did (cmd-record.c: META left_out.TOOL). */
static void say_absent(const struct tool_opts *o, const char *tool, const struct session *s)
{
	char key[80];
	const char *why;

	snprintf(key, sizeof(key), "left_out.%s", tool);
	why = session__meta(s, key);
	fprintf(stderr, "faultline %s: the recording %s holds no events for it (recorded: %s)%s%s\n",
		tool, o->mode->replay->path, session__meta(s, "tools") ? session__meta(s, "tools") : "?",
		why ? "; record left it out: " : "", why ? why : "");
}

struct session *tool__start(struct tool_opts *o, const struct ladder *l, const char **rung_key,
			    const char **rung_label)
{
	const char *tool = o->name ? o->name : l ? l->tool : "?";
	char why[8][256];
	struct errbuf eb = { "" };
	struct session *s = NULL;
	int err, idx;

	/* Whole lines, promptly, and cheaply.  A terminal gets each line as
	 * it comes.  Anything else gets one write per batch of events (see
	 * tool__event_done and the round hook): a write per line cost the
	 * reader a tenth of its time under a fast allocator, yet lines must
	 * stay whole, as a -c command may write to the same file. */
	if (isatty(fileno(stdout)))	/* --output's: no fd, not a terminal */
		setvbuf(stdout, NULL, _IOLBF, 0);
	else
		setvbuf(stdout, NULL, _IOFBF, OUTPUT_BUFFER);
	if (o->mode->record)
		return start_recording(o->mode->record, l ? l->tool : tool, l, rung_key, rung_label);
	if (o->mode->replay)
		err = session__new_replay(&o->sess, o->mode->replay, &s, &eb);
	else
		err = session__new(&o->sess, &s, &eb);
	if (err) {
		tool__fail(tool, &eb, err);
		return NULL;
	}
	tool__perf_note(tool, s);
	if (session__stale_groups(s))
		fprintf(stderr, "faultline %s: warning: %zu probe group(s) left by faultline "
			"processes that died; remove them with 'faultline cleanup'\n", tool,
			session__stale_groups(s));
	if (!l) {
		fprintf(stderr, "faultline %s: no event-source ladder for this tool\n", tool);
		session__free(s);
		return NULL;
	}
	memset(why, 0, sizeof(why));
	idx = ladder__choose(l, session__features(s), why, 8);
	if (idx < 0 && o->mode->replay) {
		say_absent(o, tool, s);
		session__free(s);
		return NULL;
	}
	if (idx < 0) {
		fprintf(stderr, "faultline %s: this kernel offers no event source for it", tool);
		for (size_t i = 0; i < l->n && i < 8; i++)
			fprintf(stderr, "%s%s: %s", i ? "; " : ": ", l->rungs[i].label, why[i]);
		fprintf(stderr, " (see 'faultline features')\n");
		session__free(s);
		return NULL;
	}
	*rung_key = l->rungs[idx].key;
	*rung_label = l->rungs[idx].label;
	say_fallback(o, tool, l, idx, why);
	return s;
}

int tool__start_bare(struct tool_opts *o, const struct ladder *l, const char *bare_rung,
		     struct session **s, const char **rung_key, const char **rung_label)
{
	const char *tool = o->name ? o->name : l ? l->tool : "?";
	struct fl_roots roots = { 0 };
	struct features *f = NULL;
	struct errbuf eb = { "" };
	char why[8][256];
	int err, idx, ret = -1;

	*s = NULL;
	/* A recording holds events, not the /proc counters the bare rung
	 * reads: record and report go through the event rungs only. */
	if (o->mode->record || o->mode->replay) {
		*s = tool__start(o, l, rung_key, rung_label);
		if (!*s || !ladder__is(*rung_key, bare_rung))
			return *s ? 0 : -1;
		/* A recording that has none of the tool's events. */
		if (o->mode->replay)
			say_absent(o, tool, *s);
		else
			tool__refuse_live(o, tool, *rung_label);
		session__free(*s);
		*s = NULL;
		return -1;
	}
	err = features__probe(&roots, &f, &eb);
	if (err) {
		tool__fail(tool, &eb, err);
		goto out;
	}
	memset(why, 0, sizeof(why));
	idx = l ? ladder__choose(l, f, why, 8) : -ENOTSUP;
	if (idx < 0) {
		fprintf(stderr, "faultline %s: this kernel offers no event source for it\n", tool);
		goto out;
	}
	if (!ladder__is(l->rungs[idx].key, bare_rung)) {
		*s = tool__start(o, l, rung_key, rung_label);
		ret = *s ? 0 : -1;
		goto out;
	}
	/* The rung cannot single the process out, but a pid that names none
	 * is still a mistake, as session__new would say. */
	if (o->sess.pid > 0 && kill(o->sess.pid, 0) && errno == ESRCH) {
		fprintf(stderr, "faultline %s: no process with pid %d\n", tool, (int)o->sess.pid);
		goto out;
	}
	*rung_key = l->rungs[idx].key;
	*rung_label = l->rungs[idx].label;
	say_fallback(o, tool, l, idx, why);
	ret = 0;
out:
	features__free(f);
	return ret;
}

void tool__event_done(void)
{
	/* Flush between events, well before stdio would flush mid-line. */
	if (__fpending(stdout) > OUTPUT_BUFFER / 2)
		fflush(stdout);
}

struct banner {
	const struct tool_opts *o;
	const char *what, *source;
	void (*ready)(void *ctx);
	void (*round)(void *ctx);
	void *ctx;
};

static void flush_round(struct session *s, void *ctx)
{
	const struct banner *b = ctx;

	(void)s;
	if (b->round)
		b->round(b->ctx);
	fflush(stdout);
}

void tool__banner(const struct tool_opts *o, const char *what, const char *source,
		  bool untargeted)
{
	char target[256];

	/* A report prints the tool's report alone: what was recorded with
	 * what is `faultline report -i FILE info`'s. */
	if (o->mode->replay)
		return;
	tool_opts__describe(o, target, sizeof(target));
	if (untargeted)
		fprintf(stderr, "Tracing %s with %s... Hit Ctrl-C to end.\n", what, source);
	else if (o->sess.cmd)
		fprintf(stderr, "Executing '%s' and tracing %s with %s.\n", o->sess.cmd, what, source);
	else
		fprintf(stderr, "Tracing %s of %s with %s... Hit Ctrl-C to end.\n", what, target,
			source);
}

/* Said when tracing is live, not before: scripts wait for this line. */
static void print_banner(struct session *s, void *ctx)
{
	const struct banner *b = ctx;

	(void)s;
	if (b->ready)
		b->ready(b->ctx);
	if (b->what)
		tool__banner(b->o, b->what, b->source, false);
}

int tool__run(struct session *s, const struct tool_opts *o, const char *tool,
	      const char *what, const char *source)
{
	return tool__run_with(s, o, tool, what, source, NULL, NULL, NULL);
}

int tool__run_with(struct session *s, const struct tool_opts *o, const char *tool,
		   const char *what, const char *source, void (*ready)(void *ctx),
		   void (*round)(void *ctx), void *ctx)
{
	struct banner b = { o, what, source, ready, round, ctx };
	/* The run's own consumer, after the tools': it lives as long as the
	 * session, b until this returns, and the session runs once. */
	struct session_consumer run = { .ready = print_banner, .round = flush_round, .ctx = &b };
	struct errbuf eb = { "" };
	int err, st;

	err = session__add_consumer(s, &run);
	if (!err)
		err = session__run(s, &eb);
	/* The run is over: a screen the tool drew (--live, cachetop) goes
	 * before anything is said, or it would take the words with it. */
	screen__end_active();
	if (err)
		return tool__fail(tool, &eb, err);
	st = session__cmd_status(s);
	if (o->sess.cmd && st != -1) {
		if (WIFEXITED(st) && WEXITSTATUS(st))
			fprintf(stderr, "faultline %s: '%s' exited with status %d\n", tool, o->sess.cmd,
				WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			fprintf(stderr, "faultline %s: '%s' was killed by signal %d (%s)\n", tool,
				o->sess.cmd, WTERMSIG(st), strsignal(WTERMSIG(st)));
	}
	return 0;
}
