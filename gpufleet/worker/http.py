"""One HTTP exchange, for the clients that sign their own requests (gpufleet/worker/alicloud_http.py,
tencentcloud_http.py): every request goes through a :data:`Transport`, so the tests record and answer
requests without a network."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from typing import BinaryIO

# (method, url, headers, body, timeout_s) -> (status, headers, body). A body may be a file opened for
# binary reading (streamed; the caller sets Content-Length). A connection or protocol failure raises
# OSError.
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
    except http.client.HTTPException as error:  # a broken exchange (IncompleteRead...): a network failure
        raise OSError(
            f"{method} {urllib.parse.urlsplit(url).netloc}: {type(error).__name__}: {error}"
        ) from None
