"""The per-day usage chart as server-rendered SVG: bars, a baseline, the peak labelled, first/last days on the
axis. Presentation attributes only (no style attribute, no script), so the portal's CSP holds."""

from dataclasses import dataclass

WIDTH, HEIGHT = 640, 180
LEFT, RIGHT, TOP, BOTTOM = 44, 8, 12, 24


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str


def bars(per_day):
    """[(date, count)] → bars scaled to the chart's plot area, and the scale's top value."""
    if not per_day:
        return [], 0
    top = max(max(count for _, count in per_day), 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / len(per_day)
    found = []
    for index, (day, count) in enumerate(per_day):
        height = plot_h * count / top
        found.append(Bar(round(LEFT + index * step + step * 0.15, 2), round(TOP + plot_h - height, 2),
                         round(step * 0.7, 2), round(height, 2), f"{day:%b %d}: {count} requests"))
    return found, top


def chart(per_day):
    """What the template draws: the bars, the size, and the axis labels."""
    found, top = bars(per_day)
    return {"bars": found, "top": top, "width": WIDTH, "height": HEIGHT, "left": LEFT, "baseline": HEIGHT - BOTTOM,
            "right": WIDTH - RIGHT, "first": per_day[0][0] if per_day else None,
            "last": per_day[-1][0] if per_day else None}
