/*
 * summary: the labelled lines a tool's text report ends with (issue 28:
 * "long summary lines broken into labelled lines"), one figure a line,
 * the figure in one column:
 *
 *   reclaim summary:
 *     direct:        12 reclaims, 3,071 pages
 *     lost events:   0
 *
 * Counts with thousands separators (lib/numfmt); a script strips the
 * commas.  JSON reports keep their own summary objects and raw integers.
 */
#ifndef FAULTLINE_SUMMARY_H
#define FAULTLINE_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

/* The width of the label column, colon included: "THP collapses:". */
#define SUMMARY_LABEL_WIDTH 14

/*
 * summary__line() - "  LABEL  TEXT" on @f: @label padded to the label
 * column, then @fmt's text, then a newline.
 */
void summary__line(FILE *f, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * summary__count() - "  LABEL  1,234 WORDS": @v with thousands separators,
 * then @words when not empty.
 */
void summary__count(FILE *f, const char *label, uint64_t v, const char *words);

#endif
