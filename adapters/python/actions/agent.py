"""Seed 002's contract in Python: strict JSON actions, a structure layer, an
authorization layer, and a SQLite inventory that only ``reserve`` writes.

This module is the ``actions`` suite's positive control: the Python side of
``adapters/python/actions/FORMAT.md`` (the rules and their order) and of the
seed's ``from agent import validate_action, ContractError, tool``. Standard
library only. The layers, in the order a proposed action meets them:

- :func:`parse_action`: the text is strict JSON (size, depth, duplicate
  names, ``NaN``/``Infinity``, lone surrogates), else ``invalid_json``;
- :func:`validate_action`: exact key sets and exact types, else a
  ``contract_error`` (or the ``policy_error`` ``unknown_tool``);
- the budget of tool attempts;
- :meth:`Runner.authorize`: may this well-typed action run for this task?
  Else a ``policy_error``;
- execution: ``search``, ``document`` and ``stock`` read; ``reserve`` writes,
  in one ``BEGIN IMMEDIATE`` transaction, idempotently by its key.

The harness reads the database itself (the schema is part of the contract),
so what the runner reports and what it did are checked apart.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

#: The largest action text, in bytes of UTF-8 (FORMAT.md: a Decision).
MAX_TEXT_BYTES = 8192
#: The deepest nesting of arrays and objects; the action object is depth 1.
MAX_DEPTH = 16
#: How long a connection waits for another one's write lock, so that two
#: runners reserving at once take turns instead of failing with "locked".
BUSY_TIMEOUT_S = 30.0

#: The keys of each kind of action, in the order a missing one is reported.
ACTION_KEYS: dict[str, tuple[str, ...]] = {
    "tool": ("kind", "name", "args"),
    "finish": ("kind", "status"),
}
#: The tools and their arguments, in the order they are checked.
TOOL_ARGS: dict[str, tuple[str, ...]] = {
    "search": ("query",),
    "document": ("item_id",),
    "stock": ("item_id",),
    "reserve": ("item_id", "quantity", "expected_revision", "idempotency_key"),
}
#: Integer arguments and their inclusive ranges.
INTEGER_ARGS: dict[str, tuple[int, int]] = {
    "quantity": (1, 10),
    "expected_revision": (0, 2147483647),
}
#: String arguments and their longest length in code points.
STRING_ARGS: dict[str, int] = {"query": 200, "item_id": 64, "idempotency_key": 200}
FINISH_STATUSES = ("reserved", "answered", "insufficient", "ambiguous", "not_found", "retry_later")

#: The 25 code points with the Unicode ``White_Space`` property. Not
#: ``str.isspace``/``str.strip``, which also take U+001C-U+001F; and U+200B
#: and U+FEFF are not white space (FORMAT.md: a Decision).
WHITE_SPACE = frozenset(
    chr(c)
    for c in (
        *range(0x09, 0x0E),
        0x20,
        0x85,
        0xA0,
        0x1680,
        *range(0x2000, 0x200B),
        0x2028,
        0x2029,
        0x202F,
        0x205F,
        0x3000,
    )
)

SCHEMA = """
CREATE TABLE items (
  id        TEXT PRIMARY KEY,
  title     TEXT NOT NULL,
  body      TEXT NOT NULL,
  available INTEGER NOT NULL CHECK (available >= 0),
  revision  INTEGER NOT NULL CHECK (revision >= 0)
);
CREATE TABLE ledger (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  idempotency_key TEXT NOT NULL UNIQUE,
  task_id         TEXT NOT NULL,
  item_id         TEXT NOT NULL REFERENCES items(id),
  quantity        INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 10),
  remaining       INTEGER NOT NULL CHECK (remaining >= 0),
  revision        INTEGER NOT NULL
);
"""

Action = dict[str, Any]
Step = dict[str, Any]
#: A policy proposes the next action's text, or None when it has none left.
Policy = Callable[[], "str | None"]


class ContractError(Exception):
    """A refused action: ``outcome`` is ``contract_error`` (with ``field``,
    a JSON Pointer into the action) or ``policy_error`` (``unknown_tool``
    and every authorization refusal); ``code`` says which rule."""

    def __init__(self, code: str, field: str = "", outcome: str = "contract_error") -> None:
        super().__init__(f"{outcome}: {code} at {field!r}")
        self.outcome = outcome
        self.code = code
        self.field = field

    def step(self) -> Step:
        """The step a runner records for this refusal."""
        if self.outcome == "contract_error":
            return {"outcome": self.outcome, "code": self.code, "field": self.field}
        return {"outcome": self.outcome, "code": self.code}


def tool(name: str, **args: Any) -> Action:
    """A tool action, as the seed builds one: ``tool('stock', item_id='camera')``."""
    return {"kind": "tool", "name": name, "args": args}


def finish(status: str) -> Action:
    """A finish action."""
    return {"kind": "finish", "status": status}


# ---------------------------------------------------------------- strict JSON


class _NotJsonError(ValueError):
    """Raised from inside ``json.loads`` by the hooks below."""


def _refuse_constant(name: str) -> Any:
    # json.loads calls this for NaN, Infinity and -Infinity, which are not JSON
    raise _NotJsonError(f"{name} is not JSON")


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json.loads would keep the last of two equal names; names compare after
    # unescaping, code point for code point, which is str equality
    members = dict(pairs)
    if len(members) != len(pairs):
        raise _NotJsonError("a member name twice in one object")
    return members


def _integer(digits: str) -> int:
    # A JSON integer has any size, but int(str) refuses more than 4300
    # digits (sys.int_max_str_digits) with ValueError: build it 1000 digits
    # at a time, which is exact and needs no string conversion of the whole.
    # The text is at most 8192 bytes, so this stays small.
    negative = digits.startswith("-")
    value = 0
    body = digits.lstrip("-")
    for start in range(0, len(body), 1000):
        chunk = body[start : start + 1000]
        value = value * 10 ** len(chunk) + int(chunk)
    return -value if negative else value


def _too_deep(text: str) -> bool:
    """Whether the arrays and objects of ``text`` nest deeper than
    ``MAX_DEPTH``, found without recursion, so json.loads never meets a
    nesting that could raise RecursionError. Exact for valid JSON; invalid
    text is refused by json.loads anyway."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _is_surrogate(char: str) -> bool:
    return "\ud800" <= char <= "\udfff"


def _has_lone_surrogate(value: Any) -> bool:
    """Whether a string of ``value`` (a key included) holds a surrogate: a
    ``\\u`` escape pair json.loads joins into one code point, so any left is
    lone. Iterative; the depth is already bounded."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if any(_is_surrogate(char) for char in item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def parse_action(text: str) -> object:
    """The JSON value of one action text, strictly (FORMAT.md "Strict
    JSON"); raises ContractError ``invalid_json`` at ``""`` otherwise.
    Integers come back as ``int`` of any size, other numbers as ``float``."""
    if not isinstance(text, str):
        raise ContractError("invalid_json")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        # a surrogate in the text itself: it is not UTF-8 text at all
        raise ContractError("invalid_json") from None
    if size > MAX_TEXT_BYTES or _too_deep(text):
        raise ContractError("invalid_json")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_members,
            parse_constant=_refuse_constant,
            parse_int=_integer,
        )
    except (ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
        raise ContractError("invalid_json") from error
    if _has_lone_surrogate(value):
        raise ContractError("invalid_json")
    return value


# ------------------------------------------------------------ structure layer


def _pointer(*keys: object) -> str:
    """A JSON Pointer (RFC 6901: ``~`` and ``/`` escaped)."""
    return "".join("/" + str(key).replace("~", "~0").replace("/", "~1") for key in keys)


def _check_integer(value: object, low: int, high: int, field: str) -> None:
    if type(value) is not int:  # bool, float, str... are not int (never isinstance)
        raise ContractError("not_integer", field)
    if not low <= value <= high:
        raise ContractError("out_of_range", field)


def _is_control(char: str) -> bool:
    # general category Cc
    return char <= "\x1f" or "\x7f" <= char <= "\x9f"


def _check_string(value: object, longest: int, field: str) -> None:
    if not isinstance(value, str):
        raise ContractError("not_string", field)
    if len(value) > longest:
        raise ContractError("too_long", field)
    if any(_is_control(char) for char in value):
        raise ContractError("control_character", field)
    if all(char in WHITE_SPACE for char in value):  # "" included
        raise ContractError("blank", field)


def validate_action(action: object) -> Action:
    """``action`` if it is a well-formed action, else ContractError: the
    first failure in FORMAT.md's order. Checks the structure only; whether
    the action may run is :meth:`Runner.authorize`'s question."""
    if not isinstance(action, dict):
        raise ContractError("not_object", "")
    if "kind" not in action:
        raise ContractError("missing_field", "/kind")
    kind = action["kind"]
    if not isinstance(kind, str) or kind not in ACTION_KEYS:
        raise ContractError("unknown_kind", "/kind")
    keys = ACTION_KEYS[kind]
    # no lenient mode: a key the kind does not have is refused, even one a
    # tool would ignore (the seed's `path` beside a stock action)
    for key in action:
        if key not in keys:
            raise ContractError("unknown_field", _pointer(key))
    for key in keys:
        if key not in action:
            raise ContractError("missing_field", _pointer(key))

    if kind == "finish":
        status = action["status"]
        if not isinstance(status, str):
            raise ContractError("not_string", "/status")
        if status not in FINISH_STATUSES:
            raise ContractError("unknown_status", "/status")
        return action

    name = action["name"]
    if not isinstance(name, str):
        raise ContractError("not_string", "/name")
    if name not in TOOL_ARGS:
        # a policy error, not a typo to repair: the run ends and no renamed
        # tool is tried
        raise ContractError("unknown_tool", "/name", outcome="policy_error")
    args = action["args"]
    if not isinstance(args, dict):
        raise ContractError("not_object", "/args")
    names = TOOL_ARGS[name]
    for key in args:
        if key not in names:
            raise ContractError("unknown_field", _pointer("args", key))
    for key in names:
        if key not in args:
            raise ContractError("missing_field", _pointer("args", key))
    for key in names:
        if key in INTEGER_ARGS:
            _check_integer(args[key], *INTEGER_ARGS[key], _pointer("args", key))
        else:
            _check_string(args[key], STRING_ARGS[key], _pointer("args", key))
    return action


# ------------------------------------------------------------- tasks and data

TASK_KEYS = ("id", "query", "mode", "quantity", "allow_write", "max_tool_attempts")


def validate_task(task: object) -> dict[str, Any]:
    """``task`` if it is a valid task (FORMAT.md "Scenario"), else
    ValueError: a task is the user's fixed record, never repaired."""
    if not isinstance(task, dict):
        raise ValueError("a task is an object")
    if set(task) != set(TASK_KEYS):
        raise ValueError(f"a task has exactly the keys {', '.join(TASK_KEYS)}")
    try:
        _check_string(task["id"], 64, "/id")
        _check_string(task["query"], 200, "/query")
        _check_integer(task["quantity"], 1, 10, "/quantity")
        _check_integer(task["max_tool_attempts"], 1, 32, "/max_tool_attempts")
    except ContractError as error:
        raise ValueError(f"task {error.field}: {error.code}") from None
    if task["mode"] not in ("read", "reserve"):
        raise ValueError('task /mode: "read" or "reserve"')
    if type(task["allow_write"]) is not bool:
        raise ValueError("task /allow_write: a bool")
    return task


def create_database(path: str | Path, items: Iterable[Mapping[str, Any]]) -> None:
    """Creates the database of FORMAT.md's schema at ``path`` and seeds the
    items (an item's ``text`` is the column ``body``)."""
    rows = []
    for item in items:
        try:
            _check_string(item["id"], 64, "/id")
            _check_integer(item["available"], 0, 1000000, "/available")
            _check_integer(item["revision"], 0, 2147483647, "/revision")
        except ContractError as error:
            raise ValueError(f"item {error.field}: {error.code}") from None
        if not isinstance(item["title"], str) or not isinstance(item["text"], str):
            raise ValueError("an item's title and text are strings")
        rows.append((item["id"], item["title"], item["text"], item["available"], item["revision"]))
    db = sqlite3.connect(path)
    try:
        db.executescript(SCHEMA)
        with db:  # one transaction; the PRIMARY KEY refuses a repeated id
            db.executemany(
                "INSERT INTO items (id, title, body, available, revision) VALUES (?, ?, ?, ?, ?)",
                rows,
            )
    finally:
        db.close()


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------ the runner


class Runner:
    """One task run: asks ``policy`` for actions until one ends the run.

    It keeps what authorization needs: the hits of the last ``search``, the
    last ``stock`` observation of each item, which items were read, and
    whether a ``reserve`` was ok or rejected. Each runner has its own SQLite
    connection, opened by :meth:`run`.
    """

    def __init__(self, db_path: str | Path, task: Mapping[str, Any], policy: Policy) -> None:
        self.db_path = str(db_path)
        self.task = validate_task(dict(task))
        self.policy = policy
        self.steps: list[Step] = []
        self.attempts = 0
        #: the item ids of the last search's hits; None before any search
        self.hits: list[str] | None = None
        #: item id -> (available, revision) of its last stock observation
        self.observed: dict[str, tuple[int, int]] = {}
        #: items a document or stock of this run read
        self.read: set[str] = set()
        self.reserved = False
        self.rejected = False
        #: the outcome of the last executed tool step
        self.last_outcome: str | None = None
        self._db: sqlite3.Connection | None = None

    # the loop

    def run(self) -> dict[str, Any]:
        """The run, as FORMAT.md's observation ``runs[i]``."""
        # autocommit (isolation_level=None): reads take no lasting lock and
        # reserve opens its own transaction explicitly
        self._db = sqlite3.connect(
            self.db_path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        try:
            self._db.execute("PRAGMA foreign_keys = ON")
            status = self._loop()
        finally:
            self._db.close()
            self._db = None
        return {"steps": self.steps, "status": status, "attempts": self.attempts}

    def _end(self, step: Step, status: str) -> str:
        self.steps.append(step)
        return status

    def _loop(self) -> str:
        while True:
            text = self.policy()
            if text is None:
                return self._end({"outcome": "policy_error", "code": "no_action"}, "policy_error")
            try:
                action = validate_action(parse_action(text))
            except ContractError as refused:
                return self._end(refused.step(), refused.outcome)
            # the budget counts executed tool actions; finish is never refused for it
            if action["kind"] == "tool" and self.attempts == self.task["max_tool_attempts"]:
                return self._end(
                    {"outcome": "budget_exhausted", "code": "budget"}, "budget_exhausted"
                )
            try:
                self.authorize(action)
            except ContractError as refused:
                return self._end(refused.step(), refused.outcome)
            if action["kind"] == "finish":
                status = action["status"]
                return self._end({"outcome": "finished", "status": status}, status)
            step = self._execute(action["name"], action["args"])
            self.attempts += 1
            self.last_outcome = step["outcome"]
            self.steps.append(step)

    # authorization

    def _unique_hit(self) -> str | None:
        if self.hits is not None and len(self.hits) == 1:
            return self.hits[0]
        return None

    def authorize(self, action: Action) -> None:
        """Whether a valid action may run for this task now, else
        ContractError with outcome ``policy_error`` (FORMAT.md, in order).
        Only the task and what this run observed count: never a document's
        text, never the policy's say-so."""
        task = self.task
        if action["kind"] == "finish":
            self._authorize_finish(action["status"])
            return
        name, args = action["name"], action["args"]

        def refuse(code: str, field: str = "") -> ContractError:
            return ContractError(code, field, outcome="policy_error")

        if name == "search":
            # the task's query is the only search the user allowed
            if args["query"] != task["query"]:
                raise refuse("query_mismatch", "/args/query")
        elif name in ("document", "stock"):
            if self.hits is None:
                raise refuse("no_search")
            if args["item_id"] not in self.hits:
                raise refuse("not_a_hit", "/args/item_id")
        else:  # reserve
            if task["mode"] != "reserve" or task["allow_write"] is not True:
                raise refuse("writes_not_allowed")
            if self.hits is None:
                raise refuse("no_search")
            # two hits are ambiguous: the first is never chosen for the user
            if args["item_id"] != self._unique_hit():
                raise refuse("not_unique_hit", "/args/item_id")
            if args["quantity"] != task["quantity"]:
                raise refuse("quantity_mismatch", "/args/quantity")
            observed = self.observed.get(args["item_id"])
            if observed is None:
                raise refuse("no_observation", "/args/item_id")
            if args["expected_revision"] != observed[1]:
                raise refuse("revision_mismatch", "/args/expected_revision")
            # the key the task and the preset content determine, so a retry
            # of the same reservation is recognised as one
            if args["idempotency_key"] != f"{task['id']}:{args['item_id']}:{task['quantity']}":
                raise refuse("key_mismatch", "/args/idempotency_key")

    def _authorize_finish(self, status: str) -> None:
        """A finish status needs its evidence in this run."""
        hit = self._unique_hit()
        if status == "reserved":
            supported = self.reserved
        elif status == "answered":
            supported = self.task["mode"] == "read" and hit is not None and hit in self.read
        elif status == "insufficient":
            observed = self.observed.get(hit) if hit is not None else None
            supported = self.rejected or (
                observed is not None and observed[0] < self.task["quantity"]
            )
        elif status == "ambiguous":
            supported = self.hits is not None and len(self.hits) >= 2
        elif status == "not_found":
            supported = self.hits is not None and len(self.hits) == 0
        else:  # retry_later
            supported = self.last_outcome == "retryable"
        if not supported:
            raise ContractError("unsupported_status", "/status", outcome="policy_error")

    # execution

    def _rows(self, sql: str, *parameters: object) -> list[Any]:
        assert self._db is not None
        # fetchall: a statement left half-read would keep its read lock
        return self._db.execute(sql, parameters).fetchall()

    def _execute(self, name: str, args: dict[str, Any]) -> Step:
        if name == "reserve":
            return self._reserve(args)
        if name == "search":
            result: dict[str, Any] = {"hits": self._search(args["query"])}
            self.hits = [hit["id"] for hit in result["hits"]]
        else:
            item_id = args["item_id"]
            ((body, available, revision),) = self._rows(
                "SELECT body, available, revision FROM items WHERE id = ?", item_id
            )
            self.read.add(item_id)
            if name == "document":
                # the text is data: returned, flagged, never read as an order
                result = {
                    "item_id": item_id,
                    "text": body,
                    "digest": _digest(body),
                    "untrusted": True,
                }
            else:
                self.observed[item_id] = (available, revision)
                result = {"item_id": item_id, "available": available, "revision": revision}
        return {"outcome": "ok", "tool": name, "result": result}

    def _search(self, query: str) -> list[dict[str, str]]:
        """Items whose title or text holds the query, after full case
        folding (``ß`` and ``ss`` match), by id (code point order)."""
        folded = query.casefold()
        hits = [
            {"id": item_id, "title": title, "text": body}
            for item_id, title, body in self._rows("SELECT id, title, body FROM items")
            if folded in title.casefold() or folded in body.casefold()
        ]
        return sorted(hits, key=lambda hit: hit["id"])

    def _reserve(self, args: dict[str, Any]) -> Step:
        """The only write: one immediate transaction, so two runners
        reserving at once take turns and the second sees the first's
        revision. The ledger's UNIQUE key and the items' CHECK are the last
        word: a bug here raises IntegrityError rather than double-writing."""
        assert self._db is not None
        db = self._db
        item_id, quantity = args["item_id"], args["quantity"]
        key, expected = args["idempotency_key"], args["expected_revision"]
        db.execute("BEGIN IMMEDIATE")
        try:
            # 1. the same key again: the recorded result, nothing changes
            replay = self._rows(
                "SELECT item_id, quantity, remaining, revision, id FROM ledger"
                " WHERE idempotency_key = ?",
                key,
            )
            if replay:
                ((item, reserved, remaining, revision, transaction),) = replay
                step = self._reserved(
                    item, reserved, remaining, revision, transaction, replayed=True
                )
            else:
                ((available, current),) = self._rows(
                    "SELECT available, revision FROM items WHERE id = ?", item_id
                )
                if current != expected:
                    # 2. someone changed the item since the policy looked
                    step = {"outcome": "retryable", "code": "stale_revision"}
                elif available < quantity:
                    # 3. a business fact, not a failure to retry
                    step = {"outcome": "rejected", "code": "insufficient_stock"}
                else:
                    # 4. the write
                    db.execute(
                        "UPDATE items SET available = available - ?, revision = revision + 1"
                        " WHERE id = ?",
                        (quantity, item_id),
                    )
                    remaining, revision = available - quantity, current + 1
                    cursor = db.execute(
                        "INSERT INTO ledger (idempotency_key, task_id, item_id, quantity,"
                        " remaining, revision) VALUES (?, ?, ?, ?, ?, ?)",
                        (key, self.task["id"], item_id, quantity, remaining, revision),
                    )
                    step = self._reserved(
                        item_id, quantity, remaining, revision, cursor.lastrowid, replayed=False
                    )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        if step["outcome"] == "ok":
            self.reserved = True
        elif step["outcome"] == "rejected":
            self.rejected = True
        return step

    @staticmethod
    def _reserved(
        item_id: str,
        reserved: int,
        remaining: int,
        revision: int,
        transaction: int | None,
        *,
        replayed: bool,
    ) -> Step:
        return {
            "outcome": "ok",
            "tool": "reserve",
            "result": {
                "item_id": item_id,
                "reserved": reserved,
                "remaining": remaining,
                "revision": revision,
                "transaction": transaction,
                "replayed": replayed,
            },
        }
