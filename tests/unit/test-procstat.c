/*
 * test-procstat: /proc/meminfo keys (and /proc/PID/io, the same shape),
 * PSI files (the system's with both lines; a 4.20 CPU file without
 * "full"), PSI trigger specs with the kernel's window limits, one
 * live sample of every indicator, and the NSpid line of a status file.  (vmstat lookups: test-vmstat.)
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "proc/nspid.h"
#include "proc/procstat.h"
#include "check.h"

static const char meminfo[] =
	"MemTotal:       24683904 kB\n"
	"MemFree:        21710448 kB\n"
	"MemAvailable:   23921008 kB\n"
	"Buffers:          116228 kB\n"
	"Cached:          2364864 kB\n"
	"SwapCached:            0 kB\n"
	"HugePages_Total:       0\n"
	"broken line\n"
	"SwapTotal:             0 kB";

static void test_meminfo(void)
{
	static const char *const names[] = { "MemAvailable", "Cached", "SwapTotal",
					     "HugePages_Total", "Swap", "Nosuch", NULL };
	uint64_t v[6];

	meminfo__parse(meminfo, names, v);
	CHECK_EQ_U64(v[0], 23921008);
	CHECK_EQ_U64(v[1], 2364864);	/* exact: not SwapCached */
	CHECK_EQ_U64(v[2], 0);		/* zero, not absent; no trailing newline */
	CHECK_EQ_U64(v[3], 0);
	CHECK_EQ_U64(v[4], PROCSTAT_ABSENT);	/* no prefix match */
	CHECK_EQ_U64(v[5], PROCSTAT_ABSENT);
}

static void test_psi(void)
{
	struct psi p;

	CHECK_EQ_U64(psi__parse("some avg10=1.50 avg60=0.25 avg300=0.00 total=7700872\n"
				"full avg10=0.00 avg60=0.01 avg300=0.00 total=4938532\n", &p), 0);
	CHECK(p.some.have && p.full.have);
	CHECK(p.some.avg10 == 1.5 && p.some.avg60 == 0.25 && p.full.avg60 == 0.01);
	CHECK_EQ_U64(p.some.total_us, 7700872);
	CHECK_EQ_U64(p.full.total_us, 4938532);
	CHECK_EQ_U64(psi__parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=5", &p), 0);
	CHECK(p.some.have && !p.full.have);
	CHECK_EQ_U64(p.some.total_us, 5);
	CHECK_EQ_U64(psi__parse("full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n", &p), -ENOENT);
	CHECK_EQ_U64(psi__parse("", &p), -ENOENT);
}

static void test_trigger(void)
{
	struct errbuf eb = { "" };
	uint64_t stall, win;
	bool full;

	CHECK_EQ_U64(psi_trigger__parse("some 150ms/1s", &full, &stall, &win, &eb), 0);
	CHECK(!full);
	CHECK_EQ_U64(stall, 150000);
	CHECK_EQ_U64(win, 1000000);
	CHECK_EQ_U64(psi_trigger__parse("full 100000us/2", &full, &stall, &win, &eb), 0);
	CHECK(full);
	CHECK_EQ_U64(stall, 100000);
	CHECK_EQ_U64(win, 2000000);
	CHECK_EQ_U64(psi_trigger__parse("some 0.5s/1s", &full, &stall, &win, &eb), 0);
	CHECK_EQ_U64(stall, 500000);
	CHECK_EQ_U64(psi_trigger__parse("most 1ms/1s", &full, &stall, &win, &eb), -EINVAL);
	CHECK_EQ_U64(psi_trigger__parse("some 1ms", &full, &stall, &win, &eb), -EINVAL);
	CHECK_EQ_U64(psi_trigger__parse("some 1ms/100ms", &full, &stall, &win, &eb), -EINVAL);
	CHECK_STR(eb.msg, "the trigger's window must be 500ms to 10s");
	CHECK_EQ_U64(psi_trigger__parse("some 2s/1s", &full, &stall, &win, &eb), -EINVAL);
	CHECK_STR(eb.msg, "the trigger's stall must be below its window");
	CHECK_EQ_U64(psi_trigger__parse("some 1xs/1s", &full, &stall, &win, &eb), -EINVAL);
}

static void test_sample(void)
{
	struct mem_sample s;
	struct errbuf eb = { "" };

	CHECK_EQ_U64(mem_sample__read(NULL, NULL, 0, &s, &eb), 0);
	CHECK(s.v[MI_MEMAVAIL_KB] != PROCSTAT_ABSENT && s.v[MI_MEMAVAIL_KB] > 0);
	CHECK(s.v[MI_PGMAJFAULT] != PROCSTAT_ABSENT);
	CHECK_EQ_U64(s.v[MI_CG_SOME_US], PROCSTAT_ABSENT);
	CHECK(s.time_ns > 0);
	CHECK_EQ_U64(mem_sample__read("/nonexistent", NULL, 0, &s, &eb), -ENOENT);
	CHECK_STR(mem_ind__name(MI_OOM_KILL), "oom_kill");
	CHECK(mem_ind__gauge(MI_MEMAVAIL_KB) && !mem_ind__gauge(MI_PSWPIN));
}

static void test_nspid(void)
{
	CHECK_EQ_U64(nspid__parse("Name:\tx\nPid:\t4242\nNSpid:\t4242\t17\t1\nNSpgid:\t4242\t17\t1\n"), 1);
	CHECK_EQ_U64(nspid__parse("NSpid:\t4242\n"), 4242);
	CHECK_EQ_U64(nspid__parse("Pid:\t1\nNSpid:\t77 9"), 9);
	CHECK(nspid__parse("Pid:\t4242\nNSpgid:\t4242\t1\n") == -ENOENT);
	CHECK(nspid__parse("NSpid:\t\nPid:\t3\n") == -ENOENT);
	CHECK(nspid__parse("NSpid:\t0\n") == -ENOENT);
	CHECK(nspid__read(getpid()) == getpid());
}

int main(void)
{
	test_meminfo();
	test_psi();
	test_trigger();
	test_sample();
	test_nspid();
	return check_done("test-procstat");
}
