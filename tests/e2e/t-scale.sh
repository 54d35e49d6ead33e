# t-scale: many passes, many threads in the anchors' pid, many devices:
# every answer stays exact.  The pass table of 5000 passes (tr-window
# --list-passes, --pass-table beside a window, tr-encode --pass-table,
# tr-layer-track's summary) against scale_shapes.py's oracle, which finds
# each pass's bytes another way; a window of 3000 of the passes against
# window_oracle.py; tr-survey's bytes of 5000 passes per candidate against
# the same oracle; the guide track of a pid with 20 000 threads on the one
# free tid after them; tr-survey of 2000 devices against survey_oracle.py.
# How long these take is make bench's part (scripts/bench.sh, BENCH_PART=
# scaling), never asserted here.
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2
SHAPES=$ROOT/tests/e2e/scale_shapes.py

# ------------------------------------------------------------ 5000 passes

python3 "$SHAPES" passes 5000 p.json
EV='scale_shapes.py: 2 layers, anchor_k once per layer'
expect 0 "5000 passes: tr-layer-track verifies" "tr-layer-track --trace p.json --output o.json \
	--anchor-regex anchor_k --num-layers 2 --anchor-offset 0 --passes 5000 \
	--phase decode --evidence '$EV'"
grep '^passes: ' "$T/out" >got.lt
tr-decode o.json >o.stream
python3 "$SHAPES" table o.stream >want.passes
n=$(wc -l <want.passes)
[ "$n" = 5000 ] && pass "5000 passes: the oracle's table has 5000 rows" ||
	fail "5000 passes: the oracle's table has 5000 rows" "$n rows"
tr-window --list-passes <o.stream >got.passes 2>"$T/err"
same "5000 passes: tr-window --list-passes, every pass's span and bytes" want.passes got.passes
tr-encode --pass-table got.etable -o enc.json <o.stream 2>"$T/err"
same "5000 passes: tr-encode --pass-table" want.passes got.etable
# the summary: the first 8, then the count and the largest (the first of
# the largest when several are)
python3 - want.passes >want.lt <<'PY'
import sys
rows = [l.rstrip('\n') for l in open(sys.argv[1])]
size = [int(r.split(', ')[1].split()[0]) for r in rows]
big = max(range(len(rows)), key=lambda i: (size[i], -i))
for r in rows[:8]:
    print('passes: ' + r)
print('passes: and %d more (the largest: pass %d, %d bytes of events; all: tr-decode '
      'o.json | tr-window --list-passes)' % (len(rows) - 8, big, size[big]))
PY
same "5000 passes: tr-layer-track's summary, the first 8, the count and the largest" \
	want.lt got.lt
# a window of passes 1000-3999, with the table beside it
rm -f w.json w.json.window.json
RC=0
tr-window --passes 1000-3999 --pass-table got.wtable <o.stream 2>"$T/err" |
	tr-encode -o w.json 2>>"$T/err" || RC=$?
if [ "$RC" = 0 ] && [ -f w.json.window.json ]; then
	same "5000 passes: the table beside a window" want.passes got.wtable
	tr-decode w.json >w.stream
	if python3 "$ROOT/tests/e2e/window_oracle.py" o.stream w.stream w.json.window.json \
		--passes 1000-3999 >"$T/oracle" 2>&1; then
		pass "5000 passes: --passes 1000-3999, the oracle's kept set and report"
	else
		fail "5000 passes: --passes 1000-3999, the oracle's kept set and report" \
			"$(tail -n 4 "$T/oracle")"
	fi
	expect 0 "5000 passes: the window of passes 1000-3999 verifies" \
		"tr-verify --source o.json --output w.json"
else
	fail "5000 passes: tr-window --passes 1000-3999" "exit status $RC" "$(head -c 400 "$T/err")"
fi
# tr-survey: both kernels once per layer, 5000 passes each, and the bytes
# of the events overlapping each pass
tr-decode p.json >p.stream
tr-survey --num-layers 2 --json <p.stream >survey.json 2>"$T/err"
python3 "$SHAPES" survey p.stream 2 anchor_k other_k >want.sbytes
python3 - survey.json >got.sbytes <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))['groups'][0]
for name in ('anchor_k', 'other_k'):
    c = [c for c in g['candidates'] if c['name'] == name][0]
    assert c['passes'] == 5000 and c['anchor_offset'] == 0, (name, c['passes'])
    print('%s: %s' % (name, ' '.join(str(b) for b in c['pass_bytes'])))
PY
same "5000 passes: tr-survey's bytes of each pass of both kernels" want.sbytes got.sbytes

# ------------------------------------------- 20 000 threads in the pid

# tids 1 .. 20000 with an event each, the anchors on tid 20001: the guide
# track takes 20002, the smallest free one
python3 "$SHAPES" tids 20000 t.json
expect 0 "20 000 tids: tr-layer-track verifies" "tr-layer-track --trace t.json --output to.json \
	--anchor-regex anchor_k --num-layers 2 --anchor-offset 0 --passes 2 \
	--phase decode --evidence '$EV'"
if python3 - to.json <<'PY' >"$T/py" 2>&1
import json, sys
r = json.load(open(sys.argv[1] + '.layers.json'))
assert r['guide_tid'] == 20002, r['guide_tid']
ev = json.load(open(sys.argv[1]))['traceEvents']
g = [e for e in ev if e.get('cat') == 'layer_guide']
assert len(g) == 4 and all(e['pid'] == 0 and e['tid'] == 20002 for e in g), g
used = {e['tid'] for e in ev if e.get('pid') == 0 and e.get('cat') != 'layer_guide'
        and e.get('name') not in ('thread_name', 'thread_sort_index')}
assert used == set(range(0, 20002)), (min(used), max(used), len(used))
PY
then
	pass "20 000 tids: the guides on tid 20002, the first free one"
else
	fail "20 000 tids: the guides on tid 20002, the first free one" "$(tail -n 3 "$T/py")"
fi

# ------------------------------------------------------------ 2000 devices

tr-gen --scale-devices 2000 -o d.json
tr-decode d.json >d.stream
tr-survey --num-layers 1 --json <d.stream >d.survey 2>"$T/err"
if python3 "$ROOT/tests/e2e/survey_oracle.py" d.json 1 d.survey d.stream >"$T/py" 2>&1 &&
	python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["groups"]
assert [(x["pid"], x["device"]) for x in g] == [(0, d) for d in range(2000)], len(g)
assert all(len(x["candidates"][0]["pass_bytes"]) == 1 for x in g)
' d.survey >>"$T/py" 2>&1; then
	pass "2000 devices: tr-survey, a group each, as the oracle says"
else
	fail "2000 devices: tr-survey, a group each, as the oracle says" "$(tail -n 3 "$T/py")"
fi
