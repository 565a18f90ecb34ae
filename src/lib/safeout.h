/*
 * safeout: an output file made safely, for a tool that runs as root and
 * writes where a user said (faultline record -o FILE).
 *
 * The bytes go to a new temporary file in FILE's directory (".NAME.XXXXXX",
 * O_CREAT | O_EXCL | O_NOFOLLOW, the mode asked for), which is renamed over
 * FILE only when the caller commits: a symlink or a file that another user
 * left at FILE or at the temporary's name is never followed, written or
 * chmod-ed (rename replaces the directory entry itself), the result has the
 * mode asked for whatever FILE had, and a run that fails before it commits
 * leaves the old FILE as it was.  For the whole run, FILE's lock
 * (".NAME.lock" in the same directory, flock(2)ed, removed at the end) is
 * held: a second writer of the same FILE at once is refused (-EBUSY).
 * A lock there that is not a regular file of this user (another user's
 * file, made before ours in a directory anyone can write, a symlink, a
 * FIFO) is refused (-EPERM, the message names it and its owner) and left
 * as it is: never followed, opened as a FIFO, or taken for a writer's.
 * A FILE that is a character device or a FIFO (/dev/null, a reader's
 * pipe) is opened and written as it is, never replaced: only the inode
 * that lstat() found there (lib/file's open_inode(): O_PATH | O_NOFOLLOW,
 * fstat()ed, then that inode opened through /proc/self/fd, O_NONBLOCK, a
 * FIFO waited on for its reader), never what another user swapped in
 * meanwhile.
 */
#ifndef FAULTLINE_SAFEOUT_H
#define FAULTLINE_SAFEOUT_H

#include <sys/types.h>

#include "lib/errbuf.h"

struct safe_out;

/*
 * safe_out__open() - lock @path and create its temporary
 * @path: the file to make in the end
 * @mode: the new file's mode (0600 for a recording), exactly that with
 *        SAFE_OUT_EXACT_MODE in @flags, narrowed by the umask otherwise
 *        (open(2)'s own doing: no umask(2) round trip, which is process
 *        state another thread could see changed)
 * @flags: SAFE_OUT_EXACT_MODE or 0
 * @out:  out; finish with safe_out__free()
 * @fd:   out: the temporary, open for writing (O_CLOEXEC); the caller's to
 *        close (before safe_out__free(), so that close(2)'s errors are its)
 * @eb:   detail of a failure
 *
 * Return: 0; -EBUSY when another process holds @path's lock; -EPERM when
 * the lock is not this user's regular file; -ESTALE when the device or
 * FIFO at @path was replaced between its lstat() and its open; -errno of
 * open(2) (detail in @eb); -ENOMEM.
 */
#define SAFE_OUT_EXACT_MODE (1u << 0)
int safe_out__open(const char *path, mode_t mode, unsigned int flags, struct safe_out **out,
		   int *fd, struct errbuf *eb);
/*
 * safe_out__adopt() - the same for a descriptor the caller opened itself
 * (`record -o -`: stdout): nothing to lock, create or rename; *@fd is a
 * duplicate of @src (O_CLOEXEC), the caller's to close as above.
 *
 * Return: 0; -errno of fcntl(2); -ENOMEM.
 */
int safe_out__adopt(int src, struct safe_out **out, int *fd);
/* Rename the temporary over the file: from now on it is the file (its
 * descriptor still writes to it).  Once only; 0 or -errno of rename(2),
 * in @eb. */
int safe_out__commit(struct safe_out *so, struct errbuf *eb);
/* Remove the temporary when it was not committed; release and remove the
 * lock.  NULL is fine. */
void safe_out__free(struct safe_out *so);

#endif
