#!/bin/sh
# oom.sh: faultline oom against real OOM kills of oom-target in a memory
# cgroup (v1) made here with a 32 MiB limit, removed at exit.
#
# - tracepoint rung, hog mode: the line names the trigger (oom-target, the
#   task whose charge failed) and the victim (its child oom-hog) by the
#   exact pids the target printed, never the other way round; 8192 pages
#   (the limit, plus swap when there is some); constraint=CONSTRAINT_MEMCG
#   and the cgroup's path; the victim's RSS split and oom_score_adj 1000;
#   -v gives PSI and the kernel's memory.stat dump.
# - tracepoint rung, self mode, --json: trigger = victim = the target.
# - the limit on an ancestor: oom_memcg is the parent, task_memcg the child.
# - kmsg rung (FAULTLINE_MASK=oom:mark_victim), hog mode: the same line.
# - (cgroup v2: oom-v2.sh, skipped where its memory controller is not usable.)
# - the plan on fixture trees (kprobe rung on RHEL 7's 3.10), usage errors.
#
# The kernel may kill the trigger too in a second OOM (see oom-target.c):
# an extra line for it is accepted, a swapped trigger/victim is not.
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"

need_root
OT=$(target oom-target)
[ -x "$OT" ] || fail "no oom-target at $OT"
FIX=$top_srcdir/tests/fixtures/kernels

# ---- the plan on fixture trees, and usage: no cgroup needed
plan() { # TREE -> the oom line of `features`
	"$FAULTLINE" features --root "$FIX/$1" | awk '$1 == "oom" { sub("^oom +", ""); print; exit }'
}
case $(plan rhel7-3.10) in
"kprobe oom_kill_process (trigger) + /dev/kmsg report (victim)"*) ;;
*) fail "rhel7-3.10 plan: '$(plan rhel7-3.10)', expected the kprobe rung" ;;
esac
"$FAULTLINE" features --root "$FIX/rhel7-3.10" | grep -q 'refused tracepoint oom:mark_victim.*absent (no events/oom in ' ||
	fail "rhel7-3.10: the tracepoint refusal does not say why"
for t in ubuntu-4.15 5.4-kprobes 6.1-kprobes 6.18-kprobes; do
	case $(plan $t) in
	"tracepoint oom:mark_victim"*) ;;
	*) fail "$t plan: '$(plan $t)', expected the tracepoint" ;;
	esac
	"$FAULTLINE" features --root "$FIX/$t" | grep -q '^ *fallback kprobe oom_kill_process (trigger) + /dev/kmsg report (victim) (loses' ||
		fail "$t: the kprobe rung is not an available fallback"
done
for t in 6.18-lockdown no-uprobes; do
	case $(plan $t) in
	"/dev/kmsg OOM report"*) ;;
	*) fail "$t plan: '$(plan $t)', expected /dev/kmsg" ;;
	esac
done
"$FAULTLINE" features --root "$FIX/no-uprobes" | grep -q 'refused kprobe oom_kill_process.*no oom_kill_process in ' ||
	fail "no-uprobes: the kprobe refusal does not name kallsyms"
case $("$FAULTLINE" features | awk '$1 == "oom" { sub("^oom +", ""); print; exit }') in
"tracepoint oom:mark_victim"*) ;;
*) fail "live: oom does not ride oom:mark_victim" ;;
esac

run_fl oom -p 1
expect_eq "$rc" 2 "oom -p exit status"
expect_line 'system-wide' "$T/err"
run_fl oom --no-such-option
expect_eq "$rc" 2 "oom --no-such-option exit status"
run_fl oom -h
expect_eq "$rc" 0 "oom -h exit status"
expect_line '^usage: faultline oom' "$T/out"

# A recording without a kill: the report says so first, and that is all
# it says; what a recording lacks is not said when no kill lacks it.
run_fl record -e oom -o "$T/none.rec" -c true
expect_eq "$rc" 0 "record -e oom -c true: status"
run_fl report -i "$T/none.rec" oom
expect_eq "$rc" 0 "report oom without a kill: status"
expect_eq "$(cat "$T/out")" "0 OOM kills in the recording" "report oom without a kill: stdout"
expect_eq "$(cat "$T/err")" "" "report oom without a kill: stderr"

# ---- a memory cgroup with a low limit
MEMCG_ROOT=$(memcg_v1_root)
[ -n "$MEMCG_ROOT" ] || skip "no cgroup v1 memory controller mounted"
OWN=$(memcg_v1_own)
CGPATH=$OWN/faultline-oom.$$
CG=$MEMCG_ROOT$CGPATH
LIMIT_MB=32
mkdir "$CG" || skip "cannot create a memory cgroup at $CG"

INST=
cleanup_cg() {
	empty_cg "$CG/child"
	empty_cg "$CG"
	[ -z "$INST" ] || rmdir "$INST" 2>/dev/null || :
	return 0
}
at_exit 'cleanup_cg'

# The tracepoint's own record of each kill, as the kernel formats it: a
# tracefs instance of this test's with oom:mark_victim on (cleanup_cg
# removes it).
TRACEFS=$(tracing_dir) || skip "no tracefs"
if grep -q 'field:.* anon_rss;' "$TRACEFS/events/oom/mark_victim/format" 2>/dev/null; then
	INST=$TRACEFS/instances/fl-test-oom.$$
	mkdir "$INST" && echo 1 >"$INST/events/oom/mark_victim/enable" ||
		fail "cannot trace oom:mark_victim in a tracefs instance"
fi

echo $((LIMIT_MB << 20)) >"$CG/memory.limit_in_bytes" || skip "cannot set memory.limit_in_bytes"
# What oomkill's "pages" is for this cgroup: the limit plus the swap its
# unlimited memory+swap may use.
PAGE_KB=$(($(getconf PAGESIZE) / 1024))
SWAP_KB=$(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo)
PAGES=$(((LIMIT_MB * 1024 + SWAP_KB) / PAGE_KB))
LOADAVG='[0-9]+\.[0-9]+ [0-9]+\.[0-9]+ [0-9]+\.[0-9]+ [0-9]+/[0-9]+ [0-9]+'
TIME='[0-2][0-9]:[0-5][0-9]:[0-5][0-9]'

# oom_run NAME MODE CGDIR [faultline options...]: faultline oom started,
# the target run in CGDIR until the kernel kills it, faultline stopped once
# it printed the victim.  Truth in $T/NAME.truth; faultline's output in
# $T/NAME.out/.err; sets trig, vict (pids).
oom_run() {
	local name=$1 mode=$2 dir=$3 fl
	shift 3
	spawn "$name" "$FAULTLINE" oom "$@" 60
	fl=$spawned
	wait_ready "$T/$name.err" "$name"
	timeout 60 sh -c "echo \$\$ >'$dir/cgroup.procs' && exec '$OT' --mode $mode" \
		>"$T/$name.truth" 2>"$T/$name.terr" 9>&-
	if [ "$mode" = hog ]; then
		trig=$(sed -n 's/.*trigger_pid=\([0-9]*\).*/\1/p' "$T/$name.truth")
		vict=$(sed -n 's/.*victim_pid=\([0-9]*\).*/\1/p' "$T/$name.truth")
	else
		trig=$(sed -n 's/^mode=self pid=\([0-9]*\).*/\1/p' "$T/$name.truth")
		vict=$trig
	fi
	[ -n "$vict" ] || fail "$name: no ground truth from oom-target: $(cat "$T/$name.truth" "$T/$name.terr")"
	wait_until "$FL_READY_TIMEOUT" grep -q "OOM kill of PID $vict \|\"victim_pid\":$vict," "$T/$name.out" ||
		fail "$name: no kill of PID $vict reported"
	kill -INT "$fl" 2>/dev/null
	rc=0
	wait "$fl" || rc=$?
	expect_stopped INT oom "$T/$name.err" "$name: faultline oom"
	assert_no_probes_of "$fl"
	return 0
}

# kernel_victim PID: the kernel's report of PID's kill, its last
# "Killed process PID (comm) total-vm:...kB, anon-rss:..." line in the
# kernel log, as faultline's victim line words it.
kernel_victim() {
	dmesg | grep "Killed process $1 (" | tail -n 1 |
		sed -n 's/.* total-vm:\([0-9]*\)kB, anon-rss:\([0-9]*\)kB, file-rss:\([0-9]*\)kB, shmem-rss:\([0-9]*\)kB, UID:\([0-9]*\) pgtables:\([0-9]*\)kB oom_score_adj:\(-*[0-9]*\).*/  victim: anon-rss \2 kB, file-rss \3 kB, shmem-rss \4 kB, total-vm \1 kB, pgtables \6 kB, uid \5, oom_score_adj \7/p'
}

# tp_victim PID: the oom:mark_victim event of PID's kill as the tracefs
# instance recorded it, worded so; the kernel's report where the
# tracepoint has no RSS fields (before 6.9: faultline takes the report's).
# (The report's figures can be lower: SIGKILL is sent before the event,
# and the victim may free pages before the report reads its counters.)
tp_victim() {
	[ -n "$INST" ] || { kernel_victim "$1"; return; }
	grep "mark_victim: pid=$1 " "$INST/trace" | tail -n 1 |
		sed -n 's/.* total-vm=\([0-9]*\)kB anon-rss=\([0-9]*\)kB file-rss:\([0-9]*\)kB shmem-rss:\([0-9]*\)kB uid=\([0-9]*\) pgtables=\([0-9]*\)kB oom_score_adj=\(-*[0-9]*\).*/  victim: anon-rss \2 kB, file-rss \3 kB, shmem-rss \4 kB, total-vm \1 kB, pgtables \6 kB, uid \5, oom_score_adj \7/p'
}

# The checks of a hog-mode kill in text output.
check_hog_text() { # NAME SOURCE
	local f=$T/$1.out line want
	expect_line "^$TIME Triggered by PID $trig \(\"oom-target\"\), OOM kill of PID $vict \(\"oom-hog\"\), $PAGES pages, loadavg: $LOADAVG\$" "$f"
	# The hog never triggers: its kill and any later one name oom-target.
	expect_no_line "Triggered by PID $vict " "$f"
	expect_no_line "Triggered by PID [0-9]+ \(\"oom-hog\"\)" "$f"
	line=$(grep -A2 "OOM kill of PID $vict " "$f")
	echo "$line" | grep -q "^  constraint=CONSTRAINT_MEMCG oom_memcg=$CGPATH task_memcg=$CGPATH\$" ||
		fail "$1: constraint line: $(echo "$line" | sed -n 2p)"
	# The figures are the kernel's own: those of its "Killed process"
	# line, to the kB.  (The hog wrote 20 MiB, all anonymous, but the
	# kernel's RSS counters are per-CPU and read approximately: its
	# report said anon-rss 20352 kB of a 20480 kB hog here once.)
	case $2 in
	tracepoint*) want=$(tp_victim "$vict") ;;
	*) want=$(kernel_victim "$vict") ;;
	esac
	[ -n "$want" ] || fail "$1: no kernel record of the kill of $vict"
	expect_eq "$(echo "$line" | sed -n 3p)" "$want" "$1: victim line against the kernel's own"
	echo "$line" | grep -Eq '^  victim: anon-rss (19[0-9]{3}|20[0-9]{3}|21[0-9]{3}) kB, file-rss [0-9]+ kB, shmem-rss 0 kB, total-vm [0-9]+ kB, pgtables [0-9]+ kB, uid 0, oom_score_adj 1000$' ||
		fail "$1: victim line: $(echo "$line" | sed -n 3p)"
	grep -q "$2" "$T/$1.err" "$f" || fail "$1: source '$2' not named"
}

# ---- tracepoint rung, trigger != victim, -v
oom_run tp-hog hog "$CG" -v
check_hog_text tp-hog 'tracepoint oom:mark_victim'
expect_line "^  pages: memcg limit; source: tracepoint oom:mark_victim \+ kernel log report\$" "$T/tp-hog.out"
expect_line '^  psi memory \(read [0-9]+ ms after the kill\): some avg10=' "$T/tp-hog.out"
expect_line "^  memory.stat of $CGPATH \(the kernel's OOM report, at kill time\): cache [0-9]+, rss [0-9]+," "$T/tp-hog.out"
grep -q '^victim_signal=9$' "$T/tp-hog.truth" || grep -q "OOM kill of PID $trig " "$T/tp-hog.out" ||
	fail "tp-hog: the hog was not killed by SIGKILL: $(cat "$T/tp-hog.truth")"

# ---- tracepoint rung, self mode, JSON
oom_run tp-self self "$CG" --json
expect_json_lines "$T/tp-self.out"
python3 - "$T/tp-self.out" "$vict" "$CGPATH" "$PAGES" "$(tp_victim "$vict")" <<'EOF' ||
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pid, cg, pages = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
# The tracepoint's record of the kill, field by field (tp_victim).
kern = {}
for k, v in re.findall(r"([a-z_-]+) (-?[0-9]+)", sys.argv[5]):
    k = k.replace("-", "_")
    kern[k if k in ("uid", "oom_score_adj") else k + "_kb"] = int(v)
assert len(kern) == 7, sys.argv[5]
r = [x for x in rows if x["victim_pid"] == pid]
assert len(r) == 1, rows
r = r[0]
want = {"trigger_pid": pid, "trigger_comm": "oom-target", "victim_comm": "oom-target",
        "constraint": "CONSTRAINT_MEMCG", "constraint_inferred": False, "oom_memcg": cg,
        "task_memcg": cg, "pages": pages, "pages_from": "memcg limit", "shmem_rss_kb": 0,
        "uid": 0, "oom_score_adj": 0, "source": "tracepoint oom:mark_victim + kernel log report"}
for k, v in list(want.items()) + list(kern.items()):
    assert r.get(k) == v, (k, r.get(k), v)
assert r["anon_rss_kb"] >= 28 * 1024, r
EOF
	fail "tp-self: JSON fields"

# ---- the limit on an ancestor: the task's memcg is a child without one
if mkdir "$CG/child"; then
	oom_run tp-child self "$CG/child" --json
	python3 - "$T/tp-child.out" "$vict" "$CGPATH" <<'EOF' || fail "tp-child: oom_memcg/task_memcg"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
r = [x for x in r if x["victim_pid"] == int(sys.argv[2])][0]
assert r["oom_memcg"] == sys.argv[3] and r["task_memcg"] == sys.argv[3] + "/child", r
assert r["constraint"] == "CONSTRAINT_MEMCG", r
EOF
	empty_cg "$CG/child"
else
	fail "cannot create $CG/child"
fi

# ---- kmsg rung, for real
FAULTLINE_MASK=oom:mark_victim
export FAULTLINE_MASK
oom_run kmsg-hog hog "$CG"
unset FAULTLINE_MASK
expect_line '^faultline oom: falling back to /dev/kmsg OOM report \(tracepoint oom:mark_victim absent \(masked by FAULTLINE_MASK\)[;)]' "$T/kmsg-hog.err"
check_hog_text kmsg-hog '/dev/kmsg OOM report'

pass_or_fail
