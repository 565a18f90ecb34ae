#!/bin/sh
# pressure.sh: faultline pressure against the kernel's own PSI counters.
#
# oom-target grows in a cgroup v1 memcg with a 32 MiB limit until the OOM
# killer takes it; it is also in a cgroup v2 group (no controller needed:
# memory.pressure is a core file there), whose PSI counts the stalls of
# its memcg reclaim.  The test reads that memory.pressure itself before
# the run (a new, empty group: quiet) and after the kill (empty again),
# then stops faultline: the intervals' cgroup stall microseconds add up
# to exactly the change of each "total" counter, some and full, and the
# first and last totals are the ones the test read.  Also: memcg reclaim
# and the OOM kill counted, a PSI trigger (-t) printing its line (the
# test waits for it), the v1 note for a v1 memcg, usage errors, and the
# ladder in `features`.
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"

need_root
OT=$(target oom-target)
[ -x "$OT" ] || fail "no oom-target at $OT"

run_fl pressure -t 'some 1ms/100ms'
expect_eq "$rc" 2 "pressure with a 100 ms trigger window: exit status"
expect_line "invalid trigger" "$T/err"
run_fl pressure -p 1
expect_eq "$rc" 2 "pressure -p: exit status"
run_fl pressure -G /nonexistent/cgroup 1 1
expect_eq "$rc" 1 "pressure -G with no such cgroup: exit status"
expect_line "no cgroup '/nonexistent/cgroup'" "$T/err"
"$FAULTLINE" features | grep -q '^pressure  *PSI /proc/pressure/memory' ||
	fail "features: no pressure rung naming /proc/pressure/memory"

[ -r /proc/pressure/memory ] || skip "no /proc/pressure/memory (a kernel without PSI, or psi=0)"
MEMCG_ROOT=$(memcg_v1_root)
[ -n "$MEMCG_ROOT" ] || skip "no cgroup v1 memory controller to set a limit in"
V2_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$V2_ROOT" ] || skip "no cgroup2 mount: no per-cgroup PSI here"
CG1=$MEMCG_ROOT$(memcg_v1_own)/faultline-pressure.$$
CG2=$V2_ROOT/faultline-pressure.$$
mkdir "$CG1" || skip "cannot create a memory cgroup at $CG1"
mkdir "$CG2" || { rmdir "$CG1"; skip "cannot create a cgroup v2 group at $CG2"; }
at_exit 'empty_cg "$CG1"; empty_cg "$CG2"'
[ -r "$CG2/memory.pressure" ] || skip "$CG2 has no memory.pressure"
echo $((32 << 20)) >"$CG1/memory.limit_in_bytes" || skip "cannot set memory.limit_in_bytes"

# The v1 memcg itself: one line, then the system's PSI only.
run_fl pressure -G "$CG1" 1 1
expect_eq "$rc" 0 "pressure -G v1 memcg: exit status"
expect_line "has no memory.pressure: cgroup v1 keeps no PSI per cgroup" "$T/err"
expect_line '^TIME +SOME10 +FULL10 +SOME_MS +FULL_MS +AVAIL_MB ' "$T/out"
expect_no_line 'CGS10' "$T/out"

totals() { awk '{ sub("total=", "", $5); printf "%s ", $5 }' "$CG2/memory.pressure"; }

# grow RUN [faultline options]: faultline pressure started, oom-target run
# in both groups until the OOM killer takes it; sets before (the some and
# full totals the test read) and fl (faultline's pid, still running).
grow() {
	local name=$1 otrc
	shift
	before=$(totals)
	spawn "$name" "$FAULTLINE" pressure --json -G "$CG2" "$@" 1
	fl=$spawned
	wait_ready "$T/$name.err" "$name"
	timeout 60 sh -c "echo \$\$ >'$CG1/cgroup.procs' && echo \$\$ >'$CG2/cgroup.procs' && exec '$OT' --mode self" \
		>"$T/$name.truth" 2>"$T/$name.terr" 9>&-
	otrc=$?
	expect_eq "$otrc" 137 "$name: oom-target exit status (SIGKILL by the OOM killer)"
}

stop_fl() {
	kill -INT "$fl"
	rc=0
	wait "$fl" || rc=$?
	expect_stopped INT pressure "$T/$1.err" "$1: faultline pressure"
	expect_json_lines "$T/$1.out"
}

# ---- the intervals add up to the kernel's counters
grow sums
after=$(totals)
echo "sums: memory.pressure totals (some full): before $before, after $after"
stop_fl sums
python3 - "$T/sums.out" $before $after <<'PY' || fail "sums: see above"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
b_some, b_full, a_some, a_full = map(int, sys.argv[2:6])
iv = [r for r in rows if r["type"] == "interval"]
assert iv, "no interval"
assert a_some > b_some, "no stall in the cgroup: the test measured nothing"
some = sum(r["cgroup_psi"]["some_stall_us"] for r in iv)
full = sum(r["cgroup_psi"]["full_stall_us"] for r in iv)
print("sums: %d intervals: some %d us (kernel %d), full %d us (kernel %d)" %
      (len(iv), some, a_some - b_some, full, a_full - b_full))
assert some == a_some - b_some, (some, a_some - b_some)
assert full == a_full - b_full, (full, a_full - b_full)
first, last = iv[0]["cgroup_psi"], iv[-1]["cgroup_psi"]
assert first["some_total_us"] - first["some_stall_us"] == b_some, first
assert last["some_total_us"] == a_some and last["full_total_us"] == a_full, last
assert sum(r["memcg_reclaims"] for r in iv) > 0, "no memcg reclaim counted"
assert sum(r["oom_kills"] for r in iv) >= 1, "the OOM kill not counted"
PY

# ---- a trigger on the cgroup's file: its line once the kernel signals
# it, at its next aggregation (within 2 s without CAP_SYS_RESOURCE; 2 s
# windows: without that capability a window is a multiple of 2 s).  The
# kernel's check of such a trigger can miss a stall (its averages brought
# up to date by another read of the file first), so the test makes stalls
# until the line comes, up to 10 runs, each waited for 5 s.
grow trig -t 'some 1ms/2s'
n=1
until wait_until 5 grep -q '"type":"trigger"' "$T/trig.out"; do
	[ "$n" -lt 10 ] || break
	n=$((n + 1))
	timeout 60 sh -c "echo \$\$ >'$CG1/cgroup.procs' && echo \$\$ >'$CG2/cgroup.procs' && exec '$OT' --mode self" \
		>/dev/null 2>&1 9>&-
done
grep -q '"type":"trigger"' "$T/trig.out" || fail "trig: no trigger line after $n stalls ($(totals) us)"
echo "trig: the trigger's line after $n run(s) of oom-target"
stop_fl trig
python3 - "$T/trig.out" "$CG2/memory.pressure" <<'PY' || fail "trig: the trigger line"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
tr = [r for r in rows if r["type"] == "trigger"]
assert tr[0]["trigger"] == "some 1ms/2s" and tr[0]["file"] == sys.argv[2], tr
assert tr[0]["stall_us"] == 1000 and tr[0]["window_us"] == 2000000, tr
PY

pass_or_fail
