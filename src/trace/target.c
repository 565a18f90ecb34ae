/*
 * target: -a / -p PID / -c CMD / -- CMD ARGS, including the held-before-exec
 * child.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include "trace/exit-hold.h"
#include "trace/target.h"
#include "lib/file.h"
#include "proc/pidstat.h"
#include "lib/grow.h"

struct target {
	enum target_kind kind;
	pid_t pid;
	char *cmdline;
	char *exe;	/* a command's file, as execvp finds it */
	int go_fd;	/* write end: closing or writing releases the child */
	int err_fd;	/* read end: child's exec errno, EOF on successful exec */
	bool released;
	bool reaped;
	int status;
	struct exit_hold *hold;	/* target__hold_exit's, or NULL */
};

static struct target *alloc_target(enum target_kind kind)
{
	struct target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = kind;
	t->pid = -1;
	t->go_fd = -1;
	t->err_fd = -1;
	t->status = -1;
	return t;
}

int target__new_all(struct target **out)
{
	*out = alloc_target(TARGET_ALL);
	return *out ? 0 : -ENOMEM;
}

static bool proc_gone(pid_t pid)
{
	struct pid_stat st;
	int err = pid_stat__read(NULL, pid, &st);

	if (err)
		return err != -EINVAL;
	return st.state == 'Z' || st.state == 'X';
}

bool target__kernel_thread(const struct target *t)
{
	struct pid_stat st;

	return t->kind == TARGET_PID && !pid_stat__read(NULL, t->pid, &st) &&
	       (st.flags & PID_STAT_PF_KTHREAD);
}

int target__new_pid(pid_t pid, struct target **out, struct errbuf *eb)
{
	struct target *t;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (pid <= 0 || access(path, F_OK) != 0 || proc_gone(pid))
		return errbuf__set(eb, -ESRCH, "no process with pid %d", (int)pid);
	/* Only the thread-group leader names a process. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)pid);
	if (access(path, F_OK) != 0)
		return errbuf__set(eb, -ESRCH, "no process with pid %d (is it a thread id?)", (int)pid);
	t = alloc_target(TARGET_PID);
	if (!t)
		return -ENOMEM;
	t->pid = pid;
	*out = t;
	return 0;
}

/* 0 when @file is a file execve could run: executable, and regular (root
 * may "execute" a directory, which execve refuses with EACCES); -errno. */
static int runnable(const char *file)
{
	struct stat st;

	if (access(file, X_OK) || stat(file, &st))
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : -EACCES;
}

/*
 * Can argv0 be executed, as execvp would find it?  Checked before forking
 * so a typo is one clear error, not a traced child that dies at once.
 * Nothing is run: access(2) and stat(2) only.  0, or -errno of the most
 * telling failure (EACCES beats ENOENT, as execvp).
 */
int target__which(const char *argv0, char **found)
{
	const char *path = getenv("PATH");
	char buf[4096];
	int err = -ENOENT, e;

	if (strchr(argv0, '/')) {
		e = runnable(argv0);
		if (e)
			return e;
		*found = strdup(argv0);
		return *found ? 0 : -ENOMEM;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		int n = snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, path, len ? "/" : "",
				 argv0);

		path += len + (path[len] == ':');
		/* Cut short, it would name another file: none is that long. */
		if (n < 0 || (size_t)n >= sizeof(buf))
			continue;
		e = runnable(buf);
		if (!e) {
			*found = strdup(buf);
			return *found ? 0 : -ENOMEM;
		}
		if (e == -EACCES)
			err = -EACCES;
	}
	return err;
}

/* Child side: wait for the go byte (or EOF: the parent gave up), exec. */
static void __attribute__((noreturn)) child_run(int go_rd, int err_wr, char *const *argv)
{
	sigset_t none;
	char c;
	ssize_t r;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	do
		r = read(go_rd, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		_exit(127);
	close(go_rd);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0) {
		/* nothing more to say */
	}
	_exit(127);
}

/* Forks the child held before exec of argv (NULL-terminated, copied by
 * the child's fork); cmdline names the command in messages. */
static int new_cmd(char *const *argv, const char *cmdline, struct target **out,
		   struct errbuf *eb)
{
	int go[2] = { -1, -1 }, er[2] = { -1, -1 };
	struct target *t = NULL;
	char *exe = NULL;
	int err;
	pid_t pid;

	if (!argv[0] || !argv[0][0])
		return errbuf__set(eb, -EINVAL, "empty command");
	err = target__which(argv[0], &exe);
	if (err)
		return errbuf__set(eb, err, "cannot execute '%s': %s", argv[0], strerror(-err));
	t = alloc_target(TARGET_CMD);
	if (!t || !(t->cmdline = strdup(cmdline))) {
		free(exe);
		err = -ENOMEM;
		goto out;
	}
	t->exe = exe;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0) {
		err = errbuf__set(eb, -errno, "cannot create pipe: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		err = errbuf__set(eb, -errno, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(go[1]);
		close(er[0]);
		child_run(go[0], er[1], argv);
	}
	t->pid = pid;
	t->go_fd = go[1];
	t->err_fd = er[0];
	go[1] = er[0] = -1;
	*out = t;
	t = NULL;
	err = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (er[i] >= 0)
			close(er[i]);
	}
	target__free(t);
	return err;
}

int target__new_cmd(const char *cmdline, struct target **out, struct errbuf *eb)
{
	wordexp_t we;
	int err, wr;

	wr = wordexp(cmdline, &we, WRDE_NOCMD | WRDE_UNDEF);
	if (wr != 0) {
		if (wr == WRDE_NOSPACE)
			wordfree(&we);
		return errbuf__set(eb, -EINVAL, "cannot parse command '%s'%s", cmdline,
				   wr == WRDE_BADCHAR || wr == WRDE_CMDSUB || wr == WRDE_SYNTAX ?
				   " (pass it after '--' to give its arguments as they are)" : "");
	}
	err = we.we_wordc ? new_cmd(we.we_wordv, cmdline, out, eb) :
			    errbuf__set(eb, -EINVAL, "empty command");
	wordfree(&we);
	return err;
}

int target__new_argv(int argc, char *const *argv, const char *cmdline, struct target **out,
		     struct errbuf *eb)
{
	char **v;
	int err;

	if (argc <= 0)
		return errbuf__set(eb, -EINVAL, "empty command");
	/* A copy, so that argv need not end in NULL where argc says. */
	v = calloc((size_t)argc + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, argv, (size_t)argc * sizeof(*v));
	err = new_cmd(v, cmdline, out, eb);
	free(v);
	return err;
}

/* Whether word w reads back as itself in a POSIX shell without quotes. */
static bool shell_safe(const char *w)
{
	if (!*w)
		return false;
	for (; *w; w++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-+=/.,:@%^", *w))
			return false;
	return true;
}

size_t target__quote_argv(int argc, char *const *argv, char *buf, size_t n)
{
	size_t len = 0;

	/* snprintf's rule: len counts what the whole text needs. */
#define PUT(c) do { if (len + 1 < n) buf[len] = (c); len++; } while (0)
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (i)
			PUT(' ');
		if (shell_safe(w)) {
			for (; *w; w++)
				PUT(*w);
			continue;
		}
		PUT('\'');
		for (; *w; w++) {
			if (*w == '\'') {
				PUT('\'');
				PUT('\\');
				PUT('\'');
			}
			PUT(*w);
		}
		PUT('\'');
	}
#undef PUT
	if (n)
		buf[len < n ? len : n - 1] = '\0';
	return len;
}

enum target_kind target__kind(const struct target *t)
{
	return t->kind;
}

pid_t target__pid(const struct target *t)
{
	return t->pid;
}

const char *target__exe(const struct target *t)
{
	return t ? t->exe : NULL;
}

const char *target__cmdline(const struct target *t)
{
	return t->cmdline;
}

/* A held child's end is seen by the hold's waitpid (__WALL, every stop
 * served); a plain waitpid here would take its ptrace stops. */
static bool reaped_by_hold(struct target *t, bool block)
{
	enum exit_hold_state hs = exit_hold__poll(t->hold);

	if (hs == EXIT_HOLD_RUNNING || hs == EXIT_HOLD_AT_EXIT) {
		if (!block)
			return true;	/* nothing to reap yet */
		exit_hold__release(t->hold);
		hs = exit_hold__poll(t->hold);
	}
	if (hs != EXIT_HOLD_GONE)
		return false;		/* released: waitpid as usual */
	t->reaped = true;
	t->status = exit_hold__status(t->hold);
	return true;
}

static void reap(struct target *t, bool block)
{
	int st;
	pid_t r;

	if (t->kind != TARGET_CMD || t->reaped || t->pid <= 0)
		return;
	if (t->hold && reaped_by_hold(t, block))
		return;
	do
		r = waitpid(t->pid, &st, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == t->pid || (r < 0 && errno == ECHILD)) {
		t->reaped = true;
		t->status = r == t->pid ? st : -1;
	}
}

int target__release(struct target *t, struct errbuf *eb)
{
	char go = 'g';
	int e = 0;
	ssize_t r;

	if (t->kind != TARGET_CMD || t->released)
		return 0;
	t->released = true;
	r = write(t->go_fd, &go, 1);
	close(t->go_fd);
	t->go_fd = -1;
	if (r != 1)
		return errbuf__set(eb, -EPIPE, "the command '%s' died before it could start", t->cmdline);
	/* Blocks until exec succeeds (EOF, the pipe is close-on-exec) or fails. */
	do
		r = read(t->err_fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(t->err_fd);
	t->err_fd = -1;
	if (r == (ssize_t)sizeof(e)) {
		reap(t, true);
		return errbuf__set(eb, -e, "cannot execute '%s': %s", t->cmdline, strerror(e));
	}
	return 0;
}

int target__threads(const struct target *t, pid_t **tids, size_t *n)
{
	return pid_threads(t->pid, tids, n);
}

int target__hold_exit(struct target *t, struct errbuf *eb)
{
	if (t->kind == TARGET_ALL)
		return errbuf__set(eb, -EOPNOTSUPP, "-a has no process to hold at its exit");
	if (t->hold)
		return 0;
	if (t->reaped || (t->kind == TARGET_PID && proc_gone(t->pid)))
		return errbuf__set(eb, -ESRCH, "pid %d has exited", (int)t->pid);
	return exit_hold__new(t->pid, &t->hold, eb);
}

void target__let_exit(struct target *t)
{
	bool at_exit;

	if (!t || !t->hold)
		return;
	at_exit = exit_hold__poll(t->hold) == EXIT_HOLD_AT_EXIT;
	exit_hold__release(t->hold);
	/* It is exiting: its status is a moment away. */
	if (at_exit)
		reap(t, true);
}

bool target__exited(struct target *t)
{
	enum exit_hold_state hs = t->hold ? exit_hold__poll(t->hold) : EXIT_HOLD_RELEASED;

	if (hs == EXIT_HOLD_AT_EXIT)
		return true;
	switch (t->kind) {
	case TARGET_ALL:
		return false;
	case TARGET_PID:
		if (hs == EXIT_HOLD_RUNNING || hs == EXIT_HOLD_GONE)
			return hs == EXIT_HOLD_GONE;
		return proc_gone(t->pid);
	case TARGET_CMD:
		reap(t, false);
		return t->reaped;
	}
	return false;
}

int target__status(const struct target *t)
{
	if (t->reaped)
		return t->status;
	return t->hold ? exit_hold__status(t->hold) : -1;
}

void target__free(struct target *t)
{
	if (!t)
		return;
	target__let_exit(t);
	if (t->go_fd >= 0)
		close(t->go_fd);	/* an unreleased child reads EOF and exits */
	if (t->err_fd >= 0)
		close(t->err_fd);
	if (t->kind == TARGET_CMD && t->pid > 0 && !t->reaped) {
		reap(t, false);
		if (!t->reaped && t->released) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			kill(t->pid, SIGTERM);
			for (int i = 0; i < 100 && !t->reaped; i++) {
				nanosleep(&ts, NULL);
				reap(t, false);
			}
			if (!t->reaped)
				kill(t->pid, SIGKILL);
		}
		reap(t, true);
	}
	exit_hold__free(t->hold);
	free(t->cmdline);
	free(t->exe);
	free(t);
}
