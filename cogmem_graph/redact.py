"""Keep credentials out of messages and reprs: a URL may carry `user:password@`."""

from __future__ import annotations

import re

_USERINFO = re.compile(r"//[^/@\s]*@")


def redact_url(url: str | None) -> str | None:
    """The URL with any `user:password@` part replaced by `***@`."""
    return None if url is None else _USERINFO.sub("//***@", url)
