/*
 * debuginfo: the separate debug file search (see debuginfo.h).  Each
 * candidate path is opened and checked (regular file, not the binary
 * itself, an ELF file, build-id and CRC as the lookup requires) before it
 * is handed out: a stale debug file from another build would name every
 * frame wrongly.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "lib/file.h"
#include "stack/debuginfo.h"

static const char system_debug_dir[] = "/usr/lib/debug";

size_t debuginfo__build_id(Elf *elf, const unsigned char **id)
{
	const void *p = NULL;
	ssize_t len = dwelf_elf_gnu_build_id(elf, &p);

	*id = p;
	return len > 0 ? (size_t)len : 0;
}

/* CRC-32 (IEEE, reflected), as .gnu_debuglink records it. */
int debuginfo__crc32(int fd, uint32_t *out)
{
	uint32_t table[256], crc = 0xffffffffu;
	unsigned char buf[65536];
	off_t pos = 0;
	ssize_t got;

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
	while ((got = pread(fd, buf, sizeof(buf), pos)) > 0) {
		for (ssize_t i = 0; i < got; i++)
			crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
		pos += got;
	}
	if (got < 0)
		return -errno;
	*out = crc ^ 0xffffffffu;
	return 0;
}

/* Open @path as @q's debug file: a regular ELF file other than @q's binary
 * whose build-id is the binary's (when both have one), and, when
 * @check_crc and there is no build-id to compare, whose CRC is @crc: a
 * file named only by .gnu_debuglink without a build-id on either side has
 * the CRC as its only proof.  -1 when it is not. */
static int open_debug_candidate(const struct debuginfo_query *q, const char *path, bool check_crc,
				uint32_t crc)
{
	const unsigned char *id = NULL;
	struct stat st;
	size_t id_len;
	Elf *elf = NULL;
	uint32_t got;
	bool ok = false;
	int fd = open_regular(path, 0);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || (st.st_dev == q->dev && st.st_ino == q->ino))
		goto out;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	id_len = debuginfo__build_id(elf, &id);
	if (q->build_id && id_len && (id_len != q->build_id_len || memcmp(id, q->build_id, id_len) != 0))
		goto out;
	/* An equal build-id proves it (as libdwfl takes it); the CRC, a read
	 * of the whole debug file, only when there is none to compare. */
	if (q->build_id && id_len)
		check_crc = false;
	else if (!check_crc)
		goto out;
	if (check_crc && (debuginfo__crc32(fd, &got) != 0 || got != crc))
		goto out;
	ok = true;
out:
	if (elf)
		elf_end(elf);
	if (!ok && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Try @path; on success hand out its name too. */
static int try_debug(const struct debuginfo_query *q, const char *path, bool check_crc, uint32_t crc,
		     char **debug_name)
{
	int fd = open_debug_candidate(q, path, check_crc, crc);

	if (fd >= 0) {
		*debug_name = strdup(path);
		if (!*debug_name) {
			close(fd);
			fd = -1;
		}
	}
	return fd;
}

/* The debug directories in search order: the extra ones, the process
 * root's /usr/lib/debug when it has its own root, ours. */
static size_t debug_dir(const struct debuginfo_query *q, size_t i, char *buf, size_t n,
			const char **dir)
{
	size_t nextra = q->ndirs, total = nextra + 1 + (q->root[0] != '\0');

	if (i >= total)
		return 0;
	if (i < nextra)
		*dir = q->dirs[i];
	else if (i == nextra && q->root[0]) {
		snprintf(buf, n, "%s%s", q->root, system_debug_dir);
		*dir = buf;
	} else
		*dir = system_debug_dir;
	return total;
}

int debuginfo__find(const struct debuginfo_query *q, const char *debuglink, uint32_t crc,
		    char **debug_name)
{
	char path[PATH_MAX], rootdir[PATH_MAX], hex[2 * 64 + 1], *dir = NULL;
	const char *ddir, *roots[2] = { q->root, "" };
	int fd = -1;

	if (q->build_id && q->build_id_len >= 2 && q->build_id_len <= 64) {
		for (size_t i = 0; i < q->build_id_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", q->build_id[i]);
		for (size_t i = 0; fd < 0 && debug_dir(q, i, rootdir, sizeof(rootdir), &ddir); i++) {
			snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", ddir, hex, hex + 2);
			fd = try_debug(q, path, false, 0, debug_name);
		}
	}
	if (fd >= 0 || !debuglink || !*debuglink)
		goto out;
	dir = strdup(q->path);
	if (!dir)
		goto out;
	/* The binary's directory ("" for "/"); a path without one (not
	 * absolute: never a mapping's) has only the debug directories. */
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	else
		dir[0] = '\0';
	for (size_t r = 0; fd < 0 && r < 2 && strchr(q->path, '/'); r++) {
		if (r == 1 && !q->root[0])
			break;
		snprintf(path, sizeof(path), "%s%s/%s", roots[r], dir, debuglink);
		fd = try_debug(q, path, true, crc, debug_name);
		if (fd < 0) {
			snprintf(path, sizeof(path), "%s%s/.debug/%s", roots[r], dir, debuglink);
			fd = try_debug(q, path, true, crc, debug_name);
		}
	}
	for (size_t i = 0; fd < 0 && debug_dir(q, i, rootdir, sizeof(rootdir), &ddir); i++) {
		snprintf(path, sizeof(path), "%s%s/%s", ddir, dir, debuglink);
		fd = try_debug(q, path, true, crc, debug_name);
	}
out:
	free(dir);
	return fd >= 0 ? fd : -ENOENT;
}
