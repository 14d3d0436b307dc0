"""The app's own questions (agent/replies.py): built from the candidates, never the model's
words."""

from __future__ import annotations

from botpsy_agent.agent.replies import Replies
from botpsy_agent.agent.speech import Phrasebook
from devkit.homes import family_home
from tool_schemas.conversation import AskUser


def test_a_question_names_each_candidate_once() -> None:
    # The real 1.5B wrote one blind three times over (dev multi-blinds-and-message).
    home = family_home()
    blinds = sorted(e for e in home.entities if e.startswith("cover."))[:2]
    call = AskUser(missing="target", candidates=[blinds[0], blinds[1], blinds[0], blinds[0]])
    asked = Replies(Phrasebook()).clarify("en", call, home, blinds)
    names = [home.entities[b].name for b in blinds]
    assert [asked.count(name) for name in names] == [1, 1], asked
