# tr-select-anchors and tr-layer-track: a selection must have the shape of
# whole passes.  Generated traces (anchors twice and three times per layer,
# counts that fit by chance, back-to-back passes, ProfilerStep annotations)
# and the once-per-layer anchors of the real traces, which must all still
# be accepted; the refusals are compared whole.
cd "$T" || exit 2
EV='test evidence: model config'

# sel_ok NAME SRC OPTIONS...: tr-select-anchors accepts, silently.
sel_ok() {
	name=$1 src=$2
	shift 2
	RC=0
	tr-decode "$src" | tr-select-anchors "$@" >sel.out 2>"$T/err" || RC=$?
	if [ "$RC" = 0 ] && [ ! -s "$T/err" ] && [ -s sel.out ]; then
		pass "$name"
	else
		fail "$name" "exit status $RC" "stderr: $(head -c 600 "$T/err")"
	fi
}

# sel_refused NAME SRC WANT OPTIONS...: exit status 1, stderr exactly the
# file WANT.  (The events stream through before the refusal; the stream
# then lacks its tail record, and the next stage writes nothing.)
sel_refused() {
	name=$1 src=$2 want=$3
	shift 3
	RC=0
	tr-decode "$src" | tr-select-anchors "$@" >sel.out 2>"$T/err" || RC=$?
	if [ "$RC" != 1 ]; then
		fail "$name" "exit status $RC, wanted 1" "stderr: $(head -c 600 "$T/err")"
	elif ! cmp -s "$want" "$T/err"; then
		fail "$name" "stderr differs:" "$(diff "$want" "$T/err" | head -c 1500)"
	else
		pass "$name"
	fi
}

# ways_out N: the last line of a refusal for --num-layers N.
ways_out() {
	printf 'tr-select-anchors: the anchor may run more than once per layer, or the passes may not have %s layers: see the count per pass with tr-survey --num-layers %s, then choose --num-layers, --passes and --anchor-offset that select whole passes, or add --confirm-regex with a kernel that runs once per layer\n' "$1" "$1"
}

# ------------------------------------------------------- generated traces

tr-gen --layers 4 --passes 3 --seed 3 -o plain.json
tr-gen --layers 4 --passes 3 --draft-passes 2 --draft-layers 2 --seed 7 -o spec.json
tr-gen --layers 6 --passes 4 --concurrency 3 --streams 4 --seed 11 -o conc.json
TARGET='flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128,'
DRAFT='flash_fwd_kernel<Flash_fwd_kernel_traits<64, 64,'
# twice per layer (before attention and before the MLP)
NORM='rms_norm_kernel<c10::BFloat16>'
# three times per layer: the two norms and the rotary
THREE='rms_norm_kernel<c10::BFloat16>|rotary_embedding_kernel<c10::BFloat16, true>'

sel_ok "gen: once per layer, 3 passes of 4" plain.json \
	--anchor-regex "$TARGET" --num-layers 4 --anchor-offset 0 --passes 3
sel_ok "gen: once per layer, 2 passes of 4 from offset 4" plain.json \
	--anchor-regex "$TARGET" --num-layers 4 --anchor-offset 4 --passes 2
sel_ok "gen: 4 streams, 3 overlapping, 4 passes of 6" conc.json \
	--anchor-regex "$TARGET" --num-layers 6 --anchor-offset 0 --passes 4
# one slow layer (its attention 5 times as long) in every pass: the gap
# after it is set aside, the passes stand
tr-gen --layers 4 --passes 3 --rank 2 --slow-layer 1 --slowdown 400 -o slow.json
sel_ok "gen: a slow layer in every pass, 3 passes of 4" slow.json \
	--anchor-regex "$TARGET" --num-layers 4 --anchor-offset 0 --passes 3
sel_ok "gen: back-to-back draft passes, 6 passes of 2" spec.json \
	--anchor-regex "$DRAFT" --num-layers 2 --anchor-offset 0 --passes 6
# whole passes of a kernel that runs twice or three times per layer have the
# shape of passes: the rule cannot tell their count per layer (a landmark
# with --confirm-regex can)
sel_ok "gen: twice per layer, taken whole (8 per pass)" plain.json \
	--anchor-regex "$NORM" --num-layers 8 --anchor-offset 0 --passes 3
sel_ok "gen: three times per layer, taken whole (12 per pass)" plain.json \
	--anchor-regex "$THREE" --num-layers 12 --anchor-offset 0 --passes 3

{
	echo "tr-select-anchors: the selection is not whole passes: between passes 0 and 1 (anchors at ts 1428625732128.147 and 1428625732336.214, events 405 and 414) the gap is 208.067 us, no longer than 5/4 of the anchors' rhythm beside it (inside pass 0: 202.731 us; inside pass 1: 315.896 us): a boundary at the passes' own rhythm cuts a pass"
	echo "  24 kernels match in pid 0, device 0 (6 x 4); --num-layers 4 x --passes 6 from --anchor-offset 0 uses 24 of them"
	ways_out 4
} >twice.want
sel_refused "gen: twice per layer, 24 = 4 x 6 by chance: refused" plain.json twice.want \
	--anchor-regex "$NORM" --num-layers 4 --anchor-offset 0 --passes 6
{
	echo "tr-select-anchors: the selection is not whole passes: from its last anchor (ts 1428625732128.147, event 405) to the next match (ts 1428625732336.214, event 414) the gap is 208.067 us, no longer than 5/4 of the anchors' rhythm beside it (inside pass 0: 202.731 us; the matches after (3 gaps): 315.896 us): a boundary at the passes' own rhythm cuts a pass"
	echo "  24 kernels match in pid 0, device 0 (6 x 4); --num-layers 4 x --passes 1 from --anchor-offset 0 uses 4 of them"
	ways_out 4
} >after.want
sel_refused "gen: twice per layer, the matches after go on at the rhythm: refused" plain.json \
	after.want --anchor-regex "$NORM" --num-layers 4 --anchor-offset 0
{
	echo "tr-select-anchors: the selection is not whole passes: from the match before it (ts 1428625732128.147, event 405) to its first anchor (ts 1428625732336.214, event 414) the gap is 208.067 us, no longer than 5/4 of the anchors' rhythm beside it (the matches before (3 gaps): 202.731 us; inside pass 0: 315.896 us): a boundary at the passes' own rhythm cuts a pass"
	echo "  24 kernels match in pid 0, device 0 (6 x 4); --num-layers 4 x --passes 1 from --anchor-offset 4 uses 4 of them"
	ways_out 4
} >before.want
sel_refused "gen: twice per layer, the match before is at the rhythm: refused" plain.json \
	before.want --anchor-regex "$NORM" --num-layers 4 --anchor-offset 4
{
	echo "tr-select-anchors: the selection is not whole passes: between passes 0 and 1 (anchors at ts 1428625731833.936 and 1428625731876.956, events 395 and 399) the gap is 43.020 us, no longer than 5/4 of the anchors' rhythm beside it (inside pass 0: 97.201 us; inside pass 1: 208.067 us): a boundary at the passes' own rhythm cuts a pass"
	echo "  36 kernels match in pid 0, device 0 (9 x 4); --num-layers 4 x --passes 9 from --anchor-offset 0 uses 36 of them"
	ways_out 4
} >three.want
sel_refused "gen: three times per layer, 36 = 4 x 9 by chance: refused" plain.json three.want \
	--anchor-regex "$THREE" --num-layers 4 --anchor-offset 0 --passes 9
# a count per pass that cuts the passes of a once-per-layer anchor
tr-decode plain.json | tr-select-anchors --anchor-regex "$TARGET" --num-layers 2 \
	--anchor-offset 0 --passes 6 >/dev/null 2>"$T/err" && RC=0 || RC=$?
if [ "$RC" = 1 ] && grep -q "^tr-select-anchors: the selection is not whole passes: between passes 2 and 3 " "$T/err"; then
	pass "gen: once per layer, passes of 2 for passes of 4: refused"
else
	fail "gen: once per layer, passes of 2 for passes of 4: refused" "exit status $RC" \
		"stderr: $(head -c 600 "$T/err")"
fi

# ProfilerStep#N annotations on the GPU: a pass must not straddle a step.
# Three anchors 100 us apart per pass, passes 1 ms apart; steps start at
# 50 us and at 950 us (between the passes) or at 250 us (inside pass 0).
mk_steps() {
	python3 - "$1" "$2" <<'PY'
import json, sys
out, second = sys.argv[1], int(sys.argv[2])
ev = []
for s, t in enumerate((50, second)):
    for pid, cat in ((0, "gpu_user_annotation"), (7, "user_annotation")):
        ev.append({"ph": "X", "cat": cat, "name": "ProfilerStep#%d" % (s + 1), "pid": pid,
                   "tid": 7 if pid == 0 else 1, "ts": t, "dur": 40})
for p in range(2):
    for i in range(3):
        ev.append({"ph": "X", "cat": "kernel", "name": "attn", "pid": 0, "tid": 7,
                   "ts": 100 + 1000 * p + 100 * i, "dur": 10, "args": {"device": 0}})
json.dump({"traceEvents": ev}, open(out, "w"))
PY
}
mk_steps steps-ok.json 950
mk_steps steps-in.json 250
sel_ok "steps: a step starts between the passes" steps-ok.json \
	--anchor-regex attn --num-layers 3 --anchor-offset 0 --passes 2
{
	echo "tr-select-anchors: the selection is not whole passes: pass 0 (anchors at ts 100 to 300) straddles a step: a ProfilerStep (GPU annotation) starts at ts 250.000 inside it"
	echo "  6 kernels match in pid 0, device 0; per step (2 steps): 0 before the first, 2, 4"
	ways_out 3
} >steps.want
sel_refused "steps: a step starts inside pass 0: refused, with the matches per step" \
	steps-in.json steps.want --anchor-regex attn --num-layers 3 --anchor-offset 0 --passes 2
# CPU-side steps run ahead of the GPU: they are not evidence
python3 -c '
import json
d = json.load(open("steps-in.json"))
d["traceEvents"] = [e for e in d["traceEvents"] if e["cat"] != "gpu_user_annotation"]
json.dump(d, open("steps-cpu.json", "w"))'
sel_ok "steps: CPU ProfilerStep annotations alone are not checked" steps-cpu.json \
	--anchor-regex attn --num-layers 3 --anchor-offset 0 --passes 2

# the summary: how many matched, how many were used
rm -f lt.json lt.json.layers.json
tr-layer-track --trace plain.json --output lt.json --anchor-regex "$TARGET" --num-layers 4 \
	--anchor-offset 4 --passes 2 --phase p --evidence e --no-verify >lt.out 2>"$T/err"
if grep -qx 'labels added: 8 from 8 of 12 matches' lt.out; then
	pass "summary: labels added: 8 from 8 of 12 matches"
else
	fail "summary: labels added: 8 from 8 of 12 matches" "$(cat lt.out "$T/err")"
fi

# ---------------------------------------------------------- real traces

if [ ! -d "$TRACES" ]; then
	skip "real traces" "$TRACES is absent"
	return 0
fi
# TRACE REGEX NUM-LAYERS PASSES OFFSET: the once-per-layer anchors of
# PROFILE.md and the first candidates of tr-survey, in prefill, decode and
# mixed passes, eager and CUDA/HIP-graph replays.
cat >accepted.tsv <<'TSV'
gaunernst_bert-small-uncased__1016001.json.gz	flash_fwd_kernel	4	1	0
gaunernst_bert-small-uncased__1016001.json.gz	s16816gemm_relu_bf16_64x64	4	1	0
eager_trace.json.gz	bmm_Bfloat16_MxE2m1MxE4m3_Fp32	36	1	0
google_owlv2-large-patch14-ensemble__1016001.json.gz	splitKreduce_kernel<32, 16, int, __nv_bfloat16	12	5	0
sglang_Qwen3-8B_prefilldecode.json.gz	rotary_embedding_kernel	36	1	0
sglang_Qwen3-8B_prefilldecode.json.gz	store_kvcache	36	1	0
sglang_Qwen3-8B_prefilldecode.json.gz	FmhaBatchPrefillWithPagedKVCache	36	1	0
sglang_Qwen3-8B_prefilldecode.json.gz	act_and_mul_kernel	36	1	0
eager_trace.json.gz	vllm::rotary_embedding_kernel	36	1	0
eager_trace.json.gz	reshape_and_cache_flash_kernel	36	1	0
eager_trace.json.gz	routingIndicesHistogramKernel	36	1	0
graph_execution.json.gz	vllm::rotary_embedding_kernel	24	1	0
graph_execution.json.gz	kernel_unified_attention_2d	24	1	0
graph_execution.json.gz	_topk_forward	24	1	0
google_owlv2-large-patch14-ensemble__1016001.json.gz	cunn_SoftMaxForward	24	5	0
google_owlv2-large-patch14-ensemble__1016001.json.gz	softmax_warp_forward	12	5	0
google_owlv2-large-patch14-ensemble__1016001.json.gz	cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_tn_align1	24	5	0
Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz	silu_kernel	24	1	11
Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz	flash_fwd_kernel	24	1	10
Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz	MulFunctor<float> >, std::array<char\*, 3ul>	24	1	11
trace_100Kpar_4exp_8batch_128seq_1024.json	gatherTopK	10	1	0
trace_100Kpar_4exp_8batch_128seq_1024.json	triu_tril_kernel	10	1	0
trace_100Kpar_4exp_8batch_128seq_1024.json	CatArrayBatchedCopy_aligned16_contig	10	1	0
TSV
while IFS='	' read -r file re n p off; do
	if [ -f "$TRACES/$file" ]; then
		sel_ok "real: $file /$re/ $n x $p from $off" "$TRACES/$file" \
			--anchor-regex "$re" --num-layers "$n" --anchor-offset "$off" --passes "$p"
	else
		skip "real: $file" "not in $TRACES"
	fi
done <accepted.tsv

# The known wrong ones: norms that run twice per layer (four times in
# Qwen3-8B: two variants), passes of half a model.
refused_real() {
	name=$1 file=$2 first=$3
	shift 3
	if [ ! -f "$TRACES/$file" ]; then
		skip "$name" "$file not in $TRACES"
		return 0
	fi
	tr-decode "$TRACES/$file" | tr-select-anchors "$@" >sel.out 2>"$T/err" && RC=0 || RC=$?
	if [ "$RC" = 1 ] && [ "$(head -n 1 "$T/err")" = "$first" ]; then
		pass "$name"
	else
		fail "$name" "exit status $RC" "stderr: $(head -c 700 "$T/err")"
	fi
}
refused_real "real: sglang Qwen3 norm 36 x 2: refused" sglang_Qwen3-8B_prefilldecode.json.gz \
	"tr-select-anchors: the selection is not whole passes: between passes 0 and 1 (anchors at ts 4909914300270.946 and 4909914310286.43, events 59921 and 59925) the gap is 10015.484 us, no longer than 5/4 of the anchors' rhythm beside it (inside pass 0: 9995.294 us; inside pass 1: 9999.700 us): a boundary at the passes' own rhythm cuts a pass" \
	--anchor-regex add_rmsnorm_quant_kernel --num-layers 36 --anchor-offset 0 --passes 2
refused_real "real: B200 eager fused_add_rms_norm 36: refused" eager_trace.json.gz \
	"tr-select-anchors: the selection is not whole passes: from its last anchor (ts 1365627912595.614, event 21213) to the next match (ts 1365627913573.627, event 21235) the gap is 978.013 us, no longer than 5/4 of the anchors' rhythm beside it (inside pass 0: 1077.693 us; the matches after (35 gaps): 1052.669 us): a boundary at the passes' own rhythm cuts a pass" \
	--anchor-regex fused_add_rms_norm_kernel --num-layers 36 --anchor-offset 0
refused_real "real: ROCm graph Rmsnorm2dFwd 24 x 2: refused" graph_execution.json.gz \
	"tr-select-anchors: the selection is not whole passes: between passes 0 and 1 (anchors at ts 6520488657380.61 and 6520488662728.82, events 19071 and 19081) the gap is 5348.210 us, no longer than 5/4 of the anchors' rhythm beside it (inside pass 0: 5449.209 us; inside pass 1: 5419.690 us): a boundary at the passes' own rhythm cuts a pass" \
	--anchor-regex Rmsnorm2dFwd --num-layers 24 --anchor-offset 0 --passes 2
refused_real "real: OWLv2 cunn_SoftMaxForward 12 x 10 (half passes): refused" \
	google_owlv2-large-patch14-ensemble__1016001.json.gz \
	"tr-select-anchors: the selection is not whole passes: between passes 0 and 1 (anchors at ts 1419116287567.525 and 1419116292128.921, events 128450 and 128610) the gap is 4561.396 us, no longer than 5/4 of the anchors' rhythm beside it (inside pass 0: 4702.516 us; inside pass 1: 4563.060 us): a boundary at the passes' own rhythm cuts a pass" \
	--anchor-regex cunn_SoftMaxForward --num-layers 12 --anchor-offset 0 --passes 10
refused_real "real: Qwen1.5 rsqrt 24 from 22 (twice per layer): refused" \
	Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz \
	"tr-select-anchors: the selection is not whole passes: from its last anchor (ts 1428625764442.901, event 15067) to the next match (ts 1428625765309.778, event 15231) the gap is 866.877 us, no longer than 5/4 of the anchors' rhythm beside it (inside pass 0: 866.715 us; the matches after (23 gaps): 867.100 us): a boundary at the passes' own rhythm cuts a pass" \
	--anchor-regex rsqrt_kernel --num-layers 24 --anchor-offset 22
refused_real "real: Switch MoE layer_norm 10 (twice per layer): refused" \
	trace_100Kpar_4exp_8batch_128seq_1024.json \
	"tr-select-anchors: the selection is not whole passes: from its last anchor (ts 1717572148739913, event 9572) to the next match (ts 1717572148745828, event 9654) the gap is 5915.000 us, no longer than 5/4 of the anchors' rhythm beside it (inside pass 0: 69706.000 us; the matches after (9 gaps): 34606.000 us): a boundary at the passes' own rhythm cuts a pass" \
	--anchor-regex vectorized_layer_norm_kernel --num-layers 10 --anchor-offset 0

# tr-layer-track: the command of a new user, refused before anything is
# written, with the numbers and the ways out; a right anchor's summary.
QW3=$TRACES/sglang_Qwen3-8B_prefilldecode.json.gz
if [ -f "$QW3" ]; then
	rm -f q.json q.json.layers.json
	RC=0
	tr-layer-track --trace "$QW3" --output q.json --anchor-regex add_rmsnorm_quant_kernel \
		--num-layers 36 --anchor-offset 0 --phase decode --evidence e >lt.out 2>"$T/err" || RC=$?
	{
		echo "tr-select-anchors: the selection is not whole passes: from its last anchor (ts 4909914300270.946, event 59921) to the next match (ts 4909914310286.43, event 59925) the gap is 10015.484 us, no longer than 5/4 of the anchors' rhythm beside it (inside pass 0: 9995.294 us; the matches after (35 gaps): 9999.700 us): a boundary at the passes' own rhythm cuts a pass"
		echo "  145 kernels match in pid 9, device 9 (4 x 36 + 1); --num-layers 36 x --passes 1 from --anchor-offset 0 uses 36 of them"
		ways_out 36
	} >q.want
	if [ "$RC" = 1 ] && [ ! -e q.json ] && [ ! -e q.json.layers.json ] &&
	   head -n 3 "$T/err" | cmp -s q.want - &&
	   [ "$(tail -n 1 "$T/err")" = "tr-layer-track: failed (exit status 1); nothing was written" ]; then
		pass "real: tr-layer-track sglang add_rmsnorm_quant_kernel x 36: refused, nothing written"
	else
		fail "real: tr-layer-track sglang add_rmsnorm_quant_kernel x 36: refused, nothing written" \
			"exit status $RC" "$(diff q.want "$T/err" | head -c 1500)"
	fi
	rm -f q.json q.json.layers.json
	tr-layer-track --trace "$QW3" --output q.json --anchor-regex rotary_embedding_kernel \
		--num-layers 36 --anchor-offset 0 --phase prefill --evidence e --no-verify >lt.out 2>"$T/err"
	if grep -qx 'labels added: 36 from 36 of 36 matches' lt.out; then
		pass "real: sglang rotary: labels added: 36 from 36 of 36 matches"
	else
		fail "real: sglang rotary: labels added: 36 from 36 of 36 matches" "$(cat lt.out "$T/err")"
	fi
else
	skip "real: tr-layer-track on sglang Qwen3-8B" "not in $TRACES"
fi
QW=$TRACES/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
if [ -f "$QW" ]; then
	rm -f qw.json qw.json.layers.json
	tr-layer-track --trace "$QW" --output qw.json --anchor-regex silu_kernel --num-layers 24 \
		--anchor-offset 11 --phase prefill --evidence e --no-verify >lt.out 2>"$T/err"
	if grep -qx 'labels added: 24 from 24 of 35 matches' lt.out; then
		pass "real: Qwen1.5 silu from 11: labels added: 24 from 24 of 35 matches"
	else
		fail "real: Qwen1.5 silu from 11: labels added: 24 from 24 of 35 matches" \
			"$(cat lt.out "$T/err")"
	fi
else
	skip "real: tr-layer-track on Qwen1.5" "not in $TRACES"
fi

# One rule: every starting command tr-survey prints is one tr-select-anchors
# accepts, on every real trace and for every number of layers tried (most of
# them wrong for the trace: then there is no command, or one for a kernel
# whose passes of that many are whole).  The traces' true layer counts give
# a command.
LAYERS='2 3 4 6 8 10 12 16 24 28 32 36 48 64 80'
for file in $(ls "$TRACES" | grep '\.json'); do
	tr-decode "$TRACES/$file" >real.stream 2>/dev/null || continue
	python3 "$ROOT/tests/e2e/survey_commands.py" real.stream $LAYERS >commands.out 2>"$T/err"
	if [ -s "$T/err" ]; then
		fail "survey commands on $file: the check ran" "$(head -c 600 "$T/err")"
	elif grep -q ' refused ' commands.out; then
		fail "survey commands on $file: every one accepted" "$(grep ' refused ' commands.out | head -c 1500)"
	else
		pass "survey commands on $file: every one accepted ($(grep -c " ok " commands.out) commands)"
	fi
	case $file in
	Qwen_Qwen1.5*) want=24 ;;
	google_owlv2*) want='24 12' ;;
	gaunernst_bert*) want=4 ;;
	sglang_Qwen3*) want=36 ;;
	trace_100Kpar*) want=10 ;;
	*) want= ;;
	esac
	for n in $want; do
		if grep -q "^$n ok " commands.out; then
			pass "survey commands on $file: a command for its $n layers"
		else
			fail "survey commands on $file: a command for its $n layers" "$(grep "^$n " commands.out)"
		fi
	done
done
rm -f real.stream
