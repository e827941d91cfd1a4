"""One HTTP exchange, for the clients that sign their own requests (gpufleet/worker/alicloud_http.py,
tencentcloud_http.py): every request goes through a :data:`Transport`, so the tests record and answer
requests without a network."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import BinaryIO

# (method, url, headers, body, timeout_s) -> (status, headers, body). A body may be a file opened for
# binary reading (streamed; the caller sets Content-Length). A connection failure raises OSError.
Transport = Callable[
    [str, str, Mapping[str, str], bytes | BinaryIO | None, float], tuple[int, Mapping[str, str], bytes]
]


def urllib_transport(
    method: str, url: str, headers: Mapping[str, str], body: bytes | BinaryIO | None, timeout_s: float
) -> tuple[int, Mapping[str, str], bytes]:
    """One HTTP exchange through urllib; an HTTP error status is an answer, not an exception."""
    request = urllib.request.Request(url, data=body, method=method, headers=dict(headers))
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return int(response.status), dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as error:
        answer = error.read() if error.fp is not None else b""
        return int(error.code), dict(error.headers.items()) if error.headers is not None else {}, answer
