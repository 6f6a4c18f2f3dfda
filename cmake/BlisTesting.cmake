# blis_add_test_suite(NAME SOURCES ... LIBS ...)
# One GoogleTest executable per area, built the same way natively and as WASM (run under
# node by ctest through CMAKE_CROSSCOMPILING_EMULATOR). Tests read their data files from
# the source tree: BLIS_SOURCE_DIR; under node the real file system is mounted (NODERAWFS).
include(GoogleTest)
function(blis_add_test_suite name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE BLIS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  if(EMSCRIPTEN)
    target_link_options(${name} PRIVATE -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0
                        -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 -sNODERAWFS=1
                        )
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 120
                       PROPERTIES LABELS "${name}")
endfunction()
