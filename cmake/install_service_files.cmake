# Runs at install time (`cmake --install BUILD --prefix P`, cpack): installs the example
# configs and the systemd unit with its paths pointing at the prefix given then, not at the
# one CMake was configured with. The config directory follows GNUInstallDirs: /etc for the
# prefix /usr, /etc/opt/... for a prefix under /opt, P/etc otherwise.
set(prefix "${CMAKE_INSTALL_PREFIX}")
if(prefix STREQUAL "/usr")
  set(sysconfdir "/etc")
elseif(prefix MATCHES "^/opt/")
  set(sysconfdir "/etc${prefix}")
else()
  set(sysconfdir "${prefix}/etc")
endif()
set(sbindir "${prefix}/${OBJWIRE_INSTALL_SBINDIR}")
set(config_dir "${sysconfdir}/objwire")

file(INSTALL "${OBJWIRE_SOURCE_DIR}/config/objwired.toml" "${OBJWIRE_SOURCE_DIR}/config/objwire.toml"
     DESTINATION "${config_dir}")

# The unit in the source tree names the paths of the Debian package (/usr/sbin, /etc/objwire).
file(READ "${OBJWIRE_SOURCE_DIR}/daemon/ops/objwired.service" unit)
string(REPLACE "/usr/sbin/objwired" "${sbindir}/objwired" unit "${unit}")
string(REPLACE "/etc/objwire/" "${config_dir}/" unit "${unit}")
# Staged under a name of its own per destination: two installs may run at once.
string(MD5 staging "$ENV{DESTDIR}${prefix}")
set(staged "${OBJWIRE_BINARY_DIR}/objwired.service.d/${staging}/objwired.service")
file(WRITE "${staged}" "${unit}")
file(INSTALL "${staged}" DESTINATION "${prefix}/${OBJWIRE_UNIT_DIR}")
