/*
 * tr-gen: write a deterministic, Kineto-shaped Chrome JSON trace of a
 * transformer's forward passes, for the demo, the tests and the benchmarks.
 *
 * Kineto writes every CPU event first and the GPU events after them, in the
 * order the GPU finished them.  To stream that without holding the trace in
 * memory, each device is a small simulation driven by its own PRNG, and the
 * whole timeline is simulated twice from the same seeds: the first run writes
 * the CPU side, the second the GPU side.  With --target-bytes a counting run
 * comes first and decides how many iterations are needed.  Memory is bounded
 * by about one layer per device.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "io.h"
#include "opt.h"
#include "progress.h"
#include "outfile.h"
#include "writer.h"

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

/* Limits of the options. */
static const uint64_t MAX_LAYERS = 100000;
static const uint64_t MAX_PASSES = 1000000;
static const uint64_t MAX_DRAFT_PASSES = 1000;
static const uint64_t MAX_STREAMS = 10000;
static const uint64_t MAX_CONCURRENCY = 64;
static const uint64_t MAX_DEVICES = 64;
static const uint64_t MAX_ORIGIN_US = 4000000000000000ULL;
static const uint64_t MAX_TARGET_BYTES = 1ULL << 40;
static const uint64_t MAX_SCALE = 10000000;
static const uint64_t MAX_RANK = 1000000;
static const uint64_t MAX_SLOWDOWN = 10000;

struct config {
	uint64_t layers, passes, draft_passes, draft_layers;
	unsigned streams, concurrency, devices;
	int streams_given;
	int ts_int;               /* integer microseconds instead of Kineto's %.3f */
	uint64_t origin_us;
	uint64_t target_bytes;    /* 0: --passes decides */
	int array, compact;
	int rocm;                 /* HIP: stream 0, hip* calls, ROCm kernel names */
	uint64_t scale_devices;   /* one pid, this many devices, one kernel each */
	uint64_t scale_pids;      /* this many pids, one kernel each */
	uint64_t seed;
	uint64_t rank;            /* --rank: mixed into every device's seed */
	int64_t slow_layer;       /* -1, or the target layer whose attention is slowed */
	uint64_t slowdown;        /* percent added to that attention kernel's duration */
	const char *output;       /* NULL: stdout */
	int progress_mode;        /* progress.h: auto, --progress, --quiet */
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
	KT_NCCL, KT_ADD, KT_COPY, KT_MEMCPY, KT_MEMSET,
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

/* Names that need concatenation are built once by init_kernel_names(). */
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
};

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
enum { LAYER_STEPS = 9, ATTN_STEP = 3 };

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
	const struct config *cfg;
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
	const struct config *cfg = dv->cfg;
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

static void device_init(struct device *dv, const struct config *cfg, uint16_t id)
{
	dv->cfg = cfg;
	dv->id = id;
	dv->slot_free = xmalloc(cfg->concurrency * sizeof dv->slot_free[0]);
	dv->slot_count = xmalloc(cfg->concurrency * sizeof dv->slot_count[0]);
	dv->stream_used = xmalloc(cfg->streams);
	dv->group = xmalloc(cfg->concurrency * sizeof dv->group[0]);
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
 * keeps that true when times are truncated to whole microseconds. */
static void launch_attention_group(struct device *dv, enum kt attention)
{
	unsigned c = dv->cfg->concurrency;
	unsigned first = (unsigned)(dv->next_slot % c);
	struct op *attn = &dv->group[0];
	uint64_t peak;
	unsigned k;

	dv->next_slot += c;
	cpu_launch(dv, attention, &attn->cpu);
	gpu_place(dv, first, &attn->cpu, dv->chain_free, 0, &attn->gpu[0]);
	peak = attn->gpu[0].ts;
	for (k = 1; k < c; k++) {
		struct op *side = &dv->group[k];

		cpu_launch(dv, side_kernel(k), &side->cpu);
		gpu_place(dv, (first + k) % c, &side->cpu, 0, attn->gpu[0].ts, &side->gpu[0]);
		peak = max_u64(peak, side->gpu[0].ts);
	}
	for (k = 0; k < c; k++) {
		gpu_finish(dv, (first + k) % c, &dv->group[k].gpu[0], peak + PEAK_MARGIN);
		dv->group[k].ngpu = 1;
	}
	dv->chain_free = attn->gpu[0].ts + attn->gpu[0].dur;
	dv->ngroup = c;
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
		launch_attention_group(dv, prog->layer[pos->step]);
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

struct out {
	char *buf;                 /* OUT_FLUSH_AT + EVENT_ROOM bytes */
	size_t len;
	struct writer *w;          /* NULL: only count */
	const char *name;
	uint64_t flushed;          /* bytes written (or counted) so far */
	uint64_t events;           /* events begun, for the separators */
	int compact, ts_int;
};

/* The -o file: written beside its destination and put in place only when
 * complete (common/outfile), so that a failure or a signal leaves nothing. */
static struct outfile output_file = { NULL, NULL, -1 };

static _Noreturn void output_failed(const struct out *o)
{
	if (errno == EPIPE) {
		/* The reader went away: end as quietly as a filter killed by SIGPIPE. */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	die_errno(EXIT_TROUBLE, "write %s", o->name);
}

/* The progress line: the bytes of --target-bytes counted, then written. */
static struct progress meter;

static void out_flush(struct out *o)
{
	if (o->w != NULL && o->len > 0 && writer_put(o->w, o->buf, o->len) != 0)
		output_failed(o);
	o->flushed += o->len;
	(void)progress_update(&meter, o->flushed);
	o->len = 0;
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
	if (n < 0 || n >= EVENT_ROOM)
		die(EXIT_TROUBLE, "internal error: header line too long");
	o->len += (size_t)n;
}

/* Layout.  Kineto's indented form breaks each event into a few lines; the
 * compact form writes one event per line. */
static void ev_open(struct out *o)
{
	out_room(o);
	put(o, o->events++ == 0 ? "\n" : ",\n");
	put(o, o->compact ? "{" : "  {\n    ");
}

static void ev_line(struct out *o)
{
	put(o, o->compact ? ", " : ",\n    ");
}

static void args_open(struct out *o)
{
	put(o, o->compact ? "\"args\": {" : "\"args\": {\n      ");
}

/* Kineto pads some separators inside args with six spaces. */
static void args_wide(struct out *o)
{
	put(o, o->compact ? ", " : ",      ");
}

static void args_close(struct out *o)
{
	put(o, o->compact ? "}" : "\n    }");
}

static void ev_close(struct out *o)
{
	put(o, o->compact ? "}" : "\n  }");
}

static void put_x_head(struct out *o, const char *cat, const char *name, int64_t pid,
	uint64_t tid, uint64_t ts, uint64_t dur)
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
	put(o, "\"ts\": ");
	put_us(o, ts);
	put(o, ", \"dur\": ");
	put_dur(o, ts, dur);
	ev_line(o);
	args_open(o);
}

static void emit_cpu_op(struct out *o, const struct cpu_launch *c, uint16_t device)
{
	put_x_head(o, "cpu_op", kernel_types[c->type].op_name, CPU_PID,
		(uint64_t)CPU_PID + device, c->op_ts, c->op_dur);
	put(o, "\"External id\": ");
	put_u64(o, c->external_id);
	put(o, o->compact ? ", " : ",");
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

	put_x_head(o, "cuda_runtime", name, CPU_PID, (uint64_t)CPU_PID + device,
		c->rt_ts, c->rt_dur);
	put(o, "\"External id\": ");
	put_u64(o, c->external_id);
	args_wide(o);
	put(o, "\"cbid\": ");
	put_u64(o, cbid);
	put(o, ", \"correlation\": ");
	put_u64(o, c->correlation);
	args_close(o);
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

	if (!c->sync)
		emit_cpu_op(o, c, device);
	emit_runtime(o, c, device);
	if (!c->sync)
		emit_flow(o, 's', c->correlation, CPU_PID, (uint64_t)CPU_PID + device, c->rt_ts);
}

static const char *collective_ranks;   /* "[0, 1, ...]", built once */

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

struct gen {
	const struct config *cfg;
	struct device *devs;
	struct gpu_event *heap;    /* activities simulated, not yet written */
	size_t nheap, heap_cap;
	uint64_t heap_seq;
};

static void devices_reset(struct gen *g, uint64_t iterations)
{
	unsigned d;

	for (d = 0; d < g->cfg->devices; d++)
		device_reset(&g->devs[d], iterations);
}

/* Count the bytes of whole iterations until the target is reached.  The
 * devices are independent, so counting one iteration of each in turn gives
 * the same bytes as the interleaved output. */
static uint64_t count_iterations(struct gen *g, uint64_t header_bytes)
{
	const struct config *cfg = g->cfg;
	struct out counter;
	uint64_t it = 0;
	unsigned d, i, j;

	memset(&counter, 0, sizeof counter);
	counter.buf = xmalloc(OUT_FLUSH_AT + EVENT_ROOM);
	counter.compact = cfg->compact;
	counter.ts_int = cfg->ts_int;
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
		if (best == NULL)
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

static void heap_push(struct gen *g, const struct gpu_event *ev)
{
	size_t i;

	if (g->nheap == g->heap_cap) {
		g->heap_cap = g->heap_cap ? 2 * g->heap_cap : 256;
		g->heap = xrealloc(g->heap, g->heap_cap * sizeof g->heap[0]);
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
			for (i = 0; i < laggard->ngroup; i++)
				for (j = 0; j < laggard->group[i].ngpu; j++)
					heap_push(g, &laggard->group[i].gpu[j]);
		horizon = UINT64_MAX;
		for (d = 0; d < ndev; d++)
			horizon = min_u64(horizon, device_horizon(&g->devs[d]));
		while (g->nheap > 0 && g->heap[0].ts + g->heap[0].dur <= horizon) {
			emit_gpu_side(o, &g->heap[0], ndev);
			heap_pop(g);
		}
		if (laggard == NULL)
			break;
	}
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
static void write_scale(struct out *o, const struct config *cfg)
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

/* ---- options ------------------------------------------------------- */

static const char usage_text[] =
	"usage: tr-gen [--array] [--compact] [--concurrency C] [--devices G]\n"
	"              [--draft-layers M] [--draft-passes D] [--layers N]\n"
	"              [-o file [--force]] [--origin-us U] [--passes P] [--seed N]\n"
	"              [--rocm] [--streams S] [--target-bytes B[K|M|G]]\n"
	"              [--ts-format kineto|int] [--rank K]\n"
	"              [--slow-layer L --slowdown PCT] [--shape dense]\n"
	"              [--progress | -q | --quiet]\n"
	"       tr-gen --scale-devices N | --scale-pids N [--rocm] [--compact]\n"
	"              [--array] [-o file] [--origin-us U] [--ts-format kineto|int]\n"
	"       tr-gen --help | --version\n"
	"Write the PyTorch profiler (Kineto) trace of a simulated transformer\n"
	"inference run; the same options and seed always give the same bytes.\n"
	"\n"
	"  --array            the JSON Array Format, not Kineto's object\n"
	"  --compact          one event per line, not indented\n"
	"  --concurrency C    GPU activities overlapping at most, 1-64 (default 1)\n"
	"  --devices G        GPUs, 1-64 (default 1)\n"
	"  --draft-layers M   layers of a draft pass (default 2)\n"
	"  --draft-passes D   draft passes before each target pass (default 0)\n"
	"  --layers N         layers of a target pass (default 4)\n"
	"  -o, --output FILE  write FILE (never replaced), not standard output\n"
	"  -f, --force        replace an existing FILE once it is written whole\n"
	"  --origin-us U      the first timestamp, in microseconds\n"
	"  --passes P         target passes (default 2)\n"
	"  --rank K           the trace of rank K of a distributed job\n"
	"  --rocm             what a ROCm (HIP) build of the same run shows\n"
	"  --seed N           the seed of the timing jitter (default 1)\n"
	"  --shape dense      make bench's shape: 40 layers, 300 streams, 3 overlapping\n"
	"                     activities, --compact, 900M (later options override)\n"
	"  --slow-layer L     with --slowdown PCT: layer L's attention lasts PCT\n"
	"                     percent longer in every target pass\n"
	"  --streams S        GPU streams per device (default 1, or C if larger)\n"
	"  --target-bytes B   add passes until B bytes are written (K, M, G)\n"
	"  --ts-format F      kineto (microseconds, 3 decimals; default) or int\n"
	"  --scale-devices N  a scaling case: one pid with N devices, one kernel each\n"
	"  --scale-pids N     a scaling case: N pids, one kernel each\n"
	"  --progress         the progress line on standard error (the counting run of\n"
	"                     --target-bytes, then the writing) even when that is\n"
	"                     not a terminal\n"
	"  -q, --quiet        no progress line, even on a terminal\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 2 usage or system trouble.\n";

enum {
	OPT_ARRAY = 256, OPT_COMPACT, OPT_CONCURRENCY, OPT_DEVICES, OPT_DRAFT_LAYERS,
	OPT_DRAFT_PASSES, OPT_HELP, OPT_LAYERS, OPT_ORIGIN, OPT_PASSES, OPT_SEED,
	OPT_STREAMS, OPT_TARGET, OPT_TS_FORMAT, OPT_VERSION, OPT_ROCM, OPT_SCALE_DEVICES,
	OPT_SCALE_PIDS, OPT_RANK, OPT_SLOW_LAYER, OPT_SLOWDOWN, OPT_SHAPE,
	OPT_PROGRESS
};

static const struct option long_options[] = {
	{ "array", no_argument, NULL, OPT_ARRAY },
	{ "compact", no_argument, NULL, OPT_COMPACT },
	{ "concurrency", required_argument, NULL, OPT_CONCURRENCY },
	{ "devices", required_argument, NULL, OPT_DEVICES },
	{ "draft-layers", required_argument, NULL, OPT_DRAFT_LAYERS },
	{ "draft-passes", required_argument, NULL, OPT_DRAFT_PASSES },
	{ "force", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "layers", required_argument, NULL, OPT_LAYERS },
	{ "origin-us", required_argument, NULL, OPT_ORIGIN },
	{ "output", required_argument, NULL, 'o' },
	{ "passes", required_argument, NULL, OPT_PASSES },
	{ "rank", required_argument, NULL, OPT_RANK },
	{ "rocm", no_argument, NULL, OPT_ROCM },
	{ "scale-devices", required_argument, NULL, OPT_SCALE_DEVICES },
	{ "scale-pids", required_argument, NULL, OPT_SCALE_PIDS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "shape", required_argument, NULL, OPT_SHAPE },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "slow-layer", required_argument, NULL, OPT_SLOW_LAYER },
	{ "slowdown", required_argument, NULL, OPT_SLOWDOWN },
	{ "streams", required_argument, NULL, OPT_STREAMS },
	{ "target-bytes", required_argument, NULL, OPT_TARGET },
	{ "ts-format", required_argument, NULL, OPT_TS_FORMAT },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

/* --shape dense: the shape of the multi-GB traces of issue 15, for make
 * bench: 40 layers, 300 streams, three overlapping activities (so an NCCL
 * and an elementwise kernel beside every attention kernel), one event per
 * line, about 900 MiB.  It sets those options where it appears: options
 * after it override them. */
static void apply_shape(struct config *cfg)
{
	cfg->layers = 40;
	cfg->streams = 300;
	cfg->streams_given = 1;
	cfg->concurrency = 3;
	cfg->compact = 1;
	cfg->target_bytes = 900ULL << 20;
}

/* A count in [min, max]: decimal digits; with suffixes, a byte count as
 * every program reads one (K, M or G, powers of 1024). */
static uint64_t parse_number(const struct opt_program *prog, const char *opt,
	const char *arg, uint64_t min, uint64_t max, int suffixes)
{
	uint64_t v;
	int rc = suffixes ? opt_size(prog, stderr, opt, arg, min, max, &v)
			  : opt_u64(prog, stderr, opt, arg, min, max, &v);

	if (rc != 0)
		exit(EXIT_TROUBLE);
	return v;
}

static void parse_options(int argc, char **argv, struct config *cfg)
{
	struct opt_program prog = { NULL, ":o:fhq", long_options, usage_text };
	int ch;

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
	prog.name = diag_progname();
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case OPT_ARRAY: cfg->array = 1; break;
		case OPT_COMPACT: cfg->compact = 1; break;
		case OPT_CONCURRENCY:
			cfg->concurrency = (unsigned)parse_number(&prog, "--concurrency", optarg, 1,
				MAX_CONCURRENCY, 0);
			break;
		case OPT_DEVICES:
			cfg->devices = (unsigned)parse_number(&prog, "--devices", optarg, 1, MAX_DEVICES, 0);
			break;
		case OPT_DRAFT_LAYERS:
			cfg->draft_layers = parse_number(&prog, "--draft-layers", optarg, 1, MAX_LAYERS, 0);
			break;
		case OPT_DRAFT_PASSES:
			cfg->draft_passes = parse_number(&prog, "--draft-passes", optarg, 0,
				MAX_DRAFT_PASSES, 0);
			break;
		case 'h':
		case OPT_HELP:
			exit(opt_help(&prog, stdout, stderr));
		case OPT_LAYERS:
			cfg->layers = parse_number(&prog, "--layers", optarg, 1, MAX_LAYERS, 0);
			break;
		case OPT_ORIGIN:
			cfg->origin_us = parse_number(&prog, "--origin-us", optarg, 0, MAX_ORIGIN_US, 0);
			break;
		case 'o': cfg->output = optarg; break;
		case OPT_PASSES:
			cfg->passes = parse_number(&prog, "--passes", optarg, 1, MAX_PASSES, 0);
			break;
		case OPT_ROCM: cfg->rocm = 1; break;
		case 'f': outfile_set_replace(1); break;
		case OPT_RANK:
			cfg->rank = parse_number(&prog, "--rank", optarg, 0, MAX_RANK, 0);
			break;
		case OPT_SLOW_LAYER:
			cfg->slow_layer = (int64_t)parse_number(&prog, "--slow-layer", optarg, 0,
				MAX_LAYERS - 1, 0);
			break;
		case OPT_SLOWDOWN:
			cfg->slowdown = parse_number(&prog, "--slowdown", optarg, 1, MAX_SLOWDOWN, 0);
			break;
		case OPT_SCALE_DEVICES:
			cfg->scale_devices = parse_number(&prog, "--scale-devices", optarg, 1, MAX_SCALE, 0);
			break;
		case OPT_SCALE_PIDS:
			cfg->scale_pids = parse_number(&prog, "--scale-pids", optarg, 1, MAX_SCALE, 0);
			break;
		case OPT_SHAPE:
			if (strcmp(optarg, "dense") != 0)
				exit(opt_bad_value(&prog, stderr, "--shape", optarg, "allowed dense"));
			apply_shape(cfg);
			break;
		case OPT_SEED:
			cfg->seed = parse_number(&prog, "--seed", optarg, 0, UINT64_MAX, 0);
			break;
		case OPT_STREAMS:
			cfg->streams = (unsigned)parse_number(&prog, "--streams", optarg, 1, MAX_STREAMS, 0);
			cfg->streams_given = 1;
			break;
		case OPT_TARGET:
			cfg->target_bytes = parse_number(&prog, "--target-bytes", optarg, 1,
				MAX_TARGET_BYTES, 1);
			break;
		case OPT_TS_FORMAT:
			if (strcmp(optarg, "kineto") == 0)
				cfg->ts_int = 0;
			else if (strcmp(optarg, "int") == 0)
				cfg->ts_int = 1;
			else
				exit(opt_bad_value(&prog, stderr, "--ts-format", optarg,
						   "allowed kineto, int"));
			break;
		case OPT_PROGRESS: cfg->progress_mode = PROGRESS_FORCE; break;
		case 'q': cfg->progress_mode = PROGRESS_QUIET; break;
		case OPT_VERSION:
			print_version_and_exit();
		default:
			exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if ((cfg->slow_layer >= 0) != (cfg->slowdown > 0))
		die(EXIT_TROUBLE, "--slow-layer and --slowdown go together");
	if (cfg->scale_devices && cfg->scale_pids)
		die(EXIT_TROUBLE, "--scale-devices and --scale-pids exclude each other");
	/* Activities of one stream never overlap, so C concurrent ones need at
	 * least C streams. */
	if (!cfg->streams_given && cfg->streams < cfg->concurrency)
		cfg->streams = cfg->concurrency;
	if (cfg->concurrency > cfg->streams)
		die(EXIT_TROUBLE, "--concurrency %u exceeds --streams %u", cfg->concurrency,
			cfg->streams);
}

/* ---- main ---------------------------------------------------------- */

/* The writer of standard output or of the -o file (common/io, as every
 * program writes). */
static void open_output(const struct config *cfg, struct writer *w)
{
	int fd = STDOUT_FILENO;

	if (cfg->output != NULL && strcmp(cfg->output, "-") != 0) {
		/* Never overwrite (a generated trace is often a big file),
		 * unless --force: then one rename once it is whole. */
		diag_on_exit(outfile_abort_all);
		outfile_catch_signals();
		if (outfile_open(&output_file, cfg->output) != 0)
			die_errno(EXIT_TROUBLE, "%s", cfg->output);
		fd = output_file.fd;
	}
	if (writer_init(w, fd) != 0)
		die_nomem();
}

static void close_output(struct out *o)
{
	out_flush(o);
	if (writer_flush(o->w) != 0)
		output_failed(o);
	if (output_file.path != NULL) {
		/* outfile_commit closes the descriptor */
		if (outfile_commit(&output_file) != 0)
			die_errno(EXIT_TROUBLE, "%s", o->name);
	} else if (close(o->w->fd) != 0) {
		output_failed(o);
	}
	writer_free(o->w);
}

static char *build_ranks(unsigned devices)
{
	char *s = xmalloc((size_t)devices * 8 + 4);
	size_t len = 0;
	unsigned d;

	s[len++] = '[';
	for (d = 0; d < devices; d++)
		len += (size_t)sprintf(s + len, d ? ", %u" : "%u", d);
	s[len++] = ']';
	s[len] = '\0';
	return s;
}

/* Bytes before the first event, for the --target-bytes count. */
static uint64_t header_size(const struct config *cfg)
{
	struct out probe;
	uint64_t n;

	memset(&probe, 0, sizeof probe);
	probe.buf = xmalloc(OUT_FLUSH_AT + EVENT_ROOM);
	probe.compact = cfg->compact;
	if (cfg->array)
		put(&probe, "[");
	else
		emit_header(&probe, cfg->devices, cfg->rank);
	out_flush(&probe);
	n = probe.flushed;
	free(probe.buf);
	return n;
}

int main(int argc, char **argv)
{
	struct config cfg;
	struct gen g;
	struct out o;
	struct writer w;
	uint64_t iterations, last_end;
	char *ranks;
	unsigned d;

	diag_init(argv[0]);
	signal(SIGPIPE, SIG_DFL);
	parse_options(argc, argv, &cfg);
	progress_start(&meter, cfg.progress_mode, STDERR_FILENO, "counting");
	init_kernel_names();
	if (cfg.rocm) {
		rocm = 1;
		first_stream_id = FIRST_HIP_STREAM_ID;
		init_rocm_names();
	}
	ranks = build_ranks(cfg.devices);
	collective_ranks = ranks;

	memset(&g, 0, sizeof g);
	g.cfg = &cfg;
	g.devs = xmalloc(cfg.devices * sizeof g.devs[0]);
	for (d = 0; d < cfg.devices; d++)
		device_init(&g.devs[d], &cfg, (uint16_t)d);

	/* The output first: an existing one is refused before a counting run
	 * over the whole --target-bytes. */
	memset(&o, 0, sizeof o);
	open_output(&cfg, &w);
	o.w = &w;
	iterations = cfg.passes;
	if (cfg.target_bytes > 0 && !cfg.scale_devices && !cfg.scale_pids) {
		progress_phase(&meter, "counting", cfg.target_bytes);
		iterations = count_iterations(&g, header_size(&cfg));
	}
	progress_phase(&meter, "generating", cfg.target_bytes);

	o.name = w.fd != STDOUT_FILENO ? cfg.output : "standard output";
	o.buf = xmalloc(OUT_FLUSH_AT + EVENT_ROOM);
	o.compact = cfg.compact;
	o.ts_int = cfg.ts_int;

	if (cfg.array)
		put(&o, "[");
	else
		emit_header(&o, cfg.scale_devices || cfg.scale_pids ? 1 : cfg.devices, cfg.rank);
	if (cfg.scale_devices || cfg.scale_pids) {
		write_scale(&o, &cfg);
	} else {
		write_cpu_events(&g, &o, iterations);
		last_end = write_gpu_events(&g, &o, iterations);
		emit_metadata(&o, g.devs, cfg.devices, cfg.origin_us * 1000);
		emit_window_end(&o, last_end + 1000);
	}
	if (cfg.array) {
		out_room(&o);
		put(&o, "\n]\n");
	} else {
		emit_trailer(&o);
	}
	(void)progress_end(&meter);
	close_output(&o);

	for (d = 0; d < cfg.devices; d++)
		device_free(&g.devs[d]);
	free(g.devs);
	free(g.heap);
	free(o.buf);
	free(ranks);
	return EXIT_OK;
}
