"""Rosters from list builders: a BattleScribe or New Recruit roster file (`.ros`, XML in the
`rosterSchema` namespace, or `.rosz`, the same zipped) read safely (`read.py`), mapped onto a
ruleset's unit types and special rules (`mapping.py`), with what the file cannot say answered in a
TOML overlay (`answers.py`), never guessed. The result is the roster `app/roster.py` reads."""

from .answers import Answers, read_answers
from .mapping import Question, Unanswered, answered, roster_data, template
from .read import ListRoster, is_list_file, read_list_file

__all__ = [
    "Answers",
    "ListRoster",
    "Question",
    "Unanswered",
    "answered",
    "is_list_file",
    "read_answers",
    "read_list_file",
    "roster_data",
    "template",
]
