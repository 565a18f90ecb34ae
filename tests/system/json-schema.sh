#!/bin/sh
# Every tool's --json output against docs/json-schema.md: each tool run
# with --json on a real target (tests/targets/*), live where a short run
# can be, from a recording for what only a replay prints (timeline, diff),
# and the JSON golden reports (tests/golden/expected: oom's kill among
# them, which a live run cannot make here without a memory cgroup), every
# line checked by json-schema-check.py: an object of a documented type of
# that tool, with exactly the documented keys (snake_case), values of the
# documented kinds (integers raw, no units), stacks of well-formed frames,
# "time" and "interval" in the objects of a report printed every interval.
# A tool the checker saw no object of fails: the run went wrong.
. "$top_srcdir/tests/system/lib.sh"
need_root

SCHEMA="$top_srcdir/docs/json-schema.md"
CHECK="$top_srcdir/tests/system/json-schema-check.py"
LT=$(target leak-target)
FT=$(target fault-target)
BT=$(target brk-target)
MT=$(target mmap-target)
ST=$(target shm-target)
SL=$(target slab-target)
HT=$(target huge-target)
GT=$(target go-target)

runs="$T/runs"
: >"$runs"

# json TOOL NAME ARGS...: run faultline ARGS, its stdout kept as NAME for
# the checker, as output of TOOL; fail unless it exits 0.
json() {
	local tool="$1" name="$2"
	shift 2
	run_fl "$@"
	expect_eq "$rc" 0 "$name: status ($(head -c 300 "$T/err"))"
	cp "$T/out" "$T/$name.json"
	echo "$tool $T/$name.json" >>"$runs"
}

# The targets' own output goes to /dev/null (sh execs them, so the
# traced process is the target): every line of stdout is faultline's.
Q='exec "$0" "$@" >/dev/null'
json features features features --json
# Frames with --srcline (file, line, inlined), and -a's blocks.
json leak leak-srcline leak --json --srcline -a -- sh -c "$Q" "$LT" leaks
# Every 0.1 s while the target holds its blocks: periodic reports.
json leak leak-periodic leak --json -o 0 0.1 -- sh -c "$Q" "$LT" leaks --hold-ms 500
json leak leak-trace leak --json -t -- sh -c "$Q" "$LT" leaks
json heap heap heap --json -- sh -c "$Q" "$LT" leaks
json heap heap-interval heap --json --interval 0.001 -- sh -c "$Q" "$LT" leaks
# Snapshots every 0.05 s over the target's half second: "snapshot"
# objects, each before a report of its own (tests/system/snapshot.sh
# checks their figures).
json heap heap-snapshot heap --json --snapshot-every 0.05 -- sh -c "$Q" "$LT" leaks --hold-ms 500
grep -q '"type":"snapshot"' "$T/heap-snapshot.json" || fail "heap --snapshot-every: no snapshot"
json faults faults faults --json -- sh -c "$Q" "$FT"
json faults faults-interval faults --json --interval 0.001 -- sh -c "$Q" "$FT"
json faults faults-by-alloc faults --json --by-alloc -- sh -c "$Q" "$LT" leaks
json ffaults ffaults ffaults --json -- sh -c "$Q" "$FT"
json hfaults hfaults hfaults --json -- sh -c "$Q" "$HT"
json brk brk brk --json -T -- sh -c "$Q" "$BT"
json mmap mmap mmap --json -g -- sh -c "$Q" "$MT" --raw
json shm shm shm --json -g -- sh -c "$Q" "$ST"
mkdir "$T/files"
json slab slab slab --json -g -C kmalloc-64,dentry 0.1 -- sh -c "$Q" "$SL" "$T/files" --files 2000
json swapin swapin swapin --json 0.1 -- sh -c "$Q" "$LT" leaks --hold-ms 300
json compact compact compact --json -s -i 0.1 -- sh -c "$Q" "$LT" leaks --hold-ms 300
json reclaim reclaim reclaim --json -s -i 0.1 -- sh -c "$Q" "$LT" leaks --hold-ms 300
json reclaim reclaim-events reclaim --json -T -- sh -c "$Q" "$LT" leaks
json pressure pressure pressure --json 0.1 2
if [ -x "$GT" ]; then
	json goalloc goalloc goalloc --json -T 100000 -- sh -c "$Q" "$GT"
fi

# From a recording: what only a replay prints, and a periodic replay.
run_fl record -e leak,faults -o "$T/a.rec" -- "$LT" leaks --hold-ms 300
expect_eq "$rc" 0 "record status"
json timeline timeline report -i "$T/a.rec" timeline --json --interval 0.05
json diff diff report -i "$T/a.rec" diff --json --all "$T/a.rec"
json leak leak-replay report -i "$T/a.rec" leak --json -o 0 0.1

# The golden reports: every JSON one, its tool as run-report.sh runs it.
awk '$1 == "ok" && / --json/ { print $4, $2 }' "$top_srcdir/tests/golden/run-report.sh" |
while read -r tool name; do
	echo "$tool $top_srcdir/tests/golden/expected/$name.out"
done >>"$runs"

# What the runs were for: --srcline's frames; reports every interval (the
# replay's, on the recording's clock: its 300 ms hold spans 2 or more).
expect_line '"file":"[^"]*leak-target\.c","line":[0-9]+,"inlined":\[' "$T/leak-srcline.json"
expect_line '^\{"type":"stack",.*"time":"[0-9:]{8}","interval":2\}$' "$T/leak-replay.json"

python3 "$CHECK" "$SCHEMA" "$runs" >"$T/check" 2>&1 || fail "schema check: $(head -c 3000 "$T/check")"
pass_or_fail
