/*
 * test-debuginfo: the separate debug file search on its own: the CRC-32
 * .gnu_debuglink records (the check value of "123456789"), and which
 * candidate each proof admits: by build-id under a debug directory's
 * .build-id/ only an equal build-id; by .gnu_debuglink next to the
 * binary, in its .debug/ or below a debug directory, the recorded CRC,
 * and never a differing build-id nor the binary itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#include "check.h"
#include "fixture-run.h"
#include "stack/debuginfo.h"

/* Find with @q; the name found, "" for none.  Checks the descriptor is
 * the file named. */
static const char *find(const struct debuginfo_query *q, const char *link, uint32_t crc)
{
	static char found[PATH_MAX];
	char *name = NULL;
	struct stat a, b;
	int fd = debuginfo__find(q, link, crc, &name);

	found[0] = '\0';
	if (fd < 0) {
		CHECK_EQ_U64(fd, (uint64_t)-ENOENT);
		return found;
	}
	CHECK(name != NULL);
	if (name) {
		CHECK(fstat(fd, &a) == 0 && stat(name, &b) == 0 && a.st_ino == b.st_ino);
		snprintf(found, sizeof(found), "%s", name);
	}
	free(name);
	close(fd);
	return found;
}

int main(void)
{
	char tmp[] = "/tmp/test-debuginfo-XXXXXX", exe[PATH_MAX], path[PATH_MAX + 64], hex[129];
	char ddir[PATH_MAX + 64], expect[2 * PATH_MAX], *dirs[1];
	const unsigned char *id = NULL;
	unsigned char other_id[64];
	struct debuginfo_query q;
	struct stat st;
	uint32_t crc = 0, exe_crc = 0;
	size_t id_len = 0;
	ssize_t len;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	CHECK(mkdtemp(tmp) != NULL);
	snprintf(path, sizeof(path), "%s/text", tmp);
	check_put(path, "w", "123456789");
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && debuginfo__crc32(fd, &crc) == 0);
	CHECK_EQ_U64(crc, 0xcbf43926u);
	close(fd);

	/* Our own executable as the debug file: an ELF with a build-id. */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(len > 0);
	if (len <= 0)
		goto out;
	exe[len] = '\0';
	fd = open(exe, O_RDONLY);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (elf)
		id_len = debuginfo__build_id(elf, &id);
	CHECK(id_len >= 2 && id_len <= 64);
	CHECK(debuginfo__crc32(fd, &exe_crc) == 0);
	if (id_len < 2 || id_len > 64)
		goto out;
	memcpy(other_id, id, id_len);
	other_id[0] ^= 1;
	for (size_t i = 0; i < id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	CHECK(fixture_run("cd %s && mkdir -p bin/.debug dbg/.build-id/%.2s dbg/%s/bin && "
			  "cp %s dbg/.build-id/%.2s/%s.debug && cp %s bin/.debug/near.debug && "
			  "cp %s dbg/%s/bin/deep.debug && cp %s bin/prog && cp text bin/text.debug",
			  tmp, hex, tmp, exe, hex, hex + 2, exe, exe, tmp, exe) == 0);
	snprintf(path, sizeof(path), "%s/bin/prog", tmp);
	CHECK(stat(path, &st) == 0);
	dirs[0] = ddir;
	snprintf(ddir, sizeof(ddir), "%s/dbg", tmp);
	q = (struct debuginfo_query){ dirs, 1, "", path, id, id_len, st.st_dev, st.st_ino };

	/* By build-id, the extra directory first. */
	snprintf(expect, sizeof(expect), "%s/dbg/.build-id/%.2s/%s.debug", tmp, hex, hex + 2);
	CHECK_STR(find(&q, NULL, 0), expect);
	/* Another build-id: not that file; a debuglink CRC with a
	 * differing build-id: never. */
	q.build_id = other_id;
	CHECK_STR(find(&q, NULL, 0), "");
	CHECK_STR(find(&q, "near.debug", exe_crc), "");
	/* No build-id on the binary's side: the CRC is the proof; here
	 * in the .debug/ of the binary's directory. */
	q.build_id = NULL;
	q.build_id_len = 0;
	CHECK_STR(find(&q, NULL, 0), "");
	snprintf(expect, sizeof(expect), "%s/bin/.debug/near.debug", tmp);
	CHECK_STR(find(&q, "near.debug", exe_crc), expect);
	CHECK_STR(find(&q, "near.debug", exe_crc ^ 1), "");
	/* Below a debug directory, plus the binary's directory. */
	snprintf(expect, sizeof(expect), "%s/dbg%s/bin/deep.debug", tmp, tmp);
	CHECK_STR(find(&q, "deep.debug", exe_crc), expect);
	/* Not ELF, whatever its CRC. */
	CHECK_STR(find(&q, "text.debug", 0xcbf43926u), "");
	/* The binary itself, named by its own link: never. */
	CHECK_STR(find(&q, "prog", exe_crc), "");
	q.ino = 0;
	snprintf(expect, sizeof(expect), "%s/bin/prog", tmp);
	CHECK_STR(find(&q, "prog", exe_crc), expect);
	if (elf)
		elf_end(elf);
	close(fd);
out:
	fixture_run("rm -rf %s", tmp);
	return check_done("test-debuginfo");
}
