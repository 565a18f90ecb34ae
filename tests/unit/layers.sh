#!/bin/sh
# The layers of src/ (src/README.md), lowest first: a file may include only
# from its own folder and the folders before it, so no module reaches up
# into one that uses it. compat/ (kernel feature probing) sits just above
# lib/. A quoted include naming no known folder is an error too: every
# header is reached through its layer (generated proto/ code counts as
# a library's).  And no file or function too long to read (below).
srcdir=${top_srcdir:-$(dirname "$0")/../..}
cd "$srcdir" || exit 99
layers="lib compat proc stack trace agg cmd"
rank() {
	i=0
	for l in $layers; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}
bad=0
checked=0
for f in $(find src compat -name '*.[ch]' | sort); do
	case $f in
	compat/*) from=compat ;;
	src/*/*) from=${f#src/}; from=${from%%/*} ;;
	*) echo "layers: $f: not in a layer folder"; bad=$((bad + 1)); continue ;;
	esac
	rf=$(rank "$from")
	if [ "$rf" -lt 0 ]; then
		echo "layers: $f: folder '$from' is not a layer"
		bad=$((bad + 1))
		continue
	fi
	for inc in $(sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
		case $inc in
		features.h|ladder.h) to=compat ;;
		# protoc-c's code from proto/*.proto, generated in the build tree:
		# a library's, lowest.
		proto/*) to=lib ;;
		*/*) to=${inc%%/*} ;;
		*) echo "layers: $f includes \"$inc\", which names no layer"
		   bad=$((bad + 1)); continue ;;
		esac
		rt=$(rank "$to")
		checked=$((checked + 1))
		if [ "$rt" -lt 0 ]; then
			echo "layers: $f includes \"$inc\": '$to' is not a layer"
			bad=$((bad + 1))
		elif [ "$rt" -gt "$rf" ]; then
			echo "layers: $f ($from) includes \"$inc\" from the higher layer $to"
			bad=$((bad + 1))
		fi
	done
done
# Sizes: a .c file of more than 1,200 lines, or a function of more than
# 150 (from its opening brace in column 0 to its closing one, the
# kernel's style), is a module doing more than one job, unless the file
# says why in its opening comment (a line "Why so long: ...").
for f in $(find src compat -name '*.c' | sort); do
	why=$(awk 'NR == 1 && !/^\/\*/ { exit } /Why so long:/ { print "y"; exit } /\*\// { exit }' "$f")
	[ -n "$why" ] && continue
	lines=$(wc -l <"$f")
	if [ "$lines" -gt 1200 ]; then
		echo "layers: $f has $lines lines (more than 1,200, and no 'Why so long:' in its opening comment)"
		bad=$((bad + 1))
	fi
	long=$(awk '/^\{$/ { start = NR; name = prev }
		/^\}/ && start { if (NR - start - 1 > 150) printf "%s (line %d, %d lines); ", name, start, NR - start - 1; start = 0 }
		!/^\{$/ { prev = $0 }' "$f")
	if [ -n "$long" ]; then
		echo "layers: $f: functions of more than 150 lines, and no 'Why so long:': $long"
		bad=$((bad + 1))
	fi
done
echo "layers: $checked includes checked, $bad wrong"
[ "$checked" -gt 100 ] || { echo "layers: too few includes found: is this the tree?"; exit 1; }
[ "$bad" -eq 0 ]
