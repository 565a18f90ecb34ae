#!/bin/sh
# Lost events are said first, before any result: leak, and the other tools
# sharing its footer (brk, faults).  A ring of one page (-m 1) cannot hold
# a single DWARF sample (8 KiB of copied stack by default), so every event
# with a user stack is lost, deterministically: malloc's returns, brk's
# and the faults' events.  The first line faultline prints then says how
# many were lost, the same number as the footer, what it means and, in
# the same line, what would have lost none (a ring -m four times as big,
# fp stacks for the tools that take stacks, -s for leak; "record again
# with" for a recording); in --json the first object does; stderr warns.
# Without loss none of it.
. "$top_srcdir/tests/system/lib.sh"
need_root
MC=$(target malloc-churn)
BT=$(target brk-target)
TP=$(target touch-pages)

# own FILE: faultline's lines of FILE, without the target's (key=value,
# and brk-target's "brk req=" lines).
own() {
	grep -v -E '^([a-z_]+=|brk req=)' "$1" || :
}

# footer_text FILE: N of the footer's "lost N events", as written
# ("1,234"); footer_lost FILE: the same, its thousands separators stripped.
footer_text() {
	sed -n 's/^[0-9,]* samples, lost \([0-9,]*\) events.*/\1/p' "$1" | tail -n 1
}
footer_lost() {
	footer_text "$1" | tr -d ,
}

# first_is_lost TOOL MEANING REMEDY: $T/out's first own line is the
# warning with the footer's count (> 0), before the rest, and stderr has
# it too.
first_is_lost() {
	local n text first
	n=$(footer_lost "$T/out")
	text=$(footer_text "$T/out")
	[ -n "$n" ] && [ "$n" -gt 0 ] || {
		fail "$1 -m 1: no loss in the footer ('$n'): the ring held a DWARF sample?"
		return 0
	}
	first=$(own "$T/out" | head -n 1)
	expect_eq "$first" "WARNING: lost $text events: $2; $3" "$1 -m 1: first line"
	expect_eq "$(own "$T/out" | grep -c '^WARNING: lost')" 1 "$1 -m 1: warnings on stdout"
	grep -qxF "faultline $1: warning: lost $text events: $2; $3" "$T/err" ||
		fail "$1 -m 1: no warning with the remedy on stderr: $(grep lost "$T/err")"
}

LEAK_MEANING='allocations and frees were missed: some blocks shown may have been freed, and some allocations are missing'
# What -m 1 and the default DWARF stacks call for.
M4_FP='-m 4 (the rings had 1 page a CPU), --call-graph fp (no stack copy in each sample)'
LEAK_REMEDY="to lose none, run again with $M4_FP or -s 10 (one small block in 10)"
FP_REMEDY="to lose none, run again with ${M4_FP%%, *} or ${M4_FP#*, }"

# 1. leak, text: the warning, then the report.
run_fl leak -m 1 -c "$MC --count 2000 --keep 100"
expect_eq "$rc" 0 "leak -m 1 status"
first_is_lost leak "$LEAK_MEANING" "$LEAK_REMEDY"
expect_eq "$(own "$T/out" | sed -n 2p | sed 's/^\[[0-9:]*\] //')" \
	"Top 10 stacks with outstanding allocations:" "leak -m 1: the report follows the warning"

# 2. leak --json: the first object is the loss, with the summary's count.
run_fl leak --json -m 1 -c "$MC --count 2000 --keep 100"
expect_eq "$rc" 0 "leak --json -m 1 status"
grep '^{' "$T/out" >"$T/json" || :
expect_json_lines "$T/json"
python3 - "$T/json" "$LEAK_MEANING" "$LEAK_REMEDY" <<'PY' || fail "leak --json -m 1: loss not said first"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
summ = [o for o in objs if o.get("type") == "summary"]
if not summ or not summ[-1]["lost"]:
    sys.exit("no loss in the summary: %s" % summ)
# Its report's time and interval aside (every object of a report has them).
first = {k: v for k, v in objs[0].items() if k not in ("time", "interval")}
if objs[0].get("interval") != summ[-1].get("interval"):
    sys.exit("lost object of report %s, summary of %s" % (objs[0].get("interval"),
                                                           summ[-1].get("interval")))
if first != {"type": "lost", "lost": summ[-1]["lost"], "message": sys.argv[2],
             "remedy": sys.argv[3]}:
    sys.exit("first object %s, summary lost %d" % (first, summ[-1]["lost"]))
if sum(o.get("type") == "lost" for o in objs) != 1:
    sys.exit("more than one lost object")
PY
expect_line "^faultline leak: warning: lost [1-9][0-9,]* events: $LEAK_MEANING; to lose none, run again with -m 4 " "$T/err"

# 3. --folded stays FlameGraph input: the warning on stderr only.
run_fl leak --folded -m 1 -c "$MC --count 2000 --keep 100"
expect_eq "$rc" 0 "leak --folded -m 1 status"
expect_no_line '^WARNING' "$T/out"
expect_line "^faultline leak: warning: lost [1-9][0-9,]* events: " "$T/err"

# 4. The other tools of the shared footer.
run_fl brk -m 1 -c "$BT --count 50"
expect_eq "$rc" 0 "brk -m 1 status"
first_is_lost brk "brk calls were missed: some are missing from the counts and breaks below" \
	"$FP_REMEDY"
run_fl faults -m 1 -c "$TP --pages 500"
expect_eq "$rc" 0 "faults -m 1 status"
first_is_lost faults "page faults were missed: the counts below are low" "$FP_REMEDY"

# A recording's loss: the remedy is for record (no -s there), with the
# recording's own ring size; record says it too.
run_fl record -e leak -m 1 -o "$T/lost.rec" -c "$MC --count 2000 --keep 100"
expect_eq "$rc" 0 "record -m 1 status"
grep -qF "events: the recording is short of them, and so is every report of it; to lose none, run again with ${M4_FP%%, *} or ${M4_FP#*, }" "$T/err" ||
	fail "record -m 1: no warning with the remedy: $(grep lost "$T/err")"
run_fl report -i "$T/lost.rec" leak
expect_eq "$rc" 0 "report leak of a lossy recording: status"
first_is_lost leak "$LEAK_MEANING" "to lose none, record again with ${M4_FP%%, *} or ${M4_FP#*, }"

# 5. Nothing lost (fp stacks, a default ring, a short run): no warning.
run_fl leak --call-graph fp -c "$MC --count 200 --keep 100"
expect_eq "$rc" 0 "leak fp status"
if [ "$(footer_lost "$T/out")" = 0 ]; then
	expect_no_line '^WARNING' "$T/out"
	expect_no_line 'warning: lost' "$T/err"
	expect_line '^\[[0-9:]{8}\] Top 10 stacks' "$T/out"
else
	fail "leak fp: lost $(footer_lost "$T/out") events of 400 calls with a default ring"
fi
pass_or_fail
