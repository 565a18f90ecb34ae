#!/bin/sh
# el7-tmpfs.sh (guest, RHEL 7's 3.10): a uprobe on a file in tmpfs cannot
# be placed there (3.10 reads the probed instruction through the file's
# readpage, which tmpfs lacks: EIO).  On the tracefs rung the "enable"
# file says so; on the perf uprobe PMU rung (tracefs masked) the open
# succeeds with a probe that never fires: before faultline checked the
# breakpoint (uprobe-tmpfs.h), leak -p there said "Tracing" and found 0
# allocations of the malloc family.  On both rungs, leak -p of leak-target
# running with a copy of libc in /tmp (tmpfs, by LD_LIBRARY_PATH; the
# target waits on a FIFO), and leak -c of it with -O naming that copy,
# must fail with one line naming the cause and the remedy, never
# "Input/output error" alone, and leave no probe behind.  A control: the
# same copy on a ramfs, where 3.10 can, traced on the PMU rung with every
# site exact.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
LT=$(target leak-target)
[ "$(awk '$2 == "/tmp" { print $3 }' /proc/mounts)" = tmpfs ] || fail "/tmp is not tmpfs"
D=/tmp/el7-tmpfs.$$
R=/run/el7-ramfs.$$
mkdir -p "$D" "$R"
mount -t ramfs ramfs "$R" || fail "cannot mount a ramfs on $R"
at_exit 'rm -rf "$D"; umount "$R"; rmdir "$R"'
cp /lib/x86_64-linux-gnu/libc.so.6 "$D/"
cp /lib/x86_64-linux-gnu/libc.so.6 "$R/"

# refused WHAT STATUS: faultline's stderr ($T/err) is the refusal: exit
# STATUS (1, or with -c 125: faultline failed, not the command), one line
# of it, naming tmpfs and the remedy; the other lines faultline's notes of
# the rung and the allocator.
refused() {
	cat "$T/err"
	expect_eq "$rc" "$2" "$1: exit status"
	expect_eq "$(grep -c 'cannot place probe' "$T/err")" 1 "$1: refusal lines"
	expect_line "^faultline leak: cannot place probe '[^']+' at '$D/libc\\.so\\.6:0x[0-9a-f]+': this kernel cannot probe a file on tmpfs .*copy the program" "$T/err"
	expect_no_line 'Input/output error' "$T/err"
	expect_eq "$(grep -v -e 'cannot place probe' -e '^faultline leak: falling back to perf uprobe PMU' \
		-e '^faultline leak: probing malloc' "$T/err" | grep -c .)" 0 "$1: other lines on stderr"
	assert_no_stale_probes
	echo "RESULT tmpfs el7 $1: $(grep 'cannot place probe' "$T/err")"
}

for mask in "" uprobes; do
	rung=tracefs
	[ -n "$mask" ] && rung=pmu
	export FAULTLINE_MASK=$mask
	go_fifo "tmpfs-$rung"
	spawn_at_fifo "target-$rung" env LD_LIBRARY_PATH="$D" "$LT" leaks --go "$fifo"
	grep -q "$D/libc.so.6" "/proc/$spawned/maps" || fail "the target did not map $D/libc.so.6"
	tpid=$spawned
	# It must refuse before tracing; should it trace, the target is
	# released once it says so, and the run ends when the target does.
	spawn "fl-$rung" "$FAULTLINE" leak -p "$tpid"
	ended_or_tracing() { _fl_gone "$1" || grep -q '^Tracing' "$T/fl-$rung.err"; }
	wait_until 120 ended_or_tracing "$spawned"
	release "$fifo"
	wait_exit "$spawned" "faultline leak -p"
	flrc=$rc
	wait_exit "$tpid" "leak-target"
	cp "$T/fl-$rung.err" "$T/err"
	rc=$flrc
	refused "leak -p, $rung rung" 1

	LD_LIBRARY_PATH=$D run_fl leak -O "$D/libc.so.6" -c "$LT leaks"
	refused "leak -c, $rung rung" 125
done

# The control: the PMU rung on a ramfs copy, where 3.10 places uprobes.
export FAULTLINE_MASK=uprobes
LD_LIBRARY_PATH=$R run_fl leak -T 100 -O "$R/libc.so.6" -c "$LT leaks"
expect_eq "$rc" 0 "leak -c on the PMU rung, libc on ramfs: exit status"
check_sites "PMU rung, libc on ramfs"
unset FAULTLINE_MASK
assert_no_stale_probes
pass_or_fail
