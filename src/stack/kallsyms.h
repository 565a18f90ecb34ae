/*
 * kallsyms: the kernel's text symbols, to name kernel addresses.
 *
 * Live, from /proc/kallsyms, read whole on the first lookup: its text
 * symbols (t, T, w, W) with a non-zero address (kptr_restrict shows
 * zeros), sorted, one per address (the best-named alias: sym-alias.h),
 * each ending where the next begins, the last never.  Or, for a report
 * on a recording, only the symbols the recording carries, as recorded.
 */
#ifndef FAULTLINE_KALLSYMS_H
#define FAULTLINE_KALLSYMS_H

#include <stdint.h>

/* A kernel text symbol, [addr, end). */
struct ksym {
	uint64_t addr;
	uint64_t end;
	const char *name;
	const char *module;	/* the kernel module's name; NULL for vmlinux */
};

struct kallsyms;

/**
 * kallsyms__new() - an empty table, read from /proc/kallsyms on the first
 *                   kallsyms__find()
 * @out: out; free with kallsyms__free()
 *
 * Return: 0 or -ENOMEM.
 */
int kallsyms__new(struct kallsyms **out);

/* Free @k and every string it handed out; NULL is fine. */
void kallsyms__free(struct kallsyms *k);

/**
 * kallsyms__on_read() - be told when /proc/kallsyms is read
 * @k: table
 * @fn: called once, just before the first lookup reads /proc/kallsyms
 *      (never for a recorded or parsed table); NULL: no call
 * @ctx: passed to @fn
 */
void kallsyms__on_read(struct kallsyms *k, void (*fn)(void *ctx), void *ctx);

/**
 * kallsyms__parse() - take the table from kallsyms text instead
 * @k: table not read yet; /proc/kallsyms is then never read
 * @text: "ADDR TYPE NAME[\t[MODULE]]" lines, as /proc/kallsyms has them;
 *        taken over (tokenized in place, freed with @k), also on failure
 *
 * Return: 0 or -ENOMEM (the table then holds nothing).
 */
int kallsyms__parse(struct kallsyms *k, char *text);

/**
 * kallsyms__recorded() - answer from the symbols of kallsyms__add() alone
 * @k: table; call it before the first lookup
 */
void kallsyms__recorded(struct kallsyms *k);

/**
 * kallsyms__add() - one symbol of a recording
 * @k: table
 * @sym: copied; @sym->module NULL or "" for vmlinux
 *
 * Return: 0; -EINVAL for an empty range or name; -ENOMEM.
 */
int kallsyms__add(struct kallsyms *k, const struct ksym *sym);

/**
 * kallsyms__find() - the symbol holding a kernel address
 * @k: table; read from /proc/kallsyms on the first call unless recorded or
 *     parsed (an unreadable file leaves it empty: every address unknown)
 * @addr: kernel address
 * @out: out; NULL when no symbol holds @addr, else valid for @k's life
 *       (recorded symbols: until the next kallsyms__add())
 *
 * Return: 0 (also when not found); -ENOMEM.
 */
int kallsyms__find(struct kallsyms *k, uint64_t addr, const struct ksym **out);

#endif
