#!/bin/sh
# live-tstp.sh: job control under `faultline leak --live` (screen.c's
# SIGTSTP and SIGCONT handlers), on a real terminal: an interactive dash
# (which leaves the tty's modes as it finds them, unlike bash, which would
# put its own back and hide a raw tty) in a detached tmux session runs
# `faultline leak --live 15 -- sh target.sh`, as live-view.sh does.
#
# Once the first screen is up (an interval in; leak-target waits on its
# --go FIFO), C-z: the terminal's SIGTSTP stops faultline and its traced
# command (one process group), and the shell must have its screen back
# (out of the alternate screen, its job line and prompt, none of the
# view), and the tty must be in canonical mode with echo (stty -a typed at
# the prompt); both processes stopped.  Then fg: the view must be drawn
# again at once, not at the next interval (its header's elapsed time under
# two intervals: the alternate screen is blank until drawn), with the
# target running on.  Then the measured phase: every site's bytes, blocks
# and growth exact (live-view.sh's check), a sort key, q: the report with
# its exact figures on the shell's screen, the tty back, no probe group
# left.  Skipped (77) when tmux or dash is missing or tmux cannot start a
# session here.
. "$top_srcdir/tests/system/lib.sh"
need_root

LT=$(target leak-target)
[ -x "$LT" ] || fail "no leak-target at $LT"
. "$top_srcdir/tests/system/live-lib.sh"
DASH=$(command -v dash) || skip "no dash: the shell that leaves the tty's modes as they are"

# The interval: long enough that a screen drawn at the next one, not at
# fg, fails the check below.
IV=15
cat >"$T/target.sh" <<EOF
#!/bin/sh
exec "$LT" leaks --go "$T/go.fifo" --end "$T/end.fifo" >"$T/truth" 2>"$T/target.err"
EOF
# The shell's rc file: a prompt to wait for.
printf 'PS1="tstp\$ "\n' >"$T/shrc"

# The last non-blank line of the screen is the prompt.
at_prompt() { screen "$1" && [ "$(sed 's/ *$//' "$T/$1.screen" | grep -v '^$' | tail -n 1)" = 'tstp$' ]; }
alt_is() { [ "$(alt_on "$1")" = "$2" ]; }
state() { sed -n 's/^State:[[:space:]]*\([A-Za-z]\).*/\1/p' "/proc/$1/status" 2>/dev/null; }
is_state() { [ "$(state "$1")" = "$2" ]; }
# raw_tty FILE: stty -a's output says the tty is not canonical or not echoing.
raw_tty() { grep -Eq '(^|[ ;])-icanon([ ;]|$)|(^|[ ;])-echo([ ;]|$)' "$1"; }
cooked_tty() { ! raw_tty "$1" && grep -Eq '(^| )icanon( |$)' "$1" && grep -Eq '(^| )echo( |$)' "$1"; }
HEADER="^faultline leak \[([0-9]+):([0-9]{2})\]  [0-9,]+ B( \([0-9.]+ [KMGTPE]iB\))? in [0-9,]+ blocks, [0-9,]+ stacks; [0-9,]+ events/s, 0 lost\$"
# elapsed NAME: the seconds the header of the screen says.
elapsed() { sed -En "s|$HEADER|\\1 \\2|p" "$T/$1.screen" | awk '{ print $1 * 60 + $2; exit }'; }

# bail WHY: a step failed that the rest needs: faultline ended (SIGTERM,
# and SIGCONT should it be stopped), the target let go, no probe left.
bail() {
	fail "$1"
	if [ -n "${FL:-}" ]; then
		kill -TERM "$FL" 2>/dev/null
		kill -CONT "$FL" 2>/dev/null
	fi
	fifo_unblock "$T/go.fifo"
	fifo_unblock "$T/end.fifo"
	[ -n "${FL:-}" ] && wait_until "$FL_TIMEOUT" _fl_gone "$FL" && assert_no_probes_of "$FL"
	pass_or_fail
}

go_fifo go
go_fifo end
tm new-session -d -s sh -x 160 -y 30 "exec env ENV=$T/shrc $DASH -i" || fail "tmux new-session failed"
wait_until 10 at_prompt sh || bail "no prompt from dash: $(cat "$T/sh.screen")"
echo "+ tmux: faultline leak --live $IV -- sh target.sh"
tm send-keys -t sh "$FAULTLINE leak --live $IV -- sh $T/target.sh" Enter
FL=
wait_until 10 test -s "$T/.fl-pids" || bail "faultline not started: $(cat "$T/sh.screen")"
FL=$(tail -n 1 "$T/.fl-pids")
wait_until "$((FL_READY_TIMEOUT + IV))" shows sh "$HEADER" || bail "no first screen: $(cat "$T/sh.screen")"
expect_eq "$(alt_on sh)" 1 "first screen: in the alternate screen"
TG=$(pgrep -P "$FL" | head -n 1)
[ -n "$TG" ] || bail "no traced child of faultline $FL"

# ---- Ctrl-Z: the shell's screen and modes back, both processes stopped
tm send-keys -t sh C-z
wait_until 10 alt_is sh 0 || bail "C-z: still in the alternate screen: $(cat "$T/sh.screen")"
wait_until 10 at_prompt sh || bail "C-z: no prompt: $(cat "$T/sh.screen")"
expect_line '^\[1\] \+ Stopped' "$T/sh.screen"
expect_line "^tstp\\$ .*faultline leak --live $IV -- sh " "$T/sh.screen"
expect_no_line 'OUTSTANDING +BLOCKS|^faultline leak \[|^sort: ' "$T/sh.screen"
sed -n '1,6p' "$T/sh.screen"
wait_until 10 is_state "$FL" T || fail "C-z: faultline not stopped: $(state "$FL")"
wait_until 10 is_state "$TG" T || fail "C-z: the traced command not stopped: $(state "$TG")"
# Typed at the prompt: a raw tty would give dash no line at all.
tm send-keys -t sh "stty -a >$T/stopped.stty.new; mv $T/stopped.stty.new $T/stopped.stty" Enter
if wait_until 10 test -s "$T/stopped.stty"; then
	cooked_tty "$T/stopped.stty" ||
		fail "C-z: the tty not canonical with echo: $(grep -o -- '-*icanon\|-*echo ' "$T/stopped.stty" | tr '\n' ' ')"
	echo "ok: stopped: $(grep -o -- ' -*icanon\| -*echo ' "$T/stopped.stty" | tr '\n' ' ')"
else
	fail "C-z: the shell runs no command: $(cat "$T/sh.screen")"
fi
expect_eq "$(state "$FL")" T "stopped: faultline still stopped"
wait_until 10 at_prompt sh || fail "no prompt after stty: $(cat "$T/sh.screen")"

# ---- fg: the view at once, the run going on.  fg's status is the job's;
# then the tty's modes as live-view.sh's pane records them.
tm send-keys -t sh "fg; r=\$?; stty -a >$T/pane.stty; echo \$r >$T/pane.rc" Enter
wait_until "$((3 * IV))" shows sh "$HEADER" || bail "fg: no screen: $(cat "$T/sh.screen")"
t=$(elapsed sh)
if [ "$t" -lt $((2 * IV)) ]; then
	echo "ok: drawn again at fg, ${t} s in (interval $IV s)"
else
	fail "fg: the screen drawn at the next interval (${t} s in), not at fg"
fi
expect_eq "$(alt_on sh)" 1 "fg: in the alternate screen"
expect_line '^ OUTSTANDING +BLOCKS +GROWTH +INTERVAL +STACK *$' "$T/sh.screen"
wait_until 10 is_state "$TG" S || fail "fg: the traced command not running on: $(state "$TG")"

# The measured phase after the stop: exact.
release "$T/go.fifo"
wait_until "$FL_READY_TIMEOUT" grep -q '^pid=' "$T/truth" ||
	fail "the target did not finish: $(cat "$T/target.err")"
if wait_until "$((FL_READY_TIMEOUT + IV))" rows_exact sh; then
	echo "ok: after C-z and fg, every site's bytes, blocks and growth exact"
	sed -n '1,13p' "$T/sh.screen"
else
	fail "rows not the target's: $(cat "$T/sh.diff")"
fi
# Keys still read: b sorts by blocks, o back by bytes.
tm send-keys -t sh b
wait_until 10 shows sh '^sort: blocks ' && wait_until 10 first_is sh thread_leak ||
	fail "b: not sorted by blocks: $(head -n 5 "$T/sh.screen")"
expect_eq "$(row sh 2)" "280 7 +280 leak_malloc_small" "b: second row"
tm send-keys -t sh o
wait_until 10 shows sh '^sort: outstanding ' && wait_until 10 first_is sh leak_big ||
	fail "o: not sorted by bytes"

# ---- q: the report on the shell's screen, the terminal back
tm send-keys -t sh q
if wait_until "$FL_TIMEOUT" test -s "$T/pane.rc"; then
	expect_eq "$(cat "$T/pane.rc")" 0 "exit status (fg's)"
	expect_eq "$(alt_on sh)" 0 "q: out of the alternate screen"
	cooked_tty "$T/pane.stty" ||
		fail "q: the tty not canonical with echo: $(grep -o -- '-*icanon\|-*echo ' "$T/pane.stty" | tr '\n' ' ')"
	screen sh history
	expect_no_line 'OUTSTANDING +BLOCKS' "$T/sh.screen"
	expect_line '^\[[0-9]{2}:[0-9]{2}:[0-9]{2}\] Top 10 stacks with outstanding allocations:$' "$T/sh.screen"
	expect_line '^ +2097152 bytes in 2 allocations from stack$' "$T/sh.screen"
	expect_line '^  outstanding: +2,104,040 B \(2\.01 MiB\) in 42 allocations from 9 stacks$' "$T/sh.screen"
	grep -E '^  outstanding: ' "$T/sh.screen"
else
	fail "faultline did not exit after q: $(cat "$T/sh.screen")"
fi
assert_no_probes_of "$FL"
fifo_unblock "$T/end.fifo"

pass_or_fail
