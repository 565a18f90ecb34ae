#!/bin/sh
# status-line.sh: a tracing tool whose stderr is a terminal keeps one status
# line there (src/cmd/status.c): elapsed time, events a second, lost events
# and the tool's headline, redrawn at most 4 times a second, erased before
# anything else is written to the terminal and before the report; nothing
# of it with --quiet, or when stderr is a file or a pipe.
#
# The terminal is a pseudo-terminal of util-linux script(1) (script -qfec
# CMD /dev/null), whose output, every byte faultline wrote to it, is the
# transcript checked here.  Deterministic: each target waits on FIFOs the
# test opens once the status line shows what it must.
#  - leak -p on malloc-churn, a report every second, stdout and stderr the
#    same terminal: the line shows "0 B outstanding in 0 allocations"
#    before the target's loop, then exactly the bytes and blocks the target
#    says it kept (the bytes in numfmt's short form, "10.66 KiB", the counts
#    with thousands separators), before the test lets it exit; each report is written
#    after the line was erased, the last one after its last erase.
#  - heap -p, stdout to a file: the same figures and its 20,000 calls; the
#    report in the file holds nothing of the line.
#  - faults -p on touch-pages: at least its 64 faults shown before it
#    exits, and no more than the report counts.
#  - In every transcript: each draw is "\r", clear to the end of the line,
#    the line; whatever follows a draw on the terminal starts with that
#    erase; no event lost; the elapsed time never goes back; and the draws
#    are at most 4 a second of the run, as the test measures it: draws <=
#    4 * ceil(seconds) + 1, and at most 4 bear the same elapsed second.
#    (malloc-churn's loop of 20000 pairs makes the session's rounds come
#    fast: with no bound the line was drawn 1739 times in its second 0:01.)
#  - faults --quiet on the terminal, faults -- CMD (the command writes to
#    the same terminal, out of faultline's reach), faults with stderr to a
#    file, and with stderr a pipe: the banner, and nothing of the line.
. "$top_srcdir/tests/system/lib.sh"
need_root
command -v script >/dev/null 2>&1 || skip "no script(1) (util-linux) to give faultline a terminal"
command -v python3 >/dev/null 2>&1 || skip "no python3 to read the transcripts"
MC=$(target malloc-churn)
TP=$(target touch-pages)

# on_tty NAME LINE: run the shell LINE on a pseudo-terminal (TERM=xterm,
# 200 columns: no line cut, test-status checks the cuts), its transcript in
# $T/NAME.out, the pid in $spawned and $tty_t0 the time it started (ns).
on_tty() {
	tty_t0=$(date +%s%N)
	spawn "$1" sh -c 'exec env TERM=xterm SHELL=/bin/sh script -qfec "$1" /dev/null </dev/null' \
		sh "stty cols 200 && $2"
}

# tty_done PID WHAT: wait for the run on the terminal to end; its status in
# $rc, its length in $tty_ns (measured from on_tty, so at least the run's).
tty_done() {
	wait_exit "$1" "$2"
	tty_ns=$(($(date +%s%N) - tty_t0))
}

# The headline figure FIELD ("faults") of the last draw in transcript FILE,
# its thousands separators stripped, or nothing.
last_figure() {
	tr '\r' '\n' <"$1" | grep -ao "; [0-9,]* $2" | tail -n 1 | tr -dc '0-9'
}

# The last headline drawn in transcript FILE, or nothing.
last_headline() {
	tr '\r' '\n' <"$1" | grep -ao '; [^;]*$' | tail -n 1 | tr -d '\033'
}

# short_of BYTES: numfmt's short form ("512 B", "10.66 KiB": two decimals,
# IEC units, the unit chosen on the rounded figure); count_of N: "20,000".
short_of() {
	python3 -c 'import sys
v = int(sys.argv[1]); u = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
if v < 1024:
    print("%d B" % v); sys.exit()
x, i = v / 1024.0, 0
while i + 1 < len(u) and x >= 1024.0 - 0.005:
    x, i = x / 1024.0, i + 1
print("%.2f %s" % (x, u[i]))' "$1"
}
count_of() { python3 -c 'import sys; print("{:,}".format(int(sys.argv[1])))' "$1"; }

# check_transcript NAME RUN_NS REPORT_MARK HEADLINE...: the transcript's
# draws (see above), each HEADLINE among their headlines in that order, and
# with REPORT_MARK (not "") the report from that text on, after the last
# erase.
check_transcript() {
	python3 - "$T/$1.out" "$@" <<'PY' || fail "$1: the status line on the terminal"
import math, re, sys
path, name, run_ns, mark, *heads = sys.argv[1:]
tty = open(path, "rb").read()
ERASE = b"\r\x1b[K"
draw = re.compile(rb"\r\x1b\[K(\[(\d+):(\d\d)(?::(\d\d))?\] ([\d,]+) events/s, ([\d,]+) lost"
                  rb"(?:; ([^\r\n\x1b]*))?)")
draws = list(draw.finditer(tty))
bad = []
if not draws:
    sys.exit("%s: no status line in the transcript" % name)
secs = int(run_ns) / 1e9
bound = 4 * math.ceil(secs) + 1
print("RESULT status-line %s: %d draws in %.2f s (at most %d)" % (name, len(draws), secs, bound))
if len(draws) > bound:
    bad.append("%d draws in %.2f s: more than 4 a second" % (len(draws), secs))
if tty.count(b"events/s") != len(draws):
    bad.append("'events/s' %d times, %d draws" % (tty.count(b"events/s"), len(draws)))
prev = -1
per_sec = {}
for d in draws:
    h, m, s2 = d.group(2), d.group(3), d.group(4)
    t = int(h) * 3600 + int(m) * 60 + int(s2) if s2 else int(h) * 60 + int(m)
    if t < prev:
        bad.append("elapsed time went back: %r" % d.group(1))
    prev = t
    per_sec[t] = per_sec.get(t, 0) + 1
    if d.group(6) != b"0":
        bad.append("events lost: %r" % d.group(1))
    if tty[d.end():d.end() + len(ERASE)] != ERASE:
        bad.append("%r followed by %r, not the erase" % (d.group(1), tty[d.end():d.end() + 40]))
# Looks 1/4 s apart: at most 4 in any second the line itself names.
busiest = max(per_sec.items(), key=lambda kv: kv[1])
if busiest[1] > 4:
    bad.append("%d draws in its second %d" % (busiest[1], busiest[0]))
got = [(d.group(7) or b"").decode() for d in draws]
i = 0
for h in heads:
    while i < len(got) and got[i] != h:
        i += 1
    if i == len(got):
        bad.append("no headline %r (in order); shown: %s" % (h, sorted(set(got))))
        break
if mark:
    at = tty.rfind(mark.encode())
    last = draws[-1].end() + len(ERASE)
    if at < 0:
        bad.append("no %r: the report is not on the terminal" % mark)
    elif at < last:
        bad.append("the report begins at byte %d, the line's last erase ends at %d" % (at, last))
for b in bad:
    print("%s: %s" % (name, b))
sys.exit(1 if bad else 0)
PY
	return 0
}

# nothing_of_it FILE WHAT: FILE holds nothing of the status line: no draw,
# no erase (an escape; a terminal's transcript has "\r" before each "\n").
nothing_of_it() {
	if grep -aq 'events/s' "$1" || grep -aq "$(printf '\033')" "$1"; then
		fail "$2: the status line (or its erase) in ${1#"$T"/}: $(tr '\r\033' '^[' <"$1" | tail -c 300)"
	fi
	return 0
}

# churn_on_tty NAME TOOL ARGS: malloc-churn's loop (20000 pairs, every
# 100th block kept) traced by `faultline TOOL -p PID ARGS` on a terminal
# (ARGS may redirect its stdout): the line must show no allocation before
# the loop, and exactly the blocks the target kept once it is done
# ($churn_head, followed by HEADLINE_REST: a regex), before the target is
# let go.  The target's account in $T/NAME-mc.out; the run's status in $rc.
churn_on_tty() {
	local name=$1 tool=$2 args=$3 rest=$4 run mc
	go_fifo "$name-go"
	go_fifo "$name-end"
	spawn_at_fifo "$name-mc" "$MC" --count 20000 --keep 100 --go "$T/$name-go.fifo" \
		--end "$T/$name-end.fifo"
	mc=$spawned
	on_tty "$name" "'$FAULTLINE' $tool --call-graph fp --pause -p $mc $args"
	run=$spawned
	wait_until "$FL_READY_TIMEOUT" grep -aq '; 0 B outstanding in 0 allocations' "$T/$name.out" ||
		fail "$name: no status line before the target's loop: $(tail -c 300 "$T/$name.out")"
	release "$T/$name-go.fifo"
	wait_until "$FL_READY_TIMEOUT" grep -q '^pid=' "$T/$name-mc.out" ||
		fail "$name: malloc-churn never finished its loop"
	churn_kept=$(sed -n 's/^kept=//p' "$T/$name-mc.out")
	churn_bytes=$(sed -n 's/^kept_bytes=//p' "$T/$name-mc.out")
	churn_head="$(short_of "$churn_bytes") outstanding in $(count_of "$churn_kept") allocations"
	wait_until "$FL_READY_TIMEOUT" grep -aq "; $churn_head$rest" "$T/$name.out" ||
		fail "$name: the status line never showed '$churn_head$rest'" \
			"(last: '$(last_headline "$T/$name.out")')"
	release "$T/$name-end.fifo"
	tty_done "$run" "$name on a terminal"
}

# ---- leak -p, a report every second, stdout and stderr the same terminal ----
churn_on_tty leak leak 1 ""
expect_eq "$rc" 0 "leak -p on a terminal: status"
# The reports of each second came while the line was up: each after its
# erase; the last report after the line's last erase.
check_transcript leak "$tty_ns" "Top 10 stacks with outstanding allocations" \
	"0 B outstanding in 0 allocations" "$churn_head"
expect_line "^	$churn_bytes bytes in $churn_kept allocations from stack" "$T/leak.out"

# ---- heap -p, stdout to a file ----
churn_on_tty heap heap ">'$T/heap.report'" ", peak [0-9.]* [KMGTPE]*i*B, 20,000 calls"
expect_eq "$rc" 0 "heap -p on a terminal: status"
check_transcript heap "$tty_ns" "" "0 B outstanding in 0 allocations, peak 0 B, 0 calls"
expect_line "^MOST CALLS TO ALLOCATION FUNCTIONS" "$T/heap.report"
nothing_of_it "$T/heap.report" "heap's report"

# ---- faults: --quiet, stderr to a file, stderr a pipe; then the line ----
go_fifo tgo
tgo=$fifo
go_fifo tend
tend=$fifo
spawn_at_fifo tp "$TP" --pages 64 --go "$tgo" --end "$tend"
tp=$spawned
on_tty quiet "'$FAULTLINE' faults --quiet -p $tp 1 >/dev/null"
tty_done "$spawned" "faults --quiet on a terminal"
expect_eq "$rc" 0 "faults --quiet on a terminal: status"
expect_line "Hit Ctrl-C to end" "$T/quiet.out"
nothing_of_it "$T/quiet.out" "faults --quiet"
on_tty command "'$FAULTLINE' faults -- true"
tty_done "$spawned" "faults -- CMD on a terminal"
expect_eq "$rc" 0 "faults -- CMD on a terminal: status"
expect_line "^Executing 'true'" "$T/command.out"
nothing_of_it "$T/command.out" "faults -- CMD (its output shares the terminal)"
on_tty errfile "'$FAULTLINE' faults -p $tp 1 2>'$T/errfile.err2'"
tty_done "$spawned" "faults, stderr to a file"
expect_eq "$rc" 0 "faults, stderr to a file: status"
expect_line "Hit Ctrl-C to end" "$T/errfile.err2"
nothing_of_it "$T/errfile.err2" "faults, stderr to a file"
nothing_of_it "$T/errfile.out" "faults, stderr to a file (the terminal)"
run_fl faults -p "$tp" 1
expect_eq "$rc" 0 "faults, stderr a pipe: status"
expect_line "Hit Ctrl-C to end" "$T/err"
nothing_of_it "$T/err" "faults, stderr a pipe"

on_tty faults "'$FAULTLINE' faults --json -p $tp >'$T/faults.report'"
faults=$spawned
wait_until "$FL_READY_TIMEOUT" grep -aq '; 0 faults, 0 major' "$T/faults.out" ||
	fail "faults: no status line before the target's touches: $(tail -c 300 "$T/faults.out")"
release "$tgo"
wait_until "$FL_READY_TIMEOUT" grep -q '^pid=' "$T/tp.out" || fail "touch-pages never finished"
at_least_64() { [ "$(last_figure "$T/faults.out" faults)" -ge 64 ] 2>/dev/null; }
wait_until "$FL_READY_TIMEOUT" at_least_64 ||
	fail "faults: the status line never showed touch-pages' 64 faults (last: $(last_figure "$T/faults.out" faults))"
shown=$(last_figure "$T/faults.out" faults)
release "$tend"
tty_done "$faults" "faults -p on a terminal"
expect_eq "$rc" 0 "faults -p on a terminal: status"
check_transcript faults "$tty_ns" "" "0 faults, 0 major"
counted=$(sed -n "s/^{\"type\":\"process\",\"pid\":$tp,.*\"faults\":\([0-9]*\),.*/\1/p" "$T/faults.report")
[ "${counted:-0}" -ge "${shown:-1}" ] ||
	fail "faults: the report counts ${counted:-no} faults of pid $tp, the line showed ${shown:-none}"
nothing_of_it "$T/faults.report" "faults' report"
pass_or_fail
