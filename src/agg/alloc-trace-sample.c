/*
 * alloc-trace-sample: -s N for the allocation tracer (alloc-trace-int.h):
 * whether the kernel samples (its filters read the block's header and
 * address bits) or the tracer does, every event written, and why; the
 * probes the kernel's filter reads; a recording sampled in the kernel,
 * replayed at its rate; what alloc_trace__sampling() says.
 *
 * May call: agg/alloc-sample, trace/probe-spec and session, lib/.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "agg/alloc-sample.h"
#include "agg/alloc-trace-int.h"
#include "trace/probe-spec.h"
#include "trace/session.h"

/* alloc_trace__sampling()'s text: in the kernel (@why NULL), or here and why. */
void at__describe_sampling(struct alloc_trace *at, const char *why)
{
	if (!why)
		snprintf(at->sampling, sizeof(at->sampling),
			 "in the kernel: every block of %d bytes or more (its usable size, from "
			 "glibc's chunk header) and 1 smaller block in %" PRIu64 " (address bits 7-%u "
			 "all set), by the return and free probes' filters", ALLOC_SAMPLE_WHOLE,
			 at->sample.rate, 6 + (unsigned int)__builtin_ctzll(at->sample.rate));
	else
		snprintf(at->sampling, sizeof(at->sampling),
			 "in user space: every block of %d bytes or more and 1 smaller block in %" PRIu64
			 " (by a hash of its address), every event still written: %s",
			 ALLOC_SAMPLE_WHOLE, at->sample.rate, why);
}

/*
 * -s N in the kernel for this object's probes?  The first object decides
 * for the run (at->sample.by, and what alloc_trace__sampling() says); an
 * allocator probed later is sampled the same way when its spec can be.
 */
bool at__sample_here(struct alloc_trace *at, const struct probe_set *set, const char *obj)
{
	bool header = probe_set__block_size(set) == PROBE_BLOCK_SIZE_GLIBC_CHUNK;
	const char *why = NULL;

	if (obj)
		return ksampled(at) && header;
	if (ksampled(at)) {
		/* A recording sampled in the kernel: its events are the
		 * sampled probes' (at__recorded_sample() took the rule). */
		at__describe_sampling(at, NULL);
		return true;
	}
	if (at->sample.rate <= 1)
		return false;
	if (!session__uprobe_filters_in_kernel(at->s))
		why = session__replaying(at->s) ? "replayed from a recording of every event" :
		      "the uprobe PMU has no fetchargs and runs no filter in the kernel";
	else if (!header)
		why = "this allocator's blocks have no size header a kernel filter can read "
		      "(glibc's only: the probe spec's block-size)";
	else if (!alloc_sample__bits_ok(at->sample.rate))
		why = "N is not a power of two (the kernel's filter picks by address bits)";
	if (why) {
		at__describe_sampling(at, why);
		return false;
	}
	at->sample.by = ALLOC_SAMPLE_BITS;
	at__describe_sampling(at, NULL);
	if (session__recording(at->s)) {
		char v[24];

		snprintf(v, sizeof(v), "%" PRIu64, at->sample.rate);
		session__record_meta(at->s, SAMPLE_META, v);
	}
	return true;
}

/* The kernel refused the sampled probe: back to sampling here. */
void at__sample_refused(struct alloc_trace *at, const struct errbuf *eb)
{
	char why[300];

	at->sample.by = ALLOC_SAMPLE_HASH;
	snprintf(why, sizeof(why), "the kernel refused the filter's probe (%.200s)",
		 eb && eb->msg[0] ? eb->msg : "?");
	at__describe_sampling(at, why);
}

/* @spec with the fetchargs the kernel's sampling filter reads (the
 * header word and the picking bits of the address it returns or takes). */
int at__sample_spec(struct alloc_trace *at, const struct probe_spec *spec, int kind,
		    struct probe_spec *out, char *buf, size_t n, struct errbuf *eb)
{
	char value[64], extra[160];
	int w;

	if (probe_spec__fetcharg(spec, kind == KIND_RETURN ? "ret" : "ptr", value, sizeof(value)) ||
	    alloc_sample__fetchargs(&at->sample, value, extra, sizeof(extra)))
		return errbuf__set(eb, -EINVAL, "probe '%s' gives no address a filter can read",
				   spec->name);
	w = snprintf(buf, n, "%s%s%s", spec->fetchargs, spec->fetchargs[0] ? " " : "", extra);
	if (w < 0 || (size_t)w >= n)
		return errbuf__set(eb, -ENOSPC, "probe '%s': fetchargs too long", spec->name);
	*out = *spec;
	out->fetchargs = buf;
	return 0;
}

/* A replay of a recording sampled in the kernel at @rate: only a tool
 * that weighs sampled blocks (leak, heap: opts.sample_rate given) can
 * read it, at that rate. */
int at__recorded_sample(struct alloc_trace *at, const char *rate, struct errbuf *eb)
{
	char *end;
	unsigned long long n = strtoull(rate, &end, 10);

	if (*end || !alloc_sample__bits_ok(n))
		return errbuf__set(eb, -EINVAL, "the recording's allocation sampling '%.20s' is not "
				   "a rate this faultline knows", rate);
	if (!at->o.sample_rate)
		return errbuf__set(eb, -EINVAL, "its allocations were recorded sampled (record -s %llu): "
				   "only 'report leak' and 'report heap' read them", n);
	if (at->o.sample_rate > 1 && at->o.sample_rate != n)
		return errbuf__set(eb, -EINVAL, "its allocations were recorded sampled at -s %llu: "
				   "not -s %" PRIu64, n, at->o.sample_rate);
	at->sample = (struct alloc_sample){ .rate = n, .by = ALLOC_SAMPLE_BITS };
	return 0;
}

