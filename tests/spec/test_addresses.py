"""The address plan: overlaps between owned ranges, carving site ranges from a supernet."""

from __future__ import annotations

import ipaddress
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufleet.components.spec.addresses import AddressError, Overlap, OwnedRange, carve, overlaps, site_owner

Net = ipaddress.IPv4Network


def net(text: str) -> Net:
    return Net(text)


def owned(*pairs: tuple[str, str]) -> list[OwnedRange]:
    return [OwnedRange(net(cidr), owner) for cidr, owner in pairs]


def pairs(found: list[Overlap]) -> list[tuple[str, str, str, str]]:
    return [(str(o.range_a), o.owner_a, str(o.range_b), o.owner_b) for o in found]


@pytest.mark.parametrize(
    ("ranges", "expected"),
    [
        ([], []),
        ([("10.0.0.0/16", "onprem nodes")], []),
        # Adjacent ranges share no address.
        ([("10.0.0.0/16", "onprem nodes"), ("10.1.0.0/16", "aws:us-east-1")], []),
        ([("10.0.0.0/8", "onprem pods"), ("10.40.0.0/16", "aws:us-east-1")],
         [("10.0.0.0/8", "onprem pods", "10.40.0.0/16", "aws:us-east-1")]),
        # The later entry contains the earlier one: still reported earlier-first.
        ([("10.40.0.0/16", "aws:us-east-1"), ("10.0.0.0/8", "onprem pods")],
         [("10.40.0.0/16", "aws:us-east-1", "10.0.0.0/8", "onprem pods")]),
        # The same range under two owners.
        ([("172.16.0.0/12", "alicloud:cn-hangzhou"), ("172.16.0.0/12", "tencentcloud:ap-guangzhou")],
         [("172.16.0.0/12", "alicloud:cn-hangzhou", "172.16.0.0/12", "tencentcloud:ap-guangzhou")]),
        # One wide range against several: each pair once, in entry order.
        ([("10.0.0.0/8", "onprem services"), ("192.168.0.0/16", "onprem nodes"),
          ("10.1.0.0/16", "aws:us-east-1"), ("10.2.0.0/16", "aws:us-west-2")],
         [("10.0.0.0/8", "onprem services", "10.1.0.0/16", "aws:us-east-1"),
          ("10.0.0.0/8", "onprem services", "10.2.0.0/16", "aws:us-west-2")]),
        # A host route and the last address of a range.
        ([("10.0.0.255/32", "onprem nodes"), ("10.0.0.0/24", "aws:eu-west-1")],
         [("10.0.0.255/32", "onprem nodes", "10.0.0.0/24", "aws:eu-west-1")]),
    ],
)  # fmt: skip
def test_overlap_table(ranges: list[tuple[str, str]], expected: list[tuple[str, str, str, str]]) -> None:
    assert pairs(overlaps(owned(*ranges))) == expected


def test_overlap_message_names_both_ranges_and_owners() -> None:
    [found] = overlaps(owned(("10.0.0.0/8", "onprem pods"), ("10.40.0.0/16", "aws:us-east-1")))
    assert found.message() == (
        "10.0.0.0/8 (onprem pods) overlaps 10.40.0.0/16 (aws:us-east-1); every on-prem and site range "
        "must be disjoint, since the links route between them"
    )
    assert (
        found.swapped().message().startswith("10.40.0.0/16 (aws:us-east-1) overlaps 10.0.0.0/8 (onprem pods)")
    )


@pytest.mark.parametrize(
    ("key", "owner"), [("us-west-2", "aws:us-west-2"), ("alicloud:cn-hangzhou", "alicloud:cn-hangzhou")]
)
def test_site_owner(key: str, owner: str) -> None:
    assert site_owner(key) == owner


@pytest.mark.parametrize(
    ("supernet", "names", "prefixlen", "taken", "expected"),
    [
        ("10.0.0.0/8", ["aws:us-east-1", "alicloud:cn-hangzhou"], 16, [],
         {"aws:us-east-1": "10.0.0.0/16", "alicloud:cn-hangzhou": "10.1.0.0/16"}),
        # On-prem ranges are skipped, whatever their size.
        ("10.0.0.0/8", ["a", "b", "c"], 16, ["10.0.0.0/15", "10.3.128.0/20"],
         {"a": "10.2.0.0/16", "b": "10.4.0.0/16", "c": "10.5.0.0/16"}),
        ("10.0.0.0/16", ["a", "b"], 20, ["10.0.0.0/24"], {"a": "10.0.16.0/20", "b": "10.0.32.0/20"}),
        # A taken range outside the supernet changes nothing.
        ("10.0.0.0/8", ["a"], 16, ["192.168.0.0/16"], {"a": "10.0.0.0/16"}),
    ],
)  # fmt: skip
def test_carve_table(
    supernet: str, names: list[str], prefixlen: int, taken: list[str], expected: dict[str, str]
) -> None:
    result = carve(net(supernet), names, prefixlen=prefixlen, taken=[net(t) for t in taken])
    assert {k: str(v) for k, v in result.items()} == expected
    assert list(result) == names


def test_carve_keeps_given_ranges_and_skips_them() -> None:
    result = carve(net("10.0.0.0/8"), ["a", "b", "c"], given={"b": net("10.0.0.0/16")})
    assert {k: str(v) for k, v in result.items()} == {
        "a": "10.1.0.0/16",
        "b": "10.0.0.0/16",
        "c": "10.2.0.0/16",
    }


def test_carve_finds_no_room_under_a_wider_on_prem_range() -> None:
    with pytest.raises(AddressError, match="has room for only 0 /16 range"):
        carve(net("10.0.0.0/12"), ["a"], taken=[net("10.0.0.0/8")])


def test_carve_says_when_the_supernet_is_full() -> None:
    with pytest.raises(AddressError) as raised:
        carve(net("10.0.0.0/15"), ["a", "b", "c"], taken=[net("10.1.0.0/16")])
    assert str(raised.value) == (
        "10.0.0.0/15 has room for only 1 /16 range(s) outside the on-prem and given ranges; 3 site(s) need "
        "one: give a larger supernet or smaller ranges"
    )


@pytest.mark.parametrize("prefixlen", [8, 29])
def test_carve_rejects_sizes_outside_the_supernet(prefixlen: int) -> None:
    with pytest.raises(AddressError, match=r"cannot carve /\d+ ranges from 10.0.0.0/12: the size must be"):
        carve(net("10.0.0.0/12"), ["a"], prefixlen=prefixlen)


# ------------------------------------------------------------------------------------------ properties

networks = st.builds(
    lambda address, prefix: Net((address, prefix), strict=False),
    st.integers(min_value=0, max_value=2**32 - 1),
    st.integers(min_value=4, max_value=32),
)
owned_ranges = st.lists(
    st.builds(OwnedRange, networks, st.sampled_from(["onprem nodes", "onprem pods", "aws:us-east-1", "x"])),
    max_size=25,
)


def brute_force(entries: list[OwnedRange]) -> set[tuple[int, int]]:
    return {
        (i, j)
        for i, j in itertools.combinations(range(len(entries)), 2)
        if entries[i].network.overlaps(entries[j].network)
    }


@given(owned_ranges)
@settings(max_examples=200, deadline=None)
def test_overlaps_are_exactly_the_pairs_that_share_an_address(entries: list[OwnedRange]) -> None:
    found = overlaps(entries)
    expected = brute_force(entries)
    assert len(found) == len(expected)
    assert {(str(o.range_a), o.owner_a, str(o.range_b), o.owner_b) for o in found} == {
        (str(entries[i].network), entries[i].owner, str(entries[j].network), entries[j].owner)
        for i, j in expected
    }


@given(owned_ranges)
@settings(max_examples=200, deadline=None)
def test_overlap_is_symmetric(entries: list[OwnedRange]) -> None:
    def unordered(found: list[Overlap]) -> list[frozenset[tuple[str, str]]]:
        return sorted(
            (frozenset({(str(o.range_a), o.owner_a), (str(o.range_b), o.owner_b)}) for o in found), key=sorted
        )

    assert unordered(overlaps(entries)) == unordered(overlaps(list(reversed(entries))))


@given(networks, st.sampled_from(["onprem pods", "aws:us-east-1"]), st.sampled_from(["onprem nodes", "x"]))
def test_a_range_given_by_two_owners_is_always_reported(network: Net, owner_a: str, owner_b: str) -> None:
    found = overlaps([OwnedRange(network, owner_a), OwnedRange(network, owner_b)])
    assert pairs(found) == [(str(network), owner_a, str(network), owner_b)]


@given(
    st.integers(min_value=8, max_value=20),
    st.integers(min_value=0, max_value=8),
    st.lists(networks, max_size=6),
    st.integers(min_value=1, max_value=12),
)
@settings(max_examples=200, deadline=None)
def test_carved_ranges_are_disjoint_inside_the_supernet_and_clear_of_taken(
    super_prefix: int, extra: int, taken: list[Net], count: int
) -> None:
    supernet = Net(("10.0.0.0", super_prefix), strict=False)
    prefixlen = min(super_prefix + extra, 28)
    names = [f"site-{i}" for i in range(count)]
    try:
        result = carve(supernet, names, prefixlen=prefixlen, taken=taken)
    except AddressError:
        # Full only when no free block is left: count them.
        free = [c for c in supernet.subnets(new_prefix=prefixlen) if not any(c.overlaps(t) for t in taken)]
        assert len(free) < count
        return
    carved = list(result.values())
    assert list(result) == names
    for first, second in itertools.combinations(carved, 2):
        assert not first.overlaps(second)
    for block in carved:
        assert block.prefixlen == prefixlen
        assert block.subnet_of(supernet)
        assert not any(block.overlaps(t) for t in taken)
    assert carved == sorted(carved)
