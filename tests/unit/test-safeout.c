/*
 * test-safeout: lib/safeout in a directory of its own.  The temporary is a
 * new regular file of the mode asked for beside the path, the path is
 * untouched until the commit, a symlink at the path is replaced (its
 * target unchanged), a second open of the same path while the first holds
 * it is -EBUSY, a failed run (free without commit) leaves the old file and
 * nothing else, and a lock file nobody holds is taken over; a lock that
 * is a symlink, a FIFO or another user's file is refused (-EPERM), its
 * name and owner said, and left as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "check.h"
#include "lib/safeout.h"

static char dir[] = "/tmp/test-safeout-XXXXXX";

static void put(const char *name, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void get(const char *name, char *buf, size_t n)
{
	char p[256];
	FILE *f;
	size_t k = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	buf[0] = '\0';
	f = fopen(p, "r");
	if (f) {
		k = fread(buf, 1, n - 1, f);
		fclose(f);
	}
	buf[k] = '\0';
}

/* The directory's names, sorted, space-separated. */
static void names(char *buf, size_t n)
{
	struct dirent **ents = NULL;
	int k = scandir(dir, &ents, NULL, alphasort);

	buf[0] = '\0';
	for (int i = 0; i < k; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
			snprintf(buf + strlen(buf), n - strlen(buf), "%s ", ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
}

int main(void)
{
	struct errbuf eb = { "" };
	struct safe_out *so = NULL, *so2 = NULL;
	char path[256], buf[256], lockpath[256];
	struct stat st;
	int fd = -1, fd2 = -1;

	if (!mkdtemp(dir))
		return 99;
	snprintf(path, sizeof(path), "%s/out.rec", dir);
	snprintf(lockpath, sizeof(lockpath), "%s/.out.rec.lock", dir);

	/* A symlink at the path, to someone's file. */
	put("target", "secret");
	snprintf(buf, sizeof(buf), "%s/target", dir);
	CHECK(symlink(buf, path) == 0);
	CHECK_EQ_U64(safe_out__open(path, 0600, SAFE_OUT_EXACT_MODE, &so, &fd, &eb), 0);
	CHECK(fd >= 0);
	CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600);
	CHECK(write(fd, "new", 3) == 3);
	/* Held: a second writer of the same path is refused, said why. */
	CHECK(safe_out__open(path, 0600, SAFE_OUT_EXACT_MODE, &so2, &fd2, &eb) == -EBUSY);
	CHECK(so2 == NULL && fd2 == -1);
	CHECK(strstr(eb.msg, "being written by another faultline") != NULL);
	CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));	/* not yet */
	CHECK_EQ_U64(safe_out__commit(so, &eb), 0);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600);
	close(fd);
	safe_out__free(so);
	get("out.rec", buf, sizeof(buf));
	CHECK_STR(buf, "new");
	get("target", buf, sizeof(buf));
	CHECK_STR(buf, "secret");
	names(buf, sizeof(buf));
	CHECK_STR(buf, "out.rec target ");

	/* A run that fails before it commits: the old file stays, alone. */
	CHECK_EQ_U64(safe_out__open(path, 0600, SAFE_OUT_EXACT_MODE, &so, &fd, &eb), 0);
	CHECK(write(fd, "partial", 7) == 7);
	close(fd);
	safe_out__free(so);
	get("out.rec", buf, sizeof(buf));
	CHECK_STR(buf, "new");
	names(buf, sizeof(buf));
	CHECK_STR(buf, "out.rec target ");

	/* A lock that nobody holds (a SIGKILLed writer's) is taken over. */
	put(".out.rec.lock", "");
	CHECK_EQ_U64(safe_out__open(path, 0600, SAFE_OUT_EXACT_MODE, &so, &fd, &eb), 0);
	CHECK_EQ_U64(safe_out__commit(so, &eb), 0);
	close(fd);
	safe_out__free(so);
	names(buf, sizeof(buf));
	CHECK_STR(buf, "out.rec target ");

	/* A lock that is not this user's regular file: refused, named, and
	 * left as it was (a symlink's target neither created nor written). */
	snprintf(buf, sizeof(buf), "%s/victim", dir);
	CHECK(symlink(buf, lockpath) == 0);
	CHECK(safe_out__open(path, 0600, SAFE_OUT_EXACT_MODE, &so, &fd, &eb) == -EPERM);
	CHECK(so == NULL && fd == -1);
	CHECK(strstr(eb.msg, "is a symbolic link (of ") != NULL);
	CHECK(strstr(eb.msg, lockpath) != NULL);
	CHECK(access(buf, F_OK) != 0);
	CHECK(unlink(lockpath) == 0);
	CHECK(mkfifo(lockpath, 0600) == 0);
	CHECK(safe_out__open(path, 0600, SAFE_OUT_EXACT_MODE, &so, &fd, &eb) == -EPERM);
	CHECK(strstr(eb.msg, "is not a regular file (of ") != NULL);
	CHECK(unlink(lockpath) == 0);
	if (geteuid() == 0) {	/* another user's file: root can make one */
		put(".out.rec.lock", "");
		CHECK(chown(lockpath, 65534, 65534) == 0);
		CHECK(safe_out__open(path, 0600, SAFE_OUT_EXACT_MODE, &so, &fd, &eb) == -EPERM);
		CHECK(strstr(eb.msg, "is a file of ") != NULL);
		CHECK(strstr(eb.msg, "not of this user: not using it") != NULL);
		CHECK(lstat(lockpath, &st) == 0 && st.st_uid == 65534);
		CHECK(unlink(lockpath) == 0);
	}
	names(buf, sizeof(buf));
	CHECK_STR(buf, "out.rec target ");

	/* The umask: ignored with SAFE_OUT_EXACT_MODE, applied without
	 * (a report's 0666 under umask 027 is 0640), and left as it was. */
	{
		mode_t old = umask(027);

		CHECK_EQ_U64(safe_out__open(path, 0600, SAFE_OUT_EXACT_MODE, &so, &fd, &eb), 0);
		CHECK(fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0600);
		close(fd);
		safe_out__free(so);
		CHECK_EQ_U64(safe_out__open(path, 0666, 0, &so, &fd, &eb), 0);
		CHECK(fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0640);
		CHECK_EQ_U64(safe_out__commit(so, &eb), 0);
		close(fd);
		safe_out__free(so);
		CHECK(lstat(path, &st) == 0 && (st.st_mode & 07777) == 0640);
		CHECK(umask(old) == 027);
	}

	/* A device is written as it is, not replaced by a file. */
	CHECK_EQ_U64(safe_out__open("/dev/null", 0600, SAFE_OUT_EXACT_MODE, &so, &fd, &eb), 0);
	CHECK(write(fd, "x", 1) == 1);
	CHECK_EQ_U64(safe_out__commit(so, &eb), 0);
	close(fd);
	safe_out__free(so);
	CHECK(lstat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));

	/* No directory: the open's errno, said. */
	snprintf(buf, sizeof(buf), "%s/no/such.rec", dir);
	CHECK(safe_out__open(buf, 0600, SAFE_OUT_EXACT_MODE, &so, &fd, &eb) == -ENOENT);
	CHECK(strstr(eb.msg, "cannot create") != NULL);
	safe_out__free(NULL);

	snprintf(buf, sizeof(buf), "%s/out.rec", dir);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s/target", dir);
	unlink(buf);
	rmdir(dir);
	return check_done("test-safeout");
}
