"""Smoke tests for the local control plane used by the end-to-end suite."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from cluster import LocalControlPlane, ManagedProcess, wait_for
from kubernetes import client, config
from kubernetes.client.rest import ApiException

BIND_TIMEOUT = 60.0


def _api_client(kubeconfig: str) -> client.ApiClient:
    return config.new_client_from_config(config_file=kubeconfig)




def _suffix() -> str:
    return uuid.uuid4().hex[:8]


@pytest.fixture
def admin_api(control_plane: LocalControlPlane) -> Iterator[client.ApiClient]:
    api = _api_client(control_plane.admin_kubeconfig)
    try:
        yield api
    finally:
        api.close()


@pytest.fixture
def namespace(admin_api: client.ApiClient) -> Iterator[str]:
    core = client.CoreV1Api(admin_api)
    name = f"e2e-{_suffix()}"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    try:
        yield name
    finally:
        # Without kube-controller-manager the namespace stays Terminating; the
        # objects in it are deleted explicitly by the tests.
        core.delete_namespace(name)


def _ready_node(name: str, labels: dict[str, str]) -> tuple[client.V1Node, dict[str, Any]]:
    node = client.V1Node(metadata=client.V1ObjectMeta(name=name, labels=labels))
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    resources = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    status = {
        "status": {
            "capacity": resources,
            "allocatable": resources,
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "node created by the e2e suite",
                    "lastHeartbeatTime": now,
                    "lastTransitionTime": now,
                }
            ],
        }
    }
    return node, status


def test_kube_scheduler_binds_pod_to_ready_node(
    control_plane: LocalControlPlane,
    kube_scheduler: ManagedProcess,
    admin_api: client.ApiClient,
    namespace: str,
) -> None:
    core = client.CoreV1Api(admin_api)
    node_name = f"e2e-node-{_suffix()}"
    # A label unique to this node keeps the pod off nodes other tests create.
    labels = {"kubernetes.io/hostname": node_name, "kubeberth.e2e/smoke": node_name}
    node, status = _ready_node(node_name, labels)

    core.create_node(node)
    try:
        # Node status is only writable through the status subresource.
        core.patch_node_status(node_name, status)
        stored = core.read_node_status(node_name)
        assert stored.status.allocatable["cpu"] == "4"
        assert [c.type for c in stored.status.conditions] == ["Ready"]
        assert not stored.spec.taints

        pod = client.V1Pod(
            metadata=client.V1ObjectMeta(name="smoke"),
            spec=client.V1PodSpec(
                scheduler_name="default-scheduler",
                node_selector={"kubeberth.e2e/smoke": node_name},
                containers=[
                    client.V1Container(
                        name="pause",
                        image="registry.k8s.io/pause:3.10",
                        resources=client.V1ResourceRequirements(requests={"cpu": "100m", "memory": "64Mi"}),
                    )
                ],
            ),
        )
        core.create_namespaced_pod(namespace, pod)
        try:

            def bound() -> client.V1Pod | None:
                assert kube_scheduler.running, f"kube-scheduler died:\n{kube_scheduler.log_tail()}"
                p = core.read_namespaced_pod("smoke", namespace)
                return p if p.spec.node_name else None

            try:
                scheduled = wait_for(bound, BIND_TIMEOUT, "kube-scheduler to bind the pod")
            except AssertionError as exc:
                raise AssertionError(f"{exc}\nkube-scheduler log:\n{kube_scheduler.log_tail()}") from None
            assert scheduled.spec.node_name == node_name
            conditions = {c.type: c.status for c in scheduled.status.conditions or []}
            assert conditions.get("PodScheduled") == "True"
        finally:
            # No kubelet will ever confirm termination: delete immediately.
            core.delete_namespaced_pod("smoke", namespace, grace_period_seconds=0)
    finally:
        core.delete_node(node_name)


def test_service_account_kubeconfig_is_subject_to_rbac(
    control_plane: LocalControlPlane, admin_api: client.ApiClient, namespace: str
) -> None:
    kubeconfig = control_plane.kubeconfig_for_service_account(namespace, "limited")
    sa_api = _api_client(kubeconfig)
    try:
        # The TokenRequest token authenticates as the service account ...
        review = client.AuthenticationV1Api(sa_api).create_self_subject_review(
            client.V1SelfSubjectReview(metadata=client.V1ObjectMeta())
        )
        assert review.status.user_info.username == f"system:serviceaccount:{namespace}:limited"

        sa_core = client.CoreV1Api(sa_api)
        # ... but has no permissions of its own: 403 (authorization), not 401.
        with pytest.raises(ApiException) as denied:
            sa_core.list_namespaced_secret(namespace)
        assert denied.value.status == 403
        with pytest.raises(ApiException) as denied_pods:
            sa_core.list_namespaced_pod(namespace)
        assert denied_pods.value.status == 403

        # Granting a Role through RBAC opens exactly that access.
        rbac = client.RbacAuthorizationV1Api(admin_api)
        rbac.create_namespaced_role(
            namespace,
            client.V1Role(
                metadata=client.V1ObjectMeta(name="pod-reader"),
                rules=[
                    client.V1PolicyRule(api_groups=[""], resources=["pods"], verbs=["get", "list", "watch"])
                ],
            ),
        )
        rbac.create_namespaced_role_binding(
            namespace,
            client.V1RoleBinding(
                metadata=client.V1ObjectMeta(name="pod-reader"),
                role_ref=client.V1RoleRef(
                    api_group="rbac.authorization.k8s.io", kind="Role", name="pod-reader"
                ),
                subjects=[client.RbacV1Subject(kind="ServiceAccount", name="limited", namespace=namespace)],
            ),
        )

        def can_list_pods() -> bool:
            try:
                sa_core.list_namespaced_pod(namespace)
                return True
            except ApiException as exc:
                if exc.status != 403:
                    raise
                return False

        wait_for(can_list_pods, 30, "the RoleBinding to take effect")
        with pytest.raises(ApiException) as still_denied:
            sa_core.list_namespaced_secret(namespace)
        assert still_denied.value.status == 403
    finally:
        sa_api.close()


def test_restart_apiserver_keeps_etcd_state(
    control_plane: LocalControlPlane, admin_api: client.ApiClient, namespace: str
) -> None:
    core = client.CoreV1Api(admin_api)
    core.create_namespaced_config_map(
        namespace,
        client.V1ConfigMap(metadata=client.V1ObjectMeta(name="survivor"), data={"k": "v"}),
    )
    server = control_plane.server
    started = time.monotonic()
    control_plane.restart_apiserver()
    assert time.monotonic() - started < 120
    assert control_plane.server == server  # same port, existing kubeconfigs stay valid
    assert core.read_namespaced_config_map("survivor", namespace).data == {"k": "v"}
