/*
 * lost: a loss warning with its remedy (lost.h).  Events are lost when a
 * ring buffer fills faster than the reader empties it: a bigger ring
 * (-m) holds a longer burst, a frame-pointer call graph makes each sample
 * ~8 KiB smaller (no copied stack), and sampling (leak -s) takes fewer.
 * A target faultline paused instead of losing events (back-pressure) is
 * said too, as the reason its run took longer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/out/lost.h"
#include "cmd/tool.h"
#include "cmd/tool-opts.h"
#include "lib/numfmt.h"
#include "trace/session.h"

/* Rings four times as big: a loss is a burst the ring was short of, by
 * an unknown factor; one step of four asks fewer reruns than a doubling. */
#define GROW 4

const char *lost__remedy(const struct session *s, const char *tool, char *buf, size_t n)
{
	const struct command *c = commands__find(tool);
	bool replay = session__replaying(s);
	unsigned int pages = session__mmap_pages(s);
	const char *opts[4];
	char m[96];
	size_t k = 0, len;

	if (!pages)
		snprintf(m, sizeof(m), "a bigger -m (ring buffer pages a CPU)");
	else if (pages < TOOL_MAX_MMAP_PAGES)
		snprintf(m, sizeof(m), "-m %u (the rings had %u page%s a CPU)",
			 pages <= TOOL_MAX_MMAP_PAGES / GROW ? pages * GROW : TOOL_MAX_MMAP_PAGES, pages,
			 pages == 1 ? "" : "s");
	else
		m[0] = '\0';
	/* Back-pressure first: it loses nothing and changes no figure. */
	if (session__pause_declined(s))
		opts[k++] = session__is_cmd(s) ? "back-pressure (no --no-pause: the command paused "
			    "instead)" : "--pause (the process paused instead)";
	if (m[0])
		opts[k++] = m;
	if (session__dwarf(s) && session__user_stacks(s))
		opts[k++] = "--call-graph fp (no stack copy in each sample)";
	if (!replay && c && (command__flags(c) & TOOL_SAMPLES))
		opts[k++] = "-s 10 (one small block in 10)";
	if (!k) {
		snprintf(buf, n, "the rings are at their largest: trace less at once (-p PID, "
			 "fewer tools)");
		return buf;
	}
	len = (size_t)snprintf(buf, n, "to lose none, %s with ", replay ? "record again" :
			       "run again");
	for (size_t i = 0; i < k && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i == 0 ? "" :
					i == k - 1 ? " or " : ", ", opts[i]);
	return buf;
}

const char *lost__paused(const struct session *s, char *buf, size_t n)
{
	uint64_t ns, times = session__pauses(s, &ns);
	double ms = (double)ns / 1e6;
	char t[NUMFMT_LEN], m[NUMFMT_LEN];

	if (!times)
		return NULL;
	/* Under 10 ms with a decimal; above, whole milliseconds (printf's
	 * rounding) with separators as every count of faultline's own text
	 * (numfmt). */
	snprintf(m, sizeof(m), "%.*f", ms < 10 ? 1 : 0, ms);
	if (ms >= 10)
		numfmt__count(m, sizeof(m), strtoull(m, NULL, 10));
	snprintf(buf, n, "the target was paused %s time%s, %s ms in all, %s",
		 numfmt__count(t, sizeof(t), times), times == 1 ? "" : "s", m,
		 session__lost(s) ? "and events were still lost" : "so that no event was lost");
	return buf;
}

void lost__warn(const struct session *s, const char *tool, uint64_t lost, const char *what)
{
	char remedy[512], n[NUMFMT_LEN];

	fflush(stdout);
	fprintf(stderr, "faultline %s: warning: lost %s event%s: %s; %s\n", tool,
		numfmt__count(n, sizeof(n), lost), lost == 1 ? "" : "s", what ? what : "the counts are low",
		lost__remedy(s, tool, remedy, sizeof(remedy)));
}
