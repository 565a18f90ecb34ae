/*
 * vocabulary: what a long option name means in every command that has
 * it, faultline(1)'s OPTION VOCABULARY.  A command's -h may say more of
 * what it does with the option ("--interval SECS: memory over time
 * instead of the sections"); the meaning here must hold in all of them.
 * The shared options' meaning is their shared row's help (tool-opts.c);
 * this table holds the other names two or more commands declare.
 * tests/unit/test-opt-tables fails when such a name has no entry, or an
 * entry is no longer shared.  Pure data: no printing but to the FILE a
 * command hands in.
 */
#ifndef FAULTLINE_VOCABULARY_H
#define FAULTLINE_VOCABULARY_H

#include <stdio.h>

/* @name's meaning (without the dashes), or NULL when it has no entry:
 * a shared row's help first, then the table. */
const char *opt_vocabulary__meaning(const char *name);
/* Whether @name is in the table (not a shared row). */
int opt_vocabulary__listed(const char *name);
/* Every entry, shared rows then the table, as "--name<TAB>meaning"
 * lines: `faultline --list-opts`, read by scripts/opt-vocabulary. */
void opt_vocabulary__list(FILE *f);

#endif
