/*
 * alloc-find: which object of a process provides its malloc, and which
 * allocator that is.
 *
 * A program's calls to malloc go to the first object in the dynamic
 * linker's search order that defines it: the executable (a static
 * program, or one with jemalloc or tcmalloc linked in), then what
 * LD_PRELOAD names, then the libraries in breadth-first DT_NEEDED order.
 * Probing libc.so.6 by name, as leak did, traced nothing of a `gcc
 * -static` program (it never maps libc.so.6) and nothing of a preloaded
 * jemalloc; this module walks that order instead, for a running process
 * (its maps, its LD_PRELOAD, /etc/ld.so.preload) or for a command about to
 * be executed (its ELF file, the LD_PRELOAD and LD_LIBRARY_PATH it
 * inherits, /etc/ld.so.preload, RPATH and
 * RUNPATH, /etc/ld.so.cache and the default directories, as ld.so
 * searches them).
 *
 * An object "provides malloc" when it defines malloc as a global or weak
 * function: in .dynsym for a shared object (what ld.so binds to), in
 * .symtab or .dynsym for the executable.  The allocator is told by other
 * symbols it defines: tc_malloc (tcmalloc), mi_malloc (mimalloc), mallocx
 * (jemalloc), __libc_calloc (glibc), __libc_malloc_impl (musl); otherwise
 * it is taken for a plain C allocator and probed with musl's spec (the
 * standard functions, nothing of glibc's internals).
 *
 * A library dlopen'ed later (after the process was attached, or the
 * command started) is not in that order: alloc-trace asks
 * allocator__identify() of each object a traced process maps once it runs,
 * and probes the new ones from then on.  A program a traced process
 * exec's (a command that enters a container, whose libc is the
 * container's) is asked the same of the objects it maps until the first
 * that defines malloc: ld.so maps them in the order above.
 *
 * Not seen: what such a library allocated before its mapping was read
 * (the moment it is probed), and an allocator that is not an ELF object's
 * exported malloc (a JIT's, Python's arenas).
 */
#ifndef FAULTLINE_ALLOC_FIND_H
#define FAULTLINE_ALLOC_FIND_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "lib/errbuf.h"

struct allocator {
	char path[PATH_MAX];	/* the object, a path the kernel opens (maybe /proc/PID/root/...) */
	const char *spec;	/* its probe spec: "glibc", "musl", "jemalloc", "tcmalloc", "mimalloc" */
	const char *name;	/* the allocator, as told: "glibc", "musl", "jemalloc"... */
	const char *where;	/* "static", "linked in", "preloaded", "library" */
};

/**
 * allocator__find_pid() - the allocator process @pid calls
 * @out: filled in on success
 *
 * Return: 0; -ENOENT when no object it maps defines malloc (detail: what
 * was looked at); -ESRCH when the process is gone; other -errno.
 */
int allocator__find_pid(pid_t pid, struct allocator *out, struct errbuf *eb);

/**
 * allocator__find_exec() - the allocator a program will call once exec'd
 * @exe:     the file to be executed (a "#!" script: its interpreter)
 * @preload: the LD_PRELOAD it will have, or NULL
 * @libpath: its LD_LIBRARY_PATH, or NULL
 * @out:     filled in on success
 *
 * Return: 0; -ENOENT when none of its objects defines malloc (a static
 * program without one); -ENOEXEC when @exe is neither ELF nor a script;
 * -ENXIO when it does not exist; other -errno.
 */
int allocator__find_exec(const char *exe, const char *preload, const char *libpath,
			 struct allocator *out, struct errbuf *eb);

/**
 * allocator__identify() - whether the object at @path (a shared object)
 * defines malloc, and which allocator it is
 * @where: what out->where says ("dlopen'ed")
 *
 * Return: 0, @out filled (out->path is @path); -ENOENT when it defines no
 * malloc; -ENOEXEC when it is no ELF file; other -errno of open(2).
 */
int allocator__identify(const char *path, const char *where, struct allocator *out);

#endif
