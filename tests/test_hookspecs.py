"""The hookspecs are the plugin contract: typed and documented like pytest's hookspec.py, and
every extension point the configuration knows has one."""

from __future__ import annotations

import inspect

from kubeberth.api import hookspecs

SPECS = {
    name: fn for name, fn in vars(hookspecs).items()
    if inspect.isfunction(fn) and hasattr(fn, f"{hookspecs.PROJECT}_spec")
}


def test_every_hookspec_is_annotated_and_documented() -> None:
    assert len(SPECS) >= 20
    for name, fn in SPECS.items():
        sig = inspect.signature(fn)
        assert sig.return_annotation is not inspect.Signature.empty, name
        for param in sig.parameters.values():
            assert param.annotation is not inspect.Parameter.empty, f"{name}({param.name})"
            assert param.default is inspect.Parameter.empty, f"{name}({param.name}): argument names are the contract"
        doc = inspect.getdoc(fn) or ""
        assert "called" in doc.lower(), f"{name}: the docstring says when it is called"


def test_every_extension_point_and_companion_has_a_hookspec() -> None:
    for point in hookspecs.EXTENSION_POINTS:
        for hook in (point.hook, *point.forms, *((point.companion,) if point.companion else ())):
            assert hook in SPECS, hook
