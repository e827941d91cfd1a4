"""The urllib transport the self-signing clients share (gpufleet/worker/http.py), on loopback."""

from __future__ import annotations

from pathlib import Path

from gpufleet.worker.http import urllib_transport
from tests.worker.tencentcloud_http_fakes import (
    loopback_server,
)

# --- the real transport, on loopback -----------------------------------------------------------------


def test_urllib_transport_streams_a_file_and_answers_http_errors(tmp_path: Path) -> None:
    local = tmp_path / "blob"
    local.write_bytes(b"x" * 100_000)
    with loopback_server() as (base, received), local.open("rb") as stream:
        status, _, body = urllib_transport(
            "PUT", f"{base}/ok", {"Content-Length": "100000", "x-cos-security-token": "t"}, stream, 5.0
        )
        assert (status, body) == (200, b"ok")
        assert received[0][3] == b"x" * 100_000 and received[0][2]["x-cos-security-token"] == "t"
        status, _, body = urllib_transport("PUT", f"{base}/denied", {"Content-Length": "1"}, b"y", 5.0)
        assert (status, body) == (403, b"<Error><Code>AccessDenied</Code></Error>")
