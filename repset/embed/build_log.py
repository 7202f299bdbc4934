"""The cost of a struc2vec build per stage, read from its log: the INFO lines that ``repset.embed.struc2vec`` and
``repset.embed.resumable`` write (rings, context graph, walk rounds, skip-gram chunks), in wall seconds (one
thread's with one worker).

A checkpointed build that ran over several processes (one per session) is summed over all of them: each skip-gram
chunk counted once, with the time of its last save; a stage that ran twice (the rings and context graph of a rerun
that had walk rounds left to write) counts twice, since both were spent. Not in the log, hence not counted: a chunk
cut by its process's end (its time is lost, and the chunk runs again from the last checkpoint), and what a process
spent before its first line (interpreter, reading the graph). A log that also holds an older build takes ``since``::

    python -m repset.embed.build_log logs/embed_REDDIT-BINARY_full.log [--since "2026-12-04 17:28"]
"""
from __future__ import annotations

import argparse
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

__all__ = ["BuildCost", "build_cost", "read_build_cost"]

_LINE = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}) (.*)$")   # then the logger's name, or not
_TIMED = {   # stage: a message whose last number is the stage's seconds
    "rings": re.compile(r"^rings: .*, ([\d.]+)s$"),
    "distances": re.compile(r"^distances: .*, ([\d.]+)s$"),
    "context graph": re.compile(r"^(?:reference )?context graph: .*, ([\d.]+)s$"),
    "walks": re.compile(r"^walks: \d+ tokens, ([\d.]+)s$"),
    "skip-gram": re.compile(r"^word2vec: ([\d.]+)s"),
}
_ROUND = re.compile(r"^walks: round (\d+) of ")
_CHUNK = re.compile(r"^skip-gram: chunk (\d+)/(\d+) \(epoch \d+, round \d+\) (\d+) s, (\d+) tokens/s")
_RESUME = re.compile(r"^skip-gram: resuming ")
_KINDS = {**_TIMED, "round": _ROUND, "chunk": _CHUNK, "resume": _RESUME}


@dataclass
class BuildCost:
    """Seconds per stage (each time it ran), skip-gram chunks by number: (seconds, tokens/s) of the last save."""

    stages: dict[str, list[float]] = field(default_factory=dict)
    chunks: dict[int, tuple[float, float]] = field(default_factory=dict)
    chunks_total: int | None = None
    resumes: int = 0

    def seconds(self, stage: str) -> float:
        """Wall seconds spent on ``stage`` (the skip-gram: its saved chunks, or its one-call time)."""
        if stage == "skip-gram" and self.chunks:
            return float(sum(s for s, _ in self.chunks.values()))
        return float(sum(self.stages.get(stage, [])))

    def order(self) -> list[str]:
        """The stages that ran, in the build's order (``_TIMED``'s)."""
        return [s for s in _TIMED if self.stages.get(s) or (s == "skip-gram" and self.chunks)]

    def total(self) -> float:
        return sum(self.seconds(s) for s in self.order())

    def to_markdown(self) -> str:
        """A table of the stages (seconds, hours, what ran), then the total."""
        rows = ["| stage | seconds | hours | ran |", "|---|---|---|---|"]
        for stage in self.order():
            secs = self.seconds(stage)
            if stage == "skip-gram" and self.chunks:
                times = [s for s, _ in self.chunks.values()]
                rates = [r for _, r in self.chunks.values()]
                ran = (f"{len(self.chunks)} of {self.chunks_total} chunks saved, {min(times):,.0f}-{max(times):,.0f} s "
                       f"each, {min(rates):,.0f}-{max(rates):,.0f} tokens/s; {self.resumes + 1} processes")
            else:
                n = len(self.stages[stage])
                ran = f"{n} rounds" if stage == "walks" else "once" if n == 1 else f"{n} times"
            rows.append(f"| {stage} | {secs:,.0f} | {secs / 3600:.2f} | {ran} |")
        total = self.total()
        rows.append(f"| total | {total:,.0f} | {total / 3600:.2f} | the stages' wall time |")
        return "\n".join(rows)


def build_cost(lines: Iterable[str], since: datetime | None = None) -> BuildCost:
    """The stages of the build logged in ``lines`` (lines at or after ``since`` only; others ignored)."""
    cost, last_stage_time = BuildCost(), None
    for line in lines:
        m = _LINE.match(line.rstrip("\n"))
        if not m:
            continue
        when = datetime.strptime(m[1], "%Y-%m-%d %H:%M:%S,%f")
        if since is not None and when < since:
            continue
        kind, found = _match(m[2])
        if kind == "round":   # a round's time: since the stage line before it (context graph or round)
            if last_stage_time is None:
                raise ValueError(f"a walk round logged before any context graph: {line.strip()!r}")
            cost.stages.setdefault("walks", []).append((when - last_stage_time).total_seconds())
            last_stage_time = when
        elif kind == "chunk":
            cost.chunks[int(found[1])] = (float(found[3]), float(found[4]))
            cost.chunks_total = int(found[2])
        elif kind == "resume":
            cost.resumes += 1
        elif kind is not None:   # a timed stage
            cost.stages.setdefault(kind, []).append(float(found[1]))
            last_stage_time = when
    return cost


def _match(rest: str) -> tuple[str | None, re.Match | None]:
    """What a line's ``rest`` after its time logs, with or without the logger's name before the message (the
    workflow's job logs have none): (a stage of ``_TIMED``, or "round", "chunk", "resume"; its match), else
    (None, None)."""
    for candidate in (rest, rest.partition(" ")[2]):
        for kind, pattern in _KINDS.items():
            if found := pattern.match(candidate):
                return kind, found
    return None, None


def read_build_cost(path: str, since: datetime | None = None) -> BuildCost:
    """:func:`build_cost` of the log file at ``path``."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return build_cost(f, since)


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - thin CLI
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", help="the build's log (logs/embed_<dataset>*.log)")
    parser.add_argument("--since", type=datetime.fromisoformat, help="ignore lines before this time (YYYY-MM-DD HH:MM)")
    args = parser.parse_args(argv)
    cost = read_build_cost(args.log, args.since)
    if not cost.order():
        parser.error(f"{args.log}: no struc2vec stage lines (INFO) found")
    print(cost.to_markdown())


if __name__ == "__main__":  # pragma: no cover
    main()
