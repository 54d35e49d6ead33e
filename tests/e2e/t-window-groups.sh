# t-window-groups: tr-window keeps or drops flows, async ids and B/E pairs
# whole however their events lie in the stream: an f before its s, t steps,
# ids with one end only, async begins nested with one id, ids reused after
# both ends, text ids (one that reads like a number: window_oracle.py keys
# it as that number, tr-window as another id, so no number shares its
# digits here), the same number as a flow and an async id, pairs without
# their E; enough ids (30000 flows) that every partition of the
# matching spans more than one chunk.  Each window is checked by the independent
# oracle (window_oracle.py) and by tr-verify; a window read from a file
# equals the one read from a pipe.
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2
ORACLE=$ROOT/tests/e2e/window_oracle.py

python3 - <<'EOF2' >groups.json
import json, random
rnd = random.Random(16)
ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "P"}}]
for tid in range(1, 5):
    ev.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid,
               "args": {"name": "T%d" % tid}})
late = []   # events written after the main run (a GPU section's f ends)
for i in range(30000):
    t = 1000 + i * 0.5
    tid = 1 + i % 4
    kind = i % 10
    ev.append({"ph": "X", "name": "x%d" % i, "pid": 1, "tid": tid, "ts": t, "dur": 0.25})
    if kind == 0:    # s now, f much later in the stream, at a nearby time
        ev.append({"ph": "s", "id": i, "pid": 1, "tid": tid, "ts": t, "cat": "ac2g"})
        late.append({"ph": "f", "id": i, "pid": 1, "tid": 9, "ts": t + rnd.randint(1, 40) * 0.5,
                     "cat": "ac2g", "bp": "e"})
    elif kind == 1:  # f before its s in the stream
        ev.append({"ph": "f", "id": i, "pid": 1, "tid": tid, "ts": t + 3, "bp": "e"})
        ev.append({"ph": "s", "id": i, "pid": 1, "tid": tid, "ts": t})
    elif kind == 2:  # s, t steps, f
        ev.append({"ph": "s", "id": i, "pid": 1, "tid": tid, "ts": t})
        ev.append({"ph": "t", "id": i, "pid": 1, "tid": tid, "ts": t + 1})
        late.append({"ph": "t", "id": i, "pid": 1, "tid": 9, "ts": t + 2})
        late.append({"ph": "f", "id": i, "pid": 1, "tid": 9, "ts": t + 4, "bp": "e"})
    elif kind == 3:  # one end only
        ev.append({"ph": rnd.choice("sf"), "id": i, "pid": 1, "tid": tid, "ts": t})
    elif kind == 4:  # async begins nested with one id, a text id
        a = "0x%x" % i
        ev.append({"ph": "b", "id": a, "cat": "c", "name": "a", "pid": 1, "tid": tid, "ts": t})
        ev.append({"ph": "b", "id": a, "cat": "c", "name": "a", "pid": 1, "tid": tid,
                   "ts": t + 0.5})
        ev.append({"ph": "n", "id": a, "cat": "c", "name": "a", "pid": 1, "tid": tid,
                   "ts": t + 1})
        ev.append({"ph": "e", "id": a, "cat": "c", "name": "a", "pid": 1, "tid": tid,
                   "ts": t + 1.5})
        late.append({"ph": "e", "id": a, "cat": "c", "name": "a", "pid": 1, "tid": 9,
                     "ts": t + rnd.randint(2, 30) * 0.5})
    elif kind == 5:  # a flow id reused once both ends were seen, much later
        ev.append({"ph": "s", "id": 100000 + i % 50, "pid": 1, "tid": tid, "ts": t})
        ev.append({"ph": "f", "id": 100000 + i % 50, "pid": 1, "tid": tid, "ts": t + 0.5,
                   "bp": "e"})
    elif kind == 6:  # the same number as a flow and as an async id
        ev.append({"ph": "s", "id": i, "pid": 1, "tid": tid, "ts": t})
        ev.append({"ph": "b", "id": i, "cat": "c", "name": "n", "pid": 1, "tid": tid,
                   "ts": t + 50})
        ev.append({"ph": "f", "id": i, "pid": 1, "tid": tid, "ts": t + 0.5, "bp": "e"})
        ev.append({"ph": "e", "id": i, "cat": "c", "name": "n", "pid": 1, "tid": tid,
                   "ts": t + 51})
    elif kind == 7:  # a string id that reads like a number, ends far apart
        ev.append({"ph": "s", "id": str(i), "pid": 1, "tid": tid, "ts": t + 20})
        late.append({"ph": "f", "id": str(i), "pid": 1, "tid": 9, "ts": t + 20.5, "bp": "e"})
    elif kind == 8:  # B/E pairs, nested; every 80th B never ends
        ev.append({"ph": "B", "name": "o", "pid": 1, "tid": tid, "ts": t})
        ev.append({"ph": "B", "name": "i", "pid": 1, "tid": tid, "ts": t + 0.1})
        ev.append({"ph": "E", "pid": 1, "tid": tid, "ts": t + 0.2})
        if i % 80 != 8:
            ev.append({"ph": "E", "pid": 1, "tid": tid, "ts": t + rnd.randint(1, 20) * 0.5})
print(json.dumps({"traceEvents": ev + late, "displayTimeUnit": "ns"}))
EOF2

# gwindow NAME SPEC...: cut the window from a pipe and from a file, check
# it with the oracle and tr-verify.
gwindow() {
	name=$1
	shift
	rm -f w.json w.json.window.json
	RC=0
	tr-decode groups.json | tr-window -q "$@" | tr-encode -o w.json 2>"$T/err" || RC=$?
	if [ "$RC" != 0 ] || ! [ -f w.json.window.json ]; then
		fail "$name: tr-window" "exit status $RC" "stderr: $(head -c 400 "$T/err")"
		return 1
	fi
	tr-decode w.json >w.stream
	if python3 "$ORACLE" src.stream w.stream w.json.window.json "$@" >"$T/oracle" 2>&1; then
		pass "$name: the oracle's kept set and report"
	else
		fail "$name: the oracle's kept set and report" "$(tail -n 4 "$T/oracle")"
	fi
	expect 0 "$name: tr-verify" "tr-verify --source groups.json --output w.json"
	tr-decode groups.json | tr-window "$@" >pipe.stream 2>/dev/null
	tr-window "$@" <src.stream >file.stream 2>/dev/null
	if cmp -s pipe.stream file.stream && [ -s file.stream ]; then
		pass "$name: from a file as from a pipe"
	else
		fail "$name: from a file as from a pipe" "the two windows differ"
	fi
}

tr-decode groups.json >src.stream
gwindow "groups: a window inside the run" --from 2 --to 4
gwindow "groups: a thin window" --from 7.3 --to 7.31
gwindow "groups: the start" --to 0.5
gwindow "groups: from a time to the end" --from 14.5
# the window cuts flows and async pairs of every shape
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["flows_dropped_end_outside"] > 0 and r["async_dropped_end_outside"] > 0)' \
	w.json.window.json >"$T/facts" 2>&1
echo True >want.facts
same "groups: flows and async pairs cut at the window's edge" want.facts "$T/facts"
