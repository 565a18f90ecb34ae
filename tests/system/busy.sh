#!/bin/sh
# A busy, cold host (issue 24, item 1; bench/busy-loss is the long form):
# two CPU hogs (`yes >/dev/null`) run beside faultline for the whole test
# on this 2-CPU machine, and the page cache is dropped before each run
# (faultline, the target and their libraries read from disk again).  At
# default settings (DWARF stacks, default rings, back-pressure on; no
# busy_opts, even in the sanitizer build) faultline must lose no event:
#   1. leak --json -c malloc-churn, 600,000 malloc/free pairs keeping every
#      1000th block: 0 lost, the target's own account exactly (its pairs as
#      the allocations traced, 600 blocks kept and their bytes, the frees);
#   2. record -c of the same (the default tools), then report -i leak of
#      the recording: the record run's "(0 lost)", and the same exact
#      counts from the recording.
# A pause count may be anything (the drain thread keeps up or the target
# is paused); a loss is a failure, not a tolerance: back-pressure exists so
# that a run cannot lose events to a slow reader.  Each run prints
# "RESULT busy" with its pauses, their time and its duration.
# The hogs are started with spawn: lib.sh's EXIT trap (which INT, TERM and
# HUP reach too) kills them on every way out of the test.
. "$top_srcdir/tests/system/lib.sh"
need_root
[ -w /proc/sys/vm/drop_caches ] || skip "cannot drop the page cache (/proc/sys/vm/drop_caches)"
command -v yes >/dev/null || skip "no yes(1) for the CPU hogs"
MC=$(target malloc-churn)
N=600000
K=1000
: "${FL_TIMEOUT:=300}"

# exact NAME JSON TRUTH: a leak report against the target's own account.
exact() {
	expect_eq "$(leak_nums "$2" lost allocs blocks bytes frees)" \
		"0 $N $((N / K)) $(key_of "$3" kept_bytes) $((N - N / K))" \
		"$1: lost, allocations, blocks, bytes and frees against the target's"
	expect_eq "$(key_of "$3" pairs) $(key_of "$3" kept)" "$N $((N / K))" \
		"$1: the target's own pairs and blocks kept"
}

cold() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

now() { date +%s.%N; }
took() { python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$@"; }

spawn hog1 sh -c 'exec yes >/dev/null'
spawn hog2 sh -c 'exec yes >/dev/null'

# 1. leak -c, live.
cold
t0=$(now)
run_fl leak --json -c "$MC --count $N --keep $K"
t1=$(now)
expect_eq "$rc" 0 "leak -c: status"
exact "leak -c" "$T/out" "$T/out"
echo "RESULT busy leak -c: lost $(summary_of "$T/out" lost), $(summary_of "$T/out" pauses) pauses," \
	"$(summary_of "$T/out" paused_ms) ms paused, $(took "$t0" "$t1") s"

# 2. record -c, the default tools, then its report.
cold
t0=$(now)
run_fl record -o "$T/busy.rec" -c "$MC --count $N --keep $K"
t1=$(now)
expect_eq "$rc" 0 "record -c: status"
cp "$T/out" "$T/record.out"
expect_line '^faultline record: [0-9,]+ samples \(0 lost\) of ' "$T/err"
expect_no_line 'lost [1-9]|WARNING' "$T/err"
# Its pause line, when there was one: "... paused N times, M ms in all, ...".
pline=$(sed -n 's/^faultline record: the target was paused //p' "$T/err")
pn=0 pms=0
if [ -n "$pline" ]; then
	pn=${pline%% *}
	pms=${pline#*, }
	pms=${pms%% *}
	pn=${pn//,/} pms=${pms//,/}
fi
echo "RESULT busy record -c: $(sed -n 's/^faultline record: \([0-9]* samples\).*/\1/p' "$T/err")," \
	"$pn pauses, $pms ms paused, $(took "$t0" "$t1") s"
run_fl report -i "$T/busy.rec" leak --json
expect_eq "$rc" 0 "report -i leak: status"
exact "record -c, report -i leak" "$T/out" "$T/record.out"
expect_eq "$(summary_of "$T/out" pauses)" "$pn" "report -i leak: the record run's pauses"
rm -f "$T/busy.rec"
pass_or_fail
