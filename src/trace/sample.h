/*
 * sample: bounds-checked decoding of PERF_RECORD_* records.
 *
 * Every field read is checked against the record's size (as perf's
 * evsel__parse_sample does): a short or inconsistent record yields -EINVAL,
 * never a read past its end.  Decoded views point into the record and live
 * only as long as it does (the ring callback).
 *
 * Conventions: every event of a session has PERF_SAMPLE_IDENTIFIER, so a
 * sample's first u64 and a side-band record's last u64 name the event;
 * on a kernel without it (before 3.12) every event has PERF_SAMPLE_ID at
 * one place instead (struct sample_id_pos, as perf's id_pos and is_pos).
 * The caller looks up that event's sample_type before decoding the rest.
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

/* Where every event's id is, in u64 words: in a sample, from the first
 * after the header (0: PERF_SAMPLE_IDENTIFIER); in a side-band record's
 * sample_id trailer, from its end (1: the last). */
struct sample_id_pos {
	unsigned int sample, trailer;
};

/**
 * sample__id_pos() - where the id is in records of @sample_type, the
 * sample_type every event of a session shares the id part of: with
 * PERF_SAMPLE_IDENTIFIER first and last; with PERF_SAMPLE_ID after IP,
 * TID, TIME and ADDR in a sample, and before STREAM_ID and CPU in a
 * trailer (so the events must agree on those bits)
 * Return: 0; -EINVAL when @sample_type has neither.
 */
int sample__id_pos(uint64_t sample_type, struct sample_id_pos *pos);

/* The identifier of a sample or side-band record, at @pos.  0 / -EINVAL. */
int sample__peek_id(const struct perf_event_header *hdr, const struct sample_id_pos *pos,
		    uint64_t *id);

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
/* A PERF_RECORD_MMAP (a kernel without mmap2, before 3.16) as an MMAP2
 * that knows no device, inode or flags: prot is PROT_READ|PROT_EXEC for
 * code, PROT_READ|PROT_WRITE for data (PERF_RECORD_MISC_MMAP_DATA, of
 * attr.mmap_data), the record saying no more.  0 / -EINVAL. */
int sample__parse_mmap(const struct perf_event_header *hdr, struct sb_mmap2 *m);
int sample__parse_comm(const struct perf_event_header *hdr, struct sb_comm *c);
int sample__parse_task(const struct perf_event_header *hdr, struct sb_task *t);
int sample__parse_lost(const struct perf_event_header *hdr, struct sb_lost *l);
/* Trailer for the side-band event's sample_type (TID|TIME|CPU|IDENTIFIER
 * subset).  0 / -EINVAL. */
int sample__parse_id(const struct perf_event_header *hdr, uint64_t sample_type, struct sb_id *sid);

#endif
