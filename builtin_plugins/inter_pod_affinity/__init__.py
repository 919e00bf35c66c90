"""InterPodAffinity (kube-scheduler's plugins/interpodaffinity): terms.py the parsed terms, index.py the
placed pods' terms, common.py per-domain counting, filtering.py and scoring.py the extension points,
plugin.py the plugin."""

from .filtering import ERR_REASON_AFFINITY, ERR_REASON_ANTI_AFFINITY, ERR_REASON_EXISTING_ANTI_AFFINITY
from .index import ExistingTermIndex
from .plugin import InterPodAffinity, InterPodAffinityArgs
from .terms import AffinityTerm, PodTerms, namespace_labels, pod_terms

__all__ = [
    "ERR_REASON_AFFINITY",
    "ERR_REASON_ANTI_AFFINITY",
    "ERR_REASON_EXISTING_ANTI_AFFINITY",
    "AffinityTerm",
    "ExistingTermIndex",
    "InterPodAffinity",
    "InterPodAffinityArgs",
    "PodTerms",
    "namespace_labels",
    "pod_terms",
]
