/*
 * precursors: the rendering of a kill's precursor rows, for oom
 * --timeline and report timeline.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cmd/out/precursors.h"

static double col_value(const struct mem_row *r, enum mem_col c)
{
	if (c == MC_PSI_SOME_US || c == MC_PSI_FULL_US || c == MC_CG_SOME_US || c == MC_CG_FULL_US)
		return (double)r->v[c] / 1e3;
	if (c == MC_DIRECT_NS || c == MC_MEMCG_NS)
		return (double)r->v[c] / 1e6;
	if (c == MC_MEMAVAIL_KB)
		return (double)r->v[c] / 1024.0;
	return (double)r->v[c];
}

void precursors__json(const struct mem_row *rows, size_t n, uint64_t kill_ns, double before_s)
{
	enum mem_col first = MC__COUNT;
	size_t at = 0;

	printf("\"before_s\":%g,\"first\":", before_s);
	if (mem_rows__departure(rows, n, &first, &at))
		printf("{\"indicator\":\"%s\",\"secs_before\":%.3f}", mem_col__name(first),
		       ((double)kill_ns - (double)rows[at].time_ns) / 1e9);
	else
		printf("null");
	printf(",\"rows\":[");
	for (size_t i = 0; i < n; i++) {
		printf("%s{\"t\":%.3f,\"secs\":%.3f", i ? "," : "",
		       ((double)rows[i].time_ns - (double)kill_ns) / 1e9,
		       (double)rows[i].len_ns / 1e9);
		for (int c = 0; c < MC__COUNT; c++)
			if (rows[i].have[c])
				printf(",\"%s\":%" PRIu64, mem_col__name(c), rows[i].v[c]);
		printf("}");
	}
	printf("]");
}

void precursors__text(const struct mem_row *rows, size_t n, uint64_t kill_ns, double before_s)
{
	enum mem_col first = MC__COUNT;
	size_t at = 0;

	printf("  precursors, the %g s before the kill (t: seconds from it):\n    %7s", before_s,
	       "T(s)");
	for (int c = 0; c < MC__COUNT; c++)
		if (n && rows[n - 1].have[c])
			printf(" %8s", mem_col__header(c));
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		printf("    %+7.2f", ((double)rows[i].time_ns - (double)kill_ns) / 1e9);
		for (int c = 0; c < MC__COUNT; c++) {
			if (!rows[n - 1].have[c])
				continue;
			if (rows[i].have[c])
				printf(" %8.1f", col_value(&rows[i], c));
			else
				printf(" %8s", "-");
		}
		printf("\n");
	}
	if (mem_rows__departure(rows, n, &first, &at))
		printf("  left its baseline first: %s, %.1f s before the kill\n", mem_col__name(first),
		       ((double)kill_ns - (double)rows[at].time_ns) / 1e9);
	else if (n > MEM_SERIES_BASELINE)
		printf("  no indicator left its baseline (the first %d rows)\n", MEM_SERIES_BASELINE);
	else
		printf("  no indicator left its baseline: too few rows to tell (%zu; the baseline is "
		       "the first %d)\n", n, MEM_SERIES_BASELINE);
}
