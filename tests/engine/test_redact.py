"""`plan --json` redaction: a secret map (an IPsec connection's IKE block, secret for its pre-shared
key) hides itself, and the key's text elsewhere, but not the plain settings beside the key."""

from __future__ import annotations

from gpufleet.graph import make_secret
from gpufleet.redact import redact, secret_strings

PSK = "not-a-real-pre-shared-key-0001"
IKE = {
    "ikeVersion": "ikev2",
    "ikeMode": "main",
    "ikeEncAlg": "aes256",
    "ikeAuthAlg": "sha256",
    "ikePfs": "group14",
}
DIGEST = "nvcr.io/nvidia/k8s-device-plugin:v0.17.0@sha256:7089559ce6153018806857f5049085ba"


def _document() -> dict[str, object]:
    return {
        "resources": [
            {
                "type": "alicloud:vpn/connection:Connection",
                # The SDK sends only the key secret; the provider (and the mocks) return the block secret.
                "inputs": {
                    "ikeConfig": {**IKE, "psk": make_secret(PSK)},
                    "ipsecConfig": {"ipsecAuthAlg": "sha256"},
                },
                "outputs": {"ikeConfig": make_secret({**IKE, "psk": PSK})},
            },
            {"type": "kubernetes:apps/v1:DaemonSet", "inputs": {"image": DIGEST}},
            {
                "type": "aws:rolesanywhere/trustAnchor:TrustAnchor",
                "inputs": {"sourceType": "CERTIFICATE_BUNDLE"},
            },
            {"type": "aws:ssm/parameter:Parameter", "inputs": {"value": f"psk={PSK}"}},
        ]
    }


def test_only_the_secret_text_is_cut_out_of_other_strings() -> None:
    # "aes256", "sha256" and "group14" sit in the secret block but are shown in the clear elsewhere.
    assert secret_strings(_document()) == {PSK}


def test_digests_trust_anchors_and_algorithms_stay_readable() -> None:
    document = _document()
    shown = redact(document, frozenset(secret_strings(document)))
    connection, daemon, anchor, parameter = shown["resources"]
    assert connection["inputs"]["ikeConfig"] == {**IKE, "psk": "[secret]"}
    assert connection["inputs"]["ipsecConfig"] == {"ipsecAuthAlg": "sha256"}
    assert connection["outputs"]["ikeConfig"] == "[secret]"
    assert daemon["inputs"]["image"] == DIGEST
    assert anchor["inputs"]["sourceType"] == "CERTIFICATE_BUNDLE"
    assert parameter["inputs"]["value"] == "psk=[secret]"


def test_text_only_ever_inside_a_secret_map_is_still_cut() -> None:
    document = {"a": make_secret({"password": "hunter2-hunter2"}), "b": "login hunter2-hunter2"}
    assert secret_strings(document) == {"hunter2-hunter2"}
    assert redact(document, frozenset(secret_strings(document))) == {"a": "[secret]", "b": "login [secret]"}
