/*
 * test-vmstat: /proc/vmstat lookups by exact name and by prefix, absent
 * counters told apart from zero, and deltas that never go negative.
 * The texts are excerpts of real kernels' files: 3.10 (one allocstall),
 * 6.18 (allocstall_<zone>, no pswpin would mean no CONFIG_SWAP).
 */
#include <errno.h>
#include <stdint.h>

#include "proc/procstat.h"
#include "check.h"

static const char v310[] =
	"nr_free_pages 123\n"
	"pswpin 17\n"
	"pswpout 40\n"
	"allocstall 5\n"
	"pgscan_direct_normal 9\n";

static const char v618[] =
	"nr_free_pages 6001234\n"
	"pswpin 1024\n"
	"pswpout 2048\n"
	"pgsteal_direct 300\n"
	"pgscan_direct 400\n"
	"pgscan_direct_throttle 0\n"
	"allocstall_dma 0\n"
	"allocstall_dma32 2\n"
	"allocstall_normal 7\n"
	"allocstall_movable 1\n"
	"allocstall_device 0\n"
	"broken line\n"
	"pswpinx notanumber\n"
	"18446744073709551615 1\n";

static void test_parse(void)
{
	static const char *const names[] = { "pswpin", "allocstall*", "pgscan_direct",
					     "pgsteal_direct", "nosuch", NULL };
	uint64_t v[5];

	vmstat__parse(v618, names, v);
	CHECK_EQ_U64(v[0], 1024);
	CHECK_EQ_U64(v[1], 10);		/* 0 + 2 + 7 + 1 + 0 */
	CHECK_EQ_U64(v[2], 400);	/* exact: not pgscan_direct_throttle */
	CHECK_EQ_U64(v[3], 300);
	CHECK_EQ_U64(v[4], VMSTAT_ABSENT);

	vmstat__parse(v310, names, v);
	CHECK_EQ_U64(v[0], 17);
	CHECK_EQ_U64(v[1], 5);		/* the prefix matches the bare name too */
	CHECK_EQ_U64(v[2], VMSTAT_ABSENT);
	CHECK_EQ_U64(v[3], VMSTAT_ABSENT);

	/* No trailing newline, empty text. */
	vmstat__parse("pswpin 3", names, v);
	CHECK_EQ_U64(v[0], 3);
	vmstat__parse("", names, v);
	CHECK_EQ_U64(v[0], VMSTAT_ABSENT);
}

static void test_delta(void)
{
	CHECK_EQ_U64(vmstat__delta(10, 4), 6);
	CHECK_EQ_U64(vmstat__delta(4, 10), 0);
	CHECK_EQ_U64(vmstat__delta(VMSTAT_ABSENT, 4), 0);
	CHECK_EQ_U64(vmstat__delta(4, VMSTAT_ABSENT), 0);
}

static void test_read(void)
{
	static const char *const names[] = { "pswpin", "nr_free_pages", NULL };
	struct errbuf eb = { "" };
	uint64_t v[2];

	/* The live file: both counters exist on every Linux with swap. */
	CHECK_EQ_U64(vmstat__read(NULL, names, v, &eb), 0);
	CHECK(v[1] != VMSTAT_ABSENT && v[1] > 0);
	CHECK_EQ_U64(vmstat__read("/nonexistent", names, v, &eb), -ENOENT);
	CHECK_STR(eb.msg, "cannot read '/nonexistent/vmstat': No such file or directory");
}

int main(void)
{
	test_parse();
	test_delta();
	test_read();
	return check_done("test-vmstat");
}
