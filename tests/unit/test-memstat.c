/*
 * test-memstat: the payload of the synthetic event faultline:memstat
 * round-trips (absent counters, unknown avg10s), a short one is refused,
 * and its format text parses like a tracepoint's, each field read by name
 * at the value encoded (what `report script` prints and a reader of the
 * documented layout in docs/record-format.md sees).
 */
#include <stdint.h>
#include <string.h>

#include "trace/memstat.h"
#include "trace/tp-catalog.h"
#include "check.h"

int main(void)
{
	static const char *const names[MI__COUNT] = {
		"psi_some_us", "psi_full_us", "cg_some_us", "cg_full_us", "memavailable_kb",
		"pgmajfault", "pswpin", "pswpout", "allocstall", "compact_stall", "oom_kill",
	};
	struct mem_sample in, out;
	unsigned char raw[MEMSTAT_PAYLOAD_SIZE];
	struct tp_catalog *cat = NULL;
	struct tp_event *ev = NULL;
	struct errbuf eb = { "" };
	struct tp_field f;
	uint64_t v;

	memset(&in, 0, sizeof(in));
	in.time_ns = 14885863164644ULL;
	for (int i = 0; i < MI__COUNT; i++)
		in.v[i] = 1000003ULL * (uint64_t)(i + 1);
	in.v[MI_CG_FULL_US] = PROCSTAT_ABSENT;
	in.avg10[0] = 12.34;
	in.avg10[1] = 0;
	in.avg10[2] = in.avg10[3] = -1;
	memstat__encode(&in, raw);
	CHECK_EQ_U64(memstat__decode(raw, sizeof(raw), &out), 0);
	CHECK_EQ_U64(out.time_ns, in.time_ns);
	for (int i = 0; i < MI__COUNT; i++)
		CHECK_EQ_U64(out.v[i], in.v[i]);
	CHECK(out.avg10[0] > 12.33 && out.avg10[0] < 12.35);
	CHECK(out.avg10[1] == 0 && out.avg10[2] == -1 && out.avg10[3] == -1);
	CHECK(memstat__decode(raw, sizeof(raw) - 1, &out) < 0);
	CHECK(memstat__decode(NULL, 0, &out) < 0);

	CHECK_EQ_U64(tp_catalog__new("", &cat), 0);
	CHECK_EQ_U64(tp_catalog__load_text(cat, MEMSTAT_SYSTEM, MEMSTAT_EVENT, memstat__format(),
					   strlen(memstat__format()), &ev, &eb), 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_EQ_U64(tp_event__field(ev, "time_ns", &f), 0);
		CHECK_EQ_U64(tp_field__u64(&f, raw, sizeof(raw), &v), 0);
		CHECK_EQ_U64(v, in.time_ns);
		for (int i = 0; i < MI__COUNT; i++) {
			CHECK_EQ_U64(tp_event__field(ev, names[i], &f), 0);
			CHECK_EQ_U64(tp_field__u64(&f, raw, sizeof(raw), &v), 0);
			CHECK_EQ_U64(v, in.v[i]);
		}
		CHECK_EQ_U64(tp_event__field(ev, "psi_some_avg10", &f), 0);
		CHECK_EQ_U64(tp_field__u64(&f, raw, sizeof(raw), &v), 0);
		CHECK_EQ_U64(v, 1234);
	}
	tp_catalog__free(cat);
	return check_done("test-memstat");
}
