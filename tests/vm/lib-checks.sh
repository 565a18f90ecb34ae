# lib-checks.sh: the checks of leak, brk, mmap and numa against their
# targets' own account, shared by the guest's tests (tests/vm/*.sh: leak,
# brk, mmap, numa, lockdown) and the host's uprobe PMU and numa tests
# (tests/system/uprobe-pmu.sh, numa.sh).
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
		fail "$1: events lost: $(grep -a -E 'lost [0-9,]+ events' "$T/out" "$T/err" 2>/dev/null | head -n 3)"
	echo "RESULT leak -c $1: $n sites exact; $(grep '^  outstanding: ' "$T/out" | sed 's/^ *//')"
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

# leak_sample WHERE: `leak -s 64` on leak-target: in the kernel when the
# kernel's uprobes read the chunk header and filter (leak_big's two 1 MiB
# blocks at their usable size, 1 MiB + 4 KiB - 16 each), else in user space
# with the reason said (the sizes asked); WHERE is "kernel" or "user".
leak_sample() {
	run_fl leak -s 64 -T 100 -c "$(target leak-target) leaks"
	expect_eq "$rc" 0 "leak -s 64 status"
	if [ "$1" = kernel ]; then
		expect_line '^	\(sampled in the kernel: every block of 1024 bytes or more' "$T/out"
		expect_line '^	2105312 bytes in 2 allocations from stack$' "$T/out"
	else
		expect_line '^	\(sampled in user space: .*every event still written: ' "$T/out"
		expect_line '^	2097152 bytes in 2 allocations from stack$' "$T/out"
	fi
	echo "RESULT leak -s 64: $(grep -m1 '^	(sampled' "$T/out" | cut -c1-200)"
	assert_no_stale_probes
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

# check_by_alloc WHAT RUNG: after `faults --by-alloc --json -c fault-target`
# (RUNG tracepoint or software), every allocation site of the target's
# account exact (busybox awk: the guest has no python; the host's
# faults-check.py by-alloc checks the same and more): its allocations and
# bytes, its class, the faults inside its allocator call equal to the
# target's getrusage count over that call (the first also holds the
# tracer's fault on the uprobes page, the summary's "tracer"), all its
# faults those plus the toucher's (touched pages less those resident
# before), no major fault, and on the tracepoint rung every one a first
# touch; the forked child's 64 copy-on-write faults on its copy of
# fork_buffer's block; the read file's region with the target's major
# faults; sites and regions adding up to the summary's total, none
# waiting, nothing lost.
check_by_alloc() {
	local what=$1 rung=$2 line
	awk -v rung="$rung" '
	function num(l, k) {
		if (!match(l, "\"" k "\":[0-9]+"))
			return -1
		return substr(l, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0
	}
	function str(l, k) {
		if (!match(l, "\"" k "\":\"[^\"]*\""))
			return ""
		return substr(l, RSTART + length(k) + 4, RLENGTH - length(k) - 5)
	}
	function kv(f) { sub(/^[a-z_]*=/, "", f); return f }
	function say(k, have, want) { print k, (have == want ? "ok" : "BAD"), have, want }
	/^site fn=/ { fn = kv($2); kind[fn] = kv($3); bytes[fn] = kv($4); touched[fn] = kv($5); next }
	/^resident fn=/ { resident[kv($2)] = kv($3); next }
	/^inalloc fn=/ { inalloc[kv($2)] = kv($3); next }
	/^addr fn=/ { nalloc[kv($2)]++; next }
	/^(pid|child_pid|majflt|file)=/ { split($0, a, "="); truth[a[1]] = a[2]; next }
	/^\{"type":"site"/ {
		l = $0; f = ""
		# The first frame names the site; libc mmap wrapper: its caller.
		for (n = 0; n < 2 && match(l, /"sym":"[^"+ ]*/); n++) {
			f = substr(l, RSTART + 7, RLENGTH - 7)
			l = substr(l, RSTART + RLENGTH)
			if (f != "mmap")
				break
		}
		site[num($0, "pid") " " f] = $0
		sum_sites += num($0, "faults")
		next
	}
	/^\{"type":"region"/ {
		sum_regions += num($0, "faults")
		if (str($0, "region") == "file" && str($0, "path") == truth["file"] && num($0, "pid") == truth["pid"])
			filemajor = num($0, "major")
		next
	}
	/^\{"type":"by_alloc_summary"/ { summ = $0; next }
	/^\{"type":"summary"/ { lost = num($0, "lost"); next }
	END {
		cls["small"] = "small"; cls["heap"] = "heap"; cls["mmap"] = "mmap"
		cls["zeroed"] = "mmap,zeroed"; cls["anon"] = "anon"
		tracer = num(summ, "tracer")
		n = split("alloc_small alloc_heap alloc_big alloc_zeroed map_anon fork_buffer", order, " ")
		for (i = 1; i <= n; i++) {
			fn = order[i]
			o = site[truth["pid"] " " fn]
			if (o == "") { print fn, "BAD", "no site"; continue }
			ia = inalloc[fn] - (fn == "alloc_small" ? tracer : 0)
			say(fn " allocations", num(o, "allocations"), nalloc[fn] + 0)
			say(fn " bytes", num(o, "bytes"), bytes[fn] + 0)
			say(fn " class", str(o, "class"), cls[kind[fn]])
			say(fn " in_allocator", num(o, "in_allocator"), ia)
			say(fn " faults", num(o, "faults"), ia + touched[fn] - resident[fn])
			say(fn " major", num(o, "major"), 0)
			if (rung == "tracepoint") {
				say(fn " first_touch", num(o, "first_touch"), num(o, "faults"))
				say(fn " cow", num(o, "cow"), 0)
			} else {
				say(fn " no fault kinds", num(o, "first_touch"), -1)
			}
		}
		o = site[truth["child_pid"] " fork_buffer"]
		say("child fork_buffer faults", num(o, "faults"), 64)
		say("child fork_buffer pages", num(o, "pages"), 64)
		say("child fork_buffer allocations", num(o, "allocations"), 0)
		say("child fork_buffer class", str(o, "class"), "mmap")
		if (rung == "tracepoint")
			say("child fork_buffer cow", num(o, "cow"), 64)
		say("file region major", filemajor, truth["majflt"] + 0)
		say("summary faults", num(summ, "faults"), num(summ, "to_allocations") + num(summ, "to_regions"))
		say("summary to_allocations", num(summ, "to_allocations"), sum_sites)
		say("summary to_regions", num(summ, "to_regions"), sum_regions)
		say("summary waiting", num(summ, "waiting"), 0)
		say("lost", lost, 0)
	}' "$T/out" >"$T/by-alloc.check"
	[ -s "$T/by-alloc.check" ] || fail "$what: the by-alloc check printed nothing"
	while read -r line; do
		case $line in
		*" BAD "* | *" BAD") fail "$what: $line (have, want)" ;;
		esac
	done <"$T/by-alloc.check"
	echo "RESULT faults --by-alloc $what: $(grep -c ' ok ' "$T/by-alloc.check") checks exact; $(grep '^alloc_small in_allocator\|^alloc_small faults' "$T/by-alloc.check" | tr '\n' ';')"
}

# old_perf_tools WHAT: faultline where perf_event_open lacks what Linux
# 3.12 and 3.16 added (the dummy event, PERF_SAMPLE_IDENTIFIER, mmap2,
# comm_exec): the caller has made $FAULTLINE run under tests/targets/
# old-perf -x dummy,sample_identifier,mmap2,comm_exec -l $T/refused (with
# fl_wrap), which answers those as such a kernel does.  features names
# what is lacking; leak -c (DWARF and fp, then the perf uprobe PMU rung),
# faults --by-alloc and mmap -c each say so in one line and stay exact
# against their targets (check_sites, check_by_alloc, check_calls); and
# old-perf did refuse each of the four.
old_perf_tools() {
	local note="^faultline [a-z]+: this kernel.s perf_event_open lacks dummy \\(Linux 3\\.12\\): .*; sample_identifier \\(Linux 3\\.12\\): .*; mmap2 \\(Linux 3\\.16\\): .*; comm_exec \\(Linux 3\\.16\\): "
	local c n
	run_fl features
	expect_eq "$rc" 0 "$1: features status"
	expect_line '^perf_event_attr +takes use_clockid( format_lost)?; lacks dummy \(Linux 3\.12\), sample_identifier \(Linux 3\.12\), mmap2 \(Linux 3\.16\), comm_exec \(Linux 3\.16\)' "$T/out"
	leak_c_both "$1" "$note"
	FAULTLINE_MASK=uprobes run_fl leak -T 100 -c "$(target leak-target) leaks"
	expect_eq "$rc" 0 "$1: leak -c on the PMU rung: status"
	expect_line "$note" "$T/err"
	expect_line '^faultline leak: falling back to perf uprobe PMU on the allocator' "$T/err"
	check_sites "$1, PMU rung"
	run_fl faults --by-alloc --json -c "$(target fault-target)"
	expect_eq "$rc" 0 "$1: faults --by-alloc status"
	expect_line "$note" "$T/err"
	check_by_alloc "$1" tracepoint
	run_fl mmap -c "$(target mmap-target)"
	expect_eq "$rc" 0 "$1: mmap status"
	expect_line "$note" "$T/err"
	check_calls "$1"
	for c in dummy sample_identifier mmap2 comm_exec; do
		n=$(grep -c "^$c\$" "$T/refused" 2>/dev/null)
		[ "${n:-0}" -ge 1 ] || fail "$1: old-perf refused no call for $c"
	done
	echo "RESULT old perf $1: calls refused: $(sort "$T/refused" | uniq -c | tr -s ' \n' ' ')"
}

# numa_held SECS ARG...: numa-bind ARG... held on a FIFO after its work,
# `faultline numa --json -p` on it for SECS, then a copy of its numa_maps
# in $T/numa_maps (nothing of it runs in between) and its account appended
# to $T/out (tests/system/numa.sh, tests/vm/numa.sh).
numa_held() {
	local secs=$1 pid
	shift
	go_fifo numa
	spawn_at_fifo numa "$(target numa-bind)" "$@" --end "$fifo"
	pid=$spawned
	run_fl numa --json -p "$pid" "$secs"
	expect_eq "$rc" 0 "numa -p status"
	cp "/proc/$pid/numa_maps" "$T/numa_maps" || fail "cannot read /proc/$pid/numa_maps"
	release "$fifo"
	wait_exit "$pid" "numa-bind"
	expect_eq "$rc" 0 "numa-bind status"
	cat "$T/numa.out" >>"$T/out"
}
