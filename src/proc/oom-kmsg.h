/*
 * oom-kmsg: the kernel's OOM report, read back from its log text.
 *
 * When the OOM killer kills it prints a report: "X invoked oom-killer"
 * (the trigger: the task whose allocation failed), a "CPU: N PID: P Comm:
 * X" line with the trigger's pid, the memcg's usage and limits, on 4.19+
 * an "oom-kill:constraint=...,oom_memcg=...,task_memcg=...,pid=N" line
 * (before that, "Task in A killed as a result of limit of B"), and then
 * "Killed process N (comm) total-vm:..kB, anon-rss:..kB, ..." for the
 * victim.  The header is rate limited; the "Killed process" line is not,
 * so a report may be only that line.  The wording moved across kernels
 * (3.10's "Kill process N ... or sacrifice child" then "Killed process M",
 * 5.x's "Out of memory: Killed process"); every variant seen in real
 * reports is accepted, and fields a kernel does not print stay absent.
 *
 * This module is pure: it is fed lines, as /dev/kmsg records
 * ("6,1234,5678901,-;text"), dmesg lines ("[ 12.345678] text",
 * "[Thu Dec  7 00:05:14 2017] text") or syslog lines ("... kernel: text"),
 * and hands back one report per victim.  It never reads a file itself, so
 * the unit tests run it on report texts of kernels we do not have.
 */
#ifndef FAULTLINE_OOM_KMSG_H
#define FAULTLINE_OOM_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OOM_KMSG_COMM 64
#define OOM_KMSG_PATH 512
#define OOM_KMSG_STATS 64

/* Which fields of struct oom_report the text had. */
enum {
	OOM_HAVE_TS = 1u << 0,		/* ts_usec: a kmsg or [sec.usec] timestamp */
	OOM_HAVE_TRIGGER = 1u << 1,	/* trigger_comm, gfp, order, trigger_oom_score_adj */
	OOM_HAVE_TRIGGER_PID = 1u << 2,	/* trigger_pid (the CPU/PID/Comm line) */
	OOM_HAVE_CONSTRAINT = 1u << 3,	/* constraint (4.19+ line, or inferred) */
	OOM_HAVE_OOM_MEMCG = 1u << 4,	/* oom_memcg: the memcg whose limit was hit */
	OOM_HAVE_TASK_MEMCG = 1u << 5,	/* task_memcg: the victim's memcg */
	OOM_HAVE_MEM_LIMIT = 1u << 6,	/* mem_usage_kb, mem_limit_kb */
	OOM_HAVE_MEMSW_LIMIT = 1u << 7,	/* memsw_limit_kb (cgroup v1 memory+swap) */
	OOM_HAVE_SWAP_LIMIT = 1u << 8,	/* swap_limit_kb (cgroup v2 swap) */
	OOM_HAVE_RSS = 1u << 9,		/* total_vm_kb, anon_rss_kb, file_rss_kb */
	OOM_HAVE_SHMEM = 1u << 10,	/* shmem_rss_kb */
	OOM_HAVE_UID = 1u << 11,	/* uid */
	OOM_HAVE_PGTABLES = 1u << 12,	/* pgtables_kb */
	OOM_HAVE_SCORE_ADJ = 1u << 13,	/* victim's oom_score_adj */
	OOM_HAVE_RAM = 1u << 14,	/* ram_pages ("N pages RAM", global reports) */
	OOM_HAVE_SWAP_TOTAL = 1u << 15,	/* swap_total_kb ("Total swap = NkB") */
};

struct oom_stat {
	char key[40];
	uint64_t value;		/* as printed: bytes on 5.x+, kB ("cache:32KB") before */
};

/*
 * One OOM kill.  Strings are "" when absent; check @have for numbers.
 * @constraint is the kernel's word ("CONSTRAINT_MEMCG", "CONSTRAINT_NONE",
 * ...); where the report has no constraint line it is inferred from the
 * "Memory cgroup out of memory" / "Task in ... limit of" wording
 * (CONSTRAINT_MEMCG) or "Out of memory:" (CONSTRAINT_NONE) and
 * @constraint_inferred is set.
 */
struct oom_report {
	unsigned int have;
	uint64_t ts_usec;		/* of the "Killed process" line */
	char trigger_comm[OOM_KMSG_COMM];
	int trigger_pid;
	char gfp[96];			/* "0xcc0(GFP_KERNEL)" */
	int order;
	int trigger_oom_score_adj;
	char constraint[32];
	bool constraint_inferred;
	bool group;			/* one of several victims of memory.oom.group */
	char oom_memcg[OOM_KMSG_PATH];
	char task_memcg[OOM_KMSG_PATH];
	uint64_t mem_usage_kb, mem_limit_kb, memsw_limit_kb, swap_limit_kb;
	uint64_t ram_pages, swap_total_kb;
	int victim_pid;
	char victim_comm[OOM_KMSG_COMM];
	uint64_t total_vm_kb, anon_rss_kb, file_rss_kb, shmem_rss_kb, pgtables_kb;
	unsigned int uid;
	int oom_score_adj;
	/* The memcg statistics the kernel printed in the report (v1: after
	 * "Memory cgroup stats for PATH:"), in the kernel's order. */
	char stats_memcg[OOM_KMSG_PATH];
	struct oom_stat stats[OOM_KMSG_STATS];
	size_t nstats;
};

struct oom_kmsg;

/** oom_kmsg__new() - a parser with no report in progress.  0 or -ENOMEM. */
int oom_kmsg__new(struct oom_kmsg **out);

/** oom_kmsg__free() - release @k; NULL is allowed. */
void oom_kmsg__free(struct oom_kmsg *k);

/**
 * oom_kmsg__feed() - feed one line or /dev/kmsg record
 * @line: the text, not necessarily NUL-terminated; a trailing newline is
 *        ignored.  A kmsg record may hold several lines (escaped "\x0a"
 *        or real newlines): each is parsed in turn.  Not retained.
 * @len:  bytes of @line
 * @out:  receives the report when this line completed one (a "Killed
 *        process" line); untouched otherwise
 *
 * The header of a report (trigger, constraint, limits, stats) belongs to
 * the first victim that follows it, or to every victim of a
 * memory.oom.group kill; a "Killed process" line with no header before
 * it (the header was rate limited) gives a report with only the victim.
 *
 * Return: 1 when @out was filled, 0 when not.
 */
int oom_kmsg__feed(struct oom_kmsg *k, const char *line, size_t len, struct oom_report *out);

/**
 * oom_report__totalpages() - what BCC's oomkill prints as "pages"
 * (oc->totalpages: the memory the OOM context may use), derived
 * @page_kb:       the page size in kB
 * @swap_total_kb: the system's swap (SwapTotal), used when the report
 *                 does not say
 * @mem_total_kb:  MemTotal, for a global OOM whose report has no "pages RAM"
 * @from:          receives what the number was derived from (static string)
 *
 * For a memcg OOM: the memcg limit plus the swap it may use (v1:
 * memory+swap limit minus memory limit; v2: the swap limit), bounded by
 * the system's swap, as mem_cgroup_get_max() computes it (ignoring a
 * swappiness of 0).  Otherwise RAM plus swap, as the kernel uses for
 * CONSTRAINT_NONE; cpuset and mempolicy OOMs count only their nodes, which
 * the report does not give, so this is an upper bound there.
 *
 * Return: pages, or 0 when the report lacks what is needed.
 */
uint64_t oom_report__totalpages(const struct oom_report *r, uint64_t page_kb,
				uint64_t swap_total_kb, uint64_t mem_total_kb, const char **from);

#endif
