"""DynamicResources (DRA with structured parameters): one plugin in a folder, as kube-scheduler's
plugins/dynamicresources/ — the plugin, the allocator, the CEL environment, claim lookup."""

from .plugin import DynamicResources

__all__ = ["DynamicResources"]
