"""Findings of the workload estimate (codes listed in docs/estimate-json.md)."""

from __future__ import annotations

from designer.core.workload import Job
from designer.workload import facts
from designer.workload.fabric import DesignFacts, Finding, Severity
from designer.workload.plan import Plan, Work
from designer.workload.presets import ModelSpec, missing_shape, shape_mismatch
from designer.workload.result import Estimate

EXPOSED_FINDING = 0.5
"""Above this share, unoverlapped communication outlasts the compute itself."""


def finding(
    code: str, severity: Severity, message: str, items: list[str] | None = None
) -> Finding:
    return Finding(code=code, severity=severity, message=message, items=items or [])


def findings(
    est: Estimate,
    work: Work,
    plan: Plan,
    d: DesignFacts,
    why_not: str | None,
    spec: ModelSpec | None,
) -> list[Finding]:
    out: list[Finding] = []
    out += model_findings(spec, work.job)
    if len(d.gpu_models) > 1:
        out.append(
            finding(
                "WORKLOAD_MIXED_GPUS",
                Severity.INFO,
                f"the design mixes GPU models ({', '.join(sorted(d.gpu_models))}); the "
                f"estimate uses {d.gpu_model}, the most numerous",
            )
        )
    if est.fits is False and spec is not None:
        total = est.memory_gb_total.total or 0.0
        what = {
            Job.PRETRAIN: "pre-training",
            Job.FINETUNE: "full fine-tune",
            Job.LORA: "LoRA fine-tune",
            Job.INFERENCE: "inference",
        }[work.job]
        state = (
            "weights and KV cache" if work.job is Job.INFERENCE else "training state"
        )
        out.append(
            finding(
                "WORKLOAD_DOES_NOT_FIT",
                Severity.WARNING,
                f"{spec.name} {what} does not fit: {total:,.0f} GB of {state} on "
                f"{d.gpus:,} x {d.gpu_memory_gb:,.0f} GB ({why_not})",
            )
        )
    if plan.tp > d.nvlink_domain:
        out.append(
            finding(
                "TP_SPANS_NVLINK_DOMAINS",
                Severity.WARNING,
                f"TP {plan.tp} spans NVLink domains of {d.nvlink_domain} GPUs: tensor "
                "parallel traffic would cross the scale-out fabric",
            )
        )
    lost = est.reliability.lost_fraction
    if lost is not None and lost > facts.LOST_FINDING.value:
        out.append(
            finding(
                "CHECKPOINT_BOTTLENECK",
                Severity.WARNING,
                f"checkpoints of {est.reliability.checkpoint_tb:,.2f} TB take "
                f"{est.reliability.checkpoint_write_s:,.0f} s at "
                f"{est.reliability.storage_write_gbytes_s:,.1f} GB/s: failures and "
                f"checkpointing lose {lost:.0%} of the run, more than the "
                f"{facts.LOST_FINDING.value:.0%} Llama 3 lost (add storage write "
                "bandwidth)",
            )
        )
    exposed = est.step.exposed_comm_fraction
    if exposed is not None and exposed > EXPOSED_FINDING:
        out.append(
            finding(
                "FABRIC_BOUND_STEP",
                Severity.WARNING,
                f"per step, communication that compute cannot hide takes "
                f"{exposed:.0%} of the step (TP, CP, EP, PP and DP traffic on this "
                "design's fabric): the fabric, not the GPUs, sets the pace",
            )
        )
    if d.gpus_without_fabric:
        out.append(
            finding(
                "GPUS_WITHOUT_FABRIC",
                Severity.WARNING,
                f"{d.gpus_without_fabric:,} GPUs sit on compute nodes without a "
                "compute-fabric link; the job cannot use them",
            )
        )
    n1 = est.n_minus_1
    if n1.gpus_losing_fabric_path and n1.worst_leaf:
        out.append(
            finding(
                "N1_GPUS_CUT_OFF",
                Severity.WARNING,
                f"if {n1.worst_leaf} fails, {n1.gpus_losing_fabric_path:,} GPUs lose "
                "their path to the rest of the fabric",
                [n1.worst_leaf],
            )
        )
    idle = est.parallelism.idle_gpus
    if idle and est.fits:
        out.append(
            finding(
                "WORKLOAD_IDLE_GPUS",
                Severity.INFO,
                f"{idle:,} of the design's {d.gpus:,} GPUs stay idle: no plan of "
                f"the global batch uses them (the plan needs TP x CP x PP x DP = "
                f"{est.parallelism.gpus_used:,})",
            )
        )
    if d.gpus and d.gpu_peak is None and est.days is None:
        out.append(
            finding(
                "WORKLOAD_NO_PEAK",
                Severity.INFO,
                f"no published dense peak for {d.gpu_model}: training time is unknown "
                "until the peak per GPU is given",
            )
        )
    return out


_SHAPE_FIELDS = ("layers", "hidden", "heads", "seq_len")


def model_findings(spec: ModelSpec | None, job: Job) -> list[Finding]:
    """A model whose parameters and shape are two models', or whose shape is
    only partly given (the estimate then drops what needs the whole shape)."""
    if spec is None:
        return []
    out: list[Finding] = []
    mismatch = shape_mismatch(spec)
    if mismatch is not None:
        out.append(finding("WORKLOAD_MODEL_SHAPE_MISMATCH", Severity.WARNING, mismatch))
    given = [name for name in _SHAPE_FIELDS if getattr(spec, name) is not None]
    missing = missing_shape(spec)
    if given and missing and job is not Job.INFERENCE:
        out.append(
            finding(
                "WORKLOAD_MODEL_SHAPE_INCOMPLETE",
                Severity.WARNING,
                f"the model's shape lacks {_and(missing)}: activations and the "
                "step are not modelled (memory counts the training state only, "
                "the MFU is the default); give them, or clear the shape to use "
                "the parameters alone",
            )
        )
    return out


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
