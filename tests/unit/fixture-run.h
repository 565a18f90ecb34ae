/*
 * fixture-run.h: the unit tests that build their fixture binaries with the
 * system's own tools (cc, objcopy, nm, xz) run them through this one
 * helper, which says which command failed.
 */
#ifndef FAULTLINE_FIXTURE_RUN_H
#define FAULTLINE_FIXTURE_RUN_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Run a shell command built printf-style; its exit status (0 = success). */
static int fixture_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fixture_run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

#endif
