"""REPORT.md's interpretability paragraph, read from the initialisation study's table
(:func:`repset.pipeline.init_study.init_study_table`: rows (dataset, init))."""
from __future__ import annotations

import pandas as pd

from .tables import to_markdown

__all__ = ["init_study_section"]

#: the study table's columns shown in REPORT.md
SHOWN = ["metric", "splits", "mean", "std", "paper", "paper std", "gain over paper (sigma)", "wins/losses",
         "cos to start", "align trained", "align moved", "align chance"]


def init_study_section(table: pd.DataFrame, baseline: str, latent_table: str | None = None) -> str:
    """Markdown: per dataset, how far the hidden elements moved from the configured init ``baseline``, how
    the trained elements and their displacement align with the class directions against chance, the best
    init by paired gain and where it stands against the paper's RepSet; then the table. ``latent_table``:
    the path of the latent-set tables per init, named for the reader."""
    gain_col = f"gain over {baseline} (pp)"
    lines = ["The paper reads its latent sets from the trained hidden elements. The study trains RepSet from "
             "each initialisation at the grid point the protocol selected per split (gains: positive when "
             "better; alignment: mean largest cosine of a hidden element with a class's mean-element "
             "direction, chance = random Gaussian vectors).", ""]
    for dataset, part in table.groupby(level=0, sort=False):
        part = part.droplevel(0)
        if baseline not in part.index:
            continue
        base = part.loc[baseline]
        others = part.drop(index=baseline)
        best = others[gain_col].astype(float).idxmax() if len(others) else None
        text = (f"- **{dataset}** ({base['splits']} splits): from `{baseline}` the elements end at cosine "
                f"{base['cos to start']:.3f} with their start; trained elements align {base['align trained']:.3f} "
                f"with the class directions (chance {base['align chance']:.3f}), their displacement "
                f"{base['align moved']:.3f}. ")
        if best is not None:
            row = part.loc[best]
            text += (f"Best other init: `{best}`, {row['metric']} {row['mean']:.2f} +- {row['std']:.2f} against "
                     f"{base['mean']:.2f} +- {base['std']:.2f} (paired gain {float(row[gain_col]):+.2f} points, "
                     f"splits won/lost {row['wins/losses']}; cosine to start {row['cos to start']:.3f}, trained "
                     f"alignment {row['align trained']:.3f})")
            if pd.notna(row["gain over paper (sigma)"]):
                text += (f"; against the paper's RepSet ({row['paper']:.2f} +- {row['paper std']:.2f}) "
                         f"{float(row['gain over paper (sigma)']):+.2f} paper sigma "
                         f"({'better' if float(row['gain over paper (sigma)']) > 0 else 'not better'}), "
                         f"`{baseline}` {float(base['gain over paper (sigma)']):+.2f}")
            text += "."
        lines.append(text)
    if latent_table:
        lines += ["", f"Latent-set tables per init (nearest words of the trained elements and of their "
                  f"displacement): `{latent_table}`."]
    shown = table[[c for c in SHOWN if c in table.columns]]
    lines += ["", to_markdown(shown.map(lambda v: round(v, 3) if isinstance(v, float) else v))]
    return "\n".join(lines)
