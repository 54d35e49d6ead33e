#!/usr/bin/env python3
"""Oracle for tr-gen --shape dense: reads a generated trace with python's
json module and prints its shape, one fact a line:

    streams S          distinct tids of the kernels of pid 0
    layers L           distinct layer_<i> annotation names
    passes P           Memcpy HtoD activities (one at the start of each pass)
    flows/kernel F     ac2g flow events per GPU activity (s and f: 2)
    unpaired U         activities whose correlation has not exactly one s
                       and one f flow with that id
    beside/attention B kernels overlapping each attention kernel, at most
    one event/line Y   1 when every event is alone on its line (between
                       the header line and the tail line)

usage: shape_check.py TRACE
"""
import collections
import json
import sys


def main(path):
    with open(path, 'rb') as f:
        raw = f.read()
    doc = json.loads(raw)
    events = doc['traceEvents']
    gpu = [e for e in events if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')]
    kernels = [e for e in gpu if e['cat'] == 'kernel' and e['pid'] == 0]
    flows = collections.Counter((e['ph'], e['id']) for e in events if e.get('cat') == 'ac2g')
    layers = {e['name'] for e in events if e.get('cat') == 'gpu_user_annotation'}
    passes = sum(1 for e in gpu if e['name'].startswith('Memcpy HtoD'))
    unpaired = sum(1 for e in gpu
                   if flows[('s', e['args']['correlation'])] != 1
                   or flows[('f', e['args']['correlation'])] != 1)
    attention = [e for e in kernels if e['name'].startswith('void flash_fwd_kernel')]
    beside = 0
    by_start = sorted(kernels, key=lambda e: float(e['ts']))
    for a in attention:
        a0, a1 = float(a['ts']), float(a['ts']) + float(a['dur'])
        n = sum(1 for k in by_start if k is not a and float(k['ts']) < a1
                and float(k['ts']) + float(k['dur']) > a0)
        beside = max(beside, n)
    # the header line (up to "traceEvents": [), one line per event, the tail
    one_per_line = int(raw.count(b'\n') == len(events) + 2)
    print('streams', len({k['tid'] for k in kernels}))
    print('layers', len(layers))
    print('passes', passes)
    print('flows/kernel', sum(flows.values()) // len(gpu))
    print('unpaired', unpaired)
    print('beside/attention', beside)
    print('one event/line', one_per_line)


if __name__ == '__main__':
    main(sys.argv[1])
