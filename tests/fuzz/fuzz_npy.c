/* fuzz_npy.c - libFuzzer target for the .npy / .npz reader (gen/npy.c),
   which reads htc run's --input files and compile's input hints. */

/* Links gen/npy.c and gen/util.c, the latter compiled with -Ddie=util_die
   -Dread_file=util_read_file so that this file supplies both: read_file()
   returns the fuzz input, die() checks the message and longjmps back. An
   input that starts like a .npy is read as one, anything else as a .npz.
   Every array read is checked: its shape, its element count, each element
   readable (ASan) and converted by npy_get. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gen/ir.h"
#include "../../gen/npy.h"

static const uint8_t *input;
static size_t input_len;
static jmp_buf on_die;
static char last_error[4096];

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

/* One line naming the file first (die() makes names visible when it prints). */
void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    CHECK(!strncmp(last_error, "fuzz.np", 7));
    longjmp(on_die, 1);
}

uint8_t *read_file(const char *path, size_t *len)
{
    (void)path;
    uint8_t *p = arena_alloc(input_len + 1);
    if (input_len) memcpy(p, input, input_len);
    *len = input_len;
    return p;
}

static void check_arrays(const NpyArray *a, int n)
{
    CHECK(n >= 0);
    for (int i = 0; i < n; i++) {
        CHECK(a[i].name != NULL);
        CHECK(a[i].rank >= 0 && a[i].rank <= MAX_RANK);
        CHECK(a[i].size == 1 || a[i].size == 2 || a[i].size == 4 || a[i].size == 8);
        CHECK(a[i].kind == 'i' || a[i].kind == 'u' || a[i].kind == 'f' || a[i].kind == 'b');
        uint64_t numel = 1;
        for (int d = 0; d < a[i].rank; d++) {
            CHECK(a[i].shape[d] >= 0 && (uint64_t)a[i].shape[d] <= ((uint64_t)1 << 32));
            numel *= (uint64_t)a[i].shape[d];
            CHECK(numel <= ((uint64_t)1 << 32));
        }
        CHECK(a[i].numel >= 0 && numel == (uint64_t)a[i].numel);
        CHECK(numel * (uint64_t)a[i].size <= input_len);
        volatile uint64_t sum = 0;
        for (int64_t k = 0; k < a[i].numel; k++) {
            int exact;
            sum += (uint64_t)npy_get(&a[i], k, &exact);
        }
        (void)sum;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input = data;
    input_len = size;
    if (!setjmp(on_die)) {
        NpyArray *a;
        int npy = size >= 6 && !memcmp(data, "\x93NUMPY", 6);
        int n = npy_load(npy ? "fuzz.npy" : "fuzz.npz", &a);
        check_arrays(a, n);
    }
    /* the arena's 1 MiB blocks are given back now and then, not per input
       (a calloc of 1 MiB per run would be most of the time) */
    static unsigned runs;
    if (++runs % 256 == 0) arena_free_all();
    return 0;
}
