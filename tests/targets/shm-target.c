/*
 * shm-target: a program whose System V shared-memory calls are known
 * exactly, for the system tests of `faultline shm`.
 *
 * What it does, in order:
 *   1. Parses options, then waits for --go FIFO (truth.h).
 *   2. The measured phase, --rounds N times (default 3), from main ->
 *      run_shm_scenario, each call from its own named function, through
 *      libc's wrappers:
 *        make_segment:    shmget(key, 3 pages, IPC_CREAT|IPC_EXCL|0600),
 *                         key 0x5f1e0000 + pid's low 12 bits << 4 + round
 *                         (a key nothing else here uses)
 *        attach_segment:  shmat(id, NULL, 0), then writes one byte
 *        attach_readonly: shmat(id, NULL, SHM_RDONLY)
 *        detach_segment:  shmdt() of each attachment
 *        stat_segment:    shmctl(id, IPC_STAT, &ds)
 *        remove_segment:  shmctl(id, IPC_RMID, NULL)
 *      and once, after the rounds, lookup_missing: shmget of a key that
 *      does not exist, without IPC_CREAT, which fails with ENOENT.
 *   3. Prints one line of truth per call, in order:
 *      "shm sys=SHMGET ret=R a0=.. a1=.. a2=.. fn=NAME" (args as the
 *      kernel's tracepoints name them, hex; ret decimal, -errno on
 *      failure as the syscall returns it), then calls=N and pid=P.
 *   4. Waits for --end FIFO, exits 0 (1 if a call that must work fails).
 */
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>

#define TRUTH_PROG "shm-target"
#define TRUTH_USAGE "usage: shm-target [--rounds N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

static struct out out;
static unsigned long ncalls;

static void truth(const char *sys, long ret, unsigned long a0, unsigned long a1,
		  unsigned long a2, const char *fn)
{
	out_str(&out, "shm sys=");
	out_str(&out, sys);
	out_str(&out, " ret=");
	out_int(&out, ret);
	out_str(&out, " a0=");
	out_num(&out, a0, 16);
	out_str(&out, " a1=");
	out_num(&out, a1, 16);
	out_str(&out, " a2=");
	out_num(&out, a2, 16);
	out_str(&out, " fn=");
	out_str(&out, fn);
	out_str(&out, "\n");
	ncalls++;
}

static void must(int ok, const char *what)
{
	if (!ok)
		die_errno(what);
}

__attribute__((noinline)) static int make_segment(key_t key, size_t size)
{
	int flg = IPC_CREAT | IPC_EXCL | 0600;
	int id = shmget(key, size, flg);

	must(id >= 0, "shmget");
	truth("SHMGET", id, (unsigned long)key, size, (unsigned long)flg, "make_segment");
	return id;
}

__attribute__((noinline)) static char *attach_segment(int id)
{
	char *p = shmat(id, NULL, 0);

	must(p != (void *)-1, "shmat");
	p[0] = 1;
	truth("SHMAT", (long)p, (unsigned long)id, 0, 0, "attach_segment");
	return p;
}

__attribute__((noinline)) static char *attach_readonly(int id)
{
	char *p = shmat(id, NULL, SHM_RDONLY);

	must(p != (void *)-1, "shmat");
	truth("SHMAT", (long)p, (unsigned long)id, 0, SHM_RDONLY, "attach_readonly");
	return p;
}

__attribute__((noinline)) static void detach_segment(char *p)
{
	int r = shmdt(p);

	must(r == 0, "shmdt");
	truth("SHMDT", r, (unsigned long)p, 0, 0, "detach_segment");
}

__attribute__((noinline)) static void stat_segment(int id)
{
	static struct shmid_ds ds;
	int r = shmctl(id, IPC_STAT, &ds);

	must(r == 0, "shmctl IPC_STAT");
	truth("SHMCTL", r, (unsigned long)id, IPC_STAT, (unsigned long)&ds, "stat_segment");
}

__attribute__((noinline)) static void remove_segment(int id)
{
	int r = shmctl(id, IPC_RMID, NULL);

	must(r == 0, "shmctl IPC_RMID");
	truth("SHMCTL", r, (unsigned long)id, IPC_RMID, 0, "remove_segment");
}

__attribute__((noinline)) static void lookup_missing(key_t key)
{
	int r = shmget(key, 4096, 0600);

	must(r == -1 && errno == ENOENT, "shmget of a missing key");
	truth("SHMGET", -ENOENT, (unsigned long)key, 4096, 0600, "lookup_missing");
}

__attribute__((noinline)) static void run_shm_scenario(unsigned long rounds)
{
	key_t base = (key_t)(0x5f1e0000 | ((getpid() & 0xfff) << 4));
	size_t size = 3 * (size_t)sysconf(_SC_PAGESIZE);

	for (unsigned long i = 0; i < rounds; i++) {
		int id = make_segment(base + (key_t)i, size);
		char *rw = attach_segment(id);
		char *ro = attach_readonly(id);

		detach_segment(ro);
		detach_segment(rw);
		stat_segment(id);
		remove_segment(id);
	}
	lookup_missing(base + 0xf);
}

int main(int argc, char **argv)
{
	unsigned long rounds = 3, none = 0;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--rounds") == 0)
			rounds = parse_num(argv[++a], "--rounds needs a number");
		else
			parse_shared_opt(argv, &a, &none, &none);
	}
	if (rounds > 15)
		die_usage("--rounds is at most 15");
	wait_go(0);
	run_shm_scenario(rounds);
	out_kv(&out, "calls", ncalls, 10);
	out_kv(&out, "pid", (unsigned long long)getpid(), 10);
	out_flush(&out);
	wait_end(0);
	return 0;
}
