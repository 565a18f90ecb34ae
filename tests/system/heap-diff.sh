#!/bin/sh
# faultline report -i NEW diff OLD on growth-target: OLD runs 5 steps with
# a 50000-byte spike, NEW 8 steps with a 60000-byte one.  Per stack, from
# the target's pattern (growth-target.c), the changes are exact:
#   spike       peak +10000 (50000 -> 60000: the peak instant is the
#               spike's, in both), leaked 0, calls 0
#   leak_step   leaked +3000 (5000 -> 8000), peak 0 (1000 at the spike in
#               both), calls +3
#   half_step   leaked +300 (900 -> 1200), peak 0 (300), calls +3
#   churn_step  calls +6 (10 -> 16), nothing else
# in that order; totals leaked +3300, peak +10000 (51300 -> 61300), calls
# +12 (21 -> 33).  --fail-on-increase 9999 exits 1, 10000 exits 0.  Two
# recordings of NEW's run, whose addresses ASLR moves, match stack for
# stack with no change: stacks are matched by name, not address.
. "$top_srcdir/tests/system/lib.sh"
need_root
GT=$(target growth-target)

run_fl record -e leak -o "$T/old.rec" -c "$GT --steps 5 --spike 50000"
expect_eq "$rc" 0 "record old"
run_fl record -e leak -o "$T/new.rec" -c "$GT --steps 8 --spike 60000"
expect_eq "$rc" 0 "record new"
run_fl record -e leak -o "$T/new2.rec" -c "$GT --steps 8 --spike 60000"
expect_eq "$rc" 0 "record new again"

run_fl report -i "$T/new.rec" diff --json "$T/old.rec"
expect_eq "$rc" 0 "diff exit status"
expect_json_lines "$T/out"
python3 - "$T/out" <<'PY' || fail "diff: the changes are not the target's"
import json, sys
st, summ = [], None
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "heap_diff_stack":
        st.append(o)
    elif o["type"] == "heap_diff_summary":
        summ = o
    elif o["type"] == "lost":
        sys.exit("events lost: %r" % o)
errs = []
def want(what, got, exp):
    if got != exp:
        errs.append("%s: %r, want %r" % (what, got, exp))
names = [o["stack"][0]["func"] for o in st]
want("order", names, ["spike", "leak_step", "half_step", "churn_step"])
exp = {"spike": (0, 10000, 0), "leak_step": (3000, 0, 3), "half_step": (300, 0, 3),
       "churn_step": (0, 0, 6)}
for o in st:
    n = o["stack"][0]["sym"].split("+")[0]
    got = (o["leaked_bytes"]["change"], o["peak_bytes"]["change"], o["calls"]["change"])
    want(n, got, exp.get(n))
    want(n + " in both", o["only_in"], None)
    if any("addr" in f or ("0x" in f["sym"] and "+0x" not in f["sym"]) for f in o["stack"]):
        errs.append("%s: an address in a frame: %r" % (n, o["stack"]))
want("leak_step leaked", [(o["leaked_bytes"]["old"], o["leaked_bytes"]["new"]) for o in st if o["stack"][0]["sym"].startswith("leak_step")], [(5000, 8000)])
want("total leaked", summ["leaked_bytes"], {"old": 5900, "new": 9200, "change": 3300})
want("total peak", summ["peak_bytes"], {"old": 51300, "new": 61300, "change": 10000})
want("total calls", summ["calls"], {"old": 21, "new": 33, "change": 12})
want("changed", summ["changed"], 4)
if errs:
    sys.exit("\n".join(errs))
PY

# The text: the largest change first, with its words.
run_fl report -i "$T/new.rec" diff "$T/old.rec"
expect_eq "$rc" 0 "diff text exit status"
# A stack's figures, a labelled line each, exact (then their IEC size:
# ib); the total's likewise.
ib=' \([0-9]+\.[0-9]{2} [KMGTPE]iB\)'
expect_eq "$(grep -m 1 -A 3 '^stack' "$T/out" | sed -E "s/$ib//g")" "stack:
  leaked: +0 B, 0 B -> 0 B
  peak:   +10,000 B, 50,000 B -> 60,000 B
  calls:  +0, 1 -> 1" "first stack is the spike, with its figures"
expect_line "^  peak:   \+10,000 B$ib, 50,000 B$ib -> 60,000 B$ib\$" "$T/out"
expect_line '^	spike\+0x[0-9a-f]+ \[growth-target\]$' "$T/out"
expect_eq "$(grep -A 2 '^  leaked: +3,000 B' "$T/out" | sed -E "s/$ib//g")" "  leaked: +3,000 B, 5,000 B -> 8,000 B
  peak:   +0 B, 1,000 B -> 1,000 B
  calls:  +3, 5 -> 8" "leak_step's figures"
expect_eq "$(grep -A 3 '^total:$' "$T/out" | sed -E "s/$ib//g")" "total:
  leaked: +3,300 B, 5,900 B -> 9,200 B
  peak:   +10,000 B, 51,300 B -> 61,300 B
  calls:  +12, 21 -> 33" "the totals"
expect_line '^  stacks: [0-9]+, 4 changed \([0-9]+ shown\), ' "$T/out"

# The gate, both ways.
run_fl report -i "$T/new.rec" diff --fail-on-increase 9999 "$T/old.rec"
expect_eq "$rc" 1 "--fail-on-increase 9999 (the spike grew by 10000)"
expect_line 'report diff: 1 stacks grew by more than 9999 bytes' "$T/err"
run_fl report -i "$T/new.rec" diff --fail-on-increase 10000 "$T/old.rec"
expect_eq "$rc" 0 "--fail-on-increase 10000"
# Backwards, everything shrank: no stack grew at all.
run_fl report -i "$T/old.rec" diff --fail-on-increase 0 --json "$T/new.rec"
expect_eq "$rc" 0 "old against new, --fail-on-increase 0"
expect_line '"type":"heap_diff_summary","leaked_bytes":\{"old":9200,"new":5900,"change":-3300\}' "$T/out"

# Two runs of one program under ASLR: the same stacks by name, no change.
if [ "$(cat /proc/sys/kernel/randomize_va_space)" != 0 ]; then
	run_fl report -i "$T/new.rec" script
	grep -m 1 -E '^[[:space:]]+[0-9a-f]+ leak_step\+' "$T/out" | awk '{ print $1 }' >"$T/a1"
	run_fl report -i "$T/new2.rec" script
	grep -m 1 -E '^[[:space:]]+[0-9a-f]+ leak_step\+' "$T/out" | awk '{ print $1 }' >"$T/a2"
	[ -s "$T/a1" ] || fail "no leak_step frame in the recording's script"
	cmp -s "$T/a1" "$T/a2" && fail "ASLR on, but leak_step at the same address in both runs"
	run_fl report -i "$T/new2.rec" diff --fail-on-increase 0 --json "$T/new.rec"
	expect_eq "$rc" 0 "same program twice, --fail-on-increase 0"
	expect_line '"stacks":4,"changed":0,"only_new":0,"only_old":0' "$T/out"
	expect_no_line '"type":"heap_diff_stack"' "$T/out"
fi

# Bad command lines.
run_fl report -i "$T/new.rec" diff
expect_eq "$rc" 2 "diff without OLD"
run_fl report -i "$T/new.rec" diff --fail-on-increase lots "$T/old.rec"
expect_eq "$rc" 2 "--fail-on-increase lots"
run_fl report -i "$T/new.rec" diff "$T/nonexistent.rec"
expect_eq "$rc" 1 "a missing OLD recording"
pass_or_fail
