"""A tool's preamble: the lines it prints before every output (a shell profile's warnings
before each command's), left out of a success's one-line preview once two different calls of
the tool began with them (bot/session/calling.py, bot/session/tool_calls.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.preview import build_preview
from bot.records import Origin, SessionStarted, ToolCall, ToolResult
from bot.session import Session
from bot.session.tool_calls import leading_lines, past_preamble, shared_preamble
from tests.conftest import corpus_file

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOISE = "bash: warning: setlocale: LC_ALL: cannot change locale (en_US.UTF-8)\n"


def session_of(*calls: tuple[str, str, str, bool]) -> Session:
    """A session of calls, each (tool, command, output, failed), each ending before the next."""
    session = Session("s")
    session.apply(SessionStarted(Origin("s", T0, 1), agent="Claude Code", cwd="/w"))
    for number, (tool, command, output, failed) in enumerate(calls):
        origin = Origin("s", T0, 2 * number + 2)
        session.apply(ToolCall(origin, call_id=f"c{number}", name=tool, input={"command": command}))
        session.apply(ToolResult(origin, call_id=f"c{number}", output=output, is_error=failed))
    return session


def outputs(session: Session) -> list[str]:
    return [call.output for call in session.calls.values()]


def test_lines_two_different_commands_began_with_are_left_out_of_the_next_previews() -> None:
    session = session_of(
        ("Bash", "ls", NOISE + "a.py\nb.py\n", False),
        ("Bash", "cat a.py", NOISE + "print(1)\n", False),
        ("Bash", "pwd", NOISE + "/w\n", False),
    )
    assert outputs(session) == [
        NOISE.strip() + " a.py b.py",  # the first: nothing yet says the line is the shell's
        "print(1)",
        "/w",
    ]


def test_the_same_command_run_twice_teaches_nothing_its_output_may_well_repeat() -> None:
    session = session_of(
        ("Bash", "ls", "a.py\nb.py\n", False), ("Bash", "ls", "a.py\nb.py\nc.py\n", False)
    )
    assert outputs(session) == ["a.py b.py", "a.py b.py c.py"]


def test_a_preamble_is_one_tools_not_anothers() -> None:
    session = session_of(
        ("Bash", "ls", NOISE + "a.py\n", False),
        ("Bash", "pwd", NOISE + "/w\n", False),
        ("shell", "ls", NOISE + "a.py\n", False),
    )
    assert outputs(session)[2].startswith("bash: warning")


def test_an_output_that_is_only_the_preamble_is_shown_as_it_is() -> None:
    session = session_of(
        ("Bash", "ls", NOISE + "a.py\n", False),
        ("Bash", "pwd", NOISE + "/w\n", False),
        ("Bash", "true", NOISE, False),
    )
    assert outputs(session)[2] == NOISE.strip()


def test_a_failed_calls_output_keeps_its_preamble() -> None:
    session = session_of(
        ("Bash", "ls", NOISE + "a.py\n", False),
        ("Bash", "pwd", NOISE + "/w\n", False),
        ("Bash", "cat x", NOISE + "cat: x: No such file\n", True),
    )
    assert outputs(session)[2] == NOISE + "cat: x: No such file\n"


def test_a_blank_first_line_is_no_preamble() -> None:
    assert shared_preamble(("", "x"), ("", "y")) == ()
    assert shared_preamble(("w1", "w2", "a"), ("w1", "w2", "b")) == ("w1", "w2")


def test_outputs_the_same_throughout_have_no_preamble_nothing_says_where_it_would_end() -> None:
    assert shared_preamble(("a", "b", ""), ("a", "b", "")) == ()
    assert shared_preamble(("a", "b"), ("a", "b", "c")) == ()  # one ran out: no line differs
    session = session_of(
        ("Bash", "npm test", "PASS a\nPASS b\nok\n", False),
        ("Bash", "npm run test", "PASS a\nPASS b\nok\n", False),
        ("Bash", "npx jest", "PASS a\nPASS b\nok\n", False),
    )
    assert outputs(session) == ["PASS a PASS b ok"] * 3


def test_an_outputs_first_lines_are_read_with_the_line_after_a_longest_preamble() -> None:
    assert leading_lines("only line") == ("only line",)
    assert leading_lines("1\n2\n3\n4\n5\n6\n7") == ("1", "2", "3", "4", "5")
    assert sum(map(len, leading_lines("x" * 10_000))) == 2000


def test_past_preamble_leaves_an_output_that_does_not_begin_with_it() -> None:
    assert past_preamble("x\nw\n", ("w",)) == "x\nw\n"
    assert past_preamble("w\nx\n", ("w",)) == "x\n"


def test_a_codex_rollouts_shell_profile_warnings_leave_its_commands_previews() -> None:
    name = "jnarowski__agentcmd__rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl"  # noqa: E501
    (session,) = build_preview([corpus_file("codex-rollout", name)]).sessions()
    previews = [call.output for call in session.calls.values() if call.status.value == "ok"]
    noisy = [preview for preview in previews if preview.startswith("/opt/homebrew")]
    # Its first three calls are all `ls` (one summary: nothing learnt), the fourth is `cat`;
    # one `find` later printed nothing but the warnings (shown as they are).
    assert (len(previews), len(noisy)) == (45, 4)
    assert previews[3].startswith('{ "name": "@repo/spectora-labs"')
