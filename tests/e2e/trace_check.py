#!/usr/bin/env python3
"""Oracles for the e2e tests on whole traces, with json_equal.py's notion of
equality (member order, duplicate members, number text and string bytes kept)
and its description of the first difference.

usage: trace_check.py equal SRC OUT
           SRC and OUT are equal as JSON; prints "events N", N being
           len(traceEvents) of SRC (or of the array, for the array format).
       trace_check.py dropped SRC OUT MEMBER VALUE
           OUT is SRC without exactly the events whose MEMBER is the string
           VALUE (at least one); everything else equal.  Prints "dropped N".
Exit 0 when the check holds, 1 with the first difference, 2 on trouble.
"""
import gc
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import json_equal  # noqa: E402


def load(path):
    """json_equal.load's information in a form that == compares at C speed
    (about 3x faster on big traces): an object is a tuple of (name, value)
    pairs, an array a list, a number its text as bytes, a string a str."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return json.loads(data.decode('utf-8', 'surrogateescape'),
                      object_pairs_hook=tuple, parse_float=str.encode,
                      parse_int=str.encode, parse_constant=str.encode)


def events_of(doc):
    if isinstance(doc, list):
        return doc
    for key, value in doc:
        if key == 'traceEvents':
            return value
    raise ValueError('no traceEvents member')


def member(event, name):
    for key, value in event:
        if key == name:
            return value
    return None


def differ(src, out, path_src, path_out, drop=None):
    """None when equal, else json_equal's description of the difference."""
    if src == out:
        return None
    a, b = json_equal.load(path_src), json_equal.load(path_out)
    if drop is not None:
        events = a if isinstance(a, list) else next(
            v for k, v in a[1] if k == 'traceEvents')
        events[:] = [e for e in events
                     if next((v for k, v in e[1] if k == drop[0]), None) != drop[1]]
    return json_equal.first_difference(a, b) or 'differ (no detail)'


def main():
    argv = sys.argv[1:]
    if not argv or (argv[0], len(argv)) not in (('equal', 3), ('dropped', 5)):
        print(__doc__, file=sys.stderr)
        return 2
    gc.disable()  # see json_equal.main
    try:
        src, out = load(argv[1]), load(argv[2])
        events = events_of(src)
    except (OSError, ValueError) as e:
        print(f'trace_check: {e}', file=sys.stderr)
        return 2
    if argv[0] == 'equal':
        d = differ(src, out, argv[1], argv[2])
        if d:
            print(f'trace_check: differ at {d}', file=sys.stderr)
            return 1
        print(f'events {len(events)}')
        return 0
    name, value = argv[3], argv[4]
    kept = [e for e in events if member(e, name) != value]
    dropped = len(events) - len(kept)
    if dropped == 0:
        print(f'trace_check: no event has {name} == {value!r}', file=sys.stderr)
        return 1
    events[:] = kept  # src now is what OUT should be
    d = differ(src, out, argv[1], argv[2], (name, value))
    if d:
        print(f'trace_check: differ at {d}', file=sys.stderr)
        return 1
    print(f'dropped {dropped}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
