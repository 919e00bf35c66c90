"""The story of one scheduling decision, in the terminal.

One renderer for `kubeberth explain NAMESPACE/POD` (a record a running scheduler serves on
/debug/decisions/<namespace>/<pod>, fetched by kubeberth.apps.decisions_client) and `kubeberth simulate --explain` (a record of the
simulation): both render CycleRecord.as_dict(). `render_story` adds what simulate knows beyond
the cycles: that a pod was gated, preempted, left to another scheduler or already bound, and
every cycle of a pod (a preemptor's first cycle is the one that evicted).
"""

from __future__ import annotations

from typing import Any

from .metrics import status_label


def _ms(ns: int) -> str:
    return f"{ns / 1e6:.2f} ms"


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip() for r in rows]


def render(d: dict[str, Any]) -> str:
    """A decision record (CycleRecord.as_dict()) as text: why this node, or why Pending."""
    lines = [f"Pod {d['pod']}" + (f"  (uid {d['uid']})" if d.get("uid") else "")]
    result = d.get("result") or "?"
    binding = d.get("binding") or None
    if result == "Scheduled":
        if binding and binding.get("result") != "Bound":
            lines.append(f"  Result:      assumed on {d.get('node')}, then binding {binding['result'].lower()}: {binding.get('message', '')}")
        else:
            lines.append(f"  Result:      Scheduled on {d.get('node')}")
    else:
        lines.append(f"  Result:      {result}")
        if d.get("message"):
            label = "FailedScheduling" if result in ("Unschedulable", "Error") else "Message"
            lines.append(f"  {label + ':':<12} {d['message']}")
    lines.append(
        f"  Attempt:     {d.get('attempt', 0)}   profile {d.get('profile')}   generation {d.get('generation')}"
    )
    if d.get("trace_id"):
        lines.append(f"  Trace:       {d['trace_id']}  (Jaeger: search k8s.pod.name={d['pod'].partition('/')[2]})")
    else:
        lines.append("  Trace:       not sampled (or tracing off)")
    for earlier in d.get("earlier_attempts") or ():
        line = f"  Earlier:     attempt {earlier['attempt']} {earlier['result']}"
        if earlier.get("node"):
            line += f" on {earlier['node']}"
        if earlier.get("message"):
            line += f": {earlier['message']}"
        pre = earlier.get("preemption")
        if pre:
            preempted = ", ".join(pre.get("victims") or ()) or "no pods"
            line += f"; preempted {preempted} to make room on {pre.get('nominated_node') or '?'}"
        if earlier.get("trace_id"):
            line += f" (trace {earlier['trace_id']})"
        lines.append(line)
    queue = d.get("queue_seconds") or {}
    if queue:
        lines.append("  Queued:      " + ", ".join(f"{q} {s:.3f}s" for q, s in queue.items()))
    lines.append(
        f"  Nodes:       {d.get('evaluated_nodes', 0)} evaluated, {d.get('feasible_nodes', 0)} feasible"
        + (f", cycle {d['duration_ms']:.2f} ms" if d.get("duration_ms") is not None else "")
    )
    batch_line = batch_summary(d.get("batch"))
    if batch_line:
        lines.append(f"  Batching:    {batch_line}")
    rejected: dict[str, dict[str, int]] = d.get("rejected") or {}
    names: dict[str, dict[str, list[str]]] = d.get("rejected_nodes") or {}
    if rejected:
        lines += ["", "Filter: nodes rejected, per plugin and reason"]
        for plugin, reasons in rejected.items():
            lines.append(f"  {plugin}: {sum(reasons.values())}")
            for reason, count in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
                sample = (names.get(plugin) or {}).get(reason) or []
                more = f" ({', '.join(sample)}{', ...' if count > len(sample) else ''})" if sample else ""
                lines.append(f"    {count:>5} × {reason}{more}")
    top: list[dict[str, Any]] = d.get("top_scores") or []
    if top:
        lines += ["", *_score_table(top, d.get("node"), int(d.get("score_ties") or 0))]
    pre = d.get("preemption")
    if pre and pre.get("pod_group"):
        victims = pre.get("victims") or []
        nominations = pre.get("nominations") or {}
        lines += [
            "",
            f"Pod group preemption ({pre.get('plugin')}) for PodGroup {pre['pod_group']}: "
            f"{len(nominations)} member(s) nominated ({', '.join(sorted(set(nominations.values()))) or 'none'}), "
            f"{len(victims)} victim(s)" + (f": {', '.join(victims)}" if victims else ""),
        ]
    elif pre:
        victims = pre.get("victims") or []
        lines += [
            "",
            f"Preemption ({pre.get('plugin')}): {pre.get('candidates', 0)} candidate node(s), "
            f"nominated {pre.get('nominated_node') or 'none'}, {len(victims)} victim(s)"
            + (f": {', '.join(victims)}" if victims else ""),
        ]
    if binding:
        steps = ", ".join(f"{p} {_ms(e - s)}" for p, s, e, _c in binding.get("steps") or ())
        lines += ["", f"Binding: {binding['result']} to {binding.get('node')} in {_ms(binding['end_ns'] - binding['start_ns'])}"
                  + (f" ({steps})" if steps else "")]
        if binding.get("nominated"):
            lines.append(f"  status.nominatedNodeName set to {binding['nominated']} before PreBind")
        if binding.get("message") and binding["result"] != "Bound":
            lines.append(f"  {binding['message']}")
    plugins_run: list[dict[str, Any]] = d.get("plugins") or []
    if plugins_run:
        per_point: dict[str, float] = {}
        for step in plugins_run:
            per_point[step["point"]] = per_point.get(step["point"], 0.0) + step["ms"]
        lines += ["", "Extension points: " + ", ".join(f"{p} {ms:.2f} ms" for p, ms in per_point.items())]
        ran = _plugin_outcomes(plugins_run)
        if ran:
            pw = max(len(r[0]) for r in ran)
            nw = max(len(r[1]) for r in ran)
            lines += ["", "Plugins that ran, in order (time, outcome)"]
            lines += [f"  {point:<{pw}}  {plugin:<{nw}}  {ms:8.3f} ms  {outcome}" for point, plugin, ms, outcome in ran]
    return "\n".join(lines)


def _score_table(top: list[dict[str, Any]], chosen: str | None, ties: int) -> list[str]:
    """The recorded top scores, the chosen node marked, and how many nodes tied for the best score."""
    plugins = list(top[0].get("plugins") or {})
    title = "Score: top nodes (weighted plugin scores; * chosen)"
    if ties > 1:
        title += f"; {ties} nodes tied at the best score {top[0]['total']:g}, one of them picked"
    rows = [["  NODE", "TOTAL", *plugins]]
    for t in top:
        mark = "* " if t["node"] == chosen else "  "
        rows.append([mark + t["node"], f"{t['total']:g}", *(f"{t['plugins'].get(p, 0):g}" for p in plugins)])
    return [title, *_table(rows)]


def _plugin_outcomes(steps: list[dict[str, Any]]) -> list[tuple[str, str, float, str]]:
    """One row per (extension point, plugin) that ran: total time and what it decided.

    Filters run in chunks of candidates, so their steps are summed (nodes seen, nodes rejected).
    """
    acc: dict[tuple[str, str], dict[str, Any]] = {}
    for step in steps:
        if not step.get("plugin"):
            continue  # recorded for the extension point as a whole (Reserve, Permit)
        row = acc.setdefault((step["point"], step["plugin"]), {"ms": 0.0, "nodes": 0, "rejected": 0, "code": ""})
        row["ms"] += step["ms"]
        row["nodes"] += int(step.get("nodes", 0))
        row["rejected"] += int(step.get("rejected", 0))
        code = step.get("code") or ""
        if code and row["code"] in ("", "SUCCESS"):
            row["code"] = code
        if "weight" in step:
            row["weight"] = step["weight"]
        if step.get("nominated"):
            row["nominated"] = step["nominated"]
        if step.get("error"):
            row["error"] = step["error"]
    out = []
    for (point, plugin), row in acc.items():
        code = row["code"]
        if code == "ERROR":
            outcome = f"error: {row['error']}" if row.get("error") else "error"
        elif point in ("Filter", "ExtenderFilter"):
            verb = "rejected" if row["rejected"] else "passed"
            count = row["rejected"] or row["nodes"]
            outcome = f"{verb} {count} of {row['nodes']} nodes"
        elif point in ("Score", "ExtenderPrioritize"):
            outcome = f"scored, weight {row.get('weight', 1)}"
        elif point == "PreFilter" and code == "SKIP":
            outcome = "Skip (its Filter does not run for this pod)"
        elif row.get("nominated"):
            outcome = f"nominated {row['nominated']}"
        else:
            outcome = status_label(code)
        out.append((point, plugin, row["ms"], outcome))
    return out



# What simulate can say about a pod besides its cycles (PodStory["state"]).
STATE_TITLES = {
    "gated": "Gated",
    "preempted": "Preempted",
    "other-scheduler": "Left to another scheduler",
    "already-bound": "Already bound in the input",
    "errored": "Failed with plugin errors",
    "scheduled": "Scheduled",
    "unschedulable": "Unschedulable",
    "pending": "Pending",
}


def _cycle_line(i: int, d: dict[str, Any]) -> str:
    result = d.get("result") or "?"
    what = f"Scheduled on {d.get('node')}" if result == "Scheduled" else f"{result}: {d.get('message', '')}"
    pre = d.get("preemption") or {}
    if pre.get("victims") and pre.get("pod_group"):
        what += f"  [PodGroup {pre['pod_group']} preempted {', '.join(pre['victims'])}]"
    elif pre.get("victims"):
        what += f"  [preempted {', '.join(pre['victims'])} on {pre.get('nominated_node')}]"
    elif pre.get("nominated_node"):
        what += f"  [nominated {pre['nominated_node']}]"
    return f"  {i:>3}. attempt {d.get('attempt', 0)}: {what}"


def render_story(story: dict[str, Any]) -> str:
    """A pod's whole story in a simulation: its state, then every cycle (one line each), the
    cycles that preempted in full, and the last cycle in full."""
    cycles: list[dict[str, Any]] = story.get("cycles") or []
    state = story.get("state", "")
    lines = [f"Pod {story['pod']}: {STATE_TITLES.get(state, state)}"]
    if story.get("detail"):
        lines.append(f"  {story['detail']}")
    if not cycles:
        lines.append("  No scheduling cycle ran for it in this simulation.")
        return "\n".join(lines)
    lines += ["", f"Cycles ({len(cycles)}):"]
    lines += [_cycle_line(i + 1, d) for i, d in enumerate(cycles)]
    for i, d in enumerate(cycles[:-1]):
        if (d.get("preemption") or {}).get("nominated_node") or (d.get("preemption") or {}).get("victims"):
            lines += ["", f"--- cycle {i + 1} (preemption) ---", render(d)]
    lines += ["", f"--- cycle {len(cycles)} (last) ---", render(cycles[-1])]
    return "\n".join(lines)


def batch_summary(batch: dict[str, Any] | None) -> str:
    """One line on what opportunistic batching did for a cycle ("" when it was off)."""
    if not batch:
        return ""
    hint, result = batch.get("hint"), batch.get("result")
    rescored = ", the node chosen last re-scored" if batch.get("rescored") else ""
    if hint and result == "hint_used":
        return (
            f"placed on {hint}, the next of the previous same-signature pod's scored candidates{rescored} "
            "(no full filter/score cycle; kube-scheduler's opportunistic batching)"
        )
    if hint:
        return f"hint {hint} no longer fit{rescored}; full cycle"
    why = batch.get("unsigned") or batch.get("flush") or ""
    return f"no hint ({why}); full cycle" if why else "no hint; full cycle"

