/*
 * unwind: backend selection and the helpers both backends share.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "stack/binary.h"
#include "stack/unwind.h"

struct unwinder {
	const struct unwind_backend *be;
	void *priv;
};

static const char *const stop_names[UNWIND__COUNT] = {
	[UNWIND_END] = "complete",
	[UNWIND_MAX_DEPTH] = "max-depth",
	[UNWIND_STACK_END] = "stack-copy-end",
	[UNWIND_NO_CFI] = "no-cfi",
	[UNWIND_NO_MAP] = "no-mapping",
	[UNWIND_NO_REGS] = "no-registers",
	[UNWIND_ERROR] = "error",
};

const char *unwind_stop__name(enum unwind_stop stop)
{
	return stop < UNWIND__COUNT ? stop_names[stop] : "?";
}

bool unwind_input__reg(const struct unwind_input *in, int reg, uint64_t *val)
{
	uint64_t bit = 1ULL << reg;

	if (reg < 0 || reg >= 64 || !(in->regs_mask & bit) || !in->regs)
		return false;
	/* Registers are packed: index = set bits below this one. */
	*val = in->regs[__builtin_popcountll(in->regs_mask & (bit - 1))];
	return true;
}

bool unwind_input__read(const struct unwind_input *in, uint64_t addr, void *buf, size_t len)
{
	uint64_t sp;

	if (!in->stack || !unwind_input__reg(in, PERF_REG_X86_SP, &sp))
		return false;
	if (addr < sp || addr - sp > in->stack_size || len > in->stack_size - (addr - sp))
		return false;
	memcpy(buf, in->stack + (addr - sp), len);
	if (in->npatches)
		unwind_input__patch(in, addr, buf, len);
	return true;
}

void unwind_input__patch(const struct unwind_input *in, uint64_t addr, void *buf, size_t len)
{
	for (uint32_t i = 0; i < in->npatches; i++) {
		const struct unwind_patch *p = &in->patches[i];
		uint64_t lo = p->addr > addr ? p->addr : addr;
		uint64_t hi = p->addr + 8 < addr + len ? p->addr + 8 : addr + len;

		/* Byte-wise: a read may cover part of the word. */
		if (lo < hi)
			memcpy((unsigned char *)buf + (lo - addr),
			       (const unsigned char *)&p->val + (lo - p->addr), hi - lo);
	}
}

int unwinder__new(const char *name, struct addrspaces *as, struct bincache *cache,
		  struct unwinder **out)
{
	const struct unwind_backend *be;
	struct bincache *own = NULL;
	struct unwinder *u;
	int err;

	if (!strcmp(name, "libdw"))
		be = &unwind_libdw;
	else if (!strcmp(name, "libdw-walk"))
		be = &unwind_libdw_walk;
	else if (!strcmp(name, "libunwind"))
		be = &unwind_libunwind;
	else
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->be = be;
	if (!cache && (err = bincache__new(&own))) {
		free(u);
		return err;
	}
	err = be->init(as, cache ? cache : own, &u->priv);
	bincache__unref(own);	/* the backend holds its own reference */
	if (err) {
		free(u);
		return err;
	}
	*out = u;
	return 0;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	u->be->fini(u->priv);
	free(u);
}

const char *unwinder__name(const struct unwinder *u)
{
	return u->be->name;
}

int unwinder__unwind(struct unwinder *u, const struct unwind_input *in, uint64_t *ips,
		     uint32_t max, uint32_t *n, enum unwind_stop *stop)
{
	uint64_t ip;

	*n = 0;
	if (!max) {
		*stop = UNWIND_MAX_DEPTH;
		return 0;
	}
	if (!unwind_input__reg(in, PERF_REG_X86_IP, &ip)) {
		*stop = UNWIND_NO_REGS;
		return 0;
	}
	return u->be->unwind(u->priv, in, ips, max, n, stop);
}

/* _start is a few instructions (load args, call the loader's or libc's
 * start routine); its call's return address lies within this window. */
#define ENTRY_WINDOW 32

bool unwind__at_entry_point(struct Elf *elf, uint64_t bias, uint64_t pc)
{
	GElf_Ehdr eh;
	uint64_t entry;

	if (!elf || !gelf_getehdr(elf, &eh) || !eh.e_entry)
		return false;
	entry = eh.e_entry + bias;
	return pc >= entry && pc - entry < ENTRY_WINDOW;
}
