/* tile.c - per offloaded layer, tile sizes from one MILP (lp_solve).

   The target's tile function returns expressions over the tile variables
   K, C, OY, OX (tile sizes, integers in [1, full size]); the core adds the
   capacity of the engine's activation memory (double buffered when the op
   declares it) and of its weight memory, and the geometry (input rows and
   columns of a tile = its output extent times the stride plus the halo,
   at most the whole input: padding at the borders is not stored).
   Every nonlinear node is linearised exactly:
     a * b   binary expansion of the factor with the smaller range,
             each bit times the other factor by its four McCormick rows
             (exact for a binary times a bounded variable);
     a % m   a = m q + r, q integer, r integer in [0, m-1];
     min/max one binary selects the bound that is attained.
   HTC_TILE_BRUTE=1 also enumerates every tiling of small layers and
   records the brute-force optimum next to the MILP's (tests compare). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lpsolve/lp_lib.h>

#include "ir.h"
#include "quant.h"

/* boxes up to this many tilings are enumerated instead of solved as an MILP */
#ifndef TILE_ENUM_POINTS
#define TILE_ENUM_POINTS 200000.0
#endif

/* Limits (README, Limits). The MILP stops after a number of simplex
   iterations, never after a time, so the same inputs give the same tiling
   on any machine under any load. Per layer TILE_MILP_ITERS (about 1.5 s
   here); per model TILE_MODEL_ITERS, after which the remaining MILP
   layers are tiled by the coarse grid (coarse_values), as are MILPs of
   more than TILE_MILP_ROWS rows. HTC_TILE_BRUTE=1 (the tests' proof mode)
   gives every layer TILE_PROOF_ITERS and no model budget. */
#define TILE_MILP_ITERS 50000L
#define TILE_MODEL_ITERS 200000L
#define TILE_PROOF_ITERS 20000000L
#define TILE_MILP_ROWS 20000
#define TILE_MAX_TILES 10000000.0       /* tiles of one layer walked for DMA bytes and cycles */


/* ---- evaluation ------------------------------------------------------------------- */

/* add and pool requantise each channel on its own: C is a tile dimension */
static int c_tiled(const TileInfo *ti) { return !strcmp(ti->geom, "add") || !strcmp(ti->geom, "pool"); }

double expr_eval(const Expr *e, const double *x)
{
    double a, b;
    switch (e->kind) {
    case EX_CONST: return e->v;
    case EX_VAR: return x[e->var];
    case EX_NEG: return -expr_eval(e->a, x);
    default: break;
    }
    a = expr_eval(e->a, x);
    b = expr_eval(e->b, x);
    switch (e->kind) {
    case EX_ADD: return a + b;
    case EX_SUB: return a - b;
    case EX_MUL: return a * b;
    case EX_MOD: return a - b * floor(a / b);
    case EX_MIN: return a < b ? a : b;
    case EX_MAX: return a > b ? a : b;
    case EX_DIV: return a / b;
    case EX_CDIV: return ceil(a / b - 1e-9);
    case EX_LE: return a <= b + 1e-9;
    case EX_GE: return a >= b - 1e-9;
    case EX_EQ: return fabs(a - b) <= 1e-9;
    default: return 0;
    }
}

/* ---- the MILP under construction ------------------------------------------------------ */

typedef struct { int n, cap; int *col; double *c; double k; } Lin;   /* sum c*x[col] + k */

typedef struct {
    int ncols, capc;
    double *lo, *hi;
    char *isint;
    int nrows, capr;
    Lin *rows;
    int *rtype;                 /* LE, GE, EQ */
    double *rhs;
} Milp;

static void lin_add(Lin *l, int col, double c)
{
    for (int i = 0; i < l->n; i++)
        if (l->col[i] == col) { l->c[i] += c; return; }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4;
        int *nc = arena_alloc(sizeof(int) * (size_t)l->cap);
        double *nv = arena_alloc(sizeof(double) * (size_t)l->cap);
        if (l->n) { memcpy(nc, l->col, sizeof(int) * (size_t)l->n); memcpy(nv, l->c, sizeof(double) * (size_t)l->n); }
        l->col = nc;
        l->c = nv;
    }
    l->col[l->n] = col;
    l->c[l->n++] = c;
}

static Lin lin_scaled(const Lin *a, double s)
{
    Lin r = {0};
    for (int i = 0; i < a->n; i++) lin_add(&r, a->col[i], a->c[i] * s);
    r.k = a->k * s;
    return r;
}

static void lin_acc(Lin *r, const Lin *a, double s)
{
    for (int i = 0; i < a->n; i++) lin_add(r, a->col[i], a->c[i] * s);
    r->k += a->k * s;
}

static int new_col(Milp *m, double lo, double hi, int isint)
{
    if (m->ncols == m->capc) {
        m->capc = m->capc ? 2 * m->capc : 64;
        double *nl = arena_alloc(sizeof(double) * (size_t)m->capc), *nh = arena_alloc(sizeof(double) * (size_t)m->capc);
        char *ni = arena_alloc((size_t)m->capc);
        if (m->ncols) {
            memcpy(nl, m->lo, sizeof(double) * (size_t)m->ncols);
            memcpy(nh, m->hi, sizeof(double) * (size_t)m->ncols);
            memcpy(ni, m->isint, (size_t)m->ncols);
        }
        m->lo = nl; m->hi = nh; m->isint = ni;
    }
    m->lo[m->ncols] = lo;
    m->hi[m->ncols] = hi;
    m->isint[m->ncols] = (char)isint;
    return m->ncols++;
}

static void add_row(Milp *m, Lin l, int type, double rhs)
{
    if (m->nrows == m->capr) {
        m->capr = m->capr ? 2 * m->capr : 64;
        Lin *nr = arena_alloc(sizeof(Lin) * (size_t)m->capr);
        int *nt = arena_alloc(sizeof(int) * (size_t)m->capr);
        double *nh = arena_alloc(sizeof(double) * (size_t)m->capr);
        if (m->nrows) {
            memcpy(nr, m->rows, sizeof(Lin) * (size_t)m->nrows);
            memcpy(nt, m->rtype, sizeof(int) * (size_t)m->nrows);
            memcpy(nh, m->rhs, sizeof(double) * (size_t)m->nrows);
        }
        m->rows = nr; m->rtype = nt; m->rhs = nh;
    }
    m->rows[m->nrows] = l;
    m->rtype[m->nrows] = type;
    m->rhs[m->nrows++] = rhs - l.k;       /* constants to the right-hand side */
    m->rows[m->nrows - 1].k = 0;
}

/* bounds and integrality of a linear form */
static void lin_bounds(const Milp *m, const Lin *l, double *lo, double *hi, int *isint)
{
    double a = l->k, b = l->k;
    int in = fabs(l->k - round(l->k)) < 1e-9;
    for (int i = 0; i < l->n; i++) {
        double c = l->c[i], x0 = m->lo[l->col[i]], x1 = m->hi[l->col[i]];
        if (c >= 0) { a += c * x0; b += c * x1; } else { a += c * x1; b += c * x0; }
        if (!m->isint[l->col[i]] || fabs(c - round(c)) > 1e-9) in = 0;
    }
    *lo = a; *hi = b; *isint = in;
}

/* a column equal to l (l itself when it is one column with coefficient 1) */
static int as_col(Milp *m, const Lin *l)
{
    if (l->n == 1 && l->c[0] == 1 && l->k == 0) return l->col[0];
    double lo, hi;
    int in;
    lin_bounds(m, l, &lo, &hi, &in);
    int c = new_col(m, lo, hi, in);
    Lin r = lin_scaled(l, 1);
    lin_add(&r, c, -1);
    add_row(m, r, EQ, 0);
    return c;
}

static const char *where_;
static double box_points(const TileInfo *ti, const TileSpec *ts);
typedef struct {
    int n[TD_COUNT];
    int *v[TD_COUNT];
} Grid;
static Grid full_grid(const TileInfo *ti, const TileSpec *ts);
/* The capacity rows of a layer: per local memory the engine places tile
   buffers in, the bytes of those buffers (the tile function's l1_bytes,
   out_bytes, w_bytes; in a shared memory each but the last rounded up to
   4, where the next one starts) at most the memory's size. */
#define MAX_CAPS 3
typedef struct {
    int n;
    const Expr *e[MAX_CAPS];
    double cap[MAX_CAPS];
    const char *mem[MAX_CAPS];
    const char *what[MAX_CAPS];         /* "l1_bytes + w_bytes", for messages */
} Caps;
static int tile_enumerate(const TileInfo *ti, const TileSpec *ts, const Grid *gr, const Expr *obj, int minimize,
                          const Caps *caps, int *size, double *value);
/* the MILP failing numerically falls back to enumeration up to this many tilings */
#ifndef TILE_ENUM_FALLBACK
#define TILE_ENUM_FALLBACK 5e6
#endif
static long iter_limit;         /* simplex iterations the current MILP may use */

static int __WINAPI tile_abort(lprec *lp, void *user)
{
    (void)user;
    return get_total_iter(lp) > iter_limit;
}

static Lin lower_expr(Milp *m, const Expr *e, const int *vcol);

static Lin lower_mul(Milp *m, Lin A, Lin B)
{
    double la, ua, lb, ub;
    int ia, ib;
    lin_bounds(m, &A, &la, &ua, &ia);
    lin_bounds(m, &B, &lb, &ub, &ib);
    if (A.n == 0) return lin_scaled(&B, A.k);
    if (B.n == 0) return lin_scaled(&A, B.k);
    /* expand the integral factor with the smaller range */
    if (!ia || (ib && ub - lb < ua - la)) {
        Lin t = A; A = B; B = t;
        double x = la; la = lb; lb = x; x = ua; ua = ub; ub = x;
        int y = ia; ia = ib; ib = y;
    }
    if (!ia) die("%s: a product of two non-integer tile expressions cannot be linearised exactly", where_);
    int xa = as_col(m, &A);
    /* A = la + sum 2^j b_j, sum <= ua - la */
    int range = (int)llround(ua - la), nb = 0;
    while ((1 << nb) <= range) nb++;
    Lin r = lin_scaled(&B, la);
    Lin def = {0};
    lin_add(&def, xa, 1);
    for (int j = 0; j < nb; j++) {
        int bj = new_col(m, 0, 1, 1);
        lin_add(&def, bj, -(double)(1 << j));
        /* z = bj * B: z >= lb bj, z <= ub bj, z >= B - ub (1 - bj), z <= B - lb (1 - bj) */
        int z = new_col(m, lb < 0 ? lb : 0, ub > 0 ? ub : 0, ib);
        Lin r1 = {0}; lin_add(&r1, z, 1); lin_add(&r1, bj, -lb); add_row(m, r1, GE, 0);
        Lin r2 = {0}; lin_add(&r2, z, 1); lin_add(&r2, bj, -ub); add_row(m, r2, LE, 0);
        Lin r3 = lin_scaled(&B, -1); lin_add(&r3, z, 1); lin_add(&r3, bj, -ub); add_row(m, r3, GE, -ub);
        Lin r4 = lin_scaled(&B, -1); lin_add(&r4, z, 1); lin_add(&r4, bj, -lb); add_row(m, r4, LE, -lb);
        lin_add(&r, z, (double)(1 << j));
    }
    add_row(m, def, EQ, la);
    return r;
}

static Lin lower_minmax(Milp *m, Lin A, Lin B, int is_min)
{
    double la, ua, lb, ub;
    int ia, ib;
    lin_bounds(m, &A, &la, &ua, &ia);
    lin_bounds(m, &B, &lb, &ub, &ib);
    /* one bound dominates: no binary needed */
    if (is_min ? ua <= lb : la >= ub) return A;
    if (is_min ? ub <= la : lb >= ua) return B;
    double lo = is_min ? fmin(la, lb) : fmax(la, lb), hi = is_min ? fmin(ua, ub) : fmax(ua, ub);
    double M = fmax(ua, ub) - fmin(la, lb);
    int z = new_col(m, lo, hi, ia && ib), s = new_col(m, 0, 1, 1);
    /* min: z <= A, z <= B, z >= A - M s, z >= B - M (1 - s) (max mirrored) */
    Lin r1 = lin_scaled(&A, -1); lin_add(&r1, z, 1); add_row(m, r1, is_min ? LE : GE, 0);
    Lin r2 = lin_scaled(&B, -1); lin_add(&r2, z, 1); add_row(m, r2, is_min ? LE : GE, 0);
    Lin r3 = lin_scaled(&A, -1); lin_add(&r3, z, 1); lin_add(&r3, s, is_min ? M : -M);
    add_row(m, r3, is_min ? GE : LE, 0);
    Lin r4 = lin_scaled(&B, -1); lin_add(&r4, z, 1); lin_add(&r4, s, is_min ? -M : M);
    add_row(m, r4, is_min ? GE : LE, is_min ? -M : M);
    Lin r = {0};
    lin_add(&r, z, 1);
    return r;
}

/* a / b (cdiv: ceil(a / b)) for an expression b > 0 on the box. Exact:
   the quotient is a new column q with q * b = a (cdiv: q integer with
   0 <= q * b - a <= b - 1, a and b integers); the product q * b is
   linearised as any product (binary expansion of the integral factor). */
static Lin lower_div(Milp *m, Lin A, Lin B, int ceil_div)
{
    double la, ua, lb, ub;
    int ia, ib;
    lin_bounds(m, &A, &la, &ua, &ia);
    lin_bounds(m, &B, &lb, &ub, &ib);
    if (!(lb > 0)) die("%s: a divisor that may be zero or negative (its range is %g..%g)", where_, lb, ub);
    if (ceil_div && (!ia || !ib)) die("%s: cdiv(a, b) of non-integer tile expressions", where_);
    if (B.n == 0 && !ceil_div) return lin_scaled(&A, 1 / B.k);
    double c[4] = {la / lb, la / ub, ua / lb, ua / ub}, lo = c[0], hi = c[0];
    for (int i = 1; i < 4; i++) { lo = fmin(lo, c[i]); hi = fmax(hi, c[i]); }
    if (ceil_div) { lo = ceil(lo - 1e-9); hi = ceil(hi - 1e-9); }
    Lin q = {0};
    lin_add(&q, new_col(m, lo, hi, ceil_div), 1);
    Lin prod = lower_mul(m, q, B);
    lin_acc(&prod, &A, -1);                       /* q b - a */
    if (!ceil_div) {
        add_row(m, prod, EQ, 0);
    } else {
        add_row(m, prod, GE, 0);
        Lin r = lin_scaled(&prod, 1);
        lin_acc(&r, &B, -1);                      /* q b - a - b <= -1 */
        add_row(m, r, LE, -1);
    }
    return q;
}

static Lin lower_expr(Milp *m, const Expr *e, const int *vcol)
{
    Lin r = {0};
    switch (e->kind) {
    case EX_CONST: r.k = e->v; return r;
    case EX_VAR:
        if (e->var >= TD_COUNT) die("internal: %s: t.dma_bytes / t.tiles in an MILP", where_);
        lin_add(&r, vcol[e->var], 1);
        return r;
    case EX_NEG: { Lin a = lower_expr(m, e->a, vcol); return lin_scaled(&a, -1); }
    case EX_ADD: case EX_SUB: {
        Lin a = lower_expr(m, e->a, vcol), b = lower_expr(m, e->b, vcol);
        lin_acc(&a, &b, e->kind == EX_ADD ? 1 : -1);
        return a;
    }
    case EX_MUL: return lower_mul(m, lower_expr(m, e->a, vcol), lower_expr(m, e->b, vcol));
    case EX_MIN: case EX_MAX:
        return lower_minmax(m, lower_expr(m, e->a, vcol), lower_expr(m, e->b, vcol), e->kind == EX_MIN);
    case EX_DIV: case EX_CDIV: return lower_div(m, lower_expr(m, e->a, vcol), lower_expr(m, e->b, vcol), e->kind == EX_CDIV);
    case EX_MOD: {
        Lin a = lower_expr(m, e->a, vcol);
        double la, ua, md = e->b->kind == EX_CONST ? e->b->v : 0;
        int ia;
        if (md < 1 || md != floor(md)) die("%s: %% needs a positive integer constant modulus", where_);
        lin_bounds(m, &a, &la, &ua, &ia);
        if (!ia) die("%s: %% of a non-integer tile expression", where_);
        if (a.n == 0) { r.k = a.k - md * floor(a.k / md); return r; }
        int q = new_col(m, floor(la / md), floor(ua / md), 1), rr = new_col(m, 0, md - 1, 1);
        Lin d = lin_scaled(&a, 1);
        lin_add(&d, q, -md);
        lin_add(&d, rr, -1);
        add_row(m, d, EQ, 0);
        lin_add(&r, rr, 1);
        return r;
    }
    default: die("%s: a constraint (le/ge/eq) inside an expression", where_);
    }
}

static void milp_constraint(Milp *m, const Expr *c, const int *vcol)
{
    Lin a = lower_expr(m, c->a, vcol), b = lower_expr(m, c->b, vcol);
    lin_acc(&a, &b, -1);
    add_row(m, a, c->kind == EX_LE ? LE : c->kind == EX_GE ? GE : EQ, 0);
}

/* Solve: maximise obj (or minimise when minimize) subject to the spec,
   within `limit` simplex iterations (*used: how many it took).
   caps: the capacity rows (none: no memory constraint). Returns 1 and the tile sizes
   when a tiling was found (*proven: optimal), 0 when none exists, -1 when
   the limit (or the size limit: more than TILE_MILP_ROWS rows) stopped it
   before it found one, -2 when lp_solve failed numerically. */
static int tile_solve(const TileInfo *ti, const TileSpec *ts, const Expr *obj, int minimize, const Caps *caps,
                      const Expr *keep, double keep_val, int keep_min,
                      int *size, double *value, int *nvars, int *nrows, long limit, long *used, int *proven)
{
    *used = 0;
    *proven = 0;
    Milp m = {0};
    int vcol[TD_COUNT];
    for (int d = 0; d < TD_COUNT; d++) vcol[d] = new_col(&m, 1, ti->full[d], 1);
    if (ts->tied_c) {
        Lin l = {0}; lin_add(&l, vcol[TD_C], 1); lin_add(&l, vcol[TD_K], -1); add_row(&m, l, EQ, 0);
    } else if (!ti->c_free) {
        /* requantisation at the engine's output: no partial sums, C is whole */
        m.lo[vcol[TD_C]] = ti->full[TD_C];
    }
    for (int i = 0; i < ts->ncons; i++) milp_constraint(&m, ts->cons[i], vcol);
    for (int i = 0; i < caps->n; i++) {
        Lin l = lower_expr(&m, caps->e[i], vcol);
        add_row(&m, l, LE, caps->cap[i]);
    }
    if (keep) {     /* the tie-break's solve: the first objective kept at its optimum */
        Lin l = lower_expr(&m, keep, vcol);
        const double tol = 1e-9 * fmax(1, fabs(keep_val));
        add_row(&m, l, keep_min ? LE : GE, keep_min ? keep_val + tol : keep_val - tol);
    }
    Lin o = lower_expr(&m, obj, vcol);
    *nvars = m.ncols;
    *nrows = m.nrows;
    if (m.nrows > TILE_MILP_ROWS || limit <= 0) return -1;
    lprec *lp = make_lp(0, m.ncols);
    if (!lp) die("lp_solve: cannot create a model");
    set_verbose(lp, NEUTRAL);
    set_add_rowmode(lp, TRUE);
    for (int i = 0; i < m.nrows; i++) {
        int *cols = arena_alloc(sizeof(int) * (size_t)(m.rows[i].n + 1));
        for (int k = 0; k < m.rows[i].n; k++) cols[k] = m.rows[i].col[k] + 1;
        add_constraintex(lp, m.rows[i].n, m.rows[i].c, cols, m.rtype[i], m.rhs[i]);
    }
    set_add_rowmode(lp, FALSE);
    {
        int *cols = arena_alloc(sizeof(int) * (size_t)(o.n + 1));
        for (int k = 0; k < o.n; k++) cols[k] = o.col[k] + 1;
        set_obj_fnex(lp, o.n, o.c, cols);
    }
    for (int c = 0; c < m.ncols; c++) {
        set_bounds(lp, c + 1, m.lo[c], m.hi[c]);
        if (m.isint[c]) set_int(lp, c + 1, TRUE);
    }
    if (minimize) set_minim(lp); else set_maxim(lp);
    set_mip_gap(lp, TRUE, 1e-12);
    set_mip_gap(lp, FALSE, 1e-12);
    set_epsint(lp, 1e-9);
    set_scaling(lp, SCALE_GEOMETRIC + SCALE_DYNUPDATE);
    iter_limit = limit;
    put_abortfunc(lp, tile_abort, NULL);
    int rc = solve(lp);
    *used = (long)get_total_iter(lp);
    if (rc != OPTIMAL && rc != PRESOLVED && rc != SUBOPTIMAL) {
        delete_lp(lp);
        if (rc == INFEASIBLE) return 0;
        if (rc == USERABORT) return -1;
        return -2;     /* a numerical failure (large products of tile counts) */
    }
    *proven = rc != SUBOPTIMAL;
    double *x = arena_alloc(sizeof(double) * (size_t)m.ncols);
    get_variables(lp, x);
    for (int d = 0; d < TD_COUNT; d++) size[d] = (int)llround(x[vcol[d]]);
    *value = get_objective(lp) + o.k;
    delete_lp(lp);
    return 1;
}

/* ---- derived variables: the layer's DMA bytes and tile count at a tiling ------------------ */

/* What walk() counts, in closed form: the input rows (columns) a tiling of
   OY (OX) reads summed over its tiles, clipped at the borders, depend on
   that one size only (ry, rx, per size); the weights on K and C only. A
   C split (an engine with partial sums, C below whole) re-reads the
   weights for every output tile. walk() checks the two agree on every
   layer it tiles. */
typedef struct {
    const TileInfo *ti;
    const TileSpec *ts;
    int64_t *ry, *ny, *rx, *nx;         /* per tile size: rows read, tiles */
    int key_k, key_c;                   /* the weights' cache: its K and C sizes */
    int64_t w_whole, w_parts;           /* per layer: C whole; C split, per output tile */
} Deriv;

static void deriv_rows(int full, int in, int s, int k, int pad, int plain, int64_t **r, int64_t **n)
{
    *r = arena_alloc(sizeof(int64_t) * (size_t)(full + 1));
    *n = arena_alloc(sizeof(int64_t) * (size_t)(full + 1));
    for (int sz = 1; sz <= full; sz++) {
        int64_t sum = 0, cnt = 0;
        for (int y0 = 0; y0 < full; y0 += sz) {
            int yt = full - y0 < sz ? full - y0 : sz;
            int a = y0 * s - pad, b = (y0 + yt - 1) * s - pad + k;
            if (plain) { a = y0; b = y0 + yt; }
            a = a < 0 ? 0 : a;
            b = b > in ? in : b;
            sum += b - a;
            cnt++;
        }
        (*r)[sz] = sum;
        (*n)[sz] = cnt;
    }
}

static void deriv_init(Deriv *d, const TileInfo *ti, const TileSpec *ts)
{
    memset(d, 0, sizeof *d);
    d->ti = ti;
    d->ts = ts;
    const int plain = !strcmp(ti->geom, "add") || !strcmp(ti->geom, "fc");
    deriv_rows(ti->full[TD_OY], ti->in_h, ti->s_h, ti->k_h, ti->pad_top, plain, &d->ry, &d->ny);
    deriv_rows(ti->full[TD_OX], ti->in_w, ti->s_w, ti->k_w, ti->pad_left, plain, &d->rx, &d->nx);
}

/* one weight transfer's bytes, as weight_dma counts them */
static int64_t deriv_w(const TileSpec *ts, int kt, int ct)
{
    if (!ts->w_bytes) return 0;
    double x[TD_COUNT] = {kt, ct, 1, 1}, wb = expr_eval(ts->w_bytes, x);
    return wb > 0 ? (int64_t)wb : 0;
}

/* x[TD_DMA], x[TD_NTILES] at the tile sizes x[TD_K..TD_OX] */
static void deriv_at(Deriv *d, double *x)
{
    const TileInfo *ti = d->ti;
    const int *F = ti->full;
    int S[TD_COUNT];
    for (int i = 0; i < TD_COUNT; i++) S[i] = (int)x[i];
    const int tiled = c_tiled(ti), split = !tiled && ti->c_free && S[TD_C] < F[TD_C];
    const int64_t nk = (F[TD_K] + S[TD_K] - 1) / S[TD_K], nc = (F[TD_C] + S[TD_C] - 1) / S[TD_C];
    const int64_t ny = d->ny[S[TD_OY]], nx = d->nx[S[TD_OX]], rows = d->ry[S[TD_OY]] * d->rx[S[TD_OX]];
    const int64_t outs = (int64_t)F[TD_OY] * F[TD_OX];
    if (d->key_k != S[TD_K] || d->key_c != S[TD_C]) {
        d->key_k = S[TD_K];
        d->key_c = S[TD_C];
        d->w_whole = d->w_parts = 0;
        for (int k0 = 0; k0 < F[TD_K]; k0 += S[TD_K]) {
            int kt = F[TD_K] - k0 < S[TD_K] ? F[TD_K] - k0 : S[TD_K];
            d->w_whole += deriv_w(d->ts, kt, d->ts->tied_c ? kt : F[TD_C]);
            if (split)
                for (int p0 = 0; p0 < F[TD_C]; p0 += S[TD_C])
                    d->w_parts += deriv_w(d->ts, kt, F[TD_C] - p0 < S[TD_C] ? F[TD_C] - p0 : S[TD_C]);
        }
    }
    int64_t dma;
    if (tiled)          /* add (two inputs) and pool: per K tile every C tile in and out */
        dma = d->w_whole + nk * ((int64_t)F[TD_C] * rows * (!strcmp(ti->geom, "add") ? 2 : 1) + (int64_t)F[TD_C] * outs);
    else if (split)
        dma = d->w_parts * ny * nx + nk * (int64_t)F[TD_C] * rows + (int64_t)F[TD_K] * outs;
    else
        dma = d->w_whole + (d->ts->tied_c ? (int64_t)F[TD_K] : nk * F[TD_C]) * rows + (int64_t)F[TD_K] * outs;
    x[TD_DMA] = (double)dma;
    x[TD_NTILES] = (double)(nk * (tiled || split ? nc : 1) * ny * nx);
}

/* every tiling in the box; the best objective over the feasible ones */
static double brute(const TileInfo *ti, const TileSpec *ts, const Caps *caps, int64_t *points)
{
    double best = -INFINITY, x[TD_VARS];
    int64_t n = 0;
    Deriv dv;
    if (ts->derived) deriv_init(&dv, ti, ts);
    int c0 = ti->c_free ? 1 : ti->full[TD_C];
    for (int k = 1; k <= ti->full[TD_K]; k++)
        for (int c = ts->tied_c ? k : c0; c <= (ts->tied_c ? k : ti->full[TD_C]); c++)
            for (int oy = 1; oy <= ti->full[TD_OY]; oy++)
                for (int ox = 1; ox <= ti->full[TD_OX]; ox++) {
                    x[TD_K] = k; x[TD_C] = c; x[TD_OY] = oy; x[TD_OX] = ox;
                    if (ts->derived) deriv_at(&dv, x);
                    n++;
                    int ok = 1;
                    for (int i = 0; ok && i < caps->n; i++) ok = expr_eval(caps->e[i], x) <= caps->cap[i];
                    for (int i = 0; ok && i < ts->ncons; i++) ok = expr_eval(ts->cons[i], x) != 0;
                    if (!ok) continue;
                    double v = expr_eval(ts->maximize, x) * (ts->minimize ? -1 : 1);
                    if (v > best) best = v;
                }
    *points = n;
    return ts->minimize ? -best : best;
}

/* ---- exact enumeration (small boxes: cheaper than the MILP, same optimum) ---------------- */

typedef struct { int kind, a, b, var; double v; } Ins;
typedef struct {
    int n, cap;
    Ins *ins;
    int *order, start[TD_COUNT + 2];    /* instructions by loop level: -1 (constant), K, C, OY, OX */
} Prog;

static int prog_add(Prog *p, const Expr *e)
{
    int a = -1, b = -1;
    if (e->kind != EX_CONST && e->kind != EX_VAR) {
        a = prog_add(p, e->a);
        if (e->kind != EX_NEG) b = prog_add(p, e->b);
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 32;
        Ins *ni = arena_alloc(sizeof(Ins) * (size_t)p->cap);
        if (p->n) memcpy(ni, p->ins, sizeof(Ins) * (size_t)p->n);
        p->ins = ni;
    }
    Ins *i = &p->ins[p->n];
    i->kind = e->kind; i->a = a; i->b = b; i->var = e->var; i->v = e->v;
    return p->n++;
}

/* Loop-invariant hoisting: an instruction runs at the innermost loop
   (K, C, OY, OX) of the variables it depends on, constants once. */
static void prog_levels(Prog *p)
{
    int *lev = arena_alloc(sizeof(int) * (size_t)(p->n + 1));
    for (int i = 0; i < p->n; i++) {
        const Ins *in = &p->ins[i];
        int l = in->kind == EX_VAR ? (in->var < TD_COUNT ? in->var : TD_OX) : -1;   /* derived: innermost */
        if (in->a >= 0 && lev[in->a] > l) l = lev[in->a];
        if (in->b >= 0 && lev[in->b] > l) l = lev[in->b];
        lev[i] = l;
    }
    p->order = arena_alloc(sizeof(int) * (size_t)(p->n + 1));
    int k = 0;
    for (int l = -1; l < TD_COUNT; l++) {
        p->start[l + 1] = k;
        for (int i = 0; i < p->n; i++)
            if (lev[i] == l) p->order[k++] = i;   /* stable: operands stay first */
    }
    p->start[TD_COUNT + 1] = k;
}

static void prog_level(const Prog *p, int level, const double *x, double *r)
{
    for (int j = p->start[level + 1]; j < p->start[level + 2]; j++) {
        const int i = p->order[j];
        const Ins *in = &p->ins[i];
        double a = in->a >= 0 ? r[in->a] : 0, b = in->b >= 0 ? r[in->b] : 0;
        switch (in->kind) {
        case EX_CONST: r[i] = in->v; break;
        case EX_VAR: r[i] = x[in->var]; break;
        case EX_NEG: r[i] = -a; break;
        case EX_ADD: r[i] = a + b; break;
        case EX_SUB: r[i] = a - b; break;
        case EX_MUL: r[i] = a * b; break;
        case EX_MOD: r[i] = a - b * floor(a / b); break;
        case EX_MIN: r[i] = a < b ? a : b; break;
        case EX_MAX: r[i] = a > b ? a : b; break;
        case EX_DIV: r[i] = a / b; break;
        case EX_CDIV: r[i] = ceil(a / b - 1e-9); break;
        case EX_LE: r[i] = a <= b + 1e-9; break;
        case EX_GE: r[i] = a >= b - 1e-9; break;
        case EX_EQ: r[i] = fabs(a - b) <= 1e-9; break;
        default: r[i] = 0;
        }
    }
}

/* points in the box of tilings (C is whole unless add, tied to K for dw) */
/* A dimension the target's constraints pin to one size (eq(t.OY, op.OY),
   a constant in range): that size, else 0. */
static int fixed_size(const TileInfo *ti, const TileSpec *ts, int d)
{
    for (int i = 0; i < ts->ncons; i++) {
        const Expr *c = ts->cons[i];
        if (c->kind != EX_EQ) continue;
        const Expr *v = c->a->kind == EX_VAR ? c->a : c->b, *k = c->a->kind == EX_VAR ? c->b : c->a;
        if (v->kind == EX_VAR && v->var == d && k->kind == EX_CONST && k->v >= 1 && k->v <= ti->full[d] &&
            k->v == (int)k->v)
            return (int)k->v;
    }
    return 0;
}

static double box_points(const TileInfo *ti, const TileSpec *ts)
{
    double n = 1;
    for (int d = 0; d < TD_COUNT; d++)
        if ((d != TD_C || (!ts->tied_c && ti->c_free)) && !fixed_size(ti, ts, d)) n *= ti->full[d];
    return n;
}

/* The tile sizes to try, ascending, per dimension. */
/* every size of every dimension: the exact box (a dimension the
   constraints pin: that size only) */
static Grid full_grid(const TileInfo *ti, const TileSpec *ts)
{
    Grid g;
    for (int d = 0; d < TD_COUNT; d++) {
        int f = fixed_size(ti, ts, d);
        g.n[d] = f ? 1 : ti->full[d];
        g.v[d] = arena_alloc(sizeof(int) * (size_t)(ti->full[d] + 1));
        if (f) g.v[d][0] = f;
        else
            for (int i = 0; i < ti->full[d]; i++) g.v[d][i] = i + 1;
    }
    return g;
}

static int by_int_asc(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return a < b ? -1 : a > b;
}

/* The coarse grid, when the MILP budget is used up or the MILP too big:
   per dimension the powers of two and ceil(full / m) for m = 1..8 (the
   whole dimension, halves, thirds, ...), at most ~40 sizes each. */
static Grid coarse_grid(const TileInfo *ti)
{
    Grid g;
    for (int d = 0; d < TD_COUNT; d++) {
        int f = ti->full[d], n = 0;
        int *v = arena_alloc(sizeof(int) * 48);
        for (int64_t p = 1; p < f && n < 32; p *= 2) v[n++] = (int)p;
        for (int m = 1; m <= 8; m++) v[n++] = (f + m - 1) / m;
        qsort(v, (size_t)n, sizeof(int), by_int_asc);
        int u = 0;
        for (int i = 0; i < n; i++)
            if (!u || v[i] != v[u - 1]) v[u++] = v[i];
        g.n[d] = u;
        g.v[d] = v;
    }
    return g;
}

/* The tie-break of the tiling x: the target's tie_break, else the tile
   count (t.tiles); the least wins. */
static const Expr default_tie = {EX_VAR, 0, TD_NTILES, NULL, NULL};
static double tie_value(const TileSpec *ts, Deriv *dv, double *x)
{
    const Expr *t = ts->tie_break ? ts->tie_break : &default_tie;
    deriv_at(dv, x);
    return expr_eval(t, x);
}

/* Every tiling of the box: the feasible one with the best objective
   (maximise, or minimise when minimize); among equal objectives (within
   1e-9) the least tie_break (default: the fewest tiles), then the first
   found (K, C, OY, OX ascending). Exact. */
static int tile_enumerate(const TileInfo *ti, const TileSpec *ts, const Grid *gr, const Expr *obj, int minimize,
                          const Caps *caps, int *size, double *value)
{
    /* programs: the capacities, the objective (ob), the constraints; one register file each */
    const int ncap = caps->n, ob = ncap, np = ncap + 1 + ts->ncons;
    Prog *pg = arena_alloc(sizeof(Prog) * (size_t)np);
    double **r = arena_alloc(sizeof(double *) * (size_t)np), x[TD_VARS] = {0}, best = 0, best_tie = 0;
    int tie_known = 0;
    Deriv dv;
    deriv_init(&dv, ti, ts);
    for (int i = 0; i < ncap; i++) prog_add(&pg[i], caps->e[i]);
    prog_add(&pg[ob], obj);
    for (int i = 0; i < ts->ncons; i++) prog_add(&pg[ob + 1 + i], ts->cons[i]);
    for (int i = 0; i < np; i++) {
        if (pg[i].n) prog_levels(&pg[i]);
        r[i] = arena_alloc(sizeof(double) * (size_t)(pg[i].n + 1));
    }
#define LEVEL(l) for (int q = 0; q < np; q++) if (pg[q].n) prog_level(&pg[q], l, x, r[q])
#define RESULT(q) r[q][pg[q].n - 1]
    int found = 0, add = ti->c_free;
    int whole_c = ti->full[TD_C];
    LEVEL(-1);
    for (int ik = 0; ik < gr->n[TD_K]; ik++) {
        int k = gr->v[TD_K][ik];
        x[TD_K] = k;
        LEVEL(TD_K);
        int nc = ts->tied_c || !add ? 1 : gr->n[TD_C];
        for (int ic = 0; ic < nc; ic++) {
            int c = ts->tied_c ? k : add ? gr->v[TD_C][ic] : whole_c;
            x[TD_C] = c;
            LEVEL(TD_C);
            for (int iy = 0; iy < gr->n[TD_OY]; iy++) {
                int oy = gr->v[TD_OY][iy];
                x[TD_OY] = oy;
                LEVEL(TD_OY);
                for (int ix = 0; ix < gr->n[TD_OX]; ix++) {
                    int ox = gr->v[TD_OX][ix];
                    x[TD_OX] = ox;
                    if (ts->derived) deriv_at(&dv, x);
                    int ok = 1;
                    for (int q = 0; ok && q < np; q++) {
                        if (q == ob) continue;
                        prog_level(&pg[q], TD_OX, x, r[q]);
                        ok = q < ncap ? RESULT(q) <= caps->cap[q] + 1e-9 : RESULT(q) != 0;
                    }
                    if (!ok) continue;
                    prog_level(&pg[ob], TD_OX, x, r[ob]);
                    double v = RESULT(ob);
                    int take = !found || (minimize ? v < best - 1e-9 : v > best + 1e-9);
                    if (!take && fabs(v - best) <= 1e-9) {      /* a tie: the least tie_break */
                        if (!tie_known) {
                            double xb[TD_VARS] = {size[TD_K], size[TD_C], size[TD_OY], size[TD_OX]};
                            best_tie = tie_value(ts, &dv, xb);
                            tie_known = 1;
                        }
                        double xt[TD_VARS] = {k, c, oy, ox}, tv = tie_value(ts, &dv, xt);
                        if (tv < best_tie - 1e-9) { take = 1; best_tie = tv; }
                    } else if (take)
                        tie_known = 0;
                    if (take) {
                        found = 1;
                        best = v;
                        size[TD_K] = k; size[TD_C] = c; size[TD_OY] = oy; size[TD_OX] = ox;
                    }
                }
            }
        }
    }
#undef LEVEL
#undef RESULT
    *value = best;
    return found;
}

/* ---- per-op geometry ------------------------------------------------------------------ */

static int geometry(const Graph *g, const Op *op, TileInfo *ti)
{
    memset(ti, 0, sizeof *ti);
    ti->k_h = ti->k_w = ti->s_h = ti->s_w = 1;
    if (op->kind == OP_CONV2D) {
        int dw = op->depthwise && op->out_c == op->in_c;
        if (op->groups != 1 && !dw) return 0;
        ti->geom = dw ? "dw" : "conv";
        ti->full[TD_K] = op->out_c; ti->full[TD_C] = op->in_c;
        ti->full[TD_OY] = op->out_h; ti->full[TD_OX] = op->out_w;
        ti->in_h = op->in_h; ti->in_w = op->in_w; ti->k_h = op->k_h; ti->k_w = op->k_w;
        ti->s_h = op->stride_h; ti->s_w = op->stride_w; ti->pad_top = op->pad_top; ti->pad_left = op->pad_left;
        return 1;
    }
    if (op->kind == OP_FC) {
        ti->geom = "fc";
        ti->full[TD_K] = op->out_c; ti->full[TD_C] = op->in_c;
        ti->full[TD_OY] = ti->full[TD_OX] = 1;
        ti->in_h = ti->in_w = 1;
        return 1;
    }
    if (op->kind == OP_ADD) {
        const Tensor *o = &g->tensors[op->out[0]];
        ti->geom = "add";
        int h = 1, w = 1, c = 1;
        if (o->rank == 4) { h = o->shape[1]; w = o->shape[2]; c = o->shape[3]; }
        else { for (int d = 0; d < o->rank - 1; d++) h *= o->shape[d]; c = o->shape[o->rank - 1]; }
        ti->full[TD_K] = 1; ti->full[TD_C] = c; ti->full[TD_OY] = h; ti->full[TD_OX] = w;
        ti->in_h = h; ti->in_w = w;
        return 1;
    }
    if (op->kind == OP_AVGPOOL && op->global) {
        /* global average pool: one output pixel, the whole image is its window */
        if (op->batches != 1) return 0;
        ti->geom = "pool";
        ti->full[TD_K] = 1; ti->full[TD_C] = op->in_c; ti->full[TD_OY] = ti->full[TD_OX] = 1;
        ti->in_h = op->in_h; ti->in_w = op->in_w;
        ti->k_h = ti->in_h; ti->k_w = ti->in_w;
        return 1;
    }
    return 0;
}


/* one K tile's weights (x: its K and C sizes): their bytes and DMA cycles */
static void weight_dma(const TileSpec *ts, const Memory *wm, const double *x, int64_t *dma, double *est)
{
    if (!ts->w_bytes) return;
    double wb = expr_eval(ts->w_bytes, x);
    if (!(wb > 0)) return;
    *dma += (int64_t)wb;
    if (ts->w_dma_cycles) *est += expr_eval(ts->w_dma_cycles, x);
    else if (wm && wm->dma_bytes_per_cycle > 0) *est += wm->dma_setup + wb / wm->dma_bytes_per_cycle;
}

/* walk the actual tiles (remainders included): count, DMA bytes, estimate;
   at most TILE_MAX_TILES tiles, each tile's cycles a finite number. With
   C split (ti->c_split: int32 partial sums) the C tiles are the innermost
   loop of each output tile: per C tile its weights and its input channels
   move in (the weights again for every output tile), the output moves
   out after the last C tile. */
static void walk(TileInfo *ti, const TileSpec *ts, const Memory *act, const Memory *wm, const Memory *om, const Op *op)
{
    double count = 1;
    for (int d = 0; d < TD_COUNT; d++)
        if (d != TD_C || c_tiled(ti) || ti->c_split) count *= (double)((ti->full[d] + ti->size[d] - 1) / ti->size[d]);
    if (count > TILE_MAX_TILES)
        die("%s: the chosen tiling of operator %d %s has %.0f tiles (at most %.0f)", ts->where, op->src_index,
            op->src_name, count, TILE_MAX_TILES);
    double est = 0;
    int64_t dma = 0;
    int n = 0;
    const int *F = ti->full, *S = ti->size;
    for (int k0 = 0; k0 < F[TD_K]; k0 += S[TD_K]) {
        int kt = F[TD_K] - k0 < S[TD_K] ? F[TD_K] - k0 : S[TD_K];
        int ct = ts->tied_c ? kt : F[TD_C];
        if (!ti->c_split) {
            double x[TD_COUNT] = {kt, ct, 1, 1};
            weight_dma(ts, wm, x, &dma, &est);
        }
        for (int c0 = 0; c0 < (c_tiled(ti) ? F[TD_C] : 1); c0 += S[TD_C])
            for (int y0 = 0; y0 < F[TD_OY]; y0 += S[TD_OY])
                for (int x0 = 0; x0 < F[TD_OX]; x0 += S[TD_OX])
                    for (int p0 = 0; p0 < (ti->c_split ? F[TD_C] : 1); p0 += S[TD_C]) {
                    int yt = F[TD_OY] - y0 < S[TD_OY] ? F[TD_OY] - y0 : S[TD_OY];
                    int xt = F[TD_OX] - x0 < S[TD_OX] ? F[TD_OX] - x0 : S[TD_OX];
                    int cc = c_tiled(ti) ? (F[TD_C] - c0 < S[TD_C] ? F[TD_C] - c0 : S[TD_C]) : ct;
                    int last = 1;       /* the tile that writes the output */
                    if (ti->c_split) {
                        cc = F[TD_C] - p0 < S[TD_C] ? F[TD_C] - p0 : S[TD_C];
                        last = p0 + cc == F[TD_C];
                        double xw[TD_COUNT] = {kt, cc, 1, 1};
                        weight_dma(ts, wm, xw, &dma, &est);
                    }
                    /* input rows actually read: clipped at the borders */
                    int iy0 = y0 * ti->s_h - ti->pad_top, iy1 = (y0 + yt - 1) * ti->s_h - ti->pad_top + ti->k_h;
                    int ix0 = x0 * ti->s_w - ti->pad_left, ix1 = (x0 + xt - 1) * ti->s_w - ti->pad_left + ti->k_w;
                    if (!strcmp(ti->geom, "add") || !strcmp(ti->geom, "fc")) { iy0 = y0; iy1 = y0 + yt; ix0 = x0; ix1 = x0 + xt; }
                    iy0 = iy0 < 0 ? 0 : iy0; ix0 = ix0 < 0 ? 0 : ix0;
                    iy1 = iy1 > ti->in_h ? ti->in_h : iy1; ix1 = ix1 > ti->in_w ? ti->in_w : ix1;
                    int64_t inb = (int64_t)cc * (iy1 - iy0) * (ix1 - ix0);
                    int64_t outb = last ? (int64_t)(c_tiled(ti) ? cc : kt) * yt * xt : 0;
                    if (!strcmp(ti->geom, "add")) inb *= 2;
                    dma += inb + outb;
                    n++;
                    double x[TD_COUNT] = {kt, cc, yt, xt};
                    double comp = ts->cycles ? expr_eval(ts->cycles, x) : 0;
                    if (!(comp >= 0 && comp <= 1e18))
                        die("%s is %g for a tile (K=%d C=%d OY=%d OX=%d) of operator %d %s: expected a cycle count",
                            ts->where_cycles, comp, kt, cc, yt, xt, op->src_index, op->src_name);
                    const Memory *am = act->dma_bytes_per_cycle > 0 ? act : NULL;
                    const Memory *o2 = om && om->dma_bytes_per_cycle > 0 ? om : am;
                    double dm = ts->dma_cycles ? expr_eval(ts->dma_cycles, x)
                              : !om && last && am ? 2 * am->dma_setup + (double)(inb + outb) / am->dma_bytes_per_cycle
                              : (am ? am->dma_setup + (double)inb / am->dma_bytes_per_cycle : 0) +
                                    (outb && o2 ? o2->dma_setup + (double)outb / o2->dma_bytes_per_cycle : 0);
                    est += ti->double_buffer ? (comp > dm ? comp : dm) : comp + dm;
                }
    }
    ti->ntiles = n;
    ti->dma_bytes = dma;
    {   /* t.dma_bytes and t.tiles are these figures */
        Deriv dv;
        double x[TD_VARS] = {S[TD_K], S[TD_C], S[TD_OY], S[TD_OX]};
        deriv_init(&dv, ti, ts);
        deriv_at(&dv, x);
        if (x[TD_DMA] != (double)dma || x[TD_NTILES] != (double)n)
            die("internal: %s: operator %d %s: t.dma_bytes %.0f / t.tiles %.0f, walked %lld / %d", ts->where,
                op->src_index, op->src_name, x[TD_DMA], x[TD_NTILES], (long long)dma, n);
    }
    ti->est_cycles = est;
}

/* weights and bias of a conv/dw/fc in the engine's layout: per output
   channel k, [C][kh][kw] (C-y-x, as the activations), then the biases. */
static void weight_layout(const Graph *g, const Op *op, TileInfo *ti)
{
    if (op->kind == OP_CONV2D) {
        /* canonical [K][kh][kw][gi] -> [K][gi][kh][kw] */
        int K = op->out_c, gi = op->in_c / op->groups, kh = op->k_h, kw = op->k_w;
        const int8_t *src = (const int8_t *)g->tensors[op->in[1]].data;
        int8_t *w = arena_alloc((size_t)K * gi * kh * kw);
        for (int k = 0; k < K; k++)
            for (int c = 0; c < gi; c++)
                for (int y = 0; y < kh; y++)
                    for (int x = 0; x < kw; x++)
                        w[(((size_t)k * gi + c) * kh + y) * kw + x] = src[(((size_t)k * kh + y) * kw + x) * gi + c];
        ti->wlayout = w;
        ti->wlayout_bytes = (size_t)K * gi * kh * kw;
    } else if (op->kind == OP_FC) {
        ti->wlayout = (const int8_t *)g->tensors[op->in[1]].data;   /* [K][C] already */
        ti->wlayout_bytes = (size_t)op->out_c * op->in_c;
    } else if (op->kind == OP_AVGPOOL && op->rq == RQ_FLOAT) {
        /* the pool unit's configuration words, little-endian, loaded into the
           weight memory like a conv's biases: bias (-x_zp * window), output
           zero point, qmin, qmax, the float scale's bits (onnxruntime's) */
        const htc__qgap_params *p = op->params;
        uint32_t v[5];
        int8_t *w = arena_alloc(sizeof v);
        v[0] = (uint32_t)p->bias; v[1] = (uint32_t)p->out_zp; v[2] = (uint32_t)p->qmin; v[3] = (uint32_t)p->qmax;
        memcpy(&v[4], &p->scale, 4);
        for (int i = 0; i < 20; i++) w[i] = (int8_t)(uint8_t)(v[i / 4] >> (8 * (i % 4)));
        ti->wlayout = w;
        ti->wlayout_bytes = sizeof v;
    }
}

/* ---- choosing a tiling within the limits ------------------------------------------------ */

static long model_left = TILE_MODEL_ITERS;     /* simplex iterations left for this model */
static int budget_warned;
static int trial_;         /* dispatch's trial tiling (tile_trial_dma): no warnings */
#define twarn(...) do { if (!trial_) warn(__VA_ARGS__); } while (0)

/* The best tiling of obj: exact enumeration of small boxes, else the MILP
   within its iteration limit and the model's budget, else the coarse grid.
   Returns 1 (found; *method says how), 0 (no tiling exists: exact), -1
   (none found within the limits). */
static int choose(TileInfo *ti, const TileSpec *ts, const Expr *obj, int minimize, const Caps *caps,
                  int *size, double *val, int brute_on, const char **method, int *nvars, int *nrows)
{
    if (!brute_on && box_points(ti, ts) <= TILE_ENUM_POINTS) {
        Grid gr = full_grid(ti, ts);
        *method = "enumeration";
        return tile_enumerate(ti, ts, &gr, obj, minimize, caps, size, val);
    }
    if (ts->derived) {
        /* t.dma_bytes / t.tiles are no MILP expressions: every tiling up to
           TILE_ENUM_FALLBACK, else the coarse grid */
        const int all = box_points(ti, ts) <= TILE_ENUM_FALLBACK;
        Grid gr = all ? full_grid(ti, ts) : coarse_grid(ti);
        *method = all ? "enumeration" : "coarse enumeration";
        if (!all)
            twarn("%s: t.dma_bytes / t.tiles and %.0f tilings (more than %.0f): tiled by a coarse enumeration, not "
                 "proven optimal", where_, box_points(ti, ts), TILE_ENUM_FALLBACK);
        int r = tile_enumerate(ti, ts, &gr, obj, minimize, caps, size, val);
        return all ? r : r ? 1 : -1;
    }
    long limit = brute_on ? TILE_PROOF_ITERS : TILE_MILP_ITERS < model_left ? TILE_MILP_ITERS : model_left;
    long used = 0;
    int proven = 0;
    int r = tile_solve(ti, ts, obj, minimize, caps, NULL, 0, 0, size, val, nvars, nrows, limit, &used, &proven);
    if (!brute_on) model_left -= used;
    *method = "milp";
    if (r == 1 && ts->tie_break && obj == ts->maximize) {
        /* the target's tie_break: a second MILP, the least tie_break with the
           objective kept at its optimum (its remaining budget; on failure
           the first optimum stands) */
        long limit2 = brute_on ? TILE_PROOF_ITERS : TILE_MILP_ITERS < model_left ? TILE_MILP_ITERS : model_left;
        int sz[TD_COUNT], nv, nr, pr;
        double tv;
        long used2 = 0;
        int r2 = limit2 > 0 ? tile_solve(ti, ts, ts->tie_break, 1, caps, obj, *val, minimize, sz, &tv, &nv, &nr,
                                         limit2, &used2, &pr) : -1;
        if (!brute_on) model_left -= used2;
        if (r2 == 1) {
            double x[TD_VARS] = {sz[TD_K], sz[TD_C], sz[TD_OY], sz[TD_OX]};
            const double v2 = expr_eval(obj, x);
            if (fabs(v2 - *val) <= 1e-6 * fmax(1, fabs(*val))) {
                memcpy(size, sz, sizeof sz);
                *val = v2;
            }
        }
    }
    if (r == 1 && !proven)
        twarn("%s: the MILP stopped at its limit of %ld simplex iterations; the tiling is the best found, not "
             "proven optimal", where_, limit);
    if (r >= 0) return r;
    if (r == -2 && box_points(ti, ts) <= TILE_ENUM_FALLBACK) {
        /* a numerical failure (large products of tile counts): the exact enumeration */
        twarn("%s: lp_solve failed numerically; enumerating every tiling instead", where_);
        Grid gr = full_grid(ti, ts);
        *method = "enumeration";
        return tile_enumerate(ti, ts, &gr, obj, minimize, caps, size, val);
    }
    /* stopped before it found a tiling, too big, or the model's budget is used up */
    if (r == -2)
        twarn("%s: lp_solve failed numerically and the layer has too many tilings to enumerate: tiled by a coarse "
             "enumeration, not proven optimal", where_);
    else if (*nrows > TILE_MILP_ROWS)
        twarn("%s: the MILP has %d rows (more than %d): tiled by a coarse enumeration, not proven optimal", where_,
             *nrows, TILE_MILP_ROWS);
    else if (limit < TILE_MILP_ITERS && !brute_on) {
        if (!budget_warned)
            twarn("%s: the model's MILP budget (%ld simplex iterations) is used up: this and the remaining MILP "
                 "layers are tiled by a coarse enumeration (powers of two and fractions of each dimension), not "
                 "proven optimal", where_, TILE_MODEL_ITERS);
        budget_warned = 1;
    } else
        twarn("%s: the MILP found no tiling within its limit of %ld simplex iterations: tiled by a coarse "
             "enumeration, not proven optimal", where_, limit);
    Grid gr = coarse_grid(ti);
    *method = "coarse enumeration";
    return tile_enumerate(ti, ts, &gr, obj, minimize, caps, size, val) ? 1 : -1;
}

/* The sizes at the chosen tiling: finite, and never below what the core
   itself places (a target may add to the core's buffers, never shrink
   them: a tile function that said l1_bytes = 1 once got a 32 KB tile into
   an 8 KB L1). */
static void check_sizes(const Graph *g, const Op *op, const Engine *e, const Memory *act, const Memory *wm,
                        const Memory *om, TileInfo *ti, const TileSpec *ts, double val)
{
    double x[TD_COUNT];
    for (int d = 0; d < TD_COUNT; d++) x[d] = ti->size[d];
    const char *at = arena_printf("at the chosen tile (K=%d C=%d OY=%d OX=%d) of operator %d %s", ti->size[TD_K],
                                  ti->size[TD_C], ti->size[TD_OY], ti->size[TD_OX], op->src_index, op->src_name);
    if (!isfinite(val)) die("%s is %g %s: not a finite number", ts->where_obj, val, at);
    double l1 = expr_eval(ts->l1_bytes, x), wb = ts->w_bytes ? expr_eval(ts->w_bytes, x) : 0;
    double ob = om && ts->out_bytes ? expr_eval(ts->out_bytes, x) : 0;
    if (!(l1 >= 0 && l1 <= 1e15)) die("%s is %g %s: not a byte count", ts->where_l1, l1, at);
    if (!(wb >= 0 && wb <= 1e15)) die("%s is %g %s: not a byte count", ts->where_w, wb, at);
    if (!(ob >= 0 && ob <= 1e15)) die("%s is %g %s: not a byte count", ts->where_out, ob, at);
    ti->l1_bytes = (int64_t)llround(l1);
    ti->w_bytes = (int64_t)llround(wb);
    ti->out_bytes = (int64_t)llround(ob);
    const int64_t db = ti->double_buffer ? 2 : 1;
    int64_t l1_real = db * (ti->l1_in + ti->l1_in2 + (om ? 0 : ti->l1_out));
    if (ti->l1_bytes < l1_real)
        die("%s is %lld %s, but its buffers in %s take %lld bytes; a target may add to the core's size "
            "(t.l1_bytes), never shrink it", ts->where_l1, (long long)ti->l1_bytes, at, act->name, (long long)l1_real);
    if (om && ti->out_bytes < db * ti->l1_out)
        die("%s is %lld %s, but its output tiles in %s take %lld bytes; a target may add to the core's size "
            "(t.out_bytes), never shrink it", ts->where_out, (long long)ti->out_bytes, at, om->name,
            (long long)(db * ti->l1_out));
    if (!wm) return;
    int64_t w_real = 0, kt = ti->size[TD_K];
    if (!strcmp(ti->geom, "pool")) w_real = 20;
    else if (strcmp(ti->geom, "add")) {
        /* the weights of a K tile in the engine's layout, padded to 4, then the int32 biases (b_off) */
        int64_t wrow = op->kind == OP_FC ? op->in_c : (int64_t)(op->in_c / op->groups) * op->k_h * op->k_w;
        if (strcmp(ti->geom, "dw")) wrow = wrow / ti->full[TD_C] * ti->size[TD_C];   /* a C tile's */
        w_real = ((kt * wrow + 3) & ~(int64_t)3) + 4 * kt;
    }
    if (ti->w_bytes < w_real)
        die("%s is %lld %s, but its weights and biases in %s take %lld bytes; a target may add to the "
            "core's size (t.w_bytes), never shrink it", ts->where_w, (long long)ti->w_bytes, at, wm->name,
            (long long)w_real);
    (void)g; (void)e;
}

/* No tiling satisfies every row (caps: the capacity rows). Name what
   excludes every tile: a memory whose smallest use, under the other rows,
   exceeds its size; else the first of the target's constraints that, with
   those before it, excludes every tile (at its file:line); else the
   memories together. */
static void no_fit(const Graph *g, const Op *op, TileInfo *ti, const TileSpec *ts, const Engine *e, const Caps *caps,
                   int brute_on)
{
    int sz[TD_COUNT], nv, nr;
    double need;
    const char *m;
    for (int i = 0; i < caps->n; i++) {
        Caps others = {0};
        for (int j = 0; j < caps->n; j++)
            if (j != i) {
                others.e[others.n] = caps->e[j];
                others.cap[others.n++] = caps->cap[j];
            }
        int r = choose(ti, ts, caps->e[i], 1, &others, sz, &need, brute_on, &m, &nv, &nr);
        if (r < 0 || (r == 1 && !isfinite(need)))
            die("%s: operator %d (%s): no tiling fits in %s (%.0f bytes) on %s", g->path, op->src_index,
                op->src_name, caps->mem[i], caps->cap[i], e->name);
        if (r == 1 && need > caps->cap[i] + 1e-9)
            die("%s: operator %d (%s): no tiling fits in %s (%.0f bytes) on %s; the smallest tile needs %s >= %lld "
                "bytes (%s: %s)", g->path, op->src_index, op->src_name, caps->mem[i], caps->cap[i], e->name,
                caps->mem[i], (long long)llround(need), ts->where, caps->what[i]);
    }
    TileSpec t2 = *ts;
    Caps none = {0};
    for (int k = 1; k <= ts->ncons; k++) {
        t2.ncons = k;
        if (choose(ti, &t2, ts->l1_bytes, 1, &none, sz, &need, brute_on, &m, &nv, &nr) == 0)
            die("%s[%d]: no tile of operator %d (%s) on %s satisfies this constraint%s", ts->where_cons, k,
                op->src_index, op->src_name, e->name, k > 1 ? " together with the ones before it" : "");
    }
    die("%s: no tile of operator %d (%s) on %s satisfies the target's constraints together with its memories",
        ts->where, op->src_index, op->src_name, e->name);
}

/* ---- the cluster's L1 (cpu.l1): bands of output rows, double-buffered ----- */

static double dma_cycles(const Memory *m, int64_t bytes)
{
    return bytes ? m->dma_setup + (double)bytes / m->dma_bytes_per_cycle : 0;
}

/* a dense convolution whose requantization records (Op.xq2) its kernel
   reads per block: they go into L1 with its weights */
static int op_dense_records(const Op *op)
{
    return op->kind == OP_CONV2D && op->kernel_fn && !strcmp(op->kernel_fn, "htc__conv2d_s8");
}

/* One band height: buffers, DMA bytes and the modelled cycles (weights,
   the first band in, then per band the larger of the cores' compute and
   the DMA that overlaps it -- the next band in, the previous band out --,
   the last band out). */
static void band_model(Target *tg, const Graph *g, const Op *op, const Engine *cpu, const Memory *l1, int rows, ClusterTile *ct)
{
    const int64_t in_row = (int64_t)op->in_w * op->in_c, out_row = (int64_t)op->out_w * op->out_c;
    const int n = (op->out_h + rows - 1) / rows;
    /* one core's cycles per output row (the cost model is per core); a band
       costs its largest share: ceil(rows / cores) rows, or pixels when the
       kernel divides a pointwise band by pixels */
    const Tensor *out = &g->tensors[op->out[0]];
    const double serial_row = (op->cycles_per_mac * (double)op->macs + op->cycles_per_elem * (double)tensor_numel(out)) / op->out_h;
    const int px = op_pointwise(op);
    const int nc = op->cores > 1 ? op->cores : 1;     /* a layer the estimate keeps on one core: 1 */
    const double bank = bank_contention(l1, nc);      /* the cores contend for the L1's banks */
    double *in_c = arena_alloc(sizeof(double) * (size_t)(n + 1)), *out_c = arena_alloc(sizeof(double) * (size_t)(n + 1));
    memset(ct, 0, sizeof *ct);
    ct->rows = rows;
    ct->ntiles = n;
    for (int t = 0; t < n; t++) {
        int y0 = t * rows, y1 = y0 + rows < op->out_h ? y0 + rows : op->out_h, iy0, ih;
        op_rows_view(op, y0, y1, &iy0, &ih);
        if (ih * in_row > ct->in_buf) ct->in_buf = ih * in_row;
        if ((y1 - y0) * out_row > ct->out_buf) ct->out_buf = (y1 - y0) * out_row;
        ct->dma_bytes += ih * in_row + (y1 - y0) * out_row;
        in_c[t] = dma_cycles(l1, ih * in_row);
        out_c[t] = dma_cycles(l1, (y1 - y0) * out_row);
    }
    if (op->kind == OP_CONV2D) {
        ct->w_bytes = (int64_t)op->out_c * op->k_h * op->k_w * (op->in_c / (op->groups ? op->groups : 1));
        ct->b_bytes = op->nin > 2 && op->in[2] >= 0 ? 4 * (int64_t)op->out_c : 0;
        /* a dense convolution's records (its kernel reads them per block):
           the word naming the form, then a record per output channel (emit.c) */
        if (op->xq2 && op_dense_records(op))
            ct->q_bytes = 4 * (1 + (int64_t)op->out_c * (op->xq2[0] >= 3 ? HTC__XQ3_N : HTC__XQ2_N));
    }
    ct->dma_bytes += ct->w_bytes + ct->b_bytes + ct->q_bytes;
    int64_t a = 16, off = 0;
#define HTC_PLACE(field, bytes) (ct->field = off, off += ((bytes) + a - 1) / a * a)
    HTC_PLACE(off_in[0], ct->in_buf);
    HTC_PLACE(off_in[1], ct->in_buf);
    HTC_PLACE(off_out[0], ct->out_buf);
    HTC_PLACE(off_out[1], ct->out_buf);
    HTC_PLACE(off_w, ct->w_bytes);
    HTC_PLACE(off_b, ct->b_bytes);
    HTC_PLACE(off_q, ct->q_bytes);
#undef HTC_PLACE
    ct->l1_bytes = off;
    const double wq = dma_cycles(l1, ct->w_bytes) + dma_cycles(l1, ct->b_bytes) + dma_cycles(l1, ct->q_bytes);
    double c = wq + in_c[0], d = 0;
    for (int t = 0; t < n; t++) {
        int y0 = t * rows, y1 = y0 + rows < op->out_h ? y0 + rows : op->out_h;
        int64_t items = (int64_t)(y1 - y0) * (px ? op->out_w : 1);
        double comp = serial_row * (double)((items + nc - 1) / nc) / (px ? op->out_w : 1) * bank + cpu_fork_cycles(tg, op);
        if (op->split == SPLIT_CHANNELS)    /* every row of the band, the largest share of the channels */
            comp = serial_row * (y1 - y0) * (double)((op->out_c + nc - 1) / nc) / op->out_c * bank + cpu_fork_cycles(tg, op);
        /* the target's cycles of one call: the slowest core's share of the band */
        double call = cpu_share_cycles(tg, g, op, y0, y1, 1);
        if (call >= 0) comp = call * bank + (op->cores > 1 ? cpu_fork_cycles(tg, op) : 0);
        double moving = (t + 1 < n ? in_c[t + 1] : 0) + (t > 0 ? out_c[t - 1] : 0);
        ct->compute_cycles += comp;
        c += comp > moving ? comp : moving;
    }
    c += out_c[n - 1];
    for (int t = 0; t < n; t++) d += in_c[t] + out_c[t];
    ct->dma_cycles = d + wq;
    ct->est_cycles = c;
}

/* The band height with the least modelled cycles among all that fit the
   L1 (every height tried: exact), ties to the taller band; how many fit.
   With cpu.band (target_band): among the heights that fit and satisfy its
   constraints, the least objective (default: the modelled cycles), then
   the least tie_break, then the taller band. */
static int band_search(Target *t, const Graph *g, const Op *op, const Engine *cpu, const Memory *l1, ClusterTile *best)
{
    ClusterTile cur;
    int found = 0;
    double bo = 0, bt = 0;
    for (int rows = op->out_h; rows >= 1; rows--) {
        band_model(t, g, op, cpu, l1, rows, &cur);
        if (cur.l1_bytes > l1->size) continue;
        double o = cur.est_cycles, tb = 0;
        if (cpu->has_band && !target_band(t, g, op, &cur, &o, &tb)) continue;
        if (!found || o < bo || (o == bo && tb < bt)) {
            *best = cur;
            bo = o;
            bt = tb;
        }
        found++;
    }
    return found;
}

/* Every CPU layer of a cluster with an L1 (one core too: a one-core
   header still computes from L1) whose kernel runs bands (fn_band; each
   band divided over the cores by the op's split), one image: the band height minimising the
   modelled cycles among all that fit the L1 (every height tried: exact),
   ties to the taller band. A layer whose smallest band does not fit runs
   from L2. */
static void tile_cluster(Graph *g, Target *t)
{
    const Engine *cpu = &t->engines[0];
    if (cpu->l1_memory < 0) return;
    const Memory *l1 = &t->memories[cpu->l1_memory];
    if (!(l1->dma_bytes_per_cycle > 0))
        die("%s: the cluster's l1 memory %s states no dma = { bytes_per_cycle, setup }", t->path, l1->name);
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        if (op->engine != 0 || op->batches != 1 || op->out_h < 1) continue;
        if (!(cpu_kernel_splits(op->kernel_fn, op->variant) & SPLIT_BAND)) continue;
        ClusterTile best;
        int found = band_search(t, g, op, cpu, l1, &best);
        /* requant_records "tiled": a dense layer's records only in L1 (from
           L2, read per block, they cost more than they save); no band fits
           with them: none, and the bands without */
        if (!found && op->xq2 && op_dense_records(op) && cpu->requant_records == 3) {
            dispatch_drop_records(g, t, op);
            found = band_search(t, g, op, cpu, l1, &best);
        }
        if (!found) continue;
        best.candidates = found;
        op->ctile = arena_alloc(sizeof *op->ctile);
        *op->ctile = best;
        const double over = cpu_share_cycles(t, g, op, 0, 1, 1) >= 0 ? cpu->overhead_cycles : 0;
        op->est_cycles = best.est_cycles + over;
        op->est_one = op->est_cycles;
        if (op->cores > 1) {    /* the same layer on one core, for the report's speedup */
            ClusterTile one;
            const int cores = op->cores;
            op->cores = 0;
            if (band_search(t, g, op, cpu, l1, &one)) op->est_one = one.est_cycles + over;
            op->cores = cores;
        }
    }
}

/* The buffers of a tile in the engine's memories, in this order within a
   memory: the tiles of `memory` (l1_bytes), the output tiles of `outputs`
   (out_bytes), the weights of `weights` (w_bytes); a buffer after another
   starts at a multiple of 4. */
static Expr *ex_new(ExprKind k, Expr *a, Expr *b, double v)
{
    Expr *x = arena_alloc(sizeof *x);
    x->kind = k; x->a = a; x->b = b; x->v = v;
    return x;
}

static void build_caps(const Target *t, const Engine *e, const TileSpec *ts, Caps *c)
{
    const int mem[3] = {e->act_memory, e->out_memory, ts->w_bytes ? e->weight_memory : -1};
    Expr *part[3] = {ts->l1_bytes, ts->out_bytes, ts->w_bytes};
    static const char *const name[3] = {"l1_bytes", "out_bytes", "w_bytes"};
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 3; i++) {
        if (mem[i] < 0 || !part[i]) continue;
        int j = 0;
        while (j < c->n && strcmp(c->mem[j], t->memories[mem[i]].name)) j++;
        if (j == c->n) {
            c->n++;
            c->e[j] = part[i];
            c->cap[j] = (double)t->memories[mem[i]].size;
            c->mem[j] = t->memories[mem[i]].name;
            c->what[j] = name[i];
        } else {        /* after the buffers before it, from a multiple of 4 */
            Expr *four = ex_new(EX_CONST, NULL, NULL, 4);
            c->e[j] = ex_new(EX_ADD, ex_new(EX_MUL, ex_new(EX_CDIV, (Expr *)c->e[j], four, 0), four, 0), part[i], 0);
            c->what[j] = arena_printf("%s + %s", c->what[j], name[i]);
        }
    }
}

/* the offsets of the output tiles and the weights in their memories (the
   order of build_caps) */
static void place(const Engine *e, TileInfo *ti)
{
    ti->out_base = ti->w_base = 0;
    if (e->out_memory >= 0 && e->out_memory == e->weight_memory) ti->w_base = (ti->out_bytes + 3) & ~(int64_t)3;
    if (e->weight_memory >= 0 && e->weight_memory == e->act_memory) ti->w_base = (ti->l1_bytes + 3) & ~(int64_t)3;
}

/* An accelerator layer htc can tile (die_rq: its arithmetic must be
   offloadable, else an error; 0 without a geometry) */
static int tileable(const Graph *g, const Op *op, const Engine *e, TileInfo *ti, int die_rq)
{
    if (!(op->rq == RQ_FLOAT ||
          ((op->rq == RQ_TFLITE || op->rq == RQ_QUANTLIB) && (op->kind == OP_CONV2D || op->kind == OP_FC)))) {
        if (!die_rq) return 0;
        die("%s: operator %d (%s): engine %s: htc cannot offload %s with %s arithmetic", g->path, op->src_index,
            op->src_name, e->name, op_name(op->kind), requant_name(op->rq));
    }
    return geometry(g, op, ti);
}

/* The tiling of op on its engine (ti from tileable): the target's tile
   spec (*tsp), the capacity rows, the best sizes into ti->size and the
   objective; choose()'s result. C is split only where the memories force
   it (no tiling with C whole) or the objective is strictly better with it. */
static int tile_pick(Graph *g, Target *t, Op *op, TileInfo *ti, TileSpec **tsp, Caps *caps, double *val, int brute_on)
{
    const Engine *e = &t->engines[op->engine];
    const EngineOp *eo = engine_op(e, op->kind);
    ti->double_buffer = eo->double_buffer;
    ti->c_free = c_tiled(ti);
    /* an engine with partial sums: C may be tiled too (conv, fc) */
    const int partial = eo->partial_sums && (!strcmp(ti->geom, "conv") || !strcmp(ti->geom, "fc")) &&
                        ti->full[TD_C] > 1;
    where_ = arena_printf("%s: %s.ops.%s.tile (operator %d %s)", t->path, e->name, op_name(op->kind),
                          op->src_index, op->src_name);
    TileSpec *ts = *tsp = target_tile_spec(t, op->engine, g, op, ti);
    build_caps(t, e, ts, caps);
    int r = choose(ti, ts, ts->maximize, ts->minimize, caps, ti->size, val, brute_on, &ti->method,
                   &ti->nvars, &ti->nrows);
    if (partial) {
        int sz[TD_COUNT], nv, nr;
        double v2;
        const char *m2;
        ti->c_free = 1;
        int r2 = choose(ti, ts, ts->maximize, ts->minimize, caps, sz, &v2, brute_on, &m2, &nv, &nr);
        double eps = 1e-9 * fmax(1, fabs(*val));
        if (r2 == 1 && (r != 1 || (ts->minimize ? v2 < *val - eps : v2 > *val + eps))) {
            memcpy(ti->size, sz, sizeof sz);
            *val = v2;
            ti->method = m2;
            ti->nvars = nv;
            ti->nrows = nr;
            r = 1;
        } else if (r != 1)
            r = r2;
    }
    ti->c_split = partial && r == 1 && ti->size[TD_C] < ti->full[TD_C];
    return r;
}

/* dispatch: the DMA bytes of op on its engine as tile() would count them
   (an accelerator: its tiling, chosen quietly, the MILP budget untouched;
   the cluster: its L1 bands; else 0), -1 when no tiling fits. */
int64_t tile_trial_dma(Graph *g, Target *t, Op *op)
{
    const Engine *e = &t->engines[op->engine];
    if (e->is_cpu) {
        if (op->engine != 0 || e->l1_memory < 0 || op->batches != 1 || op->out_h < 1 ||
            !(cpu_kernel_splits(op->kernel_fn, op->variant) & SPLIT_BAND))
            return 0;
        ClusterTile ct;
        return band_search(t, g, op, e, &t->memories[e->l1_memory], &ct) ? ct.dma_bytes : 0;
    }
    const EngineOp *eo = engine_op(e, op->kind);
    TileInfo ti;
    memset(&ti, 0, sizeof ti);
    if (!eo || !eo->has_tile || !tileable(g, op, e, &ti, 0)) return -1;
    const long left = model_left;
    const int warned = budget_warned;
    TileSpec *ts;
    Caps caps;
    double val;
    trial_ = 1;
    int r = tile_pick(g, t, op, &ti, &ts, &caps, &val, 0);
    trial_ = 0;
    model_left = left;
    budget_warned = warned;
    if (r != 1) return -1;
    Deriv dv;
    double x[TD_VARS] = {ti.size[TD_K], ti.size[TD_C], ti.size[TD_OY], ti.size[TD_OX]};
    deriv_init(&dv, &ti, ts);
    deriv_at(&dv, x);
    return (int64_t)x[TD_DMA];
}

void tile(Graph *g, Target *t)
{
    tile_cluster(g, t);
    const char *brute_env = getenv("HTC_TILE_BRUTE");
    for (int i = 0; i < g->nops; i++) {
        Op *op = &g->ops[i];
        const Engine *e = &t->engines[op->engine];
        const EngineOp *eo = engine_op(e, op->kind);
        if (e->is_cpu || !eo || !eo->has_tile) continue;
        TileInfo *ti = arena_alloc(sizeof *ti);
        if (!tileable(g, op, e, ti, 1))
            die("%s: operator %d (%s): engine %s has no tiling geometry for %s", g->path, op->src_index,
                op->src_name, e->name, op_name(op->kind));
        const Memory *act = &t->memories[e->act_memory];
        const Memory *wm = e->weight_memory >= 0 ? &t->memories[e->weight_memory] : NULL;
        const Memory *om = e->out_memory >= 0 ? &t->memories[e->out_memory] : NULL;
        TileSpec *ts;
        Caps caps;
        double val;
        int brute_on = brute_env && *brute_env == '1';
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int r = tile_pick(g, t, op, ti, &ts, &caps, &val, brute_on);
        if (r < 0)
            die("%s: operator %d (%s): no tiling found on %s within the tiling limits (an MILP of %ld simplex "
                "iterations, then a coarse enumeration)", g->path, op->src_index, op->src_name, e->name,
                brute_on ? TILE_PROOF_ITERS : TILE_MILP_ITERS);
        if (r == 0) no_fit(g, op, ti, ts, e, &caps, brute_on);
        clock_gettime(CLOCK_MONOTONIC, &b);
        ti->solve_ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
        ti->objective = val;
        /* one buffer each, for the emitter's L1 offsets */
        {
            int kt = ti->size[TD_K], ct = ti->size[TD_C], yt = ti->size[TD_OY], xt = ti->size[TD_OX];
            int iy = (yt - 1) * ti->s_h + ti->k_h, ix = (xt - 1) * ti->s_w + ti->k_w;
            if (iy > ti->in_h) iy = ti->in_h;
            if (ix > ti->in_w) ix = ti->in_w;
            if (!strcmp(ti->geom, "fc")) { ti->l1_in = ct; ti->l1_out = kt; }
            else if (!strcmp(ti->geom, "add")) { ti->l1_in = ti->l1_in2 = ti->l1_out = (int64_t)ct * yt * xt; }
            else if (!strcmp(ti->geom, "pool")) { ti->l1_in = (int64_t)ct * iy * ix; ti->l1_out = (int64_t)ct * yt * xt; }
            else { ti->l1_in = (int64_t)ct * iy * ix; ti->l1_out = (int64_t)kt * yt * xt; }
        }
        check_sizes(g, op, e, act, wm, om, ti, ts, val);
        place(e, ti);
        ti->brute = NAN;
        if (brute_env && *brute_env == '1') {
            double space = 1;
            for (int d = 0; d < TD_COUNT; d++) space *= ti->full[d];
            if (space <= 4e6) ti->brute = brute(ti, ts, &caps, &ti->brute_points);
        }
        walk(ti, ts, act, wm, om, op);
        /* ideal: MACs at peak plus the weights into the weight memory */
        double peak = ts->macs_per_cycle > 0 ? ts->macs_per_cycle : eo->macs_per_cycle;
        ti->ideal_cycles = (peak > 0 ? (double)op->macs / peak : 0);
        weight_layout(g, op, ti);
        target_constants(t, op->engine, g, op, ti);     /* the engine's own layout and data, if it states them */
        if (wm && wm->dma_bytes_per_cycle > 0 && ti->wlayout_bytes) ti->ideal_cycles += (double)(ti->wlayout_bytes + 4 * (size_t)ti->full[TD_K]) / wm->dma_bytes_per_cycle;
        op->tile = ti;
        op->est_cycles = ti->est_cycles + e->startup * ti->ntiles;
    }
}
