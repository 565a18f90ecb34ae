/*
 * probe-line: dynamic-event command lines, built only from parts the
 * kernel's parser cannot misread (see probe-line.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trace/probe-line.h"

/* MAX_EVENT_NAME_LEN is 64 with the NUL. */
#define NAME_MAX_LEN 63

static bool is_name(const char *s, const char *more)
{
	size_t len = strlen(s);

	if (!len || len > NAME_MAX_LEN || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || (c && strchr(more, c))))
			return false;
	}
	return true;
}

bool probe_line__path_ok(const char *path)
{
	size_t len = strlen(path);

	if (path[0] != '/' || len > PROBE_LINE_PATH_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("/._+,@~=-", c)))
			return false;
	}
	return true;
}

/* Fetchargs: printable tokens, one space between them, no comment. */
static bool args_ok(const char *a)
{
	if (!a)
		return true;
	for (size_t i = 0; a[i]; i++) {
		unsigned char c = (unsigned char)a[i];

		if (c == ' ' ? (i == 0 || a[i + 1] == ' ' || !a[i + 1]) : (c < 0x21 || c > 0x7e || c == '#'))
			return false;
	}
	return true;
}

static int finish(char *buf, size_t n, int len, struct errbuf *eb)
{
	if (len < 0 || (size_t)len >= n || len > PROBE_LINE_MAX) {
		if (n)
			buf[0] = '\0';
		return errbuf__set(eb, -ENAMETOOLONG, "probe command of %d bytes is too long", len);
	}
	return 0;
}

static int check_names(const char *group, const char *event, const char *fetchargs,
		       struct errbuf *eb)
{
	if (!is_name(group, ""))
		return errbuf__set(eb, -EINVAL, "invalid probe group name");
	if (!is_name(event, ""))
		return errbuf__set(eb, -EINVAL, "invalid probe name");
	if (!args_ok(fetchargs))
		return errbuf__set(eb, -EINVAL, "invalid fetchargs of probe '%s'", event);
	return 0;
}

int probe_line__uprobe(char *buf, size_t n, const char *group, const char *event,
		       const char *path, uint64_t off, bool retprobe, const char *fetchargs,
		       struct errbuf *eb)
{
	int err = check_names(group, event, fetchargs, eb);

	if (n)
		buf[0] = '\0';
	if (err)
		return err;
	if (!probe_line__path_ok(path))
		return errbuf__set(eb, -EINVAL, "path of probe '%s' cannot stand in a probe command",
				   event);
	return finish(buf, n,
		      snprintf(buf, n, "%c:%s/%s %s:0x%016" PRIx64 "%s%s", retprobe ? 'r' : 'p', group,
			       event, path, off, fetchargs && *fetchargs ? " " : "",
			       fetchargs ? fetchargs : ""),
		      eb);
}

int probe_line__kprobe(char *buf, size_t n, const char *group, const char *event,
		       const char *func, bool retprobe, const char *fetchargs, struct errbuf *eb)
{
	int err = check_names(group, event, fetchargs, eb);

	if (n)
		buf[0] = '\0';
	if (err)
		return err;
	if (!is_name(func, "."))
		return errbuf__set(eb, -EINVAL, "invalid kernel function name for probe '%s'", event);
	return finish(buf, n,
		      snprintf(buf, n, "%c:%s/%s %s%s%s", retprobe ? 'r' : 'p', group, event, func,
			       fetchargs && *fetchargs ? " " : "", fetchargs ? fetchargs : ""),
		      eb);
}

bool probe_line__unhex(const char *args, char *out, size_t n)
{
	size_t len = args ? strlen(args) : 0;
	bool any = false;

	if (!n)
		return false;
	out[0] = '\0';
	if (len >= n)
		return false;
	memcpy(out, args ? args : "", len + 1);
	for (size_t i = 1; i + 1 < len; i++) {
		const char *w = out + i + 1;
		size_t d = strspn(w + 1, "0123456789");

		/* ":x" then the width, at the end of the token. */
		if (out[i] != ':' || *w != 'x' || !d || (w[1 + d] && w[1 + d] != ' '))
			continue;
		if (!(d == 1 && w[1] == '8') &&
		    !(d == 2 && (!memcmp(w + 1, "16", 2) || !memcmp(w + 1, "32", 2) ||
				 !memcmp(w + 1, "64", 2))))
			continue;
		out[i + 1] = 'u';
		any = true;
	}
	if (!any)
		out[0] = '\0';
	return any;
}

/*
 * error_log entries (tracing_log_err):
 *   [ 7106.666040] trace_uprobe: error: Invalid register name
 *     Command: p:g/e /bin/true:0x10 a=%zz:u64
 *                                   ^
 */

/* Where the entries of @log that @before did not hold begin. */
static const char *log_news(const char *before, const char *log)
{
	const char *last = NULL, *p, *hit = NULL;
	size_t blen, llen;

	if (!before || !*before)
		return log;
	blen = strlen(before);
	if (!strncmp(log, before, blen))
		return log + blen;	/* the ring was not full: appended */
	for (p = before; *p; p += strcspn(p, "\n"), p += *p == '\n')
		if (*p == '[')
			last = p;
	if (!last)
		return log;
	llen = strlen(last);
	for (p = log; (p = strstr(p, last)); p++)
		if (p == log || p[-1] == '\n')
			hit = p;
	return hit ? hit + llen : log;
}

bool probe_line__kernel_error(const char *before, const char *log, const char *cmd, char *msg,
			      size_t n)
{
	const char *head = NULL, *p;
	size_t clen = strlen(cmd);
	bool found = false;

	if (!log)
		return false;
	p = log_news(before, log);
	while (*p) {
		const char *eol = p + strcspn(p, "\n"), *c = p;

		if (*p == '[') {
			head = p;
		} else if (head) {
			while (*c == ' ')
				c++;
			if (!strncmp(c, "Command: ", 9) && (size_t)(eol - c - 9) == clen &&
			    !memcmp(c + 9, cmd, clen)) {
				size_t hlen = strcspn(head, "\n"), len;
				const char *m = memchr(head, ']', hlen);

				m = m ? m + 1 : head;
				while (*m == ' ')
					m++;
				len = strcspn(m, "\n");
				snprintf(msg, n, "%.*s", (int)len, m);
				found = true;
			}
			head = NULL;
		}
		p = *eol ? eol + 1 : eol;
	}
	return found;
}
