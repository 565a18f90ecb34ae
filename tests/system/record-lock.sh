#!/bin/sh
# record-lock.sh: another user cannot steer root's `record -o` through its
# lock.  In a sticky world-writable directory (as /tmp is), nobody makes
# .NAME.lock first: a file it holds flock()ed (before, root's record said
# "being written by another faultline" and gave up: a lie, and a way to
# stop root's recordings), then a symlink to a file of root's.  Root's
# record refuses each with one line naming the lock and its owner, makes
# no recording, leaves the lock (and the symlink's target) as they were;
# once the lock is gone, the same record runs.
. "$top_srcdir/tests/system/lib.sh"
need_root
command -v setpriv >/dev/null 2>&1 || skip "no setpriv to run as nobody"
command -v flock >/dev/null 2>&1 || skip "no flock(1)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
grp=$(id -gn nobody)
as_nobody() { setpriv --reuid=nobody --regid="$grp" --clear-groups "$@"; }

chmod 711 "$T"
S=$T/sticky
mkdir "$S" && chmod 1777 "$S"
listing() { (cd "$S" && ls -A | tr '\n' ' '); }

# nobody's lock file, held by nobody's flock(1) until its FIFO is opened.
mkfifo -m 666 "$S/hold.fifo"
chown nobody "$S/hold.fifo"
spawn holder setpriv --reuid=nobody --regid="$grp" --clear-groups \
	flock "$S/.a.rec.lock" cat "$S/hold.fifo"
holder=$spawned
wait_until "$FL_READY_TIMEOUT" sh -c '! flock -n "$1" true' - "$S/.a.rec.lock" ||
	fail "nobody's flock(1) never held $S/.a.rec.lock"
expect_eq "$(stat -c %U "$S/.a.rec.lock")" nobody "the lock's owner"
run_fl record -e brk -o "$S/a.rec" -c true
expect_eq "$rc" 125 "record beside nobody's lock: status (faultline failed, a command given)"
expect_eq "$(grep -c . "$T/err")" 1 "record beside nobody's lock: lines on stderr"
expect_line "^faultline record: the lock '$S/\.a\.rec\.lock' is a file of nobody, not of this user: not using it \(remove it if no faultline of theirs is writing '$S/a\.rec'\)\$" "$T/err"
expect_no_line "being written by another faultline" "$T/err"
[ -e "$S/a.rec" ] && fail "a recording made beside nobody's lock"
expect_eq "$(stat -c %U "$S/.a.rec.lock")" nobody "nobody's lock, after"
release "$S/hold.fifo"
wait_exit "$holder" "nobody's flock(1)"
# Not held any more, still nobody's: refused all the same (it is not ours
# to take over, as a lock of our own left by a killed record would be).
run_fl record -e brk -o "$S/a.rec" -c true
expect_eq "$rc" 125 "record beside nobody's unheld lock: status"
expect_line "^faultline record: the lock '$S/\.a\.rec\.lock' is a file of nobody, " "$T/err"
rm "$S/.a.rec.lock"
run_fl record -e brk -o "$S/a.rec" -c true
expect_eq "$rc" 0 "record once nobody's lock is gone: status"
expect_eq "$(stat -c '%U %a' "$S/a.rec")" "root 600" "the recording's owner and mode"
run_fl report -i "$S/a.rec" info
expect_eq "$rc" 0 "report of that recording"

# nobody's symlink at the lock's name, to a file of root's.
echo secret >"$S/victim"
chmod 644 "$S/victim"
as_nobody ln -s victim "$S/.b.rec.lock" || fail "nobody cannot make a symlink in $S"
run_fl record -e brk -o "$S/b.rec" -c true
expect_eq "$rc" 125 "record beside nobody's symlink lock: status"
expect_eq "$(grep -c . "$T/err")" 1 "record beside nobody's symlink lock: lines on stderr"
expect_line "^faultline record: the lock '$S/\.b\.rec\.lock' is a symbolic link \(of nobody\): not using it\$" "$T/err"
expect_eq "$(cat "$S/victim")" secret "the symlink's target"
expect_eq "$(stat -c '%U %a' "$S/victim")" "root 644" "the symlink's target: owner and mode"
[ -L "$S/.b.rec.lock" ] || fail "nobody's symlink was removed"
[ -e "$S/b.rec" ] && fail "a recording made beside nobody's symlink"

expect_eq "$(listing)" ".b.rec.lock a.rec hold.fifo victim " "what the directory holds"
pass_or_fail
