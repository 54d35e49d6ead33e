"""Independent oracle for tr-ranks(1) (t-ranks.sh).

  table [--threshold T] [--pass K] [--json] LABEL=REPORT...
      the table of tr-ranks --tsv (or the JSON of tr-ranks --json) computed
      from the layers reports with Python's json and integers
  traces --regex RE --layers N --passes P [--threshold T] [--pass K] LABEL=TRACE...
      the same TSV computed from the traces themselves: the anchor kernels
      sorted by ts, N x P from the first, one interval to the next anchor of
      the same pass (none for the last layer of a pass)
  svg FILE TSV [--threshold T] [--phase P] [--anchor RE]
      checks the heat map against a TSV table: every cell's value and colour,
      the title, the axes and the legend; prints the problems, exits 1 on any
  png FILE.png FILE.svg
      checks a rendering of the heat map: the pixel just inside each cell's
      corner has the cell's fill colour
"""
import argparse, gzip, json, re, statistics, struct, sys, zlib
import xml.etree.ElementTree as ET
from decimal import Decimal

FILL = {'none': '#d9d9d9', 'fast': '#2166ac', 'below': '#92c5de', 'near': '#f7f7f7',
        'slow': '#f4a582', 'slowest': '#b2182b'}
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
        return check_png(a.args[0], a.args[1])
    return 2


def check_svg(svg, tsv_path, t, phase, anchor):
    bad = []
    root = ET.parse(svg).getroot()
    lines = [l.split('\t') for l in open(tsv_path).read().splitlines()]
    labels = lines[0][1:-2]
    want = {}
    for f in lines[1:]:
        med = int(Decimal(f[-2]) * 1000) if f[-2] else None
        for lab, c in zip(labels, f[1:-2]):
            v = int(Decimal(c) * 1000) if c else None
            want[(f[0], lab)] = (c, FILL[band(v, med, t)])
    seen = {}
    for g in root.iter(SVG + 'g'):
        if g.get('class') != 'cell':
            continue
        k = (g.get('data-layer'), g.get('data-rank'))
        rect = g.find(SVG + 'rect')
        seen[k] = (g.get('data-us'), rect.get('fill'))
    if seen != want:
        for k in sorted(set(seen) | set(want)):
            if seen.get(k) != want.get(k):
                bad.append('cell %s: svg %s, table %s' % (k, seen.get(k), want.get(k)))
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
    fills = [r.get('fill') for r in legend[0].iter(SVG + 'rect')] if legend else []
    if sorted(fills) != sorted(FILL.values()):
        bad.append('legend swatches: %r' % fills)
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


def check_png(png, svg):
    w, h, bpp, rows = png_pixels(png)
    root = ET.parse(svg).getroot()
    bad, n = [], 0
    for g in root.iter(SVG + 'g'):
        if g.get('class') != 'cell':
            continue
        r = g.find(SVG + 'rect')
        x, y = int(r.get('x')) + 3, int(r.get('y')) + 3
        if x >= w or y >= h:
            bad.append('cell %s %s outside the %dx%d image' % (g.get('data-layer'),
                                                             g.get('data-rank'), w, h))
            continue
        px = tuple(rows[y][x * bpp:x * bpp + 3])
        fill = r.get('fill')
        want = tuple(int(fill[i:i + 2], 16) for i in (1, 3, 5))
        n += 1
        if any(abs(p - q) > 3 for p, q in zip(px, want)):
            bad.append('cell %s %s: pixel %s, fill %s' % (g.get('data-layer'),
                                                        g.get('data-rank'), px, fill))
    for b in bad:
        print(b)
    if n == 0:
        print('no cell found')
        return 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
