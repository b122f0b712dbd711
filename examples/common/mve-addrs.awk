# mve-addrs.awk - the addresses of a Cortex-M55 program's MVE (Helium)
# instructions, for insncount.c's mve=FILE: reads
#   arm-none-eabi-objdump -d -m armv8.1-m.main PROGRAM.elf
# and prints, one hex address a line, every instruction whose operands name a
# Q register (q0..q7: vector loads/stores, arithmetic, VPT, VMLADAV, VMOV to
# or from a vector), the instructions that occupy the vector pipeline's beats.
# Scalar ones of the same extension (VCTP, VPST, the 64-bit shifts, VMRS p0)
# are not listed.
/^ *[0-9a-f]+:\t/ {
    n = split($0, f, "\t")
    if (n < 4) next
    ops = f[4]
    sub(/[@;].*$/, "", ops)         # comments
    gsub(/<[^>]*>/, "", ops)        # symbol names
    if (ops ~ /(^|[^a-z0-9_])q[0-7]([^0-9]|$)/) {
        a = f[1]; sub(/^ */, "", a); sub(/:$/, "", a)
        print a
    }
}
