"""Hostile project and stack files: each is a ProjectError naming the file, the field and the line, fast."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.project import ProjectError, encode_config_value, load_project, load_stack_config
from gpufleet.safe_yaml import MAX_EXPANDED, MAX_NODES, MAX_VALUE_CHARS
from tests.engine.projects import write_project

# Nine-way aliases eight deep: 9^9 (387 million) values once expanded.
ALIAS_BOMB = "config:\n  a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9)
)


def _stack_error(tmp_path: Path, text: str | bytes) -> str:
    root = write_project(tmp_path, "import pulumi\n", stacks={})
    stack_file = root / "Pulumi.dev.yaml"
    if isinstance(text, bytes):
        stack_file.write_bytes(text)
    else:
        stack_file.write_text(text, encoding="utf-8")
    with pytest.raises(ProjectError) as info:
        load_stack_config(load_project(root), "dev")
    message = str(info.value)
    assert message.startswith(str(stack_file)), message
    assert "\n" not in message
    return message.removeprefix(str(stack_file))


def test_a_byte_that_is_not_utf8_is_named_by_line_and_column(tmp_path: Path) -> None:
    assert _stack_error(tmp_path, b"config:\n  owner: caf\xe9\n") == (
        " is not UTF-8 text: byte 0xe9 at line 2, column 13 cannot be decoded; save the file as UTF-8"
    )


def test_nesting_600_deep_is_refused_in_flow_and_block_style(tmp_path: Path) -> None:
    flow = "config:\n  deep: " + "[" * 600 + "]" * 600 + "\n"
    assert _stack_error(tmp_path / "flow", flow) == ": line 2: values are nested more than 64 levels deep"
    block = "config:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(600)) + "  " * 601 + "v\n"
    assert _stack_error(tmp_path / "block", block) == ": line 64: values are nested more than 64 levels deep"


def test_an_alias_bomb_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    assert _stack_error(tmp_path, ALIAS_BOMB) == (
        f": more than {MAX_EXPANDED:,} values once its aliases (*name) are expanded; a stack file this size "
        "is almost certainly an alias bomb"
    )


def test_an_alias_inside_its_own_value_is_refused(tmp_path: Path) -> None:
    assert _stack_error(tmp_path, "config:\n  loop: &a [1, *a]\n") == (
        ": line 2: an alias refers to the value that contains it"
    )


def test_small_aliases_and_merge_keys_still_work(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        "import pulumi\n",
        stacks={
            "dev": "base: &b {size: 2, kind: gpu}\nconfig:\n  pool:\n    <<: *b\n    size: 3\n  again: *b\n"
        },
    )
    config = load_stack_config(load_project(root), "dev")
    assert config.values == {
        "scratch:pool": {"size": 3, "kind": "gpu"},
        "scratch:again": {"size": 2, "kind": "gpu"},
    }


def test_a_400_digit_integer_names_the_field_and_quotes_at_most_40_digits(tmp_path: Path) -> None:
    message = _stack_error(
        tmp_path, "config:\n  fleet:\n    pools:\n      a:\n        max: " + "9" * 400 + "\n"
    )
    assert message == (
        ": config.fleet.pools.a.max (line 5): the integer '" + "9" * 40 + "'… (400 characters) is too large: "
        "a config number is carried as a double, exact only up to 2^53 (9,007,199,254,740,992); quote it to "
        "pass it as a string"
    )


def test_integers_up_to_2_to_the_53_are_kept(tmp_path: Path) -> None:
    root = write_project(
        tmp_path, "import pulumi\n", stacks={"dev": f"config:\n  n: {2**53}\n  m: -{2**53}\n"}
    )
    assert load_stack_config(load_project(root), "dev").encoded() == {
        "scratch:n": str(2**53),
        "scratch:m": str(-(2**53)),
    }
    assert "too large" in _stack_error(tmp_path / "over", f"config:\n  n: {2**53 + 1}\n")


def test_infinity_and_nan_are_refused_each_by_name(tmp_path: Path) -> None:
    message = _stack_error(tmp_path, "config:\n  a: .inf\n  b: [1, -.Inf]\n  c: {d: .NaN}\n  e: 1.0e+999\n")
    problems = message.removeprefix(": ").split("; give a number, or quote it to pass it as a string")
    assert [p.lstrip("; ") for p in problems if p] == [
        "config.a (line 2): '.inf' is not a finite number (JSON has no infinity or NaN)",
        "config.b[1] (line 3): '-.Inf' is not a finite number (JSON has no infinity or NaN)",
        "config.c.d (line 4): '.NaN' is not a finite number (JSON has no infinity or NaN)",
        "config.e (line 5): '1.0e+999' is not a finite number (JSON has no infinity or NaN)",
    ]


def test_a_value_over_1_mib_is_refused_without_quoting_it(tmp_path: Path) -> None:
    message = _stack_error(tmp_path, 'config:\n  blob: "' + "x" * (MAX_VALUE_CHARS + 1) + '"\n')
    assert message == ": config.blob (line 2): a value of 1,048,577 characters; at most 1,048,576 are allowed"


def test_a_key_given_twice_names_both_lines(tmp_path: Path) -> None:
    pools = "      train: {size: 1}\n      serve: {size: 2}\n      train: {size: 3}\n"
    text = "config:\n  gpufleet:fleet:\n    pools:\n" + pools
    assert _stack_error(tmp_path, text) == (
        ": config.gpufleet:fleet.pools.train (line 6): the key 'train' is given twice in one mapping, "
        "at lines 4 and 6; keep one"
    )


def test_scalars_are_typed_as_the_pulumi_cli_types_them(tmp_path: Path) -> None:
    # PyYAML's YAML 1.1 reads 12:30 in base 60 (750) and dates as datetime objects; the Pulumi CLI
    # (Go yaml.v2) hands the program the text as written.
    text = (
        "config:\n  window: 12:30\n  since: 2024-02-30\n  at: 2001-12-14t21:59:43.10-05:00\n"
        "  big: 1e3\n  mode: 0755\n  on: yes\n  list: [12:30, 2024-01-01]\n"
    )
    root = write_project(tmp_path, "import pulumi\n", stacks={"dev": text})
    assert load_stack_config(load_project(root), "dev").encoded() == {
        "scratch:window": "12:30",
        "scratch:since": "2024-02-30",
        "scratch:at": "2001-12-14t21:59:43.10-05:00",
        "scratch:big": "1000",
        "scratch:mode": "493",
        "scratch:true": "true",
        "scratch:list": '["12:30","2024-01-01"]',
    }


def test_an_impossible_explicit_date_and_unknown_tags_are_clear_errors(tmp_path: Path) -> None:
    assert _stack_error(tmp_path / "date", "config:\n  since: !!timestamp 2024-02-30\n") == (
        ": config.since (line 2): '2024-02-30' is tagged as a date but is not one "
        "(day is out of range for month)"
    )
    assert _stack_error(tmp_path / "float", "config:\n  ratio: !!float ''\n") == (
        ": config.ratio (line 2): '' is tagged as a number but is not one (string index out of range)"
    )
    assert _stack_error(tmp_path / "tag", "config:\n  run: !!python/object/apply:os.system [id]\n") == (
        " is not valid YAML at line 2, column 8: could not determine a constructor for the tag "
        "'tag:yaml.org,2002:python/object/apply:os.system'"
    )


def test_too_many_values_stop_the_parse_early(tmp_path: Path) -> None:
    text = "config:\n  many: [" + ", ".join(["1"] * (MAX_NODES + 10)) + "]\n"
    assert _stack_error(tmp_path, text) == f": line 2: more than {MAX_NODES:,} values in one file"


def test_a_long_bad_value_is_quoted_to_200_characters(tmp_path: Path) -> None:
    message = _stack_error(tmp_path, "config:\n  a: [1, 2\n  b: " + "x" * 5000 + "\n")
    assert len(message) < 400


def test_pulumi_yaml_fields_of_the_wrong_shape_are_clear_errors(tmp_path: Path) -> None:
    relative = "must be a path relative to the project, got"
    cases = {
        "name: [a]\nruntime: python\n": "`name` must be a project name",
        "name: a/b\nruntime: python\n": "`name` must be a project name",
        "name: a\nruntime: {name: python, options: [1]}\n": "`runtime.options` must be a mapping, got [1]",
        'name: a\nruntime: python\nmain: "a\\0b"\n': f"`main` {relative} 'a\\x00b'",
        f"name: a\nruntime: python\nmain: {'m' * 5000}\n": f"`main` {relative} 'mmm",
        "name: a\nruntime: python\nstackConfigDir: /etc\n": "`stackConfigDir` must be a relative path",
        f"name: a\nruntime: {'r' * 5000}\n": "… (5,000 characters); the offline engine runs",
    }
    for index, (text, expected) in enumerate(cases.items()):
        root = write_project(tmp_path / str(index), "import pulumi\n", pulumi_yaml=text)
        with pytest.raises(ProjectError) as info:
            load_project(root)
        assert expected in str(info.value)
        assert len(str(info.value)) < 500


@pytest.mark.parametrize("stack", ["../dev", "org/project/dev", "", "a" * 101, "dev\n"])
def test_stack_names_the_cli_would_refuse_are_refused(tmp_path: Path, stack: str) -> None:
    project = load_project(write_project(tmp_path, "import pulumi\n"))
    with pytest.raises(ProjectError, match="is not valid: use letters, digits"):
        load_stack_config(project, stack)


def test_encoded_config_never_holds_nan_or_infinity() -> None:
    assert encode_config_value({"a": [1.5, 2]}) == '{"a":[1.5,2]}'
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        encode_config_value({"a": float("nan")})
    assert json.loads(encode_config_value({"d": "2024-01-01"})) == {"d": "2024-01-01"}


def test_esc_environments_of_the_wrong_shape_are_clear_errors(tmp_path: Path) -> None:
    assert _stack_error(tmp_path / "a", "environment: {imports: 5}\nconfig: {}\n") == (
        ": `environment` must be a list of Pulumi ESC environments (or imports: [...]), got 5"
    )
    assert _stack_error(tmp_path / "b", "environment: yes\n") == (
        ": `environment` must be a list of Pulumi ESC environments (or imports: [...]), got True"
    )
    root = write_project(tmp_path / "c", "import pulumi\n", stacks={"dev": "environment: [org/base]\n"})
    assert load_stack_config(load_project(root), "dev").environments == ["org/base"]


def test_a_stack_file_that_is_not_a_file_is_an_error_not_a_missing_stack(tmp_path: Path) -> None:
    root = write_project(tmp_path, "import pulumi\n", stacks={})
    (root / "Pulumi.dir.yaml").mkdir()
    (root / "Pulumi.loop.yaml").symlink_to(root / "Pulumi.loop.yaml")
    project = load_project(root)
    for stack in ("dir", "loop"):
        with pytest.raises(ProjectError) as info:
            load_stack_config(project, stack)
        assert (
            str(info.value)
            == f"{root / f'Pulumi.{stack}.yaml'} is not a regular file; a stack file is a YAML file"
        )
