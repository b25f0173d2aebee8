"""Shortest paths inside one strongly connected component, for the cycle part of a lasso.

This is the project's own copy of what `networkx.shortest_path` did here (its bidirectional
breadth-first search, `_bidirectional_pred_succ`), on plain dicts built in the same order, so
every trace is the path networkx gave before. Owning it matters for two reasons:

- the watchdog (checker.limits) may stop a search only in code the project owns; a limit that
  hit while networkx ran, or worse while networkx was being imported lazily, left a half-imported
  networkx that broke every later instance of the process;
- building a networkx graph of a component edge by edge cost more than the search itself.
"""
from __future__ import annotations


class Component:
    """A directed graph with insertion-ordered successors and predecessors; each edge keeps the
    label ids of the moves it stands for, in the order they were added."""

    def __init__(self, nodes=()):
        self.succ: dict[int, dict[int, list[int]]] = {}
        self.pred: dict[int, dict[int, list[int]]] = {}
        for n in nodes:
            self.add_node(n)

    def __contains__(self, node: int) -> bool:
        return node in self.succ

    def add_node(self, node: int) -> None:
        if node not in self.succ:
            self.succ[node] = {}
            self.pred[node] = {}

    def add_edge(self, u: int, v: int, lid: int) -> None:
        self.add_node(u)
        self.add_node(v)
        labels = self.succ[u].get(v)
        if labels is None:
            labels = self.succ[u][v] = []
            self.pred[v][u] = labels
        labels.append(lid)

    def labels(self, u: int, v: int) -> list[int]:
        return self.succ[u][v]


def shortest_path(g: Component, source: int, target: int) -> list[int]:
    """The states of a shortest path from `source` to `target`: forward and backward
    breadth-first search, expanding the smaller fringe, stopping where they meet."""
    if source == target:
        return [source]
    pred: dict[int, int | None] = {source: None}
    succ: dict[int, int | None] = {target: None}
    forward, backward = [source], [target]
    meet = None
    while forward and backward and meet is None:
        if len(forward) <= len(backward):
            level, forward = forward, []
            for v in level:
                for w in g.succ[v]:
                    if w not in pred:
                        forward.append(w)
                        pred[w] = v
                    if w in succ:
                        meet = w
                        break
                if meet is not None:
                    break
        else:
            level, backward = backward, []
            for v in level:
                for w in g.pred[v]:
                    if w not in succ:
                        succ[w] = v
                        backward.append(w)
                    if w in pred:
                        meet = w
                        break
                if meet is not None:
                    break
    if meet is None:
        raise ValueError(f"no path from state {source} to state {target}")  # inside one component: a bug
    path: list[int] = []
    w: int | None = meet
    while w is not None:
        path.append(w)
        w = pred[w]
    path.reverse()
    w = succ[path[-1]]
    while w is not None:
        path.append(w)
        w = succ[w]
    return path
