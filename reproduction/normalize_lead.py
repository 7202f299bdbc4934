"""RepSet and ApproxRepSet dividing each matching value by |X| (the authors' RepSet code; normalize_lead.yaml) against
the record's, on the same folds (``paired.py``'s table). Run from the repository root:

    python reproduction/normalize_lead.py [--dataset PROTEINS] [--points k10-]

Reads reproduction/runs.csv (the record) and reproduction/normalize_lead/runs.csv; uses the folds on which the lead
holds every point of the (sub-)grid."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import main  # noqa: E402

if __name__ == "__main__":
    main(["reproduction/normalize_lead", "repset_input_size=repset", "approx_repset_input_size=approx_repset",
          *sys.argv[1:]], label="divided by |X|")
