/*
 * thread-touch: page faults from two threads of one process, each from a
 * stack of its own, for the test of report pprof's samples by thread and
 * their pid, tid and comm labels (tests/system/pprof-labels.sh).
 *
 *   thread-touch [--pages N] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]
 *
 * Before --go it maps 3 N fresh pages (anonymous, huge pages off, so each
 * first write is one fault), starts one thread, and runs each toucher
 * once over no page, so that their code and stacks are faulted in already;
 * the thread then waits on a pipe.  After --go (N default 64):
 *   thread_touch  N pages, in the thread: thread_main -> thread_touch
 *   main_touch    2 N pages, in the main thread once the thread is done:
 *                 main -> main_touch
 * each a noinline, noipa function writing one byte a page from one loop
 * (noipa: -O2's identical code folding would make the two one function,
 * and name both frames alike).
 *
 * Ground truth on stdout after the touching (write(2) only):
 *   site fn=thread_touch pages=N tid=T   T: the thread's own gettid()
 *   site fn=main_touch pages=2N tid=P
 *   comm=NAME                            prctl(PR_GET_NAME)
 *   pid=P
 * then --hold-ms, --end, exit 0 (1 when a call fails, 2 on a usage error).
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>

#define TRUTH_PROG "thread-touch"
#define TRUTH_USAGE "usage: thread-touch [--pages N] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

struct job {
	volatile char *p;
	unsigned long pages;
	long psz;
	int go[2];		/* the main thread writes a byte: touch */
	pid_t tid;		/* the thread's, written before it waits */
};

__attribute__((noinline, noipa)) static void thread_touch(volatile char *p, unsigned long pages, long psz)
{
	for (unsigned long i = 0; i < pages; i++)
		p[i * (unsigned long)psz] = 1;
}

__attribute__((noinline, noipa)) static void main_touch(volatile char *p, unsigned long pages, long psz)
{
	for (unsigned long i = 0; i < pages; i++)
		p[i * (unsigned long)psz] = 1;
}

static void *thread_main(void *arg)
{
	struct job *j = arg;
	char c;
	ssize_t n;

	j->tid = (pid_t)syscall(SYS_gettid);
	thread_touch(j->p, 0, j->psz);
	do
		n = read(j->go[0], &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		thread_touch(j->p, j->pages, j->psz);
	return NULL;
}

static void site(struct out *o, const char *fn, unsigned long pages, pid_t tid)
{
	out_str(o, "site fn=");
	out_str(o, fn);
	out_str(o, " pages=");
	out_num(o, pages, 10);
	out_str(o, " tid=");
	out_num(o, (unsigned long long)tid, 10);
	out_str(o, "\n");
}

int main(int argc, char **argv)
{
	static struct out o;
	static struct job j;
	unsigned long pages, delay_ms = 0, hold_ms = 0;
	char comm[17] = "";
	pthread_t th;
	char *p;

	pages = parse_pages_opts(argc, argv, 64, &delay_ms, &hold_ms);
	j.psz = sysconf(_SC_PAGESIZE);
	p = fresh_pages(3 * pages, j.psz);
	j.p = p;
	j.pages = pages;
	if (pipe(j.go) < 0)
		die_errno("pipe");
	errno = pthread_create(&th, NULL, thread_main, &j);
	if (errno)
		die_errno("pthread_create");
	main_touch(p + pages * (unsigned long)j.psz, 0, j.psz);
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	wait_go(delay_ms);
	if (write(j.go[1], "g", 1) != 1)
		die_errno("write");
	errno = pthread_join(th, NULL);
	if (errno)
		die_errno("pthread_join");
	main_touch(p + pages * (unsigned long)j.psz, 2 * pages, j.psz);
	site(&o, "thread_touch", pages, j.tid);
	site(&o, "main_touch", 2 * pages, getpid());
	out_str(&o, "comm=");
	out_str(&o, comm);
	out_str(&o, "\n");
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);
	wait_end(hold_ms);
	return 0;
}
