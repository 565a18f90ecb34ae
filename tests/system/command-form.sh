#!/bin/sh
# perf's command form, `faultline TOOL [options] -- CMD ARGS...`: the
# arguments reach the program exactly as given (no shell parsing: `;`,
# spaces, quotes, `$(...)`, globs, an empty word), in every tool that runs a
# command, record included; options after `--` are the command's; -c still
# splits its one string as a shell would; the misuses get one clear line.
. "$top_srcdir/tests/system/lib.sh"
need_root

# The words a program gets, one per line, written by a shell that only
# prints its own "$@" (so faultline's stdout holds the tool's report alone).
ARGS=$T/args
PRINT_ARGS='printf "%s\n" "$@" >"$0"'
printf '%s\n' 'a;b' 'two  spaces' "it's" '"dq"' '$(id -u)' '*' '' '-T' >"$T/want"

check_args() {	# WHAT
	if [ "$rc" -ne 0 ]; then
		fail "$1: exit status $rc"
		sed 's/^/  /' "$T/err"
	elif ! cmp -s "$ARGS" "$T/want"; then
		fail "$1: the arguments changed on the way:"
		diff -u "$T/want" "$ARGS" | sed 's/^/  /'
	fi
	rm -f "$ARGS"
	return 0
}

# 1. Every tool that takes -c takes -- CMD, with the words intact.  -T
#    last: reclaim and swapin take their options in any order, yet what
#    follows -- is the command's.
for tool in brk mmap leak faults ffaults hfaults reclaim swapin; do
	run_fl "$tool" -- /bin/sh -c "$PRINT_ARGS" "$ARGS" \
		'a;b' 'two  spaces' "it's" '"dq"' '$(id -u)' '*' '' '-T'
	check_args "$tool -- CMD"
done
run_fl record -e brk -o "$T/rec" -- /bin/sh -c "$PRINT_ARGS" "$ARGS" \
	'a;b' 'two  spaces' "it's" '"dq"' '$(id -u)' '*' '' '-T'
check_args "record -- CMD"

# 2. The command as the recording names it is shell-quoted: a shell splits
#    it back into the same words.
"$FAULTLINE" report -i "$T/rec" info >"$T/info" 2>"$T/info.err" ||
	fail "report info: exit status $?"
cmdline=$(sed -n 's/^command  *//p' "$T/info")
eval "set -- $cmdline"
[ "$1" = /bin/sh ] && [ "$2" = -c ] && [ "$3" = "$PRINT_ARGS" ] && [ "$4" = "$ARGS" ] ||
	fail "recorded command line '$cmdline' does not split back into its words"
shift 4
printf '%s\n' "$@" | cmp -s - "$T/want" ||
	fail "recorded command line '$cmdline' does not split back into its arguments"

# 3. The tool's report is the program's: brk counts brk-target's calls.
BT=$(target brk-target)
run_fl brk -- "$BT" --count 3
expect_eq "$rc" 0 "brk -- brk-target: exit status"
expect_line "^    3 calls, requested break" "$T/out"
expect_line "^Executing '$BT --count 3' and tracing" "$T/err"

# 4. -c still works, a quoted ; included, and is still split by the shell's
#    rules (the quotes go, the words stay whole).
run_fl brk -c "$BT --count 2"
expect_eq "$rc" 0 "brk -c: exit status"
expect_line "^    2 calls, requested break" "$T/out"
run_fl brk -c "/bin/sh -c '$PRINT_ARGS' '$ARGS' 'a;b' 'two  spaces' \"it's\" '\"dq\"' '\$(id -u)' '*' '' -T"
check_args "brk -c with quoted words"

# 5. Misuse: one line, usage status.
one_line_error() {	# WHAT EXPECTED_RC REGEX
	expect_eq "$rc" "$2" "$1: exit status"
	expect_eq "$(grep -c . "$T/err")" 1 "$1: lines on stderr"
	expect_line "$3" "$T/err"
	return 0
}
run_fl brk --
one_line_error "-- with nothing after it" 2 "^faultline brk: a command must follow '--'"
run_fl brk -c /bin/true -- /bin/true
one_line_error "-c and --" 2 "^faultline brk: choose one of -c CMD and -- CMD"
run_fl brk -p 1 -- /bin/true
one_line_error "-p and --" 2 "^faultline brk: choose one of -p, -c and -a"
run_fl cache -- /bin/true
one_line_error "cache takes no command" 2 "^faultline cache: runs no command"
run_fl brk -- /nonexistent/program 'a;b'
one_line_error "-- missing program" 125 "cannot execute '/nonexistent/program': No such file"
run_fl brk -c '/bin/echo $(id -u)'
one_line_error "-c with a command substitution" 125 "cannot parse command .*pass it after '--'"
# An option's value may be "--": -c gets it as its command.
run_fl brk -c --
one_line_error "-c --" 125 "cannot execute '--'"
"$FAULTLINE" report -i "$T/rec" brk -- /bin/true >"$T/out" 2>"$T/err" && rc=0 || rc=$?
one_line_error "report -- CMD" 2 "^faultline brk: a report reads a recording"
pass_or_fail
