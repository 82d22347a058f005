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
