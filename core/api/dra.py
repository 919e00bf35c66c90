"""Device selectors in CEL: the Kubernetes DRA environment over the `common-expression-language`
bindings (a Rust CEL interpreter), as k8s.io/dynamic-resource-allocation/cel builds it.

Public (`kubeberth.api.dra`) because more than one plugin matches devices against DeviceClass and
request selectors: DynamicResources allocates them, and NodeResourcesFit /
NodeResourcesBalancedAllocation count the devices a DeviceClass serves for DRA-backed extended
resources.

The environment has one variable, `device`, with `driver`, `attributes` (domain -> name -> value),
`capacity` (domain -> name -> quantity) and `allowMultipleAllocations`, plus the Kubernetes CEL
libraries selectors use: `quantity(...)` with `compareTo`, `isGreaterThan`, `isLessThan`, `add`,
`sub`, `asInteger`, `asApproximateFloat`, `sign`, `isInteger`; `semver(...)` with `major`, `minor`,
`patch`, `compareTo`, `isGreaterThan`, `isLessThan`; `isQuantity`, `isSemver`, and the string
helpers `lowerAscii`, `upperAscii`, `trim`.

Quantities and versions travel through CEL as one-key maps tagged `@quantity` / `@semver` holding
a canonical form, so `==` compares values as Kubernetes' Quantity.Equal does. A domain that a
device does not have reads as an empty map (upstream's mapper default), so
`has(device.attributes["x"].y)` is false rather than an error.

Each expression is compiled once (`SelectorCache`); each device's CEL context is built once per
ResourceSlice object and reused for every selector and every pod.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import sys
import threading
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..cache.quantity import QuantityError, parse_quantity

# What the `cel` package's __init__ imports for its `cel` command-line tool (a REPL), not for the bindings.
_CEL_CLI_STACK = frozenset({"typer", "rich", "prompt_toolkit", "pygments", "click"})


def _load_cel() -> ModuleType:
    """The CEL bindings: the package's compiled extension module `cel.cel`, which is the whole of
    the API used here (compile, Context), loaded without the package's __init__. That __init__
    imports the package's `cel` command-line tool (a REPL on typer, rich and prompt_toolkit): a
    third of a second of CPU at every start, and absent from an image that installs
    common-expression-language with --no-deps. The module is registered as `cel.cel`, so a later
    `import cel` (a plugin's) finds it instead of initializing the extension a second time.
    `import cel` is the fallback when the extension is not a file next to the package."""
    if "cel.cel" in sys.modules:
        return sys.modules["cel.cel"]
    package = importlib.util.find_spec("cel")  # finding a top-level package does not run its __init__
    for folder in (package.submodule_search_locations or []) if package else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            spec = importlib.util.spec_from_file_location("cel.cel", f"{folder}/cel{suffix}")
            if spec is not None and spec.loader is not None and Path(spec.origin or "").is_file():
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                sys.modules["cel.cel"] = module
                return module
    try:
        import cel

        return cel
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in _CEL_CLI_STACK:
            raise
    raise ModuleNotFoundError("common-expression-language: no compiled cel extension found", name="cel")


if TYPE_CHECKING:
    import cel
else:
    cel = _load_cel()

__all__ = [
    "CelError",
    "CompiledSelector",
    "DeviceContext",
    "SelectorCache",
    "device_context",
    "quantity_value",
    "semver_value",
]

_Q = "@quantity"
_V = "@semver"
_DOMAIN_REF = re.compile(r"""\b(?:attributes|capacity)\s*\[\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\]""")
_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
    r"(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


class CelError(Exception):
    """A selector that does not compile, or fails at runtime, with upstream's wording."""


# ---- values ---------------------------------------------------------------------------------
def _canonical(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def quantity_value(text: str) -> dict[str, str]:
    """A quantity as CEL sees it (raises CelError on a malformed string, as quantity() does)."""
    try:
        return {_Q: _canonical(parse_quantity(text))}
    except (QuantityError, TypeError):
        raise CelError(f"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {text!r}") from None


def _parse_semver(text: str) -> tuple[int, int, int, tuple[Any, ...]]:
    match = _SEMVER.match(text)
    if not match:
        raise CelError(f"invalid semver: {text}")
    pre = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in (match.group(4) or "").split(".") if p)
    return int(match.group(1)), int(match.group(2)), int(match.group(3)), pre


def semver_value(text: str) -> dict[str, str]:
    _parse_semver(text)
    return {_V: text}


def _q(value: Any) -> Decimal:
    if isinstance(value, dict) and _Q in value:
        return Decimal(value[_Q])
    raise CelError(f"no such overload: expected a quantity, got {_type_name(value)}")


def _v(value: Any) -> tuple[int, int, int, tuple[Any, ...]]:
    if isinstance(value, dict) and _V in value:
        return _parse_semver(value[_V])
    raise CelError(f"no such overload: expected a semver, got {_type_name(value)}")


def _semver_key(value: Any) -> tuple[Any, ...]:
    major, minor, patch, pre = _v(value)
    # A version without pre-release sorts after every pre-release of the same version.
    return (major, minor, patch, 1 if not pre else 0, pre)


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        if _Q in value:
            return "kubernetes.Quantity"
        if _V in value:
            return "kubernetes.Semver"
        return "map"
    return {bool: "bool", int: "int", float: "double", str: "string", list: "list"}.get(type(value), type(value).__name__)


def _cmp(a: Any, b: Any) -> int:
    if isinstance(a, dict) and _V in a:
        ka, kb = _semver_key(a), _semver_key(b)
    else:
        ka, kb = _q(a), _q(b)  # type: ignore[assignment]
    return (ka > kb) - (ka < kb)


def _as_integer(value: Any) -> int:
    q = _q(value)
    if q != q.to_integral_value():
        raise CelError("cannot convert value to integer")
    return int(q)


def _is_quantity(text: Any) -> bool:
    try:
        quantity_value(text)
    except CelError:
        return False
    return True


def _is_semver(text: Any) -> bool:
    return isinstance(text, str) and _SEMVER.match(text) is not None


FUNCTIONS: dict[str, Any] = {
    "quantity": quantity_value,
    "isQuantity": _is_quantity,
    "semver": semver_value,
    "isSemver": _is_semver,
    "compareTo": _cmp,
    "isGreaterThan": lambda a, b: _cmp(a, b) > 0,
    "isLessThan": lambda a, b: _cmp(a, b) < 0,
    "add": lambda a, b: {_Q: _canonical(_q(a) + (Decimal(b) if isinstance(b, int) else _q(b)))},
    "sub": lambda a, b: {_Q: _canonical(_q(a) - (Decimal(b) if isinstance(b, int) else _q(b)))},
    "asInteger": _as_integer,
    "asApproximateFloat": lambda a: float(_q(a)),
    "sign": lambda a: (_q(a) > 0) - (_q(a) < 0),
    "isInteger": lambda a: _q(a) == _q(a).to_integral_value(),
    "major": lambda v: _v(v)[0],
    "minor": lambda v: _v(v)[1],
    "patch": lambda v: _v(v)[2],
    "lowerAscii": lambda s: "".join(c.lower() if c.isascii() else c for c in s),
    "upperAscii": lambda s: "".join(c.upper() if c.isascii() else c for c in s),
    "trim": lambda s: s.strip(),
}


# ---- devices --------------------------------------------------------------------------------
def _attribute_value(attr: dict[str, Any]) -> Any:
    """getAttributeValue: list values (DRAListTypeAttributes) first, then the scalar ones."""
    if attr.get("ints") is not None:
        return [int(v) for v in attr["ints"]]
    if attr.get("bools") is not None:
        return [bool(v) for v in attr["bools"]]
    if attr.get("strings") is not None:
        return [str(v) for v in attr["strings"]]
    if attr.get("versions") is not None:
        return [semver_value(str(v)) for v in attr["versions"]]
    if "int" in attr:
        return int(attr["int"])
    if "bool" in attr:
        return bool(attr["bool"])
    if "string" in attr:
        return str(attr["string"])
    if "version" in attr:
        return semver_value(str(attr["version"]))
    raise CelError("unsupported attribute value")


def _split(name: str, driver: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


@dataclass(slots=True)
class DeviceContext:
    """One device's CEL variables, built once: `context` is reused for every selector."""

    context: cel.Context
    domains: frozenset[str]  # the domains `context` has maps for (present or defaulted empty)


def device_context(driver: str, device: dict[str, Any], extra_domains: frozenset[str]) -> DeviceContext:
    """The `device` variable for one ResourceSlice device (kube-scheduler's cel.Device)."""
    attributes: dict[str, dict[str, Any]] = {d: {} for d in extra_domains}
    for name, attr in (device.get("attributes") or {}).items():
        domain, ident = _split(name, driver)
        try:
            attributes.setdefault(domain, {})[ident] = _attribute_value(attr or {})
        except CelError as exc:
            raise CelError(f"attribute {name}: {exc}") from None
    capacity: dict[str, dict[str, Any]] = {d: {} for d in extra_domains}
    for name, cap in (device.get("capacity") or {}).items():
        domain, ident = _split(name, driver)
        capacity.setdefault(domain, {})[ident] = quantity_value(str((cap or {}).get("value", "0")))
    variables = {
        "device": {
            "driver": driver,
            "allowMultipleAllocations": bool(device.get("allowMultipleAllocations", False)),
            "attributes": attributes,
            "capacity": capacity,
        }
    }
    return DeviceContext(cel.Context(variables, FUNCTIONS), extra_domains)


# ---- compiled selectors -----------------------------------------------------------------------
@dataclass(slots=True)
class CompiledSelector:
    """One compiled expression; `error` is set instead when it does not compile."""

    expression: str
    program: Any = None
    error: str = ""
    domains: frozenset[str] = frozenset()

    def matches(self, ctx: DeviceContext) -> bool:
        """Evaluate against one device; CelError on a runtime error or a non-bool result."""
        try:
            result = self.program.execute(ctx.context)
        except KeyError as exc:
            raise CelError(f"no such key: {exc.args[0] if exc.args else ''}") from None
        except (RuntimeError, TypeError, ValueError) as exc:
            raise CelError(_runtime_message(exc)) from None
        if not isinstance(result, bool):
            raise CelError(f"CEL result of type {_type_name(result)} could not be converted to bool")
        return result


def _runtime_message(exc: BaseException) -> str:
    text = str(exc)
    inner = re.search(r"Python function call failed: \w+: (.*?)\. Check function", text)
    if inner:
        return inner.group(1)
    if text.startswith("No such overload"):
        return "no such overload"
    return text.split(". Check", 1)[0]


class SelectorCache:
    """Compile each distinct expression once (kube-scheduler's cel.Cache); thread-safe."""

    def __init__(self, max_size: int = 10_000) -> None:
        self._compiled: dict[str, CompiledSelector] = {}
        self._lock = threading.Lock()
        self.max_size = max_size
        self.domains: frozenset[str] = frozenset()  # every domain any compiled expression names

    def get(self, expression: str) -> CompiledSelector:
        found = self._compiled.get(expression)
        if found is not None:
            return found
        compiled = _compile(expression)
        with self._lock:
            if len(self._compiled) >= self.max_size:
                self._compiled.clear()
            self._compiled[expression] = compiled
            if not compiled.domains <= self.domains:
                self.domains = self.domains | compiled.domains
        return compiled


def _compile(expression: str) -> CompiledSelector:
    try:
        program = cel.compile(expression)
    except (ValueError, RuntimeError) as exc:
        text = str(exc)
        at = text.find("ERROR:")
        return CompiledSelector(expression, error="compilation failed: " + (text[at:] if at >= 0 else text))
    domains = frozenset(a or b for a, b in _DOMAIN_REF.findall(expression))
    return CompiledSelector(expression, program, "", domains)
