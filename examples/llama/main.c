/* examples/llama - MicroLlama (Deeploy's microLlama1: 8 layers, 16 heads of
   4, model width 64) generating autoregressively: each call takes the last
   hidden state (the next token's embedding), the attention mask, the rotary
   matrix and the KV cache, and returns the next hidden state and the
   cache grown by one row; the caller keeps the cache in its own buffers
   (no malloc) and carries it to the next call. The exported graph attends
   over one past row and the current one (past length 1, as Deeploy's test
   exports it), so the caller carries the newest row of each K and V.
   Prints tokens/s on the host, instructions per token on RV32 and (the
   qemu plugin's counts) on the M4 and M55, cycles per token on Siracusa.
   Host only: "--read-input FILE" replaces the first step's inputs with the
   file's bytes (every input in the graph's order: token, mask, rotary, 16
   past K/V) and "--write-output FILE" writes the first step's outputs
   (hidden state, 16 grown K/V): tests/test_examples.sh feeds Deeploy's test
   inputs and compares with Deeploy's outputs. */
#include <string.h>

#include "platform.h"           /* first: it defines HTC_PROFILE_BEGIN/END */

#define LLAMA_IMPLEMENTATION
#include "llama.h"

#ifndef STEPS                   /* e.g. -DSTEPS=2: a shorter run for GVSoC's counters */
#define STEPS 16
#endif
#define NKV 16                  /* 8 layers x (K, V) */
#define HEADS 16
#define HEAD 4                  /* int8 values per head and row */

static uint8_t arena[LLAMA_ARENA_SIZE] __attribute__((aligned(LLAMA_ARENA_ALIGN)));
/* caller-owned model state: the token, the mask, the rotary matrix, the cache */
static uint8_t token[LLAMA_INPUT_SIZE_0], mask[LLAMA_INPUT_SIZE_1], rotary[LLAMA_INPUT_SIZE_2];
static uint8_t kv_past[NKV][LLAMA_INPUT_SIZE_3];          /* [1][16][1][4] each */
static uint8_t hidden[LLAMA_OUTPUT_SIZE_0];
static uint8_t kv_new[NKV][LLAMA_OUTPUT_SIZE_1];          /* [1][16][2][4] each: past + this step */

#if defined(PLATFORM_HOST)
/* the first step's inputs from FILE after `flag` (all of them, raw), if given */
static int read_input(int argc, char **argv, const char *flag)
{
    static uint8_t all[sizeof token + sizeof mask + sizeof rotary + sizeof kv_past];
    int i;
    for (i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], flag) == 0) {
            FILE *f = fopen(argv[i + 1], "rb");
            size_t n = f ? fread(all, 1, sizeof all, f) : 0;
            int extra = f ? fgetc(f) != EOF : 0;
            if (f) fclose(f);
            if (n != sizeof all || extra) {
                fprintf(stderr, "llama: %s: expected %u bytes of input\n", argv[i + 1], (unsigned)sizeof all);
                return -1;
            }
            memcpy(token, all, sizeof token);
            memcpy(mask, all + sizeof token, sizeof mask);
            memcpy(rotary, all + sizeof token + sizeof mask, sizeof rotary);
            memcpy(kv_past, all + sizeof token + sizeof mask + sizeof rotary, sizeof kv_past);
        }
    return 0;
}
#endif

int main(int argc, char **argv)
{
    const void *ins[3 + NKV];
    void *outs[1 + NKV];
    int i, h, step, rc = 0;
    uint64_t total = 0;

    /* stands in for an embedding table and a tokenizer: a fixed first token */
    platform_fill(token, sizeof token, 0x11a3u);
    platform_fill(rotary, sizeof rotary, 0x70e1u);
    memset(mask, 0, sizeof mask);
    memset(kv_past, 0, sizeof kv_past);
#if defined(PLATFORM_HOST)
    if (read_input(argc, argv, "--read-input")) return 1;
#endif
    ins[0] = token;
    ins[1] = mask;
    ins[2] = rotary;
    outs[0] = hidden;
    for (i = 0; i < NKV; i++) {
        ins[3 + i] = kv_past[i];
        outs[1 + i] = kv_new[i];
    }
    for (step = 0; step < STEPS; step++) {
        platform_run_begin();
        uint64_t t0 = platform_counter();
        rc |= llama_run_multi(ins, outs, arena);
        total += platform_counter() - t0;
        platform_run_end();
        if (step == 0) {    /* host: the first step's outputs, as the graph orders them */
            static uint8_t first[sizeof hidden + sizeof kv_new];
            memcpy(first, hidden, sizeof hidden);
            memcpy(first + sizeof hidden, kv_new, sizeof kv_new);
            rc |= platform_save(argc, argv, "--write-output", first, sizeof first);
        }
        /* carry: the next token is this step's hidden state, the cache the
           newest row of every head */
        memcpy(token, hidden, sizeof token);
        for (i = 0; i < NKV; i++)
            for (h = 0; h < HEADS; h++) memcpy(kv_past[i] + h * HEAD, kv_new[i] + (h * 2 + 1) * HEAD, HEAD);
        printf("result: llama step %d hidden fnv1a %08lx\n", step, (unsigned long)platform_fnv1a(hidden, sizeof hidden));
    }
    if (rc) {
        printf("llama: llama_run_multi failed (%d)\n", rc);
        return 1;
    }
    printf("result: llama cache fnv1a %08lx\n", (unsigned long)platform_fnv1a(kv_new, sizeof kv_new));
    printf("llama: RAM %u bytes = arena %u + KV cache %u (past) + %u (grown) + token/mask/rotary/hidden %u; stack: htc report --stack-cc\n",
           (unsigned)(sizeof arena + sizeof kv_past + sizeof kv_new + sizeof token + sizeof mask + sizeof rotary + sizeof hidden),
           (unsigned)sizeof arena, (unsigned)sizeof kv_past, (unsigned)sizeof kv_new,
           (unsigned)(sizeof token + sizeof mask + sizeof rotary + sizeof hidden));
#if defined(PLATFORM_HOST)
    printf("llama: %d tokens, %.1f tokens/s on the host\n", STEPS, total ? STEPS * 1e9 / (double)total : 0.0);
#elif defined(PLATFORM_RV32)
    printf("llama: %d tokens, %lu instructions per token on RV32\n", STEPS, (unsigned long)(total / STEPS));
#elif defined(PLATFORM_M4) || defined(PLATFORM_M55)
    /* the qemu plugin's exact counts (common/insncount.awk fills them in):
       the first step's layers and the whole first token */
    platform_prof_print("llama");
    printf("llama: %d tokens; instructions per token: the first token's total above\n", STEPS);
#elif defined(PLATFORM_SIRACUSA)
    platform_prof_print("llama");   /* the last step's layers */
    printf("llama: %d tokens, %lu cluster cycles per token on siracusa\n", STEPS, (unsigned long)(total / STEPS));
#endif
    return 0;
}
