"""PodTopologySpread (kube-scheduler's plugins/podtopologyspread): common.py the parsed constraints and
counting, filtering.py and scoring.py the extension points, plugin.py the plugin and its arguments."""

from .common import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    SpreadConstraint,
    default_selector,
    parse_constraints,
)
from .filtering import ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH
from .plugin import PodTopologySpread, PodTopologySpreadArgs

__all__ = [
    "DO_NOT_SCHEDULE",
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "SCHEDULE_ANYWAY",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "PodTopologySpread",
    "PodTopologySpreadArgs",
    "SpreadConstraint",
    "default_selector",
    "parse_constraints",
]
