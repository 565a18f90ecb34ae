/*
 * test-slabinfo: /proc/slabinfo's caches (lines of this project's 6.18
 * VM, the headers skipped, a broken line skipped, another version
 * refused) and /proc/meminfo's slab lines by name.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc/slabinfo.h"
#include "check.h"

static const char v21[] =
	"slabinfo - version: 2.1\n"
	"# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : "
	"tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> "
	"<sharedavail>\n"
	"ext4_inode_cache  105989 105994   1128   14    4 : tunables    0    0    0 : slabdata   "
	"7571   7571      0\n"
	"dentry            261707 264999    192   21    1 : tunables    0    0    0 : slabdata  "
	"12619  12619      0\n"
	"broken 1 2\n"
	"kmalloc-64         24847  24960     64   64    1 : tunables    0    0    0 : slabdata    "
	"390    390      0";

static void test_parse(void)
{
	struct slab_cache *c = NULL;
	size_t n = 0;

	CHECK_EQ_U64(slabinfo__parse(v21, &c, &n), 0);
	CHECK_EQ_U64(n, 3);
	CHECK(!strcmp(c[0].name, "ext4_inode_cache"));
	CHECK_EQ_U64(c[0].active_objs, 105989);
	CHECK_EQ_U64(c[0].num_objs, 105994);
	CHECK_EQ_U64(c[0].objsize, 1128);
	CHECK_EQ_U64(c[0].objperslab, 14);
	CHECK_EQ_U64(c[0].pagesperslab, 4);
	CHECK_EQ_U64(c[0].active_slabs, 7571);
	CHECK_EQ_U64(c[0].num_slabs, 7571);
	CHECK(!strcmp(c[1].name, "dentry"));
	CHECK_EQ_U64(c[1].num_slabs, 12619);
	CHECK(!strcmp(c[2].name, "kmalloc-64"));	/* no newline at the end */
	CHECK_EQ_U64(c[2].num_slabs, 390);
	free(c);
	CHECK_EQ_U64(slabinfo__parse("slabinfo - version: 1.1\n", &c, &n), -EINVAL);
	CHECK(c == NULL && n == 0);
}

static void test_meminfo(void)
{
	static const char *const names[] = { "SReclaimable", "SUnreclaim", "Slab", "Nope", NULL };
	uint64_t v[4];

	meminfo__parse_kb("MemTotal:       24684008 kB\nSlab:             353676 kB\n"
			  "SReclaimable:     309604 kB\nSUnreclaim:        44072 kB\n"
			  "SReclaimableX:    1 kB\n", names, v);
	CHECK_EQ_U64(v[0], 309604);
	CHECK_EQ_U64(v[1], 44072);
	CHECK_EQ_U64(v[2], 353676);
	CHECK_EQ_U64(v[3], UINT64_MAX);
}

int main(void)
{
	test_parse();
	test_meminfo();
	return check_done("test-slabinfo");
}
