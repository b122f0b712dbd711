# dual.awk - each core's instructions from the qemu plugin's per-vCPU
# regions (common/insncount.c vcpus=2) of examples/dual-m33/main.c:
#   core 0: region 0 the whole model_run, then per fork share 0, the join
#   core 1: per fork its share
# Prints the program's own lines, then
#   dual: core 0 BUSY instructions (model_run RUN, WAIT waiting in F joins)
#   dual: core 1 BUSY instructions in F shares
#   dual: critical path CP instructions (SERIAL outside the shares + the larger share of each fork)
# CP is what the two cores take side by side; with one core it is model_run.
/^insncount: region [0-9]+: [0-9]+$/ { sub(":", "", $3); r0[$3] = $4; if ($3 + 1 > n0) n0 = $3 + 1; next }
/^insncount: vcpu 1 region [0-9]+: [0-9]+$/ { sub(":", "", $5); r1[$5] = $6; if ($5 + 1 > n1) n1 = $5 + 1; next }
/^insncount: / { next }
{ print }
END {
    if (!(0 in r0)) { print "dual: no counts (run under the qemu plugin)"; exit 1 }
    run = r0[0]; f = int((n0 - 1) / 2)
    if (f != n1) { printf "dual: %d forks on core 0 but %d shares on core 1\n", f, n1; exit 1 }
    wait = 0; s0 = 0; s1 = 0; big = 0
    for (i = 0; i < f; i++) {
        a = r0[1 + 2 * i]; b = r1[i]
        s0 += a; s1 += b; wait += r0[2 + 2 * i]; big += (a > b ? a : b)
    }
    printf "dual: core 0 %d instructions (model_run %d, %d waiting in %d joins)\n", run - wait, run, wait, f
    printf "dual: core 1 %d instructions in %d shares\n", s1, f
    printf "dual: critical path %d instructions (%d outside the shares + the larger share of each fork %d)\n",
        run - wait - s0 + big, run - wait - s0, big
}
