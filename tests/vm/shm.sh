#!/bin/sh
# shm.sh (guest): `faultline shm` on shm-target, whose every shmget, shmat,
# shmdt and shmctl it prints: each must be a line of the report, in order,
# with its call and return (hex), on the tracepoint rung and on the libc
# uprobe rung (syscalls masked; a failure returns libc's -1 there).
. "$top_srcdir/tests/system/lib.sh"
need_root
ST=$(target shm-target)
check_calls() { # WHAT
	pid=$(sed -n 's/^pid=//p' "$T/out")
	sed -n 's/^shm sys=\([A-Z]*\) ret=\(-\{0,1\}[0-9]*\) .*/\1 \2/p' "$T/out" >"$T/want"
	grep -E "^$pid +shm-target +SHM" "$T/out" | awk '{ print $3, $4 }' >"$T/got"
	n=$(wc -l <"$T/want")
	[ "$n" -ge 8 ] || fail "$1: only $n calls in the target's truth"
	i=0
	while read -r sys ret; do
		i=$((i + 1))
		line=$(sed -n "${i}p" "$T/got")
		case $ret in
		-*) [ "$1" = uprobe ] && want=ffffffffffffffff || want=$(printf '%x' "$((ret & 0xffffffffffffffff))") ;;
		*) want=$(printf '%x' "$ret") ;;
		esac
		[ "$line" = "$sys $want" ] || fail "$1: call $i is '$line', want '$sys $want'"
	done <"$T/want"
	expect_eq "$(wc -l <"$T/got")" "$n" "$1 lines"
	echo "RESULT shm $1: $n calls of the target each found with its return"
}
run_fl shm -c "$ST --rounds 1"
expect_eq "$rc" 0 "shm tracepoint status"
check_calls tracepoint
FAULTLINE_MASK='syscalls:*' run_fl shm -c "$ST --rounds 1"
expect_eq "$rc" 0 "shm uprobe status"
expect_line 'falling back to uprobes\+uretprobes libc shmget/shmat/shmdt/shmctl' "$T/err"
check_calls uprobe
pass_or_fail
