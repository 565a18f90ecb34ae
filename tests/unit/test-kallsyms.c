/*
 * test-kallsyms: the kernel symbol table from kallsyms text: only non-zero
 * text symbols, sorted, one per address (the best-named alias), each
 * ending where the next begins; kernel modules named; a recording's
 * symbols as recorded, sorted on lookup; /proc/kallsyms never read nor
 * announced for either.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stack/kallsyms.h"

static int reads;

static void on_read(void *ctx)
{
	(void)ctx;
	reads++;
}

static const char text[] =
	"ffffffff81000300 T __x64_sys_brk\n"
	"ffffffff81000100 t __brk_local\n"
	"ffffffff81000100 T __brk\n"
	"ffffffff81000100 W brk\n"
	"ffffffff81000100 t brk_l\n"
	"0000000000000000 T hidden_by_kptr_restrict\n"
	"ffffffff81000200 D some_data\n"
	"ffffffff81000200 t mmap64\n"
	"ffffffff81000200 t mmap\n"
	"bad line\n"
	"ffffffffc0001000 t ext4_fill_super\t[ext4]\n"
	"ffffffff81000400 w weak_one\n";

int main(void)
{
	struct kallsyms *k = NULL;
	const struct ksym *s;

	CHECK_EQ_U64(kallsyms__new(&k), 0);
	if (!k)
		return check_done("test-kallsyms");
	kallsyms__on_read(k, on_read, NULL);
	CHECK_EQ_U64(kallsyms__parse(k, strdup(text)), 0);
	/* Below the first symbol: none. */
	CHECK_EQ_U64(kallsyms__find(k, 0xffffffff810000ffull, &s), 0);
	CHECK(s == NULL);
	/* brk: no leading underscore wins; global/weak over local (brk_l
	 * loses only on length, brk is shorter and global). */
	CHECK_EQ_U64(kallsyms__find(k, 0xffffffff81000100ull, &s), 0);
	CHECK(s != NULL);
	if (s) {
		CHECK_STR(s->name, "brk");
		CHECK_EQ_U64(s->addr, 0xffffffff81000100ull);
		CHECK_EQ_U64(s->end, 0xffffffff81000200ull);
		CHECK(s->module == NULL);
	}
	/* Two locals, no underscores: the shorter name; data skipped. */
	CHECK_EQ_U64(kallsyms__find(k, 0xffffffff810002ffull, &s), 0);
	if (s) {
		CHECK_STR(s->name, "mmap");
		CHECK_EQ_U64(s->end, 0xffffffff81000300ull);
	}
	CHECK_EQ_U64(kallsyms__find(k, 0xffffffff81000300ull, &s), 0);
	if (s) {
		CHECK_STR(s->name, "__x64_sys_brk");
		CHECK_EQ_U64(s->end, 0xffffffff81000400ull);
	}
	CHECK_EQ_U64(kallsyms__find(k, 0xffffffff81000400ull, &s), 0);
	if (s) {
		CHECK_STR(s->name, "weak_one");
		CHECK_EQ_U64(s->end, 0xffffffffc0001000ull);
	}
	/* The last one never ends; its module without brackets. */
	CHECK_EQ_U64(kallsyms__find(k, UINT64_MAX - 1, &s), 0);
	CHECK(s != NULL);
	if (s) {
		CHECK_STR(s->name, "ext4_fill_super");
		CHECK_STR(s->module, "ext4");
		CHECK_EQ_U64(s->end, UINT64_MAX);
	}
	CHECK_EQ_U64(reads, 0);
	kallsyms__free(k);
	kallsyms__free(NULL);

	/* A recording's symbols: exactly as added, sorted on lookup. */
	k = NULL;
	CHECK_EQ_U64(kallsyms__new(&k), 0);
	if (!k)
		return check_done("test-kallsyms");
	kallsyms__on_read(k, on_read, NULL);
	kallsyms__recorded(k);
	CHECK_EQ_U64(kallsyms__find(k, 0x1000, &s), 0);
	CHECK(s == NULL);
	CHECK_EQ_U64(kallsyms__add(k, &(struct ksym){ 0x2000, 0x2100, "second", "" }), 0);
	CHECK_EQ_U64(kallsyms__add(k, &(struct ksym){ 0x1000, 0x1010, "first", NULL }), 0);
	CHECK_EQ_U64(kallsyms__add(k, &(struct ksym){ 0x3000, 0x3000, "empty", NULL }),
		     (uint64_t)-EINVAL);
	CHECK_EQ_U64(kallsyms__add(k, &(struct ksym){ 0x3000, 0x3001, "", NULL }),
		     (uint64_t)-EINVAL);
	CHECK_EQ_U64(kallsyms__add(k, &(struct ksym){ 0x4000, 0x4010, "mod_fn", "xfs" }), 0);
	CHECK_EQ_U64(kallsyms__find(k, 0x100f, &s), 0);
	if (s) {
		CHECK_STR(s->name, "first");
		CHECK(s->module == NULL);
	}
	/* Recorded ends are the recording's: a gap names nothing. */
	CHECK_EQ_U64(kallsyms__find(k, 0x1010, &s), 0);
	CHECK(s == NULL);
	CHECK_EQ_U64(kallsyms__find(k, 0x20ff, &s), 0);
	if (s) {
		CHECK_STR(s->name, "second");
		CHECK(s->module == NULL);
	}
	CHECK_EQ_U64(kallsyms__find(k, 0x4000, &s), 0);
	if (s)
		CHECK_STR(s->module, "xfs");
	CHECK_EQ_U64(kallsyms__find(k, 0x4010, &s), 0);
	CHECK(s == NULL);
	CHECK_EQ_U64(reads, 0);
	kallsyms__free(k);
	return check_done("test-kallsyms");
}
