#!/bin/sh
# mmap.sh (guest): `faultline mmap` on mmap-target, whose every call it
# prints (mmap len= prot= flags= off= addr=, munmap addr= len=): each one
# must be a line of the report with that address and length, its flags and
# offset; on the tracepoint rung with raw syscalls (--raw), and on the libc
# uprobe rung (syscalls masked) with libc's mmap/munmap.
. "$top_srcdir/tests/system/lib.sh"
need_root
MT=$(target mmap-target)
check_calls() { # WHAT
	local what=$1
	local n=0 l len prot flags off addr
	pid=$(sed -n 's/^pid=//p' "$T/out")
	file=$(sed -n 's/^file=//p' "$T/out")
	while read -r l; do
		case $l in
		"mmap len="*)
			set -- $l
			len=${2#len=}; prot=${3#prot=}; flags=${4#flags=}; off=${6#off=}; addr=${7#addr=}
			f=
			[ "${flags#*ANONYMOUS}" = "$flags" ] && f=" $file"
			expect_line "^[0-9:]{8} +$pid +mmap-target +mmap +$addr +$len $prot +$(echo "$flags" | sed 's/|/\\|/g') +$off$f *\$" "$T/out"
			;;
		"munmap addr="*)
			set -- $l
			addr=${2#addr=}; len=${3#len=}
			expect_line "^[0-9:]{8} +$pid +mmap-target +munmap +$addr +$len\$" "$T/out"
			;;
		*) continue ;;
		esac
		n=$((n + 1))
	done <"$T/out"
	[ "$n" -ge 8 ] || fail "$what: only $n calls in the target's truth"
	echo "RESULT mmap $what: $n calls of the target each found with its address and length; $(grep -E "^$pid +mmap-target" "$T/out" | tail -n 1)"
}
run_fl mmap -c "$MT --raw"
expect_eq "$rc" 0 "mmap tracepoint status"
expect_line 'with tracepoint syscalls:sys_\{enter,exit\}_\{mmap,munmap\}' "$T/err"
check_calls tracepoint
FAULTLINE_MASK='syscalls:*' run_fl mmap -c "$MT"
expect_eq "$rc" 0 "mmap uprobe status"
expect_line 'falling back to uprobe\+uretprobe libc mmap/munmap' "$T/err"
check_calls uprobe
pass_or_fail
