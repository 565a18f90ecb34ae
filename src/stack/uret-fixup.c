/*
 * uret-fixup: pending uretprobe returns per thread and the stacks they
 * mend.  See uret-fixup.h.
 *
 * A thread's pending returns are a small array (a malloc inside a probed
 * realloc is two deep; recursion through a probed function deeper),
 * pushed at each entry and popped at each return, so a malloc loop costs
 * one hash lookup and no allocation per call once its array exists.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/hashmap.h"
#include "stack/uret-fixup.h"

struct thread_rets {
	struct uret_pending *v;	/* outermost first */
	size_t n, cap;
};

struct uret_table {
	struct hashmap *threads;	/* tid -> struct thread_rets * */
};

int uret_table__new(struct uret_table **out)
{
	struct uret_table *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->threads = hashmap__new();
	if (!t->threads) {
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

static void thread_rets__free(struct thread_rets *r)
{
	if (r)
		free(r->v);
	free(r);
}

void uret_table__free(struct uret_table *t)
{
	size_t pos = 0;
	uint64_t key, v;

	if (!t)
		return;
	while (hashmap__next(t->threads, &pos, &key, &v))
		thread_rets__free((struct thread_rets *)(uintptr_t)v);
	hashmap__free(t->threads);
	free(t);
}

static struct thread_rets *thread_of(const struct uret_table *t, pid_t tid)
{
	uint64_t v;

	return hashmap__get(t->threads, (uint64_t)(uint32_t)tid, &v) ? (struct thread_rets *)(uintptr_t)v :
								       NULL;
}

static int thread_get(struct uret_table *t, pid_t tid, struct thread_rets **out)
{
	struct thread_rets *r = thread_of(t, tid);

	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return -ENOMEM;
		if (hashmap__set(t->threads, (uint64_t)(uint32_t)tid, (uint64_t)(uintptr_t)r)) {
			free(r);
			return -ENOMEM;
		}
	}
	*out = r;
	return 0;
}

int uret_table__enter(struct uret_table *t, pid_t tid, uint64_t sp, uint64_t word, bool chained)
{
	struct thread_rets *r;
	uint64_t ret = word;
	size_t n;
	int err = thread_get(t, tid, &r);

	if (err)
		return err;
	/* The kernel's cleanup at a call (cleanup_return_instances): a
	 * pending return whose slot is below this call's is dead (its frame
	 * was left by longjmp, or its return was lost), and so is one at
	 * this very slot unless this call is chained to it. */
	n = r->n;
	while (n && (r->v[n - 1].slot < sp || (r->v[n - 1].slot == sp && !chained)))
		n--;
	if (chained)
		ret = n && r->v[n - 1].slot == sp ? r->v[n - 1].ret : 0;
	if (GROW_FOR(r->v, r->cap, n + 1, 4))
		return -ENOMEM;
	r->n = n;
	r->v[r->n++] = (struct uret_pending){ sp, ret };
	return 0;
}

void uret_table__leave(struct uret_table *t, pid_t tid, uint64_t sp)
{
	struct thread_rets *r = thread_of(t, tid);
	uint64_t slot = sp - 8;

	if (!r)
		return;
	/* Below the returning slot: frames left without their return. */
	while (r->n && r->v[r->n - 1].slot < slot)
		r->n--;
	/* One return each: chained calls share the slot, each returns. */
	if (r->n && r->v[r->n - 1].slot == slot)
		r->n--;
}

void uret_table__forget(struct uret_table *t, pid_t tid)
{
	uint64_t v;

	if (hashmap__delete(t->threads, (uint64_t)(uint32_t)tid, &v))
		thread_rets__free((struct thread_rets *)(uintptr_t)v);
}

int uret_table__fork(struct uret_table *t, pid_t parent_tid, pid_t child_tid)
{
	const struct thread_rets *p = thread_of(t, parent_tid);
	struct thread_rets *c;
	int err;

	uret_table__forget(t, child_tid);
	if (!p || !p->n)
		return 0;
	err = thread_get(t, child_tid, &c);
	if (err)
		return err;
	if (GROW_FOR(c->v, c->cap, p->n, p->n)) {
		uret_table__forget(t, child_tid);
		return -ENOMEM;
	}
	memcpy(c->v, p->v, p->n * sizeof(*c->v));
	c->n = p->n;
	return 0;
}

const struct uret_pending *uret_table__pending(const struct uret_table *t, pid_t tid, size_t *n)
{
	const struct thread_rets *r = thread_of(t, tid);

	*n = r ? r->n : 0;
	return *n ? r->v : NULL;
}

size_t uret_table__threads(const struct uret_table *t)
{
	return hashmap__count(t->threads);
}

uint32_t uret_fixup__stack(const struct uret_pending *p, size_t np, const struct unwind_input *in,
			   uint64_t lo, uint64_t hi, struct unwind_patch *out, uint32_t max)
{
	struct unwind_input raw = *in;
	uint32_t k = 0;

	raw.patches = NULL;
	raw.npatches = 0;
	for (size_t i = np; i-- > 0 && k < max;) {
		uint64_t word;

		/* Chained calls share a slot: one patch. */
		if (!p[i].ret || (k && out[k - 1].addr == p[i].slot))
			continue;
		if (!unwind_input__read(&raw, p[i].slot, &word, sizeof(word)))
			continue;	/* outside the copy (or below sp: gone) */
		if (word >= lo && word < hi)
			out[k++] = (struct unwind_patch){ p[i].slot, p[i].ret };
	}
	return k;
}

bool uret_fixup__at_trampoline(const struct uret_pending *p, size_t np, uint64_t sp, uint64_t *ip)
{
	for (size_t i = np; i-- > 0;) {
		if (p[i].slot < sp) {
			*ip = p[i].ret;
			return p[i].ret != 0;
		}
	}
	return false;
}

uint32_t uret_fixup__ips(const struct uret_pending *p, size_t np, uint64_t lo, uint64_t hi,
			 uint64_t *ips, uint32_t n)
{
	size_t next = np;	/* the innermost pending return not yet used, + 1 */
	uint32_t fixed = 0;

	for (uint32_t i = 0; i < n && next; i++) {
		uint64_t slot;

		if (ips[i] < lo || ips[i] >= hi)
			continue;
		slot = p[next - 1].slot;
		if (p[next - 1].ret) {
			ips[i] = p[next - 1].ret;
			fixed++;
		}
		while (next && p[next - 1].slot == slot)
			next--;
	}
	return fixed;
}
