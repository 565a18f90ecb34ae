# lib-checks.sh: the checks of leak, brk and mmap against their targets'
# own account, shared by the guest's tests (tests/vm/*.sh: leak, brk, mmap,
# lockdown) and the host's uprobe PMU test (tests/system/uprobe-pmu.sh).
# Sourced after tests/system/lib.sh; each reads $T/out of the last run_fl.
# (tests/vm/init runs no lib-*.sh as a test.)

# sites_of OUT: "FN BYTES COUNT" of every text stack, by its first frame.
sites_of() {
	awk '/^\t[0-9]+ bytes in [0-9]+ allocations from stack$/ { b = $1; c = $4; next }
	     b != "" { f = $2; sub(/\+.*/, "", f); print f, b, c; b = "" }' "$1"
}

# check_sites WHAT: after `leak -T 100 -c "leak-target leaks"`, every site
# the target printed (site fn=F bytes=B count=C) is one stack with exactly
# those bytes and allocations; no freed site is reported.
check_sites() {
	local fn b c got n=0 line
	sites_of "$T/out" >"$T/sites"
	for line in $(sed -n 's/^site fn=\([a-z_]*\) bytes=\([0-9]*\) count=\([0-9]*\)$/\1:\2:\3/p' "$T/out"); do
		fn=${line%%:*}
		b=${line#*:}
		c=${b#*:}
		b=${b%%:*}
		got=$(awk -v f="$fn" '$1 == f { print $2, $3 }' "$T/sites")
		n=$((n + 1))
		expect_eq "$got" "$b $c" "$1: $fn (bytes allocations)"
	done
	[ "$n" -ge 8 ] || fail "$1: only $n sites in the target's truth"
	for fn in temp_alloc zero_alloc huge_alloc produce_blocks; do
		grep -q "^$fn " "$T/sites" && fail "$1: freed site $fn reported"
	done
	grep -q ', lost 0 events' "$T/out" ||
		fail "$1: events lost: $(grep -a -E 'lost [0-9]+ events' "$T/out" "$T/err" 2>/dev/null | head -n 3)"
	echo "RESULT leak -c $1: $n sites exact; $(grep 'allocations outstanding from' "$T/out")"
}

# check_brk WHAT: after `brk -c "brk-target [--libc] --count 5 --step 8192"`:
# the 5 calls of 8 KiB with the requested breaks, and the final break, exact.
check_brk() {
	local pid final initial
	pid=$(sed -n 's/^pid=//p' "$T/out" | head -n 1)
	final=$(sed -n 's/^final_break=//p' "$T/out" | head -n 1)
	initial=$(sed -n 's/^initial_break=//p' "$T/out" | head -n 1)
	expect_line "^    brk-target \[$pid\]$" "$T/out"
	expect_line "^    5 calls, requested break $(printf '0x%x' $((initial + 8192))) \.\. $final$" "$T/out"
	expect_line "^$pid +brk-target +[0-9]+ 0x[0-9a-f]+ +$final " "$T/out"
	echo "RESULT brk $1: $(grep '5 calls, requested' "$T/out"); final break $final"
}

# check_calls WHAT: after `mmap -c mmap-target`, each call the target
# printed (mmap len= prot= flags= off= addr=, munmap addr= len=) is a line
# of the report with that address and length, its flags and offset.
check_calls() {
	local what=$1
	local n=0 l len prot flags off addr f pid file
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

# leak_c_both WHAT ERR_REGEX: `leak -T 100 -c "leak-target leaks"` with
# DWARF and with frame-pointer stacks, each naming its source (ERR_REGEX in
# its stderr) and checked by check_sites.
leak_c_both() {
	run_fl leak -T 100 -c "$(target leak-target) leaks"
	expect_eq "$rc" 0 "$1: leak -c status (the target's own checks included)"
	expect_line "$2" "$T/err"
	check_sites "$1, dwarf"
	run_fl leak -T 100 --call-graph fp -c "$(target leak-target) leaks"
	expect_eq "$rc" 0 "$1: leak -c fp status"
	expect_line "$2" "$T/err"
	check_sites "$1, fp"
}

# pmu_tools WHAT: leak (DWARF and fp), brk and mmap on the perf uprobe
# PMU rung (locked down, or tracefs masked), each against its target.
pmu_tools() {
	leak_c_both "$1" '^faultline leak: falling back to perf uprobe PMU on the allocator'
	run_fl brk -c "$(target brk-target) --libc --count 5 --step 8192"
	expect_eq "$rc" 0 "$1: brk status"
	expect_line 'falling back to perf uprobe PMU on libc brk' "$T/err"
	check_brk "$1"
	run_fl mmap -c "$(target mmap-target)"
	expect_eq "$rc" 0 "$1: mmap status"
	expect_line 'falling back to perf uprobe PMU on libc mmap/munmap' "$T/err"
	check_calls "$1"
}
