#!/bin/sh
# run-report.sh: golden-output tests of `faultline report`, in elfutils'
# tests/run-*.sh style (testrun_compare): small recordings committed here
# (data/*.rec.gz, made by regen.sh, which says how) are reported and each
# report is compared, byte for byte, with the text committed for it
# (expected/NAME.out; NAME.err when the report prints on stderr, NAME.data
# for a file it writes); a mismatch fails with the `diff -u` shown.  Bad
# recordings committed here (data/bad-*) must give one line on stderr,
# the one expected, nothing on stdout and exit 1; truncated ones are
# reported up to their cut, which is said first.
#
# Machine independence.  The expected text must be the same on any host
# (CI is a fresh machine with another libc), so nothing here depends on
# this one:
# - binaries: the user stacks are those of the golden targets, whose
#   binaries are committed (data/bin/*.gz) and given to report with --symfs.
#   Their stacks hold their own frames only (alloc-target: its own _start,
#   no threads, no stdio; fault-target, sys-target, swap-target: static,
#   without libc), and the allocator's frame, libc's, is the one the heap
#   reports drop.
#   Proof, on every run: each case is run twice, once on the recordings
#   as committed and once on a copy in which every mapping but the
#   targets' carries an inverted build-id (foreign.py), so that the
#   report finds no file for libc, the dynamic loader or the vdso, as on
#   a host whose libc differs.  Both must print the expected text.
# - kernel stacks are symbolized from the live /proc/kallsyms: no case
#   asks for them.
# - time: TZ=UTC, and every time printed is the recording's (its samples
#   and its start), never the report's clock.
# - environment: env -i, then PATH, TZ=UTC, LC_ALL=C, HOME a directory of
#   this test's (and the sanitizers' *SAN_OPTIONS): no debuginfod
#   (DEBUGINFOD_URLS), no terminal (output to files), no locale.
# - paths: report runs in a directory of its own with relative names
#   (-i alloc-b.rec, diff alloc-a.rec, --symfs ../symfs, -H NAME.data), so
#   no temporary path is printed.  The absolute paths that are printed are
#   the recorded ones (/tmp/faultline-golden/..., where regen.sh ran the
#   targets, and the OOM's memcg path), which are data.
# - root: none needed; report reads files only.
#
# Regenerate the expected text (after a deliberate format change; say so
# in the commit): tests/golden/regen.sh (see there).
# Env: FAULTLINE, top_srcdir. Exit 0 pass, 1 fail, 99 hard error.
# FL_GOLDEN_REGEN=1: write the expected files instead of comparing.

set -u
: "${top_srcdir:?top_srcdir must be set (run through make check)}"
: "${FAULTLINE:?FAULTLINE must be set}"
G=$top_srcdir/tests/golden
E=$G/expected
REGEN=${FL_GOLDEN_REGEN:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/fl-golden.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
failed=0 rc_plain='' rc_foreign=''
[ -z "$REGEN" ] || rm -f "$E"/*

hard() {
	echo "run-report.sh: $*" >&2
	exit 99
}
command -v python3 >/dev/null 2>&1 || hard "python3 is needed (foreign.py)"

# The recorded binaries below the symfs, at their recorded paths.
mkdir -p "$T/symfs/tmp/faultline-golden" "$T/plain" "$T/foreign" "$T/home" || exit 99
TARGETS="alloc-target fault-target sys-target swap-target"
for b in $TARGETS; do
	gzip -dc "$G/data/bin/$b.gz" >"$T/symfs/tmp/faultline-golden/$b" || hard "data/bin/$b.gz"
done
for f in "$G"/data/*.rec.gz; do
	r=$(basename "$f" .gz)
	gzip -dc "$f" >"$T/plain/$r" || hard "$f"
	case $r in
	bad-*) cp "$T/plain/$r" "$T/foreign/$r" ;;
	*) python3 "$G/foreign.py" "$T/plain/$r" "$T/foreign/$r" \
		$(for b in $TARGETS; do echo "/tmp/faultline-golden/$b"; done) ||
		hard "foreign.py $r" ;;
	esac
done

# report NAME REC ARGS...: run `faultline report -i REC.rec --symfs ../symfs
# ARGS` in $T/plain and in $T/foreign; an argument "@" is the file NAME.data
# (an output file of the report's, compared too).  Status in $rc_plain and
# $rc_foreign; stdout, stderr and the data file in $T/DIR/NAME.{out,err,data}.
# The data file of a case named flamegraph* is its page's data (the JSON of
# <script id="data">: the page around it is data/flamegraph.html's, not the
# report's), of pprof* its profile.proto, gunzipped (zlib's output may
# differ from one version to another) and in hex (od -tx1), so that diff
# shows where it changed.
report() {
	local name=$1 rec=$2 dir a
	shift 2
	for dir in plain foreign; do
		(
			cd "$T/$dir" || exit 99
			for a; do
				shift
				[ "$a" = @ ] && a=$name.data
				set -- "$@" "$a"
			done
			set -- PATH="$PATH" HOME="$T/home" TZ=UTC LC_ALL=C \
				"$FAULTLINE" report -i "$rec.rec" --symfs ../symfs "$@"
			# The sanitizer build's settings (scripts/check) pass.
			for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
				val=$(printenv "$v") && set -- "$v=$val" "$@"
			done
			exec env -i "$@" >"$name.out" 2>"$name.err"
		)
		rc=$?
		eval "rc_$dir=\$rc"
		data_view "$T/$dir/$name.data"
	done
}

data_view() {
	[ -e "$1" ] || return 0
	case ${1##*/} in
	flamegraph*)
		sed -n 's|^<script id="data" type="application/json">\(.*\)</script>$|\1|p' "$1" >"$1.view" ;;
	pprof*) gzip -dc "$1" | od -An -tx1 -v >"$1.view" ;;
	*) return 0 ;;
	esac
	mv "$1.view" "$1"
}

# compare NAME EXT: $T/plain/NAME.EXT and $T/foreign/NAME.EXT against
# $E/NAME.EXT (absent: empty).
compare() {
	local name=$1 ext=$2 want=$E/$1.$2 dir
	[ -e "$want" ] || want=/dev/null
	for dir in plain foreign; do
		if ! cmp -s "$want" "$T/$dir/$name.$ext"; then
			echo "FAIL: $name.$ext ($dir recordings): the report differs from the expected text:"
			diff -u "$want" "$T/$dir/$name.$ext" | sed 's/^/    /' | head -60
			failed=1
		fi
	done
}

# ok NAME REC ARGS...: the report exits 0 and prints what NAME.out (and
# NAME.err, NAME.data) hold.
ok() {
	local name=$1 dir was=$failed
	failed=0
	report "$@"
	if [ -n "$REGEN" ]; then
		[ "$rc_plain" = 0 ] || hard "$name: exit $rc_plain: $(cat "$T/plain/$name.err")"
		cp "$T/plain/$name.out" "$E/$name.out"
		rm -f "$E/$name.err" "$E/$name.data"
		[ -s "$T/plain/$name.err" ] && cp "$T/plain/$name.err" "$E/$name.err"
		[ -e "$T/plain/$name.data" ] && cp "$T/plain/$name.data" "$E/$name.data"
		return 0
	fi
	for dir in plain foreign; do
		eval "rc=\$rc_$dir"
		[ "$rc" = 0 ] || { echo "FAIL: $name ($dir recordings): exit $rc"; failed=1; }
	done
	compare "$name" out
	compare "$name" err
	[ -e "$E/$name.data" ] && compare "$name" data
	[ "$failed" = 0 ] && echo "ok: report $*"
	[ "$was" = 0 ] || failed=1
}

# bad NAME REC ARGS...: the report exits 1 with one line on stderr, the
# one NAME.err holds, and nothing on stdout.
bad() {
	local name=$1 dir was=$failed
	failed=0
	report "$@"
	if [ -n "$REGEN" ]; then
		[ "$rc_plain" = 1 ] || hard "$name: exit $rc_plain, not 1"
		cp "$T/plain/$name.err" "$E/$name.err"
		rm -f "$E/$name.out"
		return 0
	fi
	for dir in plain foreign; do
		eval "rc=\$rc_$dir"
		[ "$rc" = 1 ] || { echo "FAIL: $name ($dir recordings): exit $rc, not 1"; failed=1; }
		[ "$(wc -l <"$T/$dir/$name.err")" -eq 1 ] ||
			{ echo "FAIL: $name ($dir recordings): not one line on stderr"; failed=1; }
	done
	compare "$name" out
	compare "$name" err
	[ "$failed" = 0 ] && echo "ok: report $* (refused)"
	[ "$was" = 0 ] || failed=1
}

# ---- alloc-a, alloc-b: alloc-target a (record -e leak) and b (record
# -e leak,faults).
ok leak alloc-b leak
ok leak-sort-count alloc-b leak --sort count -T 2
ok leak-json alloc-b leak --json
ok leak-window alloc-b --since 0.05 --until 0.25 leak
ok heap alloc-b heap -l -H @
ok heap-json alloc-b heap -l --json
ok heap-interval alloc-b heap --interval 0.1
ok heap-interval-calls alloc-b heap --interval-calls 8 -n 3
ok diff alloc-b diff alloc-a.rec
ok diff-json alloc-b diff --json alloc-a.rec
ok diff-all alloc-b diff --all -n 0 alloc-a.rec
ok diff-reverse alloc-a diff alloc-b.rec
ok timeline alloc-b timeline --interval 0.1
ok timeline-json alloc-b timeline --interval 0.1 --json
ok info-alloc alloc-a info
ok flamegraph alloc-b flamegraph -o @
ok pprof alloc-b pprof -o @
ok flamegraph-faults faults flamegraph -e faults -o @
ok pprof-faults faults pprof --faults -o @

# ---- faults: fault-target (record -e faults).
ok faults faults faults
ok faults-json faults faults --json
ok faults-interval faults faults --interval 0.1
ok faults-folded faults faults --folded
ok script-faults faults script

# ---- sys: sys-target (record -e brk,mmap,shm,ffaults; see sys-target.c).
SYS_PID=$(env -i "$FAULTLINE" report -i "$T/plain/sys.rec" info | sed -n 's/^target_pid  *//p')
[ -n "$SYS_PID" ] || hard "sys.rec: no target_pid"
ok brk sys brk
ok brk-folded sys brk --folded
ok brk-json sys brk --json
ok brk-time sys brk -T
ok mmap sys mmap
ok mmap-time sys mmap -T
ok mmap-json sys mmap --json
ok ffaults sys ffaults
ok ffaults-json sys ffaults --json
ok shm sys shm
ok shm-stacks sys shm -T -g
ok shm-json sys shm --json
ok shm-name sys shm -n nomatch
ok shm-tid sys shm -t "$SYS_PID"
ok info-sys sys info
ok script-sys sys script
ok timeline-sys sys timeline
# record -e mmap takes no stacks for mmap: -g is refused.
bad mmap-stacks sys mmap -g
# A recording without a tool's events: the one line that says so, not a
# "falling back to" a rung whose events it lacks as well.
bad faults-absent alloc-a faults
bad oom-absent alloc-a oom
bad reclaim-absent alloc-a reclaim

# ---- swapin: swap-target's 64 pages, out to zram and back (record -e swapin).
ok swapin swapin swapin
ok swapin-notime swapin swapin -T
ok swapin-json swapin swapin --json
ok timeline-swapin swapin timeline

# ---- kernel events: an OOM kill in a 32 MiB memcg (record -e oom,reclaim -a).
ok oom-memstat oom script
ok oom oom oom
ok oom-json oom oom --json
ok reclaim oom reclaim
ok reclaim-summary oom reclaim -s
ok timeline-oom oom timeline

# ---- kernel events: a cold read of 1 MiB by cat (record -e cache,cachetop -a).
ok cache cache cache 1
ok cache-time cache cache -T 1
ok cachetop cache cachetop 1

# ---- kernel events: slab-target's 50 files (record -e slab) and a
# manual compaction (record -e compact).
ok slab slab slab
ok slab-json slab slab --json
ok slab-allocs slab slab -s allocs -r 4
ok compact compact compact -T
ok compact-summary compact compact -s
ok compact-json compact compact --json

# ---- bad input: refused with one line.
bad bad-magic bad-magic leak
bad bad-version bad-version faults

# ---- recordings cut short (their recorder killed, their disk full): the
# records before the cut are reported, after one line saying where it is,
# on stderr and in the output (text, JSON).
ok bad-cut-record bad-cut-record faults
ok bad-cut-record-json bad-cut-record faults --json
ok bad-no-end bad-no-end leak
ok bad-diff-old alloc-b diff bad-no-end.rec

[ -n "$REGEN" ] && { echo "run-report.sh: expected outputs written to $E"; exit 0; }
exit $failed
