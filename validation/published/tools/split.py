"""What every extractor here shares: the calibration / held-apart split of ../README.md
("Calibration and held-apart sets"), and the two outputs of a table extractor (the CSV, or
the row counts that may be printed before a split is used).

One place for the rule, so that a cluster's set cannot differ between two extractors.
VirtualFlow's clusters were split by hand before this rule existed (extract_virtualflow.py
does not use it).
"""
import csv
import random
import sys


def cluster_set(c):
    """(value, set) of cluster c: held apart when random.Random('33:' + c).random() < 0.5."""
    v = random.Random("33:" + c).random()
    return v, ("held-apart" if v < 0.5 else "calibration")


def print_counts(rows, key):
    """One tab-separated line per distinct key(row), sorted, with its number of rows: what a
    reader may print of a source without reading its figures."""
    cnt = {}
    for r in rows:
        k = key(r)
        cnt[k] = cnt.get(k, 0) + 1
    for k in sorted(cnt):
        print(*k, cnt[k], sep="\t")


def write_csv(rows, fields):
    """rows (dicts) as CSV with a header of fields, to standard output."""
    w = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
