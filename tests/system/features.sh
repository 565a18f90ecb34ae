#!/bin/sh
# features.sh: `faultline features` on the live kernel and on fixture trees.
#
# Live: uprobes must be usable, kprobes must be reported exactly as the
# tracing dir has them (this machine has none), brk must ride the
# sys_enter_brk tracepoint; FAULTLINE_MASK=syscalls:* must push brk and
# mmap down to their uprobe rungs and say the mask did it.  Fixtures: the
# choice per tree is fixed.  --json lines must parse.  Bad usage exits 2,
# a bad mask exits 1.
#
# Env: FAULTLINE (binary), top_srcdir.  Exit 0 pass, 1 fail, 77 skip (not root).

FAULTLINE=${FAULTLINE:-./faultline}
top_srcdir=${top_srcdir:-.}
FIX=$top_srcdir/tests/fixtures/kernels

if [ "$(id -u)" != 0 ]; then
	echo "features.sh: SKIP: needs root (tracefs is root-only)"
	exit 77
fi
if [ ! -x "$FAULTLINE" ]; then
	echo "features.sh: FAIL: no executable faultline at '$FAULTLINE'"
	exit 1
fi
if [ ! -d "$FIX/rhel7-3.10" ]; then
	echo "features.sh: FAIL: no fixtures under '$FIX' (set top_srcdir)"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/features-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

fails=0
fail() {
	echo "features.sh: FAIL: $*"
	fails=$((fails + 1))
}
ok() {
	echo "features.sh: ok: $*"
}

# run NAME ARGS...: output to $tmp/NAME.out/.err, status to $tmp/NAME.rc
run() {
	name=$1
	shift
	"$FAULTLINE" features "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
# feature FILE NAME -> yes/no
feature() { awk -v n="$2" '$1 == n { print $2; exit }' "$1"; }
# tool FILE TOOL -> the chosen source (rest of the tool's line)
tool() { awk -v t="$2" '$1 == t { sub("^" t " +", ""); print; exit }' "$1"; }
# refused FILE TOOL -> the "refused" lines printed under TOOL
refused() {
	awk -v t="$2" '$1 == t { on = 1; next } on && $1 == "refused" { print; next } on { exit }' "$1"
}
# fallback FILE TOOL -> the "fallback" lines printed under TOOL
fallback() {
	awk -v t="$2" '$1 == t { on = 1; next } on && $1 == "fallback" { print; next } on && $1 == "refused" { next } on { exit }' "$1"
}

dump() {
	echo "--- faultline features $1: stdout"
	cat "$tmp/$1.out"
	echo "--- stderr"
	cat "$tmp/$1.err"
}

BRK_TP="tracepoint syscalls:sys_enter_brk"
BRK_UP="uprobe libc brk"
MMAP_UP="uprobe+uretprobe libc mmap/munmap"

# ---- live kernel, nothing masked
unset FAULTLINE_MASK
run live
if [ "$(rc live)" != 0 ]; then
	fail "live: exit $(rc live)"
	dump live
else
	tracing=$(awk '$1 == "tracefs" && $2 == "dir" { print $3; exit }' "$tmp/live.out")
	[ "$(feature "$tmp/live.out" tracefs)" = yes ] && ok "live: tracefs yes ($tracing)" ||
		fail "live: tracefs not usable: $(grep '^tracefs ' "$tmp/live.out")"
	[ "$(feature "$tmp/live.out" uprobes)" = yes ] && ok "live: uprobes yes" ||
		fail "live: uprobes: $(grep '^uprobes ' "$tmp/live.out")"
	[ "$(feature "$tmp/live.out" uretprobes)" = yes ] && ok "live: uretprobes yes" ||
		fail "live: uretprobes: $(grep '^uretprobes ' "$tmp/live.out")"
	# Reported exactly as the kernel has it (this machine: no kprobes).
	want=no
	[ -n "$tracing" ] && [ -e "$tracing/kprobe_events" ] && want=yes
	[ "$(feature "$tmp/live.out" kprobes)" = "$want" ] && ok "live: kprobes $want" ||
		fail "live: kprobes should be $want: $(grep '^kprobes ' "$tmp/live.out")"
	want=no
	[ -n "$tracing" ] && [ -d "$tracing/events/syscalls" ] && want=yes
	[ "$(feature "$tmp/live.out" syscall_tracepoints)" = "$want" ] && ok "live: syscall_tracepoints $want" ||
		fail "live: syscall_tracepoints should be $want"
	[ "$(tool "$tmp/live.out" brk)" = "$BRK_TP" ] && ok "live: brk on $BRK_TP" ||
		fail "live: brk chose '$(tool "$tmp/live.out" brk)', expected '$BRK_TP'"
	case $(tool "$tmp/live.out" mmap) in
	"tracepoint "*) ok "live: mmap on tracepoints" ;;
	*) fail "live: mmap chose '$(tool "$tmp/live.out" mmap)'" ;;
	esac
	fallback "$tmp/live.out" brk | grep -q "$BRK_UP" && ok "live: brk lists the uprobe fallback" ||
		fail "live: brk does not list '$BRK_UP' as fallback"
	grep -q '^perf_event_paranoid  *-\{0,1\}[0-9]' "$tmp/live.out" && ok "live: paranoid shown" ||
		fail "live: no perf_event_paranoid line"
	grep -q '^privileges  *root' "$tmp/live.out" && ok "live: privileges show root" ||
		fail "live: privileges line: $(grep '^privileges' "$tmp/live.out")"
	grep -q '^lockdown  *[a-z]' "$tmp/live.out" || fail "live: no lockdown line"
fi

# ---- live kernel, syscall tracepoints masked: the uprobe rungs, for real
FAULTLINE_MASK='syscalls:*'
export FAULTLINE_MASK
run masked
unset FAULTLINE_MASK
if [ "$(rc masked)" != 0 ]; then
	fail "masked: exit $(rc masked)"
	dump masked
else
	[ "$(feature "$tmp/masked.out" syscall_tracepoints)" = no ] && ok "masked: syscall_tracepoints no" ||
		fail "masked: syscall_tracepoints not masked"
	grep '^syscall_tracepoints ' "$tmp/masked.out" | grep -q 'masked by FAULTLINE_MASK' ||
		fail "masked: syscall_tracepoints evidence does not name the mask"
	case $(tool "$tmp/masked.out" brk) in
	"$BRK_UP"*) ok "masked: brk on $BRK_UP" ;;
	*) fail "masked: brk chose '$(tool "$tmp/masked.out" brk)'" ;;
	esac
	case $(tool "$tmp/masked.out" mmap) in
	"$MMAP_UP"*) ok "masked: mmap on $MMAP_UP" ;;
	*) fail "masked: mmap chose '$(tool "$tmp/masked.out" mmap)'" ;;
	esac
	refused "$tmp/masked.out" brk | grep -q 'syscalls:sys_enter_brk absent (masked by FAULTLINE_MASK)' &&
		ok "masked: brk refusal names the mask" || fail "masked: brk refusal: $(refused "$tmp/masked.out" brk)"
	refused "$tmp/masked.out" mmap | grep -q 'masked by FAULTLINE_MASK' &&
		ok "masked: mmap refusal names the mask" || fail "masked: mmap refusal: $(refused "$tmp/masked.out" mmap)"
fi

# The lower rungs masked too: nothing left, still exit 0, every refusal shown.
FAULTLINE_MASK='syscalls:*,uprobes,uprobe_pmu'
export FAULTLINE_MASK
run none
unset FAULTLINE_MASK
if [ "$(rc none)" = 0 ] && [ "$(tool "$tmp/none.out" brk)" = "none available" ] &&
	[ "$(refused "$tmp/none.out" brk | wc -l)" -eq 3 ]; then
	ok "mask syscalls:*,uprobes,uprobe_pmu: brk has no rung, three refusals"
else
	fail "mask syscalls:*,uprobes,uprobe_pmu"
	dump none
fi

# ---- fixture trees: the choice is fixed per tree
check_root() { # TREE BRK MMAP
	run "root-$1" --root "$FIX/$1"
	if [ "$(rc "root-$1")" != 0 ]; then
		fail "--root $1: exit $(rc "root-$1")"
		dump "root-$1"
		return
	fi
	got_brk=$(tool "$tmp/root-$1.out" brk)
	got_mmap=$(tool "$tmp/root-$1.out" mmap)
	case $got_brk in
	"$2"*) ;;
	*) fail "--root $1: brk chose '$got_brk', expected '$2'"; return ;;
	esac
	case $got_mmap in
	"$3"*) ;;
	*) fail "--root $1: mmap chose '$got_mmap', expected '$3'"; return ;;
	esac
	ok "--root $1: brk '$2', mmap '$3'"
}
check_root rhel7-3.10 "$BRK_TP" "tracepoint "
check_root ubuntu-4.15 "$BRK_TP" "tracepoint "
check_root no-ftrace-syscalls "$BRK_UP" "$MMAP_UP"
check_root no-uprobes "$BRK_TP" "tracepoint "
# Locked down: tracefs closed, the perf uprobe PMU left.
check_root 6.18-lockdown "perf uprobe PMU on libc brk" "perf uprobe PMU on libc mmap"

f=$tmp/root-no-ftrace-syscalls.out
refused "$f" brk | grep -q 'absent (no events/syscalls in ' && ok "no-ftrace-syscalls: refusal says why" ||
	fail "no-ftrace-syscalls: refusal: $(refused "$f" brk)"
f=$tmp/root-no-uprobes.out
[ "$(feature "$f" uprobes)" = no ] && fallback "$f" brk | grep -q 'unavailable: uprobes absent (no uprobe_events' &&
	ok "no-uprobes: uprobe rung shown unavailable" || fail "no-uprobes: $(fallback "$f" brk)"
f=$tmp/root-6.18-lockdown.out
[ "$(feature "$f" tracefs)" = no ] && [ "$(feature "$f" uprobe_pmu)" = yes ] &&
	grep -q '^lockdown  *confidentiality' "$f" && grep -q 'unusable under lockdown' "$f" &&
	ok "6.18-lockdown: tracefs unusable, uprobe PMU kept" || fail "6.18-lockdown: features wrong"
f=$tmp/root-rhel7-3.10.out
[ "$(feature "$f" dynamic_events)" = no ] && [ "$(feature "$f" uprobe_pmu)" = yes ] &&
	[ "$(feature "$f" kprobes)" = yes ] && grep -q '^perf_event_paranoid  *2$' "$f" &&
	grep -q '^lockdown  *absent' "$f" &&
	ok "rhel7-3.10: features as the kernel has them" || fail "rhel7-3.10: features wrong"
f=$tmp/root-ubuntu-4.15.out
[ "$(feature "$f" uprobe_pmu)" = no ] && grep -q '^perf_event_paranoid  *3$' "$f" &&
	grep -q '^privileges  *unprivileged' "$f" &&
	ok "ubuntu-4.15: no uprobe PMU, paranoid 3" || fail "ubuntu-4.15: features wrong"

# ---- --json: every line an object; one system line, one per feature, one per tool
check_json() { # NAME -> validates $tmp/NAME.out, prints the brk rung
	if command -v python3 >/dev/null 2>&1; then
		python3 -c '
import json, sys
kinds = {}
brk = None
for line in open(sys.argv[1]):
    o = json.loads(line)
    kinds[o["type"]] = kinds.get(o["type"], 0) + 1
    if o["type"] == "tool" and o["tool"] == "brk":
        brk = o["rung"]
    if o["type"] == "feature":
        assert isinstance(o["available"], bool) and isinstance(o["why"], str) and o["why"]
assert kinds.get("system") == 1 and kinds.get("feature", 0) >= 13 and kinds.get("tool", 0) >= 2, kinds
print(brk)
' "$tmp/$1.out"
	else
		# No python: each line must at least be one brace-delimited object.
		grep -v '^{.*}$' "$tmp/$1.out" >/dev/null && return 1
		sed -n 's/.*"tool":"brk","rung":"\{0,1\}\([a-z-]*\)"\{0,1\},.*/\1/p' "$tmp/$1.out"
	fi
}
run json --json
if [ "$(rc json)" = 0 ] && [ "$(check_json json)" = tracepoint ]; then
	ok "--json parses, brk rung tracepoint"
else
	fail "--json"
	dump json
fi
FAULTLINE_MASK='syscalls:*'
export FAULTLINE_MASK
run json-masked --json
unset FAULTLINE_MASK
[ "$(rc json-masked)" = 0 ] && [ "$(check_json json-masked)" = uprobe ] &&
	ok "--json with mask: brk rung uprobe" || fail "--json with mask"
run json-lockdown --json --root "$FIX/6.18-lockdown"
v=$(check_json json-lockdown)
if [ "$(rc json-lockdown)" = 0 ] && [ "$v" = uprobe-pmu ]; then
	ok "--json --root 6.18-lockdown: brk rung uprobe-pmu"
else
	fail "--json --root 6.18-lockdown: brk rung '$v'"
fi

# ---- errors
run badopt --no-such-option
[ "$(rc badopt)" = 2 ] && grep -q '^usage: faultline features' "$tmp/badopt.err" && [ ! -s "$tmp/badopt.out" ] &&
	ok "bad option: usage on stderr, exit 2" || fail "bad option: exit $(rc badopt)"
run badarg extra
[ "$(rc badarg)" = 2 ] && ok "extra argument: exit 2" || fail "extra argument: exit $(rc badarg)"
FAULTLINE_MASK=bogus
export FAULTLINE_MASK
run badmask
unset FAULTLINE_MASK
[ "$(rc badmask)" = 1 ] && [ "$(cat "$tmp/badmask.err")" = "faultline features: unknown feature 'bogus' in FAULTLINE_MASK" ] &&
	ok "bad mask: one line on stderr, exit 1" || { fail "bad mask: exit $(rc badmask)"; dump badmask; }
run badroot --root "$tmp/no-such-dir"
[ "$(rc badroot)" = 1 ] && [ "$(wc -l <"$tmp/badroot.err")" -eq 1 ] && grep -q '^faultline features: ' "$tmp/badroot.err" &&
	ok "bad --root: one line on stderr, exit 1" || fail "bad --root: exit $(rc badroot)"

if [ "$fails" -ne 0 ]; then
	echo "features.sh: $fails failure(s)"
	exit 1
fi
echo "features.sh: PASS"
exit 0
