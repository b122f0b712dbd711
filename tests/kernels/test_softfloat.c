/* test_softfloat.c - htc.h's integer emulation of onnxruntime's float
   arithmetic (HTC_SOFT_FLOAT_EXACT) against the float code, bit for bit. */
#include "../../htc.h"
#include "../../kernels/ort_eltwise.c"
#include <stdio.h>
#include <stdlib.h>

/* Sizes: argv[1] = "quick" (or -DTEST_QUICK: sanitizers, qemu) or "full"
   (every acc in [-2^25, 2^25] for a few scales besides). */
static int quick, full;
static long failures, checks, cases;

static uint32_t rng_state = 0x9e3779b9u;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static float fbits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static unsigned long ubits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* the float mant * 2^e2, mant > 0 normalised to 24 bits (0 if out of range) */
static float fmake(uint32_t mant, int e2)
{
    int b;
    while (mant >= (1u << 24)) mant >>= 1, e2++;
    while (mant < (1u << 23)) mant <<= 1, e2--;
    b = e2 + 150;
    if (b <= 0 || b >= 255) return 0.0f;
    return fbits((uint32_t)b << 23 | (mant & 0x7fffffu));
}

/* A scale for case i: adversarial ones first (extremes, zero, subnormals,
   negatives, then powers of two, few-bit mantissas whose products tie,
   mantissas next to 1 and 2), then random mantissas and exponents. */
static float pick_scale(int i, int lo_exp, int hi_exp)
{
    static const uint32_t mants[] = {1, 3, 5, 7, 9, 11, 13, 15, 0x800001, 0xffffff, 0xc00001, 0x800003, 0xaaaaab, 0xcccccd};
    const int nm = (int)(sizeof mants / sizeof mants[0]);
    const int span = hi_exp - lo_exp + 1;
    switch (i) {
    case 0: return 0.0f;
    case 1: return fbits(0x00000001u);          /* smallest subnormal */
    case 2: return fbits(0x00400000u);
    case 3: return fbits(0x00800000u);          /* smallest normal */
    case 4: return fbits(0x7f7fffffu);          /* largest float */
    case 5: return fmake(1, 100);
    case 6: return -fmake(3, -9);
    case 7: return -fmake(0xabcdef, -30);
    case 8: return fmake(0xffffff, 20);         /* products of 2^40 to 2^68 */
    case 9: return fmake(0x800001, 12);
    case 10: return fmake(0xc00001, 16);
    case 11: return fmake(1, 7);
    default: break;
    }
    i -= 12;
    if (i < nm * 8) return fmake(mants[i % nm], lo_exp + (int)((i / nm) * 5 % span) - 23 * (mants[i % nm] > 15));
    return fmake((rnd() & 0xffffffu) | 1u, lo_exp + (int)(rnd() % (uint32_t)span) - 23);
}

/* ---- htc__rq_float ---------------------------------------------------- */
static void rq_one(int32_t acc, float scale, float lo, float hi, int32_t zp)
{
    const int32_t want = htc__rq_float_fp(acc, scale, lo, hi, zp);
    const int32_t got = htc__rq_float_ix(acc, scale, lo, hi, zp);
    checks++;
    if (want != got && failures++ < 10)
        printf("FAIL rq acc=%ld scale=%.9g (0x%08lx) lo=%g hi=%g zp=%ld: float %ld, integer %ld\n", (long)acc,
               (double)scale, ubits(scale), (double)lo, (double)hi, (long)zp, (long)want, (long)got);
}

/* every acc in [-range, range], the boundaries (+-2^k +- 0..3, the int32
   ends), and n random int32 (all bit lengths) */
static void rq_scale(float scale, float lo, float hi, int32_t zp, int32_t range, long n)
{
    int32_t a;
    long i;
    int k, d;
    for (a = -range; a < range; a++) rq_one(a, scale, lo, hi, zp);
    rq_one(range, scale, lo, hi, zp);
    for (k = 0; k < 31; k++)
        for (d = -3; d <= 3; d++) {
            const int64_t v = ((int64_t)1 << k) + d;
            if (v <= INT32_MAX && v >= 0) { rq_one((int32_t)v, scale, lo, hi, zp); rq_one((int32_t)-v, scale, lo, hi, zp); }
        }
    rq_one(INT32_MIN, scale, lo, hi, zp);
    rq_one(INT32_MIN + 1, scale, lo, hi, zp);
    rq_one(INT32_MAX, scale, lo, hi, zp);
    for (i = 0; i < n; i++) {
        const uint32_t r = rnd();
        rq_one((int32_t)(r >> (rnd() & 31)) * ((r & 1) ? -1 : 1), scale, lo, hi, zp);
    }
    cases++;
}

/* acc * scale landing exactly on x.5 and on float rounding ties: for a
   scale 2^-k, acc = (2j + 1) * 2^(k - 1) */
static void rq_ties(float lo, float hi, int32_t zp)
{
    int k, j;
    for (k = 1; k < 30; k++) {
        const float s = fmake(1, -k);
        for (j = -300; j < 300; j++) {
            const int64_t acc = (int64_t)(2 * j + 1) * ((int64_t)1 << (k - 1));
            if (acc >= INT32_MIN && acc <= INT32_MAX) rq_one((int32_t)acc, s, lo, hi, zp);
        }
    }
    cases++;
}

static void test_rq(void)
{
    const int nscales = quick ? 40 : 400;
    const int32_t range = quick ? 1 << 10 : 1 << 16;
    const long nrand = quick ? 2000 : 100000;
    int i;
    for (i = 0; i < nscales; i++) {
        const float scale = pick_scale(i, -36, 4);
        const int32_t zp = (int32_t)(rnd() % 256) - 128;
        /* int8 bounds; every few scales, bounds up to 2^21 (rounding of
           large products; htc__rne's float trick needs |v| < 2^22) */
        if (i % 4 == 3) rq_scale(scale, -2097152.0f, 2097151.0f, 0, range, nrand);
        else rq_scale(scale, (float)(-128 - zp), (float)(127 - zp), zp, range, nrand);
    }
    rq_ties(-2097152.0f, 2097151.0f, 0);
    rq_ties(-128.0f, 127.0f, 0);
    if (full)   /* every acc in [-2^25, 2^25] for a few scales */
        for (i = 0; i < 6; i++) {
            static const uint32_t fs[6] = {0x3b800000u, 0x3a9d4952u, 0x34000001u, 0x3f7fffffu, 0x3c23d70au, 0x30800003u};
            rq_scale(fbits(fs[i]), -2097152.0f, 2097151.0f, 0, 1 << 25, 1000000);
        }
}

/* ---- htc__rq_float_mul (QLinearMul) ------------------------------------ */
static void mul_one(int32_t acc, float scale, float fixed, int32_t lo, int32_t hi)
{
    const int32_t want = htc__rq_float_mul_fp(acc, scale, fixed, lo, hi);
    const int32_t got = htc__rq_float_mul_ix(acc, scale, fixed, lo, hi);
    checks++;
    if (want != got && failures++ < 10)
        printf("FAIL mul acc=%ld scale=%.9g (0x%08lx) fixed=%.9g (0x%08lx) lo=%ld hi=%ld: float %ld, integer %ld\n",
               (long)acc, (double)scale, ubits(scale), (double)fixed, ubits(fixed), (long)lo, (long)hi, (long)want,
               (long)got);
}

static void test_mul(void)
{
    const int nsets = quick ? 30 : 300;
    const int32_t range = quick ? 1 << 12 : 1 << 16;
    int i;
    int32_t a;
    for (i = 0; i < nsets; i++) {
        const float scale = pick_scale(i, -30, 2);
        const int u8 = (int)(rnd() & 1);
        const int32_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
        /* the output zero point (an integer, as htc emits it), or any float */
        const float fixed = (i % 5 == 4) ? fmake(rnd() & 0xffffff, (int)(rnd() % 40) - 40)
                                         : (float)(lo + (int32_t)(rnd() % 256));
        long k;
        for (a = -range; a <= range; a++) mul_one(a, scale, fixed, lo, hi);
        for (k = 0; k < (quick ? 2000 : 100000); k++) mul_one((int32_t)rnd(), scale, fixed, lo, hi);
        mul_one(INT32_MIN, scale, fixed, lo, hi);
        mul_one(INT32_MAX, scale, fixed, lo, hi);
        cases++;
    }
}

/* ---- QLinearAdd: every (a, b) pair ------------------------------------- */
static int8_t qa[65536], qb[65536], want8[65536], got8[65536];

static void add_case(float ra, float rb, float fixed, int a_off, int b_off, int u8out, int scalar)
{
    htc__qbinary_params p;
    int i;
    memset(&p, 0, sizeof p);
    p.size = 65536;
    p.a_off = a_off; p.b_off = b_off;
    p.out_off = u8out ? 128 : 0;
    p.qmin = u8out ? 0 : -128; p.qmax = u8out ? 255 : 127;
    p.ra = ra; p.rb = rb; p.fixed = fixed;
    if (scalar) {       /* a scalar operand: each of its 256 values, every b */
        for (i = 0; i < 256; i++) {
            int8_t s = (int8_t)(i - 128);
            int j;
            p.size = 256;
            p.a_scalar = scalar == 1; p.b_scalar = scalar == 2;
            htc__qadd_s8_fp(&p, scalar == 1 ? &s : qb, scalar == 1 ? qb : &s, want8);
            htc__qadd_s8_ix(&p, scalar == 1 ? &s : qb, scalar == 1 ? qb : &s, got8);
            for (j = 0; j < 256; j++) {
                checks++;
                if (want8[j] != got8[j] && failures++ < 10)
                    printf("FAIL add scalar%d s=%d x=%d ra=%.9g rb=%.9g fixed=%.9g: float %d, integer %d\n", scalar, s,
                           qb[j], (double)ra, (double)rb, (double)fixed, want8[j], got8[j]);
            }
        }
        cases++;
        return;
    }
    htc__qadd_s8_fp(&p, qa, qb, want8);
    htc__qadd_s8_ix(&p, qa, qb, got8);
    for (i = 0; i < 65536; i++) {
        checks++;
        if (want8[i] != got8[i] && failures++ < 10)
            printf("FAIL add a=%d b=%d ra=%.9g (0x%08lx) rb=%.9g (0x%08lx) fixed=%.9g (0x%08lx) offs %d %d u8 %d: "
                   "float %d, integer %d\n", qa[i], qb[i], (double)ra, ubits(ra), (double)rb, ubits(rb), (double)fixed,
                   ubits(fixed), a_off, b_off, u8out, want8[i], got8[i]);
    }
    cases++;
}

static void test_add(void)
{
    const int nsets = quick ? 16 : 240;
    int i;
    for (i = 0; i < 65536; i++) { qa[i] = (int8_t)(i >> 8); qb[i] = (int8_t)i; }
    /* ties: halves, quarters, equal scales, fixed on .5 */
    add_case(0.5f, 0.5f, 0.0f, 0, 0, 0, 0);
    add_case(0.5f, 0.5f, 0.5f, 128, 128, 1, 0);
    add_case(0.25f, 0.75f, -0.5f, 0, 128, 0, 0);
    add_case(1.0f, 1.0f, -128.0f, 128, 128, 1, 0);
    add_case(fmake(3, -3), fmake(5, -4), 0.125f, 0, 0, 0, 0);
    /* inner sum losing bits: a large fixed, scales with full mantissas */
    add_case(fmake(0xabcdef, -45), fmake(0xfedcba, -47), 100.5f, 0, 0, 0, 0);
    add_case(fmake(0x800001, -23), fmake(0xffffff, -24), fmake(0xc00001, -17), 128, 0, 1, 0);
    /* extreme exponents: at the edges of the integer path and beyond it */
    add_case(fmake(1, -102), fmake(1, -101), 0.0f, 0, 0, 0, 0);
    add_case(fmake(0x800001, -100), fmake(3, -90), fmake(1, -102), 0, 0, 0, 0);
    add_case(fmake(1, 99), fmake(0xffffff, 75), -fmake(1, 99), 0, 0, 0, 0);
    add_case(fmake(1, -110), fmake(1, -120), fmake(1, -126), 0, 0, 0, 0);
    add_case(fmake(1, 110), fmake(1, 3), 0.0f, 0, 0, 0, 0);
    add_case(0.0f, 0.5f, 0.5f, 0, 0, 0, 0);
    /* the rounded-to-odd bit of htc__add24 decides: t = 100.5 or 101.5 (an
       even 24-bit mantissa) plus or minus 65 * ra = (2^30 + 1) * 2^-48, 31
       binary places below t: exactly half an ulp of t and a bit more */
    add_case(fmake(16519105, -48), 0.0f, 100.5f, 0, 0, 0, 0);
    add_case(fmake(16519105, -48), 0.0f, 101.5f, 0, 0, 0, 0);
    add_case(fmake(16519105, -48), fmake(16519105, -48), 101.5f, 128, 0, 1, 0);
    for (i = 0; i < nsets; i++) {
        /* scales as quantizers make them: a_scale / c_scale, one ratio
           often a power of two or a few-bit mantissa times the other */
        const float ra = pick_scale(i, -8, 3);
        const float rb = (i % 3 == 0) ? ra * fmake(1 + 2 * (rnd() % 4), -(int)(rnd() % 4)) : pick_scale(i + 7, -8, 3);
        const int a_off = (rnd() & 1) ? 128 : 0, b_off = (rnd() & 1) ? 128 : 0, u8 = (int)(rnd() & 1);
        const int32_t czp = (u8 ? 0 : -128) + (int32_t)(rnd() % 256);
        const int32_t azp = (a_off ? 0 : -128) + (int32_t)(rnd() % 256), bzp = (b_off ? 0 : -128) + (int32_t)(rnd() % 256);
        /* fixed = c_zp - a_zp * ra - b_zp * rb in float, as htc computes it;
           sometimes a half-integer or a random float */
        float fixed = (float)czp - (float)azp * ra - (float)bzp * rb;
        if (i % 7 == 3) fixed = (float)czp + 0.5f;
        if (i % 7 == 5) fixed = fmake(rnd() & 0xffffff, (int)(rnd() % 40) - 40) * ((rnd() & 1) ? -1.0f : 1.0f);
        add_case(ra, rb, fixed, a_off, b_off, u8, 0);
        if (i % 8 == 0) add_case(ra, rb, fixed, a_off, b_off, u8, 1 + (int)(rnd() & 1));
    }
}

/* ---- QuantizeLinear of float input ------------------------------------- */
static void quant_one(float x, float scale, int32_t zp, int32_t qmin, int32_t qmax)
{
    htc__qlinear_params p;
    int8_t w, g;
    memset(&p, 0, sizeof p);
    p.size = 1; p.channels = 1; p.inner = 1;
    p.qmin = qmin; p.qmax = qmax; p.scale = &scale; p.zp = &zp;
    htc__qlinear_quantize_fp(&p, &x, &w);
    htc__qlinear_quantize_ix(&p, &x, &g);
    checks++;
    if (w != g && failures++ < 10)
        printf("FAIL quantize x=%.9g (0x%08lx) scale=%.9g (0x%08lx) zp=%ld: float %d, integer %d\n", (double)x,
               ubits(x), (double)scale, ubits(scale), (long)zp, w, g);
}

static void test_quantize(void)
{
    const int nsets = quick ? 30 : 300;
    const long nrand = quick ? 5000 : 100000;
    int i;
    for (i = 0; i < nsets; i++) {
        const float scale = pick_scale(i, -20, 4);
        const int u8 = (int)(rnd() & 1);
        const int32_t qmin = u8 ? -128 : -128, qmax = 127;
        const int32_t zp = (int32_t)(rnd() % 256) - 128;
        long k;
        int j, d;
        uint32_t sb;
        memcpy(&sb, &scale, sizeof sb);
        if (sb == 0 || sb >= 0x7f800000u) continue;
        for (k = 0; k < nrand; k++) {
            const uint32_t r = rnd();
            float x;
            if (k & 1) x = fbits(r);                                  /* any bits: NaN, inf, subnormal */
            else x = (float)((int32_t)(r % 600) - 300) * scale * fmake((rnd() & 0xffff) | 0x10000, -16);
            quant_one(x, scale, zp, qmin, qmax);
        }
        /* the ties x / scale = j + 0.5 and their neighbours */
        for (j = -300; j < 300; j++) {
            const float x = ((float)j + 0.5f) * scale;
            uint32_t xb;
            memcpy(&xb, &x, sizeof xb);
            for (d = -2; d <= 2; d++) quant_one(fbits(xb + (uint32_t)d), scale, zp, qmin, qmax);
        }
        cases++;
    }
}

int main(int argc, char **argv)
{
#ifdef TEST_QUICK
    quick = 1;
#endif
    quick |= argc > 1 && !strcmp(argv[1], "quick");
    full = argc > 1 && !strcmp(argv[1], "full");
    test_rq();
    test_mul();
    test_add();
    test_quantize();
    printf("softfloat (%s): %ld parameter sets, %ld comparisons, %ld mismatches\n",
           HTC_SOFT_FLOAT_EXACT ? "integer path active" : "float path active", cases, checks, failures);
    printf("%d passed, %d failed\n", failures ? 0 : 1, failures ? 1 : 0);
    return failures ? 1 : 0;
}
