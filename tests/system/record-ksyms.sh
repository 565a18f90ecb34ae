#!/bin/sh
# A recording names its kernel frames itself (format 1.1, KSYM records):
# `record -e slab` of slab-target creating 500 files, then `report slab -C
# dentry -g` twice, with this machine's /proc/kallsyms and in a mount
# namespace where /proc/kallsyms is /dev/null (as on another machine, or
# after a reboot's new KASLR offset): the same text, the open path's
# d_alloc stack with 500 to 505 allocations (the target's 500 files, within
# 1%, as slab.sh), no unknown frame.  The file itself: every KSYM is a
# kallsyms line of this boot (start, name, module), each kernel stack's
# frames have theirs before it, and so do the kmem events' call sites
# (slab's caller rows, on kernels whose events have no cache name), no
# symbol twice, and they cost a few percent of the file.  Controls: the
# KSYMs removed, every kernel frame is unknown even with kallsyms readable
# (names come from them, never from the live file); one renamed, the
# report shows the new name.  A 1.0
# recording (the golden slab.rec, with kernel stacks) warns once that its
# kernel frames are named from this machine's kallsyms, and only when it
# names one.
. "$top_srcdir/tests/system/lib.sh"
need_root
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the recording"
command -v unshare >/dev/null 2>&1 || skip "no unshare(1) for a namespace without kallsyms"
unshare -m sh -c 'mount --bind /dev/null /proc/kallsyms && ! [ -s /proc/kallsyms ]' ||
	skip "cannot hide /proc/kallsyms in a mount namespace"
ST=$(target slab-target)
D=$T/files
N=500

# report_hidden ARGS...: run_fl, with /proc/kallsyms empty for faultline.
report_hidden() {
	unshare -m sh -c 'mount --bind /dev/null /proc/kallsyms && exec "$@"' sh \
		"$FAULTLINE" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# 1. The recording.
mkdir "$D"
run_fl record -e slab -o "$T/s.rec" -c "$ST $D --files $N"
expect_eq "$rc" 0 "record -e slab status"
rm -rf "$D"

# 2. Its KSYMs against this boot's kallsyms, their order and their cost.
python3 - "$T/s.rec" /proc/kallsyms >"$T/ksyms" <<'PY' || fail "the recording's KSYM records"
import re, struct, sys
d = open(sys.argv[1], "rb").read()
if d[:8] != b"FAULTREC" or struct.unpack_from("<HH", d, 8) < (1, 1) or d[8] != 1:
    sys.exit("not a format 1.1 or later recording: %r" % (d[:12],))
live = set()
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 3 and f[1] in "tTwW":
        live.add((int(f[0], 16), f[2], f[3].strip("[]") if len(f) > 3 else ""))
def s(at):
    n, = struct.unpack_from("<I", d, at)
    return d[at + 4:at + 4 + n].decode(), at + 4 + n
at, ksyms, starts, kbytes, stacks, frames, sites = 20, [], set(), 0, 0, 0, 0
site_off = {}   # event id -> offset of its call_site field
while at + 8 <= len(d):
    t, n = struct.unpack_from("<II", d, at)
    p = at + 8
    if t == 2:
        eid, = struct.unpack_from("<I", d, p)
        name, q = s(p + 20)
        path, q = s(q)
        fmt, q = s(q)
        m = re.search(r"field:[^;]* call_site;\s*offset:(\d+);\s*size:8;", fmt)
        if m:
            site_off[eid] = int(m.group(1))
    elif t == 9:
        eid, = struct.unpack_from("<I", d, p)
        raw_size, = struct.unpack_from("<I", d, p + 40)
        if eid in site_off and site_off[eid] + 8 <= raw_size:
            site, = struct.unpack_from("<Q", d, p + 44 + site_off[eid])
            sites += 1
            if site and not any(a <= site < b for a, b in ksyms):
                sys.exit("sample at %d: call site %x has no ksym before it" % (at, site))
    elif t == 12:
        start, end = struct.unpack_from("<QQ", d, p)
        name, q = s(p + 16)
        mod, q = s(q)
        if not start < end or not name:
            sys.exit("bad ksym at %d" % at)
        if start in starts:
            sys.exit("ksym %s written twice" % name)
        if (start, name, mod) not in live:
            sys.exit("ksym %x %s [%s] is no kallsyms line of this boot" % (start, name, mod))
        starts.add(start)
        ksyms.append((start, end))
        kbytes += 8 + n
    elif t == 8:
        sid, kind, nr = struct.unpack_from("<III", d, p)
        ips = struct.unpack_from("<%dQ" % nr, d, p + 12)
        if kind == 2:
            stacks += 1
            for i, ip in enumerate(ips):
                look = ip - 1 if i else ip
                frames += 1
                if not any(a <= look < b for a, b in ksyms):
                    sys.exit("stack %d: frame %x has no ksym before it" % (sid, ip))
    at += 8 + n
if not ksyms or not stacks or not sites:
    sys.exit("%d ksyms, %d kernel stacks, %d call sites: want some of each" % (len(ksyms), stacks, sites))
if kbytes * 100 > len(d) * 5:
    sys.exit("ksyms take %d of %d bytes: more than 5%%" % (kbytes, len(d)))
print("%d ksyms, %d bytes (%.1f a ksym), %d kernel stacks, %d frames, %d call sites, file %d bytes (%.2f%%)"
      % (len(ksyms), kbytes, kbytes / len(ksyms), stacks, frames, sites, len(d), 100.0 * kbytes / len(d)))
PY
cat "$T/ksyms"

# check_stacks FILE WHAT: the d_alloc stack under the open path's lookup
# holds the target's N allocations, and no kernel frame is unknown.
check_stacks() {
	python3 - "$1" "$N" <<'PY' || fail "$2: dentry stacks"
import re, sys
text = open(sys.argv[1]).read()
n = int(sys.argv[2])
part = text.split("Kernel stacks allocating from dentry:\n", 1)
if len(part) != 2:
    sys.exit("no stack section")
if "[unknown]" in part[1]:
    sys.exit("unknown kernel frames:\n" + part[1])
best = 0
for block in part[1].strip().split("\n\n"):
    lines = block.split("\n")
    frames = [l.strip().split("+")[0] for l in lines[:-1]]
    if any(re.fullmatch(r"_*d_alloc", f) for f in frames) and \
       any(f in ("path_openat", "lookup_open", "d_alloc_parallel") for f in frames):
        best = max(best, int(lines[-1]))
if not n <= best <= n + n // 100:
    sys.exit("the lookup stack of d_alloc has %d allocations, want %d to %d" % (best, n, n + n // 100))
PY
}

# 3. Reported with this machine's kallsyms and without any.
run_fl report -i "$T/s.rec" slab -C dentry -g
expect_eq "$rc" 0 "report -g status (kallsyms)"
cp "$T/out" "$T/live.out"
check_stacks "$T/live.out" "with kallsyms"
expect_no_line 'warning' "$T/err"
report_hidden report -i "$T/s.rec" slab -C dentry -g
expect_eq "$rc" 0 "report -g status (no kallsyms)"
cp "$T/out" "$T/hidden.out"
check_stacks "$T/hidden.out" "without kallsyms"
expect_no_line 'warning' "$T/err"
cmp -s "$T/live.out" "$T/hidden.out" || fail "the report without kallsyms differs: $(diff "$T/live.out" "$T/hidden.out" | head -20)"
# script names every kernel frame the same way.
run_fl report -i "$T/s.rec" script
expect_eq "$rc" 0 "report script status (kallsyms)"
cp "$T/out" "$T/script-live.out"
report_hidden report -i "$T/s.rec" script
expect_eq "$rc" 0 "report script status (no kallsyms)"
cmp -s "$T/script-live.out" "$T/out" || fail "report script without kallsyms differs"
expect_line '^	 *[0-9a-f]+ __d_alloc\+0x[0-9a-f]+ \(kernel\.kallsyms\)$' "$T/out"

# 4. Controls: without the KSYMs every kernel frame is unknown, kallsyms
# readable or not; a KSYM renamed is what the report shows.
python3 - "$T/s.rec" "$T/noksym.rec" "$T/renamed.rec" <<'PY' || fail "rewriting the recording"
import struct, sys
d = open(sys.argv[1], "rb").read()
drop, ren, at = bytearray(d[:20]), bytearray(d[:20]), 20
while at + 8 <= len(d):
    t, n = struct.unpack_from("<II", d, at)
    r = d[at:at + 8 + n]
    if t != 12:
        drop += r
    else:
        r = r.replace(b"\x09\x00\x00\x00__d_alloc", b"\x09\x00\x00\x00__x_alloc")
    ren += r
    at += 8 + n
open(sys.argv[2], "wb").write(drop)
open(sys.argv[3], "wb").write(ren)
PY
run_fl report -i "$T/noksym.rec" slab -C dentry -g
expect_eq "$rc" 0 "report -g status (no ksyms)"
python3 - "$T/out" <<'PY' || fail "frames named without KSYMs"
import sys
part = open(sys.argv[1]).read().split("Kernel stacks allocating from dentry:\n", 1)
if len(part) != 2:
    sys.exit("no stack section")
frames = [l.strip() for l in part[1].split("\n") if l.startswith("  ") and not l.startswith("    ")]
named = [f for f in frames if f != "[unknown] [kernel.kallsyms]"]
if not frames or named:
    sys.exit("%d frames, named: %s" % (len(frames), named[:5]))
PY
run_fl report -i "$T/renamed.rec" slab -C dentry -g
expect_eq "$rc" 0 "report -g status (renamed)"
expect_line '^  __x_alloc\+0x[0-9a-f]+ \[kernel\.kallsyms\]$' "$T/out"
expect_no_line '__d_alloc' "$T/out"

# 5. A 1.0 recording: one warning, when a kernel frame is named; none when
# the report names none.
gzip -dc "$top_srcdir/tests/golden/data/slab.rec.gz" >"$T/old.rec" || fail "golden slab.rec.gz"
run_fl report -i "$T/old.rec" slab -C dentry -g
expect_eq "$rc" 0 "report -g of a 1.0 recording"
expect_eq "$(grep -c 'warning' "$T/err")" 1 "warnings of a 1.0 recording's -g"
expect_line "^faultline report: warning: $T/old.rec is a format 1.0 recording, without kernel symbols: its kernel frames are named from this machine's /proc/kallsyms" "$T/err"
expect_line '^Kernel stacks allocating from dentry:$' "$T/out"
# (named from kallsyms: without it, unknown)
report_hidden report -i "$T/old.rec" slab -C dentry -g
expect_eq "$rc" 0 "report -g of a 1.0 recording without kallsyms"
expect_eq "$(grep -c 'warning' "$T/err")" 1 "warnings of a 1.0 recording's -g without kallsyms"
expect_line '^  \[unknown\] \[kernel\.kallsyms\]$' "$T/out"
expect_no_line '^  [^[ ].*\+0x' "$T/out"
run_fl report -i "$T/old.rec" slab -C dentry
expect_eq "$rc" 0 "report of a 1.0 recording"
expect_no_line 'warning' "$T/err"

pass_or_fail
