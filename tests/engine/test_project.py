"""Pulumi.yaml and stack files, read and encoded as the Pulumi CLI hands them to a Python program."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.project import (
    SECRET_PLACEHOLDER,
    ProjectError,
    encode_config_value,
    load_project,
    load_stack_config,
)
from tests.engine.projects import PHOTO_ARCHIVE, SINGLE_FILE, write_project


def test_project_with_main_directory_and_runtime_options() -> None:
    project = load_project(PHOTO_ARCHIVE)
    assert project.name == "photo-archive"
    assert project.runtime == "python"
    assert project.runtime_options == {"virtualenv": "venv"}
    assert project.main == PHOTO_ARCHIVE / "app"
    assert project.program_dir == PHOTO_ARCHIVE / "app"
    assert project.program_file == PHOTO_ARCHIVE / "app" / "__main__.py"
    assert project.stacks() == ["dev", "prod"]


def test_project_with_main_file() -> None:
    project = load_project(SINGLE_FILE)
    assert project.runtime == "python"
    assert project.main == SINGLE_FILE / "program.py"
    assert project.program_dir == SINGLE_FILE
    assert project.program_file == SINGLE_FILE / "program.py"
    assert project.stacks() == ["a", "b"]


def test_stack_config_dir_is_honoured(tmp_path: Path) -> None:
    root = write_project(tmp_path, "import pulumi\n", stacks={})
    (root / "Pulumi.yaml").write_text("name: p\nruntime: python\nstackConfigDir: stacks\n")
    (root / "stacks").mkdir()
    (root / "stacks" / "Pulumi.qa.yaml").write_text("config:\n  size: 3\n")
    project = load_project(root)
    assert project.stack_config_dir == root / "stacks"
    assert project.stacks() == ["qa"]
    assert load_stack_config(project, "qa").encoded() == {"p:size": "3"}


def test_stack_config_namespaces_encoding_and_secrets() -> None:
    project = load_project(PHOTO_ARCHIVE)
    config = load_stack_config(project, "dev")
    encoded = config.encoded()
    assert encoded["aws:region"] == "eu-west-1"
    # a non-namespaced key belongs to the project
    assert encoded["photo-archive:owner"] == "data-team"
    assert encoded["photo-archive:retention_days"] == "30"
    # project-level default from `{value: ...}` survives when the stack does not set the key
    assert encoded["photo-archive:tier"] == "standard"
    assert json.loads(encoded["photo-archive:network"]) == {
        "cidr": "10.20.0.0/16",
        "allowed_ports": [443, 8443],
        "admin_cidrs": ["203.0.113.0/24"],
    }
    assert encoded["photo-archive:db_password"] == SECRET_PLACEHOLDER
    assert config.secret_keys == {"photo-archive:db_password"}
    assert config.undecrypted == ["photo-archive:db_password"]
    # structured values stay structured for reports
    assert config.values["photo-archive:network"]["allowed_ports"] == [443, 8443]


def test_project_default_from_default_form_and_overrides() -> None:
    project = load_project(PHOTO_ARCHIVE)
    prod = load_stack_config(project, "prod", overrides={"tier": "premium", "aws:region": "ap-east-1"})
    encoded = prod.encoded()
    assert encoded["photo-archive:retention_days"] == "14"  # `{type, default}` declaration
    assert encoded["photo-archive:tier"] == "premium"
    assert encoded["aws:region"] == "ap-east-1"


def test_nested_secure_value_marks_key_secret(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        "import pulumi\n",
        stacks={"dev": "config:\n  db:\n    user: app\n    password:\n      secure: v1:abc\n"},
    )
    config = load_stack_config(load_project(root), "dev")
    assert json.loads(config.encoded()["scratch:db"]) == {"user": "app", "password": SECRET_PLACEHOLDER}
    assert config.secret_keys == {"scratch:db"}


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        ("x", "x"),
        (True, "true"),
        (False, "false"),
        (3, "3"),
        (2.0, "2"),
        (1.5, "1.5"),
        (None, ""),
        ({"a": [1, 2]}, '{"a":[1,2]}'),
        ([1, "b"], '[1,"b"]'),
    ],
)
def test_encode_config_value(value: object, encoded: str) -> None:
    assert encode_config_value(value) == encoded


def test_a_stack_without_a_stack_file_has_the_project_defaults_only() -> None:
    # As with the Pulumi CLI: most example projects ship no stack file at all.
    project = load_project(PHOTO_ARCHIVE)
    config = load_stack_config(project, "staging")
    assert config.stack_file is None
    assert config.values == project.config_defaults
    assert config.encoded() == {"photo-archive:tier": "standard", "photo-archive:retention_days": "14"}
    assert load_stack_config(project, "dev").stack_file == PHOTO_ARCHIVE / "Pulumi.dev.yaml"


def test_missing_pulumi_yaml(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match=r"no Pulumi.yaml in .*: pass the directory of a Pulumi project"):
        load_project(tmp_path)


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    root = write_project(tmp_path, "import pulumi\n", stacks={"dev": "config:\n  a: [1, 2\n  b: 3\n"})
    with pytest.raises(ProjectError) as info:
        load_stack_config(load_project(root), "dev")
    message = str(info.value)
    assert str(root / "Pulumi.dev.yaml") in message
    assert "is not valid YAML at line" in message


def test_non_python_runtime_is_refused(tmp_path: Path) -> None:
    root = write_project(tmp_path, "", pulumi_yaml="name: n\nruntime: nodejs\n")
    with pytest.raises(ProjectError, match=r"runtime is 'nodejs'; the offline engine runs Python programs"):
        load_project(root)


def test_main_that_does_not_exist(tmp_path: Path) -> None:
    root = write_project(tmp_path, "", pulumi_yaml="name: n\nruntime: python\nmain: src/\n")
    with pytest.raises(ProjectError, match=r"`main` points to .*src, which does not exist"):
        load_project(root)
