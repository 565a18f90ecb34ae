/*
 * uprobe-place: where on a function's first instructions an entry uprobe
 * costs least.
 *
 * The x86 kernel runs the instruction under a uprobe one of two ways: it
 * emulates a few (jumps, calls, conditional branches, push, nop) in the
 * trap handler, and single-steps every other one out of line, which costs
 * a second trap.  Measured on this project's test machine: a uprobe on
 * glibc's free() at its first instruction (test %rdi,%rdi: single-stepped)
 * costs 21 us a call, 3 bytes later on the je (emulated) 6 us.
 *
 * An entry probe that only reads argument registers and the stack pointer
 * may move past leading instructions that change neither (test, cmp,
 * endbr64: they set flags or nothing) to the first emulated instruction:
 * every call still passes there, before any branch, with the same
 * arguments.  This module decides that from the bytes alone; it knows
 * only those few encodings, and says 0 (stay at the entry) otherwise.
 */
#ifndef FAULTLINE_UPROBE_PLACE_H
#define FAULTLINE_UPROBE_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the x86-64 kernel emulates the instruction at @code. */
bool uprobe_place__emulated(const uint8_t *code, size_t n);

/**
 * uprobe_place__skip() - bytes to move an entry probe forward
 * @code: the function's first bytes (at least 16 to be useful)
 * @n:    how many
 *
 * Return: the offset of the first emulated instruction reached by passing
 * only instructions without effect on registers other than flags (at most
 * three of them), or 0 when the first instruction is emulated already or
 * no such offset is known.
 */
size_t uprobe_place__skip(const uint8_t *code, size_t n);

#endif
