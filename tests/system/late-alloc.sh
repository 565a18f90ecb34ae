#!/bin/sh
# late-alloc.sh: an allocator library dlopen'ed after faultline started is
# probed from then on (leak -p and leak -c), its blocks counted exactly.
#
# late-alloc dlopen's liblate-alloc.so (an allocator of ours on mmap:
# malloc, calloc, realloc, aligned_alloc, free; late-alloc calls all but
# aligned_alloc) once traced, waits on its --probed FIFO,
# then keeps 60,000 B in 55 blocks through it (three sites) and frees the
# rest, and prints its account.  The test opens --probed only once
# faultline has said, in its one line, that it probes the library: no
# sleep decides it.  Checked: that line; the probes of the library in
# faultline's group while it runs; each site's bytes and blocks exactly
# (leak-check.py sites); the report's header naming both allocators; no
# probe of the group left in tracefs after the run, after SIGINT, and
# after SIGKILL once `faultline cleanup` ran; and the same account on the
# perf uprobe PMU's rung (FAULTLINE_MASK=uprobes).
. "$top_srcdir/tests/system/lib.sh"
need_root
LA=$(target late-alloc)
LIB=$(target liblate-alloc.so)
[ -f "$LIB" ] || fail "no $LIB (make builds it)"
LINE="^faultline leak: probing malloc, calloc, realloc, aligned_alloc, free of an allocator of unknown kind in $LIB \\(dlopen'ed by pid [0-9]+\\) from now on; its earlier calls are not seen\$"

# probed_line FILE: faultline's line on FILE (its stderr) saying it
# probes the library; fails after $FL_READY_TIMEOUT s.
probed_line() {
	wait_until "$FL_READY_TIMEOUT" grep -Eq -- "$LINE" "$1" && return 0
	fail "no line probing $LIB in ${1#"$T"/}: $(tail -n 3 "$1")"
	return 1
}

# late_probes PID: how many probes of faultline PID's group are on the library.
late_probes() {
	faultline_probes | grep -F ":faultline_$1/" | grep -cF "$LIB:" || :
}

# 1. -p: attached while the target waits before its dlopen (--go), ended by
# SIGINT while it waits after its account (--end); -o 0: every block.
go_fifo go
go=$fifo
go_fifo probed
probed=$fifo
go_fifo end
end=$fifo
spawn_at_fifo target "$LA" "$LIB" --go "$go" --probed "$probed" --end "$end"
tpid=$spawned
spawn fl "$FAULTLINE" leak --json -o 0 -p "$tpid"
fpid=$spawned
if wait_ready "$T/fl.err" "leak -p"; then
	release "$go"
	if probed_line "$T/fl.err"; then
		expect_line "dlopen'ed by pid $tpid\\)" "$T/fl.err"
		expect_eq "$(late_probes "$fpid")" 9 "-p: probes on the library while running"
	fi
	release "$probed"
	wait_until "$FL_READY_TIMEOUT" grep -q '^late_bytes=' "$T/target.out" ||
		fail "-p: the target never printed its account: $(cat "$T/target.err")"
fi
kill -INT "$fpid"
wait_exit "$fpid" "leak -p"
expect_stopped INT leak "$T/fl.err" "leak -p"
release "$end"
wait_exit "$tpid" "late-alloc"
python3 "$top_srcdir/tests/system/leak-check.py" sites "$T/fl.out" "$T/target.out" 3 ||
	fail "-p: the late library's blocks against the target's account"
assert_no_probes_of "$fpid"

# 2. -c, in JSON: the command's tree is stopped while the probes go on.
# run_fl_late NPROBES ENV OPTION...: NPROBES in tracefs once it said so.
run_fl_late() {
	local n=$1 env=$2
	shift 2
	go_fifo probed
	spawn fl env $env "$FAULTLINE" leak "$@" -c "$LA $LIB --probed $fifo"
	fpid=$spawned
	probed_line "$T/fl.err" && expect_eq "$(late_probes "$fpid")" "$n" "-c $env: probes on the library"
	release "$fifo"
	wait_exit "$fpid" "leak -c"
	expect_eq "$rc" 0 "leak -c status"
	assert_no_probes_of "$fpid"
}
run_fl_late 9 "" --json
grep -v '^{' "$T/fl.out" >"$T/c.truth"
python3 "$top_srcdir/tests/system/leak-check.py" sites "$T/fl.out" "$T/c.truth" 3 ||
	fail "-c: the late library's blocks against the target's account"
cp "$T/fl.out" "$T/c.json"
python3 - "$T/c.json" "$LIB" <<'PY' || fail "-c: leak_summary's late_allocators"
import json, re, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"leak_summary"')][-1]
want = r"an allocator of unknown kind in %s \(dlopen'ed by pid \d+\)$" % re.escape(sys.argv[2])
sys.exit(0 if len(s["late_allocators"]) == 1 and re.match(want, s["late_allocators"][0]) else
         "late_allocators: %s" % s["late_allocators"])
PY

# 3. -c, as text: the report's header names both allocators.
run_fl_late 9 "" -T 3
expect_line "^	probed from the start: .*libc\\.so\\.6 \\(glibc\\)\$" "$T/fl.out"
expect_line "^	probed from its mapping on: an allocator of unknown kind in $LIB \\(dlopen'ed by pid [0-9]+\\)\$" "$T/fl.out"

# 4. The perf uprobe PMU's rung (tracefs's uprobes masked): the same
# account, no probe in tracefs.
run_fl_late 0 FAULTLINE_MASK=uprobes --json
grep -v '^{' "$T/fl.out" >"$T/pmu.truth"
python3 "$top_srcdir/tests/system/leak-check.py" sites "$T/fl.out" "$T/pmu.truth" 3 ||
	fail "-c on the uprobe PMU: the late library's blocks against the target's account"

# 5. SIGKILL once the library is probed: the group, late probes
# included, stays until `faultline cleanup` removes it.
go_fifo probed
spawn fl "$FAULTLINE" leak -c "$LA $LIB --probed $fifo"
fpid=$spawned
if probed_line "$T/fl.err"; then
	cpid=$(grep -E -- "$LINE" "$T/fl.err" | sed "s/.*dlopen'ed by pid \\([0-9]*\\).*/\\1/")
	kill -KILL "$fpid"
	wait_exit "$fpid" "leak -c (SIGKILL)"
	expect_eq "$(late_probes "$fpid")" 9 "after SIGKILL: the library's probes left"
	run_fl cleanup
	expect_eq "$rc" 0 "cleanup status"
	expect_eq "$(late_probes "$fpid")" 0 "after cleanup: the library's probes"
	assert_no_probes_of "$fpid"
	kill -KILL "$cpid" 2>/dev/null
else
	kill -TERM "$fpid"
	wait_exit "$fpid" "leak -c (SIGKILL)"
fi

pass_or_fail
