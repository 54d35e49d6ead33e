# tr-survey: the true once-per-layer kernels rank at the top with the right
# offset and passes; norms are flagged as twice per layer; draft and target
# passes are told apart.  (sourced by run.sh)

# survey NAME TRACE N PYTHON-ASSERTIONS: run tr-survey --json and check the
# first group's result with python (variables: r, g, top, names, warnings).
survey() {
	name=$1 trace=$2 n=$3 code=$4
	if ! tr-decode "$trace" | tr-survey --num-layers "$n" --json >"$T/survey.json" 2>"$T/err"; then
		fail "$name" "tr-survey failed: $(head -c 300 "$T/err")"
		return
	fi
	if python3 - "$T/survey.json" >"$T/py" 2>&1 <<PY
import json, sys
r = json.load(open(sys.argv[1]))
g = r['groups'][0]
top = g['candidates'][0]
names = [c['name'] for c in g['candidates']]
warnings = '\n'.join(g['warnings'])
$code
PY
	then pass "$name"; else fail "$name" "$(tail -3 "$T/py")"; fi
}

gen=$T/spec.json
tr-gen --layers 6 --passes 3 --draft-passes 2 --draft-layers 2 -o "$gen"
survey "generated speculative decoding: the target attention ranks first, 3 passes" "$gen" 6 "
assert top['name'].startswith('void flash_fwd_kernel<Flash_fwd_kernel_traits<128,') or \
    top['name'].startswith('void vllm::rotary_embedding_kernel<c10::BFloat16, true>'), top['name']
assert top['count'] == 18 and top['passes'] == 3 and top['anchor_offset'] == 0, top
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
expect 2 "tr-survey without --num-layers is a usage error" "tr-decode '$gen' | tr-survey"
expect 1 "tr-survey refuses a truncated stream" \
	"tr-decode '$gen' | sed '\$d' | tr-survey --num-layers 6" "truncated"

if [ ! -d "$TRACES" ]; then
	skip "tr-survey on real traces" "$TRACES is absent"
	return 0
fi
survey "BERT-small: a once-per-layer kernel first, offset 0" "$TRACES/gaunernst_bert-small-uncased__1016001.json.gz" 4 "
assert top['count'] == 4 and top['anchor_offset'] == 0 and top['confirms'] >= 2, top
assert any('flash_fwd_kernel' in n for n in names[:3]), names[:3]
assert 'twice per layer' in warnings and 'vectorized_layer_norm_kernel' in warnings, warnings
"
survey "Qwen3-8B: 36 once-per-layer kernels, confirmed" "$TRACES/sglang_Qwen3-8B_prefilldecode.json.gz" 36 "
assert top['count'] == 36 and top['passes'] == 1 and top['confirms'] >= 3, top
assert any('rotary_embedding_kernel' in n or 'store_kvcache' in n for n in names[:5]), names[:5]
assert 'add_rmsnorm_quant_kernel' in warnings, warnings
"
survey "B200 vLLM: 36 per layer; fused_add_rms_norm twice per layer" "$TRACES/eager_trace.json.gz" 36 "
assert top['count'] == 36 and top['anchor_offset'] == 0, top
assert 'fused_add_rms_norm_kernel' in warnings, warnings
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
by = {c['name']: c for c in g['candidates']}
silu = [c for n, c in by.items() if 'silu_kernel' in n]
flash = [c for n, c in by.items() if 'flash_fwd_kernel' in n]
assert silu and silu[0]['anchor_offset'] == 11 and silu[0]['passes'] == 1, silu
assert flash and flash[0]['anchor_offset'] == 10, flash
assert top['anchor_offset'] in (10, 11) and top['count'] in (34, 35), top
assert 'is not a multiple of 24 (35 = 1 x 24 + 11: a partial first pass of 11)' in warnings, warnings
"
