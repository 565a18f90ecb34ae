#!/bin/sh
# regen.sh: make the golden recordings of tests/golden and their expected
# reports.  Run it deliberately, and commit what it changes saying why (a
# report's format changed on purpose, a recording is added); the test
# (run-report.sh) compares against what is committed.
#
#   tests/golden/regen.sh --outputs   the expected reports (NAME.out,
#                                     NAME.err, NAME.data) from the
#                                     committed recordings; no root needed
#   tests/golden/regen.sh --record    also make the recordings again (root,
#                                     tracefs, uprobes, a cgroup v1 memory
#                                     controller; gcc, python3), then the
#                                     expected reports
#
# FAULTLINE (default: ./build/faultline of the source tree) is the binary
# run; top_builddir (default: the directory FAULTLINE is in) holds the
# built tests/targets/oom-target.
#
# How each recording is made (--record):
# - The golden targets are built from alloc-target.c and fault-target.c
#   (flags below; see their comments for why: stacks of their own frames
#   only) into /tmp/faultline-golden/, the path the recordings then name,
#   and committed as bin/NAME.gz: the test gives them to report under its
#   --symfs at that path.
# - alloc-a.rec: record -e leak -- /tmp/faultline-golden/alloc-target a
# - alloc-b.rec: record -e leak,faults -- /tmp/faultline-golden/alloc-target b
#   (for `diff`: b keeps 2048 bytes more, from one new stack)
# - faults.rec:  record -e faults -- /tmp/faultline-golden/fault-target
# - oom.rec:     record -e oom,reclaim -a, while oom-target --mode self
#   runs in a cgroup v1 memory cgroup of 32 MiB (as tests/system/
#   record-kernel-oom.sh does): its memcg reclaims, then its OOM kill.
#   The recording is system-wide: whatever else the machine did then is in
#   it.  The shell waits for record's ready line with its builtin read and
#   stops it with its builtin kill, so that no helper process of this
#   script's is in the recording but the target's.
# - cache.rec:   record -e cache,cachetop -a, while cat reads a 1 MiB file
#   whose pages were dropped from the page cache: 256 misses (and what
#   else the machine read then).
# - slab.rec:    record -e slab -- slab-target DIR --files 50 (a dentry
#   and an inode for each file it creates, and what else its calls
#   allocate)
# - compact.rec: record -e compact -- sh -c 'echo 1 >/proc/sys/vm/compact_memory'
#   (one manual compaction run per populated zone; its scans are most of
#   the recording: 35 to 80 KB compressed)
# - not recorded here: swapin (it needs a swap device, zram0 here, which
#   the system tests share) and the THP collapse events of compact.
# - bad-*.rec (python3, below): from faults.rec, the magic changed
#   (bad-magic), major version 2 (bad-version), cut inside a record
#   (bad-cut-record); from alloc-a.rec, every record but END (bad-no-end).
# Each is stored gzip -9n (no name or time in the header: the same bytes
# for the same recording).
set -eu
G=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$G/../.." && pwd)
: "${FAULTLINE:=$SRC/build/faultline}"
FAULTLINE=$(cd "$(dirname "$FAULTLINE")" && pwd)/$(basename "$FAULTLINE")
: "${top_builddir:=$(dirname "$FAULTLINE")}"
[ -x "$FAULTLINE" ] || { echo "regen.sh: no faultline at $FAULTLINE" >&2; exit 1; }

outputs() {
	top_srcdir=$SRC FAULTLINE=$FAULTLINE FL_GOLDEN_REGEN=1 sh "$G/run-report.sh"
}

case ${1:-} in
--outputs) outputs; exit 0 ;;
--record) ;;
*) echo "usage: regen.sh --outputs | --record" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "regen.sh --record: needs root" >&2; exit 1; }

B=/tmp/faultline-golden
W=$(mktemp -d /tmp/fl-regen.XXXXXX)
CG=
cleanup() {
	[ -n "$CG" ] && [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$B" "$G/data/bin"

# The targets: frame pointers (not needed by the DWARF unwinder, but they
# keep each function's frame), no libc start files; fault-target without
# libc at all.
gcc -O1 -Wall -Wextra -fno-omit-frame-pointer -nostartfiles \
	-o "$B/alloc-target" "$G/alloc-target.c"
gcc -O1 -Wall -Wextra -fno-omit-frame-pointer -static -nostdlib \
	-o "$B/fault-target" "$G/fault-target.c"
for b in alloc-target fault-target; do
	gzip -9nc "$B/$b" >"$G/data/bin/$b.gz"
done

rec() {
	local name=$1
	shift
	"$FAULTLINE" record -o "$W/$name.rec" "$@" >"$W/$name.log" 2>&1 ||
		{ cat "$W/$name.log" >&2; exit 1; }
	grep -q '^faultline record: [0-9]* samples (0 lost)' "$W/$name.log" ||
		{ echo "regen.sh: $name: events lost" >&2; cat "$W/$name.log" >&2; exit 1; }
}

# bg_start NAME ARGS...: faultline record -o $W/NAME.rec ARGS in the
# background, returning once it said it traces.  Its stderr comes through
# a FIFO, read with the shell's builtin read: no helper process of ours
# runs while it records.  bg_stop NAME: stop it (SIGINT, the builtin kill)
# and check its summary line.
bg_start() {
	local name=$1
	shift
	rm -f "$W/ready"
	mkfifo "$W/ready"
	"$FAULTLINE" record -o "$W/$name.rec" "$@" 2>"$W/ready" &
	recpid=$!
	exec 3<"$W/ready"
	while IFS= read -r line <&3; do
		case $line in *'Ctrl-C to end.') break ;; esac
	done
}
bg_stop() {
	kill -INT "$recpid"
	while IFS= read -r line <&3; do
		printf '%s\n' "$line"
	done >"$W/$1.log"
	exec 3<&-
	wait "$recpid"
	grep -q '^faultline record: [0-9]* samples (0 lost)' "$W/$1.log" ||
		{ echo "regen.sh: $1: $(cat "$W/$1.log")" >&2; exit 1; }
}

rec alloc-a -e leak -- "$B/alloc-target" a
rec alloc-b -e leak,faults -- "$B/alloc-target" b
rec faults -e faults -- "$B/fault-target"

# oom.rec: a memcg OOM kill, system-wide record.
V1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
OWN=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { sub("/$", "", $3); print $3; exit }' /proc/self/cgroup)
[ -n "$V1" ] || { echo "regen.sh: no cgroup v1 memory controller" >&2; exit 1; }
CG=$V1$OWN/faultline-golden
mkdir "$CG"
echo $((32 << 20)) >"$CG/memory.limit_in_bytes"
bg_start oom -e oom,reclaim -a
sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$top_builddir/tests/targets/oom-target' --mode self" \
	>"$W/oom.truth" 2>&1 || :
bg_stop oom
grep -q '^mode=self pid=' "$W/oom.truth" || { echo "regen.sh: oom-target: $(cat "$W/oom.truth")" >&2; exit 1; }
rmdir "$CG"
CG=

# cache.rec: a cold read of a 1 MiB file (256 pages), system-wide record.
# The file is in $W, which must be on a block-backed file system (a tmpfs
# page never leaves the cache): dd iflag=nocache drops its pages.
head -c 1048576 /dev/urandom >"$W/cold.dat"
sync "$W/cold.dat"
dd if="$W/cold.dat" iflag=nocache count=0 2>/dev/null
[ "$(fincore --bytes --noheadings --output RES "$W/cold.dat" | tr -d " ")" = 0 ] ||
	{ echo "regen.sh: $W/cold.dat is still cached (tmpfs?)" >&2; exit 1; }
bg_start cache -e cache,cachetop -a
cat "$W/cold.dat" >/dev/null
bg_stop cache

# slab.rec, compact.rec: a command's own kernel allocations and
# compaction runs.
mkdir "$W/slab"
rec slab -e slab -- "$top_builddir/tests/targets/slab-target" "$W/slab" --files 50
rm -rf "$W/slab"
rec compact -e compact -- sh -c 'echo 1 >/proc/sys/vm/compact_memory'

# The bad recordings, from faults.rec.
python3 - "$W" <<'EOF'
import struct, sys
w = sys.argv[1]
data = open(w + "/faults.rec", "rb").read()
offs, off = [], struct.unpack_from("<I", data, 16)[0]
while off < len(data):
    offs.append(off)
    off += 8 + struct.unpack_from("<I", data, off + 4)[0]
def put(name, b):
    open("%s/%s.rec" % (w, name), "wb").write(b)
put("bad-magic", b"FAULTREX" + data[8:])
put("bad-version", data[:8] + struct.pack("<H", 2) + data[10:])
put("bad-cut-record", data[:offs[len(offs) // 2] + 13])
data = open(w + "/alloc-a.rec", "rb").read()
off = struct.unpack_from("<I", data, 16)[0]
while off < len(data):
    last, off = off, off + 8 + struct.unpack_from("<I", data, off + 4)[0]
put("bad-no-end", data[:last])
EOF

for f in "$W"/*.rec; do
	gzip -9nc "$f" >"$G/data/$(basename "$f").gz"
done
ls -l "$G"/data/*.rec.gz "$G"/data/bin/*.gz
outputs
