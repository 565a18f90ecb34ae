#!/bin/sh
# faultline heap --pprof FILE: the heap profile report pprof writes, at the
# end of a live run and at each snapshot (FILE.N), decoded by
# pprof-check.py (gzip and profile.proto by hand, no go).
# snap-target keeps 300000 bytes in 3 blocks of 100000 from first() after
# its phase 1 (3 allocations), 340000 in 4 after phase 2 (one of them
# freed, two blocks of 70000 from second(): 5 allocations of 440000 bytes
# in all), its own account on its stdout; each phase is released through
# a FIFO.  SIGUSR1 after phase 1: FILE.1 holds exactly phase 1's figures
# (alloc_objects 3, alloc_space 300000, inuse_objects 3, inuse_space
# 300000: three samples of first()'s, labelled pid and comm snap-target),
# and FILE at the end phase 2's (5, 440000, 4, 340000); no FILE.2.  The
# live profile is, pid aside, the one report pprof makes of a recording of
# the same program, and report -i REC heap --pprof writes report pprof's
# exactly.  -H FILE's size histogram is written the same way (FILE.1,
# FILE).  --pprof DIR/ writes DIR/heap.1.pb.gz and DIR/heap.pb.gz, the
# same profiles.  --pprof - is refused (stdout is the report's).  No probe group
# is left after the runs.
. "$top_srcdir/tests/system/lib.sh"
need_root
tracing_dir >/dev/null || skip "no tracefs"
command -v python3 >/dev/null 2>&1 || skip "no python3"
ST=$(target snap-target)
CHECK=$top_srcdir/tests/system/pprof-check.py

# dump PROFILE OUT: pprof-check.py's dump of PROFILE into $T/OUT.
dump() {
	python3 "$CHECK" dump "$1" >"$T/$2" 2>"$T/$2.err" ||
		fail "decoding ${1#"$T"/}: $(tr '\n' ';' <"$T/$2.err")"
	return 0
}
# totals DUMP: its four sums, on one line.
totals() {
	grep -E '^(alloc|inuse)_(objects|space)=' "$T/$1" | tr '\n' ' '
}

# Refused before anything runs.
run_fl heap --pprof - -c true
expect_eq "$rc" 2 "--pprof -: exit status"
expect_line "^faultline heap: --pprof wants a file \(standard output is the report's\), not '-'" \
	"$T/err"

# snap_run PPROF SNAP FINAL [ARG...]: heap --pprof PPROF ARG... over
# snap-target, SIGUSR1 after phase 1; SNAP must then hold phase 1's
# profile and FINAL, at the end, phase 2's; decoded into snap.dump and
# final.dump.
snap_run() {
	local pp=$1 snap=$2 final=$3
	shift 3
	go_fifo go; go=$fifo
	go_fifo next; next=$fifo
	go_fifo end; end=$fifo
	spawn fl "$FAULTLINE" heap --pprof "$pp" "$@" -- "$ST" --go "$go" --next "$next" \
		--end "$end"
	fl=$spawned
	wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$T/fl.err" ||
		fail "faultline not tracing after $FL_READY_TIMEOUT s: $(tail -n 2 "$T/fl.err")"
	release "$go"
	wait_until 30 grep -q '^allocations=3$' "$T/fl.out" || fail "phase 1 never ended"
	if grep -q 'built without pprof output' "$T/fl.err"; then
		release "$next"; release "$end"
		skip "$(grep 'built without pprof output' "$T/fl.err")"
	fi
	kill -USR1 "$fl"
	# Written once the snapshot's report is out: whole when it decodes.
	wait_until 30 python3 "$CHECK" dump "$snap" >/dev/null 2>&1 ||
		fail "no whole ${snap#"$T"/} 30 s after SIGUSR1: $(tail -n 2 "$T/fl.err")"
	dump "$snap" snap.dump
	release "$next"
	wait_until 30 grep -q '^allocations=4$' "$T/fl.out" || fail "phase 2 never ended"
	release "$end"
	wait_exit "$fl" "heap --pprof"
	expect_eq "$rc" 0 "heap --pprof $pp: exit status ($(tail -n 2 "$T/fl.err"))"
	expect_eq "$(grep -c '^--- snapshot ' "$T/fl.out")" 1 "one snapshot in the report"
	expect_eq "$(sed -n '1,2p' "$T/snap.dump" | tr '\n' ' ')" \
		"types alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes default inuse_space " \
		"snapshot: the sample types, inuse_space first"
	expect_eq "$(totals snap.dump)" \
		"alloc_objects=3 alloc_space=300000 inuse_objects=3 inuse_space=300000 " \
		"snapshot after phase 1: the profile's totals"
	expect_eq "$(grep -cE '^1 100000 1 100000 \| pid=[0-9]+ comm=snap-target \| get <- first <- main( |$)' \
		"$T/snap.dump")" 3 "snapshot: first()'s three blocks, labelled pid and comm"
	expect_eq "$(grep -c ' | ' "$T/snap.dump")" 3 "snapshot: no other sample"
	dump "$final" final.dump
	expect_eq "$(totals final.dump)" \
		"alloc_objects=5 alloc_space=440000 inuse_objects=4 inuse_space=340000 " \
		"final profile: phase 2's totals"
	expect_eq "$(grep -cE '^1 70000 1 70000 \| pid=[0-9]+ comm=snap-target \| get <- second <- main( |$)' \
		"$T/final.dump")" 2 "final: second()'s two blocks"
	expect_eq "$(grep -cE '^1 100000 0 0 \| .* get <- first <- main( |$)' "$T/final.dump")" 1 \
		"final: first()'s freed block"
	assert_no_probes_of "$fl"
}

# 1. Live, to a file: FILE.1 at SIGUSR1, FILE at the end, no FILE.2; the
#    size histogram (-H) the same way: phase 1's three sizes of 100000,
#    then two of 70000 too.
snap_run "$T/heap.pb.gz" "$T/heap.pb.gz.1" "$T/heap.pb.gz" -H "$T/hist"
[ -e "$T/heap.pb.gz.2" ] && fail "a heap.pb.gz.2 without a second snapshot"
expect_eq "$(tr '\t\n' ': ' <"$T/hist.1")" "100000:3 " "-H FILE: FILE.1, the snapshot's sizes"
expect_eq "$(sort -n "$T/hist" | tr '\t\n' ': ')" "70000:2 100000:3 " "-H FILE: FILE, the end's sizes"
[ -e "$T/hist.2" ] && fail "a hist.2 without a second snapshot"
cp "$T/final.dump" "$T/file-final.dump"

# 1b. To a directory, DIR/ (made, its name with a space): DIR/heap.1.pb.gz
#     and DIR/heap.pb.gz, nothing else in it.  A DIR/ under a file is
#     refused before anything runs.
snap_run "$T/pp dir/" "$T/pp dir/heap.1.pb.gz" "$T/pp dir/heap.pb.gz"
expect_eq "$(ls "$T/pp dir" | tr '\n' ' ')" "heap.1.pb.gz heap.pb.gz " "DIR/: its files"
: >"$T/plain"
run_fl heap --pprof "$T/plain/" -c true
expect_eq "$rc" 2 "--pprof FILE/: exit status"
expect_line "^faultline heap: --pprof $T/plain/: not a directory$" "$T/err"

# 2. Against report pprof: a recording of the same program.
run_fl record -e leak -o "$T/s.rec" -- "$ST"
expect_eq "$rc" 0 "record -e leak: exit status ($(tail -n 2 "$T/err"))"
run_fl report -i "$T/s.rec" pprof -o "$T/report.pb.gz"
expect_eq "$rc" 0 "report pprof: exit status ($(tail -n 2 "$T/err"))"
dump "$T/report.pb.gz" report.dump
run_fl report -i "$T/s.rec" heap --pprof "$T/replay.pb.gz"
expect_eq "$rc" 0 "report heap --pprof: exit status ($(tail -n 2 "$T/err"))"
dump "$T/replay.pb.gz" replay.dump
expect_eq "$(cat "$T/replay.dump")" "$(cat "$T/report.dump")" \
	"report -i REC heap --pprof = report -i REC pprof"
expect_eq "$(sed 's/pid=[0-9]*/pid=P/' "$T/file-final.dump")" \
	"$(sed 's/pid=[0-9]*/pid=P/' "$T/report.dump")" \
	"live heap --pprof = report pprof of a recording, pid aside"
assert_no_stale_probes
pass_or_fail
