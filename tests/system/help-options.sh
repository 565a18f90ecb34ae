#!/bin/sh
# help-options.sh: a tool's -h never offers a shared option its parser
# refuses.  For every tracing command, each shared option of TOOL_OPTS_HELP
# (-p, -c, -a, --json, -m, --call-graph, --unwinder, --srcline) listed in
# `faultline TOOL -h` as the shared entry is taken by the parser: `faultline
# TOOL OPTION [VALUE] -h` gets past it (exit 0: help printed), not "unknown
# option" (exit 2).  The stack options, which no tool refuses later, are
# taken exactly when listed (ffaults, hfaults, reclaim, swapin, compact and
# oom took --call-graph, --unwinder and --srcline and did nothing with
# them).  A tool may refuse a listed -p or -c after parsing (oom -p, said
# there), which -h does not see.  heap and flamegraph offered -a and
# flamegraph --json, which they refused or ignored; leak's -a is its own
# (--show-allocs, listed as "-a, --show-allocs").
# Also: a program named where a number goes gets how to run it; `faultline
# help TOOL` prints TOOL -h; `faultline TOOL --version`.
. "$top_srcdir/tests/system/lib.sh"

tools="leak heap flamegraph faults ffaults hfaults goalloc brk mmap reclaim swapin cache pressure oom cachetop shm slab compact record"
checked=0
for t in $tools; do
	run_fl "$t" -h
	expect_eq "$rc" 0 "$t -h: exit"
	cp "$T/out" "$T/$t.help"
	# option, its value, the help entry that offers it
	for spec in "-p|1|-p PID " "-c|true|-c CMD " "-a||-a  " "--json||--json  " "-m|64|-m PAGES " \
		"--call-graph|fp|--call-graph " "--unwinder|libdw|--unwinder " "--srcline||--srcline  "; do
		opt=${spec%%|*}
		rest=${spec#*|}
		val=${rest%%|*}
		entry=${rest#*|}
		shown=0
		grep -q -F -- "  $entry" "$T/$t.help" && shown=1
		# shellcheck disable=SC2086 # val is one word or none
		run_fl "$t" "$opt" $val -h
		taken=0
		[ "$rc" -eq 0 ] && taken=1
		[ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || fail "$t $opt $val -h: exit $rc, neither help nor a usage error"
		case $t/$opt in
		leak/-a) ;;	# its own --show-allocs
		*/--call-graph | */--unwinder | */--srcline)
			expect_eq "$shown" "$taken" "$t: '$opt' listed in -h (1) = taken by the parser (1)" ;;
		*)
			[ "$shown" -eq 0 ] || [ "$taken" -eq 1 ] ||
				fail "$t: -h lists '$opt', the parser refuses it" ;;
		esac
		checked=$((checked + 1))
	done
done
echo "checked $checked tool/option pairs"
# The two that lied, by name.
grep -q -F -- "  -a  " "$T/heap.help" && fail "heap -h offers -a"
grep -q -F -- "  -a  " "$T/flamegraph.help" && fail "flamegraph -h offers -a"
grep -q -F -- "  --json  " "$T/flamegraph.help" && fail "flamegraph -h offers --json"
grep -q -F -- "  -a, --show-allocs" "$T/leak.help" || fail "leak -h lost its own -a"
# A program where a number goes (valgrind's and heaptrack's habit): how
# to run it, exit 2; a word that names no program keeps the plain error.
run_fl leak ls
expect_eq "$rc" 2 "leak ls: exit"
expect_eq "$(cat "$T/err")" "faultline leak: 'ls' is not an interval; to run a program: faultline leak -- ls" "leak ls: stderr"
run_fl heap /bin/ls
expect_eq "$rc" 2 "heap /bin/ls: exit"
expect_eq "$(cat "$T/err")" "faultline heap: '/bin/ls' is not a duration; to run a program: faultline heap -- /bin/ls" "heap /bin/ls: stderr"
run_fl faults no-such-program-here
expect_eq "$rc" 2 "faults no-such-program-here: exit"
expect_line "^faultline faults: invalid duration 'no-such-program-here' \\(see 'faultline faults -h'\\)$" "$T/err"

# faultline help TOOL is TOOL -h; --version after a command.
for t in leak heap report features; do
	run_fl "$t" -h
	cp "$T/out" "$T/h1"
	run_fl help "$t"
	expect_eq "$rc" 0 "help $t: exit"
	cmp -s "$T/h1" "$T/out" || fail "help $t differs from $t -h"
	run_fl "$t" --version
	expect_eq "$rc" 0 "$t --version: exit"
	expect_line '^faultline [0-9]+\.[0-9]+' "$T/out"
done
run_fl help no-such-command
expect_eq "$rc" 2 "help no-such-command: exit"
expect_eq "$(cat "$T/err")" "faultline: 'no-such-command' is not a faultline command (see 'faultline --help')" "help no-such-command: stderr"
pass_or_fail
