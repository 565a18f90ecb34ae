/*
 * test-uprobe-pmu: a spec's fetchargs as sampled registers (what the perf
 * uprobe PMU rung reads), the payload built from them read back by name
 * through libtraceevent with the format made for it, the refusals, and a
 * probe spec's "pmu" twin.
 */
#include <asm/perf_regs.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "trace/tp-catalog.h"
#include "trace/probe-spec.h"
#include "trace/uprobe-pmu.h"

static void test_payload(void)
{
	struct pmu_args *a = NULL;
	struct tp_catalog *cat = NULL;
	struct tp_event *ev = NULL;
	struct errbuf eb = { "" };
	struct tp_field f;
	unsigned char buf[64];
	char *text = NULL;
	uint64_t regs[3], v = 0;
	uint64_t mask;

	CHECK_EQ_U64(pmu_args__parse("ptr=%di:x64 size=%rsi:u64 ret=$retval:s32", true, &a, &eb), 0);
	if (!a)
		return;
	mask = (1ULL << PERF_REG_X86_AX) | (1ULL << PERF_REG_X86_SI) | (1ULL << PERF_REG_X86_DI);
	CHECK_EQ_U64(pmu_args__regs_mask(a), mask);
	CHECK_EQ_U64(pmu_args__raw_size(a), 8 + 8 + 8 + 4);
	CHECK(pmu_args__raw_size(a) <= sizeof(buf));
	/* Packed in bit order: ax (0), si (4), di (5). */
	regs[0] = (uint64_t)-12;	/* ax: -ENOMEM as s32 */
	regs[1] = 4096;
	regs[2] = 0x55aa00001000ULL;
	CHECK_EQ_U64(pmu_args__fill(a, regs, mask, 77, buf), 0);
	CHECK_EQ_U64(pmu_args__fill(a, regs, mask & ~(1ULL << PERF_REG_X86_SI), 77, buf), -ENOENT);
	CHECK_EQ_U64(pmu_args__fill(a, regs, mask, 77, buf), 0);
	CHECK_EQ_U64(pmu_args__format(a, "realloc_return", &text), 0);
	CHECK_EQ_U64(tp_catalog__new("", &cat), 0);
	CHECK_EQ_U64(tp_catalog__load_text(cat, "faultline_pmu", "realloc_return", text, strlen(text),
					   &ev, &eb), 0);
	if (ev) {
		CHECK_EQ_U64(tp_event__field(ev, "ptr", &f), 0);
		CHECK_EQ_U64(tp_field__u64(&f, buf, pmu_args__raw_size(a), &v), 0);
		CHECK_EQ_U64(v, 0x55aa00001000ULL);
		CHECK_EQ_U64(tp_event__field(ev, "size", &f), 0);
		CHECK_EQ_U64(tp_field__u64(&f, buf, pmu_args__raw_size(a), &v), 0);
		CHECK_EQ_U64(v, 4096);
		CHECK_EQ_U64(tp_event__field(ev, "ret", &f), 0);
		CHECK_EQ_U64(tp_field__u64(&f, buf, pmu_args__raw_size(a), &v), 0);
		CHECK_EQ_U64(v, (uint64_t)-12);	/* sign-extended from 32 bits */
		CHECK(tp_event__field(ev, "sp", &f) != 0);
	}
	tp_catalog__free(cat);
	free(text);
	pmu_args__free(a);
}

static void test_refused(void)
{
	struct errbuf eb = { "" };
	struct pmu_args *a = NULL;

	CHECK_EQ_U64(pmu_args__parse("ret=+0(%dx):x64", true, &a, &eb), -EOPNOTSUPP);
	CHECK(strstr(eb.msg, "registers only") != NULL);
	CHECK(a == NULL);
	CHECK_EQ_U64(pmu_args__parse("ret=$retval:x64", false, &a, &eb), -EOPNOTSUPP);
	CHECK_EQ_U64(pmu_args__parse("s=%di:string", false, &a, &eb), -EOPNOTSUPP);
	CHECK_EQ_U64(pmu_args__parse("x=%zz:u64", false, &a, &eb), -EOPNOTSUPP);
	CHECK_EQ_U64(pmu_args__parse("novalue", false, &a, &eb), -EINVAL);
	CHECK_EQ_U64(pmu_args__parse("", false, &a, &eb), 0);
	CHECK(a && pmu_args__regs_mask(a) == 0 && pmu_args__raw_size(a) == 8);
	pmu_args__free(a);
}

static void test_spec_twin(void)
{
	static const char text[] =
		"library c\n"
		"probe brk_return return brk ret=+0(%dx):x64 rc=$retval:s32\n"
		"expect brk_return c3\n"
		"pmu brk_return entry brk+0xe ret=%ax:x64\n"
		"expect brk_return 4889024839f8720a\n";
	struct errbuf eb = { "" };
	struct probe_set *set = NULL;
	const struct probe_spec *p;

	CHECK_EQ_U64(probe_set__parse(text, "t", &set, &eb), 0);
	CHECK_EQ_U64(probe_set__count(set), 1);
	p = probe_set__find(set, "brk_return");
	CHECK(p && p->pmu);
	if (p && p->pmu) {
		CHECK_EQ_U64(p->kind, PROBE_RETURN);
		CHECK_EQ_U64(p->nexpect, 1);
		CHECK_EQ_U64(p->pmu->kind, PROBE_ENTRY);
		CHECK_EQ_U64(p->pmu->sym_offset, 0xe);
		CHECK_STR(p->pmu->fetchargs, "ret=%ax:x64");
		CHECK_EQ_U64(p->pmu->nexpect, 8);
		CHECK_EQ_U64(p->pmu->expect[0], 0x48);
	}
	CHECK_EQ_U64(probe_set__retarget(set, "c2", "x_"), 0);
	if (p && p->pmu) {
		CHECK_STR(p->pmu->library, "c2");
		CHECK_STR(p->pmu->symbols[0], "x_brk");
	}
	probe_set__free(set);

	/* A twin must name a probe above, once, with register fetchargs. */
	CHECK_EQ_U64(probe_set__parse("library c\npmu a entry f x=%di\n", "t", &set, &eb), -EINVAL);
	CHECK(strstr(eb.msg, "names no probe defined above") != NULL);
	CHECK_EQ_U64(probe_set__parse("library c\nprobe a entry f\npmu a entry f x=+8(%di)\n", "t", &set,
				      &eb), -EINVAL);
	CHECK(strstr(eb.msg, "t:3: pmu probe 'a':") != NULL);
	CHECK_EQ_U64(probe_set__parse("library c\nprobe a entry f\npmu a entry f\npmu a entry g\n", "t",
				      &set, &eb), -EINVAL);
	CHECK(strstr(eb.msg, "has a 'pmu' twin already") != NULL);
}

int main(void)
{
	test_payload();
	test_refused();
	test_spec_twin();
	return check_done("test-uprobe-pmu");
}
