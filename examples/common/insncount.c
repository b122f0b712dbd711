/* insncount.c - QEMU TCG plugin: exact instruction counts, for platforms
   whose QEMU model has no usable cycle counter (Cortex-M: DWT CYCCNT is not
   modelled). Debian's QEMU 7.2 loads plugins but ships no qemu-plugin.h,
   so the few declarations of plugin API version 1 used here are written
   out below.

   Build:  cc -shared -fPIC -O2 -o libinsncount.so insncount.c
   Use:    qemu-system-arm ... -plugin ./libinsncount.so[,begin=ADDR,end=ADDR][,mve=FILE][,vcpus=N]

   Every executed guest instruction adds 1 to a counter (an inline add
   registered per instruction at translation time: no helper call). With
   begin/end (addresses of two functions, e.g. from nm), each execution of
   the instruction at begin opens a region and each one at end closes the
   innermost open region; regions may nest. At exit it prints to stderr
     insncount: region N: COUNT     (in the order the regions were opened)
     insncount: total COUNT         (every instruction of the run)
   With mve=FILE (hex addresses, one a line: mve-addrs.awk lists a Cortex-M55
   program's MVE instructions from objdump), the listed instructions are also
   counted apart, and each region gets a second line
     insncount: region N mve: MVE beats: BEATS
   BEATS = 4 x MVE: Armv8.1-M executes a vector instruction as four beats of
   32 bits of its 128-bit vector (Arm v8-M Architecture Reference Manual,
   "Beats" / "Beat-wise execution"); the Cortex-M55 is a dual-beat
   implementation (two beats per cycle), so BEATS / 2 is the cycles its
   vector pipeline is busy, before overlap between consecutive instructions.
   With vcpus=N (a multi-core machine, e.g. -M mps2-an521's two Cortex-M33;
   N at most 8), instructions are counted per vCPU: the regions are each
   vCPU's own (a vCPU opens and closes its regions; vCPU 0's print as
   above, the others' as "insncount: vcpu V region N: COUNT"), and at exit
     insncount: vcpu V total COUNT
   for every vCPU. It needs QEMU's single-threaded round-robin TCG
   (-accel tcg,thread=single): one counter for every vCPU, and the vCPU
   that runs each translation block noted at its start, so that the
   instructions since the last switch go to the vCPU that ran them (exact:
   every instruction is counted inline, before it executes). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU plugin API, version 1 (QEMU 4.2 .. 8.x) --------------------- */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;          /* not read here */
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op,
                                                void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);
/* ------------------------------------------------------------------------ */

#define MAX_REGIONS 4096
#define MAX_DEPTH 64
#define MAX_VCPUS 8
static uint64_t count;                    /* instructions executed (every vCPU) */
static uint64_t mve;                      /* of which listed in mve=FILE */
static uint64_t begin_addr = UINT64_MAX, end_addr = UINT64_MAX;
static struct {
    uint64_t region[MAX_REGIONS], region_mve[MAX_REGIONS];
    int nregions, stack[MAX_DEPTH], depth, dropped;
    uint64_t done;                        /* instructions before its current run (vcpus=N) */
} cpu[MAX_VCPUS];
static int nvcpus;                        /* vcpus=N: count per vCPU; 0: one count */
static unsigned cur;                      /* the vCPU running since count was `mark` */
static uint64_t mark;
static uint64_t *mve_addr;                /* sorted */
static size_t n_mve;
static int have_mve;                      /* mve=FILE given */

/* a translation block starts on vCPU v: the instructions since the last
   switch were the previous vCPU's */
static void on_tb(unsigned int v, void *u)
{
    (void)u;
    if (v >= (unsigned)nvcpus || v == cur) return;
    cpu[cur].done += count - mark;
    mark = count;
    cur = v;
}

/* instructions vCPU v has executed so far (every vCPU's without vcpus=N) */
static uint64_t now(unsigned v)
{
    if (!nvcpus) return count;
    on_tb(v, NULL);
    return cpu[v].done + count - mark;
}

/* the vCPU whose regions an instruction of vCPU v opens and closes */
static unsigned owner(unsigned v) { return nvcpus && v < (unsigned)nvcpus ? v : 0; }

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* the addresses of mve=FILE, sorted; 0 on success */
static int load_mve(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[64];
    size_t cap = 0;
    if (!f) { fprintf(stderr, "insncount: cannot read %s\n", path); return -1; }
    while (fgets(line, sizeof line, f)) {
        char *e;
        uint64_t a = strtoull(line, &e, 16);
        if (e == line) continue;
        if (n_mve == cap) {
            uint64_t *m = realloc(mve_addr, (cap = cap ? 2 * cap : 1024) * sizeof *m);
            if (!m) { fclose(f); return -1; }
            mve_addr = m;
        }
        mve_addr[n_mve++] = a;
    }
    fclose(f);
    qsort(mve_addr, n_mve, sizeof *mve_addr, cmp_u64);
    return 0;
}

static void on_begin(unsigned int vcpu, void *u)
{
    const unsigned v = owner(vcpu);
    (void)u;
    if (cpu[v].nregions == MAX_REGIONS || cpu[v].depth == MAX_DEPTH) { cpu[v].dropped++; return; }
    cpu[v].region[cpu[v].nregions] = now(vcpu);
    cpu[v].region_mve[cpu[v].nregions] = mve;
    cpu[v].stack[cpu[v].depth++] = cpu[v].nregions++;
}

static void on_end(unsigned int vcpu, void *u)
{
    const unsigned v = owner(vcpu);
    (void)u;
    if (cpu[v].depth == 0) { cpu[v].dropped++; return; }
    int r = cpu[v].stack[--cpu[v].depth];
    cpu[v].region[r] = now(vcpu) - cpu[v].region[r];
    cpu[v].region_mve[r] = mve - cpu[v].region_mve[r];
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (nvcpus) qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, NULL);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t a = qemu_plugin_insn_vaddr(insn);
        if (a == begin_addr) qemu_plugin_register_vcpu_insn_exec_cb(insn, on_begin, QEMU_PLUGIN_CB_NO_REGS, NULL);
        if (a == end_addr) qemu_plugin_register_vcpu_insn_exec_cb(insn, on_end, QEMU_PLUGIN_CB_NO_REGS, NULL);
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &count, 1);
        if (n_mve && bsearch(&a, mve_addr, n_mve, sizeof a, cmp_u64))
            qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &mve, 1);
    }
}

static void at_exit(qemu_plugin_id_t id, void *u)
{
    (void)id, (void)u;
    cpu[cur].done += count - mark;          /* the last run (vcpus=N) */
    mark = count;
    for (int v = 0; v < (nvcpus ? nvcpus : 1); v++) {
        char who[32] = "";
        if (v) snprintf(who, sizeof who, "vcpu %d ", v);
        for (int r = 0; r < cpu[v].nregions; r++) {
            fprintf(stderr, "insncount: %sregion %d: %" PRIu64 "\n", who, r, cpu[v].region[r]);
            if (have_mve)
                fprintf(stderr, "insncount: %sregion %d mve: %" PRIu64 " beats: %" PRIu64 "\n", who, r,
                        cpu[v].region_mve[r], 4 * cpu[v].region_mve[r]);
        }
        if (cpu[v].depth || cpu[v].dropped)
            fprintf(stderr, "insncount: %s%d region(s) left open, %d dropped\n", who, cpu[v].depth, cpu[v].dropped);
        if (nvcpus) fprintf(stderr, "insncount: vcpu %d total %" PRIu64 "\n", v, cpu[v].done);
    }
    fprintf(stderr, "insncount: total %" PRIu64 "\n", count);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        /* Thumb function symbols carry bit 0; instruction addresses do not */
        if (!strncmp(argv[i], "begin=", 6)) begin_addr = strtoull(argv[i] + 6, NULL, 0) & ~(uint64_t)1;
        else if (!strncmp(argv[i], "end=", 4)) end_addr = strtoull(argv[i] + 4, NULL, 0) & ~(uint64_t)1;
        else if (!strncmp(argv[i], "vcpus=", 6)) {
            nvcpus = atoi(argv[i] + 6);
            if (nvcpus < 1 || nvcpus > MAX_VCPUS) { fprintf(stderr, "insncount: vcpus=1..%d\n", MAX_VCPUS); return -1; }
        }
        else if (!strncmp(argv[i], "mve=", 4)) { if (load_mve(argv[i] + 4)) return -1; have_mve = 1; }
        else { fprintf(stderr, "insncount: unknown argument '%s'\n", argv[i]); return -1; }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
