/*
 * symbolize: instruction address -> function+offset and module, at report
 * time.
 *
 * Lazy and cached: a binary is opened the first time one of its addresses is
 * asked for, once per (device, inode, path), and kept for the symbolizer's
 * life; /proc/kallsyms is read on the first kernel address.  Only what is
 * shown gets symbolized, so the cost follows the report, not the trace.
 * Unknown is an answer, never an error: no frame is ever dropped, and the
 * caller counts the unknowns.
 */
#ifndef FAULTLINE_SYMBOLIZE_H
#define FAULTLINE_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "addrspace.h"

struct sym_result {
	uint64_t addr;
	const char *func;	/* NULL when unknown */
	uint64_t offset;	/* addr - start of func; 0 when func is NULL */
	const char *module;	/* basename of the mapping's path ("libc.so.6", "[heap]"),
				 * "kernel.kallsyms" or a kernel module's name;
				 * NULL when no mapping covers addr or it is anonymous */
};

struct symbolizer;

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
 * accepted when its inode is the mapping's (when the mapping has one).  Its .symtab (or a separate
 * debuginfo's, found as libdw's standard search does) and .dynsym are used.
 *
 * Return: 0 (res->func may be NULL), or -ENOMEM.
 */
int symbolizer__user(struct symbolizer *s, const struct addrspaces *as, pid_t pid, uint64_t addr,
		     struct sym_result *res);

/**
 * symbolizer__kernel() - symbolize a kernel address through /proc/kallsyms
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
