# Third-party dependencies: nlohmann/json and GoogleTest, from Debian packages.
if(EMSCRIPTEN)
  # -fexceptions on every object and on the link, so C++ exceptions can be caught and turned
  # into JS Errors by the bindings (toolchain.md gotcha 8).
  add_compile_options(-fexceptions)
  add_link_options(-fexceptions)
  # Giving em++ /usr/include shadows the Emscripten sysroot (gotcha 2): expose only the
  # nlohmann headers, through a symlink in the build tree.
  find_path(NLOHMANN_JSON_ROOT nlohmann/json.hpp PATHS /usr/include
            NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH REQUIRED)
  set(_nj "${CMAKE_BINARY_DIR}/_deps/nlohmann_json/include")
  file(MAKE_DIRECTORY "${_nj}")
  if(NOT EXISTS "${_nj}/nlohmann")
    file(CREATE_LINK "${NLOHMANN_JSON_ROOT}/nlohmann" "${_nj}/nlohmann" SYMBOLIC)
  endif()
  add_library(nlohmann_json INTERFACE)
  target_include_directories(nlohmann_json SYSTEM INTERFACE "${_nj}")
  add_library(nlohmann_json::nlohmann_json ALIAS nlohmann_json)
  set(gtest_disable_pthreads ON CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  add_subdirectory(/usr/src/googletest "${CMAKE_BINARY_DIR}/_deps/googletest" EXCLUDE_FROM_ALL)
  # Warnings as errors (the CI presets) are for our code, not GoogleTest's.
  set_target_properties(gtest gtest_main PROPERTIES COMPILE_WARNING_AS_ERROR OFF)
  # GoogleTest's own machinery runs for the suites only: cold code (cmake/BlisColdCode.cmake).
  blis_cold_code(gtest)
  blis_cold_code(gtest_main)
else()
  find_package(nlohmann_json 3.10 REQUIRED)
  find_package(GTest REQUIRED)
  find_package(benchmark QUIET)
endif()

# blis_add_area_library(NAME DIR DEPS ...)
# A library made of every .cpp under DIR (one concern per file, so new files need no CMake
# edit). Include root is core/ (or the area's own root), e.g. #include "util/rng.h".
function(blis_add_area_library name dir)
  cmake_parse_arguments(A "" "" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB_RECURSE _src CONFIGURE_DEPENDS "${dir}/*.cpp")
  if(_src)
    add_library(${name} STATIC ${_src})
    target_link_libraries(${name} PUBLIC ${A_DEPS} PRIVATE ${A_PRIVATE_DEPS})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/core ${CMAKE_BINARY_DIR}/generated)
  else()
    add_library(${name} INTERFACE)
    target_link_libraries(${name} INTERFACE ${A_DEPS})
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR}/core ${CMAKE_BINARY_DIR}/generated)
  endif()
endfunction()
