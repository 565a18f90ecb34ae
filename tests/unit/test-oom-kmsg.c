/*
 * test-oom-kmsg: the OOM report parser on real report texts.
 *
 * tests/fixtures/oom-kmsg/ holds reports as kernels printed them (see its
 * README for where each came from): /dev/kmsg records of a memcg OOM on
 * this machine's 6.18 (trigger and victim differ, then a second kill),
 * RHEL 7's 3.10 ("Kill process N ... or sacrifice child" then "Killed
 * process M", stats on one line, ", UID 0," syntax), Ubuntu's 5.4, a
 * global burst whose headers were rate limited, and 4.19+ constraint
 * lines with global_oom and an ancestor oom_memcg.  Every value checked is
 * one the text states.  Fixture paths come from $top_srcdir (default ".").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "proc/oom-kmsg.h"

#define MAX_REPORTS 8

static const char *top;

/* Feed every line of fixture NAME; the reports go to r[], their count is returned. */
static size_t feed_file(const char *name, struct oom_report *r, size_t max)
{
	char path[1024], line[16384];
	struct oom_kmsg *k = NULL;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/oom-kmsg/%s", top, name);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f) {
		fprintf(stderr, "test-oom-kmsg: cannot open %s\n", path);
		return 0;
	}
	CHECK(oom_kmsg__new(&k) == 0);
	while (k && fgets(line, sizeof(line), f)) {
		struct oom_report rep;

		if (oom_kmsg__feed(k, line, strlen(line), &rep) == 1 && n < max)
			r[n++] = rep;
	}
	oom_kmsg__free(k);
	fclose(f);
	return n;
}

static const char *stat_of(const struct oom_report *r, const char *key, uint64_t *v)
{
	for (size_t i = 0; i < r->nstats; i++)
		if (!strcmp(r->stats[i].key, key)) {
			*v = r->stats[i].value;
			return key;
		}
	return NULL;
}

static void test_6_18_kmsg(void)
{
	static const char memcg[] =
		"/process_api/96686a703413fef5db12864daa47b786/fl-oom-exp.18990";
	struct oom_report r[MAX_REPORTS];
	const char *from;
	uint64_t v = 0;
	size_t n = feed_file("6.18-memcg-v1.kmsg", r, MAX_REPORTS);

	CHECK_EQ_U64(n, 2);
	if (n != 2)
		return;
	/* First kill: oom-target's charge killed the hog. */
	CHECK_STR(r[0].trigger_comm, "oom-target");
	CHECK(r[0].have & OOM_HAVE_TRIGGER_PID);
	CHECK_EQ_U64(r[0].trigger_pid, 19106);
	CHECK_STR(r[0].gfp, "0xcc0(GFP_KERNEL)");
	CHECK_EQ_U64(r[0].order, 0);
	CHECK_EQ_U64(r[0].victim_pid, 19107);
	CHECK_STR(r[0].victim_comm, "oom-hog");
	CHECK_STR(r[0].constraint, "CONSTRAINT_MEMCG");
	CHECK(!r[0].constraint_inferred);
	CHECK_STR(r[0].oom_memcg, memcg);
	CHECK_STR(r[0].task_memcg, memcg);
	CHECK_EQ_U64(r[0].mem_limit_kb, 32768);
	CHECK_EQ_U64(r[0].mem_usage_kb, 32768);
	CHECK_EQ_U64(r[0].memsw_limit_kb, 9007199254740988ULL);
	CHECK_EQ_U64(r[0].total_vm_kb, 22888);
	CHECK_EQ_U64(r[0].anon_rss_kb, 20480);
	CHECK_EQ_U64(r[0].file_rss_kb, 716);
	CHECK_EQ_U64(r[0].shmem_rss_kb, 0);
	CHECK_EQ_U64(r[0].pgtables_kb, 80);
	CHECK_EQ_U64(r[0].uid, 0);
	CHECK_EQ_U64(r[0].oom_score_adj, 1000);
	CHECK_EQ_U64(r[0].have & (OOM_HAVE_RSS | OOM_HAVE_SHMEM | OOM_HAVE_PGTABLES | OOM_HAVE_SCORE_ADJ |
				  OOM_HAVE_UID | OOM_HAVE_TS),
		     OOM_HAVE_RSS | OOM_HAVE_SHMEM | OOM_HAVE_PGTABLES | OOM_HAVE_SCORE_ADJ | OOM_HAVE_UID |
		     OOM_HAVE_TS);
	CHECK_EQ_U64(r[0].ts_usec, 9775690527ULL);
	CHECK_STR(r[0].stats_memcg, memcg);
	CHECK_STR(r[0].stats[0].key, "cache");
	CHECK(stat_of(&r[0], "rss", &v) != NULL);
	CHECK_EQ_U64(v, 33337344);
	CHECK(stat_of(&r[0], "total_unevictable", &v) != NULL);
	CHECK_EQ_U64(r[0].nstats, 42);
	/* No swap here: the memcg's 32 MiB in 4 KiB pages. */
	CHECK_EQ_U64(oom_report__totalpages(&r[0], 4, 0, 0, &from), 8192);
	CHECK_STR(from, "memcg limit");
	/* With 1 GiB of swap and an unlimited memory+swap, all of it counts. */
	CHECK_EQ_U64(oom_report__totalpages(&r[0], 4, 1048576, 0, &from), 8192 + 262144);

	/* Second kill: the trigger killed itself; its own header. */
	CHECK_EQ_U64(r[1].trigger_pid, 19106);
	CHECK_EQ_U64(r[1].victim_pid, 19106);
	CHECK_STR(r[1].victim_comm, "oom-target");
	CHECK_EQ_U64(r[1].mem_usage_kb, 26400);
	CHECK_EQ_U64(r[1].anon_rss_kb, 12032);
	CHECK_EQ_U64(r[1].oom_score_adj, 0);
	CHECK(stat_of(&r[1], "rss", &v) != NULL);
	CHECK_EQ_U64(v, 12333056);
}

static void test_rhel7_memcg(void)
{
	struct oom_report r[MAX_REPORTS];
	const char *from;
	uint64_t v = 0;
	size_t n = feed_file("rhel7-3.10-memcg.log", r, MAX_REPORTS);

	/* One kill; the report after it has no "Killed process" line yet. */
	CHECK_EQ_U64(n, 1);
	if (n != 1)
		return;
	/* "Kill process 24572 ... sacrifice child" chose the parent; the
	 * victim is the child actually killed. */
	CHECK_EQ_U64(r[0].victim_pid, 28438);
	CHECK_STR(r[0].victim_comm, "java");
	CHECK_STR(r[0].constraint, "CONSTRAINT_MEMCG");
	CHECK(r[0].constraint_inferred);
	CHECK(!(r[0].have & (OOM_HAVE_TRIGGER | OOM_HAVE_TRIGGER_PID | OOM_HAVE_TS)));
	CHECK(r[0].have & OOM_HAVE_RSS);
	CHECK(!(r[0].have & (OOM_HAVE_SHMEM | OOM_HAVE_UID | OOM_HAVE_PGTABLES | OOM_HAVE_SCORE_ADJ)));
	CHECK_EQ_U64(r[0].total_vm_kb, 20255636);
	CHECK_EQ_U64(r[0].anon_rss_kb, 466160);
	CHECK_EQ_U64(r[0].file_rss_kb, 13684);
	CHECK_STR(r[0].stats_memcg, "/kubepods/pod95387fa4-da9c-11e7-9d36-5254b24cbf5e/"
		  "6895a3e13439535852d3184ac2aadd26d7363cc035f171545ec7d4ce74073b0b");
	CHECK_EQ_U64(r[0].nstats, 10);
	CHECK(stat_of(&r[0], "rss", &v) != NULL);
	CHECK_EQ_U64(v, 524188);
	CHECK(stat_of(&r[0], "unevictable", &v) != NULL);
	CHECK_EQ_U64(v, 0);
	/* The limit lines were before the excerpt: no pages. */
	CHECK_EQ_U64(oom_report__totalpages(&r[0], 4, 0, 0, &from), 0);
}

static void test_rhel7_uid(void)
{
	struct oom_report r[MAX_REPORTS];
	size_t n = feed_file("rhel7-3.10-uid.log", r, MAX_REPORTS);

	CHECK_EQ_U64(n, 1);
	if (n != 1)
		return;
	CHECK_EQ_U64(r[0].victim_pid, 18177);
	CHECK_STR(r[0].victim_comm, "palo_be");
	CHECK_STR(r[0].constraint, "CONSTRAINT_MEMCG");
	CHECK(r[0].have & OOM_HAVE_UID);
	CHECK_EQ_U64(r[0].uid, 0);
	CHECK_EQ_U64(r[0].total_vm_kb, 70347780);
	CHECK_EQ_U64(r[0].anon_rss_kb, 45563572);
	CHECK_EQ_U64(r[0].file_rss_kb, 0);
	CHECK(r[0].have & OOM_HAVE_SHMEM);
}

static void test_ubuntu_5_4(void)
{
	struct oom_report r[MAX_REPORTS];
	size_t n = feed_file("ubuntu-5.4-memcg.log", r, MAX_REPORTS);

	CHECK_EQ_U64(n, 1);
	if (n != 1)
		return;
	CHECK_EQ_U64(r[0].victim_pid, 63214);
	CHECK_STR(r[0].victim_comm, "uwsgi");
	CHECK_STR(r[0].constraint, "CONSTRAINT_MEMCG");
	CHECK_EQ_U64(r[0].ts_usec, 7063247407ULL);
	CHECK_EQ_U64(r[0].shmem_rss_kb, 92);
	CHECK_EQ_U64(r[0].pgtables_kb, 1372);
	CHECK_EQ_U64(r[0].oom_score_adj, 986);
	CHECK(!(r[0].have & OOM_HAVE_TRIGGER));
}

static void test_global_burst(void)
{
	static const int pids[] = { 15784, 15925, 15783, 15934 };
	static const char *const comms[] = { "python3", "(resolved)", "python3", "(resolved)" };
	struct oom_report r[MAX_REPORTS];
	const char *from;
	size_t n = feed_file("ubuntu-global-burst.log", r, MAX_REPORTS);

	CHECK_EQ_U64(n, 4);
	for (size_t i = 0; i < n && i < 4; i++) {
		CHECK_EQ_U64(r[i].victim_pid, pids[i]);
		CHECK_STR(r[i].victim_comm, comms[i]);
		CHECK_STR(r[i].constraint, "CONSTRAINT_NONE");
		CHECK(r[i].constraint_inferred);
		CHECK(!(r[i].have & OOM_HAVE_TRIGGER));
	}
	if (n < 2)
		return;
	CHECK_EQ_U64(r[1].total_vm_kb, 168424);
	CHECK_EQ_U64(r[1].ts_usec, 518061172ULL);
	/* Global: RAM plus swap from the caller's /proc/meminfo. */
	CHECK_EQ_U64(oom_report__totalpages(&r[0], 4, 400, 2000000, &from), 500100);
	CHECK_STR(from, "MemTotal + SwapTotal");
}

/* The 4.19+ constraint line, fed before the victim line of the 6.18
 * fixture: the line's own fields must win over nothing else. */
static void test_constraint_lines(void)
{
	static const char victim[] = "3,905,9775690527,-;Memory cgroup out of memory: Killed process 19107 "
		"(oom-hog) total-vm:22888kB, anon-rss:20480kB, file-rss:716kB, shmem-rss:0kB, UID:0 "
		"pgtables:80kB oom_score_adj:1000\n";
	char path[1024], line[4096];
	struct oom_kmsg *k = NULL;
	struct oom_report r;
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/oom-kmsg/constraint-lines.log", top);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f || oom_kmsg__new(&k))
		goto out;
	/* Global: "global_oom", no oom_memcg. */
	CHECK(fgets(line, sizeof(line), f) != NULL);
	got = oom_kmsg__feed(k, line, strlen(line), &r);
	CHECK_EQ_U64(got, 0);
	got = oom_kmsg__feed(k, victim, strlen(victim), &r);
	CHECK_EQ_U64(got, 1);
	CHECK_STR(r.constraint, "CONSTRAINT_NONE");
	CHECK(!r.constraint_inferred);
	CHECK(!(r.have & OOM_HAVE_OOM_MEMCG));
	CHECK_STR(r.task_memcg, "/system.slice/docker-00748bf4e957f82c239a1db8a88579059b7d40c7b5fbd"
		  "3f43617d31d3f646f12.scope");
	/* Memcg with the limit on an ancestor: oom_memcg != task_memcg. */
	CHECK(fgets(line, sizeof(line), f) != NULL);
	CHECK_EQ_U64(oom_kmsg__feed(k, line, strlen(line), &r), 0);
	CHECK_EQ_U64(oom_kmsg__feed(k, victim, strlen(victim), &r), 1);
	CHECK_STR(r.constraint, "CONSTRAINT_MEMCG");
	CHECK_STR(r.oom_memcg, "/lxc.payload....-lxc/kubepods.slice/kubepods-burstable.slice/"
		  "kubepods-burstable-podeded8c65_6e8e_4c6e_a889_3e427565c740.slice");
	CHECK_STR(r.task_memcg, "/lxc.payload.ny2g2r5hh3-lxc/kubepods.slice/kubepods-burstable.slice/"
		  "kubepods-burstable-podeded8c65_6e8e_4c6e_a889_3e427565c740.slice/cri-containerd-"
		  "ec9ee26695deb4cc72bc665efff1cf3a03fdfb12f1303e02fe9252985e084a95.scope");
	/* Consumed by its victim: the next bare victim line has no header. */
	CHECK_EQ_U64(oom_kmsg__feed(k, victim, strlen(victim), &r), 1);
	CHECK(!(r.have & (OOM_HAVE_OOM_MEMCG | OOM_HAVE_TASK_MEMCG)));
	CHECK(r.constraint_inferred);
out:
	oom_kmsg__free(k);
	if (f)
		fclose(f);
}

/* kmsg escapes: a record holding several lines, and "\x5c" for a backslash. */
static void test_escapes(void)
{
	static const char stats[] = "6,10,100,-;Memory cgroup stats for /a:\\x0aanon 4096\\x0afile 8192\n";
	static const char kill[] = "3,11,200,-;Memory cgroup out of memory: Killed process 7 (a\\x5cb) "
		"total-vm:4kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0\n";
	struct oom_kmsg *k = NULL;
	struct oom_report r;

	CHECK(oom_kmsg__new(&k) == 0);
	if (!k)
		return;
	CHECK_EQ_U64(oom_kmsg__feed(k, stats, strlen(stats), &r), 0);
	CHECK_EQ_U64(oom_kmsg__feed(k, kill, strlen(kill), &r), 1);
	CHECK_STR(r.victim_comm, "a\\b");
	CHECK_STR(r.stats_memcg, "/a");
	CHECK_EQ_U64(r.nstats, 2);
	CHECK_STR(r.stats[1].key, "file");
	CHECK_EQ_U64(r.stats[1].value, 8192);
	CHECK_EQ_U64(r.ts_usec, 200);
	oom_kmsg__free(k);
}

int main(void)
{
	top = getenv("top_srcdir");
	if (!top || !*top)
		top = ".";
	test_6_18_kmsg();
	test_rhel7_memcg();
	test_rhel7_uid();
	test_ubuntu_5_4();
	test_global_burst();
	test_constraint_lines();
	test_escapes();
	return check_done("test-oom-kmsg");
}
