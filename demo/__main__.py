"""`make demo` — the whole thing, end to end, on this machine.

    python -m demo                          interactive prompt (you> ), as the admin
    python -m demo --once "turn on the kitchen light" [--user child]
    python -m demo --model path/to/BotPsy-0.8B-Q8_0.gguf

At the prompt: /user admin | /user child switches who is speaking, /new starts a new
conversation, /quit (or Ctrl-D, Ctrl-C) stops everything and leaves no process behind.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
from pathlib import Path
import sys
from typing import Any

import aiohttp

from botpsy_agent.config import ModelChoice as Quant
from botpsy_agent.models.catalog import CATALOG, HUGGING_FACE_BASE_URL
from botpsy_agent.models.store import ModelPlan, ensure_model
from demo.client import AgentClient
from demo.stack import INSTANCE, DemoStack, ModelChoice, quiet_libraries
from devkit.tiny_gguf import TINY_QWEN35, cached_model

ANSWERED = {"done", "needs_confirmation", "needs_clarification", "refused"}


def say(line: str) -> None:
    print(f"[demo] {line}", flush=True)


async def choose_model(given: Path | None, *, stand_in: bool) -> ModelChoice:
    """A given file, the app's download when online, else a generated stand-in."""
    if given is not None:
        if not await asyncio.to_thread(given.is_file):
            raise SystemExit(f"[demo] --model {given}: no such file")
        return ModelChoice(given, stand_in=False)
    if not stand_in:
        cache = Path(os.environ.get("BOTPSY_CACHE", Path.home() / ".cache" / "botpsy")) / "models"
        entry = CATALOG[Quant.Q8_0]
        plan = ModelPlan(
            cache / entry.file_name,
            entry.url(),
            entry.sha256,
            entry.approx_bytes,
            "BotPsy-0.8B Q8_0",
        )
        if plan.path.exists() or await _online(HUGGING_FACE_BASE_URL):
            say(f"using BotPsy-0.8B Q8_0 ({entry.approx_bytes / 1e9:.2f} GB) in {cache}")
            async with aiohttp.ClientSession() as session:
                path = await ensure_model(
                    plan, session=session, offline=False, on_progress=_progress
                )
            return ModelChoice(path, stand_in=False)
    say("no model file and no internet: using a generated stand-in model.")
    say("  Its answers are random, but the fast path, the permissions and the execution in")
    say("  Home Assistant are real. Give a real file with --model PATH.")
    return ModelChoice(cached_model(TINY_QWEN35, "tiny-qwen35"), stand_in=True)


async def _online(url: str) -> bool:
    try:
        timeout = aiohttp.ClientTimeout(total=5)
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.head(url, allow_redirects=True) as response,
        ):
            return response.status < 400
    except aiohttp.ClientError, TimeoutError, OSError:
        return False


def _progress(line: str) -> None:
    say(line)


def show(answer: dict[str, Any]) -> None:
    print(f"botpsy> {answer.get('speech') or '(no words)'}")
    timings = answer.get("timings", {})
    parts = [
        f"{k.removesuffix('_ms').replace('_', ' ')} {v:.0f} ms"
        for k, v in timings.items()
        if k != "total_ms" and v
    ]
    print(
        f"        [{answer['status']} · {answer.get('path', 'none').replace('_', ' ')} · "
        f"{timings.get('total_ms', 0):.0f} ms" + (f" ({', '.join(parts)})" if parts else "") + "]"
    )
    for action in answer.get("actions", []):
        targets = ", ".join(action.get("entity_ids", [])) or "-"
        rule = f", rule {action['rule']}" if action.get("rule") else ""
        decided = f"{action['decision']}{rule}"
        print(f"        • {action['tool']} {targets} → {action['outcome']} ({decided})")
    if answer.get("error"):
        print(f"        ! {answer['error']['code']}: {answer['error']['message']}")


async def converse(
    stack: DemoStack, client: AgentClient, user: str, once: str | None, *, as_json: bool = False
) -> int:
    assert stack.accounts is not None
    people = {"admin": stack.accounts.admin_id, "child": stack.accounts.child_id}
    conversation: str | None = None
    if once is not None:
        answer = await client.ask(once, people[user])
        print(json.dumps(answer, indent=2)) if as_json else show(answer)
        return 0 if answer["status"] in ANSWERED else 1
    say("type a request (/user admin|child, /new, /quit)")
    while True:
        try:
            line = await asyncio.to_thread(input, f"you ({user})> ")
        except EOFError:
            return 0
        line = line.strip()
        if not line:
            continue
        if line in {"/quit", "/exit"}:
            return 0
        if line == "/new":
            conversation = None
            continue
        if line.startswith("/user"):
            wanted = line.removeprefix("/user").strip()
            if wanted in people:
                user, conversation = wanted, None
                say(f"now speaking as {wanted}")
            else:
                say("/user admin or /user child")
            continue
        answer = await client.ask(line, people[user], conversation_id=conversation)
        conversation = answer.get("conversation_id") or conversation
        show(answer)


async def main(args: argparse.Namespace) -> int:
    quiet_libraries()
    model = await choose_model(args.model, stand_in=args.stand_in)
    async with DemoStack(model, say) as stack:
        client = AgentClient(stack.broker.host, stack.broker.port, INSTANCE, stack.secret)
        await client.connect()
        try:
            if model.stand_in:
                say("(stand-in model: requests the fast path does not know get random answers)")
            return await converse(stack, client, args.user, args.once, as_json=args.json)
        finally:
            await client.close()


def run() -> None:
    parser = argparse.ArgumentParser(
        prog="make demo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--once", metavar="TEXT", help="send one request, print the answer, stop")
    parser.add_argument(
        "--user",
        choices=("admin", "child"),
        default="admin",
        help="who speaks: the admin (Alex) or the child (Sam); default admin",
    )
    parser.add_argument(
        "--model",
        type=Path,
        default=os.environ.get("BOTPSY_MODEL") or None,
        help="a GGUF file to use (default: $BOTPSY_MODEL, then the app's download)",
    )
    parser.add_argument(
        "--json", action="store_true", help="with --once: print the whole answer as JSON"
    )
    parser.add_argument(
        "--stand-in", action="store_true", help="use the generated stand-in model even when online"
    )
    args = parser.parse_args()
    code = 130
    with contextlib.suppress(KeyboardInterrupt):
        code = asyncio.run(main(args))
    sys.exit(code)


if __name__ == "__main__":
    run()
