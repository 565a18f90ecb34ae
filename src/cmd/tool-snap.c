/*
 * tool-snap: --output FILE and snapshots for the driver (see tool-snap.h).
 *
 * --output points the process's stdout stream (glibc's stdout is a
 * variable: the manual's "Standard Streams") at the file, through an
 * ostream that keeps the first failed write's errno; file descriptor 1
 * is untouched, so a command run with -c or -- writes where faultline's
 * stdout went.  A snapshot is the tool's snapshot callback, headed by
 * "--- snapshot N at T s ---" (text) or a "snapshot" object (JSON).
 *
 * May call: lib (errbuf, ostream, file, stopsig), agg/every, trace/session, and
 * print (it is cmd/'s).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/exit-codes.h"
#include "cmd/tool.h"
#include "cmd/tool-opts.h"
#include "cmd/tool-snap.h"
#include "lib/errbuf.h"
#include "lib/file.h"
#include "lib/ostream.h"
#include "lib/stopsig.h"
#include "trace/session.h"

/* @path as a regular file to write, emptied: the fd, or -errno (-EINVAL:
 * not a regular file).  faultline runs as root where a user said: a new
 * file is made without following a symlink, and an existing one is
 * opened only as the regular file lstat-like checks found (open_inode:
 * no FIFO waited on, no device opened). */
static int open_report_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0 && errno == EEXIST)
		fd = open_inode(path, O_NOFOLLOW, O_WRONLY, inode_regular, NULL);
	else if (fd < 0)
		fd = -errno;
	if (fd >= 0 && ftruncate(fd, 0) != 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int tool_snap__output(struct tool_snap *sn, const char *tool, const char *path)
{
	int fd = open_report_file(path), err;

	if (fd == -EINVAL || fd == -ELOOP || fd == -EISDIR) {
		fprintf(stderr, "faultline %s: cannot write the report to '%s': it is %s (--output "
			"takes a regular file)\n", tool, path, tool__file_kind(path, true));
		return -1;
	}
	if (fd < 0) {
		fprintf(stderr, "faultline %s: cannot write the report to '%s': %s\n", tool, path,
			strerror(-fd));
		return -1;
	}
	err = ostream__fdopen(fd, &sn->out);
	if (err) {
		fprintf(stderr, "faultline %s: cannot write the report to '%s': %s\n", tool, path,
			strerror(-err));
		return -1;
	}
	fflush(stdout);
	sn->tool = tool;
	sn->path = path;
	sn->stdout_was = stdout;
	stdout = ostream__file(sn->out);
	return 0;
}

int tool_snap__close(struct tool_snap *sn, int status)
{
	struct errbuf eb = { "" };
	int err;

	if (!sn->out)
		return status;
	stdout = sn->stdout_was;
	err = tool__output_close(sn->path, sn->out, 0, &eb);
	sn->out = NULL;
	return err && status == EXIT_OK ? tool__fail(sn->tool, &eb, err) : status;
}

/* One snapshot, now (@asked: SIGUSR1's, else the clock's); false when
 * it failed.  A tool without: one line each SIGUSR1, once for the clock. */
static bool snapshot(struct tool_snap *sn, bool asked)
{
	double t = session__elapsed(sn->s, session__now(sn->s));
	int st;

	if (!sn->fn || sn->o->folded) {
		if (asked || !sn->said)
			fprintf(stderr, "faultline %s: no snapshot: %s\n", sn->tool, sn->fn ?
				"--folded output is one run's stacks" :
				"this tool's report is made once, at the end of the run");
		sn->said = true;
		return true;
	}
	sn->index++;
	if (sn->o->json)
		printf("{\"type\":\"snapshot\",\"index\":%u,\"time_s\":%.3f}\n", sn->index, t);
	else
		printf("--- snapshot %u at %.3f s ---\n", sn->index, t);
	st = sn->fn(sn->st, sn->s);
	fflush(stdout);
	if (st != EXIT_OK) {
		sn->status = st;
		return false;
	}
	return true;
}

static int every_snapshot(void *ctx)
{
	struct tool_snap *sn = ctx;

	return snapshot(sn, false) ? 0 : 1;
}

void tool_snap__begin(struct tool_snap *sn, const struct tool_opts *o, struct session *s,
		      int (*fn)(void *st, struct session *s), void *st)
{
	sn->tool = o->name;
	sn->o = o;
	sn->s = s;
	sn->fn = fn;
	sn->st = st;
	sn->asked = stopsig__snapshots_asked();
	stopsig__snapshots(true);
	sn->every_on = o->snapshot_secs > 0;
	if (sn->every_on)
		every__init(&sn->every, s, o->snapshot_secs, 0, every_snapshot, sn);
}

void tool_snap__ready(struct tool_snap *sn)
{
	if (sn->every_on)
		every__ready(&sn->every);
}

bool tool_snap__round(struct tool_snap *sn)
{
	unsigned int asked = stopsig__snapshots_asked();

	/*
	 * Served two rounds after the one that saw the signal: every record
	 * written before the signal is then delivered (a round's read takes
	 * what the rings hold as it starts, and delivers a CPU's records up to
	 * the oldest newest one of the others, which the next round passes),
	 * so a snapshot taken once the program has done a step shows all of
	 * it.  Signals that come meanwhile ask for that one snapshot.
	 */
	if (asked != sn->asked) {
		sn->asked = asked;
		if (!sn->wait)
			sn->wait = 2;
	}
	if (sn->wait && --sn->wait == 0 && !snapshot(sn, true))
		return true;
	if (sn->every_on && sn->fn && !sn->o->folded) {
		every__round(&sn->every);
		return sn->status != 0;
	}
	if (sn->every_on && !sn->said)
		snapshot(sn, false);	/* says why not, once */
	return false;
}

void tool_snap__stop(struct tool_snap *sn)
{
	(void)sn;
	stopsig__snapshots(false);
}
