# Shared shell library of faultline's system tests.
#
# Sourced (". "$top_srcdir/tests/system/lib.sh"") by every tests/system/*.sh,
# which automake's harness runs with /bin/sh (dash on Debian and Ubuntu), so
# this file is plain POSIX sh plus `local`, and is safe under `set -eu`.
# Environment from Makefile.am: FAULTLINE, top_srcdir, top_builddir,
# FAULTLINE_PROBES_DIR. Exit status: 0 pass, 1 fail, 77 skip.
#
# Sourcing it creates a per-test temp dir $T and an EXIT trap which stops the
# processes the test started with `spawn`, checks that no faultline probe
# group of a dead process is left in tracefs (a leftover uprobe keeps firing
# in every process that maps the library, so a leak is a test failure
# wherever it happens), prints the temp files on failure and removes $T.
#
# API:
#   need_root                  skip (77) unless uid 0
#   skip MSG                   skip (77) with a reason
#   fail MSG                   record a failure and go on
#   pass_or_fail               end of test: exit 0, or 1 after any fail
#   tracing_dir                print the tracefs directory (status 1: none)
#   faultline_probes           lines of faultline probe groups in tracefs
#   assert_no_probes_of PID    fail if group faultline_PID exists
#   assert_no_stale_probes     fail if a group of a faultline this test ran
#                              (faultline_PID, PID in $T/.fl-pids) is left
#                              by a process that is gone
#   fl_wrap BINARY [CMD...]    make $FAULTLINE a wrapper of BINARY that
#                              logs each run's pid (done at start for the
#                              build's binary; $FAULTLINE_BIN is the real
#                              file, for readelf, cp and non-root runs);
#                              with CMD, BINARY runs under it (CMD ARG...
#                              BINARY ARGS: a CMD that execs keeps the pid)
#   run_fl ARGS...             run "$FAULTLINE" ARGS, stdout in $T/out,
#                              stderr in $T/err, status in $rc (a run is
#                              killed after $FL_TIMEOUT seconds, default 120)
#   spawn NAME CMD...          start CMD in the background, output in
#                              $T/NAME.out and $T/NAME.err, pid in $spawned;
#                              stopped (TERM, then KILL) at exit
#   wait_until SECS CMD...     poll CMD every 0.1 s; status 1 on timeout
#                              (a safety net around a handshake, never the
#                              synchronisation itself: see below)
#   go_fifo NAME               make the FIFO $T/NAME.fifo, its path in $fifo
#   fifo_unblock FIFO          release a process waiting in FIFO's open
#   spawn_at_fifo NAME CMD...  spawn, then wait until CMD is blocked opening
#                              its --go (or --end) FIFO: its start-up (the
#                              loader's mmaps, work before --go) is over
#   release FIFO               let a target blocked on --go/--end FIFO go on
#                              (fail if none opens it in $FL_READY_TIMEOUT s)
#   wait_ready FILE WHAT       wait for faultline's ready line in FILE (its
#                              stderr); fail after $FL_READY_TIMEOUT s
#   run_fl_go FIFO ARGS...     run_fl ARGS, releasing FIFO once faultline's
#                              ready line is on its stderr
#   wait_exit PID WHAT         wait for spawned PID to end (fail and kill it
#                              after $FL_TIMEOUT s), its status in $rc
#   expect_eq ACTUAL EXPECTED WHAT
#   expect_line REGEX FILE     an extended regex matches a line of FILE
#   expect_no_line REGEX FILE
#   expect_stopped SIG TOOL FILE WHAT
#                              a run of TOOL ended by signal SIG (INT,
#                              TERM...): $rc is 128 + its number and FILE
#                              (its stderr) says "faultline TOOL: stopped
#                              by SIGSIG"
#   expect_json_lines FILE     every non-empty line is a JSON object
#   target NAME                print $top_builddir/tests/targets/NAME
#   block_backed_dir           set $block_dir to a directory on a block-
#                              backed file system ($T, else the build tree;
#                              tmpfs pages never leave the page cache), or
#                              skip
#   within VALUE EXPECTED PCT  |VALUE - EXPECTED| <= EXPECTED * PCT / 100
#   leak_nums FILE KEY...      numbers of leak --json's summaries (below)
#   leak_total FILE LABEL      "BYTES COUNT" of leak's text totals line
#                              LABEL (below), the raw integers
#   report_pprof REC OUT WHAT  run_fl report -i REC pprof -o OUT: skip when
#                              faultline has no pprof output, else its
#                              status 0 (WHAT names it)
#   hold_through_loop FL GO OUT
#                              hold faultline FL's reader (its main thread,
#                              in a ptrace stop: tests/targets/hold-thread)
#                              while a malloc-churn it runs goes through its
#                              loop: release GO (its --go FIFO), wait for
#                              its account's last line (pid=) in OUT, let
#                              the reader go; status in $rc, hold-thread's
#                              stderr in $T/hold.err
#   busy_opts                  options for a run that must lose no event
#                              on a busy real program: none in the normal
#                              build; in the sanitizer build (FL_SANITIZED=1),
#                              whose reader ASan and UBSan slow three-fold,
#                              a 256 MiB ring per CPU (-m 65536): it holds
#                              every sample of these runs (perl's hash.pl:
#                              ~28,000 DWARF samples of ~8.3 KB), so what is
#                              compared there is the report, not the reader's
#                              speed beside a CPU hog (with 64 MiB the live
#                              heap of hash.pl lost 4,818 events so)

: "${top_srcdir:?top_srcdir must be set (run through make check)}"
if [ -z "${top_builddir:-}" ]; then
	# Run by hand from the source tree: prefer the scripts/check build.
	if [ -x "$top_srcdir/build/faultline" ]; then
		top_builddir=$top_srcdir/build
	else
		top_builddir=$top_srcdir
	fi
fi
: "${FAULTLINE:=$top_builddir/faultline}"
: "${FAULTLINE_PROBES_DIR:=$top_srcdir/probes}"
: "${FL_TIMEOUT:=120}"
# How long a handshake may take on a loaded machine before the test fails.
: "${FL_READY_TIMEOUT:=60}"
# The line every faultline tool prints on stderr once its events are
# enabled (the session's ready hook): "Tracing ... Hit Ctrl-C to end.",
# "Counting swap ins of ... Ctrl-C to end.".  -c runs print "Executing"
# instead, but a -c command is held by faultline until tracing is on.
FL_READY='Ctrl-C to end\.$'
export top_srcdir top_builddir FAULTLINE FAULTLINE_PROBES_DIR

fl_test=${0##*/}
_fl_failed=0
_fl_msgs=
_fl_spawned=
rc=0
spawned=
# tracefs-clean.sh clears it: its own check is stricter.
fl_exit_probe_check=1
fl_suite_pids=$top_builddir/tests/system/faultline-pids.log
_fl_self_cmdline=$(tr '\0' ' ' </proc/$$/cmdline)

T=$(mktemp -d "${TMPDIR:-/tmp}/faultline-${fl_test%.sh}.XXXXXX") || {
	echo "$fl_test: cannot create a temp dir" >&2
	exit 99
}

skip() {
	echo "SKIP: $fl_test: $*"
	exit 77
}

# The messages are repeated at exit, after the temp files, so that the end
# of the test's log (what scripts/check shows) names every failure.
fail() {
	echo "FAIL: $fl_test: $*"
	_fl_failed=1
	_fl_msgs="$_fl_msgs
FAIL: $fl_test: $*"
	return 0
}

pass_or_fail() {
	if [ "$_fl_failed" -ne 0 ]; then
		exit 1
	fi
	exit 0
}

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (tracefs and uprobes)"
}

# Same order as faultline itself (KERNEL-COMPAT.md, implication 2): a
# tracefs mount listed in /proc/mounts, then the two usual paths. An
# unmounted /sys/kernel/tracing is an empty directory, hence the file test.
# FL_TRACING_DIR overrides the search; it exists to test this file against a
# fake tree without touching the live kernel's probes.
tracing_dir() {
	local d
	if [ -n "${FL_TRACING_DIR:-}" ]; then
		echo "$FL_TRACING_DIR"
		return 0
	fi
	d=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts 2>/dev/null) || d=
	if [ -n "$d" ] && [ -e "$d/trace" ]; then
		echo "$d"
		return 0
	fi
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -e "$d/trace" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# Lines whose probe group starts with "faultline", from every file that
# lists dynamic events; dynamic_events repeats the other two, hence sort -u.
# Line format: "p:GROUP/EVENT TARGET ...", "r10:GROUP/EVENT ...".
faultline_probes() {
	local d f
	d=$(tracing_dir) || return 0
	for f in uprobe_events kprobe_events dynamic_events; do
		[ -r "$d/$f" ] && cat "$d/$f"
	done | grep -E '^[^ :]+:faultline' | sort -u
	return 0
}

# The distinct group names of faultline_probes.
_fl_groups() {
	faultline_probes | sed 's|^[^ :]*:\([^/ ]*\)/.*|\1|' | sort -u
}

assert_no_probes_of() {
	local g bad=
	for g in $(_fl_groups); do
		[ "$g" = "faultline_$1" ] && bad=1
	done
	if [ -n "$bad" ]; then
		fail "probes of faultline pid $1 left in tracefs:"
		faultline_probes | grep -F ":faultline_$1/" | sed 's/^/  /'
	fi
	return 0
}

# A test's probe groups are those of the faultline processes it ran (the
# pids fl_wrap's wrapper logged): the kernel is the whole machine's, and a
# faultline that another user, another test run or a killed session left
# behind is `faultline cleanup`'s business, not a failure of this test.  A
# logged pid that is a faultline again is a live one (pids wrap): left alone.
assert_no_stale_probes() {
	local g pid
	[ -s "$T/.fl-pids" ] || return 0
	for g in $(_fl_groups); do
		pid=${g#faultline_}
		case $pid in
		'' | *[!0-9]*) continue ;;
		esac
		grep -qx "$pid" "$T/.fl-pids" || continue
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = faultline ] && continue
		fail "stale faultline probe group '$g' left in tracefs:"
		faultline_probes | grep -F ":$g/" | sed 's/^/  /'
	done
	return 0
}

# A path as one single-quoted shell word (a ' in it closed, escaped, reopened).
_fl_sq() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# exec keeps the pid: the one logged is the faultline's, whatever runs it
# (timeout, setarch, env, unshare -m).
fl_wrap() {
	local a run=
	FAULTLINE_BIN=$1
	shift
	for a in "$@"; do
		run="$run$(_fl_sq "$a") "
	done
	mkdir -p "$T/.fl" || return 1
	{
		echo '#!/bin/sh'
		echo "echo \$\$ >>$(_fl_sq "$T/.fl-pids") 2>/dev/null"
		echo "exec $run$(_fl_sq "$FAULTLINE_BIN") \"\$@\""
	} >"$T/.fl/faultline" && chmod 755 "$T/.fl/faultline" || return 1
	FAULTLINE=$T/.fl/faultline
}

# What faultline says of the machine, not of the run: probe groups that
# other faultline processes left when they died (CI's host may hold one
# from before; removing them is `faultline cleanup`'s business, and this
# test's own are caught by assert_no_stale_probes).  A BRE.
FL_MACHINE_WARNING='^faultline [a-z-]*: warning: [0-9]* probe group(s) left by faultline processes that died'

# fl_set_aside FILE: FILE (a run's stderr) without the machine's warning,
# which goes to FILE.machine: a test counts and reads the run's lines.
fl_set_aside() {
	grep -q "$FL_MACHINE_WARNING" "$1" 2>/dev/null || return 0
	grep "$FL_MACHINE_WARNING" "$1" >>"$1.machine"
	grep -v "$FL_MACHINE_WARNING" "$1" >"$1.run"
	mv "$1.run" "$1"
}

run_fl() {
	echo "+ faultline $*"
	rc=0
	timeout -k 10 "$FL_TIMEOUT" "$FAULTLINE" "$@" >"$T/out" 2>"$T/err" 9>&- || rc=$?
	if [ "$rc" -eq 124 ]; then
		fail "'faultline $*' timed out after $FL_TIMEOUT s"
	fi
	fl_set_aside "$T/err"
	return 0
}

# Returns once the child has exec'd: until then it runs with this shell's
# signal traps, and a signal sent to it (by the test, or by the exit trap
# when the test ends early) would be swallowed. exec shows as a change of
# /proc/PID/cmdline; a child already gone has no cmdline to read.
spawn() {
	local name=$1 n=200 c
	shift
	"$@" >"$T/$name.out" 2>"$T/$name.err" 9>&- &
	spawned=$!
	_fl_spawned="$_fl_spawned $spawned"
	while [ "$n" -gt 0 ]; do
		c=$(tr '\0' ' ' 2>/dev/null <"/proc/$spawned/cmdline") || break
		[ -n "$c" ] && [ "$c" != "$_fl_self_cmdline" ] && break
		sleep 0.01
		n=$((n - 1))
	done
	return 0
}

wait_until() {
	local n
	n=$(($1 * 10))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# Handshakes.  A target given --go FIFO (truth.h) blocks before its
# measured work until the FIFO is opened for writing; --end FIFO holds it
# after the work the same way.  The test opens the FIFO once faultline has
# printed its ready line, however long that takes on a loaded machine:
# no sleep, no deadline decides what a test sees.
go_fifo() {
	fifo=$T/$1.fifo
	rm -f "$fifo"
	mkfifo "$fifo" || { echo "$fl_test: mkfifo $fifo failed" >&2; exit 99; }
}

# A process blocked opening a FIFO for reading waits in the kernel's
# wait_for_partner (fs/pipe.c, called from fifo_open).
_fl_at_fifo() {
	grep -q 'wait_for_partner\|fifo_open' "/proc/$1/stack" 2>/dev/null ||
		[ "$(cat "/proc/$1/wchan" 2>/dev/null)" = wait_for_partner ]
}

# fifo_unblock FIFO: let go whoever still waits in FIFO's open (a reader
# whose writer never came, or the reverse): an O_RDWR open never blocks
# and is both ends at once.  A no-op for nobody waiting.
fifo_unblock() {
	exec 9<>"$1" && exec 9>&-
}
spawn_at_fifo() {
	spawn "$@"
	wait_until "$FL_READY_TIMEOUT" _fl_at_fifo "$spawned" ||
		fail "$1 (pid $spawned) never blocked on its FIFO: $(cat "$T/$1.err" 2>/dev/null)"
	return 0
}

release() {
	timeout "$FL_READY_TIMEOUT" sh -c 'echo go >"$1"' sh "$1" 9>&- ||
		fail "nothing opened ${1#"$T"/} within $FL_READY_TIMEOUT s (the target is gone?)"
	return 0
}

wait_ready() {
	wait_until "$FL_READY_TIMEOUT" grep -Eq -- "$FL_READY" "$1" 2>/dev/null && return 0
	fail "$2: faultline not tracing after $FL_READY_TIMEOUT s: $(tail -n 3 "$1" 2>/dev/null)"
	return 1
}

# The releaser runs beside run_fl: once $T/err (truncated first, so that a
# previous run's line cannot count) has the ready line, it opens FIFO.
# Should the line never come, it releases the target all the same, so that
# the run ends, and the run is failed.
run_fl_go() {
	local f=$1 rel
	shift
	: >"$T/err"
	rm -f "$f.late"
	(
		trap - EXIT INT TERM HUP
		wait_until "$FL_READY_TIMEOUT" grep -Eq -- "$FL_READY" "$T/err" ||
			echo "faultline $* not tracing after $FL_READY_TIMEOUT s" >"$f.late"
		exec timeout "$FL_READY_TIMEOUT" sh -c 'echo go >"$1"' sh "$f"
	) 9>&- &
	rel=$!
	run_fl "$@"
	wait "$rel" || fail "faultline $*: the target never opened ${f#"$T"/}"
	[ -e "$f.late" ] && fail "$(cat "$f.late")"
	return 0
}

# A zombie is gone too: kill -0 would still find it.
_fl_gone() {
	[ -e "/proc/$1" ] || return 0
	grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

wait_exit() {
	if ! wait_until "$FL_TIMEOUT" _fl_gone "$1"; then
		fail "$2: pid $1 still running after $FL_TIMEOUT s; killed"
		kill -KILL "$1" 2>/dev/null
	fi
	rc=0
	wait "$1" || rc=$?
	return 0
}

expect_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
	return 0
}

expect_stopped() {
	expect_eq "$rc" $((128 + $(kill -l "$1"))) "$4: status after SIG$1"
	expect_line "^faultline $2: stopped by SIG$1\$" "$3"
}

expect_line() {
	if ! grep -Eq -- "$1" "$2" 2>/dev/null; then
		fail "no line matching '$1' in ${2#"$T"/}"
	fi
	return 0
}

expect_no_line() {
	if grep -Eq -- "$1" "$2" 2>/dev/null; then
		fail "unexpected line matching '$1' in ${2#"$T"/}:"
		grep -E -- "$1" "$2" | head -n 5 | sed 's/^/  /'
	fi
	return 0
}

expect_json_lines() {
	local msg
	msg=$(python3 -c '
import json, sys
with open(sys.argv[1]) as f:
    for n, line in enumerate(f, 1):
        if not line.strip():
            continue
        try:
            v = json.loads(line)
        except ValueError as e:
            sys.exit("line %d: %s" % (n, e))
        if not isinstance(v, dict):
            sys.exit("line %d: not an object" % n)
' "$1" 2>&1) || fail "bad JSON in ${1#"$T"/}: $msg"
	return 0
}

target() {
	echo "$top_builddir/tests/targets/$1"
}

# path=$(preload_lib LIB) || ...: the path of an installed shared library
# (an allocator a test preloads); status 1 if there is none.
preload_lib() {
	ls /usr/lib/*/"$1" /usr/lib/"$1" 2>/dev/null | head -n 1 | grep .
}

# Stop what the test started: TERM first so that a faultline among them
# removes its probes, KILL only for what ignores it.
block_backed_dir() {
	local d
	for d in "$T" "$top_builddir"; do
		case $(stat -f -c %T "$d" 2>/dev/null) in
		tmpfs | ramfs) ;;
		*)
			block_dir=$d
			return 0
			;;
		esac
	done
	skip "no block-backed directory for the test file"
}

# memcg_v1_root: where the cgroup v1 memory controller is mounted ("" if
# nowhere); memcg_v1_own: this shell's memory cgroup below it.
memcg_v1_root() { awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts; }
memcg_v1_own() { awk -F: '$2 ~ /(^|,)memory(,|$)/ { sub("/$", "", $3); print $3; exit }' /proc/self/cgroup; }

# empty_cg DIR: kill what runs in cgroup DIR, wait up to 5 s for it to
# empty, remove it (a line on stderr when it cannot).  No DIR: nothing.
empty_cg() {
	local p n=50
	[ -n "$1" ] && [ -d "$1" ] || return 0
	for p in $(cat "$1/cgroup.procs" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null
	done
	while [ -s "$1/cgroup.procs" ] && [ "$n" -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	rmdir "$1" 2>/dev/null || echo "${0##*/}: could not remove $1" >&2
	return 0
}

within() { [ "$1" -ge $(($2 - $2 * $3 / 100)) ] && [ "$1" -le $(($2 + $2 * $3 / 100)) ]; }

# leak_nums FILE KEY...: from the last leak_summary and summary objects
# of FILE (leak --json), the values of the KEYs on one line: lost, bytes,
# blocks, allocs (the malloc family's outstanding bytes and blocks and its
# allocations traced), frees (traced), stacks (complete unwinds); "None"
# for what FILE lacks.
leak_nums() {
	python3 - "$@" <<'PY'
import json, sys
leak = summ = None
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o.get("type") == "leak_summary":
            leak = o
        elif o.get("type") == "summary":
            summ = o
m = leak["kinds"]["malloc"] if leak else {}
v = {"lost": summ and summ["lost"], "bytes": m.get("bytes"), "blocks": m.get("allocations"),
     "allocs": m.get("traced_allocs"), "frees": leak and leak["traced_frees"],
     "stacks": summ and summ["unwind"]["complete"]}
print(" ".join(str(v[k]) for k in sys.argv[2:]))
PY
}

# leak_total FILE LABEL: from the last "  LABEL: N B (x MiB) in M ..." line
# of leak's text totals (outstanding, malloc family, own mmap, brk), "N M":
# the exact figures, their thousands separators stripped.
leak_total() {
	sed -n "s/^  $2: *\([0-9,]*\) B\( ([0-9.]* [KMGTPE]iB)\)\{0,1\} in \([0-9,]*\) .*/\1 \3/p" "$1" |
		tail -n 1 | tr -d ,
}

# report_pprof REC OUT WHAT: the recording REC's pprof profile into OUT;
# a faultline built without pprof output skips the test with its line.
report_pprof() {
	run_fl report -i "$1" pprof -o "$2"
	if grep -q 'built without pprof output' "$T/err"; then
		skip "$(cat "$T/err")"
	fi
	expect_eq "$rc" 0 "$3"
}

# key_of FILE KEY: V of the last KEY=V line of FILE (a target's own account).
key_of() {
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

# summary_of FILE KEY: KEY of FILE's last summary object (--json), as an
# integer when it is a number (paused_ms: its whole ms); 0 when absent.
summary_of() {
	python3 - "$1" "$2" <<'PY'
import json, sys
v = 0
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o.get("type") == "summary":
            v = o.get(sys.argv[2], 0)
print(int(v) if isinstance(v, (int, float)) else v)
PY
}

hold_through_loop() {
	cat >"$T/during" <<EOF
#!/bin/sh
echo go >"$2"
n=0
until grep -q '^pid=' "$3"; do
	n=\$((n + 1))
	[ "\$n" -le 6000 ] || { echo "the target never finished its loop" >&2; exit 1; }
	sleep 0.01
done
EOF
	chmod +x "$T/during"
	rc=0
	"$(target hold-thread)" "$1" "$T/during" 2>"$T/hold.err" || rc=$?
}

busy_opts() { [ "${FL_SANITIZED:-0}" = 1 ] && echo "-m 65536" || :; }

_fl_stop_spawned() {
	local p n alive
	[ -n "$_fl_spawned" ] || return 0
	for p in $_fl_spawned; do
		kill -TERM "$p" 2>/dev/null || :
	done
	n=50
	while [ "$n" -gt 0 ]; do
		alive=
		for p in $_fl_spawned; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ -n "$alive" ] || break
		sleep 0.1
		n=$((n - 1))
	done
	for p in $_fl_spawned; do
		if kill -0 "$p" 2>/dev/null; then
			fail "pid $p ignored SIGTERM at test exit; killed"
			kill -KILL "$p" 2>/dev/null || :
		fi
		wait "$p" 2>/dev/null || :
	done
	_fl_spawned=
	return 0
}

_fl_dump_temp() {
	local f
	for f in "$T"/*; do
		# Text files only: a recording or a binary would fill the log.
		[ -f "$f" ] && [ -s "$f" ] && grep -Iq . "$f" || continue
		echo "--- ${f#"$T"/} (last 30 lines)"
		tail -n 30 "$f"
	done
}

# at_exit 'COMMANDS': run COMMANDS when the test exits (its own clean-up:
# cgroups, swap, files), then lib.sh's checks, with the test's exit
# status kept (a skip stays a skip, a failure a failure).  A second call
# replaces the first.
at_exit() {
	_fl_at_exit=$1
	trap '_fl_st=$?; eval "$_fl_at_exit"; (exit $_fl_st); _fl_exit' EXIT
}

_fl_exit() {
	local st=$?
	trap - EXIT
	set +e
	_fl_stop_spawned
	if [ "$fl_exit_probe_check" = 1 ] && [ "$st" -ne 77 ] &&
		[ "$(id -u)" -eq 0 ]; then
		assert_no_stale_probes
	fi
	if [ "$_fl_failed" -ne 0 ] && { [ "$st" -eq 0 ] || [ "$st" -eq 77 ]; }; then
		st=1
	fi
	if [ "$st" -ne 0 ] && [ "$st" -ne 77 ]; then
		_fl_dump_temp
		if [ -n "$_fl_msgs" ]; then
			echo "--- failures"
			echo "${_fl_msgs#?}"
		fi
	fi
	# For tracefs-clean.sh, which runs last: the suite's faultline pids.
	[ -s "$T/.fl-pids" ] && mkdir -p "$top_builddir/tests/system" &&
		cat "$T/.fl-pids" >>"$fl_suite_pids"
	rm -rf "$T"
	exit "$st"
}

fl_wrap "$FAULTLINE" || {
	echo "$fl_test: cannot write the faultline wrapper in $T" >&2
	exit 99
}

trap _fl_exit EXIT

# System tests share one kernel: a test's "no stale probes" check must not
# see another test's deliberately killed faultline.  Run them one at a time
# even under make -j (unit tests still run in parallel).  run_fl and spawn
# close fd 9 in their children, so that a process outliving its test cannot
# hold the lock and hang the rest of the suite.
if command -v flock >/dev/null 2>&1; then
	exec 9>"${TMPDIR:-/tmp}/faultline-system-tests.lock"
	flock 9
fi
# A signal would skip the EXIT trap in dash; turn it into an exit.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
