#!/bin/sh
# faultline heap's heaptrack_print-like text, where it used to slip:
# - "and X from N other places" only for places that add to the section's
#   figure: heap-places' group "place" has two stacks of one call each, one
#   temporary and not live at the peak (toss), one live at the peak and
#   leaked (keep); with -s 1 the calls section says "and 1 from 1 other
#   places", and no other section has such a line (it said "and 0B from 1
#   other places" and "and 0 from 1 other places");
# - the footer's unknown frames are the frames printed as an address: 0 of
#   the frames printed for heap-places, and every frame of its own (all
#   printed as addresses) for a stripped copy (it said "0 unknown frames
#   of 0");
# - the runtime is the traced time, on the clock of "peak ... after" and of
#   the intervals, never shorter than either (it was the first allocation
#   to the last: "total runtime: 0.00s." beside "after 0.010s");
# - an idle process (sleep) traced for 1 s in intervals of 0.25 s: a row
#   per interval, each of 0, the last ending no later than the runtime,
#   which is the time traced; no stacks ranked (it said "#1..#0", and one
#   row, and "total runtime: 0.00s.").
. "$top_srcdir/tests/system/lib.sh"
need_root
HP=$(target heap-places)
command -v strip >/dev/null 2>&1 || skip "no strip (binutils)"

# summary FILE WHAT: the runtime line's format; no time printed in FILE
# (peak "after", intervals' END(s)) later than the runtime.
summary() {
	expect_line '^total runtime: [0-9]+\.[0-9]{3}s\.$' "$1"
	awk -v what="$2" '
		/^total runtime: / { rt = substr($3, 1, length($3) - 2) + 0; have = 1 }
		/^peak heap memory consumption: .* after / { t[++n] = substr($NF, 1, length($NF) - 1) + 0 }
		/^ +[0-9]+ +[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9] / { t[++n] = $2 + 0 }
		END {
			if (!have) { print what ": no runtime line"; exit 1 }
			for (i = 1; i <= n; i++)
				if (t[i] > rt) { print what ": " t[i] " s printed, the runtime " rt " s"; exit 1 }
		}' "$1" || fail "$2: a time later than the runtime"
}

# frames FILE WHAT UNKNOWN: the footer counts the frames printed (each has
# its "in MODULE" line here), UNKNOWN of them addresses (the footer's
# thousands separators stripped before the exact comparison).
frames() {
	local got
	n=$(grep -c '^ *in /' "$1")
	[ "$n" -gt 0 ] || fail "$2: no frame printed"
	expect_line "^[0-9,]+ samples, lost 0 events, [0-9,]+ unknown frames of [0-9,]+(;|\$)" "$1"
	got=$(sed -n 's/^[0-9,]* samples, lost 0 events, \([0-9,]*\) unknown frames of \([0-9,]*\)\(;.*\)\{0,1\}$/\1 \2/p' \
		"$1" | tail -n 1 | tr -d ,)
	expect_eq "$got" "$3 $n" "$2: the footer's unknown frames and frames"
}

# 1. heap-places, -s 1 -l: every section, one stack shown per group.
run_fl heap -s 1 -l -c "$HP"
expect_eq "$rc" 0 "heap -s 1 -l: status"
expect_eq "$(grep '^  and ' "$T/out")" "  and 1 from 1 other places" "the other-places lines"
expect_line '^1 temporary allocations of 2 allocations in total \(50\.00%\) from$' "$T/out"
expect_line '^peak heap memory consumption: 100B after [0-9]+\.[0-9]{3}s$' "$T/out"
expect_line '^total memory leaked: 100B$' "$T/out"
summary "$T/out" "heap-places"
frames "$T/out" "heap-places" 0
expect_no_line '^ *0x[0-9a-f]+$' "$T/out"

# 2. Stripped: its own frames are addresses, libc's named.
strip -o "$T/heap-places" "$HP" || fail "strip $HP"
run_fl heap -c "$T/heap-places"
expect_eq "$rc" 0 "heap of a stripped program: status"
hex=$(grep -c '^ *0x[0-9a-f]\{1,\}$' "$T/out")
[ "$hex" -gt 0 ] || fail "stripped: no frame printed as an address"
frames "$T/out" "stripped" "$hex"
summary "$T/out" "stripped"

# 3. An idle process, its heap over time.
spawn idle sleep 100
run_fl heap -p "$spawned" --interval 0.25 1
expect_eq "$rc" 0 "heap of an idle process: status"
expect_eq "$(grep '^bytes outstanding' "$T/out")" \
	"bytes outstanding at the end of each interval of 0.25s: the process's" "idle: the table's title"
expect_no_line '#1\.\.#0' "$T/out"
rows=$(grep -cE '^ +[0-9]+ +[0-9]+\.[0-9]{6} ' "$T/out")
[ "$rows" -ge 4 ] || fail "idle: $rows intervals in a run of 1 s, not 4 or more"
k=0
while [ "$k" -lt "$rows" ]; do
	k=$((k + 1))
	expect_line "^$(printf '%8d %12.6f %10d %12d %12d' "$k" "$(awk "BEGIN { print $k * 0.25 }")" 0 0 0)\$" "$T/out"
done
expect_line '^total runtime: 1\.[0-9]{3}s\.$' "$T/out"
expect_line '^calls to allocation functions: 0 \(0/s\)$' "$T/out"
summary "$T/out" "idle"

assert_no_stale_probes
pass_or_fail
