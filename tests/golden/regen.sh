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
#   tests/golden/regen.sh --record NAME...
#                                     only the recordings NAME (alloc,
#                                     faults, oom, cache, slab, compact,
#                                     sys, swapin) and the binaries they
#                                     run; the others stay as committed
#                                     (a binary rebuilt by another gcc
#                                     would no longer match the build-ids
#                                     of the recordings that name it)
#
# FAULTLINE (default: ./build/faultline of the source tree) is the binary
# run; top_builddir (default: the directory FAULTLINE is in) holds the
# built tests/targets/oom-target.
#
# How each recording is made (--record):
# - The golden targets are built from alloc-target.c, fault-target.c,
#   sys-target.c and swap-target.c
#   (flags below; see their comments for why: stacks of their own frames
#   only) into /tmp/faultline-golden/, the path the recordings then name,
#   and committed as bin/NAME.gz: the test gives them to report under its
#   --symfs at that path.
# - alloc-a.rec: record -e leak -- /tmp/faultline-golden/alloc-target a
# - alloc-b.rec: record -e leak,faults -- /tmp/faultline-golden/alloc-target b
#   (for `diff`: b keeps 2048 bytes more, from one new stack)
# - faults.rec:  record -e faults -- /tmp/faultline-golden/fault-target
# - sys.rec:     record -e brk,mmap,shm,ffaults -- /tmp/faultline-golden/sys-target
#   HOT COLD (see sys-target.c): two files of 256 KiB in /tmp/faultline-golden,
#   HOT in the page cache, COLD's pages dropped (dd iflag=nocache: a
#   block-backed file system, as cache.rec), so that its one fault is major
# - swapin.rec:  record -e swapin -- /tmp/faultline-golden/swap-target, with
#   a zram swap device of this script's own, hot-added (never zram0, which
#   the system tests use) and 16 MiB, swapped on only while the target
#   runs and removed at once: the target's 64 pages go out with
#   MADV_PAGEOUT and come back as major faults.  While the swap is on, any
#   reclaim on the machine may use it (a memcg OOM test running then would
#   swap instead of being killed): keep that window short, on a quiet
#   machine.  Skipped, with the committed recording kept, without
#   /sys/class/zram-control or swapon.
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
# - not recorded here: the THP collapse events of compact.
# - bad-*.rec (python3, below): from faults.rec, the magic changed
#   (bad-magic), major version 2 (bad-version), cut inside a record
#   (bad-cut-record); from alloc-a.rec, every record but END (bad-no-end).
#   Made by a --record of everything only.
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
--record) shift ;;
*) echo "usage: regen.sh --outputs | --record [NAME]..." >&2; exit 2 ;;
esac
ONLY=" $* "
for n; do
	case $n in
	alloc | faults | oom | cache | slab | compact | sys | swapin) ;;
	*) echo "regen.sh: no recording '$n'" >&2; exit 2 ;;
	esac
done
# want NAME: NAME is to be recorded (all of them without names).
want() {
	[ "$ONLY" = "  " ] || case $ONLY in *" $1 "*) ;; *) return 1 ;; esac
}
[ "$(id -u)" = 0 ] || { echo "regen.sh --record: needs root" >&2; exit 1; }

B=/tmp/faultline-golden
W=$(mktemp -d /tmp/fl-regen.XXXXXX)
CG= ZN=
zram_off() {
	[ -n "$ZN" ] || return 0
	swapoff "/dev/zram$ZN" 2>/dev/null
	echo 1 >"/sys/block/zram$ZN/reset" 2>/dev/null
	echo "$ZN" >/sys/class/zram-control/hot_remove ||
		echo "regen.sh: could not remove zram$ZN" >&2
	ZN=
}
cleanup() {
	[ -n "$CG" ] && [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	zram_off
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$B" "$G/data/bin"

# The targets: frame pointers (not needed by the DWARF unwinder, but they
# keep each function's frame), no libc start files; fault-target,
# sys-target and swap-target without libc at all.
# build NAME ARGS: gcc ARGS into $B/NAME, committed as bin/NAME.gz.
build() {
	local b=$1
	shift
	gcc -O1 -Wall -Wextra -fno-omit-frame-pointer "$@" -o "$B/$b" "$G/$b.c"
	gzip -9nc "$B/$b" >"$G/data/bin/$b.gz"
}
# (if, not &&: set -e holds in an if's body, not on the left of &&)
if want alloc; then build alloc-target -nostartfiles; fi
if want faults; then build fault-target -static -nostdlib; fi
if want sys; then build sys-target -static -nostdlib; fi
if want swapin; then build swap-target -static -nostdlib; fi

rec() {
	local name=$1
	shift
	"$FAULTLINE" record -o "$W/$name.rec" "$@" >"$W/$name.log" 2>&1 ||
		{ cat "$W/$name.log" >&2; exit 1; }
	grep -q '^faultline record: [0-9,]* samples (0 lost)' "$W/$name.log" ||
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
	st=0
	wait "$recpid" || st=$?
	[ "$st" = 130 ] && grep -q '^faultline record: stopped by SIGINT$' "$W/$1.log" ||
		{ echo "regen.sh: $1: status $st: $(cat "$W/$1.log")" >&2; exit 1; }
	grep -q '^faultline record: [0-9,]* samples (0 lost)' "$W/$1.log" ||
		{ echo "regen.sh: $1: $(cat "$W/$1.log")" >&2; exit 1; }
}

if want alloc; then
	rec alloc-a -e leak -- "$B/alloc-target" a
	rec alloc-b -e leak,faults -- "$B/alloc-target" b
fi
if want faults; then rec faults -e faults -- "$B/fault-target"; fi

# sys.rec: brk, mmap, shm and file faults of sys-target, one cold file.
if want sys; then
	head -c 262144 /dev/urandom >"$B/ffaults-hot.dat"
	head -c 262144 /dev/urandom >"$B/ffaults-cold.dat"
	cat "$B/ffaults-hot.dat" >/dev/null
	sync "$B/ffaults-cold.dat"
	dd if="$B/ffaults-cold.dat" iflag=nocache count=0 2>/dev/null
	[ "$(fincore --bytes --noheadings --output RES "$B/ffaults-cold.dat" | tr -d " ")" = 0 ] ||
		{ echo "regen.sh: $B/ffaults-cold.dat is still cached (tmpfs?)" >&2; exit 1; }
	rec sys -e brk,mmap,shm,ffaults -- "$B/sys-target" "$B/ffaults-hot.dat" "$B/ffaults-cold.dat"
	rm -f "$B/ffaults-hot.dat" "$B/ffaults-cold.dat"
fi

# swapin.rec: swap-target's 64 pages out to a zram swap of our own and
# back; the target's own account must agree (all 64 out and in, as many
# major faults).
if want swapin; then
	if [ -w /sys/class/zram-control/hot_add ] && command -v swapon >/dev/null; then
		ZN=$(cat /sys/class/zram-control/hot_add)
		echo 16M >"/sys/block/zram$ZN/disksize"
		mkswap "/dev/zram$ZN" >/dev/null
		swapon "/dev/zram$ZN"
		rec swapin -e swapin -- "$B/swap-target"
		zram_off
		sed -n 's/^\(swapped_out=.*\)$/\1/p' "$W/swapin.log" >"$W/swapin.truth"
		grep -qx 'swapped_out=64 swapped_in=64 majflt=64' "$W/swapin.truth" ||
			{ echo "regen.sh: swap-target: $(cat "$W/swapin.log")" >&2; exit 1; }
		rm "$W/swapin.truth"
	else
		echo "regen.sh: no zram-control or swapon: swapin.rec kept as committed" >&2
	fi
fi

if want oom; then
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
fi

if want cache; then
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
fi

# slab.rec, compact.rec: a command's own kernel allocations and
# compaction runs.
if want slab; then
	mkdir "$W/slab"
	rec slab -e slab -- "$top_builddir/tests/targets/slab-target" "$W/slab" --files 50
	rm -rf "$W/slab"
fi
if want compact; then rec compact -e compact -- sh -c 'echo 1 >/proc/sys/vm/compact_memory'; fi

# The bad recordings, from faults.rec.
if [ "$ONLY" = "  " ]; then
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
fi

for f in "$W"/*.rec; do
	[ -e "$f" ] || continue
	gzip -9nc "$f" >"$G/data/$(basename "$f").gz"
done
ls -l "$G"/data/*.rec.gz "$G"/data/bin/*.gz
outputs
