"""Events about the scheduler itself, recorded on its Lease (`kubectl describe lease -n NS NAME`).

What an operator should see without reading the logs — a plugin that hung, a generation rolled
back, a plugin file quarantined, a reload refused, a canary started, promoted, rolled back or
stopped — is an events.k8s.io/v1 Event whose
`regarding` is the Lease kubeberth leads with (leaderElection.resourceNamespace/resourceName,
the --leader-elect-resource-* flags winning). With leader election off the same object is named:
the Lease need not exist for an Event to point at it, and operators look in one place either way.
The events go through the backend's event recorder (its own client and token bucket, the series
and spam filter of FailedScheduling events); the embedded cluster keeps them in its event list.

`LeaseEvents.record(reason, message, action)` is the one entry point; the typed helpers below
name the reasons kubeberth uses.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from ..backends.base import Backend, ObjectRef

if TYPE_CHECKING:
    from ..scheduling.watchdog import Hang

log = logging.getLogger(__name__)

# reason -> the events.k8s.io `action` (what kubeberth was doing)
ACTIONS = {
    "PluginTimeout": "PluginWatchdog",
    "GenerationRolledBack": "Rollback",
    "PluginQuarantined": "Quarantine",
    "ReloadRefused": "Reload",
    "CanaryStarted": "Canary",
    "CanaryPromoted": "Canary",
    "CanaryRolledBack": "Canary",
    "CanaryStopped": "Canary",
}


class LeaseEvents:
    """Records Warning/Normal events regarding the scheduler's Lease through `backend`."""

    def __init__(self, backend: Backend, namespace: str, name: str) -> None:
        self.backend = backend
        self.lease = ObjectRef("coordination.k8s.io/v1", "Lease", namespace, name)

    def record(self, reason: str, message: str, action: str | None = None, event_type: str = "Warning") -> None:
        """Queue one event (never blocks; a failure is logged, the event is best effort)."""
        ref = replace(self.lease, action=action or ACTIONS.get(reason, "Reconcile"))
        try:
            self.backend.record_object_event(ref, event_type, reason, message)
        except Exception:  # noqa: BLE001 - an event must never fail what it reports
            log.exception("recording the %s event on Lease %s failed", reason, self.lease.key)

    def announce(self, reason: str, message: str) -> None:
        """The (reason, message) callback the reloader and the quarantine take."""
        self.record(reason, message)

    def plugin_timed_out(self, hang: Hang) -> None:
        """A Scheduler timeout observer."""
        where = "binding cycle" if hang.stage == "binding" else hang.stage.replace("_", " ")
        self.record(
            "PluginTimeout",
            f"plugin {hang.plugin} ran {hang.seconds:.1f}s at {hang.extension_point} ({where}) for pod {hang.pod} "
            f"in generation {hang.generation}, past the plugin timeout"
            + ("; interrupting it" if hang.interrupted else ""),
        )
