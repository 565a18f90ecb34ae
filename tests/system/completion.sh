#!/bin/sh
# Bash completion (completion/faultline), driven as bash drives it: the file
# sourced in a bash, COMP_WORDS and COMP_CWORD set, _faultline called,
# COMPREPLY read.  Commands, options (each command's -h options parsed
# here another way, and each spelling of its --list-opts table, must all be
# offered), option values (PIDs, files,
# alternatives), report -i FILE's tools and their options, record -e's
# comma list, and "--" followed by a command.  No root needed.
. "$top_srcdir/tests/system/lib.sh"
command -v bash >/dev/null 2>&1 || skip "no bash"
COMPLETION=$top_srcdir/completion/faultline
touch "$T/rec.one" "$T/rec.two"

# comp WORD...: the completions of the last WORD, one a line, sorted, in
# $T/comp (the first word is faultline itself).
comp() {
	bash -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_faultline
		printf "%s\n" "${COMPREPLY[@]}"' bash "$COMPLETION" "$FAULTLINE" "$@" |
		sed '/^$/d' | sort >"$T/comp"
}

expect_comp() {	# WANT (space-separated) WORD...
	local want=$1
	shift
	comp "$@"
	printf '%s\n' $want | sort >"$T/want"
	cmp -s "$T/comp" "$T/want" ||
		fail "completing 'faultline $*': got '$(tr '\n' ' ' <"$T/comp")', expected '$want'"
	return 0
}

has_comp() {	# WORD-WANTED WORD...
	local w=$1
	shift
	comp "$@"
	grep -qxF -- "$w" "$T/comp" || fail "completing 'faultline $*': '$w' not offered"
	return 0
}

lacks_comp() {	# WORD-NOT-WANTED WORD...
	local w=$1
	shift
	comp "$@"
	grep -qxF -- "$w" "$T/comp" && fail "completing 'faultline $*': '$w' offered"
	return 0
}

# Registered for faultline.
rc=0
bash -c '. "$1" && complete -p faultline' bash "$COMPLETION" >"$T/complete" 2>&1 || rc=$?
expect_eq "$rc" 0 "complete -p faultline after sourcing"
expect_line '-F _faultline faultline$' "$T/complete"

# Commands: those of --help, and --help, --version.
cmds=$("$FAULTLINE" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ -n "$cmds" ] || fail "faultline --help lists no commands"
expect_comp "$cmds --help --version" ""
expect_comp "leak" le
expect_comp "cache cachetop" cac

# Options: every option in the first column of a command's -h is offered.
for c in $cmds; do
	comp "$c" -
	"$FAULTLINE" "$c" -h 2>/dev/null | grep -E '^ {1,4}-' | sed 's/  *[^ -][^ ]*  .*//' |
		grep -oE '(^|[ ,])--?[A-Za-z][-A-Za-z0-9]*' | tr -d ' ,' | sort -u >"$T/opts"
	while IFS= read -r o; do
		grep -qxF -- "$o" "$T/comp" || fail "completing 'faultline $c -': '$o' of its -h not offered"
	done <"$T/opts"
done
expect_comp "--sample-rate --show-allocs --snapshot-every --sort --srcline --stack-storage-size --symbols-prefix" leak --s
expect_comp "-n --dry-run -h --help" cleanup -
# Named in a description only (--precursors': "as oom --timeline"): not
# an option of report timeline.
lacks_comp --timeline report -i "$T/rec.one" timeline -
# Every spelling of a command's table (--list-opts) is offered.
"$FAULTLINE" leak --list-opts | cut -f1 | tr ',' '\n' | grep -vx -- -- >"$T/leak.opts"
[ "$(wc -l <"$T/leak.opts")" -ge 30 ] || fail "leak --list-opts: too few options"
comp leak -
while IFS= read -r o; do
	grep -qxF -- "$o" "$T/comp" || fail "completing 'faultline leak -': '$o' of its table not offered"
done <"$T/leak.opts"

# Values, by the placeholder or the alternatives in -h.
has_comp "$$" leak -p "$$"
comp leak -p ""
grep -qv '^[0-9][0-9]*$' "$T/comp" && fail "completing 'faultline leak -p': not only pids"
expect_comp "size count" leak --sort ""
expect_comp "dwarf fp" faults --call-graph ""
expect_comp "libdw libunwind" brk --unwinder lib
expect_comp "$T/rec.one $T/rec.two" report -i "$T/rec"
expect_comp "$T/rec.one $T/rec.two" record -o "$T/rec"

# report -i FILE: its tools and reports, then that tool's options.
for w in leak faults cache script timeline pprof info; do
	has_comp "$w" report -i "$T/rec.one" ""
done
for w in report record features cleanup hfaults; do
	lacks_comp "$w" report -i "$T/rec.one" ""
done
expect_comp "--sort" report -i "$T/rec.one" leak --so
has_comp --interval report -i "$T/rec.one" timeline -
lacks_comp -i report -i "$T/rec.one" timeline -
has_comp --faults report -i "$T/rec.one" pprof -
expect_comp "$T/rec.one $T/rec.two" report -i "$T/rec.one" pprof -o "$T/rec"

# record -e: a comma list of the tools its help names.
expect_comp "leak,faults" record -e leak,f
lacks_comp hfaults record -e ""

# "--": a command, then files.
has_comp sh brk -- s
expect_comp "$T/rec.one $T/rec.two" brk -- sh "$T/rec"
pass_or_fail
