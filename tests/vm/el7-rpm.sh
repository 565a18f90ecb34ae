#!/bin/sh
# el7-rpm.sh (guest, RHEL 7's 3.10): the faultline the RHEL 7 rpm ships
# runs here.  check-vm puts that rpm's bin/faultline (scripts/check builds
# it: tests/pkg/packages.sh, rpmbuild --define 'rhel 7') in the initramfs
# and init makes it the $FAULTLINE of every el7 test; this one shows it is
# the static binary: in a root that holds nothing but it (no loader, no
# library; /proc, /sys and debugfs bound in), `--version` and `features`
# run, and features names debugfs's tracing directory and the uprobes.
# Without such a binary (check-vm run by hand), a skip.
. "$top_srcdir/tests/system/lib.sh"
need_root
[ "${FL_EL7_RPM:-}" = 1 ] || skip "no RHEL 7 rpm's faultline given (FAULTLINE_VM_EL7_FAULTLINE)"
expect_eq "$FAULTLINE_BIN" /fl/build/faultline-el7 "the el7 tests' faultline"
B=$T/bare
mkdir -p "$B/proc" "$B/sys" "$B/bin" || fail "cannot make the bare root"
cp "$FAULTLINE_BIN" "$B/bin/faultline" || fail "cannot copy the rpm's faultline"
mount --bind /proc "$B/proc" && mount --rbind /sys "$B/sys" || fail "cannot bind /proc and /sys"
ver=$(chroot "$B" /bin/faultline --version 2>&1)
case $ver in
"faultline "[0-9]*) echo "ok: $ver, alone in a root without a loader or a library" ;;
*) fail "the rpm's faultline --version in a bare root: $ver" ;;
esac
chroot "$B" /bin/faultline features >"$T/out" 2>"$T/err"
rc=$?
umount -l "$B/sys" "$B/proc"
expect_eq "$rc" 0 "features in the bare root: exit ($(head -c 300 "$T/err"))"
expect_line '^tracefs dir +/sys/kernel/debug/tracing$' "$T/out"
expect_line '^uprobes +yes ' "$T/out"
pass_or_fail
