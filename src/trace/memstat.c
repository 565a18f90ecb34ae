/*
 * memstat: the payload and format of "faultline:memstat" (see memstat.h).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "trace/memstat.h"

_Static_assert(MI__COUNT == 11, "memstat__format() names 11 indicators");

#define OFF_TIME 8
#define OFF_V 16
#define OFF_AVG (OFF_V + 8 * MI__COUNT)

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void memstat__encode(const struct mem_sample *ms, unsigned char *buf)
{
	memset(buf, 0, OFF_TIME);
	put64(buf + OFF_TIME, ms->time_ns);
	for (int i = 0; i < MI__COUNT; i++)
		put64(buf + OFF_V + 8 * i, ms->v[i]);
	for (int j = 0; j < 4; j++)
		put64(buf + OFF_AVG + 8 * j, ms->avg10[j] < 0 ? (uint64_t)-1 :
		      (uint64_t)(ms->avg10[j] * 100 + 0.5));
}

int memstat__decode(const void *raw, size_t n, struct mem_sample *ms)
{
	const unsigned char *p = raw;

	if (!raw || n < MEMSTAT_PAYLOAD_SIZE)
		return -EBADMSG;
	ms->time_ns = get64(p + OFF_TIME);
	for (int i = 0; i < MI__COUNT; i++)
		ms->v[i] = get64(p + OFF_V + 8 * i);
	for (int j = 0; j < 4; j++) {
		int64_t a = (int64_t)get64(p + OFF_AVG + 8 * j);

		ms->avg10[j] = a < 0 ? -1 : (double)a / 100;
	}
	return 0;
}

const char *memstat__format(void)
{
	/* Offsets as OFF_*: the indicators in enum mem_ind's order. */
	return "name: memstat\nID: 0\nformat:\n"
	       "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	       "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	       "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	       "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	       "\tfield:u64 time_ns;\toffset:8;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 psi_some_us;\toffset:16;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 psi_full_us;\toffset:24;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 cg_some_us;\toffset:32;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 cg_full_us;\toffset:40;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 memavailable_kb;\toffset:48;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 pgmajfault;\toffset:56;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 pswpin;\toffset:64;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 pswpout;\toffset:72;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 allocstall;\toffset:80;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 compact_stall;\toffset:88;\tsize:8;\tsigned:0;\n"
	       "\tfield:u64 oom_kill;\toffset:96;\tsize:8;\tsigned:0;\n"
	       "\tfield:s64 psi_some_avg10;\toffset:104;\tsize:8;\tsigned:1;\n"
	       "\tfield:s64 psi_full_avg10;\toffset:112;\tsize:8;\tsigned:1;\n"
	       "\tfield:s64 cg_some_avg10;\toffset:120;\tsize:8;\tsigned:1;\n"
	       "\tfield:s64 cg_full_avg10;\toffset:128;\tsize:8;\tsigned:1;\n\n"
	       "print fmt: \"psi_some_us=%llu psi_full_us=%llu cg_some_us=%llu cg_full_us=%llu "
	       "memavailable_kb=%llu\", REC->psi_some_us, REC->psi_full_us, REC->cg_some_us, "
	       "REC->cg_full_us, REC->memavailable_kb\n";
}
