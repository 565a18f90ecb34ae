/*
 * test-tree-pause: src/trace/tree-pause.c on a process tree the test forks:
 * a root, its child, the child's child, and a second child of the root
 * that the test stops itself (SIGSTOP) before the pause, as job control
 * or a debugger would.  Each reports its pid through a pipe once its own
 * child exists, then waits in read(2) on a pipe never written.
 * Checked:
 *   - tree_pause__stop() stops the root and both descendants (state T),
 *     returns 3, and leaves the process someone else stopped alone;
 *   - a second stop while paused stops nothing (0);
 *   - tree_pause__cont() lets the three go on, and the one stopped by
 *     someone else stays stopped (not resumed wrongly);
 *   - tree_pause__cont_in_signal() continues a pause the same way, and
 *     tree_pause__free() continues what is still stopped;
 *   - the calling process as the root: never stopped (0);
 *   - a root already gone: nothing stopped, 0; free(NULL).
 * States are waited for (the kernel stops a task when it next runs),
 * bounded by LIMIT seconds only as a safety net.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "trace/tree-pause.h"

#define LIMIT 10

static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Whether @pid reaches (@want) or leaves (!@want) the stopped state. */
static bool wait_stopped(pid_t pid, bool want)
{
	for (int i = 0; i < LIMIT * 1000; i++) {
		if ((state_of(pid) == 'T') == want)
			return true;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return false;
}

static int hold_fd;	/* read end of a pipe never written: the tree waits */

static void wait_forever(void)
{
	char c;

	while (read(hold_fd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* Fork a child that runs @fn; its pid. */
static pid_t spawn(void (*fn)(int), int report)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(report);
		_exit(0);
	}
	return pid;
}

/* What each process reports: its role and pid. */
struct hello {
	int role;
	pid_t pid;
};
enum { ROOT, CHILD, GRANDCHILD, SIBLING };

static void say(int fd, int role)
{
	struct hello h = { role, getpid() };

	if (write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
		_exit(1);
}

static void grandchild(int report)
{
	say(report, GRANDCHILD);
	wait_forever();
}

static void child(int report)
{
	spawn(grandchild, report);
	say(report, CHILD);
	wait_forever();
}

static void sibling(int report)
{
	say(report, SIBLING);
	wait_forever();
}

static void root(int report)
{
	spawn(child, report);
	spawn(sibling, report);
	say(report, ROOT);
	wait_forever();
}

int main(void)
{
	int rep[2], hold[2];
	pid_t pids[4] = { 0 }, rootpid, sib;
	struct tree_pause *p = NULL;

	CHECK(pipe(rep) == 0 && pipe(hold) == 0);
	hold_fd = hold[0];
	rootpid = spawn(root, rep[1]);
	CHECK(rootpid > 0);
	for (int i = 0; i < 4; i++) {
		struct hello h;

		if (read(rep[0], &h, sizeof(h)) == (ssize_t)sizeof(h) && h.role >= 0 && h.role < 4)
			pids[h.role] = h.pid;
	}
	sib = pids[SIBLING];
	CHECK(pids[ROOT] == rootpid && pids[CHILD] > 0 && pids[GRANDCHILD] > 0 && sib > 0);
	if (!pids[CHILD] || !pids[GRANDCHILD] || sib <= 0)
		goto out;
	kill(sib, SIGSTOP);
	CHECK(wait_stopped(sib, true));

	CHECK(tree_pause__new(rootpid, &p) == 0);
	CHECK_EQ_U64(tree_pause__stop(p), 3);
	for (int i = 0; i < 4; i++)
		CHECK(wait_stopped(pids[i], true));
	CHECK_EQ_U64(tree_pause__stop(p), 0);	/* paused already */
	tree_pause__cont(p);
	for (int i = 0; i < 4; i++)
		if (pids[i] != sib)
			CHECK(wait_stopped(pids[i], false));
	CHECK(state_of(sib) == 'T');		/* someone else's stop stays */

	CHECK_EQ_U64(tree_pause__stop(p), 3);
	tree_pause__cont_in_signal(p);
	for (int i = 0; i < 4; i++)
		if (pids[i] != sib)
			CHECK(wait_stopped(pids[i], false));
	tree_pause__cont(p);			/* nothing left: harmless */
	CHECK_EQ_U64(tree_pause__stop(p), 3);
	tree_pause__free(p);
	p = NULL;
	for (int i = 0; i < 4; i++)
		if (pids[i] != sib)
			CHECK(wait_stopped(pids[i], false));
	CHECK(state_of(sib) == 'T');
out:
	tree_pause__free(p);
	for (int i = 0; i < 4; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	waitpid(rootpid, NULL, 0);

	/* The caller itself, in the tree: never stopped. */
	CHECK(tree_pause__new(getpid(), &p) == 0);
	CHECK_EQ_U64(tree_pause__stop(p), 0);
	tree_pause__free(p);

	/* A root that is gone: nothing to stop. */
	CHECK(tree_pause__new(rootpid, &p) == 0);
	CHECK_EQ_U64(tree_pause__stop(p), 0);
	tree_pause__free(p);
	tree_pause__free(NULL);
	return check_done("test-tree-pause");
}
