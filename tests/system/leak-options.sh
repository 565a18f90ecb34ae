#!/bin/sh
# memleak's spellings that faultline leak accepts with their meaning, and
# those it refuses with one line (each checked by its effect, on
# cxx-target, whose leaks are known): libbpf-tools memleak's -C
# (--combined-only), -F and BCC's --wa-missing-free (what leak always
# does), -P (--percpu), -S (--symbols-prefix); its --stack-storage-size,
# --perf-max-stack-depth and -v, which size or debug a BPF program
# faultline does not have, refused with exit 2.  --srcline, whose getopt
# value was the letter S, still adds file:line beside -S.
. "$top_srcdir/tests/system/lib.sh"
need_root
CT=$(target cxx-target)

# sites OUT: "fn bytes count" of each stack's first cxx-target frame, sorted.
sites() {
	python3 - "$1" <<'PY'
import json, sys
got = {}
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o["type"] == "stack":
            for f in o["stack"]:
                if "[cxx-target]" in f["sym"]:
                    n = f["sym"].split("+")[0]
                    b, c = got.get(n, (0, 0))
                    got[n] = (b + o["bytes"], c + o["allocations"])
                    break
for n in sorted(got):
    print(n, *got[n])
PY
}

# 1. Accepted, their meaning unchanged: the same sites, exactly, as the
# target's own truth.
run_fl leak --json -T 1000 -c "$CT"
expect_eq "$rc" 0 "plain: status"
sed -n 's/^site fn=\([a-z_]*\) bytes=\([0-9]*\) count=\([0-9]*\)$/\1 \2 \3/p' "$T/out" | sort >"$T/truth"
[ "$(wc -l <"$T/truth")" -eq 8 ] || fail "the target printed $(wc -l <"$T/truth") sites, not 8"
sites "$T/out" | grep '^leak_' >"$T/plain"
expect_eq "$(cat "$T/plain")" "$(cat "$T/truth")" "plain: sites"
for opts in "-C -F" "--combined-only --wa-missing-free"; do
	# shellcheck disable=SC2086 # opts is words
	run_fl leak --json -T 1000 $opts -c "$CT"
	expect_eq "$rc" 0 "$opts: status"
	expect_eq "$(sites "$T/out" | grep '^leak_')" "$(cat "$T/truth")" "$opts: sites"
done

# 2. -S is --symbols-prefix, -P is --percpu: the same answer, word for word.
run_fl leak --symbols-prefix nosuch_ -c "$CT"
cp "$T/err" "$T/long.err"
long_rc=$rc
run_fl leak -S nosuch_ -c "$CT"
expect_eq "$rc" "$long_rc" "-S: status"
expect_eq "$(cat "$T/err")" "$(cat "$T/long.err")" "-S: message"
expect_line "no symbol 'nosuch_malloc'" "$T/err"
run_fl leak -P -c "$CT"
expect_eq "$rc" 2 "-P without -k: status"
expect_line '^faultline leak: --percpu is for kernel mode \(-k\)$' "$T/err"

# 3. --srcline beside -S: file:line on the site's frame.
run_fl leak --json --srcline -T 1000 -c "$CT"
expect_eq "$rc" 0 "--srcline: status"
expect_line '"sym":"leak_new\+0x[0-9a-f]+ \[cxx-target\]",[^}]*"file":"[^"]*cxx-target.cc","line":[0-9]+' "$T/out"

# 4. Refused: one line each, exit 2, the target never run.
for a in "--stack-storage-size 1024" "--perf-max-stack-depth 20" "-v" "--verbose"; do
	# shellcheck disable=SC2086 # a is words
	run_fl leak $a -c "$CT"
	expect_eq "$rc" 2 "$a: status"
	expect_eq "$(wc -l <"$T/err" | tr -d ' ')" 1 "$a: stderr lines"
	expect_line "^faultline leak: .*: refused '" "$T/err"
	expect_no_line '^site ' "$T/out"
done

pass_or_fail
