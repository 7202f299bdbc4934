"""Documents that a split puts on both sides: a test set whose exact duplicate (the same multiset of element
ids, e.g. the same words after preprocessing) lies in the split's training or validation part. A
nearest-neighbour method such as WMD kNN finds such a test set at distance 0::

    python -m repset.datasets.duplicates data/sets/bbcsport.glove-6b-50d.npz data/sets/twitter.glove-6b-50d.npz
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

from repset.sets import SetDataset

__all__ = ["set_keys", "cross_split_duplicates"]


def set_keys(data: SetDataset) -> list[tuple[int, ...]]:
    """One hashable key per set: its sorted element ids (ValueError for data without ids)."""
    if data.element_ids is None:
        raise ValueError("cross-split duplicates need element ids (word sets); this dataset has none")
    ids, offsets = data.element_ids.numpy(), data.offsets.numpy()
    return [tuple(np.sort(ids[offsets[i]:offsets[i + 1]]).tolist()) for i in range(len(data))]


def cross_split_duplicates(data: SetDataset, split: dict[str, np.ndarray]) -> dict[str, int]:
    """For one split: ``test`` sets, how many have a duplicate in ``train`` or ``val`` (``duplicated``) and how
    many of those share the label of every such duplicate (``same_label``)."""
    keys, labels = set_keys(data), data.labels.numpy()
    seen: dict[tuple[int, ...], set[int]] = {}
    for i in np.concatenate([split["train"], split["val"]]):
        seen.setdefault(keys[i], set()).add(int(labels[i]))
    duplicated = [int(i) for i in split["test"] if keys[i] in seen]
    return {"test": len(split["test"]), "duplicated": len(duplicated),
            "same_label": sum(seen[keys[i]] == {int(labels[i])} for i in duplicated)}


def main(argv: Sequence[str] | None = None) -> None:  # pragma: no cover - thin CLI
    from repset.datasets.store import load_store

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", nargs="+")
    for store in parser.parse_args(argv).stores:
        data, splits, _ = load_store(store)
        for k, split in enumerate(splits):
            c = cross_split_duplicates(data, split)
            print(f"{store} split {k}: {c['duplicated']} of {c['test']} test sets "
                  f"({100 * c['duplicated'] / c['test']:.1f} %) have a duplicate in train/val, {c['same_label']} "
                  "with the same label")


if __name__ == "__main__":  # pragma: no cover
    main()
