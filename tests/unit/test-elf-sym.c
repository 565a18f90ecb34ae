/*
 * test-elf-sym: symbol -> file offset checked against where the dynamic
 * linker really put the symbol in this process (address - mapping start +
 * mapping offset, from /proc/self/maps), library resolution, build-ids
 * checked against the note the loader mapped, and "not found" kept distinct
 * from errors.
 */
#ifndef _GNU_SOURCE	/* config.h (-include) may define it already */
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "elf-fixture.h"
#include "stack/elf-sym.h"

/* The file offset of a loaded address, from /proc/self/maps; 0 if unmapped. */
static uint64_t mapped_offset(const void *addr, char *path, size_t n)
{
	uint64_t a = (uint64_t)(uintptr_t)addr, start, end, pgoff, result = 0;
	char line[4096];
	FILE *fp = fopen("/proc/self/maps", "r");

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		int pos = 0;

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*u %n", &start, &end, &pgoff, &pos) < 3)
			continue;
		if (a >= start && a < end) {
			result = a - start + pgoff;
			if (path) {
				snprintf(path, n, "%s", line + pos);
				path[strcspn(path, "\n")] = '\0';
			}
			break;
		}
	}
	fclose(fp);
	return result;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void check_offset(const char *lib, void *handle, const char *sym, const char *version)
{
	char want[128], mapped_path[4096] = "";
	struct errbuf eb = { "" };
	void *addr = version ? dlvsym(handle, sym, version) : dlsym(handle, sym);
	uint64_t off = 0, expect;
	int err;

	snprintf(want, sizeof(want), "%s%s%s", sym, version ? "@" : "", version ? version : "");
	err = elf_sym__offset(lib, want, &off, &eb);
	if (!addr) {
		/* Not exported (e.g. __brk): only findable with a .symtab. */
		CHECK(err == 0 || err == -ENOENT);
		printf("%s: not exported, elf_sym__offset -> %d (%s)\n", want, err, errbuf__str(&eb, err));
		return;
	}
	expect = mapped_offset(addr, mapped_path, sizeof(mapped_path));
	CHECK(expect != 0);
	CHECK(same_file(mapped_path, lib));
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(off, expect);
	printf("%s: file offset 0x%llx (expected 0x%llx)\n", want, (unsigned long long)off,
	       (unsigned long long)expect);
}

static __attribute__((noinline)) int exe_local_function(int x)
{
	return x + 42;
}

/* The build-id of the running libc, read from its PT_NOTE in memory. */
struct note_search {
	const char *want;	/* basename */
	char hex[128];
};

static int find_note(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct note_search *ns = arg;
	const char *base = strrchr(info->dlpi_name, '/');

	if (!base || strcmp(base + 1, ns->want) != 0)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			const char *name = p + sizeof(*nh);
			const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
				for (unsigned j = 0; j < nh->n_descsz && j < 60; j++)
					snprintf(ns->hex + 2 * j, 3, "%02x", desc[j]);
				return 1;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

int main(void)
{
	char libc[PATH_MAX], other[PATH_MAX], exe[PATH_MAX], buf[64], tmp[] = "/tmp/test-elf-sym-XXXXXX";
	struct errbuf eb = { "" };
	struct note_search ns = { .want = "libc.so.6" };
	uint64_t off = 0, off2 = 0;
	void *handle;
	ssize_t len;
	int fd, err;

	/* Resolution without a process: the standard directories. */
	CHECK_EQ_U64(elf_sym__resolve_library(0, "c", libc, sizeof(libc), &eb), 0);
	printf("libc: %s\n", libc);
	CHECK_STR(strrchr(libc, '/'), "/libc.so.6");
	CHECK_EQ_U64(elf_sym__resolve_library(0, "libc", other, sizeof(other), &eb), 0);
	CHECK(same_file(other, libc));
	CHECK_EQ_U64(elf_sym__resolve_library(0, "libc.so.6", other, sizeof(other), &eb), 0);
	CHECK(same_file(other, libc));
	/* "libc.so" is the -dev linker script; the ELF libc.so.6 must win. */
	CHECK_EQ_U64(elf_sym__resolve_library(0, "libc.so", other, sizeof(other), &eb), 0);
	CHECK(same_file(other, libc));
	CHECK_EQ_U64(elf_sym__resolve_library(0, "ld-linux-x86-64.so.2", other, sizeof(other), &eb), 0);
	CHECK(strstr(other, "ld-linux-x86-64.so.2") != NULL);
	/* Through our own maps: the path the process really maps. */
	CHECK_EQ_U64(elf_sym__resolve_library(getpid(), "c", other, sizeof(other), &eb), 0);
	printf("libc mapped by us: %s\n", other);
	CHECK(same_file(other, libc));
	/* Absolute paths pass through; missing things are -ENOENT. */
	CHECK_EQ_U64(elf_sym__resolve_library(0, libc, other, sizeof(other), &eb), 0);
	CHECK_STR(other, libc);
	CHECK_EQ_U64(elf_sym__resolve_library(0, "/nonexistent/libz.so", other, sizeof(other), &eb),
		     (uint64_t)-ENOENT);
	errbuf__clear(&eb);
	CHECK_EQ_U64(elf_sym__resolve_library(getpid(), "no-such-library-xyz", other, sizeof(other), &eb),
		     (uint64_t)-ENOENT);
	CHECK(strstr(eb.msg, "no-such-library-xyz") != NULL);
	CHECK_EQ_U64(elf_sym__resolve_library(0, "c", other, 4, &eb), (uint64_t)-ENAMETOOLONG);

	/* Offsets match where ld.so put the symbols. */
	handle = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	CHECK(handle != NULL);
	if (handle) {
		check_offset(libc, handle, "malloc", NULL);
		check_offset(libc, handle, "__brk", NULL);
		check_offset(libc, handle, "brk", NULL);
		check_offset(libc, handle, "mmap", NULL);
		check_offset(libc, handle, "munmap", NULL);
		/* Two versions: plain name = default version; asking picks. */
		check_offset(libc, handle, "realpath", NULL);
		check_offset(libc, handle, "realpath", "GLIBC_2.2.5");
		check_offset(libc, handle, "realpath", "GLIBC_2.3");
		dlclose(handle);
	}
	CHECK_EQ_U64(elf_sym__offset(libc, "malloc", &off, &eb), 0);
	CHECK_EQ_U64(elf_sym__offset(libc, "malloc@@GLIBC_2.2.5", &off2, &eb), 0);
	CHECK_EQ_U64(off2, off);
	CHECK_EQ_U64(elf_sym__offset(libc, "malloc@GLIBC_9.9", &off2, &eb), (uint64_t)-ENOENT);

	/* A local function of our own executable: found in .symtab. */
	CHECK_EQ_U64(exe_local_function(0), 42);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(len > 0);
	exe[len > 0 ? len : 0] = '\0';
	CHECK_EQ_U64(elf_sym__offset(exe, "exe_local_function", &off, &eb), 0);
	CHECK_EQ_U64(off, mapped_offset((void *)exe_local_function, NULL, 0));

	/* Code whose vaddr is not its file offset. */
	{
		char fixture[] = "/tmp/test-elf-sym-fixture-XXXXXX";
		int ffd = mkstemp(fixture);

		CHECK(ffd >= 0);
		close(ffd);
		CHECK(write_fixture_elf(fixture) == 0);
		CHECK_EQ_U64(elf_sym__offset(fixture, "fixture_func", &off, &eb), 0);
		CHECK_EQ_U64(off, 0x1020);
		CHECK_EQ_U64(elf_sym__offset(fixture, "fixture_other", &off, &eb), 0);
		CHECK_EQ_U64(off, 0x1080);
		CHECK_EQ_U64(elf_sym__build_id(fixture, buf, sizeof(buf), &eb), (uint64_t)-ENOENT);
		unlink(fixture);
	}

	/* Not found vs errors. */
	errbuf__clear(&eb);
	CHECK_EQ_U64(elf_sym__offset(libc, "no_such_function_xyz", &off, &eb), (uint64_t)-ENOENT);
	CHECK(strstr(eb.msg, "no_such_function_xyz") != NULL);
	CHECK_EQ_U64(elf_sym__offset(libc, "environ", &off, &eb), (uint64_t)-ENOENT);	/* data, not a function */
	fd = mkstemp(tmp);
	CHECK(fd >= 0);
	CHECK(write(fd, "#!/bin/sh\necho not elf\n", 23) == 23);
	close(fd);
	errbuf__clear(&eb);
	err = elf_sym__offset(tmp, "malloc", &off, &eb);
	CHECK_EQ_U64(err, (uint64_t)-ENOEXEC);
	CHECK(strstr(eb.msg, tmp) != NULL);
	CHECK_EQ_U64(elf_sym__build_id(tmp, buf, sizeof(buf), &eb), (uint64_t)-ENOEXEC);
	unlink(tmp);
	err = elf_sym__offset("/nonexistent/lib.so", "malloc", &off, &eb);
	CHECK(err < 0 && err != -ENOENT);
	CHECK_EQ_U64(err, (uint64_t)-ENXIO);

	/* Build-id: the same as the note the loader mapped. */
	CHECK_EQ_U64(elf_sym__build_id(libc, buf, sizeof(buf), &eb), 0);
	CHECK_EQ_U64(strlen(buf), 40);
	CHECK_EQ_U64(strspn(buf, "0123456789abcdef"), 40);
	CHECK(dl_iterate_phdr(find_note, &ns) == 1);
	CHECK_STR(buf, ns.hex);
	printf("libc build-id %s\n", buf);
	CHECK_EQ_U64(elf_sym__build_id(libc, buf, 40, &eb), (uint64_t)-ENOSPC);
	if (access("/usr/lib/x86_64-linux-gnu/crti.o", R_OK) == 0)	/* relocatable: no build-id */
		CHECK_EQ_U64(elf_sym__build_id("/usr/lib/x86_64-linux-gnu/crti.o", buf, sizeof(buf), &eb),
			     (uint64_t)-ENOENT);
	return check_done("test-elf-sym");
}
