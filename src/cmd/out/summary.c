/*
 * summary: labelled summary lines (summary.h).  Calls lib/numfmt and the
 * C library only.
 */
#include <stdarg.h>

#include "cmd/out/summary.h"
#include "lib/numfmt.h"

void summary__line(FILE *f, const char *label, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "  %-*s ", SUMMARY_LABEL_WIDTH, label);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

void summary__count(FILE *f, const char *label, uint64_t v, const char *words)
{
	char b[NUMFMT_LEN];

	summary__line(f, label, "%s%s%s", numfmt__count(b, sizeof(b), v), *words ? " " : "",
		      words);
}
