# tr-survey: the true once-per-layer kernels rank at the top with the right
# offset and passes; passes are cut at the largest gaps, not lost to jitter;
# twice-per-layer warnings carry true arithmetic; N = 1 is defined; a --pid
# without kernels says where they are.  Every survey is also checked whole
# (candidate order, offsets, passes, spans, warning texts, command) against
# survey_oracle.py, which computes it from the trace with python's json.
# (sourced by run.sh)

SHAPES=$ROOT/tests/e2e/survey_shapes.py
ORACLE=$ROOT/tests/e2e/survey_oracle.py

# survey NAME TRACE N [OPTIONS] PYTHON-ASSERTIONS: run tr-survey --json with
# the options, compare it whole with the oracle, then check the first
# group's result with python (variables: r, g, top, names, warnings, by).
survey() {
	name=$1 trace=$2 n=$3
	shift 3
	opts=
	while [ $# -gt 1 ]; do opts="$opts $1"; shift; done
	code=$1
	# shellcheck disable=SC2086
	if ! { tr-decode "$trace" >"$T/survey.stream" &&
	       tr-survey --num-layers "$n" $opts --json <"$T/survey.stream" >"$T/survey.json"; } \
	       2>"$T/err"; then
		fail "$name" "tr-survey failed: $(head -c 300 "$T/err")"
		return
	fi
	# shellcheck disable=SC2086
	if ! python3 "$ORACLE" "$trace" "$n" "$T/survey.json" "$T/survey.stream" $opts >"$T/py" 2>&1; then
		fail "$name" "differs from the oracle:" "$(head -5 "$T/py")"
		return
	fi
	if python3 - "$T/survey.json" >"$T/py" 2>&1 <<PY
import json, sys
r = json.load(open(sys.argv[1]))
g = r['groups'][0] if r['groups'] else None
cands = g['candidates'] if g else []
top = cands[0] if cands else None
names = [c['name'] for c in cands]
by = {c['name']: c for c in cands}
warnings = '\n'.join(g['warnings']) if g else ''
$code
PY
	then pass "$name"; else fail "$name" "$(tail -3 "$T/py")"; fi
}

# text NAME CMD WANT-FILE: the text report, exactly.
text_is() {
	run "$2"
	if [ "$RC" = 0 ] && cmp -s "$3" "$T/out"; then
		pass "$1"
	else
		fail "$1" "exit $RC" "$(diff "$3" "$T/out" | head -8)"
	fi
}

ANCHOR='void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>(Flash_fwd_params)'
NORM='void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*)'

# --- generated shapes -------------------------------------------------------
gen=$T/spec.json
tr-gen --layers 6 --passes 3 --draft-passes 2 --draft-layers 2 -o "$gen"
survey "generated speculative decoding: the target attention ranks first, 3 passes" "$gen" 6 "
assert top['name'].startswith('void flash_fwd_kernel<Flash_fwd_kernel_traits<128,') or \
    top['name'].startswith('void vllm::rotary_embedding_kernel<c10::BFloat16, true>'), top['name']
assert top['count'] == 18 and top['passes'] == 3 and top['anchor_offset'] == 0, top
assert top['split'] == 'clean' and len(top['pass_spans_ms']) == 3, top
assert not any('traits<64,' in n for n in names[:2]), names
"
survey "generated speculative decoding: draft and target told apart" "$gen" 6 "
assert 'one family, runs of' in warnings and 'flash_fwd_kernel<...>' in warnings, warnings
assert 'twice per layer' in warnings and 'rms_norm_kernel<c10::BFloat16>' in warnings, warnings
"
survey "generated: the command line anchors the exact name" "$gen" 6 "
import re
cmd = g['command']
rx = cmd.split('--anchor-regex ')[1].split(\"' \")[0].strip(\"'\")
assert re.search(rx, top['name']) and rx.startswith('^') and rx.endswith('\$'), rx
assert '--num-layers 6 --anchor-offset 0 --passes 3' in cmd, cmd
"

# 9 decode steps of exactly 80 layers; inside step 4 one gap of 200 us
# (twice the layer spacing: a split at 1.5 x the median gap cut it in two)
python3 "$SHAPES" decode "$T/d9.json" --steps 9 --layers 80 --jitter-step 4 --jitter-us 200
survey "9 steps x 80 with jitter inside one step: --passes 9, offset 0, clean split" "$T/d9.json" 80 "
assert names[:2] == ['$ANCHOR', 'void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)'], names
for c in cands[:2]:
    assert c['count'] == 720 and c['passes'] == 9 and c['anchor_offset'] == 0, c
    assert c['split'] == 'clean' and c['partial_first'] == 0 and c['partial_last'] == 0, c
    assert len(c['pass_spans_ms']) == 9 and c['confirms'] == 1, c
assert '--anchor-offset 0 --passes 9' in g['command'], g['command']
assert 'twice per layer (2 between consecutive occurrences of candidate 1; 1440 = 2 x 80 x 9): $NORM' in g['warnings'], warnings
assert not any('$NORM' == n for n in names), names
"
# the text report says the same as the JSON checked above
tr-decode "$T/d9.json" | tr-survey --num-layers 80 --top 1 --json >"$T/d9.s.json"
run "tr-decode '$T/d9.json' | tr-survey --num-layers 80 --top 1"
if python3 - "$T/d9.s.json" "$T/out" >"$T/py" 2>&1 <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))['groups'][0]['candidates'][0]
text = open(sys.argv[2]).read().split('\n')
line = ('  1. %d x (%d / 80 layers = %.2f), %d passes of 80, split at larger gaps, spacing cv %.2f, '
        '1 stream; --anchor-offset %d --passes %d' % (c['count'], c['count'], c['count'] / 80,
        c['passes'], c['spacing_cv'], c['anchor_offset'], c['passes']))
spans = '     passes (ms from the trace start, bytes of the events in each): ' + ', '.join(
    '%.6f-%.6f (%d bytes)' % (s[0], s[1], b) for s, b in zip(c['pass_spans_ms'][:8], c['pass_bytes']))
spans += ' and 1 more (--json lists all)'
assert text[2] == line, (text[2], line)
# the name is over 72 bytes: shortened on screen, whole in --json
assert text[3] == '     flash_fwd_kernel<...>(...)', text[3]
assert c['name'] == 'void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>(Flash_fwd_params)', c['name']
assert text[5] == spans, (text[5], spans)
PY
then pass "text: the candidate line and its pass spans"; else fail "text: the candidate line and its pass spans" "$(tail -3 "$T/py")"; fi

# the same with a 3 ms stall inside step 4, longer than the 2 ms between
# steps: the split is ambiguous, and says so, but no pass is dropped
python3 "$SHAPES" decode "$T/d9a.json" --steps 9 --layers 80 --jitter-step 4 --jitter-us 3000
survey "a stall longer than the step gap: still 9 passes, the split called ambiguous" "$T/d9a.json" 80 "
assert top['name'] == '$ANCHOR' and top['passes'] == 9 and top['anchor_offset'] == 0, top
assert top['split'] == 'ambiguous', top
w = [x for x in g['warnings'] if x.startswith('passes ambiguous') and x.endswith(': $ANCHOR')]
assert w == ['passes ambiguous: a gap inside a pass (3.101678 ms) is not smaller than the smallest gap between passes (2.100457 ms); 9 passes of exactly 80 assumed; check them against the time spans: $ANCHOR'], w
"

# a partial step of 30 layers first, ProfilerStep markers around the 9 steps
python3 "$SHAPES" decode "$T/d9h.json" --steps 9 --layers 80 --head 30 --markers
survey "a trace that starts mid-step: offset 30, 9 passes; ProfilerStep counts" "$T/d9h.json" 80 "
assert r['profiler_steps'] == 9, r['profiler_steps']
assert top['anchor_offset'] == 30 and top['passes'] == 9 and top['split'] == 'clean', top
assert top['per_step'] == {'before_first': 30, 'counts': [80] * 9}, top['per_step']
assert '750 is not a multiple of 80 (750 = 9 x 80 + 30: a partial first pass of 30): $ANCHOR' in g['warnings'], warnings
"

# the stall again, with ProfilerStep markers: they agree with the passes
python3 "$SHAPES" decode "$T/d9am.json" --steps 9 --layers 80 --jitter-step 4 --jitter-us 3000 --markers
survey "an ambiguous split that the ProfilerStep markers confirm" "$T/d9am.json" 80 "
assert top['name'] == '$ANCHOR' and top['passes'] == 9 and top['split'] == 'ambiguous', top
assert 'passes ambiguous: a gap inside a pass (3.101678 ms) is not smaller than the smallest gap between passes (2.100457 ms); 9 passes of exactly 80 assumed; 9 ProfilerStep starts fall at pass boundaries, none inside a pass: $ANCHOR' in g['warnings'], warnings
"
# a wrong layer count: the markers contradict every pass
survey "--num-layers 60 on 80-layer steps: the ProfilerStep starts fall inside passes" "$T/d9h.json" 60 "
assert top['split'] == 'ambiguous' and '9 ProfilerStep starts fall inside its passes' in top['weaker'], top
assert any(w.startswith('passes ambiguous') and '; 9 ProfilerStep starts fall inside passes, compare them with the counts: $ANCHOR' in w for w in g['warnings']), warnings
"

# heterogeneous layers: encoder layers 40 us apart, decoder 150 us apart
python3 "$SHAPES" hetero "$T/het.json" --layers 10
survey "heterogeneous layers: the once-per-layer kernel is listed, with why it ranks lower" "$T/het.json" 10 "
assert top['name'].startswith('void at::native::sbtopk::gatherTopK'), names
assert top['count'] == 10 and top['passes'] == 1 and top['split'] == 'single', top
assert top['weaker'] == ['irregular spacing inside passes (cv 0.61)'], top['weaker']
assert 'twice per layer (2 between consecutive occurrences of candidate 1; 20 = 2 x 10): ampere_sgemm_128x32_tn' in g['warnings'], warnings
"

# an odd norm count: true arithmetic, no integer division
python3 "$SHAPES" odd "$T/odd.json" --layers 5 --extra 1
survey "11 norms for 5 layers: '11 = 2 x 5 + 1', not '11 = 2 x 5'" "$T/odd.json" 5 "
assert 'twice per layer (2 between consecutive occurrences of candidate 1; 11 = 2 x 5 + 1): $NORM' in g['warnings'], warnings
assert '= 2 x 5)' not in warnings, warnings
"
python3 "$SHAPES" norms "$T/norms.json" --layers 5
survey "only norms: twice per layer by their count and gaps, no candidate" "$T/norms.json" 5 "
assert cands == [] and g['command'] is None, cands
assert g['warnings'] == ['twice per layer (10 = 2 x 5; its gaps fit passes of 10, not passes of 5): $NORM'], warnings
"
cat >"$T/want" <<EOF
== pid 0, device 0: 1 kernel names
anchor candidates (5 or more occurrences, cut into passes of 5):
  none: every kernel that occurs 5 times or more runs more than once per layer (see the warnings)
warnings:
twice per layer (10 = 2 x 5; its gaps fit passes of 10, not passes of 5): $NORM
EOF
text_is "text: no candidate because every name runs twice per layer" \
	"tr-decode '$T/norms.json' | tr-survey --num-layers 5" "$T/want"

# --num-layers 1: each occurrence is a pass; twice per step is a warning,
# never a listed candidate
python3 "$SHAPES" per_step "$T/ps.json" --steps 6
survey "--num-layers 1: one pass per occurrence, the twice-per-step norm not listed" "$T/ps.json" 1 "
assert names == ['void at::native::sampler_kernel<float>(float*)'], names
assert top['passes'] == 6 and top['anchor_offset'] == 0 and top['split'] == 'clean', top
assert top['pass_spans_ms'][1] == ['1.010000', '1.015000'] or top['pass_spans_ms'][1] == [1.01, 1.015], top
assert g['warnings'] == ['twice per layer (2 between consecutive occurrences of candidate 1; 12 = 2 x 1 x 6): $NORM'], warnings
"
run "tr-decode '$T/ps.json' | tr-survey --num-layers 1"
if [ "$(sed -n 2p "$T/out")" = "anchor candidates (--num-layers 1: each occurrence is a pass of its own):" ] &&
	grep -qxF "  1. 6 x (6 / 1 layer = 6.00), 6 passes of 1, split at larger gaps, spacing cv 0.01, 1 stream; --anchor-offset 0 --passes 6" "$T/out"; then
	pass "text: --num-layers 1 says what a pass is"
else
	fail "text: --num-layers 1 says what a pass is" "$(head -4 "$T/out")"
fi

# kernels only in other pids
python3 "$SHAPES" elsewhere "$T/el.json"
cat >"$T/want" <<EOF
no GPU kernels in pid 0; kernels are in:
  pid 6, device 6: 28 kernels
  pid 7, device 7: 1 kernel
EOF
text_is "--pid 0 without kernels: the pids that have them" \
	"tr-decode '$T/el.json' | tr-survey --num-layers 4 --pid 0" "$T/want"
survey "--pid 0 without kernels, --json: kernels_elsewhere" "$T/el.json" 4 --pid 0 "
assert r['groups'] == [] and r['kernels_elsewhere'] == [{'pid': 6, 'device': 6, 'kernels': 28}, {'pid': 7, 'device': 7, 'kernels': 1}], r
"
survey "--pid 6: the kernels of pid 7 are listed as elsewhere" "$T/el.json" 4 --pid 6 "
assert top['name'] == '$ANCHOR' and top['passes'] == 1, top
assert r['kernels_elsewhere'] == [{'pid': 7, 'device': 7, 'kernels': 1}], r
"
text_is "no kernels at all" "printf '[{\"ph\":\"i\",\"ts\":1}]' >'$T/none.json' && tr-decode '$T/none.json' | tr-survey --num-layers 3" /dev/stdin <<EOF
no GPU kernels in the stream
EOF

# many pids with one kernel each (the scaling case of make bench, small)
python3 "$SHAPES" pids "$T/pids.json" --count 300
survey "300 pids with one kernel each: a group each, in stream order" "$T/pids.json" 1 "
assert len(r['groups']) == 300 and r['groups'][299]['pid'] == 299, len(r['groups'])
"

# the oracle can fail: a survey with two candidates swapped is rejected
tr-decode "$T/d9.json" | tr-survey --num-layers 80 --json >"$T/s.json"
python3 - "$T/s.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r['groups'][0]['candidates']
c[0], c[1] = c[1], c[0]
json.dump(r, open(sys.argv[1], 'w'))
PY
if python3 "$ORACLE" "$T/d9.json" 80 "$T/s.json" >/dev/null 2>&1; then
	fail "the oracle rejects a survey with two candidates swapped" "it accepted it"
else
	pass "the oracle rejects a survey with two candidates swapped"
fi

expect 1 "tr-survey refuses a truncated stream" \
	"tr-decode '$gen' | sed '\$d' | tr-survey --num-layers 6" "truncated"

# --- spacing within passes, whole passes, naming --------------------------------
GEMM='sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64'
ROTARY='void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)'
# a slow prefill pass (layers 1 ms apart) beside 6 fast decode passes (0.1 ms):
# pooled over the passes the gaps vary (cv above 1), inside each pass they do not
python3 "$SHAPES" decode "$T/pd.json" --steps 7 --layers 36 --prefill-us 1000 --step-gap-us 3000
survey "prefill beside decode passes: the spacing is measured within each pass, not called irregular" "$T/pd.json" 36 "
import json as js, math
assert top['name'] == '$ANCHOR' and top['passes'] == 7 and top['split'] == 'clean', top
assert float(top['spacing_cv']) < 0.05 and top['weaker'] == [], top
assert top['whole_passes'] is True and g['command_candidate'] == 1, g['command_candidate']
assert '--num-layers 36 --anchor-offset 0 --passes 7' in g['command'], g['command']
# the shape is what it claims: pooled over the passes the cv is high
ts = sorted(float(e['ts']) for e in js.load(open('$T/pd.json'))['traceEvents'] if e['name'] == '$ANCHOR')
gaps = [ts[i + 1] - ts[i] for i in range(len(ts) - 1) if (i + 1) % 36]
m = sum(gaps) / len(gaps)
assert math.sqrt(sum((x - m) ** 2 for x in gaps) / len(gaps)) / m > 1.0
"
run "tr-decode '$T/pd.json' | tr-survey --num-layers 36 --top 1"
if grep -q 'irregular' "$T/out" || ! grep -qxF '  1. 252 x (252 / 36 layers = 7.00), 7 passes of 36, split at larger gaps, spacing cv 0.01, 1 stream; --anchor-offset 0 --passes 7' "$T/out"; then
	fail "text: prefill beside decode, the candidate line" "$(sed -n 3p "$T/out")"
else
	pass "text: prefill beside decode, the candidate line"
fi

survey "three times per layer is named so, with its true arithmetic" "$T/d9.json" 80 "
assert 'three times per layer (3 between consecutive occurrences of candidate 1; 2160 = 3 x 80 x 9): $GEMM' in g['warnings'], warnings
assert '$GEMM' not in names and 'twice per layer (2 between consecutive occurrences of candidate 1; 1440 = 2 x 80 x 9): $NORM' in g['warnings'], warnings
"

# a long mangled anchor name: shortened on screen, whole in --json and in the
# command, which is never cut
MANGLED="_ZN5aiter24add_rmsnorm_quant_kernelI$(printf 'DF16b%.0s' $(seq 1 80))Li256ELi16ELb1ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib"
python3 "$SHAPES" decode "$T/mg.json" --steps 3 --layers 6 --anchor "$MANGLED"
survey "a mangled name: whole in --json, the command's regex whole" "$T/mg.json" 6 "
assert top['name'] == '$MANGLED' and len(top['name']) > 450, top['name']
assert g['command'] == \"tr-layer-track --trace TRACE --output OUT --anchor-regex '^$MANGLED\$' --num-layers 6 --anchor-offset 0 --passes 3 --pid 0 --phase PHASE --evidence 'WHY L0 IS L0'\", g['command']
"
run "tr-decode '$T/mg.json' | tr-survey --num-layers 6 --top 1"
if [ "$(sed -n 4p "$T/out")" = "     add_rmsnorm_quant_kernel<...>(...)" ] &&
	grep -qxF "  tr-layer-track --trace TRACE --output OUT --anchor-regex '^$MANGLED\$' --num-layers 6 --anchor-offset 0 --passes 3 --pid 0 --phase PHASE --evidence 'WHY L0 IS L0'" "$T/out" &&
	[ "$(grep -c "$MANGLED" "$T/out")" = 1 ]; then
	pass "text: a mangled name shortened on screen, the command whole"
else
	fail "text: a mangled name shortened on screen, the command whole" "$(sed -n 4p "$T/out" | head -c 200)"
fi
survey "an inference trace is told about draft and target passes" "$gen" 6 "
assert any(w.startswith('one family, runs of') and '(draft and target passes?)' in w for w in g['warnings']), warnings
"

# without --num-layers: the names by their count per ProfilerStep
cat >"$T/want" <<EOF
== pid 0, device 0: 4 kernel names
counts per ProfilerStep (9 steps; the names with the same count in every step, most shared count first, 1 last):
  80 per step: 2 names: flash_fwd_kernel<...>(...), $ROTARY
  160 per step: 1 name: $NORM
  240 per step: 1 name: $GEMM
a once-per-layer kernel occurs the number of layers times per pass: give that number as --num-layers N for anchor candidates, their passes and a starting command
EOF
text_is "without --num-layers: the names by their count per ProfilerStep" \
	"tr-decode '$T/d9h.json' | tr-survey" "$T/want"
run "tr-decode '$T/d9.json' | tr-survey --top 1 --json"
if [ "$RC" = 0 ] && python3 - "$T/out" >"$T/py" 2>&1 <<PY
import json, sys
r = json.load(open(sys.argv[1]))
assert r['num_layers'] is None and r['profiler_steps'] == 0, r
g = r['groups'][0]
assert g['per'] == 'trace' and g['more_counts'] == 2, g
assert g['counts'] == [{'count': 720, 'names': ['$ANCHOR', '$ROTARY']}], g['counts']
PY
then pass "without --num-layers, no markers, --json: counts in the whole trace"
else fail "without --num-layers, no markers, --json: counts in the whole trace" "$(tail -3 "$T/py")"
fi

# --- real traces ------------------------------------------------------------
if [ ! -d "$TRACES" ]; then
	skip "tr-survey on real traces" "$TRACES is absent"
	return 0
fi
survey "BERT-small: a once-per-layer kernel first, offset 0" "$TRACES/gaunernst_bert-small-uncased__1016001.json.gz" 4 "
assert top['count'] == 4 and top['anchor_offset'] == 0 and top['confirms'] >= 2, top
assert any('flash_fwd_kernel' in n for n in names[:3]), names[:3]
assert 'twice per layer (2 between consecutive occurrences of candidate 1; 10 = 2 x 4 + 2)' in warnings and 'vectorized_layer_norm_kernel' in warnings, warnings
"
survey "Qwen3-8B: 36 once-per-layer kernels, confirmed" "$TRACES/sglang_Qwen3-8B_prefilldecode.json.gz" 36 "
assert top['count'] == 36 and top['passes'] == 1 and top['confirms'] >= 3, top
assert any('rotary_embedding_kernel' in n or 'store_kvcache' in n for n in names[:5]), names[:5]
assert 'add_rmsnorm_quant_kernel' in warnings, warnings
"
run "tr-decode '$TRACES/sglang_Qwen3-8B_prefilldecode.json.gz' | tr-survey --num-layers 36 --top 1"
if [ "$(sed -n 4p "$T/out")" = "     act_and_mul_kernel<...>(...)" ] &&
	grep -qF "anchor-regex '^_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i\$' --num-layers 36 --anchor-offset 0 --passes 1 --pid 9" "$T/out"; then
	pass "text: Qwen3-8B, a mangled name shortened, the command's regex whole"
else
	fail "text: Qwen3-8B, a mangled name shortened, the command's regex whole" "$(sed -n 3,4p "$T/out")"
fi
survey "Qwen3-8B --pid 0: the kernels are in pid 9" "$TRACES/sglang_Qwen3-8B_prefilldecode.json.gz" 36 --pid 0 "
assert r['groups'] == [] and [e['pid'] for e in r['kernels_elsewhere']] == [9], r['kernels_elsewhere']
"
survey "B200 vLLM: 36 per layer; fused_add_rms_norm twice per layer, 73 = 2 x 36 + 1" "$TRACES/eager_trace.json.gz" 36 "
assert top['count'] == 36 and top['anchor_offset'] == 0, top
assert 'fused_add_rms_norm_kernel' in warnings, warnings
assert any(w.startswith('twice per layer (2 between consecutive occurrences of candidate 1; 73 = 2 x 36 + 1): ') for w in g['warnings']), warnings
"
survey "OWLv2 vision: 24 x 5 passes" "$TRACES/google_owlv2-large-patch14-ensemble__1016001.json.gz" 24 "
assert top['count'] == 120 and top['passes'] == 5 and top['split'] == 'clean', top
assert any('cunn_SoftMaxForward' in n for n in names[:5]), names[:5]
assert 'vectorized_layer_norm_kernel' in warnings, warnings
"
survey "OWLv2 text: 12 x 5 passes" "$TRACES/google_owlv2-large-patch14-ensemble__1016001.json.gz" 12 "
assert top['count'] == 60 and top['passes'] == 5, top
assert any('softmax_warp_forward' in n for n in names[:5]), names[:5]
"
survey "Qwen1.5 mid-forward: the offset skips the previous step's tail" "$TRACES/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" 24 "
silu = [c for n, c in by.items() if 'silu_kernel' in n]
flash = [c for n, c in by.items() if 'flash_fwd_kernel' in n]
assert silu and silu[0]['anchor_offset'] == 11 and silu[0]['passes'] == 1, silu
assert flash and flash[0]['anchor_offset'] == 10, flash
assert top['anchor_offset'] in (10, 11) and top['count'] in (34, 35), top
assert 'is not a multiple of 24 (35 = 1 x 24 + 11: a partial first pass of 11)' in warnings, warnings
# the partial first pass shares the first ProfilerStep with the whole one:
# the pass is whole all the same, and the command is offered
assert r['profiler_steps'] == 2 and top['whole_passes'] and g['command_candidate'] == 1, g['command_candidate']
assert '--anchor-offset %d --passes 1' % top['anchor_offset'] in g['command'], g['command']
"
survey "SwitchTransformers: the kernels occurring exactly 10 times are listed, with why" "$TRACES/trace_100Kpar_4exp_8batch_128seq_1024.json" 10 "
topk = [c for c in cands if 'gatherTopK' in c['name']]
assert topk and topk[0]['count'] == 10 and topk[0]['passes'] == 1, names
assert any(w.startswith('irregular spacing inside passes') for w in topk[0]['weaker']), topk[0]
assert sum(1 for c in cands if c['count'] == 10) == 10, names
"
survey "ResNet-50 (13 streams) with --num-layers 1" "$TRACES/worker0.pt.trace.json.gz" 1 "
assert all(c['partial_first'] == 0 and c['partial_last'] == 0 and c['passes'] == c['count'] for c in cands), cands[:2]
listed = set(names)
assert not any(w.startswith('twice per layer') and w.split('): ', 1)[1] in listed for w in g['warnings']), warnings
"
survey "A100 training, 5 ProfilerSteps: per-step counts" "$TRACES/rank0.json.gz" 2 "
assert r['profiler_steps'] == 5 and top['per_step'] is not None and len(top['per_step']['counts']) == 5, top
"
survey "A100 training: one family in runs of two lengths, but no draft and target passes" "$TRACES/rank0.json.gz" 8 "
assert any(w.startswith('one family, runs of') for w in g['warnings']), warnings
assert 'draft and target' not in warnings, warnings
"
survey "ResNet-50 (a CNN), --num-layers 8: no candidate has whole passes, no command" "$TRACES/worker0.pt.trace.json.gz" 8 "
assert cands and g['command'] is None and g['command_note'].startswith('no starting command: no listed candidate has whole passes of 8 '), g['command_note']
assert top['split'] == 'ambiguous' and not top['whole_passes'], top['split']
"
# a recommendation model (PROFILE.md: not a transformer): no layers of 8 or
# 16, so no starting command, and the report says so
for n in 8 16; do
	survey "DLRM, --num-layers $n: no candidate has whole passes, no command" "$TRACES/control.json.gz" $n "
assert cands and g['command'] is None and g['command_candidate'] is None, g['command']
assert not any(c['whole_passes'] for c in cands), [c['name'] for c in cands if c['whole_passes']]
"
	run "tr-decode '$TRACES/control.json.gz' | tr-survey --num-layers $n"
	if [ "$(tail -1 "$T/out")" = "no starting command: no listed candidate has whole passes of $n (split at gaps larger than those inside them, no ProfilerStep starting inside one); the trace may not run $n layers per pass" ] &&
		! grep -q '^starting point' "$T/out"; then
		pass "text: DLRM, --num-layers $n: says there is no starting command"
	else
		fail "text: DLRM, --num-layers $n: says there is no starting command" "$(tail -1 "$T/out")"
	fi
done


# --- streams beyond four ------------------------------------------------------
# A kernel that runs on many streams: the count is of distinct tids (up to
# 255), not stuck at five once four were stored (the oracle counts with set()).
tr-gen --layers 4 --passes 2 --streams 7 --concurrency 3 --compact -o "$T/streams7.json" 2>"$T/err"
survey "tr-survey: a kernel on 6 of 7 streams is counted on 6 (not 5)" "$T/streams7.json" 4 \
	"assert max(c['streams'] for c in cands) == 6, [c['streams'] for c in cands]"
