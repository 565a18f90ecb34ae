/*
 * test-symindex: the symbol index on a shared object assembled here (x86
 * gas syntax), with the cases that decide libdwfl's answer laid out by
 * hand: a local function inside a global one (the globals' pass answers
 * first), a global and a weak alias (shown by the better name), a
 * sizeless label past a function's end, a local function alone, and a gap
 * no symbol covers.  Each answer is checked as the exact name and start,
 * and against dwfl_module_addrinfo(): the same start, its own name.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "check.h"
#include "fixture-run.h"
#include "stack/symindex.h"

static const char source[] =
	"	.text\n"
	"	.globl outer\n"
	"	.type outer, @function\n"
	"outer:\n"
	"	.skip 0x10\n"
	"	.type inner, @function\n"
	"inner:\n"
	"	.skip 0x30\n"
	"	.size inner, 0x10\n"
	"	.size outer, 0x40\n"
	"	.globl __libc_twin\n"
	"	.type __libc_twin, @function\n"
	"__libc_twin:\n"
	"	.weak twin\n"
	"	.type twin, @function\n"
	"twin:\n"
	"	.skip 0x20\n"
	"	.size __libc_twin, 0x20\n"
	"	.size twin, 0x20\n"
	"label_after:\n"
	"	.skip 0x10\n"
	"	.type only_local, @function\n"
	"only_local:\n"
	"	.skip 0x10\n"
	"	.size only_local, 0x10\n"
	"	.skip 0x10\n"
	"	.globl tail\n"
	"	.type tail, @function\n"
	"tail:\n"
	"	.skip 0x10\n"
	"	.size tail, 0x10\n";

/* The address of the symbol @name in @mod; 0 when none. */
static uint64_t addr_of(Dwfl_Module *mod, const char *name)
{
	int n = dwfl_module_getsymtab(mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *s = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);

		if (s && strcmp(s, name) == 0)
			return addr;
	}
	return 0;
}

/* @addr is in @name (NULL: none) starting at @start, for us and libdwfl. */
static void expect(const struct symindex *x, Dwfl_Module *mod, uint64_t addr, const char *name,
		   const char *dwfl_name, uint64_t start)
{
	const struct symindex_sym *f = symindex__lookup(x, addr);
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *theirs = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);

	if (!name) {
		CHECK(f == NULL);
		CHECK(theirs == NULL);
		return;
	}
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_STR(f->name, name);
	CHECK_EQ_U64(f->value, start);
	CHECK_STR(theirs, dwfl_name);
	CHECK_EQ_U64(addr - off, start);
}

int main(void)
{
	static const Dwfl_Callbacks cb = { .find_elf = dwfl_build_id_find_elf,
					   .find_debuginfo = dwfl_standard_find_debuginfo,
					   .section_address = dwfl_offline_section_address };
	char tmp[] = "/tmp/test-symindex-XXXXXX", path[PATH_MAX];
	struct symindex *x = NULL;
	Dwfl_Module *mod = NULL;
	Dwfl *dwfl = NULL;
	uint64_t outer, twin, label, local, tail;

	CHECK(mkdtemp(tmp) != NULL);
	snprintf(path, sizeof(path), "%s/fix.s", tmp);
	check_put(path, "w", source);
	if (fixture_run("cd %s && cc -shared -nostdlib -o fix.so fix.s", tmp) != 0) {
		CHECK(!"assembled");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/fix.so", tmp);
	dwfl = dwfl_begin(&cb);
	CHECK(dwfl != NULL);
	if (!dwfl)
		goto out;
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, "fix.so", path, -1, 0, false);
	dwfl_report_end(dwfl, NULL, NULL);
	CHECK(mod != NULL);
	if (!mod)
		goto out;
	CHECK_EQ_U64(symindex__build(mod, &x), 0);
	CHECK(x != NULL);
	if (!x)
		goto out;
	outer = addr_of(mod, "outer");
	twin = addr_of(mod, "twin");
	label = addr_of(mod, "label_after");
	local = addr_of(mod, "only_local");
	tail = addr_of(mod, "tail");
	CHECK(outer && twin == outer + 0x40 && label == twin + 0x20 && local == label + 0x10 &&
	      tail == local + 0x20);
	CHECK_EQ_U64(addr_of(mod, "__libc_twin"), twin);

	expect(x, mod, outer, "outer", "outer", outer);
	/* inner is local: the globals' pass has outer first. */
	expect(x, mod, outer + 0x14, "outer", "outer", outer);
	expect(x, mod, outer + 0x3f, "outer", "outer", outer);
	/* Two aliases: libdwfl picks the global __libc_twin over the weak
	 * twin, which is shown (fewer underscores). */
	expect(x, mod, twin + 4, "twin", "__libc_twin", twin);
	/* Past twin's end, no sized symbol: the label at the highest end. */
	expect(x, mod, label + 4, "label_after", "label_after", label);
	expect(x, mod, local + 8, "only_local", "only_local", local);
	/* The gap after only_local: nothing, although tail follows. */
	expect(x, mod, local + 0x18, NULL, NULL, 0);
	expect(x, mod, tail + 0xf, "tail", "tail", tail);
	expect(x, mod, tail + 0x10, NULL, NULL, 0);
out:
	symindex__free(x);
	symindex__free(NULL);
	if (dwfl)
		dwfl_end(dwfl);
	fixture_run("rm -rf %s", tmp);
	return check_done("test-symindex");
}
