# alloc-where-lib.sh: the allocator builds of alloc-where (tests/targets/
# alloc-where.c) and the probing line's check, for alloc-where.sh and
# alloc-where-tools.sh; sourced after lib.sh.
#
# aw_build KIND: build $T/aw-KIND, or fail (the toolchain is a test
#   package: scripts/install-deps) and return 1.  KIND:
#     musl       musl-gcc -static
#     musl-dyn   musl-gcc, dynamic (musl's ld.so is its libc)
#     je         jemalloc linked in: libjemalloc_pic.a (libjemalloc-dev)
#     tc         tcmalloc linked in: libtcmalloc.a (libgoogle-perftools-dev),
#                whose stack walker calls libunwind (-lunwind: libunwind.so,
#                libunwind-dev, which faultline's build needs anyway)
#   The static glibc build (alloc-where-static), the dlopen one
#   (alloc-where-dl) and its library (liblate-alloc.so) come from
#   Makefile.am.
# aw_probing TOOL SYMS PATH KIND FILE: FILE (a run's stderr) says first,
#   in its line "faultline TOOL: probing SYMS in P (KIND)", exactly those
#   functions and that kind, in P, a path of the file PATH (both resolved:
#   a command's libc may be named /lib/..., a process's /usr/lib/...).
#   KIND "dlopen": the line of a library dlopen'ed by the target ("SYMS of
#   WHAT in P (dlopen'ed by pid N) from now on...").
[ "$(uname -m)" = x86_64 ] || skip "the targets are built for x86-64"
AW_SRC=$top_srcdir/tests/targets/alloc-where.c
AW_COPTS="-O0 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls"

# _aw_lib NAME: the path of a static library of the multiarch directory.
_aw_lib() {
	ls /usr/lib/*/"$1" /usr/lib/"$1" 2>/dev/null | head -n 1 | grep .
}

aw_build() {
	local out=$T/aw-$1 lib
	# shellcheck disable=SC2086 # AW_COPTS are words
	case $1 in
	musl | musl-dyn)
		command -v musl-gcc >/dev/null 2>&1 || {
			fail "musl-gcc missing (musl-tools: scripts/install-deps)"
			return 1
		}
		if [ "$1" = musl ]; then
			musl-gcc $AW_COPTS -static -o "$out" "$AW_SRC"
		else
			musl-gcc $AW_COPTS -o "$out" "$AW_SRC"
		fi
		;;
	je)
		lib=$(_aw_lib libjemalloc_pic.a) || {
			fail "no libjemalloc_pic.a to link (libjemalloc-dev: scripts/install-deps)"
			return 1
		}
		${CC:-cc} $AW_COPTS -o "$out" "$AW_SRC" "$lib" -lpthread -ldl -lm -lstdc++
		;;
	tc)
		lib=$(_aw_lib libtcmalloc.a) || {
			fail "no libtcmalloc.a to link (libgoogle-perftools-dev: scripts/install-deps)"
			return 1
		}
		${CC:-cc} $AW_COPTS -o "$out" "$AW_SRC" "$lib" -lunwind -lstdc++ -lpthread -lm
		;;
	esac || {
		fail "the $1 build of alloc-where failed"
		return 1
	}
	# A build that does not run is no case either.
	"$out" >"$T/aw-$1.run" || {
		fail "the $1 build of alloc-where does not run: $(head -n 3 "$T/aw-$1.run")"
		return 1
	}
}

# The functions' list: names and ", " between them (no " of ", no " in ").
_aw_syms='\([a-z_0-9]*\(, [a-z_0-9]*\)*\)'

aw_probing() {
	local tool=$1 syms=$2 path=$3 kind=$4 file=$5 line got
	if [ "$kind" = dlopen ]; then
		line=$(grep "^faultline $tool: probing .* (dlopen'ed by pid [0-9]*) from now on" "$file" | head -n 1)
		got=$(printf '%s\n' "$line" | sed -n "s/^faultline $tool: probing $_aw_syms of .* in \\(.*\\) (dlopen'ed by pid [0-9]*) from now on.*/\\1|\\3|dlopen/p")
	else
		# The first thing said, after what is the machine's and not
		# this run's: probe groups another faultline left when it died
		# (CI's host may hold one; `faultline cleanup` is theirs).
		line=$(grep -v "$FL_MACHINE_WARNING" "$file" | head -n 1)
		got=$(printf '%s\n' "$line" | sed -n "s/^faultline $tool: probing $_aw_syms in \\(.*\\) (\\([^()]*\\))\$/\\1|\\3|\\4/p")
	fi
	if [ -z "$got" ]; then
		fail "$tool: no probing line ($kind) in ${file#"$T"/}: $(head -n 2 "$file")"
		return 0
	fi
	expect_eq "${got%%|*}" "$syms" "$tool: the functions probed"
	got=${got#*|}
	expect_eq "$(readlink -f "${got%|*}")" "$(readlink -f "$path")" "$tool: the object probed (${got%|*})"
	expect_eq "${got##*|}" "$kind" "$tool: the allocator's kind"
}
