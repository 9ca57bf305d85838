# The Debian package: `cpack --config build/CPackConfig.cmake -G DEB -B OUT` (scripts/package.sh)
# gives OUT/objwire_VERSION_ARCH.deb with the two programs, the systemd unit and the example
# configs as conffiles in /etc/objwire. Its maintainer scripts (cmake/deb/) create the system
# user objwire and /var/lib/objwire, enable the unit without starting it, and on purge only
# delete the stored objects. Dependencies come from dpkg-shlibdeps.
set(CPACK_PACKAGE_NAME objwire)
set(CPACK_PACKAGE_VENDOR objwire)
set(CPACK_PACKAGE_CONTACT "objwire maintainers <objwire@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "object stream daemon (objwired) and client (objwire)")
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
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# passwd: useradd in postinst; procps: the unit reloads with /bin/kill -HUP.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "passwd, procps")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "systemd")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/cmake/deb/conffiles ${PROJECT_SOURCE_DIR}/cmake/deb/postinst
    ${PROJECT_SOURCE_DIR}/cmake/deb/prerm ${PROJECT_SOURCE_DIR}/cmake/deb/postrm)
include(CPack)
