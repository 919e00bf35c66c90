"""`kubeberth simulate --report report.html`: one self-contained HTML page to look at.

Plotly draws the charts (its JavaScript is inlined, so the page opens with no network): a node ×
utilisation heat map grouped by zone, the unschedulable reasons, and for --compare the before/after
views side by side. A per-pod placement table opens each pod's explain story in one click.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs
from plotly.subplots import make_subplots

from ..errors import KubeberthError
from ..observability.explain import STATE_TITLES, render_story
from .simulate import SimulationResult, node_usage, pod_story
from .whatif import RESOURCES

EXPLAINED_PODS_MAX = 5000  # stories embedded in the page; beyond that the table says so
_ROW_PX = 14


def _heatmap_figure(runs: list[tuple[str, SimulationResult]]) -> go.Figure:
    """Nodes (grouped by zone) × cpu/memory/pods requested/allocatable, one panel per run."""
    fig = make_subplots(rows=1, cols=len(runs), subplot_titles=[label for label, _ in runs], shared_yaxes=True)
    count = 0
    for i, (label, result) in enumerate(runs):
        usage = sorted(node_usage(result.scheduler), key=lambda u: (u["zone"], u["node"]))
        count = len(usage)
        y = [[u["zone"] or "(no zone)" for u in usage], [u["node"] for u in usage]]
        z = [[u[r] * 100 for r in RESOURCES] for u in usage]
        text = [[f"{u['node']} ({u['zone'] or 'no zone'})<br>{r}: {u[r]:.1%}, {u['pod_count']} pods" for r in RESOURCES] for u in usage]
        fig.add_trace(
            go.Heatmap(
                z=z, x=list(RESOURCES), y=y, zmin=0, zmax=100, colorscale="YlOrRd", name=label,
                text=text, hoverinfo="text", colorbar={"title": "% used"}, showscale=i == 0,
            ),
            row=1, col=i + 1,
        )
    fig.update_layout(height=max(360, min(120 + _ROW_PX * count, 6000)), margin={"l": 10, "r": 10, "t": 40, "b": 10})
    fig.update_yaxes(autorange="reversed")
    return fig


def _reasons_figure(runs: list[tuple[str, SimulationResult]]) -> go.Figure | None:
    fig = go.Figure()
    any_reason = False
    for label, result in runs:
        reasons = result.summary.get("unschedulable_reasons") or {}
        if not reasons:
            continue
        any_reason = True
        messages = list(reasons)
        short = [m if len(m) <= 70 else m[:67] + "..." for m in messages]
        fig.add_trace(
            go.Bar(x=[reasons[m] for m in messages], y=short, orientation="h", name=label, hovertext=messages, hoverinfo="text+x")
        )
    if not any_reason:
        return None
    fig.update_layout(barmode="group", height=max(260, 60 + 40 * sum(len(r.summary["unschedulable_reasons"]) for _, r in runs)),
                      margin={"l": 10, "r": 10, "t": 30, "b": 10}, xaxis_title="pods")
    fig.update_yaxes(automargin=True, autorange="reversed")
    return fig


def _zones_figure(diff: dict[str, Any]) -> go.Figure:
    fig = go.Figure()
    zones = [z or "(no zone)" for z in diff["per_zone"]]
    for side in ("before", "after"):
        for r in ("cpu", "memory"):
            fig.add_trace(go.Bar(
                x=zones, y=[((v[side] or {}).get(r, 0)) * 100 for v in diff["per_zone"].values()],
                name=f"{r} — {diff['labels'][side]}",
            ))
    fig.update_layout(barmode="group", height=360, yaxis_title="% requested", margin={"l": 10, "r": 10, "t": 30, "b": 10})
    return fig


def _plot(fig: go.Figure, div_id: str) -> str:
    return fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config={"displaylogo": False})


def _pod_rows(result: SimulationResult) -> tuple[str, dict[str, str]]:
    """The placement table's rows and the explain story per pod (by row id)."""
    rows = []
    stories: dict[str, str] = {}
    zone_of = {u["node"]: u["zone"] for u in node_usage(result.scheduler)}
    for i, key in enumerate(sorted(result.inputs)):
        story = pod_story(result, key)
        node = result.placements.get(key, "")
        spec = result.inputs[key].get("spec") or {}
        cell = "—"
        if i < EXPLAINED_PODS_MAX:
            stories[f"p{i}"] = render_story(story)
            cell = f'<a href="#explain={quote(key)}" data-pod="p{i}" data-key="{html.escape(key)}">explain</a>'
        rows.append(
            f'<tr data-state="{story["state"]}"><td>{html.escape(key)}</td><td>{html.escape(node)}</td>'
            f"<td>{html.escape(zone_of.get(node, ''))}</td><td>{html.escape(STATE_TITLES.get(story['state'], story['state']))}</td>"
            f"<td>{int(spec.get('priority') or 0)}</td><td>{len(story['cycles'])}</td><td>{cell}</td></tr>"
        )
    return "\n".join(rows), stories


def _counts(summary: dict[str, Any], after: dict[str, Any] | None = None) -> str:
    """Headline numbers; with --compare `before → after` where they differ."""
    keys = ("nodes", "pods", "already_bound", "scheduled", "unschedulable", "preempted", "pending_other", "gated", "errored")
    out = []
    for k in keys:
        value = str(summary.get(k, 0))
        if after is not None and after.get(k, 0) != summary.get(k, 0):
            value += f" → {after.get(k, 0)}"
        out.append(f'<div class="stat"><b id="stat-{k}">{value}</b><span>{k.replace("_", " ")}</span></div>')
    return "".join(out)


def _compare_section(diff: dict[str, Any]) -> str:
    ma, mb = diff["metrics"]["before"], diff["metrics"]["after"]
    def fmt(k: str, v: Any) -> str:
        return f"{v:.1%}" if k.endswith(("_mean", "_stdev")) else str(v)

    metric_rows = "".join(
        f"<tr><td>{k.replace('_', ' ')}</td><td>{fmt(k, ma[k])}</td><td>{fmt(k, mb[k])}</td></tr>" for k in ma if k != "nodes"
    ) + "".join(f"<tr><td>{k}</td><td>{v['before']}</td><td>{v['after']}</td></tr>" for k, v in diff["totals"].items())
    changes = [(m["pod"], m["before"], m["after"]) for m in diff["moved"]]
    changes += [(m["pod"], m["before"], "unschedulable") for m in diff["newly_unschedulable"]]
    changes += [(m["pod"], "unschedulable", m["after"]) for m in diff["newly_placed"]]
    change_rows = "".join(f"<tr><td>{html.escape(p)}</td><td>{html.escape(b)}</td><td>{html.escape(a)}</td></tr>" for p, b, a in changes)
    labels = diff["labels"]
    return f"""
<h2>What changes: {html.escape(labels['before'])} → {html.escape(labels['after'])}</h2>
<div class="layout"><div>
<table class="small"><thead><tr><th></th><th>{html.escape(labels['before'])}</th><th>{html.escape(labels['after'])}</th></tr></thead>
<tbody>{metric_rows}</tbody></table>
<h3>Pods whose placement changed ({len(changes)})</h3>
<div class="scroll"><table class="small" id="changes"><thead><tr><th>pod</th><th>{html.escape(labels['before'])}</th>
<th>{html.escape(labels['after'])}</th></tr></thead>
<tbody>{change_rows or '<tr><td colspan="3">none</td></tr>'}</tbody></table></div>
</div><div><h3>Per-zone utilisation</h3>
{_plot(_zones_figure(diff), "zones")}</div></div>
"""


_STYLE = """
body{font-family:system-ui,-apple-system,"DejaVu Sans",sans-serif;margin:24px;color:#222}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin-top:28px} .sub{color:#666;margin-bottom:12px}
.stats{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.stat{border:1px solid #ddd;border-radius:6px;padding:6px 12px;min-width:90px}
.stat b{display:block;font-size:20px} .stat span{color:#666;font-size:12px}
table{border-collapse:collapse;font-size:13px} td,th{border-bottom:1px solid #eee;padding:3px 8px;text-align:left}
#pods-wrap{max-height:480px;overflow:auto;border:1px solid #ddd} .scroll{max-height:260px;overflow:auto;border:1px solid #eee}
#explain{white-space:pre;font-family:"DejaVu Sans Mono",monospace;font-size:12px;background:#f7f7f7;border:1px solid #ddd;
padding:10px;max-height:520px;overflow:auto;display:none}
button{font-size:12px;cursor:pointer} .layout{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px}
"""

# Registered before plotly.js loads, so an error anywhere on the page is counted.
_ERRORS_SCRIPT = """
window.kubeberthErrors = [];
window.addEventListener('error', e => window.kubeberthErrors.push(String(e.message)));
"""

_SCRIPT = """
document.addEventListener('DOMContentLoaded', () => {
  const stories = JSON.parse(document.getElementById('explain-data').textContent);
  const panel = document.getElementById('explain');
  const show = () => {
    const m = /^#explain=(.+)$/.exec(location.hash);
    const id = m && ids[decodeURIComponent(m[1])];
    if (!id) return;
    panel.textContent = stories[id]; panel.style.display = 'block';
  };
  const ids = {};
  document.querySelectorAll('#pods a[data-pod]').forEach(a => { ids[a.dataset.key] = a.dataset.pod; });
  window.addEventListener('hashchange', show);
  show();
  const heat = document.getElementById('heatmap');
  const rendered = heat && heat.data ? heat.data.map(t => t.y ? t.y[1].length : 0) : [];
  const status = document.getElementById('render-status');
  status.dataset.nodes = rendered.length ? String(rendered[0]) : '0';
  status.dataset.svg = String(heat ? heat.querySelectorAll('svg.main-svg').length : 0);
  status.dataset.errors = String(window.kubeberthErrors.length);
  status.textContent = 'heat map: ' + status.dataset.nodes + ' nodes rendered' +
    (window.kubeberthErrors.length ? '; errors: ' + window.kubeberthErrors.join('; ') : '');
});
"""


def render_report(
    result: SimulationResult,
    other: SimulationResult | None = None,
    diff: dict[str, Any] | None = None,
    title: str = "",
) -> str:
    """The report as one HTML string (plotly.js inlined)."""
    runs = [("before" if other else "placement", result)]
    if other is not None and diff is not None:
        runs = [(diff["labels"]["before"], result), (diff["labels"]["after"], other)]
    rows, stories = _pod_rows(result)
    reasons = _reasons_figure(runs)
    stats = f"<div class='stats'>{_counts(result.summary, other.summary if other is not None else None)}</div>"
    data = json.dumps(stories).replace("</", "<\\/")
    explained = len(stories)
    note = "" if explained == len(result.inputs) else f" (explain for the first {explained})"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kubeberth simulate — {html.escape(title)}</title>
<style>{_STYLE}</style>
<script>{_ERRORS_SCRIPT}</script>
<script>{get_plotlyjs()}</script>
<script>{_SCRIPT}</script>
</head><body>
<h1>kubeberth simulate</h1>
<div class="sub">{html.escape(title)} — generation {html.escape(result.summary['generation'])}, profile
{html.escape(result.summary['profile'])}; <span id="render-status" data-nodes="" data-errors="">rendering…</span></div>
{stats}
<h2>Node utilisation by zone (requested / allocatable, {result.summary['nodes']} nodes)</h2>
{_plot(_heatmap_figure(runs), "heatmap")}
{_compare_section(diff) if diff is not None else ''}
<h2>Unschedulable pods by reason</h2>
{_plot(reasons, "reasons") if reasons is not None else '<p>none</p>'}
<h2>Pods ({len(result.inputs)}){note}</h2>
<div class="layout"><div id="pods-wrap"><table id="pods"><thead><tr><th>pod</th><th>node</th><th>zone</th><th>state</th>
<th>priority</th><th>cycles</th><th></th></tr></thead><tbody>
{rows}
</tbody></table></div><div id="explain"></div></div>
<script type="application/json" id="explain-data">{data}</script>
</body></html>
"""


def write_report(path: Path, result: SimulationResult, other: SimulationResult | None = None,
                 diff: dict[str, Any] | None = None, title: str = "") -> None:
    try:
        Path(path).write_text(render_report(result, other, diff, title), encoding="utf-8")
    except OSError as exc:
        raise KubeberthError(f"--report: cannot write {path}: {exc.strerror}") from None
