/* htc.h - runtime core pasted into every header htc generates.
   Types, exact requantization arithmetic, kernel parameter blocks, hooks. */
#ifndef HTC__RUNTIME_H
#define HTC__RUNTIME_H

/* Everything here is static: several generated headers may be compiled into
   one program, each pasting this block once under the guard above.
   No malloc, no stdio, no globals. C99 and C++ clean. */

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
#define HTC__CAST(T, x) (static_cast<T>(x))
#define HTC__ADDR(p) (reinterpret_cast<uintptr_t>(p))    /* a pointer's address, for alignment tests */
#else
#define HTC__CAST(T, x) ((T)(x))
#define HTC__ADDR(p) ((uintptr_t)(p))
#endif

/* A field of a parameter block as the generator writes it: a designated
   initializer in C and C++20 (the fields in declaration order), positional
   before C++20. */
#if !defined(__cplusplus) || __cplusplus >= 202002L
#define HTC__F(field) .field =
#else
#define HTC__F(field)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define HTC__NOINLINE __attribute__((noinline))
#define HTC__INLINE inline __attribute__((always_inline))
#define HTC__UNUSED __attribute__((unused))
#define HTC__ALIGN(n) __attribute__((aligned(n)))
#else
#define HTC__NOINLINE
#define HTC__INLINE inline
#define HTC__UNUSED
#define HTC__ALIGN(n)
#endif

/* Hooks the firmware may override before including a generated header.
   HTC_TRACE is called after every layer with the source-model tensor index
   of the layer's output, its bytes and size (tests dump tensors with it);
   HTC_PROFILE_BEGIN/END bracket every layer (cycle counters go there). */
#ifndef HTC_TRACE
#define HTC_TRACE(model, layer, tensor_index, data, bytes) ((void)0)
#endif
#ifndef HTC_PROFILE_BEGIN
#define HTC_PROFILE_BEGIN(model, layer, name) ((void)0)
#endif
#ifndef HTC_PROFILE_END
#define HTC_PROFILE_END(model, layer, name) ((void)0)
#endif
/* Buffer checking (htc run --check poisons the arena with ASan): before a
   layer, HTC_CHECK_BEGIN; then HTC_CHECK_BUFFER for each arena range the
   layer may touch; HTC_CHECK_END once the model has run. */
#ifndef HTC_CHECK_BEGIN
#define HTC_CHECK_BEGIN(model, layer, arena, bytes) ((void)0)
#endif
#ifndef HTC_CHECK_BUFFER
#define HTC_CHECK_BUFFER(model, layer, data, bytes) ((void)0)
#endif
#ifndef HTC_CHECK_END
#define HTC_CHECK_END(model, arena, bytes) ((void)0)
#endif
/* Several data memories (a target whose cpu lists memory = { "SRAM", "PSRAM" }):
   HTC_MEM_ACCESS(model, layer, data, bytes) for each arena buffer a layer
   reads or writes, with the bytes the access model counts (the buffer's
   tensor, once per input or output); htc run adds them up per memory by
   the address. */
#ifndef HTC_MEM_ACCESS
#define HTC_MEM_ACCESS(model, layer, data, bytes) ((void)0)
#endif
/* Where an accelerator's weights (each offloaded layer's NAME__wI array, in
   the engine's layout) are placed: e.g. __attribute__((section(".wmem")))
   puts them in the engine's own weight memory, where its driver uses them
   in place (examples/siracusa, -DSIR_NEUREKA). */
#ifndef HTC_ENGINE_WEIGHTS
#define HTC_ENGINE_WEIGHTS
#endif

/* ---- Multi-core clusters (a target whose cpu has cores = N > 1) ---------
   A layer that runs on the cluster is a function fn(ctx, core, ncores) in
   the generated code; the run function forks it with
       HTC_PAR_RUN(fn, ctx, ncores)
   which must call fn(ctx, c, ncores) once for every core c = 0..ncores-1
   (each computes its share of the layer's output from c and ncores) and
   return when all calls have returned (the join is the barrier between
   layers). The caller's core may run one of the calls itself. Default:
   the calls one after the other on the calling core, so a header built for
   8 cores runs unchanged on one. The output bytes are the same for every
   ncores. NAME_CORES (generated, overridable) is the ncores passed. */
typedef void (*htc_par_fn)(void *ctx, int core, int ncores);
#ifndef HTC_PAR_RUN
#define HTC_PAR_RUN(fn, ctx, ncores) htc__par_serial((fn), (ctx), (ncores))
#endif
static inline void htc__par_serial(htc_par_fn fn, void *ctx, int ncores)
{
    int c;
    for (c = 0; c < ncores; c++) fn(ctx, c, ncores);
}

/* The cluster's local memory (a target whose cpu has l1 = "L1"): layers
   tiled into it move their bands with
       h = HTC_DMA_START(dst, src, bytes)   start a copy, returns a handle
       HTC_DMA_WAIT(h)                      the copy h has landed
   (L2 -> L1 before a tile, L1 -> L2 after it, the next tile's input moving
   while the cores compute the current one). Default: memcpy, handle 0. The
   tiles are used when the firmware defines NAME_L1 before the
   implementation: the address of NAME_L1_SIZE bytes of L1 (e.g. the
   cluster's TCDM); without it every layer computes from the arena. */
#ifndef HTC_DMA_START
#define HTC_DMA_START(dst, src, bytes) (memcpy((dst), (src), (bytes)), 0)
#endif
#ifndef HTC_DMA_WAIT
#define HTC_DMA_WAIT(handle) ((void)(handle))
#endif

/* How a layer's output is divided over the cores (the target's `split`):
   ROWS: output rows (convolution and pooling: rows of each image; fully
   connected and matmul: input rows / batches; element-wise and row-wise
   ops: the outer elements); CHANNELS: output channels. */
enum { HTC_SPLIT_ROWS = 0, HTC_SPLIT_CHANNELS = 1 };

/* Core `core` of ncores takes items [*lo, *hi) of n: contiguous, sizes
   differing by at most one. */
static inline void htc__share(int32_t n, int core, int ncores, int32_t *lo, int32_t *hi)
{
    /* 32-bit products while they fit (a 64-bit division is a libgcc call
       on 32-bit cores: GVSoC's Siracusa, hundreds of cycles a layer) */
    if (n >= 0 && ncores > 0 && core >= 0 && core < ncores && n <= 0x7fffffff / ncores) {
        *lo = n * core / ncores;
        *hi = n * (core + 1) / ncores;
        return;
    }
    *lo = HTC__CAST(int32_t, HTC__CAST(int64_t, n) * core / ncores);
    *hi = HTC__CAST(int32_t, HTC__CAST(int64_t, n) * (core + 1) / ncores);
}

/* A convolution or pooling window restricted to output rows [y0, y1): the
   first input row it reads (*iy0, inside the input), how many rows from
   there (*in_h) and the top padding left (*pad_top), so the same kernel on
   (in + iy0 rows, *in_h, *pad_top, y1 - y0 output rows) computes exactly
   rows y0..y1-1 of the layer. */
static inline void htc__rows_view(int32_t in_h, int32_t k_h, int32_t stride, int32_t dil, int32_t pad_top, int32_t y0,
                                  int32_t y1, int32_t *iy0, int32_t *v_in_h, int32_t *v_pad)
{
    const int32_t first = y0 * stride - pad_top;                   /* input row of output row y0's first tap */
    int32_t last = (y1 - 1) * stride - pad_top + (k_h - 1) * dil;  /* of output row y1 - 1's last tap */
    const int32_t start = first > 0 ? first : 0;
    if (last > in_h - 1) last = in_h - 1;
    *iy0 = start;
    *v_in_h = last >= start ? last - start + 1 : 0;
    *v_pad = start - first;
}

/* SIMD: x86-64 always has SSE2, so the host build of a generated header
   (cc -O2, no -march) takes the SSE2 paths; every other target (Cortex-M,
   RISC-V, or any compiler without SSE2) takes the scalar paths. Both compute
   the same integer sums, so results are identical. -DHTC_NO_SIMD forces the
   scalar code. Arm cores with the DSP extension take the DSP paths (below). */
#if defined(__SSE2__) && !defined(HTC_NO_SIMD) && !defined(HTC_DSP_EMU)
#include <emmintrin.h>
#define HTC__SSE2 1
/* x86 with GCC or Clang: the hottest loops also have an AVX2 version,
   compiled for AVX2 by a function attribute and chosen at run time when the
   CPU has it (the rest of the header stays baseline x86-64). -DHTC_NO_AVX2
   leaves it out. */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && !defined(HTC_NO_AVX2)
#include <immintrin.h>
#define HTC__AVX2 1
#define HTC__AVX2_FN __attribute__((target("avx2")))
static inline int htc__have_avx2(void)
{
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}
/* AVX2 with fused multiply-add (the float kernels of --float-fallback) */
#define HTC__FMA_FN __attribute__((target("avx2,fma")))
static inline int htc__have_fma(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
}
#endif
#endif

/* Arm DSP extension (Cortex-M4, M7, M33, M35P, M55 ...: the compiler
   defines __ARM_FEATURE_DSP): two 16-bit multiply-accumulates per SMLAD,
   int8 pairs sign-extended by SXTB16, the TFLite rounding multiply in one
   SMMLAR. The kernels' HTC__DSP paths use only the helpers below: ACLE
   intrinsics, and one-instruction asm where ACLE has no intrinsic (SXTB16
   with its rotation, SMMLAR). -DHTC_DSP_EMU builds the same paths on any
   host with a portable emulation of each instruction (for tests). */
#if defined(__ARM_FEATURE_DSP) && (defined(__GNUC__) || defined(__clang__)) && !defined(HTC_NO_SIMD) && !defined(HTC_DSP_EMU)
#include <arm_acle.h>
#define HTC__DSP 1
/* lo*lo + hi*hi + c on the signed 16-bit halves */
static inline int32_t htc__smlad(int32_t a, int32_t b, int32_t c) { return __smlad(a, b, c); }
/* c + lo(a) * lo(b), c + hi(a) * hi(b) */
static inline int32_t htc__smlabb(int32_t a, int32_t b, int32_t c) { return __smlabb(a, b, c); }
static inline int32_t htc__smlatt(int32_t a, int32_t b, int32_t c) { return __smlatt(a, b, c); }
/* c + lo(a) * hi(b), c + hi(a) * lo(b) */
static inline int32_t htc__smlabt(int32_t a, int32_t b, int32_t c) { return __smlabt(a, b, c); }
static inline int32_t htc__smlatb(int32_t a, int32_t b, int32_t c) { return __smlatb(a, b, c); }
/* bytes 0 and 2 of x sign-extended to the two halves */
static inline int32_t htc__sxtb16(int32_t x) { return __sxtb16(x); }
/* bytes 1 and 3 */
static inline int32_t htc__sxtb16_r8(int32_t x)
{
    int32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
}
/* a + bytes 0 and 2 of x, per half */
static inline int32_t htc__sxtab16(int32_t a, int32_t x) { return __sxtab16(a, x); }
/* a + bytes 1 and 3 of x, per half */
static inline int32_t htc__sxtab16_r8(int32_t a, int32_t x)
{
    int32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(x));
    return r;
}
/* (c * 2^32 + a * b + 2^31) >> 32 */
static inline int32_t htc__smmlar(int32_t a, int32_t b, int32_t c)
{
    int32_t r;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
/* a + b saturated to int32 */
static inline int32_t htc__qadd(int32_t a, int32_t b) { return __qadd(a, b); }
/* the low halves of lo and hi as one word (gcc 12 makes two instructions
   of the C expression) */
static inline int32_t htc__pack16(int32_t lo, int32_t hi)
{
    int32_t r;
    __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(lo), "r"(hi));
    return r;
}
/* x saturated to int8 */
static inline int32_t htc__ssat8(int32_t x) { return __ssat(x, 8); }
#elif defined(HTC_DSP_EMU)
#define HTC__DSP 1
static inline int32_t htc__lo16(int32_t x) { return HTC__CAST(int16_t, HTC__CAST(uint32_t, x) & 0xffffu); }
static inline int32_t htc__hi16(int32_t x) { return HTC__CAST(int16_t, HTC__CAST(uint32_t, x) >> 16); }
static inline int32_t htc__pack16(int32_t lo, int32_t hi)
{
    return HTC__CAST(int32_t, (HTC__CAST(uint32_t, lo) & 0xffffu) | (HTC__CAST(uint32_t, hi) << 16));
}
static inline int32_t htc__smlad(int32_t a, int32_t b, int32_t c)
{
    return HTC__CAST(int32_t, HTC__CAST(uint32_t, c) + HTC__CAST(uint32_t, htc__lo16(a) * htc__lo16(b) + htc__hi16(a) * htc__hi16(b)));
}
static inline int32_t htc__smlabb(int32_t a, int32_t b, int32_t c)
{
    return HTC__CAST(int32_t, HTC__CAST(uint32_t, c) + HTC__CAST(uint32_t, htc__lo16(a) * htc__lo16(b)));
}
static inline int32_t htc__smlatt(int32_t a, int32_t b, int32_t c)
{
    return HTC__CAST(int32_t, HTC__CAST(uint32_t, c) + HTC__CAST(uint32_t, htc__hi16(a) * htc__hi16(b)));
}
static inline int32_t htc__smlabt(int32_t a, int32_t b, int32_t c)
{
    return HTC__CAST(int32_t, HTC__CAST(uint32_t, c) + HTC__CAST(uint32_t, htc__lo16(a) * htc__hi16(b)));
}
static inline int32_t htc__smlatb(int32_t a, int32_t b, int32_t c)
{
    return HTC__CAST(int32_t, HTC__CAST(uint32_t, c) + HTC__CAST(uint32_t, htc__hi16(a) * htc__lo16(b)));
}
static inline int32_t htc__sxtb16(int32_t x)
{
    const uint32_t u = HTC__CAST(uint32_t, x);
    return htc__pack16(HTC__CAST(int8_t, u & 0xffu), HTC__CAST(int8_t, (u >> 16) & 0xffu));
}
static inline int32_t htc__sxtb16_r8(int32_t x) { return htc__sxtb16(HTC__CAST(int32_t, HTC__CAST(uint32_t, x) >> 8)); }
static inline int32_t htc__sxtab16(int32_t a, int32_t x)
{
    const int32_t e = htc__sxtb16(x);
    return htc__pack16(htc__lo16(a) + htc__lo16(e), htc__hi16(a) + htc__hi16(e));
}
static inline int32_t htc__sxtab16_r8(int32_t a, int32_t x) { return htc__sxtab16(a, HTC__CAST(int32_t, HTC__CAST(uint32_t, x) >> 8)); }
static inline int32_t htc__smmlar(int32_t a, int32_t b, int32_t c)
{
    const int64_t v = HTC__CAST(int64_t, HTC__CAST(uint64_t, HTC__CAST(int64_t, c)) << 32) + HTC__CAST(int64_t, a) * b +
                      (HTC__CAST(int64_t, 1) << 31);
    return HTC__CAST(int32_t, v >> 32);
}
static inline int32_t htc__qadd(int32_t a, int32_t b)
{
    const int64_t v = HTC__CAST(int64_t, a) + b;
    return v > INT32_MAX ? INT32_MAX : (v < INT32_MIN ? INT32_MIN : HTC__CAST(int32_t, v));
}
static inline int32_t htc__ssat8(int32_t x) { return x > 127 ? 127 : (x < -128 ? -128 : x); }
#endif

/* GCC's scheduling before register allocation lengthens the live ranges of
   the register-blocked inner loops past the registers a 32-bit MCU has (14
   on Cortex-M), and the spills cost more than the scheduling gains; the
   inner-loop functions of the DSP and portable paths turn it off. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__SSE2__)
#define HTC__NOSCHED __attribute__((optimize("no-schedule-insns")))
#else
#define HTC__NOSCHED
#endif
#define HTC__DSP_NOSCHED HTC__NOSCHED
/* Control code around the inner loops (layer set-up, borders, rare cases)
   is compiled for size: flash matters as much as speed on an MCU. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__SSE2__)
#define HTC__COLD __attribute__((optimize("Os")))
#else
#define HTC__COLD
#endif

#ifdef HTC__DSP
/* 32-bit load/store of any alignment (one LDR/STR on Cortex-M) */
static inline int32_t htc__ld32(const void *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline void htc__st32w(void *p, int32_t v) { memcpy(p, &v, 4); }
/* off in both halves */
static inline int32_t htc__dup16(int32_t off)
{
    return HTC__CAST(int32_t, (HTC__CAST(uint32_t, off) & 0xffffu) | (HTC__CAST(uint32_t, off) << 16));
}

/* Requantization on the DSP path, the value of htc__rq_apply before the
   output offset, for a multiplier m in [2^30, 2^31) and a right shift e in
   [1, 23], or up to 31 when |acc| < 2^30 is certain (htc__dsp_rq_ok; other
   layers use htc__rq_apply):
   - SaturatingRoundingDoublingHighMul (x*m + 2^30) >> 31 is
     (2^32 x + x*(2m - 2^32) + 2^31) >> 32, one SMMLAR with m2 = 2m read as
     int32 (x == m == INT32_MIN cannot occur);
   - RoundingDivideByPOT(h, e) is (h + 2^(e-1) - (h < 0)) >> e; the add
     saturates, which only happens when the exact result is 2^(31-e) >= 256
     and makes it 2^(31-e) - 1 >= 255: both clamp to the same int8; with
     |acc| < 2^30 it cannot saturate at all. */
typedef struct {
    int32_t m2, c, e;
} htc__dsprq;

static inline htc__dsprq htc__dsprq_make(int32_t m, int shift)
{
    htc__dsprq q;
    q.m2 = HTC__CAST(int32_t, HTC__CAST(uint32_t, m) << 1);
    q.e = -shift;
    q.c = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << q.e) >> 1);
    return q;
}

static inline int32_t htc__dsprq_apply(htc__dsprq q, int32_t acc)
{
    const int32_t h = htc__smmlar(acc, q.m2, acc);
    return (htc__qadd(h, q.c) + (h >> 31)) >> q.e;
}

/* The DSP paths' loops written in GNU inline asm (Thumb-2: Cortex-M4, M7,
   M33, M55 ...), where gcc 12 spills the registers they need; with named
   registers (LDM's register order), so not at -O0, which keeps r7 as the
   frame pointer. Each has the C version (HTC_DSP_EMU, other compilers). */
#if defined(__thumb2__) && defined(__OPTIMIZE__) && !defined(HTC_DSP_EMU) && (defined(__GNUC__) || defined(__clang__))
#define HTC__DSP_ASM 1
#endif

/* clamp to [lo, hi] (int8 range or narrower) */
static inline int32_t htc__dsp_clamp(int32_t v, int32_t lo, int32_t hi)
{
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}
#endif

/* Arm M-profile Vector Extension (Helium: Cortex-M55, M85; the compiler
   defines __ARM_FEATURE_MVE, bit 0 = the integer instructions). The
   kernels' HTC__MVE paths (each beside the DSP path of the same kernel,
   which the M55 also has and keeps for what MVE does not cover) use ACLE
   intrinsics from arm_mve.h and the helpers below. A 128-bit vector holds 16
   int8 or 4 int32 lanes; VMLADAVA adds the 16 products of two int8 vectors
   to a scalar, the workhorse of the convolutions and FC. */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(HTC_NO_SIMD) && !defined(HTC_DSP_EMU)
#include <arm_mve.h>
#define HTC__MVE 1

/* TFLite's MultiplyByQuantizedMultiplier on four lanes, bit-exact with
   htc__requant before the output offset for every multiplier and shift
   (gemmlowp's double rounding): the left part of the shift as VSHL (TFLite
   multiplies by 2^left, wrapping the same way), SaturatingRoundingDoubling-
   HighMul is VQRDMULH exactly (INT32_MIN * INT32_MIN saturates),
   RoundingDivideByPOT(h, e) rounds half away from zero: VRSHL by -e rounds
   half up, so negative h first lose 1 (VQADD: INT32_MIN stays, and rounds
   to the same -2^(31-e)); the fix-up is h & -e (sign bit set iff h < 0 and
   e > 0) shifted down to 0 or -1. l: left shifts (>= 0), r: -e (<= 0). */
static inline int32x4_t htc__mve_rq(int32x4_t acc, int32x4_t m, int32x4_t l, int32x4_t r)
{
    const int32x4_t h = vqrdmulhq_s32(vshlq_s32(acc, l), m);
    return vrshlq_s32(vqaddq_s32(h, vshrq_n_s32(vandq_s32(h, r), 31)), r);
}

/* the same with one multiplier and shift for the four lanes */
static inline int32x4_t htc__mve_rq1(int32x4_t acc, int32_t m, int shift)
{
    const int32_t l = shift > 0 ? shift : 0, r = shift > 0 ? 0 : shift;
    const int32x4_t h = vqrdmulhq_n_s32(vshlq_r_s32(acc, l), m);
    return vrshlq_s32(vqaddq_s32(h, vshrq_n_s32(vandq_s32(h, vdupq_n_s32(r)), 31)), vdupq_n_s32(r));
}

/* htc__mve_rq1 for shift <= 0 (no left part) */
static inline int32x4_t htc__mve_rq1r(int32x4_t acc, int32_t m, int shift)
{
    const int32x4_t h = vqrdmulhq_n_s32(acc, m), r = vdupq_n_s32(shift);
    return vrshlq_s32(vqaddq_s32(h, vshrq_n_s32(vandq_s32(h, r), 31)), r);
}

/* + zp, clamped to [lo, hi] */
static inline int32x4_t htc__mve_out(int32x4_t v, int32_t zp, int32_t lo, int32_t hi)
{
    return vminq_s32(vmaxq_s32(vaddq_n_s32(v, zp), vdupq_n_s32(lo)), vdupq_n_s32(hi));
}

/* n bytes (any n >= 0) from s to d, 16 per step, the last one predicated */
static inline void htc__mve_copy(int8_t *d, const int8_t *s, int32_t n)
{
    for (; n > 0; n -= 16, d += 16, s += 16) {
        const mve_pred16_t pr = vctp8q(HTC__CAST(uint32_t, n));
        vstrbq_p_s8(d, vldrbq_z_s8(s, pr), pr);
    }
}

/* n bytes of v at d */
static inline void htc__mve_fill(int8_t *d, int8_t v, int32_t n)
{
    const int8x16_t x = vdupq_n_s8(v);
    for (; n > 0; n -= 16, d += 16) vstrbq_p_s8(d, x, vctp8q(HTC__CAST(uint32_t, n)));
}

/* sum of n int8 (any n >= 0) */
static inline int32_t htc__mve_sum8(const int8_t *w, int32_t n)
{
    int32_t s = 0;
    for (; n >= 16; n -= 16, w += 16) s = vaddvaq_s8(s, vldrbq_s8(w));
    if (n > 0) s = vaddvaq_s8(s, vldrbq_z_s8(w, vctp8q(HTC__CAST(uint32_t, n))));
    return s;
}

/* the sums of four rows of n int8 as one vector */
static inline int32x4_t htc__mve_sum8x4(const int8_t *w0, const int8_t *w1, const int8_t *w2, const int8_t *w3, int32_t n)
{
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (; n >= 16; n -= 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
        s0 = vaddvaq_s8(s0, vldrbq_s8(w0));
        s1 = vaddvaq_s8(s1, vldrbq_s8(w1));
        s2 = vaddvaq_s8(s2, vldrbq_s8(w2));
        s3 = vaddvaq_s8(s3, vldrbq_s8(w3));
    }
    if (n > 0) {
        const mve_pred16_t pr = vctp8q(HTC__CAST(uint32_t, n));
        s0 = vaddvaq_s8(s0, vldrbq_z_s8(w0, pr));
        s1 = vaddvaq_s8(s1, vldrbq_z_s8(w1, pr));
        s2 = vaddvaq_s8(s2, vldrbq_z_s8(w2, pr));
        s3 = vaddvaq_s8(s3, vldrbq_z_s8(w3, pr));
    }
    return vsetq_lane_s32(s3, vsetq_lane_s32(s2, vsetq_lane_s32(s1, vdupq_n_s32(s0), 1), 2), 3);
}
#endif

#define HTC__MIN(a, b) ((a) < (b) ? (a) : (b))
#define HTC__MAX(a, b) ((a) > (b) ? (a) : (b))

/* ---- TFLite fixed-point arithmetic (gemmlowp), bit-exact ---------------- */

/* SaturatingRoundingDoublingHighMul: (a*b*2 + 2^31 rounding) >> 32 with the
   single overflow case INT32_MIN*INT32_MIN saturated. gemmlowp writes it as
   (ab + (ab >= 0 ? 2^30 : 1 - 2^30)) / 2^31 truncating; that equals
   floor((ab + 2^30) / 2^31), computed here with an arithmetic shift. */
static inline int32_t htc__srdhm(int32_t a, int32_t b)
{
    int64_t ab;
    if (a == b && a == INT32_MIN) return INT32_MAX;
    ab = HTC__CAST(int64_t, a) * HTC__CAST(int64_t, b);
    return HTC__CAST(int32_t, (ab + (HTC__CAST(int64_t, 1) << 30)) >> 31);
}

/* RoundingDivideByPOT: x / 2^e rounded half away from zero. */
static inline int32_t htc__rdivpot(int32_t x, int e)
{
    int32_t mask = HTC__CAST(int32_t, (HTC__CAST(int64_t, 1) << e) - 1);
    int32_t rem = x & mask;
    int32_t thr = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> e) + (rem > thr ? 1 : 0);
}

/* MultiplyByQuantizedMultiplier (TFLite, double rounding): x * m * 2^shift
   with m a Q31 multiplier in [2^30, 2^31) and shift in [-31, 30]. */
static inline int32_t htc__mulq(int32_t x, int32_t m, int shift)
{
    int left = shift > 0 ? shift : 0;
    int right = shift > 0 ? 0 : -shift;
    return htc__rdivpot(htc__srdhm(HTC__CAST(int32_t, HTC__CAST(uint32_t, x) << left), m), right);
}

static inline int32_t htc__clamp(int32_t x, int32_t lo, int32_t hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* The per-output requantization of conv / depthwise / FC, the same value as
   htc__clamp(htc__mulq(acc, m, shift) + zp, lo, hi) for m >= 0 (every
   multiplier quant_multiplier makes): the m == INT32_MIN saturation case
   cannot occur and SaturatingRoundingDoublingHighMul is (a*b + 2^30) >> 31
   (64-bit shifts by constants only: cheap on 32-bit cores too);
   RoundingDivideByPOT is gemmlowp's remainder test with the mask and half
   precomputed. htc__rq_make splits the shift once per channel so that a
   kernel looping over pixels pays only the arithmetic. */
typedef struct {
    int32_t m;
    int left, right;            /* left shift; right shift */
    int32_t mask, half;         /* 2^right - 1, mask >> 1 */
} htc__rq;

static inline htc__rq htc__rq_make(int32_t m, int shift)
{
    htc__rq q;
    q.m = m;
    q.left = shift > 0 ? shift : 0;
    q.right = shift > 0 ? 0 : -shift;
    q.mask = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << q.right) - 1u);
    q.half = q.mask >> 1;
    return q;
}

static inline int32_t htc__rq_apply(const htc__rq *q, int32_t acc, int32_t zp, int32_t lo, int32_t hi)
{
    const int64_t ab = HTC__CAST(int64_t, HTC__CAST(int32_t, HTC__CAST(uint32_t, acc) << q->left)) * q->m;
    const int32_t h = HTC__CAST(int32_t, (ab + (HTC__CAST(int64_t, 1) << 30)) >> 31);
    int32_t v = (h >> q->right) + ((h & q->mask) > q->half + (h < 0 ? 1 : 0) ? 1 : 0) + zp;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return v;
}

static inline int32_t htc__requant(int32_t acc, int32_t m, int shift, int32_t zp, int32_t lo, int32_t hi)
{
    const htc__rq q = htc__rq_make(m, shift);
    return htc__rq_apply(&q, acc, zp, lo, hi);
}

/* Requantization on the portable paths of cores without SIMD, around one
   32x32->64 multiply of acc by 2m read as an unsigned word (MUL and MULHSU
   on RV32; htc__xrq's arithmetic, the constants made by htc__prq_make):
   SaturatingRoundingDoublingHighMul (acc*m + 2^30) >> 31 for m >= 0 is the
   high word of acc * 2m plus bit 31 of its low word, for every int32 acc;
   RoundingDivideByPOT is (h + 2^(e-1) - (h < 0)) >> e, which equals
   gemmlowp's remainder test while h + 2^(e-1) does not overflow: the
   generator checks that per channel (gen/emit.c rq_flags, HTC__RQ_PRQ),
   htc__prq_ok for blocks built at run time (|acc| < 2^30, so |h| < 2^30;
   m >= 0 and every shift in [-31, -1]). Only made for such shifts (the
   mask keeps other shifts defined: the kernels then use htc__requant). */
typedef struct {
    uint32_t m2;
    int32_t c, e;
} htc__prq;

static inline htc__prq htc__prq_make(int32_t m, int shift)
{
    htc__prq q;
    q.m2 = HTC__CAST(uint32_t, m) << 1;
    q.e = -shift;
    q.c = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << (q.e & 31)) >> 1);
    return q;
}

static inline int32_t htc__prq_apply(htc__prq q, int32_t acc)
{
    const int64_t pr = HTC__CAST(int64_t, acc) * HTC__CAST(int64_t, q.m2);
    const int32_t h = HTC__CAST(int32_t, pr >> 32) + HTC__CAST(int32_t, HTC__CAST(uint32_t, pr) >> 31);
    return (h + q.c + (h >> 31)) >> q.e;
}

static HTC__UNUSED int htc__prq_ok(const int32_t *mult, const int8_t *shift, int32_t nq, const int32_t *bias, int32_t nb,
                                   int32_t taps)
{
    int32_t i, mb = 0;
    for (i = 0; i < nq; i++)
        if (mult[i] < 0 || shift[i] > -1 || shift[i] < -31) return 0;
    for (i = 0; bias && i < nb; i++) {
        const int32_t a = bias[i] < 0 ? -(bias[i] + 1) : bias[i];
        mb = a > mb ? a : mb;
    }
    return taps < 32768 && mb < (HTC__CAST(int32_t, 1) << 30) - taps * 32640;
}

/* 1 if every channel's multiplier and shift suit htc__dsprq */
/* nq multipliers; bias[0..nb) (or NULL) and taps products per output bound
   |acc| by max|bias| + taps * 255 * 128 */
static HTC__UNUSED HTC__COLD int htc__dsp_rq_ok(const int32_t *mult, const int8_t *shift, int32_t nq, const int32_t *bias, int32_t nb,
                                      int32_t taps)
{
    int32_t i, mb = 0, big = 0;
    for (i = 0; i < nq; i++) {
        if (mult[i] < (HTC__CAST(int32_t, 1) << 30) || shift[i] > -1 || shift[i] < -31) return 0;
        big |= shift[i] < -23;
    }
    if (!big) return 1;
    for (i = 0; bias && i < nb; i++) {
        const int32_t a = bias[i] < 0 ? -(bias[i] + 1) : bias[i];
        mb = a > mb ? a : mb;
    }
    return taps < 32768 && mb < (HTC__CAST(int32_t, 1) << 30) - taps * 32640;
}

/* The generator's decision (htc__conv_params.rq, htc__fc_params.rq):
   HTC__RQ_SET with HTC__RQ_PRQ when htc__prq_ok holds for the layer and
   HTC__RQ_DSP when htc__dsp_rq_ok does (both checked once at compile time
   with the bias the block holds and the kernel's tap count, gen/emit.c
   rq_flags); 0 leaves the check to the kernel, at every call. */
enum { HTC__RQ_PRQ = 1, HTC__RQ_DSP = 2, HTC__RQ_SET = 4 };

static inline int htc__prq_okr(int32_t rq, const int32_t *mult, const int8_t *shift, int32_t nq, const int32_t *bias, int32_t nb,
                               int32_t taps)
{
    return rq ? (rq & HTC__RQ_PRQ) != 0 : htc__prq_ok(mult, shift, nq, bias, nb, taps);
}

static inline int htc__dsp_rq_okr(int32_t rq, const int32_t *mult, const int8_t *shift, int32_t nq, const int32_t *bias, int32_t nb,
                                  int32_t taps)
{
    return rq ? (rq & HTC__RQ_DSP) != 0 : htc__dsp_rq_ok(mult, shift, nq, bias, nb, taps);
}

/* the words of a channel's record in htc__conv_params.xq2 (htc__xq2_apply) */
enum { HTC__XQ2_F, HTC__XQ2_W, HTC__XQ2_ML, HTC__XQ2_MH, HTC__XQ2_RLO, HTC__XQ2_RHI, HTC__XQ2_S, HTC__XQ2_N };
/* a dense convolution's record instead (htc__xq3_apply): three products */
enum { HTC__XQ3_F, HTC__XQ3_W, HTC__XQ3_M0, HTC__XQ3_M1, HTC__XQ3_M2, HTC__XQ3_R, HTC__XQ3_RH, HTC__XQ3_S, HTC__XQ3_U,
       HTC__XQ3_N };

/* ---- XpulpV2 (PULP's RI5CY-class cores: Siracusa's cluster, GAP8, Vega) ----
   -DHTC_XPULPV2 in the firmware's build (no compiler defines a macro for
   it) selects the kernels' HTC__XP paths: 4-way int8 dot products
   (pv.sdotsp.b), post-increment loads (p.lw) and hardware loops
   (lp.setup). Stock GCC has no XpulpV2 mnemonics: a 32-bit RISC-V compiler
   gets the instructions as .insn encodings (HTC__XP_ASM); any other
   compiler gets each loop's C twin, the same word loads and the same
   products summed in the same integer order, which the host tests run
   (tests/kernels) and examples/siracusa/xptest.c compares with the
   instructions on GVSoC. Encodings: GVSoC's isa_pulpv2.py; the hardware
   loops keep the RTL's rules (no compressed instruction, no branch, at
   least three instructions in the body; a count of 0 would still run the
   body once, so the callers skip it). */
#if defined(HTC_XPULPV2) && !defined(HTC_NO_SIMD)
#define HTC__XP 1
#if defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 32 && (defined(__GNUC__) || defined(__clang__))
#define HTC__XP_ASM 1
#endif

/* 4 bytes at p as a word (any alignment: the cores load misaligned words,
   which GCC does not assume of RISC-V, so the load is written out) */
static inline uint32_t htc__xp_ld4(const int8_t *p)
{
    uint32_t v;
#ifdef HTC__XP_ASM
    __asm__("lw %0, 0(%1)" : "=r"(v) : "r"(p), "m"(*HTC__CAST(const int8_t(*)[4], HTC__CAST(const void *, p))));
#else
    memcpy(&v, p, 4);
#endif
    return v;
}

/* n bytes from s to d, a word at a time (any alignment; picolibc's memcpy
   for RV32 copies byte by byte): two words per hardware-loop step (p.lw,
   p.sw post-increment, 2 cycles a word on GVSoC against 6.7 for the C
   loop), then the rest */
static inline void htc__xp_copy(int8_t *d, const int8_t *s, int32_t n)
{
    int32_t i;
#ifdef HTC__XP_ASM
    if (n >= 8) {
        uint32_t t0, t1;
        __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                         ".insn i 0x7b, 4, x0, %[n], 8\n\t"
                         ".insn i 0x0b, 2, %[t0], 4(%[s])\n\t"
                         ".insn i 0x0b, 2, %[t1], 4(%[s])\n\t"
                         ".insn s 0x2b, 2, %[t0], 4(%[d])\n\t"
                         ".insn s 0x2b, 2, %[t1], 4(%[d])\n\t"
                         ".option pop"
                         : [s] "+r"(s), [d] "+r"(d), [t0] "=&r"(t0), [t1] "=&r"(t1)
                         : [n] "r"(n >> 3)
                         : "memory");
        n &= 7;
    }
#endif
    for (i = 0; i + 4 <= n; i += 4) {
#ifdef HTC__XP_ASM
        __asm__ volatile("sw %1, 0(%0)" : : "r"(d + i), "r"(htc__xp_ld4(s + i)) : "memory");
#else
        memcpy(d + i, s + i, 4);
#endif
    }
    for (; i < n; i++) d[i] = s[i];
}

/* nr rows of n bytes (n >= 4, nr > 0), skip + n apart at s, to d one
   after another (a receptive field inside the image): nested hardware
   loops, a word a step (p.lw, p.sw post-increment; the third instruction
   fills the load's delay), then the row's last word again, misaligned
   (bytes n - 4 .. n - 1: stores the rest without a branch) */
static inline void htc__xp_rows(int8_t *d, const int8_t *s, int32_t n, int32_t skip, int32_t nr)
{
#ifdef HTC__XP_ASM
    uint32_t t0;
    __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                     ".insn i 0x7b, 4, x1, %[nr], 18\n\t"
                     ".insn i 0x7b, 4, x0, %[nw], 6\n\t"
                     ".insn i 0x0b, 2, %[t0], 4(%[s])\n\t"
                     "nop\n\t"
                     ".insn s 0x2b, 2, %[t0], 4(%[d])\n\t"
                     "add %[s], %[s], %[tb]\n\t"
                     "add %[d], %[d], %[tb]\n\t"
                     ".insn i 0x0b, 2, %[t0], 4(%[s])\n\t"
                     "add %[s], %[s], %[sk]\n\t"
                     ".insn s 0x2b, 2, %[t0], 4(%[d])\n\t"
                     ".option pop"
                     : [s] "+r"(s), [d] "+r"(d), [t0] "=&r"(t0)
                     : [nr] "r"(nr), [nw] "r"(n >> 2), [tb] "r"((n & 3) - 4), [sk] "r"(skip)
                     : "memory");
#else
    int32_t r;
    for (r = 0; r < nr; r++, d += n, s += n + skip) memcpy(d, s, HTC__CAST(size_t, n));
#endif
}

/* n bytes of d set to v (short runs: no call), a word at a time (any
   alignment, as htc__xp_copy's stores) */
static inline void htc__xp_fill(int8_t *d, int8_t v, int32_t n)
{
    int32_t i = 0;
#ifdef HTC__XP_ASM
    const uint32_t w = 0x01010101u * HTC__CAST(uint8_t, v);
    for (; i + 4 <= n; i += 4) __asm__ volatile("sw %1, 0(%0)" : : "r"(d + i), "r"(w) : "memory");
#endif
    for (; i < n; i++) d[i] = v;
}

/* c + the products of the four signed bytes of a and b (pv.sdotsp.b) */
static inline int32_t htc__xp_sdot4(int32_t c, uint32_t a, uint32_t b)
{
#ifdef HTC__XP_ASM
    __asm__(".insn r 0x57, 1, 0x5c, %0, %1, %2" : "+r"(c) : "r"(a), "r"(b));
    return c;
#else
    uint32_t s = HTC__CAST(uint32_t, c);
    int i;
    for (i = 0; i < 32; i += 8)
        s += HTC__CAST(uint32_t, HTC__CAST(int8_t, (a >> i) & 0xffu) * HTC__CAST(int8_t, (b >> i) & 0xffu));
    return HTC__CAST(int32_t, s);
#endif
}

#ifdef HTC__XP_ASM
/* The 2x4 step shared by htc__xp_dot2x4 and htc__xp_dot2x4r: with the two
   pixels' words in t0 and t1, the four filters' words loaded (p.lw,
   post-increment) into t2/t3 in turn and eight pv.sdotsp.b into a0-a3
   (first pixel) and b0-b3 (second). */
#define HTC__XP_ASM_DOT2X4 \
    ".insn i 0x0b, 2, t2, 4(%[w0])\n\t.insn i 0x0b, 2, t3, 4(%[w1])\n\t" \
    ".insn r 0x57, 1, 0x5c, %[a0], t0, t2\n\t.insn r 0x57, 1, 0x5c, %[b0], t1, t2\n\t" \
    ".insn i 0x0b, 2, t2, 4(%[w2])\n\t" \
    ".insn r 0x57, 1, 0x5c, %[a1], t0, t3\n\t.insn r 0x57, 1, 0x5c, %[b1], t1, t3\n\t" \
    ".insn i 0x0b, 2, t3, 4(%[w3])\n\t" \
    ".insn r 0x57, 1, 0x5c, %[a2], t0, t2\n\t.insn r 0x57, 1, 0x5c, %[b2], t1, t2\n\t" \
    ".insn r 0x57, 1, 0x5c, %[a3], t0, t3\n\t.insn r 0x57, 1, 0x5c, %[b3], t1, t3\n\t"
#endif

/* acc[0..3] += x0 . w[0..3], acc[4..7] += x1 . w[0..3] over n bytes (the
   first n & ~3 four at a time, the rest one by one): two pixels by four
   output channels, 32 multiply-adds per 6 loads and 8 dot products */
static HTC__INLINE HTC__UNUSED void htc__xp_dot2x4(const int8_t *x0, const int8_t *x1, const int8_t *const *w, int32_t n,
                                                     int32_t *acc)
{
    const int8_t *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], b0 = acc[4], b1 = acc[5], b2 = acc[6], b3 = acc[7];
    int32_t i;
    const int32_t n4 = n >> 2;
#ifdef HTC__XP_ASM
    if (n4 > 0) {
        /* lp.setup x0 (loop 0), count n4, end = the 14th instruction after
           it; the loaded words in t0-t3 (clobbers: GCC allows 30 operands) */
        __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                         ".insn i 0x7b, 4, x0, %[n], 28\n\t"
                         ".insn i 0x0b, 2, t0, 4(%[x0])\n\t"
                         ".insn i 0x0b, 2, t1, 4(%[x1])\n\t"
                         HTC__XP_ASM_DOT2X4
                         ".option pop"
                         : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [b0] "+r"(b0), [b1] "+r"(b1),
                           [b2] "+r"(b2), [b3] "+r"(b3), [x0] "+r"(x0), [x1] "+r"(x1), [w0] "+r"(w0), [w1] "+r"(w1),
                           [w2] "+r"(w2), [w3] "+r"(w3)
                         : [n] "r"(n4)
                         : "t0", "t1", "t2", "t3", "memory");
    }
#else
    for (i = 0; i < n4; i++, x0 += 4, x1 += 4, w0 += 4, w1 += 4, w2 += 4, w3 += 4) {
        const uint32_t u = htc__xp_ld4(x0), v = htc__xp_ld4(x1), c = htc__xp_ld4(w0), d = htc__xp_ld4(w1);
        const uint32_t e = htc__xp_ld4(w2), f = htc__xp_ld4(w3);
        a0 = htc__xp_sdot4(a0, u, c); b0 = htc__xp_sdot4(b0, v, c);
        a1 = htc__xp_sdot4(a1, u, d); b1 = htc__xp_sdot4(b1, v, d);
        a2 = htc__xp_sdot4(a2, u, e); b2 = htc__xp_sdot4(b2, v, e);
        a3 = htc__xp_sdot4(a3, u, f); b3 = htc__xp_sdot4(b3, v, f);
    }
#endif
    for (i = 0; i < (n & 3); i++) {
        const int32_t u = x0[i], v = x1[i];
        a0 += u * w0[i]; b0 += v * w0[i];
        a1 += u * w1[i]; b1 += v * w1[i];
        a2 += u * w2[i]; b2 += v * w2[i];
        a3 += u * w3[i]; b3 += v * w3[i];
    }
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3; acc[4] = b0; acc[5] = b1; acc[6] = b2; acc[7] = b3;
}

/* htc__xp_dot2x4 over nr runs of n4 words (nr, n4 > 0) of the pixels x0
   and x0 + d, the pointer moving skip bytes more after each run: two
   receptive fields read in place, k_h rows of k_w * in_c bytes (a
   multiple of 4) in_w * in_c apart, the weight rows contiguous. Nested
   hardware loops (loop 1 over the runs, one instruction after loop 0's
   end); the second pixel's word by a register-offset load (p.lw rd,
   rs2(rs1): GCC allows 30 operands). */
static HTC__INLINE HTC__UNUSED void htc__xp_dot2x4r(const int8_t *x0, int32_t d, const int8_t *const *w, int32_t n4,
                                                      int32_t nr, int32_t skip, int32_t *acc)
{
    const int8_t *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], b0 = acc[4], b1 = acc[5], b2 = acc[6], b3 = acc[7];
#ifdef HTC__XP_ASM
    __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                     ".insn i 0x7b, 4, x1, %[nr], 32\n\t"
                     ".insn i 0x7b, 4, x0, %[n], 28\n\t"
                     ".insn r 0x03, 7, 0x10, t1, %[x0], %[d]\n\t"
                     ".insn i 0x0b, 2, t0, 4(%[x0])\n\t"
                     HTC__XP_ASM_DOT2X4
                     "add %[x0], %[x0], %[sk]\n\t"
                     ".option pop"
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [b0] "+r"(b0), [b1] "+r"(b1),
                       [b2] "+r"(b2), [b3] "+r"(b3), [x0] "+r"(x0), [w0] "+r"(w0), [w1] "+r"(w1),
                       [w2] "+r"(w2), [w3] "+r"(w3)
                     : [n] "r"(n4), [nr] "r"(nr), [sk] "r"(skip), [d] "r"(d)
                     : "t0", "t1", "t2", "t3", "memory");
#else
    int32_t r, i;
    for (r = 0; r < nr; r++, x0 += skip)
        for (i = 0; i < n4; i++, x0 += 4, w0 += 4, w1 += 4, w2 += 4, w3 += 4) {
            const uint32_t u = htc__xp_ld4(x0), v = htc__xp_ld4(x0 + d), c = htc__xp_ld4(w0), e1 = htc__xp_ld4(w1);
            const uint32_t e = htc__xp_ld4(w2), f = htc__xp_ld4(w3);
            a0 = htc__xp_sdot4(a0, u, c); b0 = htc__xp_sdot4(b0, v, c);
            a1 = htc__xp_sdot4(a1, u, e1); b1 = htc__xp_sdot4(b1, v, e1);
            a2 = htc__xp_sdot4(a2, u, e); b2 = htc__xp_sdot4(b2, v, e);
            a3 = htc__xp_sdot4(a3, u, f); b3 = htc__xp_sdot4(b3, v, f);
        }
#endif
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3; acc[4] = b0; acc[5] = b1; acc[6] = b2; acc[7] = b3;
}

/* Four pixels (fields read in place, d = stride * in_c apart) by four
   output channels: acc[4 j + k] = s[k] + the dot product of pixel j's
   field (x + j d) with weight row k (w + k ws) over nr runs of n4 words
   (nr, n4 > 0), the pixels' pointer moving skip bytes more after each run,
   the weight rows contiguous. 64 multiply-adds per 8 loads and 16 dot
   products (24 instructions against the 2x4 block's 28). One asm block
   (GCC allows 30 operands, 16 accumulators in and out would be 32): every
   register its own (27 named as clobbers, the block pointer in the last
   one), the start values loaded, the sums stored to b->acc, the runs'
   count, skip and n4 in a private stack frame; pixels 0 and 2 and weight
   rows 0 and 2 post-incremented, pixels 1 and 3 and rows 1 and 3 by
   register-offset loads d - 4 and ws - 4 past them, six words loaded. */
typedef struct {
    const int32_t *s;                       /* the four channels' start values */
    const int8_t *xa, *xb, *wa, *wb;        /* pixels 0 and 2, weight rows 0 and 2 */
    int32_t dm, wm, skip, n4, nr;           /* d - 4, ws - 4, the runs */
    int32_t acc[16];                        /* out: acc[4 j + k], pixel j, channel k */
} htc__xp4x4;

/* b->acc from b's fields (htc__xp4x4: the pixels' fields and the weight
   rows as htc__xp_dot4x4r takes them) */
static HTC__INLINE HTC__UNUSED void htc__xp_dot4x4b(htc__xp4x4 *b)
{
#ifdef HTC__XP_ASM
    __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                     "addi sp, sp, -16\n\t"
                     "sw %[b], 0(sp)\n\t"
                     "lw t2, 0(%[b])\n\t"
                     "lw a4, 4(%[b])\n\tlw a5, 8(%[b])\n\tlw a6, 12(%[b])\n\tlw a7, 16(%[b])\n\t"
                     "lw t0, 20(%[b])\n\tlw t1, 24(%[b])\n\tlw t3, 28(%[b])\n\tlw t4, 36(%[b])\n\t"
                     "lw s0, 0(t2)\n\tlw s1, 4(t2)\n\tlw s2, 8(t2)\n\tlw s3, 12(t2)\n\t"
                     "lw %[b], 32(%[b])\n\t"
                     "sw t3, 8(sp)\n\tsw t4, 4(sp)\n\tsw %[b], 12(sp)\n\t"
                     "mv s4, s0\n\tmv s5, s1\n\tmv s6, s2\n\tmv s7, s3\n\t"
                     "mv s8, s0\n\tmv s9, s1\n\tmv s10, s2\n\tmv s11, s3\n\t"
                     "mv a0, s0\n\tmv a1, s1\n\tmv a2, s2\n\tmv a3, s3\n\t"
                     "1:\n\t"
                     ".insn i 0x7b, 4, x0, %[b], 48\n\t"
                     ".insn i 0x0b, 2, t2, 4(a4)\n\t"           /* pixel 0's word */
                     ".insn i 0x0b, 2, t4, 4(a5)\n\t"           /* pixel 2's */
                     ".insn i 0x0b, 2, t6, 4(a6)\n\t"           /* row 0's */
                     ".insn r 0x03, 7, 0x10, t3, a4, t0\n\t"    /* pixel 1's */
                     ".insn r 0x03, 7, 0x10, t5, a5, t0\n\t"    /* pixel 3's */
                     ".insn r 0x57, 1, 0x5c, s0, t2, t6\n\t"
                     ".insn r 0x57, 1, 0x5c, s4, t3, t6\n\t"
                     ".insn r 0x03, 7, 0x10, %[b], a6, t1\n\t"  /* row 1's */
                     ".insn r 0x57, 1, 0x5c, s8, t4, t6\n\t"
                     ".insn r 0x57, 1, 0x5c, a0, t5, t6\n\t"
                     ".insn i 0x0b, 2, t6, 4(a7)\n\t"           /* row 2's */
                     ".insn r 0x57, 1, 0x5c, s1, t2, %[b]\n\t"
                     ".insn r 0x57, 1, 0x5c, s5, t3, %[b]\n\t"
                     ".insn r 0x57, 1, 0x5c, s9, t4, %[b]\n\t"
                     ".insn r 0x57, 1, 0x5c, a1, t5, %[b]\n\t"
                     ".insn r 0x03, 7, 0x10, %[b], a7, t1\n\t"  /* row 3's */
                     ".insn r 0x57, 1, 0x5c, s2, t2, t6\n\t"
                     ".insn r 0x57, 1, 0x5c, s6, t3, t6\n\t"
                     ".insn r 0x57, 1, 0x5c, s10, t4, t6\n\t"
                     ".insn r 0x57, 1, 0x5c, a2, t5, t6\n\t"
                     ".insn r 0x57, 1, 0x5c, s3, t2, %[b]\n\t"
                     ".insn r 0x57, 1, 0x5c, s7, t3, %[b]\n\t"
                     ".insn r 0x57, 1, 0x5c, s11, t4, %[b]\n\t"
                     ".insn r 0x57, 1, 0x5c, a3, t5, %[b]\n\t"
                     "lw t2, 8(sp)\n\tlw t3, 4(sp)\n\tlw %[b], 12(sp)\n\t"
                     "add a4, a4, t2\n\tadd a5, a5, t2\n\taddi t3, t3, -1\n\tsw t3, 4(sp)\n\t"
                     "bnez t3, 1b\n\t"
                     "lw %[b], 0(sp)\n\t"
                     "sw s0, 40(%[b])\n\tsw s1, 44(%[b])\n\tsw s2, 48(%[b])\n\tsw s3, 52(%[b])\n\t"
                     "sw s4, 56(%[b])\n\tsw s5, 60(%[b])\n\tsw s6, 64(%[b])\n\tsw s7, 68(%[b])\n\t"
                     "sw s8, 72(%[b])\n\tsw s9, 76(%[b])\n\tsw s10, 80(%[b])\n\tsw s11, 84(%[b])\n\t"
                     "sw a0, 88(%[b])\n\tsw a1, 92(%[b])\n\tsw a2, 96(%[b])\n\tsw a3, 100(%[b])\n\t"
                     "addi sp, sp, 16\n\t"
                     ".option pop"
                     : [b] "+r"(b)
                     :
                     : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "a0", "a1", "a2", "a3",
                       "a4", "a5", "a6", "a7", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "memory");
#else
    const int8_t *x = b->xa, *w = b->wa;
    const int32_t d = b->dm + 4, ws = b->wm + 4;
    int32_t r, i, j;
    for (j = 0; j < 16; j++) b->acc[j] = b->s[j & 3];
    for (r = 0; r < b->nr; r++, x += b->skip)
        for (i = 0; i < b->n4; i++, x += 4, w += 4) {
            const uint32_t e0 = htc__xp_ld4(w), e1 = htc__xp_ld4(w + ws), e2 = htc__xp_ld4(w + 2 * ws), e3 = htc__xp_ld4(w + 3 * ws);
            for (j = 0; j < 4; j++) {
                const uint32_t u = htc__xp_ld4(x + j * d);
                int32_t *a = b->acc + 4 * j;
                a[0] = htc__xp_sdot4(a[0], u, e0);
                a[1] = htc__xp_sdot4(a[1], u, e1);
                a[2] = htc__xp_sdot4(a[2], u, e2);
                a[3] = htc__xp_sdot4(a[3], u, e3);
            }
        }
#endif
}

/* acc[0..3] += x . w[0..3] over n bytes: one pixel (or row) by four
   output channels, 16 multiply-adds per 5 loads and 4 dot products */
static HTC__NOINLINE HTC__UNUSED void htc__xp_dot1x4(const int8_t *x, const int8_t *const *w, int32_t n, int32_t *acc)
{
    const int8_t *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    int32_t i;
    const int32_t n4 = n >> 2;
#ifdef HTC__XP_ASM
    if (n4 > 0) {
        uint32_t u, c, d;
        __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                         ".insn i 0x7b, 4, x0, %[n], 18\n\t"
                         ".insn i 0x0b, 2, %[u], 4(%[x])\n\t"
                         ".insn i 0x0b, 2, %[c], 4(%[w0])\n\t"
                         ".insn i 0x0b, 2, %[d], 4(%[w1])\n\t"
                         ".insn r 0x57, 1, 0x5c, %[a0], %[u], %[c]\n\t"
                         ".insn i 0x0b, 2, %[c], 4(%[w2])\n\t"
                         ".insn r 0x57, 1, 0x5c, %[a1], %[u], %[d]\n\t"
                         ".insn i 0x0b, 2, %[d], 4(%[w3])\n\t"
                         ".insn r 0x57, 1, 0x5c, %[a2], %[u], %[c]\n\t"
                         ".insn r 0x57, 1, 0x5c, %[a3], %[u], %[d]\n\t"
                         ".option pop"
                         : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w0] "+r"(w0),
                           [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [u] "=&r"(u), [c] "=&r"(c), [d] "=&r"(d)
                         : [n] "r"(n4)
                         : "memory");
    }
#else
    for (i = 0; i < n4; i++, x += 4, w0 += 4, w1 += 4, w2 += 4, w3 += 4) {
        const uint32_t u = htc__xp_ld4(x);
        a0 = htc__xp_sdot4(a0, u, htc__xp_ld4(w0));
        a1 = htc__xp_sdot4(a1, u, htc__xp_ld4(w1));
        a2 = htc__xp_sdot4(a2, u, htc__xp_ld4(w2));
        a3 = htc__xp_sdot4(a3, u, htc__xp_ld4(w3));
    }
#endif
    for (i = 0; i < (n & 3); i++) {
        const int32_t u = x[i];
        a0 += u * w0[i]; a1 += u * w1[i]; a2 += u * w2[i]; a3 += u * w3[i];
    }
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3;
}

/* htc__xp_dot1x4 that also adds the sum of each weight row to ws[0..3]
   (for an input offset folded at run time: one more dot product per
   weight word, with 0x01010101) */
static HTC__NOINLINE HTC__UNUSED void htc__xp_dot1x4w(const int8_t *x, const int8_t *const *w, int32_t n, int32_t *acc,
                                                      int32_t *ws)
{
    const int8_t *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], s0 = ws[0], s1 = ws[1], s2 = ws[2], s3 = ws[3];
    int32_t i;
    const int32_t n4 = n >> 2;
    const uint32_t ones = 0x01010101u;
#ifdef HTC__XP_ASM
    if (n4 > 0) {
        __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                         ".insn i 0x7b, 4, x0, %[n], 26\n\t"
                         ".insn i 0x0b, 2, t0, 4(%[x])\n\t"
                         ".insn i 0x0b, 2, t1, 4(%[w0])\n\t"
                         ".insn i 0x0b, 2, t2, 4(%[w1])\n\t"
                         ".insn r 0x57, 1, 0x5c, %[a0], t0, t1\n\t"
                         ".insn r 0x57, 1, 0x5c, %[s0], t1, %[one]\n\t"
                         ".insn i 0x0b, 2, t1, 4(%[w2])\n\t"
                         ".insn r 0x57, 1, 0x5c, %[a1], t0, t2\n\t"
                         ".insn r 0x57, 1, 0x5c, %[s1], t2, %[one]\n\t"
                         ".insn i 0x0b, 2, t2, 4(%[w3])\n\t"
                         ".insn r 0x57, 1, 0x5c, %[a2], t0, t1\n\t"
                         ".insn r 0x57, 1, 0x5c, %[s2], t1, %[one]\n\t"
                         ".insn r 0x57, 1, 0x5c, %[a3], t0, t2\n\t"
                         ".insn r 0x57, 1, 0x5c, %[s3], t2, %[one]\n\t"
                         ".option pop"
                         : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [s0] "+r"(s0), [s1] "+r"(s1),
                           [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2),
                           [w3] "+r"(w3)
                         : [n] "r"(n4), [one] "r"(ones)
                         : "t0", "t1", "t2", "memory");
    }
#else
    for (i = 0; i < n4; i++, x += 4, w0 += 4, w1 += 4, w2 += 4, w3 += 4) {
        const uint32_t u = htc__xp_ld4(x), c0 = htc__xp_ld4(w0), c1 = htc__xp_ld4(w1), c2 = htc__xp_ld4(w2),
                       c3 = htc__xp_ld4(w3);
        a0 = htc__xp_sdot4(a0, u, c0); s0 = htc__xp_sdot4(s0, c0, ones);
        a1 = htc__xp_sdot4(a1, u, c1); s1 = htc__xp_sdot4(s1, c1, ones);
        a2 = htc__xp_sdot4(a2, u, c2); s2 = htc__xp_sdot4(s2, c2, ones);
        a3 = htc__xp_sdot4(a3, u, c3); s3 = htc__xp_sdot4(s3, c3, ones);
    }
#endif
    for (i = 0; i < (n & 3); i++) {
        const int32_t u = x[i];
        a0 += u * w0[i]; a1 += u * w1[i]; a2 += u * w2[i]; a3 += u * w3[i];
        s0 += w0[i]; s1 += w1[i]; s2 += w2[i]; s3 += w3[i];
    }
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3;
    ws[0] = s0; ws[1] = s1; ws[2] = s2; ws[3] = s3;
}

/* x . w over n bytes, plus c */
static HTC__NOINLINE HTC__UNUSED int32_t htc__xp_dot1(const int8_t *x, const int8_t *w, int32_t n, int32_t c)
{
    int32_t i;
    const int32_t n4 = n >> 2;
#ifdef HTC__XP_ASM
    if (n4 > 0) {
        uint32_t u, v;
        __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"
                         ".insn i 0x7b, 4, x0, %[n], 6\n\t"
                         ".insn i 0x0b, 2, %[u], 4(%[x])\n\t"
                         ".insn i 0x0b, 2, %[v], 4(%[w])\n\t"
                         ".insn r 0x57, 1, 0x5c, %[c], %[u], %[v]\n\t"
                         ".option pop"
                         : [c] "+r"(c), [x] "+r"(x), [w] "+r"(w), [u] "=&r"(u), [v] "=&r"(v)
                         : [n] "r"(n4)
                         : "memory");
    }
#else
    for (i = 0; i < n4; i++, x += 4, w += 4) c = htc__xp_sdot4(c, htc__xp_ld4(x), htc__xp_ld4(w));
#endif
    for (i = 0; i < (n & 3); i++) c += x[i] * w[i];
    return c;
}

/* v clamped to [lo, hi] (p.max, p.min: no branch) */
static inline int32_t htc__xp_clamp(int32_t v, int32_t lo, int32_t hi)
{
#ifdef HTC__XP_ASM
    __asm__(".insn r 0x33, 6, 0x02, %0, %0, %1" : "+r"(v) : "r"(lo));
    __asm__(".insn r 0x33, 4, 0x02, %0, %0, %1" : "+r"(v) : "r"(hi));
    return v;
#else
    return v < lo ? lo : (v > hi ? hi : v);
#endif
}

/* v clamped to [0, hi], hi >= 0 (p.clipur: one instruction) */
static inline int32_t htc__xp_clipu(int32_t v, int32_t hi)
{
#ifdef HTC__XP_ASM
    __asm__(".insn r 0x33, 6, 0x0a, %0, %0, %1" : "+r"(v) : "r"(hi));
    return v;
#else
    return v < 0 ? 0 : (v > hi ? hi : v);
#endif
}

/* The fast requantization (htc__prq) with 2m as an unsigned word: the
   high word of acc * 2m is one MULHSU (no doubling of acc, so exact for
   every int32 acc: h = (acc * m + 2^30) >> 31 in 64 bits, gemmlowp's
   SaturatingRoundingDoublingHighMul for m >= 0), the result
   (h + c + (h >> 31)) >> e is RoundingDivideByPOT(h, e) while h + c fits
   (htc__xrq_ok). A channel with
   multiplier 0 (any shift: a dead channel) gets e = 1, c = 1 (its h is 0,
   so every e gives 0). */
typedef struct {
    uint32_t m2;
    int32_t c, e;
} htc__xrq;

static inline htc__xrq htc__xrq_make(int32_t m, int shift)
{
    htc__xrq q;
    q.m2 = HTC__CAST(uint32_t, m) << 1;
    q.e = m ? -shift : 1;
    q.c = q.e > 0 && q.e < 32 ? HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << q.e) >> 1) : 0;   /* unused otherwise */
    return q;
}

static inline int32_t htc__xrq_apply(htc__xrq q, int32_t acc)
{
    const int64_t pr = HTC__CAST(int64_t, acc) * HTC__CAST(int64_t, q.m2);
    const int32_t h = HTC__CAST(int32_t, pr >> 32) + HTC__CAST(int32_t, HTC__CAST(uint32_t, pr) >> 31);
    return (h + q.c + (h >> 31)) >> q.e;
}

/* onnxruntime's float requantization when the scale is exactly 2^-e,
   1 <= e <= 30, and |acc| < 2^24 (float(acc) exact; the parameter block's
   exact_shift, gen/dispatch.c): acc rounded half to even at bit e,
   (acc + 2^(e-1) - 1 + bit e of acc) >> e. */
static inline htc__xrq htc__xrq_rne_make(int e)
{
    htc__xrq q;
    q.m2 = 0;
    q.e = e;
    q.c = (1 << (e - 1)) - 1;
    return q;
}

static inline int32_t htc__xrq_rne(htc__xrq q, int32_t acc)
{
    return (acc + q.c + ((acc >> q.e) & 1)) >> q.e;
}

/* QuantLib's RequantShift on the same paths (the epilogue kind of
   htc__ql_conv2d and htc__ql_matmul): clip((acc * mul + add +
   2^(shift-1)) >> shift, lo, hi) -
   out_off is, with the output offset folded into the constant,
   (acc * mul + c) >> shift clamped to [lo - out_off, hi - out_off], where
   c = add + 2^(shift-1) - out_off * 2^shift: one multiply, one add and one
   shift in 32-bit arithmetic, exact while every |acc * mul + c| < 2^31
   (the callers check it per channel from |bias| and the taps:
   kernels/conv2d.c htc__xql_ok, fc.c htc__ql_fc_xp_exact). Held in
   htc__xrq's fields (m2 = mul, c, e = shift). */
static inline htc__xrq htc__xql_make(int32_t mul, int32_t add, int32_t shift, int32_t zp)
{
    htc__xrq q;
    const int64_t c = HTC__CAST(int64_t, add) + (shift > 0 ? HTC__CAST(int64_t, 1) << (shift - 1) : 0) +
                      HTC__CAST(int64_t, zp) * (HTC__CAST(int64_t, 1) << shift);
    q.m2 = HTC__CAST(uint32_t, mul);
    q.c = HTC__CAST(int32_t, c);            /* fits: checked by the caller */
    q.e = shift;
    return q;
}

static inline int32_t htc__xql_apply(htc__xrq q, int32_t acc)
{
    return HTC__CAST(int32_t, HTC__CAST(uint32_t, acc) * q.m2 + HTC__CAST(uint32_t, q.c)) >> q.e;
}

/* TFLite's requantization in final form, one record of HTC__XQ2_N words
   per output channel written by the generator (gen/quant.c quant_xq2)
   where it is exact for every int32 accumulator the layer can reach: f the
   start value (bias - in_zp * the weight sums - a, folded at compile
   time), u = clamp(acc - a, 0, w) the accumulator's offset into the only
   window where the output is neither act_min nor act_max (w < 2^17), then
   (((rlo + u * ml) >> 15) + u * mh + rhi) >> s with m = mh * 2^15 + ml:
   u * m exactly in two 32-bit products (no 64-bit multiply), TFLite's two
   roundings, out_zp and act_min in the constants rlo, rhi, and act_min /
   act_max met by the clamp of u (no output clamp). Every sum is below 2^32
   (the window holds 256 outputs at most), the last one's value within
   int32. */
/* the record's arithmetic on its words (loaded by the caller, once for
   several outputs: htc__xq2_pair, kernels/conv2d.c htc__xp_quad) */
static inline int32_t htc__xq2_run(uint32_t u, uint32_t rlo, uint32_t ml, uint32_t mh, uint32_t rhi, int32_t s)
{
    return HTC__CAST(int32_t, ((rlo + u * ml) >> 15) + u * mh + rhi) >> s;
}

static inline int32_t htc__xq2_apply(const int32_t *r, int32_t acc)
{
    const uint32_t u = HTC__CAST(uint32_t, htc__xp_clipu(acc, r[HTC__XQ2_W]));
    return htc__xq2_run(u, HTC__CAST(uint32_t, r[HTC__XQ2_RLO]), HTC__CAST(uint32_t, r[HTC__XQ2_ML]),
                        HTC__CAST(uint32_t, r[HTC__XQ2_MH]), HTC__CAST(uint32_t, r[HTC__XQ2_RHI]), r[HTC__XQ2_S]);
}

/* two outputs of one channel's record r, its words loaded once (before
   any store, which could alias them) */
static inline void htc__xq2_pair(const int32_t *r, int32_t a0, int32_t a1, int8_t *o0, int8_t *o1)
{
    const int32_t w = r[HTC__XQ2_W], s = r[HTC__XQ2_S];
    const uint32_t ml = HTC__CAST(uint32_t, r[HTC__XQ2_ML]), mh = HTC__CAST(uint32_t, r[HTC__XQ2_MH]);
    const uint32_t rlo = HTC__CAST(uint32_t, r[HTC__XQ2_RLO]), rhi = HTC__CAST(uint32_t, r[HTC__XQ2_RHI]);
    const uint32_t u0 = HTC__CAST(uint32_t, htc__xp_clipu(a0, w)), u1 = HTC__CAST(uint32_t, htc__xp_clipu(a1, w));
    const int32_t v0 = htc__xq2_run(u0, rlo, ml, mh, rhi, s), v1 = htc__xq2_run(u1, rlo, ml, mh, rhi, s);
    *o0 = HTC__CAST(int8_t, v0);
    *o1 = HTC__CAST(int8_t, v1);
}

/* c + a * b in 32 bits (p.mac: one cycle, no 64-bit product) */
static inline uint32_t htc__xp_mac(uint32_t c, uint32_t a, uint32_t b)
{
#ifdef HTC__XP_ASM
    __asm__(".insn r 0x33, 0, 0x21, %0, %1, %2" : "+r"(c) : "r"(a), "r"(b));
    return c;
#else
    return c + a * b;
#endif
}

/* A dense convolution's requantization in final form for right shifts the
   two-product record cannot take (e up to 11: windows up to 2^20), one
   record of HTC__XQ3_N words per output channel (gen/quant.c quant_xq3):
   f and u = clamp(acc - a, 0, w) as htc__xq2_apply's, m = m2 * 2^22 +
   m1 * 2^11 + m0, then ((((r + u * m0) >> 11) + u * m1) >> 11) + u * m2 +
   rh) >> s: u * m in three 32-bit products (p.mac), the low two parts of
   TFLite's rounding constant in r (below 2^22), the rest with out_zp and
   act_min in rh. Each sum is below 2^32, the last one's value within
   int32 (checked per channel by the generator at both sides of every
   output step, against htc__requant). 20 instructions a channel's two
   outputs on GVSoC's cluster against 25 and two MULHSU for htc__xrq.
   two (a layer without a fused ReLU, the record's form 4): outputs below
   out_zp + 1 round their ties the other way (TFLite's second rounding is
   half away from zero), 2^31 less in the rounding constant: 512 less in
   rh for u below the record's u0 (the first u of output out_zp + 1). */
/* the record's arithmetic on its words (loaded by the caller, once for
   several outputs: htc__xq3_pair, kernels/conv2d.c htc__xp_quad), rh with
   the form-4 correction for this u already taken off */
static inline int32_t htc__xq3_run(uint32_t u, uint32_t r0, uint32_t m0, uint32_t m1, uint32_t m2, uint32_t rh, int32_t s)
{
    uint32_t t = htc__xp_mac(r0, u, m0);
    t = htc__xp_mac(t >> 11, u, m1);
    t = htc__xp_mac((t >> 11) + rh, u, m2);
    return HTC__CAST(int32_t, t) >> s;
}

static inline int32_t htc__xq3_apply(const int32_t *r, int32_t acc, int two)
{
    const uint32_t u = HTC__CAST(uint32_t, htc__xp_clipu(acc, r[HTC__XQ3_W]));
    uint32_t rh = HTC__CAST(uint32_t, r[HTC__XQ3_RH]);
    if (two) rh -= HTC__CAST(uint32_t, u < HTC__CAST(uint32_t, r[HTC__XQ3_U])) << 9;
    return htc__xq3_run(u, HTC__CAST(uint32_t, r[HTC__XQ3_R]), HTC__CAST(uint32_t, r[HTC__XQ3_M0]),
                        HTC__CAST(uint32_t, r[HTC__XQ3_M1]), HTC__CAST(uint32_t, r[HTC__XQ3_M2]), rh, r[HTC__XQ3_S]);
}

/* two outputs of one channel's record r, its words loaded once (before
   any store, which could alias them) */
static inline void htc__xq3_pair(const int32_t *r, int32_t a0, int32_t a1, int8_t *o0, int8_t *o1, int two)
{
    const int32_t w = r[HTC__XQ3_W], s = r[HTC__XQ3_S];
    const uint32_t m0 = HTC__CAST(uint32_t, r[HTC__XQ3_M0]), m1 = HTC__CAST(uint32_t, r[HTC__XQ3_M1]);
    const uint32_t m2 = HTC__CAST(uint32_t, r[HTC__XQ3_M2]), r0 = HTC__CAST(uint32_t, r[HTC__XQ3_R]);
    const uint32_t rh = HTC__CAST(uint32_t, r[HTC__XQ3_RH]);
    const uint32_t u0 = HTC__CAST(uint32_t, htc__xp_clipu(a0, w)), u1 = HTC__CAST(uint32_t, htc__xp_clipu(a1, w));
    uint32_t h0 = rh, h1 = rh;
    if (two) {
        const uint32_t uu = HTC__CAST(uint32_t, r[HTC__XQ3_U]);
        h0 -= HTC__CAST(uint32_t, u0 < uu) << 9;
        h1 -= HTC__CAST(uint32_t, u1 < uu) << 9;
    }
    *o0 = HTC__CAST(int8_t, htc__xq3_run(u0, r0, m0, m1, m2, h0, s));
    *o1 = HTC__CAST(int8_t, htc__xq3_run(u1, r0, m0, m1, m2, h1, s));
}

/* the requantization of kind ql (a constant where it is inlined): 0
   TFLite's (htc__xrq_apply), 1 QuantLib's (htc__xql_apply), 2
   onnxruntime's exact shift (htc__xrq_rne) */
#define HTC__XQ_APPLY(ql, q, acc) \
    ((ql) == 1 ? htc__xql_apply((q), (acc)) : (ql) == 2 ? htc__xrq_rne((q), (acc)) : htc__xrq_apply((q), (acc)))

/* the lane-wise maximum / minimum of four signed bytes (pv.max.b, pv.min.b) */
static inline uint32_t htc__xp_max4(uint32_t a, uint32_t b)
{
#ifdef HTC__XP_ASM
    __asm__(".insn r 0x57, 1, 0x18, %0, %0, %1" : "+r"(a) : "r"(b));
    return a;
#else
    uint32_t r = 0;
    int i;
    for (i = 0; i < 32; i += 8) {
        const int8_t x = HTC__CAST(int8_t, (a >> i) & 0xffu), y = HTC__CAST(int8_t, (b >> i) & 0xffu);
        r |= HTC__CAST(uint32_t, HTC__CAST(uint8_t, x > y ? x : y)) << i;
    }
    return r;
#endif
}

static inline uint32_t htc__xp_min4(uint32_t a, uint32_t b)
{
#ifdef HTC__XP_ASM
    __asm__(".insn r 0x57, 1, 0x10, %0, %0, %1" : "+r"(a) : "r"(b));
    return a;
#else
    uint32_t r = 0;
    int i;
    for (i = 0; i < 32; i += 8) {
        const int8_t x = HTC__CAST(int8_t, (a >> i) & 0xffu), y = HTC__CAST(int8_t, (b >> i) & 0xffu);
        r |= HTC__CAST(uint32_t, HTC__CAST(uint8_t, x < y ? x : y)) << i;
    }
    return r;
#endif
}

/* a word to p (any alignment) */
static inline void htc__xp_st4(int8_t *p, uint32_t v)
{
#ifdef HTC__XP_ASM
    __asm__ volatile("sw %1, 0(%0)" : : "r"(p), "r"(v) : "memory");
#else
    memcpy(p, &v, 4);
#endif
}

/* the sum of n signed bytes (dot products with 0x01010101) */
static HTC__UNUSED int32_t htc__xp_sum(const int8_t *w, int32_t n)
{
    int32_t i, s = 0;
    for (i = 0; i + 4 <= n; i += 4) s = htc__xp_sdot4(s, htc__xp_ld4(w + i), 0x01010101u);
    for (; i < n; i++) s += w[i];
    return s;
}
#endif

/* Count leading zeros of a 32-bit value; 32 for 0. */
static inline int htc__clz32(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return x ? __builtin_clz(x) : 32;
#else
    int n = 0;
    if (!x) return 32;
    while (!(x & 0x80000000u)) { x <<= 1; n++; }
    return n;
#endif
}

/* gemmlowp SaturatingRoundingMultiplyByPOT<e> for e > 0: x * 2^e saturated. */
static inline int32_t htc__sat_shl(int32_t x, int e)
{
    int32_t thr = HTC__CAST(int32_t, (HTC__CAST(int32_t, 1) << (31 - e)) - 1);
    if (x > thr) return INT32_MAX;
    if (x < -thr) return INT32_MIN;
    return HTC__CAST(int32_t, HTC__CAST(uint32_t, x) << e);
}

/* gemmlowp RoundingHalfSum: (a + b) / 2 rounded half away from zero. */
static inline int32_t htc__rhalfsum(int32_t a, int32_t b)
{
    int64_t s = HTC__CAST(int64_t, a) + HTC__CAST(int64_t, b);
    return HTC__CAST(int32_t, (s + (s >= 0 ? 1 : -1)) / 2);
}

/* gemmlowp exp(x) for x in [-1/4, 0); Q0.31 in and out. */
static inline int32_t htc__exp_quarter_q0(int32_t a)
{
    const int32_t c_exp_m1_8 = 1895147668;      /* exp(-1/8) */
    const int32_t c_1_3 = 715827883;            /* 1/3 */
    int32_t x = a + (HTC__CAST(int32_t, 1) << 28);
    int32_t x2 = htc__srdhm(x, x);
    int32_t x3 = htc__srdhm(x2, x);
    int32_t x4 = htc__srdhm(x2, x2);
    int32_t x4_4 = htc__rdivpot(x4, 2);
    int32_t poly = htc__rdivpot(htc__srdhm(x4_4 + x3, c_1_3) + x2, 1);
    return c_exp_m1_8 + htc__srdhm(c_exp_m1_8, x + poly);
}

/* gemmlowp exp_on_negative_values for a fixed-point input with
   int_bits integer bits (1..5 as TFLite uses it); result Q0.31. */
static inline int32_t htc__exp_neg(int32_t a, int int_bits)
{
    int frac = 31 - int_bits;
    int32_t quarter = HTC__CAST(int32_t, 1) << (frac - 2);
    int32_t amq = (a & (quarter - 1)) - quarter;
    int32_t r = htc__exp_quarter_q0(int_bits ? htc__sat_shl(amq, int_bits) : amq);
    int32_t rem = amq - a;
    /* barrel shifter: multiply by exp(-2^e) for every set bit e = -2..4 */
    if (rem & (HTC__CAST(int32_t, 1) << (frac - 2))) r = htc__srdhm(r, 1672461947);
    if (rem & (HTC__CAST(int32_t, 1) << (frac - 1))) r = htc__srdhm(r, 1302514674);
    if (int_bits > 0 && (rem & (HTC__CAST(int32_t, 1) << frac))) r = htc__srdhm(r, 790015084);
    if (int_bits > 1 && (rem & (HTC__CAST(int32_t, 1) << (frac + 1)))) r = htc__srdhm(r, 290630308);
    if (int_bits > 2 && (rem & (HTC__CAST(int32_t, 1) << (frac + 2)))) r = htc__srdhm(r, 39332535);
    if (int_bits > 3 && (rem & (HTC__CAST(int32_t, 1) << (frac + 3)))) r = htc__srdhm(r, 720401);
    if (int_bits > 4 && (rem & (HTC__CAST(int32_t, 1) << (frac + 4)))) r = htc__srdhm(r, 242);
    return a == 0 ? INT32_MAX : r;
}

/* gemmlowp one_over_one_plus_x_for_x_in_0_1: Q0.31 in and out. */
static inline int32_t htc__one_over_one_plus_x(int32_t a)
{
    const int32_t c48_17 = 1515870810, cm32_17 = -1010580540;   /* Q2.29 */
    const int32_t one_q2 = HTC__CAST(int32_t, 1) << 29;
    int32_t half_den = htc__rhalfsum(a, INT32_MAX);
    int32_t x = c48_17 + htc__srdhm(half_den, cm32_17);
    int i;
    for (i = 0; i < 3; i++) {
        int32_t one_minus = one_q2 - htc__srdhm(half_den, x);
        x = x + htc__sat_shl(htc__srdhm(x, one_minus), 2);
    }
    return htc__sat_shl(x, 1);
}

/* ---- int8 dot products (conv, FC) ---------------------------------------
   htc__dot4_s8: acc[k] += sum_{i<n} (x[i] + off) * w[k * ws + i], k = 0..3:
   four weight rows against one input run, the input (and its zero-point
   offset) loaded once for four multiply-accumulates. off is -zero_point, so
   x + off fits int16 and each pmaddwd pair sum fits int32 exactly. */
#ifdef HTC__SSE2
#define HTC__LD128(p) _mm_loadu_si128(HTC__CAST(const __m128i *, HTC__CAST(const void *, (p))))
#define HTC__LD64(p) _mm_loadl_epi64(HTC__CAST(const __m128i *, HTC__CAST(const void *, (p))))
/* sign-extend the low / high 8 bytes of v to int16 */
#define HTC__LO16(v) _mm_srai_epi16(_mm_unpacklo_epi8((v), (v)), 8)
#define HTC__HI16(v) _mm_srai_epi16(_mm_unpackhi_epi8((v), (v)), 8)

/* horizontal sums of four int32x4 vectors: {sum(s0), sum(s1), sum(s2), sum(s3)} */
static inline __m128i htc__hsum4v(__m128i s0, __m128i s1, __m128i s2, __m128i s3)
{
    __m128i a = _mm_add_epi32(_mm_unpacklo_epi32(s0, s1), _mm_unpackhi_epi32(s0, s1));
    __m128i b = _mm_add_epi32(_mm_unpacklo_epi32(s2, s3), _mm_unpackhi_epi32(s2, s3));
    return _mm_add_epi32(_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b));
}

/* the same, added to acc[0..3] */
static inline void htc__hsum4(__m128i s0, __m128i s1, __m128i s2, __m128i s3, int32_t *acc)
{
    int32_t t[4];
    _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, t)), htc__hsum4v(s0, s1, s2, s3));
    acc[0] += t[0]; acc[1] += t[1]; acc[2] += t[2]; acc[3] += t[3];
}
#endif

#ifdef HTC__SSE2
/* Four requantizations at once (lanes = four output channels), the same
   values as htc__rq_apply: with m >= 0 the signed product x*m is the
   unsigned one of (uint32)x and m minus 2^32*m when x < 0, so
   (x*m + 2^30) >> 31 is ((u + 2^30) >> 31) - 2m (mod 2^32) from pmuludq;
   the rounding shift by a per-lane e uses floor(h / 2^e) =
   floor((h + 2^31) / 2^e) - 2^(31-e), again one pmuludq by 2^(31-e), plus
   gemmlowp's remainder test; the clamp runs in int16 (SSE2 has min/max
   there) after a saturating pack, which cannot move a value across the
   int8 bounds. Usable when no lane needs a left shift (multiplier < 1). */
typedef struct {
    __m128i m, m2, p2, mask, half;
} htc__rq4;

/* Returns 0 (and the caller falls back to htc__rq_apply) if a lane has a
   positive shift. m/s: four multipliers and shifts, step 0 or 1 apart. */
static inline int htc__rq4_make(htc__rq4 *q, const int32_t *m, const int8_t *s, int32_t step)
{
    int32_t mv[4], pv[4], kv[4], hv[4];
    int k;
    for (k = 0; k < 4; k++) {
        const int e = -s[k * step];
        if (e < 0 || e > 31) return 0;
        mv[k] = m[k * step];
        pv[k] = HTC__CAST(int32_t, HTC__CAST(uint32_t, 1) << (31 - e));
        kv[k] = HTC__CAST(int32_t, (HTC__CAST(uint32_t, 1) << e) - 1u);
        hv[k] = kv[k] >> 1;
    }
    q->m = _mm_setr_epi32(mv[0], mv[1], mv[2], mv[3]);
    q->m2 = _mm_add_epi32(q->m, q->m);
    q->p2 = _mm_setr_epi32(pv[0], pv[1], pv[2], pv[3]);
    q->mask = _mm_setr_epi32(kv[0], kv[1], kv[2], kv[3]);
    q->half = _mm_setr_epi32(hv[0], hv[1], hv[2], hv[3]);
    return 1;
}

/* low dwords of the four 64-bit halves of a (lanes 0, 2) and b (lanes 1, 3) */
static inline __m128i htc__even_odd(__m128i a, __m128i b)
{
    return _mm_unpacklo_epi32(_mm_shuffle_epi32(a, 0x08), _mm_shuffle_epi32(b, 0x08));
}

/* (floor-shifted) unsigned x * p >> 31 per lane, x and p as uint32 */
static inline __m128i htc__mulshr31(__m128i x, __m128i p, __m128i add)
{
    __m128i e = _mm_mul_epu32(x, p);
    __m128i o = _mm_mul_epu32(_mm_srli_epi64(x, 32), _mm_srli_epi64(p, 32));
    e = _mm_srli_epi64(_mm_add_epi64(e, add), 31);
    o = _mm_srli_epi64(_mm_add_epi64(o, add), 31);
    return htc__even_odd(e, o);
}

/* requantized int32 lanes, before the output offset and clamp */
static inline __m128i htc__rq4_apply(const htc__rq4 *q, __m128i x)
{
    const __m128i r30 = _mm_set_epi32(0, 1 << 30, 0, 1 << 30);
    const __m128i sign = _mm_set1_epi32(HTC__CAST(int32_t, 0x80000000u));
    /* h = SaturatingRoundingDoublingHighMul(x, m) */
    __m128i h = _mm_sub_epi32(htc__mulshr31(x, q->m, r30), _mm_and_si128(_mm_srai_epi32(x, 31), q->m2));
    /* RoundingDivideByPOT(h, e): floor(h / 2^e) + (rem > half + (h < 0)) */
    __m128i fl = _mm_sub_epi32(htc__mulshr31(_mm_xor_si128(h, sign), q->p2, _mm_setzero_si128()), q->p2);
    __m128i rem = _mm_and_si128(h, q->mask);
    __m128i thr = _mm_sub_epi32(q->half, _mm_srai_epi32(h, 31));
    return _mm_sub_epi32(fl, _mm_cmpgt_epi32(rem, thr));
}

/* two requantized vectors -> 8 int8 values (a's four, then b's four) with
   the output zero point added and the activation clamp applied */
static inline __m128i htc__rq4_pack(__m128i a, __m128i b, int32_t zp, int32_t lo, int32_t hi)
{
    const __m128i z = _mm_set1_epi16(HTC__CAST(short, zp));
    __m128i v = _mm_adds_epi16(_mm_packs_epi32(a, b), z);
    v = _mm_max_epi16(v, _mm_set1_epi16(HTC__CAST(short, lo)));
    v = _mm_min_epi16(v, _mm_set1_epi16(HTC__CAST(short, hi)));
    return _mm_packs_epi16(v, v);
}

/* store the low four bytes of v (unaligned) */
static inline void htc__st32(int8_t *d, __m128i v)
{
    const int32_t w = _mm_cvtsi128_si32(v);
    memcpy(d, &w, 4);
}
#endif

/* The portable loop, a function of its own: inlined into a big kernel it
   loses its registers to the kernel's other variables on 32-bit MCUs. */
static HTC__NOINLINE HTC__UNUSED void htc__dot4_s8_c(const int8_t *x, const int8_t *w, int32_t ws, int32_t n, int32_t off,
                                                     int32_t *acc)
{
    const int8_t *w1 = w + ws, *w2 = w1 + ws, *w3 = w2 + ws;
    const int8_t *end = x + n;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    while (x < end) {
        const int32_t v = *x++ + off;
        a0 += v * *w++;
        a1 += v * *w1++;
        a2 += v * *w2++;
        a3 += v * *w3++;
    }
    acc[0] += a0; acc[1] += a1; acc[2] += a2; acc[3] += a3;
}

static inline void htc__dot4_s8(const int8_t *x, const int8_t *w, int32_t ws, int32_t n, int32_t off, int32_t *acc)
{
#ifndef HTC__SSE2
    htc__dot4_s8_c(x, w, ws, n, off, acc);
#else
    const int8_t *w1 = w + ws, *w2 = w1 + ws, *w3 = w2 + ws;
    int32_t i = 0, a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#ifdef HTC__SSE2
    if (n >= 8) {
        const __m128i vo = _mm_set1_epi16(HTC__CAST(short, off));
        __m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;
        for (; i + 16 <= n; i += 16) {
            const __m128i xv = HTC__LD128(x + i);
            const __m128i xl = _mm_add_epi16(HTC__LO16(xv), vo), xh = _mm_add_epi16(HTC__HI16(xv), vo);
            __m128i v;
            v = HTC__LD128(w + i);
            s0 = _mm_add_epi32(s0, _mm_add_epi32(_mm_madd_epi16(xl, HTC__LO16(v)), _mm_madd_epi16(xh, HTC__HI16(v))));
            v = HTC__LD128(w1 + i);
            s1 = _mm_add_epi32(s1, _mm_add_epi32(_mm_madd_epi16(xl, HTC__LO16(v)), _mm_madd_epi16(xh, HTC__HI16(v))));
            v = HTC__LD128(w2 + i);
            s2 = _mm_add_epi32(s2, _mm_add_epi32(_mm_madd_epi16(xl, HTC__LO16(v)), _mm_madd_epi16(xh, HTC__HI16(v))));
            v = HTC__LD128(w3 + i);
            s3 = _mm_add_epi32(s3, _mm_add_epi32(_mm_madd_epi16(xl, HTC__LO16(v)), _mm_madd_epi16(xh, HTC__HI16(v))));
        }
        if (i + 8 <= n) {
            const __m128i xv = HTC__LD64(x + i);
            const __m128i xl = _mm_add_epi16(HTC__LO16(xv), vo);
            __m128i v;
            v = HTC__LD64(w + i);
            s0 = _mm_add_epi32(s0, _mm_madd_epi16(xl, HTC__LO16(v)));
            v = HTC__LD64(w1 + i);
            s1 = _mm_add_epi32(s1, _mm_madd_epi16(xl, HTC__LO16(v)));
            v = HTC__LD64(w2 + i);
            s2 = _mm_add_epi32(s2, _mm_madd_epi16(xl, HTC__LO16(v)));
            v = HTC__LD64(w3 + i);
            s3 = _mm_add_epi32(s3, _mm_madd_epi16(xl, HTC__LO16(v)));
            i += 8;
        }
        htc__hsum4(s0, s1, s2, s3, acc);
    }
#endif
    for (; i < n; i++) {
        const int32_t v = x[i] + off;
        a0 += v * w[i];
        a1 += v * w1[i];
        a2 += v * w2[i];
        a3 += v * w3[i];
    }
    acc[0] += a0; acc[1] += a1; acc[2] += a2; acc[3] += a3;
#endif
}

#ifdef HTC__AVX2
/* htc__dot4_s8 with 16 taps per step in 256-bit registers (AVX2 CPUs). */
static HTC__AVX2_FN HTC__UNUSED void htc__dot4_s8_avx2(const int8_t *x, const int8_t *w, int32_t ws, int32_t n, int32_t off, int32_t *acc)
{
    const int8_t *w1 = w + ws, *w2 = w1 + ws, *w3 = w2 + ws;
    const __m256i vo = _mm256_set1_epi16(HTC__CAST(short, off));
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    int32_t i = 0, a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i xv = _mm256_add_epi16(_mm256_cvtepi8_epi16(HTC__LD128(x + i)), vo);
        s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(HTC__LD128(w + i))));
        s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(HTC__LD128(w1 + i))));
        s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(HTC__LD128(w2 + i))));
        s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(HTC__LD128(w3 + i))));
    }
    for (; i < n; i++) {
        const int32_t v = x[i] + off;
        a0 += v * w[i];
        a1 += v * w1[i];
        a2 += v * w2[i];
        a3 += v * w3[i];
    }
    acc[0] += a0; acc[1] += a1; acc[2] += a2; acc[3] += a3;
    htc__hsum4(_mm_add_epi32(_mm256_castsi256_si128(s0), _mm256_extracti128_si256(s0, 1)),
               _mm_add_epi32(_mm256_castsi256_si128(s1), _mm256_extracti128_si256(s1, 1)),
               _mm_add_epi32(_mm256_castsi256_si128(s2), _mm256_extracti128_si256(s2, 1)),
               _mm_add_epi32(_mm256_castsi256_si128(s3), _mm256_extracti128_si256(s3, 1)), acc);
}
#endif

/* acc += sum_{i<n} (x[i] + off) * w[i] */
static inline int32_t htc__dot1_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t off)
{
    int32_t i = 0, a = 0;
#ifdef HTC__SSE2
    if (n >= 16) {
        const __m128i vo = _mm_set1_epi16(HTC__CAST(short, off));
        __m128i s = _mm_setzero_si128();
        int32_t t[4];
        for (; i + 16 <= n; i += 16) {
            const __m128i xv = HTC__LD128(x + i), v = HTC__LD128(w + i);
            s = _mm_add_epi32(s, _mm_madd_epi16(_mm_add_epi16(HTC__LO16(xv), vo), HTC__LO16(v)));
            s = _mm_add_epi32(s, _mm_madd_epi16(_mm_add_epi16(HTC__HI16(xv), vo), HTC__HI16(v)));
        }
        _mm_storeu_si128(HTC__CAST(__m128i *, HTC__CAST(void *, t)), s);
        a = t[0] + t[1] + t[2] + t[3];
    }
#endif
    for (; i < n; i++) a += (x[i] + off) * w[i];
    return a;
}

/* ---- Kernel parameter blocks --------------------------------------------
   The generator writes one const block per layer; kernels in kernels/ read
   them. Requantization of TFLite models: per output channel c,
   out = clamp(mulq(acc, mult[c], shift[c]) + out_zp, act_min, act_max);
   when per_channel is 0, mult[0]/shift[0] apply to every channel. */

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dil_h, dil_w;
    int32_t pad_top, pad_left;      /* output (0,0) reads input (-pad_top, -pad_left) */
    int32_t depth_mult;             /* depthwise only: out_c = in_c * depth_mult */
    int32_t in_zp;                  /* input zero point */
    int32_t w_zp;                   /* weight zero point (0 for TFLite int8) */
    int32_t out_zp, act_min, act_max;
    int32_t per_channel;
    const int32_t *mult;            /* [out_c] or [1] */
    const int8_t *shift;            /* [out_c] or [1] */
    const int8_t *weights;          /* conv: OHWI [out_c][k_h][k_w][in_c]; dw: [k_h][k_w][out_c] */
    const int32_t *bias;            /* [out_c] or NULL */
    const int32_t *xq2;             /* XpulpV2 cores: [out_c][HTC__XQ2_N] (htc__xq2_apply) or NULL */
    int32_t rq;                     /* HTC__RQ_* decided by the generator, or 0 (the kernel checks) */
    const int32_t *rsum;            /* portable / DSP path C: [out_c][k_h] -in_zp times the sum of each
                                       kernel row's weights (gen/emit.c), or NULL (made per call) */
} htc__conv_params;

/* FULLY_CONNECTED as TFLite Micro computes it (fully_connected_common.cc,
   reference_integer_ops::FullyConnected[PerChannel]): the int32 accumulator
   through MultiplyByQuantizedMultiplier(acc, mult[c], shift[c]) + out_zp,
   clamped; c = output feature when per_channel, else 0. The multipliers are
   QuantizeMultiplier of double(in_scale) * double(w_scale[c]) /
   double(out_scale) per channel, double(float(in_scale * w_scale)) /
   double(out_scale) per tensor (gen/quant.c quant_fc_multipliers). The
   desktop interpreter (ai-edge-litert 2.x) instead rounds double(acc) *
   scale, which differs by up to 2 LSB: htc follows TFLite Micro. */
typedef struct {
    int32_t batches, in_features, out_features;
    int32_t in_zp, w_zp, out_zp, act_min, act_max;
    int32_t per_channel;
    const int32_t *mult;
    const int8_t *shift;
    const int8_t *weights;          /* [out_features][in_features] */
    const int32_t *bias;            /* [out_features] or NULL; the generator folds the input offset
                                       into it when it can (gen/lower.c fold_bias: bias - in_zp * the
                                       row's weight sum, written with in_zp 0) */
    int32_t rq;                     /* HTC__RQ_* decided by the generator, or 0 (the kernel checks) */
} htc__fc_params;

typedef struct {
    int32_t batches, in_h, in_w, c, out_h, out_w;
    int32_t k_h, k_w, stride_h, stride_w, pad_top, pad_left;
    int32_t act_min, act_max;
} htc__pool_params;

/* Element-wise binary ops with broadcasting over up to 4 dims (NHWC order,
   shapes right-aligned and padded to 4). Strides are in elements, 0 on a
   broadcast dimension. ADD follows TFLite's scheme: both inputs shifted left
   by left_shift, scaled to a common scale, summed and scaled to the output. */
typedef struct {
    int32_t out_shape[4];
    int32_t a_stride[4], b_stride[4];
    int32_t a_offset, b_offset;     /* -zero_point of each input */
    int32_t left_shift;
    int32_t a_mult, b_mult, out_mult;
    int8_t a_shift, b_shift, out_shift;
    int32_t out_zp, act_min, act_max;
    int32_t broadcast;              /* 0: both inputs have out_shape */
    const int32_t *xq;              /* XpulpV2 ADD: its tables in final form (gen/quant.c quant_xadd), or NULL */
} htc__binary_params;

/* htc__binary_params.xq: a shift f, then each input's 256 terms (indexed
   by the byte + 128): TFLite's output is clamp((ta[a] + tb[b]) >> f,
   act_min, act_max) for every pair of bytes (htc__xadd_run) */
enum { HTC__XADD_F, HTC__XADD_A, HTC__XADD_B = HTC__XADD_A + 256, HTC__XADD_N = HTC__XADD_B + 256 };

/* An Add through the generator's tables xq (HTC__XADD_*: TFLite's ADD,
   gen/quant.c quant_xadd; QuantLib's Add, quant_qladd; each checked exact
   on every pair of bytes): out[i] = clamp((ta[a[i]] + tb[b[i]]) >> f, lo,
   hi), i < n. An element is two byte loads, two table loads, the sum, one
   shift, the clamp and the store; two elements a step of a hardware loop,
   no load used by the instruction after it (GVSoC: 11 cycles an element,
   10 with the one-instruction clamp) */
static HTC__NOINLINE HTC__UNUSED void htc__xadd_run(const int32_t *xq, int32_t lo, int32_t hi, const int8_t *a,
                                                    const int8_t *b, int8_t *out, int32_t n)
{
    const int32_t *ta = xq + HTC__XADD_A + 128, *tb = xq + HTC__XADD_B + 128;
    const int32_t f = xq[HTC__XADD_F];
#ifdef HTC__XP_ASM
    if (n >= 2) {
        int32_t x0, y0, x1, y1;
        /* lp.setup x0 (loop 0), count n / 2, end = the last instruction of
           the body (22 or 20 after it); p.lb / p.sb post-increment, p.lw
           rd, rs2(rs1); a range [-hi - 1, hi] (all of int8) clamped by one
           p.clip (its register form), else p.max and p.min */
#define HTC__XADD_BODY(LEN, CLAMP)                                                   \
    ".balign 4\n\t.option push\n\t.option norvc\n\t"                                 \
    ".insn i 0x7b, 4, x0, %[n], " LEN "\n\t"                                          \
    ".insn i 0x0b, 0, %[x0], 1(%[a])\n\t"                                             \
    ".insn i 0x0b, 0, %[y0], 1(%[b])\n\t"                                             \
    ".insn i 0x0b, 0, %[x1], 1(%[a])\n\t"                                             \
    ".insn i 0x0b, 0, %[y1], 1(%[b])\n\t"                                             \
    "slli %[x0], %[x0], 2\n\t"                                                        \
    "slli %[y0], %[y0], 2\n\t"                                                        \
    "slli %[x1], %[x1], 2\n\t"                                                        \
    "slli %[y1], %[y1], 2\n\t"                                                        \
    ".insn r 0x03, 7, 0x10, %[x0], %[ta], %[x0]\n\t"                                  \
    ".insn r 0x03, 7, 0x10, %[y0], %[tb], %[y0]\n\t"                                  \
    ".insn r 0x03, 7, 0x10, %[x1], %[ta], %[x1]\n\t"                                  \
    ".insn r 0x03, 7, 0x10, %[y1], %[tb], %[y1]\n\t"                                  \
    "add %[x0], %[x0], %[y0]\n\t"                                                     \
    "add %[x1], %[x1], %[y1]\n\t"                                                     \
    "sra %[x0], %[x0], %[f]\n\t"                                                      \
    "sra %[x1], %[x1], %[f]\n\t" CLAMP                                                \
    ".insn s 0x2b, 0, %[x0], 1(%[o])\n\t"                                             \
    ".insn s 0x2b, 0, %[x1], 1(%[o])\n\t"                                             \
    ".option pop"                                                                  \
    : [a] "+r"(a), [b] "+r"(b), [o] "+r"(out), [x0] "=&r"(x0), [y0] "=&r"(y0), [x1] "=&r"(x1), [y1] "=&r"(y1) \
    : [n] "r"(n >> 1), [ta] "r"(ta), [tb] "r"(tb), [f] "r"(f), [lo] "r"(lo), [hi] "r"(hi)                  \
    : "memory"
        if (lo == -hi - 1)
            __asm__ volatile(HTC__XADD_BODY("40", ".insn r 0x33, 5, 0x0a, %[x0], %[x0], %[hi]\n\t"
                                                  ".insn r 0x33, 5, 0x0a, %[x1], %[x1], %[hi]\n\t"));
        else
            __asm__ volatile(HTC__XADD_BODY("44", ".insn r 0x33, 6, 0x02, %[x0], %[x0], %[lo]\n\t"
                                                  ".insn r 0x33, 6, 0x02, %[x1], %[x1], %[lo]\n\t"
                                                  ".insn r 0x33, 4, 0x02, %[x0], %[x0], %[hi]\n\t"
                                                  ".insn r 0x33, 4, 0x02, %[x1], %[x1], %[hi]\n\t"));
#undef HTC__XADD_BODY
        if (n & 1) *out = HTC__CAST(int8_t, htc__xp_clamp((ta[*a] + tb[*b]) >> f, lo, hi));
        return;
    }
#endif
    {
        int32_t i;
        for (i = 0; i < n; i++) out[i] = HTC__CAST(int8_t, htc__clamp((ta[a[i]] + tb[b[i]]) >> f, lo, hi));
    }
}

/* MEAN over H and W of NHWC (keep_dims or not: same bytes). mult/shift are
   Prepare's in_scale/out_scale multiplier; the kernel folds 1/(in_h*in_w)
   into it at run time exactly as reference_ops::QuantizedMeanOrSum does. */
typedef struct {
    int32_t batches, in_h, in_w, c;
    int32_t in_zp, out_zp, mult, shift;
    int32_t act_min, act_max;
} htc__mean_params;

typedef struct {
    int32_t rank;                   /* 1..5, shapes padded at the front */
    int32_t in_shape[5];
    int32_t before[5], after[5];
    int32_t elem_size;
    int32_t pad_value;              /* int8/uint8/int32 value written in padding */
} htc__pad_params;

typedef struct {
    int32_t outer;                  /* product of dims before the axis */
    int32_t out_axis_bytes;         /* bytes of one outer slice of the output */
    int32_t n;                      /* number of inputs */
    const int32_t *axis_bytes;      /* [n]: bytes of one outer slice of input i */
} htc__concat_params;

/* SOFTMAX over the last dimension, TFLite reference int8 in, int8 or int16
   out (gemmlowp exp). */
typedef struct {
    int32_t outer, depth;
    int32_t input_multiplier, input_left_shift, diff_min;
    int32_t out_zp;                 /* -128 for int8 output, -32768 for int16 */
    int32_t n_exp;                  /* entries of exp_tab (0: none, the exponentials computed) */
    const int32_t *exp_tab;         /* [i] = the row's exponential of diff = -i, i < n_exp (gen/quant.c) */
} htc__softmax_params;

/* QUANTIZE float->int8/uint8: round-half-away(x / scale) + zp, saturated;
   REQUANTIZE int8<->int8/uint8: mulq(x - in_zp, mult, shift) + out_zp;
   DEQUANTIZE: (float)(scale * (x - zp)) computed in double. */
typedef struct {
    int32_t size;
    int32_t in_zp, out_zp, mult, shift;
    int32_t qmin, qmax;
    float scale;
    double dscale;
} htc__quant_params;

/* ---- onnxruntime arithmetic (ONNX models) --------------------------------
   ONNX models follow onnxruntime/MLAS: an int32 accumulator (bias included)
   is converted to float, multiplied by a float scale, clamped to
   [qmin - zp, qmax - zp], rounded half to even and offset by the zero point.
   Activations live in int8 storage; a uint8 tensor is stored as value - 128
   with zero point - 128, which leaves every difference x - zp unchanged.
   Kernels: kernels/conv2d.c and kernels/fc.c (HTC__EPI_FLOAT),
   kernels/ort_eltwise.c, kernels/transpose.c. */

/* Round half to even of |v| < 2^22 without libm or the rounding mode:
   adding and subtracting 1.5 * 2^23 leaves the nearest-even integer. */
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ == 0
#define HTC__FLT_VOLATILE               /* float arithmetic is done in float */
#else
#define HTC__FLT_VOLATILE volatile      /* e.g. x87: force rounding to float */
#endif
static inline int32_t htc__rne(float v)
{
    HTC__FLT_VOLATILE float t = v + 12582912.0f;
    return HTC__CAST(int32_t, t - 12582912.0f);
}

/* Exact integer emulation of the float arithmetic below, for cores without
   a floating-point unit (RV32IMC, Cortex-M0/M3, Cortex-M4 without -mfpu),
   where every float operation is a libgcc call of hundreds of instructions.
   Each function gives the same bits as the float code on every input:
   float(acc) and every product and sum are rounded to 24 significant bits,
   half to even, exactly as IEEE single precision does, in integers (tested
   against the float code exhaustively: tests/kernels/test_softfloat.c).
   HTC_SOFT_FLOAT_EXACT=1 forces the integer code, =0 the float code; the
   default is 1 on targets without hardware float. */
#ifndef HTC_SOFT_FLOAT_EXACT
#if (defined(__riscv) && !defined(__riscv_flen)) || (defined(__arm__) && !defined(__ARM_FP)) || defined(__SOFTFP__)
#define HTC_SOFT_FLOAT_EXACT 1
#else
#define HTC_SOFT_FLOAT_EXACT 0
#endif
#endif

/* number of significant bits of x (0 for 0) */
static inline int32_t htc__bitlen64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    const uint32_t hi = HTC__CAST(uint32_t, x >> 32), lo = HTC__CAST(uint32_t, x);
    if (hi) return 64 - __builtin_clz(hi);
    return lo ? 32 - __builtin_clz(lo) : 0;
#else
    int32_t n = 0;
    while (x) { n++; x >>= 1; }
    return n;
#endif
}

/* x / 2^s rounded half to even; s >= 0, x < 2^63 */
static inline uint64_t htc__shr_rne(uint64_t x, int32_t s)
{
    uint64_t q, r, h;
    if (s <= 0) return x;
    if (s >= 64) return 0;
    q = x >> s;
    r = x & ((HTC__CAST(uint64_t, 1) << s) - 1);
    h = HTC__CAST(uint64_t, 1) << (s - 1);
    return q + (r > h || (r == h && (q & 1)) ? 1 : 0);
}

/* x / 2^s rounded to odd (truncated, the last bit set when anything was
   dropped); s >= 0. Rounding a value rounded to odd with two or more extra
   bits to fewer bits, half to even, is the same as rounding the exact value. */
static inline uint64_t htc__shr_odd(uint64_t x, int32_t s)
{
    if (s <= 0) return x;
    if (s >= 64) return x ? 1 : 0;
    return (x >> s) | ((x & ((HTC__CAST(uint64_t, 1) << s) - 1)) ? 1 : 0);
}

/* A finite float as m * 2^e, |m| < 2^24 (the bits, no float operation) */
static inline int32_t htc__fsplit(float f, int32_t *e)
{
    uint32_t u;
    int32_t m, b;
    memcpy(&u, &f, sizeof u);
    b = HTC__CAST(int32_t, (u >> 23) & 0xffu);
    m = HTC__CAST(int32_t, u & 0x7fffffu);
    if (b) { m |= 0x800000; *e = b - 150; } else *e = -149;
    return (u >> 31) ? -m : m;
}

/* An integer-valued float with |f| < 2^31 as an int32 (clamp bounds) */
static inline int32_t htc__f2i(float f)
{
    int32_t e;
    const int32_t m = htc__fsplit(f, &e);
    if (e >= 0) return HTC__CAST(int32_t, HTC__CAST(uint32_t, m) << e);
    return e <= -24 ? 0 : (m < 0 ? -((-m) >> -e) : m >> -e);
}

/* s * 2^e (|s| < 2^63) rounded to 24 significant bits, half to even: the
   result m (2^23 <= |m| <= 2^24, or 0) with *e updated. No overflow or
   subnormal range: callers make sure neither matters. */
static HTC__INLINE int64_t htc__round24(int64_t s, int32_t *e)
{
    uint64_t a = s < 0 ? 0 - HTC__CAST(uint64_t, s) : HTC__CAST(uint64_t, s);
    const int32_t n = htc__bitlen64(a);
    if (n > 24) { a = htc__shr_rne(a, n - 24); *e += n - 24; }
    else if (n) { a <<= 24 - n; *e -= 24 - n; }
    return s < 0 ? -HTC__CAST(int64_t, a) : HTC__CAST(int64_t, a);
}

/* x * 2^ex + y * 2^ey rounded to 24 bits (htc__round24). |x|, |y| < 2^32,
   and a non-zero operand with the larger exponent has |x| >= 2^23 (a
   normal float's mantissa, or an integer times one). The operand with the
   smaller exponent is shifted right, rounded to odd, only when the exact
   sum would not fit 63 bits; then the sum has 53 bits or more. */
static HTC__INLINE int64_t htc__add24(int64_t x, int32_t ex, int64_t y, int32_t ey, int32_t *e)
{
    int32_t d, k;
    uint64_t ya;
    int64_t s;
    if (!y) { *e = ex; return htc__round24(x, e); }
    if (!x) { *e = ey; return htc__round24(y, e); }
    if (ex < ey) {
        const int64_t t = x; const int32_t te = ex;
        x = y; ex = ey; y = t; ey = te;
    }
    d = ex - ey;
    k = d > 30 ? d - 30 : 0;
    ya = htc__shr_odd(y < 0 ? 0 - HTC__CAST(uint64_t, y) : HTC__CAST(uint64_t, y), k);
    s = HTC__CAST(int64_t, HTC__CAST(uint64_t, x) << (d - k));
    s = y < 0 ? s - HTC__CAST(int64_t, ya) : s + HTC__CAST(int64_t, ya);
    *e = ey + k;
    return htc__round24(s, e);
}

/* m * 2^e (|m| <= 2^24) rounded half to even to an integer, clamped to
   [lo, hi]; *big (if not NULL) is set when |m * 2^e| >= 2^31. */
static HTC__INLINE int32_t htc__rint24(int64_t m, int32_t e, int32_t lo, int32_t hi, int32_t *big)
{
    const uint64_t a = m < 0 ? 0 - HTC__CAST(uint64_t, m) : HTC__CAST(uint64_t, m);
    uint64_t r;
    int64_t v;
    if (e >= 0) {
        if (e > 31) r = a ? HTC__CAST(uint64_t, 1) << 40 : 0;
        else r = a << e;
    } else {
        r = htc__shr_rne(a, -e);
    }
    if (big) *big = e >= 0 && (a << (e > 31 ? 31 : e)) >= (HTC__CAST(uint64_t, 1) << 31);
    v = m < 0 ? -HTC__CAST(int64_t, r) : HTC__CAST(int64_t, r);
    return v < lo ? lo : (v > hi ? hi : HTC__CAST(int32_t, v));
}

/* (neg ? -1 : 1) * q * 2^e, 2^23 <= q <= 2^24, rounded half to even to an
   integer and clamped to [lo, hi], in 32-bit arithmetic: rounding half to
   even of x at bit k is (x + 2^(k-1) - 1 + bit k of x) >> k. */
static inline int32_t htc__rint_q24(uint32_t q, int32_t e, int neg, int32_t lo, int32_t hi)
{
    const int32_t s = -e;
    int64_t v;
    if (s <= 0) {
        v = s < -8 ? HTC__CAST(int64_t, 1) << 40 : HTC__CAST(int64_t, q) << -s;
    } else if (s > 25) {
        v = 0;
    } else {
        const uint32_t h = 1u << (s - 1);
        v = (q + (h - 1u) + ((q >> s) & 1u)) >> s;
    }
    v = neg ? -v : v;
    return v < lo ? lo : (v > hi ? hi : HTC__CAST(int32_t, v));
}

/* round(clamp(float(acc) * scale, lo, hi)) as htc__rq_float computes it,
   in integers: float(acc) (24 bits); the exact product p of the mantissas
   (< 2^49) rounded half to even to its top 24 bits q (the float product,
   q * 2^e); q rounded half to even to an integer and clamped (the same as
   clamping first: lo and hi are integers). Past the multiplication every
   step is 32-bit (RV32 and Cortex-M have no 64-bit shifts). Rounding half
   to even of x at bit k: (x + 2^(k-1) - 1 + bit k of x) >> k. */
static inline int32_t htc__rq_int(int32_t acc, float scale, int32_t lo, int32_t hi)
{
    int32_t e, n, r;
    const int32_t ms = htc__fsplit(scale, &e);
    uint32_t m = HTC__CAST(uint32_t, ms < 0 ? -ms : ms);
    uint32_t a = acc < 0 ? 0u - HTC__CAST(uint32_t, acc) : HTC__CAST(uint32_t, acc);
    uint32_t q, plo, phi;
    uint64_t p;
    if (!a || !m) return 0 < lo ? lo : (0 > hi ? hi : 0);
    while (!(m >> 23)) { m <<= 1; e--; }        /* a subnormal scale */
    n = htc__bitlen64(a);
    if (n > 24) {                               /* float(acc) */
        const int32_t d = n - 24;
        a = (a + ((1u << (d - 1)) - 1u) + ((a >> d) & 1u)) >> d;
        e += d;
        n = 24 + HTC__CAST(int32_t, a >> 24);
    }
    p = HTC__CAST(uint64_t, a) * m;             /* in [2^(n+22), 2^(n+24)) */
    plo = HTC__CAST(uint32_t, p);
    phi = HTC__CAST(uint32_t, p >> 32);
    r = n - 1 + (n >= 9 ? (phi >> (n - 9) ? 1 : 0) : (phi || (plo >> (n + 23)) ? 1 : 0));
    if (r > 0) {                                /* r <= 25: the dropped bits are in plo */
        const uint32_t rem = plo & ((1u << r) - 1u), half = 1u << (r - 1);
        q = (plo >> r) | (phi << (32 - r));
        q += (rem > half || (rem == half && (q & 1u))) ? 1u : 0u;
        e += r;
    } else {
        q = plo;
    }
    return htc__rint_q24(q, e, (acc < 0) != (ms < 0), lo, hi);
}

/* float(acc) * scale as IEEE single precision computes it, in integers:
   m * 2^e with 2^23 <= |m| <= 2^24, or 0 */
static inline int64_t htc__mul24(int32_t acc, float scale, int32_t *e)
{
    int32_t n;
    const int32_t ms = htc__fsplit(scale, e);
    uint32_t a = acc < 0 ? 0u - HTC__CAST(uint32_t, acc) : HTC__CAST(uint32_t, acc);
    uint64_t p;
    if (a >> 24) {                              /* float(acc) */
        n = htc__bitlen64(a) - 24;
        a = HTC__CAST(uint32_t, htc__shr_rne(a, n));
        *e += n;
    }
    p = HTC__CAST(uint64_t, a) * HTC__CAST(uint32_t, ms < 0 ? -ms : ms);
    return htc__round24((acc < 0) != (ms < 0) ? -HTC__CAST(int64_t, p) : HTC__CAST(int64_t, p), e);
}

/* fmaf without libm or an FMA unit: the product of two floats is exact in
   double; the sum is rounded to odd (TwoSum gives the error, a non-zero
   error forces the last bit to 1), and rounding that double to float is
   then the correctly rounded fused multiply-add (53 >= 2 * 24 + 2). */
static HTC__UNUSED float htc__fmaf(float a, float b, float c)
{
#if defined(__FP_FAST_FMAF) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_fmaf(a, b, c);     /* a fused multiply-add instruction (e.g. Cortex-M4F VFMA) */
#else
    volatile double p = HTC__CAST(double, a) * HTC__CAST(double, b);
    volatile double s = p + HTC__CAST(double, c);
    const double bb = s - p;
    const double err = (p - (s - bb)) + (HTC__CAST(double, c) - bb);
    double r = s;
    if (err != 0) {
        uint64_t u;
        memcpy(&u, &r, sizeof u);
        if (!(u & 1)) {
            if ((err > 0) == (r > 0)) u++;
            else u--;
            memcpy(&r, &u, sizeof u);
        }
    }
    return HTC__CAST(float, r);
#endif
}

/* MlasRequantizeOutput for one value: float(acc) * scale, clamped, rounded
   half to even, plus zp. lo/hi are qmin - zp and qmax - zp as floats. (The
   clamp between the product and the rounding add keeps compilers from
   contracting them into a fused multiply-add.) */
static inline int32_t htc__rq_float_fp(int32_t acc, float scale, float lo, float hi, int32_t zp)
{
    HTC__FLT_VOLATILE float v = HTC__CAST(float, acc) * scale;
    float c = v < lo ? lo : v;
    c = c > hi ? hi : c;
    return htc__rne(c) + zp;
}

/* the same without float operations (htc__rq_int) */
static inline int32_t htc__rq_float_ix(int32_t acc, float scale, float lo, float hi, int32_t zp)
{
    return htc__rq_int(acc, scale, htc__f2i(lo), htc__f2i(hi)) + zp;
}

static inline int32_t htc__rq_float(int32_t acc, float scale, float lo, float hi, int32_t zp)
{
#if HTC_SOFT_FLOAT_EXACT
    return htc__rq_float_ix(acc, scale, lo, hi, zp);
#else
    return htc__rq_float_fp(acc, scale, lo, hi, zp);
#endif
}

/* QLinearConv / ConvInteger, NHWC. Output channel o belongs to group
   o / group_out and reads input channels [g * group_in, (g + 1) * group_in);
   depthwise is group_in == 1. Taps outside the input contribute nothing (the
   padding value is the input zero point). w_zp: weight zero points, [out_c]
   when per_channel else [1], or NULL when all zero. scale == NULL: the
   output is the int32 accumulator (ConvInteger). */
typedef struct {
    int32_t batches, in_h, in_w, in_c, out_h, out_w, out_c;
    int32_t k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left;
    int32_t group_in, group_out;
    int32_t in_zp, out_zp, qmin, qmax;      /* stored (int8) domain */
    int32_t per_channel;
    const float *scale;                     /* x_scale * w_scale[o] / y_scale, in float */
    const int8_t *weights;                  /* [out_c][k_h][k_w][group_in] */
    const int32_t *bias;                    /* [out_c] or NULL */
    const int32_t *w_zp;
    int32_t exact_shift;                    /* 1: every scale is 2^-s and |acc| < 2^24 (gen/dispatch.c
                                               find_exact_shift), so the float requantization is a shift
                                               rounding half to even (the XpulpV2 paths take it) */
} htc__qconv_params;

/* QLinearMatMul / QGemm / MatMulInteger: out[b][r][n] = requant(bias[n] +
   sum_k (a[b][r][k] - in_zp) * (w[b or 0][n][k] - w_zp[n])). */
typedef struct {
    int32_t batches, rows, in_features, out_features;
    int32_t w_batches;                      /* 1: weights shared by every batch */
    int32_t in_zp, out_zp, qmin, qmax;
    int32_t per_channel;
    const float *scale;                     /* [out_features] or [1]; NULL: int32 output */
    const int8_t *weights;                  /* [w_batches][out_features][in_features] */
    const int32_t *bias;                    /* [out_features] or NULL */
    const int32_t *w_zp;                    /* [out_features] or [1], or NULL */
    int32_t exact_shift;                    /* as htc__qconv_params' */
} htc__qfc_params;

/* QLinearAdd as MLAS computes it on x86-64 (AVX2 kernel): from the values
   onnxruntime sees (stored + off), c = fma(a, ra, fma(b, rb, fixed)), or
   with a scalar operand folded into `fixed`; rounded half to even, saturated.
   QLinearMul: c = (a - a_zp) * (b - b_zp) * ra in float. */
typedef struct {
    int32_t size;                           /* output elements */
    int32_t a_scalar, b_scalar;             /* operand is a single element */
    int32_t a_off, b_off, out_off;          /* stored + off = onnxruntime's value */
    int32_t a_zp, b_zp;                     /* onnxruntime domain */
    int32_t qmin, qmax;                     /* onnxruntime domain, before - out_off */
    float ra, rb, fixed;
} htc__qbinary_params;

/* QLinearGlobalAveragePool: per (batch, channel) of NHWC,
   requant(sum + bias, scale, zp) with bias = -in_zp * hw and
   scale = x_scale / (y_scale * hw). */
typedef struct {
    int32_t batches, hw, c;
    int32_t bias, out_zp, qmin, qmax;
    float scale;
} htc__qgap_params;

/* Any function of one 8-bit value: out = lut[(uint8_t)in] (kernels/table.c).
   Tables are built at compile time by running the source runtime's own
   arithmetic on the 256 inputs: TFLite Micro's integer kernels (LOGISTIC,
   TANH, HARD_SWISH, RELU, ... gen/quant.c quant_table_*), onnxruntime's
   float arithmetic (dequantize, f, quantize: gen/onnx.c). */
typedef struct {
    int32_t size;
    uint8_t lut[256];
} htc__lut_params;

/* QuantizeLinear (float -> int8 storage) and DequantizeLinear, per tensor or
   per channel: element i has channel (i / inner) % channels. Quantize:
   x / scale clamped to [qmin - zp, qmax - zp], rounded half to even, + zp;
   dequantize: float(x - zp) * scale. */
typedef struct {
    int32_t size, channels, inner;
    int32_t qmin, qmax;
    const float *scale;
    const int32_t *zp;
} htc__qlinear_params;

/* Transpose of elements of `elem` bytes, rank <= 6: the output is walked in
   order; stride[d] is the input stride (in elements) of output dim d. */
typedef struct {
    int32_t rank, elem;
    int32_t shape[6];
    int32_t stride[6];
} htc__transpose_params;

/* QLinearAveragePool as onnxruntime computes it: each input byte dequantized
   by table (x_scale * (x - zp)), summed in float over the clipped window
   (rows, then columns), divided by the element count, then
   nearbyint(y / out_scale + out_zp) clamped (onnxruntime domain, - out_off
   for storage). NHWC. quantize_linear: the float AveragePool (MLAS, the
   same sum and division) then QuantizeLinear, nearbyint(clamp(y /
   out_scale, qmin - out_zp, qmax - out_zp)) + out_zp (htc --float-fallback). */
typedef struct {
    int32_t batches, in_h, in_w, c, out_h, out_w;
    int32_t k_h, k_w, stride_h, stride_w, pad_top, pad_left;
    int32_t count_include_pad, quantize_linear;
    int32_t out_zp, out_off, qmin, qmax;
    float out_scale;
    float deq[256];                         /* by stored byte, (uint8_t)x */
} htc__qavgpool_params;

/* QLinearSoftmax over the innermost dimension: per row, e = table[255 + x -
   max] summed in float in order, out = nearbyint(e * y_scale / sum) + out_zp,
   saturated above as onnxruntime 1.31 does (at 127 for int8, 255 for uint8;
   out is never below out_zp), - out_off for storage.
   The same block serves a Softmax QDQ group onnxruntime computes in float
   (--float-fallback, kernels/ort_float.c htc__fsoftmax_s8): there table[b]
   is the DequantizeLinear of stored byte b, y_scale the QuantizeLinear's
   scale and out_zp its zero point in the stored domain. */
typedef struct {
    int32_t outer, depth;
    int32_t out_zp, out_off, is_signed;
    float y_scale;                          /* floor(1 / y_scale) */
    float table[256];
} htc__qsoftmax_params;

/* A QDQ group onnxruntime evaluates in float (htc --float-fallback):
   DequantizeLinear -> Conv -> [Relu/Clip] -> QuantizeLinear, computed the
   way MLAS does it on one thread: each output is the sum over
   k = (channel, ky, kx) of x[k] * w[k] by fused multiply-adds from zero,
   in slices of k_block taps whose partial sums are added in order, then
   + bias, clipped to [clip_lo, clip_hi], divided by out_scale, rounded half
   to even, + out_zp, saturated. x[k] = x_deq[(uint8_t)stored byte];
   w[k] = float(w - w_zp) * w_scale (the DequantizeLinear of the weights).
   NHWC input and output. Weights: per group, blocks of 8 filters, [tap
   k][8] with k in ONNX order (channel, ky, kx); filters past the group's
   end are 0. Taps in the padding read 0.0, as MLAS's im2col writes.
   gemm_m1: a one-row Gemm / MatMul (in_c = K taps, out_c = N filters, a 1x1
   image) as MLAS's M=1 SGEMM kernel sums it: from the bias (or 0), per 4
   taps ((x0 w0 + x1 w1) + x2 w2) + x3 w3 added to the total, then 2, then 1,
   every product and sum rounded (no fused multiply-add). */
typedef struct {
    int32_t batches, in_h, in_w, in_c, out_h, out_w, out_c;
    int32_t k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left;
    int32_t group_in, group_out;
    int32_t k_block;                        /* taps per partial sum */
    int32_t gemm_m1;
    int32_t out_zp, qmin, qmax;             /* stored (int8) domain */
    int32_t per_channel;
    float clip_lo, clip_hi, out_scale;
    const float *w_scale;                   /* [out_c] or [1] */
    const int8_t *weights;
    const int32_t *w_zp;                    /* stored domain, [out_c] or [1], or NULL */
    const float *bias;                      /* dequantized bias [out_c], or NULL */
    float x_deq[256];
} htc__fconv_params;

/* Add / Mul of two dequantized operands in float (htc --float-fallback):
   c = a_deq[a] + b_deq[b] (or *), clipped, divided by out_scale, rounded
   half to even, + out_zp, saturated. A scalar operand is element 0. */
typedef struct {
    int32_t size, a_scalar, b_scalar;
    int32_t out_zp, qmin, qmax;             /* stored domain */
    float clip_lo, clip_hi, out_scale;
    float a_deq[256], b_deq[256];
} htc__fbinary_params;

/* ---- QuantLib's integer graphs (gen/qlib.c, kernels/qlib_*.c) --------------
   Every field is an int32_t (gen/emit.c prints the blocks in field order).
   Kernels take (params, ins, out): ins[] holds every input in order, data
   and constants alike. 8-bit tensors are int8 storage; an unsigned one holds
   value - 128 (off = 128: value = stored + off). The epilogue is QuantLib's
   RequantShift: rq = 1: y = clip((x*mul[c] + add[c] + 2^(shift-1)) >> shift,
   lo, hi) - out_off, the product in 64 bits; rq = 0: y = x as int32. */
static inline int32_t htc__ql_rq(int64_t x, int32_t mul, int32_t add, int32_t shift, int32_t lo, int32_t hi)
{
    int64_t v = x * mul + add;
    if (shift > 0) v = (v + ((int64_t)1 << (shift - 1))) >> shift;
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

/* ---- Requantization epilogues, one per kind ------------------------------
   The accumulation loops of conv2d and fully connected (kernels/conv2d.c,
   kernels/fc.c) are written once; what turns an int32 accumulator into the
   stored output is the op's requantization kind (gen/ir.h RequantKind),
   chosen per layer from this block (htc__epi_put):
   HTC__EPI_TFLITE  TFLite Micro's MultiplyByQuantizedMultiplier(acc, mult[c],
                    shift[c]) + out_zp, clamped to [lo, hi] (htc__requant);
   HTC__EPI_FLOAT   onnxruntime's MlasRequantizeOutput: float(acc) * scale[c]
                    clamped to [flo, fhi], rounded half to even, + out_zp
                    (htc__rq_float);
   HTC__EPI_QUANTLIB QuantLib's RequantShift: clip((acc * mult[c] + add[c] +
                    2^(shift-1)) >> shift, lo, hi) - out_off, the product in
                    64 bits (htc__ql_rq);
   HTC__EPI_FLOAT_MUL onnxruntime's QLinearMul: float(acc) * scale[0] +
                    ffixed (the output zero point as a float), rounded half
                    to even, saturated to [lo, hi] (beyond int32: lo), +
                    out_zp (the storage offset);
   HTC__EPI_INT32   the accumulator itself, stored as int32 (ConvInteger,
                    MatMulInteger, QuantLib without RequantShift).
   c is the output channel when per_channel, else 0. The fast paths of the
   TFLite kind (SSE2, Arm DSP, RV32) use the same arithmetic in their
   precomputed forms (htc__rq_apply, htc__rq4, htc__dsprq, htc__prq). */
enum { HTC__EPI_INT32, HTC__EPI_TFLITE, HTC__EPI_FLOAT, HTC__EPI_QUANTLIB, HTC__EPI_FLOAT_MUL };

typedef struct {
    int32_t kind, per_channel;
    int32_t out_zp, lo, hi;                 /* stored domain; QuantLib: value domain, out_zp = -out_off */
    const int32_t *mult;                    /* TFLite: Q31 multipliers; QuantLib: mul */
    const int8_t *shift;                    /* TFLite: shifts */
    const int32_t *add;                     /* QuantLib: additive terms */
    int32_t ql_shift;                       /* QuantLib: the right shift */
    const float *scale;                     /* float: scales */
    float flo, fhi;                         /* float: qmin - out_zp, qmax - out_zp */
    float ffixed;                           /* float_mul: the zero point added before rounding */
} htc__epi;

static HTC__UNUSED int32_t htc__rq_float_mul_fp(int32_t acc, float scale, float fixed, int32_t lo, int32_t hi)
{
    volatile float v = HTC__CAST(float, acc) * scale;
    volatile float c = v + fixed;
    float t = c;
    int32_t q;
    if (!(t > -2147483648.0f && t < 2147483648.0f)) return lo;
    t = t < HTC__CAST(float, lo - 1) ? HTC__CAST(float, lo - 1) : (t > HTC__CAST(float, hi + 1) ? HTC__CAST(float, hi + 1) : t);
    q = htc__rne(t);
    return q < lo ? lo : (q > hi ? hi : q);
}

/* the same in integers (HTC_SOFT_FLOAT_EXACT): the rounded product
   (htc__mul24), the rounded sum (htc__add24), lo when |sum| >= 2^31 */
static HTC__UNUSED int32_t htc__rq_float_mul_ix(int32_t acc, float scale, float fixed, int32_t lo, int32_t hi)
{
    int32_t e, ef, big, q;
    int64_t m = htc__mul24(acc, scale, &e);
    const int32_t mf = htc__fsplit(fixed, &ef);
    m = htc__add24(m, e, mf, ef, &e);
    q = htc__rint24(m, e, lo, hi, &big);
    return big ? lo : q;
}

static inline int32_t htc__rq_float_mul(int32_t acc, float scale, float fixed, int32_t lo, int32_t hi)
{
#if HTC_SOFT_FLOAT_EXACT
    return htc__rq_float_mul_ix(acc, scale, fixed, lo, hi);
#else
    return htc__rq_float_mul_fp(acc, scale, fixed, lo, hi);
#endif
}

/* acc: the int32 accumulator of conv / fc, or the exact (64-bit) value of
   an element-wise combination (QuantLib's int32 operands) */
static inline int32_t htc__epi_value(const htc__epi *e, int32_t c, int64_t acc)
{
    const int32_t k = e->per_channel ? c : 0;
    switch (e->kind) {
    case HTC__EPI_TFLITE: return htc__requant(HTC__CAST(int32_t, acc), e->mult[k], e->shift[k], e->out_zp, e->lo, e->hi);
    case HTC__EPI_FLOAT: return htc__rq_float(HTC__CAST(int32_t, acc), e->scale[k], e->flo, e->fhi, e->out_zp);
    case HTC__EPI_QUANTLIB: return htc__ql_rq(acc, e->mult[k], e->add[k], e->ql_shift, e->lo, e->hi) + e->out_zp;
    case HTC__EPI_FLOAT_MUL: return htc__rq_float_mul(HTC__CAST(int32_t, acc), e->scale[k], e->ffixed, e->lo, e->hi) + e->out_zp;
    default: return HTC__CAST(int32_t, acc);
    }
}

/* Output element i (channel c) from its accumulator: int8, or int32 when
   the kind is HTC__EPI_INT32. */
static inline void htc__epi_put(const htc__epi *e, void *out, size_t i, int32_t c, int32_t acc)
{
    if (e->kind == HTC__EPI_INT32) HTC__CAST(int32_t *, out)[i] = acc;
    else HTC__CAST(int8_t *, out)[i] = HTC__CAST(int8_t, htc__epi_value(e, c, acc));
}

/* The index walk of the broadcasting and reducing loops (kernels/mul.c
   htc__ew_core, binary_s16.c, reduce_s16.c): steps the index idx over
   dimensions [0, n) of shape s, the last fastest, moving the offsets *a
   and *b by their element strides as[d] and bs[d] (0 on a dimension that
   does not move that operand). Returns 0 when the walk has wrapped to the
   first index (after the last element), 1 otherwise. */
static inline int htc__walk(int32_t *idx, const int32_t *s, const int32_t *as, const int32_t *bs, int n, size_t *a,
                            size_t *b)
{
    int d;
    for (d = n - 1; d >= 0; d--) {
        *a += HTC__CAST(size_t, as[d]);
        *b += HTC__CAST(size_t, bs[d]);
        if (++idx[d] < s[d]) return 1;
        *a -= HTC__CAST(size_t, as[d]) * HTC__CAST(size_t, s[d]);
        *b -= HTC__CAST(size_t, bs[d]) * HTC__CAST(size_t, s[d]);
        idx[d] = 0;
    }
    return 0;
}

/* Element i of an int8 (value = stored + off) or int32 (i32) tensor. */
static inline int32_t htc__ql_ld(const void *p, size_t i, int32_t i32, int32_t off)
{
    return i32 ? ((const int32_t *)p)[i] : ((const int8_t *)p)[i] + off;
}

/* Conv NHWC, weights [out_c][k_h][k_w][in_c / groups]; ins: x, w, bias
   (int32 [out_c] or NULL), mul, add (int32, [out_c] when per_channel). */
typedef struct {
    int32_t batches, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w, stride_h, stride_w, dil_h, dil_w;
    int32_t pad_top, pad_left, groups, in_off;
    int32_t rq, per_channel, shift, lo, hi, out_off;
} htc__ql_conv_params;

/* Batched matmul: a [batches][m][k] x b [b_batches][n][k] (b transposed,
   rows of k) -> [batches][m][n]; a_bstride / b_bstride: elements between
   batches (0: broadcast). acc = alpha * sum (a + a_off)(b + b_off) + bias,
   bias int32 [n] (bias_mode 1) or [m][n] (2). ins: a, b, bias, mul, add;
   rq_mode 0: scalar, 1: per column n, 2: per row m. */
typedef struct {
    int32_t batches, m, k, n, a_bstride, b_bstride, a_off, b_off, alpha, bias_mode;
    int32_t rq, rq_mode, shift, lo, hi, out_off;
} htc__ql_matmul_params;

/* Element-wise a (op) b with broadcasting over 6 dimensions (out shape s*,
   element strides a*, b*; 0 = broadcast); op 0: add, 1: mul. Inputs int8
   (+ off) or int32 (a_i32 / b_i32). Requant channel (i / rq_inner) % rq_nch. */
typedef struct {
    int32_t s0, s1, s2, s3, s4, s5, a0, a1, a2, a3, a4, a5, b0, b1, b2, b3, b4, b5;
    int32_t a_off, b_off, a_i32, b_i32, op;
    int32_t rq, rq_nch, rq_inner, shift, lo, hi, out_off;
} htc__ql_binary_params;

/* RequantShift alone: n elements, int8 (+ in_off) or int32 (in_i32) in,
   channel (i / inner) % nch; ins: x, mul, add. */
typedef struct {
    int32_t n, nch, inner, in_i32, in_off, shift, lo, hi, out_off, out_i32;
} htc__ql_requant_params;

/* Any function of one 8-bit value: out = table[(uint8_t)x] (int32 table,
   computed at compile time), int8 or int32 (out_i32) out; ins: x, table. */
typedef struct {
    int32_t n, out_i32;
} htc__ql_table_params;

/* Gather on one axis with constant indices: [outer][axis][inner] elements
   of elem bytes -> [outer][nidx][inner]; ins: x, indices (int32). */
typedef struct {
    int32_t outer, axis, inner, elem, nidx;
} htc__ql_gather_params;

/* Softmax over the last axis (rows of depth): kind 0 iSoftmax (coefficients
   a, b, c, log2), 1 ITAMax, 2 ITAPartialMax (group_width); n_levels. tab:
   the RequantShift that alone reads it folded in, ins[1] its 256 bytes
   (out = tab[(uint8_t)softmax byte]). s32: the iSoftmax loop in 32 bits
   gives the same values (decided once by gen/qlib.c); zmul: z = -xt / log2
   as (-xt * zmul) >> 16 for every -xt in [0, 255] (no division an
   element). */
typedef struct {
    int32_t outer, depth, in_off, kind, a, b, c, log2, n_levels, group_width, out_off, tab, s32, zmul;
} htc__ql_softmax_params;

/* Norms over the last axis (rows of depth): kind 0 iLayerNorm (w, b), 1
   iRMSNorm (w), 2 iNoNorm (w, b per element of a block of depth, times mul);
   log2d = log2 D. ins: x, w (int32), b (int32 or NULL). */
typedef struct {
    int32_t outer, depth, in_off, kind, log2d, mul, lo, hi, out_off;
} htc__ql_norm_params;

/* Mean over the middle of [outer][red][inner], floor(mean + 1/2)
   (IntegerMean; ReduceMean of integers alike). */
typedef struct {
    int32_t outer, red, inner, in_off, in_i32, out_i32, lo, hi, out_off;
} htc__ql_mean_params;

/* ---- TFLite operators beyond the convolutional core --------------------
   Generic parameter blocks (gen/emit.c emit_generic writes them from the
   field list gen/lower.c gives): int32 fields and arrays, the op's mult and
   shift arrays. Kernels take (params, inputs..., outputs...). Shapes of
   rank <= 6 are padded at the front with 1s. */

/* Element-wise ops of two broadcast inputs (kernels/binary.c): SUB and
   SQUARED_DIFFERENCE as TFLite Micro's sub.cc / squared_difference.cc
   (both inputs shifted left by left_shift, scaled to a common scale,
   combined, scaled to the output), MAXIMUM / MINIMUM on the stored values,
   PRELU (b is alpha). Strides in elements, 0 on a broadcast dimension. */
typedef struct {
    int32_t out_shape[6];
    int32_t a_stride[6], b_stride[6];
    int32_t a_offset, b_offset, out_zp;     /* -zero points of the inputs */
    int32_t left_shift;
    int32_t a_mult, a_shift, b_mult, b_shift, out_mult, out_shift;
    int32_t act_min, act_max;
} htc__ew_params;

/* BATCH_MATMUL (kernels/fc.c htc__matmul_s8): out[b][i][j] = requant(sum_k (lhs - lhs_zp)
   * (rhs - rhs_zp)) with TFLite's multiplier; lhs element (b, i, k) at
   b-offset + i * lhs_rs + k * lhs_cs (adj_x swaps the strides), rhs (b, k, j)
   at k * rhs_rs + j * rhs_cs. Batch dims broadcast (stride 0). */
typedef struct {
    int32_t batch[4], lhs_bstride[4], rhs_bstride[4];
    int32_t m, k, n;
    int32_t lhs_rs, lhs_cs, rhs_rs, rhs_cs;
    int32_t lhs_zp, rhs_zp, out_zp, mult, shift, act_min, act_max;
} htc__matmul_params;

/* TRANSPOSE_CONV (kernels/transpose_conv.c): NHWC, weights OHWI, TFLite
   Micro's reference_integer_ops::TransposeConv computed output-stationary
   (the same int32 sums), per-channel requantization; w_zp is uint8
   models' weight zero point (LiteRT's reference_ops::TransposeConv), else 0. */
typedef struct {
    int32_t batches, in_h, in_w, in_c, out_h, out_w, out_c;
    int32_t k_h, k_w, stride_h, stride_w, pad_top, pad_left;
    int32_t in_zp, w_zp, out_zp, act_min, act_max, per_channel;
    const int32_t *mult;
    const int8_t *shift;
} htc__tconv_params;

/* The gather form both TRANSPOSE_CONV kernels (int8, 16x8) share: the
   element offset of the input pixel that output (oy, ox) of batch b reads
   through tap (ky, kx), i.e. oy = iy * stride_h - pad_top + ky (and x), or
   -1 when no input pixel lands there. */
static inline long htc__tconv_tap(const htc__tconv_params *p, int32_t b, int32_t oy, int32_t ox, int32_t ky, int32_t kx)
{
    const int32_t ty = oy + p->pad_top - ky, tx = ox + p->pad_left - kx;
    int32_t iy, ix;
    if (ty < 0 || ty % p->stride_h || tx < 0 || tx % p->stride_w) return -1;
    iy = ty / p->stride_h;
    ix = tx / p->stride_w;
    if (iy >= p->in_h || ix >= p->in_w) return -1;
    return ((HTC__CAST(long, b) * p->in_h + iy) * p->in_w + ix) * p->in_c;
}

/* RESIZE_NEAREST_NEIGHBOR / RESIZE_BILINEAR of NHWC (kernels/resize.c).
   Nearest: the source row / column of each output one are tables computed
   at compile time (the kernel's second input: out_h rows then out_w
   columns). Bilinear: reference_ops::ResizeBilinearInteger, scales in
   1/1024. */
typedef struct {
    int32_t batches, in_h, in_w, c, out_h, out_w;
    int32_t mode;                           /* 0 nearest, 1 bilinear */
    int32_t h_scale10, w_scale10, half_pixel;
    int32_t elem;                           /* bytes per element (nearest) */
} htc__resize_params;

/* Data movement of elements of `elem` bytes (kernels/move.c): TILE
   (repeat `mult` times along each axis), SLICE (strided: begin, step,
   count per input axis), SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND (NHWC,
   block, pads/crops). GATHER: htc__ql_gather_params above. */
typedef struct {
    int32_t rank, elem;
    int32_t in_shape[6], mult[6];
} htc__tile_params;

typedef struct {
    int32_t rank, elem;
    int32_t in_shape[6], begin[6], step[6], count[6];
} htc__slice_params;

typedef struct {
    int32_t in_b, in_h, in_w, c, out_b, out_h, out_w;
    int32_t block_h, block_w, pad_top, pad_left, elem;
    int32_t pad_value;
} htc__s2b_params;

/* MEAN / SUM / REDUCE_MAX over any axes (kernels/reduce.c): the input
   viewed as [outer..] with `red` marking reduced axes; MEAN and SUM are
   reference_ops::QuantizedMeanOrSum (int32 sum - in_zp * count, MEAN folds
   1/count into the multiplier at run time), REDUCE_MAX the largest stored
   value. */
typedef struct {
    int32_t rank, mode;                     /* 0 mean, 1 sum, 2 max, 3 min */
    int32_t in_shape[6], red[6];
    int32_t in_zp, out_zp, mult, shift;
} htc__reduce_params;

/* ARG_MAX / ARG_MIN (kernels/reduce.c): [outer][axis][inner] -> the first
   index of the largest (smallest) value, int32 or int64. */
typedef struct {
    int32_t outer, axis_size, inner, is_min, out64;
} htc__argminmax_params;

/* MIRROR_PAD (kernels/move.c): output coordinate o along dim d reads input
   coordinate map[map_off[d] + o] (TFLM's GetInputDimension, at compile time). */
typedef struct {
    int32_t out_shape[6], in_stride[6], map_off[6];
    int32_t elem;
} htc__mirror_pad_params;

/* L2_NORMALIZATION over the last axis, int8 (kernels/reduce.c):
   reference_integer_ops::L2Normalization, output Q0.7. */
typedef struct {
    int32_t outer, depth, in_zp;
} htc__l2norm_params;

/* UNIDIRECTIONAL_SEQUENCE_LSTM, int8 activations and weights, int16 cell
   state (kernels/lstm.c, TFLite Micro's EvalLstm<int8, int8, int16, int32>).
   Gates in the order input, forget, cell, output; per gate the input and
   recurrent FULLY_CONNECTED multipliers to the Q3.12 gate input. fc_*: forget
   gate x cell state -> cell state; ic_*: input gate x cell gate -> cell
   state; out_*: tanh(cell) x output gate -> hidden state (int8, h_zp).
   tanh_*: the cell state's tanh input multiplier / left shift (TFLM's
   convention: multiplier 0 = 3 << shift). clip: the quantized cell clip,
   -1 = none. */
typedef struct {
    int32_t batches, steps, in_dim, state, time_major, x_zp, h_zp;
    int32_t in_mult[4], in_shift[4], rec_mult[4], rec_shift[4];
    int32_t fc_mult, fc_shift, ic_mult, ic_shift, out_mult, out_shift;
    int32_t tanh_mult, tanh_shift, clip;
} htc__lstm_params;

/* SVDF, int8 input and output, int16 or int8 state (kernels/svdf.c, TFLM's
   EvalIntegerSvdfReference): m1/s1 the feature product into the state,
   m2/s2 the units' sums to the output. */
typedef struct {
    int32_t batches, in_dim, filters, units, rank, memory, in_zp, state_zp, out_zp, m1, s1, m2, s2, has_bias;
} htc__svdf_params;

/* Float element-wise ops of a float island (kernels/float.c): NEG. */
typedef struct {
    int32_t size;
} htc__funary_params;

/* float32 models (kernels/float.c, TFLite Micro's float reference kernels):
   FULLY_CONNECTED of batches rows of depth values by [n_out][depth]
   weights, clamped to [lo, hi] (the fused activation's range; -FLT_MAX,
   FLT_MAX without one); SOFTMAX over rows of depth; the LSTM of
   kernels/lstm.c's geometry with a cell clip (0: none). */
typedef struct {
    int32_t batches, depth, n_out;
    float lo, hi;
} htc__ffc_params;

typedef struct {
    int32_t outer, depth;
    float beta;
} htc__fsoftmax_params;

typedef struct {
    int32_t batches, steps, in_dim, state, time_major;
    float clip;
} htc__flstm_params;

/* float ADD (op 0) or MUL (op 1), broadcast to a 6-D output (strides in
   elements, 0 on a broadcast dimension), clamped to [lo, hi]; element-wise
   RELU (0), RELU6 (1), LOGISTIC (2), TANH (3) over size values */
typedef struct {
    int32_t out_shape[6], a_stride[6], b_stride[6];
    int32_t op;
    float lo, hi;
} htc__fbinary6_params;

typedef struct {
    int32_t size, fn;
} htc__funary_fn_params;

/* ---- TFLite Micro parity, int8 graphs (issue 13) -------------------------
   kernels/logic.c: comparisons, logical ops and SELECT_V2 over up to three
   inputs broadcast against a 6-D output (strides in elements, 0 on a
   broadcast dimension); bools are bytes 0 / 1. An int8 comparison rescales
   both operands as TFLite Micro's comparisons.cc does (left shift 8, each
   input's scale as a Q31 multiplier below one). */
typedef struct {
    int32_t out_shape[6], a_stride[6], b_stride[6], c_stride[6];
    int32_t mode;               /* compare: 0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >=; logical: 0 and, 1 or, 2 not */
    int32_t scaled;             /* int8 compare: rescale both operands */
    int32_t a_offset, b_offset, left_shift, a_mult, a_shift, b_mult, b_shift;
    int32_t elem;               /* SELECT_V2: bytes per element */
} htc__logic_params;

/* CAST (kernels/logic.c): n elements, from one of int8 / uint8 / int16 /
   int32 / float32 / bool / uint32 (kinds 0..6) to another, as C++ static_cast
   (to bool: != 0). FILL / ZEROS_LIKE: n copies of one element of `elem`
   bytes. */
typedef struct {
    int32_t n, from, to;
} htc__cast_params;

typedef struct {
    int32_t n, elem;
} htc__fill_params;

/* TFLite Micro's signal library (kernels/signal.c): the options of each
   Signal* operator (gen/lower.c lower_signal). n: elements or channels.
   WINDOW: weights of `size` applied to each run of `size` inputs, products
   >> shift. RFFT: `frames` of in_len samples zero-padded to fft_len, the
   kiss_fft factors of fft_len / 2 as (radix, length) pairs. ENERGY: bins
   [start, end). SPECTRAL_SUB: the smoothing filter (uint32 values stored
   as int32). PCAN: snr_shift. FB_LOG: input correction bits and the
   output scale. */
typedef struct {
    int32_t n;
} htc__signal_n_params;

/* int32 ADD (op 0), SUB (1), MUL (2), DIV (3), MAXIMUM (4), MINIMUM (5), FLOOR_DIV (6), FLOOR_MOD (7),
   broadcast to a 6-D output (strides in elements, 0 on a broadcast
   dimension), clamped to [lo, hi] (kernels/signal.c) */
typedef struct {
    int32_t out_shape[6], a_stride[6], b_stride[6];
    int32_t op, lo, hi;
} htc__binary32_params;

typedef struct {
    int32_t n, size, shift;
} htc__window_params;

typedef struct {
    int32_t frames, in_len, fft_len, nfactors, factors[64];
} htc__rfft_params;

typedef struct {
    int32_t n, start, end;
} htc__energy_params;

typedef struct {
    int32_t n, smoothing, one_minus, alt_smoothing, alt_one_minus, min_remaining, smoothing_bits, bits, clamping;
} htc__spectral_sub_params;

typedef struct {
    int32_t n, snr_shift;
} htc__pcan_params;

typedef struct {
    int32_t n, correction_bits, output_scale;
} htc__fb_log_params;

/* OVERLAP_ADD: rows of `frames` frames of `size` samples, `step` samples out per frame */
typedef struct {
    int32_t rows, frames, size, step;
} htc__overlap_add_params;

/* TFLite_Detection_PostProcess (kernels/detect.c, TFLite Micro's
   detection_postprocess.cc): the custom options, the inputs' dimensions and
   the scratch layout (byte offsets into the scratch output). */
typedef struct {
    int32_t num_boxes, box_stride;          /* box encodings [1][num_boxes][box_stride >= 4] */
    int32_t num_classes, num_classes_bg;    /* class predictions [1][num_boxes][num_classes_bg] */
    int32_t max_detections, max_classes_per_detection, detections_per_class, use_regular_nms;
    int32_t cap;                            /* detections the outputs hold */
    float score_threshold, iou_threshold;
    float y_scale, x_scale, h_scale, w_scale;
    int32_t off_decoded, off_active, off_keep_scores, off_keep_indices, off_sorted_indices, off_scratch;
    int32_t off_class_scores, off_sel_box, off_sel_scores, off_sorted_values, off_buffer, off_selected;
    int32_t quantized, off_scores;          /* uint8 inputs (LiteRT): dequantized, scores into off_scores */
    int32_t enc_zp, cls_zp, anc_zp;         /* stored (int8) zero points */
    float enc_scale, cls_scale, anc_scale;
} htc__detpp_params;

/* DELAY: rows of `frame` samples, each delayed by `delay` samples */
typedef struct {
    int32_t rows, frame, delay;
} htc__delay_params;

/* GATHER_ND / EMBEDDING_LOOKUP / GATHER with run-time indices
   (kernels/logic.c): nidx index tuples of `depth` int32 values each pick
   slices of `slice` elements (of `elem` bytes); dim[] and stride[] (in
   elements) of the first `depth` indexed axes. GATHER repeats that for
   `batch` x `outer` blocks (params offsets bstride, ostride; batch b reads
   its own nidx indices). An index out of range (TFLite Micro fails the
   inference, or reads outside the tensor) writes a zero slice; GATHER_ND
   checks only the flat position, as TFLite Micro does. */
typedef struct {
    int32_t nidx, depth, slice, elem;
    int32_t dim[6], stride[6];
    float scale;                /* EMBEDDING_LOOKUP int8 -> float32: the table's scale */
    int32_t batch, outer, bstride, ostride, per_axis;
} htc__gather_nd_params;

/* DYNAMIC_UPDATE_SLICE (kernels/logic.c): the operand copied, then the
   update block written at the start indices read at run time (int32 or
   int64: idx64), each clamped to [0, operand dim - update dim] as TFLite
   Micro does. */
typedef struct {
    int32_t rank, elem, idx64;
    int32_t op_shape[6], up_shape[6];
} htc__update_slice_params;

/* kernels/arith8.c: int8 ADD_N, CUMSUM (add_n.h / cumsum.h: inputs shifted
   left by left_shift, scaled by one Q31 multiplier below one, summed, the
   sum scaled to the output; the sum starts from the scaled -zero_point, as
   TFLite Micro's does) and DIV (div.h: a reciprocal of the divisor by
   gemmlowp's 1/(1+x), scaled to the output). CUMSUM's axis splits the
   tensor into [pre][depth][post]; mode bit 0 exclusive, bit 1 reverse. */
typedef struct {
    int32_t n, ninputs, pre, depth, post, mode;
    int32_t in_offset, left_shift, in_mult, in_shift, out_mult, out_shift, out_zp, act_min, act_max;
} htc__addn_params;

typedef struct {
    int32_t out_shape[6], a_stride[6], b_stride[6];
    int32_t a_offset, b_offset, out_zp, out_mult, out_shift, act_min, act_max;
} htc__div_params;

/* LOG_SOFTMAX int8 (kernels/arith8.c, reference_ops::LogSoftmaxQuantized):
   rows of `depth` over the last axis; input differences to the row maximum
   scaled into Q5.26 (mult, left_shift, PreprocessSoftmaxScaling with beta
   1), exps summed in Q12.19, gemmlowp's fixed-point log of the sum; output
   scale 16/256, zero point 127. */
typedef struct {
    int32_t outer, depth, mult, left_shift, rev_mult, rev_shift, diff_min;
} htc__logsm_params;

/* GetInvSqrtQuantizedMultiplierExp (TFLite common.h, reverse_shift -1):
   1/sqrt(input) as a Q31 multiplier and a left shift, by five gemmlowp
   Newton-Raphson steps in Q3.28 (L2_NORMALIZATION at run time, RSQRT's
   table at compile time). */
static inline void htc__inv_sqrt(int32_t input, int32_t *out, int *shift)
{
    int32_t x_in, half_in, x;
    int s = 11, pairs, i;
    if (input <= 1) {
        *out = INT32_MAX;
        *shift = 0;
        return;
    }
    while (input >= (HTC__CAST(int32_t, 1) << 29)) {
        input /= 4;
        ++s;
    }
    pairs = (htc__clz32(HTC__CAST(uint32_t, input)) - 1) / 2 - 1;
    s -= pairs;
    input = HTC__CAST(int32_t, HTC__CAST(uint32_t, input) << (2 * pairs));
    x_in = input >> 1;                      /* Q3.28 */
    half_in = htc__rdivpot(x_in, 1);
    x = HTC__CAST(int32_t, 1) << 28;
    for (i = 0; i < 5; i++) {
        const int32_t x3 = htc__sat_shl(htc__srdhm(htc__srdhm(x, x), x), 6);
        const int32_t d = HTC__CAST(int32_t, HTC__CAST(uint32_t, htc__srdhm((HTC__CAST(int32_t, 1) << 28) + (HTC__CAST(int32_t, 1) << 27), x)) -
                                             HTC__CAST(uint32_t, htc__srdhm(half_in, x3)));
        x = htc__sat_shl(d, 3);
    }
    x = htc__srdhm(x, 1518500250);
    if (s < 0) {
        x = HTC__CAST(int32_t, HTC__CAST(uint32_t, x) << -s);
        s = 0;
    }
    *out = x;
    *shift = -s;
}

/* 16x8 CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED (kernels/conv_s16.c):
   int16 activations, int8 weights, int64 or int32 bias. FC is a 1x1 conv
   over batches x 1 x 1 x in_c. dw: TFLite depthwise weights [kh][kw][out_c]. */
typedef struct {
    int32_t batches, in_h, in_w, in_c, out_h, out_w, out_c;
    int32_t k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left;
    int32_t dw, depth_mult, filter_in_c;    /* conv: input channels per group */
    int32_t bias64;                         /* bias is int64 (else int32, or absent) */
    int32_t acc64;                          /* accumulate in int64 (TFLM: int64 bias, or depthwise) */
    int32_t out_zp, act_min, act_max;
    const int32_t *mult;
    const int8_t *shift;
} htc__conv16_params;

/* int16 SOFTMAX over the last axis (kernels/softmax_s16.c): TFLM's
   SoftmaxInt16 with its two interpolated 513-entry tables. */
typedef struct {
    int32_t outer, depth, mult, shift;
    int32_t exp_lut[513], recip_lut[513];
} htc__softmax16_params;

/* int16 RELU / RELU6 / LEAKY_RELU (kernels/act_s16.c). */
typedef struct {
    int32_t size, mode, in_zp, out_zp, m_pos, s_pos, m_neg, s_neg, lo, hi;
} htc__act16_params;

/* TFLite's int16 LOGISTIC and TANH element by element
   (reference_integer_ops::Logistic / Tanh, also TFLM's LSTM gates): x times
   mult, rounded right by shift (mult 0 is the power-of-two case: 3 << shift,
   no shift), then linear interpolation in tab, sigmoid(i / 24) in 0.16
   (gen/quant.c quant_sigmoid16_table; the uint16 entries as int16 bit
   patterns): 9 fraction bits for the sigmoid, 8 for tanh(x) = 2 sigmoid(2x) - 1.
   Output Q0.15. */
static inline int16_t htc__sigmoid16(int32_t x, int32_t mult, int32_t shift, const int16_t *tab)
{
    int32_t v;
    uint32_t a, h, r;
    if (mult == 0) {
        mult = 3 << shift;
        shift = 0;
    }
    v = (x * mult + (shift > 0 ? HTC__CAST(int32_t, 1) << (shift - 1) : 0)) >> shift;
    a = HTC__CAST(uint32_t, v < 0 ? -v : v);
    h = a >> 9;
    if (h >= 255) {
        r = HTC__CAST(uint32_t, 0x7FFF) << 10;
    } else {
        const uint32_t ua = HTC__CAST(uint16_t, tab[h]), ub = HTC__CAST(uint16_t, tab[h + 1]);
        r = (ua << 9) + (a & 0x1FFu) * (ub - ua);
    }
    r = v >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1;
    return HTC__CAST(int16_t, r >> 10);
}

static inline int16_t htc__tanh16(int32_t x, int32_t mult, int32_t shift, const int16_t *tab)
{
    int32_t v, r;
    uint32_t a, h;
    if (mult == 0) {
        mult = 3 << shift;
        shift = 0;
    }
    v = (x * mult + (shift > 0 ? HTC__CAST(int32_t, 1) << (shift - 1) : 0)) >> shift;
    a = HTC__CAST(uint32_t, v < 0 ? -v : v);
    h = a >> 8;
    if (h >= 255) {
        r = 0xFFFF << 8;
    } else {
        const uint32_t ua = HTC__CAST(uint16_t, tab[h]), ub = HTC__CAST(uint16_t, tab[h + 1]);
        r = HTC__CAST(int32_t, (ua << 8) + (a & 0xFFu) * (ub - ua));
    }
    r = v >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
    return HTC__CAST(int16_t, r >> 8);
}

/* TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator: the
   multiplier rounded to 16 bits, one rounding shift. */
static inline int32_t htc__mulq64(int64_t x, int32_t m, int shift)
{
    const int32_t rm = m < 0x7FFF0000 ? (m + (1 << 15)) >> 16 : 0x7FFF;
    const int ts = 15 - shift;
    return HTC__CAST(int32_t, (x * rm + (HTC__CAST(int64_t, 1) << (ts - 1))) >> ts);
}

#endif /* HTC__RUNTIME_H */
