#!/bin/sh
# leak-stall.sh: a reader that stops does not lose events.  faultline's
# main thread (the reader: parsing, unwinding, the allocation table) is
# held in a ptrace stop (hold-thread: a stop of that thread alone) for the
# whole of malloc-churn's loop of 4000 malloc/free pairs at full speed,
# each malloc's return a DWARF stack sample of ~8.4 KB: ~34 MB, twice
# what one CPU's ring holds at the default -m.  Only the drain thread,
# which empties the rings into user memory as they fill, can keep the
# kernel from dropping them (without it this lost ~6,000 of the 12,000
# events).  Once the loop is done the reader is let go, catches up, and
# the report must be exact against the target's own account: nothing
# lost, the kept blocks and bytes outstanding, every pair traced.
. "$top_srcdir/tests/system/lib.sh"
need_root
MC=$(target malloc-churn)
N=4000 KEEP=100

go_fifo go
go=$fifo
go_fifo end
end=$fifo
spawn fl "$FAULTLINE" leak --json -c "$MC --count $N --keep $KEEP --go $go --end $end"
fl=$spawned
# -c says "Executing" where -p says lib.sh's ready line, when tracing is
# live: the reader is then in its loop.
wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$T/fl.err" ||
	{ fail "faultline not tracing: $(tail -n 3 "$T/fl.err")"; pass_or_fail; }
# Hold the reader, then let the target run its loop: it prints its
# account (pid= last) when the loop is done, and waits on --end.
hold_through_loop "$fl" "$go" "$T/fl.out"
expect_eq "$rc" 0 "hold-thread status ($(cat "$T/hold.err"))"
expect_line "^held $fl\$" "$T/hold.err"
release "$end"
wait_exit "$fl" "leak -c"
expect_eq "$rc" 0 "leak status"

# The target's account, and faultline's numbers.
acct() { sed -n "s/^$1=//p" "$T/fl.out"; }
leak_nums "$T/fl.out" lost bytes blocks allocs frees stacks >"$T/nums" ||
	fail "no leak_summary or summary from faultline"
read -r lost bytes blocks allocs frees stacks <"$T/nums" || :
echo "RESULT leak-stall: reader held for $(acct pairs) pairs ($(acct ns_per_pair) ns a pair);" \
	"lost ${lost:-?}; outstanding $bytes bytes in $blocks blocks (target: $(acct kept_bytes) in" \
	"$(acct kept)); traced $allocs allocations, $frees frees; $stacks stacks"
expect_eq "$lost" 0 "events lost"
expect_eq "$(acct pairs)" "$N" "the target's pairs"
expect_eq "$bytes" "$(acct kept_bytes)" "bytes outstanding at exit against the target's kept bytes"
expect_eq "$blocks" "$(acct kept)" "blocks outstanding at exit against the target's kept blocks"
expect_eq "$allocs" "$N" "allocations traced"
expect_eq "$frees" "$((N - N / KEEP))" "frees traced"
# Every malloc's return carried its stack: the held stretch was ~34 MB.
[ "${stacks:-0}" -ge "$N" ] || fail "only ${stacks:-0} complete stacks of $N allocations"
pass_or_fail
