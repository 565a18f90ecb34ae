#!/bin/sh
# uprobe-tmpfs.sh: a kernel that can place a uprobe in a file on tmpfs
# (this 6.x) traces it as any other.  faultline checks such a file once,
# on the tracefs rung (probe-group) and on the perf uprobe PMU rung
# (uprobe-tmpfs.h: 3.10 cannot, tests/vm/el7-tmpfs.sh); here each check
# must pass and change nothing: leak -p of leak-target running with a
# copy of libc on a tmpfs mounted here (LD_LIBRARY_PATH; the target waits
# on a FIFO), every site of the target's own account exact, on both rungs.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
LT=$(target leak-target)
LIBC=$(ldd "$LT" | awk '$1 == "libc.so.6" { print $3 }')
[ -f "$LIBC" ] || skip "leak-target links no libc.so.6 that ldd shows"
D=$T/tmpfs
mkdir -p "$D"
mount -t tmpfs -o size=64m faultline-test "$D" || skip "cannot mount a tmpfs"
at_exit 'umount "$D" 2>/dev/null'
[ "$(stat -f -c %T "$D")" = tmpfs ] || fail "$D is not tmpfs"
cp "$LIBC" "$D/libc.so.6"
# Both rungs: tracefs (probe-group's check) and the perf uprobe PMU
# (tracefs masked: the session's check, uprobe-tmpfs.h).
for mask in "" uprobes; do
	go_fifo "tmpfs$mask"
	spawn_at_fifo "target$mask" env LD_LIBRARY_PATH="$D" "$LT" leaks --go "$fifo"
	grep -q " $D/libc.so.6\$" "/proc/$spawned/maps" || fail "the target did not map $D/libc.so.6"
	FAULTLINE_MASK=$mask run_fl_go "$fifo" leak -T 100 -p "$spawned"
	expect_eq "$rc" 0 "leak -p (mask '$mask') of a program using a tmpfs libc: exit status"
	wait_exit "$spawned" "leak-target"
	[ -z "$mask" ] || expect_line '^faultline leak: falling back to perf uprobe PMU on the allocator' "$T/err"
	cat "$T/target$mask.out" >>"$T/out"
	check_sites "tmpfs libc (mask '$mask')"
done
assert_no_stale_probes
pass_or_fail
