/*
 * oom-kmsg: parse the kernel's OOM report from log lines (see oom-kmsg.h).
 *
 * A small state machine: the header lines of a report fill a report in
 * progress; the "Killed process" line completes it and hands it out.
 * Matching is by the fixed words the kernel prints (mm/oom_kill.c,
 * mm/memcontrol.c, lib/dump_stack.c), never by position, because lines
 * come and go between kernels and the header may be rate limited away.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/oom-kmsg.h"

/* Longer lines exist (a cgroup path near PATH_MAX); they are cut. */
#define LINE_MAX_LEN 8192

enum kill_hint { HINT_NONE, HINT_MEMCG, HINT_GLOBAL };

struct oom_kmsg {
	struct oom_report cur;
	bool in_stats;		/* after a multi-line "Memory cgroup stats for" */
	enum kill_hint hint;	/* from a 3.10-4.x "... Kill process N" line */
};

int oom_kmsg__new(struct oom_kmsg **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void oom_kmsg__free(struct oom_kmsg *k)
{
	free(k);
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Copy [s, s+n) into dst (size cap), NUL-terminated, cut if long. */
static void copy_n(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* The number after the first "key" in s (unsigned decimal). */
static bool field_u64(const char *s, const char *key, uint64_t *v)
{
	const char *p = strstr(s, key);
	char *end;

	if (!p)
		return false;
	p += strlen(key);
	if (!isdigit((unsigned char)*p))
		return false;
	*v = strtoull(p, &end, 10);
	return true;
}

static bool field_int(const char *s, const char *key, int *v)
{
	const char *p = strstr(s, key);
	char *end;
	long l;

	if (!p)
		return false;
	p += strlen(key);
	l = strtol(p, &end, 10);
	if (end == p)
		return false;
	*v = (int)l;
	return true;
}

/* The text of "key=VALUE" up to the next ",stop" (or the end), into dst. */
static bool field_str(const char *s, const char *key, const char *stop, char *dst, size_t cap)
{
	const char *p = strstr(s, key), *e;

	if (!p)
		return false;
	p += strlen(key);
	e = stop ? strstr(p, stop) : NULL;
	if (!e)
		e = p + strcspn(p, ",");
	copy_n(dst, cap, p, (size_t)(e - p));
	return true;
}

static void reset(struct oom_kmsg *k)
{
	memset(&k->cur, 0, sizeof(k->cur));
	k->in_stats = false;
	k->hint = HINT_NONE;
}

/* "X invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0" */
static void parse_invoked(struct oom_kmsg *k, const char *msg, const char *at)
{
	struct oom_report *r = &k->cur;
	const char *g;

	reset(k);
	copy_n(r->trigger_comm, sizeof(r->trigger_comm), msg, (size_t)(at - msg));
	g = strstr(at, "gfp_mask=");
	if (g) {
		g += strlen("gfp_mask=");
		copy_n(r->gfp, sizeof(r->gfp), g, strcspn(g, ", "));
	}
	field_int(at, "order=", &r->order);
	field_int(at, "oom_score_adj=", &r->trigger_oom_score_adj);
	r->have |= OOM_HAVE_TRIGGER;
}

/*
 * "CPU: 1 UID: 0 PID: 15632 Comm: oom-target Not tainted 6.18..." (3.10:
 * "CPU: 9 PID: 14881 Comm: java Tainted: G ...").  Only right after the
 * "invoked" line: later CPU lines (a second stack dump) are not the
 * trigger's.
 */
static void parse_cpu_line(struct oom_report *r, const char *msg)
{
	int pid;

	if ((r->have & (OOM_HAVE_TRIGGER | OOM_HAVE_TRIGGER_PID)) != OOM_HAVE_TRIGGER)
		return;
	if (!strstr(msg, " Comm: ") || !field_int(msg, " PID: ", &pid) || pid <= 0)
		return;
	r->trigger_pid = pid;
	r->have |= OOM_HAVE_TRIGGER_PID;
}

/* "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,
 *  oom_memcg=/a,task_memcg=/a/b,task=comm,pid=N,uid=0"; a global OOM says
 *  "global_oom" instead of oom_memcg=. */
static void parse_constraint(struct oom_report *r, const char *msg)
{
	if (field_str(msg, "constraint=", ",", r->constraint, sizeof(r->constraint))) {
		r->have |= OOM_HAVE_CONSTRAINT;
		r->constraint_inferred = false;
	}
	if (field_str(msg, ",oom_memcg=", ",task_memcg=", r->oom_memcg, sizeof(r->oom_memcg)))
		r->have |= OOM_HAVE_OOM_MEMCG;
	if (field_str(msg, ",task_memcg=", ",task=", r->task_memcg, sizeof(r->task_memcg)))
		r->have |= OOM_HAVE_TASK_MEMCG;
}

/* Pre-4.19: "Task in /a/b killed as a result of limit of /a" */
static void parse_task_in(struct oom_report *r, const char *msg)
{
	const char *mid = strstr(msg, " killed as a result of limit of ");
	const char *task = msg + strlen("Task in ");

	if (!mid || mid < task)
		return;
	copy_n(r->task_memcg, sizeof(r->task_memcg), task, (size_t)(mid - task));
	copy_n(r->oom_memcg, sizeof(r->oom_memcg), mid + strlen(" killed as a result of limit of "),
	       OOM_KMSG_PATH);
	r->have |= OOM_HAVE_TASK_MEMCG | OOM_HAVE_OOM_MEMCG;
	if (!(r->have & OOM_HAVE_CONSTRAINT)) {
		strcpy(r->constraint, "CONSTRAINT_MEMCG");
		r->constraint_inferred = true;
		r->have |= OOM_HAVE_CONSTRAINT;
	}
}

static void add_stat(struct oom_report *r, const char *key, size_t keylen, uint64_t v)
{
	if (r->nstats >= OOM_KMSG_STATS)
		return;
	copy_n(r->stats[r->nstats].key, sizeof(r->stats[0].key), key, keylen);
	r->stats[r->nstats++].value = v;
}

/* "Memory cgroup stats for /a/b:" then "key value" lines (4.19+ v1, and
 * the memory.stat text on v2), or on one line "... /a/b: cache:32KB rss:..KB". */
static void parse_stats_head(struct oom_kmsg *k, const char *msg)
{
	struct oom_report *r = &k->cur;
	const char *path = msg + strlen("Memory cgroup stats for ");
	const char *colon = strstr(path, ": ");
	const char *p;

	r->nstats = 0;
	if (!colon) {
		size_t n = strlen(path);

		if (n && path[n - 1] == ':')
			n--;
		copy_n(r->stats_memcg, sizeof(r->stats_memcg), path, n);
		k->in_stats = true;
		return;
	}
	copy_n(r->stats_memcg, sizeof(r->stats_memcg), path, (size_t)(colon - path));
	for (p = colon + 2; *p;) {
		size_t klen = strcspn(p, ": ");
		char *end;
		uint64_t v;

		if (p[klen] != ':')
			break;
		v = strtoull(p + klen + 1, &end, 10);
		if (end == p + klen + 1)
			break;
		add_stat(r, p, klen, v);
		p = end + strspn(end, "KB");
		p += strspn(p, " ");
	}
}

/* A "key value" line of a multi-line stats dump; false ends the dump. */
static bool parse_stat_line(struct oom_report *r, const char *msg)
{
	size_t klen = strspn(msg, "abcdefghijklmnopqrstuvwxyz0123456789_");
	char *end;
	uint64_t v;

	if (!klen || msg[klen] != ' ' || !isdigit((unsigned char)msg[klen + 1]))
		return false;
	v = strtoull(msg + klen + 1, &end, 10);
	if (*end)
		return false;
	add_stat(r, msg, klen, v);
	return true;
}

/* "Killed process 28438 (java) total-vm:20255636kB, anon-rss:466160kB, file-rss:13684kB"
 * "Killed process 42452 (memcg_test_1), UID 0, total-vm:7296kB, ..."
 * "Memory cgroup out of memory: Killed process 15632 (oom-target) total-vm:35176kB,
 *  anon-rss:32640kB, file-rss:1176kB, shmem-rss:0kB, UID:0 pgtables:104kB oom_score_adj:0" */
static bool parse_killed(struct oom_report *r, const char *at)
{
	const char *p = at + strlen("Killed process "), *comm, *end;
	char *num_end;
	long pid;
	uint64_t v;
	int adj;

	pid = strtol(p, &num_end, 10);
	if (num_end == p || pid <= 0 || strncmp(num_end, " (", 2) != 0)
		return false;
	comm = num_end + 2;
	/* A comm may hold parentheses ("(resolved)"): end at the one the
	 * fields follow, else at the last. */
	end = strstr(comm, ") total-vm:");
	if (!end)
		end = strstr(comm, "), UID ");
	if (!end)
		end = strrchr(comm, ')');
	if (!end)
		return false;
	r->victim_pid = (int)pid;
	copy_n(r->victim_comm, sizeof(r->victim_comm), comm, (size_t)(end - comm));
	if (field_u64(end, "total-vm:", &r->total_vm_kb) && field_u64(end, "anon-rss:", &r->anon_rss_kb) &&
	    field_u64(end, "file-rss:", &r->file_rss_kb))
		r->have |= OOM_HAVE_RSS;
	if (field_u64(end, "shmem-rss:", &r->shmem_rss_kb))
		r->have |= OOM_HAVE_SHMEM;
	if (field_u64(end, "UID:", &v) || field_u64(end, "UID ", &v)) {
		r->uid = (unsigned int)v;
		r->have |= OOM_HAVE_UID;
	}
	if (field_u64(end, "pgtables:", &r->pgtables_kb))
		r->have |= OOM_HAVE_PGTABLES;
	if (field_int(end, "oom_score_adj:", &adj)) {
		r->oom_score_adj = adj;
		r->have |= OOM_HAVE_SCORE_ADJ;
	}
	return true;
}

/* One line of text (prefixes gone).  1 when it completed a report. */
static int parse_msg(struct oom_kmsg *k, const char *msg, uint64_t ts, bool have_ts,
		     struct oom_report *out)
{
	struct oom_report *r = &k->cur;
	const char *at;
	uint64_t a, b;
	int n;

	if (k->in_stats) {
		if (parse_stat_line(r, msg))
			return 0;
		k->in_stats = false;
	}
	if ((at = strstr(msg, " invoked oom-killer: ")) != NULL) {
		parse_invoked(k, msg, at);
		return 0;
	}
	if (starts(msg, "CPU: ")) {
		parse_cpu_line(r, msg);
		return 0;
	}
	if (starts(msg, "oom-kill:")) {
		parse_constraint(r, msg);
		return 0;
	}
	if (starts(msg, "Task in ")) {
		parse_task_in(r, msg);
		return 0;
	}
	if (starts(msg, "Tasks in ") && strstr(msg, "memory.oom.group")) {
		r->group = true;
		return 0;
	}
	if (sscanf(msg, "memory: usage %" SCNu64 "kB, limit %" SCNu64 "kB", &a, &b) == 2) {
		r->mem_usage_kb = a;
		r->mem_limit_kb = b;
		r->have |= OOM_HAVE_MEM_LIMIT;
		return 0;
	}
	if (sscanf(msg, "memory+swap: usage %" SCNu64 "kB, limit %" SCNu64 "kB", &a, &b) == 2) {
		r->memsw_limit_kb = b;
		r->have |= OOM_HAVE_MEMSW_LIMIT;
		return 0;
	}
	if (sscanf(msg, "swap: usage %" SCNu64 "kB, limit %" SCNu64 "kB", &a, &b) == 2) {
		r->swap_limit_kb = b;
		r->have |= OOM_HAVE_SWAP_LIMIT;
		return 0;
	}
	if (starts(msg, "Memory cgroup stats for ")) {
		parse_stats_head(k, msg);
		return 0;
	}
	n = 0;
	if (sscanf(msg, "%" SCNu64 " pages RAM%n", &a, &n) == 1 && n > 0 && !msg[n]) {
		r->ram_pages = a;
		r->have |= OOM_HAVE_RAM;
		return 0;
	}
	if (sscanf(msg, "Total swap = %" SCNu64 "kB", &a) == 1) {
		r->swap_total_kb = a;
		r->have |= OOM_HAVE_SWAP_TOTAL;
		return 0;
	}
	if ((at = strstr(msg, "Killed process ")) != NULL) {
		if (!parse_killed(r, at))
			return 0;
		if (starts(msg, "Memory cgroup out of memory: "))
			k->hint = HINT_MEMCG;
		else if (starts(msg, "Out of memory: "))
			k->hint = HINT_GLOBAL;
		if (!(r->have & OOM_HAVE_CONSTRAINT) && k->hint != HINT_NONE) {
			strcpy(r->constraint, k->hint == HINT_MEMCG ? "CONSTRAINT_MEMCG" : "CONSTRAINT_NONE");
			r->constraint_inferred = true;
			r->have |= OOM_HAVE_CONSTRAINT;
		}
		r->ts_usec = ts;
		if (have_ts)
			r->have |= OOM_HAVE_TS;
		*out = *r;
		if (r->group) {
			/* The header stays for the group's other victims. */
			unsigned int keep = OOM_HAVE_TRIGGER | OOM_HAVE_TRIGGER_PID | OOM_HAVE_CONSTRAINT |
				OOM_HAVE_OOM_MEMCG | OOM_HAVE_MEM_LIMIT | OOM_HAVE_MEMSW_LIMIT |
				OOM_HAVE_SWAP_LIMIT | OOM_HAVE_RAM | OOM_HAVE_SWAP_TOTAL;

			r->have &= keep;
			r->task_memcg[0] = '\0';
			r->victim_pid = 0;
			r->victim_comm[0] = '\0';
		} else {
			reset(k);
		}
		return 1;
	}
	/* 3.10-5.2: "Memory cgroup out of memory: Kill process 24572 (java) score 0
	 * or sacrifice child", then "Killed process M" (M may be a child). */
	if (starts(msg, "Memory cgroup out of memory: Kill process "))
		k->hint = HINT_MEMCG;
	else if (starts(msg, "Out of memory: Kill process "))
		k->hint = HINT_GLOBAL;
	return 0;
}

/* "\x0a"-style escapes of /dev/kmsg, in place. */
static void unescape(char *s)
{
	char *w = s;

	for (const char *p = s; *p;) {
		if (p[0] == '\\' && p[1] == 'x' && isxdigit((unsigned char)p[2]) &&
		    isxdigit((unsigned char)p[3])) {
			char hex[3] = { p[2], p[3], 0 };

			*w++ = (char)strtol(hex, NULL, 16);
			p += 4;
		} else {
			*w++ = *p++;
		}
	}
	*w = '\0';
}

/* "[ 9707.202670] " -> ts; "[Thu Dec  7 00:05:14 2017] " -> no ts; a
 * bracket of digits alone ("[28438]", a task-list line) is not a prefix. */
static char *strip_bracket(char *s, uint64_t *ts, bool *have_ts)
{
	char *close;
	unsigned long sec, usec;
	int n = 0;

	if (*s != '[')
		return s;
	close = strchr(s, ']');
	if (!close)
		return s;
	if (sscanf(s, "[ %lu.%lu]%n", &sec, &usec, &n) == 2 && n > 0) {
		*ts = (uint64_t)sec * 1000000 + usec;
		*have_ts = true;
	} else if (!(isalpha((unsigned char)s[1]) && memchr(s, ':', (size_t)(close - s)))) {
		return s;
	}
	s = close + 1;
	if (*s == ' ')
		s++;
	return s;
}

int oom_kmsg__feed(struct oom_kmsg *k, const char *line, size_t len, struct oom_report *out)
{
	static const char syslog_tag[] = " kernel: ";
	char buf[LINE_MAX_LEN];
	uint64_t ts = 0;
	bool have_ts = false;
	unsigned long long usec;
	char *msg, *p, *nl;
	int n = 0, ret = 0;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	msg = buf;
	/* /dev/kmsg: "prio,seq,usec,flags[,...];text" then " KEY=value" lines. */
	if (sscanf(buf, "%*u,%*u,%llu%n", &usec, &n) == 1 && n > 0 && (p = strchr(buf + n, ';')) &&
	    !memchr(buf + n, ' ', (size_t)(p - (buf + n)))) {
		nl = strchr(p + 1, '\n');
		if (nl)
			*nl = '\0';	/* the dictionary lines that follow */
		msg = p + 1;
		ts = usec;
		have_ts = true;
		unescape(msg);
	} else {
		/* "Jan  5 02:12:02 host kernel: [ 12.3] text" */
		p = strstr(buf, syslog_tag);
		if (p)
			msg = p + strlen(syslog_tag);
		if (*msg == '<' && (p = strchr(msg, '>')) != NULL && p - msg <= 4)
			msg = p + 1;
		msg = strip_bracket(msg, &ts, &have_ts);
	}
	/* A record may carry several lines (a v2 memory.stat dump). */
	for (p = msg; p; p = nl) {
		size_t l;

		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		l = strlen(p);
		while (l && (p[l - 1] == '\r' || p[l - 1] == ' '))
			p[--l] = '\0';
		if (parse_msg(k, p, ts, have_ts, out))
			ret = 1;
	}
	return ret;
}

uint64_t oom_report__totalpages(const struct oom_report *r, uint64_t page_kb,
				uint64_t swap_total_kb, uint64_t mem_total_kb, const char **from)
{
	uint64_t swap_kb = r->have & OOM_HAVE_SWAP_TOTAL ? r->swap_total_kb : swap_total_kb;
	uint64_t extra_kb = swap_kb;

	*from = "";
	if (!page_kb)
		return 0;
	if (!strcmp(r->constraint, "CONSTRAINT_MEMCG")) {
		if (!(r->have & OOM_HAVE_MEM_LIMIT))
			return 0;
		if (r->have & OOM_HAVE_MEMSW_LIMIT)
			extra_kb = r->memsw_limit_kb > r->mem_limit_kb ? r->memsw_limit_kb - r->mem_limit_kb : 0;
		else if (r->have & OOM_HAVE_SWAP_LIMIT)
			extra_kb = r->swap_limit_kb;
		if (extra_kb > swap_kb)
			extra_kb = swap_kb;
		*from = "memcg limit";
		return (r->mem_limit_kb + extra_kb) / page_kb;
	}
	if (r->have & OOM_HAVE_RAM) {
		*from = "pages RAM + swap";
		return r->ram_pages + swap_kb / page_kb;
	}
	if (!mem_total_kb)
		return 0;
	*from = "MemTotal + SwapTotal";
	return (mem_total_kb + swap_kb) / page_kb;
}
