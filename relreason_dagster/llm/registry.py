"""The model registry: ``models.yaml`` parsed into :class:`ModelEntry` objects, the one type of a model
(an entry as checked is the model the pipeline uses: its defaults resolved, declared once).

The registry is the only place a model is described, so it is validated
strictly: a typo in a field name or a string where a number belongs would
otherwise surface hours later as a failed or silently different run.  Every
problem becomes one :class:`ConfigError` line naming the file, the field and
what was expected, which the CLI prints without a traceback.

API keys are never stored here; an entry names the environment variable that
holds its key (``api_key_env``) and :func:`require_api_key` reads it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from relreason_dagster.common import atomic_files
from relreason_dagster.common.model_kinds import MODEL_KINDS
from relreason_dagster.common.user_files import user_file
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm import sweeps
from relreason_dagster.llm.reasoning import REASONING_MODES, asks_thinking
from relreason_dagster.llm.transports import table as transport_table
from relreason_dagster.llm.transports.batch_limits import BATCH_PROVIDERS, batch_provider
from relreason_dagster.llm.workers import MAX_WORKERS

# A model entry's ``timeout_retries`` when it sets none: one more send of a request that timed out
# after it was sent (provider_errors.RETRY_RULES says why such a send is counted possibly billed).
DEFAULT_TIMEOUT_RETRIES = 1

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")


def reserved_names() -> dict[str, str]:
    """Model names that are not LLM entries: the families' trained baselines answer under their own
    names (the relational family's ``dlm``).  Read when an entry is checked, not at import."""
    from relreason_dagster.benchmarks.registry import baseline_names, get_baseline

    return {name: get_baseline(name).description for name in baseline_names()}


_ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Generation params whose type we know; others pass through to LiteLLM as
# long as they are plain JSON values (they are part of the cache key).
_NUMBER_PARAMS = {"temperature", "top_p", "frequency_penalty", "presence_penalty"}
_INT_PARAMS = {"seed", "top_k"}
_POSITIVE_INT_PARAMS = {"max_tokens", "n_ctx", "n_threads"}
# How a local/ model is loaded (llm/local_provider.py): flash attention, llama.cpp's extra buffer types.
_BOOL_PARAMS = {"flash_attn", "extra_buffers"}


def _display(path: Path) -> str:
    """The path as a user would type it: relative to the cwd when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _got(value: Any) -> str:
    """``value`` for an error message; strings quoted so '' and '4' are visible."""
    if value is None:
        return "null"
    text = repr(value) if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys instead of silently keeping the last."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set[Any] = set()
    for key_node, _value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (line {mark.line + 1})", mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read_text(path: Path) -> str:
    """The file's text; a missing or unreadable file is one line."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{_display(path)}: file not found; create it or set RELREASON_MODELS") from None
    except OSError as exc:
        raise ConfigError(f"{_display(path)}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{_display(path)}: not UTF-8 text ({exc.reason})") from None


def _load_yaml(path: Path, text: str | None = None) -> Any:
    """Parse ``path`` (or ``text`` claimed to be its content) into Python objects."""
    where = _display(path)
    if text is None:
        text = _read_text(path)
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise ConfigError(f"{where}: {at}invalid YAML ({problem})") from None


def _check_params(where: str, prefix: str, params: Any) -> dict[str, Any]:
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise ConfigError(f"{where}: {prefix}: expected a mapping of generation params, got {_got(params)}")
    out: dict[str, Any] = {}
    for key, value in params.items():
        at = f"{prefix}.{key}"
        if not isinstance(key, str):
            raise ConfigError(f"{where}: {prefix}: expected string keys, got {_got(key)}")
        if key == "stream":  # in params it would be sent, but nothing would read a stream
            raise ConfigError(f"{where}: {at}: not allowed in params; set the entry's stream: true instead")
        if key in ("api_key", "model", "messages"):
            raise ConfigError(f"{where}: {at}: not allowed in params (set it elsewhere in the entry)")
        if key == "n":  # as a param every choice but the first would be thrown away
            raise ConfigError(
                f"{where}: {at}: several draws per request are the entry field n (stored as one row each "
                "with --samples K); move n out of params"
            )
        is_int = isinstance(value, int) and not isinstance(value, bool)
        if key in _POSITIVE_INT_PARAMS and not (is_int and value > 0):
            raise ConfigError(f"{where}: {at}: expected a positive integer, got {_got(value)}")
        if key in _INT_PARAMS and not is_int:
            raise ConfigError(f"{where}: {at}: expected an integer, got {_got(value)}")
        if key in _NUMBER_PARAMS and not (is_int or isinstance(value, float)):
            raise ConfigError(f"{where}: {at}: expected a number, got {_got(value)}")
        if key in _BOOL_PARAMS and not isinstance(value, bool):
            raise ConfigError(f"{where}: {at}: expected true or false, got {_got(value)}")
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: {at}: expected a plain JSON value, got {_got(value)}") from None
        out[key] = value
    return out


def _says(expected: str) -> dict[str, Any]:
    """What an error line says a field takes (``models[0].kind: expected 'chat' or 'base', got ...``)."""
    return {"expected": expected}


_POSITIVE = _says("a positive integer")
# How a batch line that failed or expired is asked again: in the next job, or as a live call.
BATCH_FALLBACKS = ("batch", "live")
# The most draws one request may ask (``n``; OpenAI's own limit).
MAX_CHOICES = 128

# ``timeout_s`` of an entry that sets none: a chat or base model answers in well under two minutes; a
# reasoning model may think for several, and a timeout there is a send the provider may still bill
# (provider_errors.RETRY_RULES), so its default is long enough for a long think.
DEFAULT_TIMEOUT_S = 120.0
REASONING_TIMEOUT_S = 600.0
# The ceiling of one streamed request when the entry names no timeout_s: a stream that stops sending is
# ended by stall_timeout_s, so the ceiling only bounds an answer that keeps coming (a long generation).
STREAM_TIMEOUT_S = 600.0


def is_reasoning(kind: str, params: Mapping[str, Any]) -> bool:
    """Whether an entry is a reasoning model's: ``kind: reasoning``, or params that turn its thinking on
    (``reasoning_effort``, ``thinking``, ... : ``reasoning.asks_thinking``)."""
    return kind == "reasoning" or asks_thinking(params)


def default_timeout_s(kind: str, params: Mapping[str, Any], stream: bool = False) -> float:
    """The ``timeout_s`` of an entry that sets none (docs/pipeline.md, "Timeouts").  A streamed
    request's is at least :data:`STREAM_TIMEOUT_S`: stall_timeout_s ends a stream that stops sending, so
    its ceiling only bounds an answer that keeps coming (a long generation)."""
    timeout = REASONING_TIMEOUT_S if is_reasoning(kind, params) else DEFAULT_TIMEOUT_S
    return max(timeout, STREAM_TIMEOUT_S) if stream else timeout


class ModelEntry(BaseModel):
    """One model: a ``models:`` entry of models.yaml checked, and the model the pipeline uses.

    ``name`` is the pipeline's key (column ``model`` in ``raw.responses``); ``litellm_model`` is what
    LiteLLM is asked for.  Two names may share one ``litellm_model`` (e.g. an alias), in which case the
    response cache lets the second reuse the first's answers.

    One type for both, so each field and its default is declared once, here.  Validated, an entry holds
    resolved values: ``params`` a dict, ``timeout_s`` its default when the entry names none (None only as
    written).  Strict, so ``true`` is not a number and ``"4"`` is not an integer; an unknown field is an
    error, never a silently ignored typo.  What the error line says a field expects is its
    ``json_schema_extra``.  Validated with the registry's context (the file and key path: models.yaml,
    ``-M``), ``params`` is checked by :func:`_check_params` naming them, and ``name`` must be one a user
    may write; a record of an entry the registry made (a sweep's variant ``base@param=level``, an ad-hoc
    model named by its LiteLLM string, in a run's settings) is validated again without it.  Frozen;
    :meth:`model_copy` makes a changed one without validating (the gateway's per-worker shares), so
    reading it in the hot path is attribute reads only.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(json_schema_extra=_says("a name of letters, digits, '.', '_', ':' or '-'"))
    litellm_model: str = Field(json_schema_extra=_says("a LiteLLM model string such as 'openai/gpt-4o-mini'"))
    # Written None or left out: no params of its own ({}).
    params: dict[str, Any] = Field(None, validate_default=True)
    concurrency: int = Field(4, gt=0, json_schema_extra=_POSITIVE)
    api_base: str | None = Field(
        None,
        pattern=r"^https?://\S+$",
        json_schema_extra=_says("an http(s) URL such as 'http://localhost:8000/v1'"),
    )
    api_key_env: str | None = Field(
        None,
        pattern=_ENV_RE.pattern,
        json_schema_extra=_says("the NAME of an environment variable such as 'OPENAI_API_KEY'"),
    )
    enabled: bool = Field(True, json_schema_extra=_says("true or false"))
    # Seconds a request may take.  None (as written): the entry's default, set when validated
    # (:func:`default_timeout_s`: long for a reasoning model or a stream).
    timeout_s: float | None = Field(None, gt=0, json_schema_extra=_says("a positive number of seconds"))
    max_attempts: int = Field(5, gt=0, json_schema_extra=_POSITIVE)
    # Sends again of a request that timed out after it was sent (possibly billed each time):
    # provider_errors.RETRY_RULES.
    timeout_retries: int = Field(
        DEFAULT_TIMEOUT_RETRIES, ge=0, json_schema_extra=_says("a number of retries, 0 or more")
    )
    context_window: int | None = Field(None, gt=0, json_schema_extra=_POSITIVE)
    # Processes that share this model's calls (llm/workers.py); 1 = the run's own process.
    workers: int = Field(1, gt=0, json_schema_extra=_POSITIVE)
    # "chat" (instruction-tuned) or "base" (a pretrained model): studies that prompt the two
    # differently (KOR-Bench: chat zero-shot, base three-shot) ask each only what the paper asked it.
    # "reasoning": a chat model that thinks before it answers (prompted as chat; a long timeout_s).
    kind: str = Field(
        "chat",
        json_schema_extra=_says(", ".join(map(repr, MODEL_KINDS[:-1])) + f" or {MODEL_KINDS[-1]!r}"),
    )
    # A base model's entry may name its chat model (KOR-Bench §5 pairs them: marts.kor_base_vs_chat).
    base_of: str | None = Field(None, json_schema_extra=_says("the name of this base model's chat model"))
    # How its thinking arrives when not in LiteLLM's ``reasoning_content`` (llm/reasoning.py):
    # None splits a reply that starts with ``<think>``; "think_tags" also one with only ``</think>``;
    # "none" never splits.
    reasoning: str | None = Field(
        None, json_schema_extra=_says(" or ".join(repr(k) for k in REASONING_MODES))
    )
    # Budget in USD of all this model's calls (stored ones included): calls stop cleanly once reached.
    max_cost: float | None = Field(None, gt=0, json_schema_extra=_says("a positive number of US dollars"))
    # Requests and estimated tokens per minute the provider allows (llm/rate_limits.py).
    rpm: int | None = Field(None, gt=0, json_schema_extra=_POSITIVE)
    tpm: int | None = Field(None, gt=0, json_schema_extra=_POSITIVE)
    # How calls are sent: a name in the transport table (llm/transports/table.py: "direct", "litellm",
    # or one registered there), read when checked, so a transport a test or a plugin registers is as
    # good a name as the built-ins; None: ``transport_used``'s rule.
    transport: str | None = Field(None)
    # Draws asked in one request (the OpenAI API's ``n``): ``--samples K`` sends ⌈K / n⌉ requests per
    # prompt (llm/draw_plan.bundle); a provider that refuses or ignores it gets one request per draw.
    n: int = Field(1, gt=0, le=MAX_CHOICES, json_schema_extra=_says(f"1 to {MAX_CHOICES} draws"))
    # Read the answer as it arrives (both transports, docs/pipeline.md "Streaming"): ``timeout_s`` is then
    # the ceiling of one whole request and ``stall_timeout_s`` the longest wait for the next byte or
    # chunk.  Not part of the request hash: a streamed answer is the same answer.
    stream: bool = Field(False, json_schema_extra=_says("true or false"))
    stall_timeout_s: float = Field(60.0, gt=0, json_schema_extra=_says("a positive number of seconds"))
    # Batch jobs (``batch: true`` or ``relreason run --batch``: transport "batch", llm/transports/batch.py;
    # docs/pipeline.md, "Batch jobs") at about half the price; whether a run waits for their results
    # (``--no-wait``: False), and how a line that failed or expired is asked again ("batch": in the next
    # job; "live": as a live call, ``--batch-fallback live``).
    batch: bool = Field(False, json_schema_extra=_says("true or false"))
    batch_wait: bool = Field(True, json_schema_extra=_says("true or false"))
    batch_fallback: str = Field("batch", json_schema_extra=_says("'batch' or 'live'"))
    # The model's own tokenizer (common/model_tokenizers.py: a local Hugging Face tokenizer folder or
    # tokenizer.json, or ``tiktoken:<encoding>``): its prompts are also counted in it (raw.prompt_tokens).
    # None: counted in relreason's default only.  Not part of the request hash.
    tokenizer: str | None = Field(
        None,
        json_schema_extra=_says(
            "a Hugging Face tokenizer folder or tokenizer.json file, or tiktoken:<encoding>"
        ),
    )
    # As written only: one param and its levels (llm/sweeps.py), which the registry turns into one model
    # per level (:func:`_check_entries`, which checks it and names the level in its error lines).  The
    # models a run uses hold none, and a record (``model_dump``) leaves it out.
    sweep: Any = Field(None, exclude=True)
    # Set by the registry only (never written; :data:`_WRITTEN_FIELDS`): a level of an entry's
    # ``sweep:``, named ``<sweep_base>@<sweep_param>=<level>``: the entry's name, the swept param, this
    # level's value and its 0-based place in the list as written.  All None on an ordinary entry.
    sweep_base: str | None = None
    sweep_param: str | None = None
    sweep_level: Any = None
    sweep_rank: int | None = None

    @property
    def provider(self) -> str:
        """The LiteLLM provider prefix (``openai`` in ``openai/gpt-4o``), or '' if none."""
        return self.litellm_model.split("/", 1)[0] if "/" in self.litellm_model else ""

    @property
    def transport_used(self) -> str:
        """``transport`` if set, else "direct" for an OpenAI-protocol model with an api_base, else LiteLLM."""
        if self.transport:
            return self.transport
        if self.batch:
            return "batch"
        return "direct" if self.api_base and self.provider in ("openai", "hosted_vllm") else "litellm"

    @field_validator("name")
    @classmethod
    def _name(cls, value: str, info: ValidationInfo) -> str:
        """As written (the registry's context) a name of letters, digits, ...; in a record, not blank."""
        if not (_NAME_RE.match(value) if info.context is not None else value.strip()):
            raise ValueError("bad name")
        return value

    @field_validator("litellm_model")
    @classmethod
    def _litellm_model(cls, value: str) -> str:
        if not value.strip() or value != value.strip():
            raise ValueError("blank or padded")
        return value

    @field_validator("params", mode="before")
    @classmethod
    def _params(cls, value: Any, info: ValidationInfo) -> dict[str, Any]:
        """Before the type check, so ``params: 3`` gets the line naming the file and the key."""
        context = info.context or {}
        return _check_params(context.get("where", "-"), f"{context.get('prefix', 'models[0]')}.params", value)

    @field_validator("workers")
    @classmethod
    def _workers(cls, value: int) -> int:
        if value > MAX_WORKERS:
            raise PydanticCustomError(
                "expected", "{expected}", {"expected": f"at most {MAX_WORKERS} processes"}
            )
        return value

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str) -> str:
        if value not in MODEL_KINDS:
            raise ValueError("unknown kind")
        return value

    @field_validator("transport", mode="before")
    @classmethod
    def _transport(cls, value: Any) -> Any:
        """Before the type check, so ``transport: 3`` gets the same line naming the choices."""
        known = transport_table.names()
        if value is not None and (not isinstance(value, str) or value not in known):
            quoted = [repr(name) for name in known]
            expected = f"{', '.join(quoted[:-1])} or {quoted[-1]}" if len(quoted) > 1 else quoted[0]
            raise PydanticCustomError("expected", "{expected}", {"expected": expected})
        return value

    @field_validator("batch_fallback")
    @classmethod
    def _batch_fallback(cls, value: str) -> str:
        if value not in BATCH_FALLBACKS:
            raise ValueError("unknown fallback")
        return value

    @field_validator("reasoning")
    @classmethod
    def _reasoning(cls, value: str | None) -> str | None:
        if value is not None and value not in REASONING_MODES:
            raise ValueError("unknown reasoning mode")
        return value

    @model_validator(mode="after")
    def _default_timeout(self) -> ModelEntry:
        """``timeout_s`` resolved once, here, so no reader of an entry has to know the default's rule."""
        if self.timeout_s is None:  # frozen: set in place, once, before anyone holds the entry
            self.__dict__["timeout_s"] = default_timeout_s(self.kind, self.params, self.stream)
        return self


# A variant's own fields (llm/sweeps.py), which only the registry sets.
_SWEEP_FIELDS = ("sweep_base", "sweep_param", "sweep_level", "sweep_rank")
# The fields an entry may write in models.yaml (or -M): all but the registry's own.
_WRITTEN_FIELDS = tuple(k for k in ModelEntry.model_fields if k not in _SWEEP_FIELDS)
_OPTIONAL_FIELDS = tuple(k for k in _WRITTEN_FIELDS if not ModelEntry.model_fields[k].is_required())


def _unknown_field(where: str, prefix: str, key: Any) -> ConfigError:
    hint = (
        "; keys never go in this file, name their environment variable with api_key_env"
        if key == "api_key"
        else f"; expected one of {', '.join(_WRITTEN_FIELDS)}"
    )
    return ConfigError(f"{where}: {prefix}.{key}: unknown field{hint}")


def _entry_error(where: str, prefix: str, entry: dict[str, Any], exc: ValidationError) -> ConfigError:
    """The first mistake of an entry as one line: unknown fields first, then missing ones, then the
    fields in file order of declaration, each naming what it expects."""
    keys, fields = list(entry), list(ModelEntry.model_fields)

    def rank(error: Any) -> tuple[int, int]:
        key = error["loc"][0] if error["loc"] else ""
        if error["type"] == "extra_forbidden":
            return 0, keys.index(key) if key in keys else 0
        return (1 if error["type"] == "missing" else 2), fields.index(key) if key in fields else 0

    first = min(exc.errors(), key=rank)
    key = str(first["loc"][0]) if first["loc"] else ""
    if first["type"] == "extra_forbidden":
        return _unknown_field(where, prefix, key)
    if first["type"] == "missing":
        return ConfigError(f"{where}: {prefix}.{key}: missing required field")
    if first["type"] == "expected":
        expected = str((first.get("ctx") or {})["expected"])
    else:
        extra = ModelEntry.model_fields[key].json_schema_extra
        expected = str(extra["expected"]) if isinstance(extra, dict) else first["msg"]
    return ConfigError(f"{where}: {prefix}.{key}: expected {expected}, got {_got(entry[key])}")


def _check_entry(where: str, index: int, entry: Any) -> ModelEntry:
    """One ``models:`` entry, checked, as the :class:`ModelEntry` a run uses (its defaults resolved)."""
    prefix = f"models[{index}]"
    if not isinstance(entry, dict):
        raise ConfigError(
            f"{where}: {prefix}: expected a mapping with name and litellm_model, got {_got(entry)}"
        )
    unknown = [key for key in entry if key not in _WRITTEN_FIELDS]
    if unknown:  # the first in file order, as the validation errors would rank it
        raise _unknown_field(where, prefix, unknown[0])
    try:
        spec = ModelEntry.model_validate(entry, context={"where": where, "prefix": prefix})
    except ValidationError as exc:
        raise _entry_error(where, prefix, entry, exc) from None
    reserved = reserved_names().get(spec.name)
    if reserved is not None:
        raise ConfigError(
            f"{where}: {prefix}.name: {spec.name!r} is the built-in {reserved}; pick another name"
        )
    if spec.tokenizer is not None:
        _check_tokenizer(where, prefix, spec.tokenizer)
    if spec.transport == "direct" and not (spec.api_base and spec.provider in ("openai", "hosted_vllm")):
        raise ConfigError(
            f"{where}: {prefix}.transport: 'direct' speaks the OpenAI protocol to an api_base; give an "
            "openai/ or hosted_vllm/ model an api_base, or remove transport"
        )
    if spec.stream and spec.provider == "local":
        raise ConfigError(
            f"{where}: {prefix}.stream: a local model answers in this process and does not stream; "
            "remove stream"
        )
    if spec.transport_used == "batch" and batch_provider(spec.litellm_model) is None:
        raise ConfigError(
            f"{where}: {prefix}.{'batch' if spec.batch else 'transport'}: {spec.provider or 'this provider'} "
            f"runs no batch jobs LiteLLM can send (only {', '.join(BATCH_PROVIDERS)}); remove it"
        )
    if spec.workers > 1 and spec.provider == "local":
        raise ConfigError(
            f"{where}: {prefix}.workers: a local model runs in this process (one copy in memory); "
            "remove workers or set it to 1"
        )
    return spec


def _check_tokenizer(where: str, prefix: str, name: str) -> None:
    """The entry's ``tokenizer`` loads from files on this machine (checked at the door, not mid-run)."""
    from relreason_dagster.common.model_tokenizers import check_tokenizer

    try:
        check_tokenizer(name)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {prefix}.tokenizer: {exc}") from None


def _check_entries(where: str, index: int, entry: Any) -> list[ModelEntry]:
    """One ``models:`` entry as the models it runs: itself, or with ``sweep:`` one variant per level
    (llm/sweeps.py), each checked as an entry whose params carry the level (the level wins)."""
    spec = _check_entry(where, index, entry)
    sweep = entry.get("sweep")
    if sweep is None:
        return [spec]
    prefix = f"models[{index}]"
    param, levels = sweeps.check_sweep(where, prefix, sweep)
    variants = []
    for rank, level in enumerate(levels):
        if "." not in param:  # a known param's type (max_tokens, temperature, ...), checked as in params
            _check_params(where, f"{prefix}.sweep", {param: level})
        params = sweeps.with_level(where, prefix, spec.params, param, level)
        one = {key: value for key, value in entry.items() if key != "sweep"}
        variant = _check_entry(where, index, {**one, "params": params})
        # Not validated again: the variant's name (``base@param=level``) is one only the registry gives.
        variants.append(
            variant.model_copy(
                update={
                    "name": sweeps.variant_name(spec.name, param, level),
                    "sweep_base": spec.name,
                    "sweep_param": param,
                    "sweep_level": level,
                    "sweep_rank": rank,
                }
            )
        )
    return variants


def parse_registry(data: Any, where: str) -> dict[str, ModelEntry]:
    """Validate already-parsed YAML ``data``; ``where`` names the file in errors."""
    if data is None:
        raise ConfigError(f"{where}: empty file; expected a top-level 'models:' list")
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping with a top-level 'models:' list, got {_got(data)}")
    for key in data:
        if key != "models":
            raise ConfigError(f"{where}: {key}: unknown top-level field; expected only 'models'")
    if "models" not in data:
        raise ConfigError(f"{where}: models: missing required top-level list")
    models = data["models"]
    if models is None:
        models = []
    if not isinstance(models, list):
        raise ConfigError(f"{where}: models: expected a list of model entries, got {_got(models)}")
    specs: dict[str, ModelEntry] = {}
    # Entry names, a swept entry's included: `--model NAME` selects its variants, so it is taken too.
    first_index: dict[str, int] = {}
    for index, entry in enumerate(models):
        variants = _check_entries(where, index, entry)
        name = variants[0].sweep_base or variants[0].name
        if name in first_index:
            raise ConfigError(
                f"{where}: models[{index}].name: duplicate model name {name!r} "
                f"(already used by models[{first_index[name]}])"
            )
        first_index[name] = index
        specs.update((spec.name, spec) for spec in variants)
    return specs


def entry_names(specs: Mapping[str, ModelEntry]) -> list[str]:
    """The names the entries of ``specs`` were written with (a swept entry once, by its own name)."""
    return list(dict.fromkeys(spec.sweep_base or spec.name for spec in specs.values()))


@dataclass(frozen=True)
class RegistrySnapshot:
    """models.yaml as one launch read it: where it is, which version of the file (its stat), and its
    models.  A launch reads the file once and hands this to its runs, whose processes then read no
    file: :func:`seed_registry` makes :func:`load_registry` answer from it while the file is unchanged."""

    path: str
    stamp: tuple[int, int, int]  # mtime_ns, size, inode of the file read
    specs: dict[str, ModelEntry]
    digest: str = ""  # sha256 of the bytes read (what a launch's up-to-date check hashes)

    def record(self) -> dict[str, Any]:
        """As plain JSON values (a run's settings carry it)."""
        return {
            "path": self.path,
            "stamp": list(self.stamp),
            "specs": [spec.model_dump() for spec in self.specs.values()],
            "digest": self.digest,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> RegistrySnapshot:
        specs = [ModelEntry(**entry) for entry in record["specs"]]
        stamp = tuple(int(x) for x in record["stamp"])
        by_name = {s.name: s for s in specs}
        digest = str(record.get("digest", ""))
        return cls(str(record["path"]), (stamp[0], stamp[1], stamp[2]), by_name, digest)


# This process's reads of registry files: resolved path -> the snapshot (a file whose stat still
# matches is not read again; `models add` or an edit changes the stat, and the next load reads it).
_LOADED: dict[str, RegistrySnapshot] = {}


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


def snapshot_registry(path: str | Path) -> RegistrySnapshot:
    """models.yaml at ``path`` parsed and checked, read at most once per version of the file."""
    path = Path(path)
    key = str(path.resolve())
    stamp = _stamp(path)
    known = _LOADED.get(key)
    if known is not None and stamp is not None and known.stamp == stamp:
        return known
    text = _read_text(path)
    specs = parse_registry(_load_yaml(path, text), _display(path))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    snapshot = RegistrySnapshot(key, stamp or (0, 0, 0), specs, digest)
    if stamp is not None:
        _LOADED[key] = snapshot
    return snapshot


def seed_registry(snapshot: RegistrySnapshot) -> None:
    """Let this process answer :func:`load_registry` of the snapshot's file from it (a run process
    given its launch's snapshot), as long as the file's stat is the one the launch read."""
    _LOADED.setdefault(snapshot.path, snapshot)


def load_registry(path: str | Path) -> dict[str, ModelEntry]:
    """All models of ``path`` (enabled and disabled), by name, in file order."""
    return dict(snapshot_registry(path).specs)


def enabled_models(path: str | Path) -> dict[str, ModelEntry]:
    """The models a run uses: those with ``enabled: true`` (the default)."""
    return {name: spec for name, spec in load_registry(path).items() if spec.enabled}


def get_model(path: str | Path, name: str, registry: RegistrySnapshot | None = None) -> ModelEntry:
    """The model ``name``; an unknown name is a one-line error listing the known ones."""
    specs = registry.specs if registry is not None else load_registry(path)
    if name not in specs:
        known = ", ".join(f"{n}" if s.enabled else f"{n} (disabled)" for n, s in specs.items()) or "none"
        raise ConfigError(f"unknown model {name!r} in {_display(Path(path))}; known models: {known}")
    return specs[name]


# Keys of ``relreason run -M KEY=VALUE`` that set an entry field; every other key is a generation param.
# A variant's own fields (:data:`_SWEEP_FIELDS`) are kept through -M, which is laid over the level's entry.
ENTRY_OPTIONS = tuple(f for f in _OPTIONAL_FIELDS if f not in ("params", "enabled", "sweep"))


def resolve_model(
    path: str | Path,
    name: str,
    options: Mapping[str, Any] | None = None,
    *,
    registry: RegistrySnapshot | None = None,
) -> ModelEntry:
    """The model a run asks for ``name``: its registry entry, or, for a name with a ``/`` that has none,
    an ad-hoc model whose LiteLLM model string (and name in the results) is ``name``.

    ``options`` are ``relreason run -M KEY=VALUE``: entry fields (``api_base``, ``api_key_env``,
    ``concurrency``, ``reasoning``, ...) or generation params (anything else: ``temperature``,
    ``reasoning_effort``, ...), laid over the entry and checked exactly as models.yaml is, so a bad
    value is the same one-line error.  Without a registry entry and without a ``/`` the name is unknown.
    ``registry``: the file as already read (a launch's snapshot), so it is not read again.
    """
    options = dict(options or {})
    if "sweep" in options:
        raise ConfigError(
            "-M sweep: a sweep is a models.yaml entry's (sweep: {PARAM: [LEVEL, ...]}); write it there, "
            "or run one level with -M PARAM=LEVEL"
        )
    try:
        spec = get_model(path, name, registry)
    except ConfigError as exc:
        if "/" not in name:
            raise ConfigError(f"{exc}, or a LiteLLM model string such as openai/gpt-4o-mini") from None
        spec = None
    swept: dict[str, Any] = {}
    if spec is None:
        entry: dict[str, Any] = {"name": "adhoc", "litellm_model": name, "params": {}}
    else:
        entry = {k: v for k, v in spec.model_dump().items() if v is not None}
        if not options:
            return spec
        swept = {key: entry.pop(key, None) for key in _SWEEP_FIELDS}
        if spec.sweep_base:  # checked under the entry's own name; the variant's is put back below
            entry["name"] = spec.sweep_base
        top = sweeps.swept_top_key(spec.sweep_param) if spec.sweep_param else None
        if top is not None and top in options:
            raise ConfigError(
                f"-M {top}: model {name!r} is the {sweeps.level_text(spec.sweep_level)} level of "
                f"{spec.sweep_base}'s sweep of {spec.sweep_param}; drop -M {top}, or run another level "
                f"with --model {spec.sweep_base}@{spec.sweep_param}=LEVEL"
            )
        default = default_timeout_s(spec.kind, spec.params, spec.stream)
        if spec.timeout_s == default and "timeout_s" not in options:
            del entry["timeout_s"]  # a default, chosen again for the options (-M reasoning_effort=high)
    params = {k: v for k, v in options.items() if k not in ENTRY_OPTIONS}
    entry.update({k: v for k, v in options.items() if k in ENTRY_OPTIONS})
    entry["params"] = {**entry.get("params", {}), **params}
    try:
        checked = _check_entry("-M", 0, entry)
    except ConfigError as exc:
        text = str(exc).replace("-M: models[0].params.", "-M ").replace("-M: models[0].", "-M ")
        raise ConfigError(f"{text} (model {name!r})") from None
    # Not validated again: the name asked for may be a variant's or a LiteLLM model string (ad hoc).
    return checked.model_copy(update={"name": name, **swept})


def api_key(spec: ModelEntry) -> str | None:
    """The API key of ``spec`` as its environment variable holds it now (None: it names none, or it is
    unset).  Read where the call is made; whether it is set was checked once, at the door."""
    return os.environ.get(spec.api_key_env) or None if spec.api_key_env else None


def require_api_key(spec: ModelEntry) -> str | None:
    """The API key of ``spec`` from its environment variable, or None if it needs none.

    Checked before a run starts (once per model and launch: ``launch_plan.build_plan``) so a missing
    key is one clear line rather than hundreds of stored authentication errors.  Each check is an
    audit event (``relreason.api_key_check``), which is how a test counts them across processes.
    """
    sys.audit("relreason.api_key_check", spec.name)
    if not spec.api_key_env:
        return None
    value = os.environ.get(spec.api_key_env)
    if not value:
        raise ConfigError(
            f"model {spec.name!r} needs the environment variable {spec.api_key_env} "
            "(api_key_env in models.yaml)"
        )
    return value


def _yaml_scalar(value: Any) -> str:
    """``value`` as a one-line YAML scalar (plain when unambiguous, else JSON-quoted)."""
    if isinstance(value, str):
        plain_ok = (
            value
            and re.match(r"^[A-Za-z0-9_./:@+-][A-Za-z0-9_./:@+ -]*$", value)
            and ": " not in value
            and not value.endswith(":")
            and not value.endswith(" ")
            and yaml.safe_load(value) == value
        )
        return value if plain_ok else json.dumps(value)
    return json.dumps(value)


def _flow_mapping(params: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{_yaml_scalar(k)}: {_yaml_scalar(v)}" for k, v in params.items()) + "}"


@dataclass(frozen=True)
class NewModel:
    """One entry to append to ``models.yaml`` (:func:`add_models`); None fields are left out."""

    name: str
    litellm_model: str
    params: dict[str, Any] | None = None
    concurrency: int | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    workers: int | None = None
    kind: str | None = None
    base_of: str | None = None
    # One param and its levels (``{"reasoning_effort": ["low", "high"]}``): a variant per level.
    sweep: dict[str, list[Any]] | None = None


def _flow_sweep(sweep: dict[str, list[Any]]) -> str:
    """``sweep:`` as one flow line: ``{reasoning_effort: [low, medium, high]}``."""
    items = [f"{_yaml_scalar(k)}: [{', '.join(map(_yaml_scalar, levels))}]" for k, levels in sweep.items()]
    return "{" + ", ".join(items) + "}"


def _entry_lines(entry: NewModel, indent: str) -> list[str]:
    """``entry`` as the lines of one block-list item, at ``indent``."""
    lines = [
        f"{indent}- name: {_yaml_scalar(entry.name)}",
        f"{indent}  litellm_model: {_yaml_scalar(entry.litellm_model)}",
    ]
    if entry.params:
        lines.append(f"{indent}  params: {_flow_mapping(entry.params)}")
    for key in ("concurrency", "api_base", "api_key_env", "workers", "kind", "base_of"):
        value = getattr(entry, key)
        if value is not None:
            lines.append(f"{indent}  {key}: {_yaml_scalar(value)}")
    if entry.sweep:
        lines.append(f"{indent}  sweep: {_flow_sweep(entry.sweep)}")
    return lines


WRITE_FIX = "make it and its folder writable, or set RELREASON_MODELS to a file you can write"


def add_models(path: str | Path, entries: list[NewModel]) -> dict[str, ModelEntry]:
    """Append ``entries`` to ``path`` as text, so the file's comments and layout survive; one write.
    Returns the models they run, by name (a swept entry's variants, one per level).

    The new content is validated as a whole before anything is written, and written whole or not at
    all (``common/atomic_files``): a full disk or a crash leaves the old file, never half an entry.
    All entries go in one write, so adding a study's dozen models rewrites the file once.  A duplicate
    name or an invalid value is a ConfigError and the file is left unchanged; so is a file that cannot
    be read or written (one line naming it).  A missing file is created with a ``models:`` list.
    """
    if not entries:
        return {}
    path = Path(path)
    where = _display(path)
    text = _read_text(path) if path.exists() else "models:\n"
    existing = entry_names(parse_registry(_load_yaml(path, text), where))
    names = [entry.name for entry in entries]
    for name in names:
        if name in existing:
            raise ConfigError(f"{where}: model {name!r} already exists; pick another name or edit the file")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ConfigError(f"{where}: model {twice[0]!r} is added twice; give each entry its own name")
    match = re.search(r"^models:[ \t]*(#.*)?$", text, flags=re.MULTILINE)
    if match is None:
        raise ConfigError(f"{where}: models: cannot append to this layout (expected a block 'models:' list)")
    item = re.search(r"^([ \t]*)- ", text[match.end() :], flags=re.MULTILINE)
    indent = item.group(1) if item else "  "
    lines = [line for entry in entries for line in _entry_lines(entry, indent)]
    new_text = text if text.endswith("\n") or not text else text + "\n"
    new_text += "\n".join(lines) + "\n"
    try:
        specs = parse_registry(_load_yaml(path, new_text), where)
    except ConfigError as exc:
        which = ", ".join(repr(name) for name in names)
        raise ConfigError(f"{exc} (while adding model {which}; file left unchanged)") from None
    written = entry_names(specs)
    if any(name not in written for name in names) or len(written) != len(existing) + len(entries):
        raise ConfigError(f"{where}: models: cannot append to this layout (expected a block 'models:' list)")
    with user_file(where, fix=WRITE_FIX):
        atomic_files.write_text(path, new_text)
    return {spec.name: spec for spec in specs.values() if (spec.sweep_base or spec.name) in names}


def add_model(
    path: str | Path,
    name: str,
    litellm_model: str,
    *,
    params: dict[str, Any] | None = None,
    concurrency: int | None = None,
    api_base: str | None = None,
    api_key_env: str | None = None,
    workers: int | None = None,
    kind: str | None = None,
    base_of: str | None = None,
) -> ModelEntry:
    """Append one model entry to ``path`` (:func:`add_models`, which says how)."""
    entry = NewModel(name, litellm_model, params, concurrency, api_base, api_key_env, workers, kind, base_of)
    return add_models(path, [entry])[name]
