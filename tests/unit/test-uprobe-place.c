/*
 * test-uprobe-place: the entry offsets chosen for instruction sequences
 * taken from real allocators' first bytes (glibc 2.36 x86-64), and the
 * sequences where the probe must stay at the entry.
 */
#include <stdint.h>

#include "check.h"
#include "trace/uprobe-place.h"

int main(void)
{
	/* glibc free: test %rdi,%rdi; je ... -> the je, 3 bytes on. */
	static const uint8_t free_236[] = { 0x48, 0x85, 0xff, 0x0f, 0x84, 0xbf, 0x00, 0x00, 0x00, 0x55 };
	/* glibc malloc: push %r12 (emulated): stay. */
	static const uint8_t malloc_236[] = { 0x41, 0x54, 0x55, 0x53, 0x48, 0x89, 0xfb };
	/* endbr64; test %rdi,%rdi; je: past both. */
	static const uint8_t cet[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x85, 0xff, 0x74, 0x10 };
	/* cmpb $0x0,0x141b46(%rip): a memory operand: stay. */
	static const uint8_t cmpb_rip[] = { 0x80, 0x3d, 0x46, 0x1b, 0x14, 0x00, 0x00, 0x74, 0x07 };
	/* mov %rsi,%rax (changes a register): stay. */
	static const uint8_t mov[] = { 0x48, 0x89, 0xf0, 0x48, 0xf7, 0xe2 };
	/* cmp $0x10,%rsi; ja: past the cmp. */
	static const uint8_t cmp_imm[] = { 0x48, 0x83, 0xfe, 0x10, 0x77, 0x05 };
	/* jemalloc 5.3 malloc: cmp $0x1000,%rdi; ja rel32: past the cmp. */
	static const uint8_t je_malloc[] = { 0x48, 0x81, 0xff, 0x00, 0x10, 0x00, 0x00, 0x0f, 0x87, 0, 0, 0, 0 };
	/* test %rdi,%rdi; mov ...: a flag-only instruction then a stepped one. */
	static const uint8_t test_mov[] = { 0x48, 0x85, 0xff, 0x48, 0x89, 0xf0 };

	CHECK_EQ_U64(uprobe_place__skip(free_236, sizeof(free_236)), 3);
	CHECK_EQ_U64(uprobe_place__skip(malloc_236, sizeof(malloc_236)), 0);
	CHECK(uprobe_place__emulated(malloc_236, sizeof(malloc_236)));
	CHECK_EQ_U64(uprobe_place__skip(cet, sizeof(cet)), 7);
	CHECK_EQ_U64(uprobe_place__skip(cmpb_rip, sizeof(cmpb_rip)), 0);
	CHECK_EQ_U64(uprobe_place__skip(mov, sizeof(mov)), 0);
	CHECK_EQ_U64(uprobe_place__skip(cmp_imm, sizeof(cmp_imm)), 4);
	CHECK_EQ_U64(uprobe_place__skip(test_mov, sizeof(test_mov)), 0);
	CHECK_EQ_U64(uprobe_place__skip(je_malloc, sizeof(je_malloc)), 7);
	/* Truncated input never reads past n. */
	CHECK_EQ_U64(uprobe_place__skip(free_236, 3), 0);
	CHECK_EQ_U64(uprobe_place__skip(free_236, 0), 0);
	return check_done("test-uprobe-place");
}
