#!/bin/sh
# help-options.sh: a tool's -h never offers a shared option its parser
# refuses.  For every tracing command, each shared option (tool-opts.c's
# rows: -p, -c, -a, --json, -m, --call-graph, --unwinder, --srcline) listed in
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
# help CMD` prints CMD -h (version.sh: `faultline CMD --version`).
. "$top_srcdir/tests/system/lib.sh"

tools="leak heap flamegraph faults ffaults hfaults goalloc brk mmap reclaim swapin cache pressure oom cachetop shm slab compact numa record"
checked=0
for t in $tools; do
	run_fl "$t" -h
	expect_eq "$rc" 0 "$t -h: exit"
	cp "$T/out" "$T/$t.help"
	# option, its value, the help entry that offers it
	for spec in "-p|1|-p, --pid PID " "-c|true|-c, --command CMD " "-a||-a, --all-cpus " "--json||--json " \
		"-m|64|-m, --mmap-pages PAGES" "--call-graph|fp|--call-graph " "--unwinder|libdw|--unwinder " \
		"--srcline||--srcline "; do
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
		cache/-p) ;;	# listed as refused, naming cachetop -p
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
grep -q -F -- "  -a, --all-cpus " "$T/heap.help" && fail "heap -h offers -a"
grep -q -F -- "  -a, --all-cpus " "$T/flamegraph.help" && fail "flamegraph -h offers -a"
grep -q -F -- "  --json " "$T/flamegraph.help" && fail "flamegraph -h offers --json"
# The entries are found: the shared ones of a tool that takes them all.
for e in "-p, --pid PID" "-c, --command CMD" "-a, --all-cpus" "--json " "-m, --mmap-pages PAGES" \
	"--call-graph " "--unwinder " "--srcline "; do
	grep -q -F -- "  $e" "$T/brk.help" || fail "brk -h lacks '$e'"
done
grep -q -F -- "  -a, --show-allocs" "$T/leak.help" || fail "leak -h lost its own -a"
# A program where a number goes (valgrind's, heaptrack's and memray's
# habit): how to run it, in one line, exit 2, the words after it its
# arguments and the options before it kept; a word that names no program,
# or a tool that runs none, keeps the plain error.
# hint LINE ARGS...: `faultline ARGS` exits 2 with exactly LINE on stderr.
hint() {
	want=$1
	shift
	run_fl "$@"
	expect_eq "$rc" 2 "faultline $*: exit"
	expect_eq "$(cat "$T/err")" "$want" "faultline $*: stderr"
}
hint "faultline leak: 'ls' is not an interval; to run a program: faultline leak -- ls" leak ls
hint "faultline heap: '/bin/ls' is not a duration; to run a program: faultline heap -- /bin/ls" heap /bin/ls
hint "faultline leak: 'ls' is not an interval; to run a program: faultline leak -t -- ls -l /tmp" \
	leak -t ls -l /tmp
# Options in any order (shm): the program's own are not faultline's.
hint "faultline shm: 'ls' is not a duration; to run a program: faultline shm -T -- ls -l" shm -T ls -l
hint "faultline swapin: 'ls' is not a count; to run a program: faultline swapin 1 -- ls" swapin 1 ls
hint "faultline flamegraph: 'ls' is not a duration; to run a program: faultline flamegraph -o x.html -- ls" \
	flamegraph -o x.html ls
hint "faultline record: 'ls' is not a duration; to run a program: faultline record -- ls" record ls
# A path with a space (and a quote), its arguments shell-quoted.
mkdir -p "$T/a b"
cp /bin/true "$T/a b/it's"
hint "faultline heap: '$T/a b/it's' is not a duration; to run a program: faultline heap -- '$T/a b/it'\\''s' 'x y' '\$HOME'" \
	heap "$T/a b/it's" "x y" '$HOME'
# A program in this directory, typed without its "./".
mkdir "$T/bin"
cp /bin/true "$T/bin/myprog"
here=$PWD
cd "$T/bin" || fail "cd $T/bin"
hint "faultline leak: 'myprog' is not an interval; to run a program: faultline leak -- ./myprog" leak myprog
cd "$here" || fail "cd $here"
# Arguments no line can show: "...", the line still one.
hint "faultline leak: 'ls' is not an interval; to run a program: faultline leak -- ls ..." leak ls "a
b"
# Not a program: the plain error, unchanged.
hint "faultline faults: invalid duration 'no-such-program-here' (see 'faultline faults -h')" \
	faults no-such-program-here
hint "faultline leak: invalid interval 'foo' (see 'faultline leak -h')" leak foo
hint "faultline heap: invalid duration '/tmp' (see 'faultline heap -h')" heap /tmp
hint "faultline heap: unexpected argument 'ls' (see 'faultline heap -h')" heap 5 ls
# A program named with a newline: no line can show it.
cp /bin/true "$T/a
b"
run_fl heap "$T/a
b"
expect_eq "$rc" 2 "heap (a name with a newline): exit"
expect_no_line 'to run a program' "$T/err"
# An option's value is no place for a program; a tool that runs none
# (cache, oom live) or that has its target (-p) is not told to run one.
hint "faultline slab: invalid row count 'ls' (see 'faultline slab -h')" slab -r ls
hint "faultline reclaim: invalid interval 'ls' (see 'faultline reclaim -h')" reclaim -i ls
hint "faultline cache: invalid interval 'ls' (see 'faultline cache -h')" cache ls
hint "faultline oom: invalid duration 'ls' (see 'faultline oom -h')" oom ls
hint "faultline leak: invalid interval 'ls' (see 'faultline leak -h')" leak -p 1 ls

# faultline help CMD prints exactly what CMD -h does, for every command of
# the table (as --help lists it); help report SUB what report SUB -h does,
# with no recording.
# same_help NAME ARGS...: `faultline help ARGS` = `faultline ARGS -h`.
same_help() {
	run_fl "$@" -h
	expect_eq "$rc" 0 "$* -h: exit"
	cp "$T/out" "$T/h1"
	[ -s "$T/h1" ] || fail "$* -h printed nothing"
	head -n 1 "$T/h1" | grep -q '^usage: faultline ' || fail "$* -h: no usage line"
	run_fl help "$@"
	expect_eq "$rc" 0 "help $*: exit"
	cmp -s "$T/h1" "$T/out" || fail "help $* differs from $* -h"
	[ -s "$T/err" ] && fail "help $* wrote to stderr: $(cat "$T/err")"
}
"$FAULTLINE" --help >"$T/global" || fail "--help: exit $?"
commands=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' "$T/global")
[ "$(echo "$commands" | wc -l)" -ge 20 ] || fail "--help lists too few commands: $commands"
for c in $commands; do
	same_help "$c"
	cmp -s "$T/global" "$T/out" && fail "help $c prints the global help"
done
for sub in timeline diff pprof leak heap flamegraph faults; do
	same_help report "$sub"
done
run_fl help no-such-command
expect_eq "$rc" 2 "help no-such-command: exit"
expect_eq "$(cat "$T/err")" "faultline: 'no-such-command' is not a faultline command (see 'faultline --help')" "help no-such-command: stderr"
run_fl help leak 5
expect_eq "$rc" 2 "help leak 5: exit"
expect_eq "$(cat "$T/err")" "faultline help: unexpected argument '5' (a command, or report and a subcommand of it)" "help leak 5: stderr"
pass_or_fail
