"""``cluster-designer estimate DESIGN [options]``: workload fit, time, goodput,
N-1 and owned-vs-cloud cost, computed from the design.

Options override the design's ``workload`` block field by field. Counts accept
``405e9``, ``15.6e12`` or ``70B`` / ``15.6T`` / ``4M`` / ``8k``. Exit codes: 0
estimated, 2 the input cannot be used (file, option or workload block).
"""

from __future__ import annotations

import argparse
import json
import math
import re
from typing import Any, TextIO

EXIT_OK, EXIT_INPUT = 0, 2
_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_NUMBER = re.compile(
    r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*([kmbgt]?)\s*$", re.IGNORECASE
)


def parse_count(text: str) -> float:
    """``405e9``, ``15.6e12``, ``70B``, ``15.6T``, ``4M``, ``8k`` -> a number."""
    match = _NUMBER.match(text)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"expected a count such as 405e9, 15.6e12, 70B or 15.6T, got {text!r}"
        )
    value = float(match.group(1)) * _SUFFIX.get(match.group(2).lower(), 1.0)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a count > 0, got {text!r}")
    return value


def _whole(text: str) -> int:
    value = parse_count(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return int(value)


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


# option -> (workload field, parser, metavar, help)
_OPTIONS: tuple[tuple[str, str, Any, str, str], ...] = (
    ("--params", "params", parse_count, "N", "parameters (total), e.g. 70B or 405e9"),
    ("--active-params", "active_params", parse_count, "N", "active per token (MoE)"),
    ("--layers", "layers", _whole, "L", "transformer layers"),
    ("--hidden", "hidden", _whole, "H", "hidden size"),
    ("--heads", "heads", _whole, "N", "attention heads"),
    ("--kv-heads", "kv_heads", _whole, "N", "key/value heads (GQA)"),
    ("--seq-len", "seq_len", _whole, "T", "training sequence length"),
    ("--vocab", "vocab", _whole, "V", "vocabulary size"),
    ("--tokens", "tokens", parse_count, "T", "training tokens, e.g. 15.6T"),
    ("--precision", "precision", str, "bf16|fp8|fp4", "math / inference weights"),
    ("--context-length", "context_length", _whole, "T", "inference context"),
    (
        "--concurrent-sequences",
        "concurrent_sequences",
        _whole,
        "N",
        "inference sequences in flight per replica",
    ),
    ("--prompt-tokens", "prompt_tokens", _whole, "N", "inference: prompt length"),
    ("--output-tokens", "output_tokens", _whole, "N", "inference: answer length"),
    ("--ttft-ms", "ttft_ms", _number, "T", "inference: time-to-first-token limit"),
    ("--tpot-ms", "tpot_ms", _number, "T", "inference: time-per-output-token limit"),
    (
        "--requests-per-s",
        "requests_per_s",
        _number,
        "R",
        "inference: requests/s target (how many GPUs meet it)",
    ),
    (
        "--kv-precision",
        "kv_precision",
        str,
        "bf16|fp8|fp4",
        "inference: KV cache format",
    ),
    ("--mfu", "mfu", _number, "F", "model FLOPs utilisation, 0-1"),
    (
        "--peak-tflops",
        "peak_tflops",
        _number,
        "F",
        "dense peak per GPU (when the catalog GPU has none)",
    ),
    ("--tp", "tp", _whole, "N", "tensor parallel"),
    ("--pp", "pp", _whole, "N", "pipeline parallel"),
    ("--dp", "dp", _whole, "N", "data parallel"),
    ("--vpp", "vpp", _whole, "N", "virtual pipeline stages (interleaved 1F1B)"),
    ("--cp", "cp", _whole, "N", "context parallel"),
    ("--ep", "ep", _whole, "N", "expert parallel (MoE)"),
    ("--zero-stage", "zero_stage", int, "0-3", "ZeRO / FSDP stage"),
    ("--recompute", "recompute", str, "none|selective|full", "activation recompute"),
    ("--micro-batch", "micro_batch", _whole, "N", "sequences per micro-batch"),
    (
        "--global-batch-tokens",
        "global_batch_tokens",
        parse_count,
        "T",
        "tokens per step",
    ),
    ("--lora-rank", "lora_rank", _whole, "R", "LoRA adapter rank"),
    (
        "--failure-rate-per-gpu-day",
        "failure_rate_per_gpu_day",
        _number,
        "R",
        "unexpected interruptions per GPU-day",
    ),
    ("--restart-minutes", "restart_minutes", _number, "M", "restart time per failure"),
    ("--capex-per-gpu", "capex_per_gpu", _number, "USD", "all-in capex per GPU"),
    ("--years", "years", _number, "Y", "depreciation years"),
    ("--utilization", "utilization", _number, "U", "share of hours busy, 0-1"),
    ("--pue", "pue", _number, "P", "power usage effectiveness"),
    ("--usd-per-kwh", "usd_per_kwh", _number, "C", "electricity price"),
    (
        "--ops-usd-per-gpu-hour",
        "ops_usd_per_gpu_hour",
        _number,
        "O",
        "operations cost per GPU-hour",
    ),
    (
        "--cloud-usd-per-gpu-hour",
        "cloud_usd_per_gpu_hour",
        _number,
        "C",
        "cloud rate to compare with",
    ),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the estimate options on ``parser``."""
    parser.add_argument("file", metavar="DESIGN", help="design file (.json)")
    add_workload_options(parser)
    parser.add_argument("--json", action="store_true", help="print the JSON object")
    parser.add_argument(
        "--collective",
        choices=("all-reduce", "all-gather", "reduce-scatter", "all-to-all"),
        default=None,
        help="time one collective on the design's fabric instead",
    )
    parser.add_argument(
        "--bytes",
        dest="collective_bytes",
        type=parse_count,
        metavar="SIZE",
        help="collective size in bytes (nccl-tests 'size'), e.g. 1G or 256M",
    )
    parser.add_argument(
        "--gpus",
        dest="collective_gpus",
        type=_whole,
        metavar="N",
        help="GPUs in the collective (default: all of the design's)",
    )


def add_workload_options(parser: argparse.ArgumentParser) -> None:
    """The workload options (``--model`` ... ``--job``); ``compare`` takes them too."""
    from designer.workload.presets import PRESETS

    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--model",
        metavar="NAME",
        help=f"model preset: {', '.join(PRESETS)}",
    )
    for option, field, kind, metavar, text in _OPTIONS:
        target = which if field == "params" else parser
        target.add_argument(option, dest=field, type=kind, metavar=metavar, help=text)
    parser.add_argument(
        "--job", choices=("pretrain", "finetune", "lora", "inference"), default=None
    )
    parser.add_argument(
        "--disaggregated",
        action="store_const",
        const=True,
        default=None,
        help="inference: size separate prefill and decode pools",
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``estimate`` command to the CLI's sub-commands."""
    est = sub.add_parser(
        "estimate",
        help="workload fit, time-to-train, goodput, N-1 and TCO of a design",
    )
    add_arguments(est)
    est.set_defaults(func=run)


def overrides(args: argparse.Namespace) -> Any:
    """The options given, as a workload block (raises ValueError with the option)."""
    from pydantic import ValidationError

    from designer.core.workload import Workload

    fields = ["model", "job", "disaggregated"] + [f for _, f, *_ in _OPTIONS]
    given = {f: getattr(args, f) for f in fields if getattr(args, f, None) is not None}
    try:
        return Workload.model_validate(given)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        name = str(err["loc"][0]) if err["loc"] else "?"
        option = "--" + name.replace("_", "-")
        raise ValueError(f"{option}: {err['msg']}, got {given.get(name)!r}") from None


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Estimate and print; return the exit code."""
    from designer.io import load_design
    from designer.workload import EstimateInputError, estimate
    from designer.workload.text import format_estimate

    try:
        over = overrides(args)
    except ValueError as exc:
        err.write(f"cluster-designer estimate: {exc}\n")
        return EXIT_INPUT
    design = load_design(args.file)  # DesignFileError: reported by main
    if getattr(args, "collective", None) is not None:
        return _collective(args, design, out, err)
    if getattr(args, "collective_bytes", None) or getattr(
        args, "collective_gpus", None
    ):
        err.write("cluster-designer estimate: --bytes and --gpus need --collective\n")
        return EXIT_INPUT
    try:
        est = estimate(design, overrides=over, origin="command line")
    except EstimateInputError as exc:
        where = "the design's workload block or the options"
        err.write(f"cluster-designer estimate: {args.file}: {exc} ({where})\n")
        return EXIT_INPUT
    if args.json:
        json.dump(est.model_dump(mode="json"), out, indent=2)
        out.write("\n")
    else:
        out.write(format_estimate(est, f"Workload estimate for {args.file}") + "\n")
    return EXIT_OK


def _collective(args: argparse.Namespace, design: Any, out: TextIO, err: TextIO) -> int:
    """``estimate DESIGN --collective OP --bytes SIZE [--gpus N]``."""
    from designer.workload import read_design
    from designer.workload.modelled import collective_out
    from designer.workload.text import format_collective

    if args.collective_bytes is None:
        err.write("cluster-designer estimate: --collective needs --bytes SIZE\n")
        return EXIT_INPUT
    facts = read_design(design)
    view = facts.fabric()
    gpus = args.collective_gpus
    if gpus is not None and gpus > max(facts.gpus, 0):
        err.write(
            f"cluster-designer estimate: --gpus: {gpus:,} is more than the "
            f"design's {facts.gpus:,} GPUs\n"
        )
        return EXIT_INPUT
    if facts.gpus < 2 and (gpus or facts.gpus) < 2:
        err.write(
            "cluster-designer estimate: --collective needs at least 2 GPUs; "
            f"{args.file} has {facts.gpus}\n"
        )
        return EXIT_INPUT
    c = collective_out(view, args.collective, args.collective_bytes, gpus)
    if args.json:
        body = {
            "gpus": facts.gpus,
            "gpu_model": facts.gpu_model,
            "collective": c.model_dump(mode="json"),
        }
        json.dump(body, out, indent=2)
        out.write("\n")
        return EXIT_OK
    title = f"Collective on {args.file}"
    out.write(format_collective(c, facts.gpu_model, facts.nvlink_domain, title))
    out.write("\n")
    return EXIT_OK


def workload_block(design: Any) -> dict[str, Any]:
    """The ``workload`` block of ``validate --json`` (the estimate object, or
    ``{"error": ...}`` when the design's block cannot be used)."""
    from designer.workload import EstimateInputError, estimate

    try:
        return estimate(design).model_dump(mode="json")
    except EstimateInputError as exc:
        return {"error": str(exc)}
