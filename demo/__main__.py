"""`make demo` — the whole thing, end to end, on this machine.

    python -m demo                          interactive prompt (you> ), as the admin
    python -m demo --once "turn on the kitchen light" [--user child]
    python -m demo --once "turn on the kitchen light" --via assist
    python -m demo --model path/to/BotPsy-0.8B-Q8_0.gguf
    python -m demo --first-start --once "..."   an empty models folder: the download shown

Requests go to the app over its MQTT topic API (signed for the chosen user), or with
--via assist through Home Assistant's own Assist (conversation API, our integration's agent;
it speaks as the admin, whose token the demo holds). At the prompt: /user admin | /user child
switches who is speaking, /via mqtt | /via assist switches the path, /new starts a new
conversation, /timings shows (or hides) where each answer's time went (--timings: from the
start), /quit (or Ctrl-D, Ctrl-C) stops everything and leaves no process behind.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import faulthandler
import json
import math
import os
from pathlib import Path
import signal
import sys
import time
from typing import Any

import aiohttp

from botpsy_agent.app.config import DEFAULT_OPTIONS, parse_options
from botpsy_agent.app.model_fetch import ModelFetch
from botpsy_agent.weights.catalog import CATALOG, HUGGING_FACE_BASE_URL
from botpsy_agent.weights.download import DownloadProgress
from botpsy_agent.weights.options import ModelChoice as Quant
from botpsy_agent.weights.store import ensure_model, plan_model
from demo.assist import AssistClient, show_assist
from demo.client import WARM_UP_RETRY_S, AgentClient
from demo.first_start import local_model_server
from demo.prompt import Prompt
from demo.stack import (
    INSTANCE,
    DemoStack,
    ModelChoice,
    quiet_libraries,
    stop_cleanly_on_sigterm,
)
from demo.timings import step_lines, turn_line
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
        options = parse_options({**DEFAULT_OPTIONS, "model": entry.choice})
        plan = plan_model(options.model, cache, cache)  # the developer's own cache: its records too
        if plan.path.exists() or await _online(HUGGING_FACE_BASE_URL):
            say(f"using {plan.label} ({entry.approx_bytes / 1e9:.2f} GB) in {cache}")
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


def _progress(progress: DownloadProgress) -> None:
    say(f"downloading {progress.name}: {progress.text()}")


def show(answer: dict[str, Any], *, breakdown: bool = False) -> None:
    """The answer, its timing line and (with `breakdown`) each model step's figures."""
    print(f"botpsy> {answer.get('speech') or '(no words)'}")
    timings = answer.get("timings", {})
    path = answer.get("path", "none").replace("_", " ")
    print(f"        [{answer['status']} · {path} · {turn_line(timings)}]")
    if breakdown:
        for line in step_lines(timings):
            print(f"        ⏱ {line}")
    for action in answer.get("actions", []):
        targets = ", ".join(action.get("entity_ids", [])) or "-"
        rule = f", rule {action['rule']}" if action.get("rule") else ""
        decided = f"{action['decision']}{rule}"
        print(f"        • {action['tool']} {targets} → {action['outcome']} ({decided})")
    if answer.get("error"):
        print(f"        ! {answer['error']['code']}: {answer['error']['message']}")


def _quantile(values: list[float], q: float) -> float:
    """The nearest-rank quantile (a demo summary: a handful of turns)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


class Conversation:
    """The prompt's state: who speaks, by which path, in which conversation."""

    def __init__(
        self,
        stack: DemoStack,
        client: AgentClient,
        user: str,
        via: str,
        *,
        timings: bool = False,
    ) -> None:
        assert stack.accounts is not None
        self.stack = stack
        self.people = {"admin": stack.accounts.admin_id, "child": stack.accounts.child_id}
        self.client = client
        self.assist = (
            AssistClient(stack.ha_url, stack.accounts.token, stack.assist_agent)
            if stack.assist_agent
            else None
        )
        self.user, self.via = user, via
        self.timings = timings
        """Print each model step's time breakdown under its answer (/timings toggles it)."""
        self.conversation_id: str | None = None
        self.asked = self.answered = 0
        self.waited_ms: dict[str, list[float]] = {}
        """Per answer path, each whole turn as the user waited: request in, answer out."""

    def command(self, line: str) -> None:
        """A /command typed at the prompt."""
        name, _, wanted = line.partition(" ")
        wanted = wanted.strip()
        if name == "/new":
            self.conversation_id = None
        elif name == "/timings":
            self.timings = not self.timings
            say(f"time breakdowns {'on' if self.timings else 'off'}")
        elif name == "/user" and wanted in self.people:
            if self.via == "assist" and wanted != "admin":
                say("Assist speaks as the admin; /via mqtt first to speak as the child")
            else:
                self.user, self.conversation_id = wanted, None
                say(f"now speaking as {wanted}")
        elif name == "/via" and wanted in {"mqtt", "assist"}:
            if wanted == "assist" and (self.assist is None or self.user != "admin"):
                say("Assist needs the integration and speaks as the admin (/user admin first)")
            else:
                self.via, self.conversation_id = wanted, None
                say(f"requests now go via {wanted}")
        else:
            say("/user admin|child, /via mqtt|assist, /new, /timings, /quit")

    async def ask(self, text: str, *, as_json: bool = False) -> bool:
        """Send one request and print the answer; True if it was answered."""
        started = time.monotonic()
        answered, path = await self._ask(text, as_json=as_json)
        self.waited_ms.setdefault(path, []).append((time.monotonic() - started) * 1000)
        self.asked += 1
        self.answered += answered
        return answered

    def summary(self) -> str:
        """Whole turns by path, p50/p95, as the user waited for them."""
        parts = [
            f"{path.replace('_', ' ')} {len(ms)} turns, p50 {_quantile(ms, 0.5):.0f} ms, "
            f"p95 {_quantile(ms, 0.95):.0f} ms"
            for path, ms in sorted(self.waited_ms.items())
        ]
        return "whole turns: " + ("; ".join(parts) or "none")

    async def _ask(self, text: str, *, as_json: bool) -> tuple[bool, str]:
        await self.stack.wait_ready()  # at once, unless HA is restarting
        if self.via == "assist" and self.assist is not None:
            result = await self.assist.ask(text, conversation_id=self.conversation_id)
            self.conversation_id = result.get("conversation_id") or self.conversation_id
            print(json.dumps(result, indent=2)) if as_json else show_assist(result)
            return bool(result.get("response", {}).get("response_type") != "error"), "assist"
        answer = await self.client.ask_when_warm(
            text,
            self.people[self.user],
            conversation_id=self.conversation_id,
            on_wait=lambda a: say(
                f"{a.get('speech', '')} (asking again in {WARM_UP_RETRY_S:.0f} s)"
            ),
        )
        self.conversation_id = answer.get("conversation_id") or self.conversation_id
        print(json.dumps(answer, indent=2)) if as_json else show(answer, breakdown=self.timings)
        return bool(answer["status"] in ANSWERED), str(answer.get("path") or "none")


async def converse(
    stack: DemoStack,
    client: AgentClient,
    user: str,
    once: str | None,
    *,
    via: str = "mqtt",
    as_json: bool = False,
    tally: bool = False,
    timings: bool = False,
) -> int:
    session = Conversation(stack, client, user, via, timings=timings)
    if once is not None:
        if via == "assist" and (session.assist is None or user != "admin"):
            say("--via assist needs the integration and speaks as the admin")
            return 2
        answered = await session.ask(once, as_json=as_json)
        say(session.summary())
        if (model := stack.model_line()) is not None:
            say(model)
        return 0 if answered else 1
    say("type a request (/user admin|child, /via mqtt|assist, /new, /timings, /quit)")
    prompt = Prompt(sys.stdin.fileno())
    while True:
        try:
            line = await prompt.ask(f"you ({session.user}, {session.via})> ")
        except EOFError:
            line = "/quit"
        line = line.strip()
        if line in {"/quit", "/exit"}:
            say(session.summary())
            if (model := stack.model_line()) is not None:
                say(model)
            if not tally:
                return 0
            # --tally: a scripted session (script/demo-session) fails if any went unanswered
            say(f"answered: {session.answered}/{session.asked}")
            return 0 if session.answered == session.asked else 1
        if line.startswith("/"):
            session.command(line)
        elif line:
            await session.ask(line)


async def main(args: argparse.Namespace) -> int:
    quiet_libraries()
    if args.first_start:
        async with local_model_server() as first:
            say(f"first start: an empty models folder; the model comes from {first.fetch.plan.url}")
            model = ModelChoice(first.model_path, stand_in=True)
            return await run_stack(args, model, model_fetch=first.fetch)
    model = await choose_model(args.model, stand_in=args.stand_in)
    return await run_stack(args, model)


async def run_stack(
    args: argparse.Namespace, model: ModelChoice, *, model_fetch: ModelFetch | None = None
) -> int:
    async with DemoStack(model, say, model_fetch=model_fetch) as stack:
        client = AgentClient(stack.broker.host, stack.broker.port, INSTANCE, stack.secret)
        await client.connect()
        try:
            if model.stand_in:
                say("(stand-in model: requests the fast path does not know get random answers)")
            return await converse(
                stack,
                client,
                args.user,
                args.once,
                via=args.via,
                as_json=args.json,
                tally=args.tally,
                timings=args.timings,
            )
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
        "--via",
        choices=("mqtt", "assist"),
        default="mqtt",
        help="the app's MQTT topic API (default) or HA's Assist with our integration's agent",
    )
    parser.add_argument(
        "--json", action="store_true", help="with --once: print the whole answer as JSON"
    )
    parser.add_argument(
        "--timings",
        action="store_true",
        help="under each answer, where its time went: each model step's figures",
    )
    parser.add_argument(
        "--tally",
        action="store_true",
        help="at the end, print how many requests were answered; fail if any was not",
    )
    parser.add_argument(
        "--stand-in", action="store_true", help="use the generated stand-in model even when online"
    )
    parser.add_argument(
        "--first-start",
        action="store_true",
        help="start with an empty models folder: the app downloads the (stand-in) model from a "
        "local file server after it has connected, and the demo prints each model state",
    )
    args = parser.parse_args()
    code = 130
    stop_cleanly_on_sigterm()
    # Ctrl-C stops the demo also when it was started with SIGINT ignored, as a script's
    # background job is (POSIX): Python then installs no handler of its own, asyncio none
    # either, and the demo sat at its prompt (the Ctrl-C test, in a backgrounded make test).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # `kill -USR1` prints every thread's stack: what a demo that does not stop is waiting on.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    with contextlib.suppress(KeyboardInterrupt):
        code = asyncio.run(main(args))
    sys.exit(code)


if __name__ == "__main__":
    run()
