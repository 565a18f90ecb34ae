/*
 * errbuf: the detail of a failure, written by modules and printed by commands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/errbuf.h"

int errbuf__set(struct errbuf *eb, int err, const char *fmt, ...)
{
	va_list ap;

	if (eb) {
		va_start(ap, fmt);
		vsnprintf(eb->msg, sizeof(eb->msg), fmt, ap);
		va_end(ap);
	}
	return err;
}

const char *errbuf__str(const struct errbuf *eb, int err)
{
	if (eb && eb->msg[0])
		return eb->msg;
	return strerror(err < 0 ? -err : err);
}

void errbuf__clear(struct errbuf *eb)
{
	if (eb)
		eb->msg[0] = '\0';
}
