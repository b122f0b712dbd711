/* netrun.c - one generated header on GVSoC's Siracusa: runs net_run once
   on the input bytes of net_io.h, prints each layer's cluster cycles
   (mcycle of core 0, fork and join included), the total, and whether the
   output equals net_io.h's expected bytes (`htc run` of the same header on
   the host). tests/neureka/gvsoc_nets.py generates net.h (htc compile
   --name net) and net_io.h (NET_IN, NET_WANT) and builds it with
   -DSIR_NEUREKA for headers whose layers run on N-EUREKA. Exit 0 when
   equal, 1 otherwise. */
#include <stdio.h>
#include <string.h>

#include "siracusa.h"

static uint32_t t_layer, prof[256];
#define HTC_PROFILE_BEGIN(model, layer, name) (t_layer = sir_cycles())
#define HTC_PROFILE_END(model, layer, name) ((layer) < 256 ? (void)(prof[(layer)] += sir_cycles() - t_layer) : (void)0)
#define NET_IMPLEMENTATION
#include "net.h"
#include "net_io.h"

static uint8_t arena[NET_ARENA_SIZE] __attribute__((aligned(16)));
static uint8_t out[NET_OUTPUT_SIZE];

int main(void)
{
    uint32_t t0, t1;
    int i, err;
    if (sizeof NET_IN != NET_INPUT_SIZE || sizeof NET_WANT != NET_OUTPUT_SIZE) {
        printf("netrun: net_io.h does not fit net.h\n");
        return 1;
    }
    t0 = sir_cycles();
    err = net_run(NET_IN, out, arena);
    t1 = sir_cycles();
    for (i = 0; i < 256; i++)
        if (prof[i]) printf("prof: layer %3d %u cycles\n", i, (unsigned)prof[i]);
    printf("prof: total %u cycles\n", (unsigned)(t1 - t0));
    if (err || memcmp(out, NET_WANT, sizeof out)) {
        printf("netrun: output DIFFERENT from htc run (err %d)\n", err);
        return 1;
    }
    printf("netrun: output %u bytes equal to htc run\n", (unsigned)sizeof out);
    return 0;
}
