/*
 * recfile: the file format of `faultline record` / `faultline report`.
 *
 * A recording is what a live session saw, in the order it saw it: the
 * event sources (with their tracefs format text, so the raw payloads
 * decode on another machine), the processes and their mappings, the
 * stacks (interned: each written once, then named by id) and the samples,
 * then an END record with the run's totals.  Report replays the records
 * into the same tool code a live run uses.  The byte layout, the rules the
 * reader enforces and how the version evolves are in docs/record-format.md.
 *
 * The writer streams records through one buffer of at most RECWRITER_BUFSIZE
 * bytes, so its memory does not grow with the length of the run, and it refuses
 * a record the reader would refuse (an undefined event or stack id, a
 * STACK out of sequence, anything after END), so every file it closes
 * cleanly reads back.  The reader trusts nothing: every length, count and
 * id is checked before use and a bad file gives an error naming the
 * offset of the record at fault, never a read out of bounds.
 */
#ifndef FAULTLINE_RECFILE_H
#define FAULTLINE_RECFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/errbuf.h"

/* Format version this code writes; it reads major 1, any minor. */
#define REC_VERSION_MAJOR	1
#define REC_VERSION_MINOR	2

/* Limits (the reader refuses more, the writer never writes more). */
#define REC_MAX_PAYLOAD		(64u << 20)	/* bytes of one record's payload */
#define REC_MAX_FRAMES		1024u		/* ips of one STACK */
#define REC_BUILD_ID_MAX	20u		/* bytes of an MMAP's build-id */
#define REC_MAX_COUNTERS	16u		/* counters of the END record */

/* The writer's one buffer, the whole of its memory for records: it starts
 * at a sixteenth of this, doubles up to it, then the file gets whole
 * buffers of this size. */
#define RECWRITER_BUFSIZE	(1u << 20)

/* Record types: their numbers are the file's (never renumber). */
enum rec_type {
	REC_META = 1,
	REC_EVENT = 2,
	REC_PROC = 3,
	REC_COMM = 4,
	REC_MMAP = 5,
	REC_FORK = 6,
	REC_EXIT = 7,
	REC_STACK = 8,
	REC_SAMPLE = 9,
	REC_LOST = 10,
	REC_END = 11,
	REC_KSYM = 12,		/* since 1.1 */
};

enum rec_event_kind {
	REC_EVENT_TRACEPOINT = 1,
	REC_EVENT_UPROBE = 2,
	REC_EVENT_KPROBE = 3,
	REC_EVENT_SOFTWARE = 4,
};

/* How a stack was first produced.  User and kernel stacks share one id
 * space (the session interns both in one stackdb), so a sample may name
 * any defined stack in either of its stack fields. */
enum rec_stack_kind {
	REC_STACK_USER = 1,
	REC_STACK_KERNEL = 2,
};

/*
 * The records, as written and as read back.  Reading, every pointer points
 * into the reader and stays valid until its next recreader__next() call;
 * strings are NUL-terminated (the file holds no NUL: a string containing
 * one is refused).  Writing, a NULL string is written as "" where the
 * field may be empty.
 */
struct rec_meta {
	const char *key;	/* not empty */
	const char *value;
};

struct rec_event {
	uint32_t id;		/* 0, 1, 2...: the next one each time */
	enum rec_event_kind kind;
	uint32_t flags;		/* the session's, not interpreted here */
	uint64_t config;	/* software: PERF_COUNT_SW_*; uprobe: file offset */
	const char *name;	/* "exceptions:page_fault_user"; not empty */
	const char *path;	/* uprobe: the file probed; else "" */
	const char *format;	/* tracefs format text; "" for software */
};

struct rec_proc {
	uint32_t pid;
	uint64_t time;
	const char *comm;
};

struct rec_comm {
	uint32_t pid, tid;
	uint64_t time;
	bool exec;		/* an exec: a new image */
	const char *comm;
};

struct rec_mmap {
	uint32_t pid;
	uint64_t time;
	uint64_t start, len, pgoff;	/* len > 0, start + len does not wrap */
	uint32_t prot, flags;		/* PROT_*, MAP_SHARED/MAP_PRIVATE... */
	uint32_t maj, min;
	uint64_t ino;
	uint8_t build_id_size;		/* 0..REC_BUILD_ID_MAX */
	uint8_t build_id[REC_BUILD_ID_MAX];
	const char *path;		/* may be "" (anonymous) */
};

/* FORK and EXIT. */
struct rec_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct rec_stack {
	uint32_t id;			/* 1, 2, 3...: the next one each time */
	enum rec_stack_kind kind;
	uint32_t nr;			/* 0..REC_MAX_FRAMES */
	const uint64_t *ips;		/* innermost first; may be NULL when nr is 0 */
};

/* A kernel symbol that recorded kernel frames fall in (1.1): the file
 * names its kernel frames by itself, on any machine, after any reboot. */
struct rec_ksym {
	uint64_t start, end;		/* [start, end): start < end */
	const char *name;		/* not empty */
	const char *module;		/* "" for vmlinux, else kallsyms' [module] */
};

struct rec_sample {
	uint32_t event;			/* an EVENT id defined before */
	uint32_t pid, tid, cpu;
	uint64_t time;			/* ns, perf clock */
	uint64_t addr;
	uint32_t user_stack;		/* a STACK id defined before, 0 = none */
	uint32_t kernel_stack;		/* same */
	uint32_t raw_size;
	const void *raw;		/* tracepoint raw data; no alignment promised */
};

struct rec_lost {
	uint64_t time;
	uint64_t count;
};

struct rec_end {
	uint32_t stop;			/* stop reason: the session's, opaque here */
	int32_t status;			/* command exit status (waitpid), or -1 */
	uint64_t samples, lost, bad;	/* the session's totals */
	uint32_t nr_counters;		/* 0..REC_MAX_COUNTERS */
	uint64_t counters[REC_MAX_COUNTERS];	/* unwind stop reasons... */
	/* Back-pressure (1.2; 0 read from an older file): how many times the
	 * target was paused so that no event was lost, and for how long in
	 * all.  No pause, no time: paused_ns without pauses is refused. */
	uint64_t pauses, paused_ns;
};

struct rec {
	enum rec_type type;
	uint64_t offset;		/* of the record's header in the file */
	union {
		struct rec_meta meta;
		struct rec_event event;
		struct rec_proc proc;
		struct rec_comm comm;
		struct rec_mmap mmap;
		struct rec_task task;	/* REC_FORK, REC_EXIT */
		struct rec_stack stack;
		struct rec_sample sample;
		struct rec_lost lost;
		struct rec_end end;
		struct rec_ksym ksym;
	} u;
};

/**
 * rec_type__name() - lowercase name of a record type ("sample")
 * @type: any value
 *
 * Return: a static string; "unknown" for a value no version defines.
 */
const char *rec_type__name(enum rec_type type);

struct recwriter;

/**
 * recwriter__open() - create (or truncate) a recording and start it
 * @path: file to write; created with mode 0600 (a recording holds raw
 *        memory addresses and payloads of the traced processes)
 * @out:  out; finish with recwriter__close()
 * @eb:   detail of a failure
 *
 * The file header goes into the buffer; nothing reaches the file until
 * the buffer is full or the writer is closed.
 *
 * Return: 0, -errno of open(2) (detail in @eb), or -ENOMEM.
 */
int recwriter__open(const char *path, struct recwriter **out, struct errbuf *eb);

/**
 * recwriter__open_fd() - start a recording on an open file
 * @fd:   the file, open for writing at its start; the writer's from now
 *        on, closed by recwriter__close() (or here, on a failure)
 * @name: its name, for messages
 * @out:  out; finish with recwriter__close()
 * @eb:   detail of a failure
 *
 * As recwriter__open(), on a file the caller made (lib/safeout: a
 * temporary renamed over the recording once tracing has started).
 *
 * Return: 0 or -ENOMEM.
 */
int recwriter__open_fd(int fd, const char *name, struct recwriter **out, struct errbuf *eb);

/**
 * recwriter__meta() - append a META record
 * @w:     writer
 * @key:   not empty
 * @value: may be NULL ("")
 *
 * This and every record writer below append one record and return:
 *  0;
 *  -EINVAL: the record breaks a rule of the format (an empty key or event
 *           name, an EVENT or STACK id that is not the next one, a sample
 *           naming an undefined event or stack, too many frames or
 *           counters, a build-id over 20 bytes, an empty or wrapping
 *           mapping, a payload over REC_MAX_PAYLOAD, any record after
 *           END): nothing was written, the writer goes on, and
 *           recwriter__errmsg() says which rule;
 *  -errno:  a write failed (ENOSPC, EIO...): the error is latched, this
 *           and every later call return it and recwriter__close()
 *           reports it.
 * Nothing is kept: strings, ips and raw data are copied.
 */
int recwriter__meta(struct recwriter *w, const char *key, const char *value);

/**
 * recwriter__event() - append an EVENT record, defining event @e->id
 * @w: writer
 * @e: @e->id must be the number of events defined so far
 *
 * Return: as recwriter__meta().
 */
int recwriter__event(struct recwriter *w, const struct rec_event *e);

/**
 * recwriter__proc() - append a PROC record; its mappings should follow
 * @w: writer
 * @p: the process
 *
 * Return: as recwriter__meta().
 */
int recwriter__proc(struct recwriter *w, const struct rec_proc *p);

/**
 * recwriter__comm() - append a COMM record
 * @w: writer
 * @c: the name change or exec
 *
 * Return: as recwriter__meta().
 */
int recwriter__comm(struct recwriter *w, const struct rec_comm *c);

/**
 * recwriter__mmap() - append an MMAP record
 * @w: writer
 * @m: @m->len not 0, @m->start + @m->len not wrapping, build-id <= 20 bytes
 *
 * Return: as recwriter__meta().
 */
int recwriter__mmap(struct recwriter *w, const struct rec_mmap *m);

/**
 * recwriter__fork() - append a FORK record
 * @w: writer
 * @t: parent and child
 *
 * Return: as recwriter__meta().
 */
int recwriter__fork(struct recwriter *w, const struct rec_task *t);

/**
 * recwriter__exit() - append an EXIT record
 * @w: writer
 * @t: the task that exited
 *
 * Return: as recwriter__meta().
 */
int recwriter__exit(struct recwriter *w, const struct rec_task *t);

/**
 * recwriter__stack() - append a STACK record, defining stack @s->id
 * @w: writer
 * @s: @s->id must be one more than the number of stacks defined so far
 *     (ids from 1, as stackdb's); at most REC_MAX_FRAMES frames
 *
 * Return: as recwriter__meta().
 */
int recwriter__stack(struct recwriter *w, const struct rec_stack *s);

/**
 * recwriter__ksym() - append a KSYM record, naming kernel frames
 * @w: writer
 * @k: @k->start < @k->end, @k->name not empty, @k->module NULL or "" for
 *     vmlinux.  Write it before the STACK whose frames it names.
 *
 * Return: as recwriter__meta().
 */
int recwriter__ksym(struct recwriter *w, const struct rec_ksym *k);

/**
 * recwriter__sample() - append a SAMPLE record
 * @w: writer
 * @s: its event and stacks (0 = none) defined before
 *
 * Return: as recwriter__meta().
 */
int recwriter__sample(struct recwriter *w, const struct rec_sample *s);

/**
 * recwriter__lost() - append a LOST record
 * @w: writer
 * @l: how many events the kernel dropped
 *
 * Return: as recwriter__meta().
 */
int recwriter__lost(struct recwriter *w, const struct rec_lost *l);

/**
 * recwriter__end() - append the END record, the last
 * @w: writer
 * @e: totals; at most REC_MAX_COUNTERS counters
 *
 * After it every record writer returns -EINVAL.
 *
 * Return: as recwriter__meta().
 */
int recwriter__end(struct recwriter *w, const struct rec_end *e);

/**
 * recwriter__errmsg() - detail of the writer's last failure
 * @w:   writer
 * @err: the -errno a call returned
 *
 * Return: the message of the last -EINVAL or write error, or strerror(@err)
 * when there is none; valid until the next call on @w.
 */
const char *recwriter__errmsg(const struct recwriter *w, int err);

/**
 * recwriter__bytes() - bytes of the recording so far
 * @w: writer; may be NULL (0)
 *
 * Return: header and records written, including those still buffered.
 */
uint64_t recwriter__bytes(const struct recwriter *w);

/**
 * recwriter__flush() - write what is buffered to the file now
 * @w: writer
 *
 * Called between records, the file then ends at a whole one.
 *
 * Return: 0, or the latched write error.
 */
int recwriter__flush(struct recwriter *w);

/**
 * recwriter__flush_in_signal() - write the buffered bytes as they are
 * @w: writer
 *
 * For a fatal signal's handler: one write(2), nothing else touched (the
 * buffer may end inside a record: the reader stops at the last whole one).
 */
void recwriter__flush_in_signal(const struct recwriter *w);

/**
 * recwriter__close() - flush, close and free the writer
 * @w:  may be NULL (returns 0)
 * @eb: detail of a failure
 *
 * A recording closed without recwriter__end() is complete on disk but
 * reads as truncated.  @w is freed whatever the result.
 *
 * Return: 0, or the first write error of the writer's life (latched at
 * any point: ENOSPC, EIO...) or of the final flush or close(2).
 */
int recwriter__close(struct recwriter *w, struct errbuf *eb);

struct recreader;

/**
 * recreader__open() - open a recording and check its header
 * @path: file (or a pipe: it is read sequentially, never seeked or mapped)
 * @out:  out; free with recreader__free()
 * @eb:   detail of a failure
 *
 * The file is read through a buffer of 1 MiB, grown only to hold the
 * largest record (at most REC_MAX_PAYLOAD + 8 bytes).
 *
 * Return: 0; -errno of open/read; -EBADMSG: not a faultline recording or
 * a corrupt header; -ENODATA: shorter than its header; -ENOTSUP: a format
 * major version other than REC_VERSION_MAJOR (a newer faultline's file);
 * -ENOMEM.  Detail in @eb.
 */
int recreader__open(const char *path, struct recreader **out, struct errbuf *eb);

/**
 * recreader__open_mem() - read a recording held in memory
 * @buf: the whole recording; not copied, it must outlive the reader
 * @len: its length
 * @out, @eb, Return: as recreader__open()
 */
int recreader__open_mem(const void *buf, size_t len, struct recreader **out,
			struct errbuf *eb);

/**
 * recreader__version() - format version of the file being read
 * @r:     reader
 * @major: out, may be NULL
 * @minor: out, may be NULL
 */
void recreader__version(const struct recreader *r, unsigned int *major, unsigned int *minor);

/**
 * recreader__next() - read the next record
 * @r:   reader
 * @out: the record; its pointers are valid until the next call on @r
 * @eb:  detail of a failure, "offset N: ..." with N the offset of the record
 *
 * Records of a type this version does not know, in a file of a newer minor
 * version, are skipped without being returned.
 *
 * Return: 1, a record in @out; 0, the clean end: END was read and nothing
 * follows it; or an error, the same on every later call:
 *  -ENODATA: truncated: the file ends inside a record, or at a record
 *            boundary before any END (the records before were good:
 *            a run killed before it finished its recording);
 *  -EBADMSG: corrupt: a rule of docs/record-format.md is broken;
 *  -errno of read(2); -ENOMEM.
 */
int recreader__next(struct recreader *r, struct rec *out, struct errbuf *eb);

/**
 * recreader__cut() - where a truncated recording was cut
 * @r:     reader whose recreader__next() returned -ENODATA
 * @whole: out (may be NULL): bytes of the file up to the end of its last
 *         whole record (every record before was returned)
 * @cut:   out (may be NULL): bytes of the record cut off that the file
 *         holds (0: it ends at a record boundary, only END is missing)
 *
 * Return: true when @r stopped at a cut (-ENODATA), false otherwise.
 */
bool recreader__cut(const struct recreader *r, uint64_t *whole, uint64_t *cut);

/**
 * recreader__free() - close the reader
 * @r: may be NULL
 */
void recreader__free(struct recreader *r);

#endif
