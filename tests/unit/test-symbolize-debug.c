/*
 * test-symbolize-debug: stripped binaries named through their separate
 * debug files, as distributions ship them.  The test compiles a small -O2
 * -g program, strips it in every way the symbolizer must handle
 * (.gnu_debuglink beside it, in .debug/, under an extra debug directory;
 * build-id under .build-id/; a debug file whose CRC is wrong; MiniDebugInfo
 * in .gnu_debugdata) and maps it into a process that no longer exists, so
 * only the files themselves can answer.  Source lines and the inline chain
 * are checked against the program's known lines.
 */
#ifndef _GNU_SOURCE	/* config.h (-include) may define it already */
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "fixture-run.h"
#include "stack/addrspace.h"
#include "stack/symbolize.h"

/* A pid no process has (above PID_MAX_LIMIT): the binary is only a file. */
enum { GONE_PID = 0x7ffffff0 };
static const uint64_t BASE = 0x555500000000ULL;

/* Known lines: leaf's body is 5-6, middle calls leaf at 10, outer calls
 * middle at 14, hidden starts at 16. */
static const char prog_src[] =
	"/* prog.c */\n"							/* 1 */
	"static volatile int sink;\n"						/* 2 */
	"static inline __attribute__((always_inline)) int leaf(int x)\n"	/* 3 */
	"{\n"									/* 4 */
	"\tsink += x;\n"							/* 5 */
	"\treturn sink * 3;\n"							/* 6 */
	"}\n"									/* 7 */
	"static inline __attribute__((always_inline)) int middle(int x)\n"	/* 8 */
	"{\n"									/* 9 */
	"\treturn leaf(x) + sink;\n"						/* 10 */
	"}\n"									/* 11 */
	"__attribute__((noinline)) int outer(int x)\n"				/* 12 */
	"{\n"									/* 13 */
	"\treturn middle(x) + 1;\n"						/* 14 */
	"}\n"									/* 15 */
	"static __attribute__((noinline)) int hidden(int x)\n"			/* 16 */
	"{\n"									/* 17 */
	"\treturn x * sink + 7;\n"						/* 18 */
	"}\n"									/* 19 */
	"int main(int argc, char **argv)\n"					/* 20 */
	"{\n"									/* 21 */
	"\t(void)argv;\n"							/* 22 */
	"#ifdef OTHER\n"							/* 23 */
	"\tsink = OTHER;\n"							/* 24 */
	"#endif\n"								/* 25 */
	"\treturn outer(argc) + hidden(argc);\n"				/* 26 */
	"}\n";									/* 27 */

static char tmp[64];	/* the temporary directory */

struct prog_info {
	uint64_t outer, outer_size, hidden;
	GElf_Phdr loads[8];
	size_t nloads;
	unsigned char build_id[64];
	size_t build_id_len;
};


/* Symbols, PT_LOADs and build-id of the unstripped program. */
static int read_prog(const char *path, struct prog_info *pi)
{
	size_t nph, shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd = open(path, O_RDONLY);

	memset(pi, 0, sizeof(*pi));
	elf_version(EV_CURRENT);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &nph) || elf_getshdrstrndx(elf, &shstrndx)) {
		close(fd);
		return -1;
	}
	for (size_t i = 0; i < nph && pi->nloads < 8; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			pi->loads[pi->nloads++] = ph;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *name;

				if (!gelf_getsym(d, (int)i, &sym) || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
					continue;
				if (strcmp(name, "outer") == 0) {
					pi->outer = sym.st_value;
					pi->outer_size = sym.st_size;
				} else if (strcmp(name, "hidden") == 0) {
					pi->hidden = sym.st_value;
				}
			}
		} else if (sh.sh_type == SHT_NOTE && d->d_size > 16) {
			const unsigned char *p = d->d_buf;
			uint32_t namesz, descsz, type;

			memcpy(&namesz, p, 4);
			memcpy(&descsz, p + 4, 4);
			memcpy(&type, p + 8, 4);
			if (type == NT_GNU_BUILD_ID && namesz == 4 && descsz <= 64 && 16 + descsz <= d->d_size) {
				memcpy(pi->build_id, p + 16, descsz);
				pi->build_id_len = descsz;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return pi->outer && pi->hidden ? 0 : -1;
}

/* Map @path at BASE into GONE_PID as ld.so would. */
static struct addrspaces *map_prog(const char *path, const struct prog_info *pi)
{
	struct addrspaces *as = NULL;
	struct stat st;

	CHECK_EQ_U64(addrspaces__new(&as), 0);
	CHECK(stat(path, &st) == 0);
	for (size_t i = 0; as && i < pi->nloads; i++) {
		const GElf_Phdr *ph = &pi->loads[i];
		struct map m = {
			.start = BASE + (ph->p_vaddr & ~0xfffULL),
			.end = BASE + ((ph->p_vaddr + ph->p_memsz + 0xfff) & ~0xfffULL),
			.pgoff = ph->p_offset & ~0xfffULL,
			.prot = (ph->p_flags & PF_X ? PROT_EXEC : 0) | PROT_READ,
			.flags = MAP_PRIVATE,
			.maj = major(st.st_dev),
			.min = minor(st.st_dev),
			.ino = st.st_ino,
			.path = (char *)path,
		};

		CHECK_EQ_U64(addrspaces__add(as, GONE_PID, &m), 0);
	}
	return as;
}

static const char *fmt(struct symbolizer *s, const struct addrspaces *as, uint64_t addr, char *buf, size_t n)
{
	struct sym_result r;

	CHECK_EQ_U64(symbolizer__user(s, as, GONE_PID, addr, &r), 0);
	sym_result__format(&r, buf, n);
	return buf;
}

/* outer and hidden named, [unknown] when @named is false. */
static void check_names(struct symbolizer *s, const char *path, const struct prog_info *pi, bool named)
{
	struct addrspaces *as = map_prog(path, pi);
	const char *base = strrchr(path, '/') + 1;
	char want[PATH_MAX], buf[PATH_MAX];

	if (named)
		snprintf(want, sizeof(want), "outer+0x0 [%s]", base);
	else
		snprintf(want, sizeof(want), "[unknown] [%s]", base);
	CHECK_STR(fmt(s, as, BASE + pi->outer, buf, sizeof(buf)), want);
	if (named)
		snprintf(want, sizeof(want), "hidden+0x2 [%s]", base);
	CHECK_STR(fmt(s, as, BASE + pi->hidden + 2, buf, sizeof(buf)), want);
	addrspaces__free(as);
}

/* The inline chain somewhere in outer: leaf in middle in outer. */
static void check_srcline(struct symbolizer *s, const char *path, const struct prog_info *pi)
{
	struct addrspaces *as = map_prog(path, pi);
	struct sym_inline fr[8];
	char src[PATH_MAX];
	size_t n = 0;
	bool found = false;

	snprintf(src, sizeof(src), "%s/prog.c", tmp);
	for (uint64_t a = pi->outer; a < pi->outer + pi->outer_size && !found; a++) {
		CHECK_EQ_U64(symbolizer__srcline(s, as, GONE_PID, BASE + a, fr, 8, &n), 0);
		found = n == 3;
	}
	CHECK(found);
	if (found) {
		CHECK_STR(fr[0].func, "leaf");
		CHECK_STR(fr[0].file, src);
		CHECK(fr[0].line == 5 || fr[0].line == 6);
		CHECK_STR(fr[1].func, "middle");
		CHECK_STR(fr[1].file, src);
		CHECK_EQ_U64(fr[1].line, 10);
		CHECK_STR(fr[2].func, "outer");
		CHECK_STR(fr[2].file, src);
		CHECK_EQ_U64(fr[2].line, 14);
		printf("inline chain: %s %s:%u < %s:%u < %s:%u\n", fr[0].func, fr[0].file, fr[0].line,
		       fr[1].func, fr[1].line, fr[2].func, fr[2].line);
		/* A shorter array keeps the innermost levels. */
		for (uint64_t a = pi->outer; a < pi->outer + pi->outer_size; a++) {
			CHECK_EQ_U64(symbolizer__srcline(s, as, GONE_PID, BASE + a, fr, 8, &n), 0);
			if (n != 3)
				continue;
			CHECK_EQ_U64(symbolizer__srcline(s, as, GONE_PID, BASE + a, fr, 1, &n), 0);
			CHECK_EQ_U64(n, 1);
			CHECK_STR(fr[0].func, "leaf");
			break;
		}
	}
	/* No inlines in hidden: one level, its own. */
	CHECK_EQ_U64(symbolizer__srcline(s, as, GONE_PID, BASE + pi->hidden + 2, fr, 8, &n), 0);
	CHECK_EQ_U64(n, 1);
	if (n == 1) {
		CHECK_STR(fr[0].func, "hidden");
		CHECK_STR(fr[0].file, src);
		CHECK(fr[0].line >= 16 && fr[0].line <= 18);
	}
	addrspaces__free(as);
}

static void check_no_srcline(struct symbolizer *s, const char *path, const struct prog_info *pi)
{
	struct addrspaces *as = map_prog(path, pi);
	struct sym_inline fr[8];
	size_t n = 99;

	CHECK_EQ_U64(symbolizer__srcline(s, as, GONE_PID, BASE + pi->hidden + 2, fr, 8, &n), 0);
	CHECK_EQ_U64(n, 0);
	addrspaces__free(as);
}

static struct symbolizer *fresh(const char *debug_dir)
{
	struct symbolizer *s = NULL;

	CHECK_EQ_U64(symbolizer__new(&s), 0);
	if (s && debug_dir)
		CHECK_EQ_U64(symbolizer__add_debug_dir(s, debug_dir), 0);
	return s;
}

int main(void)
{
	struct prog_info pi, pi2;
	struct symbolizer *s;
	char hex[2 * 64 + 1], path[PATH_MAX], other[PATH_MAX];
	const char *oc = getenv("OBJCOPY") ? getenv("OBJCOPY") : "objcopy";
	FILE *fp;

	snprintf(tmp, sizeof(tmp), "/tmp/test-symbolize-debug-XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/prog.c", tmp);
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (!fp)
		return check_done("test-symbolize-debug");
	fputs(prog_src, fp);
	fclose(fp);
	if (fixture_run("cd %s && cc -O2 -g -Wl,--build-id -o prog prog.c && "
		"cc -O2 -g -Wl,--build-id=none -o prog-noid prog.c && "
		"cc -O2 -g -Wl,--build-id=none -DOTHER=5 -o prog-other prog.c && "
		"%s --only-keep-debug prog prog.debug && "
		"%s --only-keep-debug prog-noid prog-noid.debug && "
		"%s --only-keep-debug prog-other prog-other.debug", tmp, oc, oc, oc) != 0) {
		CHECK(!"compiling the test program");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/prog", tmp);
	CHECK(read_prog(path, &pi) == 0);
	CHECK(pi.build_id_len >= 2);
	snprintf(path, sizeof(path), "%s/prog-noid", tmp);
	CHECK(read_prog(path, &pi2) == 0);
	CHECK_EQ_U64(pi2.build_id_len, 0);
	for (size_t i = 0; i < pi.build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", pi.build_id[i]);

	/* .gnu_debuglink, debug file beside the binary. */
	CHECK(fixture_run("cd %s && mkdir a && cp prog.debug a/ && cd a && "
		  "%s --strip-all --add-gnu-debuglink=prog.debug ../prog prog-stripped", tmp, oc) == 0);
	snprintf(path, sizeof(path), "%s/a/prog-stripped", tmp);
	s = fresh(NULL);
	check_names(s, path, &pi, true);
	check_srcline(s, path, &pi);
	/* A copy (another inode) without a debug file of its own: the same
	 * build-id, so the binary opened above answers for it. */
	CHECK(fixture_run("cd %s && mkdir a2 && cp a/prog-stripped a2/prog-copy", tmp) == 0);
	snprintf(other, sizeof(other), "%s/a2/prog-copy", tmp);
	check_names(s, other, &pi, true);
	{
		struct addrspaces *as1 = map_prog(path, &pi), *as2 = map_prog(other, &pi);
		struct sym_result r1, r2;

		CHECK_EQ_U64(symbolizer__user(s, as1, GONE_PID, BASE + pi.outer, &r1), 0);
		CHECK_EQ_U64(symbolizer__user(s, as2, GONE_PID, BASE + pi.outer, &r2), 0);
		CHECK(r1.func && r1.func == r2.func);
		CHECK_STR(r2.module, "prog-copy");
		addrspaces__free(as1);
		addrspaces__free(as2);
	}
	symbolizer__free(s);
	/* ... while alone it has no symbols. */
	s = fresh(NULL);
	check_names(s, other, &pi, false);
	check_no_srcline(s, other, &pi);
	symbolizer__free(s);

	/* .gnu_debuglink, debug file in .debug/. */
	CHECK(fixture_run("cd %s && mkdir -p b/.debug && cp prog.debug b/.debug/ && cd b && "
		  "%s --strip-all --add-gnu-debuglink=../prog.debug ../prog prog-stripped", tmp, oc) == 0);
	snprintf(path, sizeof(path), "%s/b/prog-stripped", tmp);
	s = fresh(NULL);
	check_names(s, path, &pi, true);
	check_srcline(s, path, &pi);
	symbolizer__free(s);

	/* No debuglink: by build-id under an extra debug directory only. */
	CHECK(fixture_run("cd %s && mkdir -p c dbg/.build-id/%.2s && cp prog.debug dbg/.build-id/%.2s/%s.debug && "
		  "%s --strip-all prog c/prog-nolink", tmp, hex, hex, hex + 2, oc) == 0);
	snprintf(path, sizeof(path), "%s/c/prog-nolink", tmp);
	s = fresh(NULL);
	check_names(s, path, &pi, false);
	symbolizer__free(s);
	snprintf(other, sizeof(other), "%s/dbg", tmp);
	s = fresh(other);
	check_names(s, path, &pi, true);
	check_srcline(s, path, &pi);
	symbolizer__free(s);

	/* .gnu_debuglink under an extra debug directory + the binary's
	 * directory, as /usr/lib/debug/usr/bin/x.debug. */
	CHECK(fixture_run("cd %s && mkdir -p d dbg2%s/d && cp prog.debug dbg2%s/d/ && cd d && "
		  "%s --strip-all --add-gnu-debuglink=../prog.debug ../prog prog-stripped",
		  tmp, tmp, tmp, oc) == 0);
	snprintf(path, sizeof(path), "%s/d/prog-stripped", tmp);
	snprintf(other, sizeof(other), "%s/dbg2", tmp);
	s = fresh(other);
	check_names(s, path, &pi, true);
	symbolizer__free(s);

	/* No build-id: the CRC alone accepts the right debug file ... */
	CHECK(fixture_run("cd %s && mkdir e f && cp prog-noid.debug e/ && cp prog-noid.debug f/ && "
		  "cd e && %s --strip-all --add-gnu-debuglink=prog-noid.debug ../prog-noid prog-stripped && "
		  "cd ../f && %s --strip-all --add-gnu-debuglink=prog-noid.debug ../prog-noid prog-stripped && "
		  "cp ../prog-other.debug prog-noid.debug", tmp, oc, oc) == 0);
	snprintf(path, sizeof(path), "%s/e/prog-stripped", tmp);
	s = fresh(NULL);
	check_names(s, path, &pi2, true);
	symbolizer__free(s);
	/* ... and refuses another build's under the same name. */
	snprintf(path, sizeof(path), "%s/f/prog-stripped", tmp);
	s = fresh(NULL);
	check_names(s, path, &pi2, false);
	check_no_srcline(s, path, &pi2);
	symbolizer__free(s);
	{
		struct symbolizer *t = fresh(NULL);

		CHECK_EQ_U64(symbolizer__add_debug_dir(t, ""), -EINVAL);
		CHECK_EQ_U64(symbolizer__add_debug_dir(t, "/a:/b"), -EINVAL);
		symbolizer__free(t);
	}

	/* MiniDebugInfo: function symbols in an xz-compressed ELF inside
	 * .gnu_debugdata, as Fedora ships binaries.  libdw reads it. */
	if (fixture_run("command -v xz >/dev/null") != 0) {
		printf("no xz: MiniDebugInfo check skipped\n");
	} else {
		CHECK(fixture_run("cd %s && mkdir g && cd g && "
			  "nm --format=posix --defined-only ../prog | awk '$2 ~ /^[Tt]$/ {print $1}' > funcs && "
			  "%s --only-keep-debug ../prog mini && "
			  "%s -S --remove-section .gdb_index --remove-section .comment --keep-symbols=funcs mini mini2 && "
			  "xz -f mini2 && %s --strip-all ../prog prog-mini && "
			  "%s --add-section .gnu_debugdata=mini2.xz prog-mini", tmp, oc, oc, oc, oc) == 0);
		snprintf(path, sizeof(path), "%s/g/prog-mini", tmp);
		s = fresh(NULL);
		check_names(s, path, &pi, true);
		/* Symbols only: no source lines. */
		check_no_srcline(s, path, &pi);
		symbolizer__free(s);
	}
out:
	fixture_run("rm -rf %s", tmp);
	return check_done("test-symbolize-debug");
}
