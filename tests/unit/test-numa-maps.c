/*
 * test-numa-maps: /proc/PID/numa_maps lines (a 6.18 machine's and a
 * two-node guest's, with hostile ones: a path with a space, a newline, a
 * tab and an '=' escaped by the kernel as \ooo, a name that spells a
 * node count, broken and overflowing lines) and sysfs node lists.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc/numa-maps.h"
#include "check.h"

static const char text[] =
	"55d4c5a00000 default file=/usr/bin/numa-bind mapped=2 N0=2 kernelpagesize_kB=4\n"
	"55d4c6d1e000 default heap anon=33 dirty=33 N0=33 kernelpagesize_kB=4\n"
	"7f0000000000 bind:1 anon=256 dirty=256 N1=256 kernelpagesize_kB=4\n"
	"7f0000200000 interleave:0-1 anon=7 dirty=7 N0=4 N1=3 kernelpagesize_kB=4\n"
	/* a file named "a b\nN1=5\tx" and deleted */
	"7f0000400000 default file=/tmp/a\\040b\\012N1\\0755\\011x\\040(deleted) mapped=1 "
	"mapmax=2 N0=1 kernelpagesize_kB=4\n"
	"7f0000600000 prefer:1 file=/dev/hugepages/h huge dirty=2 N1=2 kernelpagesize_kB=2048\n"
	"7f0000a00000 default\n"				/* no page present */
	"7ffd12340000 default stack anon=3 dirty=3 N0=3 kernelpagesize_kB=4\n"
	"not-an-address default anon=1 N0=1\n"
	"7f0000c00000 default anon=1 N0=x kernelpagesize_kB=4\n"
	"7f0000d00000 default anon=1 N0=1 kernelpagesize_kB=99999999999999999999\n"
	"7f0000e00000 default anon=1 N5000=1 kernelpagesize_kB=4\n"
	"7f0000f00000 default anon=1 N0=18446744073709551615 kernelpagesize_kB=4\n"
	"\n"
	"7f0001000000 weighted_interleave:0-1 anon=2 dirty=2 active=1 swapcache=0 N0=1 N1=1 "
	"newflag kernelpagesize_kB=4";	/* no newline at the end */

static void test_parse(void)
{
	struct numa_maps *nm = NULL;
	const struct numa_vma *v;

	CHECK_EQ_U64(numa_maps__parse(text, strlen(text), &nm), 0);
	if (!nm)
		return;
	CHECK_EQ_U64(numa_maps__count(nm), 9);
	CHECK_EQ_U64(numa_maps__bad(nm), 5);
	CHECK_EQ_U64(numa_maps__nodes(nm), 2);

	v = numa_maps__vma(nm, 0);
	CHECK_EQ_U64(v->start, 0x55d4c5a00000ull);
	CHECK_STR(v->policy, "default");
	CHECK_STR(v->path, "/usr/bin/numa-bind");
	CHECK_EQ_U64(v->kind, NUMA_FILE);
	CHECK_EQ_U64(v->mapped, 2);
	CHECK_EQ_U64(numa_vma__pages(v, 0), 2);
	CHECK_EQ_U64(numa_vma__pages(v, 1), 0);

	v = numa_maps__vma(nm, 1);
	CHECK_EQ_U64(v->kind, NUMA_HEAP);
	CHECK(v->path == NULL);
	CHECK_EQ_U64(v->anon, 33);
	CHECK_EQ_U64(v->dirty, 33);

	v = numa_maps__vma(nm, 2);
	CHECK_STR(v->policy, "bind:1");
	CHECK_EQ_U64(v->kind, NUMA_PRIVATE);
	CHECK_EQ_U64(numa_vma__pages(v, 1), 256);
	CHECK_EQ_U64(v->page_kb, 4);

	v = numa_maps__vma(nm, 3);
	CHECK_EQ_U64(numa_vma__pages(v, 0), 4);
	CHECK_EQ_U64(numa_vma__pages(v, 1), 3);

	v = numa_maps__vma(nm, 4);
	CHECK_STR(v->path, "/tmp/a b\nN1=5\tx (deleted)");
	CHECK_EQ_U64(v->kind, NUMA_FILE);
	CHECK_EQ_U64(v->nn, 1);
	CHECK_EQ_U64(numa_vma__pages(v, 0), 1);
	CHECK_EQ_U64(numa_vma__pages(v, 1), 0);

	v = numa_maps__vma(nm, 5);
	CHECK_EQ_U64(v->kind, NUMA_HUGE);
	CHECK_STR(v->path, "/dev/hugepages/h");
	CHECK_EQ_U64(v->page_kb, 2048);

	v = numa_maps__vma(nm, 6);
	CHECK_EQ_U64(v->nn, 0);
	CHECK_EQ_U64(v->page_kb, 0);

	v = numa_maps__vma(nm, 7);
	CHECK_EQ_U64(v->kind, NUMA_STACK);

	v = numa_maps__vma(nm, 8);
	CHECK_STR(v->policy, "weighted_interleave:0-1");
	CHECK_EQ_U64(numa_vma__pages(v, 1), 1);

	/* Node 0: file 2+1, heap 33, interleave 4, stack 3, weighted 1. */
	CHECK_EQ_U64(numa_maps__kb(nm, NUMA_FILE, 0), 3 * 4);
	CHECK_EQ_U64(numa_maps__kb(nm, NUMA_HEAP, 0), 33 * 4);
	CHECK_EQ_U64(numa_maps__kb(nm, NUMA_STACK, 0), 3 * 4);
	CHECK_EQ_U64(numa_maps__kb(nm, NUMA_PRIVATE, 0), 5 * 4);
	CHECK_EQ_U64(numa_maps__kb(nm, NUMA_KINDS, 0), 44 * 4);
	/* Node 1: bind 256, interleave 3, weighted 1; two huge pages. */
	CHECK_EQ_U64(numa_maps__kb(nm, NUMA_PRIVATE, 1), 260 * 4);
	CHECK_EQ_U64(numa_maps__kb(nm, NUMA_HUGE, 1), 2 * 2048);
	CHECK_EQ_U64(numa_maps__kb(nm, NUMA_KINDS, 1), 260 * 4 + 4096);
	CHECK_EQ_U64(numa_maps__kb(nm, NUMA_KINDS, 2), 0);
	numa_maps__free(nm);

	CHECK_EQ_U64(numa_maps__parse("", 0, &nm), 0);
	CHECK_EQ_U64(numa_maps__count(nm), 0);
	CHECK_EQ_U64(numa_maps__nodes(nm), 0);
	numa_maps__free(nm);
	numa_maps__free(NULL);
}

/* An escape that is not three octal digits, or not a byte, stays as it is;
 * a line cut at @len is parsed only so far. */
static void test_escapes(void)
{
	static const char t[] = "1000 default file=/x\\9\\0\\400\\\\y N0=1 kernelpagesize_kB=4\n"
				"2000 default file=/a\\0 N3=1";
	struct numa_maps *nm = NULL;

	CHECK_EQ_U64(numa_maps__parse(t, strlen(t), &nm), 0);
	if (!nm)
		return;
	CHECK_EQ_U64(numa_maps__count(nm), 2);
	CHECK_STR(numa_maps__vma(nm, 0)->path, "/x\\9\\0\\400\\\\y");
	CHECK_STR(numa_maps__vma(nm, 1)->path, "/a\\0");
	CHECK_EQ_U64(numa_maps__nodes(nm), 4);
	numa_maps__free(nm);
	/* Two file= tokens: not a line the kernel writes. */
	CHECK_EQ_U64(numa_maps__parse("1000 default file=/a file=/b N0=1\n", 34, &nm), 0);
	CHECK_EQ_U64(numa_maps__count(nm), 0);
	CHECK_EQ_U64(numa_maps__bad(nm), 1);
	numa_maps__free(nm);
	/* Only the first 12 bytes: "1000 default". */
	CHECK_EQ_U64(numa_maps__parse("1000 default N0=5\n", 12, &nm), 0);
	CHECK_EQ_U64(numa_maps__count(nm), 1);
	CHECK_EQ_U64(numa_maps__vma(nm, 0)->nn, 0);
	numa_maps__free(nm);
}

static void test_nodelist(void)
{
	uint64_t m[NUMA_MAX_NODES / 64];

	memset(m, 0, sizeof(m));
	CHECK_EQ_U64(numa_nodelist__parse("0\n", m), 0);
	CHECK_EQ_U64(m[0], 1);
	memset(m, 0, sizeof(m));
	CHECK_EQ_U64(numa_nodelist__parse("0-1,3,64-65", m), 0);
	CHECK_EQ_U64(m[0], 0xb);
	CHECK_EQ_U64(m[1], 3);
	CHECK_EQ_U64(numa_nodelist__parse("", m), -EINVAL);
	CHECK_EQ_U64(numa_nodelist__parse("\n", m), -EINVAL);
	CHECK_EQ_U64(numa_nodelist__parse("2-1", m), -EINVAL);
	CHECK_EQ_U64(numa_nodelist__parse("0-", m), -EINVAL);
	CHECK_EQ_U64(numa_nodelist__parse("0,", m), -EINVAL);
	CHECK_EQ_U64(numa_nodelist__parse("1024", m), -EINVAL);
	CHECK_EQ_U64(numa_nodelist__parse("0 x", m), -EINVAL);
}

int main(void)
{
	test_parse();
	test_escapes();
	test_nodelist();
	return check_done("test-numa-maps");
}
