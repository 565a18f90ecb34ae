/*
 * symbolize: instruction address -> function+offset and module, and with
 * --srcline the file:line and inlined frames, at report time.
 *
 * Lazy and cached: a binary is opened the first time one of its addresses is
 * asked for and kept for the symbolizer's life, keyed by build-id (so the
 * same file reached through a container's root and through the host is
 * parsed once), else by (device, inode, path); /proc/kallsyms is read on the
 * first kernel address, a JIT's /tmp/perf-PID.map on the first address of
 * that process outside any file.  Only what is shown gets symbolized, so the
 * cost follows the report, not the trace.  A binary's symbol table is
 * indexed on its first name lookup (a binary search per address after
 * that), and every (binary, address) answered is remembered, up to about a
 * million of them (then forgotten at once), so a frame seen again costs
 * one hash lookup.  Unknown is an answer, never an error: no frame is ever
 * dropped, and the caller counts the unknowns.
 */
#ifndef FAULTLINE_SYMBOLIZE_H
#define FAULTLINE_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stack/addrspace.h"

struct sym_result {
	uint64_t addr;
	const char *func;	/* NULL when unknown */
	uint64_t offset;	/* addr - start of func; 0 when func is NULL */
	const char *module;	/* basename of the mapping's path ("libc.so.6", "[heap]"),
				 * "kernel.kallsyms" or a kernel module's name, the
				 * perf map file's ("perf-1234.map") for JIT code;
				 * NULL when no mapping covers addr or it is anonymous
				 * and no perf map file names it */
};

/* One level of the inline chain at an address (see symbolizer__srcline). */
struct sym_inline {
	const char *func;	/* function name as in the source (DW_AT_name, else
				 * the linkage name); NULL when DWARF does not name it */
	const char *file;	/* source file, full path (joined to the compilation
				 * directory when DWARF left it relative and that is
				 * absolute); NULL when unknown */
	unsigned int line;	/* 0 when unknown */
};

struct symbolizer;
struct bincache;

/**
 * symbolizer__new() - empty symbolizer
 * @out: out; free with symbolizer__free()
 *
 * Return: 0 or -ENOMEM.
 */
int symbolizer__new(struct symbolizer **out);

/**
 * symbolizer__free() - close every cached binary and free all strings
 *                      handed out in sym_results
 * @s: may be NULL
 */
void symbolizer__free(struct symbolizer *s);

/**
 * symbolizer__bincache() - the cache of binaries the symbolizer opens
 *                          files through (binary.h)
 * @s: symbolizer
 *
 * Give it to the session's unwinder (unwinder__new()), so each binary is
 * opened and held once for both.  Borrowed: take a reference to keep it.
 */
struct bincache *symbolizer__bincache(struct symbolizer *s);

/**
 * symbolizer__user() - symbolize a user address of a process
 * @s: symbolizer
 * @as: the process's maps (they outlive the process)
 * @pid: tgid
 * @addr: the address as sampled.  For return addresses of outer frames
 *        callers may pass addr - 1 so a call at a function's end does not
 *        resolve to the next function (offset then shows one less).
 * @res: out; its strings live as long as @s
 *
 * The binary is opened through /proc/@pid/root/PATH (containers), then
 * /proc/@pid/map_files/START-END (deleted files), then PATH itself, and only
 * accepted when its inode is the mapping's (when the mapping has one).  Its
 * .symtab is used; a stripped binary's comes from its separate debug file
 * (by build-id under each debug directory's .build-id/xx/rest.debug, then
 * by .gnu_debuglink, CRC-checked, in the binary's directory, its .debug/
 * and each debug directory + the binary's directory; debug directories are
 * those of symbolizer__add_debug_dir(), the process's own /usr/lib/debug
 * when it lives in another root, then /usr/lib/debug), else from its
 * .gnu_debugdata (MiniDebugInfo), else .dynsym.
 *
 * An address in an anonymous mapping (or in none) is looked up in the
 * process's perf map file (/tmp/perf-PID.map, else its container's
 * /tmp/perf-NSPID.map): res->module is then the file's basename
 * ("perf-1234.map"), as BCC shows it.  The file is read once, and again
 * when a miss finds it grew.
 *
 * Return: 0 (res->func may be NULL), or -ENOMEM.
 */
int symbolizer__user(struct symbolizer *s, const struct addrspaces *as, pid_t pid, uint64_t addr,
		     struct sym_result *res);

/**
 * symbolizer__add_debug_dir() - one more directory to search for debug files
 * @s: symbolizer
 * @dir: searched like /usr/lib/debug (DIR/.build-id/xx/rest.debug and
 *       DIR/<binary's directory>/<debuglink>) and before it; several are
 *       searched in the order added.  Copied.
 *
 * Call it before the first symbolization: binaries already opened keep
 * the debug file (or none) they found.
 *
 * Return: 0, -EINVAL when @dir is empty or holds a ':', -ENOMEM.
 */
int symbolizer__add_debug_dir(struct symbolizer *s, const char *dir);

/**
 * symbolizer__set_symfs() - where a recording's binaries are (--symfs)
 * @dir: a root: a mapping's PATH is looked for as DIR/PATH, checked
 *       against the build-id the recording holds for it, and its debug
 *       files under DIR/usr/lib/debug too.  Copied.
 *
 * Mappings with a recorded build-id (replays) also accept a file at the
 * live path only when its build-id matches, and fall back to the debug
 * file of that build-id.  Return: 0, -EINVAL (empty), -ENOMEM.
 */
int symbolizer__set_symfs(struct symbolizer *s, const char *dir);

/**
 * symbolizer__srcline() - source position and inline chain of a user address
 * @s: symbolizer
 * @as: the process's maps
 * @pid: tgid
 * @addr: as for symbolizer__user() (addr - 1 for return addresses)
 * @frames: out, innermost first: [0] is the function whose code is at
 *          @addr with the file:line of @addr; each next one is the function
 *          it was inlined into, with the file:line of that call site; the
 *          last is the containing (out-of-line) function.  Strings live as
 *          long as @s.
 * @max: size of @frames; a deeper chain keeps its innermost @max levels
 * @n: out, entries filled; 0 when the binary has no line information for
 *     @addr (no DWARF, none found, not a file mapping)
 *
 * DWARF comes from the binary or its separate debug file, found as for
 * symbolizer__user(), and is read (compressed sections inflated) on the
 * binary's first srcline request only: names alone never load it.  When
 * DWARF has a line for @addr but no function scope (assembly), the one
 * entry is named from the symbol table.
 *
 * Return: 0, or -ENOMEM (*n is then 0).
 */
int symbolizer__srcline(struct symbolizer *s, const struct addrspaces *as, pid_t pid, uint64_t addr,
			struct sym_inline *frames, size_t max, size_t *n);

/**
 * symbolizer__kernel() - symbolize a kernel address through /proc/kallsyms
 *                        (or a recording's symbols: symbolizer__recorded_kernel)
 * @s: symbolizer
 * @addr: kernel address
 * @res: out; module "kernel.kallsyms", or the name of the kernel module;
 *       its strings live as long as @s
 *
 * Without privilege kallsyms shows zero addresses: every address is then
 * unknown (res->func NULL, module "kernel.kallsyms").
 *
 * Return: 0, or -ENOMEM.
 */
int symbolizer__kernel(struct symbolizer *s, uint64_t addr, struct sym_result *res);

/* A kernel symbol: the function and where it lies. */
struct sym_ksym {
	uint64_t start, end;	/* [start, end) */
	const char *name;
	const char *module;	/* NULL for vmlinux, else the module's name */
};

/**
 * symbolizer__kernel_sym() - the kernel symbol holding an address
 * @s: symbolizer
 * @addr: kernel address
 * @out: out; its strings live as long as @s.  From kallsyms, a text
 *       symbol ends where the next one starts (the last one never ends):
 *       what symbolizer__kernel() names @addr after, exactly.
 *
 * faultline record writes these into the recording (KSYM records), so
 * that a report names kernel frames without this machine's kallsyms.
 *
 * Return: 0; -ENOENT when no symbol holds @addr (or kallsyms shows no
 * addresses, unprivileged); -ENOMEM.
 */
int symbolizer__kernel_sym(struct symbolizer *s, uint64_t addr, struct sym_ksym *out);

/**
 * symbolizer__recorded_kernel() - name kernel addresses from a recording only
 * @s: symbolizer; call it before the first kernel lookup
 *
 * From then on symbolizer__kernel() and symbolizer__kernel_sym() answer from
 * the symbols given to symbolizer__add_kernel_sym() alone and never read
 * /proc/kallsyms: an address in none of them is unknown.  A recording made
 * on another machine, or before a reboot (KASLR), names its frames right.
 */
void symbolizer__recorded_kernel(struct symbolizer *s);

/**
 * symbolizer__add_kernel_sym() - one kernel symbol of a recording
 * @s: symbolizer
 * @k: @k->start < @k->end, @k->name not empty; @k->module NULL or "" for
 *     vmlinux.  Copied.  Symbols may come in any order; where two overlap,
 *     an address is looked up in the one of the highest start at or below
 *     it (unknown when that one ends before it).
 *
 * Return: 0, -EINVAL (an empty range or name), -ENOMEM.
 */
int symbolizer__add_kernel_sym(struct symbolizer *s, const struct sym_ksym *k);

/**
 * symbolizer__on_kallsyms() - be told when /proc/kallsyms is read
 * @s: symbolizer
 * @fn: called once, when the first kernel lookup reads kallsyms (never
 *      after symbolizer__recorded_kernel()); NULL: no call
 * @ctx: given to @fn
 *
 * A report of a recording made before KSYM records existed warns then
 * that its kernel frames are named from this machine's kallsyms.
 */
void symbolizer__on_kallsyms(struct symbolizer *s, void (*fn)(void *ctx), void *ctx);

/**
 * sym_result__format() - "func+0xoff [module]" as BCC prints a frame
 * @r: result
 * @buf: out, always NUL-terminated (truncated if small)
 * @n: size of @buf
 *
 * "[unknown] [module]" when the function is unknown, "[unknown]" when the
 * module is too.  Special mappings keep their one pair of brackets:
 * "[unknown] [heap]".
 */
void sym_result__format(const struct sym_result *r, char *buf, size_t n);

#endif
