#!/bin/sh
# faultline compact against compaction the test makes itself: a write of
# /proc/sys/vm/compact_memory compacts every populated zone in the
# writer's own task, so the writer (the -c command) has exactly one
# compaction run per populated zone (/proc/zoneinfo), kind manual; and the
# pages its runs scanned, isolated and migrated are /proc/vmstat's deltas
# around the write, exactly, when nothing else compacted meanwhile
# (compact_stall and compact_daemon_wake unchanged: the test retries
# twice, then skips).  Also the text, -s and vmstat-rung forms and a
# recording.  Direct compaction is not provoked here: that needs memory
# fragmented to exhaustion on a VM others share.
. "$top_srcdir/tests/system/lib.sh"
need_root
[ -w /proc/sys/vm/compact_memory ] || skip "no /proc/sys/vm/compact_memory (CONFIG_COMPACTION=n)"
zones=$(awk '$1 == "present" && $2 > 0 { n++ } END { print n + 0 }' /proc/zoneinfo)
writer="sh -c 'cat /proc/vmstat >$T/vm0; echo 1 >/proc/sys/vm/compact_memory; cat /proc/vmstat >$T/vm1'"

# check_run OUTFILE: 0 when exact, 1 on a mismatch, 3 when another
# compaction ran meanwhile.
check_run() {
	python3 - "$1" "$T/vm0" "$T/vm1" "$zones" <<'PY'
import json, sys
out, v0, v1, zones = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def vm(p):
    return {k: int(v) for k, v in (l.split() for l in open(p))}
a, b = vm(v0), vm(v1)
d = {k: b[k] - a[k] for k in b if k in a}
if d["compact_stall"] or d["compact_daemon_wake"] or d["compact_daemon_migrate_scanned"]:
    sys.exit(3)
recs = [json.loads(l) for l in open(out) if l.startswith("{")]
summ = [r for r in recs if r["type"] == "summary"]
runs = [r for r in recs if r["type"] == "compaction"]
errs = []
if len(summ) != 1:
    sys.exit("no summary")
s = summ[0]
if len(runs) != zones or any(r["kind"] != "manual" or r["order"] != -1 for r in runs):
    errs.append("%d runs %s, want %d manual of order -1" % (len(runs), [(r["kind"], r["order"]) for r in runs], zones))
if (s["manual"], s["direct"], s["lost"], s["unpaired"]) != (zones, 0, 0, 0):
    errs.append("summary manual/direct/lost/unpaired %s/%s/%s/%s" % (s["manual"], s["direct"], s["lost"], s["unpaired"]))
for ours, theirs in (("migrate_scanned", "compact_migrate_scanned"), ("free_scanned", "compact_free_scanned"),
                     ("isolated", "compact_isolated"), ("migrated", "pgmigrate_success")):
    if s[ours] != d[theirs]:
        errs.append("%s %d, /proc/vmstat %s delta %d" % (ours, s[ours], theirs, d[theirs]))
if errs:
    sys.exit("\n".join(errs))
PY
}

# 1. The writer's compactions, exact against /proc/vmstat.
tries=0
while :; do
	run_fl compact --json -c "$writer"
	expect_eq "$rc" 0 "compact status"
	st=0
	check_run "$T/out" || st=$?
	[ "$st" -ne 3 ] && break
	tries=$((tries + 1))
	[ "$tries" -lt 3 ] || skip "another compaction ran during each of 3 tries"
done
[ "$st" -eq 0 ] || fail "compaction counts"
grep '^{' "$T/out" >"$T/json"
expect_json_lines "$T/json"

# 2. Text: drsnoop's columns with ORDER, KIND and RESULT; -T.
run_fl compact -T -c "sh -c 'echo 1 >/proc/sys/vm/compact_memory'"
expect_eq "$rc" 0 "compact text status"
expect_line '^TIME\(s\) +COMM +PID +LAT\(ms\) ORDER KIND +RESULT$' "$T/out"
expect_eq "$(grep -Ec '^[0-9]+\.[0-9]{9} +sh +[0-9]+ +[0-9]+\.[0-9]{2} +-1 manual +[a-z_]+$' "$T/out")" "$zones" "manual lines"
expect_line "^compaction summary:$" "$T/err"
expect_line "^  direct: +0 runs, 0\.00 ms, 0 stalls$" "$T/err"
expect_line "^  manual: +$zones runs$" "$T/err"

# 3. -s: one line per interval, the compaction runs counted in them.
run_fl compact -s -i 1 -c "sh -c 'echo 1 >/proc/sys/vm/compact_memory'"
expect_eq "$rc" 0 "compact -s status"
expect_line '^TIME +STALLS +STALL_ms COMPACTIONS COLLAPSED COLL_FAIL THP_FALLBACK$' "$T/out"
expect_eq "$(awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / { n += $4 } END { print n + 0 }' "$T/out")" "$zones" "-s compaction runs"

# 4. The /proc/vmstat rung.
FAULTLINE_MASK='compaction:*' run_fl compact -c "sh -c 'echo 1 >/proc/sys/vm/compact_memory'"
expect_eq "$rc" 0 "vmstat rung status"
expect_line 'falling back to /proc/vmstat compact_stall/compact_fail/compact_success' "$T/err"
expect_line '^TIME +COMPACT_STALL +COMPACT_FAIL +COMPACT_SUCCESS +THP_FAULT_FALLBACK +THP_COLLAPSE_ALLOC +THP_COLLAPSE_ALLOC_FAILED$' "$T/out"
expect_line '^[0-9:]{8} +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' "$T/out"

# 5. A recording: the same runs from the file.
run_fl record -e compact -o "$T/compact.rec" -c "sh -c 'echo 1 >/proc/sys/vm/compact_memory'"
expect_eq "$rc" 0 "record -e compact status"
run_fl report -i "$T/compact.rec" compact --json
expect_eq "$rc" 0 "report compact status"
expect_eq "$(grep -c '"kind":"manual","order":-1' "$T/out")" "$zones" "replayed manual runs"
pass_or_fail
