/*
 * elf-sym: what placing a uprobe needs from an ELF file, and nothing more.
 *
 * tracefs uprobes are written as "PATH:0xFILE_OFFSET", so a function symbol
 * has to be turned into a file offset (not a virtual address), through the
 * PT_LOAD segment that contains it.  The library the user names ("c",
 * "libc", "libc.so.6") has to become the path the target process really
 * maps.  Build-ids identify a binary across paths and containers.
 *
 * "Not found" is always -ENOENT and never anything else, so callers can try
 * a fallback symbol or library; every other failure is a different -errno
 * with the detail (which file, why) in the errbuf.
 */
#ifndef FAULTLINE_ELF_SYM_H
#define FAULTLINE_ELF_SYM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/errbuf.h"

/**
 * elf_sym__offset() - file offset of a function symbol, as uprobes want it
 * @path: ELF file (executable or shared object)
 * @symbol: plain name; a versioned .symtab name ("malloc@@GLIBC_2.2.5")
 *          matches "malloc"; @symbol may itself carry a version
 *          ("memcpy@GLIBC_2.2.5") to pick that one
 * @file_offset: out
 * @eb: detail on failure (may be NULL)
 *
 * Looks in .symtab, then .dynsym; only defined STT_FUNC/STT_GNU_IFUNC
 * symbols count (for an IFUNC this is the resolver: probe the implementation
 * instead).  Global and weak symbols win over local ones, and in .dynsym the
 * default version wins over hidden older ones.
 *
 * Return: 0; -ENOENT when the file has no such function (and only then);
 * -ENXIO when @path does not exist; -ENOEXEC when it is not ELF; other
 * -errno for I/O or ELF errors.
 */
int elf_sym__offset(const char *path, const char *symbol, uint64_t *file_offset, struct errbuf *eb);

/* elf_sym__offset() that also gives the function's size in bytes
 * (st_size: 0 when the symbol table does not say). */
int elf_sym__function(const char *path, const char *symbol, uint64_t *file_offset,
		      uint64_t *size, struct errbuf *eb);

/**
 * elf_sym__build_id() - GNU build-id note as lowercase hex
 * @path: ELF file
 * @buf: out, NUL-terminated; 41 bytes holds a SHA-1 build-id
 * @n: size of @buf
 * @eb: detail on failure (may be NULL)
 *
 * Return: 0; -ENOENT when the file has no build-id note; -ENOSPC when @buf is
 * too small; -ENXIO/-ENOEXEC/-errno as elf_sym__offset().
 */
int elf_sym__build_id(const char *path, char *buf, size_t n, struct errbuf *eb);

/**
 * elf_sym__resolve_library() - the file a process maps (or would map) for a library name
 * @pid: process whose mappings are searched first; 0 for none
 * @name: "c", "libc", "libc.so.6", "ld-linux-x86-64.so.2" or an absolute path
 * @out: out, the path (NUL-terminated)
 * @n: size of @out
 * @eb: detail on failure (may be NULL)
 *
 * An absolute @name is returned as is once it exists.  Otherwise the
 * mappings of @pid are searched for a file whose basename is @name or
 * lib@name, optionally followed by ".so..." or "-<digit>..." (so "c" matches
 * libc.so.6 and the older libc-2.31.so, never libcrypto.so).  A library
 * found there whose path names another file here, or none (a container),
 * is returned as "/proc/PID/root/..." (its path inside the process's
 * root), else as "/proc/PID/map_files/START-END": what the kernel needs to
 * place a uprobe on the inode the process maps.  Without @pid, or when the
 * process does not map it, the standard library directories are scanned for
 * such a name that is an ELF file (so the libc.so linker script of -dev
 * packages is skipped), shortest name first.
 *
 * Return: 0; -ENOENT when nothing matches; -ENAMETOOLONG when @out is too
 * small; other -errno on I/O errors.
 */
int elf_sym__resolve_library(pid_t pid, const char *name, char *out, size_t n, struct errbuf *eb);

/* The standard library directories, as ld.so searches them last, ':'
 * separated (the Debian multiarch one first where there is one). */
#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH "i386-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MULTIARCH "powerpc64le-linux-gnu"
#elif defined(__s390x__)
#define MULTIARCH "s390x-linux-gnu"
#endif
#ifdef MULTIARCH
#define ELF_SYM_LIB_DIRS "/lib/" MULTIARCH ":/usr/lib/" MULTIARCH ":/lib64:/usr/lib64:/lib:/usr/lib"
#else
#define ELF_SYM_LIB_DIRS "/lib64:/usr/lib64:/lib:/usr/lib"
#endif

struct map;
/**
 * elf_sym__mapped_file() - the path that names the file of @pid's mapping
 * @m for a uprobe or a read: the plain path when it is that very file, else
 * the path through the process's root (a chroot's prefix dropped), else its
 * /proc/PID/map_files entry.  The file is known by device and inode from
 * map_files, or from the root path with the mapping's inode, so a library
 * in a container is never confused with a file of the same path on the
 * host.
 *
 * Return: 0; -ENOENT when none is that file; -ENAMETOOLONG.
 */
int elf_sym__mapped_file(pid_t pid, const struct map *m, char *out, size_t n, struct errbuf *eb);

#endif
