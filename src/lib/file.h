/*
 * file: read a whole file into memory.  procfs, sysfs and tracefs files
 * report a size of 0 (or 4096) whatever they hold, so the buffer grows as
 * the reads come, never trusting stat().
 */
#ifndef FAULTLINE_FILE_H
#define FAULTLINE_FILE_H

#include <stddef.h>

/*
 * Read at most max bytes of path into a malloc'ed, NUL-terminated buffer
 * (*buf, owned by the caller; *len excludes the NUL, may be NULL).  A file
 * longer than max is cut at max.  0, or -errno of open/read (-ENOENT,
 * -EACCES...), or -ENOMEM.
 */
int read_file(const char *path, size_t max, char **buf, size_t *len);
/* The same from an open @fd (left open), from where it stands. */
int read_fd(int fd, size_t max, char **buf, size_t *len);
/*
 * write_fd() - all of @buf to @fd, through short writes and EINTR, with
 * no stdio in between (a terminal's screen or line written where stdout
 * may point elsewhere).  Return: how many bytes went (@n when all did),
 * or -errno when none could be written.
 */
long write_fd(int fd, const void *buf, size_t n);

struct stat;

/*
 * open_regular() - open a file whose path someone else chose (a traced
 * process's mapping, a recording's, a perf map) for reading
 * @flags: more open(2) flags (O_NOFOLLOW: refuse a symlink at the end)
 *
 * The path is opened with O_PATH first, which opens no device and waits on
 * no FIFO, and only a regular file there is then opened for reading,
 * through /proc/self/fd (the same inode whatever the path now names),
 * O_NONBLOCK too.  Return: the fd (O_RDONLY|O_CLOEXEC, the caller's), or
 * -errno: -EINVAL for what is not a regular file.
 */
int open_regular(const char *path, int flags);

/*
 * open_inode() - open what @path names now, as @oflags, only when @check
 * accepts it
 * @pflags: more flags for the O_PATH open of @path (O_NOFOLLOW)
 * @check:  given the O_PATH fd's fstat: 0 to open it, or the -errno to
 *          return
 *
 * The mechanism of open_regular(): @path opened O_PATH (no device opened,
 * no FIFO waited on), fstat()ed, and that inode, not whatever the path
 * names by then, opened through /proc/self/fd with @oflags | O_CLOEXEC.
 * Return: the fd, @check's -errno, or open(2)'s.
 */
int open_inode(const char *path, int pflags, int oflags,
	       int (*check)(const struct stat *st, const void *ctx), const void *ctx);
/* open_inode()'s @check for a regular file only (-EINVAL otherwise), as
 * open_regular() opens; @ctx unused. */
int inode_regular(const struct stat *st, const void *ctx);

/* The last component of @path: what follows its last '/', or @path. */
const char *path_base(const char *path);

struct errbuf;
/*
 * read_proc_file() - read_file() of <@procfs>/@name (@procfs NULL: /proc),
 * the error as "cannot read 'PATH': REASON" in @eb.
 */
int read_proc_file(const char *procfs, const char *name, size_t max, char **buf,
		   struct errbuf *eb);

#endif
