/*
 * debuginfo: where a binary's separate debug file is, found as gdb finds
 * it: by build-id under each debug directory's .build-id/, then by the
 * binary's .gnu_debuglink next to the binary, in its .debug/ subdirectory
 * and below each debug directory.
 *
 * Our own search rather than libdwfl's standard one, for three reasons:
 * the file a symbolizer opened may be /proc/PID/map_files/... or
 * /proc/PID/root/..., whose directory says nothing about where the debug
 * file lives; a container's own /usr/lib/debug has to be searched; and
 * extra debug directories (tests, --symfs) come first.
 *
 * A candidate is taken only with proof: an equal build-id, or, for a file
 * named by .gnu_debuglink, the CRC the link records (and no differing
 * build-id).  The binary itself (same device and inode) never is its own
 * debug file.  libelf must be initialized (elf_version()) before a search.
 */
#ifndef FAULTLINE_DEBUGINFO_H
#define FAULTLINE_DEBUGINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <libelf.h>

/* The binary whose debug file is looked for, and where to look. */
struct debuginfo_query {
	char *const *dirs;		/* extra debug directories, searched first */
	size_t ndirs;
	const char *root;		/* "/proc/PID/root" for a process in another
					 * root (its /usr/lib/debug is searched,
					 * before ours), else "" */
	const char *path;		/* the binary's absolute path in @root */
	const unsigned char *build_id;	/* NULL when it has none */
	size_t build_id_len;
	dev_t dev;			/* of the binary's opened file */
	ino_t ino;
};

/**
 * debuginfo__find() - open a binary's separate debug file
 * @q: the binary and the directories
 * @debuglink: its .gnu_debuglink name; NULL or "": by build-id only
 * @crc: the CRC .gnu_debuglink records
 * @debug_name: out, the path opened (malloc'ed, the caller frees) when found
 *
 * Return: the open descriptor (the caller closes it); -ENOENT when no
 * candidate is there or proven (or there was no memory to try one).
 */
int debuginfo__find(const struct debuginfo_query *q, const char *debuglink, uint32_t crc,
		    char **debug_name);

/**
 * debuginfo__crc32() - a file's CRC-32 as .gnu_debuglink records it
 * @fd: open file, read whole with pread() (its offset is unchanged)
 * @out: out
 *
 * Return: 0 or -errno of the read.
 */
int debuginfo__crc32(int fd, uint32_t *out);

/**
 * debuginfo__build_id() - the GNU build-id of an open ELF
 * @elf: the file
 * @id: out; into @elf's data, valid while it is open
 *
 * Return: its length; 0 when it has none.
 */
size_t debuginfo__build_id(Elf *elf, const unsigned char **id);

#endif
