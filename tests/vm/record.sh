#!/bin/sh
# record.sh (guest): `faultline record -e leak,faults` of leak-target, then
# `report leak` from the file: the same sites, exact, as the target printed.
. "$top_srcdir/tests/system/lib.sh"
need_root
LT=$(target leak-target)
run_fl record -e leak,faults -o "$T/rec.fl" -c "$LT leaks"
expect_eq "$rc" 0 "record status"
cp "$T/out" "$T/truth"
run_fl report -i "$T/rec.fl" leak -T 100
expect_eq "$rc" 0 "report leak status"
awk '/^\t[0-9]+ bytes in [0-9]+ allocations from stack$/ { b = $1; c = $4; next }
     b != "" { f = $2; sub(/\+.*/, "", f); print f, b, c; b = "" }' "$T/out" >"$T/sites"
n=0
for line in $(sed -n 's/^site fn=\([a-z_]*\) bytes=\([0-9]*\) count=\([0-9]*\)$/\1:\2:\3/p' "$T/truth"); do
	fn=${line%%:*}; b=${line#*:}; c=${b#*:}; b=${b%%:*}
	expect_eq "$(awk -v f="$fn" '$1 == f { print $2, $3 }' "$T/sites")" "$b $c" "report leak: $fn"
	n=$((n + 1))
done
[ "$n" -ge 8 ] || fail "only $n sites in the truth"
run_fl report -i "$T/rec.fl" faults
expect_eq "$rc" 0 "report faults status"
expect_line '^PID +COMM +FAULTS +MINOR +MAJOR$' "$T/out"
echo "RESULT record/report: $n leak sites exact from the recording"
pass_or_fail
