"""Dispatch tables read from the clouds' own modules: ``<package>.<cloud>`` exports the class that builds
the cloud's part (``SITE`` in :mod:`gpufleet.components.sites`, ``LINK`` in
:mod:`gpufleet.components.links`), so adding a cloud adds its module and no line here.

A :class:`ClassDispatch` maps each registered cloud to the import path ``<module>:<class>`` of that class.
A cloud's module is imported when its entry is first read, so a stack imports only the SDKs of the clouds
it uses; a cloud without a module (one this build does not ship) maps to ``<package>.<cloud>:<ATTRIBUTE>``,
whose import then fails naming that module.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from gpufleet.components.clouds import CLOUDS, Cloud, is_cloud


class ClassDispatch(Mapping[Cloud, str]):
    """``cloud -> "<package>.<cloud>:<class name>"``, the class being the module's ``attribute``."""

    def __init__(self, package: str, attribute: str) -> None:
        self.package = package
        self.attribute = attribute

    def module_of(self, cloud: str) -> str:
        """The module that holds ``cloud``'s class."""
        return f"{self.package}.{cloud}"

    def __getitem__(self, cloud: Cloud) -> str:
        if not is_cloud(cloud):
            raise KeyError(cloud)
        name = self.module_of(cloud)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            return f"{name}:{self.attribute}"
        return f"{name}:{getattr(module, self.attribute).__name__}"

    def __iter__(self) -> Iterator[Cloud]:
        return iter(CLOUDS)

    def __len__(self) -> int:
        return len(CLOUDS)


__all__ = ["ClassDispatch"]
