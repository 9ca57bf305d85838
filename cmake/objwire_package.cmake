# What `cmake --install` gives a user of the library, and the Debian package (cpack -G DEB).
#
# Library: objwire::proto, objwire::config and objwire::client (static unless
# BUILD_SHARED_LIBS=ON), their public headers under include/objwire/ (with the protocol's
# vocabulary they are written in as include/objwire/vocabulary.hpp), the CMake package
# lib/cmake/objwire/ and lib/pkgconfig/objwire.pc. A user includes <objwire/connection.hpp>;
# every installed header includes only <objwire/...> (and standard, asio and Boost headers),
# so the include path is include/ alone and a user's own proto/, config/ or client/ headers
# never stand in for the library's. docs/LIBRARY.md, "Using the installed library".
#
# Components: `runtime` (the two programs, the unit, the example configs, the man pages and
# completion of cmake/objwire_docs.cmake) is what the Debian package holds; `development` is
# the library.
include(CMakePackageConfigHelpers)

set(objwire_library_targets objwire_proto objwire_config objwire_client)
# 0.x makes no ABI promise between minor versions, so the minor is part of the soname.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(OBJWIRE_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(OBJWIRE_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()
foreach(t IN LISTS objwire_library_targets)
  string(REPLACE "objwire_" "" export_name ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${export_name} VERSION ${PROJECT_VERSION}
                                        SOVERSION ${OBJWIRE_SOVERSION})
endforeach()
# The headers use C++20: a user's target gets it from ours.
target_compile_features(objwire_proto PUBLIC cxx_std_20)
if(BUILD_SHARED_LIBS)
  # Installed programs find the installed shared libraries wherever the prefix is, and each
  # library finds the others (a program's RUNPATH does not reach its libraries' own needs).
  set_target_properties(objwire objwired PROPERTIES
    INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(${objwire_library_targets} PROPERTIES INSTALL_RPATH "$ORIGIN")
endif()

# objwire/version.hpp: the project's and the protocol's version and the codecs built in, for
# `--version` and for users (installed).
configure_file(${PROJECT_SOURCE_DIR}/cmake/version.hpp.in
               ${PROJECT_BINARY_DIR}/include/objwire/version.hpp @ONLY)
target_include_directories(objwire_proto PUBLIC $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>)

# Public headers: include/objwire/*.hpp, installed as <objwire/NAME.hpp>; and the protocol's
# vocabulary they are written in - values, the typed writer, the handshake's fields, the
# stats - public by design (docs/LIBRARY.md, "The public surface"), included as one header,
# <objwire/vocabulary.hpp>. In the build that header includes each of them from proto/ by
# <objwire/proto/...> (a link to proto/: proto/CMakeLists.txt); installed, it is those
# headers one after the other (cmake/concat_vocabulary.cmake, at build time), so the package
# installs 11 headers and no proto/ folder. Nothing else of proto/, config/ or client/ is
# installed: tests/package/examples_test.sh holds the count and the includes. In the order
# they include each other:
set(objwire_vocabulary_headers
    byte_buffer errors result limits frame byte_reader columns value compression_stats
    table_stats reset_policy control lazy_value typed_writer)
set(vocabulary_includes "")
foreach(h IN LISTS objwire_vocabulary_headers)
  string(APPEND vocabulary_includes "#include <objwire/proto/${h}.hpp>\n")
endforeach()
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/include/objwire/vocabulary.hpp
     CONTENT "// Generated (cmake/objwire_package.cmake): the protocol vocabulary in the build.\n#pragma once\n${vocabulary_includes}")
set(installed_vocabulary ${PROJECT_BINARY_DIR}/installed/objwire/vocabulary.hpp)
list(TRANSFORM objwire_vocabulary_headers PREPEND ${PROJECT_SOURCE_DIR}/proto/ OUTPUT_VARIABLE
     vocabulary_sources)
list(TRANSFORM vocabulary_sources APPEND .hpp)
list(JOIN objwire_vocabulary_headers "," vocabulary_names)
add_custom_command(
  OUTPUT ${installed_vocabulary}
  COMMAND ${CMAKE_COMMAND} -DOUT=${installed_vocabulary} -DDIR=${PROJECT_SOURCE_DIR}/proto
          -DHEADERS=${vocabulary_names} -P ${PROJECT_SOURCE_DIR}/cmake/concat_vocabulary.cmake
  DEPENDS ${vocabulary_sources} ${PROJECT_SOURCE_DIR}/cmake/concat_vocabulary.cmake
  COMMENT "Installed header objwire/vocabulary.hpp" VERBATIM)
add_custom_target(objwire_installed_vocabulary DEPENDS ${installed_vocabulary})
add_dependencies(objwire_client objwire_installed_vocabulary)
file(GLOB objwire_public_headers ${PROJECT_SOURCE_DIR}/include/objwire/*.hpp)
install(FILES ${objwire_public_headers} ${installed_vocabulary}
              ${PROJECT_BINARY_DIR}/include/objwire/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/objwire COMPONENT development)

install(TARGETS ${objwire_library_targets} EXPORT objwireTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
                NAMELINK_COMPONENT development
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(objwire_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/objwire)
install(EXPORT objwireTargets NAMESPACE objwire:: DESTINATION ${objwire_cmake_dir}
        COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/objwireConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/objwireConfig.cmake
                              INSTALL_DESTINATION ${objwire_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/objwireConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/objwireConfig.cmake
              ${PROJECT_BINARY_DIR}/objwireConfigVersion.cmake
        DESTINATION ${objwire_cmake_dir} COMPONENT development)

# objwire.pc, relocatable (prefix from its own place). Static libraries need their
# dependencies on the link line, so they are in Libs/Requires; shared ones only privately.
set(pc_requires "openssl zlib")
if(OBJWIRE_WITH_ZSTD)
  string(APPEND pc_requires " libzstd")
endif()
if(OBJWIRE_WITH_LZ4)
  string(APPEND pc_requires " liblz4")
endif()
# toml++'s .pc file brings defines of its own (TOML_SHARED_LIB...) that only its headers
# need: only its library is named. spdlog and fmt are the programs' alone: not named.
set(pc_libs "-L\${libdir} -lobjwire_client -lobjwire_config -lobjwire_proto")
if(BUILD_SHARED_LIBS)
  set(pc_requires_public "")
  set(pc_requires_private "${pc_requires}")
  set(pc_libs_private "-ltomlplusplus -pthread")
else()
  set(pc_requires_public "${pc_requires}")
  set(pc_requires_private "")
  string(APPEND pc_libs " -ltomlplusplus -pthread")
  set(pc_libs_private "")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/objwire.pc.in ${PROJECT_BINARY_DIR}/objwire.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/objwire.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT development)

# The example configs and the systemd unit: their directory and the unit's paths are worked
# out when installing, from the prefix given then (`cmake --install build --prefix P`).
install(CODE "set(OBJWIRE_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
set(OBJWIRE_BINARY_DIR \"${PROJECT_BINARY_DIR}\")
set(OBJWIRE_INSTALL_SBINDIR \"${CMAKE_INSTALL_SBINDIR}\")
set(OBJWIRE_UNIT_DIR \"lib/systemd/system\")"
        COMPONENT runtime)
install(SCRIPT ${PROJECT_SOURCE_DIR}/cmake/install_service_files.cmake COMPONENT runtime)

# The fuzzing build has no use for the package's documents.
if(NOT OBJWIRE_FUZZ)
  include(${PROJECT_SOURCE_DIR}/cmake/objwire_docs.cmake)
endif()
include(${PROJECT_SOURCE_DIR}/cmake/objwire_deb.cmake)
