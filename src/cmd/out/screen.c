/*
 * screen: the terminal of a full-screen view (see screen.h): alternate
 * screen, raw keys, size, and restoring it all at the end, at exit() and
 * on a fatal signal.  May call the C library (termios, ioctl, poll,
 * sigaction, stdio on stdout), lib/file's write_fd and lib/stopsig's list
 * of fatal signals.
 */
#include <errno.h>
#include <poll.h>
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
	sc->guarded = true;
}

static void unguard(struct screen *sc)
{
	if (!sc->guarded)
		return;
	active = NULL;
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &old_fatal[i], NULL);
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
	/* Keys one by one, unechoed; Ctrl-C still a signal. */
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	guard(sc);
	if (!tcsetattr(STDIN_FILENO, TCSANOW, &raw))
		sc->keys = true;
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
	if (sc->tty && !sc->alt) {
		guard(sc);
		/* To the terminal itself, fd 1, after what stdio holds:
		 * stdout's stream may be --output's file. */
		fflush(stdout);
		write_fd(STDOUT_FILENO, ALT_ON, sizeof(ALT_ON) - 1);
		sc->alt = true;
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

int screen__key(struct screen *sc)
{
	if (!sc->keys)
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
	if (!sc)
		return;
	if (sc->keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &sc->saved);
	sc->keys = false;
	if (sc->alt) {
		fflush(stdout);
		write_fd(STDOUT_FILENO, ALT_OFF, sizeof(ALT_OFF) - 1);
	}
	sc->alt = false;
	unguard(sc);
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
