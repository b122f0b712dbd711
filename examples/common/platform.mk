# platform.mk - the build shared by every firmware example. An example's
# Makefile sets MODEL (the C name, also the program name) and TFLITE (the
# model file under $(HTC_MODELS)), then includes this file.
#
#   make host    build for the host and run it
#   make m4      Cortex-M4: arm-none-eabi-gcc + picolibc semihosting, run on
#                qemu-system-arm -M mps2-an386, instructions counted by the
#                qemu plugin common/insncount.c
#   make m55     Cortex-M55 (Helium): qemu-system-arm -M mps3-an547, counted
#                like the M4, plus the MVE instructions and their beats
#                (common/mve-addrs.awk lists them from objdump)
#   make rv32    RV32IMC: riscv64-unknown-elf-gcc + picolibc semihosting, run
#                on qemu-system-riscv32 -M virt under -icount shift=0 so that
#                minstret counts instructions exactly
#   make siracusa GVSOC=DIR [CORES=N] [SIR_TARGET=...]
#                GVSoC's Siracusa model (an installed GVSoC, never built
#                here): the header from SIR_TARGET (targets/siracusa.lua)
#                with -D cores=N, bare metal (examples/siracusa), main on
#                the cluster's core 0, per-layer cluster cycles
#   make all     build the four programs without running them
#   make header  (re)generate build/$(MODEL).h with htc
#   make clean
#
# The header is regenerated when the model, the target file, htc itself, the
# runtime/kernel sources it pastes, or the htc command line (TARGET=...,
# HTC_MODELS=...) change.

EX_DIR  := $(patsubst %/,%,$(dir $(abspath $(firstword $(MAKEFILE_LIST)))))
COMMON  := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
TOP     := $(abspath $(COMMON)/../..)

HTC        ?= $(TOP)/htc
HTC_MODELS ?= ../../../shared/models/mlperf_tiny
TARGET     ?= $(TOP)/targets/cpu.lua
MODEL_FILE ?= $(HTC_MODELS)/$(TFLITE)
TIMEOUT    ?= 120
B          ?= build

CC        ?= cc
M4_CC     ?= arm-none-eabi-gcc
RV32_CC   ?= riscv64-unknown-elf-gcc
QEMU_ARM  ?= qemu-system-arm
QEMU_RV32 ?= qemu-system-riscv32

WARN     := -std=c99 -Wall -Wextra
OPT      ?= -O2
INC      := -I$(B) -I$(COMMON)
SRCS     := main.c $(COMMON)/platform.c

PICOLIBC := --specs=picolibc.specs --oslib=semihost --crt0=semihost
M4_FLAGS := -mcpu=cortex-m4 -mthumb
# mps2-an386: 4 MiB SSRAM1 at 0 (code, weights), 4 MiB SSRAM2/3 at 0x20000000
M4_LD    := -Wl,--defsym=__flash=0x0,--defsym=__flash_size=0x400000 \
            -Wl,--defsym=__ram=0x20000000,--defsym=__ram_size=0x400000
M55_FLAGS := -mcpu=cortex-m55 -mthumb -mfloat-abi=hard
# mps3-an547 boots Secure: code and weights in the ITCM (Secure alias, 512
# KiB), data in the DTCM (512 KiB)
M55_LD   := -Wl,--defsym=__flash=0x10000000,--defsym=__flash_size=0x80000 \
            -Wl,--defsym=__ram=0x30000000,--defsym=__ram_size=0x80000
RV32_FLAGS := -march=rv32imc -misa-spec=2.2 -mabi=ilp32
# virt: RAM at 0x80000000 where -bios none loads the ELF
RV32_LD  := -Wl,--defsym=__flash=0x80000000,--defsym=__flash_size=0x400000 \
            -Wl,--defsym=__ram=0x80400000,--defsym=__ram_size=0x1000000
SEMIHOST := -semihosting-config enable=on,target=native
PLUGIN   := $(COMMON)/build/libinsncount.so

HEADER   := $(B)/$(MODEL).h

include $(TOP)/examples/siracusa/sir.mk
SIR_TARGET ?= $(TOP)/targets/siracusa.lua
SIR_B      := $(B)/siracusa-$(CORES)
SIR_HEADER := $(SIR_B)/$(MODEL).h
# -D mem: where the firmware puts the arena and the weights (SIR_MEM), so the
# header and its estimates describe that layout (targets/siracusa.lua)
SIR_HTC_FLAGS ?= -D cores=$(CORES) -D mem=$(SIR_MEM)
SIR_HTC    := $(HTC) compile $(MODEL_FILE) -t $(SIR_TARGET) $(SIR_HTC_FLAGS) -o $(SIR_HEADER) --name $(MODEL)
HTC_DEPS := $(wildcard $(TOP)/htc.h $(TOP)/kernels/*.c $(TOP)/kernels/*.h)

.PHONY: host m4 m55 rv32 siracusa all header clean FORCE
.DELETE_ON_ERROR:

host: $(B)/host/$(MODEL)
	timeout $(TIMEOUT) $(B)/host/$(MODEL) $(RUN_ARGS)

m4: $(B)/m4/$(MODEL).elf $(PLUGIN)
	@set -e; elf=$(B)/m4/$(MODEL).elf; \
	begin=0x$$(arm-none-eabi-nm $$elf | awk '$$3 == "platform_mark_begin" {print $$1}'); \
	end=0x$$(arm-none-eabi-nm $$elf | awk '$$3 == "platform_mark_end" {print $$1}'); \
	echo "timeout $(TIMEOUT) $(QEMU_ARM) -M mps2-an386 -nographic $(SEMIHOST) -kernel $$elf -plugin $(PLUGIN),begin=$$begin,end=$$end"; \
	rc=0; timeout $(TIMEOUT) $(QEMU_ARM) -M mps2-an386 -nographic $(SEMIHOST) -kernel $$elf \
	    -plugin $(PLUGIN),begin=$$begin,end=$$end </dev/null >$(B)/m4/run.log 2>&1 || rc=$$?; \
	awk -f $(COMMON)/insncount.awk $(B)/m4/run.log; \
	[ $$rc -eq 0 ] || echo "m4: exit status $$rc"; exit $$rc

m55: $(B)/m55/$(MODEL).elf $(PLUGIN)
	@set -e; elf=$(B)/m55/$(MODEL).elf; \
	begin=0x$$(arm-none-eabi-nm $$elf | awk '$$3 == "platform_mark_begin" {print $$1}'); \
	end=0x$$(arm-none-eabi-nm $$elf | awk '$$3 == "platform_mark_end" {print $$1}'); \
	arm-none-eabi-objdump -d -m armv8.1-m.main $$elf | awk -f $(COMMON)/mve-addrs.awk >$$elf.mve; \
	echo "timeout $(TIMEOUT) $(QEMU_ARM) -M mps3-an547 -nographic $(SEMIHOST) -kernel $$elf -plugin $(PLUGIN),begin=$$begin,end=$$end,mve=$$elf.mve"; \
	rc=0; timeout $(TIMEOUT) $(QEMU_ARM) -M mps3-an547 -nographic $(SEMIHOST) -kernel $$elf \
	    -plugin $(PLUGIN),begin=$$begin,end=$$end,mve=$$elf.mve </dev/null >$(B)/m55/run.log 2>&1 || rc=$$?; \
	awk -f $(COMMON)/insncount.awk $(B)/m55/run.log; \
	[ $$rc -eq 0 ] || echo "m55: exit status $$rc"; exit $$rc

rv32: $(B)/rv32/$(MODEL).elf
	timeout $(TIMEOUT) $(QEMU_RV32) -M virt -bios none -nographic $(SEMIHOST) \
	    -icount shift=0,sleep=off -kernel $< </dev/null 2>&1

siracusa: $(SIR_B)/$(MODEL).elf
	$(SIR_RUN) $< $(SIR_B)/gvsoc

# M55 = no in an example's Makefile: its code does not fit the an547's 512
# KiB ITCM, where the M55 boots (the vector table must be there); M55 = sram:
# it does with the constants in the SSE-300's SRAM (common/m55-sram.ld)
M55 ?= yes
M55_SRAM := $(if $(filter sram,$(M55)),-fdata-sections -T$(COMMON)/m55-sram.ld -Tpicolibc.ld)
all: $(B)/host/$(MODEL) $(B)/m4/$(MODEL).elf $(if $(filter no,$(M55)),,$(B)/m55/$(MODEL).elf) $(B)/rv32/$(MODEL).elf

header: $(HEADER)

# The command itself is a dependency: another TARGET, model or htc also
# regenerates the header (build/htc.cmd changes only when the command does).
# One header for the four programs: every processor's fast paths (-D
# isa=all when the target declares that parameter, as targets/cpu.lua does)
ISA_FLAGS ?= $(if $(shell grep -l 'param "isa"' $(TARGET) 2>/dev/null),-D isa=all)
HTC_CMD := $(HTC) compile $(MODEL_FILE) -t $(TARGET) $(ISA_FLAGS) -o $(HEADER) --name $(MODEL)
$(B)/htc.cmd: FORCE
	@mkdir -p $(B); echo '$(HTC_CMD)' | cmp -s - $@ || echo '$(HTC_CMD)' >$@
FORCE:

$(HEADER): $(MODEL_FILE) $(TARGET) $(HTC) $(HTC_DEPS) $(B)/htc.cmd
	$(HTC_CMD)

$(SIR_B)/htc.cmd: FORCE
	@mkdir -p $(SIR_B); echo '$(SIR_HTC)' | cmp -s - $@ || echo '$(SIR_HTC)' >$@

$(SIR_HEADER): $(MODEL_FILE) $(SIR_TARGET) $(HTC) $(HTC_DEPS) $(SIR_B)/htc.cmd
	$(SIR_HTC)

# SIR_MEM=tile: the header's layers compute from L1 tiles (NAME_L1)
SIR_UC := $(shell echo $(MODEL) | tr a-z A-Z)
SIR_TILE := $(if $(filter tile,$(SIR_MEM)),'-D$(SIR_UC)_L1=sir_l1_tiles($(SIR_UC)_L1_SIZE)')
$(SIR_B)/$(MODEL).elf: $(SRCS) $(SIR_HEADER) $(COMMON)/platform.h $(SIR_DEPS) FORCE
	$(SIR_CC) $(SIR_CFLAGS) $(OPT) $(WARN) -DPLATFORM_SIRACUSA $(SIR_TILE) -I$(SIR_B) -I$(COMMON) -o $@ $(SRCS) $(SIR_SRCS) $(SIR_LDFLAGS)

$(TOP)/htc:
	$(MAKE) -C $(TOP) htc

$(B)/host/$(MODEL): $(SRCS) $(HEADER) $(COMMON)/platform.h
	@mkdir -p $(@D)
	$(CC) $(OPT) $(WARN) -DPLATFORM_HOST $(INC) -o $@ $(SRCS)

$(B)/m4/$(MODEL).elf: $(SRCS) $(HEADER) $(COMMON)/platform.h
	@mkdir -p $(@D)
	$(M4_CC) $(M4_FLAGS) $(OPT) $(WARN) -DPLATFORM_M4 $(INC) $(PICOLIBC) $(M4_LD) -o $@ $(SRCS)

$(B)/m55/$(MODEL).elf: $(SRCS) $(HEADER) $(COMMON)/platform.h
	@mkdir -p $(@D)
	$(M4_CC) $(M55_FLAGS) $(OPT) $(WARN) -DPLATFORM_M55 $(INC) $(PICOLIBC) $(M55_LD) $(M55_SRAM) -o $@ $(SRCS)

$(B)/rv32/$(MODEL).elf: $(SRCS) $(HEADER) $(COMMON)/platform.h
	@mkdir -p $(@D)
	$(RV32_CC) $(RV32_FLAGS) $(OPT) $(WARN) -DPLATFORM_RV32 $(INC) $(PICOLIBC) $(RV32_LD) -o $@ $(SRCS)

$(PLUGIN): $(COMMON)/insncount.c
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -O2 -Wall -Wextra -o $@ $<

clean:
	rm -rf $(B)
