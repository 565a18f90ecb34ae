/*
 * passwd: uid to name from a passwd(5) file, without NSS.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "lib/passwd.h"

/* A passwd file larger than this is cut: 4 MiB is ~50,000 accounts. */
#define PASSWD_MAX (4u << 20)

/* The UID field from p (after "name:password:") to the next ':'; true
 * when it is decimal digits and equals uid. */
static bool uid_field_is(const char *p, const char *end, uid_t uid)
{
	unsigned long long v = 0;

	if (p == end)
		return false;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned int)(*p - '0');
		if (v > 0xffffffffull)
			return false;
	}
	return v == (unsigned long long)uid;
}

int passwd__name(const char *path, uid_t uid, char *buf, size_t n)
{
	char *text = NULL, *line, *next;
	int err;

	err = read_file(path, PASSWD_MAX, &text, NULL);
	if (err)
		return err;
	err = -ENOENT;
	for (line = text; line && *line; line = next) {
		char *nl = strchr(line, '\n');
		char *name_end, *pw_end, *uid_end;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		name_end = strchr(line, ':');
		if (!name_end || name_end == line || line[0] == '+' || line[0] == '-' ||
		    line[0] == '#')
			continue;
		pw_end = strchr(name_end + 1, ':');
		uid_end = pw_end ? strchr(pw_end + 1, ':') : NULL;
		if (!uid_end || !uid_field_is(pw_end + 1, uid_end, uid))
			continue;
		if (n)
			snprintf(buf, n, "%.*s", (int)(name_end - line), line);
		err = 0;
		break;
	}
	free(text);
	return err;
}
