# t-verify: tr-verify end to end.  It verifies the outputs of every real trace
# (guides where a once-per-layer anchor is known, compaction for every trace,
# both in one pipeline) and of generated traces (many streams, two devices,
# draft passes), plain and gzipped; it catches every mutation injected into a
# correct output (each naming the failed check and the event index); it
# exits 2 when it cannot run; tr-compact-track runs it unless --no-verify.
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

# The mutation helper prints indices that are split into "$@" on purpose.
# shellcheck disable=SC2046,SC2086
cd "$T" || exit 2
# The interpreter itself: a version manager's shim costs much per start.
PY=$(python3 -c 'import sys; print(sys.executable)')
EV='test evidence: model config'

# ------------------------------------------------------------- mutations

# mut.py OP FILE [ARG]: edit FILE (an output, or with srcbyte a source) in
# place, gzipped again if it was, and print the event index(es) the failure
# must name.  Numbers keep their text, members their order; the rewrite
# changes only whitespace besides the mutation (op "none" proves it).
cat >mut.py <<'EOF'
import copy, gzip, json, os, re, sys
from decimal import Decimal

KEY = '_compact_gpu_track'
class Raw(str): pass       # a number, its text kept
class Obj(list): pass      # an object: (key, value) pairs in order

def load(path):
    data = open(path, 'rb').read()
    gz = data[:2] == b'\x1f\x8b'
    if gz:
        data = gzip.decompress(data)
    return json.loads(data.decode('utf-8'), object_pairs_hook=Obj,
                      parse_float=Raw, parse_int=Raw), gz

def dump(v, out, top=False):
    if isinstance(v, Raw):
        out.append(str(v))
    elif isinstance(v, Obj):
        out.append('{')
        for n, (k, x) in enumerate(v):
            out.append((',' if n else '') + json.dumps(k, ensure_ascii=False) + ':')
            dump(x, out, top and k == 'traceEvents')
        out.append('}')
    elif isinstance(v, list):
        out.append('[\n' if top else '[')
        for n, x in enumerate(v):
            if n:
                out.append(',\n' if top else ',')
            dump(x, out)
        out.append('\n]' if top else ']')
    elif isinstance(v, str):
        out.append(json.dumps(v, ensure_ascii=False))
    else:
        out.append({True: 'true', False: 'false', None: 'null'}[v])

def save(path, doc, gz):
    out = []
    dump(doc, out, True)
    data = (''.join(out) + '\n').encode('utf-8')
    open(path, 'wb').write(gzip.compress(data, mtime=0) if gz else data)

def get(o, k, d=None):
    if isinstance(o, Obj):
        for kk, v in o:
            if kk == k:
                return v
    return d

def put(o, k, v):
    for n, (kk, _) in enumerate(o):
        if kk == k:
            o[n] = (k, v)
            return
    raise SystemExit('mut: no member %s' % k)

def events(doc): return get(doc, 'traceEvents') if isinstance(doc, Obj) else doc
def note(e): return get(get(e, 'args'), KEY)
def cats(e): return set(get(e, 'cat', '').split(','))
def is_kernel(e): return get(e, 'ph') == 'X' and bool(cats(e) & {'kernel', 'Kernel'})
def span(e):
    t = Decimal(get(e, 'ts'))
    return t, t + Decimal(get(e, 'dur', '0'))

def compaction(path):
    """(report path, report document, the compaction object in it)"""
    for suffix in ('.compact.json', '.layers.json'):
        if os.path.exists(path + suffix):
            doc, _ = load(path + suffix)
            c = doc if suffix == '.compact.json' else get(doc, 'compaction')
            if c is not None:
                return path + suffix, doc, c
    raise SystemExit('mut: no compaction report beside %s' % path)

def lanes(path):
    """[(display pid text, [lane tid texts])] of the activity groups"""
    _, _, c = compaction(path)
    return [(str(get(g, 'display_pid')), [str(t) for t in get(g, 'lane_tids')])
            for g in get(c, 'groups') if get(g, 'kind') == 'activity']

def on(e, pid, tid): return str(get(e, 'pid')) == pid and str(get(e, 'tid')) == tid

op, path = sys.argv[1], sys.argv[2]
arg = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3].isdigit() else 0

if op == 'srcbyte':
    # flip the case of one letter in the name of source event ARG or later,
    # one byte of the file's JSON text, and say which event it is in
    dst = sys.argv[4]
    data = open(path, 'rb').read()
    gz = data[:2] == b'\x1f\x8b'
    text = (gzip.decompress(data) if gz else data).decode('utf-8')
    dec = json.JSONDecoder()
    i = text.index('[', text.index('"traceEvents"')) + 1
    k = 0
    while True:
        while text[i] in ' \t\r\n,':
            i += 1
        e, j = dec.raw_decode(text, i)
        m = re.search(r'"name"\s*:\s*"[^"a-z\\]*[a-z]', text[i:j])
        if k >= arg and m and isinstance(e.get('name'), str):
            at = i + m.end() - 1
            text = text[:at] + text[at].upper() + text[at + 1:]
            assert dec.raw_decode(text, i)[0]['name'] != e['name']
            break
        i, k = j, k + 1
    data = text.encode('utf-8')
    open(dst, 'wb').write(gzip.compress(data, mtime=0) if gz else data)
    print(k)
    sys.exit(0)

if op == 'retired':
    # remove the first retired metadata event from the report
    rpath, rdoc, c = compaction(path)
    r = get(c, 'retired_track_metadata')
    print(get(r.pop(0), 'source_event_index'))
    save(rpath, rdoc, False)
    sys.exit(0)

doc, gz = load(path)
ev = events(doc)
if op == 'none':
    pass
elif op == 'tsdigit':
    # the last digit of the ts of the ARG-th kernel
    o, e = [(o, e) for o, e in enumerate(ev) if is_kernel(e)][arg]
    ts = get(e, 'ts')
    put(e, 'ts', Raw(ts[:-1] + str((int(ts[-1]) + 1) % 10)))
    n = note(e)
    print(get(n, 'source_event_index') if n else o, o)
elif op == 'drop':
    del ev[arg]
    print(arg)
elif op == 'swap':
    ev[arg], ev[arg + 1] = ev[arg + 1], ev[arg]
    print(arg)
elif op == 'overlap':
    # a slice of the second lane onto the first lane, where it overlaps
    pid, tids = [g for g in lanes(path) if len(g[1]) > 1][0]
    first = [span(e) for e in ev if get(e, 'ph') == 'X' and on(e, pid, tids[0])]
    for o, e in enumerate(ev):
        if get(e, 'ph') == 'X' and on(e, pid, tids[1]):
            a, b = span(e)
            if any(s < b and a < t for s, t in first):
                put(e, 'tid', Raw(tids[0]))
                print(o)
                break
    else:
        raise SystemExit('mut: no overlapping slice')
elif op == 'flow':
    # a moved flow onto another lane where no slice contains its ts
    groups = lanes(path)
    slices = {}
    for e in ev:
        if get(e, 'ph') == 'X':
            slices.setdefault((str(get(e, 'pid')), str(get(e, 'tid'))), []).append(span(e))
    done = False
    for o, e in enumerate(ev):
        if get(e, 'ph') not in ('s', 't', 'f') or note(e) is None:
            continue
        t = Decimal(get(e, 'ts'))
        for pid, tids in groups:
            if str(get(e, 'pid')) != pid or str(get(e, 'tid')) not in tids:
                continue
            for tid in tids:
                if tid != str(get(e, 'tid')) and not any(
                        s - Decimal('0.002') <= t <= u + Decimal('0.002')
                        for s, u in slices.get((pid, tid), [])):
                    put(e, 'tid', Raw(tid))
                    print(o)
                    done = True
                    break
            break
        if done:
            break
    else:
        raise SystemExit('mut: no flow to move')
elif op == 'guide':
    # a guide 1 us longer, into the next guide of its pass
    g = [(o, e) for o, e in enumerate(ev) if get(e, 'cat') == 'layer_guide']
    for (o, e), (o2, e2) in zip(g, g[1:]):
        if int(get(e, 'ts')) + int(get(e, 'dur')) == int(get(e2, 'ts')) and \
                int(get(e2, 'dur')) > 0:
            put(e, 'dur', Raw(str(int(get(e, 'dur')) + 1)))
            print(o, o2)
            break
    else:
        raise SystemExit('mut: no touching guides')
elif op == 'insert':
    # a new kernel on the last lane, after everything else
    pid, tids = lanes(path)[0]
    end = max(span(e)[1] for e in ev if get(e, 'ph') == 'X')
    ev.append(Obj([('ph', 'X'), ('cat', 'kernel'), ('name', 'inserted'), ('pid', Raw(pid)),
                   ('tid', Raw(tids[-1])), ('ts', Raw(str(end + 10))), ('dur', Raw('1'))]))
    print(len(ev) - 1)
elif op == 'dupflow':
    # a moved flow once more at the end
    ev.append(copy.deepcopy([e for e in ev if get(e, 'ph') == 'f' and note(e) is not None][0]))
    print(len(ev) - 1)
elif op == 'offlane':
    # a moved kernel and its flows onto a new track of their own
    o, e = [(o, e) for o, e in enumerate(ev) if is_kernel(e) and note(e) is not None][arg]
    corr = get(get(e, 'args'), 'correlation')
    moved = [o] + [f for f, x in enumerate(ev) if get(x, 'ph') in ('s', 't', 'f') and
                   note(x) is not None and get(x, 'id') == corr]
    for m in moved:
        put(ev[m], 'tid', Raw('99999'))
    print(' '.join(map(str, moved)))
elif op == 'toplevel':
    put(doc, 'traceName', get(doc, 'traceName') + '.changed')
elif op in ('gshift', 'gswap', 'gstart'):
    # guide number ARG (in output order): its ts moved by argv[4] us, its
    # name swapped with the next guide's, or its args.start_us 1 ns later;
    # prints the guide number, its output event index and the old and new
    # texts
    g = [(o, e) for o, e in enumerate(ev) if get(e, 'cat') == 'layer_guide']
    o, e = g[arg]
    if op == 'gshift':
        old = get(e, 'ts')
        put(e, 'ts', Raw(str(int(old) + int(sys.argv[4]))))
        print(arg, o, old, get(e, 'ts'), get(get(e, 'args'), 'anchor_index'))
    elif op == 'gswap':
        o2, e2 = g[arg + 1]
        a, b = get(e, 'name'), get(e2, 'name')
        assert a != b
        put(e, 'name', b)
        put(e2, 'name', a)
        print(arg, o, a, b, o2)
    else:
        args = get(e, 'args')
        old = get(args, 'start_us')
        put(args, 'start_us', Raw(str(Decimal(old) + Decimal('0.001'))))
        print(arg, o, old, get(args, 'start_us'))
elif op == 'pyform':
    # the numbers of every guide's args, of the report's rows and its
    # trace_origin_us in another text of the same value, as Python's
    # json.dump writes floats: fraction zeros dropped (3.024000 -> 3.024,
    # 1.500 -> 1.5, 7.000 -> 7.0), whole values as floats (12 -> 12.0), the
    # origin as an integer when whole (1740461679470630.000 ->
    # 1740461679470630).  With ARG: guide ARG's start_relative_ms then one
    # digit longer (a value 0.1 ns off), and the guide number, its output
    # event index, the text tr-guides wrote and the new one printed;
    # without, the count of texts changed.
    def py(t):
        if '.' not in t:
            return t + '.0'
        t = t.rstrip('0')
        return t + '0' if t.endswith('.') else t
    NUMS = ('start_us', 'end_us', 'guide_start_us', 'guide_end_us',
            'start_relative_ms', 'end_relative_ms')
    def redo(o):
        n = 0
        for k in NUMS:
            t = get(o, k)
            if isinstance(t, Raw) and py(t) != t:
                put(o, k, Raw(py(t)))
                n += 1
        return n
    changed = 0
    g = [(o, e) for o, e in enumerate(ev) if get(e, 'cat') == 'layer_guide']
    ours = get(get(g[arg][1], 'args'), 'start_relative_ms')
    for _, e in g:
        changed += redo(get(e, 'args'))
    rpath = path + '.layers.json'
    rdoc, _ = load(rpath)
    for row in get(rdoc, 'layers'):
        changed += redo(row)
    # ... and the reports say so: the byte-for-byte proof of what the
    # tools add is for what trace-layers itself wrote
    put(rdoc, 'tool_version', 'add_layer_track.py')
    comp = get(rdoc, 'compaction')
    if isinstance(comp, list):
        put(comp, 'tool_version', 'compact_gpu_tracks.py')
    t = get(rdoc, 'trace_origin_us')
    if re.fullmatch(r'[0-9]+\.0+', t):
        put(rdoc, 'trace_origin_us', Raw(t.split('.')[0]))
        changed += 1
    if len(sys.argv) > 3:
        o, e = g[arg]
        args = get(e, 'args')
        old = get(args, 'start_relative_ms')
        put(args, 'start_relative_ms', Raw(old + ('1' if '.' in old else '.0001')))
        print(arg, o, ours, get(args, 'start_relative_ms'))
    else:
        print(changed)
    save(rpath, rdoc, False)
elif op in ('rregex', 'rdrop', 'rorigin'):
    # the layers report beside PATH: anchor_regex replaced by argv[3],
    # layers row ARG dropped, or trace_origin_us 1 us later (old and new
    # printed)
    rpath = path + '.layers.json'
    rdoc, _ = load(rpath)
    if op == 'rregex':
        put(rdoc, 'anchor_regex', sys.argv[3])
    elif op == 'rorigin':
        old = get(rdoc, 'trace_origin_us')
        put(rdoc, 'trace_origin_us', Raw(str(Decimal(old) + 1)))
        print(old, get(rdoc, 'trace_origin_us'))
    else:
        rows = get(rdoc, 'layers')
        del rows[arg]
        print(len(rows))
    save(rpath, rdoc, False)
    sys.exit(0)
else:
    raise SystemExit('mut: unknown op %s' % op)
save(path, doc, gz)
EOF

# ---------------------------------------------------------------- helpers

# cpout OUT COPY: copy an output and its reports.
cpout() {
	cp "$1" "$2"
	for s in .layers.json .compact.json; do
		[ ! -f "$1$s" ] || cp "$1$s" "$2$s"
	done
}

# vrun SRC OUT [ARGS]: run tr-verify; stdout in $T/vout, stderr in $T/verr,
# the exit status in $RC.
vrun() {
	src=$1 out=$2
	shift 2
	RC=0
	tr-verify --source "$src" --output "$out" "$@" >"$T/vout" 2>"$T/verr" || RC=$?
}

# verified NAME MODE SRC OUT [ARGS]: exit 0, one "ok" line per check that
# applies (MODE p: preservation, r: exact reversal; pg, rg: the same with
# guides, so placement too), in order, then "verified".
verified() {
	name=$1 mode=$2
	shift 2
	vrun "$@"
	case $mode in
	p*) middle=preservation ;;
	*) middle='exact reversal' ;;
	esac
	printf '%s ok\n' 'source identity' "$middle" render counts >"$T/vwant"
	case $mode in
	*g) echo 'placement ok' >>"$T/vwant" ;;
	esac
	echo verified >>"$T/vwant"
	sed 's/: .*//' "$T/vout" | tr -s ' ' >"$T/vgot"
	if [ "$RC" = 0 ] && cmp -s "$T/vwant" "$T/vgot"; then
		pass "$name"
	else
		fail "$name" "exit status $RC" "$(head -c 1200 "$T/vout")" "stderr: $(head -c 400 "$T/verr")"
	fi
}

# notverified NAME SRC OUT CHECK PATTERN [ARGS]: exit 1, the last line "NOT
# VERIFIED...", CHECK is FAILED and one of its failure lines matches PATTERN
# (extended regex).
notverified() {
	name=$1 src=$2 out=$3 check=$4 pattern=$5
	shift 5
	vrun "$src" "$out" "$@"
	awk -v c="$check" '
		index($0, c) == 1 && $0 ~ / FAILED: / { on = 1; next }
		on && /^  / { print; next }
		{ on = 0 }' "$T/vout" >"$T/vfail"
	if [ "$RC" = 1 ] && tail -n 1 "$T/vout" | grep -q '^NOT VERIFIED' &&
	   grep -Eq -- "$pattern" "$T/vfail"; then
		pass "$name"
	else
		fail "$name" "exit status $RC; wanted 1, '$check' FAILED with /$pattern/" \
			"$(head -c 1500 "$T/vout")" "stderr: $(head -c 400 "$T/verr")"
	fi
}

# jsonok NAME MODE SRC OUT: --json parses, verified is true and the checks
# are the four that apply (MODE as for verified), each ok with no failures.
jsonok() {
	name=$1 mode=$2
	shift 2
	vrun "$@" --json
	if [ "$RC" = 0 ] && "$PY" - "$mode" "$T/vout" <<'EOF' 2>"$T/oracle"
import json, sys
mode, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
names = ['source identity', 'preservation' if mode[0] == 'p' else 'exact reversal', 'render',
         'counts'] + (['placement'] if mode.endswith('g') else [])
assert r['verified'] is True, r
assert [c['name'] for c in r['checks']] == names, [c['name'] for c in r['checks']]
for c in r['checks']:
    assert sorted(c) == ['failures', 'figures', 'first_failures', 'name', 'ok'], c
    assert c['ok'] is True and c['failures'] == 0 and c['first_failures'] == [], c
    assert isinstance(c['figures'], str) and c['figures'], c
EOF
	then
		pass "$name"
	else
		fail "$name" "exit status $RC" "$(cat "$T/oracle")" "$(head -c 600 "$T/vout")"
	fi
}

# folded NAME OUT: a guides-and-compaction pipeline wrote one report,
# OUT.layers.json, with the compaction report as its member "compaction".
folded() {
	if [ ! -e "$2.compact.json" ] && "$PY" -c '
import json, sys
sys.exit(not isinstance(json.load(open(sys.argv[1])).get("compaction"), dict))' "$2.layers.json"
	then
		pass "$1"
	else
		fail "$1" "reports beside $2: $(echo "$2".*.json)" \
			"(tr-compact(1): the member compaction of OUT.layers.json when the stream carries a layer report)"
	fi
}

# guides SRC OUT SELECT-ANCHORS-OPTIONS...: guides only.
guides() {
	src=$1 out=$2
	shift 2
	tr-decode "$src" | tr-select-anchors "$@" | tr-guides --phase prefill --evidence "$EV" |
		tr-encode -o "$out"
}
# both SRC OUT SELECT-ANCHORS-OPTIONS...: guides then compaction.
both() {
	src=$1 out=$2
	shift 2
	tr-decode "$src" | tr-select-anchors "$@" | tr-guides --phase prefill --evidence "$EV" |
		tr-compact | tr-encode -o "$out"
}
# compact SRC OUT: compaction only.
compact() {
	tr-decode "$1" | tr-compact | tr-encode -o "$2"
}

# made NAME CMD...: the pipeline that writes an output succeeded.
made() {
	name=$1
	shift
	if "$@" 2>"$T/err"; then
		return 0
	fi
	fail "$name: written" "$(head -c 600 "$T/err")"
	return 1
}

# ------------------------------------------------------- generated traces

# g1: 300 streams, 4 concurrent; g2: two devices; g3: two draft passes
# before each target pass.  Sources plain (g1, g3) and gzipped (g2).
TA='Flash_fwd_kernel_traits<128'
tr-gen --streams 300 --concurrency 4 -o g1.json
tr-gen --devices 2 -o g2p.json && gzip -n -c g2p.json >g2.json.gz
tr-gen --draft-passes 2 -o g3.json
for g in g1.json g2.json.gz g3.json; do
	b=${g%%.*}
	sel="--anchor-regex $TA --num-layers 4 --anchor-offset 0 --passes 2"
	[ "$b" != g2 ] || sel="$sel --pid 1"
	made "$b guides" guides "$g" "$b.guides.json" $sel &&
		verified "$b: guides only, verified" pg "$g" "$b.guides.json"
	made "$b compact" compact "$g" "$b.compact.json.gz" &&
		verified "$b: compaction only (gzipped output), verified" r "$g" "$b.compact.json.gz"
	made "$b both" both "$g" "$b.both.json" $sel &&
		verified "$b: guides and compaction in one pipeline, verified" rg "$g" "$b.both.json"
	folded "$b: guides and compaction: one report" "$b.both.json"
done
jsonok "g1 --json: guides only" pg g1.json g1.guides.json
jsonok "g2 --json: compaction only" r g2.json.gz g2.compact.json.gz
jsonok "g3 --json: guides and compaction" rg g3.json g3.both.json
# No report beside the output: it must equal the source.
made "g1 copy" sh -c 'tr-decode g1.json | tr-encode -o g1.copy.json.gz' &&
	verified "g1: re-encoded copy without a report, verified" p g1.json g1.copy.json.gz
# The mutation helper itself changes nothing but whitespace.
cpout g1.both.json m0.json && "$PY" mut.py none m0.json &&
	verified "mutation helper: a rewrite without mutation still verifies" rg g1.json m0.json

# ------------------------------------------------------------ mutations

# one digit of one kernel ts, without compaction (preservation) ...
cpout g1.guides.json m1.json && r=$("$PY" mut.py tsdigit m1.json 40) && set -- $r &&
	notverified "mutation: kernel ts digit, guides only -> preservation" g1.json m1.json \
		preservation "^  source event $1 \(output event $2\): byte [0-9]+: "
# ... and with compaction, gzipped (exact reversal)
cpout g2.compact.json.gz m2.json.gz && r=$("$PY" mut.py tsdigit m2.json.gz 40) && set -- $r &&
	notverified "mutation: kernel ts digit, compacted (gzipped) -> exact reversal" g2.json.gz m2.json.gz \
		'exact reversal' "^  source event $1 \(output event $2\), after undoing its placement: "
cpout g3.both.json m2b.json && r=$("$PY" mut.py tsdigit m2b.json 7) && set -- $r &&
	notverified "mutation: kernel ts digit, guides and compaction -> exact reversal" g3.json m2b.json \
		'exact reversal' "^  source event $1 \(output event $2\), after undoing its placement: "
# one event dropped
cpout g1.guides.json m3.json && k=$("$PY" mut.py drop m3.json 25) &&
	notverified "mutation: one event dropped -> preservation" g1.json m3.json \
		preservation "^  source event $k \(output event $k\): " &&
	notverified "mutation: one event dropped -> counts" g1.json m3.json \
		counts "^  category \"[a-z_]+\": 1 more events in the source"
cpout g2.compact.json.gz m3b.json.gz && k=$("$PY" mut.py drop m3b.json.gz 3) &&
	notverified "mutation: one event dropped, compacted -> exact reversal" g2.json.gz m3b.json.gz \
		'exact reversal' "^  source event $k \(output event $k\): "
# two events swapped
cpout g1.guides.json m4.json && k=$("$PY" mut.py swap m4.json 30) &&
	notverified "mutation: two events swapped -> preservation" g1.json m4.json \
		preservation "^  source event $k \(output event $k\): "
cpout g3.both.json m4b.json && k=$("$PY" mut.py swap m4b.json 12) &&
	notverified "mutation: two events swapped, compacted -> exact reversal" g3.json m4b.json \
		'exact reversal' "^  source event $k \(output event $k\): "
# a kernel moved onto an occupied lane, where it overlaps (the source is still
# rebuilt exactly: only render can see it)
cpout g1.compact.json.gz m5.json.gz && k=$("$PY" mut.py overlap m5.json.gz) &&
	notverified "mutation: kernel onto an occupied lane -> render" g1.json m5.json.gz \
		render "^  output events ($k and [0-9]+|[0-9]+ and $k) overlap on lane "
# a flow endpoint moved to a lane where it is inside no slice
cpout g1.both.json m6.json && k=$("$PY" mut.py flow m6.json) &&
	notverified "mutation: flow onto the wrong lane -> render" g1.json m6.json \
		render "^  output event $k: flow at [0-9]+ ns is inside no slice of its lane"
# events inserted at the end on a lane: not what the tools add
cpout g1.compact.json.gz m11.json.gz && k=$("$PY" mut.py insert m11.json.gz) &&
	notverified "mutation: a kernel added at the end on a lane -> exact reversal" g1.json m11.json.gz \
		'exact reversal' "^  output event $k: not in the source and not added by the tools"
cpout g3.both.json m12.json && k=$("$PY" mut.py dupflow m12.json) &&
	notverified "mutation: a flow duplicated at the end on a lane -> exact reversal" g3.json m12.json \
		'exact reversal' "^  output event $k: not in the source and not added by the tools"
# a moved kernel and its flow on a track of their own, off the lanes: every
# such event is named, one failure line each
cpout g1.compact.json.gz m13.json.gz && r=$("$PY" mut.py offlane m13.json.gz 20) && set -- $r &&
	notverified "mutation: moved kernel off the lanes -> render" g1.json m13.json.gz \
		render "^  output event $1: moved \(it has _compact_gpu_track\) but not on a synthetic lane" &&
	notverified "mutation: moved kernel off the lanes -> render names its flow too" g1.json m13.json.gz \
		render "^  output event $2: moved \(it has _compact_gpu_track\) but not on a synthetic lane"
# a retired metadata event removed from the report (.compact.json, and the
# compaction report folded into .layers.json)
cpout g1.compact.json.gz m7.json.gz && k=$("$PY" mut.py retired m7.json.gz) &&
	notverified "mutation: retired metadata removed from OUT.compact.json -> exact reversal" \
		g1.json m7.json.gz 'exact reversal' "^  source event $k \(output event [0-9]+\): "
cpout g3.both.json m7b.json && k=$("$PY" mut.py retired m7b.json) &&
	notverified "mutation: retired metadata removed from the guides+compaction report -> exact reversal" \
		g3.json m7b.json 'exact reversal' "^  source event $k \(output event [0-9]+\): "
# a guide 1 us into the next
cpout g3.guides.json m8.json && r=$("$PY" mut.py guide m8.json) && set -- $r &&
	notverified "mutation: guide extended 1 us into the next -> render" g3.json m8.json \
		render "^  output events $1 and $2 overlap on the guide track"
cpout g1.both.json m8b.json && r=$("$PY" mut.py guide m8b.json) && set -- $r &&
	notverified "mutation: guide extended 1 us, compacted -> render" g1.json m8b.json \
		render "^  output events $1 and $2 overlap on the guide track"
# the source changed by one byte (plain and gzipped sources)
k=$("$PY" mut.py srcbyte g1.json 100 s9.json) &&
	notverified "mutation: source changed by one byte -> source identity" s9.json g1.guides.json \
		'source identity' "^  .*g1\.guides\.json\.layers\.json: source_sha256 [0-9a-f]{64}, but s9\.json has " &&
	notverified "mutation: source changed by one byte -> preservation names the event" s9.json g1.guides.json \
		preservation "^  source event $k \(output event $k\): "
k=$("$PY" mut.py srcbyte g2.json.gz 100 s9b.json.gz) &&
	notverified "mutation: gzipped source changed by one byte -> source identity" s9b.json.gz g2.compact.json.gz \
		'source identity' "^  .*g2\.compact\.json\.gz\.compact\.json: source_sha256 [0-9a-f]{64}, but s9b\.json\.gz has " &&
	notverified "mutation: gzipped source changed by one byte -> exact reversal names the event" s9b.json.gz \
		g2.compact.json.gz 'exact reversal' "^  source event $k \(output event [0-9]+\)"
# a top-level member changed
cpout g1.guides.json m10.json && "$PY" mut.py toplevel m10.json &&
	notverified "mutation: traceName changed -> preservation" g1.json m10.json \
		preservation '^  top-level members after traceEvents differ: '
cpout g2.compact.json.gz m10b.json.gz && "$PY" mut.py toplevel m10b.json.gz &&
	notverified "mutation: traceName changed, compacted -> exact reversal" g2.json.gz m10b.json.gz \
		'exact reversal' '^  top-level members after traceEvents differ: '

# ------------------------------------------------------------- placement

# Selections of every kind verified with placement (the anchors recomputed
# from the source): terminals, --first-layer, an offset, several passes,
# speculative decoding, a device (generated as in t-guides).
TARGET='flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128,'
ROT='rotary_embedding_kernel<c10::BFloat16, true>'
tr-gen --layers 4 --passes 3 --draft-passes 2 --draft-layers 2 --seed 7 -o spec.json
tr-gen --layers 3 --passes 3 --concurrency 2 --seed 3 --ts-format int -o plain.json
made "spec terminals" guides spec.json sp1.json --anchor-regex "$ROT" --end-anchor-regex "$TARGET" \
	--num-layers 4 --anchor-offset 0 --passes 3 --first-layer 2 &&
	verified "placement: rotary anchors, attention terminals, 3 passes, --first-layer 2" pg spec.json sp1.json
made "spec terminals, compacted" both spec.json sp2.json.gz --anchor-regex "$ROT" \
	--end-anchor-regex "$TARGET" --num-layers 4 --anchor-offset 4 --passes 2 &&
	verified "placement: terminals from offset 4, compacted (gzipped output)" rg spec.json sp2.json.gz
made "plain terminals" guides plain.json pl1.json --anchor-regex "$TARGET" --end-anchor-regex silu_kernel \
	--num-layers 3 --anchor-offset 0 --passes 3 &&
	verified "placement: silu terminals, integer timestamps, 3 passes" pg plain.json pl1.json
made "plain first layer" both plain.json pl2.json --anchor-regex "$TARGET" --num-layers 3 \
	--anchor-offset 0 --passes 3 --first-layer 2 &&
	verified "placement: zero-length last guides, --first-layer 2, compacted" rg plain.json pl2.json
made "plain offset" guides plain.json pl3.json --anchor-regex "$TARGET" --num-layers 3 --anchor-offset 3 &&
	verified "placement: one pass from offset 3" pg plain.json pl3.json
made "g2 device" guides g2.json.gz g2d.json --anchor-regex "$TA" --num-layers 4 --anchor-offset 0 \
	--device 1 &&
	verified "placement: --device 1 of two" pg g2.json.gz g2d.json

# A guide shifted by 1 us and by 10 ms, guides only and compacted.
cpout g3.guides.json pm1.json && r=$("$PY" mut.py gshift pm1.json 2 1) && set -- $r &&
	notverified "placement: a guide shifted by 1 us" g3.json pm1.json placement \
		"^  guide $1 \(output event $2\): ts $4, expected $3: anchor $5 \(source event [0-9]+\) at ts [0-9.]+, rounded to the microsecond$"
cpout g3.both.json pm2.json && r=$("$PY" mut.py gshift pm2.json 5 10000) && set -- $r &&
	notverified "placement: a guide shifted by 10 ms, compacted" g3.json pm2.json placement \
		"^  guide $1 \(output event $2\): ts $4, expected $3: anchor $5 \(source event [0-9]+\) at ts [0-9.]+, rounded to the microsecond$"
cpout sp1.json pm3.json && r=$("$PY" mut.py gshift pm3.json 3 -10000) && set -- $r &&
	notverified "placement: a terminal-ended guide shifted by -10 ms" spec.json pm3.json placement \
		"^  guide $1 \(output event $2\): ts $4, expected $3: anchor $5 \(source event [0-9]+\) at ts [0-9.]+, rounded to the microsecond$"
# Two guide names swapped (the name counts still agree): both are named.
cpout g3.guides.json pm4.json && r=$("$PY" mut.py gswap pm4.json 1) && set -- $r &&
	notverified "placement: two guide names swapped, the first" g3.json pm4.json placement \
		"^  guide $1 \(output event $2\): name \"$4\", expected \"$3\" \(layer 1 of pass 0\)$" &&
	notverified "placement: two guide names swapped, the second" g3.json pm4.json placement \
		"^  guide $(($1 + 1)) \(output event $5\): name \"$3\", expected \"$4\" \(layer 2 of pass 0\)$"
# A guide's args.start_us 1 ns off: the guide, and its report row, are named.
cpout sp1.json pm5.json && r=$("$PY" mut.py gstart pm5.json 6) && set -- $r &&
	notverified "placement: a guide's args.start_us changed" spec.json pm5.json placement \
		"^  guide $1 \(output event $2\): args.start_us $4, expected $3 \(anchor [0-9]+, source event [0-9]+\)$" &&
	notverified "placement: a guide's args.start_us changed: its report row differs" spec.json pm5.json \
		placement "^  report layers row $1: start_us $3, but guide $1 \(output event $2\) has $4$"
# The report's regex changed: to one that also matches the draft attention,
# to one that matches nothing, to one that does not compile.
cpout g3.guides.json pm6.json && "$PY" mut.py rregex pm6.json 'Flash_fwd_kernel_traits<' &&
	notverified "placement: the report's regex changed: the match count" g3.json pm6.json placement \
		"^  report: anchor_regex 'Flash_fwd_kernel_traits<' matches 16 kernels in pid 0, device 0 of the source, but matching_anchor_count is 8$" &&
	notverified "placement: the report's regex changed: the first guide is not at its anchor" g3.json \
		pm6.json placement "^  guide 0 \(output event [0-9]+\): ts [0-9]+, expected [0-9]+: anchor 0 "
cpout g3.guides.json pm7.json && "$PY" mut.py rregex pm7.json 'no_such_kernel' &&
	notverified "placement: the report's regex matches nothing" g3.json pm7.json placement \
		"^  report: anchor_regex 'no_such_kernel' matches 0 kernels in pid 0, device 0 of the source; from anchor_offset 0 there are 0, but num_layers 4 x passes 2 needs 8$"
cpout g3.guides.json pm8.json && "$PY" mut.py rregex pm8.json 'a(b' &&
	notverified "placement: the report's regex does not compile" g3.json pm8.json placement \
		"^  report: anchor_regex 'a\(b' does not compile \(at offset 3: .*\): the anchors cannot be found$"
# A report row dropped.
cpout g3.both.json pm9.json && n=$("$PY" mut.py rdrop pm9.json 3) &&
	notverified "placement: a report row dropped: the count" g3.json pm9.json placement \
		"^  report: $n layers rows for num_layers 4 x passes 2 = 8 guides$" &&
	notverified "placement: a report row dropped: the next row is named" g3.json pm9.json placement \
		"^  report layers row 3: pass_index 1, but guide 3 \(output event [0-9]+\) has 0 \(and 9 more members differ\)$"
# The report's trace origin changed: the relative times no longer agree.
cpout g3.guides.json pm10.json && r=$("$PY" mut.py rorigin pm10.json) && set -- $r &&
	notverified "placement: the report's trace_origin_us changed" g3.json pm10.json placement \
		"^  report: trace_origin_us $2, but the earliest ts in the source is $1$"
# Another tool's numbers: the guides' derived numbers, their report rows and
# the origin written as Python's json.dump writes them (3.024000 -> 3.024,
# 1.500 -> 1.5, 12 -> 12.0, 1740461679470630.000 -> 1740461679470630) are
# the same values: compared by value, never through a double.  Integer
# timestamps (a training trace's), fractions, terminals, compacted.
for c in "pl1 plain.json pg" "sp1 spec.json pg" "g3.both g3.json rg"; do
	set -- $c
	cpout "$1.json" py-$1.json && n=$("$PY" mut.py pyform py-$1.json) &&
		if [ "$n" -gt 20 ]; then
			verified "placement: another tool's number texts (${n} changed), $1" $3 $2 py-$1.json
		else
			fail "placement: another tool's number texts, $1" "only $n texts changed"
		fi
done
# ... but a value 0.1 ns off is named, with the text tr-guides writes.
cpout pl1.json py-bad.json && r=$("$PY" mut.py pyform py-bad.json 4) && set -- $r &&
	notverified "placement: another tool's number texts, one 0.1 ns off" plain.json py-bad.json \
		placement "^  guide $1 \(output event $2\): args.start_relative_ms $4, expected $3 \(anchor 4, source event [0-9]+\)$"
# The origin of a source whose earliest ts has digits below the nanosecond:
# the report may give it to the nanosecond below (tr-guides) or exactly; a
# message names the earliest ts exactly, so it never contradicts itself,
# even where two ts lie in the same nanosecond.
"$PY" - g3.json <<'PYEOF'
import re, sys
from decimal import Decimal
text = open(sys.argv[1]).read()
ts = list(re.finditer(r'"ts": ([0-9.]+)', text))
low = min(Decimal(m.group(1)) for m in ts)
whole = str(int(low))
nxt = [m for m in ts if Decimal(m.group(1)) > low][0]
def put(new):
    out, at = [], 0
    for m in ts:
        if m in new:
            out += [text[at:m.start(1)], new[m]]
            at = m.end(1)
    return ''.join(out) + text[at:]
# every ts at the origin 0.4 ns later; in or2 another one 0.1 ns later
one = {m: whole + '.0004' for m in ts if Decimal(m.group(1)) == low}
open('or1.json', 'w').write(put(one))
one[nxt] = whole + '.0001'
open('or2.json', 'w').write(put(one))
PYEOF
ORW=$(sed -n 's/.*"trace_origin_us": \([0-9]*\)\..*/\1/p' g3.guides.json.layers.json)
for o in or1 or2; do
	made "origin $o guides" guides $o.json $o.guides.json --anchor-regex "$TA" --num-layers 4 \
		--anchor-offset 0 --passes 2 &&
		verified "placement: earliest ts below the nanosecond, origin to the ns below ($o)" pg \
			$o.json $o.guides.json
done
origin_as() {
	cpout "$1.guides.json" "$1-$2.json" &&
		sed "s/\"trace_origin_us\": $ORW\.000,/\"trace_origin_us\": $ORW.$2,/" \
			"$1.guides.json.layers.json" >"$1-$2.json.layers.json"
}
origin_as or1 0004 &&
	verified "placement: the report's origin is the earliest ts exactly ($ORW.0004)" pg or1.json or1-0004.json
origin_as or1 0003 &&
	notverified "placement: the report's origin 0.1 ns below the earliest ts" or1.json or1-0003.json \
		placement "^  report: trace_origin_us $ORW\.0003, but the earliest ts in the source is $ORW\.0004$"
origin_as or2 0004 &&
	notverified "placement: two ts in one nanosecond: the earliest is named, not the first" or2.json \
		or2-0004.json placement \
		"^  report: trace_origin_us $ORW\.0004, but the earliest ts in the source is $ORW\.0001$"
origin_as or2 0001 &&
	verified "placement: two ts in one nanosecond: the report's origin the earlier exactly" pg or2.json \
		or2-0001.json
# --json names the check and its failure.
vrun g3.json pm1.json --json
if [ "$RC" = 1 ] && "$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
c = [c for c in r["checks"] if c["name"] == "placement"][0]
assert r["verified"] is False and c["ok"] is False and c["failures"] >= 1, c
assert c["first_failures"][0].startswith("guide 2 (output event "), c
' "$T/vout" 2>"$T/oracle"; then
	pass "placement: --json"
else
	fail "placement: --json" "exit status $RC" "$(cat "$T/oracle")"
fi

# ------------------------------------------------- what the tools add

# edit.py OP SRC OUT: edit OUT, a plain output of tr-layer-track (one event
# a line, as tr-encode writes it), in place, at the bytes the tools write
# or next to them; print the check that must fail and, on the next line,
# its first failure exactly.  The expected texts are made here from the
# reports and the decoded source (tr-decode), independently of tr-verify:
# its rule for a difference is the first differing byte with 30 bytes
# before it and 70 from there.
cat >edit.py <<'EOF'
import json, re, subprocess, sys
from decimal import Decimal

op, src, out = sys.argv[1:4]
data = open(out, 'rb').read()
lines = data.split(b'\n')
first = [k for k, l in enumerate(lines) if l.startswith(b'"traceEvents":[')][0] + 1
def ev(k): return lines[k][:-1] if lines[k].endswith(b',') else lines[k]
def put(k, t): lines[k] = t + (b',' if lines[k].endswith(b',') else b'')
def o_of(k): return k - first
rep = json.load(open(out + '.layers.json'))
comp = rep.get('compaction') or {}
retired = sorted({r['source_event_index'] for r in comp.get('retired_track_metadata', [])})
def src_of(o):
    i = o
    for r in retired:
        if r <= i:
            i += 1
    return i
def diff(a, b, names=('output', 'expected')):
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    f = max(i - 30, 0)
    return 'byte %d: %s ...%s... %s ...%s...' % (
        i, names[0], a[f:f + 70].decode('utf-8', 'replace'), names[1],
        b[f:f + 70].decode('utf-8', 'replace'))
def find(pat, start=first):
    for k in range(start, len(lines)):
        if re.search(pat, lines[k]):
            return k
    raise SystemExit('edit: no event matches %r' % pat)
def source_events():
    p = subprocess.run(['tr-decode', src], stdout=subprocess.PIPE, check=True).stdout
    return [l for l in p.split(b'\n') if l and not l.startswith(b'{"@tr"')]
pid, tid = str(rep['pid']), str(rep['guide_tid'])
gtrack = b'"pid":%s,"tid":%s,' % (pid.encode(), tid.encode())
check = 'exact reversal' if comp else 'preservation'
NOTE = b'"_compact_gpu_track":'

if op == 'guide-name-deleted':
    k = find(b'^\\{"name":"thread_name","ph":"M","ts":[0-9]+,' + re.escape(gtrack))
    del lines[k]
    msg = "output: the guide track's thread_name (pid %s, tid %s) is missing (tr-guides adds it)" % (pid, tid)
elif op in ('guide-name-renamed', 'lane-renamed'):
    if op == 'guide-name-renamed':
        k = find(b'^\\{"name":"thread_name","ph":"M","ts":[0-9]+,' + re.escape(gtrack))
        new = ev(k).replace(b' anchor intervals"', b' anchor interval"')
        what, who = "the guide track's", 'tr-guides'
    else:
        k = find(b'^\\{"name":"thread_name","ph":"M","pid":[0-9]+,"tid":[0-9]+,"args":\\{"name":"GPU lane 1 \\(synthetic; ')
        new = ev(k).replace(b'(synthetic; ', b'(CUDA stream; ')
        what, who = "a synthetic lane's", 'tr-compact'
    old = ev(k)
    m = re.search(rb'"pid":(-?\d+),"tid":(-?\d+)', old)
    put(k, new)
    msg = 'output event %d: %s thread_name (pid %s, tid %s) is not as %s writes it: %s' % (
        o_of(k), what, m.group(1).decode(), m.group(2).decode(), who, diff(new, old))
elif op == 'lane-name-deleted':
    k = find(b'^\\{"name":"thread_name","ph":"M","pid":[0-9]+,"tid":[0-9]+,"args":\\{"name":"GPU lane 1 \\(synthetic; ')
    m = re.search(rb'"pid":(-?\d+),"tid":(-?\d+)', lines[k])
    del lines[k]
    msg = "output: a synthetic lane's thread_name (pid %s, tid %s) is missing (tr-compact adds it)" % (
        m.group(1).decode(), m.group(2).decode())
elif op in ('phase', 'evidence', 'notice'):
    # the third guide's member changed by one letter
    guides = [k for k in range(first, len(lines)) if lines[k].startswith(b'{"ph":"X","cat":"layer_guide",')]
    k = guides[2]
    old = ev(k)
    m = re.search(rb'"' + op.encode() + rb'":"(.)', old)
    c = m.group(1)
    new = old[:m.start(1)] + (b'X' if c != b'X' else b'Y') + old[m.end(1):]
    put(k, new)
    msg = 'output event %d: guide 2 is not as tr-guides writes it: %s' % (o_of(k), diff(new, old))
elif op in ('digit-before-note', 'letter-before-args'):
    # the byte right before the note: the last of the value before it (a
    # digit), or of the last member of an event that had no args (a letter)
    S = source_events()
    if op == 'digit-before-note':
        k = find(rb'[0-9],' + NOTE)
        at = lines[k].index(NOTE) - 2
    else:
        k = find(rb'[a-z]","args":\{' + NOTE)
        at = lines[k].index(b',"args":{' + NOTE) - 2
    l = lines[k]
    c = l[at:at + 1]
    nc = (b'%d' % ((int(c) + 1) % 10)) if c.isdigit() else (b'x' if c != b'x' else b'y')
    lines[k] = l[:at] + nc + l[at + 1:]
    i = int(re.search(rb'"source_event_index":(\d+)', l).group(1))
    s = S[i]
    # the same byte of the source event: its args or itself end there
    sat = len(s) - 3
    u = s[:sat] + nc + s[sat + 1:]
    msg = 'source event %d (output event %d), after undoing its placement: %s' % (
        i, o_of(k), diff(s, u, ('source', 'output')))
elif op == 'name-after-tid':
    # the first letter of the member after the tid the tool wrote
    S = source_events()
    k = find(NOTE)
    l = lines[k]
    at = re.search(rb'"tid":-?\d+,"', l).end()
    nc = b'x' if l[at:at + 1] != b'x' else b'y'
    lines[k] = l[:at] + nc + l[at + 1:]
    i = int(re.search(rb'"source_event_index":(\d+)', l).group(1))
    s = S[i]
    sat = re.search(rb'"tid":-?\d+,"', s).end()
    msg = 'source event %d (output event %d), after undoing its placement: %s' % (
        i, o_of(k), diff(s, s[:sat] + nc + s[sat + 1:], ('source', 'output')))
elif op in ('name-before-pid', 'args-name'):
    # the last letter of the member name before the pid the tool wrote, or
    # of the args the note makes for an event that had none
    if op == 'name-before-pid':
        k = find(NOTE)
        at = lines[k].index(b'"pid":') + 3
    else:
        k = find(rb'","args":\{' + NOTE)
        at = lines[k].index(b'","args":{' + NOTE) + 6
    lines[k] = lines[k][:at] + b'x' + lines[k][at + 1:]
    msg = 'output event %d: malformed _compact_gpu_track note' % o_of(k)
elif op == 'index-digit':
    # the note's source_event_index, one more
    k = find(NOTE)
    m = re.search(rb'"source_event_index":(\d+)', lines[k])
    i = int(m.group(1))
    lines[k] = lines[k][:m.start(1)] + b'%d' % (i + 1) + lines[k][m.end(1):]
    msg = 'output event %d: records source index %d but stands at source position %d' % (o_of(k), i + 1, i)
elif op == 'tid-digit':
    # the first digit of the lane tid the tool wrote, one more: the
    # reversal is exact, the event on no lane
    check = 'render'
    k = find(NOTE)
    m = re.search(rb'"tid":(\d)', lines[k])
    lines[k] = lines[k][:m.start(1)] + b'%d' % ((int(m.group(1)) + 1) % 10) + lines[k][m.end(1):]
    msg = 'output event %d: moved (it has _compact_gpu_track) but not on a synthetic lane of the report' % o_of(k)
elif op == 'rebind':
    # a moved f onto another lane of its device, inside a slice there: a
    # flow bound to another kernel, the reversal exact
    check = 'render'
    groups = [g for g in comp['groups'] if g['kind'] == 'activity' and len(g['lane_tids']) > 1]
    slices = {}
    evs = {}
    for k in range(first, len(lines)):
        l = ev(k)
        if not l.startswith(b'{'):
            continue
        e = json.loads(l, parse_float=Decimal)
        evs[k] = e
        if e.get('ph') == 'X' and 'dur' in e:
            slices.setdefault((str(e['pid']), str(e['tid'])), []).append(
                (Decimal(e['ts']), Decimal(e['ts']) + Decimal(e['dur']), k))
    def containing(key, t):
        # the last slice starting at or before t, if t is well inside it
        c = [s for s in slices.get(key, []) if s[0] <= t]
        if c and c[-1][0] + Decimal('0.002') < t < c[-1][1] - Decimal('0.002'):
            return c[-1]
        return None
    done = False
    for k, e in evs.items():
        if e.get('ph') != 'f' or '_compact_gpu_track' not in e.get('args', {}):
            continue
        t = Decimal(e['ts'])
        for g in groups:
            if str(e['pid']) != str(g['display_pid']) or e['tid'] not in g['lane_tids']:
                continue
            own = [s for s in slices.get((str(e['pid']), str(e['tid'])), []) if s[0] <= t][-1]
            for lt in g['lane_tids']:
                other = containing((str(e['pid']), str(lt)), t)
                if lt != e['tid'] and other and own[0] == t:
                    l = ev(k)
                    put(k, l.replace(b'"tid":%d,' % e['tid'], b'"tid":%d,' % lt, 1))
                    vs = evs[other[2]]['args']['_compact_gpu_track']['source_event_index']
                    ks = evs[own[2]]['args']['_compact_gpu_track']['source_event_index']
                    msg = ('output event %d: moved flow (source event %d) binds to output event %d '
                           '(source event %d) in the output, but to output event %d (source event %d) '
                           'in the source: Perfetto would draw its arrow to another slice') % (
                        o_of(k), e['args']['_compact_gpu_track']['source_event_index'],
                        o_of(other[2]), vs, o_of(own[2]), ks)
                    done = True
                    break
            break
        if done:
            break
    if not done:
        raise SystemExit('edit: no flow to bind elsewhere')
else:
    raise SystemExit('edit: unknown op %s' % op)
open(out, 'wb').write(b'\n'.join(lines))
print(check)
print(msg)
EOF

# firstfail NAME SRC OUT: exit 1, "NOT VERIFIED", and the first failure of
# the check that edit.py named ($T/want: the check, then the failure) is
# exactly the one it gave.
firstfail() {
	name=$1
	vrun "$2" "$3"
	check=$(head -n 1 "$T/want")
	sed 1d "$T/want" | sed 's/^/  /' >"$T/wantline"
	awk -v c="$check" '
		index($0, c) == 1 && $0 ~ / FAILED: / { on = 1; next }
		on && /^  / { print; exit }' "$T/vout" >"$T/gotline"
	if [ "$RC" = 1 ] && tail -n 1 "$T/vout" | grep -q '^NOT VERIFIED' &&
	   cmp -s "$T/wantline" "$T/gotline"; then
		pass "$name"
	else
		fail "$name" "exit status $RC; wanted '$check' FAILED, first: $(cat "$T/wantline")" \
			"$(head -c 1500 "$T/vout")" "stderr: $(head -c 400 "$T/verr")"
	fi
}

# added SRC OUT LABEL: every edit of what the tools add, and of the bytes
# next to them, on a copy of OUT each; OUT itself verifies.
added() {
	src=$1 base=$2 label=$3
	verified "$label: tr-layer-track output, verified" rg "$src" "$base"
	for op in guide-name-deleted guide-name-renamed lane-name-deleted lane-renamed phase \
		  evidence notice digit-before-note letter-before-args name-after-tid \
		  name-before-pid args-name index-digit tid-digit; do
		cpout "$base" "ed.$op.json"
		if "$PY" edit.py "$op" "$src" "ed.$op.json" >"$T/want" 2>"$T/err"; then
			firstfail "$label: $op -> NOT VERIFIED, the first difference named" "$src" "ed.$op.json"
		else
			fail "$label: $op: edited" "$(cat "$T/err")"
		fi
		rm -f "ed.$op.json"*
	done
}

# g1: many streams on four lanes (--max-gpu-lanes), so that a flow can be
# moved onto a lane where another kernel runs.
tr-layer-track --trace g1.json --output tl1.json --anchor-regex "$TA" --num-layers 4 \
	--anchor-offset 0 --passes 2 --phase prefill --evidence "$EV" --max-gpu-lanes 4 \
	>"$T/out" 2>"$T/err" || fail "g1: tr-layer-track --max-gpu-lanes 4: written" "$(cat "$T/err")"
added g1.json tl1.json "g1 --max-gpu-lanes 4"
cpout tl1.json rb1.json && "$PY" edit.py rebind g1.json rb1.json >"$T/want" &&
	firstfail "g1: a moved flow bound to another kernel (reversal exact) -> render" g1.json rb1.json
# The guide track's metadata deleted from a guides-only output: preservation.
tr-layer-track --trace g3.json --output tl3.json --anchor-regex "$TA" --num-layers 4 \
	--anchor-offset 0 --passes 2 --phase prefill --evidence "$EV" \
	>"$T/out" 2>"$T/err" || fail "g3: tr-layer-track without lanes: written" "$(cat "$T/err")"
for op in guide-name-deleted guide-name-renamed evidence; do
	cpout tl3.json ed3.json && "$PY" edit.py "$op" g3.json ed3.json >"$T/want" &&
		firstfail "g3 guides only: $op -> preservation names it" g3.json ed3.json
	rm -f ed3.json*
done

# ------------------------------------------------------------------ reports

# A report must be a regular file: refused before a byte is read.
expect 2 "report: /dev/zero is refused" \
	"timeout 20 tr-verify --source g1.json --output g1.guides.json --report /dev/zero" &&
	stderr_is "report: /dev/zero: the message" \
		"tr-verify: /dev/zero: not a regular file (a report is the file tr-encode writes beside its output)"
mkfifo fifo.json
expect 2 "report: a FIFO is refused without waiting for a writer" \
	"timeout 20 tr-verify --source g1.json --output g1.guides.json --report fifo.json" &&
	stderr_is "report: a FIFO: the message" \
		"tr-verify: fifo.json: not a regular file (a report is the file tr-encode writes beside its output)"
cp g1.json zz.json && ln -s /dev/zero zz.json.layers.json &&
	expect 2 "report: /dev/zero found beside the output is refused" \
		"timeout 20 tr-verify --source g1.json --output zz.json" \
		"zz.json.layers.json: not a regular file"
# The members besides the layers rows are capped at 64 MiB, a row at 1 MiB.
"$PY" -c '
open("bighead.json", "w").write("{\"groups\":[],\"pad\":\"" + "x" * (64 << 20) + "\"}")
open("bigrow.json", "w").write("{\"guide_tid\":1,\"layers\":[{\"pad\":\"" + "x" * (1 << 20) + "\"}]}")
'
expect 2 "report: members besides the rows over 64 MiB are refused" \
	"tr-verify --source g1.json --output g1.guides.json --report bighead.json" \
	"bighead.json: byte 67108864: the members besides the layers rows exceed 64 MiB, the most tr-verify reads of a report"
expect 2 "report: a row over 1 MiB is refused" \
	"tr-verify --source g1.json --output g1.guides.json --report bigrow.json" \
	"bigrow.json: byte 1048601: a layers row larger than 1 MiB"
rm -f bighead.json bigrow.json
# Rows stream: a report of 200 000 rows (about 90 MB) is read in far less
# memory than its size, and every extra row is counted.
cpout g1.guides.json big.json && "$PY" -c '
import json
d = json.load(open("big.json.layers.json"))
row = d["layers"][-1]
d["layers"] += [row] * (200000 - len(d["layers"]))
json.dump(d, open("big.json.layers.json", "w"), separators=(",", ":"))
'
RC=0
/usr/bin/time -f %M -o big.rss tr-verify --source g1.json --output big.json >"$T/vout" 2>"$T/verr" || RC=$?
rss=$(tail -n 1 big.rss)
if [ "$RC" = 1 ] && grep -q '^  report: 200000 layers rows for num_layers 4 x passes 2 = 8 guides$' "$T/vout" &&
   [ "$rss" -lt 40000 ]; then
	pass "report: 200 000 rows stream and are counted"
else
	fail "report: 200 000 rows stream and are counted" "exit status $RC, max RSS $rss KiB" \
		"$(head -c 600 "$T/vout")" "stderr: $(head -c 300 "$T/verr")"
fi
rm -f big.json*

# -------------------------------------------------------- --max-event-bytes

expect 2 "--max-event-bytes 0 is refused" \
	"tr-verify --source g1.json --output g1.json --max-event-bytes 0" \
	"tr-verify: --max-event-bytes: invalid value '0' (allowed 1 to 1G)"
expect 2 "--max-event-bytes 2G is refused" \
	"tr-verify --source g1.json --output g1.json --max-event-bytes 2G" \
	"tr-verify: --max-event-bytes: invalid value '2G' (allowed 1 to 1G)"
# mkbig FILE BYTES: a trace with a kernel and an instant event of about BYTES.
mkbig() {
	"$PY" -c '
import sys
pad = "x" * int(sys.argv[2])
open(sys.argv[1], "w").write("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,"
    "\"tid\":7,\"ts\":10.5,\"dur\":2},{\"ph\":\"i\",\"s\":\"t\",\"name\":\"big\",\"pid\":1,\"tid\":1,"
    "\"ts\":11,\"args\":{\"pad\":\"" + pad + "\"}}],\"traceName\":\"big\"}\n")
' "$1" "$2"
}
mkbig ev.json 2048 && tr-decode --max-event-bytes 4K ev.json | tr-encode -o ev.out.json &&
	expect 2 "--max-event-bytes 1K: an event of 2 KiB cannot be verified" \
		"tr-verify --source ev.json --output ev.out.json --max-event-bytes 1K" \
		"larger than --max-event-bytes" &&
	verified "--max-event-bytes 4K: an event of 2 KiB verifies" p ev.json ev.out.json --max-event-bytes 4K
# Over the 64 MiB default: refused, then verified with a larger limit.
mkbig huge.json $((65 << 20)) &&
	tr-decode --max-event-bytes 100M huge.json | tr-encode -o huge.out.json &&
	expect 2 "an event over 64 MiB cannot be verified by default" \
		"tr-verify --source huge.json --output huge.out.json" \
		"larger than --max-event-bytes" &&
	verified "an event over 64 MiB verifies with --max-event-bytes 100M" p huge.json huge.out.json \
		--max-event-bytes 100M
rm -f huge.json huge.out.json

# ------------------------------------------------------ could not run (2)

echo 'not json at all' >notjson.json
echo '{"source_sha256": ' >badreport.json
expect 2 "could not run: missing source" \
	"tr-verify --source nosuch.json --output g1.guides.json" "nosuch.json"
# A decoder that fails while the other still runs: the process ends by
# die() with the other thread stopped and joined first (exit(3) under a
# running decoder crashed about one run in three with a 32 MB output, whose
# decoder is still at work when the missing source is found); twenty runs,
# each exit 2.
tr-gen --target-bytes 32M -o g32.json
crashes=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	tr-verify --source nosuch.json --output g32.json >/dev/null 2>&1
	[ $? -eq 2 ] || crashes=$((crashes + 1))
done
rm -f g32.json
if [ "$crashes" -eq 0 ]; then
	pass "a failing decoder beside a running one: exit 2 in 20 runs of 20"
else
	fail "a failing decoder beside a running one" "$crashes of 20 runs did not exit 2"
fi
# the decoders run as threads: a damaged source is reported as tr-decode
# reports it, then the check that could not run
gzip -c g1.json | head -c 40 >trunc.json.gz
expect 2 "could not run: damaged gzip source, the decoder's own message" \
	"tr-verify --source trunc.json.gz --output g1.guides.json" \
	"tr-verify: trunc.json.gz: byte 40 of the gzip file: truncated gzip data" &&
	expect 2 "could not run: damaged gzip source, then could not be decoded" \
		"tr-verify --source trunc.json.gz --output g1.guides.json" \
		"tr-verify: trunc.json.gz: could not be decoded"
expect 2 "could not run: output is not JSON" \
	"tr-verify --source g1.json --output notjson.json" "notjson.json"
expect 2 "could not run: malformed --report" \
	"tr-verify --source g1.json --output g1.guides.json --report badreport.json" \
	"badreport.json: not a JSON object"
expect 2 "could not run: missing --output" "tr-verify --source g1.json" "usage: tr-verify"
expect 2 "could not run: unknown option" "tr-verify --source g1.json --output g1.json --fast" \
	"usage: tr-verify"

# --------------------------------------------------------- tr-compact-track

expect 0 "tr-compact-track verifies its output" \
	"tr-compact-track --trace g1.json --output ct1.json.gz" &&
	if grep -q '^verification: verified' "$T/out"; then
		pass "tr-compact-track prints 'verification: verified'"
	else
		fail "tr-compact-track prints 'verification: verified'" "$(head -c 600 "$T/out")"
	fi
expect 0 "tr-compact-track --no-verify" \
	"tr-compact-track --trace g3.guides.json --output ct2.json --no-verify" &&
	if grep -q 'verification' "$T/out"; then
		fail "tr-compact-track --no-verify skips tr-verify" "$(head -c 600 "$T/out")"
	else
		pass "tr-compact-track --no-verify skips tr-verify"
	fi &&
	verified "tr-compact-track --no-verify output of a guided trace, verified" r g3.guides.json ct2.json

# ------------------------------------------------------------ real traces

if [ ! -d "$TRACES" ]; then
	skip "real traces" "$TRACES is absent: tr-verify is not run on real traces"
	return 0
fi

# Every trace, compaction only, plain and gzipped outputs alternately.  The
# traces run in parallel; the results are read in order.
n=0
: >real.list
for f in "$TRACES"/*.json "$TRACES"/*.json.gz; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	b=$(basename "$f")
	b=${b%.gz}
	b=real.${b%.json}
	out=$b.compact.json
	[ $((n % 2)) = 0 ] || out=$out.gz
	echo "$f|$b|$out" >>real.list
	( RC=0
	  compact "$f" "$out" 2>"$b.err" || RC=$?
	  echo "$RC" >"$b.rc" ) &
done
wait
while IFS='|' read -r f b out; do
	if [ "$(cat "$b.rc")" = 0 ]; then
		verified "$(basename "$f"): compaction only, verified" r "$f" "$out"
	else
		fail "$(basename "$f"): compaction only: written" "$(head -c 600 "$b.err")"
	fi
done <real.list

# Guides (and guides then compaction) where PROFILE.md names a once-per-layer
# anchor (every selection t-guides makes on them): FILE|REGEX|LAYERS|OFFSET|
# PASSES|NAME|OPTIONS (NAME tells two selections on one trace apart).
cat >anchors.txt <<'EOF'
gaunernst_bert-small-uncased__1016001.json.gz|flash_fwd_kernel|4|0|1||
google_owlv2-large-patch14-ensemble__1016001.json.gz|cunn_SoftMaxForward|24|0|5||
google_owlv2-large-patch14-ensemble__1016001.json.gz|softmax_warp_forward|12|0|5|.text|
sglang_Qwen3-8B_prefilldecode.json.gz|rotary_embedding_kernel|36|0|1||
sglang_Qwen3-8B_prefilldecode.json.gz|FmhaBatchPrefillWithPagedKVCache|36|0|1|.fmha|--pid 9
eager_trace.json.gz|vllm::rotary_embedding_kernel|36|0|1||
graph_execution.json.gz|vllm::rotary_embedding_kernel|24|0|1||
Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz|silu_kernel|24|11|1||
Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz|flash_fwd_kernel|24|10|1|.flash|
trace_100Kpar_4exp_8batch_128seq_1024.json|gatherTopK|10|0|1||
EOF
while IFS='|' read -r file re layers offset passes name extra; do
	[ -f "$TRACES/$file" ] || { skip "$file" "not in $TRACES"; continue; }
	b=real.${file%%.json*}$name
	( sel() { "$1" "$TRACES/$file" "$2" --anchor-regex "$re" --num-layers "$layers" \
		--anchor-offset "$offset" --passes "$passes" $extra; }
	  RC=0; sel guides "$b.guides.json.gz" 2>"$b.g.err" || RC=$?; echo "$RC" >"$b.g.rc"
	  RC=0; sel both "$b.both.json" 2>"$b.b.err" || RC=$?; echo "$RC" >"$b.b.rc" ) &
done <anchors.txt
wait
while IFS='|' read -r file re layers offset passes name extra; do
	[ -f "$TRACES/$file" ] || continue
	b=real.${file%%.json*}$name
	what="$file: $re x $layers x $passes${extra:+ $extra}"
	if [ "$(cat "$b.g.rc")" = 0 ]; then
		verified "$what: guides only (gzipped output), verified" pg "$TRACES/$file" "$b.guides.json.gz"
		# the same numbers as Python's json.dump writes them: the same values
		cpout "$b.guides.json.gz" "$b.py.json.gz" && n=$("$PY" mut.py pyform "$b.py.json.gz") &&
			verified "$what: another tool's number texts ($n changed), verified" pg \
				"$TRACES/$file" "$b.py.json.gz"
	else
		fail "$what: guides only: written" "$(head -c 600 "$b.g.err")"
	fi
	if [ "$(cat "$b.b.rc")" = 0 ]; then
		verified "$what: guides and compaction, verified" rg "$TRACES/$file" "$b.both.json"
		folded "$what: guides and compaction: one report" "$b.both.json"
	else
		fail "$what: guides and compaction: written" "$(head -c 600 "$b.b.err")"
	fi
done <anchors.txt

# Mutations on a real (gzipped) source: BERT.
BERT=$TRACES/gaunernst_bert-small-uncased__1016001.json.gz
B=real.gaunernst_bert-small-uncased__1016001
if [ -f "$BERT" ] && [ -f "$B.both.json" ] && [ -f "$B.guides.json.gz" ]; then
	jsonok "BERT --json: guides and compaction" rg "$BERT" "$B.both.json"
	jsonok "BERT --json: guides only" pg "$BERT" "$B.guides.json.gz"
	cpout "$B.guides.json.gz" r1.json.gz && r=$("$PY" mut.py tsdigit r1.json.gz 30) && set -- $r &&
		notverified "BERT mutation: kernel ts digit, gzipped guides output -> preservation" \
			"$BERT" r1.json.gz preservation "^  source event $1 \(output event $2\): "
	cpout "$B.both.json" r2.json && r=$("$PY" mut.py tsdigit r2.json 30) && set -- $r &&
		notverified "BERT mutation: kernel ts digit, guides and compaction -> exact reversal" \
			"$BERT" r2.json 'exact reversal' "^  source event $1 \(output event $2\), after undoing"
	k=$("$PY" mut.py srcbyte "$BERT" 500 r3.json.gz) &&
		notverified "BERT mutation: source changed by one byte -> source identity" r3.json.gz \
			"$B.both.json" 'source identity' "but r3\.json\.gz has " &&
		notverified "BERT mutation: source changed by one byte -> exact reversal names the event" \
			r3.json.gz "$B.both.json" 'exact reversal' "^  source event $k \(output event [0-9]+\)"
	cpout "$B.both.json" r4.json && "$PY" mut.py toplevel r4.json &&
		notverified "BERT mutation: traceName changed -> exact reversal" "$BERT" r4.json \
			'exact reversal' '^  top-level members after traceEvents differ: '
	cpout "$B.guides.json.gz" r6.json.gz && r=$("$PY" mut.py gshift r6.json.gz 1 10000) && set -- $r &&
		notverified "BERT mutation: a guide shifted by 10 ms -> placement" "$BERT" r6.json.gz placement \
			"^  guide $1 \(output event $2\): ts $4, expected $3: anchor $5 \(source event [0-9]+\) at ts [0-9.]+, rounded to the microsecond$"
	cpout "$B.both.json" r7.json && r=$("$PY" mut.py gswap r7.json 2) && set -- $r &&
		notverified "BERT mutation: two guide names swapped -> placement" "$BERT" r7.json placement \
			"^  guide $1 \(output event $2\): name \"$4\", expected \"$3\" \(layer 2 of pass 0\)$"
	cpout "$B.both.json" r5.json && k=$("$PY" mut.py retired r5.json) &&
		notverified "BERT mutation: retired metadata removed from the report -> exact reversal" \
			"$BERT" r5.json 'exact reversal' "^  source event $k \(output event [0-9]+\): "
fi

# What the tools add, edited, on a real trace: BERT through tr-layer-track
# with its lanes.
if [ -f "$BERT" ]; then
	if tr-layer-track --trace "$BERT" --output tlb.json --anchor-regex flash_fwd_kernel \
		--num-layers 4 --anchor-offset 0 --passes 1 --phase prefill --evidence "$EV" \
		--max-gpu-lanes 10 >"$T/out" 2>"$T/err"; then
		added "$BERT" tlb.json "BERT --max-gpu-lanes 10"
	else
		fail "BERT: tr-layer-track --max-gpu-lanes 10: written" "$(cat "$T/err")"
	fi
else
	skip "BERT: what the tools add, edited" "$BERT is absent"
fi

# --max-member-bytes: a trace whose top-level members exceed the bound is
# refused as tr-decode refuses it, and verified with a larger bound; the
# one-line commands pass it to tr-decode and tr-verify alike.
"$PY" - <<'PYEOF'
import json
d = json.load(open("g1.json"))
d["bigMeta"] = "m" * 3000
json.dump(d, open("mm.json", "w"))
PYEOF
tr-decode --max-member-bytes 8K mm.json | tr-encode -o mm.copy.json
expect 2 "--max-member-bytes 1K: refused as tr-decode refuses it" \
	"tr-verify --source mm.json --output mm.copy.json --max-member-bytes 1K" \
	"mm.json: byte "
expect 0 "--max-member-bytes 8K: verified" \
	"tr-verify --source mm.json --output mm.copy.json --max-member-bytes 8K"
expect 2 "--max-member-bytes: invalid value" \
	"tr-verify --source mm.json --output mm.copy.json --max-member-bytes 0" \
	"--max-member-bytes: invalid value '0' (allowed 1 to 1G)"
expect 1 "tr-compact-track --max-member-bytes 1K: refused by tr-decode" \
	"tr-compact-track --trace mm.json --output mm.c1.json --max-member-bytes 1K" \
	"larger than --max-member-bytes"
expect 0 "tr-compact-track --max-member-bytes 8K: written and verified" \
	"tr-compact-track --trace mm.json --output mm.c2.json --max-member-bytes 8K"
rm -f mm.json mm.copy.json mm.c1.json* mm.c2.json*
