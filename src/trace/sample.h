/*
 * sample: bounds-checked decoding of PERF_RECORD_* records.
 *
 * Every field read is checked against the record's size (as perf's
 * evsel__parse_sample does): a short or inconsistent record yields -EINVAL,
 * never a read past its end.  Decoded views point into the record and live
 * only as long as it does (the ring callback).
 *
 * Conventions: every event faultline opens has PERF_SAMPLE_IDENTIFIER, so a
 * sample's first u64 and a side-band record's last u64 name the event, and
 * the caller looks up that event's sample_type before decoding the rest.
 */
#ifndef FAULTLINE_SAMPLE_H
#define FAULTLINE_SAMPLE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sample {
	uint64_t id;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t addr;
	uint64_t period;
	/* Callchain with the PERF_CONTEXT_* markers left in; see
	 * sample__user_ips() to extract the user part. */
	uint64_t nr_callchain;
	const uint64_t *callchain;
	uint32_t raw_size;
	const void *raw;
	/* PERF_SAMPLE_REGS_USER / STACK_USER, for the DWARF unwinder. */
	uint64_t regs_abi;
	uint64_t nr_regs;
	const uint64_t *regs;
	uint64_t stack_size;	/* bytes copied */
	const void *stack;
};

/* The identifier of a sample (first u64) or side-band record (last u64).
 * 0 / -EINVAL. */
int sample__peek_id(const struct perf_event_header *hdr, uint64_t *id);

/* The time of a PERF_RECORD_SAMPLE without decoding the rest (TIME comes
 * after IDENTIFIER, IP and TID only).  0 / -EINVAL (no TIME, too short). */
int sample__peek_time(const struct perf_event_header *hdr, uint64_t sample_type, uint64_t *time);

/* Decode a PERF_RECORD_SAMPLE laid out per sample_type (+ the user register
 * count, popcount of sample_regs_user).  0 / -EINVAL. */
int sample__parse(const struct perf_event_header *hdr, uint64_t sample_type,
		  unsigned int nr_user_regs, struct sample *s);

/*
 * Copy the user part of a callchain into ips (at most max), dropping the
 * PERF_CONTEXT_* markers and any kernel part.  Returns the number copied.
 */
uint32_t sample__user_ips(const struct sample *s, uint64_t *ips, uint32_t max);
/* The frames of one context of the callchain (PERF_CONTEXT_KERNEL,
 * PERF_CONTEXT_USER...), innermost first; returns how many. */
uint32_t sample__context_ips(const struct sample *s, uint64_t context, uint64_t *ips,
			     uint32_t max);

/* Side-band records we consume. */
struct sb_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;
	const char *filename;	/* NUL-terminated within the record */
};
struct sb_comm {
	uint32_t pid, tid;
	const char *comm;
	bool exec;
};
struct sb_task {		/* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};
struct sb_lost {
	uint64_t id, lost;
};
/* The trailing sample_id (sample_id_all) of a side-band record. */
struct sb_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t id;
};

int sample__parse_mmap2(const struct perf_event_header *hdr, struct sb_mmap2 *m);
int sample__parse_comm(const struct perf_event_header *hdr, struct sb_comm *c);
int sample__parse_task(const struct perf_event_header *hdr, struct sb_task *t);
int sample__parse_lost(const struct perf_event_header *hdr, struct sb_lost *l);
/* Trailer for the side-band event's sample_type (TID|TIME|CPU|IDENTIFIER
 * subset).  0 / -EINVAL. */
int sample__parse_id(const struct perf_event_header *hdr, uint64_t sample_type, struct sb_id *sid);

#endif
