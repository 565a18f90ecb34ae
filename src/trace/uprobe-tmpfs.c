/*
 * uprobe-tmpfs: see uprobe-tmpfs.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/file.h"
#include "trace/perf-event.h"
#include "trace/uprobe-pmu.h"
#include "trace/uprobe-tmpfs.h"

#define TMPFS_MAGIC_NR 0x01021994	/* linux/magic.h TMPFS_MAGIC */
#define INT3 0xcc			/* the x86 breakpoint a uprobe writes */

bool uprobe_tmpfs__is(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == TMPFS_MAGIC_NR && !(sf.f_flags & ST_NOEXEC);
}

int uprobe_tmpfs__map(const char *path, uint64_t off, void **map, size_t *len, uint8_t *byte)
{
	long page = sysconf(_SC_PAGESIZE);
	void *m;
	int fd, err = 0;

	if (page <= 0)
		return -EINVAL;
	fd = open_regular(path, 0);	/* a traced process's path: no FIFO */
	if (fd < 0)
		return fd;
	if (pread(fd, byte, 1, (off_t)off) != 1)
		err = -EIO;
	m = err ? MAP_FAILED : mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE, fd,
				     (off_t)(off & ~((uint64_t)page - 1)));
	if (!err && m == MAP_FAILED)
		err = -errno;
	close(fd);
	if (err)
		return err;
	*map = m;
	*len = (size_t)page;
	return 0;
}

void uprobe_tmpfs__unmap(void *map, size_t len)
{
	if (map)
		munmap(map, len);
}

int uprobe_tmpfs__refuse(struct errbuf *eb, const char *probe, const char *where)
{
	return errbuf__set(eb, -EIO,
			   "cannot place probe '%s' at '%s': this kernel cannot probe a file "
			   "on tmpfs (it reads the instruction through the file's readpage, which "
			   "tmpfs lacks); copy the program and its libraries to a disk filesystem "
			   "(or ramfs) and run it from there", probe, where);
}

int uprobe_tmpfs__check_pmu(int type, const char *path, uint64_t off, const char *probe,
			    const char *where, struct errbuf *eb)
{
	struct perf_event_attr a;
	uint8_t file_byte, seen;
	size_t len;
	void *map;
	int fd;

	if (uprobe_tmpfs__map(path, off, &map, &len, &file_byte))
		return 0;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.disabled = 1;
	uprobe_pmu__attr(&a, type, false, 0, path, off);
	fd = perf_event__open(&a, 0, -1, -1);
	seen = ((const volatile uint8_t *)map)[off & (len - 1)];
	if (fd >= 0)
		close(fd);
	uprobe_tmpfs__unmap(map, len);
	if (fd < 0 || file_byte == INT3 || seen == INT3)
		return 0;
	return uprobe_tmpfs__refuse(eb, probe, where);
}
