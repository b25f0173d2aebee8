"""The check's findings as one self-contained HTML page: a summary, every finding with its
counterexample as a table of states (changed values highlighted, rule numbers linked to the
quoted rule text) and a small SVG drawing of the counterexample's path.

Each finding shows what the text report shows: its fingerprint, the source lines of the places
it cites, the `expect` line that would accept it (or the write-up its expectation cites, linked
where it is a path), and the story of its trace (checker.analyses.story: what each step changed
and ran, what the outcome rules decided, what blocks the players of a deadlock). Findings come
errors first, then warnings, then notes; the notes (readings that differ) are folded in one
`<details>` at the end, so a long list of information does not bury the errors.

Self-contained means nothing is fetched: no scripts, no external style sheets, fonts or
images, and a Content-Security-Policy of `default-src 'none'` (inline style only) so a browser
refuses any fetch a future edit might add. Everything that comes from a spec (names, quotes,
messages, values) is hostile input and goes through `esc`; the output is deterministic.
"""
from __future__ import annotations

import html

from ..analyses.findings import Finding
from ..analyses.traces import show
from ..engine import Result
from ..frontend.diagnostics import caret_block
from .report import _instances_line, _not_checked_text, cited as cited_note, decisions_text, status, suggested_expect, verdict
from .trace import decided

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.error { color: #a00; } .warning { color: #a60; } .info { color: #06c; } .expected { color: #777; }
table.trace { border-collapse: collapse; margin: .5em 0; font-size: 12px; }
table.trace th, table.trace td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
table.trace td.chg { background: #fff3b0; font-weight: 600; }
table.trace tr.loop td:first-child { border-left: 4px solid #06c; }
.finding { border-top: 1px solid #ddd; padding-top: .5em; }
.scroll { overflow-x: auto; }
dl.rules dt { font-weight: 600; margin-top: .4em; } dl.rules dd { margin-left: 1.5em; }
:target { background: #e6f0ff; }
code { font-size: 12px; }
pre.src { font-size: 12px; background: #f6f6f6; padding: 2px 6px; margin: .2em 0 .6em; overflow-x: auto; }
ul.ran { margin: .2em 0; padding-left: 1.2em; font-size: 11px; } .decided { font-weight: 600; }
details.notes > summary { cursor: pointer; font-weight: 600; margin-top: 1.6em; }
"""


def esc(s: object) -> str:
    return html.escape(str(s), quote=True)


def render(result: Result) -> str:
    quotes = _quotes(result)
    cited: dict[str, tuple[str, str]] = {}  # anchor -> (rule id, quote), in citation order
    body: list[str] = []
    body.append("<h1>rulewright check</h1>")
    body.append(_summary(result))
    for d in result.diagnostics:
        body.append(f'<p class="error">{esc(d.span)}: {esc(d.code)} {esc(d.message)}</p>')
    for i, dis in enumerate(result.disagreements):
        body.append(f'<section class="finding"><h2 class="error">ENGINES DISAGREE [{esc(dis.finding.kind)}]</h2>'
                    f"<p>{esc(dis.finding.message)}</p><p>The replay's view: {esc(dis.replay)}</p></section>")
    # errors, then warnings, then notes, each in the engine's order; the notes folded at the end
    ordered = sorted(enumerate(result.findings), key=lambda e: SEVERITY_ORDER.get(e[1].severity, 3))
    notes = [(i, f) for i, f in ordered if f.severity == "info"]
    for i, f in ordered:
        if f.severity != "info":
            body.append(_finding(i, f, quotes, cited))
    if notes:
        kinds = ", ".join(sorted({f.kind for _, f in notes}))
        body.append(f'<details class="notes"><summary>{len(notes)} note(s) ({esc(kinds)}; information only)</summary>')
        body.extend(_finding(i, f, quotes, cited) for i, f in notes)
        body.append("</details>")
    if cited:
        body.append('<h2 id="rules">Rules cited</h2><dl class="rules">')
        for anchor, (rid, quote) in cited.items():
            body.append(f'<dt id="{esc(anchor)}">{esc(rid)}</dt><dd>{esc(quote) if quote else "<i>(no quote)</i>"}</dd>')
        body.append("</dl>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>rulewright report</title>\n<style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _quotes(result: Result) -> dict[str, dict[str, str]]:
    """spec path -> rule id -> the quoted rule text of its `document` block."""
    return {spec.path: {d.id: d.quote for d in spec.ids} for spec in result.specs}


def _spec_of(f: Finding, quotes: dict) -> str:
    for path in sorted(quotes, key=len, reverse=True):  # the longest path that names the model
        if f.model == path or f.model.startswith(path + " | "):
            return path
    return ""


def _summary(res: Result) -> str:
    states = sum(i.states for i in res.instances)
    counts: dict[str, int] = {}
    for f in res.findings:
        counts[f.kind] = counts.get(f.kind, 0) + 1
    rows = [("files", ", ".join(res.files)), ("models", len({i.model for i in res.instances})),
            ("instances", len(res.instances)), ("states", f"{states:,}"),
            ("findings", ", ".join(f"{k} {n}" for k, n in counts.items()) or "none"),
            ("expected (reviewed)", sum(1 for f in res.findings if f.expected)),
            ("result", verdict(res))]
    out = ['<table class="trace" id="summary">']
    out += [f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows]
    out.append("</table>")
    for i in res.instances:  # what the symbolic engine decided, with each proof's invariant
        out += [f'<p class="info">{esc(line.strip())}</p>' for line in decisions_text(i, verbose=True)]
    out += [f'<p class="warning">incomplete: {esc(w)}</p>' for w in res.incomplete]
    out += [f'<p class="warning">not checked: {esc(_not_checked_text(nc))}</p>' for nc in res.not_checked]
    if res.interrupted:
        out.append(f'<p class="error">INTERRUPTED: {esc(res.interrupted)}</p>')
    return "\n".join(out)


def _rule_links(rules, spec: str, quotes: dict, cited: dict) -> str:
    links = []
    known = quotes.get(spec, {})
    index = sorted(quotes).index(spec) if spec in quotes else 0
    for r in rules:
        anchor = f"rule-{index}-{r}"
        cited.setdefault(anchor, (r, known.get(r, "")))
        title = f' title="{esc(known[r])}"' if known.get(r) else ""
        links.append(f'<a href="#{esc(anchor)}"{title}>{esc(r)}</a>')
    return ", ".join(links)


def _finding(i: int, f: Finding, quotes: dict, cited: dict) -> str:
    spec = _spec_of(f, quotes)
    cls = "expected" if f.expected else f.severity
    out = [f'<section class="finding" id="finding-{i}">',
           f'<h2 class="{esc(cls)}">{esc(f.severity)}[{esc(f.kind)}]{" (expected)" if f.expected else ""}: '
           f"{esc(f.message)}</h2>",
           f"<p>in: {esc(_instances_line(f))}</p>"]
    if f.rules:
        out.append(f"<p>rules: {_rule_links(f.rules, spec, quotes, cited)}</p>")
    for span in f.spans[:2]:
        out.append(f"<p>at <code>{esc(span)}</code></p>")
        block = caret_block(span)
        if block:
            out.append(f'<pre class="src">{esc(block)}</pre>')
    if f.detail:
        out.append(f"<p>{esc(f.detail)}</p>")
    if f.abstraction:
        out.append(f"<p>Under the abstraction (the spec's claim, not proven): {esc(f.abstraction)}</p>")
    if f.trace:
        out.append(f"<p>counterexample: {len(f.trace)} steps; Z3 replay: {esc(f.replay or 'not run')}</p>")
        out.append(f'<div class="scroll">{path_svg(f, f"arrow-{i}")}</div>')
        out.append(f'<div class="scroll">{_trace_table(f, spec, quotes, cited)}</div>')
    if f.blocked:
        out.append("<p>What blocks the players still in the game:</p><ul>")
        out += [f"<li>{esc(b)}</li>" for b in f.blocked]
        out.append("</ul>")
    out.append(f"<p>fingerprint: <code>{esc(f.fingerprint)}</code></p>")
    if f.expected:
        note = f.reviewed or "(no note)"
        where = cited_note(note)
        link = (f' (<a href="{esc(where)}">{esc(where)}</a>)'
                if where.endswith(".md") and not where.startswith(("/", ".")) and ":" not in where else "")
        out.append(f"<p>reviewed: {esc(note)}{link}</p>")
    elif f.changed:
        out.append(f"<p>{esc(f.changed)}</p>")
    if status(f) in ("new", "changed") and f.kind != "expectation-unmet":
        out.append(f"<p>once reviewed, accept it with:</p><pre class=\"src\">{esc(suggested_expect(f))}</pre>")
    out.append("</section>")
    return "\n".join(out)


def _trace_table(f: Finding, spec: str, quotes: dict, cited: dict) -> str:
    names = [k for k, _ in f.trace[0].state] if f.trace[0].state else []
    head = "".join(f"<th>{esc(n)}</th>" for n in names)
    rows = [f'<table class="trace"><tr><th>#</th><th>action</th><th>rules</th>{head}</tr>']
    for st in f.trace:
        changed = {k for k, _ in st.changes}
        values = dict(st.state)
        cells = "".join(f'<td class="chg">{esc(show(values[n]))}</td>' if n in changed and st.number > 0
                        else f"<td>{esc(show(values[n]))}</td>" if n in values else "<td></td>" for n in names)
        loop = ' class="loop"' if f.loop_start is not None and st.number >= f.loop_start else ""
        note = f"<br><small>{esc(st.note)}</small>" if st.note else ""
        if st.ran:  # what the step ran, in order, and what its outcome rules decided
            note += '<ul class="ran">' + "".join(f"<li>{esc(r)}</li>" for r in st.ran) + "</ul>"
        outcomes = decided(st)
        if outcomes:
            note += f'<span class="decided">{esc("; ".join(outcomes))}</span>'
        rows.append(f"<tr{loop}><td>{st.number}</td><td>{esc(st.action)}{note}</td>"
                    f"<td>{_rule_links(st.rules, spec, quotes, cited)}</td>{cells}</tr>")
    rows.append("</table>")
    return "\n".join(rows)


def path_svg(f: Finding, marker: str = "arrow") -> str:
    """The counterexample's path: one node per state, one arrow per step, labelled with the
    action; a lasso's last step bends back to the state the loop starts at."""
    steps = f.trace or []
    gap, r, top, left = 150, 14, 40, 75
    width = max(1, len(steps)) * gap + 2 * left
    height = 110 if f.loop_start is not None else 80
    parts = [f'<svg class="path" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="counterexample path">',
             f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
             'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>']
    closes = f.loop_start is not None and len(steps) > f.loop_start + 1
    shown = steps[:-1] if closes else steps  # a closing step's state is the one at loop_start
    for i, st in enumerate(shown):
        x = left + i * gap
        fill = "#ffd8d8" if i == len(shown) - 1 and not closes else "#e6f0ff"
        parts.append(f'<circle cx="{x}" cy="{top}" r="{r}" fill="{fill}" stroke="#555"/>'
                     f'<text x="{x}" y="{top + 4}" text-anchor="middle" font-size="11">{st.number}</text>')
        if i > 0:
            parts.append(f'<line x1="{x - gap + r}" y1="{top}" x2="{x - r}" y2="{top}" stroke="#555" '
                         f'marker-end="url(#{marker})"/>')
            parts.append(f'<text x="{x - gap / 2}" y="{top - r - 6}" text-anchor="middle" font-size="10">'
                         f"{esc(_short(st.action))}</text>")
    if closes:
        last = steps[-1]
        x1, x2 = left + (len(shown) - 1) * gap, left + f.loop_start * gap
        if x1 == x2:  # a step back to the same state: a small loop below it
            x1, x2 = x1 + r // 2, x1 - r // 2
        parts.append(f'<path d="M {x1} {top + r} C {x1 + (30 if x1 > x2 and x1 - x2 < gap else 0)} {top + 60}, {x2 - (30 if x1 > x2 and x1 - x2 < gap else 0)} {top + 60}, {x2} {top + r}" fill="none" '
                     f'stroke="#06c" marker-end="url(#{marker})"/>')
        parts.append(f'<text x="{(x1 + x2) / 2}" y="{top + 62}" text-anchor="middle" font-size="10" fill="#06c">'
                     f"{esc(_short(last.action))} (repeats)</text>")
    parts.append("</svg>")
    return "".join(parts)


def _short(s: str, n: int = 24) -> str:
    return s if len(s) <= n else s[:n - 1] + "…"
