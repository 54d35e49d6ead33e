/*
 * gen: tr-gen's trace.
 *
 * Kineto writes every CPU event first and the GPU events after them, in the
 * order the GPU finished them.  To stream that without holding the trace in
 * memory, each device is a small simulation driven by its own PRNG, and the
 * whole timeline is simulated twice from the same seeds: the first run writes
 * the CPU side, the second the GPU side.  With a target size a counting run
 * comes first and decides how many iterations are needed.  Memory is bounded
 * by about one layer per device.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* Fixed identities of the generated process. */
enum {
	CPU_PID = 12345,          /* the host process; device d launches from tid CPU_PID + d */
	FIRST_STREAM_ID = 7,      /* Kineto's first CUDA stream id */
	FIRST_HIP_STREAM_ID = 0,  /* ROCm: the default HIP stream is tid 0 */
	NUM_SMS = 132,            /* H100 SXM, for "blocks per SM" */
	NUM_CUS = 304,            /* MI300X compute units, for --rocm */
	GPU_SORT_BASE = 16777216  /* Kineto's process_sort_index for GPU 0 (every real trace) */
};

static const char TRACE_NAME[] = "generated.pt.trace.json";
static const uint64_t BASE_TIME_NS = 1751410836000000000ULL;

/* Simulated timings, in nanoseconds. */
enum {
	OP_GAP_MIN = 2000, OP_GAP_MAX = 8000,          /* Python between two ops */
	RT_OFFSET_MIN = 1500, RT_OFFSET_MAX = 4000,    /* cpu_op start to its runtime call */
	OP_TAIL_MIN = 500, OP_TAIL_MAX = 2000,         /* runtime call end to cpu_op end */
	LATENCY_MIN = 2000, LATENCY_MAX = 5000,        /* launch call to earliest GPU start */
	GPU_GAP_MIN = 1000, GPU_GAP_MAX = 5000,        /* between activities of one slot */
	PEAK_MARGIN = 2000,    /* every slot stays busy this long past the peak instant */
	SYNC_MIN = 2000, SYNC_MAX = 5000,              /* cudaDeviceSynchronize, GPU idle */
	WAKE_MIN = 1000, WAKE_MAX = 3000,              /* sync returns after the GPU drains */
	TARGET_GAP_MIN = 200000, TARGET_GAP_MAX = 600000, /* host work between iterations */
	DRAFT_GAP_MIN = 20000, DRAFT_GAP_MAX = 60000      /* host work after a draft pass */
};

/* ---- kernel types -------------------------------------------------- */

enum activity { ACT_KERNEL, ACT_MEMCPY, ACT_MEMSET };

struct kernel_type {
	const char *name;
	const char *op_name;       /* the cpu_op that launches it */
	enum activity activity;
	uint32_t dur_min, dur_max; /* ns */
	uint32_t registers, shared_memory;
	uint32_t grid[3], block[3];
	uint32_t occupancy;        /* "est. achieved occupancy %" */
	int collective;            /* an NCCL kernel: Kineto adds the collective's args */
	uint32_t bytes_min, bytes_max;   /* memcpy, memset */
};

enum kt {
	KT_EMBED, KT_NORM, KT_GEMM_QKV, KT_ROTARY, KT_ATTN, KT_GEMM_O, KT_GEMM_UP,
	KT_SILU, KT_GEMM_DOWN, KT_FINAL_NORM, KT_LM_HEAD,
	KT_D_NORM, KT_D_GEMM, KT_D_ROTARY, KT_D_ATTN, KT_D_FINAL_NORM, KT_D_LM_HEAD,
	KT_NCCL, KT_ADD, KT_COPY, KT_MEMCPY, KT_MEMSET, KT_EXPERT,
	KT_ANNOTATION              /* not a kernel: a layer's gpu_user_annotation */
};

static const char GEMM_NAME[] =
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_"
	"warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
static const char ROTARY_ARGS[] =
	"(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, "
	"int, long, long, int, int, int)";
static const char COPY_LAMBDA[] =
	"at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}"
	"::operator()() const::{lambda()#7}::operator()() const::{lambda(c10::BFloat16)#1}";
static const char COPY_TAIL[] =
	"TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
	"at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>";

/* Names that need concatenation, built by init_kernel_names(). */
static char rotary_target_name[256], rotary_draft_name[256], copy_name[1024];

/* The tid of stream index 0: 7 (CUDA) or 0 (--rocm). */
static uint64_t first_stream_id = FIRST_STREAM_ID;
static int rocm;

static struct kernel_type kernel_types[] = {
	[KT_EMBED] = { "void at::native::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, "
		"2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, "
		"at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, "
		"at::cuda::detail::TensorInfo<long, unsigned int>, int, int, unsigned int, "
		"unsigned int, long)", "aten::embedding", ACT_KERNEL, 3000, 7000,
		32, 0, {512, 1, 1}, {128, 1, 1}, 48, 0 },
	[KT_NORM] = { "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, "
		"c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)", "_C::rms_norm",
		ACT_KERNEL, 3000, 8000, 26, 64, {256, 1, 1}, {1024, 1, 1}, 47, 0 },
	[KT_GEMM_QKV] = { GEMM_NAME, "aten::mm", ACT_KERNEL, 25000, 60000,
		168, 213248, {48, 2, 1}, {384, 1, 1}, 9, 0 },
	[KT_ROTARY] = { rotary_target_name, "_C::rotary_embedding", ACT_KERNEL, 3000, 6000,
		40, 0, {256, 1, 1}, {512, 1, 1}, 61, 0 },
	[KT_ATTN] = { "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, "
		"false, cutlass::bfloat16_t>, false, true>(Flash_fwd_params)",
		"vllm::unified_attention", ACT_KERNEL, 40000, 250000,
		255, 49152, {4, 32, 8}, {128, 1, 1}, 12, 0 },
	[KT_GEMM_O] = { GEMM_NAME, "aten::mm", ACT_KERNEL, 20000, 45000,
		168, 213248, {32, 2, 1}, {384, 1, 1}, 9, 0 },
	[KT_GEMM_UP] = { GEMM_NAME, "aten::mm", ACT_KERNEL, 80000, 200000,
		168, 213248, {132, 2, 1}, {384, 1, 1}, 9, 0 },
	[KT_SILU] = { "void at::native::vectorized_elementwise_kernel<4, "
		"at::native::silu_kernel(at::TensorIteratorBase&)>(int, "
		"at::native::silu_kernel, std::array<char*, 2ul>)", "aten::silu", ACT_KERNEL,
		4000, 10000, 28, 0, {1056, 1, 1}, {128, 1, 1}, 86, 0 },
	[KT_GEMM_DOWN] = { GEMM_NAME, "aten::mm", ACT_KERNEL, 40000, 100000,
		168, 213248, {64, 2, 1}, {384, 1, 1}, 9, 0 },
	[KT_FINAL_NORM] = { "void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>("
		"c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, float, int, int)",
		"_C::fused_add_rms_norm", ACT_KERNEL, 3000, 8000,
		32, 64, {256, 1, 1}, {512, 1, 1}, 45, 0 },
	[KT_LM_HEAD] = { GEMM_NAME, "aten::mm", ACT_KERNEL, 120000, 200000,
		168, 213248, {132, 4, 1}, {384, 1, 1}, 9, 0 },
	[KT_D_NORM] = { "void vllm::rms_norm_kernel<float>(float*, float const*, "
		"float const*, float, int, int)", "_C::rms_norm", ACT_KERNEL, 3000, 6000,
		24, 64, {256, 1, 1}, {512, 1, 1}, 44, 0 },
	[KT_D_GEMM] = { GEMM_NAME, "aten::mm", ACT_KERNEL, 20000, 60000,
		168, 213248, {16, 2, 1}, {384, 1, 1}, 9, 0 },
	[KT_D_ROTARY] = { rotary_draft_name, "_C::rotary_embedding", ACT_KERNEL, 3000, 5000,
		40, 0, {256, 1, 1}, {256, 1, 1}, 30, 0 },
	[KT_D_ATTN] = { "void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 64, 64, 4, false, "
		"false, cutlass::bfloat16_t>, false, true>(Flash_fwd_params)",
		"vllm::unified_attention", ACT_KERNEL, 30000, 90000,
		192, 24576, {4, 16, 8}, {128, 1, 1}, 18, 0 },
	[KT_D_FINAL_NORM] = { "void vllm::fused_add_rms_norm_kernel<float, 8>(float*, float*, "
		"float const*, float, int, int)", "_C::fused_add_rms_norm", ACT_KERNEL,
		3000, 6000, 30, 64, {256, 1, 1}, {256, 1, 1}, 29, 0 },
	[KT_D_LM_HEAD] = { GEMM_NAME, "aten::mm", ACT_KERNEL, 60000, 120000,
		168, 213248, {132, 1, 1}, {384, 1, 1}, 9, 0 },
	[KT_NCCL] = { "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, "
		"ncclWork*)", "record_param_comms", ACT_KERNEL, 10000, 60000,
		96, 87568, {8, 1, 1}, {544, 1, 1}, 0, 1 },
	[KT_ADD] = { "void at::native::vectorized_elementwise_kernel<4, "
		"at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, "
		"at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
		"aten::add", ACT_KERNEL, 3000, 9000, 30, 0, {1056, 1, 1}, {128, 1, 1}, 84, 0 },
	[KT_COPY] = { copy_name, "aten::copy_", ACT_KERNEL, 3000, 9000,
		24, 0, {528, 1, 1}, {128, 1, 1}, 71, 0 },
	/* Token ids from pageable host memory: a few GB/s. */
	[KT_MEMCPY] = { "Memcpy HtoD (Pageable -> Device)", "aten::copy_", ACT_MEMCPY,
		2000, 8000, 0, 0, {0, 0, 0}, {0, 0, 0}, 0, 0, 2048, 32768 },
	/* A logits buffer cleared at device speed. */
	[KT_MEMSET] = { "Memset (Device)", "aten::zero_", ACT_MEMSET,
		2000, 5000, 0, 0, {0, 0, 0}, {0, 0, 0}, 0, 0, 524288, 4194304 },
	/* One expert's share of a mixture-of-experts MLP (vLLM's Triton kernel). */
	[KT_EXPERT] = { "fused_moe_kernel", "vllm::fused_moe", ACT_KERNEL, 30000, 90000,
		128, 65536, {264, 1, 1}, {256, 1, 1}, 25, 0 },
};

/* The CUDA names that init_rocm_names replaces, put back by
 * init_kernel_names, so that one process may write both. */
static const char *cuda_names[KT_ANNOTATION];

/* --rocm: the names a ROCm build of the same model shows: __hip_bfloat16
 * for c10::BFloat16 in vLLM's own kernels, hipBLASLt (Tensile) GEMMs, CK
 * attention, and mangled names where roctracer leaves them so. */
static const char ROCM_GEMM_NAME[] =
	"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x128x64_MI16x16x1_SN_LDSB1_"
	"AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA8_GRVWB8_GSUAMB_IU1_K1_LBSPPA2048_"
	"LBSPPB256_LBSPPM0_LPA16_LPB16_LPM0_LRVW16_LWPMn1_MIAV1_MIWT4_4_MO40_NTn1_NTA0_"
	"NTB0_NTC0_NTD0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_"
	"SSO0_SVW8_SK3_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA8_VWB8_"
	"WSGRA0_WSGRB0_WS64_WG32_8_1";
static const char ROCM_ROTARY_ARGS[] =
	"(long const*, __hip_bfloat16*, __hip_bfloat16*, __hip_bfloat16 const*, "
	"int, long, long, int, int, int)";

static void init_rocm_names(void)
{
	snprintf(rotary_target_name, sizeof rotary_target_name,
		"void vllm::rotary_embedding_kernel<__hip_bfloat16, true>%s", ROCM_ROTARY_ARGS);
	snprintf(rotary_draft_name, sizeof rotary_draft_name,
		"void vllm::rotary_embedding_kernel<__hip_bfloat16, false>%s", ROCM_ROTARY_ARGS);
	kernel_types[KT_NORM].name = "void vllm::rms_norm_kernel<__hip_bfloat16>("
		"__hip_bfloat16*, __hip_bfloat16 const*, __hip_bfloat16 const*, float, int, int)";
	kernel_types[KT_FINAL_NORM].name = "void vllm::fused_add_rms_norm_kernel<"
		"__hip_bfloat16, 8>(__hip_bfloat16*, __hip_bfloat16*, __hip_bfloat16 const*, "
		"float, int, int)";
	kernel_types[KT_ATTN].name = "_ZN7ck_tile6kentryILi1ENS_13FmhaFwdKernelINS_"
		"24BlockFmhaPipelineQRKSVSIN3ck11fmha_fwd_hd128_bf16_causalEEEEEEvNT0_5KargsE";
	kernel_types[KT_D_ATTN].name = "_ZN7ck_tile6kentryILi1ENS_13FmhaFwdKernelINS_"
		"24BlockFmhaPipelineQRKSVSIN3ck10fmha_fwd_hd64_bf16_causalEEEEEEvNT0_5KargsE";
	kernel_types[KT_SILU].name = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_"
		"11silu_kernelERNS_18TensorIteratorBaseEEUlN3c108BFloat16EE_St5arrayIPcLm2EEEEviT0_T1_";
	kernel_types[KT_NCCL].name = "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)";
	kernel_types[KT_GEMM_QKV].name = ROCM_GEMM_NAME;
	kernel_types[KT_GEMM_O].name = ROCM_GEMM_NAME;
	kernel_types[KT_GEMM_UP].name = ROCM_GEMM_NAME;
	kernel_types[KT_GEMM_DOWN].name = ROCM_GEMM_NAME;
	kernel_types[KT_LM_HEAD].name = ROCM_GEMM_NAME;
	kernel_types[KT_D_GEMM].name = ROCM_GEMM_NAME;
	kernel_types[KT_D_LM_HEAD].name = ROCM_GEMM_NAME;
}

static void init_kernel_names(void)
{
	unsigned k;

	if (cuda_names[KT_NORM] == NULL)
		for (k = 0; k < KT_ANNOTATION; k++)
			cuda_names[k] = kernel_types[k].name;
	for (k = 0; k < KT_ANNOTATION; k++)
		kernel_types[k].name = cuda_names[k];
	snprintf(rotary_target_name, sizeof rotary_target_name,
		"void vllm::rotary_embedding_kernel<c10::BFloat16, true>%s", ROTARY_ARGS);
	snprintf(rotary_draft_name, sizeof rotary_draft_name,
		"void vllm::rotary_embedding_kernel<c10::BFloat16, false>%s", ROTARY_ARGS);
	snprintf(copy_name, sizeof copy_name,
		"void at::native::unrolled_elementwise_kernel<%s, std::array<char*, 2ul>, 4, %s >"
		"(int, %s, std::array<char*, 2ul>, %s)", COPY_LAMBDA, COPY_TAIL, COPY_LAMBDA,
		COPY_TAIL);
}

/* The program of one forward pass. */
enum { LAYER_STEPS = 9, ATTN_STEP = 3, EXPERT_STEP = 6 /* the MLP's up projection */ };

struct pass_program {
	const enum kt *prologue;
	size_t nprologue;
	enum kt layer[LAYER_STEPS];
	const enum kt *epilogue;
	size_t nepilogue;
	const char *layer_prefix;  /* of the annotation name */
};

static const enum kt target_prologue[] = { KT_MEMCPY, KT_EMBED };
static const enum kt target_epilogue[] = { KT_FINAL_NORM, KT_MEMSET, KT_LM_HEAD };
static const enum kt draft_prologue[] = { KT_EMBED };
static const enum kt draft_epilogue[] = { KT_D_FINAL_NORM, KT_D_LM_HEAD };

static const struct pass_program target_program = {
	target_prologue, sizeof target_prologue / sizeof target_prologue[0],
	{ KT_NORM, KT_GEMM_QKV, KT_ROTARY, KT_ATTN, KT_GEMM_O, KT_NORM, KT_GEMM_UP,
	  KT_SILU, KT_GEMM_DOWN },
	target_epilogue, sizeof target_epilogue / sizeof target_epilogue[0],
	"layer_"
};

static const struct pass_program draft_program = {
	draft_prologue, sizeof draft_prologue / sizeof draft_prologue[0],
	{ KT_D_NORM, KT_D_GEMM, KT_D_ROTARY, KT_D_ATTN, KT_D_GEMM, KT_D_NORM, KT_D_GEMM,
	  KT_SILU, KT_D_GEMM },
	draft_epilogue, sizeof draft_epilogue / sizeof draft_epilogue[0],
	"draft_layer_"
};

/* ---- simulated events ----------------------------------------------- */

struct gpu_event {
	uint64_t ts, dur;          /* ns */
	uint64_t correlation, external_id;
	uint64_t bytes;            /* memcpy, memset */
	uint64_t layer;            /* annotation */
	uint64_t seq;              /* insertion order: ties in the completion order */
	uint32_t stream;           /* index: the tid is first_stream_id + stream */
	uint16_t device;
	uint8_t type;              /* enum kt */
	uint8_t draft;
};

/* One host op: a cpu_op enclosing a runtime call, or a bare runtime call. */
struct cpu_launch {
	uint64_t op_ts, op_dur;
	uint64_t rt_ts, rt_dur;
	uint64_t external_id, sequence_nr, ev_idx, correlation;
	enum kt type;              /* what it launches */
	int sync;                  /* a bare cudaDeviceSynchronize, launching nothing */
};

struct op {
	struct cpu_launch cpu;
	struct gpu_event gpu[2];   /* the activity, and maybe the layer annotation */
	unsigned ngpu;
};

enum segment { SEG_PROLOGUE, SEG_LAYERS, SEG_EPILOGUE, SEG_SYNC, SEG_DONE };

struct position {
	uint64_t iteration;
	uint64_t pass;             /* < draft_passes: a draft pass; == draft_passes: target */
	uint64_t layer;
	size_t step;
	enum segment seg;
};

/* The layer now being generated, for its annotation. */
struct layer_span {
	uint64_t first_ts, end, external_id;
	uint32_t stream;
};

struct device {
	const struct gen_config *cfg;
	uint16_t id;
	uint64_t rng;
	uint64_t cpu_t;            /* the launch thread is free from here */
	int started;
	uint64_t *slot_free;       /* per concurrency slot: end of its last activity */
	uint64_t *slot_count;      /* per slot: activities so far, for the stream rotation */
	uint64_t next_slot;        /* round-robin counter of the slots the chain runs on */
	uint64_t chain_free;       /* end of the pass's last sequential activity */
	unsigned char *stream_used;
	uint64_t corr_n, ext_n, seq_n, ev_n;
	struct position pos;
	struct layer_span span;
	struct op *group;          /* ops made by one step: up to concurrency */
	unsigned ngroup, next;
	uint64_t last_end;         /* the latest end of anything simulated */
	uint64_t iterations;       /* stop after this many */
	int done;
};

/* ---- PRNG: splitmix64, one stream per device ----------------------- */

static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rand_between(struct device *dv, uint64_t lo, uint64_t hi)
{
	return lo + rng_next(&dv->rng) % (hi - lo + 1);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* ---- device simulation --------------------------------------------- */

static void device_reset(struct device *dv, uint64_t iterations)
{
	const struct gen_config *cfg = dv->cfg;
	uint64_t origin = cfg->origin_us * 1000;
	unsigned k;

	/* Each device draws from its own stream, so a device's timeline does not
	 * depend on the order in which the devices are advanced. */
	dv->rng = cfg->seed ^ (0xd1b54a32d192ed03ULL * ((uint64_t)dv->id + 1));
	/* rank 0 keeps the seed as it was, so that its traces stay the same */
	dv->rng ^= 0x9e3779b97f4a7c15ULL * cfg->rank;
	(void)rng_next(&dv->rng);
	dv->started = 0;
	dv->cpu_t = origin;
	if (dv->id > 0)
		dv->cpu_t += rand_between(dv, 1000, 20000);
	for (k = 0; k < cfg->concurrency; k++) {
		dv->slot_free[k] = origin;
		dv->slot_count[k] = 0;
	}
	dv->next_slot = 0;
	dv->chain_free = origin;
	memset(dv->stream_used, 0, cfg->streams);
	dv->corr_n = dv->ext_n = dv->seq_n = dv->ev_n = 0;
	memset(&dv->pos, 0, sizeof dv->pos);
	dv->pos.seg = SEG_PROLOGUE;
	dv->ngroup = dv->next = 0;
	dv->last_end = origin;
	dv->iterations = iterations;
	dv->done = 0;
}

/* 0, or -1 out of memory (what was allocated is freed by device_free). */
static int device_init(struct device *dv, const struct gen_config *cfg, uint16_t id)
{
	dv->cfg = cfg;
	dv->id = id;
	dv->slot_free = calloc(cfg->concurrency, sizeof dv->slot_free[0]);
	dv->slot_count = calloc(cfg->concurrency, sizeof dv->slot_count[0]);
	dv->stream_used = calloc(cfg->streams, 1);
	dv->group = calloc(cfg->concurrency, sizeof dv->group[0]);
	return dv->slot_free && dv->slot_count && dv->stream_used && dv->group ? 0 : -1;
}

static void device_free(struct device *dv)
{
	free(dv->slot_free);
	free(dv->slot_count);
	free(dv->stream_used);
	free(dv->group);
}

/* Ids are unique over all devices without any shared counter: device d of G
 * owns the ids congruent to d + 1 modulo G. */
static uint64_t next_id(const struct device *dv, uint64_t *counter)
{
	return (*counter)++ * dv->cfg->devices + dv->id + 1;
}

static int in_draft_pass(const struct device *dv)
{
	return dv->pos.pass < dv->cfg->draft_passes;
}

static const struct pass_program *current_program(const struct device *dv)
{
	return in_draft_pass(dv) ? &draft_program : &target_program;
}

static uint64_t runtime_call_duration(struct device *dv, enum kt type)
{
	switch (kernel_types[type].activity) {
	case ACT_MEMCPY:
		return rand_between(dv, 5000, 12000);
	case ACT_MEMSET:
		return rand_between(dv, 3000, 7000);
	case ACT_KERNEL:
		break;
	}
	return rand_between(dv, 2500, 6000);
}

static void note_end(struct device *dv, uint64_t end)
{
	dv->last_end = max_u64(dv->last_end, end);
}

/* The host side of one launch: the launch thread runs it from cpu_t on. */
static void cpu_launch(struct device *dv, enum kt type, struct cpu_launch *c)
{
	uint64_t pre = dv->started ? rand_between(dv, OP_GAP_MIN, OP_GAP_MAX) : 0;
	uint64_t tail;

	dv->started = 1;
	c->type = type;
	c->sync = 0;
	c->op_ts = dv->cpu_t + pre;
	c->rt_ts = c->op_ts + rand_between(dv, RT_OFFSET_MIN, RT_OFFSET_MAX);
	c->rt_dur = runtime_call_duration(dv, type);
	tail = rand_between(dv, OP_TAIL_MIN, OP_TAIL_MAX);
	c->op_dur = c->rt_ts + c->rt_dur + tail - c->op_ts;
	c->external_id = next_id(dv, &dv->ext_n);
	c->correlation = next_id(dv, &dv->corr_n);
	c->sequence_nr = dv->seq_n++;
	c->ev_idx = dv->ev_n++;
	dv->cpu_t = c->op_ts + c->op_dur;
	note_end(dv, dv->cpu_t);
}

/* The GPU runs C (--concurrency) independent sequential timelines, the
 * slots.  Slot k uses the streams whose index i has i % C == k, in turn, so
 * two activities of one stream are never on two slots and never overlap. */
static uint32_t next_stream(struct device *dv, unsigned slot)
{
	unsigned c = dv->cfg->concurrency;
	uint64_t in_slot = (dv->cfg->streams - slot + c - 1) / c;
	uint64_t stream = slot + c * (dv->slot_count[slot]++ % in_slot);

	dv->stream_used[stream] = 1;
	return (uint32_t)stream;
}

/* The layer program is one dependency chain whose kernels hop from slot to
 * slot, as in a CUDA-graph replay.  Taking the slots strictly in turn (an
 * attention group takes one whole turn) keeps the slots' activity counts
 * within one of each other, lowest slots first, like their stream counts:
 * so a device uses exactly min(streams, activities) distinct streams. */
static unsigned take_slot(struct device *dv)
{
	return (unsigned)(dv->next_slot++ % dv->cfg->concurrency);
}

/* Start an activity on a slot: a gap after `after` and after the slot's
 * previous activity, after its launch call, and not before not_before. */
static void gpu_place(struct device *dv, unsigned slot, const struct cpu_launch *c,
	uint64_t after, uint64_t not_before, struct gpu_event *ev)
{
	uint64_t ready = max_u64(after, dv->slot_free[slot])
		+ rand_between(dv, GPU_GAP_MIN, GPU_GAP_MAX);
	uint64_t queued = c->rt_ts + rand_between(dv, LATENCY_MIN, LATENCY_MAX);

	memset(ev, 0, sizeof *ev);
	ev->ts = max_u64(max_u64(ready, queued), not_before);
	ev->type = (uint8_t)c->type;
	ev->device = dv->id;
	ev->stream = next_stream(dv, slot);
	ev->correlation = c->correlation;
	ev->external_id = c->external_id;
	if (kernel_types[c->type].activity != ACT_KERNEL)
		ev->bytes = rand_between(dv, kernel_types[c->type].bytes_min,
			kernel_types[c->type].bytes_max);
}

/* Give a placed activity its duration: random, but reaching at least min_end. */
static void gpu_finish(struct device *dv, unsigned slot, struct gpu_event *ev,
	uint64_t min_end)
{
	const struct kernel_type *k = &kernel_types[ev->type];

	ev->dur = rand_between(dv, k->dur_min, k->dur_max);
	if (ev->type == KT_ATTN && dv->pos.seg == SEG_LAYERS &&
	    (int64_t)dv->pos.layer == dv->cfg->slow_layer)
		ev->dur += ev->dur * dv->cfg->slowdown / 100;
	if (ev->ts + ev->dur < min_end)
		ev->dur = min_end - ev->ts;
	dv->slot_free[slot] = ev->ts + ev->dur;
	note_end(dv, dv->slot_free[slot]);
}

/* The next activity of the chain, launched by one host op. */
static void launch_simple(struct device *dv, enum kt type)
{
	struct op *op = &dv->group[0];
	unsigned slot = take_slot(dv);

	cpu_launch(dv, type, &op->cpu);
	gpu_place(dv, slot, &op->cpu, dv->chain_free, 0, &op->gpu[0]);
	gpu_finish(dv, slot, &op->gpu[0], 0);
	dv->chain_free = op->gpu[0].ts + op->gpu[0].dur;
	op->ngpu = 1;
	dv->ngroup = 1;
}

static enum kt side_kernel(unsigned nth)
{
	if (nth == 1)
		return KT_NCCL;
	return nth % 2 == 0 ? KT_ADD : KT_COPY;
}

/* The attention kernel (next in the chain) and one kernel on every other
 * slot, all launched together and all still running at one instant, so that
 * the device's peak concurrency is exactly the number of slots.  The margin
 * keeps that true when times are truncated to whole microseconds.  With
 * side KT_EXPERT: n experts at once, the first in the chain. */
static void launch_group(struct device *dv, enum kt attention, unsigned n, enum kt side_type)
{
	unsigned c = dv->cfg->concurrency;
	unsigned first = (unsigned)(dv->next_slot % c);
	struct op *attn = &dv->group[0];
	uint64_t peak;
	unsigned k;

	dv->next_slot += n;
	cpu_launch(dv, attention, &attn->cpu);
	gpu_place(dv, first, &attn->cpu, dv->chain_free, 0, &attn->gpu[0]);
	peak = attn->gpu[0].ts;
	for (k = 1; k < n; k++) {
		struct op *side = &dv->group[k];

		cpu_launch(dv, side_type == KT_EXPERT ? KT_EXPERT : side_kernel(k), &side->cpu);
		gpu_place(dv, (first + k) % c, &side->cpu, 0, attn->gpu[0].ts, &side->gpu[0]);
		peak = max_u64(peak, side->gpu[0].ts);
	}
	for (k = 0; k < n; k++) {
		gpu_finish(dv, (first + k) % c, &dv->group[k].gpu[0], peak + PEAK_MARGIN);
		dv->group[k].ngpu = 1;
	}
	dv->chain_free = attn->gpu[0].ts + attn->gpu[0].dur;
	dv->ngroup = n;
}

static void span_extend(struct device *dv)
{
	unsigned i;

	for (i = 0; i < dv->ngroup; i++) {
		const struct gpu_event *ev = &dv->group[i].gpu[0];

		dv->span.end = max_u64(dv->span.end, ev->ts + ev->dur);
	}
}

/* Kineto widens a gpu_user_annotation by 1 ns on each side. */
static void attach_annotation(struct device *dv)
{
	struct op *last = &dv->group[dv->ngroup - 1];
	struct gpu_event *ev = &last->gpu[last->ngpu++];

	memset(ev, 0, sizeof *ev);
	ev->type = KT_ANNOTATION;
	ev->device = dv->id;
	ev->stream = dv->span.stream;
	ev->ts = dv->span.first_ts - 1;
	ev->dur = dv->span.end - dv->span.first_ts + 2;
	ev->external_id = dv->span.external_id;
	ev->layer = dv->pos.layer;
	ev->draft = (uint8_t)in_draft_pass(dv);
	note_end(dv, ev->ts + ev->dur);
}

static void layer_step(struct device *dv, const struct pass_program *prog)
{
	struct position *pos = &dv->pos;
	uint64_t nlayers = in_draft_pass(dv) ? dv->cfg->draft_layers : dv->cfg->layers;

	if (pos->step == ATTN_STEP && dv->cfg->concurrency > 1)
		launch_group(dv, prog->layer[pos->step], dv->cfg->concurrency, KT_ANNOTATION);
	else if (pos->step == EXPERT_STEP && dv->cfg->experts > 1)
		launch_group(dv, KT_EXPERT, dv->cfg->experts, KT_EXPERT);
	else
		launch_simple(dv, prog->layer[pos->step]);
	if (pos->step == 0) {
		dv->span.first_ts = dv->group[0].gpu[0].ts;
		dv->span.stream = dv->group[0].gpu[0].stream;
		dv->span.end = 0;
		dv->span.external_id = next_id(dv, &dv->ext_n);
	}
	span_extend(dv);
	if (pos->step == LAYER_STEPS - 1)
		attach_annotation(dv);
	if (++pos->step < LAYER_STEPS)
		return;
	pos->step = 0;
	if (++pos->layer == nlayers) {
		pos->layer = 0;
		pos->seg = SEG_EPILOGUE;
	}
}

/* The host waits for the GPU at the end of every pass (the sampled token is
 * needed), then does its own work: the GPU idles in between. */
static void pass_end_sync(struct device *dv)
{
	struct op *op = &dv->group[0];
	struct cpu_launch *c = &op->cpu;
	uint64_t gpu_idle = 0, end;
	unsigned k;

	memset(c, 0, sizeof *c);
	c->sync = 1;
	c->rt_ts = dv->cpu_t + rand_between(dv, OP_GAP_MIN, OP_GAP_MAX);
	c->correlation = next_id(dv, &dv->corr_n);
	for (k = 0; k < dv->cfg->concurrency; k++)
		gpu_idle = max_u64(gpu_idle, dv->slot_free[k]);
	end = max_u64(c->rt_ts + rand_between(dv, SYNC_MIN, SYNC_MAX),
		gpu_idle + rand_between(dv, WAKE_MIN, WAKE_MAX));
	c->rt_dur = end - c->rt_ts;
	note_end(dv, end);
	if (in_draft_pass(dv))
		dv->cpu_t = end + rand_between(dv, DRAFT_GAP_MIN, DRAFT_GAP_MAX);
	else
		dv->cpu_t = end + rand_between(dv, TARGET_GAP_MIN, TARGET_GAP_MAX);
	op->ngpu = 0;
	dv->ngroup = 1;
}

static void next_pass(struct device *dv)
{
	struct position *pos = &dv->pos;

	if (++pos->pass > dv->cfg->draft_passes) {
		pos->pass = 0;
		pos->iteration++;
	}
	pos->step = 0;
	pos->seg = pos->iteration == dv->iterations ? SEG_DONE : SEG_PROLOGUE;
}

/* Simulate the next step of the device's program into dv->group.
 * 0 when the device has finished its iterations. */
static int device_step(struct device *dv)
{
	const struct pass_program *prog = current_program(dv);
	struct position *pos = &dv->pos;

	dv->ngroup = 0;
	dv->next = 0;
	switch (pos->seg) {
	case SEG_PROLOGUE:
		launch_simple(dv, prog->prologue[pos->step]);
		if (++pos->step == prog->nprologue) {
			pos->step = 0;
			pos->seg = SEG_LAYERS;
		}
		break;
	case SEG_LAYERS:
		layer_step(dv, prog);
		break;
	case SEG_EPILOGUE:
		launch_simple(dv, prog->epilogue[pos->step]);
		if (++pos->step == prog->nepilogue) {
			pos->step = 0;
			pos->seg = SEG_SYNC;
		}
		break;
	case SEG_SYNC:
		pass_end_sync(dv);
		next_pass(dv);
		break;
	case SEG_DONE:
		dv->done = 1;
		return 0;
	}
	return 1;
}

/* No activity simulated from now on can end before this. */
static uint64_t device_horizon(const struct device *dv)
{
	uint64_t lo = UINT64_MAX;
	unsigned k;

	if (dv->done)
		return UINT64_MAX;
	for (k = 0; k < dv->cfg->concurrency; k++)
		lo = min_u64(lo, dv->slot_free[k]);
	return lo;
}

/* ---- output -------------------------------------------------------- */

enum { OUT_FLUSH_AT = 1 << 20, EVENT_ROOM = 16384 };

/* The separators of a layout. */
struct seps {
	const char *open, *line, *args_open, *wide, *cpu_args, *args_close, *close;
};

static const struct seps layouts[] = {
	[GEN_INDENTED] = { "  {\n    ", ",\n    ", "\"args\": {\n      ", ",      ", ",",
		"\n    }", "\n  }" },
	[GEN_COMPACT] = { "{", ", ", "\"args\": {", ", ", ", ", "}", "}" },
	[GEN_LINES] = { "  {\n    ", ",\n    ", "\"args\": {\n      ", ",\n      ", ",",
		"\n    }", "\n  }" },
	[GEN_INDENT2] = { "  {", ", ", "\"args\": {", ", ", ", ", "}", "}" },
};

struct out {
	char *buf;                 /* OUT_FLUSH_AT + EVENT_ROOM bytes */
	size_t len;
	struct writer *w;          /* NULL: only count */
	uint64_t flushed;          /* bytes written (or counted) so far */
	uint64_t events;           /* events begun, for the separators */
	const struct seps *sep;
	int compact;               /* one event per line: the header on one line too */
	int ts_int, args_first, disorder;
	int err;                   /* errno of the first failure; nothing written after it */
	struct progress *meter;    /* NULL, or told of flushed */
};

static void out_flush(struct out *o)
{
	if (o->w != NULL && o->len > 0 && o->err == 0 && writer_put(o->w, o->buf, o->len) != 0)
		o->err = errno ? errno : EIO;
	o->flushed += o->len;
	o->len = 0;
	if (o->meter != NULL)
		(void)progress_update(o->meter, o->flushed);
}

/* Called before each event: an event is always smaller than EVENT_ROOM, so
 * the put functions below need no bounds checks. */
static void out_room(struct out *o)
{
	if (o->len >= OUT_FLUSH_AT)
		out_flush(o);
}

static void put_mem(struct out *o, const char *s, size_t n)
{
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void put(struct out *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

static const char DIGIT_PAIRS[] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Two digits per division: numbers are most of the output. */
static void put_u64(struct out *o, uint64_t v)
{
	char tmp[20];
	size_t n = sizeof tmp;

	while (v >= 100) {
		size_t pair = (size_t)(v % 100) * 2;

		v /= 100;
		n -= 2;
		memcpy(tmp + n, DIGIT_PAIRS + pair, 2);
	}
	if (v >= 10) {
		n -= 2;
		memcpy(tmp + n, DIGIT_PAIRS + v * 2, 2);
	} else {
		tmp[--n] = (char)('0' + v);
	}
	put_mem(o, tmp + n, sizeof tmp - n);
}

static void put_i64(struct out *o, int64_t v)
{
	if (v < 0) {
		o->buf[o->len++] = '-';
		put_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(o, (uint64_t)v);
	}
}

/* Exactly `width` digits, zero padded. */
static void put_padded(struct out *o, uint64_t v, unsigned width)
{
	unsigned i;

	for (i = width; i > 0; i--) {
		o->buf[o->len + i - 1] = (char)('0' + v % 10);
		v /= 10;
	}
	o->len += width;
}

/* A time in ns, as microseconds: Kineto's "%.3f", or the truncated
 * integer of older traces. */
static void put_us(struct out *o, uint64_t ns)
{
	put_u64(o, ns / 1000);
	if (o->ts_int)
		return;
	o->buf[o->len++] = '.';
	put_padded(o, ns % 1000, 3);
}

/* A duration.  In whole microseconds it is the difference of the truncated
 * end and start, so that order by end and non-overlap survive truncation. */
static void put_dur(struct out *o, uint64_t ts, uint64_t dur)
{
	if (o->ts_int)
		put_u64(o, (ts + dur) / 1000 - ts / 1000);
	else
		put_us(o, dur);
}

/* A value given in millionths, as Kineto's "%f". */
static void put_fixed6(struct out *o, uint64_t micro)
{
	put_u64(o, micro / 1000000);
	o->buf[o->len++] = '.';
	put_padded(o, micro % 1000000, 6);
}

/* The fewest decimals that read back as the same double, like Python's repr
 * of the "memory bandwidth (GB/s)" Kineto writes; never an exponent. */
static void put_double(struct out *o, double v)
{
	char tmp[64];
	int decimals, n = 0;

	for (decimals = 1; decimals <= 17; decimals++) {
		n = snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	if (n > 0 && (size_t)n < sizeof tmp)
		put_mem(o, tmp, (size_t)n);
	else
		put(o, "0.0");
}

static void out_printf(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	out_room(o);
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, EVENT_ROOM, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= EVENT_ROOM) {
		o->err = o->err ? o->err : EOVERFLOW;  /* a header line too long: a defect */
		return;
	}
	o->len += (size_t)n;
}

/* Layout.  Kineto's indented forms break each event into a few lines; the
 * others write one event per line. */
static void ev_open(struct out *o)
{
	out_room(o);
	put(o, o->events++ == 0 ? "\n" : ",\n");
	put(o, o->sep->open);
}

static void ev_line(struct out *o)
{
	put(o, o->sep->line);
}

static void args_open(struct out *o)
{
	put(o, o->sep->args_open);
}

/* Kineto pads some separators inside args with six spaces (torch 2.0: a
 * new line). */
static void args_wide(struct out *o)
{
	put(o, o->sep->wide);
}

static void args_close(struct out *o)
{
	put(o, o->sep->args_close);
}

static void ev_close(struct out *o)
{
	put(o, o->sep->close);
}

static void put_ts_dur(struct out *o, uint64_t ts, uint64_t dur)
{
	put(o, "\"ts\": ");
	put_us(o, ts);
	put(o, ", \"dur\": ");
	put_dur(o, ts, dur);
}

static void put_name_head(struct out *o, const char *cat, const char *name, int64_t pid,
	uint64_t tid)
{
	ev_open(o);
	put(o, "\"ph\": \"X\", \"cat\": \"");
	put(o, cat);
	put(o, "\", \"name\": \"");
	put(o, name);
	put(o, "\", \"pid\": ");
	put_i64(o, pid);
	put(o, ", \"tid\": ");
	put_u64(o, tid);
	ev_line(o);
}

static void put_x_head(struct out *o, const char *cat, const char *name, int64_t pid,
	uint64_t tid, uint64_t ts, uint64_t dur)
{
	put_name_head(o, cat, name, pid, tid);
	put_ts_dur(o, ts, dur);
	ev_line(o);
	args_open(o);
}

static void emit_cpu_op(struct out *o, const struct cpu_launch *c, uint16_t device)
{
	put_x_head(o, "cpu_op", kernel_types[c->type].op_name, CPU_PID,
		(uint64_t)CPU_PID + device, c->op_ts, c->op_dur);
	put(o, "\"External id\": ");
	put_u64(o, c->external_id);
	put(o, o->sep->cpu_args);
	put(o, "\"Record function id\": 0, \"Sequence number\": ");
	put_u64(o, c->sequence_nr);
	put(o, ", \"Fwd thread id\": 0, \"Ev Idx\": ");
	put_u64(o, c->ev_idx);
	args_close(o);
	ev_close(o);
}

static const char *runtime_name(const struct cpu_launch *c, unsigned *cbid)
{
	if (c->sync) {
		*cbid = 165;
		return rocm ? "hipDeviceSynchronize" : "cudaDeviceSynchronize";
	}
	switch (kernel_types[c->type].activity) {
	case ACT_MEMCPY:
		*cbid = 41;
		return rocm ? "hipMemcpyAsync" : "cudaMemcpyAsync";
	case ACT_MEMSET:
		*cbid = 51;
		return rocm ? "hipMemsetAsync" : "cudaMemsetAsync";
	case ACT_KERNEL:
		break;
	}
	*cbid = 211;
	return rocm ? "hipLaunchKernel" : "cudaLaunchKernel";
}

static void emit_runtime(struct out *o, const struct cpu_launch *c, uint16_t device)
{
	unsigned cbid;
	const char *name = runtime_name(c, &cbid);

	if (o->args_first) {
		/* another writer's order: args, then ts and dur */
		put_name_head(o, "cuda_runtime", name, CPU_PID, (uint64_t)CPU_PID + device);
		args_open(o);
	} else {
		put_x_head(o, "cuda_runtime", name, CPU_PID, (uint64_t)CPU_PID + device,
			c->rt_ts, c->rt_dur);
	}
	put(o, "\"External id\": ");
	put_u64(o, c->external_id);
	args_wide(o);
	put(o, "\"cbid\": ");
	put_u64(o, cbid);
	put(o, ", \"correlation\": ");
	put_u64(o, c->correlation);
	args_close(o);
	if (o->args_first) {
		ev_line(o);
		put_ts_dur(o, c->rt_ts, c->rt_dur);
	}
	ev_close(o);
}

static void emit_flow(struct out *o, char phase, uint64_t id, int64_t pid, uint64_t tid,
	uint64_t ts)
{
	ev_open(o);
	put(o, phase == 's' ? "\"ph\": \"s\", \"id\": " : "\"ph\": \"f\", \"id\": ");
	put_u64(o, id);
	put(o, ", \"pid\": ");
	put_i64(o, pid);
	put(o, ", \"tid\": ");
	put_u64(o, tid);
	put(o, ", \"ts\": ");
	put_us(o, ts);
	ev_line(o);
	put(o, phase == 's' ? "\"cat\": \"ac2g\", \"name\": \"ac2g\""
		: "\"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"");
	ev_close(o);
}

static void emit_cpu_side(struct out *o, const struct op *op, uint16_t device)
{
	const struct cpu_launch *c = &op->cpu;

	/* Out of time order: the runtime call (and its flow) before the op
	 * that encloses it, as a writer that records ops at their end does. */
	if (!c->sync && !o->disorder)
		emit_cpu_op(o, c, device);
	emit_runtime(o, c, device);
	if (!c->sync)
		emit_flow(o, 's', c->correlation, CPU_PID, (uint64_t)CPU_PID + device, c->rt_ts);
	if (!c->sync && o->disorder)
		emit_cpu_op(o, c, device);
}

static char collective_ranks[64 * 4 + 4];   /* "[0, 1, ...]", built by gen_write */

static void put_kernel_args(struct out *o, const struct kernel_type *k)
{
	uint64_t blocks = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
	uint64_t warps = (k->block[0] * k->block[1] * k->block[2] + 31) / 32;
	uint64_t blocks_per_sm = (blocks * 1000000 + NUM_SMS / 2) / NUM_SMS;

	args_wide(o);
	put(o, "\"registers per thread\": ");
	put_u64(o, k->registers);
	args_wide(o);
	put(o, "\"shared memory\": ");
	put_u64(o, k->shared_memory);
	args_wide(o);
	put(o, "\"blocks per SM\": ");
	put_fixed6(o, blocks_per_sm);
	args_wide(o);
	put(o, "\"warps per SM\": ");
	put_fixed6(o, blocks_per_sm * warps);
	args_wide(o);
	put(o, "\"grid\": [");
	put_u64(o, k->grid[0]);
	put(o, ", ");
	put_u64(o, k->grid[1]);
	put(o, ", ");
	put_u64(o, k->grid[2]);
	put(o, "]");
	args_wide(o);
	put(o, "\"block\": [");
	put_u64(o, k->block[0]);
	put(o, ", ");
	put_u64(o, k->block[1]);
	put(o, ", ");
	put_u64(o, k->block[2]);
	put(o, "]");
	args_wide(o);
	put(o, "\"est. achieved occupancy %\": ");
	put_u64(o, k->occupancy);
}

static void put_collective_args(struct out *o, unsigned devices)
{
	put(o, ", \"Collective name\": \"allreduce\", \"In msg nelems\": 4194304, "
		"\"Out msg nelems\": 4194304, \"Group size\": ");
	put_u64(o, devices);
	put(o, ", \"dtype\": \"BFloat16\", \"In split size\": \"[]\", "
		"\"Out split size\": \"[]\", \"Process Group Name\": \"0\", "
		"\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"");
	put(o, collective_ranks);
	put(o, "\"");
}

static void emit_activity(struct out *o, const struct gpu_event *ev, unsigned devices)
{
	const struct kernel_type *k = &kernel_types[ev->type];
	static const char *const cats[] = { "kernel", "gpu_memcpy", "gpu_memset" };
	uint64_t tid = first_stream_id + ev->stream;

	put_x_head(o, cats[k->activity], k->name, ev->device, tid, ev->ts, ev->dur);
	put(o, "\"External id\": ");
	put_u64(o, ev->external_id);
	args_wide(o);
	if (rocm && k->activity == ACT_KERNEL) {
		/* roctracer's kernel args: no occupancy figures, a dispatch kind */
		put(o, "\"device\": ");
		put_u64(o, ev->device);
		put(o, ", \"stream\": ");
		put_u64(o, tid);
		put(o, ", \"correlation\": ");
		put_u64(o, ev->correlation);
		put(o, ", \"kind\": \"Dispatch Kernel\", \"grid\": [");
		put_u64(o, (uint64_t)k->grid[0] * k->block[0]);
		put(o, ", ");
		put_u64(o, (uint64_t)k->grid[1] * k->block[1]);
		put(o, ", ");
		put_u64(o, (uint64_t)k->grid[2] * k->block[2]);
		put(o, "], \"block\": [");
		put_u64(o, k->block[0]);
		put(o, ", ");
		put_u64(o, k->block[1]);
		put(o, ", ");
		put_u64(o, k->block[2]);
		put(o, "]");
		if (k->collective)
			put_collective_args(o, devices);
		args_close(o);
		ev_close(o);
		emit_flow(o, 'f', ev->correlation, ev->device, tid, ev->ts);
		return;
	}
	/* Kineto writes "queued" for kernels only. */
	if (k->activity == ACT_KERNEL)
		put(o, "\"queued\": 0, ");
	put(o, "\"device\": ");
	put_u64(o, ev->device);
	put(o, ", \"context\": 1");
	args_wide(o);
	put(o, "\"stream\": ");
	put_u64(o, tid);
	put(o, ", \"correlation\": ");
	put_u64(o, ev->correlation);
	if (k->activity == ACT_KERNEL) {
		put_kernel_args(o, k);
		if (k->collective)
			put_collective_args(o, devices);
	} else {
		args_wide(o);
		put(o, "\"bytes\": ");
		put_u64(o, ev->bytes);
		put(o, ", \"memory bandwidth (GB/s)\": ");
		put_double(o, (double)ev->bytes / (double)ev->dur);
	}
	args_close(o);
	ev_close(o);
	emit_flow(o, 'f', ev->correlation, ev->device, tid, ev->ts);
}

static void emit_annotation(struct out *o, const struct gpu_event *ev)
{
	char name[64];

	snprintf(name, sizeof name, "%s%llu", ev->draft ? draft_program.layer_prefix
		: target_program.layer_prefix, (unsigned long long)ev->layer);
	put_x_head(o, "gpu_user_annotation", name, ev->device,
		first_stream_id + ev->stream, ev->ts, ev->dur);
	put(o, "\"External id\": ");
	put_u64(o, ev->external_id);
	args_close(o);
	ev_close(o);
}

static void emit_gpu_side(struct out *o, const struct gpu_event *ev, unsigned devices)
{
	if (ev->type == KT_ANNOTATION)
		emit_annotation(o, ev);
	else
		emit_activity(o, ev, devices);
}

/* ---- metadata ------------------------------------------------------- */

static void emit_meta_head(struct out *o, const char *what, int64_t pid, uint64_t tid,
	uint64_t ts)
{
	ev_open(o);
	put(o, "\"name\": \"");
	put(o, what);
	put(o, "\", \"ph\": \"M\", \"ts\": ");
	put_us(o, ts);
	put(o, ", \"pid\": ");
	put_i64(o, pid);
	put(o, ", \"tid\": ");
	put_u64(o, tid);
	ev_line(o);
	args_open(o);
}

static void emit_meta_str(struct out *o, const char *what, int64_t pid, uint64_t tid,
	uint64_t ts, const char *key, const char *value)
{
	emit_meta_head(o, what, pid, tid, ts);
	put(o, "\"");
	put(o, key);
	put(o, "\": \"");
	put(o, value);
	put(o, "\"");
	args_close(o);
	ev_close(o);
}

static void emit_meta_sort(struct out *o, const char *what, int64_t pid, uint64_t tid,
	uint64_t ts, uint64_t sort_index)
{
	emit_meta_head(o, what, pid, tid, ts);
	put(o, "\"sort_index\": ");
	put_u64(o, sort_index);
	args_close(o);
	ev_close(o);
}

static void emit_metadata(struct out *o, const struct device *devs, unsigned ndev,
	uint64_t ts)
{
	char text[64];
	unsigned d, s;

	emit_meta_str(o, "process_name", CPU_PID, 0, ts, "name", "python3.10");
	emit_meta_str(o, "process_labels", CPU_PID, 0, ts, "labels", "CPU");
	emit_meta_sort(o, "process_sort_index", CPU_PID, 0, ts, CPU_PID);
	for (d = 0; d < ndev; d++) {
		snprintf(text, sizeof text, "GPU %u", d);
		emit_meta_str(o, "process_name", d, 0, ts, "name", "python3.10");
		emit_meta_str(o, "process_labels", d, 0, ts, "labels", text);
		emit_meta_sort(o, "process_sort_index", d, 0, ts, (uint64_t)GPU_SORT_BASE + d);
	}
	emit_meta_str(o, "process_name", -1, 0, ts, "name", "CUPTI Overhead");
	for (d = 0; d < ndev; d++) {
		for (s = 0; s < devs[d].cfg->streams; s++) {
			uint64_t tid = first_stream_id + s;

			if (!devs[d].stream_used[s])
				continue;
			/* Kineto's stream names end in a space. */
			snprintf(text, sizeof text, "stream %llu ", (unsigned long long)tid);
			emit_meta_str(o, "thread_name", d, tid, ts, "name", text);
			emit_meta_sort(o, "thread_sort_index", d, tid, ts, tid);
		}
	}
	for (d = 0; d < ndev; d++) {
		uint64_t tid = (uint64_t)CPU_PID + d;

		snprintf(text, sizeof text, "thread %llu (%s)", (unsigned long long)tid,
			d == 0 ? "pt_main_thread" : "pt_launcher");
		emit_meta_str(o, "thread_name", CPU_PID, tid, ts, "name", text);
		emit_meta_sort(o, "thread_sort_index", CPU_PID, tid, ts, tid);
	}
}

static void emit_window_end(struct out *o, uint64_t ts)
{
	ev_open(o);
	put(o, "\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\"");
	ev_line(o);
	put(o, "\"pid\": \"\", \"tid\": \"\", \"ts\": ");
	put_us(o, ts);
	ev_close(o);
}

/* ---- header and trailer -------------------------------------------- */

static void emit_device_properties(struct out *o, unsigned id, int last)
{
	const char *nl = o->compact ? " " : "\n      ";

	out_printf(o, "%s{%s\"id\": %u, \"name\": \"%s\", "
		"\"totalGlobalMem\": 85031714816,%s\"computeMajor\": 9, \"computeMinor\": 0,"
		"%s\"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,"
		"%s\"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,"
		"%s\"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 233472,"
		"%s\"numSms\": %d, \"sharedMemPerBlockOptin\": 232448%s}%s",
		o->compact ? "" : "    ", o->compact ? "" : "\n      ", id,
		rocm ? "AMD Instinct MI300X" : "NVIDIA H100 80GB HBM3", nl, nl, nl, nl, nl,
		rocm ? NUM_CUS : NUM_SMS, o->compact ? "" : "\n    ", last ? "" : (o->compact ? ", " : ",\n"));
}

/* rank: that of distributedInfo, whose world_size is then the least it can
 * be */
static void emit_header(struct out *o, unsigned devices, uint64_t rank)
{
	const char *nl = o->compact ? " " : "\n  ";
	unsigned d;

	out_printf(o, "{%s\"schemaVersion\": 1,%s\"deviceProperties\": [%s",
		o->compact ? "" : "\n  ", nl, o->compact ? "" : "\n");
	for (d = 0; d < devices; d++)
		emit_device_properties(o, d, d + 1 == devices);
	out_printf(o, "%s],%s\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %llu, "
		"\"world_size\": %llu},%s\"displayTimeUnit\": \"ms\",%s\"baseTimeNanoseconds\": "
		"%llu,%s\"traceEvents\": [", o->compact ? "" : "\n  ", nl,
		(unsigned long long)rank, (unsigned long long)rank + 1, nl, nl,
		(unsigned long long)BASE_TIME_NS, nl);
}

static void emit_trailer(struct out *o)
{
	out_printf(o, "%s],%s\"traceName\": \"%s\"%s}\n", o->compact ? "\n" : "\n  ",
		o->compact ? " " : "\n  ", TRACE_NAME, o->compact ? "" : "\n");
}

/* ---- the phases ---------------------------------------------------- */

/* Events out of time order: the GPU side goes through a window of this
 * many activities, of which a random one is written each time it is full. */
enum { SHUFFLE_WINDOW = 64 };

struct gen {
	const struct gen_config *cfg;
	struct device *devs;
	struct gpu_event *heap;    /* activities simulated, not yet written */
	size_t nheap, heap_cap;
	uint64_t heap_seq;
	struct gpu_event window[SHUFFLE_WINDOW];
	unsigned nwindow;
	uint64_t shuffle_rng;
};

static void devices_reset(struct gen *g, uint64_t iterations)
{
	unsigned d;

	for (d = 0; d < g->cfg->devices; d++)
		device_reset(&g->devs[d], iterations);
}

static void out_layout(struct out *o, const struct gen_config *cfg)
{
	o->sep = &layouts[cfg->layout];
	o->compact = cfg->layout == GEN_COMPACT || cfg->layout == GEN_INDENT2;
	o->ts_int = cfg->ts_int;
	o->args_first = cfg->args_first;
	o->disorder = cfg->disorder;
}

/* Count the bytes of whole iterations until the target is reached.  The
 * devices are independent, so counting one iteration of each in turn gives
 * the same bytes as the interleaved output (and so does the disorder, which
 * moves events, not bytes).  0: out of memory. */
static uint64_t count_iterations(struct gen *g, uint64_t header_bytes)
{
	const struct gen_config *cfg = g->cfg;
	struct out counter;
	uint64_t it = 0;
	unsigned d, i, j;

	memset(&counter, 0, sizeof counter);
	counter.buf = malloc(OUT_FLUSH_AT + EVENT_ROOM);
	if (counter.buf == NULL)
		return 0;
	out_layout(&counter, cfg);
	counter.meter = cfg->meter;
	devices_reset(g, UINT64_MAX);
	for (;;) {
		for (d = 0; d < cfg->devices; d++) {
			struct device *dv = &g->devs[d];

			while (dv->pos.iteration == it && device_step(dv)) {
				for (i = 0; i < dv->ngroup; i++) {
					emit_cpu_side(&counter, &dv->group[i], dv->id);
					for (j = 0; j < dv->group[i].ngpu; j++)
						emit_gpu_side(&counter, &dv->group[i].gpu[j],
							cfg->devices);
				}
			}
		}
		it++;
		out_flush(&counter);
		if (it >= cfg->passes && header_bytes + counter.flushed >= cfg->target_bytes)
			break;
	}
	free(counter.buf);
	return it;
}

static uint64_t op_start(const struct op *op)
{
	return op->cpu.sync ? op->cpu.rt_ts : op->cpu.op_ts;
}

/* The CPU side: every device's host ops, merged by start time. */
static void write_cpu_events(struct gen *g, struct out *o, uint64_t iterations)
{
	unsigned ndev = g->cfg->devices, d;

	devices_reset(g, iterations);
	for (d = 0; d < ndev; d++)
		device_step(&g->devs[d]);
	for (;;) {
		struct device *best = NULL;

		for (d = 0; d < ndev; d++) {
			struct device *dv = &g->devs[d];

			if (dv->done)
				continue;
			if (best == NULL || op_start(&dv->group[dv->next])
					< op_start(&best->group[best->next]))
				best = dv;
		}
		if (best == NULL || o->err)
			return;
		emit_cpu_side(o, &best->group[best->next], best->id);
		if (++best->next == best->ngroup)
			device_step(best);
	}
}

static int completes_before(const struct gpu_event *a, const struct gpu_event *b)
{
	uint64_t end_a = a->ts + a->dur, end_b = b->ts + b->dur;

	if (end_a != end_b)
		return end_a < end_b;
	return a->seq < b->seq;
}

/* 0, or -1 out of memory. */
static int heap_push(struct gen *g, const struct gpu_event *ev)
{
	size_t i;

	if (g->nheap == g->heap_cap) {
		size_t cap = g->heap_cap ? 2 * g->heap_cap : 256;
		struct gpu_event *heap = realloc(g->heap, cap * sizeof g->heap[0]);

		if (heap == NULL)
			return -1;
		g->heap = heap;
		g->heap_cap = cap;
	}
	i = g->nheap++;
	g->heap[i] = *ev;
	g->heap[i].seq = g->heap_seq++;
	while (i > 0 && completes_before(&g->heap[i], &g->heap[(i - 1) / 2])) {
		struct gpu_event t = g->heap[i];

		g->heap[i] = g->heap[(i - 1) / 2];
		g->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

/* An activity in completion order to the output, or, out of time order,
 * into the shuffle window (ev NULL: empty the window). */
static void gpu_out(struct gen *g, struct out *o, const struct gpu_event *ev)
{
	unsigned ndev = g->cfg->devices;

	if (!o->disorder) {
		if (ev != NULL)
			emit_gpu_side(o, ev, ndev);
		return;
	}
	if (ev != NULL && g->nwindow < SHUFFLE_WINDOW) {
		g->window[g->nwindow++] = *ev;
		return;
	}
	while (g->nwindow > 0) {
		unsigned k = (unsigned)(rng_next(&g->shuffle_rng) % g->nwindow);

		emit_gpu_side(o, &g->window[k], ndev);
		if (ev != NULL) {
			g->window[k] = *ev;
			return;
		}
		g->window[k] = g->window[--g->nwindow];
	}
}

static void heap_pop(struct gen *g)
{
	size_t i = 0;

	g->heap[0] = g->heap[--g->nheap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct gpu_event t;

		if (l < g->nheap && completes_before(&g->heap[l], &g->heap[m]))
			m = l;
		if (r < g->nheap && completes_before(&g->heap[r], &g->heap[m]))
			m = r;
		if (m == i)
			return;
		t = g->heap[i];
		g->heap[i] = g->heap[m];
		g->heap[m] = t;
		i = m;
	}
}

/* The GPU side, in completion order as CUPTI delivers it: an activity is
 * written once no device can still simulate one that ends earlier. */
static uint64_t write_gpu_events(struct gen *g, struct out *o, uint64_t iterations)
{
	unsigned ndev = g->cfg->devices, d, i, j;
	uint64_t last_end = 0;

	devices_reset(g, iterations);
	g->nwindow = 0;
	g->shuffle_rng = g->cfg->seed ^ 0x5851f42d4c957f2dULL;
	for (;;) {
		struct device *laggard = NULL;
		uint64_t horizon = UINT64_MAX;

		/* Advance the device that holds the horizon back. */
		for (d = 0; d < ndev; d++) {
			uint64_t h = device_horizon(&g->devs[d]);

			if (h < horizon) {
				horizon = h;
				laggard = &g->devs[d];
			}
		}
		if (laggard != NULL && device_step(laggard))
			for (i = 0; i < laggard->ngroup; i++) {
				/* out of time order: the host's events as they are
				 * simulated, among the GPU's, not all before them */
				if (o->disorder)
					emit_cpu_side(o, &laggard->group[i], laggard->id);
				for (j = 0; j < laggard->group[i].ngpu; j++)
					if (heap_push(g, &laggard->group[i].gpu[j]) != 0) {
						o->err = ENOMEM;
						return 0;
					}
			}
		horizon = UINT64_MAX;
		for (d = 0; d < ndev; d++)
			horizon = min_u64(horizon, device_horizon(&g->devs[d]));
		while (g->nheap > 0 && g->heap[0].ts + g->heap[0].dur <= horizon) {
			gpu_out(g, o, &g->heap[0]);
			heap_pop(g);
		}
		if (laggard == NULL || o->err)
			break;
	}
	gpu_out(g, o, NULL);
	for (d = 0; d < ndev; d++)
		last_end = max_u64(last_end, g->devs[d].last_end);
	return last_end;
}

/* ---- scaling shapes ------------------------------------------------ */

/* --scale-devices N: one pid (0) whose N devices each run one 1 us kernel on
 * a stream of their own; --scale-pids N: N pids (0 .. N-1, device = pid)
 * with one 1 us kernel each.  Kernels follow one another 2 us apart, so
 * every (pid, device) group needs one lane: what grows is the number of
 * groups, for the scaling cases of make bench. */
static void write_scale(struct out *o, const struct gen_config *cfg)
{
	uint64_t n = cfg->scale_devices ? cfg->scale_devices : cfg->scale_pids, i;
	uint64_t origin = cfg->origin_us * 1000;

	for (i = 0; i < n; i++) {
		int64_t pid = cfg->scale_devices ? 0 : (int64_t)i;
		uint64_t tid = first_stream_id + (cfg->scale_devices ? i : 0);

		put_x_head(o, "kernel", kernel_types[KT_ADD].name, pid, tid, origin + i * 2000, 1000);
		put(o, "\"device\": ");
		put_u64(o, i);
		put(o, ", \"stream\": ");
		put_u64(o, tid);
		put(o, ", \"correlation\": ");
		put_u64(o, i + 1);
		args_close(o);
		ev_close(o);
	}
}

/* ---- the whole trace ----------------------------------------------- */

void gen_defaults(struct gen_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->layers = 4;
	cfg->passes = 2;
	cfg->draft_layers = 2;
	cfg->streams = 1;
	cfg->concurrency = 1;
	cfg->devices = 1;
	cfg->origin_us = 1428625731456ULL;
	cfg->seed = 1;
	cfg->slow_layer = -1;
}

static void build_ranks(unsigned devices)
{
	size_t len = 0;
	unsigned d;

	collective_ranks[len++] = '[';
	for (d = 0; d < devices; d++)
		len += (size_t)snprintf(collective_ranks + len, sizeof collective_ranks - len,
			d ? ", %u" : "%u", d);
	collective_ranks[len++] = ']';
	collective_ranks[len] = '\0';
}

static void put_header(struct out *o, const struct gen_config *cfg)
{
	if (cfg->array)
		put(o, "[");
	else
		emit_header(o, cfg->scale_devices || cfg->scale_pids ? 1 : cfg->devices, cfg->rank);
}

/* Bytes before the first event, for the target size's count; 0: out of
 * memory. */
static uint64_t header_size(const struct gen_config *cfg)
{
	struct out probe;

	memset(&probe, 0, sizeof probe);
	probe.buf = malloc(OUT_FLUSH_AT + EVENT_ROOM);
	if (probe.buf == NULL)
		return 0;
	out_layout(&probe, cfg);
	put_header(&probe, cfg);
	out_flush(&probe);
	free(probe.buf);
	return probe.flushed;
}

static int write_trace(struct gen *g, struct out *o)
{
	const struct gen_config *cfg = g->cfg;
	uint64_t iterations = cfg->passes, last_end;

	if (cfg->target_bytes > 0 && !cfg->scale_devices && !cfg->scale_pids) {
		uint64_t head = header_size(cfg);

		if (cfg->meter != NULL)
			progress_phase(cfg->meter, "counting", cfg->target_bytes);
		iterations = head ? count_iterations(g, head) : 0;
		if (iterations == 0)
			return ENOMEM;
	}
	if (cfg->meter != NULL)
		progress_phase(cfg->meter, "generating", cfg->target_bytes);
	o->meter = cfg->meter;
	put_header(o, cfg);
	if (cfg->scale_devices || cfg->scale_pids) {
		write_scale(o, cfg);
	} else {
		if (!o->disorder)
			write_cpu_events(g, o, iterations);
		last_end = write_gpu_events(g, o, iterations);
		if (o->err)
			return o->err;
		emit_metadata(o, g->devs, cfg->devices, cfg->origin_us * 1000);
		emit_window_end(o, last_end + 1000);
	}
	if (cfg->array) {
		out_room(o);
		put(o, "\n]\n");
	} else {
		emit_trailer(o);
	}
	out_flush(o);
	return o->err;
}

int gen_write(const struct gen_config *cfg, struct writer *w)
{
	struct gen g;
	struct out o;
	unsigned d;
	int err = 0;

	if (cfg->devices < 1 || cfg->devices > 64 || cfg->concurrency < 1 ||
	    cfg->concurrency > cfg->streams || cfg->experts > cfg->concurrency ||
	    (unsigned)cfg->layout > GEN_INDENT2) {
		errno = EINVAL;
		return -1;
	}
	init_kernel_names();
	rocm = cfg->rocm;
	first_stream_id = rocm ? FIRST_HIP_STREAM_ID : FIRST_STREAM_ID;
	if (rocm)
		init_rocm_names();
	build_ranks(cfg->devices);

	memset(&g, 0, sizeof g);
	memset(&o, 0, sizeof o);
	g.cfg = cfg;
	g.devs = calloc(cfg->devices, sizeof g.devs[0]);
	o.buf = malloc(OUT_FLUSH_AT + EVENT_ROOM);
	o.w = w;
	out_layout(&o, cfg);
	if (g.devs == NULL || o.buf == NULL)
		err = ENOMEM;
	for (d = 0; err == 0 && d < cfg->devices; d++)
		if (device_init(&g.devs[d], cfg, (uint16_t)d) != 0)
			err = ENOMEM;
	if (err == 0)
		err = write_trace(&g, &o);
	/* calloc'd: a device never initialised frees nothing */
	for (d = 0; g.devs != NULL && d < cfg->devices; d++)
		device_free(&g.devs[d]);
	free(g.devs);
	free(g.heap);
	free(o.buf);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

/* --shape: make bench's shapes, about 900 MiB each.  dense is that of the
 * multi-GB traces a user brought (an NCCL and an elementwise kernel beside
 * every attention kernel, one event per line); moe the same denser and in
 * another writer's style; kineto Kineto's own multi-line formatting.  A
 * shape sets those options where it appears: options after it override. */
int gen_shape(struct gen_config *g, const char *shape)
{
	if (strcmp(shape, "dense") != 0 && strcmp(shape, "moe") != 0 &&
	    strcmp(shape, "kineto") != 0)
		return -1;
	g->layers = 40;
	g->target_bytes = 900ULL << 20;
	if (strcmp(shape, "dense") == 0) {
		g->streams = 300;
		g->concurrency = 3;
		g->layout = GEN_COMPACT;
	} else if (strcmp(shape, "moe") == 0) {
		g->streams = 300;
		g->concurrency = 6;
		g->experts = 6;
		g->disorder = 1;
		g->args_first = 1;
		g->layout = GEN_INDENT2;
	} else {
		g->streams = 2;
		g->concurrency = 2;
		g->layout = GEN_LINES;
	}
	return 0;
}
