/*
 * symindex: the precomputed dwfl_module_addrinfo() answer (see
 * symindex.h).  Each of libdwfl's two passes over the symbol table is a
 * sorted array with running maximum ends and its sized symbols' winners
 * per segment of the address space; a lookup is a few binary searches.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "lib/hashmap.h"
#include "lib/sorted.h"
#include "stack/sym-alias.h"
#include "stack/symindex.h"

struct secref {
	uint64_t start, end;	/* Dwfl addresses */
	size_t ndx;
};

/* A symbol dwfl_module_addrinfo() can answer with: named, defined, not a
 * section, file or TLS symbol. */
struct fsym {
	/* value: its address as libdwfl gives it (Dwfl address); name:
	 * shown, the best-named function alias at value, else its own. */
	struct symindex_sym sym;
	uint64_t end;		/* value + st_size: == value for a sizeless label */
	uint32_t order;		/* symbol table index: the order libdwfl visits it in */
	uint8_t bind;		/* libdwfl's binding_value(): global 3, weak 2, local 1, else 0 */
	bool special;		/* in SHN_ABS or another reserved section */
};

/* The symbols of one of libdwfl's two passes (see struct symindex). */
struct sympass {
	struct fsym *syms;	/* sorted by (value, order) */
	uint64_t *maxend;	/* maxend[i]: the largest end among syms[0..i] */
	size_t n;
	/* Sized symbols cut the address space into segments [bounds[k],
	 * bounds[k + 1]) that one set of them covers: win[k] is the one
	 * libdwfl picks among them (NULL when none covers). */
	uint64_t *bounds;
	struct fsym **win;
	size_t nbounds;
};

/*
 * What dwfl_module_addrinfo() answers, precomputed (test-symbolize compares
 * the two address by address).  Objects and labels count, not only
 * functions: they always have.  libdwfl visits the symbols from the first
 * global one to the end ("globals"), then, only when that found no sized
 * symbol covering the address and no sizeless one exactly at it, the ones
 * before ("locals").  A
 * sized symbol covering the address wins over any sizeless one; among
 * those of one pass, in visiting order, a later one replaces the current
 * one when it starts higher or binds more strongly, or starts at the same
 * place, is smaller and binds as strongly.  Without one, a sizeless symbol
 * (an assembly label) answers when it is at the highest end M of all the
 * symbols visited that start at or below the address, and is in the same
 * section as the address (a reserved-section one only when exactly at
 * it): the last such visited.  All of that depends on the sets of symbols
 * covering and below the address, which sorted arrays answer in O(log n).
 */
struct symindex {
	struct sympass pass[2];	/* [0] globals, [1] locals */
	/* The binary's SHF_ALLOC sections as libdwfl sorts them (by start,
	 * end, index), to tell which section an address is in as libdwfl
	 * does: its own dwfl_module_address_section() would load DWARF. */
	struct secref *secs;
	size_t nsecs;
};

void symindex__free(struct symindex *x)
{
	if (!x)
		return;
	for (int p = 0; p < 2; p++) {
		free(x->pass[p].syms);
		free(x->pass[p].maxend);
		free(x->pass[p].bounds);
		free(x->pass[p].win);
	}
	free(x->secs);
	free(x);
}


static bool is_function(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym->st_size > 0;
}

static bool is_global(const GElf_Sym *sym)
{
	return GELF_ST_BIND(sym->st_info) != STB_LOCAL;
}

/* libdwfl's binding_value(): which binding it prefers. */
static uint8_t binding_value(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/* Whether libdwfl's address search looks at @sym at all. */
static bool is_candidate(const char *name, const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return name && *name && sym->st_shndx != SHN_UNDEF && type != STT_SECTION && type != STT_FILE &&
	       type != STT_TLS;
}

static int cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->sym.value != y->sym.value)
		return x->sym.value < y->sym.value ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether libdwfl, holding @cur (NULL: nothing yet), takes @c, visited
 * after it, when both cover the address: it starts higher, binds more
 * strongly, or starts at the same place, is smaller and binds as strongly. */
static bool replaces(const struct fsym *cur, const struct fsym *c)
{
	uint64_t cur_size, size;

	if (!cur || cur->sym.value < c->sym.value || cur->bind < c->bind)
		return true;
	cur_size = cur->end - cur->sym.value;
	size = c->end - c->sym.value;
	return cur->sym.value == c->sym.value &&
	       ((cur_size > size && cur->bind <= c->bind) || (cur_size >= size && cur->bind < c->bind));
}

/* Cut @p's address space at every start and end of a sized symbol and
 * note libdwfl's pick among those covering each segment, sweeping once
 * with the covering set in visiting order. */
static int sympass__segment(struct sympass *p)
{
	struct fsym **active = NULL;
	size_t nb = 0, nactive = 0, next = 0;
	int err = -ENOMEM;

	p->bounds = malloc((2 * p->n + 1) * sizeof(*p->bounds));
	active = malloc((p->n + 1) * sizeof(*active));
	if (!p->bounds || !active)
		goto out;
	for (size_t i = 0; i < p->n; i++) {
		if (p->syms[i].end == p->syms[i].sym.value)
			continue;
		p->bounds[nb++] = p->syms[i].sym.value;
		p->bounds[nb++] = p->syms[i].end;
	}
	if (nb)
		qsort(p->bounds, nb, sizeof(*p->bounds), cmp_u64);
	p->nbounds = 0;
	for (size_t i = 0; i < nb; i++)
		if (!p->nbounds || p->bounds[p->nbounds - 1] != p->bounds[i])
			p->bounds[p->nbounds++] = p->bounds[i];
	p->win = calloc(p->nbounds + 1, sizeof(*p->win));
	if (!p->win)
		goto out;
	for (size_t k = 0; k < p->nbounds; k++) {
		uint64_t at = p->bounds[k];
		const struct fsym *cur = NULL;
		size_t kept = 0;

		for (size_t i = 0; i < nactive; i++)
			if (active[i]->end > at)
				active[kept++] = active[i];
		nactive = kept;
		for (; next < p->n && p->syms[next].sym.value <= at; next++) {
			struct fsym *f = &p->syms[next];
			size_t pos = nactive;

			if (f->end == f->sym.value)
				continue;
			while (pos && active[pos - 1]->order > f->order) {
				active[pos] = active[pos - 1];
				pos--;
			}
			active[pos] = f;
			nactive++;
		}
		for (size_t i = 0; i < nactive; i++)
			if (replaces(cur, active[i]))
				cur = active[i];
		p->win[k] = (struct fsym *)cur;
	}
	err = 0;
out:
	free(active);
	return err;
}

static int cmp_secref(const void *a, const void *b)
{
	const struct secref *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

/* @mod's SHF_ALLOC sections, sorted as libdwfl's cache_sections() does.
 * When libdwfl cannot read them, no address is in any section, for it
 * and for us. */
static int symindex__read_sections(struct symindex *x, Dwfl_Module *mod)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = NULL;
	size_t shstrndx, n = 0, cap = 0;
	struct secref *secs = NULL, *ns;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			goto unreadable;
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		if (!elf_strptr(elf, shstrndx, sh.sh_name))
			goto unreadable;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			ns = realloc(secs, cap * sizeof(*secs));
			if (!ns) {
				free(secs);
				return -ENOMEM;
			}
			secs = ns;
		}
		secs[n++] = (struct secref){ sh.sh_addr + bias, sh.sh_addr + bias + sh.sh_size, elf_ndxscn(scn) };
	}
	if (n)
		qsort(secs, n, sizeof(*secs), cmp_secref);
	x->secs = secs;
	x->nsecs = n;
	return 0;
unreadable:
	free(secs);
	return 0;
}

struct rawsym {
	const char *name;
	bool global;
};

/*
 * The name shown for a symbol is that of the best-named function starting
 * at its address: libdw answers with whichever alias its table holds
 * first (__libc_malloc for malloc), people know malloc.
 */
int symindex__build(Dwfl_Module *mod, struct symindex **out)
{
	struct symindex *x = calloc(1, sizeof(*x));
	struct rawsym *raw = NULL;
	struct fsym *all = NULL;
	struct hashmap *best = NULL;
	int n = dwfl_module_getsymtab(mod);
	int first_global = dwfl_module_getsymtab_first_global(mod);
	size_t nall = 0, cnt[2] = { 0, 0 };
	int err = -ENOMEM;

	*out = NULL;
	if (!x || symindex__read_sections(x, mod))
		goto out;
	/* No table: libdwfl answers nothing, and so do we. */
	if (n <= 1 || first_global < 0)
		goto done;
	raw = calloc((size_t)n, sizeof(*raw));
	all = malloc((size_t)n * sizeof(*all));
	best = hashmap__new();
	if (!raw || !all || !best)
		goto out;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx = SHN_UNDEF;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		uint64_t j;

		if (name && *name && is_function(&sym)) {
			raw[i] = (struct rawsym){ name, is_global(&sym) };
			if ((!hashmap__get(best, addr, &j) ||
			     sym_alias__better(raw[i].global, name, raw[j].global, raw[j].name)) &&
			    hashmap__set(best, addr, (uint64_t)i))
				goto out;
		}
		if (!is_candidate(name, &sym))
			continue;
		all[nall] = (struct fsym){ .sym = { addr, name }, .end = addr + sym.st_size,
					   .order = (uint32_t)i, .bind = binding_value(&sym),
					   .special = shndx >= SHN_LORESERVE };
		/* A size past the end of the address space is nonsense:
		 * it reaches the end. */
		if (all[nall].end < addr)
			all[nall].end = UINT64_MAX;
		cnt[first_global > 1 && i < first_global]++;
		nall++;
	}
	for (int p = 0; p < 2; p++) {
		x->pass[p].syms = malloc((cnt[p] + 1) * sizeof(*x->pass[p].syms));
		x->pass[p].maxend = malloc((cnt[p] + 1) * sizeof(*x->pass[p].maxend));
		if (!x->pass[p].syms || !x->pass[p].maxend)
			goto out;
	}
	for (size_t i = 0; i < nall; i++) {
		struct sympass *p = &x->pass[first_global > 1 && all[i].order < (uint32_t)first_global];
		uint64_t j;

		if (hashmap__get(best, all[i].sym.value, &j))
			all[i].sym.name = raw[j].name;
		p->syms[p->n++] = all[i];
	}
	for (int p = 0; p < 2; p++) {
		struct sympass *sp = &x->pass[p];

		if (sp->n)
			qsort(sp->syms, sp->n, sizeof(*sp->syms), cmp_fsym);
		for (size_t i = 0; i < sp->n; i++)
			sp->maxend[i] = i && sp->maxend[i - 1] > sp->syms[i].end ? sp->maxend[i - 1] : sp->syms[i].end;
		if ((err = sympass__segment(sp)))
			goto out;
	}
done:
	*out = x;
	x = NULL;
	err = 0;
out:
	hashmap__free(best);
	free(all);
	free(raw);
	symindex__free(x);
	return err;
}

/* The section @addr is in (its index), SHN_UNDEF when none: libdwfl's
 * find_section(), whose binary search over possibly overlapping sections
 * (.tbss) counts a section's end as inside it unless the next one starts
 * there. */
static GElf_Word section_of(const struct symindex *x, uint64_t addr)
{
	size_t l = 0, u = x->nsecs;

	while (l < u) {
		size_t idx = (l + u) / 2;

		if (addr < x->secs[idx].start) {
			u = idx;
		} else if (addr > x->secs[idx].end) {
			l = idx + 1;
		} else {
			if (addr == x->secs[idx].end && idx + 1 < x->nsecs && addr == x->secs[idx + 1].start)
				idx++;
			return (GElf_Word)x->secs[idx].ndx;
		}
	}
	return SHN_UNDEF;
}

/* libdwfl's pick among @p's sized symbols covering @addr; NULL when none. */
static const struct fsym *sympass__covering(const struct sympass *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nbounds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->bounds[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? p->win[lo - 1] : NULL;
}

/* How many of @p's symbols start at or below @addr. */
static size_t sympass__upto(const struct sympass *p, uint64_t addr)
{
	return SORTED_UPTO(p->syms, p->n, sym.value, addr);
}

/* Whether a sizeless symbol among @p's first @upto is at @at (they are
 * the last ones, those values being the highest). */
static bool sympass__label_at(const struct sympass *p, size_t upto, uint64_t at)
{
	for (size_t i = upto; i-- > 0 && p->syms[i].sym.value == at;)
		if (p->syms[i].end == at)
			return true;
	return false;
}

const struct symindex_sym *symindex__lookup(const struct symindex *x, uint64_t addr)
{
	const struct fsym *f = sympass__covering(&x->pass[0], addr);
	size_t upto[2] = { 0, 0 };
	GElf_Word addr_scn = SHN_UNDEF, label_scn = SHN_UNDEF;
	bool scn_known = false;
	uint64_t label = 0;
	int npasses = 1;

	if (f)
		return &f->sym;
	upto[0] = sympass__upto(&x->pass[0], addr);
	/* A global label exactly at @addr ends the search before the locals. */
	if (x->pass[1].n && !sympass__label_at(&x->pass[0], upto[0], addr)) {
		if ((f = sympass__covering(&x->pass[1], addr)))
			return &f->sym;
		upto[1] = sympass__upto(&x->pass[1], addr);
		npasses = 2;
	}
	/* No sized symbol: a label at the highest end of all those visited,
	 * the last one visited. */
	for (int p = 0; p < npasses; p++)
		if (upto[p] && x->pass[p].maxend[upto[p] - 1] > label)
			label = x->pass[p].maxend[upto[p] - 1];
	for (int p = npasses - 1; p >= 0; p--) {
		const struct sympass *sp = &x->pass[p];

		for (size_t i = upto[p]; i-- > 0 && sp->syms[i].sym.value == label;) {
			f = &sp->syms[i];
			if (f->end != f->sym.value)
				continue;
			if (f->special) {
				if (label == addr)
					return &f->sym;
				continue;
			}
			if (!scn_known) {
				addr_scn = section_of(x, addr);
				label_scn = section_of(x, label);
				scn_known = true;
			}
			if (addr_scn == label_scn)
				return &f->sym;
		}
	}
	return NULL;
}
