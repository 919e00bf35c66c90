"""DefaultPreemption: when no node fits, find a node where evicting lower-priority pods makes room.

kube-scheduler's `plugins/defaultpreemption` over the cache, in rooms by role:

    plugin.py      the plugin: eligibility, PostFilter, evicting the chosen candidate's victims
    evaluator.py   the dry run: which nodes could fit the pod, and with the fewest victims
    candidates.py  a candidate, importance order, and how one candidate is picked
    pdb.py         PodDisruptionBudgets as victim selection reads them
    victims.py     victims as units under GenericWorkload (a PodGroup disrupted as a whole is one)

It uses only the public plugin API: the Handle runs the profile's filters, plugins' declared
capabilities (FilterScope, PreFilterState) decide what may be batched or reused, and
`cluster.hypothetical(...)` makes every what-if and restores the cache exactly.
"""

from .candidates import (
    NOT_HELPFUL,
    Candidate,
    IsEligibleVictim,
    MoreImportantVictim,
    fit_error_message,
    importance_key,
    pick_one_node_for_preemption,
    start_time,
    victim_sort_key,
)
from .evaluator import NO_VICTIMS, PRE_FILTER_RESULT_REASON, Evaluator
from .pdb import PDB, filter_pods_with_pdb_violation
from .plugin import NOT_ELIGIBLE_NEVER, NOT_ELIGIBLE_TERMINATING, DefaultPreemption
from .victims import (
    Victim,
    VictimKind,
    filter_victims_with_pdb_violation,
    more_important_victim,
    victim_importance_key,
    victim_priority,
    victims_on_node,
)

__all__ = [
    "NOT_ELIGIBLE_NEVER",
    "NOT_ELIGIBLE_TERMINATING",
    "NOT_HELPFUL",
    "NO_VICTIMS",
    "PDB",
    "PRE_FILTER_RESULT_REASON",
    "Candidate",
    "Victim",
    "VictimKind",
    "DefaultPreemption",
    "Evaluator",
    "IsEligibleVictim",
    "MoreImportantVictim",
    "filter_pods_with_pdb_violation",
    "filter_victims_with_pdb_violation",
    "more_important_victim",
    "fit_error_message",
    "importance_key",
    "pick_one_node_for_preemption",
    "start_time",
    "victim_importance_key",
    "victim_priority",
    "victim_sort_key",
    "victims_on_node",
]
