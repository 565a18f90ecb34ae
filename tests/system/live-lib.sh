# live-lib.sh: a terminal for the tests of the full-screen views
# (live-view.sh, live-tstp.sh), sourced after lib.sh: a tmux server of the
# test's own (skip, 77, without tmux or when it cannot start a session
# here), and the readers of a pane's screen.  A target run as
# `leak-target leaks` writes its truth to $T/truth.
#
#   tm ARGS...              tmux on the test's server
#   screen NAME [history]   the pane's screen in $T/NAME.screen
#   shows NAME REGEX        the screen has a line matching REGEX
#   row NAME N              bytes, blocks, growth, function of the Nth row
#   first_is NAME FUNC      the first row is FUNC's
#   intervals_zero NAME     no row grew in the last interval
#   alt_on NAME             1 in the alternate screen, 0 out of it
#   rows_exact NAME         the rows are the truth's (what differs in
#                           $T/NAME.diff)
command -v tmux >/dev/null 2>&1 || skip "no tmux: the live view needs a terminal to be tested on"

# A server of the test's own (its socket in $T), without the user's
# configuration, killed at exit; never holding the suite's lock (fd 9).
SOCK=$T/tmux.sock
tm() { tmux -S "$SOCK" "$@" 9>&-; }
# The test's status passed on to _fl_exit, whatever kill-server's.
at_exit 'tm kill-server 2>/dev/null'
tm -f /dev/null new-session -d -s probe -x 80 -y 10 'sleep 600' 2>"$T/tmux.err" ||
	skip "tmux cannot start a session here: $(head -n 1 "$T/tmux.err")"
tm kill-session -t probe

# screen NAME [history]: the pane's screen (with its history) in $T/NAME.screen.
screen() {
	if [ "${2:-}" = history ]; then
		tm capture-pane -p -J -S - -t "$1" >"$T/$1.screen"
	else
		tm capture-pane -p -J -t "$1" >"$T/$1.screen"
	fi
}
# shows NAME REGEX: the screen has a line matching REGEX.
shows() { screen "$1" && grep -Eq -- "$2" "$T/$1.screen"; }
# row NAME N: the bytes, blocks, growth and function (the first frame
# without its offset) of the screen's Nth row of stacks.
row() { screen "$1" && awk -v n="$2" 'NR == 3 + n { sub(/\+0x[0-9a-f]+$/, "", $5); print $1, $2, $3, $5 }' "$T/$1.screen"; }
first_is() { [ "$(row "$1" 1 | cut -d' ' -f4)" = "$2" ]; }
intervals_zero() { screen "$1" && awk 'NR > 3 && NF >= 5 && $4 != "+0" { bad = 1 } END { exit bad }' "$T/$1.screen"; }
alt_on() { tm display-message -p -t "$1" '#{alternate_on}'; }

# rows_exact NAME: every site of the truth shows its bytes, its blocks and
# a growth of all its bytes; the DTVs 1088 bytes in 4 blocks; the header's
# totals are the rows'.  Says what differs in $T/NAME.diff.
rows_exact() {
	screen "$1"
	awk '
	FNR == NR {
		if ($1 == "site") {
			split($2, fn, "="); split($3, b, "="); split($4, c, "=")
			want[fn[2]] = b[2] " " c[2] " +" b[2]
		}
		next
	}
	# thousands separators (lib/numfmt), as the header writes its totals
	function sep(n,   s) {
		s = n ""
		while (s ~ /[0-9][0-9][0-9][0-9]/)
			sub(/[0-9][0-9][0-9]($|,)/, ",&", s)
		return s
	}
	FNR == 1 { head = $0; next }
	FNR > 3 && NF >= 5 {
		if ($5 !~ /^[A-Za-z_][A-Za-z_0-9.]*\+0x[0-9a-f]+$/ || $6 !~ /^\[.+\]$/)
			{ print "not func+0xOFF [module]: " $0; bad = 1 }
		fn1 = $5
		sub(/\+0x[0-9a-f]+$/, "", fn1)
		got[fn1] = $1 " " $2 " " $3; bytes += $1; blocks += $2; rows++
	}
	END {
		for (f in want)
			if (got[f] != want[f]) { print f ": want " want[f] ", got " got[f]; bad = 1 }
		split(got["allocate_dtv"], d, " ")
		if (d[1] != 1088 || d[2] != 4) { print "allocate_dtv: want 1088 4, got " got["allocate_dtv"]; bad = 1 }
		t = sep(bytes) " B( \\([^)]*\\))? in " sep(blocks) " blocks, " sep(rows) " stacks;"
		if (head !~ t) { print "header: want " t " in: " head; bad = 1 }
		exit bad
	}' "$T/truth" "$T/$1.screen" >"$T/$1.diff"
}
