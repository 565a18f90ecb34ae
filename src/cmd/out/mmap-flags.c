/*
 * mmap-flags: mmap(2) prot/flags words to text, with the kernel ABI's
 * numbers written out here (see mmap-flags.h for why not <sys/mman.h>).
 *
 * The low four bits of flags (MAP_TYPE) are an enumeration, not bits:
 * SHARED_VALIDATE (3) is not SHARED|PRIVATE.  Bits 26..31 mean a huge page
 * size (log2) when MAP_HUGETLB is set, and otherwise bit 26 is
 * MAP_UNINITIALIZED: the kernel itself overlaps them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/out/mmap-flags.h"

#define FL_PROT_READ		0x1
#define FL_PROT_WRITE		0x2
#define FL_PROT_EXEC		0x4

#define FL_MAP_TYPE		0x0f
#define FL_MAP_SHARED		0x01
#define FL_MAP_PRIVATE		0x02
#define FL_MAP_SHARED_VALIDATE	0x03
#define FL_MAP_DROPPABLE	0x08
#define FL_MAP_HUGETLB		0x40000
#define FL_MAP_UNINITIALIZED	0x4000000
#define FL_MAP_HUGE_SHIFT	26
#define FL_MAP_HUGE_MASK	0x3fULL
#define FL_MAP_FIXED		0x10
#define FL_MAP_ANONYMOUS	0x20

struct flag_name {
	uint64_t bit;
	const char *name;
};

/* In bit order; HUGETLB's size bits and UNINITIALIZED handled apart. */
static const struct flag_name map_bits[] = {
	{ FL_MAP_FIXED, "FIXED" },
	{ FL_MAP_ANONYMOUS, "ANONYMOUS" },
#if defined(__x86_64__) || defined(__i386__)
	/* x86 only: elsewhere these bits have no meaning. */
	{ 0x40, "32BIT" },
	{ 0x80, "ABOVE4G" },
#endif
	{ 0x100, "GROWSDOWN" },
	{ 0x800, "DENYWRITE" },
	{ 0x1000, "EXECUTABLE" },
	{ 0x2000, "LOCKED" },
	{ 0x4000, "NORESERVE" },
	{ 0x8000, "POPULATE" },
	{ 0x10000, "NONBLOCK" },
	{ 0x20000, "STACK" },
	{ FL_MAP_HUGETLB, "HUGETLB" },
	{ 0x80000, "SYNC" },
	{ 0x100000, "FIXED_NOREPLACE" },
};

void mmap_prot__format(uint64_t prot, char *buf, size_t n)
{
	char text[4];
	size_t len;

	if (n == 0)
		return;
	text[0] = (prot & FL_PROT_READ) ? 'R' : '-';
	text[1] = (prot & FL_PROT_WRITE) ? 'W' : '-';
	text[2] = (prot & FL_PROT_EXEC) ? 'X' : '-';
	text[3] = '\0';
	len = n - 1 < 3 ? n - 1 : 3;
	memcpy(buf, text, len);
	buf[len] = '\0';
}

/* Append "|name" (or "name" first); whole names or nothing. */
static int append(char *buf, size_t n, size_t *used, const char *name)
{
	size_t sep = *used ? 1 : 0;
	size_t len = strlen(name);

	if (*used + sep + len + 1 > n)
		return -ENOSPC;
	if (sep)
		buf[(*used)++] = '|';
	memcpy(buf + *used, name, len + 1);
	*used += len;
	return 0;
}

/* "2MB" for shift 21: the unit that keeps the number whole. */
static void huge_name(unsigned int shift, char *out, size_t n)
{
	static const char *const units[] = { "B", "KB", "MB", "GB", "TB", "PB", "EB" };
	unsigned int u = shift / 10;

	snprintf(out, n, "HUGE_%llu%s", 1ULL << (shift - u * 10), units[u]);
}

int mmap_flags__format(uint64_t flags, char *buf, size_t n)
{
	uint64_t type = flags & FL_MAP_TYPE;
	uint64_t unknown = flags;
	const char *type_name = NULL;
	char word[32];
	size_t used = 0, i;
	int err = 0;

	if (n == 0)
		return -ENOSPC;
	buf[0] = '\0';
	if (flags == 0)
		return append(buf, n, &used, "0");

	switch (type) {
	case FL_MAP_SHARED:
		type_name = "SHARED";
		break;
	case FL_MAP_PRIVATE:
		type_name = "PRIVATE";
		break;
	case FL_MAP_SHARED_VALIDATE:
		type_name = "SHARED_VALIDATE";
		break;
	case FL_MAP_DROPPABLE:
		type_name = "DROPPABLE";
		break;
	default:
		/* 0 or an undefined type: its bits stay in "unknown". */
		break;
	}
	if (type_name) {
		unknown &= ~(uint64_t)FL_MAP_TYPE;
		err = append(buf, n, &used, type_name);
		if (err)
			return err;
	}

	for (i = 0; i < sizeof(map_bits) / sizeof(map_bits[0]); i++) {
		if (!(flags & map_bits[i].bit))
			continue;
		unknown &= ~map_bits[i].bit;
		err = append(buf, n, &used, map_bits[i].name);
		if (err)
			return err;
	}

	if (flags & FL_MAP_HUGETLB) {
		unsigned int shift = (unsigned int)((flags >> FL_MAP_HUGE_SHIFT) & FL_MAP_HUGE_MASK);

		unknown &= ~(FL_MAP_HUGE_MASK << FL_MAP_HUGE_SHIFT);
		if (shift) {
			huge_name(shift, word, sizeof(word));
			err = append(buf, n, &used, word);
			if (err)
				return err;
		}
	} else if (flags & FL_MAP_UNINITIALIZED) {
		unknown &= ~(uint64_t)FL_MAP_UNINITIALIZED;
		err = append(buf, n, &used, "UNINITIALIZED");
		if (err)
			return err;
	}

	if (unknown) {
		snprintf(word, sizeof(word), "0x%llx", (unsigned long long)unknown);
		err = append(buf, n, &used, word);
	}
	return err;
}

void mmap_flags__short(uint64_t flags, char *buf, size_t n)
{
	char text[4];
	size_t len = 0;
	uint64_t type = flags & FL_MAP_TYPE;

	if (n == 0)
		return;
	if (type == FL_MAP_SHARED || type == FL_MAP_SHARED_VALIDATE)
		text[len++] = 'S';
	else if (type == FL_MAP_PRIVATE)
		text[len++] = 'P';
	if (flags & FL_MAP_FIXED)
		text[len++] = 'F';
	if (flags & FL_MAP_ANONYMOUS)
		text[len++] = 'A';
	if (len > n - 1)
		len = n - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
}
