# Warnings every objwire target compiles with; CI adds -Werror through OBJWIRE_WERROR.
function(objwire_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  # GCC 12 at -O3 reports std::string concatenation as overlapping memcpy (GCC bug 105329):
  # a false positive that -Werror would turn into a broken build.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(OBJWIRE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# objwire_add_test(NAME SOURCES a.cpp b.cpp LIBS lib... [LABELS unit|integration] [SEPARATE])
# One GoogleTest executable per call, registered with CTest test by test.
# PRECOMPILE: the header groups of objwire_precompile beside GTEST (asio, spdlog...).
function(objwire_add_test name)
  cmake_parse_arguments(T "SEPARATE" "" "SOURCES;LIBS;LABELS;PRECOMPILE" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  objwire_warnings(${name})
  objwire_precompile(${name} GTEST ${T_PRECOMPILE})
  # A test program's files share GoogleTest's and asio's instantiations when compiled
  # together: in batches of eight they build in about half the time under ASan. SEPARATE: the
  # files define the same names on purpose (the same struct described two ways).
  if(OBJWIRE_UNITY_TESTS AND NOT T_SEPARATE)
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS "${T_LABELS}" DISCOVERY_TIMEOUT 60)
endfunction()

# objwire_precompile(target [GTEST] [ASIO] [SPDLOG] [CLI11])
# Precompiled headers (OBJWIRE_PCH; scripts/sanitize.sh turns them on): the standard headers
# every part uses and the named third-party groups, parsed once per target instead of once per
# file: 15-20% off each asio-heavy file under ASan (session.cpp 27.9 s -> 23.7 s). Off in the
# main build: there the precompiling cost about what it saved, and with GCC 12 at -O3 a
# different header order changes which flow warnings (-Warray-bounds) -Werror turns into
# errors. SPDLOG only for targets that link spdlog::spdlog (its compiled-library defines).
function(objwire_precompile target)
  cmake_parse_arguments(P "GTEST;ASIO;SPDLOG;CLI11" "" "" ${ARGN})
  if(NOT OBJWIRE_PCH)
    return()
  endif()
  set(headers <algorithm> <chrono> <cstdint> <cstring> <functional> <map> <memory> <optional>
              <span> <string> <string_view> <system_error> <vector>)
  if(P_GTEST)
    list(APPEND headers <gtest/gtest.h>)
  endif()
  if(P_ASIO)
    list(APPEND headers <asio.hpp> <asio/experimental/as_tuple.hpp>)
  endif()
  if(P_SPDLOG)
    list(APPEND headers <spdlog/spdlog.h>)
  endif()
  if(P_CLI11)
    list(APPEND headers <CLI/CLI.hpp>)
  endif()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()

# UBSan's checks for one target, when OBJWIRE_SANITIZE names undefined: the sans-I/O layers
# (proto, config, the JSON-lines reader, the journal, the workloads), where integer arithmetic
# meets a peer's bytes; their tests run them so. The I/O drivers around asio and the test code
# get ASan only: UBSan doubles the compile time of asio's coroutine code and of GoogleTest's
# macros, and its checks there guard those libraries, not our arithmetic. The fuzz build
# (clang) checks with both everywhere it builds.
function(objwire_ub_checked target)
  if(OBJWIRE_SANITIZE MATCHES "undefined" AND NOT OBJWIRE_FUZZ)
    # Not vptr: that check reads the object's memory only after testing it is readable through
    # a pipe, so in a process out of descriptors (the daemon's out-of-descriptor tests) it
    # reports valid objects as invalid (libstdc++'s shared_ptr control blocks, made by the
    # decoder). What a peer's bytes reach here is arithmetic, not virtual calls.
    target_compile_options(${target} PRIVATE -fsanitize=undefined -fno-sanitize=vptr
                                             -fno-sanitize-recover=undefined)
  endif()
endfunction()

# Sanitizers and fuzzing instrumentation for every target defined after the call (the root
# CMakeLists calls it before any add_subdirectory). OBJWIRE_SANITIZE=address,undefined builds
# everything with ASan and the targets objwire_ub_checked names with UBSan too, where UB aborts
# instead of printing and going on, so a test that hits UB fails. OBJWIRE_FUZZ=ON (clang only) adds libFuzzer's coverage instrumentation to
# every target and turns the sanitizers on; tests/fuzz links its targets with -fsanitize=fuzzer.
macro(objwire_instrumentation)
  if(OBJWIRE_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      message(FATAL_ERROR "OBJWIRE_FUZZ=ON needs clang (libFuzzer): configure a separate build "
                          "directory with -DCMAKE_CXX_COMPILER=clang++-14")
    endif()
    if(NOT OBJWIRE_SANITIZE)
      set(OBJWIRE_SANITIZE address,undefined)
    endif()
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
  if(OBJWIRE_SANITIZE)
    # UndefinedBehaviorSanitizer compiles into the targets objwire_ub_checked names (below),
    # except in the fuzz build, where it goes everywhere; every program links its runtime.
    string(REPLACE "undefined" "" sanitize_everywhere "${OBJWIRE_SANITIZE}")
    string(REGEX REPLACE ",+" "," sanitize_everywhere "${sanitize_everywhere}")
    string(REGEX REPLACE "^,|,$" "" sanitize_everywhere "${sanitize_everywhere}")
    if(OBJWIRE_FUZZ)
      set(sanitize_everywhere ${OBJWIRE_SANITIZE})
    endif()
    if(sanitize_everywhere)
      add_compile_options(-fsanitize=${sanitize_everywhere})
    endif()
    add_compile_options(-fno-omit-frame-pointer)
    if(OBJWIRE_SANITIZE MATCHES "undefined" AND OBJWIRE_FUZZ)
      add_compile_options(-fno-sanitize-recover=undefined)
    endif()
    add_link_options(-fsanitize=${OBJWIRE_SANITIZE})
    message(STATUS "objwire: built with -fsanitize=${OBJWIRE_SANITIZE} (UBSan: see objwire_ub_checked)")
  endif()
endmacro()
