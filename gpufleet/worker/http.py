"""One HTTP exchange, for the clients that sign their own requests (gpufleet/worker/alicloud_http.py,
tencentcloud_http.py): every request goes through a :data:`Transport`, so the tests record and answer
requests without a network."""

from __future__ import annotations

import base64
import hashlib
import http.client
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
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


PUT_OBJECT_MAX_BYTES = 5 * 1024**3
"""The largest object one PUT Object takes, on OSS as on COS: a larger file needs a multipart upload,
which the uploaders do not make (they refuse it before anything is sent)."""


def content_md5(path: Path) -> str:
    """The file's ``Content-MD5`` header: base64 of its MD5, read in 1 MiB chunks. OSS and COS refuse a
    body that does not match it, so a file changed or cut short on the way is never stored."""
    digest = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return base64.b64encode(digest.digest()).decode()
