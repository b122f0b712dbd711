/* crt0.S - start-up code for GVSoC's Siracusa model: the fabric controller
   (FC) enters at _start, the cluster cores at _cluster_start (siracusa.c
   writes it to their boot address registers). No vendor SDK. */
#define STATUS_END 0x1A1040A0   /* APB SOC CTRL CORESTATUS: bit 31 = end */

    .section .text.init, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      tp, __tls_base
    la      sp, __fc_stack_top
    /* zero .tbss, .bss (L2) and .l1bss (L1): GVSoC's loader writes only the
       bytes stored in the ELF */
    la      a0, __tbss_start
    la      a1, __tls_end
    call    zero_words
    la      a0, __bss_start
    la      a1, __bss_end
    call    zero_words
    la      a0, __l1bss_start
    la      a1, __l1bss_end
    call    zero_words
    call    sir_fc_main         /* starts the cluster; never returns */
1:  wfi
    j       1b

/* zero the words in [a0, a1) */
zero_words:
    bgeu    a0, a1, 2f
    sw      zero, 0(a0)
    addi    a0, a0, 4
    j       zero_words
2:  ret

/* Cluster cores: core 0 (mhartid 0) gets the main stack at the top of L1,
   core i > 0 the i-th worker stack below it. */
    .balign 256
    .globl _cluster_start
_cluster_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      tp, __tls_base
    csrr    a0, mhartid
    andi    a0, a0, 0x1f
    la      sp, __l1_end
    beqz    a0, 3f
    la      t0, __main_stack_size
    sub     sp, sp, t0
    addi    t1, a0, -1
    la      t0, __worker_stack_size
    mul     t1, t1, t0
    sub     sp, sp, t1
3:  call    sir_cluster_entry   /* never returns */
4:  wfi
    j       4b
