"""Keep credentials out of messages and reprs. A URL may carry them as `user:password@`
or as query parameters (`?api_key=…`); `redact_url` is the one place that removes them,
and `redact_urls` applies it to every URL inside a free text (an error message)."""

from __future__ import annotations

import re
from typing import overload
from urllib.parse import unquote

MASK = "***"

# userinfo ends at the last `@` before the path, so a raw `@` inside a password is covered.
_USERINFO = re.compile(r"//[^/\s]*@")
# `user:password@host` without a scheme (a mistyped URL is echoed back in an error).
_BARE_USERINFO = re.compile(r"^[^/\s:@]*:[^/\s]*@")
_PARAM = re.compile(r"(?P<head>[?&;#])(?P<name>[^=&;#\s]*)=(?P<value>[^&;#\s]*)")
# Parameter names that carry a credential: api_key, apikey, key, token, access_token,
# password, pass, pwd, secret, auth, signature, ... (any case, any separator).
_SECRET_NAME = re.compile(r"key|token|secret|pass|pwd|auth|sig|credential|session|cookie|jwt|bearer|private",
                          re.IGNORECASE)
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>]*")


def _mask_param(match: re.Match[str]) -> str:
    if not _SECRET_NAME.search(unquote(match["name"])):
        return match[0]
    return f"{match['head']}{match['name']}={MASK}"


@overload
def redact_url(url: str) -> str: ...
@overload
def redact_url(url: None) -> None: ...
def redact_url(url: str | None) -> str | None:
    """The URL with its userinfo replaced by `***@` and the values of credential-like query
    or fragment parameters by `***`; host, port, path and other parameters stay readable."""
    if url is None:
        return None
    text = str(url)
    text, found = _USERINFO.subn(f"//{MASK}@", text, count=1)
    if not found:
        text = _BARE_USERINFO.sub(f"{MASK}@", text, count=1)
    cut = min((i for i in (text.find("?"), text.find("#")) if i >= 0), default=-1)
    if cut < 0:
        return text
    return text[:cut] + _PARAM.sub(_mask_param, text[cut:])


def redact_urls(text: str) -> str:
    """`text` with every `scheme://…` URL in it passed through `redact_url`."""
    return _URL_IN_TEXT.sub(lambda m: redact_url(m[0]) or "", str(text))
