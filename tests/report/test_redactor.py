"""`gpufleet.redact.Redactor`: which texts of a stack are secret, and where a quoted one is replaced."""

from __future__ import annotations

import json

import pytest

from gpufleet.graph import Resource, ResourceGraph, make_secret
from gpufleet.redact import Redactor, secret_texts, secret_values


@pytest.mark.parametrize(
    ("secret", "text", "shown"),
    [
        ("t3.micro", "instance 'box' (t3.micro) is", "instance 'box' ([secret]) is"),
        ("t3.micro", "uses t3.microx", "uses t3.microx"),  # another word
        ("admin", "administrator", "administrator"),
        ("iam:PassRole", "actions iam:PassRole, s3:*", "actions [secret], s3:*"),
        ("0.0.0.0/0", "ingress from 0.0.0.0/0.", "ingress from [secret]."),
        # A short secret only where it stands alone.
        ("22", "TCP 22 open", "TCP [secret] open"),
        ("22", "ports 22-22", "ports [secret]-[secret]"),
        ("22", "port 2222, 10.0.0.22/32, tcp:22", "port 2222, 10.0.0.22/32, tcp:22"),
        ("1", "us-east-1 in version 1.", "us-east-1 in version [secret]."),
        ("*", "Resource '*' and s3:*", "Resource '[secret]' and s3:*"),
        # Quoted inside a JSON excerpt of a value.
        ('a"quoted"secret', 'value "a\\"quoted\\"secret"', 'value "[secret]"'),
    ],
)
def test_redacts_on_token_boundaries(secret: str, text: str, shown: str) -> None:
    assert Redactor([secret]).text(text) == shown


def test_a_long_secret_is_redacted_where_only_its_beginning_is_quoted() -> None:
    secret = "-----BEGIN PRIVATE KEY-----" + "x" * 300
    assert (
        Redactor([secret]).text(f"cannot be parsed: key, {secret[:200]}") == "cannot be parsed: key, [secret]"
    )


def test_no_secret_no_change() -> None:
    redacting = Redactor([])
    assert not redacting
    assert redacting.text("TCP 22") == "TCP 22"


def test_secret_values_take_numbers_and_the_leaves_of_a_json_document() -> None:
    document = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": ["iam:PassRole"], "Resource": "*"}],
        }
    )
    texts = secret_values([{"port": make_secret(22.0), "policy": make_secret(document), "plain": "visible"}])
    assert {"22", "22.0", document, "iam:PassRole"} <= texts
    # The document's grammar and a bare wildcard say nothing the finding does not.
    assert not {"2012-10-17", "Allow", "*", "visible"} & texts


def test_an_output_echoing_an_input_is_as_secret_as_the_input() -> None:
    ingress = [
        {"protocol": "tcp", "fromPort": 22.0, "toPort": 22.0, "cidrBlocks": [make_secret("0.0.0.0/0")]}
    ]
    graph = ResourceGraph(
        project="p",
        stack="dev",
        resources=[
            Resource(
                urn="urn:pulumi:dev::p::aws:ec2/securityGroup:SecurityGroup::ssh",
                type="aws:ec2/securityGroup:SecurityGroup",
                name="ssh",
                custom=True,
                inputs={"ingress": ingress},
                # The engine returns the whole list secret: the input says which part is.
                outputs={
                    "ingress": make_secret([{**ingress[0], "cidrBlocks": ["0.0.0.0/0"]}]),
                    "password": make_secret("generated-pw"),
                },
            )
        ],
    )
    assert secret_texts(graph) == {"0.0.0.0/0", "generated-pw"}
