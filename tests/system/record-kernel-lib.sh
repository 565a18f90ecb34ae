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
# rec_wait NAME: the recording ended (by itself or by the SIGINT sent
# before) with status 0 and its summary line.
rec_wait() {
	wait_exit "$rec" "$1: faultline record"
	expect_eq "$rc" 0 "$1: faultline record exit status"
	expect_line '^faultline record: [0-9]+ samples \(0 lost\) of ' "$T/rec-$1.err"
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
# stop_live PID WHAT: a live tool stopped as a user would, Ctrl-C.
stop_live() {
	kill -INT "$1" 2>/dev/null
	wait_exit "$1" "$2"
	expect_eq "$rc" 0 "$2: live exit status"
}
