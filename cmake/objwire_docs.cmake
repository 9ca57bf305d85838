# What the Debian package carries besides the programs: the man pages objwire(1), objwired(8),
# objwired.toml(5) and objwire's bash completion, made at build time from the programs' own
# --help and the settings key tables (packaging/make_docs.py), so they say what the built
# programs do; the changelog, gzipped as Debian policy wants; the DEP-5 copyright file.
# Target objwire_docs (part of `all`; scripts/package.sh builds it with the programs).
find_package(Python3 REQUIRED COMPONENTS Interpreter)

# Prints both key tables; a build tool, not installed.
add_executable(objwire_settings_keys ${PROJECT_SOURCE_DIR}/packaging/settings_keys.cpp)
target_link_libraries(objwire_settings_keys PRIVATE objwire::config)
objwire_warnings(objwire_settings_keys)

set(objwire_docs_dir ${PROJECT_BINARY_DIR}/docs-generated)
set(objwire_docs_outputs
    ${objwire_docs_dir}/objwire.1.gz ${objwire_docs_dir}/objwired.8.gz
    ${objwire_docs_dir}/objwired.toml.5.gz ${objwire_docs_dir}/objwire.bash)
add_custom_command(
  OUTPUT ${objwire_docs_outputs}
  COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/packaging/make_docs.py
          --objwire $<TARGET_FILE:objwire> --objwired $<TARGET_FILE:objwired>
          --keys $<TARGET_FILE:objwire_settings_keys> --version ${PROJECT_VERSION}
          --out ${objwire_docs_dir}
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/make_docs.py objwire objwired objwire_settings_keys
  COMMENT "Man pages and bash completion from objwire's and objwired's --help"
  VERBATIM)
# -n: no name or time stamp inside, so the same changelog gives the same bytes.
add_custom_command(
  OUTPUT ${objwire_docs_dir}/changelog.gz
  COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/packaging/changelog ${objwire_docs_dir}/changelog
  COMMAND gzip -9nf ${objwire_docs_dir}/changelog
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog
  VERBATIM)
add_custom_target(objwire_docs ALL DEPENDS ${objwire_docs_outputs} ${objwire_docs_dir}/changelog.gz)

install(FILES ${objwire_docs_dir}/objwire.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        COMPONENT runtime)
install(FILES ${objwire_docs_dir}/objwired.toml.5.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man5
        COMPONENT runtime)
install(FILES ${objwire_docs_dir}/objwired.8.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man8
        COMPONENT runtime)
install(FILES ${objwire_docs_dir}/objwire.bash DESTINATION share/bash-completion/completions
        RENAME objwire COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright ${objwire_docs_dir}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
# The Python module's package (python3-objwire, cmake/objwire_deb.cmake) carries them too.
if(OBJWIRE_PYTHON)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright ${objwire_docs_dir}/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/python3-objwire COMPONENT python)
endif()
