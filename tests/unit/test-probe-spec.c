/*
 * test-probe-spec: the probe spec parser and formatter.
 *
 * Covers a valid file with every syntax feature, each validation error
 * with its exact "ORIGIN:LINE: message", the format/parse round trip,
 * file loading (missing file, NUL byte, search directories), and that the
 * shipped probes/libc-syscalls.probes parses to what the brk and mmap
 * tools expect.  $top_srcdir (default ".") locates the shipped file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/errbuf.h"
#include "lib/file.h"
#include "trace/probes-builtin.h"
#include "trace/probe-spec.h"
#include "check.h"

static const char valid_text[] =
	"# a comment line\n"
	"\n"
	"   \t\n"
	"library c\n"
	"probe brk_enter    entry   __brk|brk   addr=%di:x64\n"
	"probe mmap_enter\tentry\t__mmap  addr=%di:x64   len=%si:u64 # trailing comment\n"
	"probe mmap_return  return  __mmap ret=$retval:x64\r\n"
	"  probe   noargs   entry   foo+0x10\n"
	"library /usr/lib/libjemalloc.so.2\n"
	"probe je_malloc  return  je_malloc+16 ret=$retval:x64 deref=+0($retval):u64\n"
	"probe _Z3fooi entry _Z3fooi flags=%cx:b4@4/32 arr=+0(%si):u8[16] s=+0(%di):string\n"
	"probe last entry x.cold";

static void test_valid(void)
{
	struct errbuf eb = { { 0 } };
	struct probe_set *set = NULL;
	const struct probe_spec *p;
	int err;

	err = probe_set__parse(valid_text, "valid.probes", &set, &eb);
	CHECK_EQ_U64(err, 0);
	CHECK(set != NULL);
	if (!set)
		return;
	CHECK_EQ_U64(probe_set__count(set), 7);

	p = probe_set__at(set, 0);
	CHECK_STR(p->name, "brk_enter");
	CHECK_EQ_U64(p->kind, PROBE_ENTRY);
	CHECK_STR(p->library, "c");
	CHECK_EQ_U64(p->nsymbols, 2);
	CHECK_STR(p->symbols[0], "__brk");
	CHECK_STR(p->symbols[1], "brk");
	CHECK_EQ_U64(p->sym_offset, 0);
	CHECK_STR(p->fetchargs, "addr=%di:x64");
	CHECK_EQ_U64(p->line, 5);

	p = probe_set__at(set, 1);
	CHECK_STR(p->name, "mmap_enter");
	CHECK_EQ_U64(p->nsymbols, 1);
	CHECK_STR(p->symbols[0], "__mmap");
	/* Runs of blanks are joined by one space; the comment is gone. */
	CHECK_STR(p->fetchargs, "addr=%di:x64 len=%si:u64");
	CHECK_EQ_U64(p->line, 6);

	p = probe_set__at(set, 2);
	CHECK_STR(p->name, "mmap_return");
	CHECK_EQ_U64(p->kind, PROBE_RETURN);
	/* The CR of a CRLF line is not part of the last token. */
	CHECK_STR(p->fetchargs, "ret=$retval:x64");
	CHECK_EQ_U64(p->line, 7);

	p = probe_set__at(set, 3);
	CHECK_STR(p->name, "noargs");
	CHECK_STR(p->symbols[0], "foo");
	CHECK_EQ_U64(p->sym_offset, 0x10);
	CHECK_STR(p->fetchargs, "");
	CHECK_EQ_U64(p->line, 8);

	p = probe_set__at(set, 4);
	CHECK_STR(p->name, "je_malloc");
	CHECK_STR(p->library, "/usr/lib/libjemalloc.so.2");
	CHECK_EQ_U64(p->sym_offset, 16);
	CHECK_STR(p->fetchargs, "ret=$retval:x64 deref=+0($retval):u64");
	CHECK_EQ_U64(p->line, 10);

	p = probe_set__at(set, 5);
	CHECK_STR(p->name, "_Z3fooi");
	CHECK_STR(p->fetchargs, "flags=%cx:b4@4/32 arr=+0(%si):u8[16] s=+0(%di):string");
	CHECK_STR(p->library, "/usr/lib/libjemalloc.so.2");

	/* Last line without a newline still counts. */
	p = probe_set__at(set, 6);
	CHECK_STR(p->name, "last");
	CHECK_STR(p->symbols[0], "x.cold");
	CHECK_EQ_U64(p->line, 12);

	CHECK(probe_set__at(set, 7) == NULL);
	CHECK(probe_set__find(set, "mmap_return") == probe_set__at(set, 2));
	CHECK(probe_set__find(set, "je_malloc") == probe_set__at(set, 4));
	CHECK(probe_set__find(set, "nope") == NULL);
	CHECK(probe_set__find(set, NULL) == NULL);
	probe_set__free(set);

	/* NULL-tolerant accessors and destructor. */
	CHECK_EQ_U64(probe_set__count(NULL), 0);
	CHECK(probe_set__at(NULL, 0) == NULL);
	CHECK(probe_set__find(NULL, "x") == NULL);
	probe_set__free(NULL);
}

static void test_empty(void)
{
	struct probe_set *set = NULL;
	int err;

	err = probe_set__parse("", "e", &set, NULL);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(probe_set__count(set), 0);
	probe_set__free(set);

	set = NULL;
	err = probe_set__parse("# only\n\nlibrary c\n", "e", &set, NULL);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(probe_set__count(set), 0);
	probe_set__free(set);

	/* A block's size where glibc keeps it; none said, none known. */
	set = NULL;
	err = probe_set__parse("library c\nblock-size glibc-chunk\n", "e", &set, NULL);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(probe_set__block_size(set), PROBE_BLOCK_SIZE_GLIBC_CHUNK);
	probe_set__free(set);
	set = NULL;
	err = probe_set__parse("library c\n", "e", &set, NULL);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(probe_set__block_size(set), PROBE_BLOCK_SIZE_NONE);
	probe_set__free(set);
}

struct bad_case {
	const char *text;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	{ "probe a entry f\n",
	  "t.probes:1: probe 'a' comes before any 'library' line" },
	{ "# c\n\nlibrary c\nfrobnicate x\n",
	  "t.probes:4: unknown directive 'frobnicate' (expected 'library', 'probe', 'pmu', 'expect' or 'block-size')" },
	{ "library c\nblock-size jemalloc\n",
	  "t.probes:2: 'block-size' knows one header: 'block-size glibc-chunk'" },
	{ "library c\nblock-size\n",
	  "t.probes:2: 'block-size' knows one header: 'block-size glibc-chunk'" },
	{ "library\n",
	  "t.probes:1: 'library' needs exactly one name" },
	{ "library a b\n",
	  "t.probes:1: 'library' needs exactly one name" },
	{ "library c\nprobe a entry\n",
	  "t.probes:2: 'probe' needs a name, a kind (entry or return) and a symbol" },
	{ "library c\nprobe\n",
	  "t.probes:2: 'probe' needs a name, a kind (entry or return) and a symbol" },
	{ "library c\nprobe 1abc entry f\n",
	  "t.probes:2: invalid probe name '1abc'" },
	{ "library c\nprobe a-b entry f\n",
	  "t.probes:2: invalid probe name 'a-b'" },
	{ "library c\nprobe "
	  "a123456789012345678901234567890123456789012345678901234567890123 entry f\n",
	  "t.probes:2: probe name "
	  "'a123456789012345678901234567890123456789012345678901234567890123' "
	  "longer than 63 characters" },
	{ "library c\nprobe a entry f\n\nprobe a return f\n",
	  "t.probes:4: duplicate probe name 'a' (first on line 2)" },
	{ "library c\nprobe a enter f\n",
	  "t.probes:2: invalid probe kind 'enter' (expected 'entry' or 'return')" },
	{ "library c\nprobe a entry f|\n",
	  "t.probes:2: empty symbol candidate in 'f|'" },
	{ "library c\nprobe a entry |f\n",
	  "t.probes:2: empty symbol candidate in '|f'" },
	{ "library c\nprobe a entry f||g\n",
	  "t.probes:2: empty symbol candidate in 'f||g'" },
	{ "library c\nprobe a entry +4\n",
	  "t.probes:2: empty symbol candidate in '+4'" },
	{ "library c\nprobe a entry 9f\n",
	  "t.probes:2: invalid symbol '9f'" },
	{ "library c\nprobe a entry f|g-1\n",
	  "t.probes:2: invalid symbol 'g-1'" },
	{ "library c\nprobe a entry f+\n",
	  "t.probes:2: invalid offset '' of 'f+' (expected hex 0x... or decimal)" },
	{ "library c\nprobe a entry f+0x\n",
	  "t.probes:2: invalid offset '0x' of 'f+0x' (expected hex 0x... or decimal)" },
	{ "library c\nprobe a entry f+12ab\n",
	  "t.probes:2: invalid offset '12ab' of 'f+12ab' (expected hex 0x... or decimal)" },
	{ "library c\nprobe a entry f+0x10+4\n",
	  "t.probes:2: invalid offset '0x10+4' of 'f+0x10+4' (expected hex 0x... or decimal)" },
	{ "library c\nprobe a entry f+18446744073709551616\n",
	  "t.probes:2: offset '18446744073709551616' of 'f+18446744073709551616' out of range" },
	{ "library c\nprobe a entry f+0x10000000000000000\n",
	  "t.probes:2: offset '0x10000000000000000' of 'f+0x10000000000000000' out of range" },
	{ "library c\nprobe a entry f %di:x64\n",
	  "t.probes:2: fetcharg '%di:x64' is not name=value" },
	{ "library c\nprobe a entry f =%di\n",
	  "t.probes:2: invalid fetcharg name in '=%di'" },
	{ "library c\nprobe a entry f 2x=%di\n",
	  "t.probes:2: invalid fetcharg name in '2x=%di'" },
	{ "library c\nprobe a entry f a.b=%di\n",
	  "t.probes:2: invalid fetcharg name in 'a.b=%di'" },
	{ "library c\nprobe a entry f common_pid=%di\n",
	  "t.probes:2: fetcharg name of 'common_pid=%di' is reserved" },
	{ "library c\nprobe a entry f __probe_ip=%di\n",
	  "t.probes:2: fetcharg name of '__probe_ip=%di' is reserved" },
	{ "library c\nprobe a entry f x=%di y=%si x=%dx\n",
	  "t.probes:2: duplicate fetcharg name in 'x=%dx'" },
	{ "library c\nprobe a entry f x=\n",
	  "t.probes:2: empty value in fetcharg 'x='" },
	{ "library c\nprobe a entry f r=$retval:x64\n",
	  "t.probes:2: '$retval' in fetcharg 'r=$retval:x64' of entry probe 'a'" },
	{ "library c\nprobe a entry f r=+0($retval):u64\n",
	  "t.probes:2: '$retval' in fetcharg 'r=+0($retval):u64' of entry probe 'a'" },
	{ "library c\nprobe a entry f x=%di:u46\n",
	  "t.probes:2: invalid type 'u46' in fetcharg 'x=%di:u46'" },
	{ "library c\nprobe a entry f x=%di:\n",
	  "t.probes:2: invalid type '' in fetcharg 'x=%di:'" },
	{ "library c\nprobe a entry f x=%di:u8[]\n",
	  "t.probes:2: invalid type 'u8[]' in fetcharg 'x=%di:u8[]'" },
	{ "library c\nprobe a entry f x=%di:b4@4\n",
	  "t.probes:2: invalid type 'b4@4' in fetcharg 'x=%di:b4@4'" },
};

static void test_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct errbuf eb = { { 0 } };
		struct probe_set *set = (struct probe_set *)&eb; /* must be reset */
		int err;

		err = probe_set__parse(bad_cases[i].text, "t.probes", &set, &eb);
		CHECK_EQ_U64(err, (unsigned long long)-EINVAL);
		CHECK(set == NULL);
		CHECK_STR(eb.msg, bad_cases[i].msg);
		probe_set__free(set);
	}
}

static void test_too_many_fetchargs(void)
{
	char text[4096] = "library c\nprobe many entry f";
	struct errbuf eb = { { 0 } };
	struct probe_set *set = NULL;
	size_t len = strlen(text);
	int i, err;

	for (i = 0; i < 129; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, " a%d=%%di", i);
	err = probe_set__parse(text, "m", &set, &eb);
	CHECK_EQ_U64(err, (unsigned long long)-EINVAL);
	CHECK_STR(eb.msg, "m:2: probe 'many' has 129 fetchargs, at most 128 allowed");

	/* 128 is fine. */
	text[strlen(text) - strlen(" a128=%di")] = '\0';
	err = probe_set__parse(text, "m", &set, &eb);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(probe_set__count(set), 1);
	probe_set__free(set);
}

static void check_same(const struct probe_spec *a, const struct probe_spec *b)
{
	size_t i;

	CHECK_STR(a->name, b->name);
	CHECK_EQ_U64(a->kind, b->kind);
	CHECK_STR(a->library, b->library);
	CHECK_EQ_U64(a->nsymbols, b->nsymbols);
	for (i = 0; i < a->nsymbols && i < b->nsymbols; i++)
		CHECK_STR(a->symbols[i], b->symbols[i]);
	CHECK_EQ_U64(a->sym_offset, b->sym_offset);
	CHECK_STR(a->fetchargs, b->fetchargs);
}

static void test_format_round_trip(void)
{
	static const char *const expect[] = {
		"probe brk_enter entry __brk|brk addr=%di:x64",
		"probe mmap_enter entry __mmap addr=%di:x64 len=%si:u64",
		"probe mmap_return return __mmap ret=$retval:x64",
		"probe noargs entry foo+0x10",
		"probe je_malloc return je_malloc+0x10 ret=$retval:x64 deref=+0($retval):u64",
		"probe _Z3fooi entry _Z3fooi flags=%cx:b4@4/32 arr=+0(%si):u8[16] s=+0(%di):string",
		"probe last entry x.cold",
	};
	struct probe_set *set = NULL;
	size_t i;
	int err;

	err = probe_set__parse(valid_text, "valid.probes", &set, NULL);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(probe_set__count(set), sizeof(expect) / sizeof(expect[0]));
	for (i = 0; i < probe_set__count(set); i++) {
		const struct probe_spec *p = probe_set__at(set, i);
		struct probe_set *again = NULL;
		char line[512], text[1024];

		err = probe_spec__format(p, line, sizeof(line));
		CHECK_EQ_U64(err, 0);
		CHECK_STR(line, expect[i]);
		snprintf(text, sizeof(text), "library %s\n%s\n", p->library, line);
		err = probe_set__parse(text, "rt", &again, NULL);
		CHECK_EQ_U64(err, 0);
		CHECK_EQ_U64(probe_set__count(again), 1);
		if (probe_set__count(again) == 1)
			check_same(p, probe_set__at(again, 0));
		probe_set__free(again);
	}

	/* Truncation: exact fit succeeds, one byte less fails and stays
	 * NUL-terminated. */
	{
		const struct probe_spec *p = probe_set__find(set, "mmap_return");
		size_t need = strlen(expect[2]) + 1;
		char small[128];

		memset(small, 'x', sizeof(small));
		CHECK_EQ_U64(probe_spec__format(p, small, need), 0);
		CHECK_STR(small, expect[2]);
		memset(small, 'x', sizeof(small));
		CHECK_EQ_U64(probe_spec__format(p, small, need - 1),
			     (unsigned long long)-ENOSPC);
		CHECK_EQ_U64(strlen(small), need - 2);
		CHECK_EQ_U64(probe_spec__format(p, small, 0), (unsigned long long)-ENOSPC);
		CHECK_EQ_U64(probe_spec__format(p, small, 5), (unsigned long long)-ENOSPC);
		CHECK_STR(small, "prob");
		/* Truncated inside the symbol list and inside the offset. */
		p = probe_set__find(set, "brk_enter");
		CHECK_EQ_U64(probe_spec__format(p, small, 24), (unsigned long long)-ENOSPC);
		CHECK_STR(small, "probe brk_enter entry _");
		p = probe_set__find(set, "noargs");
		CHECK_EQ_U64(probe_spec__format(p, small, 24), (unsigned long long)-ENOSPC);
		CHECK_STR(small, "probe noargs entry foo+");
	}
	probe_set__free(set);

	/* Decimal, hex and zero offsets. */
	set = NULL;
	err = probe_set__parse("library c\nprobe a entry f+010\nprobe b entry g+0\n"
			       "probe c entry h+0XfFfFfFfFfFfFfFfF\n", "o", &set, NULL);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(probe_set__find(set, "a")->sym_offset, 10);
	CHECK_EQ_U64(probe_set__find(set, "b")->sym_offset, 0);
	CHECK_EQ_U64(probe_set__find(set, "c")->sym_offset, UINT64_MAX);
	{
		char line[128];

		CHECK_EQ_U64(probe_spec__format(probe_set__find(set, "b"), line, sizeof(line)), 0);
		CHECK_STR(line, "probe b entry g");
		CHECK_EQ_U64(probe_spec__format(probe_set__find(set, "c"), line, sizeof(line)), 0);
		CHECK_STR(line, "probe c entry h+0xffffffffffffffff");
	}
	probe_set__free(set);
}

static void write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ_U64(write(fd, data, len), len);
	close(fd);
}

/* The probe NAME of SET, checked to exist and to be of KIND; NULL when
 * it does not exist. */
static const struct probe_spec *find_checked(const struct probe_set *set, const char *name,
					     enum probe_kind kind)
{
	const struct probe_spec *p = probe_set__find(set, name);

	CHECK(p != NULL);
	if (p)
		CHECK_EQ_U64(p->kind, kind);
	return p;
}

/* P's symbol candidates are exactly the NULL-terminated list after it. */
static void check_symbols(const struct probe_spec *p, ...)
{
	const char *want[8];
	size_t n = 0, i;
	va_list ap;

	va_start(ap, p);
	while (n < sizeof(want) / sizeof(want[0]) && (want[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	CHECK_EQ_U64(p->nsymbols, n);
	for (i = 0; i < n; i++)
		CHECK_STR(p->symbols[i], want[i]);
}

static void check_shipped(const struct probe_set *set)
{
	const struct probe_spec *p;

	CHECK_EQ_U64(probe_set__count(set), 14);

	/* Field names are those of the syscall tracepoints, which
	 * cmd-brk/cmd-mmap/cmd-shm look up by name. */
	p = find_checked(set, "brk_enter", PROBE_ENTRY);
	if (p) {
		CHECK_STR(p->library, "c");
		check_symbols(p, "__brk", "brk", NULL);
		CHECK_EQ_U64(p->sym_offset, 0);
		CHECK_STR(p->fetchargs, "brk=%di:x64");
	}
	p = find_checked(set, "brk_return", PROBE_RETURN);
	if (p) {
		CHECK_STR(p->library, "c");
		check_symbols(p, "__brk", "brk", NULL);
		CHECK_STR(p->fetchargs, "ret=+0(%dx):x64 rc=$retval:s32");
	}
	p = find_checked(set, "mmap_enter", PROBE_ENTRY);
	if (p) {
		check_symbols(p, "__mmap", "mmap", "mmap64", NULL);
		CHECK_STR(p->fetchargs, "addr=%di:x64 len=%si:u64 prot=%dx:u32 flags=%cx:u32 "
					"fd=%r8:s32 off=%r9:u64");
	}
	p = find_checked(set, "mmap_return", PROBE_RETURN);
	if (p)
		CHECK_STR(p->fetchargs, "ret=$retval:x64");
	p = find_checked(set, "munmap_enter", PROBE_ENTRY);
	if (p) {
		check_symbols(p, "__munmap", "munmap", NULL);
		CHECK_STR(p->fetchargs, "addr=%di:x64 len=%si:u64");
	}
	p = find_checked(set, "munmap_return", PROBE_RETURN);
	if (p)
		CHECK_STR(p->fetchargs, "ret=$retval:s32");
	p = find_checked(set, "shmget_enter", PROBE_ENTRY);
	if (p) {
		check_symbols(p, "shmget", NULL);
		CHECK_STR(p->fetchargs, "key=%di:x64 size=%si:u64 shmflg=%dx:x32");
	}
	p = find_checked(set, "shmat_return", PROBE_RETURN);
	if (p)
		CHECK_STR(p->fetchargs, "ret=$retval:s64");
	p = find_checked(set, "shmdt_enter", PROBE_ENTRY);
	if (p)
		CHECK_STR(p->fetchargs, "shmaddr=%di:x64");
	p = find_checked(set, "shmctl_enter", PROBE_ENTRY);
	if (p)
		CHECK_STR(p->fetchargs, "shmid=%di:s32 cmd=%si:s32 buf=%dx:x64");
}

static void test_load(void)
{
	const char *srcdir = getenv("top_srcdir");
	char dir[] = "/tmp/test-probe-spec.XXXXXX";
	char path[512], probes_dir[512];
	struct errbuf eb = { { 0 } };
	struct probe_set *set = NULL;
	int err;

	if (!srcdir || !*srcdir)
		srcdir = ".";

	/* The shipped file, directly. */
	snprintf(path, sizeof(path), "%s/probes/libc-syscalls.probes", srcdir);
	err = probe_set__load(path, &set, &eb);
	CHECK_EQ_U64(err, 0);
	if (err)
		fprintf(stderr, "load '%s': %s\n", path, errbuf__str(&eb, err));
	check_shipped(set);
	probe_set__free(set);
	set = NULL;

	/* ... and by name through $FAULTLINE_PROBES_DIR. */
	snprintf(probes_dir, sizeof(probes_dir), "%s/probes", srcdir);
	setenv("FAULTLINE_PROBES_DIR", probes_dir, 1);
	err = probe_set__load_named("libc-syscalls", &set, &eb);
	CHECK_EQ_U64(err, 0);
	check_shipped(set);
	probe_set__free(set);
	set = NULL;

	CHECK(mkdtemp(dir) != NULL);

	/* Missing file: -ENOENT, distinct from other errors. */
	snprintf(path, sizeof(path), "%s/absent.probes", dir);
	err = probe_set__load(path, &set, &eb);
	CHECK_EQ_U64(err, (unsigned long long)-ENOENT);
	CHECK(set == NULL);
	CHECK(strstr(eb.msg, "absent.probes") != NULL);

	/* A directory is not a spec file. */
	err = probe_set__load(dir, &set, &eb);
	CHECK_EQ_U64(err, (unsigned long long)-EISDIR);

	/* Errors carry the path as origin. */
	snprintf(path, sizeof(path), "%s/bad.probes", dir);
	write_file(path, "library c\n\nprobe x middle f\n", 27);
	err = probe_set__load(path, &set, &eb);
	CHECK_EQ_U64(err, (unsigned long long)-EINVAL);
	{
		char want[600];

		snprintf(want, sizeof(want),
			 "%s:3: invalid probe kind 'middle' (expected 'entry' or 'return')", path);
		CHECK_STR(eb.msg, want);
	}

	/* A NUL byte would silently cut the file: refused, with its line. */
	snprintf(path, sizeof(path), "%s/nul.probes", dir);
	write_file(path, "library c\nprobe a entry f\n\0probe b entry g\n", 43);
	err = probe_set__load(path, &set, &eb);
	CHECK_EQ_U64(err, (unsigned long long)-EINVAL);
	{
		char want[600];

		snprintf(want, sizeof(want), "%s:3: nul byte in file", path);
		CHECK_STR(eb.msg, want);
	}

	/* Empty file: empty set. */
	snprintf(path, sizeof(path), "%s/empty.probes", dir);
	write_file(path, "", 0);
	err = probe_set__load(path, &set, &eb);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(probe_set__count(set), 0);
	probe_set__free(set);
	set = NULL;

	/* Too large. */
	snprintf(path, sizeof(path), "%s/big.probes", dir);
	{
		size_t n = 1024 * 1024 + 1;
		char *big = malloc(n);

		CHECK(big != NULL);
		if (big) {
			memset(big, '#', n);
			write_file(path, big, n);
			free(big);
		}
	}
	err = probe_set__load(path, &set, &eb);
	CHECK_EQ_U64(err, (unsigned long long)-EFBIG);
	unlink(path);

	/* load_named: $FAULTLINE_PROBES_DIR first. */
	setenv("FAULTLINE_PROBES_DIR", dir, 1);
	snprintf(path, sizeof(path), "%s/mine.probes", dir);
	write_file(path, "library m\nprobe only entry f\n", 29);
	err = probe_set__load_named("mine", &set, &eb);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(probe_set__count(set), 1);
	CHECK(probe_set__find(set, "only") != NULL);
	probe_set__free(set);
	set = NULL;

	/* A file that exists but is broken stops the search. */
	err = probe_set__load_named("bad", &set, &eb);
	CHECK_EQ_U64(err, (unsigned long long)-EINVAL);

	/* Not found anywhere: -ENOENT naming where it looked. */
	err = probe_set__load_named("no-such-spec", &set, &eb);
	CHECK_EQ_U64(err, (unsigned long long)-ENOENT);
	CHECK(set == NULL);
	CHECK(strncmp(eb.msg, "probe spec 'no-such-spec' not found in: ", 40) == 0);
	CHECK(strstr(eb.msg, dir) != NULL);
	CHECK(strstr(eb.msg, "/probes") != NULL);

	/* Names that could leave the search directories. */
	CHECK_EQ_U64(probe_set__load_named("../etc/passwd", &set, &eb),
		     (unsigned long long)-EINVAL);
	CHECK_STR(eb.msg, "invalid probe spec name '../etc/passwd'");
	CHECK_EQ_U64(probe_set__load_named(".hidden", &set, &eb), (unsigned long long)-EINVAL);
	CHECK_EQ_U64(probe_set__load_named("", &set, &eb), (unsigned long long)-EINVAL);
	CHECK_EQ_U64(probe_set__load_named("a/b", &set, &eb), (unsigned long long)-EINVAL);

	/* Built in: every shipped spec, byte for byte its file, found when no
	 * directory has it; a file in a directory still wins. */
	{
		size_t nbuiltin = 0;

		for (size_t i = 0; probe_builtins[i].name; i++, nbuiltin++) {
			char *text = NULL;
			size_t len = 0;

			snprintf(path, sizeof(path), "%s/probes/%s.probes", srcdir,
				 probe_builtins[i].name);
			CHECK(read_file(path, 1u << 20, &text, &len) == 0);
			CHECK(text && strlen(probe_builtins[i].text) == len &&
			      !memcmp(text, probe_builtins[i].text, len));
			free(text);
			err = probe_set__load_named(probe_builtins[i].name, &set, &eb);
			CHECK_EQ_U64(err, 0);
			CHECK(probe_set__count(set) > 0);
			probe_set__free(set);
			set = NULL;
		}
		CHECK_EQ_U64(nbuiltin, 6);	/* the files of probes/ */
		snprintf(path, sizeof(path), "%s/glibc.probes", dir);
		write_file(path, "library c\nprobe mine entry malloc\n", 34);
		err = probe_set__load_named("glibc", &set, &eb);
		CHECK_EQ_U64(err, 0);
		CHECK_EQ_U64(probe_set__count(set), 1);
		CHECK(probe_set__find(set, "mine") != NULL);
		probe_set__free(set);
		set = NULL;
		unlink(path);
	}

	snprintf(path, sizeof(path), "%s/mine.probes", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bad.probes", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/nul.probes", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/empty.probes", dir);
	unlink(path);
	rmdir(dir);
}

/* "expect" bytes, and -O/--symbols-prefix retargeting. */
static void test_expect_retarget(void)
{
	static const char text[] =
		"library c\n"
		"probe pm_store entry posix_memalign+0x4a ptr=%dx:x64\n"
		"expect pm_store 7406488955\n"
		"probe m entry __libc_malloc|malloc size=%di:u64\n";
	struct errbuf eb = { "" };
	struct probe_set *set = NULL;
	const struct probe_spec *p;

	CHECK(probe_set__parse(text, "t", &set, &eb) == 0);
	p = probe_set__find(set, "pm_store");
	CHECK(p && p->nexpect == 5 && p->expect[0] == 0x74 && p->expect[4] == 0x55);
	CHECK(probe_set__find(set, "m")->nexpect == 0);
	CHECK(probe_set__retarget(set, "/opt/lib/libjemalloc.so.2", "je_") == 0);
	p = probe_set__find(set, "m");
	CHECK_STR(p->library, "/opt/lib/libjemalloc.so.2");
	CHECK(p->nsymbols == 2);
	CHECK_STR(p->symbols[0], "je___libc_malloc");
	CHECK_STR(p->symbols[1], "je_malloc");
	CHECK(probe_set__retarget(set, NULL, "") == 0);
	CHECK_STR(probe_set__find(set, "m")->symbols[1], "je_malloc");
	probe_set__free(set);

	CHECK(probe_set__parse("library c\nexpect nope 90\n", "t", &set, &eb) == -EINVAL);
	CHECK(strstr(eb.msg, "t:2: 'expect' names no probe") != NULL);
	CHECK(probe_set__parse("library c\nprobe a entry f\nexpect a 9g\n", "t", &set, &eb) ==
	      -EINVAL);
	CHECK(strstr(eb.msg, "not hex") != NULL);
	CHECK(probe_set__parse("library c\nprobe a entry f\nexpect a 909\n", "t", &set, &eb) ==
	      -EINVAL);
}

/* A fetcharg's value by name, its type left out. */
static void test_fetcharg(void)
{
	struct probe_set *set = NULL;
	const struct probe_spec *p;
	char v[16];

	CHECK_EQ_U64(probe_set__parse("library c\n"
				      "probe free_enter entry free ptr=%di:x64 sp=%sp\n"
				      "probe m_return return malloc ret=$retval:x64 sz=+0(%dx):u64\n",
				      "e", &set, NULL), 0);
	p = probe_set__find(set, "free_enter");
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ_U64(probe_spec__fetcharg(p, "ptr", v, sizeof(v)), 0);
		CHECK(!strcmp(v, "%di"));
		CHECK_EQ_U64(probe_spec__fetcharg(p, "sp", v, sizeof(v)), 0);
		CHECK(!strcmp(v, "%sp"));
		CHECK_EQ_U64(probe_spec__fetcharg(p, "pt", v, sizeof(v)), (uint64_t)-ENOENT);
		CHECK_EQ_U64(probe_spec__fetcharg(p, "ret", v, sizeof(v)), (uint64_t)-ENOENT);
		CHECK_EQ_U64(probe_spec__fetcharg(p, "ptr", v, 3), (uint64_t)-ENOSPC);
	}
	p = probe_set__find(set, "m_return");
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ_U64(probe_spec__fetcharg(p, "ret", v, sizeof(v)), 0);
		CHECK(!strcmp(v, "$retval"));
		CHECK_EQ_U64(probe_spec__fetcharg(p, "sz", v, sizeof(v)), 0);
		CHECK(!strcmp(v, "+0(%dx)"));
	}
	probe_set__free(set);
}

int main(void)
{
	test_fetcharg();
	test_expect_retarget();
	test_valid();
	test_empty();
	test_errors();
	test_too_many_fetchargs();
	test_format_round_trip();
	test_load();
	return check_done("test-probe-spec");
}
