/*
 * vocabulary: the meanings of the long option names several commands
 * declare (see vocabulary.h).  May call tool-opts (the shared rows).
 */
#include <string.h>

#include "cmd/tool-opts.h"
#include "cmd/vocabulary.h"

static const struct {
	const char *name, *meaning;
} words[] = {
	{ "before", "how far back the timeline reaches before each OOM kill, in seconds" },
	{ "cgroup", "a cgroup v2 group whose memory files are read too: a directory, or a path "
		    "below the cgroup2 mount" },
	{ "interval", "report per interval of SECS seconds" },
	{ "live", "a top-like screen of the stacks holding the most, redrawn each interval "
		  "(keys sort and scroll, q quits); the report follows" },
	{ "obj", "the allocator's library, when it is not the object the program's malloc "
		 "calls" },
	{ "pprof", "write a pprof profile (gzipped profile.proto) to FILE" },
	{ "probes", "the allocator's probe spec: a name in probes/ or a file" },
	{ "sample-rate", "trace one allocation in N (every large block is kept), the figures "
			 "scaled back" },
	{ "sort", "the order of the rows, by the key named" },
	{ "summary", "one summary per interval instead of each event" },
	{ "symbols-prefix", "the prefix of the allocator's symbols (je_ for some jemalloc "
			    "builds)" },
	{ "temporary-allocation-threshold", "an allocation is temporary when freed before N more "
					    "allocations were made (heaptrack's rule at 1, "
					    "memray's above)" },
	{ "top", "only the N top rows" },
	{ "verbose", "more detail in the report" },
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

/* The table's meaning of @name, or NULL. */
static const char *word(const char *name)
{
	for (size_t i = 0; i < NWORDS; i++)
		if (!strcmp(words[i].name, name))
			return words[i].meaning;
	return NULL;
}

int opt_vocabulary__listed(const char *name)
{
	return word(name) != NULL;
}

const char *opt_vocabulary__meaning(const char *name)
{
	const char *m = tool_shared__meaning(name);

	return m ? m : word(name);
}

void opt_vocabulary__list(FILE *f)
{
	tool_shared__list(f);
	for (size_t i = 0; i < NWORDS; i++)
		fprintf(f, "--%s\t%s\n", words[i].name, words[i].meaning);
}
