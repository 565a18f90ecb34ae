/*
 * kallsyms: the kernel's symbol table (see kallsyms.h).  /proc/kallsyms
 * is a few MiB: read once, tokenized in place, its text symbols sorted by
 * address and binary-searched.  A recording's symbols are kept apart,
 * owned here, and sorted on the first lookup after one is added.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "lib/grow.h"
#include "lib/sorted.h"
#include "stack/kallsyms.h"
#include "stack/sym-alias.h"

struct kallsyms {
	bool loaded;			/* live table read (or parsed) */
	struct ksym *ksyms;		/* live: names and modules point into kbuf */
	size_t nksyms;
	char *kbuf;			/* /proc/kallsyms, tokenized in place */
	/* A recording's kernel symbols: the only source of kernel names
	 * once set; sorted on the next lookup after one is added. */
	bool recorded;
	struct ksym *rksyms;		/* names and modules owned */
	size_t nrksyms, rksyms_cap;
	bool rksyms_sorted;
	void (*on_read)(void *ctx);	/* once, when kallsyms is first read */
	void *on_read_ctx;
};

struct kline {
	struct ksym sym;
	size_t order;
	char type;
};

int kallsyms__new(struct kallsyms **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return;
	free(k->ksyms);
	free(k->kbuf);
	for (size_t i = 0; i < k->nrksyms; i++) {
		free((char *)k->rksyms[i].name);
		free((char *)k->rksyms[i].module);
	}
	free(k->rksyms);
	free(k);
}

void kallsyms__on_read(struct kallsyms *k, void (*fn)(void *ctx), void *ctx)
{
	k->on_read = fn;
	k->on_read_ctx = ctx;
}

static int cmp_kline(const void *a, const void *b)
{
	const struct kline *x = a, *y = b;

	if (x->sym.addr != y->sym.addr)
		return x->sym.addr < y->sym.addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int kallsyms__parse(struct kallsyms *k, char *text)
{
	struct kline *lines = NULL;
	size_t n = 0, cap = 0, out = 0;
	char *p, *save = NULL;
	int err = 0;

	k->loaded = true;
	k->kbuf = text;
	for (p = strtok_r(k->kbuf, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		char *addr_end, *name, *mod, *tab;
		uint64_t addr = strtoull(p, &addr_end, 16);
		char type;

		if (addr_end == p || addr_end[0] != ' ' || !addr_end[1] || addr_end[2] != ' ')
			continue;
		type = addr_end[1];
		if (!addr || (type != 't' && type != 'T' && type != 'w' && type != 'W'))
			continue;
		name = addr_end + 3;
		mod = NULL;
		tab = strchr(name, '\t');
		if (tab) {
			*tab = '\0';
			mod = tab + 1;
			if (*mod == '[') {
				mod++;
				mod[strcspn(mod, "]")] = '\0';
			}
		}
		if (GROW_FOR(lines, cap, n + 1, 65536)) {
			err = -ENOMEM;
			goto out;
		}
		lines[n] = (struct kline){ { addr, 0, name, mod }, n, type };
		n++;
	}
	if (!n)
		goto out;
	qsort(lines, n, sizeof(*lines), cmp_kline);
	k->ksyms = malloc(n * sizeof(*k->ksyms));
	if (!k->ksyms) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0, j; i < n; i = j) {
		size_t best = i;

		for (j = i + 1; j < n && lines[j].sym.addr == lines[i].sym.addr; j++)
			if (sym_alias__better(lines[j].type == 'T' || lines[j].type == 'W',
					      lines[j].sym.name,
					      lines[best].type == 'T' || lines[best].type == 'W',
					      lines[best].sym.name))
				best = j;
		k->ksyms[out++] = lines[best].sym;
	}
	k->nksyms = out;
	/* A text symbol ends where the next begins, as the lookup always
	 * had it; the last one never ends. */
	for (size_t i = 0; i < out; i++)
		k->ksyms[i].end = i + 1 < out ? k->ksyms[i + 1].addr : UINT64_MAX;
out:
	free(lines);
	return err;
}

/* Read and parse kallsyms once.  An unreadable file leaves no symbols,
 * which makes every kernel address unknown: not an error for a report. */
static int load(struct kallsyms *k)
{
	char *text = NULL;
	int err;

	k->loaded = true;
	if (k->on_read)
		k->on_read(k->on_read_ctx);
	/* All of it (a few MiB; its size reads as 0). */
	err = read_file("/proc/kallsyms", 256u << 20, &text, NULL);
	if (err)
		return err == -ENOMEM ? err : 0;
	return kallsyms__parse(k, text);
}

void kallsyms__recorded(struct kallsyms *k)
{
	k->recorded = true;
}

int kallsyms__add(struct kallsyms *k, const struct ksym *sym)
{
	struct ksym *e;

	if (sym->addr >= sym->end || !sym->name || !sym->name[0])
		return -EINVAL;
	if (GROW_FOR(k->rksyms, k->rksyms_cap, k->nrksyms + 1, 256))
		return -ENOMEM;
	e = &k->rksyms[k->nrksyms];
	*e = (struct ksym){ sym->addr, sym->end, strdup(sym->name),
			    sym->module && sym->module[0] ? strdup(sym->module) : NULL };
	if (!e->name || (!e->module && sym->module && sym->module[0])) {
		free((char *)e->name);
		free((char *)e->module);
		return -ENOMEM;
	}
	k->nrksyms++;
	k->rksyms_sorted = false;
	return 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int kallsyms__find(struct kallsyms *k, uint64_t addr, const struct ksym **out)
{
	const struct ksym *tab;
	size_t n, i;
	int err;

	*out = NULL;
	if (k->recorded) {
		if (!k->rksyms_sorted && k->nrksyms) {
			qsort(k->rksyms, k->nrksyms, sizeof(*k->rksyms), cmp_ksym);
			k->rksyms_sorted = true;
		}
		tab = k->rksyms;
		n = k->nrksyms;
	} else {
		if (!k->loaded && (err = load(k)))
			return err;
		tab = k->ksyms;
		n = k->nksyms;
	}
	i = SORTED_UPTO(tab, n, addr, addr);
	if (i && addr < tab[i - 1].end)
		*out = &tab[i - 1];
	return 0;
}
