# examples/cmake/cortex-m4.cmake - toolchain file: Cortex-M4 with Debian's
# arm-none-eabi-gcc and picolibc (semihosting), linked for qemu-system-arm
# -M mps2-an386 (code at 0x0, RAM at 0x20000000). htc itself runs on the
# build machine; only the library and the program are cross-compiled.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mthumb -O2 --specs=picolibc.specs --oslib=semihost --crt0=semihost")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--defsym=__flash=0x0,--defsym=__flash_size=0x400000 -Wl,--defsym=__ram=0x20000000,--defsym=__ram_size=0x400000")
