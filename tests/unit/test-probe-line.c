/*
 * test-probe-line: the probe command builder refuses every part the
 * kernel's dynamic_events parser could misread (a newline starts another
 * command, whitespace splits one, '#' ends it, ':' starts the offset on
 * 3.10), builds the line libtracefs writes for good parts, the error
 * log is quoted only for the command that failed and only from the entries
 * the write added (real logs of 6.18: tests/fixtures/error-log/), and 3.10's fetchargs
 * (no x types) are rewritten token by token; a group name gives its
 * owner's pid and PID namespace, and nothing else parses as one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "proc/nspid.h"
#include "trace/probe-group.h"
#include "trace/probe-line.h"

static int up(const char *group, const char *event, const char *path, const char *args)
{
	char buf[PROBE_LINE_MAX + 1];

	return probe_line__uprobe(buf, sizeof(buf), group, event, path, 0x10, false, args, NULL);
}

/* tests/fixtures/error-log/@name, read whole (top_srcdir, default "."). */
static char *fixture(const char *name)
{
	const char *top = getenv("top_srcdir");
	char path[4096], *text = NULL;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/error-log/%s", top ? top : ".", name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(1);
	}
	text = calloc(1, 65536);
	if (text)
		n = fread(text, 1, 65535, f);
	fclose(f);
	if (!text || !n)
		exit(1);
	return text;
}

/* Captured on 6.18 (tests/fixtures/error-log/README.md): the command C
 * failed first for want of its file, then, the file there, for its
 * register; the "full" pair is the ring of 8 entries, its oldest dropped
 * by C's second failure. */
#define FX_CMD "p:faultline_4242/malloc_enter /tmp/h25fx/lib/libc.so.6:0x0000000000098930 " \
	       "size=%zz:u64 sp=%sp:x64"
#define FX_NOFILE "trace_uprobe: error: Failed to find the given file"
#define FX_REGISTER "trace_uprobe: error: Invalid register name"

static void check_fixtures(void)
{
	char *pb = fixture("plain-before.log"), *pa = fixture("plain-after.log");
	char *fb = fixture("full-before.log"), *fa = fixture("full-after.log");
	const char *last;
	char msg[256];

	/* Appended: the new entry, not the older one of the same text. */
	CHECK(probe_line__kernel_error(pb, pa, FX_CMD, msg, sizeof(msg)));
	CHECK_STR(msg, FX_REGISTER);
	/* A failure the kernel logged nothing for (3.10 has no log; libtracefs
	 * can fail before the write): the same text's older entries are not
	 * its reason. */
	CHECK(!probe_line__kernel_error(pb, pb, FX_CMD, msg, sizeof(msg)));
	CHECK(!probe_line__kernel_error(pa, pa, FX_CMD, msg, sizeof(msg)));
	CHECK(!probe_line__kernel_error(fb, fb, FX_CMD, msg, sizeof(msg)));
	/* Without a log before, every entry counts: the last of the command. */
	CHECK(probe_line__kernel_error(NULL, pb, FX_CMD, msg, sizeof(msg)));
	CHECK_STR(msg, FX_NOFILE);
	CHECK(probe_line__kernel_error("", pa, FX_CMD, msg, sizeof(msg)));
	CHECK_STR(msg, FX_REGISTER);
	/* The full ring: as long as before, its oldest entry gone. */
	CHECK(strlen(fb) != strlen(fa) || strncmp(fb, fa, strlen(fb)));
	CHECK(probe_line__kernel_error(fb, fa, FX_CMD, msg, sizeof(msg)));
	CHECK_STR(msg, FX_REGISTER);
	/* before's last entry dropped too (more entries since than the ring
	 * holds): all of the log is new. */
	CHECK(probe_line__kernel_error(pb, fa, FX_CMD, msg, sizeof(msg)));
	CHECK_STR(msg, FX_REGISTER);
	/* Cleared, then the command's entry alone. */
	last = strrchr(fa, '[');
	CHECK(last && probe_line__kernel_error(fb, last, FX_CMD, msg, sizeof(msg)));
	CHECK_STR(msg, FX_REGISTER);
	/* Another command's entries never. */
	CHECK(!probe_line__kernel_error(fb, fa, "p:faultline_4242/malloc_enter /x:0x10", msg,
					sizeof(msg)));
	/* One line, whatever @msg holds. */
	CHECK(probe_line__kernel_error(fb, fa, FX_CMD, msg, 12));
	CHECK_STR(msg, "trace_uprob");
	free(pb);
	free(pa);
	free(fb);
	free(fa);
}

int main(void)
{
	static const char *const bad_paths[] = {
		"/tmp/rel/nl:zz\nq/st", "/tmp/x/sp ace/libc.so.6", "/a\tb", "/a\rb", "/a#b",
		"/a:b", "relative/libc.so.6", "", "/a\x01" "b", "/caf\xc3\xa9/libc.so.6",
		"/x\n-:faultline_1/malloc_enter",
	};
	char buf[PROBE_LINE_MAX + 1], big[PROBE_LINE_PATH_MAX + 2], msg[256];
	const char *log;

	CHECK(probe_line__path_ok("/lib/x86_64-linux-gnu/libc.so.6"));
	CHECK(probe_line__path_ok("/proc/123/fd/7"));
	CHECK(probe_line__path_ok("/opt/a+b,c@d~e=f-g_h/lib.so"));
	for (size_t i = 0; i < sizeof(bad_paths) / sizeof(bad_paths[0]); i++) {
		CHECK(!probe_line__path_ok(bad_paths[i]));
		CHECK_EQ_U64(up("faultline_1", "malloc_enter", bad_paths[i], NULL), (uint64_t)-EINVAL);
	}
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	CHECK(!probe_line__path_ok(big));
	big[PROBE_LINE_PATH_MAX] = '\0';
	CHECK(probe_line__path_ok(big));

	/* Names: the group and the event. */
	CHECK_EQ_U64(up("faultline_1\n-:x", "e", "/lib.so", NULL), (uint64_t)-EINVAL);
	CHECK_EQ_U64(up("faultline_1", "e v", "/lib.so", NULL), (uint64_t)-EINVAL);
	CHECK_EQ_U64(up("faultline_1", "e/v", "/lib.so", NULL), (uint64_t)-EINVAL);
	CHECK_EQ_U64(up("faultline_1", "", "/lib.so", NULL), (uint64_t)-EINVAL);
	CHECK_EQ_U64(up("faultline_1", "9e", "/lib.so", NULL), (uint64_t)-EINVAL);
	CHECK_EQ_U64(up("faultline_1", "e1234567890123456789012345678901234567890123456789012345678901234",
			"/lib.so", NULL), (uint64_t)-EINVAL);
	/* Fetchargs. */
	CHECK_EQ_U64(up("g", "e", "/lib.so", "a=%di:u64\n-:g/e"), (uint64_t)-EINVAL);
	CHECK_EQ_U64(up("g", "e", "/lib.so", "a=%di:u64 #x"), (uint64_t)-EINVAL);
	CHECK_EQ_U64(up("g", "e", "/lib.so", "a=%di:u64\tb=%si"), (uint64_t)-EINVAL);
	CHECK_EQ_U64(up("g", "e", "/lib.so", "a=%di:u64  b=%si"), (uint64_t)-EINVAL);
	CHECK_EQ_U64(up("g", "e", "/lib.so", " a=%di"), (uint64_t)-EINVAL);

	/* The line libtracefs writes (strace of leak on 6.18). */
	CHECK_EQ_U64(probe_line__uprobe(buf, sizeof(buf), "faultline_15976", "malloc_enter",
					"/lib/x86_64-linux-gnu/libc.so.6", 0x98930, false,
					"size=%di:u64 sp=%sp:x64", NULL), 0);
	CHECK_STR(buf, "p:faultline_15976/malloc_enter /lib/x86_64-linux-gnu/libc.so.6:"
		       "0x0000000000098930 size=%di:u64 sp=%sp:x64");
	CHECK_EQ_U64(probe_line__uprobe(buf, sizeof(buf), "g", "r", "/l.so", 0x10, true, "", NULL), 0);
	CHECK_STR(buf, "r:g/r /l.so:0x0000000000000010");
	CHECK_EQ_U64(probe_line__uprobe(buf, 20, "g", "r", "/l.so", 0x10, true, NULL, NULL),
		     (uint64_t)-ENAMETOOLONG);
	CHECK_STR(buf, "");
	CHECK_EQ_U64(probe_line__kprobe(buf, sizeof(buf), "g", "k", "hugetlb_fault", false, NULL,
					NULL), 0);
	CHECK_STR(buf, "p:g/k hugetlb_fault");
	CHECK_EQ_U64(probe_line__kprobe(buf, sizeof(buf), "g", "k", "foo.isra.0", true, NULL, NULL), 0);
	CHECK_STR(buf, "r:g/k foo.isra.0");
	CHECK_EQ_U64(probe_line__kprobe(buf, sizeof(buf), "g", "k", "f\np:g/x f", false, NULL, NULL),
		     (uint64_t)-EINVAL);
	CHECK_EQ_U64(probe_line__kprobe(buf, sizeof(buf), "g", "k", "f x", false, NULL, NULL),
		     (uint64_t)-EINVAL);

	/* The error log: only the entry of this very command is quoted. */
	log = "[ 7106.665910] trace_uprobe: error: Failed to find the given file\n"
	      "  Command: p:g/x /nonexist:0x10 a=%di:u64\n"
	      "                            ^\n"
	      "[ 7106.666040] trace_uprobe: error: Invalid register name\n"
	      "  Command: p:g/y /bin/true:0x10 a=%zz:u64\n"
	      "                                             ^\n";
	CHECK(probe_line__kernel_error(NULL, log, "p:g/x /nonexist:0x10 a=%di:u64", msg, sizeof(msg)));
	CHECK_STR(msg, "trace_uprobe: error: Failed to find the given file");
	CHECK(probe_line__kernel_error(NULL, log, "p:g/y /bin/true:0x10 a=%zz:u64", msg, sizeof(msg)));
	CHECK_STR(msg, "trace_uprobe: error: Invalid register name");
	CHECK(!probe_line__kernel_error(NULL, log, "p:g/z /bin/true:0x10", msg, sizeof(msg)));
	CHECK(!probe_line__kernel_error(NULL, log, "p:g/x /nonexist:0x10", msg, sizeof(msg)));
	CHECK(!probe_line__kernel_error(NULL, "", "p:g/x", msg, sizeof(msg)));
	CHECK(!probe_line__kernel_error(NULL, NULL, "p:g/x", msg, sizeof(msg)));

	/* 3.10's types: every x width becomes u, nothing else changes. */
	CHECK(probe_line__unhex("ret=$retval:x64 sp=%sp:x64", msg, sizeof(msg)));
	CHECK_STR(msg, "ret=$retval:u64 sp=%sp:u64");
	CHECK(probe_line__unhex("key=%di:x64 size=%si:u64 shmflg=%dx:x32", msg, sizeof(msg)));
	CHECK_STR(msg, "key=%di:u64 size=%si:u64 shmflg=%dx:u32");
	CHECK(probe_line__unhex("a=%ax:x8 b=%bx:x16", msg, sizeof(msg)));
	CHECK_STR(msg, "a=%ax:u8 b=%bx:u16");
	CHECK(!probe_line__unhex("size=%di:u64 sp=%sp:u64", msg, sizeof(msg)));
	CHECK_STR(msg, "");
	CHECK(!probe_line__unhex("a=%di:x1 b=%si:x640 c=%dx:xx64 x64=%cx", msg, sizeof(msg)));
	CHECK(!probe_line__unhex(NULL, msg, sizeof(msg)));
	CHECK(!probe_line__unhex("", msg, sizeof(msg)));
	CHECK(!probe_line__unhex("a=%di:x64", msg, 5));
	CHECK_STR(msg, "");
	{
		unsigned long ns = 0;
		pid_t pid = 0;

		CHECK_EQ_U64(probe_group__parse_owner("faultline_4242", &pid, &ns), 0);
		CHECK_EQ_U64(pid, 4242);
		CHECK_EQ_U64(ns, NSPID_INIT_NS);
		CHECK_EQ_U64(probe_group__parse_owner("faultline_1_4026532179", &pid, &ns), 0);
		CHECK_EQ_U64(pid, 1);
		CHECK_EQ_U64(ns, 4026532179UL);
		CHECK_EQ_U64(probe_group__parse_pid("faultline_1_4026532179"), 1);
		/* The initial namespace is never spelled out: one name per owner. */
		CHECK_EQ_U64((uint64_t)probe_group__parse_owner("faultline_7_4026531836", &pid, &ns),
			     (uint64_t)-EINVAL);
		static const char *const bad[] = {
			"faultline_", "faultline_0", "faultline_-3", "faultline_12x", "faultline_12_",
			"faultline_12__5", "faultline_12_5x", "faultline_99999999999", "faultline_a_1",
			"faultline_12_-5", "perf_12", "faultlin_12",
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			CHECK_EQ_U64((uint64_t)probe_group__parse_owner(bad[i], &pid, &ns),
				     (uint64_t)-EINVAL);
			CHECK_EQ_U64((uint64_t)probe_group__parse_pid(bad[i]), (uint64_t)-1);
		}
	}
	check_fixtures();
	return check_done("test-probe-line");
}
