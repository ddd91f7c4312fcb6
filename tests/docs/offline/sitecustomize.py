"""Loaded by every Python process of a documentation chain (tests/docs/test_code_blocks.py puts
this folder on PYTHONPATH): connections and name lookups are allowed to this machine's loopback
only, so a block that would reach the network fails here instead of passing on a machine that
happens to be online."""

from __future__ import annotations

import errno
import ipaddress
import socket

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}


def _is_local(host: object) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    host = host.strip("[]").split("%", 1)[0].lower()
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _refuse(what: object) -> OSError:
    return OSError(errno.ENETUNREACH, f"documentation blocks run offline: no connection to {what!r}")


_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo


def _checked(sock: socket.socket, address: object) -> None:
    inet = sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple)
    if inet and not _is_local(address[0]):
        raise _refuse(address)


def connect(self: socket.socket, address: object) -> None:
    _checked(self, address)
    return _connect(self, address)


def connect_ex(self: socket.socket, address: object) -> int:
    try:
        _checked(self, address)
    except OSError as exc:
        return exc.errno or errno.ENETUNREACH
    return _connect_ex(self, address)


def getaddrinfo(host, *args, **kwargs):  # noqa: ANN001, ANN201 - socket.getaddrinfo's signature
    if not _is_local(host):
        raise socket.gaierror(socket.EAI_NONAME, f"documentation blocks run offline: no lookup of {host!r}")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = connect  # type: ignore[method-assign]
socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
socket.getaddrinfo = getaddrinfo
