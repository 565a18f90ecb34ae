/*
 * tree-pause: SIGSTOP a process tree found from /proc, SIGCONT exactly
 * what was stopped (tree-pause.h says why signals, and why no fork
 * escapes).  A scan of /proc reads one stat file a process: ~1 ms for 300
 * processes here, twice a pause (the second finds no one new), against
 * pauses that last milliseconds to seconds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "proc/pidstat.h"
#include "trace/tree-pause.h"

struct proc_ent {
	pid_t pid, ppid;
	char state;
};

struct tree_pause {
	pid_t root, self;
	/* the processes the current pause stopped: written before the
	 * count (atomic), which the signal path reads */
	pid_t *stopped;
	int nstopped;
	/* the tree as the current pause found it (stopped or not) */
	pid_t *tree;
	size_t ntree;
	struct proc_ent *ents;	/* one scan of /proc */
	size_t nents, capents;
};

int tree_pause__new(pid_t root, struct tree_pause **out)
{
	struct tree_pause *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->root = root;
	p->self = getpid();
	p->stopped = calloc(TREE_PAUSE_MAX, sizeof(*p->stopped));
	p->tree = calloc(TREE_PAUSE_MAX, sizeof(*p->tree));
	if (!p->stopped || !p->tree) {
		tree_pause__free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

/* Every process now, into p->ents.  0 / -errno. */
static int scan(struct tree_pause *p)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	p->nents = 0;
	while ((de = readdir(d))) {
		struct proc_ent e;
		struct pid_stat st;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (pid <= 0 || *end || pid_stat__read(NULL, (pid_t)pid, &st))
			continue;
		e.state = st.state;
		e.ppid = st.ppid;
		if (GROW_FOR(p->ents, p->capents, p->nents + 1, 256)) {
			closedir(d);
			return -ENOMEM;
		}
		e.pid = (pid_t)pid;
		p->ents[p->nents++] = e;
	}
	closedir(d);
	return 0;
}

static bool in_tree(const struct tree_pause *p, pid_t pid)
{
	for (size_t i = 0; i < p->ntree; i++)
		if (p->tree[i] == pid)
			return true;
	return false;
}

/* Take @pid into the tree and stop it unless someone else has (T, t) or
 * it is exiting (Z, X).  Recorded before the signal is sent, so that the
 * fatal-signal path continues it whenever it comes. */
static void take(struct tree_pause *p, pid_t pid, char state, bool stop)
{
	int n = p->nstopped;

	if (p->ntree >= TREE_PAUSE_MAX)
		return;
	p->tree[p->ntree++] = pid;
	if (!stop)
		return;
	/* -p of faultline's own shell has faultline in the tree: stopped,
	 * it would never continue anything. */
	if (pid == p->self)
		return;
	if (state == 'T' || state == 't' || state == 'Z' || state == 'X')
		return;
	p->stopped[n] = pid;
	__atomic_store_n(&p->nstopped, n + 1, __ATOMIC_RELEASE);
	if (kill(pid, SIGSTOP))
		__atomic_store_n(&p->nstopped, n, __ATOMIC_RELEASE);
}

/* The tree into p->tree, each process stopped as it is found if @stop. */
static void walk(struct tree_pause *p, bool stop)
{
	struct pid_stat st;
	bool grew;

	p->ntree = 0;
	if (stop)
		__atomic_store_n(&p->nstopped, 0, __ATOMIC_RELEASE);
	if (pid_stat__read(NULL, p->root, &st))
		return;
	take(p, p->root, st.state, stop);
	/* Until a scan finds no one new: a child forked before its parent's
	 * stop is in /proc by the next scan. */
	do {
		grew = false;
		if (scan(p))
			break;
		for (bool more = true; more;) {
			more = false;
			for (size_t i = 0; i < p->nents; i++)
				if (in_tree(p, p->ents[i].ppid) && !in_tree(p, p->ents[i].pid) &&
				    p->ntree < TREE_PAUSE_MAX) {
					take(p, p->ents[i].pid, p->ents[i].state, stop);
					more = grew = true;
				}
		}
	} while (grew);
}

int tree_pause__stop(struct tree_pause *p)
{
	if (__atomic_load_n(&p->nstopped, __ATOMIC_ACQUIRE))
		return 0;	/* paused already */
	walk(p, true);
	return p->nstopped;
}

size_t tree_pause__find(struct tree_pause *p)
{
	walk(p, false);
	return p->ntree;
}

const pid_t *tree_pause__tree(const struct tree_pause *p, size_t *n)
{
	*n = p->ntree;
	return p->tree;
}

void tree_pause__cont_in_signal(struct tree_pause *p)
{
	int n;

	if (!p)
		return;
	n = __atomic_exchange_n(&p->nstopped, 0, __ATOMIC_ACQ_REL);
	for (int i = 0; i < n; i++)
		kill(p->stopped[i], SIGCONT);
}

void tree_pause__cont(struct tree_pause *p)
{
	tree_pause__cont_in_signal(p);
}

void tree_pause__free(struct tree_pause *p)
{
	if (!p)
		return;
	tree_pause__cont(p);
	free(p->stopped);
	free(p->tree);
	free(p->ents);
	free(p);
}
