/*
 * test-vmscan-fields: the fields `faultline reclaim` reads, found by name
 * in the vmscan formats of two kernels: RHEL 7's 3.10 (fixture tree:
 * may_writepage in the begin event, a 4-byte gfp_t) and the running one.
 * nr_reclaimed is what PAGES prints; its offset must come from the format.
 * Fixture paths come from $top_srcdir (default ".").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace/tp-catalog.h"
#include "check.h"

static void check_end_event(struct tp_catalog *cat, const char *event, int offset)
{
	struct errbuf eb = { "" };
	struct tp_event *ev = NULL;
	struct tp_field f;
	uint64_t v = 0;
	unsigned char raw[16] = { 0 };

	CHECK_EQ_U64(tp_catalog__load(cat, "vmscan", event, &ev, &eb), 0);
	if (!ev)
		return;
	CHECK_EQ_U64(tp_event__field(ev, "nr_reclaimed", &f), 0);
	CHECK_EQ_U64(f.offset, offset);
	CHECK_EQ_U64(f.size, 8);
	raw[offset] = 49;	/* little-endian 49 */
	CHECK_EQ_U64(tp_field__u64(&f, raw, sizeof(raw), &v), 0);
	CHECK_EQ_U64(v, 49);
	CHECK_EQ_U64(tp_field__u64(&f, raw, 12, &v), -ERANGE);
}

int main(void)
{
	const char *top = getenv("top_srcdir") ? getenv("top_srcdir") : ".";
	struct tp_catalog *cat = NULL;
	struct errbuf eb = { "" };
	struct tp_event *ev = NULL;
	struct tp_field f;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/tests/fixtures/kernels/rhel7-3.10/tracing", top);
	CHECK_EQ_U64(tp_catalog__new(dir, &cat), 0);
	if (cat) {
		check_end_event(cat, "mm_vmscan_direct_reclaim_end", 8);
		check_end_event(cat, "mm_vmscan_memcg_reclaim_end", 8);
		CHECK_EQ_U64(tp_catalog__load(cat, "vmscan", "mm_vmscan_direct_reclaim_begin", &ev, &eb), 0);
		CHECK_EQ_U64(tp_event__field(ev, "may_writepage", &f), 0);
		CHECK_EQ_U64(tp_event__field(ev, "gfp_flags", &f), 0);
		CHECK_EQ_U64(f.size, 4);
		/* 3.10 names the writeback event by page, not folio. */
		CHECK_EQ_U64(tp_catalog__load(cat, "vmscan", "mm_vmscan_write_folio", &ev, &eb), -ENOENT);
		CHECK_EQ_U64(tp_catalog__load(cat, "vmscan", "mm_vmscan_writepage", &ev, &eb), 0);
		tp_catalog__free(cat);
	}
	/* The running kernel, when its tracing dir is readable (root). */
	cat = NULL;
	if (access("/sys/kernel/tracing/events/vmscan/mm_vmscan_direct_reclaim_end/format", R_OK) == 0 &&
	    tp_catalog__new("/sys/kernel/tracing", &cat) == 0) {
		CHECK_EQ_U64(tp_catalog__load(cat, "vmscan", "mm_vmscan_direct_reclaim_end", &ev, &eb), 0);
		CHECK_EQ_U64(tp_event__field(ev, "nr_reclaimed", &f), 0);
		CHECK_EQ_U64(f.size, 8);
		tp_catalog__free(cat);
	}
	return check_done("test-vmscan-fields");
}
