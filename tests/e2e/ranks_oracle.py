"""Independent oracle for tr-ranks(1) (t-ranks.sh).

  table [--threshold T] [--pass K] [--json] LABEL=REPORT...
      the table of tr-ranks --tsv (or the JSON of tr-ranks --json) computed
      from the layers reports with Python's json and integers
  traces --regex RE --layers N --passes P [--threshold T] [--pass K] LABEL=TRACE...
      the same TSV computed from the traces themselves: the anchor kernels
      sorted by ts, N x P from the first, one interval to the next anchor of
      the same pass (none for the last layer of a pass)
  svg FILE TSV [--threshold T] [--phase P] [--anchor RE]
      checks the heat map against a TSV table: every cell's value; white
      unless a straggler by the threshold and more than 3 robust sigmas
      (1.4826 MAD, at least 1 % of the median) above its row's median; the
      coloured cells darker the more sigmas, the most the darkest; numbers
      only in cells wide enough; the title, the axes and the legend
  png FILE.png FILE.svg [--darkest LAYER:RANK]
      checks a rendering of the heat map: the pixel at each cell's centre has
      the cell's fill colour; with --darkest, that cell's pixel is darker
      than every other cell's
  heat FILE.svg --darkest LAYER:RANK
      the planted straggler is the darkest cell, and every other cell is
      white (noise) or grey (no interval), but for that rank's total
  reports DIR --ranks N --layers L --slow RANK:LAYER:PCT [--recorded]
      writes N small layers reports (one pass) DIR/rank-I.json, each layer
      interval 1000 us within +-4 % of noise, the planted one PCT % longer;
      with --recorded each records a "rank" other than its name's I
"""
import argparse, gzip, json, re, statistics, struct, sys, zlib
import xml.etree.ElementTree as ET
from decimal import Decimal

NEUTRAL, NONE, MEDIAN, LIGHT, DARK = '#ffffff', '#d9d9d9', '#f0f0f0', '#fee0d2', '#67000d'


def sigmas(v, cells):
    """How many robust sigmas v lies above the median of cells."""
    vals = [c for c in cells if c is not None]
    m = statistics.median_low(vals)
    mad = statistics.median_low([abs(c - m) for c in vals])
    sigma = max(1.4826 * mad, m / 100, 1)
    return (v - m) / sigma


def lum(fill):
    return sum(int(fill[i:i + 2], 16) for i in (1, 3, 5))
SVG = '{http://www.w3.org/2000/svg}'


def ns(text):
    v = Decimal(text) * 1000
    assert v == v.to_integral_value(), text
    return int(v)


def us3(n):
    return '%s%d.%03d' % ('-' if n < 0 else '', abs(n) // 1000, abs(n) % 1000)


def band(v, m, t):
    if v is None or m is None:
        return 'none'
    if v * 100 > m * (100 + 3 * t):
        return 'slowest'
    if v * 100 > m * (100 + t):
        return 'slow'
    if v >= m:
        return 'near'
    if v * 100 >= m * (100 - t):
        return 'below'
    return 'fast'


def from_report(path):
    r = json.load(open(path), parse_float=str)
    iv = {}
    for row in r['layers']:
        k = (row['pass_index'], row['layer_id'] - r['first_layer'])
        iv[k] = None if row['boundary_kind'] == 'anchor_point_only' else \
            ns(row['end_us']) - ns(row['start_us'])
    return r, iv


def from_trace(path, regex, layers, passes):
    data = open(path, 'rb').read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    doc = json.loads(data, parse_float=str, parse_int=str)
    ev = doc['traceEvents'] if isinstance(doc, dict) else doc
    ts = sorted(ns(e['ts']) for e in ev if e.get('ph') == 'X' and e.get('cat') == 'kernel'
                and re.search(regex, e['name']))
    iv = {}
    for p in range(passes):
        for l in range(layers):
            a = p * layers + l
            iv[(p, l)] = ts[a + 1] - ts[a] if l < layers - 1 else None
    return iv


def table(labels, ivs, layers, passes, pass_k, t):
    rows = []
    for l in range(layers):
        cells = []
        for iv in ivs:
            if pass_k is not None:
                cells.append(iv[(pass_k, l)])
            else:
                vals = [iv[(p, l)] for p in range(passes) if iv[(p, l)] is not None]
                cells.append(statistics.median_low(vals) if vals else None)
        rows.append(cells)
    totals = []
    for r in range(len(labels)):
        vals = [row[r] for row in rows if row[r] is not None]
        totals.append(sum(vals) if vals else None)
    out = []
    for cells in rows + [totals]:
        vals = [c for c in cells if c is not None]
        med = statistics.median_low(vals) if vals else None
        strag = [labels[i] for i, c in enumerate(cells) if band(c, med, t) in ('slow', 'slowest')]
        out.append((cells, med, strag))
    return out


def tsv(labels, tab, first):
    lines = ['\t'.join(['layer'] + labels + ['median', 'stragglers'])]
    for i, (cells, med, strag) in enumerate(tab):
        name = 'total' if i == len(tab) - 1 else 'L%d' % (first + i)
        lines.append('\t'.join([name] + ['' if c is None else us3(c) for c in cells] +
                               ['' if med is None else us3(med), ','.join(strag)]))
    return '\n'.join(lines) + '\n'


def pairs(items):
    return [x.split('=', 1)[0] for x in items], [x.split('=', 1)[1] for x in items]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mode')
    ap.add_argument('--threshold', type=int, default=10)
    ap.add_argument('--pass', dest='pass_k', type=int)
    ap.add_argument('--json', action='store_true')
    ap.add_argument('--regex')
    ap.add_argument('--layers', type=int)
    ap.add_argument('--passes', type=int)
    ap.add_argument('--phase')
    ap.add_argument('--anchor')
    ap.add_argument('--darkest')
    ap.add_argument('--ranks', type=int)
    ap.add_argument('--slow')
    ap.add_argument('--recorded', action='store_true')
    ap.add_argument('args', nargs='+')
    a = ap.parse_args()
    if a.mode == 'table':
        labels, paths = pairs(a.args)
        reps = [from_report(p) for p in paths]
        r0 = reps[0][0]
        tab = table(labels, [iv for _, iv in reps], r0['num_layers'], r0['passes'], a.pass_k,
                    a.threshold)
        if not a.json:
            sys.stdout.write(tsv(labels, tab, r0['first_layer']))
            return 0

        def row(cells, med, strag):
            return {'intervals_us': [None if c is None else us3(c) for c in cells],
                    'median_us': None if med is None else us3(med), 'stragglers': strag}
        doc = {'phase': r0['phase'], 'anchor_regex': r0['anchor_regex'],
               'num_layers': r0['num_layers'], 'first_layer': r0['first_layer'],
               'passes': r0['passes'], 'pass': a.pass_k,
               'statistic': 'pass' if a.pass_k is not None else 'median_low',
               'threshold_percent': a.threshold,
               'ranks': [{'label': l, 'source_file': r['source_file'], 'report': p}
                         for l, (r, _), p in zip(labels, reps, paths)],
               'layers': [dict(layer='L%d' % (r0['first_layer'] + i), **row(*x))
                          for i, x in enumerate(tab[:-1])],
               'totals': row(*tab[-1])}
        json.dump(doc, sys.stdout, indent=2, sort_keys=True)
        print()
        return 0
    if a.mode == 'traces':
        labels, paths = pairs(a.args)
        ivs = [from_trace(p, a.regex, a.layers, a.passes) for p in paths]
        sys.stdout.write(tsv(labels, table(labels, ivs, a.layers, a.passes, a.pass_k,
                                           a.threshold), 0))
        return 0
    if a.mode == 'svg':
        return check_svg(a.args[0], a.args[1], a.threshold, a.phase, a.anchor)
    if a.mode == 'png':
        return check_png(a.args[0], a.args[1], a.darkest)
    if a.mode == 'heat':
        return check_heat(a.args[0], a.darkest)
    if a.mode == 'reports':
        return make_reports(a.args[0], a.ranks, a.layers, a.slow, a.recorded)
    return 2


def make_reports(d, n, layers, slow, recorded):
    import os, random
    rng = random.Random(n * 1000 + layers)
    srank, slayer, pct = (int(x) for x in slow.split(':'))
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        # an odd multiplier permutes 0..n-1 for a power of two n; else
        # the names' own numbers
        rank = (i * 37 + 11) % n if recorded else i
        t, rows = 10 ** 9, []
        for l in range(layers):
            iv = 1000000 + rng.randint(-40000, 40000)
            if rank == srank and l == slayer:
                iv = iv * (100 + pct) // 100
            rows.append({'pass_index': 0, 'layer_id': l, 'boundary_kind': 'next_layer_anchor',
                         'start_us': us3(t), 'end_us': us3(t + iv)})
            t += iv
        doc = '{"phase": "decode", "anchor_regex": "attn", '
        if recorded:
            doc += '"rank": %d, ' % rank
        doc += ('"num_layers": %d, "first_layer": 0, "passes": 1, "layers": [%s], '
                '"source_file": "rank-%d.json"}\n' % (layers, ', '.join(
                    '{"pass_index": 0, "layer_id": %d, "boundary_kind": "next_layer_anchor", '
                    '"start_us": %s, "end_us": %s}' % (r['layer_id'], r['start_us'], r['end_us'])
                    for r in rows), i))
        open(os.path.join(d, 'rank-%d.json' % i), 'w').write(doc)
    return 0


def cells_of(root):
    for g in root.iter(SVG + 'g'):
        if g.get('class') == 'cell':
            yield g, g.find(SVG + 'rect')


def check_heat(svg, darkest):
    bad = []
    root = ET.parse(svg).getroot()
    layer, rank = darkest.split(':')
    found = None
    for g, r in cells_of(root):
        k = (g.get('data-layer'), g.get('data-rank'))
        if k == (layer, rank):
            found = r.get('fill')
        elif k != ('total', rank) and r.get('fill') not in (NEUTRAL, NONE):
            bad.append('cell %s: %s, not white' % (k, r.get('fill')))
    if found != DARK:
        bad.append('the planted cell %s: fill %s, not the darkest %s' % (darkest, found, DARK))
    ids = {e.get('id') for e in root.iter() if e.get('id')}
    for want in ('x-axis', 'y-axis', 'legend'):
        if want not in ids:
            bad.append('no %s' % want)
    for b in bad[:10]:
        print(b)
    return 1 if bad else 0


def check_svg(svg, tsv_path, t, phase, anchor):
    bad = []
    root = ET.parse(svg).getroot()
    lines = [l.split('\t') for l in open(tsv_path).read().splitlines()]
    labels = lines[0][1:-2]
    want, zs = {}, {}
    for f in lines[1:]:
        med = int(Decimal(f[-2]) * 1000) if f[-2] else None
        row = [int(Decimal(c) * 1000) if c else None for c in f[1:-2]]
        for lab, c, v in zip(labels, f[1:-2], row):
            hot = band(v, med, t) in ('slow', 'slowest') and sigmas(v, row) > 3
            want[(f[0], lab)] = (c, 'hot' if hot else NONE if v is None else NEUTRAL)
            if hot:
                zs[(f[0], lab)] = sigmas(v, row)
    seen, fills = {}, {}
    for g, rect in cells_of(root):
        k = (g.get('data-layer'), g.get('data-rank'))
        fill = rect.get('fill')
        seen[k] = (g.get('data-us'), 'hot' if fill not in (NEUTRAL, NONE) else fill)
        fills[k] = fill
        text = g.find(SVG + 'text')
        if text is not None and int(rect.get('width')) < 6 * len(text.text) + 6:
            bad.append('cell %s: %r in a cell %s px wide' % (k, text.text, rect.get('width')))
    if seen != want:
        for k in sorted(set(seen) | set(want)):
            if seen.get(k) != want.get(k):
                bad.append('cell %s: svg %s, table %s' % (k, seen.get(k), want.get(k)))
    # darker the more sigmas; the most, the darkest of the ramp
    hot = sorted(zs, key=lambda k: zs[k])
    for a, b in zip(hot, hot[1:]):
        if zs[a] < zs[b] and lum(fills[a]) <= lum(fills[b]):
            bad.append('cell %s (%.2f sigmas) not lighter than %s (%.2f)' % (a, zs[a], b, zs[b]))
    if hot and fills[hot[-1]] != DARK:
        bad.append('the most sigmas, %s: %s, not %s' % (hot[-1], fills[hot[-1]], DARK))
    texts = {e.get('id'): ''.join(e.itertext()) for e in root.iter(SVG + 'text') if e.get('id')}
    if phase and ('phase ' + phase) not in texts.get('title', ''):
        bad.append('title lacks the phase: %r' % texts.get('title'))
    if anchor and ('anchor ' + anchor) not in texts.get('title', ''):
        bad.append('title lacks the anchor: %r' % texts.get('title'))
    if texts.get('x-axis') != 'rank' or texts.get('y-axis') != 'layer':
        bad.append('axis labels: %r %r' % (texts.get('x-axis'), texts.get('y-axis')))
    if 'Not layer latencies' not in texts.get('notice', ''):
        bad.append('no notice')
    legend = [e for e in root.iter(SVG + 'g') if e.get('id') == 'legend']
    sw = {r.get('fill') for r in legend[0].iter(SVG + 'rect')} if legend else set()
    if not {LIGHT, DARK, NEUTRAL, MEDIAN, NONE} <= sw:
        bad.append('legend swatches: %r' % sw)
    for b in bad:
        print(b)
    return 1 if bad else 0


def png_pixels(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), (depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def check_png(png, svg, darkest=None):
    w, h, bpp, rows = png_pixels(png)
    root = ET.parse(svg).getroot()
    bad, px_of = [], {}
    for g, r in cells_of(root):
        k = (g.get('data-layer'), g.get('data-rank'))
        x = int(r.get('x')) + int(r.get('width')) // 2
        y = int(r.get('y')) + int(r.get('height')) // 2
        if x >= w or y >= h:
            bad.append('cell %s outside the %dx%d image' % (k, w, h))
            continue
        px = tuple(rows[y][x * bpp:x * bpp + 3])
        px_of[k] = px
        fill = r.get('fill')
        want = tuple(int(fill[i:i + 2], 16) for i in (1, 3, 5))
        # a number drawn over the centre of a wide cell
        if g.find(SVG + 'text') is None and any(abs(p - q) > 3 for p, q in zip(px, want)):
            bad.append('cell %s: pixel %s, fill %s' % (k, px, fill))
    if darkest:
        k = tuple(darkest.split(':'))
        if k not in px_of:
            bad.append('no cell %s' % (k,))
        else:
            for o, px in px_of.items():
                if o != k and sum(px) <= sum(px_of[k]):
                    bad.append('cell %s %s not lighter than %s %s' % (o, px, k, px_of[k]))
    for b in bad[:10]:
        print(b)
    if not px_of:
        print('no cell found')
        return 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
