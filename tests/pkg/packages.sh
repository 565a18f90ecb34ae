#!/usr/bin/env bash
# The packages build, install and go away again (issue 14, item 5).
#
#   .deb: dpkg-buildpackage -us -uc -b in a temp copy of the source tree;
#         the .deb holds the binary, the man pages and the completion;
#         lintian reports no error (its warnings are printed); dpkg -i, then
#         `faultline features` exits 0 and sees tracefs, `faultline
#         --version` prints configure.ac's version; dpkg -r, after which
#         /usr holds exactly what it held before.
#   .rpm: make dist in another copy, rpmbuild -tb on the tarball (with
#         --nodeps: Debian's rpm database knows none of the RHEL or Fedora
#         BuildRequires; the point is that the spec parses and builds), and
#         rpm -qlp lists bin/faultline, every man page and the completion;
#         the spec's RHEL 7 branch (static binary) parses too, and is
#         built (rpmbuild --define 'rhel 7'): that rpm's bin/faultline is
#         statically linked (no PT_INTERP, no NEEDED) and runs
#         `--version`; with FAULTLINE_PKG_EL7_BINARY=FILE it is also
#         copied there, for scripts/check-vm to boot in the RHEL 7 guest
#         (item 5 of issue 23: the binary the RHEL 7 rpm ships is the one
#         tested on RHEL 7's kernel).
#
# Not one of make check's TESTS: it installs a package on this host.
# scripts/check runs it after the static build.  Run by hand as root:
# tests/pkg/packages.sh (from any directory).  Missing packaging tools
# (dpkg-dev, debhelper, rpm, lintian, cpio) are installed with apt-get.
# Exit status: 0 pass, 1 fail, 77 skip (not root, not Debian, or the tools
# cannot be installed).  Refuses (1) to run where faultline is already
# installed, which its dpkg -i would overwrite and its dpkg -r remove.
# Prints how long it took.

set -uo pipefail

srcdir=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
start=$(date +%s)
failures=0

say() { echo "packages: $*"; }
fail() {
	say "FAIL: $*"
	failures=$((failures + 1))
}
skip() {
	say "SKIP: $*"
	exit 77
}
elapsed() { echo "packages: took $(($(date +%s) - start)) s"; }
# die MSG [LOG]: a step the others depend on failed.
die() {
	fail "$1"
	if [ -n "${2:-}" ] && [ -f "$2" ]; then
		echo "--- $2 (last 40 lines)"
		tail -n 40 "$2"
		echo "---"
	fi
	finish
}
finish() {
	elapsed
	if [ "$failures" -eq 0 ]; then
		say "PASS"
		exit 0
	fi
	say "$failures failure(s)"
	exit 1
}

[ "$(id -u)" -eq 0 ] || skip "not root: dpkg -i needs root"
if ! command -v dpkg >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	skip "not a Debian system (no dpkg or apt-get)"
fi

# The packaging tools, and the build dependencies of debian/control.
tools=(dpkg-dev debhelper rpm lintian cpio)
missing=()
for p in "${tools[@]}"; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
		missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	say "installing ${missing[*]}"
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
		{ apt-get update && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends "${missing[@]}"; }; } >/dev/null 2>&1 ||
		skip "cannot install ${missing[*]}"
fi
for c in dpkg-buildpackage dh rpmbuild rpmspec rpm rpm2cpio cpio lintian; do
	command -v "$c" >/dev/null 2>&1 || skip "no $c after installing ${tools[*]}"
done

ver=$(sed -n 's/^AC_INIT(\[faultline\], \[\([^]]*\)\].*/\1/p' "$srcdir/configure.ac")
[ -n "$ver" ] || die "no version in configure.ac's AC_INIT"
say "faultline $ver from $srcdir"

status=$(dpkg-query -W -f='${db:Status-Status}' faultline 2>/dev/null) || status=
if [ -n "$status" ] && [ "$status" != not-installed ]; then
	die "the faultline package is on this host ($status): dpkg -r it first"
fi
for f in /usr/bin/faultline /usr/share/faultline /usr/share/man/man1/faultline.1 \
	/usr/share/man/man1/faultline.1.gz /usr/share/bash-completion/completions/faultline; do
	[ -e "$f" ] && die "$f exists (a make install?): the package would overwrite it"
done

T=$(mktemp -d /tmp/faultline-pkg.XXXXXX) || exit 1
installed=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	if [ -n "$installed" ]; then
		dpkg -P faultline >/dev/null 2>&1 || say "could not remove the faultline package"
	fi
	rm -rf "$T"
}
trap cleanup EXIT

# copy_tree DIR: the source tree as a fresh clone has it, plus what is not
# committed yet (git's tracked and untracked files, ignored ones left out:
# no build directory, no configure output); from a tarball, all of it.
copy_tree() {
	mkdir -p "$1" || return 1
	if [ -e "$srcdir/.git" ] && command -v git >/dev/null 2>&1; then
		git -C "$srcdir" ls-files -z -co --exclude-standard |
			tar -C "$srcdir" --null --ignore-failed-read -T - -cf - 2>/dev/null |
			tar -C "$1" -xf -
	else
		tar -C "$srcdir" --exclude='./build*' -cf - . | tar -C "$1" -xf -
	fi || return 1
	# A tree configured in place: the copy as a fresh clone would be (the
	# rpm's out-of-tree configure refuses a configured source tree).
	if [ -f "$1/config.status" ]; then
		(cd "$1" && make distclean) >/dev/null 2>&1 || return 1
	fi
}

# --- the .deb
say "dpkg-buildpackage -us -uc -b"
copy_tree "$T/deb/faultline" || die "copying the tree"
mkdir -p "$T/deb/faultline/m4"
(cd "$T/deb/faultline" && dpkg-buildpackage -us -uc -b) >"$T/deb-build.log" 2>&1 ||
	die "dpkg-buildpackage failed" "$T/deb-build.log"
arch=$(dpkg --print-architecture)
deb=$T/deb/faultline_${ver}_${arch}.deb
[ -f "$deb" ] || die "no $deb: dpkg-buildpackage made $(ls "$T/deb")"
say "built ${deb##*/} ($(stat -c %s "$deb") bytes)"

dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' >"$T/deb-files"
# The man pages: one per docs/man/*.1.in.
man_pages=()
for f in "$srcdir"/docs/man/*.1.in; do
	f=${f##*/}
	man_pages+=("${f%.in}")
done
for f in /usr/bin/faultline /usr/share/bash-completion/completions/faultline \
	/usr/share/faultline/probes/glibc.probes \
	"${man_pages[@]/#/\/usr\/share\/man\/man1\/}"; do
	case $f in */man1/*) f=$f.gz ;; esac
	grep -qxF "$f" "$T/deb-files" || fail "the .deb lacks $f"
done

say "lintian"
lintian --tag-display-limit 0 "$T/deb/faultline_${ver}_${arch}.changes" >"$T/lintian.log" 2>&1
# Its tags, errors failing the test; not its notice about running as root.
grep -v 'running with root privileges' "$T/lintian.log" | sed 's/^/  /'
say "lintian: $(grep -c '^E: ' "$T/lintian.log") errors, $(grep -c '^W: ' "$T/lintian.log") warnings"
grep -q '^E: ' "$T/lintian.log" && fail "lintian reports errors"

# What /usr holds before the package: after dpkg -r it must hold the same.
find /usr -xdev | sort >"$T/usr-before"

say "dpkg -i"
installed=1
dpkg -i "$deb" >"$T/dpkg-i.log" 2>&1 || die "dpkg -i failed" "$T/dpkg-i.log"
if [ ! -x /usr/bin/faultline ]; then
	die "no /usr/bin/faultline after dpkg -i"
fi
/usr/bin/faultline --version >"$T/version" 2>&1
out=$(cat "$T/version")
[ "$out" = "faultline $ver" ] || fail "faultline --version: '$out', expected 'faultline $ver'"
/usr/bin/faultline features >"$T/features" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	fail "faultline features: exit $rc"
	sed 's/^/  /' "$T/features"
fi
grep -qE '^tracefs +yes' "$T/features" || fail "faultline features: no 'tracefs yes' line"
grep -qE '^leak ' "$T/features" || fail "faultline features: no 'leak' line"
say "installed faultline runs: $out, features exit $rc"

say "dpkg -r"
dpkg -r faultline >"$T/dpkg-r.log" 2>&1 || die "dpkg -r failed" "$T/dpkg-r.log"
status=$(dpkg-query -W -f='${db:Status-Status}' faultline 2>/dev/null) || status=
[ -z "$status" ] || [ "$status" = not-installed ] ||
	fail "after dpkg -r the package is '$status', not not-installed (conffiles left?)"
dpkg -P faultline >/dev/null 2>&1
installed=
find /usr -xdev | sort >"$T/usr-after"
if ! diff "$T/usr-before" "$T/usr-after" >"$T/usr-diff"; then
	fail "/usr differs after dpkg -r:"
	sed 's/^/  /' "$T/usr-diff" | head -n 20
fi

# --- the .rpm
say "make dist"
copy_tree "$T/rpm/src" || die "copying the tree"
mkdir -p "$T/rpm/src/m4" "$T/rpm/dist"
(cd "$T/rpm/src" && autoreconf -fi) >"$T/autoreconf.log" 2>&1 ||
	die "autoreconf failed" "$T/autoreconf.log"
(cd "$T/rpm/dist" && ../src/configure && make dist) >"$T/dist.log" 2>&1 ||
	die "configure && make dist failed" "$T/dist.log"
tarball=$T/rpm/dist/faultline-$ver.tar.gz
[ -f "$tarball" ] || die "make dist made no faultline-$ver.tar.gz"

for rhel in 7 9; do
	rpmspec -P --define "rhel $rhel" "$srcdir/faultline.spec" >"$T/spec-rhel$rhel" 2>&1 ||
		fail "faultline.spec does not parse with rhel $rhel: $(tail -n 3 "$T/spec-rhel$rhel")"
done
grep -qE -- '^[^#]*--enable-static-binary' "$T/spec-rhel7" ||
	fail "faultline.spec: the RHEL 7 build is not --enable-static-binary"
grep -qE -- '^[^#]*--enable-static-binary' "$T/spec-rhel9" &&
	fail "faultline.spec: the RHEL 9 build is --enable-static-binary"

say "rpmbuild --nodeps -tb ${tarball##*/}"
rpmbuild --nodeps --define "_topdir $T/rpm/top" -tb "$tarball" >"$T/rpmbuild.log" 2>&1 ||
	die "rpmbuild failed" "$T/rpmbuild.log"
rpmfile=$(find "$T/rpm/top/RPMS" -name "faultline-$ver-*.rpm" ! -name '*debug*' | head -n 1)
[ -n "$rpmfile" ] || die "rpmbuild made no faultline-$ver rpm" "$T/rpmbuild.log"
say "built ${rpmfile##*/} ($(stat -c %s "$rpmfile") bytes)"
rpm -qlp "$rpmfile" >"$T/rpm-files" 2>/dev/null || die "rpm -qlp $rpmfile failed"
grep -qE '/bin/faultline$' "$T/rpm-files" || fail "the rpm lacks bin/faultline"
grep -qE '/bash-completion/completions/faultline$' "$T/rpm-files" ||
	fail "the rpm lacks the bash completion"
for m in "${man_pages[@]}"; do
	grep -qE "/man1/$m(\\.gz)?\$" "$T/rpm-files" || fail "the rpm lacks the man page $m"
done
[ "$(rpm -qp --qf '%{VERSION}' "$rpmfile" 2>/dev/null)" = "$ver" ] ||
	fail "the rpm's version is not $ver"

# --- the RHEL 7 rpm: the static binary
say "rpmbuild --nodeps --define 'rhel 7' -tb ${tarball##*/}"
if ! rpmbuild --nodeps --define "_topdir $T/rpm/top7" --define "rhel 7" -tb "$tarball" \
	>"$T/rpmbuild7.log" 2>&1; then
	die "rpmbuild (rhel 7) failed" "$T/rpmbuild7.log"
fi
rpm7=$(find "$T/rpm/top7/RPMS" -name "faultline-$ver-*.rpm" ! -name '*debug*' | head -n 1)
[ -n "$rpm7" ] || die "rpmbuild (rhel 7) made no faultline-$ver rpm" "$T/rpmbuild7.log"
mkdir -p "$T/rpm7"
(cd "$T/rpm7" && rpm2cpio "$rpm7" | cpio -idm --quiet) ||
	die "cannot unpack ${rpm7##*/}"
bin7=$(find "$T/rpm7" -path '*/bin/faultline' -type f | head -n 1)
[ -n "$bin7" ] || die "the RHEL 7 rpm lacks bin/faultline"
say "built ${rpm7##*/} ($(stat -c %s "$rpm7") bytes)"
readelf -lW "$bin7" 2>/dev/null | grep -q 'INTERP' &&
	fail "the RHEL 7 rpm's faultline asks for a dynamic loader"
readelf -dW "$bin7" 2>/dev/null | grep -q '(NEEDED)' &&
	fail "the RHEL 7 rpm's faultline needs shared libraries: $(readelf -dW "$bin7" | grep NEEDED | tr -s ' ' | head -n 3)"
[ "$("$bin7" --version 2>&1 | head -n 1)" = "faultline $ver" ] ||
	fail "the RHEL 7 rpm's faultline --version: $("$bin7" --version 2>&1 | head -n 1)"
if [ -n "${FAULTLINE_PKG_EL7_BINARY:-}" ]; then
	cp "$bin7" "$FAULTLINE_PKG_EL7_BINARY" ||
		fail "cannot copy the RHEL 7 rpm's faultline to $FAULTLINE_PKG_EL7_BINARY"
fi

finish
