#!/bin/sh
# live-view.sh: `faultline leak --live` and `faultline heap --live` on a
# real terminal: a detached tmux session of a fixed size runs
# `faultline TOOL --live -- leak-target leaks`, and the test reads the
# screen with capture-pane and types with send-keys.
#
# leak-target waits on its --go FIFO before its measured phase; the test
# opens it once the first screen (the reference of GROWTH) is up, so each
# of the target's sites (its truth: "site fn=NAME bytes=N count=N") must
# show its exact bytes and blocks, and a GROWTH of all its bytes; the
# warm-up's 4 DTVs (1,088 bytes, allocate_dtv, made before --go) too, and
# the header the totals of the rows; an interval later, INTERVAL is +0 on
# every row and GROWTH the same.  Then keys: b sorts by blocks
# (thread_leak's 20 first), g by growth, o back by bytes (leak_big's 2 MiB
# first); the window made 8 rows high shows 5 rows of 9 and scrolls with
# j, End and Home.  leak ends with q, heap with the target's exit (its
# --end FIFO): both must leave the alternate screen, put the tty back in
# canonical mode with echo, print their normal report on the shell's
# screen, and leave no probe group of theirs in tracefs.
#
# Also: --live without a terminal on stdout, or with --json, is one line
# on stderr and exit 2.  Skipped (77) when tmux is missing or cannot start
# a session here.
. "$top_srcdir/tests/system/lib.sh"
need_root

LT=$(target leak-target)
[ -x "$LT" ] || fail "no leak-target at $LT"

# ---- without a terminal: refused, before anything is traced
run_fl leak --live -c true
expect_eq "$rc" 2 "leak --live, stdout a file: exit"
expect_eq "$(wc -l <"$T/err" | tr -d ' ')" 1 "leak --live, stdout a file: lines on stderr"
expect_line '^faultline leak: --live draws on a terminal, and stdout is not one$' "$T/err"
run_fl heap --live -c true
expect_eq "$rc" 2 "heap --live, stdout a file: exit"
expect_line '^faultline heap: --live draws on a terminal, and stdout is not one$' "$T/err"
run_fl leak --live --json -c true
expect_eq "$rc" 2 "leak --live --json: exit"
expect_line '^faultline leak: --live draws on the terminal: not with --json$' "$T/err"
run_fl heap --live --json -c true
expect_eq "$rc" 2 "heap --live --json: exit"
# Snapshots would be drawn over: only into --output's file.
run_fl leak --live --snapshot-every 1 -c true
expect_eq "$rc" 2 "leak --live --snapshot-every: exit"
expect_line '^faultline leak: --live draws on the terminal: not with --snapshot-every without --output FILE' "$T/err"
# A recording's replay is no live run.
run_fl record -e leak -o "$T/true.rec" -c true
expect_eq "$rc" 0 "record -c true: exit"
for tool in leak heap; do
	run_fl report -i "$T/true.rec" "$tool" --live
	expect_eq "$rc" 2 "report $tool --live: exit"
	expect_line "^faultline $tool: --live shows a live run: not under record or report\$" "$T/err"
done

. "$top_srcdir/tests/system/live-lib.sh"

# The pane's command: faultline, then its status and the tty's modes once
# it is done; the pane stays for capture-pane.
cat >"$T/pane.sh" <<EOF
#!/bin/sh
"\$@"
echo \$? >"$T/pane.rc.new" && mv "$T/pane.rc.new" "$T/pane.rc"
stty -a >"$T/pane.stty" 2>&1
exec sleep 600
EOF
# The target, its truth kept off the screen.
cat >"$T/target.sh" <<EOF
#!/bin/sh
exec "$LT" leaks --go "$T/go.fifo" --end "$T/end.fifo" >"$T/truth" 2>"$T/target.err"
EOF

# live TOOL: faultline TOOL --live on the target, in the tmux session
# TOOL (160 x 30), up to the exact rows and the keys; the end is the
# caller's.
live() {
	local tool=$1
	go_fifo go
	go_fifo end
	rm -f "$T/pane.rc" "$T/pane.stty" "$T/truth"
	echo "+ tmux: faultline $tool --live -- sh target.sh"
	tm new-session -d -s "$tool" -x 160 -y 30 "sh $T/pane.sh $FAULTLINE $tool --live -- sh $T/target.sh" ||
		{ fail "$tool: tmux new-session failed"; return 1; }
	wait_until "$FL_READY_TIMEOUT" shows "$tool" "^faultline $tool \[[0-9]+:[0-9]{2}\]  [0-9,]+ B( \([0-9.]+ [KMGTPE]iB\))? in [0-9,]+ blocks, [0-9,]+ stacks; [0-9,]+ events/s, 0 lost\$" ||
		{ fail "$tool: no first screen: $(cat "$T/$tool.screen")"; return 1; }
	expect_line '^ OUTSTANDING +BLOCKS +GROWTH +INTERVAL +STACK *$' "$T/$tool.screen"
	expect_line '^sort: outstanding \(o outstanding, g growth, i interval, b blocks\)' "$T/$tool.screen"
	expect_eq "$(alt_on "$tool")" 1 "$tool: in the alternate screen"
	# The first screen is up: the measured phase grows from it.
	release "$T/go.fifo"
	wait_until "$FL_READY_TIMEOUT" grep -q '^pid=' "$T/truth" ||
		{ fail "$tool: the target did not finish: $(cat "$T/target.err")"; return 1; }
	if wait_until "$FL_READY_TIMEOUT" rows_exact "$tool"; then
		echo "ok: $tool: every site's bytes, blocks and growth exact"
		sed -n '1,13p' "$T/$tool.screen"
	else
		fail "$tool: rows not the target's: $(cat "$T/$tool.diff")"
	fi
	wait_until 10 first_is "$tool" leak_big || fail "$tool: leak_big not first by bytes"
	# Nothing changes after the phase: an interval later, no row has
	# grown in the last one, and each still shows its growth since the first.
	wait_until 10 intervals_zero "$tool" ||
		fail "$tool: INTERVAL not back to +0: $(sed -n '4,12p' "$T/$tool.screen")"
	rows_exact "$tool" || fail "$tool: rows changed: $(cat "$T/$tool.diff")"

	tm send-keys -t "$tool" b
	wait_until 10 shows "$tool" '^sort: blocks ' && wait_until 10 first_is "$tool" thread_leak ||
		fail "$tool: b: not sorted by blocks: $(head -n 5 "$T/$tool.screen")"
	expect_eq "$(row "$tool" 2)" "280 7 +280 leak_malloc_small" "$tool: b: second row"
	tm send-keys -t "$tool" g
	wait_until 10 shows "$tool" '^sort: growth ' && wait_until 10 first_is "$tool" leak_big ||
		fail "$tool: g: not sorted by growth: $(head -n 5 "$T/$tool.screen")"
	tm send-keys -t "$tool" i
	wait_until 10 shows "$tool" '^sort: interval ' || fail "$tool: i: no sort by interval"
	tm send-keys -t "$tool" o
	wait_until 10 shows "$tool" '^sort: outstanding ' && wait_until 10 first_is "$tool" leak_big ||
		fail "$tool: o: not sorted by bytes"
	expect_eq "$(row "$tool" 2)" "1500 3 +1500 leak_calloc" "$tool: o: second row"

	# 8 rows: 3 of head, 5 of stacks; scrolled by j, End and Home.
	tm resize-window -t "$tool" -y 8 || fail "$tool: tmux resize-window failed"
	wait_until 10 shows "$tool" ' rows 1-5 of 9$' || fail "$tool: not redrawn at 8 rows: $(cat "$T/$tool.screen")"
	tm send-keys -t "$tool" j
	wait_until 10 shows "$tool" ' rows 2-6 of 9$' && wait_until 10 first_is "$tool" leak_calloc ||
		fail "$tool: j: not scrolled by one: $(cat "$T/$tool.screen")"
	tm send-keys -t "$tool" End
	wait_until 10 shows "$tool" ' rows 5-9 of 9$' || fail "$tool: End: not at the last rows"
	expect_eq "$(row "$tool" 5 | cut -d' ' -f4)" leak_malloc_small "$tool: End: last row"
	tm send-keys -t "$tool" Home
	wait_until 10 shows "$tool" ' rows 1-5 of 9$' && wait_until 10 first_is "$tool" leak_big ||
		fail "$tool: Home: not back at the top"
	tm resize-window -t "$tool" -y 30
	return 0
}

# ended TOOL WANT_RC: the run is over: its status, the terminal back,
# and no probe group left.
ended() {
	local tool=$1 pid
	wait_until "$FL_TIMEOUT" test -s "$T/pane.rc" || { fail "$tool: faultline did not exit"; return 1; }
	expect_eq "$(cat "$T/pane.rc")" "$2" "$tool: exit status"
	expect_eq "$(alt_on "$tool")" 0 "$tool: out of the alternate screen"
	grep -Eq '(^|[ ;])-icanon([ ;]|$)|(^|[ ;])-echo([ ;]|$)' "$T/pane.stty" &&
		fail "$tool: the tty left raw: $(grep -o -- '-*icanon\|-*echo ' "$T/pane.stty" | tr '\n' ' ')"
	grep -Eq '(^| )icanon( |$)' "$T/pane.stty" || fail "$tool: no icanon in stty -a: $(head -c 300 "$T/pane.stty")"
	screen "$tool" history
	# The shell's screen: the lines from before the view, then the report;
	# nothing of the view.
	expect_line "^Executing 'sh .*target.sh' and tracing allocations with " "$T/$tool.screen"
	expect_no_line 'OUTSTANDING +BLOCKS' "$T/$tool.screen"
	pid=$(tail -n 1 "$T/.fl-pids")
	assert_no_probes_of "$pid"
	tm kill-session -t "$tool"
}

# ---- leak: q ends it, the report follows
if live leak; then
	tm send-keys -t leak q
	ended leak 0
	expect_line '^\[[0-9]{2}:[0-9]{2}:[0-9]{2}\] Top 10 stacks with outstanding allocations:$' "$T/leak.screen"
	expect_line '^ +2097152 bytes in 2 allocations from stack$' "$T/leak.screen"
	expect_line '^  outstanding: +2,104,040 B \(2\.01 MiB\) in 42 allocations from 9 stacks$' "$T/leak.screen"
fi
fifo_unblock "$T/end.fifo"

# ---- leak --output FILE: the screen on the terminal, the report in FILE
# (stdout's stream is the file's, the screen is written to fd 1)
go_fifo go
go_fifo end
rm -f "$T/pane.rc" "$T/pane.stty" "$T/truth"
tm new-session -d -s out -x 160 -y 30 \
	"sh $T/pane.sh $FAULTLINE leak --live --output $T/report.txt -- sh $T/target.sh" ||
	fail "out: tmux new-session failed"
if wait_until "$FL_READY_TIMEOUT" shows out '^faultline leak \[[0-9]+:[0-9]{2}\]  '; then
	release "$T/go.fifo"
	wait_until "$FL_READY_TIMEOUT" grep -q '^pid=' "$T/truth" || fail "out: the target did not finish"
	wait_until "$FL_READY_TIMEOUT" rows_exact out || fail "out: rows not the target's: $(cat "$T/out.diff")"
	tm send-keys -t out q
	ended out 0
	expect_no_line 'Top 10 stacks with outstanding allocations' "$T/out.screen"
	expect_line '^  outstanding: +2,104,040 B \(2\.01 MiB\) in 42 allocations from 9 stacks$' "$T/report.txt"
	expect_no_line 'OUTSTANDING +BLOCKS' "$T/report.txt"
	expect_no_line "$(printf '\033')" "$T/report.txt"
else
	fail "out: no first screen: $(cat "$T/out.screen")"
fi
fifo_unblock "$T/end.fifo"

# ---- heap: the target's exit ends it, the report follows
if live heap; then
	release "$T/end.fifo"
	ended heap 0
	expect_line '^PEAK MEMORY CONSUMERS$' "$T/heap.screen"
	expect_line '^total memory leaked: 2\.10M$' "$T/heap.screen"
fi

pass_or_fail
