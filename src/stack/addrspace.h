/*
 * addrspace: the memory maps of every traced process, kept current from perf
 * side-band records.
 *
 * A stack is symbolized at report time, often after its process exited, so
 * /proc/PID/maps cannot be read then: maps are loaded once when a process is
 * first seen and then follow PERF_RECORD_MMAP2 (new mapping), FORK (copy)
 * and COMM|exec (a new image).  EXIT keeps them, on purpose.  Keyed by
 * tgid: all threads share one address space.
 *
 * Images.  An exec replaces a process's whole address space, but the
 * stacks unwound before it (setarch's, under `-c 'setarch -R PROG'`) are
 * named at report time, after it.  So each image has a number, the stack
 * db keeps it beside the stack (addrspaces__pin_image() at unwind time),
 * and an exec keeps the old image when a stack was unwound in it: retired,
 * under an alias, a negative number that is no process's, which every
 * function here takes where it takes a pid (addrspaces__image_pid() gives
 * it).  A fork child's image is its parent's until it execs, so the stacks
 * of a parent and its children intern once.
 *
 * Deleted files: the kernel appends " (deleted)" to the path of a mapped
 * file that was unlinked, both in /proc/PID/maps and in MMAP2 records.  We
 * strip that suffix from the path and set map.deleted instead, so the path
 * stays the file's real name and the symbolizer knows not to open a new file
 * that now has that name.
 */
#ifndef FAULTLINE_ADDRSPACE_H
#define FAULTLINE_ADDRSPACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct map {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start, bytes */
	uint32_t prot;		/* PROT_READ|PROT_WRITE|PROT_EXEC */
	uint32_t flags;		/* MAP_SHARED or MAP_PRIVATE */
	uint32_t maj, min;	/* device of the file, 0:0 for anonymous */
	uint64_t ino;
	char *path;		/* NULL for anonymous; "[heap]", "[stack]", "[vdso]" kept */
	bool deleted;		/* the file was unlinked; " (deleted)" is not in path */
	/* The file's GNU build-id when a recording says it (replay: how its
	 * binary is found on another host); 0 bytes live. */
	uint8_t build_id_size;
	uint8_t build_id[20];
};

/**
 * map__parse_line() - parse one /proc/PID/maps line
 * @line: "start-end perms offset maj:min inode [path]", with or without '\n'
 * @m: out; m->path is malloc'ed (or NULL), release with map__clear()
 *
 * Paths may contain spaces (everything after the inode, leading padding
 * dropped, is the path).  A trailing " (deleted)" sets m->deleted.
 *
 * Return: 0, -EINVAL on a malformed line (*m untouched), -ENOMEM.
 */
int map__parse_line(const char *line, struct map *m);

/**
 * map__clear() - free m->path and zero *m
 * @m: may be NULL
 */
void map__clear(struct map *m);

/* Anonymous memory named by no file: no path (/proc/PID/maps), perf's
 * "//anon" (MMAP2 records), or a prctl(PR_SET_VMA_ANON_NAME) "[anon:...]".
 * [heap] and [stack] have names of their own and are not counted here. */
bool map__anonymous(const struct map *m);
/*
 * Whether a page of @m lives in swap when it is not in memory: anonymous
 * memory (heap, stack, MAP_ANONYMOUS) and shmem (MAP_SHARED|MAP_ANONYMOUS
 * shows as /dev/zero, SysV segments as /SYSV*, memfd, /dev/shm).  A file
 * on disk is read from its file, never from swap; a written page of a
 * private file mapping is anonymous, yet cannot be told from the file's
 * own pages here, so it is left out.
 */
bool map__swap_backed(const struct map *m);
/* The uprobes page ("[uprobes]": out-of-line single-step slots and the
 * uretprobe trampoline), which a tracer's probes add to the process. */
bool map__uprobes(const struct map *m);

struct addrspaces;

/**
 * addrspaces__new() - empty set of address spaces
 * @out: out; free with addrspaces__free()
 *
 * Return: 0 or -ENOMEM.
 */
int addrspaces__new(struct addrspaces **out);

/**
 * addrspaces__free() - free every process's maps
 * @as: may be NULL
 */
void addrspaces__free(struct addrspaces *as);

/**
 * addrspaces__load_pid() - (re)load a process's maps from procfs
 * @as: address spaces
 * @pid: tgid
 * @procfs: procfs root; NULL for "/proc" (tests pass fixture trees)
 *
 * Replaces whatever was known for @pid; on error what was known stays.  A
 * line that does not parse is skipped rather than failing the whole load:
 * one odd mapping must not cost a process all its symbols.  A process
 * without mappings (kernel thread, zombie) becomes known with none.
 *
 * Return: 0, -ESRCH when the process is gone, -ENOMEM, other -errno on
 * read errors.
 */
int addrspaces__load_pid(struct addrspaces *as, pid_t pid, const char *procfs);

/**
 * addrspaces__add() - record a new mapping (PERF_RECORD_MMAP2 or MMAP)
 * @as: address spaces
 * @pid: tgid; becomes known if it was not
 * @m: the mapping; copied (the path too), so the caller keeps ownership.
 *     A path ending in " (deleted)" is normalised as in map__parse_line().
 *
 * Whatever overlapped [m->start, m->end) is replaced: mappings partly
 * covered are trimmed or split, with the pgoff of a right-hand remainder
 * advanced as the kernel does when it splits a VMA.
 *
 * Return: 0, -EINVAL when m->end <= m->start, -ENOMEM (nothing changed).
 */
int addrspaces__add(struct addrspaces *as, pid_t pid, const struct map *m);

/**
 * addrspaces__fork() - a new process starts with a copy of its parent's maps
 * @as: address spaces
 * @parent: tgid of the parent
 * @child: tgid of the child; what was known for it is replaced
 *
 * A new thread (perf FORK with pid == ppid) shares its maps: @parent ==
 * @child is a no-op.
 *
 * Return: 0, -ESRCH when @parent is not known (load the child from procfs
 * instead), -ENOMEM (nothing changed).
 */
int addrspaces__fork(struct addrspaces *as, pid_t parent, pid_t child);

/**
 * addrspaces__exec() - the process replaced its image
 * @as: address spaces
 * @pid: tgid
 *
 * It gets a new image with no maps and stays known, since the MMAP2
 * records of the new image follow the COMM|exec record.  The old maps
 * go, or are retired when a stack was unwound in them (pinned).
 *
 * Return: the alias the old image is kept under, or 0 when none is.
 */
pid_t addrspaces__exec(struct addrspaces *as, pid_t pid);

/**
 * addrspaces__pin_image() - the number of @pid's current image, kept
 * @as: address spaces
 * @pid: tgid
 *
 * Called for each stack unwound in @pid: an exec then keeps the image
 * (retired) for naming that stack.  Numbers start at 1 and are never
 * reused; a fork child shares its parent's until it execs.
 *
 * Return: the image, 0 when @pid is unknown.
 */
uint32_t addrspaces__pin_image(struct addrspaces *as, pid_t pid);

/**
 * addrspaces__image_pid() - where a stack of @pid's unwound in @image is named
 * @as: address spaces
 * @pid: tgid
 * @image: from addrspaces__pin_image(); 0 for "the current one"
 *
 * Return: @pid while @image is its current image (or unknown, or was not
 * kept), else the alias of the retired image: pass it where a pid goes.
 */
pid_t addrspaces__image_pid(const struct addrspaces *as, pid_t pid, uint32_t image);

/**
 * addrspaces__find() - the mapping covering an address
 * @as: address spaces
 * @pid: tgid
 * @addr: user address
 *
 * Return: the mapping, owned by @as and valid until the next change to
 * @pid's maps; NULL when @pid is unknown or nothing covers @addr.
 */
const struct map *addrspaces__find(const struct addrspaces *as, pid_t pid, uint64_t addr);

/**
 * addrspaces__known() - whether @pid has maps on record (possibly none)
 * @as: address spaces
 * @pid: tgid
 */
bool addrspaces__known(const struct addrspaces *as, pid_t pid);


/*
 * A descriptor of the file behind m when it is an executable mapping that
 * is deleted, or whose path names another file here or none (a
 * container's), that faultline opened while a process mapping it lived (at
 * load or MMAP2 time), else -1.  Owned by as: do not close; open "/proc/self/fd/N" for a
 * description of your own.
 */
int addrspaces__kept_fd(const struct addrspaces *as, const struct map *m);

/* A number that changes when pid's executable mappings do (load, fork,
 * exec, an executable mapping added or overlapped), 0 for an unknown pid:
 * what per-process caches (unwinding contexts, symbol names) compare to
 * know when to rebuild. */
uint64_t addrspaces__code_generation(const struct addrspaces *as, pid_t pid);

/* All of pid's maps, sorted by start (*n = 0 and NULL when unknown).  Valid
 * until the next change of that pid. */
const struct map *addrspaces__maps(const struct addrspaces *as, pid_t pid, size_t *n);
/* @pid's uprobes page (map__uprobes()): [*lo, *hi).  False when it has
 * none (no uprobe hit it yet) or is unknown.  Found again only when its
 * executable mappings changed (addrspaces__code_generation()). */
bool addrspaces__uprobes_page(const struct addrspaces *as, pid_t pid, uint64_t *lo, uint64_t *hi);

#endif
