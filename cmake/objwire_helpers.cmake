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
