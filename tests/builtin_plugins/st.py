"""kube-scheduler's test wrappers (pkg/scheduler/testing, imported there as `st`) and the Go names its tables use.

The upstream case tables in test_*_upstream.py are kube-scheduler v1.37.2's Go tables transcribed
expression by expression: `st.MakePod().Name("p").Label("foo", "").Obj()` builds here the raw pod
dict the Go wrapper builds as a v1.Pod, and `v1.DoNotSchedule`, `fwk.Unschedulable`,
`resource.MustParse("1")` read as they do in Go. Keeping the Go spelling lets a reader diff a table
against upstream line by line; method names are Go's on purpose.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kubeberth import Code

# ---- Go packages' constants ---------------------------------------------------------------


class v1:
    DoNotSchedule = "DoNotSchedule"
    TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"
    TaintNodeNotReady = "node.kubernetes.io/not-ready"
    DefaultHardPodAffinitySymmetricWeight = 1
    ScheduleAnyway = "ScheduleAnyway"
    NodeInclusionPolicyHonor = "Honor"
    NodeInclusionPolicyIgnore = "Ignore"
    ResourceCPU = "cpu"
    ResourceMemory = "memory"
    ResourcePods = "pods"
    ResourceStorage = "storage"
    ResourceEphemeralStorage = "ephemeral-storage"
    NodeSelectorOpIn = "In"
    NodeSelectorOpNotIn = "NotIn"
    NodeSelectorOpExists = "Exists"
    NodeSelectorOpDoesNotExist = "DoesNotExist"
    NodeSelectorOpGt = "Gt"
    NodeSelectorOpLt = "Lt"
    TaintEffectNoSchedule = "NoSchedule"
    TaintEffectPreferNoSchedule = "PreferNoSchedule"
    TaintEffectNoExecute = "NoExecute"
    TolerationOpExists = "Exists"
    TolerationOpEqual = "Equal"
    ContainerRestartPolicyAlways = "Always"
    PodRunning = "Running"
    PodSucceeded = "Succeeded"
    PodFailed = "Failed"
    PodPending = "Pending"
    ProtocolTCP = "TCP"
    ProtocolUDP = "UDP"
    ReadWriteOnce = "ReadWriteOnce"
    ReadOnlyMany = "ReadOnlyMany"
    ReadWriteMany = "ReadWriteMany"
    ReadWriteOncePod = "ReadWriteOncePod"
    PreemptNever = "Never"
    PreemptLowerPriority = "PreemptLowerPriority"
    LabelHostname = "kubernetes.io/hostname"
    LabelTopologyZone = "topology.kubernetes.io/zone"
    LabelTopologyRegion = "topology.kubernetes.io/region"
    LabelFailureDomainBetaZone = "failure-domain.beta.kubernetes.io/zone"
    LabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region"
    ClaimBound = "Bound"
    ClaimPending = "Pending"
    VolumeBound = "Bound"
    VolumeAvailable = "Available"


class metav1:
    LabelSelectorOpIn = "In"
    LabelSelectorOpNotIn = "NotIn"
    LabelSelectorOpExists = "Exists"
    LabelSelectorOpDoesNotExist = "DoesNotExist"
    ObjectNameField = "metadata.name"

    @staticmethod
    def Time(t: Any = None) -> Any:
        return t


class fwk:
    Success = Code.SUCCESS
    Error = Code.ERROR
    Unschedulable = Code.UNSCHEDULABLE
    UnschedulableAndUnresolvable = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    Wait = Code.WAIT
    Skip = Code.SKIP
    Pending = Code.PENDING
    MaxNodeScore = 100
    MaxScore = 100
    Queue = True  # QueueingHint: a kubeberth hint returns True to retry the pod
    QueueSkip = False
    MinNodeScore = 0

    @staticmethod
    def NewStatus(code: Code, *reasons: str) -> GoStatus:
        return GoStatus(code, tuple(reasons))

    @staticmethod
    def AsStatus(err: str) -> GoStatus:
        return GoStatus(Code.ERROR, (err,))


@dataclass(frozen=True)
class GoStatus:
    """An expected fwk.Status: its code and reasons (a nil *Status is None)."""

    code: Code
    reasons: tuple[str, ...] = ()


class resource:
    @staticmethod
    def MustParse(q: str) -> str:
        return q


class ptr:
    @staticmethod
    def To(v: Any) -> Any:
        return v


class sets:
    """k8s.io/apimachinery/pkg/util/sets"""

    @staticmethod
    def New(*items: Any) -> frozenset[Any]:
        return frozenset(items)


class fmt:
    """Go's fmt: an error is its message."""

    @staticmethod
    def Errorf(msg: str, *args: Any) -> str:
        return msg % args if args else msg


class errors:
    @staticmethod
    def New(msg: str) -> str:
        return msg


# st's NodeSelectorType and PodAffinityKind
NodeSelectorTypeMatchExpressions = 0
NodeSelectorTypeMatchFields = 1
NilPodAffinity = 0
PodAffinityWithRequiredReq = 1
PodAffinityWithPreferredReq = 2
PodAffinityWithRequiredPreferredReq = 3
PodAntiAffinityWithRequiredReq = 4
PodAntiAffinityWithPreferredReq = 5
PodAntiAffinityWithRequiredPreferredReq = 6


def _setdefault(obj: dict[str, Any], *path: str) -> dict[str, Any]:
    for key in path:
        if obj.get(key) is None:
            obj[key] = {}
        obj = obj[key]
    return obj


# ---- wrappers ----------------------------------------------------------------------------


class NodeSelectorWrapper:
    def __init__(self) -> None:
        self.obj: dict[str, Any] = {"nodeSelectorTerms": []}

    def In(self, key: str, vals: list[str], t: int = NodeSelectorTypeMatchExpressions) -> NodeSelectorWrapper:
        expr = {"key": key, "operator": "In", "values": list(vals)}
        field = "matchExpressions" if t == NodeSelectorTypeMatchExpressions else "matchFields"
        self.obj["nodeSelectorTerms"].append({field: [expr]})
        return self

    def NotIn(self, key: str, vals: list[str]) -> NodeSelectorWrapper:
        self.obj["nodeSelectorTerms"].append({"matchExpressions": [{"key": key, "operator": "NotIn", "values": list(vals)}]})
        return self

    def Obj(self) -> dict[str, Any]:
        return self.obj


def MakeNodeSelector() -> NodeSelectorWrapper:
    return NodeSelectorWrapper()


class LabelSelectorWrapper:
    def __init__(self) -> None:
        self.obj: dict[str, Any] = {}

    def Label(self, k: str, v: str) -> LabelSelectorWrapper:
        self.obj.setdefault("matchLabels", {})[k] = v
        return self

    def _expr(self, key: str, op: str, vals: list[str] | None = None) -> LabelSelectorWrapper:
        expr: dict[str, Any] = {"key": key, "operator": op}
        if vals is not None:
            expr["values"] = list(vals)
        self.obj.setdefault("matchExpressions", []).append(expr)
        return self

    def In(self, key: str, vals: list[str]) -> LabelSelectorWrapper:
        return self._expr(key, "In", vals)

    def NotIn(self, key: str, vals: list[str]) -> LabelSelectorWrapper:
        return self._expr(key, "NotIn", vals)

    def Exists(self, k: str) -> LabelSelectorWrapper:
        return self._expr(k, "Exists")

    def NotExist(self, k: str) -> LabelSelectorWrapper:
        return self._expr(k, "DoesNotExist")

    def Obj(self) -> dict[str, Any]:
        return self.obj


def MakeLabelSelector() -> LabelSelectorWrapper:
    return LabelSelectorWrapper()


class ContainerWrapper:
    def __init__(self) -> None:
        self.obj: dict[str, Any] = {}

    def Name(self, n: str) -> ContainerWrapper:
        self.obj["name"] = n
        return self

    def Image(self, image: str) -> ContainerWrapper:
        self.obj["image"] = image
        return self

    def HostPort(self, port: int) -> ContainerWrapper:
        self.obj["ports"] = [{"hostPort": port}]
        return self

    def ContainerPort(self, ports: list[dict[str, Any]]) -> ContainerWrapper:
        self.obj["ports"] = copy.deepcopy(ports)
        return self

    def Resources(self, res: Mapping[str, str]) -> ContainerWrapper:
        self.obj["resources"] = {"requests": dict(res), "limits": dict(res)}
        return self

    def ResourceRequests(self, req: Mapping[str, str]) -> ContainerWrapper:
        self.obj["resources"] = {"requests": dict(req)}
        return self

    def ResourceLimits(self, lim: Mapping[str, str]) -> ContainerWrapper:
        self.obj["resources"] = {"limits": dict(lim)}
        return self

    def RestartPolicy(self, policy: str) -> ContainerWrapper:
        self.obj["restartPolicy"] = policy
        return self

    def Obj(self) -> dict[str, Any]:
        return self.obj


def MakeContainer() -> ContainerWrapper:
    return ContainerWrapper()


PAUSE_IMAGE = "registry.k8s.io/pause:3.10.1"


class PodWrapper:
    """st.PodWrapper: a v1.Pod under construction, as a raw dict."""

    def __init__(self) -> None:
        self.pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {}, "status": {}}

    @property
    def _meta(self) -> dict[str, Any]:
        return self.pod["metadata"]

    @property
    def _spec(self) -> dict[str, Any]:
        return self.pod["spec"]

    def Obj(self) -> dict[str, Any]:
        return self.pod

    def DeepCopy(self) -> dict[str, Any]:
        return copy.deepcopy(self.pod)

    def Name(self, s: str) -> PodWrapper:
        self._meta["name"] = s
        return self

    def UID(self, s: str) -> PodWrapper:
        self._meta["uid"] = s
        return self

    def SchedulerName(self, s: str) -> PodWrapper:
        self._spec["schedulerName"] = s
        return self

    def Namespace(self, s: str) -> PodWrapper:
        self._meta["namespace"] = s
        return self

    def NodeAffinity(self, node_affinity: dict[str, Any] | None) -> PodWrapper:
        _setdefault(self._spec, "affinity")["nodeAffinity"] = node_affinity
        return self

    def OwnerReference(self, name: str, gvk: Mapping[str, str]) -> PodWrapper:
        group, version = gvk.get("group", ""), gvk.get("version", "")
        api = f"{group}/{version}" if group else version
        self._meta["ownerReferences"] = [{"apiVersion": api, "kind": gvk["kind"], "name": name, "controller": True}]
        return self

    def Container(self, s: str) -> PodWrapper:
        containers = self._spec.setdefault("containers", [])
        containers.append(MakeContainer().Name(f"con{len(containers)}").Image(s).Obj())
        return self

    def Containers(self, containers: list[dict[str, Any]]) -> PodWrapper:
        self._spec["containers"] = containers
        return self

    def Priority(self, val: int) -> PodWrapper:
        self._spec["priority"] = val
        return self

    def CreationTimestamp(self, t: Any) -> PodWrapper:
        self._meta["creationTimestamp"] = t
        return self

    def Terminating(self) -> PodWrapper:
        self._meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        return self

    def Node(self, s: str) -> PodWrapper:
        self._spec["nodeName"] = s
        return self

    def Tolerations(self, tolerations: list[dict[str, Any]]) -> PodWrapper:
        self._spec["tolerations"] = tolerations
        return self

    def NodeSelector(self, m: Mapping[str, str]) -> PodWrapper:
        self._spec["nodeSelector"] = dict(m)
        return self

    def NodeAffinityIn(self, key: str, vals: list[str], t: int = NodeSelectorTypeMatchExpressions) -> PodWrapper:
        na = _setdefault(self._spec, "affinity", "nodeAffinity")
        na["requiredDuringSchedulingIgnoredDuringExecution"] = MakeNodeSelector().In(key, vals, t).Obj()
        return self

    def NodeAffinityNotIn(self, key: str, vals: list[str]) -> PodWrapper:
        na = _setdefault(self._spec, "affinity", "nodeAffinity")
        na["requiredDuringSchedulingIgnoredDuringExecution"] = MakeNodeSelector().NotIn(key, vals).Obj()
        return self

    def StartTime(self, t: Any) -> PodWrapper:
        self.pod["status"]["startTime"] = t
        return self

    def NominatedNodeName(self, n: str) -> PodWrapper:
        self.pod["status"]["nominatedNodeName"] = n
        return self

    def Phase(self, phase: str) -> PodWrapper:
        self.pod["status"]["phase"] = phase
        return self

    def Condition(self, t: str, s: str, r: str) -> PodWrapper:
        self.pod["status"].setdefault("conditions", []).append({"type": t, "status": s, "reason": r})
        return self

    def Toleration(self, key: str) -> PodWrapper:
        self._spec.setdefault("tolerations", []).append({"key": key, "operator": "Exists"})
        return self

    def HostPort(self, port: int) -> PodWrapper:
        c = MakeContainer().Name("container").Image("pause").HostPort(port).Obj()
        self._spec.setdefault("containers", []).append(c)
        return self

    def ContainerPort(self, ports: list[dict[str, Any]]) -> PodWrapper:
        c = MakeContainer().Name("container").Image("pause").ContainerPort(ports).Obj()
        self._spec.setdefault("containers", []).append(c)
        return self

    def InitContainerPort(self, sidecar: bool, ports: list[dict[str, Any]]) -> PodWrapper:
        c = MakeContainer().Name("init-container").Image("pause").ContainerPort(ports)
        if sidecar:
            c.RestartPolicy("Always")
        self._spec.setdefault("initContainers", []).append(c.Obj())
        return self

    def PVC(self, name: str) -> PodWrapper:
        self._spec.setdefault("volumes", []).append({"name": name, "persistentVolumeClaim": {"claimName": name}})
        return self

    def Volume(self, volume: dict[str, Any]) -> PodWrapper:
        self._spec.setdefault("volumes", []).append(volume)
        return self

    def Volumes(self, volumes: list[dict[str, Any]]) -> PodWrapper:
        self._spec["volumes"] = volumes
        return self

    def SchedulingGates(self, gates: Iterable[str]) -> PodWrapper:
        self._spec.setdefault("schedulingGates", []).extend({"name": g} for g in gates)
        return self

    def _affinity(self, field: str, topology_key: str, selector: dict[str, Any] | None, kind: int, anti: bool) -> None:
        if kind == NilPodAffinity:
            return
        aff = _setdefault(self._spec, "affinity", field)
        term: dict[str, Any] = {"labelSelector": selector, "topologyKey": topology_key}
        base = PodAntiAffinityWithRequiredReq - PodAffinityWithRequiredReq if anti else 0
        kind -= base
        if kind in (PodAffinityWithRequiredReq, PodAffinityWithRequiredPreferredReq):
            aff.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(term)
        if kind in (PodAffinityWithPreferredReq, PodAffinityWithRequiredPreferredReq):
            aff.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append(
                {"weight": 1, "podAffinityTerm": term}
            )

    def PodAffinity(self, topology_key: str, selector: dict[str, Any] | None, kind: int) -> PodWrapper:
        if kind in (PodAffinityWithRequiredReq, PodAffinityWithPreferredReq, PodAffinityWithRequiredPreferredReq):
            self._affinity("podAffinity", topology_key, selector, kind, anti=False)
        return self

    def PodAntiAffinity(self, topology_key: str, selector: dict[str, Any] | None, kind: int) -> PodWrapper:
        if kind in (PodAntiAffinityWithRequiredReq, PodAntiAffinityWithPreferredReq,
                    PodAntiAffinityWithRequiredPreferredReq):
            self._affinity("podAntiAffinity", topology_key, selector, kind, anti=True)
        return self

    def PodAffinityExists(self, label_key: str, topology_key: str, kind: int) -> PodWrapper:
        return self.PodAffinity(topology_key, MakeLabelSelector().Exists(label_key).Obj(), kind)

    def PodAntiAffinityExists(self, label_key: str, topology_key: str, kind: int) -> PodWrapper:
        return self.PodAntiAffinity(topology_key, MakeLabelSelector().Exists(label_key).Obj(), kind)

    def PodAffinityNotExists(self, label_key: str, topology_key: str, kind: int) -> PodWrapper:
        return self.PodAffinity(topology_key, MakeLabelSelector().NotExist(label_key).Obj(), kind)

    def PodAntiAffinityNotExists(self, label_key: str, topology_key: str, kind: int) -> PodWrapper:
        return self.PodAntiAffinity(topology_key, MakeLabelSelector().NotExist(label_key).Obj(), kind)

    def PodAffinityIn(self, label_key: str, topology_key: str, vals: list[str], kind: int) -> PodWrapper:
        return self.PodAffinity(topology_key, MakeLabelSelector().In(label_key, vals).Obj(), kind)

    def PodAntiAffinityIn(self, label_key: str, topology_key: str, vals: list[str], kind: int) -> PodWrapper:
        return self.PodAntiAffinity(topology_key, MakeLabelSelector().In(label_key, vals).Obj(), kind)

    def PodAffinityNotIn(self, label_key: str, topology_key: str, vals: list[str], kind: int) -> PodWrapper:
        return self.PodAffinity(topology_key, MakeLabelSelector().NotIn(label_key, vals).Obj(), kind)

    def PodAntiAffinityNotIn(self, label_key: str, topology_key: str, vals: list[str], kind: int) -> PodWrapper:
        return self.PodAntiAffinity(topology_key, MakeLabelSelector().NotIn(label_key, vals).Obj(), kind)

    def SpreadConstraint(
        self,
        max_skew: int,
        tp_key: str,
        mode: str,
        selector: dict[str, Any] | None,
        min_domains: int | None,
        node_affinity_policy: str | None,
        node_taints_policy: str | None,
        match_label_keys: list[str] | None,
    ) -> PodWrapper:
        c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": tp_key, "whenUnsatisfiable": mode}
        for key, value in (("labelSelector", selector), ("minDomains", min_domains),
                           ("nodeAffinityPolicy", node_affinity_policy), ("nodeTaintsPolicy", node_taints_policy),
                           ("matchLabelKeys", match_label_keys)):
            if value is not None:
                c[key] = copy.deepcopy(value)
        self._spec.setdefault("topologySpreadConstraints", []).append(c)
        return self

    def Label(self, k: str, v: str) -> PodWrapper:
        self._meta.setdefault("labels", {})[k] = v
        return self

    def Labels(self, labels: Mapping[str, str]) -> PodWrapper:
        for k, v in labels.items():
            self.Label(k, v)
        return self

    def Annotation(self, key: str, value: str) -> PodWrapper:
        self._meta.setdefault("annotations", {})[key] = value
        return self

    def _add(self, field: str, prefix: str, container: ContainerWrapper) -> PodWrapper:
        containers = self._spec.setdefault(field, [])
        containers.append(container.Name(f"{prefix}{len(containers)}").Obj())
        return self

    def Res(self, res: Mapping[str, str]) -> PodWrapper:
        if not res:
            return self
        return self._add("containers", "con", MakeContainer().Image(PAUSE_IMAGE).Resources(res))

    def PodLevelResourceRequests(self, req: Mapping[str, str]) -> PodWrapper:
        if req:
            self._spec["resources"] = {"requests": dict(req)}
        return self

    def Req(self, req: Mapping[str, str]) -> PodWrapper:
        if not req:
            return self
        return self._add("containers", "con", MakeContainer().Image(PAUSE_IMAGE).ResourceRequests(req))

    def Lim(self, lim: Mapping[str, str]) -> PodWrapper:
        if not lim:
            return self
        return self._add("containers", "con", MakeContainer().Image(PAUSE_IMAGE).ResourceLimits(lim))

    def InitReq(self, res: Mapping[str, str]) -> PodWrapper:
        if not res:
            return self
        return self._add("initContainers", "init-con", MakeContainer().Image(PAUSE_IMAGE).Resources(res))

    def SidecarReq(self, res: Mapping[str, str]) -> PodWrapper:
        if not res:
            return self
        c = MakeContainer().Image(PAUSE_IMAGE).RestartPolicy("Always").Resources(res)
        containers = self._spec.setdefault("initContainers", [])
        containers.append(c.Name(f"sidecar-con{len(containers)}").Obj())
        return self

    def PreemptionPolicy(self, policy: str) -> PodWrapper:
        self._spec["preemptionPolicy"] = policy
        return self

    def PodGroupName(self, name: str) -> PodWrapper:
        self._spec["schedulingGroup"] = {"podGroupName": name}
        return self

    def Overhead(self, rl: Mapping[str, str]) -> PodWrapper:
        self._spec["overhead"] = dict(rl)
        return self


def MakePod() -> PodWrapper:
    return PodWrapper()


class NodeWrapper:
    """st.NodeWrapper: a v1.Node under construction; capacity and allocatable default to 32 pods."""

    def __init__(self) -> None:
        self.node: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {}, "spec": {}, "status": {}}
        self.Capacity(None)

    def Obj(self) -> dict[str, Any]:
        return self.node

    def Name(self, s: str) -> NodeWrapper:
        self.node["metadata"]["name"] = s
        return self

    def UID(self, s: str) -> NodeWrapper:
        self.node["metadata"]["uid"] = s
        return self

    def Label(self, k: str, v: str) -> NodeWrapper:
        self.node["metadata"].setdefault("labels", {})[k] = v
        return self

    def Annotation(self, k: str, v: str) -> NodeWrapper:
        self.node["metadata"].setdefault("annotations", {})[k] = v
        return self

    def Capacity(self, resources: Mapping[str, str] | None) -> NodeWrapper:
        res = {"pods": "32", **dict(resources or {})}
        self.node["status"]["capacity"] = res
        self.node["status"]["allocatable"] = dict(res)
        return self

    def Images(self, images: Mapping[str, int]) -> NodeWrapper:
        self.node["status"]["images"] = [{"names": [name], "sizeBytes": size} for name, size in images.items()]
        return self

    def Taints(self, taints: list[dict[str, Any]]) -> NodeWrapper:
        self.node["spec"]["taints"] = taints
        return self

    def Unschedulable(self, unschedulable: bool) -> NodeWrapper:
        self.node["spec"]["unschedulable"] = unschedulable
        return self


def MakeNode() -> NodeWrapper:
    return NodeWrapper()


class _GroupVersion:
    def __init__(self, group: str, version: str) -> None:
        self.group, self.version = group, version

    def WithKind(self, kind: str) -> dict[str, str]:
        return {"group": self.group, "version": self.version, "kind": kind}


class appsv1:
    SchemeGroupVersion = _GroupVersion("apps", "v1")


v1.SchemeGroupVersion = _GroupVersion("", "v1")  # type: ignore[attr-defined]


v1.Pod = "Pod"  # type: ignore[attr-defined]


def new(kind: str) -> dict[str, Any]:
    """Go's new(v1.Pod): the zero object."""
    return {"kind": kind, "metadata": {}, "spec": {}}


class NodeName(str):
    """st.NodeName: a device's spec.devices[].nodeName in ResourceSliceWrapper.Device."""


class ResourceSliceWrapper:
    """st.ResourceSliceWrapper (resource.k8s.io/v1 ResourceSlice)."""

    def __init__(self, name: str, driver: str, pool: str) -> None:
        self.obj: dict[str, Any] = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
                                    "spec": {"driver": driver, "pool": {"name": pool, "resourceSliceCount": 1},
                                             "devices": []}}

    def Devices(self, *names: str) -> ResourceSliceWrapper:
        for name in names:
            self.obj["spec"]["devices"].append({"name": name})
        return self

    def Device(self, name: str, *other: Any) -> ResourceSliceWrapper:
        """A device with extra fields: {attr: {...}} attributes (values with `int`/`string`/...),
        {name: {"value": q}} capacity, a NodeName, or a node selector {"nodeSelectorTerms": ...}."""
        device: dict[str, Any] = {"name": name}
        for field in other:
            if isinstance(field, NodeName):
                device["nodeName"] = str(field)
            elif isinstance(field, dict) and "nodeSelectorTerms" in field:
                device["nodeSelector"] = field
            elif isinstance(field, dict) and field and all(isinstance(v, dict) and "value" in v for v in field.values()):
                device["capacity"] = field
            elif isinstance(field, dict):
                device["attributes"] = field
            else:
                raise TypeError(f"expected a type which matches a field in Device, got {type(field).__name__}")
        self.obj["spec"]["devices"].append(device)
        return self

    def Obj(self) -> dict[str, Any]:
        return self.obj


class ResourceClaimWrapper:
    """st.ResourceClaimWrapper (resource.k8s.io/v1 ResourceClaim), the parts the noderesources tests use."""

    def __init__(self) -> None:
        self.obj: dict[str, Any] = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {},
                                    "spec": {"devices": {"requests": []}}}

    def Name(self, name: str) -> ResourceClaimWrapper:
        self.obj["metadata"]["name"] = name
        return self

    def Request(self, class_name: str) -> ResourceClaimWrapper:
        requests = self.obj["spec"]["devices"]["requests"]
        requests.append({"name": f"req-{len(requests) + 1}",
                         "exactly": {"allocationMode": "ExactCount", "count": 1, "deviceClassName": class_name}})
        return self

    def Allocation(self, allocation: dict[str, Any]) -> ResourceClaimWrapper:
        self.obj.setdefault("status", {})["allocation"] = allocation
        return self

    def Obj(self) -> dict[str, Any]:
        return self.obj


def MakeResourceClaim() -> ResourceClaimWrapper:
    return ResourceClaimWrapper()


class PodDisruptionBudgetWrapper:
    """st.PodDisruptionBudgetWrapper: a policy/v1 PodDisruptionBudget under construction."""

    def __init__(self) -> None:
        self.pdb: dict[str, Any] = {
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {}, "spec": {}, "status": {},
        }

    def Obj(self) -> dict[str, Any]:
        return self.pdb

    def Name(self, name: str) -> PodDisruptionBudgetWrapper:
        self.pdb["metadata"]["name"] = name
        return self

    def Namespace(self, ns: str) -> PodDisruptionBudgetWrapper:
        self.pdb["metadata"]["namespace"] = ns
        return self

    def MinAvailable(self, min_available: str) -> PodDisruptionBudgetWrapper:
        value: int | str = int(min_available) if min_available.isdigit() else min_available  # intstr.Parse
        self.pdb["spec"]["minAvailable"] = value
        return self

    def MatchLabel(self, key: str, label: str) -> PodDisruptionBudgetWrapper:
        selector = self.pdb["spec"].setdefault("selector", {})
        selector.setdefault("matchLabels", {})[key] = label
        return self

    def DisruptionsAllowed(self, allowed: int) -> PodDisruptionBudgetWrapper:
        self.pdb["status"]["disruptionsAllowed"] = allowed
        return self


def MakePDB() -> PodDisruptionBudgetWrapper:
    return PodDisruptionBudgetWrapper()


def MakeResourceSlice(node_name: str, driver: str) -> ResourceSliceWrapper:
    """A slice of node `node_name`'s pool `node_name`, named `<node>-<driver>`."""
    wrapper = ResourceSliceWrapper(f"{node_name}-{driver}", driver, node_name)
    wrapper.obj["spec"]["nodeName"] = node_name
    return wrapper


def pod_info(raw: dict[str, Any]) -> Any:
    from kubeberth.cache.podinfo import PodInfo

    return PodInfo.from_dict(raw)


class PodGroupWrapper:
    """st.PodGroupWrapper: a scheduling.k8s.io/v1beta1 PodGroup under construction."""

    def __init__(self) -> None:
        self.pg: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                                   "metadata": {}, "spec": {}}

    def Obj(self) -> dict[str, Any]:
        return self.pg

    def Name(self, name: str) -> PodGroupWrapper:
        self.pg["metadata"]["name"] = name
        return self

    def Namespace(self, ns: str) -> PodGroupWrapper:
        self.pg["metadata"]["namespace"] = ns
        return self

    def UID(self, uid: str) -> PodGroupWrapper:
        self.pg["metadata"]["uid"] = uid
        return self

    def MinCount(self, count: int) -> PodGroupWrapper:
        self.pg["spec"]["schedulingPolicy"] = {"gang": {"minCount": count}}
        return self

    def BasicPolicy(self) -> PodGroupWrapper:
        self.pg["spec"]["schedulingPolicy"] = {"basic": {}}
        return self

    def DisruptionModeAll(self) -> PodGroupWrapper:
        self.pg["spec"]["disruptionMode"] = {"all": {}}
        return self

    def DisruptionModeSingle(self) -> PodGroupWrapper:
        self.pg["spec"]["disruptionMode"] = {"single": {}}
        return self

    def Priority(self, priority: int) -> PodGroupWrapper:
        self.pg["spec"]["priority"] = priority
        return self

    def PreemptionPolicy(self, policy: str) -> PodGroupWrapper:
        self.pg["spec"]["preemptionPolicy"] = policy
        return self

    def ParentCompositePodGroup(self, parent: str) -> PodGroupWrapper:
        self.pg["spec"]["parentCompositePodGroupName"] = parent
        return self


def MakePodGroup() -> PodGroupWrapper:
    return PodGroupWrapper()


class CompositePodGroupWrapper:
    """st.CompositePodGroupWrapper: a scheduling.k8s.io/v1alpha3 CompositePodGroup (CompositePodGroup is
    not implemented: only the excluded cases build one)."""

    def __init__(self) -> None:
        self.cpg: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
                                    "metadata": {}, "spec": {}}

    def Obj(self) -> dict[str, Any]:
        return self.cpg

    def Name(self, name: str) -> CompositePodGroupWrapper:
        self.cpg["metadata"]["name"] = name
        return self

    def Namespace(self, ns: str) -> CompositePodGroupWrapper:
        self.cpg["metadata"]["namespace"] = ns
        return self

    def UID(self, uid: str) -> CompositePodGroupWrapper:
        self.cpg["metadata"]["uid"] = uid
        return self

    def Priority(self, priority: int) -> CompositePodGroupWrapper:
        self.cpg["spec"]["priority"] = priority
        return self

    def DisruptionModeAll(self) -> CompositePodGroupWrapper:
        self.cpg["spec"]["disruptionMode"] = {"all": {}}
        return self

    def PreemptionPolicy(self, policy: str) -> CompositePodGroupWrapper:
        self.cpg["spec"]["preemptionPolicy"] = policy
        return self

    def ParentCompositePodGroup(self, parent: str) -> CompositePodGroupWrapper:
        self.cpg["spec"]["parentCompositePodGroupName"] = parent
        return self


def MakeCompositePodGroup() -> CompositePodGroupWrapper:
    return CompositePodGroupWrapper()
