/*
 * test-printk-join: printk:console's pieces joined into the kernel log's
 * lines (trace/printk-join.c), as 6.1's OOM report prints them: pr_cont()
 * pieces continuing a line (',' or ':' first, or after '=' or ' '), a
 * new line from another task or piece, the marker completing a line at
 * once, the age that completes a line left waiting, and the kmsg record
 * each line becomes (escapes included).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../../src/trace/printk-join.h"
#include "check.h"

static char got[8][4096];
static size_t ngot;

static void line(const char *rec, size_t len, void *ctx)
{
	(void)ctx;
	if (ngot < 8) {
		memcpy(got[ngot], rec, len);
		got[ngot][len] = '\0';
	}
	ngot++;
}

int main(void)
{
	struct printk_join *pj;

	CHECK_EQ_U64(printk_join__new("Killed process ", line, NULL, &pj), 0);
	/* "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),..." in pieces. */
	CHECK(!printk_join__piece(pj, 7, 1000000, "oom-kill:constraint=CONSTRAINT_MEMCG"));
	CHECK(!printk_join__piece(pj, 7, 1000001, ",oom_memcg="));
	CHECK(!printk_join__piece(pj, 7, 1000002, "/fl"));
	CHECK_EQ_U64(ngot, 0);
	/* "Memory cgroup stats for " "/fl" ":" continue; another line starts. */
	CHECK(!printk_join__piece(pj, 7, 2000000, "Memory cgroup stats for "));
	CHECK_EQ_U64(ngot, 1);
	CHECK(!strcmp(got[0], "6,0,1000,-;oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/fl"));
	CHECK(!printk_join__piece(pj, 7, 2000001, "/fl"));
	CHECK(!printk_join__piece(pj, 7, 2000002, ":"));
	/* Another task's piece is a line of its own, even after ' '. */
	CHECK(!printk_join__piece(pj, 8, 3000000, "anon 4096"));
	CHECK_EQ_U64(ngot, 2);
	CHECK(!strcmp(got[1], "6,0,2000,-;Memory cgroup stats for /fl:"));
	/* The marker completes its line at once; the line before it first. */
	CHECK(printk_join__piece(pj, 7, 4000000,
				 "Memory cgroup out of memory: Killed process 42 (a\\b)"));
	CHECK_EQ_U64(ngot, 4);
	CHECK(!strcmp(got[2], "6,0,3000,-;anon 4096"));
	CHECK(!strcmp(got[3], "6,0,4000,-;Memory cgroup out of memory: Killed process 42 (a\\x5cb)"));
	/* A line left waiting: complete once PRINTK_JOIN_WAIT_NS old. */
	CHECK(!printk_join__piece(pj, 7, 5000000, "tail\tline"));
	printk_join__flush(pj, 5000000 + PRINTK_JOIN_WAIT_NS - 1);
	CHECK_EQ_U64(ngot, 4);
	printk_join__flush(pj, 5000000 + PRINTK_JOIN_WAIT_NS);
	CHECK_EQ_U64(ngot, 5);
	CHECK(!strcmp(got[4], "6,0,5000,-;tail\\x09line"));
	/* Nothing waiting: nothing more; flush(0) takes any age. */
	printk_join__flush(pj, 0);
	CHECK_EQ_U64(ngot, 5);
	CHECK(!printk_join__piece(pj, 7, 6000000, "x"));
	printk_join__flush(pj, 0);
	CHECK_EQ_U64(ngot, 6);
	printk_join__free(pj);
	return check_done("test-printk-join");
}
