"""Instance metadata services, read over plain HTTP through an injectable function with a timeout.

AWS (IMDSv2) and Alibaba Cloud (hardened mode) hand out a session token on a PUT and want it on every
GET; Tencent Cloud's metadata service takes plain GETs. A 404 means "no such value" (no spot notice).
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

# (method, url, headers, timeout_s) -> (status, body); a connection failure raises OSError.
Http = Callable[[str, str, Mapping[str, str], float], tuple[int, str]]


def urllib_http(method: str, url: str, headers: Mapping[str, str], timeout_s: float) -> tuple[int, str]:
    request = urllib.request.Request(url, method=method, headers=dict(headers))
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as error:
        return int(error.code), ""


@dataclass
class TokenMetadata:
    """A PUT to ``token_path`` for a session token (``ttl_header``), then GETs carrying it
    (``token_header``); a 401 renews the token once."""

    base: str
    ttl_header: str
    token_header: str
    http: Http = urllib_http
    token_path: str = "latest/api/token"
    ttl_s: int = 21_600
    timeout_s: float = 2.0
    _token: str | None = field(default=None, init=False, repr=False)

    def _fresh_token(self) -> str:
        status, body = self.http(
            "PUT", f"{self.base}/{self.token_path}", {self.ttl_header: str(self.ttl_s)}, self.timeout_s
        )
        if status != 200:
            raise OSError(f"the metadata service refused a session token (HTTP {status})")
        self._token = body
        return body

    def get(self, path: str) -> str | None:
        """The value at ``path`` (``latest/meta-data/...``), None where there is none (404)."""
        token = self._token or self._fresh_token()
        for attempt in range(2):
            status, body = self.http(
                "GET", f"{self.base}/{path.lstrip('/')}", {self.token_header: token}, self.timeout_s
            )
            if status == 200:
                return body
            if status == 404:
                return None
            if status == 401 and attempt == 0:
                token = self._fresh_token()
                continue
            raise OSError(f"the metadata service answered HTTP {status} for {path}")
        raise OSError(f"the metadata service refused the session token for {path}")


@dataclass
class PlainMetadata:
    base: str
    http: Http = urllib_http
    timeout_s: float = 2.0

    def get(self, path: str) -> str | None:
        status, body = self.http("GET", f"{self.base}/{path.lstrip('/')}", {}, self.timeout_s)
        if status == 200:
            return body
        if status == 404:
            return None
        raise OSError(f"the metadata service answered HTTP {status} for {path}")


def required(value: str | None, what: str) -> str:
    if not value:
        raise OSError(f"the metadata service has no {what}")
    return value.strip()
