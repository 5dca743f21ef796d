"""The files and batches half of the fake OpenAI server: a stand-in for a provider's Batch API.

:class:`tests.fakes.openai_server.FakeOpenAIServer` serves these over HTTP; this module holds the
state and the rules, so they can be read (and reasoned about) without the HTTP plumbing.  It speaks
the Batch API as OpenAI documents it and as LiteLLM 1.110 reads it through the OpenAI SDK for an
``openai/...`` model with an ``api_base``:

- a file is uploaded as multipart (``file``, ``purpose``) and served back as a ``file`` object
  (``id`` ``file-...``, ``bytes``, ``created_at``, ``filename``, ``purpose``, ``status``,
  ``expires_at``, ``status_details``); its bytes at ``GET /v1/files/{id}/content``;
- a batch is created from an uploaded ``purpose=batch`` JSONL file whose lines are
  ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body": {...chat request...}}``;
  it starts ``validating``, is checked at its first retrieve (``failed`` with ``errors.data``
  entries ``{code, line, message, param}``, codes ``invalid_json_line``, ``duplicate_custom_id``,
  ``url_mismatch``, ``model_mismatch``, ``empty_file``, ``too_many_tasks``, as OpenAI documents
  them) or goes ``in_progress``, and ends ``completed``, ``expired`` or ``cancelled`` only when the
  test says so (:meth:`BatchStore.complete`, :meth:`BatchStore.expire`, a cancel, or the
  ``complete_after_retrieves``-th retrieve), never because a clock ran;
- the output file has one line per answered request, ``{"id": "batch_req_...", "custom_id",
  "response": {"status_code": 200, "request_id", "body": <chat.completion>}, "error": null}``; the
  error file has a line per request that failed with an HTTP status (``response.status_code`` 4xx/5xx
  with the provider's ``{"error": {...}}`` body, ``error`` null) and per request that never ran
  (``response`` null, ``error`` ``{"code": "batch_expired" | "batch_cancelled", "message"}``), as
  OpenAI's batch output lines are documented; ``output_file_id`` / ``error_file_id`` are null when
  their file would be empty;
- ``request_counts`` is ``{total, completed, failed}``; ``failed`` counts every line of the error
  file (failed, expired and cancelled), which is what a client that re-asks them needs to know.

Line answers come from a callable the server passes in (the same scripted answer logic as its live
chat calls), so a batch answer and a live answer to the same prompt are the same answer.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# OpenAI's documented limits of one batch input file (a client must split above them).
MAX_BATCH_LINES = 50_000
MAX_BATCH_BYTES = 200 * 1024 * 1024
COMPLETION_WINDOW_S = 24 * 3600
BATCH_FILE_TTL_S = 30 * 24 * 3600  # batch files expire after 30 days by default
CHAT_ENDPOINT = "/v1/chat/completions"
FILE_PURPOSES = ("assistants", "batch", "fine-tune", "vision", "user_data", "evals")

EXPIRED_MESSAGE = "This request could not be executed before the completion window expired."
CANCELLED_MESSAGE = "This request was not executed because the batch was cancelled."

# A line's answer: (HTTP status, response body).  200 with a chat.completion, or an error status
# with the provider's {"error": {...}} body.
LineAnswer = tuple[int, dict[str, Any]]


class ApiError(Exception):
    """An HTTP error the server answers with OpenAI's ``{"error": {...}}`` body."""

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = {
            "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
        }


@dataclass
class FakeFile:
    """One uploaded or generated file (input JSONL, batch output or batch errors)."""

    id: str
    filename: str
    purpose: str
    data: bytes
    created_at: int

    def as_object(self) -> dict[str, Any]:
        """The ``file`` object as ``POST /v1/files`` and ``GET /v1/files/{id}`` return it."""
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.data),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
            "expires_at": self.created_at + BATCH_FILE_TTL_S if self.purpose.startswith("batch") else None,
            "status_details": None,
        }


@dataclass
class BatchLine:
    """One request of a batch and, once decided, its fate and its output/error file record."""

    index: int  # 1-based line number in the input file
    custom_id: str
    body: dict[str, Any]
    # "answered" (output file), "failed" (error file, HTTP status), "expired" / "cancelled" (error
    # file, never ran); None while still to do.
    outcome: str | None = None
    status: int | None = None
    record: dict[str, Any] | None = None


@dataclass(frozen=True)
class BatchLineEntry:
    """A batch line as the server decided it (the batch counterpart of a live call's log entry)."""

    batch_id: str
    custom_id: str
    key: str  # the prompt key of the line's messages (as for live calls)
    model: str
    outcome: str
    status: int | None
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass
class FakeBatch:
    """A batch job and its lines."""

    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    metadata: dict[str, Any] | None
    created_at: int
    lines: list[BatchLine]
    validation_errors: list[dict[str, Any]]
    model: str | None
    status: str = "validating"
    retrieves: int = 0
    times: dict[str, int] = field(default_factory=dict)  # in_progress_at, completed_at, ...
    output_file_id: str | None = None
    error_file_id: str | None = None

    def pending(self) -> list[BatchLine]:
        return [line for line in self.lines if line.outcome is None]

    def as_object(self) -> dict[str, Any]:
        """The ``batch`` object as create, retrieve and cancel return it."""
        done = [line for line in self.lines if line.outcome is not None]
        answered = [line for line in done if line.outcome == "answered"]
        usage = {"input_tokens": 0, "output_tokens": 0, "reasoning_tokens": 0}
        for line in answered:
            body_usage = ((line.record or {}).get("response") or {}).get("body", {}).get("usage") or {}
            usage["input_tokens"] += int(body_usage.get("prompt_tokens") or 0)
            usage["output_tokens"] += int(body_usage.get("completion_tokens") or 0)
            details = body_usage.get("completion_tokens_details") or {}
            usage["reasoning_tokens"] += int(details.get("reasoning_tokens") or 0)
        errors = {"object": "list", "data": self.validation_errors} if self.status == "failed" else None
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "model": self.model,
            "errors": errors,
            "input_file_id": self.input_file_id,
            "completion_window": self.completion_window,
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "in_progress_at": self.times.get("in_progress_at"),
            "expires_at": self.created_at + COMPLETION_WINDOW_S,
            "finalizing_at": self.times.get("finalizing_at"),
            "completed_at": self.times.get("completed_at"),
            "failed_at": self.times.get("failed_at"),
            "expired_at": self.times.get("expired_at"),
            "cancelling_at": self.times.get("cancelling_at"),
            "cancelled_at": self.times.get("cancelled_at"),
            "request_counts": {
                "total": len(self.lines) if self.status != "failed" else 0,
                "completed": len(answered),
                "failed": len(done) - len(answered),
            },
            "usage": {
                "input_tokens": usage["input_tokens"],
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": usage["output_tokens"],
                "output_tokens_details": {"reasoning_tokens": usage["reasoning_tokens"]},
                "total_tokens": usage["input_tokens"] + usage["output_tokens"],
            },
            "metadata": self.metadata,
        }


class BatchStore:
    """Files and batches of one fake server; every method is safe to call from any thread.

    ``answer(batch_id, custom_id, body)`` answers one line (status and body) with the server's
    scripted logic and logs it; ``complete_after_retrieves`` (None: only when the test says so) makes
    the N-th retrieve of a batch find it completed; ``reverse_output`` writes the output file last
    line first, as OpenAI promises no order (a client must key results by ``custom_id``).
    """

    def __init__(
        self,
        answer: Callable[[str, str, dict[str, Any]], LineAnswer],
        *,
        complete_after_retrieves: int | None = None,
        max_lines: int = MAX_BATCH_LINES,
        max_bytes: int = MAX_BATCH_BYTES,
        reverse_output: bool = False,
    ) -> None:
        if complete_after_retrieves is not None and complete_after_retrieves < 1:
            raise ValueError("complete_after_retrieves counts retrieves from 1")
        self._answer = answer
        self.complete_after_retrieves = complete_after_retrieves
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.reverse_output = reverse_output
        self.files: dict[str, FakeFile] = {}
        self.batches: dict[str, FakeBatch] = {}
        self._lock = threading.RLock()
        self._serial = 0

    def _next_id(self, prefix: str) -> str:
        self._serial += 1
        return f"{prefix}{self._serial:024x}"

    # -- files -------------------------------------------------------------

    def add_file(self, data: bytes, filename: str, purpose: str) -> FakeFile:
        """Store an upload (``POST /v1/files``); 400 for an unknown purpose or a batch file too big."""
        if purpose not in FILE_PURPOSES:
            raise ApiError(400, f"'{purpose}' is not one of {list(FILE_PURPOSES)} - 'purpose'", "purpose")
        if purpose == "batch" and len(data) > self.max_bytes:
            raise ApiError(
                400,
                f"File is too large: {len(data)} bytes; the Batch API takes at most {self.max_bytes}.",
                "file",
            )
        with self._lock:
            item = FakeFile(self._next_id("file-"), filename, purpose, data, int(time.time()))
            self.files[item.id] = item
        return item

    def file(self, file_id: str) -> FakeFile:
        with self._lock:
            if file_id not in self.files:
                raise ApiError(404, f"No such File object: {file_id}", "id")
            return self.files[file_id]

    def delete_file(self, file_id: str) -> dict[str, Any]:
        with self._lock:
            self.file(file_id)
            del self.files[file_id]
        return {"id": file_id, "object": "file", "deleted": True}

    # -- batches -----------------------------------------------------------

    def create(self, request: dict[str, Any]) -> FakeBatch:
        """``POST /v1/batches``: 400 for a missing or non-batch input file, another endpoint or window."""
        input_file_id = request.get("input_file_id")
        endpoint = request.get("endpoint")
        window = request.get("completion_window")
        if not isinstance(input_file_id, str):
            raise ApiError(400, "Missing required parameter: 'input_file_id'.", "input_file_id")
        if endpoint != CHAT_ENDPOINT:
            raise ApiError(
                400, f"The fake serves batches of {CHAT_ENDPOINT} only, not {endpoint!r}.", "endpoint"
            )
        if window != "24h":
            raise ApiError(
                400, f"Invalid completion_window {window!r}: only '24h' is supported.", "completion_window"
            )
        with self._lock:
            source = self.file(input_file_id)
            if source.purpose != "batch":
                raise ApiError(
                    400, f"File {input_file_id} has purpose '{source.purpose}', not 'batch'.", "input_file_id"
                )
            lines, errors, model = self._parse(source.data, endpoint)
            batch = FakeBatch(
                id=self._next_id("batch_"),
                input_file_id=input_file_id,
                endpoint=endpoint,
                completion_window=window,
                metadata=request.get("metadata"),
                created_at=int(time.time()),
                lines=lines,
                validation_errors=errors,
                model=model,
            )
            self.batches[batch.id] = batch
        return batch

    def _parse(self, data: bytes, endpoint: str) -> tuple[list[BatchLine], list[dict[str, Any]], str | None]:
        """The lines of an input file and its validation errors (reported when validation ends)."""
        lines: list[BatchLine] = []
        errors: list[dict[str, Any]] = []
        seen: set[str] = set()
        models: set[str] = set()
        raw_lines = [raw for raw in data.decode("utf-8", "replace").splitlines() if raw.strip()]
        if not raw_lines:
            errors.append(
                {"code": "empty_file", "line": None, "message": "The input file is empty.", "param": None}
            )
        if len(raw_lines) > self.max_lines:
            errors.append(
                {
                    "code": "too_many_tasks",
                    "line": None,
                    "message": f"The batch has {len(raw_lines)} requests; the most is {self.max_lines}.",
                    "param": None,
                }
            )
        for number, raw in enumerate(raw_lines, start=1):
            try:
                item = json.loads(raw)
                custom_id = item["custom_id"]
                body = item["body"]
                url = item.get("url")
                if not isinstance(custom_id, str) or not isinstance(body, dict):
                    raise TypeError
            except (ValueError, KeyError, TypeError):
                errors.append(
                    {
                        "code": "invalid_json_line",
                        "line": number,
                        "message": "This line is not parseable as valid JSON.",
                        "param": None,
                    }
                )
                continue
            if custom_id in seen:
                errors.append(
                    {
                        "code": "duplicate_custom_id",
                        "line": number,
                        "message": "The custom_id for this request is a duplicate of another request. "
                        "The custom_id parameter must be unique for each request in a batch.",
                        "param": "custom_id",
                    }
                )
            if url != endpoint:
                errors.append(
                    {
                        "code": "url_mismatch",
                        "line": number,
                        "message": f"The url for this request does not match the batch endpoint {endpoint}.",
                        "param": "url",
                    }
                )
            seen.add(custom_id)
            models.add(str(body.get("model", "")))
            lines.append(BatchLine(index=number, custom_id=custom_id, body=body))
        if len(models) > 1:
            errors.append(
                {
                    "code": "model_mismatch",
                    "line": None,
                    "message": f"Requests of one batch must all use the same model; found {sorted(models)}.",
                    "param": "body.model",
                }
            )
        return lines, errors, (next(iter(models)) if len(models) == 1 else None)

    def batch(self, batch_id: str) -> FakeBatch:
        with self._lock:
            if batch_id not in self.batches:
                raise ApiError(404, f"No batch found with id '{batch_id}'.", "batch_id")
            return self.batches[batch_id]

    def retrieve(self, batch_id: str) -> FakeBatch:
        """``GET /v1/batches/{id}``: a retrieve is when a batch moves on (validation, cancel, completion)."""
        with self._lock:
            batch = self.batch(batch_id)
            batch.retrieves += 1
            self._validate(batch)
            if batch.status == "cancelling":
                self._close(batch, "cancelled")
            elif (
                batch.status == "in_progress"
                and self.complete_after_retrieves is not None
                and batch.retrieves >= self.complete_after_retrieves
            ):
                self._run(batch, None)
                self._close(batch, "completed")
            return batch

    def _validate(self, batch: FakeBatch) -> None:
        if batch.status != "validating":
            return
        now = int(time.time())
        if batch.validation_errors:
            batch.status = "failed"
            batch.times["failed_at"] = now
        else:
            batch.status = "in_progress"
            batch.times["in_progress_at"] = now

    def _run(self, batch: FakeBatch, n: int | None) -> None:
        """Answer the next ``n`` lines still to do (None: all of them)."""
        for line in batch.pending()[:n]:
            status, body = self._answer(batch.id, line.custom_id, line.body)
            record = {
                "id": self._next_id("batch_req_"),
                "custom_id": line.custom_id,
                "response": {"status_code": status, "request_id": self._next_id("req_"), "body": body},
                "error": None,
            }
            line.outcome, line.status, line.record = (
                ("answered" if status == 200 else "failed"),
                status,
                record,
            )

    def _close(self, batch: FakeBatch, status: str) -> None:
        """End a batch: lines still to do never run (``batch_expired`` / ``batch_cancelled``); write files."""
        code, message = {
            "expired": ("batch_expired", EXPIRED_MESSAGE),
            "cancelled": ("batch_cancelled", CANCELLED_MESSAGE),
        }.get(status, ("", ""))
        for line in batch.pending():
            line.outcome = status
            line.record = {
                "id": self._next_id("batch_req_"),
                "custom_id": line.custom_id,
                "response": None,
                "error": {"code": code, "message": message},
            }
        answered = [line.record for line in batch.lines if line.outcome == "answered" and line.record]
        failed = [line.record for line in batch.lines if line.outcome != "answered" and line.record]
        if self.reverse_output:
            answered.reverse()
        if answered:
            batch.output_file_id = self._write(f"{batch.id}_output.jsonl", answered).id
        if failed:
            batch.error_file_id = self._write(f"{batch.id}_error.jsonl", failed).id
        now = int(time.time())
        if status == "completed":
            batch.times["finalizing_at"] = now
        batch.times[f"{status}_at"] = now
        batch.status = status

    def _write(self, filename: str, records: list[dict[str, Any]]) -> FakeFile:
        data = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode("utf-8")
        item = FakeFile(self._next_id("file-"), filename, "batch_output", data, int(time.time()))
        self.files[item.id] = item
        return item

    def cancel(self, batch_id: str) -> FakeBatch:
        """``POST /v1/batches/{id}/cancel``: ``cancelling`` now, ``cancelled`` at the next retrieve; 400
        for a batch already ended."""
        with self._lock:
            batch = self.batch(batch_id)
            if batch.status not in ("validating", "in_progress"):
                raise ApiError(400, f"Cannot cancel a batch with status '{batch.status}'.", "batch_id")
            batch.status = "cancelling"
            batch.times["cancelling_at"] = int(time.time())
            return batch

    # -- the test's hand ---------------------------------------------------

    def advance(self, batch_id: str, n: int | None = None) -> None:
        """Answer the next ``n`` lines (None: all) of an open batch, leaving it open (in_progress)."""
        with self._lock:
            batch = self.batch(batch_id)
            self._validate(batch)
            if batch.status != "in_progress":
                raise ValueError(f"batch {batch_id} is {batch.status}, not in_progress")
            self._run(batch, n)

    def complete(self, batch_id: str) -> None:
        """Answer every line still to do and complete the batch."""
        with self._lock:
            self.advance(batch_id)
            self._close(self.batch(batch_id), "completed")

    def expire(self, batch_id: str) -> None:
        """End the batch's window now: lines not yet answered (see :meth:`advance`) are ``batch_expired``."""
        with self._lock:
            batch = self.batch(batch_id)
            self._validate(batch)
            if batch.status != "in_progress":
                raise ValueError(f"batch {batch_id} is {batch.status}, not in_progress")
            self._close(batch, "expired")
