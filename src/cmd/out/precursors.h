/*
 * precursors: a kill's precursor rows (agg/mem-series.h), printed the one
 * way oom --timeline and report timeline print them: a text block, or
 * the members of a JSON object.  t of a row is its end, in seconds from
 * the kill.
 */
#ifndef FAULTLINE_PRECURSORS_H
#define FAULTLINE_PRECURSORS_H

#include <stddef.h>
#include <stdint.h>

#include "agg/mem-series.h"

/* The block: header, one line per row, which indicator left its
 * baseline first; @before_s the span asked for, @kill_ns the kill. */
void precursors__text(const struct mem_row *rows, size_t n, uint64_t kill_ns, double before_s);

/* "before_s":..,"first":..,"rows":[..] (no braces: the caller's object). */
void precursors__json(const struct mem_row *rows, size_t n, uint64_t kill_ns, double before_s);

#endif
