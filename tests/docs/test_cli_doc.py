"""docs/cli.md names only commands and options that exist: every ``lengthgen <subcommand>`` of its command block
is a subcommand, and every ``--option`` written after it (on its line, or on the comment lines that continue it)
is one of that subcommand's options."""

from __future__ import annotations

import re
from pathlib import Path

from lengthgen.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
COMMAND = re.compile(r"\blengthgen ([a-z][a-z-]*)")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def named(block: str) -> list[tuple[str, str]]:
    """(subcommand, option) for every option the block writes after a subcommand (a `` -- `` ends the command's
    own options: what follows is another command's)."""
    found, current = [], None
    for line in block.splitlines():
        line = line.split(" -- ")[0]
        for segment in re.split(r"(?=\blengthgen [a-z])", line):
            match = COMMAND.match(segment)
            current = match.group(1) if match else current
            if current is not None:
                found += [(current, "")] if match else []
                found += [(current, option) for option in OPTION.findall(segment)]
    return found


def test_every_command_and_option_the_block_names_exists():
    block = (ROOT / "docs" / "cli.md").read_text().split("## The `lengthgen` command", 1)[1].split("```", 2)[1]
    commands = build_parser()._subparsers._group_actions[0].choices
    pairs = named(block)
    assert {command for command, _ in pairs} >= {"train", "run", "weight-decay", "far", "multiverse"}
    missing = [
        (command, option)
        for command, option in pairs
        if command not in commands
        or option
        and option not in {o for action in commands[command]._actions for o in action.option_strings}
    ]
    assert not missing


def test_the_reading_sees_a_wrong_option():
    assert named("lengthgen pinning --offsets 1  # and --nothing\n   # --more\nlengthgen timed -- pytest --x") == [
        ("pinning", ""),
        ("pinning", "--offsets"),
        ("pinning", "--nothing"),
        ("pinning", "--more"),
        ("timed", ""),
    ]
