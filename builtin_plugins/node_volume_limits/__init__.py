"""NodeVolumeLimits (kube-scheduler's plugins/nodevolumelimits): plugin.py the CSILimits plugin (csi.go),
utils.py the volume accessors and placed-pods index, translation.py csi-translation-lib's part."""

from .plugin import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, NodeVolumeLimits
from .translation import (
    IN_TREE_PLUGINS,
    InTreePlugin,
    TranslationError,
    ebs_volume_id,
    in_tree_plugin,
    translate_handle,
)
from .utils import (
    ClaimNotFound,
    PodsWithVolumes,
    csinode_limits,
    has_attachable_volumes,
    is_resize_deferred,
    pod_volumes,
)

__all__ = [
    "ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED",
    "IN_TREE_PLUGINS",
    "ClaimNotFound",
    "InTreePlugin",
    "NodeVolumeLimits",
    "PodsWithVolumes",
    "TranslationError",
    "csinode_limits",
    "ebs_volume_id",
    "has_attachable_volumes",
    "in_tree_plugin",
    "is_resize_deferred",
    "pod_volumes",
    "translate_handle",
]
