/*
 * test-mmap-flags: exact text for mmap prot and flags words.
 *
 * Inputs use <sys/mman.h>'s constants where glibc has them, so a wrong
 * number in mmap-flags.c shows up here; the few glibc lacks are written
 * out with the kernel's values (include/uapi/asm-generic/mman-common.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "cmd/out/mmap-flags.h"
#include "check.h"

#define K_MAP_DROPPABLE		0x08ULL
#define K_MAP_UNINITIALIZED	0x4000000ULL
#define K_MAP_HUGE_2MB		(21ULL << 26)
#define K_MAP_HUGE_1GB		(30ULL << 26)
#define K_MAP_HUGE_64KB		(16ULL << 26)

static void check_prot(uint64_t prot, const char *want)
{
	char buf[8];

	memset(buf, 'z', sizeof(buf));
	mmap_prot__format(prot, buf, sizeof(buf));
	CHECK_STR(buf, want);
}

static void test_prot(void)
{
	char buf[8];

	check_prot(PROT_NONE, "---");
	check_prot(PROT_READ, "R--");
	check_prot(PROT_WRITE, "-W-");
	check_prot(PROT_EXEC, "--X");
	check_prot(PROT_READ | PROT_WRITE, "RW-");
	check_prot(PROT_READ | PROT_EXEC, "R-X");
	check_prot(PROT_READ | PROT_WRITE | PROT_EXEC, "RWX");
	/* Other bits (PROT_SEM, PROT_GROWSDOWN, high garbage) are ignored. */
	check_prot(PROT_READ | 0x8 | PROT_GROWSDOWN | 0xff00000000ULL, "R--");

	/* Exactly 4 fits; shorter buffers get a terminated prefix. */
	memset(buf, 'z', sizeof(buf));
	mmap_prot__format(PROT_READ | PROT_WRITE, buf, 4);
	CHECK_STR(buf, "RW-");
	memset(buf, 'z', sizeof(buf));
	mmap_prot__format(PROT_READ | PROT_WRITE, buf, 3);
	CHECK_STR(buf, "RW");
	mmap_prot__format(PROT_READ | PROT_WRITE, buf, 1);
	CHECK_STR(buf, "");
	buf[0] = 'z';
	mmap_prot__format(PROT_READ, buf, 0);
	CHECK(buf[0] == 'z');
}

static void check_flags(uint64_t flags, const char *want)
{
	char buf[256];

	memset(buf, 'z', sizeof(buf));
	CHECK_EQ_U64(mmap_flags__format(flags, buf, sizeof(buf)), 0);
	CHECK_STR(buf, want);
}

static void test_flags(void)
{
	/* The type first, each of the four named ones. */
	check_flags(MAP_SHARED, "SHARED");
	check_flags(MAP_PRIVATE, "PRIVATE");
	check_flags(MAP_SHARED_VALIDATE, "SHARED_VALIDATE");
	check_flags(K_MAP_DROPPABLE | MAP_ANONYMOUS, "DROPPABLE|ANONYMOUS");

	/* Common combinations, names in bit order after the type. */
	check_flags(MAP_PRIVATE | MAP_ANONYMOUS, "PRIVATE|ANONYMOUS");
	check_flags(MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, "PRIVATE|FIXED|ANONYMOUS");
	check_flags(MAP_SHARED | MAP_ANONYMOUS, "SHARED|ANONYMOUS");
	check_flags(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, "PRIVATE|ANONYMOUS|NORESERVE");
	check_flags(MAP_PRIVATE | MAP_DENYWRITE, "PRIVATE|DENYWRITE");
	check_flags(MAP_PRIVATE | MAP_FIXED | MAP_DENYWRITE, "PRIVATE|FIXED|DENYWRITE");
	check_flags(MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_GROWSDOWN,
		    "PRIVATE|ANONYMOUS|GROWSDOWN|STACK");
	check_flags(MAP_SHARED_VALIDATE | MAP_SYNC, "SHARED_VALIDATE|SYNC");
	check_flags(MAP_PRIVATE | MAP_FIXED_NOREPLACE, "PRIVATE|FIXED_NOREPLACE");

#if defined(__x86_64__)
	/* Every named bit at once (32BIT and ABOVE4G are x86 only). */
	check_flags(MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_32BIT | MAP_GROWSDOWN |
		    MAP_DENYWRITE | MAP_EXECUTABLE | MAP_LOCKED | MAP_NORESERVE |
		    MAP_POPULATE | MAP_NONBLOCK | MAP_STACK | MAP_SYNC | MAP_FIXED_NOREPLACE,
		    "PRIVATE|FIXED|ANONYMOUS|32BIT|GROWSDOWN|DENYWRITE|EXECUTABLE|LOCKED|"
		    "NORESERVE|POPULATE|NONBLOCK|STACK|SYNC|FIXED_NOREPLACE");
	/* x86's MAP_ABOVE4G (6.6+; glibc 2.36 lacks it). */
	check_flags(MAP_PRIVATE | MAP_ANONYMOUS | 0x80, "PRIVATE|ANONYMOUS|ABOVE4G");
#endif

	/* Huge pages: the size bits only mean a size with HUGETLB. */
	check_flags(MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, "PRIVATE|ANONYMOUS|HUGETLB");
	check_flags(MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | K_MAP_HUGE_2MB,
		    "PRIVATE|ANONYMOUS|HUGETLB|HUGE_2MB");
	check_flags(MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB | K_MAP_HUGE_1GB,
		    "SHARED|ANONYMOUS|HUGETLB|HUGE_1GB");
	check_flags(MAP_PRIVATE | MAP_HUGETLB | K_MAP_HUGE_64KB, "PRIVATE|HUGETLB|HUGE_64KB");
	check_flags(MAP_PRIVATE | MAP_HUGETLB | MAP_SYNC | K_MAP_HUGE_2MB,
		    "PRIVATE|HUGETLB|SYNC|HUGE_2MB");
	/* Bit 26 is the low size bit with HUGETLB (shift 1: 2 bytes,
	 * nonsense but decoded), MAP_UNINITIALIZED without it. */
	check_flags(MAP_PRIVATE | MAP_ANONYMOUS | K_MAP_UNINITIALIZED,
		    "PRIVATE|ANONYMOUS|UNINITIALIZED");
	check_flags(MAP_PRIVATE | MAP_HUGETLB | K_MAP_UNINITIALIZED, "PRIVATE|HUGETLB|HUGE_2B");
	/* Without HUGETLB, the other size bits are unknown. */
	check_flags(MAP_PRIVATE | MAP_ANONYMOUS | K_MAP_HUGE_2MB,
		    "PRIVATE|ANONYMOUS|UNINITIALIZED|0x50000000");

	/* Unknown bits: one hex word, last. */
	check_flags(MAP_PRIVATE | 0x200, "PRIVATE|0x200");
	check_flags(MAP_PRIVATE | MAP_ANONYMOUS | 0x400 | 0x200000 | 0x100000000ULL,
		    "PRIVATE|ANONYMOUS|0x100200400");
	check_flags(0xffffffff00000000ULL | MAP_SHARED, "SHARED|0xffffffff00000000");

	/* Undefined or absent type: its bits are unknown too. */
	check_flags(0, "0");
	check_flags(MAP_ANONYMOUS, "ANONYMOUS");
	check_flags(0x04 | MAP_ANONYMOUS, "ANONYMOUS|0x4");
	check_flags(0x0f, "0xf");
	check_flags(0x0c | MAP_FIXED, "FIXED|0xc");
}

static void test_flags_truncation(void)
{
	uint64_t f = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	char buf[64];

	/* "PRIVATE|FIXED|ANONYMOUS" is 23 characters. */
	CHECK_EQ_U64(mmap_flags__format(f, buf, 24), 0);
	CHECK_STR(buf, "PRIVATE|FIXED|ANONYMOUS");
	/* One byte short: cut at the last whole name. */
	CHECK_EQ_U64(mmap_flags__format(f, buf, 23), (unsigned long long)-ENOSPC);
	CHECK_STR(buf, "PRIVATE|FIXED");
	CHECK_EQ_U64(mmap_flags__format(f, buf, 13), (unsigned long long)-ENOSPC);
	CHECK_STR(buf, "PRIVATE");
	CHECK_EQ_U64(mmap_flags__format(f, buf, 8), (unsigned long long)-ENOSPC);
	CHECK_STR(buf, "PRIVATE");
	CHECK_EQ_U64(mmap_flags__format(f, buf, 7), (unsigned long long)-ENOSPC);
	CHECK_STR(buf, "");
	CHECK_EQ_U64(mmap_flags__format(f, buf, 0), (unsigned long long)-ENOSPC);
	/* The hex word and huge size are whole-or-nothing too. */
	CHECK_EQ_U64(mmap_flags__format(MAP_SHARED | 0x200, buf, 12), (unsigned long long)-ENOSPC);
	CHECK_STR(buf, "SHARED");
	CHECK_EQ_U64(mmap_flags__format(MAP_SHARED | MAP_HUGETLB | K_MAP_HUGE_2MB, buf, 20),
		     (unsigned long long)-ENOSPC);
	CHECK_STR(buf, "SHARED|HUGETLB");
	CHECK_EQ_U64(mmap_flags__format(0, buf, 1), (unsigned long long)-ENOSPC);
	CHECK_STR(buf, "");
	CHECK_EQ_U64(mmap_flags__format(0, buf, 2), 0);
	CHECK_STR(buf, "0");
}

static void check_short(uint64_t flags, const char *want)
{
	char buf[8];

	memset(buf, 'z', sizeof(buf));
	mmap_flags__short(flags, buf, sizeof(buf));
	CHECK_STR(buf, want);
}

static void test_short(void)
{
	char buf[8];

	check_short(MAP_PRIVATE | MAP_ANONYMOUS, "PA");
	check_short(MAP_SHARED, "S");
	check_short(MAP_SHARED_VALIDATE | MAP_SYNC, "S");
	check_short(MAP_PRIVATE | MAP_FIXED, "PF");
	check_short(MAP_SHARED | MAP_FIXED | MAP_ANONYMOUS | MAP_NORESERVE, "SFA");
	check_short(MAP_PRIVATE | MAP_DENYWRITE | MAP_STACK, "P");
	check_short(K_MAP_DROPPABLE | MAP_ANONYMOUS, "A");
	check_short(0, "");
	memset(buf, 'z', sizeof(buf));
	mmap_flags__short(MAP_SHARED | MAP_FIXED | MAP_ANONYMOUS, buf, 3);
	CHECK_STR(buf, "SF");
	buf[0] = 'z';
	mmap_flags__short(MAP_SHARED, buf, 0);
	CHECK(buf[0] == 'z');
}

int main(void)
{
	test_prot();
	test_flags();
	test_flags_truncation();
	test_short();
	return check_done("test-mmap-flags");
}
