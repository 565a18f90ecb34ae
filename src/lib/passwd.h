/*
 * passwd: a user's name from a passwd(5) file, read directly.  The static
 * binary has no NSS (getpwuid would dlopen the host's NSS modules, which
 * must match the glibc it was linked with), so it names users from the
 * local accounts file; users known only to NSS (LDAP, sssd) stay numbers.
 */
#ifndef FAULTLINE_PASSWD_H
#define FAULTLINE_PASSWD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * passwd__name - the name of @uid in the passwd file @path
 * @buf, @n: the name, NUL-terminated, cut to fit
 *
 * The first "name:password:UID:..." line whose UID field is @uid, in
 * decimal, wins; lines without a name or a decimal UID (comments, NIS
 * "+" entries) are skipped.  Returns 0, -ENOENT when no line has @uid,
 * or -errno of reading the file.
 */
int passwd__name(const char *path, uid_t uid, char *buf, size_t n);

#endif
