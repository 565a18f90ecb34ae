#!/bin/sh
# oom-v2.sh: faultline oom against a real OOM kill of oom-target (self
# mode, --json) in a cgroup v2 group made here with a 32 MiB memory.max
# (no swap), removed at exit: trigger = victim = the target, constraint
# CONSTRAINT_MEMCG, oom_memcg the group's path.  Skipped (77) where there
# is no cgroup2 mount, the memory controller is not in it (bound to the
# v1 hierarchy, as on this project's VM), or not enabled for this shell's
# group.  (oom.sh has the rest of oom, on cgroup v1.)
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"

need_root
OT=$(target oom-target)
[ -x "$OT" ] || fail "no oom-target at $OT"
LIMIT_MB=32

V2ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$V2ROOT" ] || skip "no cgroup2 mount"
grep -qw memory "$V2ROOT/cgroup.controllers" 2>/dev/null ||
	skip "the memory controller is not in $V2ROOT/cgroup.controllers (bound to a v1 hierarchy?)"
V2OWN=$(awk -F: '$1 == "0" { print $3; exit }' /proc/self/cgroup)
V2OWN=${V2OWN%/}
grep -qw memory "$V2ROOT$V2OWN/cgroup.subtree_control" 2>/dev/null ||
	skip "memory not enabled in $V2ROOT$V2OWN/cgroup.subtree_control"
CGPATH=$V2OWN/faultline-oom.$$
CG=$V2ROOT$CGPATH
mkdir "$CG" || fail "cannot create a cgroup v2 group at $CG"
at_exit 'empty_cg "$CG"'
echo $((LIMIT_MB << 20)) >"$CG/memory.max" || fail "cannot set $CG/memory.max"
if [ -e "$CG/memory.swap.max" ]; then
	echo 0 >"$CG/memory.swap.max" || fail "cannot set $CG/memory.swap.max"
fi

# faultline oom started, the target run in the group once it traces,
# faultline stopped once it printed the victim.
spawn fl "$FAULTLINE" oom --json 60
fl=$spawned
wait_ready "$T/fl.err" "oom"
timeout 60 sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$OT' --mode self" \
	>"$T/truth" 2>"$T/terr" 9>&-
vict=$(sed -n 's/^mode=self pid=\([0-9]*\).*/\1/p' "$T/truth")
[ -n "$vict" ] || fail "no ground truth from oom-target: $(cat "$T/truth" "$T/terr")"
wait_until "$FL_READY_TIMEOUT" grep -q "\"victim_pid\":$vict," "$T/fl.out" ||
	fail "no kill of PID $vict reported"
kill -INT "$fl" 2>/dev/null
wait_exit "$fl" oom
expect_stopped INT oom "$T/fl.err" "faultline oom"
assert_no_probes_of "$fl"
expect_json_lines "$T/fl.out"
python3 - "$T/fl.out" "$vict" "$CGPATH" <<'PY' || fail "v2-self: JSON fields"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
r = [x for x in r if x["victim_pid"] == int(sys.argv[2])]
assert len(r) == 1, r
r = r[0]
assert r["victim_comm"] == "oom-target" and r["trigger_pid"] == int(sys.argv[2]), r
assert r["constraint"] == "CONSTRAINT_MEMCG" and r["oom_memcg"] == sys.argv[3], r
PY

pass_or_fail
