"""Matchings in general graphs: an exact maximum-weight matching and a maximum-cardinality one.

Pure Python, integer weights only (exact: no floating point anywhere).

* :func:`max_weight_matching` is the primal-dual blossom algorithm of Edmonds in its O(n³)
  form (Gabow 1976, Galil 1986 "Efficient algorithms for finding maximum matching in graphs"):
  alternating trees grown from every free vertex, odd cycles shrunk to blossoms, and dual
  variables on vertices and blossoms adjusted by the smallest of four slacks until an augmenting
  path of zero reduced cost appears.  It does not force a maximum cardinality: callers that need
  one (the Swiss pairing's completion criterion) put a dominating term in every edge weight.
  :func:`max_weight_matching_tight` also says which edges are tight under the optimal dual
  solution it ends with (a superset of the edges of every matching of greatest weight): the
  Swiss pairing solves its long lexicographic orders in steps, each on the edges the one
  before left.
* :func:`max_cardinality_matching` is Edmonds' unweighted algorithm (BFS with blossom
  contraction), started from a greedy matching, used to test whether a set of players can all
  be paired.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence

__all__ = [
    "max_weight_matching",
    "max_weight_matching_tight",
    "max_cardinality_matching",
    "has_perfect_matching",
]


def max_weight_matching(
    vertex_count: int, edges: Sequence[tuple[int, int, int]], low_bits: int | Sequence[int] = 0
) -> list[int]:
    """A matching of greatest total weight: ``mate[v]`` is v's partner, or -1.

    ``edges`` are ``(i, j, weight)`` with ``0 <= i, j < vertex_count``, ``i != j`` and integer
    weights; at most one edge per pair of vertices.  Edges of weight <= 0 never help and may
    be left out by the caller.

    ``low_bits``: the caller's promise that the lowest ``low_bits`` bits of the weights only
    break ties (no matching's total of them reaches ``2**low_bits``, so they never carry into
    the bits above).  The matching is then solved in two steps, each exact: first on the high
    parts alone (``weight >> low_bits``, short integers), which gives an optimal dual solution;
    an edge whose reduced cost under it is not zero is in no matching that is optimal on the
    high parts (complementary slackness), so in none optimal on the whole weights either; the
    whole weights are then solved on the remaining (tight) edges only.  Same optimum, found on
    far fewer edges and shorter integers when the low part is a long tie-break field.  A
    sequence of such promises (decreasing) is a chain of steps, each on the edges the one
    before kept: the coarse steps have many ties, which the algorithm takes many at a time.
    """
    return max_weight_matching_tight(vertex_count, edges, low_bits, False)[0]


def max_weight_matching_tight(
    vertex_count: int,
    edges: Sequence[tuple[int, int, int]],
    low_bits: int | Sequence[int] = 0,
    want_tight: bool = True,
) -> tuple[list[int], list[bool]]:
    """:func:`max_weight_matching`, and which of ``edges`` can be in a matching of greatest
    weight: every one of those has a zero reduced cost under the optimal dual solution the
    last step ends with (complementary slackness), and so does every edge True here (some
    edges True may be in no matching of greatest weight).  With ``want_tight`` False the
    second list is empty."""
    levels = [low_bits] if isinstance(low_bits, int) else list(low_bits)
    kept = list(range(len(edges)))
    for bits in levels:
        if bits <= 0 or not kept:
            continue
        high = [(edges[k][0], edges[k][1], edges[k][2] >> bits) for k in kept]
        _mate, tight = _blossom(vertex_count, high, True)
        if tight is not None:  # (None: not a dual solution after all; cannot happen)
            kept = [k for k, keep in zip(kept, tight, strict=True) if keep]
    mate, tight = _blossom(vertex_count, [edges[k] for k in kept], want_tight)
    result = [False] * len(edges)
    if not want_tight:
        return mate, []
    if tight is None:  # (cannot happen: then every edge the steps kept)
        tight = [True] * len(kept)
    for k, keep in zip(kept, tight, strict=True):
        result[k] = keep
    return mate, result


def _blossom(
    vertex_count: int, edges: Sequence[tuple[int, int, int]], want_tight: bool
) -> tuple[list[int], list[bool] | None]:
    """The matching (``mate``), and with ``want_tight`` which edges have a zero reduced cost
    under the optimal dual solution the algorithm ends with (vertex and blossom duals); None
    if some reduced cost came out negative (no dual solution: a bug, never seen)."""
    n = vertex_count
    mate_vertex = [-1] * n
    if n == 0 or not edges:
        return mate_vertex, [True] * len(edges)
    # Doubling keeps every dual variable and every slack an even integer.
    ends: list[int] = []
    weight: list[int] = []
    for i, j, w in edges:
        if i == j:
            raise ValueError("an edge must join two different vertices")
        ends.append(i)
        ends.append(j)
        weight.append(2 * w)
    edge_count = len(weight)
    top = max(0, max(weight))
    # neighbours[v]: the edge ends (2k or 2k+1) whose *other* end is a neighbour of v.
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for k in range(edge_count):
        neighbours[ends[2 * k]].append(2 * k + 1)
        neighbours[ends[2 * k + 1]].append(2 * k)
    # The same, as (edge end, its vertex, edge) triples: what the scan reads.
    scan_ends: list[list[tuple[int, int, int]]] = [
        [(p, ends[p], p >> 1) for p in neighbours[v]] for v in range(n)
    ]

    mate = [-1] * n  # the edge end p whose vertex ends[p] is v's partner
    label = [0] * (2 * n)  # 0 free, 1 outer (S), 2 inner (T); 5 marks a scan
    label_end = [-1] * (2 * n)
    in_blossom = list(range(n))
    parent = [-1] * (2 * n)
    children: list[list[int] | None] = [None] * (2 * n)
    base = list(range(n)) + [-1] * n
    child_ends: list[list[int] | None] = [None] * (2 * n)
    best_edge = [-1] * (2 * n)
    best_edges: list[list[int] | None] = [None] * (2 * n)
    unused = list(range(n, 2 * n))
    dual = [top] * n + [0] * n
    allowed = [False] * edge_count
    queue: list[int] = []
    # best_slack[b] is the slack of best_edge[b] while best_epoch[b] is the current epoch (the
    # duals change only between epochs): saves recomputing it on every comparison.
    best_slack = [0] * (2 * n)
    best_epoch = [-1] * (2 * n)
    epoch = 0

    def slack(k: int) -> int:
        return dual[ends[2 * k]] + dual[ends[2 * k + 1]] - weight[k]

    roots: dict[int, int] = {}  # top-level blossom -> root of its tree (this stage's labels)

    def tree_root(b: int) -> int:
        path = []
        while True:
            r = roots.get(b)
            if r is not None:
                break
            p = label_end[b]
            if p == -1:
                r = b
                break
            path.append(b)
            b = in_blossom[ends[p]]
        roots[b] = r
        for x in path:
            roots[x] = r
        return r

    def leaves(b: int) -> Iterator[int]:
        if b < n:
            yield b
            return
        stack = [b]
        while stack:
            t = stack.pop()
            if t < n:
                yield t
            else:
                stack.extend(children[t])  # type: ignore[arg-type]

    def assign_label(w: int, t: int, p: int) -> None:
        while True:
            b = in_blossom[w]
            label[w] = label[b] = t
            label_end[w] = label_end[b] = p
            best_edge[w] = best_edge[b] = -1
            if t == 1:
                queue.extend(leaves(b))
                return
            # An inner blossom: its base's partner becomes outer.
            m = mate[base[b]]
            w, t, p = ends[m], 1, m ^ 1

    def scan_blossom(v: int, w: int) -> int:
        """The base of the new blossom closed by an edge v-w, or -1 for an augmenting path."""
        path = []
        found = -1
        while v != -1 or w != -1:
            b = in_blossom[v]
            if label[b] & 4:
                found = base[b]
                break
            path.append(b)
            label[b] = 5
            if label_end[b] == -1:
                v = -1
            else:
                v = ends[label_end[b]]
                b = in_blossom[v]
                v = ends[label_end[b]]
            if w != -1:
                v, w = w, v
        for b in path:
            label[b] = 1
        return found

    def add_blossom(root: int, k: int) -> None:
        v, w = ends[2 * k], ends[2 * k + 1]
        bb = in_blossom[root]
        bv = in_blossom[v]
        bw = in_blossom[w]
        b = unused.pop()
        base[b] = root
        parent[b] = -1
        parent[bb] = b
        path: list[int] = []
        endps: list[int] = []
        while bv != bb:
            parent[bv] = b
            path.append(bv)
            endps.append(label_end[bv])
            v = ends[label_end[bv]]
            bv = in_blossom[v]
        path.append(bb)
        path.reverse()
        endps.reverse()
        endps.append(2 * k)
        while bw != bb:
            parent[bw] = b
            path.append(bw)
            endps.append(label_end[bw] ^ 1)
            w = ends[label_end[bw]]
            bw = in_blossom[w]
        children[b] = path
        child_ends[b] = endps
        label[b] = 1
        label_end[b] = label_end[bb]
        dual[b] = 0
        for leaf in leaves(b):
            if label[in_blossom[leaf]] == 2:
                queue.append(leaf)
            in_blossom[leaf] = b
        best_to = [-1] * (2 * n)
        for sub in path:
            if best_edges[sub] is None:
                lists = [[p // 2 for p in neighbours[leaf]] for leaf in leaves(sub)]
            else:
                lists = [best_edges[sub]]  # type: ignore[list-item]
            for edge_list in lists:
                for e in edge_list:
                    i, j = ends[2 * e], ends[2 * e + 1]
                    if in_blossom[j] == b:
                        i, j = j, i
                    bj = in_blossom[j]
                    if (
                        bj != b
                        and label[bj] == 1
                        and (best_to[bj] == -1 or slack(e) < slack(best_to[bj]))
                    ):
                        best_to[bj] = e
            best_edges[sub] = None
            best_edge[sub] = -1
        kept = [e for e in best_to if e != -1]
        best_edges[b] = kept
        best = -1
        best_value = 0
        for e in kept:
            value = slack(e)
            if best == -1 or value < best_value:
                best, best_value = e, value
        best_edge[b] = best
        best_slack[b] = best_value
        best_epoch[b] = epoch

    def expand_blossom(b: int, end_stage: bool) -> None:
        for s in children[b]:  # type: ignore[union-attr]
            parent[s] = -1
            if s < n:
                in_blossom[s] = s
            elif end_stage and dual[s] == 0:
                expand_blossom(s, end_stage)
            else:
                for leaf in leaves(s):
                    in_blossom[leaf] = s
        if not end_stage and label[b] == 2:
            kids = children[b]
            kends = child_ends[b]
            assert kids is not None and kends is not None
            entry = in_blossom[ends[label_end[b] ^ 1]]
            j = kids.index(entry)
            if j & 1:
                j -= len(kids)
                step, trick = 1, 0
            else:
                step, trick = -1, 1
            p = label_end[b]
            while j != 0:
                label[ends[p ^ 1]] = 0
                label[ends[kends[j - trick] ^ trick ^ 1]] = 0
                assign_label(ends[p ^ 1], 2, p)
                allowed[kends[j - trick] // 2] = True
                j += step
                p = kends[j - trick] ^ trick
                allowed[p // 2] = True
                j += step
            bv = kids[j]
            label[ends[p ^ 1]] = label[bv] = 2
            label_end[ends[p ^ 1]] = label_end[bv] = p
            best_edge[bv] = -1
            j += step
            while kids[j] != entry:
                bv = kids[j]
                if label[bv] == 1:
                    j += step
                    continue
                reached = -1
                for leaf in leaves(bv):
                    if label[leaf] != 0:
                        reached = leaf
                        break
                if reached != -1:
                    label[reached] = 0
                    label[ends[mate[base[bv]]]] = 0
                    assign_label(reached, 2, label_end[reached])
                j += step
        label[b] = label_end[b] = -1
        children[b] = child_ends[b] = None
        base[b] = -1
        best_edges[b] = None
        best_edge[b] = -1
        unused.append(b)

    def augment_blossom(b: int, v: int) -> None:
        t = v
        while parent[t] != b:
            t = parent[t]
        if t >= n:
            augment_blossom(t, v)
        kids = children[b]
        kends = child_ends[b]
        assert kids is not None and kends is not None
        i = j = kids.index(t)
        if i & 1:
            j -= len(kids)
            step, trick = 1, 0
        else:
            step, trick = -1, 1
        while j != 0:
            j += step
            t = kids[j]
            p = kends[j - trick] ^ trick
            if t >= n:
                augment_blossom(t, ends[p])
            j += step
            t = kids[j]
            if t >= n:
                augment_blossom(t, ends[p ^ 1])
            mate[ends[p]] = p ^ 1
            mate[ends[p ^ 1]] = p
        children[b] = kids[i:] + kids[:i]
        child_ends[b] = kends[i:] + kends[:i]
        base[b] = base[children[b][0]]  # type: ignore[index]

    def augment_matching(k: int) -> None:
        for s, p in ((ends[2 * k], 2 * k + 1), (ends[2 * k + 1], 2 * k)):
            while True:
                bs = in_blossom[s]
                if bs >= n:
                    augment_blossom(bs, s)
                mate[s] = p
                if label_end[bs] == -1:
                    break
                t = ends[label_end[bs]]
                bt = in_blossom[t]
                s = ends[label_end[bt]]
                j = ends[label_end[bt] ^ 1]
                if bt >= n:
                    augment_blossom(bt, j)
                mate[j] = label_end[bt]
                p = label_end[bt] ^ 1

    for _stage in range(n):
        for i in range(2 * n):
            label[i] = 0
            best_edge[i] = -1
        for i in range(n, 2 * n):
            best_edges[i] = None
        for i in range(edge_count):
            allowed[i] = False
        queue.clear()
        for v in range(n):
            if mate[v] == -1 and label[in_blossom[v]] == 0:
                assign_label(v, 1, -1)
        augmented = False
        # After the stage's first augmentation the scan goes on without changing any dual:
        # every further augmenting path of tight edges between two trees that no augmentation
        # has touched yet (their roots not in ``spent``) is taken too; the stage ends when
        # the queue is empty.  Each is an augmentation the next stage could have begun with.
        spent: set[int] = set()
        roots.clear()
        while True:
            while queue:
                v = queue.pop()
                bv = in_blossom[v]  # changes only when a blossom is added (below)
                if augmented and tree_root(bv) in spent:
                    continue
                dual_v = dual[v]  # duals change only between the scans
                for p, w, k in scan_ends[v]:
                    bw = in_blossom[w]
                    if bv == bw:
                        continue
                    if augmented and label[bw] != 0 and tree_root(bw) in spent:
                        continue
                    k_slack = 0
                    if not allowed[k]:
                        k_slack = dual_v + dual[w] - weight[k]
                        if k_slack <= 0:
                            allowed[k] = True
                        elif augmented:
                            continue  # no more dual changes in this stage: no need of slacks
                    if allowed[k]:
                        if label[bw] == 0:
                            assign_label(w, 2, p ^ 1)
                        elif label[bw] == 1:
                            root = scan_blossom(v, w)
                            if root >= 0:
                                add_blossom(root, k)
                                bv = in_blossom[v]
                            else:
                                spent.add(tree_root(bv))
                                spent.add(tree_root(bw))
                                augment_matching(k)
                                augmented = True
                                break
                        elif label[w] == 0:
                            label[w] = 2
                            label_end[w] = p ^ 1
                    else:
                        # The least-slack edge to a T-blossom's S-blossom, or to a free vertex.
                        if label[bw] == 1:
                            b = bv
                        elif label[w] == 0:
                            b = w
                        else:
                            continue
                        e = best_edge[b]
                        if e == -1:
                            best_edge[b] = k
                            best_slack[b] = k_slack
                            best_epoch[b] = epoch
                        else:
                            if best_epoch[b] != epoch:
                                best_slack[b] = slack(e)
                                best_epoch[b] = epoch
                            if k_slack < best_slack[b]:
                                best_edge[b] = k
                                best_slack[b] = k_slack
            if augmented:
                break
            delta_type = 1
            delta = min(dual[:n])
            delta_edge = -1
            delta_blossom = -1
            for v in range(n):
                e = best_edge[v]
                if e != -1 and label[in_blossom[v]] == 0:
                    if best_epoch[v] == epoch:
                        d = best_slack[v]
                    else:
                        d = dual[ends[2 * e]] + dual[ends[2 * e + 1]] - weight[e]
                    if d < delta:
                        delta, delta_type, delta_edge = d, 2, e
            for b in range(2 * n):
                e = best_edge[b]
                if e != -1 and parent[b] == -1 and label[b] == 1:
                    if best_epoch[b] == epoch:
                        d = best_slack[b] // 2
                    else:
                        d = (dual[ends[2 * e]] + dual[ends[2 * e + 1]] - weight[e]) // 2
                    if d < delta:
                        delta, delta_type, delta_edge = d, 3, e
            for b in range(n, 2 * n):
                if base[b] >= 0 and parent[b] == -1 and label[b] == 2 and dual[b] < delta:
                    delta, delta_type, delta_blossom = dual[b], 4, b
            epoch += 1
            for v in range(n):
                lab = label[in_blossom[v]]
                if lab == 1:
                    dual[v] -= delta
                elif lab == 2:
                    dual[v] += delta
            for b in range(n, 2 * n):
                if base[b] >= 0 and parent[b] == -1:
                    if label[b] == 1:
                        dual[b] += delta
                    elif label[b] == 2:
                        dual[b] -= delta
            if delta_type == 1:
                break
            if delta_type == 2:
                allowed[delta_edge] = True
                i, j = ends[2 * delta_edge], ends[2 * delta_edge + 1]
                if label[in_blossom[i]] == 0:
                    i, j = j, i
                queue.append(i)
            elif delta_type == 3:
                allowed[delta_edge] = True
                queue.append(ends[2 * delta_edge])
            else:
                expand_blossom(delta_blossom, False)
        if not augmented:
            break
        for b in range(n, 2 * n):
            if parent[b] == -1 and base[b] >= 0 and label[b] == 1 and dual[b] == 0:
                expand_blossom(b, True)

    for v in range(n):
        if mate[v] >= 0:
            mate_vertex[v] = ends[mate[v]]
    tight: list[bool] = []
    if want_tight:
        # The reduced cost of edge i-j: dual[i] + dual[j] - weight, plus twice the dual of
        # every blossom holding both ends (blossom duals are kept halved, as the slacks are
        # doubled); only an edge inside one top-level blossom has any such blossom.  Those
        # holding both are the smallest one that does and the ones above it: for each vertex,
        # its blossoms map to the sum of their duals from there up (once per vertex).
        above: list[dict[int, int] | None] = [None] * n
        for k in range(edge_count):
            i, j = ends[2 * k], ends[2 * k + 1]
            cost = dual[i] + dual[j] - weight[k]
            if in_blossom[i] == in_blossom[j]:
                around = above[i]
                if around is None:
                    chain = []
                    b = parent[i]
                    while b != -1:
                        chain.append(b)
                        b = parent[b]
                    around = {}
                    total = 0
                    for b in reversed(chain):
                        total += dual[b]
                        around[b] = total
                    above[i] = around
                b = parent[j]
                while b not in around:  # (the top-level blossom holds both)
                    b = parent[b]
                cost += 2 * around[b]
            if cost < 0:
                return mate_vertex, None
            tight.append(cost == 0)
    return mate_vertex, tight


def max_cardinality_matching(vertex_count: int, adjacency: Sequence[Sequence[int]]) -> list[int]:
    """A matching with as many pairs as possible: ``mate[v]`` is v's partner, or -1.

    ``adjacency[v]`` lists v's neighbours (symmetric).  Edmonds' algorithm, from a greedy start.
    """
    n = vertex_count
    match = [-1] * n
    for v in range(n):
        if match[v] == -1:
            for w in adjacency[v]:
                if match[w] == -1 and w != v:
                    match[v] = w
                    match[w] = v
                    break

    for root in range(n):
        if match[root] == -1:
            _augment_from(n, adjacency, match, root)
    return match


def _augment_from(n: int, adjacency: Sequence[Sequence[int]], match: list[int], root: int) -> bool:
    """Search an augmenting path from the free vertex ``root``; apply it if found."""
    used = [False] * n
    pred = [-1] * n
    blossom_base = list(range(n))
    used[root] = True
    todo = deque([root])

    def lowest_common(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = blossom_base[a]
            seen[a] = True
            if match[a] == -1:
                break
            a = pred[match[a]]
        while True:
            b = blossom_base[b]
            if seen[b]:
                return b
            b = pred[match[b]]

    def mark(v: int, b: int, child: int, in_cycle: list[bool]) -> None:
        while blossom_base[v] != b:
            in_cycle[blossom_base[v]] = True
            in_cycle[blossom_base[match[v]]] = True
            pred[v] = child
            child = match[v]
            v = pred[match[v]]

    while todo:
        v = todo.popleft()
        for to in adjacency[v]:
            if blossom_base[v] == blossom_base[to] or match[v] == to:
                continue
            if to == root or (match[to] != -1 and pred[match[to]] != -1):
                current = lowest_common(v, to)
                in_cycle = [False] * n
                mark(v, current, to, in_cycle)
                mark(to, current, v, in_cycle)
                for i in range(n):
                    if in_cycle[blossom_base[i]]:
                        blossom_base[i] = current
                        if not used[i]:
                            used[i] = True
                            todo.append(i)
            elif pred[to] == -1:
                pred[to] = v
                if match[to] == -1:
                    # Flip the path root ... v-to.
                    w = to
                    while w != -1:
                        pw = pred[w]
                        ppw = match[pw]
                        match[w] = pw
                        match[pw] = w
                        w = ppw
                    return True
                used[match[to]] = True
                todo.append(match[to])
    return False


def has_perfect_matching(vertex_count: int, adjacency: Sequence[Sequence[int]]) -> bool:
    """Whether every vertex can be matched."""
    if vertex_count % 2:
        return False
    mate = max_cardinality_matching(vertex_count, adjacency)
    return all(m != -1 for m in mate)
