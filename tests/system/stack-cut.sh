#!/bin/sh
# stack-cut.sh: walks cut short by the stack copy are said before the
# results, with the size that would copy more.  leak-target's allocations
# under --call-graph dwarf,256 (a copy too small for most of its walks):
#   - live text: "NOTE: N of M stacks were cut short by the 256-byte stack
#     copy ...; run again with --call-graph dwarf,512 to copy more" before
#     the first result, N the footer's stack-copy-end count of the same run;
#   - a recording of the same, reported as text and as JSON: N and M are
#     the JSON summary's unwind counts (stack-copy-end, all walks), and the
#     remedy says "record again"; the JSON has no such line;
#   - at the default size, and with --call-graph fp, no NOTE (leak-target's
#     walks are shallow).
. "$top_srcdir/tests/system/lib.sh"
need_root
LT=$(target leak-target)

run_fl leak --call-graph dwarf,256 -c "$LT leaks"
expect_eq "$rc" 0 "leak dwarf,256: exit"
expect_line '^NOTE: [0-9]+ of [0-9]+ stacks were cut short by the 256-byte stack copy: their outer frames are missing; run again with --call-graph dwarf,512 to copy more$' "$T/out"
n=$(sed -n 's/^NOTE: \([0-9]*\) of .*/\1/p' "$T/out")
# The footer's counts carry thousands separators (lib/numfmt): dropped first.
foot=$(sed -e ':a' -e 's/\([0-9]\),\([0-9]\{3\}\)/\1\2/' -e 'ta' "$T/out" |
	sed -n 's/.*stacks: .*[ ,]\([0-9][0-9]*\) stack-copy-end.*/\1/p; s/.*stacks: \([0-9][0-9]*\) stack-copy-end.*/\1/p' | tail -n 1)
expect_eq "$n" "$foot" "NOTE's cut stacks = the footer's stack-copy-end"
[ "${n:-0}" -gt 0 ] || fail "no stack cut at 256 bytes"
first_note=$(grep -n '^NOTE: ' "$T/out" | head -n 1 | cut -d: -f1)
first_result=$(grep -n 'Top [0-9]* stacks' "$T/out" | head -n 1 | cut -d: -f1)
[ -n "$first_note" ] && [ -n "$first_result" ] && [ "$first_note" -lt "$first_result" ] ||
	fail "the NOTE (line $first_note) is not before the first result (line $first_result)"

run_fl record -e leak --call-graph dwarf,256 -o "$T/cut.rec" -c "$LT leaks"
expect_eq "$rc" 0 "record dwarf,256: exit"
run_fl report -i "$T/cut.rec" leak
expect_eq "$rc" 0 "report: exit"
expect_line '^NOTE: [0-9]+ of [0-9]+ stacks were cut short by the 256-byte stack copy: their outer frames are missing; record again with --call-graph dwarf,512 to copy more$' "$T/out"
note=$(sed -n 's/^NOTE: \([0-9]*\) of \([0-9]*\) stacks.*/\1 \2/p' "$T/out")
run_fl report -i "$T/cut.rec" leak --json
expect_eq "$rc" 0 "report --json: exit"
grep -q 'NOTE' "$T/out" && fail "report --json: a NOTE line in the JSON"
js=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o["type"] == "summary":
            u = o["unwind"]
            print(u["stack_copy_end"], sum(u.values()))' "$T/out")
expect_eq "$note" "$js" "report's NOTE = the JSON summary's stack-copy-end and walks"

for cg in "" "--call-graph fp"; do
	# shellcheck disable=SC2086 # cg is words or none
	run_fl leak $cg -c "$LT leaks"
	expect_eq "$rc" 0 "leak $cg: exit"
	grep -q '^NOTE: .*cut short' "$T/out" && fail "leak ${cg:-(default)}: a NOTE on shallow stacks"
done
pass_or_fail
