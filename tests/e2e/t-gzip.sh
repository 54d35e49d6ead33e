# t-gzip: the two gzip backends of common/gz/gz.c side by side.  Good and
# damaged gzip inputs go through tr-decode of this build and of a build with
# the other backend (GZIP_OTHER_BIN; `make check` builds build-zlib/ with
# GZIP=zlib and sets it): the exit status, the stream (the decompressed
# trace) and stderr must be byte-identical.  The .gz that each build's
# tr-encode writes is read back by the other and by gzip(1).
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2

OTHER=${GZIP_OTHER_BIN:-}
if [ -z "$OTHER" ] || [ ! -x "$OTHER/tr-decode" ]; then
	skip "gzip backends compared" "GZIP_OTHER_BIN is not set (make check sets it to build-zlib/bin)"
else

this=$(sed -n 2p <<EOF
$("$BIN/tr-decode" --version)
EOF
)
other=$(sed -n 2p <<EOF
$("$OTHER/tr-decode" --version)
EOF
)
echo "   comparing $this (this build) with $other ($OTHER)"
case "$other" in "gzip: zlib "*) pass "the other build uses zlib" ;;
	*) fail "the other build uses zlib" "its --version says: $other" ;; esac
# where ISA-L is installed the default build must have taken it
if [ -f /usr/include/isa-l/igzip_lib.h ]; then
	case "$this" in "gzip: ISA-L "*) pass "ISA-L is installed: this build uses it" ;;
		*) fail "ISA-L is installed: this build uses it" "its --version says: $this" ;; esac
fi

# both NAME FILE: tr-decode FILE in both builds; same status, stream, stderr.
# The status is printed for the caller in $RC_BOTH.
both() {
	RC_A=0 RC_B=0
	"$BIN/tr-decode" "$2" >a.out 2>a.err || RC_A=$?
	"$OTHER/tr-decode" "$2" >b.out 2>b.err || RC_B=$?
	RC_BOTH=$RC_A
	if [ "$RC_A" != "$RC_B" ]; then
		fail "$1: same exit status" "this build: $RC_A, other: $RC_B" \
			"this: $(head -c 300 a.err)" "other: $(head -c 300 b.err)"
	elif ! cmp -s a.err b.err; then
		fail "$1: same stderr" "this: $(head -c 300 a.err)" "other: $(head -c 300 b.err)"
	elif ! cmp -s a.out b.out; then
		fail "$1: same stream" "$(cmp a.out b.out 2>&1)"
	else
		pass "$1: same status ($RC_A), stream and stderr"
		return 0
	fi
	return 1
}

# bad_both NAME FILE LINE: refused alike by both, with exactly this stderr.
bad_both() {
	if both "$1" "$2"; then
		if [ "$RC_BOTH" = 1 ] && printf '%s\n' "$3" | cmp -s - a.err; then
			pass "$1: refused with: $3"
		else
			fail "$1: refused with: $3" "exit $RC_BOTH, stderr: $(head -c 300 a.err)"
		fi
	fi
}

tr-gen --target-bytes 3M -o m.json 2>gen.err || fail "tr-gen" "$(cat gen.err)"
printf '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}]}\n' >small.json
head -c 1000000 m.json >part1
tail -c +1000001 m.json >part2

# ---- good inputs ----
gzip -c -6 -n m.json >m6.json.gz
gzip -c -1 m.json >m1.json.gz
gzip -c -9 -N m.json >m9n.json.gz   # with the name field
gzip -c small.json >small.json.gz
{ gzip -c part1; : | gzip -c; gzip -c part2; } >multi.json.gz
cp m.json plain.json.gz             # a .gz name holding plain JSON
# every optional header field (extra, name, comment, header CRC) around a
# deflate body written by gzip(1)
python3 - m6.json.gz full.json.gz <<'PY'
import struct, sys, zlib
raw = open(sys.argv[1], 'rb').read()
assert raw[3] == 0
head = bytearray(b'\x1f\x8b\x08\x1e' + raw[4:10])
head += struct.pack('<H', 6) + b'Ap\x02\x00hi'
head += b'trace.json\x00' + b'a comment\x00'
head += struct.pack('<H', zlib.crc32(bytes(head)) & 0xffff)
open(sys.argv[2], 'wb').write(bytes(head) + raw[10:])
PY
for f in m6 m1 m9n small multi plain full; do
	if both "good: $f.json.gz" $f.json.gz; then
		[ "$RC_BOTH" = 0 ] && pass "good: $f.json.gz: decoded" ||
			fail "good: $f.json.gz: decoded" "exit $RC_BOTH: $(head -c 300 a.err)"
	fi
done
"$BIN/tr-decode" multi.json.gz | sed '1d;$d' >multi.events
"$BIN/tr-decode" m.json | sed '1d;$d' >plain.events
same "good: multi.json.gz: the events of the plain trace" plain.events multi.events

# the .gz each tr-encode writes: read back by the other build and by gzip(1)
"$BIN/tr-decode" m.json >m.stream
expect 0 "this build encodes .gz" "'$BIN/tr-encode' -o enc-this.json.gz <m.stream"
expect 0 "the other build encodes .gz" "'$OTHER/tr-encode' -o enc-other.json.gz <m.stream"
"$BIN/tr-encode" -o plain-out.json <m.stream
for f in enc-this enc-other; do
	gzip -dc $f.json.gz >$f.json && same "$f.json.gz: gzip -dc gives the plain output" plain-out.json $f.json
	"$OTHER/tr-decode" $f.json.gz >x.stream && "$BIN/tr-decode" $f.json.gz >y.stream &&
		same "$f.json.gz: both builds decode it alike" x.stream y.stream
done
for level in 1 5 9; do
	"$BIN/tr-encode" --level $level -o l$level.json.gz <m.stream &&
		gzip -dc l$level.json.gz | cmp -s - plain-out.json &&
		pass "--level $level: a gzip of the same trace" || fail "--level $level: a gzip of the same trace"
done

# ---- damaged inputs ----
gz=small.json.gz
n=$(stat -c %s $gz)
# truncated at every offset of a small stream
k=2
while [ $k -lt "$n" ]; do
	head -c $k $gz >cut.json.gz
	bad_both "small.json.gz cut at $k" cut.json.gz \
		"tr-decode: cut.json.gz: byte $k of the gzip file: truncated gzip data (unexpected end of file)"
	k=$((k + 1))
done
# and a multi-member stream larger than a read block, at chosen offsets
n=$(stat -c %s multi.json.gz)
m1=$(gzip -c part1 | wc -c)
for k in 5 10 $((m1 / 2)) $((m1 - 8)) $((m1 - 4)) $((m1 - 1)) $((m1 + 3)) $((m1 + 15)) \
	$((m1 + 40)) $((n / 2)) $((n - 8)) $((n - 5)) $((n - 1)); do
	head -c $k multi.json.gz >cut.json.gz
	bad_both "multi.json.gz cut at $k" cut.json.gz \
		"tr-decode: cut.json.gz: byte $k of the gzip file: truncated gzip data (unexpected end of file)"
done
head -c "$m1" multi.json.gz >first.json.gz
both "multi.json.gz cut after its first member (a whole gzip file of truncated JSON)" first.json.gz

# damage_at NAME FILE OFFSET XOR: FILE with the byte at OFFSET xor-ed.
damage_at() {
	python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[int(sys.argv[2])] ^= int(sys.argv[3])
open("bad.json.gz", "wb").write(bytes(b))' "$2" "$3" "$4"
}
n=$(stat -c %s multi.json.gz)
damage_at x multi.json.gz $((n - 8)) 1
bad_both "CRC of the last member" bad.json.gz \
	"tr-decode: bad.json.gz: byte $((n - 4)) of the gzip file: incorrect data check"
damage_at x multi.json.gz $((n - 2)) 1
bad_both "length of the last member" bad.json.gz \
	"tr-decode: bad.json.gz: byte $n of the gzip file: incorrect length check"
damage_at x multi.json.gz $((m1 - 6)) 16
bad_both "CRC of the first member" bad.json.gz \
	"tr-decode: bad.json.gz: byte $((m1 - 4)) of the gzip file: incorrect data check"
damage_at x multi.json.gz 2 1
bad_both "compression method" bad.json.gz \
	"tr-decode: bad.json.gz: byte 4 of the gzip file: unknown compression method"
damage_at x multi.json.gz 3 64
bad_both "reserved header flag" bad.json.gz \
	"tr-decode: bad.json.gz: byte 4 of the gzip file: unknown header flags set"
damage_at x full.json.gz 39 1
bad_both "header CRC" bad.json.gz \
	"tr-decode: bad.json.gz: byte 41 of the gzip file: header crc mismatch"
# block type 11 (reserved) in the first block of the second member
python3 -c '
import sys
b = bytearray(open("multi.json.gz", "rb").read())
b[int(sys.argv[1]) + 10] |= 6
open("bad.json.gz", "wb").write(bytes(b))' "$m1"
bad_both "reserved block type in the second member" bad.json.gz \
	"tr-decode: bad.json.gz: byte $m1 of the gzip file: invalid compressed data in the gzip member that starts here"

# a flipped bit inside the deflate data, at spread offsets: whatever each
# backend makes of it (a gzip error at the member's start, a CRC mismatch,
# or a JSON error in the garbage it decoded), both must say the same
n=$(stat -c %s m6.json.gz)
for i in 1 2 3 4 5 6 7 8; do
	damage_at x m6.json.gz $((20 + (n - 40) * i / 9)) 16
	both "a flipped bit in the deflate data, $i/9 of the way" bad.json.gz
done

# bytes after the data
n=$(stat -c %s small.json.gz)
for tail in x '\037' '\037\213' '\000\000\000\000' '{"traceEvents":[]}'; do
	{ cat small.json.gz; printf "$tail"; } >junk.json.gz
	case $tail in '\037\213') want="byte $((n + 2)) of the gzip file: truncated gzip data (unexpected end of file)" ;;
		*) want="byte $n of the gzip file: trailing garbage after the gzip data" ;; esac
	bad_both "after the gzip data: $tail" junk.json.gz "tr-decode: junk.json.gz: $want"
done
fi
