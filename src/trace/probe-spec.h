/*
 * probe-spec: probe descriptions as data (probes/NAME.probes), parsed and
 * formatted without touching the kernel.
 *
 * Which allocator or libc functions a tool hooks, and which registers or
 * return values it fetches there, differ per allocator and per libc
 * version; keeping them in text files lets a user fix a probe without a
 * rebuild, and keeps this parser pure so it is unit-tested without root.
 * Resolving a library name to a file and a symbol to an offset is the
 * caller's job (elf-sym), as is creating the probe (probe-group).
 *
 * File format, one directive a line, '#' starts a comment:
 *
 *   library c                       library of the probes that follow
 *   probe NAME entry|return SYMBOL[+OFFSET] [FETCHARG...]
 *   expect NAME HEXBYTES            the instruction bytes at probe NAME
 *   pmu NAME entry|return SYMBOL[+OFFSET] [FETCHARG...]
 *                                   probe NAME as the uprobe PMU places it
 *   block-size glibc-chunk          a block's size is in the word before
 *                                   it, as glibc's chunk header keeps it
 *                                   (leak -s N samples in the kernel)
 *
 * "expect" guards a probe placed inside a function (SYMBOL+OFFSET): the
 * offset is only right for the build it was read from, so the caller
 * checks the bytes there and refuses the probe on another build instead
 * of planting a breakpoint mid-instruction.
 *
 * SYMBOL is a '|'-separated list of candidates, tried in order by the
 * caller (glibc exports different names across versions).  FETCHARG is
 * "name=value" in tracefs uprobe syntax (%di:x64, $retval:s32,
 * +0(%di):u64, ...); $retval only on return probes.
 *
 * The perf uprobe PMU (no tracefs: lockdown) fetches nothing itself: a
 * probe's arguments are then the registers sampled at the breakpoint
 * (uprobe-pmu.h), so fetchargs that name registers (%di, %sp, $retval)
 * serve both, and one that reads memory (+0(%dx)) needs a "pmu" line: a
 * twin of the probe above it of that name, with register fetchargs only
 * (checked here), placed where the value is in a register.  An "expect"
 * after the "pmu" line guards the twin.
 */
#ifndef FAULTLINE_PROBE_SPEC_H
#define FAULTLINE_PROBE_SPEC_H

#include <stddef.h>
#include <stdint.h>

struct errbuf;

enum probe_kind { PROBE_ENTRY, PROBE_RETURN };

struct probe_spec {
	char *name;		/* [A-Za-z_][A-Za-z0-9_]*, unique in its set */
	enum probe_kind kind;
	char *library;		/* as written after "library" */
	char **symbols;		/* candidates in order, nsymbols >= 1 */
	size_t nsymbols;
	uint64_t sym_offset;	/* added to whichever candidate resolves */
	char *fetchargs;	/* space-joined, "" if none */
	int line;		/* line of the probe in its file, from 1 */
	uint8_t expect[16];	/* "expect" bytes at the probe address */
	size_t nexpect;		/* 0: none given */
	struct probe_spec *pmu;	/* its "pmu" twin (owned), NULL: this one serves both */
};

struct probe_set;

/* Where a block's size can be read from its address alone ("block-size"). */
enum probe_block_size {
	PROBE_BLOCK_SIZE_NONE,
	PROBE_BLOCK_SIZE_GLIBC_CHUNK,
};

/**
 * probe_set__parse() - parse the text of a probe spec file
 * @text:   NUL-terminated file contents
 * @origin: name used in error messages (a path, or "<builtin>")
 * @out:    receives a new set owned by the caller (probe_set__free());
 *          set to NULL on error
 * @eb:     on error, "ORIGIN:LINE: message"; may be NULL
 *
 * A file without any probe gives an empty set, not an error: callers that
 * need probes check probe_set__count().
 *
 * Return: 0, -EINVAL on a syntax or validation error, -ENOMEM.
 */
int probe_set__parse(const char *text, const char *origin, struct probe_set **out,
		     struct errbuf *eb);

/**
 * probe_set__load() - read and parse a probe spec file
 * @path: file to read; used as the origin in messages
 * @out:  as for probe_set__parse()
 * @eb:   detail of a failure; may be NULL
 *
 * Return: 0; -ENOENT if @path does not exist (distinct so callers can
 * try another location); other -errno from open/read; -EFBIG over 1 MiB;
 * the errors of probe_set__parse().
 */
int probe_set__load(const char *path, struct probe_set **out, struct errbuf *eb);

/**
 * probe_set__load_named() - find "<dir>/<name>.probes" and load it
 * @name: spec name such as "libc-syscalls"; letters, digits, '-', '_',
 *        '.', not starting with '.', so it cannot escape the directories
 * @out:  as for probe_set__parse()
 * @eb:   detail of a failure; may be NULL
 *
 * Directories, first existing file wins: $FAULTLINE_PROBES_DIR;
 * <dir of /proc/self/exe>/probes; <dir of exe>/../probes (build tree);
 * the compiled-in FAULTLINE_PROBES_DIR; then the copy of probes/@name.probes
 * built into the binary (probes-builtin.h), origin "<built-in NAME.probes>".
 * A file that exists but fails to parse is an error, not a reason to try
 * the next directory.
 *
 * Return: 0; -ENOENT if no directory has the file and none is built in
 * (the message lists where it looked); -EINVAL for a bad @name; errors of
 * probe_set__load().
 */
int probe_set__load_named(const char *name, struct probe_set **out, struct errbuf *eb);

/**
 * probe_set__retarget() - point every probe at another library and symbol
 * prefix, as memleak's -O and --symbols-prefix do
 * @library: NULL to keep each probe's library, else the new one
 * @prefix:  NULL or "" to keep the symbols, else prepended to each
 *           candidate ("je_" turns "malloc" into "je_malloc")
 *
 * Return: 0, -ENOMEM (the set is then unchanged or partly changed, and
 * must be freed).
 */
int probe_set__retarget(struct probe_set *set, const char *library, const char *prefix);

/* Free a set and every spec in it; NULL is allowed. */
void probe_set__free(struct probe_set *set);

size_t probe_set__count(const struct probe_set *set);

/* The set's "block-size" (PROBE_BLOCK_SIZE_NONE without one). */
enum probe_block_size probe_set__block_size(const struct probe_set *set);

/**
 * probe_set__at() - spec number @i, in file order
 *
 * Return: a pointer owned by @set, valid until probe_set__free(), or
 * NULL if @i is out of range.
 */
const struct probe_spec *probe_set__at(const struct probe_set *set, size_t i);

/**
 * probe_set__find() - spec by probe name
 *
 * Return: a pointer owned by @set, or NULL if no probe has @name.
 */
const struct probe_spec *probe_set__find(const struct probe_set *set, const char *name);

/**
 * probe_spec__fetcharg() - the value of a spec's fetcharg @name, its type
 * left out: "%di" of "ptr=%di:x64", "+0(%dx)" of "ptr=+0(%dx):u64"
 *
 * Return: 0, -ENOENT (no such fetcharg), -ENOSPC (@buf too small, or an
 * empty value).
 */
int probe_spec__fetcharg(const struct probe_spec *p, const char *name, char *buf, size_t n);

/**
 * probe_spec__format() - canonical one-line form of a spec
 * @p:   the spec
 * @buf: receives e.g. "probe mmap_return return __mmap ret=$retval:x64",
 *       always NUL-terminated when @n > 0
 * @n:   size of @buf
 *
 * The line parses back (after a "library" line) to an equal spec; the
 * offset, when non-zero, is written "+0x..." after the symbol list.
 *
 * Return: 0, or -ENOSPC if @buf was too small (the output is truncated).
 */
int probe_spec__format(const struct probe_spec *p, char *buf, size_t n);

#endif
