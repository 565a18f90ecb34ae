/*
 * status: the status line of a tracing tool on a terminal (see status.h).
 * It may call libc (write(2) through lib/file's write_fd, ioctl(TIOCGWINSZ),
 * isatty(3), fstat(2), stdio's fopencookie(3)) and lib/numfmt for its
 * figures' text; the figures come from its caller.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/out/status.h"
#include "lib/file.h"
#include "lib/numfmt.h"

#define ERASE "\r\033[K"
#define DEFAULT_WIDTH 80
#define NS_PER_SEC 1000000000ULL
#define MIN_GAP_NS (NS_PER_SEC / STATUS_REDRAWS_PER_SEC)

/* A stream taken from stdio (stdout or stderr): where it pointed, and
 * the cookie stream in its place. */
struct taken {
	FILE **slot;		/* &stdout, &stderr */
	FILE *orig, *mine;
	int fd;
	struct status *st;
};

struct status {
	int fd;
	bool up;		/* the line is on the terminal */
	bool ended;
	uint64_t start_ns;
	uint64_t last_ns;	/* of the last look (status__show) */
	bool looked;		/* status__show() looked once */
	/* The last byte through a taken stream ended no line: the line is
	 * not drawn over what was begun. */
	bool mid_line;
	uint64_t draws;
	/* The rate's windows of a second: where the one before the current
	 * began, and where the current one began (the events counted then). */
	uint64_t prev_ns, prev_events, cur_ns, cur_events;
	struct taken streams[2];
	size_t nstreams;
	char line[512];		/* as drawn last */
};

/* "0:06", "12:34", "1:02:03". */
static int put_elapsed(char *buf, size_t n, uint64_t ns)
{
	uint64_t s = ns / NS_PER_SEC;

	if (s >= 3600)
		return snprintf(buf, n, "%" PRIu64 ":%02u:%02u", s / 3600, (unsigned)(s / 60 % 60),
				(unsigned)(s % 60));
	return snprintf(buf, n, "%u:%02u", (unsigned)(s / 60), (unsigned)(s % 60));
}

/*
 * Where to cut @full to at most @max characters: at the last ", " or "; "
 * that leaves it within @max, so that no figure is shown without its
 * words or cut (4,194,304 as 4,194, "peak" without its number); the elapsed
 * time alone if the first field is longer than that, or nothing.  A
 * thousands separator is a comma with no space after it ("1,234"): never
 * a place to cut.
 */
static size_t cut(const char *full, size_t max)
{
	size_t first = strcspn(full, " ");

	for (size_t i = max; i > 0; i--)
		if ((full[i] == ',' || full[i] == ';') && full[i + 1] == ' ')
			return i;
	return first <= max ? first : 0;
}

size_t status__render(const struct status_figures *f, size_t width, char *buf, size_t n)
{
	char full[512], when[32], rate[NUMFMT_LEN], lost[NUMFMT_LEN];
	size_t len, max;

	if (!n)
		return 0;
	put_elapsed(when, sizeof(when), f->elapsed_ns);
	snprintf(full, sizeof(full), "[%s] %s events/s, %s lost%s%s", when,
		 numfmt__count(rate, sizeof(rate), f->rate), numfmt__count(lost, sizeof(lost), f->lost),
		 f->headline && *f->headline ? "; " : "", f->headline ? f->headline : "");
	len = strlen(full);
	max = (width ? width : DEFAULT_WIDTH) - 1;
	if (max >= n)
		max = n - 1;
	if (len > max)
		len = cut(full, max);
	memcpy(buf, full, len);
	buf[len] = '\0';
	return len;
}

bool status__wanted(bool quiet)
{
	const char *term = getenv("TERM");

	return !quiet && isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb"));
}

bool status__stdout_shared(void)
{
	struct stat out, err;

	return isatty(STDOUT_FILENO) && !fstat(STDOUT_FILENO, &out) &&
	       !fstat(STDERR_FILENO, &err) && out.st_rdev == err.st_rdev;
}

int status__new(int fd, uint64_t now_ns, uint64_t events, struct status **out)
{
	struct status *st = calloc(1, sizeof(*st));

	*out = st;
	if (!st)
		return -ENOMEM;
	st->fd = fd;
	st->start_ns = st->prev_ns = st->cur_ns = now_ns;
	st->prev_events = st->cur_events = events;
	return 0;
}

void status__erase(struct status *st)
{
	int saved = errno;

	if (!st || !st->up)
		return;
	st->up = false;
	write_fd(st->fd, ERASE, sizeof(ERASE) - 1);
	errno = saved;
}

/* The one way out of a taken stream: the line erased, then the bytes. */
static ssize_t taken_write(void *cookie, const char *buf, size_t n)
{
	struct taken *t = cookie;
	long w;

	status__erase(t->st);
	w = write_fd(t->fd, buf, n);
	if (w < 0) {
		errno = (int)-w;
		return -1;	/* stdio's cookie contract */
	}
	if (w > 0)
		t->st->mid_line = buf[w - 1] != '\n';
	return w;
}

static int take(struct status *st, FILE **slot, int fd)
{
	struct taken *t = &st->streams[st->nstreams];
	cookie_io_functions_t io = { .write = taken_write };

	*t = (struct taken){ .slot = slot, .orig = *slot, .fd = fd, .st = st };
	t->mine = fopencookie(t, "w", io);
	if (!t->mine)
		return -errno;
	setvbuf(t->mine, NULL, _IOLBF, BUFSIZ);
	fflush(*slot);
	*slot = t->mine;
	st->nstreams++;
	return 0;
}

static void give_back(struct status *st)
{
	while (st->nstreams) {
		struct taken *t = &st->streams[--st->nstreams];

		fflush(t->mine);
		*t->slot = t->orig;
		fclose(t->mine);
	}
}

int status__take_streams(struct status *st, bool stdout_too)
{
	int err = take(st, &stderr, STDERR_FILENO);

	if (!err && stdout_too)
		err = take(st, &stdout, STDOUT_FILENO);
	if (err)
		give_back(st);
	return err;
}

bool status__due(const struct status *st, uint64_t now_ns)
{
	return !st->ended && (!st->looked || now_ns - st->last_ns >= MIN_GAP_NS);
}

/* The rate shown: over the last one to two seconds (since the start of
 * the window before the current one), or over the run before a second has
 * passed, so that it follows the events without jumping at every look. */
static uint64_t rate_at(struct status *st, uint64_t now_ns, uint64_t events)
{
	uint64_t dt;

	if (now_ns - st->cur_ns >= NS_PER_SEC) {
		st->prev_ns = st->cur_ns;
		st->prev_events = st->cur_events;
		st->cur_ns = now_ns;
		st->cur_events = events;
	}
	dt = now_ns - st->prev_ns;
	return dt ? (uint64_t)((double)(events - st->prev_events) * NS_PER_SEC / dt + 0.5) : 0;
}

static size_t term_width(int fd)
{
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return DEFAULT_WIDTH;
}

void status__show(struct status *st, uint64_t now_ns, uint64_t events, uint64_t lost,
		  const char *headline)
{
	struct status_figures f = { 0 };
	char out[sizeof(ERASE) - 1 + sizeof(st->line)];
	char *line = out + sizeof(ERASE) - 1;
	size_t len;

	if (!status__due(st, now_ns))
		return;
	/* A look, drawn or not, takes the slot: the figures are gathered at
	 * most STATUS_REDRAWS_PER_SEC times a second too. */
	st->last_ns = now_ns;
	st->looked = true;
	/* Whatever stdio holds goes first (erasing the line if it writes):
	 * the line is the last thing on the terminal. */
	fflush(stdout);
	fflush(stderr);
	if (st->mid_line)
		return;
	f.elapsed_ns = now_ns - st->start_ns;
	f.rate = rate_at(st, now_ns, events);
	f.lost = lost;
	f.headline = headline;
	len = status__render(&f, term_width(st->fd), line, sizeof(st->line));
	if (st->up && !strcmp(st->line, line))
		return;
	memcpy(out, ERASE, sizeof(ERASE) - 1);
	memcpy(st->line, line, len + 1);
	st->up = write_fd(st->fd, out, sizeof(ERASE) - 1 + len) > 0;
	st->draws++;
}

void status__end(struct status *st)
{
	if (!st)
		return;
	fflush(stdout);
	fflush(stderr);
	status__erase(st);
	st->ended = true;
}

uint64_t status__draws(const struct status *st)
{
	return st->draws;
}

void status__free(struct status *st)
{
	if (!st)
		return;
	status__end(st);
	give_back(st);
	free(st);
}
