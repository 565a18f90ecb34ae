/*
 * safeout: an output file made safely.  See safeout.h.
 *
 * Found as root with fs.protected_symlinks=0: a symlink another user left
 * in a world-writable directory made `record -o` overwrite its target; an
 * existing file kept its 0644; the file was truncated before tracing
 * started, so a run that then failed left a 20-byte header where the old
 * recording was; two records to one path both exited 0, one lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"
#include "lib/newsys.h"
#include "lib/passwd.h"
#include "lib/safeout.h"

struct safe_out {
	char *path, *tmp, *lock;
	int lock_fd;
	bool committed;
};

/* DIR/.NAME.SUFFIX for DIR/NAME (NAME: the part after the last '/'). */
static char *sibling(const char *path, const char *suffix)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	char *s = NULL;

	if (asprintf(&s, "%.*s.%s.%s", (int)dir, path, path + dir, suffix) < 0)
		return NULL;
	return s;
}

/*
 * A lock that another user left: refused, never used.  In a directory
 * others can write, anyone can make DIR/.NAME.lock before root's record:
 * a symlink (followed, root would create or truncate its target), a FIFO
 * (an open that blocks), or a file they keep flock()ed to make root's
 * record fail as if another faultline wrote FILE.  perf and rpm refuse
 * files they did not make; so does this, naming the file and its owner.
 */
static int lock_refused(const struct safe_out *so, const struct stat *st, struct errbuf *eb)
{
	char name[64];
	const char *what = S_ISLNK(st->st_mode) ? "a symbolic link" :
			   S_ISREG(st->st_mode) ? "a file" : "not a regular file";

	if (passwd__name("/etc/passwd", st->st_uid, name, sizeof(name)))
		snprintf(name, sizeof(name), "uid %u", (unsigned int)st->st_uid);
	if (S_ISREG(st->st_mode))
		return errbuf__set(eb, -EPERM, "the lock '%s' is a file of %s, not of this user: "
				   "not using it (remove it if no faultline of theirs is writing "
				   "'%s')", so->lock, name, so->path);
	return errbuf__set(eb, -EPERM, "the lock '%s' is %s (of %s): not using it", so->lock,
			   what, name);
}

/* Open @so->lock: made now (O_EXCL), or the one there when it is a
 * regular file of this user (a holder's, or one a killed faultline
 * left), checked by lstat before the open and fstat after: never
 * through a symlink, never a FIFO's open that blocks, never another
 * user's.  -EAGAIN: it went away meanwhile, try again. */
static int open_lock(const struct safe_out *so, struct stat *fst, struct errbuf *eb)
{
	struct stat lst;
	int fd = open(so->lock, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		      0600);

	if (fd < 0 && errno == EEXIST) {
		if (lstat(so->lock, &lst))
			return errno == ENOENT ? -EAGAIN : errbuf__set(eb, -errno,
				"cannot stat the lock '%s': %s", so->lock, strerror(errno));
		if (!S_ISREG(lst.st_mode) || lst.st_uid != geteuid())
			return lock_refused(so, &lst, eb);
		fd = open(so->lock, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			return -EAGAIN;
	}
	if (fd < 0)
		return errbuf__set(eb, -errno, "cannot create the lock '%s': %s", so->lock,
				   strerror(errno));
	if (fstat(fd, fst)) {
		int err = errno;

		close(fd);
		return errbuf__set(eb, -err, "cannot stat the lock '%s': %s", so->lock,
				   strerror(err));
	}
	if (!S_ISREG(fst->st_mode) || fst->st_uid != geteuid()) {
		close(fd);	/* swapped after the lstat */
		return lock_refused(so, fst, eb);
	}
	return fd;
}

/* Take @so->lock: open_lock()'s, flock()ed, and still the file at that
 * name once locked (a holder that just ended unlinks it). */
static int take_lock(struct safe_out *so, struct errbuf *eb)
{
	struct stat fst, pst;

	for (int tries = 0; tries < 8; tries++) {
		int fd = open_lock(so, &fst, eb);

		if (fd == -EAGAIN)
			continue;
		if (fd < 0)
			return fd;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int err = errno;

			close(fd);
			if (err == EWOULDBLOCK)
				return errbuf__set(eb, -EBUSY, "'%s' is being written by another "
						   "faultline (it holds '%s')", so->path, so->lock);
			return errbuf__set(eb, -err, "cannot lock '%s': %s", so->lock,
					   strerror(err));
		}
		if (!lstat(so->lock, &pst) && pst.st_dev == fst.st_dev && pst.st_ino == fst.st_ino) {
			so->lock_fd = fd;
			return 0;
		}
		close(fd);	/* unlinked by its last holder meanwhile: again */
	}
	return errbuf__set(eb, -EBUSY, "cannot take the lock '%s'", so->lock);
}

/* The temporary: a new name each try, created exclusively. */
static int make_tmp(struct safe_out *so, mode_t mode, bool exact, int *fd, struct errbuf *eb)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned char r[6];
		char suffix[16];
		int err = newsys__random(r, sizeof(r));

		if (err)
			return errbuf__set(eb, err, "no random bytes for a temporary name: %s",
					   strerror(-err));
		snprintf(suffix, sizeof(suffix), "%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3],
			 r[4], r[5]);
		free(so->tmp);
		so->tmp = sibling(so->path, suffix);
		if (!so->tmp)
			return -ENOMEM;
		*fd = open(so->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (*fd >= 0) {
			/* The umask does not narrow a recording's mode. */
			if (!exact || fchmod(*fd, mode) == 0)
				return 0;
			err = errno;
			close(*fd);
			*fd = -1;
			unlink(so->tmp);
			return errbuf__set(eb, -err, "cannot set the mode of '%s': %s", so->tmp,
					   strerror(err));
		}
		if (errno != EEXIST)
			return errbuf__set(eb, -errno, "cannot create '%s': %s", so->tmp,
					   strerror(errno));
	}
	return errbuf__set(eb, -EEXIST, "cannot create a temporary next to '%s'", so->path);
}

/* open_inode()'s check: the inode is the device or FIFO lstat() saw. */
static int same_special(const struct stat *now, const void *ctx)
{
	const struct stat *st = ctx;

	return now->st_dev == st->st_dev && now->st_ino == st->st_ino &&
	       (now->st_mode & S_IFMT) == (st->st_mode & S_IFMT) ? 0 : -ESTALE;
}

/*
 * The device or FIFO that lstat() found at @path (@st), opened for
 * writing, and only it: between the lstat and an open of the path,
 * whoever can write the directory could put a regular file of someone's
 * there (root would write over its start, no O_TRUNC), a symlink, or
 * another device (whose open alone may act).  So it is open_inode()'s,
 * O_NOFOLLOW, checked to be lstat's inode, O_NONBLOCK; a FIFO without a
 * reader yet (ENXIO) is waited on as open(2) does, on that same inode;
 * then O_NONBLOCK is cleared: writes to a full pipe wait.
 */
static int open_special(const char *path, const struct stat *st, int *fd, struct errbuf *eb)
{
	int fl;

	*fd = open_inode(path, O_NOFOLLOW, O_WRONLY | O_NONBLOCK, same_special, st);
	if (*fd == -ENXIO && S_ISFIFO(st->st_mode))	/* no reader yet: wait for one */
		*fd = open_inode(path, O_NOFOLLOW, O_WRONLY, same_special, st);
	if (*fd == -ESTALE)
		return errbuf__set(eb, -ESTALE, "'%s' was replaced while it was opened: not "
				   "writing it", path);
	if (*fd < 0)
		return errbuf__set(eb, *fd, "cannot open '%s': %s", path, strerror(-*fd));
	if ((fl = fcntl(*fd, F_GETFL)) < 0 || fcntl(*fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int err = -errno;

		close(*fd);
		*fd = -1;
		return errbuf__set(eb, err, "cannot open '%s': %s", path, strerror(-err));
	}
	return 0;
}

int safe_out__open(const char *path, mode_t mode, unsigned int flags, struct safe_out **out, int *fd,
		   struct errbuf *eb)
{
	struct safe_out *so = calloc(1, sizeof(*so));
	struct stat st;
	int err;

	*out = NULL;
	*fd = -1;
	if (!so)
		return -ENOMEM;
	so->lock_fd = -1;
	so->path = strdup(path);
	so->lock = sibling(path, "lock");
	if (!so->path || !so->lock) {
		err = -ENOMEM;
		goto fail;
	}
	/* A device or a FIFO (/dev/null, a reader's pipe) is written as it
	 * is: never replaced by a file. */
	if (!lstat(path, &st) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		err = open_special(path, &st, fd, eb);
		if (err)
			goto fail;
		so->committed = true;
		*out = so;
		return 0;
	}
	err = take_lock(so, eb);
	if (!err)
		err = make_tmp(so, mode, flags & SAFE_OUT_EXACT_MODE, fd, eb);
	if (err)
		goto fail;
	*out = so;
	return 0;
fail:
	safe_out__free(so);
	return err;
}

int safe_out__adopt(int src, struct safe_out **out, int *fd)
{
	struct safe_out *so = calloc(1, sizeof(*so));

	*out = NULL;
	*fd = -1;
	if (!so)
		return -ENOMEM;
	so->lock_fd = -1;
	so->committed = true;
	*fd = fcntl(src, F_DUPFD_CLOEXEC, 3);
	if (*fd < 0) {
		int err = -errno;

		free(so);
		return err;
	}
	*out = so;
	return 0;
}

int safe_out__commit(struct safe_out *so, struct errbuf *eb)
{
	if (so->committed)
		return 0;
	if (rename(so->tmp, so->path))
		return errbuf__set(eb, -errno, "cannot rename '%s' to '%s': %s", so->tmp, so->path,
				   strerror(errno));
	so->committed = true;
	return 0;
}

void safe_out__free(struct safe_out *so)
{
	if (!so)
		return;
	if (so->tmp && !so->committed)
		unlink(so->tmp);
	if (so->lock_fd >= 0) {
		unlink(so->lock);	/* while held: the next holder checks the name */
		close(so->lock_fd);
	}
	free(so->path);
	free(so->tmp);
	free(so->lock);
	free(so);
}
