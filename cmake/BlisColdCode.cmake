# blis_cold_code(TARGET [DEBUG_O0] [O0])
# Code that runs once per command or per test, not per simulated step, is compiled at -O1 in
# optimised builds, after CMake's -O3 so it wins: reading, checking and writing documents
# (blis_scenario, blis_rules, blis_catalog_schema, blis_sweep), the CLI's commands, the
# conformance harness's case reading and trace writing, and GoogleTest (the suites' own
# sources are at -O0, cmake/BlisTesting.cmake). One CLI command took 15 CPU-s at -O3 and 10
# at -O1. The libraries a step runs in (engine, kernel, cluster, catalog, util) stay at -O3.
# No fast-math and no FMA contraction anywhere (CMakeLists.txt), so an optimisation level
# changes speed only, never a result.
# DEBUG_O0: in the Debug (sanitizer) build, drop to -O0 as well; only for code whose run time
# under ASan does not matter (the engine, the cluster and the conformance harness keep the
# preset's -O1, which the sanitizer tests' run time needs).
# O0: -O0 in every build (native, sanitizer and WASM), for code that only checks (the test
# suites' own sources).
#
# The linker keeps the first copy it meets of an inline function, which can be a cold
# object's: `blis run` on chat-8x was checked to take the same CPU time either way.
#
# Tried and dropped: precompiling nlohmann/json, GoogleTest and the standard containers for
# these targets (target_precompile_headers). With GCC 12 the native build took more CPU with
# them than without (docs/development.md).
function(blis_cold_code target)
  cmake_parse_arguments(C "DEBUG_O0;O0" "" "" ${ARGN})
  if(C_O0)
    target_compile_options(${target} PRIVATE -O0)
  elseif(CMAKE_BUILD_TYPE STREQUAL "Debug")
    if(C_DEBUG_O0)
      target_compile_options(${target} PRIVATE -O0)
    endif()
  else()
    target_compile_options(${target} PRIVATE -O1)
  endif()
endfunction()

# blis_no_fuzz_coverage(): for the calling directory and those below it, drops the coverage
# instrumentation (-fsanitize=fuzzer-no-link) the native-debug preset puts on every object. Only
# code a libFuzzer harness runs needs it: the libraries, and the harnesses, which add
# -fsanitize=fuzzer themselves (tests/fuzz). The suites and the CLI do not, and it cost 9% of
# their compile under ASan.
macro(blis_no_fuzz_coverage)
  string(REPLACE "-fsanitize=fuzzer-no-link" "" CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS}")
endmacro()
