"""The HTML page's one stylesheet (``html.py``): inline, nothing fetched when the page is viewed."""

from __future__ import annotations

from typing import Final

STYLE: Final = """
:root { color-scheme: light; --ink: #1a1a1a; --muted: #4a4a4a; --rule: #c8c8c8; --gap: #1f4e9c; --weighted: #8a3b00; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", "Noto Sans CJK JP",
       "Noto Sans CJK KR", "PingFang SC", "Hiragino Sans", "Microsoft YaHei", "Malgun Gothic", sans-serif;
       color: var(--ink); background: #fff;
       max-width: 70rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; margin-top: 2.5rem; border-top: 2px solid var(--rule);
     padding-top: 1rem; } h3 { font-size: 1.05rem; margin-top: 1.4rem; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .92rem; display: block; max-width: 100%;
        overflow-x: auto; }
th, td { border: 1px solid var(--rule); padding: .25rem .5rem; text-align: left; vertical-align: top; }
thead th { background: #f0f0f0; } td.num { text-align: right; white-space: nowrap; }
.ci { color: var(--muted); font-size: .85em; display: block; } .rate { white-space: nowrap; }
.agent { color: var(--muted); font-weight: normal; }
.watermark { background: #f6f6f6; border-left: 4px solid #777; padding: .4rem .7rem; font-size: .88rem; }
.nudge { background: #fff7e0; border-left: 4px solid #8a6d00; padding: .4rem .7rem; }
.note { color: var(--muted); }
.band-chip { display: inline-block; padding: 0 .45rem; border-radius: .6rem; font-weight: 600; border: 1px solid; }
.band-chip.green { background: #e3f4e6; color: #0b5a1e; } .band-chip.yellow { background: #fff3c4; color: #5c4500; }
.band-chip.red { background: #fde2e0; color: #8c1a10; } .band-chip.soft { background: #fff; border-style: dashed; }
a { color: #0b4fa8; } a:focus-visible, summary:focus-visible { outline: 3px solid #0b4fa8; outline-offset: 2px; }
svg.chart { display: block; width: 100%; height: auto; border: 1px solid var(--rule); background: #fff; }
svg .grid { stroke: #e2e2e2; } svg .axis { font-size: 13px; fill: var(--muted); }
svg .line { fill: none; stroke-width: 2; } svg .line.gap { stroke: var(--gap); stroke-width: 4; stroke-opacity: .75; }
svg .line.weighted { stroke: var(--weighted); stroke-dasharray: 6 4; }
svg .band { stroke: none; } svg .band.gap { fill: var(--gap); fill-opacity: .13; }
svg .band.weighted { fill: var(--weighted); fill-opacity: .11; }
svg .point.gap { fill: var(--gap); stroke: #fff; stroke-width: 1; } svg .point.weighted { fill: var(--weighted); }
svg .change line { stroke: #333; stroke-dasharray: 2 3; } svg .change text { font-size: 11px; fill: #333; }
.effect { border-left: 4px solid #777; padding: .1rem .8rem; margin: .8rem 0; } .effect h4 { margin: .3rem 0; }
.key.gap { color: var(--gap); } .key.weighted { color: var(--weighted); }
code { font-size: .88em; overflow-wrap: anywhere; }
.watermark.short { font-size: .8rem; padding: .2rem .6rem; }
.inventory td:nth-child(-n+2) { white-space: nowrap; } .inventory td:nth-child(4) { min-width: 12rem; }
.inventory td:nth-child(6) { min-width: 13rem; }
.at-gap td:last-child { min-width: 24rem; }
@media print { body { max-width: none; padding: 0; } h2 { break-before: page; } details { display: block; }
  details > summary { display: none; } a { color: inherit; text-decoration: none; } .top { display: none; } }
"""
