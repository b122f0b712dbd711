/* target_call.c - the calls into a loaded target's Lua functions: accepts,
   dispatch, costs, cycles, split, tile and constants; each gets its data as
   arguments (the op as a table of plain values) and returns C values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "target_lua.h"
#include "../htc.h"

static void set_int(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static void set_str(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

static void push_shape(lua_State *L, const Tensor *t)
{
    lua_createtable(L, t->rank, 0);
    for (int i = 0; i < t->rank; i++) {
        lua_pushinteger(L, t->shape[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

/* __index of the op tables predicates see: reading a field an op does
   not have is an error at the user's line, listing the fields it has. */
static int op_missing(lua_State *L)
{
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : luaL_typename(L, 2);
    const char *names[96];
    int n = 0;
    lua_pushnil(L);
    while (n < 96 && lua_next(L, 1)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) names[n++] = lua_tostring(L, -1);
    }
    for (int i = 1; i < n; i++)         /* sort: insertion, a few dozen names */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *x = names[j];
            names[j] = names[j - 1];
            names[j - 1] = x;
        }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; i < n; i++) {
        if (i) luaL_addstring(&b, ", ");
        luaL_addstring(&b, names[i]);
    }
    luaL_pushresult(&b);
    lua_pushstring(L, "kind");
    lua_rawget(L, 1);
    return luaL_error(L, "op.%s: no such field for %s (fields: %s)", k, lua_tostring(L, -1) ? lua_tostring(L, -1) : "this op",
                      lua_tostring(L, -2));
}

/* The op as the target's predicates see it: a fresh table of plain values.
   Field names are documented in docs/targets.md. */
static void push_op(lua_State *L, const Graph *g, const Op *op)
{
    static const char *acts[] = {"none", "relu", "relu6", "relu_n1_to_1"};
    lua_newtable(L);
    set_str(L, "kind", op_name(op->kind));
    set_str(L, "source", op->src_name ? op->src_name : "");
    set_int(L, "index", op->src_index);
    set_str(L, "requant", requant_name(op->rq));
    set_str(L, "act", acts[op->act]);
    set_int(L, "stride_h", op->stride_h);
    set_int(L, "stride_w", op->stride_w);
    set_int(L, "stride", op->stride_h > op->stride_w ? op->stride_h : op->stride_w);
    set_int(L, "dilation_h", op->dil_h);
    set_int(L, "dilation_w", op->dil_w);
    set_int(L, "dilation", op->dil_h > op->dil_w ? op->dil_h : op->dil_w);
    set_int(L, "macs", op->macs);
    set_int(L, "per_channel", op->nch > 1);
    set_int(L, "xq2", op->xq2 != NULL);         /* XpulpV2: the final-form requantization (dispatch.c xq2) */
    set_int(L, "xq3", op->xq2 && strcmp(op->kernel_fn, "htc__dwconv2d_s8") && op->xq2[0] >= 3);   /* its three-product form */
    set_int(L, "xq3u", op->xq2 && strcmp(op->kernel_fn, "htc__dwconv2d_s8") && op->xq2[0] == 4);  /* without a fused ReLU */
    lua_pushboolean(L, op_pointwise(op));   /* a 1x1 convolution, stride 1, no padding (util.c) */
    lua_setfield(L, -2, "pointwise");
    /* the arithmetic's own numbers: zero points and clamp (stored domain),
       onnxruntime's float scale (the first channel's; d.scale(k) in
       constants gives each) */
    set_int(L, "in_zp", op->in_zp);
    set_int(L, "out_zp", op->out_zp);
    set_int(L, "qmin", op->act_min);
    set_int(L, "qmax", op->act_max);
    /* QuantLib's RequantShift: the shift and the largest |mul| and |add|
       (an engine folding it into its own int32 arithmetic bounds it) */
    if (op->rq == RQ_QUANTLIB && op->mult && op->rq_add && !op->rq_shifts) {
        int64_t mm = 0, am = 0;
        for (int c = 0; c < (op->nch > 0 ? op->nch : 1); c++) {
            int64_t m = op->mult[c] < 0 ? -(int64_t)op->mult[c] : op->mult[c];
            int64_t a = op->rq_add[c] < 0 ? -(int64_t)op->rq_add[c] : op->rq_add[c];
            mm = m > mm ? m : mm;
            am = a > am ? a : am;
        }
        set_int(L, "ql_shift", op->shift[0]);
        set_int(L, "ql_mul_absmax", mm);
        set_int(L, "ql_add_absmax", am);
    }
    if (op->rq == RQ_FLOAT && op->fscale) {
        lua_pushnumber(L, op->fscale[0]);
        lua_setfield(L, -2, "scale");
    }
    const Tensor *in = op->in[0] >= 0 ? &g->tensors[op->in[0]] : NULL;
    const Tensor *out = op->out[0] >= 0 ? &g->tensors[op->out[0]] : NULL;
    if (in) {
        push_shape(L, in);
        lua_setfield(L, -2, "in_shape");
        set_str(L, "in_type", dtype_name(in->type));
        set_int(L, "act_bits", (lua_Integer)dtype_size(in->type) * 8);
        set_int(L, "in_graph", in->is_input != 0);     /* read from the caller's input buffer */
    }
    if (out) {
        push_shape(L, out);
        lua_setfield(L, -2, "out_shape");
        set_str(L, "out_type", dtype_name(out->type));
    }
    if (op->kind == OP_CONV2D || op->kind == OP_FC) {
        const Tensor *w = &g->tensors[op->in[1]];
        set_int(L, "weight_bits", (lua_Integer)dtype_size(w->type) * 8);
        /* the range of the weight values (ternary: -1..1; HTVM dispatches
           by it); the type's range when the weights are not constant */
        int wmin = w->type == DT_UINT8 ? 0 : w->type == DT_INT16 ? -32768 : -128;
        int wmax = w->type == DT_UINT8 ? 255 : w->type == DT_INT16 ? 32767 : 127;
        if (w->data && (w->type == DT_INT8 || w->type == DT_UINT8)) {
            int64_t n = tensor_numel(w);
            wmin = 255, wmax = -128;
            for (int64_t i = 0; i < n; i++) {
                int v = w->type == DT_INT8 ? ((const int8_t *)w->data)[i] : ((const uint8_t *)w->data)[i];
                wmin = v < wmin ? v : wmin;
                wmax = v > wmax ? v : wmax;
            }
            if (n == 0) wmin = wmax = 0;
        }
        set_int(L, "weight_min", wmin);
        set_int(L, "weight_max", wmax);
        set_int(L, "weight_zp", op->has_w_zp);
        set_int(L, "weight_const", w->data != NULL);
        set_int(L, "bias_absmax", op_bias_absmax(g, op));
        set_int(L, "int32_out", op->int32_out);
        set_int(L, "batches", op->batches);
        if (op->kind == OP_CONV2D) {
            set_int(L, "kernel_h", op->k_h);
            set_int(L, "kernel_w", op->k_w);
            set_int(L, "groups", op->groups);
            set_int(L, "depthwise", op->depthwise);
            set_int(L, "depth_multiplier", op->groups > 0 ? op->out_c / op->groups : 1);
            set_int(L, "pad_top", op->pad_top);         /* the padding before rows / columns (lower.c) */
            set_int(L, "pad_left", op->pad_left);
        } else {
            set_int(L, "weight_batches", op->w_batches);
            /* QuantLib's MatMul / Gemm: whether kernels/fc.c takes its
               XpulpV2 path (htc__ql_fc_xp_ok; else the generic loop) and
               whether an operand has an offset (htc__ql_fc_small's byte loop) */
            if (op->params_type && !strcmp(op->params_type, "htc__ql_matmul_params")) {
                const htc__ql_matmul_params *p = op->params;
                set_int(L, "ql_fc_xp", p->rq && p->alpha == 1 && p->bias_mode != 2 && p->rq_mode != 2 &&
                                       p->a_off >= -128 && p->a_off <= 128 && p->b_off >= -128 && p->b_off <= 128 &&
                                       p->k < 32768 && p->shift >= 0 && p->shift <= 30);
                set_int(L, "ql_fc_offs", p->a_off != 0 || p->b_off != 0);
            }
        }
    } else if (op->kind == OP_SOFTMAX && op->params_type && !strcmp(op->params_type, "htc__ql_softmax_params")) {
        /* QuantLib's softmax with the RequantShift after it folded in (its byte table) */
        set_int(L, "ql_sm_tab", ((const htc__ql_softmax_params *)op->params)->tab);
    } else if (op->kind == OP_AVGPOOL || op->kind == OP_MAXPOOL) {
        set_int(L, "kernel_h", op->k_h);
        set_int(L, "kernel_w", op->k_w);
        set_int(L, "global", op->global);
    } else if (op->kind == OP_ADD || op->kind == OP_MUL) {
        set_int(L, "broadcast", op->broadcast);
    } else if (op->kind == OP_TRANSPOSE && op->params_type && !strcmp(op->params_type, "htc__transpose_params")) {
        /* the input stride of an output row's elements (1: a contiguous copy) */
        const htc__transpose_params *p = op->params;
        set_int(L, "inner_stride", p->rank > 0 ? p->stride[p->rank - 1] : 1);
    }
    /* known once dispatch has asked every predicate (not inside accepts) */
    if (op->eligible_count >= 0) {
        set_int(L, "eligible_index", op->eligible_index);
        set_int(L, "eligible_count", op->eligible_count);
    }
    /* known once the op's engine and kernel are bound (cost functions) */
    if (op->kernel_fn && op->code_age >= -1) {
        set_int(L, "code_age", op->code_age);
        set_int(L, "code_conv", op->code_conv);
    }
    if (op->code_sites > 0) {
        set_int(L, "code_sites", op->code_sites);
        set_int(L, "par_before", op->par_before);
    }
    /* a float requantization that is exactly a power-of-two shift */
    if (op->exact_shift) {
        set_str(L, "requant", "shift");
        set_str(L, "rounding", op->shift_round == ROUND_TFLITE ? "tflite" : "half_even");
    }
    if (luaL_newmetatable(L, "htc.op")) {       /* the first op: its metatable */
        lua_pushcfunction(L, op_missing);       /* strict: a missing field is an error */
        lua_setfield(L, -2, "__index");
        lua_pushboolean(L, 0);      /* getmetatable(op) is false: no one adds a __gc to it */
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
}


int target_accepts(Target *t, int engine, const Graph *g, const Op *op, const char **why)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    const Engine *e = &t->engines[engine];
    *why = NULL;
    const EngineOp *eo = engine_op(e, op->kind);
    if ((op->s16 || op->f32) && !e->is_cpu) {
        *why = op->s16 ? "int16 activations run on the CPU" : "float32 operators run on the CPU";
        return 0;
    }
    if (!eo) {
        *why = arena_printf("%s has no %s kernel", e->name, op_name(op->kind));
        return 0;
    }
    const RequantSet *rs = eo->has_requant ? &eo->requant : &e->requant;
    int ok_rq = op->rq == RQ_NONE;
    for (int i = 0; i < rs->n; i++)
        if (rs->kinds[i] == op->rq ||
            (rs->kinds[i] == RQ_SHIFT && op->exact_shift && (rs->shift_rounds & (1 << op->shift_round))))
            ok_rq = 1;
    if (!ok_rq) {
        /* say what the engine reproduces and what this op needs */
        const char *need = requant_name(op->rq);
        if (op->exact_shift)
            need = op->shift_round == ROUND_TFLITE ? "tflite (a power-of-two shift with TFLite's rounding: shift:tflite)"
                                                   : "float (a power-of-two shift rounded half to even: shift)";
        else if (rs->shift_rounds && (op->rq == RQ_FLOAT || op->rq == RQ_TFLITE))
            need = arena_printf("%s (its scales are not exact powers of two%s)", need,
                                op->rq == RQ_FLOAT ? ", or its accumulator may exceed 2^24" : "");
        *why = arena_printf("%s%s%s implements %s requantization; this op's is %s", e->name,
                            eo->has_requant ? "'s " : "", eo->has_requant ? op_name(op->kind) : "", target_requant_text(rs), need);
        return 0;
    }
    if (e->is_cpu && !eo->kernel_file && op->kind != OP_RESHAPE) {
        const char *f, *fn;
        if (!cpu_kernel(op, &f, &fn)) {
            *why = arena_printf("htc has no CPU kernel for %s with %s arithmetic%s", op_name(op->kind),
                                requant_name(op->rq), op->int32_out ? " (int32 output)" : "");
            return 0;
        }
    }
    if (!eo->has_accepts) return 1;
    lua_State *L = lt->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->accepts_ref[engine][op->kind]);
    push_op(L, g, op);
    if (sandbox_pcall(L, 1, 2) != LUA_OK)
        die("%s (in %s.ops.%s.accepts, for operator %d %s)", sandbox_error(L), e->name,
            op_name(op->kind), op->src_index, op->src_name);
    /* true or false, and maybe a reason: "yes", {} or nil are errors */
    if (lua_type(L, -2) != LUA_TBOOLEAN || (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)) {
        const char *got = lua_type(L, -2) != LUA_TBOOLEAN ? arena_printf("a %s", luaL_typename(L, -2))
                                                          : arena_printf("a reason of type %s", luaL_typename(L, -1));
        lua_Debug ar;
        lua_rawgeti(L, LUA_REGISTRYINDEX, lt->accepts_ref[engine][op->kind]);
        lua_getinfo(L, ">S", &ar);
        die("%s:%d: %s.ops.%s.accepts returned %s (for operator %d %s); expected true or false, and optionally "
            "a reason string", t->path, ar.linedefined, e->name, op_name(op->kind), got, op->src_index, op->src_name);
    }
    int ok = lua_toboolean(L, -2);
    if (!ok)
        *why = lua_isstring(L, -1) ? arena_strdup(lua_tostring(L, -1))
                                   : arena_printf("%s.ops.%s.accepts said no", e->name, op_name(op->kind));
    lua_pop(L, 2);
    return ok;
}

/* the line of an engine's op entry, for messages (found when needed: the
   schema walk does not scan the text for every op) */
static int op_line(const LoadedTarget *lt, const Engine *e, OpKind k)
{
    const char *keys[4] = {e->is_cpu ? "cpu" : "engines", e->is_cpu ? NULL : e->name, "ops", op_name(k)};
    return target_locate(lt, keys, 4);
}

void target_cost(Target *t, int engine, const Graph *g, const Op *op, double *per_mac, double *per_elem)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    const Engine *e = &t->engines[engine];
    const EngineOp *eo = engine_op(e, op->kind);
    *per_mac = eo ? eo->cycles_per_mac : 0;
    *per_elem = eo ? eo->cycles_per_elem : 0;
    for (int c = 0; eo && c < 2; c++) {
        if (!(eo->cost_fn & (1 << c))) continue;
        lua_State *L = lt->L;
        const char *f = c ? "cycles_per_elem" : "cycles_per_mac";
        lua_rawgeti(L, LUA_REGISTRYINDEX, lt->cost_ref[engine][op->kind][c]);
        push_op(L, g, op);
        if (sandbox_pcall(L, 1, 1) != LUA_OK)
            die("%s (in %s.ops.%s.%s, for operator %d %s)", sandbox_error(L), e->name, op_name(op->kind), f,
                op->src_index, op->src_name);
        if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0 && lua_tonumber(L, -1) <= 1e9))
            die("%s:%d: %s.ops.%s.%s returned %s for operator %d %s; expected a number >= 0 (at most 1e9)", t->path, op_line(lt, e, op->kind),
                e->name, op_name(op->kind), f, lua_isnumber(L, -1) ? lua_tostring(L, -1) : luaL_typename(L, -1),
                op->src_index, op->src_name);
        if (c) *per_elem = lua_tonumber(L, -1);
        else *per_mac = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
}

int target_call_cycles(Target *t, const Graph *g, const Op *op, const CallShare *s, double *cycles)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    const Engine *e = &t->engines[0];
    const EngineOp *eo = engine_op(e, op->kind);
    if (!eo || !eo->has_cycles) return 0;
    lua_State *L = lt->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->call_ref[op->kind]);
    push_op(L, g, op);
    lua_createtable(L, 0, 7);
    set_int(L, "rows", s->rows);
    set_int(L, "cols", s->cols);
    set_int(L, "channels", s->channels);
    set_int(L, "in_rows", s->in_rows);
    set_int(L, "tile", s->tile);
    set_int(L, "cores", s->cores);
    set_int(L, "core", s->core);
    if (sandbox_pcall(L, 2, 1) != LUA_OK)
        die("%s (in cpu.ops.%s.cycles, for operator %d %s)", sandbox_error(L), op_name(op->kind), op->src_index,
            op->src_name);
    if (lua_isnil(L, -1)) {     /* not this call: the per-MAC / per-element costs */
        lua_pop(L, 1);
        return 0;
    }
    if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0 && lua_tonumber(L, -1) <= 1e12))
        die("%s:%d: cpu.ops.%s.cycles returned %s for operator %d %s; expected a number >= 0 (at most 1e12) or nil", t->path,
            op_line(lt, e, op->kind), op_name(op->kind),
            lua_isnumber(L, -1) ? lua_tostring(L, -1) : luaL_typename(L, -1), op->src_index, op->src_name);
    *cycles = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return 1;
}

double target_fork(Target *t, const Graph *g, const Op *op)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    const Engine *e = &t->engines[0];
    const EngineOp *eo = engine_op(e, op->kind);
    if (!eo || !eo->fork_fn) return eo && eo->fork_cycles >= 0 ? eo->fork_cycles : e->fork_cycles;
    lua_State *L = lt->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->fork_ref[op->kind]);
    push_op(L, g, op);
    if (sandbox_pcall(L, 1, 1) != LUA_OK)
        die("%s (in cpu.ops.%s.fork, for operator %d %s)", sandbox_error(L), op_name(op->kind), op->src_index,
            op->src_name);
    if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0 && lua_tonumber(L, -1) <= 1e9))
        die("%s:%d: cpu.ops.%s.fork returned %s for operator %d %s; expected a number >= 0 (at most 1e9)", t->path,
            op_line(lt, e, op->kind), op_name(op->kind),
            lua_isnumber(L, -1) ? lua_tostring(L, -1) : luaL_typename(L, -1), op->src_index, op->src_name);
    double f = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return f;
}

int target_dispatch_wants_dma(Target *t)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    if (!t->has_dispatch) return 0;
    lua_Debug ar;
    lua_rawgeti(lt->L, LUA_REGISTRYINDEX, lt->dispatch_ref);
    lua_getinfo(lt->L, ">u", &ar);
    return ar.nparams >= 4 || ar.isvararg;
}

int target_dispatch(Target *t, const Graph *g, const Op *op, const int *cand, int ncand, const double *est,
                    const int64_t *dma, const char **reason)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    if (!t->has_dispatch || ncand == 1) {
        *reason = ncand == 1 ? "only candidate"
                             : arena_printf("%s accepts it (first of %d candidates in target order)", t->engines[cand[0]].name, ncand);
        return cand[0];
    }
    lua_State *L = lt->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->dispatch_ref);
    push_op(L, g, op);
    lua_createtable(L, ncand, 0);
    for (int i = 0; i < ncand; i++) {
        lua_pushstring(L, t->engines[cand[i]].name);
        lua_rawseti(L, -2, i + 1);
    }
    lua_createtable(L, 0, ncand);               /* estimates[name] = cycles on that engine */
    for (int i = 0; i < ncand; i++) {
        lua_pushnumber(L, est ? est[i] : 0);
        lua_setfield(L, -2, t->engines[cand[i]].name);
    }
    lua_createtable(L, 0, ncand);               /* dma[name] = DMA bytes on that engine (nil: nothing fits) */
    for (int i = 0; dma && i < ncand; i++) {
        if (dma[i] < 0) continue;
        lua_pushinteger(L, dma[i]);
        lua_setfield(L, -2, t->engines[cand[i]].name);
    }
    if (sandbox_pcall(L, 4, 2) != LUA_OK)
        die("%s (in dispatch, for operator %d %s)", sandbox_error(L), op->src_index, op->src_name);
    const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    int chosen = -1;
    for (int i = 0; name && i < ncand; i++)
        if (strcmp(t->engines[cand[i]].name, name) == 0) chosen = cand[i];
    if (chosen < 0 || (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)) {
        const char *what = chosen >= 0 ? arena_printf("a reason of type %s, expected a string", luaL_typename(L, -1))
                         : name ? arena_printf("'%.60s', which is not one of the candidates", name)
                                : arena_printf("a %s, not an engine name", luaL_typename(L, -2));
        lua_Debug ar;
        lua_rawgeti(L, LUA_REGISTRYINDEX, lt->dispatch_ref);
        lua_getinfo(L, ">S", &ar);
        die("%s:%d: dispatch returned %s (for operator %d %s)", t->path, ar.linedefined, what, op->src_index,
            op->src_name);
    }
    *reason = lua_type(L, -1) == LUA_TSTRING ? arena_strdup(lua_tostring(L, -1)) : "chosen by the target's dispatch";
    lua_pop(L, 2);
    return chosen;
}


int target_split(Target *t, const Graph *g, const Op *op)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    if (!t->engines[0].has_split) return -1;
    lua_State *L = lt->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->split_ref);
    push_op(L, g, op);
    if (sandbox_pcall(L, 1, 1) != LUA_OK)
        die("%s (in cpu.split, for operator %d %s)", sandbox_error(L), op->src_index, op->src_name);
    int r = -2;
    if (lua_isnil(L, -1)) r = -1;
    else if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "none") == 0) r = SPLIT_NONE;
    else if (lua_type(L, -1) == LUA_TSTRING)
        for (int i = 0; i < SPLIT_COUNT; i++)
            if (strcmp(lua_tostring(L, -1), split_names[i]) == 0) r = i;
    if (r == -2) {
        const char *got = lua_type(L, -1) == LUA_TSTRING ? arena_printf("'%.40s'", lua_tostring(L, -1))
                                                         : arena_printf("a %s", luaL_typename(L, -1));
        lua_Debug ar;
        lua_rawgeti(L, LUA_REGISTRYINDEX, lt->split_ref);
        lua_getinfo(L, ">S", &ar);
        die("%s:%d: cpu.split returned %s (for operator %d %s); expected \"rows\", \"channels\", \"none\" or nil", t->path,
            ar.linedefined, got, op->src_index, op->src_name);
    }
    lua_pop(L, 1);
    return r;
}

/* ---- tiling callbacks ----------------------------------------------------------- */

/* Expression trees from the tile function, bounded: at most TILE_MAX_NODES
   nodes in all of one layer's expressions (a shared subtree counts each
   time it is used: a + a doubled 60 times is 2^60 nodes, refused) and
   TILE_MAX_DEPTH levels; constants finite. */
#define TILE_MAX_NODES 4000
#define TILE_MAX_DEPTH 1000
#define TILE_MAX_CONSTRAINTS 64

static Expr *to_expr(LoadedTarget *lt, const char *where, int depth, int *nodes)
{
    lua_State *L = lt->L;
    if (++*nodes > TILE_MAX_NODES) die("%s: the tile expressions have more than %d nodes", where, TILE_MAX_NODES);
    if (depth > TILE_MAX_DEPTH) die("%s: a tile expression nested more than %d deep", where, TILE_MAX_DEPTH);
    luaL_checkstack(L, 4, "tile expression");
    Expr *e = arena_alloc(sizeof *e);
    if (lua_type(L, -1) == LUA_TNUMBER) {
        e->kind = EX_CONST;
        e->v = lua_tonumber(L, -1);
        if (!isfinite(e->v)) die("%s: the constant %g is not a finite number", where, e->v);
        return e;
    }
    if (!lua_istable(L, -1)) die("%s: expected a tile expression, got %s", where, luaL_typename(L, -1));
    rawfield(L, -1, "op");
    const char *op = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (!op) die("%s: expected a tile expression (a table without op)", where);
    static const struct { const char *n; ExprKind k; } ks[] = {
        {"c", EX_CONST}, {"v", EX_VAR}, {"+", EX_ADD}, {"-", EX_SUB}, {"*", EX_MUL}, {"%", EX_MOD}, {"neg", EX_NEG},
        {"min", EX_MIN}, {"max", EX_MAX}, {"le", EX_LE}, {"ge", EX_GE}, {"eq", EX_EQ}, {"/", EX_DIV}, {"cdiv", EX_CDIV}};
    int found = 0;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (!strcmp(ks[i].n, op)) { e->kind = ks[i].k; found = 1; }
    if (!found) die("%s: unknown expression node '%.40s'", where, op);
    lua_pop(L, 1);
    if (e->kind == EX_CONST) {
        if (rawfield(L, -1, "v") != LUA_TNUMBER) die("%s: a constant node without a number", where);
        e->v = lua_tonumber(L, -1);
        if (!isfinite(e->v)) die("%s: the constant %g is not a finite number", where, e->v);
        lua_pop(L, 1);
    } else if (e->kind == EX_VAR) {
        rawfield(L, -1, "name");
        const char *n = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        static const char *names[TD_VARS] = {"K", "C", "OY", "OX", "dma_bytes", "tiles"};
        e->var = -1;
        for (int i = 0; i < TD_VARS; i++)
            if (n && !strcmp(n, names[i])) e->var = i;
        if (e->var < 0) die("%s: unknown tile variable '%.40s'", where, n ? n : "?");
        lua_pop(L, 1);
    } else {
        lua_rawgeti(L, -1, 1);
        e->a = to_expr(lt, where, depth + 1, nodes);
        lua_pop(L, 1);
        if (e->kind != EX_NEG) {
            lua_rawgeti(L, -1, 2);
            e->b = to_expr(lt, where, depth + 1, nodes);
            lua_pop(L, 1);
        }
    }
    return e;
}

/* the expression uses a derived variable (t.dma_bytes, t.tiles) */
static int uses_derived(const Expr *e)
{
    if (!e) return 0;
    if (e->kind == EX_VAR) return e->var >= TD_COUNT;
    return uses_derived(e->a) || uses_derived(e->b);
}

static Expr *field_expr(LoadedTarget *lt, const char *k, const char *where, int *nodes)
{
    Expr *e = NULL;
    if (rawfield(lt->L, -1, k) != LUA_TNIL) e = to_expr(lt, where, 0, nodes);
    lua_pop(lt->L, 1);
    return e;
}

/* The line of `key =` inside the function with registry ref `ref` (the
   first one, in the file's text between its first and last line), or the
   line it is defined on. Lua tables keep no lines; this finds the user's. */
static int fn_key_line(const LoadedTarget *lt, int ref, const char *key)
{
    lua_State *L = lt->L;
    lua_Debug ar;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    if (!lua_getinfo(L, ">S", &ar) || ar.linedefined <= 0) return 1;
    int line = 1;
    size_t i = 0;
    for (; i < lt->srclen && line < ar.linedefined; i++)
        if (lt->src[i] == '\n') line++;
    size_t at;
    if (key && target_find_key(lt->src, lt->srclen, i, key, &at)) {
        int l = line;
        for (size_t j = i; j < at; j++)
            if (lt->src[j] == '\n') l++;
        if (l <= ar.lastlinedefined) return l;
    }
    return ar.linedefined;
}

/* ---- the cluster's L1 bands: cpu.band(b, op) ---------------------------------- */

static int uses_var(const Expr *e)
{
    return e && (e->kind == EX_VAR || uses_var(e->a) || uses_var(e->b));
}

/* one returned field: a number, or an expression of numbers (le(b.x, 4)) */
static double band_value(LoadedTarget *lt, const char *at, const Op *op, int want_cons)
{
    int nodes = 0;
    Expr *e = to_expr(lt, at, 0, &nodes);
    int cons = e->kind == EX_LE || e->kind == EX_GE || e->kind == EX_EQ;
    if (uses_var(e)) die("%s: a band has no tile variables (b holds numbers)", at);
    if (cons != want_cons)
        die("%s: expected %s (for operator %d %s)", at, want_cons ? "le(a, b), ge(a, b) or eq(a, b)" : "a number",
            op->src_index, op->src_name);
    double v = expr_eval(e, NULL);
    if (!isfinite(v)) die("%s is %g for operator %d %s: not a finite number", at, v, op->src_index, op->src_name);
    return v;
}

int target_band(Target *t, const Graph *g, const Op *op, const ClusterTile *ct, double *obj, double *tie)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    lua_State *L = lt->L;
    const int ref = lt->band_ref;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_newtable(L);
    set_int(L, "rows", ct->rows);
    set_int(L, "tiles", ct->ntiles);
    set_int(L, "l1_bytes", ct->l1_bytes);
    set_int(L, "dma_bytes", ct->dma_bytes);
    set_int(L, "in_buf", ct->in_buf);
    set_int(L, "out_buf", ct->out_buf);
    set_int(L, "w_bytes", ct->w_bytes + ct->b_bytes);
    lua_pushnumber(L, ct->est_cycles);
    lua_setfield(L, -2, "cycles");
    lua_pushnumber(L, ct->compute_cycles);
    lua_setfield(L, -2, "compute_cycles");
    lua_pushnumber(L, ct->dma_cycles);
    lua_setfield(L, -2, "dma_cycles");
    push_op(L, g, op);
    if (sandbox_pcall(L, 2, 1) != LUA_OK)
        die("%s (in cpu.band, for operator %d %s)", sandbox_error(L), op->src_index, op->src_name);
    const char *where = arena_printf("%s:%d: cpu.band", t->path, fn_key_line(lt, ref, NULL));
    if (!lua_istable(L, -1))
        die("%s must return a table { minimize = ..., constraints = { ... } }, got %s (for operator %d %s)", where,
            luaL_typename(L, -1), op->src_index, op->src_name);
    static const char *const keys[] = {"minimize", "maximize", "constraints", "tie_break", NULL};
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
        if (!in_list(k, keys))
            die("%s:%d: cpu.band returned an unknown field '%s' (expected one of: minimize, maximize, constraints, "
                "tie_break)", t->path, fn_key_line(lt, ref, k), k);
    }
#define AT(k) arena_printf("%s:%d: cpu.band.%s", t->path, fn_key_line(lt, ref, k), k)
    int ok = 1, mx = rawfield(L, -1, "maximize") != LUA_TNIL;
    lua_pop(L, 1);
    int mn = rawfield(L, -1, "minimize") != LUA_TNIL;
    if (mx && mn) die("%s returned both maximize and minimize", AT("minimize"));
    if (mn) *obj = band_value(lt, AT("minimize"), op, 0);
    lua_pop(L, 1);
    if (mx) {
        rawfield(L, -1, "maximize");
        *obj = -band_value(lt, AT("maximize"), op, 0);
        lua_pop(L, 1);
    }
    if (!mx && !mn) *obj = ct->est_cycles;
    *tie = 0;
    if (rawfield(L, -1, "tie_break") != LUA_TNIL) *tie = band_value(lt, AT("tie_break"), op, 0);
    lua_pop(L, 1);
    int tc = rawfield(L, -1, "constraints");
    if (tc != LUA_TTABLE && tc != LUA_TNIL) die("%s: expected a list { le(a, b), ... }", AT("constraints"));
    if (tc == LUA_TTABLE) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        if (n > TILE_MAX_CONSTRAINTS) die("%s: %lld constraints, at most %d", AT("constraints"), (long long)n, TILE_MAX_CONSTRAINTS);
        for (int i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            if (band_value(lt, arena_printf("%s[%d]", AT("constraints"), i), op, 1) == 0) ok = 0;
            lua_pop(L, 1);
        }
    }
#undef AT
    lua_pop(L, 2);
    return ok;
}

/* ---- constants: an engine's compile-time data for one layer ------------------

   The op's `constants = function(op, d)` runs once per offloaded layer. d
   reads the layer's canonical data (0-based indices): d.w(k, c, y, x) the
   weights ([K][kh][kw][C/groups] as the model states them; fc: y = x = 0),
   d.bias(k), TFLite's d.mult(k) / d.shift(k), onnxruntime's float
   d.scale(k), the power-of-two d.rq_shift(k), QuantLib's d.qmul(k) /
   d.qadd(k), and the sizes d.K, d.C (per group), d.KH, d.KW, d.groups.
   The layer reaches d's functions as a full userdata (upvalue 1): Lua
   owns it, so a function kept past the call still reads valid data. */
typedef struct {
    const Graph *g;
    const Op *op;
    int K, C, KH, KW;
} ConstData;

static int cd_index(lua_State *L, int arg, int n, const char *what)
{
    lua_Integer v = luaL_checkinteger(L, arg);
    if (v < 0 || v >= n) return luaL_error(L, "d.%s: index %d out of range [0, %d)", what, (int)v, n);
    return (int)v;
}

static int cd_w(lua_State *L)
{
    const ConstData cd = *(const ConstData *)lua_touserdata(L, lua_upvalueindex(1));
    int k = cd_index(L, 1, cd.K, "w (k)"), c = cd_index(L, 2, cd.C, "w (c)");
    int y = cd_index(L, 3, cd.KH, "w (y)"), x = cd_index(L, 4, cd.KW, "w (x)");
    const Tensor *w = &cd.g->tensors[cd.op->in[1]];
    size_t i = (((size_t)k * cd.KH + y) * cd.KW + x) * cd.C + c;
    if (!w->data || i >= (size_t)tensor_numel(w)) return luaL_error(L, "d.w: the weights are not constant");
    lua_pushinteger(L, w->type == DT_UINT8 ? ((const uint8_t *)w->data)[i] : ((const int8_t *)w->data)[i]);
    return 1;
}

static int cd_bias(lua_State *L)
{
    const ConstData cd = *(const ConstData *)lua_touserdata(L, lua_upvalueindex(1));
    int k = cd_index(L, 1, cd.K, "bias");
    const Op *op = cd.op;
    const Tensor *b = op->nin > 2 && op->in[2] >= 0 ? &cd.g->tensors[op->in[2]] : NULL;
    lua_pushinteger(L, b && b->data && b->type == DT_INT32 ? ((const int32_t *)(const void *)b->data)[k] : 0);
    return 1;
}

/* d.mult, d.shift, d.scale, d.rq_shift, d.qmul, d.qadd: which one, by upvalue 2 */
static int cd_rq(lua_State *L)
{
    static const char *const names[] = {"mult", "shift", "scale", "rq_shift", "qmul", "qadd"};
    const ConstData cd = *(const ConstData *)lua_touserdata(L, lua_upvalueindex(1));
    int which = (int)lua_tointeger(L, lua_upvalueindex(2));
    int k = cd_index(L, 1, cd.K, names[which]);
    const Op *op = cd.op;
    int ch = op->nch > 1 ? k : 0;
    switch (which) {
    case 0: case 1:
        if (op->rq != RQ_TFLITE || !op->mult) break;
        lua_pushinteger(L, which ? op->shift[ch] : op->mult[ch]);
        return 1;
    case 2:
        if (op->rq != RQ_FLOAT || !op->fscale) break;
        lua_pushnumber(L, op->fscale[ch]);
        return 1;
    case 3:
        if (!op->rq_shifts) break;
        lua_pushinteger(L, op->rq_shifts[ch]);
        return 1;
    default:
        if (op->rq != RQ_QUANTLIB || !op->mult) break;
        lua_pushinteger(L, which == 4 ? op->mult[ch] : op->rq_add[ch]);
        return 1;
    }
    return luaL_error(L, "d.%s: the layer's requantization is %s%s", names[which], requant_name(op->rq),
                      op->rq_shifts ? " (shift)" : "");
}

static const struct {
    const char *name, *ctype;
    int elem;
    double lo, hi;
} ctypes[] = {
    {"int8", "int8_t", 1, -128, 127}, {"uint8", "uint8_t", 1, 0, 255}, {"int16", "int16_t", 2, -32768, 32767},
    {"int32", "int32_t", 4, -2147483648.0, 2147483647.0}, {"uint32", "uint32_t", 4, 0, 4294967295.0},
    {"float", "float", 4, 0, 0},
};

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

void target_constants(Target *t, int engine, const Graph *g, const Op *op, TileInfo *ti)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    lua_State *L = lt->L;
    int ref = lt->const_ref[engine][op->kind];
    if (ref == LUA_NOREF) return;
    const char *where = arena_printf("%s.ops.%s.constants", t->engines[engine].name, op_name(op->kind));
    ConstData cd = {g, op, op->out_c, op->kind == OP_CONV2D ? op->in_c / (op->groups > 0 ? op->groups : 1) : op->in_c,
                    op->kind == OP_CONV2D ? op->k_h : 1, op->kind == OP_CONV2D ? op->k_w : 1};
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    push_op(L, g, op);
    lua_newtable(L);
    set_int(L, "K", cd.K); set_int(L, "C", cd.C); set_int(L, "KH", cd.KH); set_int(L, "KW", cd.KW);
    set_int(L, "groups", op->kind == OP_CONV2D ? op->groups : 1);
    *(ConstData *)lua_newuserdatauv(L, sizeof cd, 0) = cd;
    int ud = lua_gettop(L);
    lua_pushvalue(L, ud);
    lua_pushcclosure(L, cd_w, 1);
    lua_setfield(L, -3, "w");
    lua_pushvalue(L, ud);
    lua_pushcclosure(L, cd_bias, 1);
    lua_setfield(L, -3, "bias");
    static const char *const rq_names[] = {"mult", "shift", "scale", "rq_shift", "qmul", "qadd"};
    for (int i = 0; i < 6; i++) {
        lua_pushvalue(L, ud);
        lua_pushinteger(L, i);
        lua_pushcclosure(L, cd_rq, 2);
        lua_setfield(L, -3, rq_names[i]);
    }
    lua_pop(L, 1);
    if (sandbox_pcall(L, 2, 1) != LUA_OK)
        die("%s (in %s, for operator %d %s)", sandbox_error(L), where, op->src_index, op->src_name);
    int line = fn_key_line(lt, ref, NULL);
    if (!lua_istable(L, -1))
        die("%s:%d: %s must return a table { name = { type = \"int8\", values = {...} }, ... }, got %s", t->path, line,
            where, luaL_typename(L, -1));
    /* the names, sorted: Lua's table order varies from run to run */
    const char *names[17];
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) die("%s:%d: %s returned a key that is not a name", t->path, line, where);
        const char *k = lua_tostring(L, -1);
        int ok = strlen(k) <= 32 && ((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || *k == '_');
        for (const char *c = k; ok && *c; c++)
            ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
        if (!ok) die("%s:%d: %s: '%.40s' is not a name (a C identifier of at most 32 characters)", t->path, line, where, k);
        if (n == 16) die("%s:%d: %s returned more than 16 arrays", t->path, line, where);
        names[n++] = arena_strdup(k);
    }
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    ti->consts = arena_alloc(sizeof(EngineConst) * (size_t)(n + 1));
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        const char *k = names[i];
        int kl = fn_key_line(lt, ref, k);
        rawfield(L, -1, k);     /* raw: reading a result runs none of its metamethods */
        EngineConst c = {k, NULL, 0, 0, NULL};
        int ty = -1;
        if (lua_type(L, -1) == LUA_TSTRING) {             /* raw bytes */
            size_t len;
            const char *b = lua_tolstring(L, -1, &len);
            c.ctype = "uint8_t";
            c.elem = 1;
            c.n = (int64_t)len;
            c.data = memcpy(arena_alloc(len + 1), b, len);
        } else if (lua_istable(L, -1)) {
            rawfield(L, -1, "type");
            const char *tn = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
            for (int q = 0; q < (int)(sizeof ctypes / sizeof ctypes[0]); q++)
                if (!strcmp(tn, ctypes[q].name)) ty = q;
            if (ty < 0)
                die("%s:%d: %s.%s.type: expected int8, uint8, int16, int32, uint32 or float, got '%.20s'", t->path, kl, where, k, tn);
            lua_pop(L, 1);
            if (rawfield(L, -1, "values") != LUA_TTABLE) die("%s:%d: %s.%s.values: expected a list of numbers", t->path, kl, where, k);
            lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
            if (len > (1 << 24)) die("%s:%d: %s.%s: %lld values, at most %d", t->path, kl, where, k, (long long)len, 1 << 24);
            c.ctype = ctypes[ty].ctype;
            c.elem = ctypes[ty].elem;
            c.n = len;
            uint8_t *d = arena_alloc((size_t)len * (size_t)c.elem + 1);
            for (lua_Integer j = 1; j <= len; j++) {
                lua_rawgeti(L, -1, j);
                int isnum;
                lua_Number v = lua_tonumberx(L, -1, &isnum);
                if (!isnum) die("%s:%d: %s.%s.values[%lld]: not a number", t->path, kl, where, k, (long long)j);
                if (ty == 5) {
                    float f = (float)v;
                    memcpy(d + (j - 1) * 4, &f, 4);
                } else {
                    if (v != (lua_Number)(long long)v || v < ctypes[ty].lo || v > ctypes[ty].hi)
                        die("%s:%d: %s.%s.values[%lld] = %.17g: not an integer in the %s range", t->path, kl, where, k,
                            (long long)j, (double)v, ctypes[ty].name);
                    uint64_t u = (uint64_t)(long long)v;
                    for (int b = 0; b < c.elem; b++) d[(j - 1) * c.elem + b] = (uint8_t)(u >> (8 * b));
                }
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
            c.data = d;
        } else {
            die("%s:%d: %s.%s: expected { type = \"int8\", values = {...} } or a string of bytes, got %s", t->path, kl,
                where, k, luaL_typename(L, -1));
        }
        lua_pop(L, 1);
        total += c.n * c.elem;
        if (total > ((int64_t)64 << 20)) die("%s:%d: %s: more than 64 MiB of constants for one layer", t->path, kl, where);
        if (!strcmp(k, "w")) {          /* the weights in the engine's layout */
            if (c.elem != 1) die("%s:%d: %s.w: the weights are bytes (int8, uint8 or a string)", t->path, kl, where);
            ti->wlayout = (const int8_t *)c.data;
            ti->wlayout_bytes = (size_t)c.n;
        } else if (!strcmp(k, "b")) {   /* the biases the engine adds */
            if (ty != 3 || c.n != cd.K)
                die("%s:%d: %s.b: the biases are %d int32 values (one per output channel)", t->path, kl, where, cd.K);
            ti->bias = (const int32_t *)c.data;
        } else {
            ti->consts[ti->nconsts++] = c;
        }
    }
    lua_pop(L, 1);
}

TileSpec *target_tile_spec(Target *t, int engine, const Graph *g, const Op *op, const TileInfo *geo)
{
    LoadedTarget *lt = (LoadedTarget *)t;
    lua_State *L = lt->L;
    const Engine *e = &t->engines[engine];
    const char *where = arena_printf("%s.ops.%s.tile", e->name, op_name(op->kind));
    TileSpec *ts = arena_alloc(sizeof *ts);
    int nodes = 0;         /* in all of this layer's expressions */
    /* the tile variables and the core's memory expressions */
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->tilevars_ref);
    lua_newtable(L);
    set_str(L, "geom", geo->geom);
    set_int(L, "in_h", geo->in_h); set_int(L, "in_w", geo->in_w);
    set_int(L, "k_h", geo->k_h); set_int(L, "k_w", geo->k_w);
    set_int(L, "s_h", geo->s_h); set_int(L, "s_w", geo->s_w);
    lua_pushboolean(L, geo->double_buffer);
    lua_setfield(L, -2, "double_buffer");
    lua_pushboolean(L, e->out_memory >= 0);
    lua_setfield(L, -2, "out_sep");
    if (sandbox_pcall(L, 1, 1) != LUA_OK) die("internal: tile variables: %s", lua_tostring(L, -1));
    int tv = lua_gettop(L);
    ts->l1_bytes = field_expr(lt, "l1_bytes", "internal: t", &nodes);
    ts->w_bytes = field_expr(lt, "w_bytes", "internal: t", &nodes);
    ts->core_l1 = ts->l1_bytes;
    ts->core_w = ts->w_bytes;
    ts->out_bytes = e->out_memory >= 0 ? field_expr(lt, "out_bytes", "internal: t", &nodes) : NULL;
    ts->tied_c = !strcmp(geo->geom, "dw");
    /* the layer as plain numbers, plus the full sizes */
    lua_rawgeti(L, LUA_REGISTRYINDEX, lt->tile_ref[engine][op->kind]);
    lua_pushvalue(L, tv);
    push_op(L, g, op);
    static const char *names[TD_COUNT] = {"K", "C", "OY", "OX"};
    for (int i = 0; i < TD_COUNT; i++) set_int(L, names[i], geo->full[i]);
    set_int(L, "IY", geo->in_h);
    set_int(L, "IX", geo->in_w);
    if (sandbox_pcall(L, 2, 1) != LUA_OK)
        die("%s (in %s, for operator %d %s)", sandbox_error(L), where, op->src_index, op->src_name);
    int fref = lt->tile_ref[engine][op->kind];
    ts->where = arena_printf("%s:%d: %s", t->path, fn_key_line(lt, fref, NULL), where);
    if (!lua_istable(L, -1))
        die("%s must return a table { maximize = expr, ... }, got %s", ts->where, luaL_typename(L, -1));
    /* every key must be one the core reads: a typo is an error, not a
       default (maximise would silently maximise l1_bytes) */
    {
        static const char *const tile_keys[] = {"maximize", "minimize", "cycles", "dma_cycles", "w_dma_cycles",
                                                "constraints", "l1_bytes", "w_bytes", "out_bytes", "macs_per_cycle",
                                                "tie_break", NULL};
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pop(L, 1);
            const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
            if (!in_list(k, tile_keys))
                die("%s:%d: %s returned an unknown field '%s' (expected one of: maximize, minimize, cycles, dma_cycles, "
                    "w_dma_cycles, constraints, l1_bytes, w_bytes, out_bytes, macs_per_cycle, tie_break)", t->path,
                    fn_key_line(lt, fref, k), where, k);
        }
    }
#define AT(k) arena_printf("%s:%d: %s.%s", t->path, fn_key_line(lt, fref, k), where, k)
    rawfield(L, -1, "maximize");
    rawfield(L, -2, "minimize");
    int has_max = !lua_isnil(L, -2), has_min = !lua_isnil(L, -1);
    lua_pop(L, 2);
    if (has_max && has_min) die("%s:%d: %s returned both maximize and minimize", t->path, fn_key_line(lt, fref, "minimize"), where);
    ts->minimize = has_min;
    ts->where_obj = has_min ? AT("minimize") : has_max ? AT("maximize") : arena_printf("%s.maximize", ts->where);
    ts->maximize = has_min ? field_expr(lt, "minimize", AT("minimize"), &nodes) : field_expr(lt, "maximize", AT("maximize"), &nodes);
    if (!ts->maximize) ts->maximize = ts->l1_bytes;
    ts->where_cycles = AT("cycles");
    ts->cycles = field_expr(lt, "cycles", AT("cycles"), &nodes);
    ts->dma_cycles = field_expr(lt, "dma_cycles", AT("dma_cycles"), &nodes);
    ts->w_dma_cycles = field_expr(lt, "w_dma_cycles", AT("w_dma_cycles"), &nodes);
    /* memory use the engine states itself (e.g. int32 accumulators in L1,
       weights in the activation memory); default: the core's t.l1_bytes
       (int8 tiles, double buffered) and t.w_bytes (int8 weights + int32 bias) */
    {
        Expr *l1 = field_expr(lt, "l1_bytes", AT("l1_bytes"), &nodes), *wb = field_expr(lt, "w_bytes", AT("w_bytes"), &nodes);
        if (l1) ts->l1_bytes = l1;
        if (wb) ts->w_bytes = wb;
        /* the core checks a stated size against its own (tile.c): a target
           may add to it, never shrink it */
        ts->where_l1 = l1 ? AT("l1_bytes") : arena_printf("%s.l1_bytes", ts->where);
        ts->where_w = wb ? AT("w_bytes") : arena_printf("%s.w_bytes", ts->where);
        Expr *ob = field_expr(lt, "out_bytes", AT("out_bytes"), &nodes);
        if (ob && e->out_memory < 0)
            die("%s: the engine has no outputs memory (its output tiles are in %s, counted in l1_bytes)",
                AT("out_bytes"), t->memories[e->act_memory].name);
        if (ob) ts->out_bytes = ob;
        ts->where_out = ob ? AT("out_bytes") : arena_printf("%s.out_bytes", ts->where);
    }
    /* peak rate of this layer's op class (e.g. depthwise on one PE row), for the ideal */
    if (rawfield(L, -1, "macs_per_cycle") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) > 0 && lua_tonumber(L, -1) <= 1e9))
            die("%s: must be a number in (0, 1e9]", AT("macs_per_cycle"));
        ts->macs_per_cycle = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    ts->where_cons = AT("constraints");
    int tc = rawfield(L, -1, "constraints");
    if (tc != LUA_TTABLE && tc != LUA_TNIL) die("%s: expected a list { le(a, b), ... }", AT("constraints"));
    if (tc == LUA_TTABLE) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        if (n > TILE_MAX_CONSTRAINTS) die("%s: %lld constraints, at most %d", AT("constraints"), (long long)n, TILE_MAX_CONSTRAINTS);
        ts->cons = arena_alloc(sizeof(Expr *) * (size_t)(n + 1));
        for (int i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            Expr *c = to_expr(lt, arena_printf("%s[%d]", AT("constraints"), i), 0, &nodes);
            if (c->kind != EX_LE && c->kind != EX_GE && c->kind != EX_EQ)
                die("%s[%d]: expected le(a, b), ge(a, b) or eq(a, b)", AT("constraints"), i);
            ts->cons[ts->ncons++] = c;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    ts->where_tie = AT("tie_break");
    ts->tie_break = field_expr(lt, "tie_break", AT("tie_break"), &nodes);
    if (ts->tie_break && (ts->tie_break->kind == EX_LE || ts->tie_break->kind == EX_GE || ts->tie_break->kind == EX_EQ))
        die("%s: expected an expression (the least wins among equal objectives), got a constraint", AT("tie_break"));
    /* t.dma_bytes and t.tiles count the whole layer: never inside one tile's sizes or cycles */
    {
        const Expr *per_tile[] = {ts->cycles, ts->dma_cycles, ts->w_dma_cycles, ts->l1_bytes, ts->w_bytes, ts->out_bytes};
        static const char *const pk[] = {"cycles", "dma_cycles", "w_dma_cycles", "l1_bytes", "w_bytes", "out_bytes"};
        for (int i = 0; i < 6; i++)
            if (uses_derived(per_tile[i]))
                die("%s: t.dma_bytes and t.tiles (the whole layer's) may appear only in maximize / minimize, "
                    "constraints and tie_break", AT(pk[i]));
    }
    ts->derived = uses_derived(ts->maximize) || uses_derived(ts->tie_break);
    for (int i = 0; i < ts->ncons; i++) ts->derived |= uses_derived(ts->cons[i]);
#undef AT
    lua_settop(L, tv - 1);
    return ts;
}
