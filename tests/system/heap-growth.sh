#!/bin/sh
# Memory over time and the growth ranking (faultline heap --interval-calls,
# live and from a recording), and live leak's calls per stack and peak,
# against growth-target's own account.  growth-target makes 4 allocation
# calls a step, nothing else allocates, so intervals of 4 calls are its
# steps: after step i, leak_step holds 1000 i bytes, half_step 300 ceil(i/2),
# churn_step 0; within the step the process peaks at the end of the step
# before plus 1000 + 300 + 1000 (odd i: half_step's block is kept) or plus
# 2000 (even i: it is freed before churn_step's two blocks).  The growth
# rule puts leak_step first (it rose in 7 of 8 intervals, never fell),
# half_step second (rose in 3, never fell, highest first reached in
# interval 7 of 8), churn_step not growing.
. "$top_srcdir/tests/system/lib.sh"
need_root
GT=$(target growth-target)
STEPS=8

truth() { sed -n "s/^$1=//p" "$2" | head -n 1; }

# check_growth FILE WHAT: heap --interval-calls 4 --json -n 3's objects.
check_growth() {
	python3 - "$1" "$STEPS" <<'PY' || fail "$2: the intervals or the ranking are not the target's"
import json, sys
steps = int(sys.argv[2])
iv, gr = [], []
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o["type"] == "heap_interval":
            iv.append(o)
        elif o["type"] == "heap_growth":
            gr.append(o)
errs = []
def want(what, got, exp):
    if got != exp:
        errs.append("%s: %r, want %r" % (what, got, exp))
want("intervals", len(iv), steps)
want("ranked stacks shown", len(gr), 3)
names = [g["stack"][0]["sym"].split("+")[0] for g in gr]
want("ranking", names, ["leak_step", "half_step", "churn_step"])
want("growing", [g["growing"] for g in gr], [True, True, False])
if len(gr) == 3:
    want("leak_step growth", gr[0]["growth_bytes"], 1000 * (steps - 1))
    want("leak_step rises/falls", (gr[0]["rises"], gr[0]["falls"]), (steps - 1, 0))
    want("leak_step calls", gr[0]["calls"], steps)
    want("half_step rises/falls", (gr[1]["rises"], gr[1]["falls"]), ((steps - 1) // 2, 0))
    want("churn_step calls", gr[2]["calls"], 2 * steps)
end = 0
for k, o in enumerate(iv):
    i = k + 1
    leak, half = 1000 * i, 300 * ((i + 1) // 2)
    peak = end + (2300 if i % 2 else 2000)
    end = leak + half
    want("interval %d stacks" % i, o["stacks"], [leak, half, 0])
    want("interval %d process bytes" % i, o["process_bytes"], end)
    want("interval %d process peak" % i, o["process_peak_bytes"], peak)
    want("interval %d calls" % i, o["calls"], 4 * i)
if errs:
    sys.exit("\n".join(errs))
PY
}

# 1. From a recording, and live: the same exact intervals and ranking.
run_fl record -e leak -o "$T/g.rec" -c "$GT --steps $STEPS"
expect_eq "$rc" 0 "record exit status"
expect_eq "$(truth leak_bytes "$T/out")" $((1000 * STEPS)) "target's leak_bytes"
run_fl report -i "$T/g.rec" heap --interval-calls 4 --json -n 3
expect_eq "$rc" 0 "report heap --interval-calls exit status"
expect_json_lines "$T/out"
check_growth "$T/out" "report"
run_fl heap --interval-calls 4 --json -n 3 -c "$GT --steps $STEPS"
expect_eq "$rc" 0 "live heap --interval-calls exit status"
check_growth "$T/out" "live"
# The text: the table and the ranking's words.
run_fl report -i "$T/g.rec" heap --interval-calls 4 -n 3
expect_line '^MEMORY OVER TIME$' "$T/out"
expect_line '^ +8 +[0-9.]+ +32 +9200 +[0-9]+ +8000 +1200 +0$' "$T/out"
# A figure a line, exact (ib: the IEC size that follows one of 1 KiB up).
ib=' \([0-9]+\.[0-9]{2} [KMGTPE]iB\)'
expect_eq "$(grep -A 3 '^#1 ' "$T/out" | sed -E "s/$ib//g")" "#1 growing: +7,000 B over 8 intervals (rose in 7, fell in 0)
    first, last: 1,000 B, 8,000 B
    highest:     8,000 B in interval 8
    calls:       8, from" "#1's words and figures"
expect_line "^#1 growing: \+7,000 B$ib over " "$T/out"
expect_line '^#3 not growing: \+0 B over ' "$T/out"
expect_line '^total memory leaked: 9.20K$' "$T/out"
# By time: however the run falls into intervals, the last ends with what
# leaked, and every interval's process bytes are what its stacks hold.
run_fl report -i "$T/g.rec" heap --interval 0.0005 --json -n 100
expect_eq "$rc" 0 "report heap --interval exit status"
python3 - "$T/out" <<'PY' || fail "heap --interval: intervals disagree with the stacks or the leak"
import json, sys
iv = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{") and '"heap_interval"' in l]
assert iv, "no intervals"
assert iv[-1]["process_bytes"] == 9200, iv[-1]
for o in iv:
    assert sum(o["stacks"]) == o["process_bytes"], o
    assert o["process_peak_bytes"] >= o["process_bytes"], o
assert [o["index"] for o in iv] == list(range(len(iv)))
PY
run_fl heap --interval 1 --interval-calls 4 -c true
expect_eq "$rc" 2 "--interval with --interval-calls: usage error"

# 2. Live leak: calls per stack and the peak, the target's own count.
run_fl leak --json -c "$GT --steps $STEPS --spike 50000"
expect_eq "$rc" 0 "leak exit status"
cp "$T/out" "$T/leak.json"
python3 - "$T/leak.json" <<'PY' || fail "leak --json: calls or peak differ from the target's"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
truth = dict(l.split("=", 1) for l in lines if "=" in l and not l.startswith("{"))
stacks = {}
summ = None
for l in lines:
    if l.startswith("{"):
        o = json.loads(l)
        if o["type"] == "stack":
            stacks[o["stack"][0]["sym"].split("+")[0]] = o
        elif o["type"] == "leak_summary":
            summ = o
errs = []
def want(what, got, exp):
    if got != exp:
        errs.append("%s: %r, want %r" % (what, got, exp))
want("stacks", sorted(stacks), ["half_step", "leak_step"])
if "leak_step" in stacks:
    want("leak_step calls", stacks["leak_step"]["calls"], int(truth["leak_calls"]))
    want("leak_step bytes", stacks["leak_step"]["bytes"], int(truth["leak_bytes"]))
if "half_step" in stacks:
    want("half_step calls", stacks["half_step"]["calls"], int(truth["half_calls"]))
    want("half_step allocations", stacks["half_step"]["allocations"], (int(truth["half_calls"]) + 1) // 2)
want("peak_bytes", summ["peak_bytes"], int(truth["peak_bytes"]))
want("outstanding", summ["outstanding_bytes"], int(truth["leaked_bytes"]))
if not summ["peak_time_s"] > 0:
    errs.append("peak_time_s %r" % summ["peak_time_s"])
if errs:
    sys.exit("\n".join(errs))
PY
run_fl leak -c "$GT --steps $STEPS --spike 50000"
expect_eq "$rc" 0 "leak text exit status"
expect_line '^	8000 bytes in 8 allocations from stack$' "$T/out"
expect_line '^	1200 bytes in 4 allocations from stack$' "$T/out"
expect_line "^  peak: +[0-9,]+ B$ib outstanding at [0-9]+\.[0-9]{6}s$" "$T/out"
expect_eq "$(sed -n 's/^  peak: *\([0-9,]*\) B.*/\1/p' "$T/out" | tr -d ,)" "$(truth peak_bytes "$T/out")" \
	"leak's peak against the target's"
# The calls line closes its stack: after the frames of leak_step's.
awk '/^	8000 bytes in 8 allocations from stack$/ { on = 1; next }
	on && /^		/ { frames++; next }
	on { print frames, $0; exit }' "$T/out" >"$T/after"
expect_line '^[0-9]+ 	8 calls to allocation functions from this stack$' "$T/after"
pass_or_fail
