"""The component tests' recording mocks, also keeping each resource's provider reference, so a test can
tell which region's provider a bucket or key was built through."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pulumi
import pytest

from tests.components.conftest import REGION, RecordingMocks


class ProviderRecorder(RecordingMocks):
    """Mixed in before a recording mock: keeps each resource's provider and each provider's region."""

    providers: dict[str, str]  # resource name -> provider reference ("<urn>::<id>")
    provider_regions: dict[str, str]  # provider resource name -> its region input

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if not hasattr(self, "providers"):
            self.providers, self.provider_regions = {}, {}
        if args.provider:
            self.providers[args.name] = args.provider
        if args.typ.startswith("pulumi:providers:"):
            self.provider_regions[args.name] = str(args.inputs.get("region"))
        return super().new_resource(args)

    def region_of(self, name: str) -> str:
        """The region of the provider ``name`` was built through (its URN's last segment is the
        provider's name)."""
        reference = self.providers[name]
        provider = reference.split("::")[-2] if reference.count("::") >= 2 else reference
        return self.provider_regions[provider]


class ProviderRecordingMocks(ProviderRecorder, RecordingMocks):
    pass


Runner = Callable[[Callable[[], Any]], ProviderRecordingMocks]


@pytest.fixture
def run_pulumi() -> Iterator[Runner]:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    mocks = ProviderRecordingMocks()
    pulumi.runtime.set_mocks(mocks, project="gpufleet", stack="test", preview=False)
    pulumi.runtime.set_config("aws:region", REGION)

    def run(build: Callable[[], Any]) -> ProviderRecordingMocks:
        build()
        loop.run_until_complete(pulumi.runtime.stack.wait_for_rpcs())
        return mocks

    yield run
    loop.run_until_complete(pulumi.runtime.stack.wait_for_rpcs())
    loop.close()
    asyncio.set_event_loop(None)
