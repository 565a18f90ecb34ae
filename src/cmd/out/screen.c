/*
 * screen: the terminal of a full-screen view (see screen.h): alternate
 * screen, raw keys, size, and restoring it all at the end, at exit() and
 * on a fatal signal; given back to the shell on a job-control stop
 * (Ctrl-Z) and taken again at SIGCONT.  May call the C library (termios,
 * ioctl, poll, sigaction, pthread_sigmask, stdio on stdout), lib/file's
 * write_fd and lib/stopsig's list of fatal signals.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cmd/out/screen.h"
#include "lib/file.h"
#include "lib/stopsig.h"

#define ALT_ON "\033[?1049h"
#define ALT_OFF "\033[?1049l"

struct screen {
	bool tty;		/* stdout is a terminal */
	bool keys;		/* stdin in raw mode, saved below */
	bool alt;		/* in the alternate screen */
	bool guarded;		/* the handlers below are installed */
	struct termios saved;
	struct termios raw;	/* the modes screen__keys_on set */
	/* Set by the job-control handlers: the terminal is the shell's (a
	 * stop, or a continue in the background); the view draws at once
	 * when it comes back. */
	volatile sig_atomic_t off;
	volatile sig_atomic_t redraw;
	unsigned char pend[32];	/* bytes read, not yet made keys */
	size_t npend;
};

/* The screen the handlers restore: process state, as the handlers are. */
static struct screen *volatile active;
static bool exit_hooked;

/* The signals raised by the instruction being run (and abort()'s,
 * lib/stopsig's list, as trace/session-signal.c catches them): the
 * process dies of them, after the terminal is put back.  The stop signals
 * (Ctrl-C, SIGTERM...) end the run cleanly (lib/stopsig), which calls
 * screen__end. */
static const int fatal_signals[] = { STOPSIG_FATAL };
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction old_fatal[NFATAL];

/* Job control: the stops a terminal sends (Ctrl-Z; reading or setting it
 * from the background), then SIGCONT (fg).  As top and less do, the
 * terminal is put back before the process stops, and taken again when it
 * is continued in the foreground.  Caught only when they were SIG_DFL: a
 * shell without job control may have them ignored. */
static const int job_signals[] = { SIGTSTP, SIGTTIN, SIGTTOU, SIGCONT };
#define NJOB (sizeof(job_signals) / sizeof(job_signals[0]))
static struct sigaction old_job[NJOB];
static bool job_caught[NJOB];

/* Async-signal-safe: write(2) and tcsetattr(3) only. */
static void restore_raw(struct screen *sc)
{
	if (sc->keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &sc->saved);
	if (sc->alt && write(STDOUT_FILENO, ALT_OFF, sizeof(ALT_OFF) - 1) < 0) {
		/* the terminal is gone: nothing to restore */
	}
}

static void on_fatal(int sig)
{
	struct screen *sc = active;

	active = NULL;
	if (sc)
		restore_raw(sc);
	/* The handler replaced (the session's teardown, or the default)
	 * takes the signal from here. */
	for (size_t i = 0; i < NFATAL; i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &old_fatal[i], NULL);
	raise(sig);
}

/* Async-signal-safe: the terminal back in raw mode and the alternate
 * screen, when the process is in the terminal's foreground again (in the
 * background the terminal stays the shell's: fg continues it again). */
static void resume(struct screen *sc)
{
	if (tcgetpgrp(STDOUT_FILENO) != getpgrp())
		return;
	if (sc->keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &sc->raw);
	if (sc->alt && write(STDOUT_FILENO, ALT_ON, sizeof(ALT_ON) - 1) < 0) {
		/* the terminal is gone: nothing to take */
	}
	sc->off = 0;
	sc->redraw = 1;
}

/* SIGTSTP, SIGTTIN, SIGTTOU: the terminal back as screen__end puts it,
 * then the stop itself (the default action, raised again with the
 * signal unblocked); from SIGCONT on, this handler again. */
static void on_stop(int sig)
{
	struct screen *sc = active;
	struct sigaction dfl, mine;
	sigset_t set;
	int saved_errno = errno;

	if (sc && !sc->off) {
		sc->off = 1;
		restore_raw(sc);
	}
	memset(&dfl, 0, sizeof(dfl));
	sigemptyset(&dfl.sa_mask);
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, &mine);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	/* Continued (or not stopped at all: an orphaned process group
	 * ignores the terminal's stops). */
	sigaction(sig, &mine, NULL);
	sc = active;
	if (sc && sc->off)
		resume(sc);
	errno = saved_errno;
}

/* SIGCONT: the screen again, drawn whole (also after a SIGSTOP, which
 * cannot be caught and left the terminal as it was). */
static void on_cont(int sig)
{
	struct screen *sc = active;
	int saved_errno = errno;

	(void)sig;
	if (sc && sc->off)
		resume(sc);
	else if (sc)
		sc->redraw = 1;
	errno = saved_errno;
}

/* exit() with the screen still up (a path that forgot screen__end). */
static void on_exit_restore(void)
{
	struct screen *sc = active;

	active = NULL;
	if (sc) {
		fflush(stdout);
		restore_raw(sc);
	}
}

/* From the first change made to the terminal on. */
static void guard(struct screen *sc)
{
	struct sigaction sa;

	if (sc->guarded)
		return;
	if (!exit_hooked && !atexit(on_exit_restore))
		exit_hooked = true;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &sa, &old_fatal[i]);
	active = sc;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < NJOB; i++)
		sigaddset(&sa.sa_mask, job_signals[i]);
	sigdelset(&sa.sa_mask, SIGCONT);
	for (size_t i = 0; i < NJOB; i++) {
		sa.sa_handler = job_signals[i] == SIGCONT ? on_cont : on_stop;
		job_caught[i] = !sigaction(job_signals[i], NULL, &old_job[i]) &&
				old_job[i].sa_handler == SIG_DFL && !(old_job[i].sa_flags & SA_SIGINFO) &&
				!sigaction(job_signals[i], &sa, NULL);
	}
	sc->guarded = true;
}

static void unguard(struct screen *sc)
{
	if (!sc->guarded)
		return;
	active = NULL;
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &old_fatal[i], NULL);
	for (size_t i = 0; i < NJOB; i++)
		if (job_caught[i])
			sigaction(job_signals[i], &old_job[i], NULL);
	sc->guarded = false;
}

int screen__new(struct screen **out)
{
	struct screen *sc = calloc(1, sizeof(*sc));

	*out = sc;
	if (!sc)
		return -ENOMEM;
	sc->tty = isatty(STDOUT_FILENO);
	return 0;
}

bool screen__tty(const struct screen *sc)
{
	return sc->tty;
}

bool screen__keys_on(struct screen *sc)
{
	struct termios raw;

	if (sc->keys)
		return true;
	if (!sc->tty || !isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &sc->saved))
		return false;
	raw = sc->saved;
	/* Keys one by one, unechoed; Ctrl-C and Ctrl-Z still signals. */
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	sc->raw = raw;
	guard(sc);
	/* Set first: a Ctrl-Z from now on puts the saved modes back. */
	sc->keys = true;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw))
		sc->keys = false;
	return sc->keys;
}

void screen__size(const struct screen *sc, unsigned int *rows, unsigned int *cols)
{
	struct winsize ws = { 0 };

	if (!sc->tty || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws))
		ws.ws_row = ws.ws_col = 0;
	if (rows)
		*rows = ws.ws_row;
	if (cols)
		*cols = ws.ws_col;
}

void screen__enter(struct screen *sc, unsigned int *rows, unsigned int *cols)
{
	if (sc->tty && !sc->alt && !sc->off) {
		guard(sc);
		/* To the terminal itself, fd 1, after what stdio holds:
		 * stdout's stream may be --output's file. */
		fflush(stdout);
		sc->alt = true;	/* first, as keys above */
		write_fd(STDOUT_FILENO, ALT_ON, sizeof(ALT_ON) - 1);
	}
	screen__size(sc, rows, cols);
}

/* Bytes typed so far, without waiting. */
static void fill(struct screen *sc)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	ssize_t n;

	while (sc->npend < sizeof(sc->pend) && poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN)) {
		n = read(STDIN_FILENO, sc->pend + sc->npend, sizeof(sc->pend) - sc->npend);
		if (n <= 0)
			break;
		sc->npend += (size_t)n;
	}
}

static void consume(struct screen *sc, size_t n)
{
	memmove(sc->pend, sc->pend + n, sc->npend - n);
	sc->npend -= n;
}

/* The key of the escape sequence at pend[0] (ESC [ or ESC O) that ends at
 * pend[len - 1]. */
static int sequence_key(const unsigned char *p, size_t len)
{
	unsigned char fin = p[len - 1];

	if (len == 3) {
		switch (fin) {
		case 'A':
			return SCREEN_KEY_UP;
		case 'B':
			return SCREEN_KEY_DOWN;
		case 'H':
			return SCREEN_KEY_HOME;
		case 'F':
			return SCREEN_KEY_END;
		}
	} else if (len == 4 && p[1] == '[' && fin == '~') {
		switch (p[2]) {
		case '1':
		case '7':
			return SCREEN_KEY_HOME;
		case '4':
		case '8':
			return SCREEN_KEY_END;
		case '5':
			return SCREEN_KEY_PGUP;
		case '6':
			return SCREEN_KEY_PGDN;
		}
	}
	return SCREEN_KEY_NONE;
}

bool screen__off(const struct screen *sc)
{
	return sc->off;
}

bool screen__resumed(struct screen *sc)
{
	if (!sc->redraw)
		return false;
	sc->redraw = 0;
	return true;
}

int screen__key(struct screen *sc)
{
	/* Off: the terminal is the shell's (a read would stop us). */
	if (!sc->keys || sc->off)
		return SCREEN_KEY_NONE;
	fill(sc);
	while (sc->npend) {
		size_t len = 2;
		int key;

		if (sc->pend[0] != 0x1b || sc->npend == 1 ||
		    (sc->pend[1] != '[' && sc->pend[1] != 'O')) {
			key = sc->pend[0];
			consume(sc, 1);
			return key;
		}
		/* A terminal sends a sequence in one write: its final byte
		 * (0x40..0x7e) is here, or it is cut and dropped. */
		while (len < sc->npend && (sc->pend[len] < 0x40 || sc->pend[len] > 0x7e))
			len++;
		if (len == sc->npend) {
			sc->npend = 0;
			break;
		}
		key = sequence_key(sc->pend, len + 1);
		consume(sc, len + 1);
		if (key != SCREEN_KEY_NONE)
			return key;
	}
	return SCREEN_KEY_NONE;
}

void screen__end(struct screen *sc)
{
	sigset_t jobs, was;

	if (!sc)
		return;
	/* No stop in the middle: one that comes now is served after, with
	 * the terminal as it was and the handlers given back. */
	sigemptyset(&jobs);
	for (size_t i = 0; i < NJOB; i++)
		sigaddset(&jobs, job_signals[i]);
	pthread_sigmask(SIG_BLOCK, &jobs, &was);
	/* Off: given back already, at the stop. */
	if (sc->keys && !sc->off)
		tcsetattr(STDIN_FILENO, TCSANOW, &sc->saved);
	sc->keys = false;
	if (sc->alt && !sc->off) {
		fflush(stdout);
		write_fd(STDOUT_FILENO, ALT_OFF, sizeof(ALT_OFF) - 1);
	}
	sc->alt = false;
	sc->off = 0;
	unguard(sc);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

void screen__end_active(void)
{
	struct screen *sc = active;

	screen__end(sc);
}

void screen__free(struct screen *sc)
{
	screen__end(sc);
	free(sc);
}
