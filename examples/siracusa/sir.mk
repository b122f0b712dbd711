# sir.mk - how to build and run a program for GVSoC's Siracusa model with
# this runtime; included by this directory's Makefile and by
# examples/common/platform.mk.
SIR_DIR  := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
CORES    ?= 8
SIR_CC   ?= riscv64-unknown-elf-gcc
# -misa-spec=2.2 keeps the CSR instructions and picolibc's rv32im multilib
# (with _zicsr spelt out the multilib lookup picks rv64 libraries)
# SIR_XP= (empty) builds the portable kernels instead of the XpulpV2 ones
SIR_XP   ?= -DHTC_XPULPV2
# -falign-*=16: functions, loops and jump targets on the cores' 16-byte
# instruction cache lines (L0: 512 bytes a core), so a kernel's cycles do not
# move with where the linker happens to put it (MobileNetV1 on GVSoC: the same
# code 3,178,775 cycles unaligned, 3,153,572 aligned)
SIR_CFLAGS   = -march=rv32imc -misa-spec=2.2 -mabi=ilp32 --specs=picolibc.specs \
               -falign-functions=16 -falign-loops=16 -falign-jumps=16 \
               -DSIR_CORES=$(CORES) $(SIR_XP) -I$(SIR_DIR)
# SIR_MEM=l1: constants (weights), data and .bss (arena) in L1 (sir-l1.ld);
# l2: constants in L2 (sir-l2.ld), for programs whose weights do not fit L1;
# tile: all in L2, the generated header's L1 tiles in the free L1 (sir-tile.ld;
# examples/common/platform.mk then defines NAME_L1)
SIR_MEM  ?= l1
SIR_LDFLAGS  = -nostartfiles -L$(SIR_DIR) -T sir-$(SIR_MEM).ld -Wl,--gc-sections,--no-warn-rwx-segments
SIR_SRCS := $(SIR_DIR)/crt0.S $(SIR_DIR)/siracusa.c
SIR_DEPS := $(SIR_SRCS) $(SIR_DIR)/siracusa.h $(wildcard $(SIR_DIR)/*.ld)
SIR_RUN  := $(SIR_DIR)/run.sh
