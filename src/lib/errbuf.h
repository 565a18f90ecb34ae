/*
 * errbuf: where a module puts the detail of a failure.
 *
 * Modules return 0 or -errno and never print; when they have more to say
 * than the errno (which file, which symbol, the kernel's error_log line)
 * they write one lowercase sentence, no full stop, into the caller's
 * errbuf.  Commands print it.  A NULL errbuf is allowed everywhere and
 * simply drops the detail.
 */
#ifndef FAULTLINE_ERRBUF_H
#define FAULTLINE_ERRBUF_H

#include <stddef.h>

struct errbuf {
	char msg[1024];
};

/* Set the message (printf-style).  Returns -err so callers can write
 * "return errbuf__set(eb, -ENOENT, ...)" without hiding the return. */
int errbuf__set(struct errbuf *eb, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Message, or strerror(-err) when no module set one. */
const char *errbuf__str(const struct errbuf *eb, int err);

void errbuf__clear(struct errbuf *eb);

#endif
