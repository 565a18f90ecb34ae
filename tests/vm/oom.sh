#!/bin/sh
# oom.sh (guest): `faultline oom` on a real memcg OOM kill (cgroup v2, a
# 32 MiB memory.max, no swap; on RHEL 7's 3.10 cgroup v1's
# memory.limit_in_bytes) on every rung the kernel offers: the tracepoint
# oom:mark_victim (6.1; 3.10 has none), the kprobe on oom_kill_process
# (FAULTLINE_MASK=oom:mark_victim) and /dev/kmsg alone (oom:mark_victim,
# kprobes).
# oom-target --mode hog: its child oom-hog (oom_score_adj 1000) is the
# victim, the parent the trigger; both pids and comms must be exact, and
# the constraint line names the cgroup where the kernel's report has one
# (4.19+: "oom-kill:constraint=").  Under lockdown=confidentiality,
# /dev/kmsg alone, unmasked.
. "$top_srcdir/tests/system/lib.sh"
need_root
OT=$(target oom-target)
CGNAME=faultline-oom.$$
if grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	CG=/sys/fs/cgroup/$CGNAME
	limit=memory.max
else
	V1=$(memcg_v1_root)
	[ -n "$V1" ] || skip "no cgroup v2 memory controller at /sys/fs/cgroup, no v1 memory controller"
	CG=$V1/$CGNAME
	limit=memory.limit_in_bytes
fi
mkdir "$CG" || skip "cannot create $CG"
at_exit 'empty_cg "$CG"'
echo $((32 << 20)) >"$CG/$limit"
[ -e "$CG/memory.swap.max" ] && echo 0 >"$CG/memory.swap.max"
PAGES=$((32 * 256))
TIME='[0-2][0-9]:[0-5][0-9]:[0-5][0-9]'

oom_run() { # NAME SOURCE_REGEX
	local name=$1 fl
	spawn "$name" "$FAULTLINE" oom 120
	fl=$spawned
	wait_until 60 grep -q '^Tracing\|^faultline oom: falling back' "$T/$name.err" || fail "$name: faultline oom did not start"
	wait_until 60 grep -q '^Tracing' "$T/$name.err" || fail "$name: no Tracing line"
	timeout 120 sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$OT' --mode hog" \
		>"$T/$name.truth" 2>"$T/$name.terr" 9>&-
	trig=$(sed -n 's/.*trigger_pid=\([0-9]*\).*/\1/p' "$T/$name.truth")
	vict=$(sed -n 's/.*victim_pid=\([0-9]*\).*/\1/p' "$T/$name.truth")
	[ -n "$vict" ] || fail "$name: no truth from oom-target: $(cat "$T/$name.truth" "$T/$name.terr")"
	wait_until 30 grep -q "OOM kill of PID $vict " "$T/$name.out" || fail "$name: no kill of PID $vict reported"
	kill -INT "$fl" 2>/dev/null
	rc=0
	wait "$fl" || rc=$?
	expect_stopped INT oom "$T/$name.err" "$name: faultline oom"
	assert_no_probes_of "$fl"
	expect_line "^$TIME Triggered by PID $trig \(\"oom-target\"\), OOM kill of PID $vict \(\"oom-hog\"\), $PAGES pages, loadavg: " "$T/$name.out"
	expect_no_line "Triggered by PID [0-9]+ \(\"oom-hog\"\)" "$T/$name.out"
	dmesg | grep -q 'oom-kill:constraint=' &&
		! grep -A1 "OOM kill of PID $vict " "$T/$name.out" | grep -q "^  constraint=CONSTRAINT_MEMCG oom_memcg=/$CGNAME task_memcg=/$CGNAME\$" &&
		fail "$name: constraint line: $(grep -A1 "OOM kill of PID $vict " "$T/$name.out" | sed -n 2p)"
	grep -q "$2" "$T/$name.err" "$T/$name.out" || fail "$name: source '$2' not named"
	echo "RESULT oom $name: $(grep "OOM kill of PID $vict " "$T/$name.out" | cut -c1-110) (truth: trigger $trig, victim $vict)"
}

unset FAULTLINE_MASK
if grep -q '\[confidentiality\]' /sys/kernel/security/lockdown 2>/dev/null; then
	# tracefs and kprobes closed: /dev/kmsg is what is left.
	oom_run kmsg-lockdown '/dev/kmsg OOM report'
	pass_or_fail
fi
if [ -d "$(tracing_dir)/events/oom/mark_victim" ]; then
	oom_run tracepoint 'tracepoint oom:mark_victim'
else
	echo "no oom:mark_victim here: its rung is not run"
fi
FAULTLINE_MASK=oom:mark_victim
export FAULTLINE_MASK
oom_run kprobe 'kprobe oom_kill_process'
FAULTLINE_MASK=oom:mark_victim,kprobes
oom_run kmsg '/dev/kmsg OOM report'
unset FAULTLINE_MASK
pass_or_fail
