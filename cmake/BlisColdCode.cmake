# blis_cold_code(TARGET [DEBUG_O0])
# Code that runs once per command or per test, not per simulated step (the CLI's commands,
# the conformance harness's case reading and trace writing, the test suites' own sources) is
# compiled at -O1 in optimised builds, after CMake's -O3 so it wins: one CLI command took
# 15 CPU-s at -O3 and 10 at -O1, and the CLI's 18 files are not a unity build. The libraries
# a simulation runs in (engine, kernel, cluster, scenario, sweep, rules, catalog, util) stay at
# -O3. No fast-math and no FMA contraction anywhere (CMakeLists.txt), so an optimisation level
# changes speed only, never a result.
# DEBUG_O0: in the Debug (sanitizer) build, drop to -O0 as well; only for code whose run time
# under ASan does not matter (the libraries keep the preset's -O1, which the sanitizer tests'
# run time needs).
#
# Tried and dropped: precompiling nlohmann/json, GoogleTest and the standard containers for
# these targets (target_precompile_headers). With GCC 12 the native build took more CPU with
# them than without (docs/development.md).
function(blis_cold_code target)
  cmake_parse_arguments(C "DEBUG_O0" "" "" ${ARGN})
  if(CMAKE_BUILD_TYPE STREQUAL "Debug")
    if(C_DEBUG_O0)
      target_compile_options(${target} PRIVATE -O0)
    endif()
  else()
    target_compile_options(${target} PRIVATE -O1)
  endif()
endfunction()
