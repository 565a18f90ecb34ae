#!/bin/sh
# Back-pressure: when the rings fill faster than the reader empties them,
# faultline stops the target it owns (SIGSTOP to its process tree) until
# the reader catches up, and so loses no event; it says how often and for
# how long before the results.
#
# Deterministic: faultline's reader (its main thread) is held in a ptrace
# stop (hold-thread, as leak-stall.sh does) while malloc-churn runs its
# 100,000 malloc/free pairs (~300,000 samples with 8 KiB stacks), and
# FAULTLINE_SPOOL_CAP (a test knob of src/trace/live.c, not a user's
# option) bounds each spool the drain thread copies the rings into to
# 1 MiB, ~128 samples, where the default lets a reader fall half a GiB
# behind: the spool must reach its high-water mark (half), and the test
# waits for the target's state to be T (paused), then lets the reader go.
# The rings keep their default size: they absorb what the target writes
# between the mark and its stop.  Checked: 0 lost, the target's own counts
# exactly (100,000 allocations, 100 blocks kept, their bytes), pauses > 0
# in the text report (its first line) and --json (the summary), for -c and
# for -p with --pause; the target never left stopped: SIGINT and SIGSEGV
# sent to faultline while it holds the -p target paused, and the target
# finishes its loop; --no-pause accepted and never pauses (its loss is not
# asserted: a reader let run may keep up), and with the reader held it
# loses events, its warning naming back-pressure as the remedy; -a refuses
# --pause.  A `record`
# held the same way stores its pauses in the recording's END (format 1.2):
# `report -i` then says the record run's very line first, and --json the
# same count and ms; the target's counts exact from the recording too; an
# END whose pause count is corrupt (0 pauses, their time kept) is refused
# in one line; the same recording as a 1.1 faultline wrote it (no pause
# fields) reads, with no pause said.
. "$top_srcdir/tests/system/lib.sh"
need_root
MC=$(target malloc-churn)
HT=$(target hold-thread)
FAULTLINE_SPOOL_CAP=1048576
export FAULTLINE_SPOOL_CAP
N=100000
K=1000
B=$(busy_opts)

# stopped PID: its state is T (stopped by a signal).
stopped() {
	[ "$(sed 's/^[0-9]* (.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = T ]
}

# exact NAME FILE TRUTH: leak --json FILE against the target's own lines.
exact() {
	set -- "$1" "$2" "$3" "$(leak_nums "$2" lost allocs blocks bytes)"
	expect_eq "$4" "0 $N $((N / K)) $(key_of "$3" kept_bytes)" \
		"$1: lost, allocations, blocks and bytes against the target's"
	expect_eq "$(key_of "$3" kept)" $((N / K)) "$1: the target's own blocks kept"
	echo "RESULT backpressure $1: $(summary_of "$2" pauses) pauses, $(summary_of "$2" paused_ms) ms," \
		"lost $(summary_of "$2" lost)"
	[ "$(summary_of "$2" pauses)" -gt 0 ] || fail "$1: no pause in the summary: the reader kept up?"
	[ "$(summary_of "$2" paused_ms)" -ge 0 ] || fail "$1: no paused_ms in the summary"
}

# final_first FILE: the first line of leak's last text report in FILE
# (the line before its "[HH:MM:SS] Top N stacks" header), the target's
# KEY=VALUE lines left out.  A run or replay longer than leak's 5 s
# interval prints an interval's report before it.
final_first() {
	awk '/^\[[0-9:]+\] Top [0-9]+ stacks/ { first = prev } !/^[a-z_]+=/ { prev = $0 } END { print first }' "$1"
}

# held NAME FL TPID GO [SIG]: hold faultline FL's reader (its main thread,
# hold-thread), let the target TPID start its loop (GO, its --go FIFO),
# and wait until faultline has paused it (state T): with the reader held,
# the spool reaches its mark within ~64 of the target's ~300,000 samples.
# With SIG, send it to faultline then, the pause on: it is delivered when
# the reader goes on.  Then let the reader go.
held() {
	cat >"$T/during" <<EOF
#!/bin/sh
echo go >"$4"
n=0
until [ "\$(sed 's/^[0-9]* (.*) //' /proc/$3/stat 2>/dev/null | cut -c1)" = T ]; do
	n=\$((n + 1))
	[ "\$n" -le 6000 ] || { echo "$1: the target was never paused" >&2; exit 1; }
	sleep 0.01
done
[ -z "$5" ] || kill -$5 $2
EOF
	chmod +x "$T/during"
	rc=0
	"$HT" "$2" "$T/during" 2>"$T/hold.err" || rc=$?
	expect_eq "$rc" 0 "$1: hold-thread status ($(cat "$T/hold.err"))"
}

# leak_c NAME OPTION...: leak OPTION... -c malloc-churn, its reader held
# while the target is paused; faultline's output in $T/fl.out.  (With
# TOOL set, that tool instead of leak.)
leak_c() {
	local name=$1 fl tpid
	shift
	go_fifo c
	spawn fl "$FAULTLINE" ${TOOL:-leak} "$@" -c "$MC --count $N --keep $K --go $fifo"
	fl=$spawned
	wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$T/fl.err" ||
		{ fail "$name: faultline not tracing: $(tail -n 3 "$T/fl.err")"; return 0; }
	tpid=$(pgrep -P "$fl" -x malloc-churn) || { fail "$name: no target under faultline"; return 0; }
	held "$name" "$fl" "$tpid" "$fifo"
	wait_exit "$fl" "$name"
	expect_eq "$rc" 0 "$name: leak status"
}

# 1. leak -c, text: the pause line before the results, nothing lost.  On
# a loaded host the run outlasts leak's 5 s interval and an interval's
# report comes first (with the pauses ended by then, if any): the final
# report's first line is the one checked, the line before its header.
leak_c "leak -c" $B
expect_line ', lost 0 events' "$T/fl.out"
expect_no_line '^WARNING: lost' "$T/fl.out"
final_first "$T/fl.out" >"$T/first"
grep -Eq '^the target was paused [1-9][0-9,]* times?, [0-9.,]+ ms in all, so that no event was lost$' \
	"$T/first" || fail "leak -c: the final report's first line is not the pause line: $(cat "$T/first")"
expect_eq "$(key_of "$T/fl.out" pairs)" "$N" "leak -c: the target ran its pairs"

# 2. leak --json -c: the same figures, exactly, and the pauses in the summary.
leak_c "leak --json -c" --json $B
exact "leak --json -c" "$T/fl.out" "$T/fl.out"

# 3. --no-pause: accepted, never paused (run free: a held reader would
# only make it lose).
run_fl leak --json --no-pause $B -c "$MC --count $N --keep $K"
expect_eq "$rc" 0 "leak --no-pause status"
expect_eq "$(summary_of "$T/out" pauses)" 0 "--no-pause: no pause"
expect_eq "$(key_of "$T/out" pairs)" "$N" "--no-pause: the target ran its pairs"

# 3b. --no-pause with the reader held for the whole loop: the spool meets
# its bound, the ring fills, events are lost (~840 MB of samples against
# a 1 MiB spool and the ring); the loss warning names back-pressure first,
# as what would have lost none, on stderr and before the report.
go_fifo n
spawn fl "$FAULTLINE" leak --no-pause $B -c "$MC --count $N --keep $K --go $fifo"
fl=$spawned
if wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$T/fl.err"; then
	hold_through_loop "$fl" "$fifo" "$T/fl.out"
	expect_eq "$rc" 0 "--no-pause held: hold-thread status ($(cat "$T/hold.err"))"
	wait_exit "$fl" "leak --no-pause, held"
	expect_eq "$rc" 0 "leak --no-pause, held: status"
	remedy='to lose none, run again with back-pressure \(no --no-pause: the command paused instead\)'
	expect_line "^faultline leak: warning: lost [0-9,]+ events: .*; $remedy" "$T/fl.err"
	expect_line "^WARNING: lost [0-9,]+ events: .*; $remedy" "$T/fl.out"
	expect_no_line '^the target was paused' "$T/fl.out"
else
	fail "--no-pause, held: faultline not tracing: $(tail -n 3 "$T/fl.err")"
fi

# 4. -p is paused only with --pause; a -p target, its own: exact too.
# 5. Never left stopped: faultline ended by SIGINT, and by a fatal signal
# of its own, while it holds the -p target stopped: the target finishes.
for sig in "" INT SEGV; do
	name="-p --pause${sig:+ SIG$sig}"
	go_fifo "p$sig"
	spawn_at_fifo target "$MC" --count $N --keep $K --go "$fifo"
	tpid=$spawned
	spawn fl "$FAULTLINE" leak --json --pause $B -p "$tpid"
	fpid=$spawned
	wait_ready "$T/fl.err" "$name" && held "$name" "$fpid" "$tpid" "$fifo" "$sig"
	wait_exit "$fpid" "$name"
	[ -n "$sig" ] || expect_eq "$rc" 0 "$name: leak status"
	! stopped "$tpid" || fail "$name: faultline gone, the target left stopped"
	wait_exit "$tpid" "the target of $name"
	expect_eq "$rc" 0 "$name: the target's status"
	expect_eq "$(key_of "$T/target.out" pairs)" "$N" "$name: the target ran all its pairs"
	[ -n "$sig" ] || exact "$name" "$T/fl.out" "$T/target.out"
done
[ "$(grep -c 'fatal signal SIGSEGV' "$T/fl.err")" -eq 1 ] ||
	fail "SIGSEGV: faultline did not die of it: $(tail -n 2 "$T/fl.err")"

# 6. record: the pauses stored, and said by every report of it as the
# record run said them.
TOOL=record leak_c "record -e leak -c" -e leak -o "$T/bp.rec" $B
rline=$(sed -n 's/^faultline record: \(the target was paused .*\)$/\1/p' "$T/fl.err")
echo "RESULT backpressure record: $rline"
echo "$rline" | grep -Eq '^the target was paused [1-9][0-9,]* times?, [0-9.,]+ ms in all, so that no event was lost$' ||
	fail "record: no pause line: $(tail -n 3 "$T/fl.err")"
expect_line 'faultline record: [0-9,]+ samples \(0 lost\)' "$T/fl.err"
run_fl report -i "$T/bp.rec" leak
expect_eq "$rc" 0 "report -i leak: status"
expect_eq "$(final_first "$T/out")" "$rline" "report -i leak: its final report's first line, the record run's"
expect_line ', lost 0 events' "$T/out"
run_fl report -i "$T/bp.rec" leak --json
expect_eq "$rc" 0 "report -i leak --json: status"
exact "report -i leak --json" "$T/out" "$T/fl.out"
# The record run's count and ms, as it printed them (%.1f under 10 ms, %.0f
# with thousands separators; the count with them too).
python3 - "$T/out" "$rline" <<'PY' ||
import json, re, sys
o = [o for o in (json.loads(l) for l in open(sys.argv[1]) if l.startswith("{"))
     if o.get("type") == "summary"][-1]
n, ms, line = o["pauses"], o["paused_ms"], sys.argv[2]
m = re.match(r"the target was paused ([\d,]+) times?, ([0-9.,]+) ms", line)
want = "%.1f" % ms if ms < 10 else "{:,}".format(int("%.0f" % ms))
sys.exit(0 if m and int(m.group(1).replace(",", "")) == n and want == m.group(2) else 1)
PY
	fail "report -i --json: $(tail -n 1 "$T/out"): not the record run's '$rline'"
run_fl report -i "$T/bp.rec" info
expect_line '^totals .*, [1-9][0-9]* pauses? \([0-9.]+ ms\)$' "$T/out"
# A corrupt pause field: one line, exit 1.
python3 "$top_srcdir/tests/system/rec-edit.py" "$T/bp.rec" "$T/bad.rec" pauses 0 ||
	fail "rec-edit pauses"
run_fl report -i "$T/bad.rec" leak
expect_eq "$rc" 1 "report -i of a corrupt pause count: status"
expect_eq "$(wc -l <"$T/err")" 1 "report -i of a corrupt pause count: lines on stderr"
expect_line '^faultline [a-z]+: .*bad\.rec: offset [0-9]+: end record has [0-9]+ ns paused but no pause$' \
	"$T/err"
# A 1.1 recording, without the fields: read, no pause said, the same counts.
python3 "$top_srcdir/tests/system/rec-edit.py" "$T/bp.rec" "$T/old.rec" v1.1 0 ||
	fail "rec-edit v1.1"
run_fl report -i "$T/old.rec" leak --json
expect_eq "$rc" 0 "report -i of a 1.1 recording: status"
expect_eq "$(summary_of "$T/out" pauses)" 0 "report -i of a 1.1 recording: no pause"
expect_eq "$(leak_nums "$T/out" lost allocs)" "0 $N" "report -i of a 1.1 recording: lost, allocations"

# 7. -a is never paused.
run_fl leak --pause 1
expect_eq "$rc" 2 "leak -a --pause: a usage error"
expect_line 'faultline leak: --pause pauses a -p PID target' "$T/err"
pass_or_fail
