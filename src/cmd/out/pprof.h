/*
 * pprof: a profile in pprof's format (proto/profile.proto, google/pprof's),
 * built from samples whose stacks are already symbolized, and encoded
 * gzipped as `go tool pprof` and every pprof reader take it.
 *
 * The caller says what each value of a sample is (sample types such as
 * Go's heap profiles' alloc_objects/count, alloc_space/bytes,
 * inuse_objects/count, inuse_space/bytes), adds the code locations of its
 * stacks (an address in a mapping, with the function, file and line there
 * and the functions inlined at it) and the samples that refer to them.
 * Strings, mappings, functions and locations are each stored once: the
 * string table by content, mappings by (range, offset, file, build-id),
 * functions by (name, system name, file), locations by (mapping, address).  The
 * encoding is protobuf-c's code generated from profile.proto at build
 * time, not a hand-written encoder, and the gzip is zlib's.
 *
 * Pure: no session, no file, no printing; 0 or -errno.
 */
#ifndef FAULTLINE_PPROF_H
#define FAULTLINE_PPROF_H

#include <stddef.h>
#include <stdint.h>

struct pprof;

/* A (type, unit) pair: {"inuse_space", "bytes"}, {"faults", "count"}. */
struct pprof_value_type {
	const char *type, *unit;
};

struct pprof_opts {
	const struct pprof_value_type *types;	/* what each sample value is */
	size_t ntypes;				/* at least 1 */
	struct pprof_value_type period_type;	/* both NULL: none */
	int64_t period;
	const char *default_type;	/* a types[].type pprof shows first; NULL: the last */
	int64_t time_nanos;		/* when the profile starts, ns since the epoch */
	int64_t duration_nanos;
};

/* The mapping a location's address is in. */
struct pprof_map {
	uint64_t start, limit;		/* [start, limit) */
	uint64_t offset;		/* file offset of start */
	const char *file;		/* path, "[vdso]"; NULL: anonymous */
	const uint8_t *build_id;	/* GNU build-id bytes (stored as lowercase hex) */
	size_t build_id_size;		/* 0: none known */
};

/* One function at a location: the innermost (inlined) first, the function
 * they were inlined into last. */
struct pprof_line {
	const char *func;		/* NULL: unknown */
	const char *system_name;	/* as the binary names it ("f@@GLIBC_2.34");
					 * NULL: @func */
	const char *file;		/* source file; NULL: unknown */
	int64_t line;			/* 0: unknown */
};

/* A label of a sample: a number (@str NULL) or a string.  What `go tool
 * pprof -tags` lists, -tagfocus=KEY=VALUE keeps.  Encoded as profile.proto
 * has it: @key and @str as string table indexes, @num as is, @num_unit an
 * index too (pprof takes the key for the unit when there is none). */
struct pprof_label {
	const char *key;		/* not empty */
	const char *str;		/* not empty: "" is no string in the format */
	int64_t num;
	const char *num_unit;		/* NULL: none */
};

/**
 * pprof__new() - an empty profile
 * @o:   the sample types and the profile's header; strings are copied
 * @out: out; free with pprof__free()
 *
 * Return: 0, -EINVAL (no sample type, or @o->default_type not one of
 * them), -ENOMEM.
 */
int pprof__new(const struct pprof_opts *o, struct pprof **out);

/* NULL is fine. */
void pprof__free(struct pprof *p);

/* A line of free text pprof shows with the profile (copied).  0, -ENOMEM. */
int pprof__comment(struct pprof *p, const char *text);

/**
 * pprof__mapping() - the id of a mapping, added when new
 * @m: copied.  The first mapping added is the one pprof names the profile
 *     after (its "main binary"): add the program's own first.
 *
 * Return: the id (>= 1), or 0 when out of memory.
 */
uint64_t pprof__mapping(struct pprof *p, const struct pprof_map *m);

/**
 * pprof__location() - the id of the code at @addr, added when new
 * @map:    the mapping's id from pprof__mapping(), or 0 for none
 * @addr:   the address as sampled (a return address for outer frames)
 * @lines:  what is there, innermost first (see struct pprof_line); copied.
 *          @nlines 0: unsymbolized (pprof shows the address).
 *
 * A location already added for (@map, @addr) keeps its first lines.
 * Return: the id (>= 1), or 0 when out of memory or @map is no mapping's.
 */
uint64_t pprof__location(struct pprof *p, uint64_t map, uint64_t addr,
			 const struct pprof_line *lines, size_t nlines);

/* The id of the location of (@map, @addr) when it was added, else 0: what
 * a caller asks before symbolizing an address again. */
uint64_t pprof__find_location(const struct pprof *p, uint64_t map, uint64_t addr);

/**
 * pprof__sample() - one sample
 * @locs:    location ids, the leaf first; copied
 * @values:  one per sample type, in their order; copied
 * @labels:  copied; @nlabels may be 0
 *
 * Return: 0, -EINVAL (a location id that was never returned, a label
 * with an empty key or string), -ENOMEM.
 */
int pprof__sample(struct pprof *p, const uint64_t *locs, size_t nlocs, const int64_t *values,
		  const struct pprof_label *labels, size_t nlabels);

size_t pprof__samples(const struct pprof *p);

/**
 * pprof__encode() - the profile as a gzipped profile.proto message
 * @buf: out, malloc'ed (the caller frees it)
 * @len: out, its size in bytes
 *
 * Return: 0, -ENOMEM, -EIO (zlib refused).
 */
int pprof__encode(const struct pprof *p, void **buf, size_t *len);

#endif
