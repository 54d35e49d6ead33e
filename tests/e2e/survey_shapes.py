#!/usr/bin/env python3
"""Small Kineto-shaped traces for the tr-survey tests, in shapes tr-gen does
not write: decode steps of a fixed layer count with jitter inside one step,
heterogeneous layers, one kernel per step (--num-layers 1), kernels only in
another pid, many pids with one kernel each.

usage: survey_shapes.py SHAPE OUT [options]
Every shape is deterministic.  Kernel times are integer nanoseconds written
as microseconds with three decimals, on the epoch scale Kineto uses."""
import argparse
import json
import random

BASE_NS = 1_712_195_495_519_689_047


def us(ns):
    return '%d.%03d' % divmod(ns, 1000)


class Trace:
    def __init__(self):
        self.events = []

    def kernel(self, name, ts, dur, pid=0, tid=7, device=0):
        self.events.append('{"ph":"X","cat":"kernel","name":%s,"pid":%s,"tid":%s,'
                           '"ts":%s,"dur":%s,"args":{"device":%s,"stream":%s}}' % (
                               json.dumps(name), json.dumps(pid), json.dumps(tid), us(ts),
                               us(dur), json.dumps(device), json.dumps(tid)))

    def cpu(self, name, ts, dur, pid=100, tid=100):
        self.events.append('{"ph":"X","cat":"user_annotation","name":%s,"pid":%s,"tid":%s,'
                           '"ts":%s,"dur":%s}' % (json.dumps(name), pid, tid, us(ts), us(dur)))

    def write(self, path):
        with open(path, 'w') as f:
            f.write('{"schemaVersion":1,"traceEvents":[\n')
            f.write(',\n'.join(self.events))
            f.write('\n]}\n')


ANCHOR = 'void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>(Flash_fwd_params)'
ROTARY = 'void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)'
NORM = 'void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*)'
GEMM = 'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64'
SAMPLER = 'void at::native::sampler_kernel<float>(float*)'


def layer(t, ts, pid=0, device=0, spacing=100_000, anchor=ANCHOR):
    """One decoder layer from ts: norm, rotary, attention, norm, 3 gemms.
    Returns the start of the next layer."""
    t.kernel(NORM, ts, 4_000, pid, device=device)
    t.kernel(ROTARY, ts + 10_000, 3_000, pid, device=device)
    t.kernel(anchor, ts + 20_000, 20_000, pid, device=device)
    t.kernel(NORM, ts + 45_000, 4_000, pid, device=device)
    for k in range(3):
        t.kernel(GEMM, ts + 55_000 + k * 12_000, 9_000, pid, device=device)
    return ts + spacing


def decode(args):
    """args.steps steps of args.layers layers; inside step args.jitter_step
    one gap between two layers is args.jitter_us long; steps are
    args.step_gap_us apart; a partial step of args.head layers first; the
    first step's layers args.prefill_us apart when given (a slow prefill
    beside fast decode steps); the attention kernel named args.anchor."""
    t = Trace()
    ts = BASE_NS
    rnd = random.Random(args.seed)
    steps = []
    if args.head:
        for i in range(args.head):
            ts = layer(t, ts, spacing=100_000 + rnd.randrange(0, 2_000))
        ts += args.step_gap_us * 1000
    for s in range(args.steps):
        start = ts
        base = args.prefill_us * 1000 if s == 0 and args.prefill_us else 100_000
        for i in range(args.layers):
            if s == args.jitter_step and i == args.layers // 2:
                ts += args.jitter_us * 1000
            ts = layer(t, ts, spacing=base + rnd.randrange(0, 2_000), anchor=args.anchor)
        steps.append((start - 50_000, ts - start + 60_000))
        ts += args.step_gap_us * 1000
    if args.markers:
        for i, (a, d) in enumerate(steps):
            t.cpu('ProfilerStep#%d' % (i + 10), a, d)
    t.write(args.out)


def hetero(args):
    """Encoder layers 40 us apart, decoder layers 150 us apart, one pass:
    gatherTopK once per layer in both, so its gaps are of two sizes."""
    t = Trace()
    ts = BASE_NS
    for i in range(args.layers):
        enc = i < args.layers // 2
        t.kernel('void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>()', ts, 3_000)
        t.kernel('ampere_sgemm_128x32_tn', ts + 5_000, 5_000)
        t.kernel('ampere_sgemm_128x32_tn', ts + 12_000, 5_000)
        if not enc:
            t.kernel('void cross_attention_kernel<float>()', ts + 60_000, 20_000)
        ts += 40_000 if enc else 150_000
    t.write(args.out)


def per_step(args):
    """args.steps steps, each one sampler kernel and two norms; for
    --num-layers 1."""
    t = Trace()
    ts = BASE_NS
    for s in range(args.steps):
        t.kernel(NORM, ts, 4_000)
        t.kernel(SAMPLER, ts + 10_000, 5_000)
        t.kernel(NORM, ts + 20_000, 4_000)
        ts += 1_000_000 + (s % 3) * 10_000
    t.write(args.out)


def elsewhere(args):
    """Kernels only in pid 6 (device 6) and pid 7 (device 7); pid 0 holds
    CPU events only."""
    t = Trace()
    ts = BASE_NS
    t.cpu('ProfilerStep#1', ts, 10_000_000, pid=0, tid=1)
    for i in range(4):
        ts = layer(t, ts, pid=6, device=6)
    t.kernel(SAMPLER, ts, 1_000, pid=7, device=7)
    t.write(args.out)


def odd(args):
    """One pass of args.layers layers with an extra norm before and after:
    the norm count is 2N + 2 or 2N + 1 (args.extra), never an exact
    multiple of 2N."""
    t = Trace()
    ts = BASE_NS
    t.kernel(NORM, ts, 4_000)
    ts += 50_000
    for i in range(args.layers):
        ts = layer(t, ts)
    for i in range(args.extra - 1):
        t.kernel(NORM, ts + i * 10_000, 4_000)
    t.write(args.out)


def norms(args):
    """Only a norm kernel, twice in each of args.layers layers of one pass:
    the gaps alternate short (inside a layer) and long."""
    t = Trace()
    ts = BASE_NS
    for i in range(args.layers):
        t.kernel(NORM, ts, 4_000)
        t.kernel(NORM, ts + 30_000, 4_000)
        ts += 100_000 + (i % 2) * 1_000
    t.write(args.out)


def pids(args):
    """args.count pids with one kernel each (a scaling case)."""
    t = Trace()
    for p in range(args.count):
        t.kernel('k%d' % (p % 7), BASE_NS + p * 1000, 500, pid=p, tid=7, device=p)
    t.write(args.out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('shape', choices=['decode', 'hetero', 'per_step', 'elsewhere', 'odd', 'norms', 'pids'])
    ap.add_argument('out')
    ap.add_argument('--steps', type=int, default=9)
    ap.add_argument('--layers', type=int, default=80)
    ap.add_argument('--head', type=int, default=0)
    ap.add_argument('--jitter-step', type=int, default=-1)
    ap.add_argument('--jitter-us', type=int, default=0)
    ap.add_argument('--step-gap-us', type=int, default=2000)
    ap.add_argument('--markers', action='store_true')
    ap.add_argument('--extra', type=int, default=2)
    ap.add_argument('--count', type=int, default=1000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--prefill-us', type=int, default=0)
    ap.add_argument('--anchor', default=ANCHOR)
    args = ap.parse_args()
    globals()[args.shape](args)


if __name__ == '__main__':
    main()
