# Toolchain file: cross-build the runtime and tools/ingot_run_lite for 64-bit Arm Linux with
# Debian's cross compilers (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu) and libc
# (libc6-dev-arm64-cross, under /usr/aarch64-linux-gnu). The compiler itself (LLVM, ONNX) is not
# cross-built; artifacts for aarch64 come from `ingot compile --target "llvm
# -mtriple=aarch64-linux-gnu"` on the build machine. Executables run there under qemu-aarch64
# (Debian qemu-user) with -L /usr/aarch64-linux-gnu, set below as the emulator when found.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(INGOT_CROSS_TRIPLE aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${INGOT_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${INGOT_CROSS_TRIPLE}-g++)

set(CMAKE_FIND_ROOT_PATH /usr/${INGOT_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(INGOT_QEMU_AARCH64 qemu-aarch64)
if(INGOT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${INGOT_QEMU_AARCH64} -L /usr/${INGOT_CROSS_TRIPLE})
endif()
