# Shared compile options: warnings (errors in CI), sanitizers, and a helper to declare a
# layer library from the sources of its folder.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_C_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

function(ingot_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 at -O2/-O3 reports false -Wrestrict errors inside libstdc++ for `"lit" + std::string`
    # (GCC bug 105329); the warning has no true positives in our code to lose.
    target_compile_options(${target} PRIVATE -Wno-restrict)
    # The same family of false reports, -Wstringop-overflow and -Warray-bounds inside
    # char_traits::copy for `"lit" + std::string`, once a precompiled header changes GCC 12's
    # inlining order (GCC bugs 105329, 105651); out-of-bounds accesses are ASan's to catch.
    target_compile_options(${target} PRIVATE -Wno-stringop-overflow -Wno-array-bounds)
  endif()
  if(INGOT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# ThreadSanitizer (preset tsan): the runtime and its tests, where sessions and the pool's threads
# meet. Not combinable with INGOT_SANITIZE.
option(INGOT_TSAN "Build with ThreadSanitizer" OFF)
if(INGOT_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

# libFuzzer (preset fuzz, clang): everything is built for coverage-guided fuzzing with ASan and
# UBSan; the fuzz targets (fuzz/) link libFuzzer's main.
option(INGOT_FUZZ "Build the libFuzzer targets (clang only)" OFF)
if(INGOT_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(INGOT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# Precompiled headers: parsing the standard library, fmt and the IR's headers was about half of
# a small source file's compile time (GCC 12, -O3; more at -O0), and the code is many small
# files; a header precompiled once per library cut ingot_tir's 102 files from 433 to 323 CPU s and
# ingot_lower's 71 from 241 to 166 on cold builds (docs/perf-runs/ci_time-20261207.txt). The test
# executables take none: their time is code generation, and they gained nothing. Off: every file
# parses its own includes (a check that each file includes what it uses).
option(INGOT_PCH "Precompile each library's common headers" ON)
set(INGOT_PCH_COMMON <algorithm> <cstdint> <functional> <map> <memory> <optional> <set> <string>
    <unordered_map> <unordered_set> <utility> <vector> <fmt/format.h>)
# ingot_pch(TARGET header...): the target's C++ files include these, precompiled, first.
function(ingot_pch target)
  if(INGOT_PCH)
    set(headers)
    foreach(h ${INGOT_PCH_COMMON} ${ARGN})
      list(APPEND headers "$<$<COMPILE_LANGUAGE:CXX>:${h}>")
    endforeach()
    target_precompile_headers(${target} PRIVATE ${headers})
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # What ccache needs to cache a GCC compile that uses a precompiled header (with the
      # sloppiness scripts/build sets).
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fpch-preprocess>)
    endif()
  endif()
endfunction()

# ingot_layer(NAME DIRS dir... DEPS lib...): a static library of every .cpp under the dirs.
function(ingot_layer name)
  cmake_parse_arguments(L "" "" "DIRS;DEPS" ${ARGN})
  set(srcs)
  foreach(d ${L_DIRS})
    file(GLOB_RECURSE s CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${d}/*.cpp)
    list(APPEND srcs ${s})
  endforeach()
  if(NOT srcs)  # a layer not yet written still links
    set(srcs ${CMAKE_BINARY_DIR}/empty_${name}.cpp)
    file(WRITE ${srcs} "// empty layer\n")
  endif()
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${L_DEPS})
  ingot_warnings(${name})
endfunction()
