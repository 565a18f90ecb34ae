#!/bin/sh
# container.sh: leak -p of a process in a container of its own, in other
# mount and PID namespaces, whose root (a tmpfs mounted in its private
# mount namespace only) holds leak-target, the loader and a libc that is
# not the host's: a copy whose build-id differs.  The host sees the mount
# point's own directory, where a decoy (the host's libc, other content)
# sits at the path the container's maps name.  faultline must probe and
# read the container's file, never the decoy nor the host's libc:
#   A. libc at the host's own path (the decoy's): exact outstanding bytes
#      and blocks per site (the target's own account), the banner saying
#      both pids ("PID 4242 (pid 1 in its namespace)"); a recording of it
#      holds the same account and names the container's libc by its
#      build-id (report pprof's mappings), not the decoy's;
#   B. libc at a path that exists only inside the container
#      (LD_LIBRARY_PATH there): the same exact account.
#   C. -c of a command that enters the container (unshare --root=IMAGE,
#      image A on the host's disk): faultline probes the host's libc for the
#      command, then, as the program exec'd in there maps its own libc, that
#      one (one stderr line: "... as pid N sees it (the allocator of the
#      program it exec'd) from now on"); once the line is out the test lets
#      the program allocate: the same exact account; the report's header
#      names both allocators.  What such a program allocates before that
#      line (its start-up) is not seen: said in the line.
# Synchronized by the target's --go FIFO, opened through /proc/PID/root.
. "$top_srcdir/tests/system/lib.sh"
need_root
command -v unshare >/dev/null 2>&1 || skip "no unshare (util-linux)"
unshare --help 2>&1 | grep -q -- '--root' || skip "unshare has no --root (util-linux 2.35+)"

LT=$(target leak-target)
LIBC=$(ldd "$LT" | awk '$1 ~ /^libc\.so/ { print $3 }')
LDSO=$(ldd "$LT" | awk '$1 ~ /^\// { print $1 }')
[ -f "$LIBC" ] && [ -f "$LDSO" ] || skip "leak-target's libc or loader not found by ldd"

# mkroot DIR LIBDIR: a container image in DIR, its libc in LIBDIR there;
# prints the build-id of that libc (the host's, each byte inverted).
mkroot() {
	mkdir -p "$1$2" "$1${LDSO%/*}" "$1/proc" || return 1
	cp "$LT" "$1/leak-target" && cp "$LDSO" "$1$LDSO" && cp "$LIBC" "$1$2/${LIBC##*/}" &&
		mkfifo "$1/go" || return 1
	python3 - "$1$2/${LIBC##*/}" <<'PY'
import subprocess, sys
path = sys.argv[1]
notes = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
bid = bytes.fromhex(notes.split("Build ID:")[1].split()[0])
data = bytearray(open(path, "rb").read())
at = data.find(bid)
if at < 0 or data.find(bid, at + 1) >= 0:
    sys.exit("the build-id is not once in " + path)
data[at:at + len(bid)] = bytes(b ^ 0xff for b in bid)
open(path, "wb").write(data)
print(data[at:at + len(bid)].hex())
PY
}

# start NAME IMAGE [ENV]: the container from IMAGE, mounted over $T/root
# in a private mount namespace; its first process (leak-target, pid 1
# there) in $ct once it waits on its FIFO.
start() {
	spawn "$1" unshare -m --propagation private sh -c '
		mount -t tmpfs tmpfs "$1" && cp -a "$2/." "$1/" || exit 99
		exec env $3 unshare -fp --mount-proc --root="$1" /leak-target leaks --go /go' \
		sh "$T/root" "$2" "${3:-}"
	wait_until "$FL_READY_TIMEOUT" at_go "$spawned" ||
		fail "$1: the container's leak-target never waited on its FIFO: $(cat "$T/$1.err")"
}
at_go() {
	ct=$(tr -d ' ' <"/proc/$1/task/$1/children" 2>/dev/null) &&
		[ -n "$ct" ] && _fl_at_fifo "$ct"
}

# check JSON TRUTH: every site of the truth is one stack of exactly its
# bytes and blocks, and the malloc family's totals are the target's.
check() {
	python3 "$top_srcdir/tests/system/leak-check.py" sites "$@" ||
		fail "leak of the container's target: $*"
}

mkdir -p "$T/root${LIBC%/*}" && cp "$LIBC" "$T/root$LIBC" || fail "cannot place the decoy"
host_id=$(readelf -n "$LIBC" | sed -n 's/.*Build ID: *//p')

# A. libc where the host has its own (and the decoy is).
ida=$(mkroot "$T/img-a" "${LIBC%/*}") || fail "cannot make image A"
start ct-a "$T/img-a"
run_fl_go "/proc/$ct/root/go" leak --json -p "$ct"
expect_eq "$rc" 0 "A: leak -p status"
wait_exit "$spawned" "container A"
expect_line "^pid=1$" "$T/ct-a.out"
expect_line "of PID $ct \(pid 1 in its namespace\) with " "$T/err"
check "$T/out" "$T/ct-a.out"

start ct-a2 "$T/img-a"
run_fl_go "/proc/$ct/root/go" record -e leak -o "$T/a.rec" -p "$ct"
expect_eq "$rc" 0 "A: record -p status"
wait_exit "$spawned" "container A, recorded"
# Its binaries are not named after the container is gone (nothing on the
# host has them): the account is compared, not the sites.
run_fl report -i "$T/a.rec" leak --json
expect_eq "$(leak_nums "$T/out" lost bytes blocks)" \
	"0 $(sed -n 's/^outstanding_bytes=//p' "$T/ct-a2.out") $(sed -n 's/^outstanding_count=//p' "$T/ct-a2.out")" \
	"A: the recording's lost events, outstanding bytes and blocks"
run_fl report -i "$T/a.rec" pprof -o "$T/a.pb"
if grep -q "built without pprof output" "$T/err"; then
	echo "report pprof not built here: the recorded build-id is not checked"
else
	expect_eq "$rc" 0 "A: report pprof status"
	python3 - "$T/a.pb" "$ida" "$host_id" <<'PY' || fail "A: the recording's libc build-id"
import gzip, sys
data = open(sys.argv[1], "rb").read()
if data[:2] == b"\x1f\x8b":
    data = gzip.decompress(data)
if sys.argv[2].encode() not in data:
    sys.exit("the container's libc (build-id %s) is not in the profile" % sys.argv[2])
if sys.argv[3].encode() in data:
    sys.exit("the host's libc build-id %s is in the profile" % sys.argv[3])
PY
fi

# C. -c into the container: its libc probed as the exec'd program maps it.
spawn ct-c "$FAULTLINE" leak --json -T 100 -c "unshare -fpm --mount-proc --root=$T/img-a /leak-target leaks --go /go"
wait_until "$FL_READY_TIMEOUT" grep -q "as pid [0-9]* sees it (the allocator of the program it exec'd) from now on" \
	"$T/ct-c.err" || fail "C: no probing line for the container's libc: $(cat "$T/ct-c.err")"
expect_line "^faultline leak: probing .* of glibc in ${LIBC} as pid [0-9]+ sees it \\(the allocator of the program it exec'd\\) from now on; its earlier calls are not seen$" "$T/ct-c.err"
echo go >"$T/img-a/go"
wait_exit "$spawned" "C: faultline leak -c"
expect_eq "$rc" 0 "C: leak -c status"
# Sites only: unshare's own blocks (its locale) are in the totals too, and
# in the stacks (-T 100: all of them).
grep '^site' "$T/ct-c.out" >"$T/ct-c.truth"
check "$T/ct-c.out" "$T/ct-c.truth"
spawn ct-c2 "$FAULTLINE" leak -c "unshare -fpm --mount-proc --root=$T/img-a /leak-target leaks --go /go"
wait_until "$FL_READY_TIMEOUT" grep -q "the allocator of the program it exec'd" "$T/ct-c2.err" ||
	fail "C: text run: no probing line"
echo go >"$T/img-a/go"
wait_exit "$spawned" "C: faultline leak -c, text"
expect_line "probed from its mapping on: .*glibc in ${LIBC} as pid [0-9]+ sees it" "$T/ct-c2.out"

# B. libc at a path only the container has.
mkroot "$T/img-b" /container-only/lib >/dev/null || fail "cannot make image B"
start ct-b "$T/img-b" LD_LIBRARY_PATH=/container-only/lib
run_fl_go "/proc/$ct/root/go" leak --json -p "$ct"
expect_eq "$rc" 0 "B: leak -p status"
wait_exit "$spawned" "container B"
check "$T/out" "$T/ct-b.out"
pass_or_fail
