/*
 * faultline cachetop: page-cache hits, misses and dirties per process, in
 * BCC cachetop's columns:
 *
 *   PID      UID      CMD              HITS     MISSES   DIRTIES  READ_HIT%  WRITE_HIT%
 *
 * On a terminal the screen is cleared and redrawn every interval (default
 * 5 s), as BCC's curses display: q quits, r reverses the order, < and >
 * move the sort column (default HITS, descending).  Anywhere else (a pipe,
 * a file) each interval is one block: the status line, the column header,
 * the rows and an empty line.
 *
 * HITS/MISSES/DIRTIES mean what they mean in `faultline cache` (the same
 * rung, the same formula, per process); READ_HIT% is hits over read
 * accesses and WRITE_HIT% dirtied pages that were already cached over
 * dirtied pages.  BCC's cachetop uses other formulas (HITS includes
 * buffer dirtying, the percentages are of all events: bcc#1586), which do
 * not add up to cachestat's; ours do.
 *
 * Events are attributed to the process in whose context they fired
 * (sample pid); -p traces one process only (in the kernel, per task).
 *
 * From a recording (faultline report -i FILE cachetop) the blocks are the
 * recorded run's, on its clock, with the recorded command names; what
 * live is read from /proc (a process's owner, Buffers and Cached) is not
 * recorded: UID shows "?" and the MB figures 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/cachestat.h"
#include "cmd/out/lost.h"
#include "cmd/out/screen.h"
#include "cmd/tool-shared.h"
#include "lib/file.h"
#include "lib/keyed.h"
#include "lib/passwd.h"
#include "trace/session.h"
#include "cmd/tool.h"

#define TOOL "cachetop"

enum { COL_PID, COL_UID, COL_CMD, COL_HITS, COL_MISSES, COL_DIRTIES, COL_RHIT, COL_WHIT, COL__N };
static const char *const col_names[COL__N] = {
	"PID", "UID", "CMD", "HITS", "MISSES", "DIRTIES", "READ_HIT%", "WRITE_HIT%"
};

struct top_row {
	pid_t pid;
	char user[32];
	char comm[17];
	struct cache_row r;
};

struct proc_info {
	char user[32];
	char comm[17];
};

struct top {
	struct tool_opts *o;
	pid_t pid;
	struct tool_interval every;
	bool tty;
	struct screen *sc;		/* the terminal (cmd/out/screen.h) */
	int sort_col;
	bool ascending;
	struct session *s;
	struct top_row *rows;
	size_t nrows, caprows;
	struct keyed *infos;		/* pid -> struct proc_info */
	double buffers_mb, cached_mb;
	const char *label;
	char stamp[16];
	struct cache_run_ops ops;
	struct cache_run run;
	int err;
};

/* ---- who a pid is ------------------------------------------------------- */

static void user_name(uid_t uid, char *buf, size_t n)
{
#ifdef FL_STATIC_BINARY
	/* No NSS in the static binary (lib/passwd.h): /etc/passwd only. */
	if (passwd__name("/etc/passwd", uid, buf, n))
		snprintf(buf, n, "UNKNOWN(%u)", (unsigned int)uid);
#else
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (!getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) && res)
		snprintf(buf, n, "%s", pw.pw_name);
	else
		snprintf(buf, n, "UNKNOWN(%u)", (unsigned int)uid);
#endif
}

/* Name and owner of @pid from /proc/PID/status, looked up once per pid;
 * NULL on no memory. */
static bool replaying(const struct top *t)
{
	return t->s && session__replaying(t->s);
}

static const struct proc_info *proc_info(struct top *t, pid_t pid)
{
	char path[64], *text = NULL, *p;
	struct proc_info *pi;
	unsigned int uid;
	int created = 0;

	pi = keyed__get(t->infos, (uint64_t)pid, &created);
	if (!pi || !created)
		return pi;
	snprintf(pi->user, sizeof(pi->user), "?");
	snprintf(pi->comm, sizeof(pi->comm), "?");
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	/* A replay's pids are the recorded machine's, not this one's. */
	if (!replaying(t) && read_file(path, 1u << 16, &text, NULL) == 0) {
		p = strstr(text, "Name:");
		if (p && sscanf(p, "Name: %16[^\n]", pi->comm) != 1)
			snprintf(pi->comm, sizeof(pi->comm), "?");
		p = strstr(text, "\nUid:");
		if (p && sscanf(p, "\nUid: %u", &uid) == 1)
			user_name((uid_t)uid, pi->user, sizeof(pi->user));
	}
	free(text);
	return pi;
}

/* ---- screen ------------------------------------------------------------------ */

static int cmp_rows(const struct top_row *a, const struct top_row *b, int col)
{
	switch (col) {
	case COL_PID:
		return (a->pid > b->pid) - (a->pid < b->pid);
	case COL_UID:
		return strcmp(a->user, b->user);
	case COL_CMD:
		return strcmp(a->comm, b->comm);
	case COL_HITS:
		return (a->r.hits > b->r.hits) - (a->r.hits < b->r.hits);
	case COL_MISSES:
		return (a->r.misses > b->r.misses) - (a->r.misses < b->r.misses);
	case COL_DIRTIES:
		return (a->r.dirties > b->r.dirties) - (a->r.dirties < b->r.dirties);
	case COL_RHIT:
		return (a->r.read_hit_pct > b->r.read_hit_pct) - (a->r.read_hit_pct < b->r.read_hit_pct);
	default:
		return (a->r.write_hit_pct > b->r.write_hit_pct) - (a->r.write_hit_pct < b->r.write_hit_pct);
	}
}

/* Insertion sort: a screen is at most a few hundred rows, and qsort has no
 * context argument for the column. Ties are broken by pid, ascending. */
static void sort_rows(struct top *t)
{
	for (size_t i = 1; i < t->nrows; i++) {
		struct top_row key = t->rows[i];
		size_t j = i;

		while (j > 0) {
			int c = cmp_rows(&t->rows[j - 1], &key, t->sort_col);

			if (!t->ascending)
				c = -c;
			if (c < 0 || (c == 0 && t->rows[j - 1].pid <= key.pid))
				break;
			t->rows[j] = t->rows[j - 1];
			j--;
		}
		t->rows[j] = key;
	}
}

static void draw(struct top *t)
{
	unsigned int rows = 0;
	size_t max = t->nrows;

	/* Stopped and continued in the background: the shell's terminal. */
	if (t->tty && screen__off(t->sc))
		return;
	sort_rows(t);
	if (t->tty) {
		/* The alternate screen, as curses: the shell's screen comes
		 * back at exit.  Home and clear, then fill at most the screen. */
		screen__enter(t->sc, &rows, NULL);
		printf(SCREEN_HOME SCREEN_CLEAR);
		if (rows > 2 && max > (size_t)rows - 2u)
			max = (size_t)rows - 2u;
	}
	printf("%-8s Buffers MB: %.0f / Cached MB: %.0f / Sort: %s / Order: %s\n", t->stamp, t->buffers_mb,
	       t->cached_mb, col_names[t->sort_col], t->ascending ? "ascending" : "descending");
	printf("%s%-8s %-8s %-16s %-8s %-8s %-8s %-10s %-10s%s\n", t->tty ? SCREEN_REVERSE : "", "PID",
	       "UID", "CMD", "HITS", "MISSES", "DIRTIES", "READ_HIT%", "WRITE_HIT%",
	       t->tty ? SCREEN_PLAIN : "");
	for (size_t i = 0; i < max; i++) {
		const struct top_row *r = &t->rows[i];

		printf("%8d %-8.8s %-16s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9.1f%% %9.1f%%\n",
		       (int)r->pid, r->user, r->comm, r->r.hits, r->r.misses, r->r.dirties,
		       r->r.read_hit_pct, r->r.write_hit_pct);
	}
	if (!t->tty)
		printf("\n");
	fflush(stdout);
}

static int on_interval(void *ctx, struct cache_source *cs, bool final)
{
	struct top *t = ctx;
	const struct cache_proc *procs = NULL;
	struct cache_tally total;
	size_t n = 0;
	time_t secs;
	struct tm tm;
	int err;

	err = cache_source__take(cs, &total, &procs, &n);
	if (err) {
		t->err = err;
		return 1;
	}
	if (n > t->caprows) {
		struct top_row *nv = realloc(t->rows, n * sizeof(*nv));

		if (!nv) {
			t->err = -ENOMEM;
			return 1;
		}
		t->rows = nv;
		t->caprows = n;
	}
	t->nrows = 0;
	for (size_t i = 0; i < n; i++) {
		const struct proc_info *pi = proc_info(t, procs[i].pid);
		struct top_row *r = &t->rows[t->nrows];

		if (!pi) {
			t->err = -ENOMEM;
			return 1;
		}
		r->pid = procs[i].pid;
		snprintf(r->user, sizeof(r->user), "%s", pi->user);
		/* The side-band's name follows exec; /proc's is the fallback. */
		snprintf(r->comm, sizeof(r->comm), "%s",
			 t->s && strcmp(session__comm(t->s, r->pid), "?") ? session__comm(t->s, r->pid) :
									 pi->comm);
		cache_tally__row(&procs[i].t, cache_source__formula(cs), &r->r);
		t->nrows++;
	}
	/* Who a pid is is learnt again each interval: pids are reused. */
	{
		struct keyed *fresh = keyed__new(sizeof(struct proc_info));

		if (!fresh) {
			t->err = -ENOMEM;
			return 1;
		}
		keyed__free(t->infos);
		t->infos = fresh;
	}
	if (!replaying(t))
		cache_meminfo__read(NULL, &t->buffers_mb, &t->cached_mb);
	secs = t->s ? session__wall(t->s) : time(NULL);
	localtime_r(&secs, &tm);
	strftime(t->stamp, sizeof(t->stamp), "%H:%M:%S", &tm);
	/* A terminal's last screen stays as it was: Ctrl-C only ends it. */
	if (!final || !t->tty)
		draw(t);
	return 0;
}

/* Keys on a terminal: q quits, r reverses, < and > move the sort column. */
static int on_idle(void *ctx)
{
	struct top *t = ctx;
	const struct cache_proc *procs;
	bool redraw = false;
	size_t n;
	int ch;

	/* Learn who new pids are while they run: most page-cache users are
	 * short-lived, and /proc forgets them at exit. */
	cache_source__peek(t->run.cs, &procs, &n);
	for (size_t i = 0; i < n && !replaying(t); i++)
		if (!proc_info(t, procs[i].pid)) {
			t->err = -ENOMEM;
			return 1;
		}
	/* No key without screen__keys_on() (a terminal on both ends). */
	while ((ch = screen__key(t->sc)) != SCREEN_KEY_NONE) {
		if (ch == 'q' || ch == 'Q')
			return 1;
		if (ch == 'r') {
			t->ascending = !t->ascending;
			redraw = true;
		} else if (ch == '<') {
			t->sort_col = (t->sort_col + COL__N - 1) % COL__N;
			redraw = true;
		} else if (ch == '>') {
			t->sort_col = (t->sort_col + 1) % COL__N;
			redraw = true;
		}
	}
	/* Continued (fg): the screen is blank, drawn again at once. */
	if (screen__resumed(t->sc))
		redraw = true;
	if (redraw && t->stamp[0])
		draw(t);
	return 0;
}

static void on_ready(void *ctx)
{
	struct top *t = ctx;

	/* A report prints the report alone, and what it lacks.  The /proc
	 * rung's own loop says when it is live; a session's, the driver. */
	if (replaying(t))
		fprintf(stderr, "faultline " TOOL ": a recording does not hold /proc/meminfo or the "
			"processes' owners: Buffers MB and Cached MB show 0, UID ?\n");
	else if (!t->s)
		tool__banner(t->o, "page cache", t->label, false);
}

static const struct tool_option cachetop_options[] = {
	OPT_SHARED(TOOL_SHARED_PID, "this process only"),
	OPT_SHARED(TOOL_SHARED_ALL, "every process (the default)"),
	OPT_END,
};

static const struct tool_cmdline cachetop_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_NO_SHARED & ~(TOOL_OPT_NO_PID | TOOL_OPT_NO_ALL),
	.options = cachetop_options,
	.text = {
		.args = "[interval [count]]",
		.intro = "\nPage-cache hits, misses and dirties per process, as BCC cachetop.\n\n",
		.args_help = TOOL_ARGS_INTERVAL("seconds between screens (default 5)",
						"screens to show, then exit (default: until q or Ctrl-C)"),
		.notes = "\nOn a terminal: q quit, r reverse the order, < > change the sort column.\n"
			 "Elsewhere (pipe, file): one block per interval.\n",
	},
	.positional = tool_opts__interval_positional,
};

static int top_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc, char **argv)
{
	struct top *t = ctx;
	int ret;

	t->sort_col = COL_HITS;
	t->every.secs = 5;
	/* -p only: per process, and system-wide without it (or with -a, as
	 * faultline record says it). */
	ret = tool_opts__parse_cmdline(o, mode, &cachetop_cmdline, &t->every, argc, argv);
	if (ret)
		return ret;
	t->o = o;
	t->pid = o->sess.pid;
	t->infos = keyed__new(sizeof(struct proc_info));
	if (!t->infos)
		return -ENOMEM;
	if (screen__new(&t->sc))
		return -ENOMEM;
	t->tty = screen__tty(t->sc);
	o->all = !t->pid;
	o->sess.no_maps = true;
	t->ops = (struct cache_run_ops){ .ready = on_ready, .interval = on_interval, .idle = on_idle,
					 .ctx = t };
	return 0;
}

static int top_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			  struct errbuf *eb)
{
	struct top *t = ctx;

	t->s = s;
	t->label = label;
	return cache_run__open(&t->run, rung, true, t->pid, s, t->every.secs, t->every.count,
			       &t->ops, eb);
}

static void top_before_run(void *ctx)
{
	screen__keys_on(((struct top *)ctx)->sc);
}

static void top_ready(void *ctx)
{
	cache_run__ready(&((struct top *)ctx)->run);
}

static void top_round(void *ctx)
{
	cache_run__round(&((struct top *)ctx)->run);
}

/* The /proc rung's run: no session.  The terminal is restored before
 * any error is said. */
static int top_procfs(void *ctx, struct session *s, struct errbuf *eb)
{
	struct top *t = ctx;
	int err;

	(void)s;
	err = cache_run__procfs(&t->run, eb);
	screen__end(t->sc);	/* keys echoed, the shell's screen back */
	return err;
}

static int top_report(void *ctx, struct session *s)
{
	struct top *t = ctx;

	cache_run__end(&t->run);
	screen__end(t->sc);	/* keys echoed, the shell's screen back */
	if (t->err)
		return tool__fail(TOOL, NULL, t->err);
	if (s && session__lost(s))
		lost__warn(s, TOOL, session__lost(s), NULL);
	return EXIT_OK;
}

static void top_fini(void *ctx)
{
	struct top *t = ctx;

	screen__free(t->sc);
	cache_run__close(&t->run);
	keyed__free(t->infos);
	free(t->rows);
}

const struct tool cachetop_tool = {
	.cmdline = &cachetop_cmdline,
	.name = TOOL,
	.ladder = &cachetop_ladder,	/* cmd-cache.c */
	.stacks = TOOL_STACKS_NONE,
	.what = "page cache",
	.flags = TOOL_RECORDS | TOOL_REPLAYS,
	/* The vmstat rung needs no tracefs: chosen before opening a session. */
	.bare_rung = "vmstat",
	.size = sizeof(struct top),
	.init = top_init,
	.add_events = top_add_events,
	.before_run = top_before_run,
	.ready = top_ready,
	.round = top_round,
	.run = top_procfs,
	.report = top_report,
	.fini = top_fini,
};
