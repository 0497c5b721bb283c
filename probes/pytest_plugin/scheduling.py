"""xdist: whole endpoints to workers, decided up front, so each worker can prefetch its share.

`--dist loadgroup` is broken on pytest 9.2 + xdist 3.8 (docs/design-notes.md §1.1), and the dynamic
schedulers hand out work as workers finish, which a worker cannot predict. This scheduler is
static and deterministic: the distinct groups (one per host tag, every model's cases of it:
probes/pytest_plugin/hooks.py `_group_of`) of the collection are sorted, and
group i goes to worker gw(i % n). Every worker computes the same assignment from the same
collection (`my_share`) and starts all its probes at once; the controller sends each worker
exactly those items. A replacement worker (after a crash) gets the leftovers and probes them
lazily. Keeping a host on one worker, for every model it serves, keeps the per-provider
concurrency cap true for the host across the round's models (the cap is per process).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

GroupOf = Callable[[str], str]


def worker_index(workerid: str, workercount: int) -> int | None:
    """gw3 -> 3; None for a replacement worker (its id is beyond the initial count)."""
    try:
        index = int(workerid.removeprefix("gw"))
    except ValueError:
        return None
    return index if index < workercount else None


def assignment(nodeids: Sequence[str], group_of: GroupOf, workercount: int) -> dict[str, int]:
    """nodeid -> worker index: sorted distinct groups, round-robin."""
    groups = sorted({group_of(n) for n in nodeids})
    position = {g: i for i, g in enumerate(groups)}
    return {n: position[group_of(n)] % workercount for n in nodeids}


def case_id_of(nodeid: str) -> str | None:
    """The parametrize id of `probes/test_round.py::test_case[<id>]` (ids never hold brackets)."""
    if not nodeid.endswith("]") or "[" not in nodeid:
        return None
    return nodeid[nodeid.index("[") + 1:-1]


class ProviderScheduling:
    """The xdist scheduler protocol (xdist/scheduler/protocol.py) with a static assignment."""

    def __init__(self, config: pytest.Config, log: Any, group_of: GroupOf) -> None:
        from xdist.remote import Producer
        from xdist.workermanage import parse_tx_spec_config

        self.numnodes = len(parse_tx_spec_config(config))
        self.config = config
        self.log = log.providersched if log is not None else Producer("providersched")
        self.group_of = group_of
        self.collection: list[str] | None = None
        self.node2collection: dict[Any, list[str]] = {}
        self.node2pending: dict[Any, list[int]] = {}
        self.leftovers: list[str] = []  # items of a crashed worker, waiting for a live one

    @property
    def nodes(self) -> list[Any]:
        return list(self.node2pending)

    @property
    def collection_is_completed(self) -> bool:
        return len(self.node2collection) >= self.numnodes

    @property
    def tests_finished(self) -> bool:
        if not self.collection_is_completed or self.leftovers:
            return False
        return all(len(p) < 2 for p in self.node2pending.values())

    @property
    def has_pending(self) -> bool:
        return bool(self.leftovers) or any(self.node2pending.values())

    def add_node(self, node: Any) -> None:
        assert node not in self.node2pending
        self.node2pending[node] = []

    def add_node_collection(self, node: Any, collection: Sequence[str]) -> None:
        assert node in self.node2pending
        if self.collection is not None and list(collection) != self.collection:
            self.log(f"{node.gateway.id} collected different tests; it gets no work")
            return
        self.node2collection[node] = list(collection)

    def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
        self.node2pending[node].remove(item_index)

    def mark_test_pending(self, item: str) -> None:
        self.leftovers.insert(0, item)
        self._hand_out_leftovers()

    def remove_pending_tests_from_node(self, node: Any, indices: Sequence[int]) -> None:
        raise NotImplementedError("work stealing is not supported by the provider scheduler")

    def remove_node(self, node: Any) -> str | None:
        """Forget a node; if it died with work, its first pending item crashed, the rest wait."""
        pending = self.node2pending.pop(node)
        collection = self.node2collection.get(node, self.collection or [])
        if not pending:
            return None
        crashitem = collection[pending[0]]
        self.leftovers.extend(collection[i] for i in pending[1:])
        self._hand_out_leftovers()
        return crashitem

    def schedule(self) -> None:
        assert self.collection_is_completed
        if self.collection is not None:  # a replacement worker joined
            self._hand_out_leftovers()
            return
        if not self._same_collections():
            return
        self.collection = next(iter(self.node2collection.values()))
        by_index = {worker_index(n.gateway.id, self.numnodes): n for n in self.nodes}
        plan = assignment(self.collection, self.group_of, self.numnodes)
        work: dict[Any, list[int]] = {n: [] for n in self.nodes}
        for i, nodeid in enumerate(self.collection):
            node = by_index.get(plan[nodeid])
            if node is None:
                self.leftovers.append(nodeid)
            else:
                work[node].append(i)
        for node, indices in work.items():
            if indices:
                self.node2pending[node].extend(indices)
                node.send_runtest_some(indices)
        self._hand_out_leftovers()
        if not self.leftovers:
            for node in self.nodes:
                node.shutdown()  # everything is handed out: each worker runs its queue and stops

    def _hand_out_leftovers(self) -> None:
        live = [n for n in self.nodes if not n.shutting_down and n in self.node2collection]
        if not live or not self.leftovers:
            return
        for i, nodeid in enumerate(self.leftovers):
            node = live[i % len(live)]
            index = self.node2collection[node].index(nodeid)
            self.node2pending[node].append(index)
            node.send_runtest_some([index])
        self.leftovers.clear()
        for node in live:
            node.shutdown()

    def _same_collections(self) -> bool:
        from xdist.report import report_collection_diff

        items = list(self.node2collection.items())
        first, col = items[0]
        same = True
        for node, other in items[1:]:
            msg = report_collection_diff(col, other, first.gateway.id, node.gateway.id)
            if msg:
                same = False
                self.log(msg)
                self.config.hook.pytest_collectreport(
                    report=pytest.CollectReport(nodeid=node.gateway.id, outcome="failed", longrepr=msg, result=[]))
        return same
