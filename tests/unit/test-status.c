/*
 * test-status: the status line of a tracing tool on a terminal
 * (src/cmd/status.c).  The line's text from its figures (elapsed time,
 * events a second, lost events, the tool's headline), cut to the
 * terminal's width at a space, never inside a figure; drawn on a pipe
 * standing for the terminal: erased first, at most 4 looks a second of
 * the caller's clock, not again while the same line is up, the rate over
 * the last one to two seconds; erased for good by status__end; stderr taken
 * through the write function that erases the line before any byte, and
 * given back; and on a pseudo-terminal (posix_openpt): when the line is
 * wanted (a terminal, not TERM=dumb, not --quiet), whether stdout is the
 * same terminal, and the width the terminal says.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd/out/status.h"
#include "check.h"

#define SEC 1000000000ULL
#define MS 1000000ULL
#define ERASE "\r\033[K"

/* heap's headline: bytes in numfmt's short form, counts with separators. */
#define HEAP_LIKE "10.66 KiB outstanding in 40 allocations, peak 10.66 KiB, 4,000 calls"
#define ALLOC_CUT "[0:06] 1,234 events/s, 0 lost; 10.66 KiB outstanding in 40 allocations"
#define PEAK_CUT ALLOC_CUT ", peak 10.66 KiB"

static const char *render(uint64_t elapsed_s, uint64_t rate, uint64_t lost, const char *head,
			  size_t width)
{
	static char buf[512];
	struct status_figures f = { elapsed_s * SEC, rate, lost, head };
	size_t len = status__render(&f, width, buf, sizeof(buf));

	CHECK_EQ_U64(len, strlen(buf));
	return buf;
}

static void test_render(void)
{
	char small[8];
	struct status_figures f = { 0, 1, 2, "x" };

	CHECK_STR(render(6, 1234, 0, "4.00 MiB outstanding in 1 allocation", 0),
		  "[0:06] 1,234 events/s, 0 lost; 4.00 MiB outstanding in 1 allocation");
	CHECK_STR(render(0, 0, 0, NULL, 0), "[0:00] 0 events/s, 0 lost");
	CHECK_STR(render(0, 0, 0, "", 0), "[0:00] 0 events/s, 0 lost");
	CHECK_STR(render(59, 0, 7, NULL, 0), "[0:59] 0 events/s, 7 lost");
	CHECK_STR(render(61, 999, 1000, NULL, 0), "[1:01] 999 events/s, 1,000 lost");
	CHECK_STR(render(61, 0, 0, NULL, 0), "[1:01] 0 events/s, 0 lost");
	CHECK_STR(render(3599, 0, 0, NULL, 0), "[59:59] 0 events/s, 0 lost");
	CHECK_STR(render(3600 + 2 * 60 + 3, 0, 0, NULL, 0), "[1:02:03] 0 events/s, 0 lost");
	CHECK_STR(render(100 * 3600, 0, 0, NULL, 0), "[100:00:00] 0 events/s, 0 lost");
	CHECK_STR(render(0, 12345678, 1234567, NULL, 0),
		  "[0:00] 12,345,678 events/s, 1,234,567 lost");
	/* Cut to width - 1 columns between fields, the separator dropped:
	 * the line is 99 columns, its fields end in columns 21, 29, 70, 86.
	 * At 91 and 90 the cut falls inside "4,000" (its comma is column 90,
	 * 89 from 0), at 10 and 9 inside "1,234" (column 9): a thousands
	 * separator is no boundary, the figure is not halved.  Under 22 the
	 * first field is too long: the elapsed time, or nothing. */
	static const struct {
		size_t width;
		const char *want;
	} cuts[] = {
		{ 100, "[0:06] 1,234 events/s, 0 lost; " HEAP_LIKE },
		{ 99, PEAK_CUT }, { 91, PEAK_CUT }, { 90, PEAK_CUT }, { 87, PEAK_CUT },
		{ 86, ALLOC_CUT }, { 71, ALLOC_CUT },
		{ 70, "[0:06] 1,234 events/s, 0 lost" }, { 30, "[0:06] 1,234 events/s, 0 lost" },
		{ 29, "[0:06] 1,234 events/s" }, { 22, "[0:06] 1,234 events/s" },
		{ 21, "[0:06]" }, { 10, "[0:06]" }, { 9, "[0:06]" }, { 7, "[0:06]" },
		{ 6, "" }, { 1, "" },
	};

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		CHECK_STR(render(6, 1234, 0, HEAP_LIKE, cuts[i].width), cuts[i].want);
	/* Separators inside the lost count and the headline's count: the
	 * line cut at the ", " or "; " before them. */
	CHECK_STR(render(6, 12345, 1234567, "4.00 MiB outstanding in 1,024 allocations", 66),
		  "[0:06] 12,345 events/s, 1,234,567 lost");
	CHECK_STR(render(6, 12345, 1234567, "4.00 MiB outstanding in 1,024 allocations", 30),
		  "[0:06] 12,345 events/s");
	/* The default width, 80: 79 columns. */
	CHECK_STR(render(6, 1234, 0, "4.00 MiB outstanding in 1,024 allocations, peak 4.00 MiB, "
			 "2,048 calls", 0),
		  "[0:06] 1,234 events/s, 0 lost; 4.00 MiB outstanding in 1,024 allocations");
	/* A buffer shorter than the width: cut to it, terminated. */
	CHECK_EQ_U64(status__render(&f, 80, small, sizeof(small)), 6);
	CHECK_STR(small, "[0:00]");
	CHECK_EQ_U64(status__render(&f, 80, small, 6), 0);
	CHECK_EQ_U64(status__render(&f, 80, small, 0), 0);
}

/* What the pipe holds now (the read end is non-blocking). */
static const char *drain(int fd)
{
	static char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void test_draws(void)
{
	struct status *st = NULL;
	uint64_t t0 = 5 * SEC, ev = 100;
	int p[2];

	CHECK(pipe2(p, O_NONBLOCK) == 0);
	CHECK(status__new(p[1], t0, ev, &st) == 0 && st);
	if (!st)
		return;
	/* The first look draws at once, over the run so far: 0 events. */
	CHECK(status__due(st, t0));
	status__show(st, t0, ev, 0, "0 B outstanding");
	CHECK_STR(drain(p[0]), ERASE "[0:00] 0 events/s, 0 lost; 0 B outstanding");
	/* 100 ms later: not due, nothing drawn, whatever changed. */
	CHECK(!status__due(st, t0 + 100 * MS));
	status__show(st, t0 + 100 * MS, ev + 50, 3, "1 byte");
	CHECK_STR(drain(p[0]), "");
	/* 250 ms: due, but the same line is up: not drawn again. */
	status__show(st, t0 + 250 * MS, ev, 0, "0 B outstanding");
	CHECK_STR(drain(p[0]), "");
	CHECK_EQ_U64(status__draws(st), 1);
	/* That look took the slot: 400 ms is 150 ms after it. */
	CHECK(!status__due(st, t0 + 400 * MS));
	/* 500 ms, 500 events more: 1000 a second over the run so far. */
	status__show(st, t0 + 500 * MS, ev + 500, 0, "64 B outstanding");
	CHECK_STR(drain(p[0]), ERASE "[0:00] 1,000 events/s, 0 lost; 64 B outstanding");
	/* Erased: "\r", clear to the end of the line; once. */
	status__erase(st);
	status__erase(st);
	CHECK_STR(drain(p[0]), ERASE);
	/* Erased, the same line is drawn again when due. */
	status__show(st, t0 + 750 * MS, ev + 500, 0, "64 B outstanding");
	CHECK_STR(drain(p[0]), ERASE "[0:00] 667 events/s, 0 lost; 64 B outstanding");
	/* A second: the rate over the run so far still (2000 events), and
	 * from then on over the window of a second before the current one
	 * and the current one. */
	status__show(st, t0 + SEC, ev + 2000, 1, NULL);
	CHECK_STR(drain(p[0]), ERASE "[0:01] 2,000 events/s, 1 lost");
	status__show(st, t0 + 1500 * MS, ev + 2500, 1, NULL);
	CHECK_STR(drain(p[0]), ERASE "[0:01] 1,667 events/s, 1 lost");
	status__show(st, t0 + 2 * SEC, ev + 3000, 1, NULL);
	CHECK_STR(drain(p[0]), ERASE "[0:02] 1,000 events/s, 1 lost");
	status__show(st, t0 + 2750 * MS, ev + 3000, 1, NULL);
	CHECK_STR(drain(p[0]), ERASE "[0:02] 571 events/s, 1 lost");
	CHECK_EQ_U64(status__draws(st), 7);
	/* A look every millisecond for 10 s, the headline changing each
	 * time: 4 draws a second, 1/4 s apart. */
	for (uint64_t ms = 0; ms < 10000; ms++) {
		char head[32];

		snprintf(head, sizeof(head), "%" PRIu64 " bytes", ms);
		status__show(st, t0 + 3 * SEC + ms * MS, ev + 3000 + ms, 0, head);
	}
	CHECK_EQ_U64(status__draws(st), 7 + 40);
	while (*drain(p[0]))
		;
	/* Ended: erased, and never drawn again. */
	status__end(st);
	CHECK_STR(drain(p[0]), ERASE);
	CHECK(!status__due(st, t0 + 60 * SEC));
	status__show(st, t0 + 60 * SEC, 0, 0, NULL);
	CHECK_STR(drain(p[0]), "");
	status__free(st);
	CHECK_STR(drain(p[0]), "");
	close(p[0]);
	close(p[1]);
	status__free(NULL);
	status__end(NULL);
}

/* stderr taken: every write erases the line first; given back at free. */
static void test_streams(void)
{
	char got[6][256] = { "", "", "", "", "", "" };
	FILE *orig = stderr, *taken = NULL;
	struct status *st = NULL;
	int p[2], saved = dup(STDERR_FILENO);

	CHECK(saved >= 0 && pipe2(p, O_NONBLOCK) == 0 && dup2(p[1], STDERR_FILENO) == STDERR_FILENO);
	if (!status__new(STDERR_FILENO, SEC, 0, &st) && !status__take_streams(st, false)) {
		taken = stderr;
		status__show(st, SEC, 0, 0, "up");
		snprintf(got[0], sizeof(got[0]), "%s", drain(p[0]));
		fprintf(stderr, "faultline leak: warning: %s\n", "a line");
		snprintf(got[1], sizeof(got[1]), "%s", drain(p[0]));
		/* No line up: nothing to erase. */
		fprintf(stderr, "another\n");
		snprintf(got[2], sizeof(got[2]), "%s", drain(p[0]));
		/* A line begun and not ended: a look flushes it, and does not
		 * draw over it. */
		fprintf(stderr, "part");
		status__show(st, 2 * SEC, 0, 0, "up");
		snprintf(got[3], sizeof(got[3]), "%s", drain(p[0]));
		fprintf(stderr, " done\n");
		snprintf(got[4], sizeof(got[4]), "%s", drain(p[0]));
		status__show(st, 3 * SEC, 0, 0, "up");
		snprintf(got[5], sizeof(got[5]), "%s", drain(p[0]));
	}
	status__free(st);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	CHECK(taken && taken != orig);
	CHECK(stderr == orig);
	CHECK_STR(got[0], ERASE "[0:00] 0 events/s, 0 lost; up");
	CHECK_STR(got[1], ERASE "faultline leak: warning: a line\n");
	CHECK_STR(got[2], "another\n");
	CHECK_STR(got[3], "part");
	CHECK_STR(got[4], " done\n");
	CHECK_STR(got[5], ERASE "[0:02] 0 events/s, 0 lost; up");
	/* Freed: erased, and the stream given back. */
	CHECK_STR(drain(p[0]), ERASE);
	close(p[0]);
	close(p[1]);
}

/* @want bytes from the pty's master into @buf (terminated): the kernel
 * moves what the slave wrote to the master's side in its own time.  At
 * most 10 s of waiting for them (a safety net, not the synchronisation). */
static void read_pty(int ptm, char *buf, size_t n, size_t want)
{
	struct pollfd pfd = { .fd = ptm, .events = POLLIN };
	size_t got = 0;

	while (got < want && got + 1 < n && poll(&pfd, 1, 10000) == 1) {
		ssize_t r = read(ptm, buf + got, n - 1 - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
}

/* On a pseudo-terminal: wanted, shared with stdout, and its width. */
static void test_terminal(void)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 40 };
	int ptm = posix_openpt(O_RDWR | O_NOCTTY), pts = -1, p[2];
	int saved_err = dup(STDERR_FILENO), saved_out = dup(STDOUT_FILENO);
	bool wanted[4], shared[2];
	const char *term = getenv("TERM");
	char *term_was = term ? strdup(term) : NULL;
	struct status *st = NULL;
	char got[256] = "";

	if (ptm < 0 || grantpt(ptm) || unlockpt(ptm) || (pts = open(ptsname(ptm), O_RDWR | O_NOCTTY)) < 0) {
		printf("test-status: no pseudo-terminal here: its cases skipped\n");
		return;
	}
	fcntl(ptm, F_SETFL, O_NONBLOCK);
	CHECK(pipe(p) == 0);
	fflush(stdout);
	dup2(pts, STDERR_FILENO);
	dup2(pts, STDOUT_FILENO);
	setenv("TERM", "xterm", 1);
	wanted[0] = status__wanted(false);
	wanted[1] = status__wanted(true);
	setenv("TERM", "dumb", 1);
	wanted[2] = status__wanted(false);
	shared[0] = status__stdout_shared();
	dup2(p[1], STDOUT_FILENO);
	shared[1] = status__stdout_shared();
	dup2(saved_out, STDOUT_FILENO);
	ioctl(pts, TIOCSWINSZ, &ws);
	if (!status__new(pts, 0, 0, &st))
		status__show(st, 0, 0, 0, "4.00 MiB outstanding");
	status__free(st);
	dup2(p[0], STDERR_FILENO);
	wanted[3] = status__wanted(false);
	dup2(saved_err, STDERR_FILENO);
	if (term_was)
		setenv("TERM", term_was, 1);
	else
		unsetenv("TERM");
	free(term_was);
	CHECK(wanted[0]);
	CHECK(!wanted[1]);	/* --quiet */
	CHECK(!wanted[2]);	/* TERM=dumb */
	CHECK(!wanted[3]);	/* a pipe */
	CHECK(shared[0]);
	CHECK(!shared[1]);
	/* 39 columns: cut before the headline, which does not fit. */
	read_pty(ptm, got, sizeof(got), strlen(ERASE "[0:00] 0 events/s, 0 lost" ERASE));
	CHECK_STR(got, ERASE "[0:00] 0 events/s, 0 lost" ERASE);
	close(saved_err);
	close(saved_out);
	close(p[0]);
	close(p[1]);
	close(pts);
	close(ptm);
}

int main(void)
{
	test_render();
	test_draws();
	test_streams();
	test_terminal();
	return check_done("test-status");
}
