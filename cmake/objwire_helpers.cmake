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

# objwire_add_test(NAME SOURCES a.cpp b.cpp LIBS lib... [LABELS unit|integration])
# One GoogleTest executable per call, registered with CTest test by test.
function(objwire_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  objwire_warnings(${name})
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS "${T_LABELS}" DISCOVERY_TIMEOUT 60)
endfunction()

# Sanitizers and fuzzing instrumentation for every target defined after the call (the root
# CMakeLists calls it before any add_subdirectory). OBJWIRE_SANITIZE=address,undefined builds
# everything with those sanitizers, and UB aborts instead of printing and going on, so a test
# that hits UB fails. OBJWIRE_FUZZ=ON (clang only) adds libFuzzer's coverage instrumentation to
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
    add_compile_options(-fsanitize=${OBJWIRE_SANITIZE} -fno-omit-frame-pointer)
    if(OBJWIRE_SANITIZE MATCHES "undefined")
      add_compile_options(-fno-sanitize-recover=undefined)
    endif()
    add_link_options(-fsanitize=${OBJWIRE_SANITIZE})
    message(STATUS "objwire: every target built with -fsanitize=${OBJWIRE_SANITIZE}")
  endif()
endmacro()
