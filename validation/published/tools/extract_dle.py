#!/usr/bin/env python3
"""Read the pre-training performance tables of NVIDIA's DeepLearningExamples READMEs into one CSV.

NVIDIA/DeepLearningExamples publishes, per model, "Training performance results" tables:
throughput of data-parallel pre-training on DGX systems, single-node (1 to 8 or 16 GPUs) and
multi-node (1 to 64 nodes of 8 or 16 GPUs), with the per-GPU batch and, for BERT, the
gradient-accumulation steps. This script copies the figures of the tables listed in TABLES
unchanged (the cell text as printed, thousands separators removed) and adds per row: the
cluster name used by the split in ../README.md, its set, the README, the table's heading and
line, the system and GPU, nodes and GPUs per node, and one row per precision (a table row
holds two precisions side by side).

Usage (GITDIR: a clone or fetched snapshot of NVIDIA/DeepLearningExamples):

    extract_dle.py GITDIR > ../dle-readmes/dle-readmes.csv          # Apache-2.0 READMEs only
    extract_dle.py GITDIR --unlicensed > /tmp/dle-unlicensed.csv     # do not commit: no licence file
    extract_dle.py GITDIR --counts                                   # rows per cluster and model

Nothing is modelled or fitted here; --counts prints row counts only.
"""
import argparse
import re
import subprocess
import sys
from split import cluster_set, print_counts, write_csv

REF = "729963dd47e7c8bd462ad10bfac7a7b0b604e6dd"   # NVIDIA/DeepLearningExamples master, 2024-04-04

# The cluster of a system. NVIDIA does not say which machines ran a table, so every table on
# one kind of DGX system is one cluster (no machine can then be in both sets).
SYSTEMS = {
    "DGX-1": ("DLE-dgx1", "V100", 8),
    "DGX-2H": ("DLE-dgx2h", "V100", 16),
    "DGX A100": ("DLE-dgxa100", "A100", 8),
}

BERT_L = "BERT-large"
TXL_L = "Transformer-XL large"
TXL_B = "Transformer-XL base"
# (README, heading as printed, system, model, licensed): licensed = an Apache-2.0 LICENSE
# file sits in the README's directory (or a parent model directory) at REF.
TABLES = [
    ("PyTorch/LanguageModeling/BERT/README.md", "###### Pre-training NVIDIA DGX A100 (8x A100 80GB)", "DGX A100", BERT_L, True),
    ("PyTorch/LanguageModeling/BERT/README.md", "###### Pre-training NVIDIA DGX A100 (8x A100 80GB) Multi-node Scaling", "DGX A100", BERT_L, True),
    ("PyTorch/LanguageModeling/BERT/README.md", "###### Pre-training NVIDIA DGX-1 With 32G", "DGX-1", BERT_L, True),
    ("TensorFlow/LanguageModeling/BERT/README.md", "###### Pre-training training performance: single-node on DGX-1 16GB", "DGX-1", BERT_L, True),
    ("TensorFlow/LanguageModeling/BERT/README.md", "###### Pre-training training performance: single-node on DGX-1 32GB", "DGX-1", BERT_L, True),
    ("TensorFlow/LanguageModeling/BERT/README.md", "###### Pre-training training performance: single-node on DGX-2 32GB", "DGX-2H", BERT_L, True),
    ("TensorFlow/LanguageModeling/BERT/README.md", "###### Pre-training training performance: multi-node on DGX-2H 32GB", "DGX-2H", BERT_L, True),
    ("TensorFlow/LanguageModeling/BERT/README.md", "###### Pre-training training performance: single-node on DGX A100 40GB", "DGX A100", BERT_L, True),
    ("TensorFlow/LanguageModeling/BERT/README.md", "###### Pre-training training performance: multi-node on DGX A100 40GB", "DGX A100", BERT_L, True),
    ("TensorFlow/LanguageModeling/BERT/biobert/README.md", "###### Pre-training training performance: multi-node on DGX-1 16G", "DGX-1", "BioBERT-base", True),
    ("TensorFlow/LanguageModeling/BERT/biobert/README.md", "###### Pre-training training performance: multi-node on DGX-2H 32G", "DGX-2H", "BioBERT-base", True),
    ("PyTorch/LanguageModeling/Transformer-XL/README.md", "##### Training performance: NVIDIA DGX A100 (8x A100 40GB)", "DGX A100", None, True),
    ("PyTorch/LanguageModeling/Transformer-XL/README.md", "##### Training performance: NVIDIA DGX-1 (8x V100 16GB)", "DGX-1", None, True),
    ("PyTorch/LanguageModeling/Transformer-XL/README.md", "##### Training performance: NVIDIA DGX-2H (16x V100 32GB)", "DGX-2H", None, True),
    ("PyTorch/LanguageModeling/Transformer-XL/README.md", "##### Training performance: 8x NVIDIA DGX-2H (16x V100 32GB)", "DGX-2H", TXL_L, True),
    # No LICENSE file in these directories (nor at the repository's root) at REF: cited only.
    ("TensorFlow2/LanguageModeling/BERT/README.md", "##### Pre-training training performance: Single-node on NVIDIA DGX-2 V100 (16x V100 32GB)", "DGX-2H", BERT_L, False),
    ("TensorFlow2/LanguageModeling/BERT/README.md", "##### Pre-training training performance: Multi-node on NVIDIA DGX-2H V100 (16x V100 32GB)", "DGX-2H", BERT_L, False),
    ("TensorFlow2/LanguageModeling/BERT/README.md", "##### Pre-training training performance: Single-node on NVIDIA DGX A100 (8x A100 80GB)", "DGX A100", BERT_L, False),
    ("TensorFlow2/LanguageModeling/BERT/README.md", "##### Pre-training training performance: Multi-node on NVIDIA DGX A100 (8x A100 80GB)", "DGX A100", BERT_L, False),
    ("PyTorch/LanguageModeling/BART/README.md", "##### Pre-training performance: Single-node on NVIDIA DGX A100 (8x A100 80GB)", "DGX A100", "BART-large", False),
    ("PyTorch/LanguageModeling/BART/README.md", "##### Pre-training performance: Multi-node on NVIDIA DGX A100 (8x A100 80GB)", "DGX A100", "BART-large", False),
    ("PaddlePaddle/LanguageModeling/BERT/README.md", "###### Pre-training NVIDIA DGX A100 (8x A100 80GB)", "DGX A100", BERT_L, False),
    ("PaddlePaddle/LanguageModeling/BERT/README.md", "###### Pre-training NVIDIA DGX A100 (8x A100 80GB) Multi-node Scaling", "DGX A100", BERT_L, False),
]

FIELDS = ["cluster", "set", "readme", "heading", "line", "container", "system", "gpu", "model",
          "seq_len", "nodes", "gpus_per_node", "precision", "batch_per_gpu", "accum_steps",
          "accum_batch_per_gpu", "global_batch", "throughput", "throughput_unit", "flag"]


def git_show(gitdir, path):
    r = subprocess.run(["git", "--git-dir", gitdir, "show", f"{REF}:{path}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"extract_dle.py: cannot read {REF}:{path} from {gitdir}: {r.stderr.strip()}")
    return r.stdout


def prec(token):
    """Canonical precision of a header fragment: mixed (FP16/BF16/AMP), tf32 or fp32."""
    t = token.lower()
    if "mixed" in t or "fp16" in t or "bf16" in t:
        return "mixed"
    if "tf32" in t:
        return "tf32"
    if "fp32" in t:
        return "fp32"
    return None


def prec_list(header):
    """Precisions named in a column header, in order: '(TF32 and FP16)', ': mixed precision, FP32'."""
    m = re.search(r"[(:](.*)\)?$", header)
    if not m:
        return []
    parts = re.split(r"\band\b|,", m.group(1))
    return [p for p in (prec(x) for x in parts) if p]


def cells(line):
    return [c.strip().strip("*").strip() for c in line.strip().strip("|").split("|")]


def split_pair(text):
    return [x.strip() for x in re.split(r"\band\b|,", text) if x.strip()]


def find_tables(lines, heading):
    """(line number, header cells, rows) of each table under `heading`, up to the next heading."""
    start = next((i for i, l in enumerate(lines) if l.rstrip() == heading), None)
    if start is None:
        sys.exit(f"extract_dle.py: heading not found: {heading}")
    level = len(heading) - len(heading.lstrip("#"))
    out, i, sub, container = [], start + 1, None, None
    # the "Our results were obtained ... in the X NGC container" paragraph may sit above the heading
    for l in reversed(lines[:start]):
        if l.startswith("#") and len(l) - len(l.lstrip("#")) < level:
            break
        m = re.search(r"([\w.:-]*\d\d\.\d\d-py3)", l)
        if m:
            container = m.group(1)
            break
    while i < len(lines):
        l = lines[i]
        if l.startswith("#"):
            lv = len(l) - len(l.lstrip("#"))
            if lv <= level:
                break
            sub = l.lstrip("#").strip()
        if l.startswith("Our results") or "NGC container" in l:
            m = re.search(r"([\w.:-]*\d\d\.\d\d-py3)", l)
            container = m.group(1) if m else container
        if l.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|?\s*$", lines[i + 1]):
            hdr, j, rows = cells(l), i + 2, []
            while j < len(lines) and lines[j].startswith("|"):
                rows.append((j + 1, cells(lines[j])))
                j += 1
            out.append((i + 1, hdr, rows, sub, container))
            i = j
            continue
        i += 1
    return out


def records(readme, heading, system, model, table):
    line0, hdr, rows, sub, container = table
    cluster, gpu, gpn_default = SYSTEMS[system]
    if model is None:   # Transformer-XL single-node: the sub-heading names the model
        model = TXL_L if sub and "Large" in sub else TXL_B
    low = [h.lower() for h in hdr]

    def col(*prefixes):
        return next((k for k, h in enumerate(low) if any(h.startswith(p) for p in prefixes)), None)

    c_nodes, c_gpus = col("nodes", "num nodes"), col("gpus / node")
    if c_gpus is None:
        c_gpus = next((k for k, h in enumerate(low) if h == "gpus"), None)
    c_seq, c_bs = col("sequence length"), col("batch size / gpu", "batch size/gpu")
    c_acc, c_accb = col("accumulation steps", "gradient accumulation"), col("accumulated batch size")
    c_glob = col("global batch size")
    tput = [(k, prec(h)) for k, h in enumerate(hdr) if "throughput" in h.lower()
            and "speedup" not in h.lower() and prec(h)]
    bs_prec = prec_list(hdr[c_bs]) if c_bs is not None else []
    unit = "tokens/s" if "tok/s" in " ".join(low) else "sequences/s"
    for line, r in rows:
        if len(r) < len(hdr):
            continue
        if c_nodes is not None:
            nodes = r[c_nodes]
            gpn = r[c_gpus] if c_gpus is not None else str(gpn_default)
        else:
            nodes, gpn = "1", r[c_gpus]
        for k, p in tput:
            val = r[k].replace(",", "")
            if not re.match(r"^[0-9.]+$", val):
                continue

            def pick(c, order):
                if c is None:
                    return ""
                vals = split_pair(r[c])
                if len(vals) == 1:
                    return vals[0]
                if p in order and len(vals) == len(order):
                    return vals[order.index(p)]
                # a header naming FP32 where the throughput columns say TF32 (TF2 DGX A100)
                alt = {"tf32": "fp32", "fp32": "tf32"}.get(p)
                if alt in order and len(vals) == len(order):
                    return vals[order.index(alt)]
                return "?" + r[c]

            bs = pick(c_bs, bs_prec)
            acc = pick(c_acc, prec_list(hdr[c_acc]) if c_acc is not None else [])
            accb = pick(c_accb, prec_list(hdr[c_accb]) if c_accb is not None else [])
            glob = pick(c_glob, prec_list(hdr[c_glob]) if c_glob is not None else [])
            flag = consistency(nodes, gpn, bs, acc, accb, glob)
            v, s = cluster_set(cluster)
            yield {"cluster": cluster, "set": s, "readme": readme, "heading": heading.lstrip("# ")
                   + (f" / {sub}" if sub else ""), "line": line, "container": container or "",
                   "system": system, "gpu": gpu, "model": model,
                   "seq_len": r[c_seq] if c_seq is not None else "",
                   "nodes": nodes, "gpus_per_node": gpn, "precision": p, "batch_per_gpu": bs,
                   "accum_steps": acc, "accum_batch_per_gpu": accb, "global_batch": glob,
                   "throughput": val, "throughput_unit": unit, "flag": flag}


def consistency(nodes, gpn, bs, acc, accb, glob):
    """Which of the printed batch figures disagree with one another (data check, not a model)."""
    try:
        n, g, b = int(nodes), int(gpn), int(bs)
    except ValueError:
        return "unparsed"
    bad = []
    if b >= 1024:   # two tables print the accumulated batch in their "Batch size / GPU" column
        bad.append("batch-column-is-accumulated-batch")
    a = int(acc) if acc.isdigit() else None
    if a is not None and accb.isdigit() and a * b != int(accb):
        bad.append("batch*accum!=accumulated")
    if glob.isdigit():
        if a is not None and n * g * b * a != int(glob):
            bad.append("gpus*batch*accum!=global")
    return ";".join(bad)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gitdir")
    ap.add_argument("--unlicensed", action="store_true",
                    help="the tables of the READMEs without a licence file instead (do not commit)")
    ap.add_argument("--counts", action="store_true", help="rows per cluster, set and model only")
    a = ap.parse_args()
    rows = []
    for readme, heading, system, model, lic in TABLES:
        if lic == a.unlicensed:
            continue
        lines = git_show(a.gitdir, readme).split("\n")
        for t in find_tables(lines, heading):
            rows.extend(records(readme, heading, system, model, t))
    if a.counts:
        print_counts(rows, lambda r: (r["cluster"], r["set"], r["model"],
                                      "multi-node" if r["nodes"] != "1" else "one node"))
        return
    write_csv(rows, FIELDS)


if __name__ == "__main__":
    main()
