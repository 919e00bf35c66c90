"""Plugin argument models: strict decoding and kube-scheduler's field-path validation errors."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic_core import PydanticCustomError

__all__ = ["StrictArgs", "args_error"]


class StrictArgs(BaseModel):
    """Base for a plugin's `Args` model: unknown keys are an error, as kube-scheduler decodes strictly."""

    model_config = ConfigDict(extra="forbid")


def args_error(path: str, message: str) -> PydanticCustomError:
    """field.Invalid for an args model's validator: raise it to report `path: message`.

    >>> str(args_error("shape[0].score", "not in valid range [0, 10]"))
    'shape[0].score: not in valid range [0, 10]'
    """
    return PydanticCustomError("invalid_args", "{path}: {message}", {"path": path, "message": message})
