/*
 * test-passwd: uid to name from a passwd(5) file (the static binary's
 * cachetop UID column): the first matching line wins, UIDs match whole,
 * malformed, comment and NIS lines are skipped, a missing file is -ENOENT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/passwd.h"
#include "check.h"

int main(void)
{
	char dir[] = "/tmp/test-passwd.XXXXXX", path[256], name[64];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/passwd", dir);
	check_put(path, "w",
	    "root:x:0:0:root:/root:/bin/bash\n"
	    "# a comment:x:5:5\n"
	    "+nisuser:x:7:7::/:\n"
	    ":x:8:8:no name:/:\n"
	    "short:x\n"
	    "hex:x:0x9:9::/:\n"
	    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
	    "ten:x:10:10::/:\n"
	    "hundred:x:100:100::/:\n"
	    "dup:x:1000:1000::/:\n"
	    "second:x:1000:1000::/:\n"
	    "big:x:4294967295:0::/:\n"
	    "toobig:x:4294967296:0::/:\n"
	    "last:x:65534:65534::/:");	/* no newline at the end */
	CHECK(passwd__name(path, 0, name, sizeof(name)) == 0);
	CHECK_STR(name, "root");
	CHECK(passwd__name(path, 1, name, sizeof(name)) == 0);
	CHECK_STR(name, "daemon");
	CHECK(passwd__name(path, 10, name, sizeof(name)) == 0);
	CHECK_STR(name, "ten");
	CHECK(passwd__name(path, 100, name, sizeof(name)) == 0);
	CHECK_STR(name, "hundred");
	CHECK(passwd__name(path, 1000, name, sizeof(name)) == 0);
	CHECK_STR(name, "dup");
	CHECK(passwd__name(path, 65534, name, sizeof(name)) == 0);
	CHECK_STR(name, "last");
	CHECK(passwd__name(path, 4294967295u, name, sizeof(name)) == 0);
	CHECK_STR(name, "big");
	/* Skipped lines: comment, NIS, no name, too few fields, not decimal. */
	CHECK(passwd__name(path, 5, name, sizeof(name)) == -ENOENT);
	CHECK(passwd__name(path, 7, name, sizeof(name)) == -ENOENT);
	CHECK(passwd__name(path, 8, name, sizeof(name)) == -ENOENT);
	CHECK(passwd__name(path, 9, name, sizeof(name)) == -ENOENT);
	CHECK(passwd__name(path, 2, name, sizeof(name)) == -ENOENT);
	/* Cut to fit. */
	CHECK(passwd__name(path, 100, name, 4) == 0);
	CHECK_STR(name, "hun");
	unlink(path);
	CHECK(passwd__name(path, 0, name, sizeof(name)) == -ENOENT);
	check_put(path, "w", "");
	CHECK(passwd__name(path, 0, name, sizeof(name)) == -ENOENT);
	unlink(path);
	rmdir(dir);
	return check_done("test-passwd");
}
