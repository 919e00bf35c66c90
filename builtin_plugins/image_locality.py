"""ImageLocality: favours nodes that already hold the pod's container images.

kube-scheduler's formula: each of the pod's image sources (init and regular container images and
image volumes, `spec.volumes[].image.reference`) present on the node adds
int(size * nodesWithImage / totalNodes); the sum is clamped to [23MiB, 1000MiB * imageSources]
and mapped linearly onto 0..100.

Batch form: an inverted index image name -> interned image sets holding it (kept incrementally;
image sets are interned and never reused), so one score call costs O(pod images x sets holding
them) plus one gather, and the result is broadcast to nodes through the `image_set` column.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from kubeberth import MAX_NODE_SCORE, MemoKey, NodeTableView, NodeView, PodView, ScoreScope, hookimpl
from kubeberth.api.signing import IMAGE_NAMES_SIGNER, SignFragment, image_names_signer

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
_MEMO_KEY: MemoKey[tuple[tuple[str, ...], int]] = MemoKey("ImageLocality.images")


def normalized_image_name(name: str) -> str:
    """A name without a tag (no ':' after the last '/') means ':latest'."""
    if name.rfind(":") <= name.rfind("/"):
        name += ":latest"
    return name


def pod_images(pod: PodView) -> tuple[tuple[str, ...], int]:
    """(normalized image of every init and regular container and image volume, their count); memoised.

    Mirrors v1.37 sumImageScores: an image volume counts like a container, present or not.
    """
    found = _MEMO_KEY.get(pod)
    if found is None:
        spec = pod.raw.get("spec") or {}
        containers = [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]
        names = [c.get("image") or "" for c in containers]
        for volume in spec.get("volumes") or ():
            source = volume.get("image")
            if isinstance(source, dict):
                names.append(source.get("reference") or "")
        found = (tuple(normalized_image_name(name) for name in names), len(names))
        _MEMO_KEY.set(pod, found)
    return found


def calculate_priority(sum_scores: np.ndarray, num_containers: int) -> np.ndarray:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if max_threshold <= MIN_THRESHOLD:  # no containers: nothing can score
        return np.zeros(sum_scores.shape, dtype=np.int64)
    clamped = np.clip(sum_scores, MIN_THRESHOLD, max_threshold)
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class _ImageIndex:
    """image name -> (image set ids holding it, the size each set reports), grown incrementally."""

    def __init__(self) -> None:
        self.seen_sets = 0
        self.lists: dict[str, tuple[list[int], list[int]]] = {}
        self.arrays: dict[str, tuple[int, np.ndarray, np.ndarray]] = {}

    def update(self, table: NodeTableView) -> None:
        values = table.image_sets.values
        for set_id in range(self.seen_sets, len(values)):
            for image, size in values[set_id].items():
                ids, sizes = self.lists.setdefault(image, ([], []))
                ids.append(set_id)
                sizes.append(size)
        self.seen_sets = len(values)

    def holders(self, image: str) -> tuple[np.ndarray, np.ndarray] | None:
        lists = self.lists.get(image)
        if lists is None:
            return None
        cached = self.arrays.get(image)
        if cached is None or cached[0] != len(lists[0]):
            cached = (len(lists[0]), np.asarray(lists[0], dtype=np.int64), np.asarray(lists[1], dtype=np.float64))
            self.arrays[image] = cached
        return cached[1], cached[2]


class ImageLocality:
    name = "ImageLocality"
    score_scope = ScoreScope.NODE  # raw score: the pod and this node's row only

    def __init__(self) -> None:
        self._indexes: weakref.WeakKeyDictionary[NodeTableView, _ImageIndex] = weakref.WeakKeyDictionary()

    def _index(self, table: NodeTableView) -> _ImageIndex:
        index = self._indexes.get(table)
        if index is None:
            index = self._indexes[table] = _ImageIndex()
        if index.seen_sets != len(table.image_sets.values):
            index.update(table)
        return index

    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment]:
        """kube-scheduler's ImageLocality.SignPod: the normalized image names of every container."""
        return [SignFragment(IMAGE_NAMES_SIGNER, image_names_signer(pod))]

    @hookimpl
    def score(self, state: dict[str, Any], pod: PodView, nodes: NodeView) -> np.ndarray:
        images, num_containers = pod_images(pod)
        table = nodes.table
        total_nodes = len(table)
        if not images or total_nodes == 0:
            return np.zeros(len(nodes), dtype=np.int64)
        index = self._index(table)
        per_set: np.ndarray | None = None
        for image in images:
            held = index.holders(image)
            if held is None:
                continue
            ids, sizes = held
            spread = float(table.image_node_count[image]) / float(total_nodes)
            if per_set is None:
                per_set = np.zeros(len(table.image_sets.values), dtype=np.int64)
            per_set[ids] += np.trunc(sizes * spread).astype(np.int64)  # ids are unique per image
        if per_set is None:
            return np.zeros(len(nodes), dtype=np.int64)
        scores = calculate_priority(per_set, num_containers)
        return scores[table.image_set[nodes.rows]]
