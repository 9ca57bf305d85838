# cmake -DOUT=FILE -DDIR=proto -DHEADERS=a,b,... -P concat_vocabulary.cmake
#
# Writes the installed <objwire/vocabulary.hpp>: the protocol vocabulary's headers (those of
# proto/ HEADERS names, in that order) one after the other in one file, without their
# `#pragma once` and their includes of each other (<objwire/proto/...>), so a user's compiler
# opens one file instead of fourteen and the package installs no proto/ folder. Each header
# must come after those it includes: one that includes a later or unknown one stops the
# build, naming both.
cmake_minimum_required(VERSION 3.25)
set(text "// Generated from proto/ by cmake/concat_vocabulary.cmake at build time: the protocol's\n")
string(APPEND text "// vocabulary the public headers are written in (docs/LIBRARY.md, \"The public surface\").\n")
string(APPEND text "// Do not edit: edit the headers in proto/.\n#pragma once\n")
set(done "")
string(REPLACE "," ";" HEADERS "${HEADERS}")
foreach(h IN LISTS HEADERS)
  # Read as one string: a C++ line holds semicolons, which a CMake list would split on.
  file(READ "${DIR}/${h}.hpp" body)
  string(REGEX MATCHALL "\n#include <objwire/proto/[a-z_]+\\.hpp>" uses "\n${body}")
  foreach(use IN LISTS uses)
    string(REGEX REPLACE ".*<objwire/proto/([a-z_]+)\\.hpp>" "\\1" used "${use}")
    if(NOT used IN_LIST done)
      message(FATAL_ERROR "proto/${h}.hpp includes ${used}.hpp, which does not come before it "
                          "in objwire_vocabulary_headers (cmake/objwire_package.cmake)")
    endif()
  endforeach()
  if("\n${body}" MATCHES "\n#include \"")
    message(FATAL_ERROR "proto/${h}.hpp has a quoted include, which cannot be installed")
  endif()
  string(REGEX REPLACE "#pragma once\n" "" body "${body}")
  string(REGEX REPLACE "#include <objwire/proto/[a-z_]+\\.hpp>\n" "" body "${body}")
  string(APPEND text "\n// ---- proto/${h}.hpp\n${body}")
  list(APPEND done ${h})
endforeach()
file(WRITE "${OUT}.tmp" "${text}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
