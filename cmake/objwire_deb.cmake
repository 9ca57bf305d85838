# The Debian package: `cpack --config build/CPackConfig.cmake -G DEB -B OUT` (scripts/package.sh)
# gives OUT/objwire_VERSION_ARCH.deb with the two programs, the systemd unit and the example
# configs as conffiles in /etc/objwire, the man pages, the bash completion, the copyright file
# and the changelog (cmake/objwire_docs.cmake). Its maintainer scripts (cmake/deb/) create the
# system user objwire and /var/lib/objwire, enable the unit without starting it, restart a
# running daemon on upgrade, and on purge only delete the stored objects; they act on the unit
# through deb-systemd-helper and deb-systemd-invoke, so a policy-rc.d is obeyed. Dependencies
# come from dpkg-shlibdeps. `lintian` accepts the .deb (tests/package/deb_lint_test.sh).
set(CPACK_PACKAGE_NAME objwire)
set(CPACK_PACKAGE_VENDOR objwire)
set(CPACK_PACKAGE_CONTACT "objwire maintainers <maintainers@objwire.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "object stream daemon (objwired) and client (objwire)")
# The extended description: CPack puts the summary above it as the control file's first line.
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "objwire moves streams of structured objects (JSON lines, or typed C++
records) over TCP. objwired receives them, stores them in a journal that
survives crashes and serves them back to readers and followers; a sender's
stream resumes after a broken connection without loss or duplicates. Frames
carry a back-reference table and optional zlib, zstd or lz4 compression;
TLS and a shared token protect the link.
.
objwire is the command line: send a file or pipe of JSON lines, read stored
objects back, benchmark the link, check and show settings. The package runs
objwired as a systemd service under its own user, settings in /etc/objwire.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Installed with DESTDIR and the prefix /usr, so the install-time paths (the unit's, the
# configs' /etc/objwire) are the ones of the installed system, not of CPack's staging area.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME objwire)
set(CPACK_DEBIAN_RUNTIME_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# passwd: useradd in postinst; procps: the unit reloads with /bin/kill -HUP.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "passwd, procps")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "systemd")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/cmake/deb/conffiles ${PROJECT_SOURCE_DIR}/cmake/deb/postinst
    ${PROJECT_SOURCE_DIR}/cmake/deb/prerm ${PROJECT_SOURCE_DIR}/cmake/deb/postrm)
# The Python module is a package of its own, python3-objwire (Debian's name for a module
# `objwire` of Python 3, section python): a Python user needs neither the daemon nor its
# service user, and an operator no Python. The extension links the library statically, so it
# depends only on what dpkg-shlibdeps finds and on the Python it was built for.
if(OBJWIRE_PYTHON)
  list(APPEND CPACK_COMPONENTS_ALL python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-objwire)
  set(CPACK_DEBIAN_PYTHON_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "${OBJWIRE_PYTHON_DEB_DEPENDS}")
  # CPack puts the project's summary above it, as for the runtime package.
  set(CPACK_DEBIAN_PYTHON_DESCRIPTION
      "python3-objwire is the Python module of objwire's client: the module
objwire sends Python objects (dicts, lists, dataclasses, datetimes) to
objwired and reads them back, blocking or with asyncio. It binds objwire's
C++ client library, so resume, exactly-once reruns and the daemon's limits
hold as in the objwire command line.")
endif()
include(CPack)
