#!/bin/sh
# Snapshots: SIGUSR1 sent to a tool prints its report as it stands and
# tracing goes on; --snapshot-every SECS does the same on a clock.
# snap-target keeps 300000 bytes in 3 blocks after its phase 1 and
# 340000 bytes in 4 after phase 2 (its own account, on its stdout); each
# phase is released through a FIFO.  After phase 1 the snapshot must say
# exactly phase 1's figures, the final report phase 2's: heap --json (the
# heap_summary object) and leak's text (the totals line), the report in
# --output FILE while the program's own stdout stays faultline's stdout.
# A tool without snapshots says so in one line per SIGUSR1 and goes on.
# No probe group is left after any run.
. "$top_srcdir/tests/system/lib.sh"
need_root
tracing_dir >/dev/null || skip "no tracefs"
ST=$(target snap-target)

# snaps FILE: "snapshot N leaked_bytes leaked_blocks" for each snapshot's
# heap_summary in heap's JSON FILE, "final ..." for the report's; and
# "bad ..." for a snapshot object out of order or a line not JSON.
snaps() {
	python3 - "$1" <<'PY'
import json, sys
cur, want, last_t = "final", 1, -1.0
pending = None
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        print("bad not-json", line.strip()[:60]); continue
    if o.get("type") == "snapshot":
        if o.get("index") != want or not o.get("time_s", -1) > last_t:
            print("bad snapshot", o)
        last_t = o["time_s"]
        cur, want = "snapshot %d" % o["index"], want + 1
    elif o.get("type") == "heap_summary":
        pending = "%s %d %d" % (cur, o["leaked_bytes"], o["leaked_blocks"])
    elif o.get("type") == "summary" and pending:
        print(pending)
        pending, cur = None, "final"
PY
}

# started FILE WHAT: faultline's line that it runs the command is in
# FILE (its stderr): tracing is live.
started() {
	wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$1" ||
		fail "$2: faultline not tracing after $FL_READY_TIMEOUT s: $(tail -n 2 "$1")"
	return 0
}

# after_snapshot N FILE: FILE has the footer of leak's snapshot N.
after_snapshot() {
	awk -v n="$1" '/^--- snapshot / { s = $3 } s == n && /^[0-9,]+ samples, lost/ { f = 1 }
		END { exit !f }' "$2"
}

# phases NAME: the FIFOs for a run of snap-target, in $go $next $end.
phases() {
	go_fifo "$1-go"; go=$fifo
	go_fifo "$1-next"; next=$fifo
	go_fifo "$1-end"; end=$fifo
}

# 1. heap --json --output FILE, SIGUSR1 after phase 1.
phases heap
spawn fl "$FAULTLINE" heap --json --output "$T/heap.json" -- "$ST" --go "$go" --next "$next" \
	--end "$end"
fl=$spawned
started "$T/fl.err" "heap"
release "$go"
wait_until 30 grep -q '^allocations=3$' "$T/fl.out" || fail "phase 1 never ended"
kill -USR1 "$fl"
wait_until 30 sh -c 'grep -q "\"type\":\"summary\"" "$1"' sh "$T/heap.json" ||
	fail "no snapshot in heap.json 30 s after SIGUSR1"
expect_eq "$(snaps "$T/heap.json")" "snapshot 1 300000 3" "heap: the snapshot after phase 1"
release "$next"
wait_until 30 grep -q '^allocations=4$' "$T/fl.out" || fail "phase 2 never ended"
release "$end"
wait_exit "$fl" "heap"
expect_eq "$rc" 0 "heap: exit status ($(tail -n 2 "$T/fl.err"))"
expect_eq "$(snaps "$T/heap.json" | tr '\n' ';')" "snapshot 1 300000 3;final 340000 4;" \
	"heap: the snapshot, then the final report"
# The program's stdout is faultline's; the report is in the file alone.
expect_eq "$(tr '\n' ' ' <"$T/fl.out")" \
	"phase=1 outstanding_bytes=300000 allocations=3 phase=2 outstanding_bytes=340000 allocations=4 " \
	"heap: the program's stdout"
expect_no_line '^phase=' "$T/heap.json"
assert_no_probes_of "$fl"

# 2. leak's text on stdout, two SIGUSR1 (one after each phase), -o 0 so
# that no block is too young to show, and an interval of an hour: no
# report of leak's own every 5 s among them.
phases leak
spawn fl2 "$FAULTLINE" leak -o 0 3600 -- "$ST" --go "$go" --next "$next" --end "$end"
fl=$spawned
started "$T/fl2.err" "leak"
release "$go"
wait_until 30 grep -q '^allocations=3$' "$T/fl2.out" || fail "leak: phase 1 never ended"
kill -USR1 "$fl"
wait_until 30 after_snapshot 1 "$T/fl2.out" || fail "leak: no snapshot 1"
release "$next"
wait_until 30 grep -q '^allocations=4$' "$T/fl2.out" || fail "leak: phase 2 never ended"
kill -USR1 "$fl"
wait_until 30 after_snapshot 2 "$T/fl2.out" || fail "leak: no snapshot 2"
release "$end"
wait_exit "$fl" "leak"
expect_eq "$rc" 0 "leak: exit status ($(tail -n 2 "$T/fl2.err"))"
expect_eq "$(grep -E '^(--- snapshot|  outstanding: )' "$T/fl2.out" |
	sed -E 's/ at [0-9.]* s ---/ ---/; s/^  outstanding: *([0-9,]+) B( \([^)]*\))? in ([0-9,]+) allocations.*/\1 bytes in \3 allocations/' |
	tr -d , | tr '\n' ';')" \
	"--- snapshot 1 ---;300000 bytes in 3 allocations;--- snapshot 2 ---;340000 bytes in 4 allocations;340000 bytes in 4 allocations;" \
	"leak: snapshots and the final report"
assert_no_probes_of "$fl"

# 3. --snapshot-every 0.2: snapshots keep coming, numbered from 1 at
# growing times; one taken after phase 1 says phase 1's figures.
phases every
spawn fl3 "$FAULTLINE" heap --json --snapshot-every 0.2 --output "$T/every.json" -- "$ST" --go "$go" --next "$next" \
	--end "$end"
fl=$spawned
started "$T/fl3.err" "heap --snapshot-every"
release "$go"
wait_until 30 sh -c 'grep -q "^allocations=3$" "$1"' sh "$T/fl3.out" || fail "every: phase 1"
snap_seen() { snaps "$T/every.json" 2>/dev/null | grep -q "^snapshot [0-9]* 300000 3$"; }
wait_until 30 snap_seen || fail "every: no snapshot of phase 1 within 30 s"
release "$next"
wait_until 30 sh -c 'grep -q "^allocations=4$" "$1"' sh "$T/fl3.out" || fail "every: phase 2"
release "$end"
wait_exit "$fl" "heap --snapshot-every"
expect_eq "$rc" 0 "every: exit status ($(tail -n 2 "$T/fl3.err"))"
snaps "$T/every.json" >"$T/every.snaps"
expect_no_line '^bad' "$T/every.snaps"
expect_eq "$(tail -n 1 "$T/every.snaps")" "final 340000 4" "every: the final report"
# Every snapshot shows one of the three states the program went through.
grep '^snapshot' "$T/every.snaps" | grep -vE '^snapshot [0-9]+ (0 0|300000 3|340000 4)$' \
	>"$T/every.bad"
expect_eq "$(cat "$T/every.bad")" "" "every: snapshots of a state the program was never in"
assert_no_probes_of "$fl"

# 4. A tool without snapshots (shm) says so for each SIGUSR1 and goes on.
phases shm
spawn fl4 "$FAULTLINE" shm -- "$ST" --go "$go" --next "$next" --end "$end"
fl=$spawned
started "$T/fl4.err" "shm"
release "$go"
wait_until 30 grep -q '^allocations=3$' "$T/fl4.out" || fail "shm: phase 1"
kill -USR1 "$fl"
wait_until 30 grep -q "no snapshot" "$T/fl4.err" || fail "shm: nothing said of SIGUSR1"
kill -USR1 "$fl"
wait_until 30 sh -c '[ "$(grep -c "no snapshot" "$1")" -ge 2 ]' sh "$T/fl4.err" ||
	fail "shm: the second SIGUSR1 not answered"
release "$next"
release "$end"
wait_exit "$fl" "shm"
expect_eq "$rc" 0 "shm: exit status (SIGUSR1 did not stop it)"
expect_eq "$(grep -c "^faultline shm: no snapshot: this tool's report is made once, at the end of the run$" "$T/fl4.err")" 2 \
	"shm: one line per SIGUSR1"
assert_no_probes_of "$fl"
assert_no_stale_probes
pass_or_fail
