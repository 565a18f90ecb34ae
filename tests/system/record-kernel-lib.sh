# record-kernel-lib.sh: what record-kernel*.sh share, sourced after
# lib.sh.  Times print as UTC: comparable with date +%s.
TZ=UTC
export TZ

truth() { sed -n "s/^$1=//p" "$2" | tail -n 1; }

# rec_start NAME TOOLS [ARGS...]: faultline record -e TOOLS -o $T/NAME.rec
# ARGS, running once it said it traces; its pid in $rec.
rec_start() {
	local name=$1 tools=$2
	shift 2
	spawn "rec-$name" "$FAULTLINE" record -e "$tools" -o "$T/$name.rec" "$@"
	rec=$spawned
	wait_ready "$T/rec-$name.err" "$name: faultline record"
}
# rec_wait NAME [SIG]: the recording ended by itself with status 0, or by
# the signal SIG sent before (128 + N and its line), and its summary line.
rec_wait() {
	wait_exit "$rec" "$1: faultline record"
	if [ -n "${2:-}" ]; then
		expect_stopped "$2" record "$T/rec-$1.err" "$1: faultline record"
	else
		expect_eq "$rc" 0 "$1: faultline record exit status"
	fi
	expect_line '^faultline record: [0-9,]+ samples \(0 lost\) of ' "$T/rec-$1.err"
	assert_no_probes_of "$rec"
}
# report NAME ARGS...: faultline report ARGS, output in $T/NAME.out/.err.
report() {
	local name=$1
	shift
	run_fl report "$@"
	cp "$T/out" "$T/$name.out"
	cp "$T/err" "$T/$name.err"
	expect_eq "$rc" 0 "report $*: exit status"
}
# stop_live PID TOOL NAME: a live TOOL (spawned as NAME) stopped as a user
# would, Ctrl-C: 130 and its line.
stop_live() {
	kill -INT "$1" 2>/dev/null
	wait_exit "$1" "$2"
	expect_stopped INT "$2" "$T/$3.err" "$2: live"
}
# oom_cg NAME: a cgroup v1 memory group NAME.$$ with a 32 MiB limit below
# faultline's own ($CG its directory, $CGNAME its path in the hierarchy),
# removed at exit; skip (77) where there is no v1 memory controller.
oom_cg() {
	CG=
	V1ROOT=$(memcg_v1_root)
	V1OWN=$(memcg_v1_own)
	[ -n "$V1ROOT" ] && [ -e "$V1ROOT$V1OWN/memory.limit_in_bytes" ] ||
		skip "no cgroup v1 memory controller"
	at_exit 'empty_cg "$CG"'
	CGNAME=$V1OWN/$1.$$
	CG=$V1ROOT$CGNAME
	mkdir "$CG" || skip "cannot create a memory cgroup at $CG"
	echo $((32 << 20)) >"$CG/memory.limit_in_bytes"
}
