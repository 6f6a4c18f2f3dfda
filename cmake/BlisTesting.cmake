# blis_add_test_suite(NAME SOURCES ... LIBS ... [O1])
# One GoogleTest executable per area, built the same way natively and as WASM (run under
# node by ctest through CMAKE_CROSSCOMPILING_EMULATOR). Natively each case is a ctest test
# (ctest -R Suite.Case runs one); in WASM each executable is one. Tests read their data files from
# the source tree: BLIS_SOURCE_DIR; under node the real file system is mounted (NODERAWFS).
include(GoogleTest)
function(blis_add_test_suite name)
  cmake_parse_arguments(T "O1" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE BLIS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  # The suites' own sources (fixtures, assertions, GoogleTest's macros) are cold code
  # (cmake/BlisColdCode.cmake), compiled at -O0 in every build: optimising them took over a
  # third of each build's time (a cluster_tests batch: 34 CPU-s at -O3, 22 at -O1; under ASan
  # 42 at -O1, 18 at -O0) for code that runs for milliseconds. The code under test is in the
  # libraries, compiled as the product is.
  # O1: -O1 instead, for a suite whose cases spend their time in inline code it shares with the
  # library under test (nlohmann/json in the decoders and the conformance harness): the linker
  # keeps the suite's copy, and at -O0 conformance_tests ran 2-4 times slower natively,
  # scenario_tests 4 times slower in WASM (7 s -> 29 s).
  if(T_O1)
    blis_cold_code(${name})
  else()
    blis_cold_code(${name} O0)
  endif()
  if(EMSCRIPTEN)
    # -O1 at link (after CMake's -O3, so it wins for em++'s link-time settings): the libraries'
    # objects are compiled at -O3 like the shipped module's, but binaryen's -O3 pass over each test
    # executable took 8-15 CPU-s per link (0.5 s at -O1) for a few percent of test run time.
    # wasm-opt's passes preserve semantics, so the results (and digests) are the same.
    target_link_options(${name} PRIVATE -O1 -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0
                        -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 -sNODERAWFS=1
                        )
  endif()
  if(EMSCRIPTEN)
    # Under node each process compiles the whole module first, so WASM runs one ctest test per
    # executable (not one per case): every case of the suite in one process. The per-case
    # results go to a GoogleTest JSON report, which scripts/test adds up so its tally still
    # counts test cases.
    set(_report "${CMAKE_BINARY_DIR}/test-reports/${name}.json")
    add_test(NAME ${name}
             COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:${name}>
                     --gtest_output=json:${_report})
    set_tests_properties(${name} PROPERTIES LABELS "${name};gtest-suite")
  else()
    gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 120
                         PROPERTIES LABELS "${name}")
  endif()
endfunction()
