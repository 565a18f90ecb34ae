/*
 * screen: a full-screen view on the terminal, as top and BCC's curses
 * tools keep one, without curses: the alternate screen (the shell's
 * screen comes back at the end), keys read one by one from stdin without
 * echo (Ctrl-C stays a signal), the terminal's size, and the terminal put
 * back as it was at the end, at exit() and on a fatal signal (SIGSEGV,
 * SIGABRT...: the handler writes the sequence and restores the modes with
 * write(2) and tcsetattr(3), both async-signal-safe, then hands the
 * signal on to the handler it replaced, the session's teardown).
 * Job control as top and less have it: on Ctrl-Z (SIGTSTP, and SIGTTIN or
 * SIGTTOU from the background) the terminal is put back the same way
 * before the process stops; on SIGCONT in the foreground (fg) it is raw
 * and on the alternate screen again, and screen__resumed() tells the view
 * to draw it all.  Those handlers only while a screen is up, and only
 * where the signal was not ignored (a shell without job control).
 *
 * What is drawn is the caller's: it writes to stdout after
 * screen__enter(), with the sequences below.  One screen at a time (the
 * handlers are process state).  May call the C library and lib/ only.
 */
#ifndef FAULTLINE_SCREEN_H
#define FAULTLINE_SCREEN_H

#include <stdbool.h>

/* The sequences a view draws with (ECMA-48, as every terminal faultline
 * runs on understands them). */
#define SCREEN_HOME	"\033[H"	/* cursor to the top left */
#define SCREEN_CLEAR	"\033[2J"	/* the whole screen blank */
#define SCREEN_EOL	"\033[K"	/* blank to the end of the line */
#define SCREEN_EOS	"\033[J"	/* blank to the end of the screen */
#define SCREEN_REVERSE	"\033[7m"
#define SCREEN_PLAIN	"\033[0m"

/* What screen__key() returns besides a byte (0..255). */
enum {
	SCREEN_KEY_NONE = -1,	/* no key waiting */
	SCREEN_KEY_UP = 256,
	SCREEN_KEY_DOWN,
	SCREEN_KEY_PGUP,
	SCREEN_KEY_PGDN,
	SCREEN_KEY_HOME,
	SCREEN_KEY_END,
};

struct screen;

/* A screen on stdout; nothing is changed on the terminal yet.  0 or
 * -ENOMEM.  screen__free() frees it. */
int screen__new(struct screen **out);
/* Put the terminal back (screen__end) and free.  NULL is fine. */
void screen__free(struct screen *sc);

/* Whether stdout is a terminal (as it was at screen__new). */
bool screen__tty(const struct screen *sc);

/*
 * screen__keys_on() - keys one by one from stdin, unechoed, when stdin and
 * stdout are terminals; nothing otherwise.  True when keys are read.
 */
bool screen__keys_on(struct screen *sc);

/*
 * screen__enter() - the alternate screen, entered at the first call when
 * stdout is a terminal (nothing otherwise); then @rows and @cols (either
 * may be NULL) get the terminal's size, 0 when it is not known.  Draw
 * after it, starting with SCREEN_HOME.
 */
void screen__enter(struct screen *sc, unsigned int *rows, unsigned int *cols);

/* The terminal's size now (0 when not a terminal or not known). */
void screen__size(const struct screen *sc, unsigned int *rows, unsigned int *cols);

/*
 * screen__key() - the next key typed, without waiting: a byte, one of
 * SCREEN_KEY_* for the arrows, Page Up/Down, Home and End (their
 * escape sequences in both cursor modes), or SCREEN_KEY_NONE.  Other
 * escape sequences are skipped whole.
 */
int screen__key(struct screen *sc);

/*
 * screen__off() - whether the terminal is the shell's for now: the process
 * was stopped (Ctrl-Z) and continued in the background (bg).  The view
 * draws nothing then, and screen__key() reads nothing; fg takes the
 * terminal back.
 */
bool screen__off(const struct screen *sc);

/*
 * screen__resumed() - true once after the process was continued with the
 * screen on the terminal again: the view redraws it all now, not at its
 * next interval.
 */
bool screen__resumed(struct screen *sc);

/*
 * screen__end() - the terminal as it was: keys echoed and by lines again,
 * the shell's screen back, the handlers given back.  Idempotent; call it
 * before printing anything meant to stay on the terminal.
 */
void screen__end(struct screen *sc);
/* screen__end() of the screen now on the terminal, if any: for the driver,
 * which says why a run ended before the tool ends its view. */
void screen__end_active(void);

#endif
